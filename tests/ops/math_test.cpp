// Unary floating math and rounding against tests/golden/gen_math.py's fixtures
// (math.json): the out-of-place ops and their in-place forms (run on a clone of
// the input, as torch's x.clone().sin_()).
#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
// Runs op on a clone of c.in[0]; the clone is the output (released on failure).
template <class F>
glia_error* on_clone(Call& c, F op) {
  glia_tensor* self = nullptr;
  if (glia_error* e = glia_tensor_clone(c.in[0], &self)) return e;
  if (glia_error* e = op(self)) {
    glia_error_free(glia_tensor_release(self));
    return e;
  }
  *c.out() = self;
  return nullptr;
}
}  // namespace

#define MATH_ADAPTERS(op)                                               \
  GLIA_ADAPTER(op) { return glia_##op(c.in[0], c.out()); }              \
  GLIA_ADAPTER(op##_) {                                                 \
    return on_clone(c, [](glia_tensor* s) { return glia_##op##_(s); }); \
  }
MATH_ADAPTERS(sin)
MATH_ADAPTERS(cos)
MATH_ADAPTERS(tan)
MATH_ADAPTERS(asin)
MATH_ADAPTERS(acos)
MATH_ADAPTERS(atan)
MATH_ADAPTERS(sinh)
MATH_ADAPTERS(cosh)
MATH_ADAPTERS(asinh)
MATH_ADAPTERS(acosh)
MATH_ADAPTERS(atanh)
MATH_ADAPTERS(exp2)
MATH_ADAPTERS(log2)
MATH_ADAPTERS(log10)
MATH_ADAPTERS(erf)
MATH_ADAPTERS(erfc)
MATH_ADAPTERS(erfinv)
MATH_ADAPTERS(lgamma)
MATH_ADAPTERS(digamma)
MATH_ADAPTERS(trunc)
MATH_ADAPTERS(frac)
MATH_ADAPTERS(floor)
MATH_ADAPTERS(ceil)
#undef MATH_ADAPTERS

GLIA_ADAPTER(round) { return glia_round(c.in[0], c.integer("decimals", 0), c.out()); }
GLIA_ADAPTER(round_) {
  const int64_t d = c.integer("decimals", 0);
  return on_clone(c, [d](glia_tensor* s) { return glia_round_(s, d); });
}
// eps absent: torch's None, a negative eps for glia.
GLIA_ADAPTER(logit) { return glia_logit(c.in[0], c.num("eps", -1.0), c.out()); }
GLIA_ADAPTER(logit_) {
  const double eps = c.num("eps", -1.0);
  return on_clone(c, [eps](glia_tensor* s) { return glia_logit_(s, eps); });
}

#define BINARY_ADAPTER(op) \
  GLIA_ADAPTER(op) { return glia_##op(c.in[0], c.in[1], c.out()); }
BINARY_ADAPTER(atan2)
BINARY_ADAPTER(hypot)
BINARY_ADAPTER(copysign)
BINARY_ADAPTER(xlogy)
BINARY_ADAPTER(fmod)
BINARY_ADAPTER(remainder)
BINARY_ADAPTER(fmax)
BINARY_ADAPTER(fmin)
BINARY_ADAPTER(bitwise_and)
BINARY_ADAPTER(bitwise_or)
BINARY_ADAPTER(bitwise_xor)
BINARY_ADAPTER(bitwise_left_shift)
BINARY_ADAPTER(bitwise_right_shift)
#undef BINARY_ADAPTER
GLIA_ADAPTER(bitwise_not) { return glia_bitwise_not(c.in[0], c.out()); }
GLIA_ADAPTER(isnan) { return glia_isnan(c.in[0], c.out()); }
GLIA_ADAPTER(isinf) { return glia_isinf(c.in[0], c.out()); }
GLIA_ADAPTER(isfinite) { return glia_isfinite(c.in[0], c.out()); }
GLIA_ADAPTER(isposinf) { return glia_isposinf(c.in[0], c.out()); }
GLIA_ADAPTER(isneginf) { return glia_isneginf(c.in[0], c.out()); }
GLIA_ADAPTER(isclose) {
  return glia_isclose(c.in[0], c.in[1], c.num("rtol", 1e-05), c.num("atol", 1e-08), c.flag("equal_nan", false) ? 1 : 0,
                      c.out());
}
// posinf/neginf absent: NULL (the dtype's largest/lowest finite value).
GLIA_ADAPTER(nan_to_num) {
  const double pos = c.num("posinf", 0.0), neg = c.num("neginf", 0.0);
  return glia_nan_to_num(c.in[0], c.num("nan", 0.0), c.has("posinf") ? &pos : nullptr, c.has("neginf") ? &neg : nullptr,
                         c.out());
}

TEST(Math, Golden) { run_cases("math.json"); }
TEST(Math, Errors) { run_errors("math.json"); }
