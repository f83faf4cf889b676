// index_add, index_copy, index_fill, scatter_reduce, index_reduce, masked_scatter, put, index_put, nonzero,
// diagonal_scatter, select_scatter and slice_scatter against tests/golden/gen_index_extra.py's fixtures.
#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(index_add) {
  glia_scalar alpha = c.has("alpha") ? c.scalar("alpha") : glia_scalar_int(1);
  return glia_index_add(c.in[0], c.integer("dim", 0), c.in[1], c.in[2], alpha, c.out());
}
GLIA_ADAPTER(index_copy) { return glia_index_copy(c.in[0], c.integer("dim", 0), c.in[1], c.in[2], c.out()); }
GLIA_ADAPTER(index_fill) { return glia_index_fill(c.in[0], c.integer("dim", 0), c.in[1], c.scalar("value"), c.out()); }
GLIA_ADAPTER(scatter_reduce) {
  const std::string reduce = c.str("reduce", "sum");
  return glia_scatter_reduce(c.in[0], c.integer("dim", 0), c.in[1], c.in[2], reduce.c_str(),
                             c.flag("include_self", true) ? 1 : 0, c.out());
}
GLIA_ADAPTER(index_reduce) {
  const std::string reduce = c.str("reduce", "prod");
  return glia_index_reduce(c.in[0], c.integer("dim", 0), c.in[1], c.in[2], reduce.c_str(),
                           c.flag("include_self", true) ? 1 : 0, c.out());
}
GLIA_ADAPTER(masked_scatter) { return glia_masked_scatter(c.in[0], c.in[1], c.in[2], c.out()); }
GLIA_ADAPTER(put) { return glia_put(c.in[0], c.in[1], c.in[2], c.flag("accumulate", false) ? 1 : 0, c.out()); }
GLIA_ADAPTER(index_put) {
  std::vector<const glia_tensor*> idx(c.in.begin() + 2, c.in.end());
  return glia_index_put(c.in[0], idx.data(), static_cast<int64_t>(idx.size()), c.in[1],
                        c.flag("accumulate", false) ? 1 : 0, c.out());
}
GLIA_ADAPTER(nonzero) { return glia_nonzero(c.in[0], c.out()); }
GLIA_ADAPTER(diagonal_scatter) {
  return glia_diagonal_scatter(c.in[0], c.in[1], c.integer("offset", 0), c.integer("dim1", 0), c.integer("dim2", 1),
                               c.out());
}
GLIA_ADAPTER(select_scatter) {
  return glia_select_scatter(c.in[0], c.in[1], c.integer("dim", 0), c.integer("index", 0), c.out());
}
GLIA_ADAPTER(slice_scatter) {
  return glia_slice_scatter(c.in[0], c.in[1], c.integer("dim", 0), c.integer("start", 0), c.integer("end", 0),
                            c.integer("step", 1), c.out());
}

TEST(IndexExtra, Golden) { run_cases("index_extra.json"); }
TEST(IndexExtra, Errors) { run_errors("index_extra.json"); }
