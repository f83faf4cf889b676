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

GLIA_ADAPTER(lerp) { return glia_lerp(c.in[0], c.in[1], c.in[2], c.out()); }
GLIA_ADAPTER(lerp_scalar) { return glia_lerp_scalar(c.in[0], c.in[1], c.num("weight", 0.5), c.out()); }

TEST(Math, Golden) { run_cases("math.json"); }
TEST(Math, Errors) { run_errors("math.json"); }

// Note [Vectorised transcendental functions]: the float32 vector forms against libm in double
// precision, over each domain and beyond it, on tensors large enough to run in parallel, with
// NaN, infinities and out-of-range values scattered through the blocks (those blocks take the
// scalar loop), and on a transposed operand (the generic loop).
namespace {

using glia_test::Handles;

struct VectorCase {
  const char* name;
  glia_error* (*fn)(const glia_tensor*, glia_tensor**);
  double (*ref)(double);
  double lo, hi;
};

TEST(Math, VectorFormsMatchLibm) {
  const VectorCase cases[] = {
      {"sin", glia_sin, [](double v) { return std::sin(v); }, -60000, 60000},
      {"cos", glia_cos, [](double v) { return std::cos(v); }, -60000, 60000},
      {"sin small", glia_sin, [](double v) { return std::sin(v); }, -10, 10},
      {"atan", glia_atan, [](double v) { return std::atan(v); }, -50, 50},
      {"asin", glia_asin, [](double v) { return std::asin(v); }, -1.2, 1.2},
      {"acos", glia_acos, [](double v) { return std::acos(v); }, -1.2, 1.2},
      {"sinh", glia_sinh, [](double v) { return std::sinh(v); }, -95, 95},
      {"asinh", glia_asinh, [](double v) { return std::asinh(v); }, -1e6, 1e6},
      {"acosh", glia_acosh, [](double v) { return std::acosh(v); }, 0.5, 1e4},
      {"atanh", glia_atanh, [](double v) { return std::atanh(v); }, -1.1, 1.1},
      {"log2", glia_log2, [](double v) { return std::log2(v); }, -1, 1e5},
      {"log10", glia_log10, [](double v) { return std::log10(v); }, -1, 1e5},
  };
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-40, 1.0, -1.0};
  const int64_t n = 40000;
  for (const VectorCase& vc : cases) {
    SCOPED_TRACE(vc.name);
    std::vector<double> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      x[static_cast<size_t>(i)] = vc.lo + (vc.hi - vc.lo) * static_cast<double>(i) / (n - 1);
    for (int64_t i = 0; i < n; i += 997) x[static_cast<size_t>(i)] = specials[(i / 997) % 8];
    Handles h;
    glia_tensor* t = glia_test::make(h, x, {n}, GLIA_FLOAT32);
    glia_tensor* y = nullptr;
    glia_test::ok(vc.fn(t, &y), vc.name);
    h.add(y);
    // The same values through the generic loop: a transposed [n/2, 2] view.
    glia_tensor *tt = nullptr, *yt = nullptr;
    glia_test::ok(glia_tensor_clone(t, &tt), "clone");
    h.add(tt);
    glia_tensor* v = nullptr;
    const int64_t shape[] = {2, n / 2};
    glia_test::ok(glia_reshape(tt, shape, 2, &v), "reshape");
    h.add(v);
    glia_tensor* vt = nullptr;
    glia_test::ok(glia_transpose(v, 0, 1, &vt), "transpose");
    h.add(vt);
    glia_test::ok(vc.fn(vt, &yt), vc.name);
    h.add(yt);
    std::vector<double> got = glia_test::values(y), got_t = glia_test::values(yt);
    for (int64_t i = 0; i < n; ++i) {
      const double xv = static_cast<double>(static_cast<float>(x[static_cast<size_t>(i)]));
      const double want = vc.ref(xv), g = got[static_cast<size_t>(i)];
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(g)) << "x=" << xv;
      } else if (std::isinf(want) || std::fabs(want) > 3.4e38) {
        ASSERT_EQ(g, static_cast<double>(static_cast<float>(want))) << "x=" << xv;
      } else {
        ASSERT_LE(std::fabs(g - want), 2e-6 * (1 + std::fabs(want))) << "x=" << xv;
      }
    }
    // The transposed view's element (r, c) is x[c * (n / 2) + r], in row-major order of [n/2, 2].
    for (int64_t r = 0; r < n / 2; ++r)
      for (int64_t c = 0; c < 2; ++c) {
        const double xv = static_cast<double>(static_cast<float>(x[static_cast<size_t>(c * (n / 2) + r)]));
        const double want = vc.ref(xv), g = got_t[static_cast<size_t>(r * 2 + c)];
        if (std::isnan(want))
          ASSERT_TRUE(std::isnan(g)) << "x=" << xv;
        else if (!std::isinf(want) && std::fabs(want) <= 3.4e38)
          ASSERT_LE(std::fabs(g - want), 2e-6 * (1 + std::fabs(want))) << "x=" << xv;
      }
  }
}

}  // namespace
