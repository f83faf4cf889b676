// Per-element math of the unary and binary floating ops (digamma, trigamma, erfinv, logit, round with
// decimals, frac, xlogy, fmod, remainder, the shifts, lerp ...): small inline functions on one value of an
// arithmetic type A (float for float32/float16/bfloat16, double for float64), with torch 1.13's formulas
// (aten/src/ATen/native/Math.h and the CPU kernels), so results agree with torch's to rounding. Shared by the
// CPU kernels (src/ops/cpu/math.cpp) and the CUDA backend's (cuda/special.cu, elementwise_extra.cu,
// binary_extra.cu): compiled by the host compiler and by nvcc, where GLIA_MATH_HD is __host__ __device__. In
// src/core/ because that is the one directory both may include (tests/layering/check_layers.py); no tensor
// types here. The CPU goldens test these functions through the CPU kernels.
#ifndef GLIA_CORE_ELEMENTWISE_MATH_H
#define GLIA_CORE_ELEMENTWISE_MATH_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define GLIA_MATH_HD __host__ __device__ inline
#else
#define GLIA_MATH_HD inline
#endif

namespace glia::math {

template <class A>
GLIA_MATH_HD A pi() {
  return static_cast<A>(3.14159265358979323846);
}

// torch's calc_digamma (Cephes' psi): reflection for x < 0, recurrence up to
// x >= 10, then the asymptotic series.
template <class A>
GLIA_MATH_HD A digamma(A x) {
  const A psi_10 = static_cast<A>(2.25175258906672110764);
  if (x == 0) return std::copysign(std::numeric_limits<A>::infinity(), -x);
  const bool integer = x == std::trunc(x);
  A result = 0;
  if (x < 0) {
    if (integer) return std::numeric_limits<A>::quiet_NaN();
    // tan(pi * r) with r the fractional part is more accurate than tan(pi * x).
    A q;
    const A r = std::modf(x, &q);
    const A reflected = 1 - x;
    result = -pi<A>() / std::tan(pi<A>() * r);
    x = reflected;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10) return result + psi_10;
  A y = 0;
  if (x < static_cast<A>(1.0e17)) {
    const A z = 1 / (x * x);
    // polevl(z, A, 6)
    const A c[7] = {static_cast<A>(8.33333333333333333333E-2), static_cast<A>(-2.10927960927960927961E-2),
                    static_cast<A>(7.57575757575757575758E-3), static_cast<A>(-4.16666666666666666667E-3),
                    static_cast<A>(3.96825396825396825397E-3), static_cast<A>(-8.33333333333333333333E-3),
                    static_cast<A>(8.33333333333333333333E-2)};
    A p = c[0];
    for (int i = 1; i < 7; ++i) p = p * z + c[i];
    y = z * p;
  }
  return result + std::log(x) - (static_cast<A>(0.5) / x) - y;
}

// torch's calc_trigamma: polygamma(1, x), the derivative of digamma.
template <class A>
GLIA_MATH_HD A trigamma(A x) {
  A sign = 1, result = 0;
  if (x < static_cast<A>(0.5)) {
    sign = -1;
    const A s = std::sin(pi<A>() * x);
    result -= (pi<A>() * pi<A>()) / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const A ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) +
             ixx * (static_cast<A>(1. / 6) - ixx * (static_cast<A>(1. / 30) - ixx * static_cast<A>(1. / 42)))) /
            x;
  return sign * result;
}

// torch's calc_erfinv: a rational first guess refined by two Newton steps.
template <class A>
GLIA_MATH_HD A erfinv(A y) {
  const A a[4] = {static_cast<A>(0.886226899), static_cast<A>(-1.645349621), static_cast<A>(0.914624893),
                  static_cast<A>(-0.140543331)};
  const A b[4] = {static_cast<A>(-2.118377725), static_cast<A>(1.442710462), static_cast<A>(-0.329097515),
                  static_cast<A>(0.012229801)};
  const A c[4] = {static_cast<A>(-1.970840454), static_cast<A>(-1.624906493), static_cast<A>(3.429567803),
                  static_cast<A>(1.641345311)};
  const A d[2] = {static_cast<A>(3.543889200), static_cast<A>(1.637067800)};
  const A y_abs = std::fabs(y);
  if (y_abs > 1) return std::numeric_limits<A>::quiet_NaN();
  if (y_abs == 1) return std::copysign(std::numeric_limits<A>::infinity(), y);
  A x;
  if (y_abs <= static_cast<A>(0.7)) {
    const A z = y * y;
    const A num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const A dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1;
    x = y * num / dem;
  } else {
    const A z = std::sqrt(-std::log((1 - y_abs) / 2));
    const A num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const A dem = (d[1] * z + d[0]) * z + 1;
    x = std::copysign(num, y) / dem;
  }
  const A two_over_sqrt_pi = static_cast<A>(2.0 / std::sqrt(3.14159265358979323846));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

// log(x / (1 - x)), x first clamped to [lo, hi] when lo >= 0 (torch's eps);
// lo < 0 means no clamping (eps None).
template <class A>
GLIA_MATH_HD A logit(A x, A lo, A hi) {
  if (lo >= 0) x = x < lo ? lo : (x > hi ? hi : x);
  return x == 1 ? std::numeric_limits<A>::infinity() : std::log(x / (1 - x));
}

// Round half to even at `decimals` decimal places: scale = 10^|decimals|,
// divide first when decimals < 0 (torch's round.decimals kernel).
template <class A>
GLIA_MATH_HD A round_decimals(A x, A scale, bool negative) {
  return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
}

template <class A>
GLIA_MATH_HD A frac(A x) {
  return x - std::trunc(x);
}

// x * log(y), 0 where x == 0 unless y is NaN (torch's xlogy).
template <class A>
GLIA_MATH_HD A xlogy(A x, A y) {
  if (y != y) return y;
  if (x == 0) return 0;
  return x * std::log(y);
}

// The remainder with the dividend's sign (C's fmod); integers: the divisor is nonzero.
template <class A>
GLIA_MATH_HD A fmod(A x, A y) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::fmod(x, y);
  } else if constexpr (std::is_signed_v<A>) {
    return y == A(-1) ? A(0) : static_cast<A>(x % y);  // MIN % -1 traps on x86
  } else {
    return static_cast<A>(x % y);
  }
}

// The remainder with the divisor's sign (Python's %, torch.remainder).
template <class A>
GLIA_MATH_HD A remainder(A x, A y) {
  if constexpr (std::is_floating_point_v<A>) {
    A r = std::fmod(x, y);
    if (r != 0 && ((y < 0) != (r < 0))) r += y;
    return r;
  } else if constexpr (std::is_signed_v<A>) {
    if (y == A(-1)) return A(0);
    A r = static_cast<A>(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<A>(r + y);
    return r;
  } else {
    return static_cast<A>(x % y);
  }
}

// Shifts with defined results for every count: a negative count or one of the width or more
// gives 0 (left) or the sign fill (right).
template <class A>
GLIA_MATH_HD A shift_left(A x, A n) {
  using U = std::make_unsigned_t<A>;
  constexpr int bits = static_cast<int>(sizeof(A) * 8);
  if constexpr (std::is_signed_v<A>) {
    if (n < 0) return 0;
  }
  if (n >= bits) return 0;
  return static_cast<A>(static_cast<U>(static_cast<U>(x) << n));
}
template <class A>
GLIA_MATH_HD A shift_right(A x, A n) {
  constexpr int max_shift = static_cast<int>(sizeof(A) * 8) - (std::is_signed_v<A> ? 1 : 0);
  bool past = n >= max_shift;
  if constexpr (std::is_signed_v<A>) past = past || n < 0;
  if (past) return std::is_signed_v<A> ? static_cast<A>(x >> max_shift) : A(0);
  return static_cast<A>(x >> n);
}

// torch's lerp: from the nearer end, so that lerp(s, e, 1) == e exactly.
template <class A>
GLIA_MATH_HD A lerp(A start, A end, A weight) {
  return std::fabs(weight) < static_cast<A>(0.5) ? start + weight * (end - start)
                                                 : end - (end - start) * (static_cast<A>(1) - weight);
}

}  // namespace glia::math

#endif  // GLIA_CORE_ELEMENTWISE_MATH_H
