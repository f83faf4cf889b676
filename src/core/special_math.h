// Per-element math of the special functions (logaddexp, heaviside, frexp, nextafter in the 16-bit formats,
// polygamma, mvlgamma, i0/i1, sinc, igamma/igammac): small inline functions on one value of an arithmetic
// type A (float for float32/float16/bfloat16, double for float64). Where torch 1.13 computes in A (logaddexp,
// sinc, the factor of polygamma) so do these, so float32 results agree with torch's to rounding; the series
// (Hurwitz zeta, Bessel I0/I1, incomplete gamma) run in double as torch's CPU accumulation type does. Shared by
// the CPU kernels (src/ops/cpu/special.cpp) and the CUDA backend's (cuda/special.cu; nextafter and frexp in
// elementwise_extra.cu, heaviside in binary_extra.cu), as elementwise_math.h (GLIA_MATH_HD); no tensor types.
#ifndef GLIA_CORE_SPECIAL_MATH_H
#define GLIA_CORE_SPECIAL_MATH_H

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/elementwise_math.h"

namespace glia::math {

// log(exp(a) + exp(b)) without overflow; equal infinities give themselves (torch's logaddexp).
template <class A>
GLIA_MATH_HD A logaddexp(A a, A b) {
  if (std::isinf(a) && a == b) return a;
  const A m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// log2(2^a + 2^b).
template <class A>
GLIA_MATH_HD A logaddexp2(A a, A b) {
  if (std::isinf(a) && a == b) return a;
  const A m = a > b ? a : b;
  return m + std::log1p(std::exp2(-std::fabs(a - b))) * static_cast<A>(1.442695040888963407359924681001892137);
}

// 0 for x < 0, v at x == 0, 1 for x > 0 (NaN x gives 0, as torch).
template <class A>
GLIA_MATH_HD A heaviside(A x, A v) {
  return x == 0 ? v : static_cast<A>(x > 0);
}

// The mantissa in [0.5, 1) (with x's sign) and the exponent of x = m * 2^e; C's frexp.
template <class A>
GLIA_MATH_HD A frexp_mantissa(A x) {
  int e = 0;
  return std::frexp(x, &e);
}
template <class A>
GLIA_MATH_HD int32_t frexp_exponent(A x) {
  int e = 0;
  (void)std::frexp(x, &e);
  return static_cast<int32_t>(e);
}

// nextafter in a 16-bit float format (float16, bfloat16), stepping one unit in that format's last place: the
// pattern after `a` (pattern a_bits) towards b, for a != b and neither NaN (those cases are the caller's:
// a + b, and b). From zero the smallest subnormal with b's sign.
GLIA_MATH_HD uint16_t nextafter_bits16(float a, float b, uint16_t a_bits) {
  if (a == 0) return b > 0 ? uint16_t{0x0001} : uint16_t{0x8001};
  return static_cast<uint16_t>(((a < b) == (a > 0)) ? a_bits + 1 : a_bits - 1);
}

// sin(pi x) / (pi x), 1 at 0 (torch's sinc, in A).
template <class A>
GLIA_MATH_HD A sinc(A x) {
  if (x == 0) return 1;
  const A p = pi<A>() * x;
  return std::sin(p) / p;
}

// The Hurwitz zeta function zeta(x, q) = sum_k (k + q)^-x (Cephes' zeta, as torch's, in double):
// direct sum up to q + 9, then the Euler-Maclaurin tail.
GLIA_MATH_HD double zeta(double x, double q) {
  const double machep = 1.11022302462515654042E-16;
  const double A[] = {12.0,
                      -720.0,
                      30240.0,
                      -1209600.0,
                      47900160.0,
                      -1.8924375803183791606e9,
                      7.47242496e10,
                      -2.950130727918164224e12,
                      1.1646782814350067249e14,
                      -4.5979787224074726105e15,
                      1.8152105401943546773e17,
                      -7.1661652561756670113e18};
  if (x == 1) return std::numeric_limits<double>::infinity();
  if (x < 1) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0) {
    if (q == std::floor(q)) return std::numeric_limits<double>::infinity();
    if (x != std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  }
  double s = std::pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1;
    b = std::pow(a, -x);
    s += b;
    if (-machep * s < b && b < machep * s) return s;
  }
  const double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  a = 1;
  double k = 0;
  for (int j = 0; j < 12; ++j) {
    a *= x + k;
    b /= w;
    double t = a * b / A[j];
    s = s + t;
    t = std::fabs(t / s);
    if (t < machep) return s;
    k += 1;
    a *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

// polygamma(n, x), the n-th derivative of digamma: digamma and trigamma for n = 0, 1, else
// (-1)^(n+1) n! zeta(n + 1, x) (torch's calc_polygamma).
template <class A>
GLIA_MATH_HD A polygamma(int64_t n, A x) {
  if (n == 0) return digamma<A>(x);
  if (n == 1) return trigamma<A>(x);
  const A one = 1;
  const A factor = ((n % 2) ? one : -one) * std::exp(std::lgamma(static_cast<A>(n) + one));
  return factor * static_cast<A>(zeta(static_cast<double>(n + 1), static_cast<double>(x)));
}

// log of the multivariate gamma function of dimension p: p (p - 1) / 4 log(pi) + sum_j lgamma(x - j / 2).
template <class A>
GLIA_MATH_HD A mvlgamma(A x, int64_t p) {
  A s = 0;
  for (int64_t j = p - 1; j >= 0; --j) s += std::lgamma(x - static_cast<A>(j) / 2);
  return s + static_cast<A>(static_cast<double>(p * (p - 1)) * 0.28618247146235004353);  // log(pi) / 4
}

// The modified Bessel functions of the first kind, orders 0 and 1 (in double): the power
// series sum_k (x^2/4)^k / (k! (k + nu)!) (x/2)^nu for |x| <= 30, beyond it Hankel's asymptotic
// expansion e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k, whose smallest term is below 1e-20.
GLIA_MATH_HD double bessel_i(int nu, double x) {
  const double ax = std::fabs(x);
  if (ax != ax) return ax;
  double r = 0;
  if (ax <= 30) {
    const double q = ax * ax / 4;
    double term = nu == 0 ? 1.0 : ax / 2, sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (static_cast<double>(k) * static_cast<double>(k + nu));
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    r = sum;
  } else if (ax == std::numeric_limits<double>::infinity()) {
    return std::numeric_limits<double>::quiet_NaN();  // torch's (Cephes') value at infinity
  } else {
    const double mu = 4.0 * nu * nu;
    double term = 1, sum = 1;
    for (int k = 1; k < 60; ++k) {
      const double odd = 2.0 * k - 1;
      term *= -(mu - odd * odd) / (static_cast<double>(k) * 8.0 * ax);
      sum += term;
      if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    }
    // e^x split in two so that x up to ~713 (where I0 overflows) stays finite.
    const double half = std::exp(ax / 2);
    r = half * (half / std::sqrt(2 * 3.14159265358979323846 * ax) * sum);
  }
  return (nu == 1 && x < 0) ? -r : r;
}
template <class A>
GLIA_MATH_HD A i0(A x) {
  return static_cast<A>(bessel_i(0, static_cast<double>(x)));
}
template <class A>
GLIA_MATH_HD A i1(A x) {
  return static_cast<A>(bessel_i(1, static_cast<double>(x)));
}

// The regularised incomplete gamma functions P(a, x) (igamma) and Q(a, x) = 1 - P (igammac), in
// double: P's power series where x < a + 1, Q's continued fraction (Cephes' igamc) elsewhere, the
// other one as the complement; torch's values at the edges (a or x negative, zero or infinite).
namespace detail {
GLIA_MATH_HD double igam_series(double a, double x) {
  const double ax = std::exp(a * std::log(x) - x - std::lgamma(a));
  double r = a, c = 1, ans = 1;
  for (int i = 0; i < 100000; ++i) {
    r += 1;
    c *= x / r;
    ans += c;
    if (c <= 1.11022302462515654042E-16 * ans) break;
  }
  return ans * ax / a;
}
GLIA_MATH_HD double igamc_fraction(double a, double x) {
  const double big = 4.503599627370496e15, biginv = 2.22044604925031308085e-16;
  const double ax = std::exp(a * std::log(x) - x - std::lgamma(a));
  if (ax == 0) return 0;
  double y = 1 - a, z = x + y + 1, c = 0;
  double pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x;
  double ans = pkm1 / qkm1, t = 1;
  for (int i = 0; i < 100000 && t > 1.11022302462515654042E-16; ++i) {
    c += 1;
    y += 1;
    z += 2;
    const double yc = y * c;
    const double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    if (qk != 0) {
      const double r = pk / qk;
      t = std::fabs((ans - r) / r);
      ans = r;
    } else {
      t = 1;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    if (std::fabs(pk) > big) {
      pkm2 *= biginv;
      pkm1 *= biginv;
      qkm2 *= biginv;
      qkm1 *= biginv;
    }
  }
  return ans * ax;
}
}  // namespace detail

GLIA_MATH_HD double igamma_d(double a, double x, bool upper) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x < 0 || a < 0 || a != a || x != x) return nan;
  if (a == 0) return x > 0 ? (upper ? 0.0 : 1.0) : nan;
  if (x == 0) return upper ? 1.0 : 0.0;
  if (std::isinf(a)) return std::isinf(x) ? nan : (upper ? 1.0 : 0.0);
  if (std::isinf(x)) return upper ? 0.0 : 1.0;
  if (x < a + 1) {
    const double p = detail::igam_series(a, x);
    return upper ? 1 - p : p;
  }
  const double q = detail::igamc_fraction(a, x);
  return upper ? q : 1 - q;
}
template <class A>
GLIA_MATH_HD A igamma(A a, A x) {
  return static_cast<A>(igamma_d(static_cast<double>(a), static_cast<double>(x), false));
}
template <class A>
GLIA_MATH_HD A igammac(A a, A x) {
  return static_cast<A>(igamma_d(static_cast<double>(a), static_cast<double>(x), true));
}

}  // namespace glia::math

#endif  // GLIA_CORE_SPECIAL_MATH_H
