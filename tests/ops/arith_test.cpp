// add, sub, mul, div, neg and sum against tests/golden/gen_ops.py's fixtures.
#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(add) { return glia_add(c.in[0], c.in[1], c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(sub) { return glia_sub(c.in[0], c.in[1], c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(mul) { return glia_mul(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(div) {
  std::string mode = c.str("rounding_mode", "");
  return glia_div(c.in[0], c.in[1], mode.empty() ? nullptr : mode.c_str(), c.out());
}
GLIA_ADAPTER(neg) { return glia_neg(c.in[0], c.out()); }
GLIA_ADAPTER(sum) {
  std::vector<int64_t> dims = c.ints("dims");
  return glia_sum(c.in[0], dims.data(), static_cast<int64_t>(dims.size()), c.flag("keepdim", false), c.out());
}

TEST(Arith, Golden) { run_cases("binary.json"); }
TEST(Arith, Errors) { run_errors("binary.json"); }
TEST(Reduce, SumGolden) { run_cases("reduce.json"); }
TEST(Reduce, SumErrors) { run_errors("reduce.json"); }

// int8 and int16 through every op family (tests/golden/gen_int_dtypes.py): wrap-around, torch's type
// promotion with each dtype and with scalars, reductions, sorting, indexing, factories, in-place ops.
TEST(IntDTypes, Golden) { run_cases("int_dtypes.json"); }
TEST(IntDTypes, Errors) { run_errors("int_dtypes.json"); }
