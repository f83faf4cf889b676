// Unary math (abs, sign, exp, log, log1p, expm1, sqrt, rsqrt, erf, sigmoid,
// tanh), pow, clamp, maximum, minimum and where.
#include <cmath>

#include "ops/elementwise.h"

namespace glia::ops {

namespace {

template <class A>
constexpr bool is_fp = std::is_floating_point_v<A>;

// An op that computes in floating point: integer and bool inputs give float32.
template <class F>
Tensor float_unary(const Tensor& a, F f) {
  DType t = is_floating(a.dtype()) ? a.dtype() : DType::Float32;
  return unary_op<Types::Floating>(a, t, t, f);
}

Dims broadcast3(const char* name, const Tensor& a, const Tensor& b, const Tensor& c) {
  Dims s = a.shape();
  if (b.defined()) s = broadcast_shapes(name, s, b.shape());
  if (c.defined()) s = broadcast_shapes(name, s, c.shape());
  return s;
}

// Clamp helpers with torch's NaN rules: a NaN input or a NaN bound gives NaN.
struct ClampLo {
  template <class A>
  A operator()(A v, A lo) const {
    if constexpr (is_fp<A>) {
      // Branch-free (vectorises): a NaN input stays, a NaN bound wins otherwise.
      return (lo > v || (lo != lo && v == v)) ? lo : v;
    } else {
      return v < lo ? lo : v;
    }
  }
};
struct ClampHi {
  template <class A>
  A operator()(A v, A hi) const {
    if constexpr (is_fp<A>) {
      return (hi < v || (hi != hi && v == v)) ? hi : v;
    } else {
      return v > hi ? hi : v;
    }
  }
};

// Integer power with torch's rules for negative exponents.
template <class A>
A powi(A base, A exp) {
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
    A result = 1;
    using U = std::make_unsigned_t<A>;
    U e = static_cast<U>(exp);
    U b = static_cast<U>(base), r = 1;
    while (e) {
      if (e & 1) r = static_cast<U>(r * b);
      b = static_cast<U>(b * b);
      e >>= 1;
    }
    result = static_cast<A>(r);
    return result;
  }
}

}  // namespace

Tensor abs(const Tensor& a) {
  if (a.dtype() == DType::Bool) not_implemented_for("abs_cpu", a.dtype());
  return unary_op(a, a.dtype(), a.dtype(), [](auto x) {
    using A = decltype(x);
    if constexpr (is_fp<A>)
      return std::fabs(x);
    else if constexpr (std::is_unsigned_v<A>)
      return x;
    else
      return x < 0 ? wrap_neg(x) : x;  // abs(INT64_MIN) == INT64_MIN, as in torch
  });
}

Tensor sign(const Tensor& a) {
  return unary_op(a, a.dtype(), a.dtype(), [](auto x) {
    using A = decltype(x);
    if constexpr (std::is_same_v<A, bool>)
      return x;
    else
      return static_cast<A>(static_cast<A>(A(0) < x) - static_cast<A>(x < A(0)));
  });
}

Tensor exp(const Tensor& a) {
  return float_unary(a, [](auto x) { return std::exp(x); });
}
Tensor log(const Tensor& a) {
  return float_unary(a, [](auto x) { return std::log(x); });
}
Tensor log1p(const Tensor& a) {
  return float_unary(a, [](auto x) { return std::log1p(x); });
}
Tensor expm1(const Tensor& a) {
  return float_unary(a, [](auto x) { return std::expm1(x); });
}
Tensor sqrt(const Tensor& a) {
  return float_unary(a, [](auto x) { return std::sqrt(x); });
}
Tensor rsqrt(const Tensor& a) {
  return float_unary(a, [](auto x) {
    using A = decltype(x);
    return A(1) / std::sqrt(x);
  });
}
Tensor erf(const Tensor& a) {
  return float_unary(a, [](auto x) { return std::erf(x); });
}
Tensor sigmoid(const Tensor& a) {
  return float_unary(a, [](auto x) {
    using A = decltype(x);
    return A(1) / (A(1) + std::exp(-x));
  });
}
Tensor tanh(const Tensor& a) {
  return float_unary(a, [](auto x) { return std::tanh(x); });
}

Tensor pow(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  if (b.impl()->wrapped_number) {
    // tensor ** scalar: torch's special cases (and its error for negative integer powers).
    double e = item_double(b);
    GLIA_CHECK(!(is_integral(t, true) && !is_floating(b.dtype()) && e < 0), InvalidArgument,
               "Integers to negative integer powers are not allowed.");
    if (is_floating(t)) {
      if (e == 2) return unary_op(a, t, t, [](auto x) { return x * x; });
      if (e == 3) return unary_op(a, t, t, [](auto x) { return x * x * x; });
      if (e == 1) return unary_op(a, t, t, [](auto x) { return x; });
      if (e == 0.5) return unary_op(a, t, t, [](auto x) { return std::sqrt(x); });
      if (e == -1)
        return unary_op(a, t, t, [](auto x) {
          using A = decltype(x);
          return A(1) / x;
        });
    }
  }
  return binary_op("pow", a, b, t, t, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (is_fp<A>)
      return std::pow(x, y);
    else
      return powi<A>(x, y);
  });
}

Tensor clamp(const Tensor& a, const Tensor& lo, const Tensor& hi) {
  GLIA_CHECK(lo.defined() || hi.defined(), InvalidArgument,
             "torch.clamp: At least one of 'min' or 'max' must not be None");
  const Tensor* operands[3] = {&a, nullptr, nullptr};
  size_t n = 1;
  if (lo.defined()) operands[n++] = &lo;
  if (hi.defined()) operands[n++] = &hi;
  DType t = result_type(std::span<const Tensor* const>(operands, n));
  // A single scalar bound that is NaN is ignored (torch's clamp_min/clamp_max kernels); tensor
  // bounds and a pair of scalar bounds propagate NaN.
  auto lenient_lo = [](auto v, auto b) { return v < b ? b : v; };
  auto lenient_hi = [](auto v, auto b) { return v > b ? b : v; };
  if (!hi.defined())
    return lo.impl()->wrapped_number ? binary_op("clamp", a, lo, t, t, lenient_lo)
                                     : binary_op("clamp", a, lo, t, t, ClampLo{});
  if (!lo.defined())
    return hi.impl()->wrapped_number ? binary_op("clamp", a, hi, t, t, lenient_hi)
                                     : binary_op("clamp", a, hi, t, t, ClampHi{});
  Dims shape = broadcast3("clamp", a, lo, hi);
  Tensor x = expand_to(to_dtype(a, t), shape);
  Tensor l = expand_to(to_dtype(lo, t), shape);
  Tensor h = expand_to(to_dtype(hi, t), shape);
  Tensor out = empty(shape, t, a.device());
  dispatch_all(t, [&](auto tag) {
    using T = decltype(tag);
    if (l.numel() > 0 && is_broadcast_scalar(l) && is_broadcast_scalar(h)) {
      // Scalar bounds (the common case): a unary kernel.
      const acc_t<T> lv = static_cast<acc_t<T>>(*l.data_ptr<T>()), hv = static_cast<acc_t<T>>(*h.data_ptr<T>());
      map_unary<T, T>(out, x, [lv, hv](auto v) { return ClampHi{}(ClampLo{}(v, lv), hv); });
      return;
    }
    map_ternary<T, T, T, T>(out, x, l, h, [](auto v, auto lv, auto hv) { return ClampHi{}(ClampLo{}(v, lv), hv); });
  });
  return out;
}

void clamp_(const Tensor& self, const Tensor& lo, const Tensor& hi) {
  Tensor r = clamp(self, lo, hi);
  GLIA_CHECK(r.shape() == self.shape(), Shape, "clamp_: output with shape ", self.shape(),
             " doesn't match the broadcast shape ", r.shape());
  check_inplace_cast("clamp_", r.dtype(), self.dtype());
  copy_into(self, r);
}

Tensor maximum(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  // x if it is larger or NaN, else y (NaN too when y is): NaN propagates, one select.
  return binary_op("maximum", a, b, t, t, [](auto x, auto y) { return (x > y || x != x) ? x : y; });
}

Tensor minimum(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  return binary_op("minimum", a, b, t, t, [](auto x, auto y) { return (x < y || x != x) ? x : y; });
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  static const char* names[] = {"Float", "Double", "Half", "BFloat16", "Long", "Int", "Byte", "Bool"};
  GLIA_CHECK(cond.dtype() == DType::Bool || cond.dtype() == DType::UInt8, DType,
             "where expected condition to be a boolean tensor, but got a tensor with dtype ",
             names[static_cast<int>(cond.dtype())]);
  DType t = result_type(a, b);
  Dims shape = broadcast3("where", cond, a, b);
  Tensor c = expand_to(to_dtype(cond, DType::Bool), shape);
  Tensor x = expand_to(to_dtype(a, t), shape);
  Tensor y = expand_to(to_dtype(b, t), shape);
  Tensor out = empty(shape, t, a.device());
  dispatch_all(t, [&](auto tag) {
    using T = decltype(tag);
    map_ternary<T, bool, T, T>(out, c, x, y, [](bool k, auto u, auto v) { return k ? u : v; });
  });
  return out;
}

}  // namespace glia::ops
