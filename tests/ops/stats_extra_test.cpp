// searchsorted, bucketize, isin, unique, unique_consecutive, histc against tests/golden/gen_stats_extra.py's
// fixtures, and the C API's own argument handling.
#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(searchsorted) {
  std::string side = c.str("side", "");
  return glia_searchsorted(c.in[0], c.in[1], c.flag("out_int32", false), c.flag("right", false),
                           c.has("side") ? side.c_str() : nullptr, c.in.size() > 2 ? c.in[2] : nullptr, c.out());
}
GLIA_ADAPTER(bucketize) {
  return glia_bucketize(c.in[0], c.in[1], c.flag("out_int32", false), c.flag("right", false), c.out());
}
GLIA_ADAPTER(isin) {
  return glia_isin(c.in[0], c.in[1], c.flag("assume_unique", false), c.flag("invert", false), c.out());
}
GLIA_ADAPTER(unique) {
  glia_tensor** o = c.out(3);
  return glia_unique(c.in[0], 1, nullptr, &o[0], &o[1], &o[2]);
}
GLIA_ADAPTER(unique_consecutive) {
  glia_tensor** o = c.out(3);
  return glia_unique_consecutive(c.in[0], nullptr, &o[0], &o[1], &o[2]);
}
GLIA_ADAPTER(histc) {
  return glia_histc(c.in[0], c.integer("bins", 100), c.num("min", 0.0), c.num("max", 0.0), c.out());
}

// Optional inputs are null in the fixture when absent (or missing at the end).
static glia_tensor* opt_in(Call& c, size_t i) { return c.in.size() > i ? c.in[i] : nullptr; }

GLIA_ADAPTER(diff) {
  return glia_diff(c.in[0], c.integer("n", 1), c.integer("dim", -1), opt_in(c, 1), opt_in(c, 2), c.out());
}
GLIA_ADAPTER(cross) {
  int64_t dim = c.integer("dim", 0);
  return glia_cross(c.in[0], c.in[1], c.has("dim") ? &dim : nullptr, c.out());
}
GLIA_ADAPTER(tensordot) {
  std::vector<int64_t> da = c.ints("dims_a"), db = c.ints("dims_b");
  return glia_tensordot(c.in[0], c.in[1], da.data(), static_cast<int64_t>(da.size()), db.data(),
                        static_cast<int64_t>(db.size()), c.out());
}
GLIA_ADAPTER(kron) { return glia_kron(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(block_diag) { return glia_block_diag(c.in.data(), static_cast<int64_t>(c.in.size()), c.out()); }
GLIA_ADAPTER(diagflat) { return glia_diagflat(c.in[0], c.integer("offset", 0), c.out()); }
GLIA_ADAPTER(cov) { return glia_cov(c.in[0], c.integer("correction", 1), opt_in(c, 1), opt_in(c, 2), c.out()); }
GLIA_ADAPTER(corrcoef) { return glia_corrcoef(c.in[0], c.out()); }
GLIA_ADAPTER(trapezoid) {
  return glia_trapezoid(c.in[0], opt_in(c, 1), c.num("dx", 1.0), c.integer("dim", -1), c.out());
}
GLIA_ADAPTER(cumulative_trapezoid) {
  return glia_cumulative_trapezoid(c.in[0], opt_in(c, 1), c.num("dx", 1.0), c.integer("dim", -1), c.out());
}
GLIA_ADAPTER(cdist) { return glia_cdist(c.in[0], c.in[1], c.num("p", 2.0), c.out()); }
GLIA_ADAPTER(constant_pad_nd) {
  std::vector<int64_t> pad = c.ints("pad");
  return glia_constant_pad_nd(c.in[0], pad.data(), static_cast<int64_t>(pad.size()), c.num("value", 0.0), c.out());
}
GLIA_ADAPTER(combinations) {
  return glia_combinations(c.in[0], c.integer("r", 2), c.flag("with_replacement", false), c.out());
}
GLIA_ADAPTER(einsum) {
  std::string eq = c.str("equation", "");
  return glia_einsum(eq.c_str(), c.in.data(), static_cast<int64_t>(c.in.size()), c.out());
}

TEST(StatsExtra, Golden) { run_cases("stats_extra.json"); }
TEST(StatsExtra, Errors) { run_errors("stats_extra.json"); }

namespace {

int64_t numel(const glia_tensor* t) {
  int64_t n = -1;
  glia_error_free(glia_tensor_numel(t, &n));
  return n;
}

glia_tensor* vec(std::initializer_list<double> v) {
  std::vector<double> d(v);
  int64_t shape[1] = {static_cast<int64_t>(d.size())};
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_from_data(d.data(), d.size() * sizeof(double), shape, 1, GLIA_FLOAT64, &t);
  EXPECT_EQ(e, nullptr);
  return t;
}

}  // namespace

// The optional results of unique may be NULL; a dim is refused with GLIA_ERR_UNSUPPORTED and nothing written.
TEST(StatsExtra, UniqueOptionalOutputs) {
  glia_tensor* x = vec({3.0, 1.0, 3.0, 2.0});
  glia_tensor* out = nullptr;
  ASSERT_EQ(glia_unique(x, 1, nullptr, &out, nullptr, nullptr), nullptr);
  EXPECT_EQ(numel(out), 3);
  glia_error_free(glia_tensor_release(out));
  out = nullptr;
  glia_tensor* counts = nullptr;
  ASSERT_EQ(glia_unique_consecutive(x, nullptr, &out, nullptr, &counts), nullptr);
  EXPECT_EQ(numel(out), 4);
  EXPECT_EQ(numel(counts), 4);
  glia_error_free(glia_tensor_release(out));
  glia_error_free(glia_tensor_release(counts));
  out = nullptr;
  int64_t dim = 0;
  glia_error* e = glia_unique(x, 1, &dim, &out, nullptr, nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_UNSUPPORTED);
  EXPECT_EQ(out, nullptr);
  glia_error_free(e);
  e = glia_unique_consecutive(x, &dim, &out, nullptr, nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_UNSUPPORTED);
  glia_error_free(e);
  glia_error_free(glia_tensor_release(x));
}
