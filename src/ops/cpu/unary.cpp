// Unary math (abs, sign, exp, log, log1p, expm1, sqrt, rsqrt, erf, sigmoid,
// tanh), pow, clamp, maximum, minimum and where.
#include <cmath>

#include "ops/cpu/loops.h"
#include "ops/elementwise.h"

namespace glia::ops {

namespace {

template <class A>
constexpr bool is_fp = std::is_floating_point_v<A>;

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
    // At least unsigned int: uint16 * uint16 would promote to int and could overflow it.
    using U = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;
    U e = static_cast<U>(static_cast<std::make_unsigned_t<A>>(exp));
    U b = static_cast<U>(static_cast<std::make_unsigned_t<A>>(base)), r = 1;
    while (e) {
      if (e & 1) r = static_cast<U>(r * b);
      b = static_cast<U>(b * b);
      e >>= 1;
    }
    result = static_cast<A>(r);
    return result;
  }
}

// An op that computes in floating point: integer and bool inputs give float32.
Tensor float_unary(KernelId id, const Tensor& a) {
  DType t = is_floating(a.dtype()) ? a.dtype() : DType::Float32;
  return unary_meta(id, a, t, t);
}

}  // namespace

// ---- meta parts (Note [Op = meta + kernel + rule])

Tensor abs(const Tensor& a) {
  if (a.dtype() == DType::Bool) not_implemented_for("abs_cpu", a.dtype());
  return unary_meta(KernelId::abs, a, a.dtype(), a.dtype());
}

Tensor sign(const Tensor& a) { return unary_meta(KernelId::sign, a, a.dtype(), a.dtype()); }

Tensor exp(const Tensor& a) { return float_unary(KernelId::exp, a); }
Tensor log(const Tensor& a) { return float_unary(KernelId::log, a); }
Tensor log1p(const Tensor& a) { return float_unary(KernelId::log1p, a); }
Tensor expm1(const Tensor& a) { return float_unary(KernelId::expm1, a); }
Tensor sqrt(const Tensor& a) { return float_unary(KernelId::sqrt, a); }
Tensor rsqrt(const Tensor& a) { return float_unary(KernelId::rsqrt, a); }
Tensor erf(const Tensor& a) { return float_unary(KernelId::erf, a); }
Tensor sigmoid(const Tensor& a) { return float_unary(KernelId::sigmoid, a); }
Tensor tanh(const Tensor& a) { return float_unary(KernelId::tanh, a); }

Tensor pow(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  if (b.impl()->wrapped_number) {
    // tensor ** scalar: torch's special cases (and its error for negative integer powers).
    double e = item_double(b);  // a wrapped number is a CPU scalar
    GLIA_CHECK(!(is_integral(t, true) && !is_floating(b.dtype()) && e < 0), InvalidArgument,
               "Integers to negative integer powers are not allowed.");
    if (is_floating(t) && (e == 2 || e == 3 || e == 1 || e == 0.5 || e == -1))
      return unary_meta(KernelId::pow_scalar, a, t, t, {attr_f(e)});
  }
  return binary_meta(KernelId::pow, "pow", a, b, t, t);
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
  if (!hi.defined())
    return binary_meta(KernelId::clamp_min, "clamp", a, lo, t, t, {attr_i(lo.impl()->wrapped_number ? 1 : 0)});
  if (!lo.defined())
    return binary_meta(KernelId::clamp_max, "clamp", a, hi, t, t, {attr_i(hi.impl()->wrapped_number ? 1 : 0)});
  return ternary_meta(KernelId::clamp, "clamp", a, lo, hi, t, t);
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
  return binary_meta(KernelId::maximum, "maximum", a, b, t, t);
}

Tensor minimum(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  return binary_meta(KernelId::minimum, "minimum", a, b, t, t);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  // scalar_type_name covers every dtype: a table of eight here read past its end for int8 and int16
  // (found by tests/fuzz).
  GLIA_CHECK(cond.dtype() == DType::Bool || cond.dtype() == DType::UInt8, DType,
             "where expected condition to be a boolean tensor, but got a tensor with dtype ",
             scalar_type_name(cond.dtype()));
  return ternary_meta(KernelId::where, "where", cond, a, b, DType::Bool, result_type(a, b));
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::binary_kernel;
using ops::ClampHi;
using ops::ClampLo;
using ops::Types;
using ops::unary_kernel;

void abs_kernel(const KernelArgs& k) {
  unary_kernel(k, [](auto x) {
    using A = decltype(x);
    if constexpr (std::is_floating_point_v<A>)
      return std::fabs(x);
    else if constexpr (std::is_unsigned_v<A>)
      return x;
    else
      return x < 0 ? wrap_neg(x) : x;  // abs(INT64_MIN) == INT64_MIN, as in torch
  });
}

void sign_kernel(const KernelArgs& k) {
  unary_kernel(k, [](auto x) {
    using A = decltype(x);
    if constexpr (std::is_same_v<A, bool>)
      return x;
    else
      return static_cast<A>(static_cast<A>(A(0) < x) - static_cast<A>(x < A(0)));
  });
}

void exp_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return std::exp(x); });
}
void log_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return std::log(x); });
}
void log1p_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return std::log1p(x); });
}
void expm1_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return std::expm1(x); });
}
void sqrt_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return std::sqrt(x); });
}
void rsqrt_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) {
    using A = decltype(x);
    return A(1) / std::sqrt(x);
  });
}
void erf_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return std::erf(x); });
}
void sigmoid_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) {
    using A = decltype(x);
    return A(1) / (A(1) + std::exp(-x));
  });
}
void tanh_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return std::tanh(x); });
}

void pow_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_floating_point_v<A>)
      return std::pow(x, y);
    else
      return ops::powi<A>(x, y);
  });
}

void pow_scalar_kernel(const KernelArgs& k) {
  const double e = k.attr(0).f;
  if (e == 2) return unary_kernel<Types::Floating>(k, [](auto x) { return x * x; });
  if (e == 3) return unary_kernel<Types::Floating>(k, [](auto x) { return x * x * x; });
  if (e == 1) return unary_kernel<Types::Floating>(k, [](auto x) { return x; });
  if (e == 0.5) return unary_kernel<Types::Floating>(k, [](auto x) { return std::sqrt(x); });
  if (e == -1)
    return unary_kernel<Types::Floating>(k, [](auto x) {
      using A = decltype(x);
      return A(1) / x;
    });
  // Any other exponent: rounded to the input's dtype, as a scalar operand of pow is.
  dispatch_floating(k.input(0).dtype(), "pow", [&](auto tag) {
    using C = decltype(tag);
    using A = acc_t<C>;
    const A ev = static_cast<A>(convert<C, double>(e));
    ops::map_unary<C, C>(k.output(0), k.input(0), [ev](A x) { return std::pow(x, ev); });
  });
}

void clamp_min_kernel(const KernelArgs& k) {
  if (k.attr(0).i) return binary_kernel(k, [](auto v, auto b) { return v < b ? b : v; });
  binary_kernel(k, ClampLo{});
}

void clamp_max_kernel(const KernelArgs& k) {
  if (k.attr(0).i) return binary_kernel(k, [](auto v, auto b) { return v > b ? b : v; });
  binary_kernel(k, ClampHi{});
}

void clamp_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &x = k.input(0), &l = k.input(1), &h = k.input(2);
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (l.numel() > 0 && ops::is_broadcast_scalar(l) && ops::is_broadcast_scalar(h)) {
      // Scalar bounds (the common case): a unary loop.
      const acc_t<T> lv = static_cast<acc_t<T>>(*l.data_ptr<T>()), hv = static_cast<acc_t<T>>(*h.data_ptr<T>());
      ops::map_unary<T, T>(out, x, [lv, hv](auto v) { return ClampHi{}(ClampLo{}(v, lv), hv); });
      return;
    }
    ops::map_ternary<T, T, T, T>(out, x, l, h,
                                 [](auto v, auto lv, auto hv) { return ClampHi{}(ClampLo{}(v, lv), hv); });
  });
}

void maximum_kernel(const KernelArgs& k) {
  // x if it is larger or NaN, else y (NaN too when y is): NaN propagates, one select.
  binary_kernel(k, [](auto x, auto y) { return (x > y || x != x) ? x : y; });
}

void minimum_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) { return (x < y || x != x) ? x : y; });
}

void where_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &c = k.input(0), &x = k.input(1), &y = k.input(2);
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ops::map_ternary<T, bool, T, T>(out, c, x, y, [](bool b, auto u, auto v) { return b ? u : v; });
  });
}

}  // namespace glia::cpu
