// Note [Vectorised transcendental functions] (ops/cpu/vmath.h): Highway's vector math,
// compiled for AVX2+FMA (src/CMakeLists.txt sets this file's flags). Includes nothing of glia's
// but vmath.h.
#include "ops/cpu/vmath.h"

#if GLIA_HAVE_HWY

#include <hwy/highway.h>
//
#include <hwy/contrib/math/math-inl.h>

static_assert(HWY_TARGET == HWY_AVX2, "vmath_avx2.cpp must be compiled with -mavx2 -mfma -mbmi2 -mf16c");

namespace glia::cpu::vmath {

namespace {

namespace hn = hwy::HWY_NAMESPACE;

constexpr float kFltMax = 3.40282347e+38f;
constexpr float kFltMinNormal = 1.17549435e-38f;

template <class Op, class InRange>
void run(const float* x, float* o, int64_t n, ScalarFn fallback, Op op, InRange in_range) {
  const hn::Full256<float> d;
  constexpr int64_t N = 8;
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    if (hn::AllTrue(d, in_range(d, v)))
      hn::StoreU(op(d, v), d, o + i);
    else
      fallback(x + i, o + i, N);
  }
  if (i < n) fallback(x + i, o + i, n - i);
}

// |v| <= limit (false for NaN).
template <class D, class V>
auto abs_le(D d, V v, float limit) {
  return hn::Le(hn::Abs(v), hn::Set(d, limit));
}

}  // namespace

void run_avx2(Fn fn, const float* x, float* o, int64_t n, ScalarFn fallback) {
  auto finite = [](auto d, auto v) { return abs_le(d, v, kFltMax); };
  auto unit = [](auto d, auto v) { return abs_le(d, v, 1.0f); };
  auto positive = [](auto d, auto v) {
    return hn::And(hn::Ge(v, hn::Set(d, kFltMinNormal)), hn::Le(v, hn::Set(d, kFltMax)));
  };
  switch (fn) {
    case Fn::Sin:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Sin(d, v); },
          [](auto d, auto v) { return abs_le(d, v, 39000.0f); });
    case Fn::Cos:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Cos(d, v); },
          [](auto d, auto v) { return abs_le(d, v, 39000.0f); });
    case Fn::Atan:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Atan(d, v); }, finite);
    case Fn::Asin:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Asin(d, v); }, unit);
    case Fn::Acos:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Acos(d, v); }, unit);
    case Fn::Sinh:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Sinh(d, v); },
          [](auto d, auto v) { return abs_le(d, v, 88.72f); });
    case Fn::Asinh:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Asinh(d, v); }, finite);
    case Fn::Acosh:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Acosh(d, v); },
          [](auto d, auto v) { return hn::And(hn::Ge(v, hn::Set(d, 1.0f)), hn::Le(v, hn::Set(d, kFltMax))); });
    case Fn::Atanh:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Atanh(d, v); },
          [](auto d, auto v) { return hn::Lt(hn::Abs(v), hn::Set(d, 1.0f)); });
    case Fn::Log2:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Log2(d, v); }, positive);
    case Fn::Log10:
      return run(
          x, o, n, fallback, [](auto d, auto v) { return hn::Log10(d, v); }, positive);
  }
}

}  // namespace glia::cpu::vmath

#endif  // GLIA_HAVE_HWY
