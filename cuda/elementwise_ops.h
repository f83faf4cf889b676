// The per-element functions of the CUDA elementwise kernels, compiled by both the host compiler and nvcc
// (host_device.h; nvcc with --expt-relaxed-constexpr, so <cmath>'s std:: functions are device functions too).
// Each is a small functor on accumulation types (dtypes.h: float for float32 and the 16-bit floats, double for
// float64, the integer type itself) with exactly the formula of the CPU kernel of the same kernels.def line
// (src/ops/cpu/: binary.cpp, unary.cpp, compare.cpp, activation.cpp, activation_extra.cpp, math.cpp), its
// attributes taken the same way. tests/cuda/elementwise_ops_test.cpp runs them on the CPU against glia's CPU
// kernels.
#ifndef GLIA_CUDA_ELEMENTWISE_OPS_H
#define GLIA_CUDA_ELEMENTWISE_OPS_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "dtypes.h"

namespace glia::cuda::ew {

// Constants of src/ops/cpu/activation.cpp.
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kGeluBeta = 0.79788456080286535588;    // sqrt(2 / pi)
constexpr double kGeluKappa = 0.044715;

// ---- arithmetic (binary.cpp). alpha is the attribute converted to the compute dtype (convert<C, double>).

template <class A>
struct Add {
  A alpha;
  bool one;  // alpha == 1.0 (the CPU's x + y without the multiplication)
  GLIA_HOST_DEVICE auto operator()(A x, A y) const { return one ? wrap_add(x, y) : wrap_add(x, wrap_mul(alpha, y)); }
};
template <class A>
struct Sub {
  A alpha;
  GLIA_HOST_DEVICE auto operator()(A x, A y) const { return wrap_sub(x, wrap_mul(alpha, y)); }
};
struct Mul {
  GLIA_HOST_DEVICE bool operator()(bool x, bool y) const { return x && y; }
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return wrap_mul(x, y);
  }
};
struct TrueDiv {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return x / y;
  }
};
// Floating division with a rounding mode (integers are refused before the launch: torch checks for a zero
// divisor first).
struct TruncDiv {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return std::trunc(x / y);
  }
};
struct FloorDiv {  // torch's floor division for floats (Python semantics, via fmod)
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    if (y == A(0)) return x / y;
    A mod = std::fmod(x, y);
    A d = (x - mod) / y;
    if (mod != A(0) && ((y < A(0)) != (mod < A(0)))) d -= A(1);
    if (d == A(0)) return std::copysign(A(0), x / y);
    A fl = std::floor(d);
    if (d - fl > A(0.5)) fl += A(1);
    return fl;
  }
};
struct Neg {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return wrap_neg(x);
  }
};

// ---- unary math (unary.cpp, math.cpp)

struct Abs {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>)
      return std::fabs(x);
    else if constexpr (std::is_unsigned_v<A>)
      return x;
    else
      return x < 0 ? wrap_neg(x) : x;  // abs(INT64_MIN) == INT64_MIN
  }
};
struct Sign {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    if constexpr (std::is_same_v<A, bool>)
      return x;
    else if constexpr (std::is_unsigned_v<A>)
      return static_cast<A>(A(0) < x);  // the CPU's formula with x < 0 always false
    else
      return static_cast<A>(static_cast<A>(A(0) < x) - static_cast<A>(x < A(0)));
  }
};

#define GLIA_CUDA_STD_UNARY(Name, fn)          \
  struct Name {                                \
    template <class A>                         \
    GLIA_HOST_DEVICE A operator()(A x) const { \
      return static_cast<A>(std::fn(x));       \
    }                                          \
  };
GLIA_CUDA_STD_UNARY(Exp, exp)
GLIA_CUDA_STD_UNARY(Log, log)
GLIA_CUDA_STD_UNARY(Log1p, log1p)
GLIA_CUDA_STD_UNARY(Expm1, expm1)
GLIA_CUDA_STD_UNARY(Sqrt, sqrt)
GLIA_CUDA_STD_UNARY(Erf, erf)
GLIA_CUDA_STD_UNARY(Tanh, tanh)
GLIA_CUDA_STD_UNARY(Sin, sin)
GLIA_CUDA_STD_UNARY(Cos, cos)
GLIA_CUDA_STD_UNARY(Tan, tan)
GLIA_CUDA_STD_UNARY(Asin, asin)
GLIA_CUDA_STD_UNARY(Acos, acos)
GLIA_CUDA_STD_UNARY(Atan, atan)
GLIA_CUDA_STD_UNARY(Sinh, sinh)
GLIA_CUDA_STD_UNARY(Cosh, cosh)
GLIA_CUDA_STD_UNARY(Asinh, asinh)
GLIA_CUDA_STD_UNARY(Acosh, acosh)
GLIA_CUDA_STD_UNARY(Atanh, atanh)
GLIA_CUDA_STD_UNARY(Exp2, exp2)
GLIA_CUDA_STD_UNARY(Log2, log2)
GLIA_CUDA_STD_UNARY(Log10, log10)
GLIA_CUDA_STD_UNARY(Erfc, erfc)
GLIA_CUDA_STD_UNARY(Trunc, trunc)
GLIA_CUDA_STD_UNARY(Floor, floor)
GLIA_CUDA_STD_UNARY(Ceil, ceil)
#undef GLIA_CUDA_STD_UNARY

struct Rsqrt {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return A(1) / std::sqrt(x);
  }
};
struct Sigmoid {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return A(1) / (A(1) + std::exp(-x));
  }
};

// Integer power with torch's rules for negative exponents (powi of unary.cpp).
template <class A>
GLIA_HOST_DEVICE A powi(A base, A exp) {
  if constexpr (std::is_same_v<A, bool>) {
    return base || !exp;
  } else {
    if constexpr (std::is_signed_v<A>) {
      if (exp < 0) {
        if (base == 1) return 1;
        if (base == -1) return (-exp) % 2 ? A(-1) : A(1);
        return 0;
      }
    }
    using U = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;
    U e = static_cast<U>(static_cast<std::make_unsigned_t<A>>(exp));
    U b = static_cast<U>(static_cast<std::make_unsigned_t<A>>(base)), r = 1;
    while (e) {
      if (e & 1) r = static_cast<U>(r * b);
      b = static_cast<U>(b * b);
      e >>= 1;
    }
    return static_cast<A>(r);
  }
}
struct Pow {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    if constexpr (std::is_floating_point_v<A>)
      return std::pow(x, y);
    else
      return powi<A>(x, y);
  }
};
// pow_scalar: the CPU's special exponents, else std::pow with the exponent rounded to the input's dtype
// (the host computes `e` as static_cast<A>(convert<C, double>(exponent))).
template <class A>
struct PowScalar {
  A e;
  int mode;  // 0 general, 1 x*x, 2 x*x*x, 3 x, 4 sqrt, 5 1/x
  GLIA_HOST_DEVICE A operator()(A x) const {
    switch (mode) {
      case 1:
        return x * x;
      case 2:
        return x * x * x;
      case 3:
        return x;
      case 4:
        return std::sqrt(x);
      case 5:
        return A(1) / x;
      default:
        return std::pow(x, e);
    }
  }
};
inline int pow_scalar_mode(double e) { return e == 2 ? 1 : e == 3 ? 2 : e == 1 ? 3 : e == 0.5 ? 4 : e == -1 ? 5 : 0; }

// Clamps with torch's NaN rules (ClampLo / ClampHi of unary.cpp): a NaN input or a NaN bound gives NaN.
struct ClampLo {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A v, A lo) const {
    if constexpr (std::is_floating_point_v<A>)
      return (lo > v || (lo != lo && v == v)) ? lo : v;
    else
      return v < lo ? lo : v;
  }
};
struct ClampHi {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A v, A hi) const {
    if constexpr (std::is_floating_point_v<A>)
      return (hi < v || (hi != hi && v == v)) ? hi : v;
    else
      return v > hi ? hi : v;
  }
};
struct LenientClampLo {  // clamp_min with lenient = 1: a NaN bound is ignored
  template <class A>
  GLIA_HOST_DEVICE A operator()(A v, A b) const {
    return v < b ? b : v;
  }
};
struct LenientClampHi {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A v, A b) const {
    return v > b ? b : v;
  }
};
struct Clamp {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A v, A lo, A hi) const {
    return ClampHi{}(ClampLo{}(v, lo), hi);
  }
};
struct Maximum {  // NaN propagates
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return (x > y || x != x) ? x : y;
  }
};
struct Minimum {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return (x < y || x != x) ? x : y;
  }
};
struct Where {
  template <class A>
  GLIA_HOST_DEVICE A operator()(bool b, A u, A v) const {
    return b ? u : v;
  }
};

// ---- comparisons and logic (compare.cpp): bool results

#define GLIA_CUDA_COMPARE(Name, op)                    \
  struct Name {                                        \
    template <class A>                                 \
    GLIA_HOST_DEVICE bool operator()(A x, A y) const { \
      return x op y;                                   \
    }                                                  \
  };
GLIA_CUDA_COMPARE(Eq, ==)
GLIA_CUDA_COMPARE(Ne, !=)
GLIA_CUDA_COMPARE(Lt, <)
GLIA_CUDA_COMPARE(Le, <=)
GLIA_CUDA_COMPARE(Gt, >)
GLIA_CUDA_COMPARE(Ge, >=)
#undef GLIA_CUDA_COMPARE
struct LogicalAnd {
  GLIA_HOST_DEVICE bool operator()(bool x, bool y) const { return x && y; }
};
struct LogicalOr {
  GLIA_HOST_DEVICE bool operator()(bool x, bool y) const { return x || y; }
};
struct LogicalXor {
  GLIA_HOST_DEVICE bool operator()(bool x, bool y) const { return x != y; }
};
struct LogicalNot {
  GLIA_HOST_DEVICE bool operator()(bool x) const { return !x; }
};

// ---- activations and their backward formulas (activation.cpp, activation_extra.cpp)

struct Relu {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return x <= A(0) ? A(0) : x;  // NaN stays NaN
  }
};
template <class A>
struct LeakyRelu {
  double slope;
  GLIA_HOST_DEVICE A operator()(A x) const { return x > A(0) ? x : x * static_cast<A>(slope); }
};
template <class A>
struct Elu {
  double alpha, scale, input_scale;
  GLIA_HOST_DEVICE A operator()(A x) const {
    return x <= A(0) ? std::expm1(x * static_cast<A>(input_scale)) * static_cast<A>(alpha * scale)
                     : x * static_cast<A>(scale);
  }
};
struct GeluErf {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return x * A(0.5) * (A(1) + std::erf(x * static_cast<A>(kSqrt1_2)));
  }
};
struct GeluTanh {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    A inner = static_cast<A>(kGeluBeta) * (x + static_cast<A>(kGeluKappa) * x * x * x);
    return A(0.5) * x * (A(1) + std::tanh(inner));
  }
};
struct Silu {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return x / (A(1) + std::exp(-x));
  }
};
template <class A>
struct Softplus {
  double beta, threshold;
  GLIA_HOST_DEVICE A operator()(A x) const {
    const A b = static_cast<A>(beta);
    return x * b > static_cast<A>(threshold) ? x : std::log1p(std::exp(x * b)) / b;
  }
};
// hardtanh: bounds converted to the input's dtype on the host (lo, hi).
template <class A>
struct Hardtanh {
  A lo, hi;
  GLIA_HOST_DEVICE A operator()(A x) const {
    A v = x < lo ? lo : x;  // NaN compares false: it stays NaN
    return v > hi ? hi : v;
  }
};
// threshold (activation_extra.cpp): value and threshold converted to the input's dtype on the host.
template <class A>
struct Threshold {
  A t, v;
  GLIA_HOST_DEVICE A operator()(A x) const { return x <= t ? v : x; }
};
template <class A>
struct ThresholdBackward {
  double threshold;
  GLIA_HOST_DEVICE A operator()(A g, A v) const { return v <= static_cast<A>(threshold) ? A(0) : g; }
};
struct SigmoidBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A v) const {
    return g * (A(1) - v) * v;
  }
};
struct TanhBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A v) const {
    return g * (A(1) - v * v);
  }
};
struct GeluErfBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A v) const {
    A cdf = A(0.5) * (A(1) + std::erf(v * static_cast<A>(kSqrt1_2)));
    A pdf = std::exp(A(-0.5) * v * v) * static_cast<A>(kInvSqrt2Pi);
    return g * (cdf + v * pdf);
  }
};
struct GeluTanhBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A v) const {
    const A beta = static_cast<A>(kGeluBeta), kappa = static_cast<A>(kGeluKappa);
    A x_sq = v * v;
    A inner = beta * (v + kappa * x_sq * v);
    A t = std::tanh(inner);
    A left = A(0.5) * v;
    A right = A(1) + t;
    A left_derivative = A(0.5) * right;
    A right_derivative = left * (A(1) - t * t) * beta * (A(1) + A(3) * kappa * x_sq);
    return g * (left_derivative + right_derivative);
  }
};
struct SiluBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A v) const {
    A s = A(1) / (A(1) + std::exp(-v));
    return g * s * (A(1) + v * (A(1) - s));
  }
};
struct Hardswish {  // torch's hardswish_cpu: x * min(max(x + 3, 0), 6) / 6
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    A c = x + A(3);
    c = c < A(0) ? A(0) : c;  // std::max(x + 3, 0) (a NaN stays)
    c = A(6) < c ? A(6) : c;  // std::min(c, 6): the first argument unless the second is smaller
    return x * c / A(6);
  }
};
struct HardswishBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A v) const {
    return v < A(-3) ? A(0) : v <= A(3) ? g * (v / A(3) + A(0.5)) : g;
  }
};

}  // namespace glia::cuda::ew

#endif  // GLIA_CUDA_ELEMENTWISE_OPS_H
