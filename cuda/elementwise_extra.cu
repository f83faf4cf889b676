// The floating elementwise kernels of the CUDA backend after elementwise.cu's: atan2, hypot, copysign, xlogy,
// nextafter (binary), frac, round (with decimals), logit, float_class (isnan, isinf, isfinite, isposinf,
// isneginf), nan_to_num, frexp (unary), lerp and lerp_scalar; float32, float64, float16 and bfloat16 (in float),
// as the CPU kernels (src/ops/cpu/math.cpp, special.cpp). Each element runs the CPU kernel's formula, the shared
// ones from src/core/elementwise_math.h and special_math.h, attributes converted as the CPU converts them.
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/special_math.h"
#include "elementwise_call.cuh"
#include "special_kernels.h"

namespace glia::cuda {

namespace fx {

struct Atan2 {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return std::atan2(x, y);
  }
};
struct Hypot {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return std::hypot(x, y);
  }
};
struct Copysign {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return std::copysign(x, y);
  }
};
struct Xlogy {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return math::xlogy<A>(x, y);
  }
};
struct NextAfter {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A a, A b) const {
    return std::nextafter(a, b);
  }
};
// float16 / bfloat16 step one unit in their own last place (the CPU's nextafter_kernel).
template <class C>
struct NextAfter16 {
  GLIA_HOST_DEVICE float operator()(float a, float b) const {
    if (a != a || b != b) return a + b;
    if (a == b) return b;
    return load_acc(C{math::nextafter_bits16(a, b, store_as<C>(a).bits)});
  }
};
struct Frac {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return math::frac<A>(x);
  }
};
struct Round {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return std::nearbyint(x);
  }
};
template <class A>
struct RoundDecimals {
  A scale;
  bool negative;
  GLIA_HOST_DEVICE A operator()(A x) const { return math::round_decimals<A>(x, scale, negative); }
};
template <class A>
struct Logit {
  A lo, hi;
  GLIA_HOST_DEVICE A operator()(A x) const { return math::logit<A>(x, lo, hi); }
};
// The attribute's class: 0 isnan, 1 isinf, 2 isfinite, 3 isposinf, 4 isneginf (the CPU's expressions).
struct FloatClass {
  int64_t cls;
  template <class A>
  GLIA_HOST_DEVICE bool operator()(A x) const {
    constexpr A inf = std::numeric_limits<A>::infinity();
    switch (cls) {
      case 0:
        return x != x;
      case 1:
        return std::fabs(x) == inf;
      case 2:
        return x - x == 0;
      case 3:
        return x == inf;
      default:
        return x == -inf;
    }
  }
};
template <class A>
struct NanToNum {
  A nan, pos, neg;
  GLIA_HOST_DEVICE A operator()(A x) const {
    constexpr A inf = std::numeric_limits<A>::infinity();
    return x != x ? nan : (x == inf ? pos : (x == -inf ? neg : x));
  }
};
struct Lerp {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A s, A e, A w) const {
    return math::lerp<A>(s, e, w);
  }
};
template <class A>
struct LerpScalar {
  A w;
  GLIA_HOST_DEVICE A operator()(A s, A e) const { return math::lerp<A>(s, e, w); }
};

// frexp: out0 the mantissa (x's dtype), out1 the int32 exponent; operands out0, out1, x.
template <class C>
struct Frexp {
  template <class Off>
  __device__ __forceinline__ void operator()(const Ptrs<3>& p, const Off* off) const {
    const acc_t<C> x = load_acc(*reinterpret_cast<const C*>(p.p[2] + off[2]));
    *reinterpret_cast<C*>(p.p[0] + off[0]) = store_as<C>(math::frexp_mantissa(x));
    *reinterpret_cast<int32_t*>(p.p[1] + off[1]) = math::frexp_exponent(x);
  }
};

}  // namespace fx

namespace {

using ewcall::Types;

using ewcall::float_binary;
using ewcall::float_unary;

glia_error* k_nextafter(const glia_kernel_call* call) {
  return ewcall::binary<Types::kFloat>(call, [](auto tag) {
    using C = decltype(tag);
    if constexpr (is_half_v<C>)
      return fx::NextAfter16<C>{};
    else
      return fx::NextAfter{};
  });
}

glia_error* k_round(const glia_kernel_call* call) {
  const int64_t decimals = call->attrs[0].i;
  if (decimals == 0) return float_unary<fx::Round>(call);
  const bool negative = decimals < 0;
  const double scale = std::pow(10.0, static_cast<double>(negative ? -decimals : decimals));
  return ewcall::unary<Types::kFloat>(call, [scale, negative](auto tag) {
    using A = acc_t<decltype(tag)>;
    return fx::RoundDecimals<A>{static_cast<A>(scale), negative};
  });
}

glia_error* k_logit(const glia_kernel_call* call) {
  const double eps = call->attrs[0].f;
  return ewcall::unary<Types::kFloat>(call, [eps](auto tag) {
    using A = acc_t<decltype(tag)>;
    return fx::Logit<A>{static_cast<A>(eps), static_cast<A>(1) - static_cast<A>(eps)};
  });
}

glia_error* k_float_class(const glia_kernel_call* call) {
  const int64_t cls = call->attrs[0].i;
  return ewcall::unary<Types::kFloat>(call, [cls](auto) { return fx::FloatClass{cls}; });
}

glia_error* k_nan_to_num(const glia_kernel_call* call) {
  const double nan = call->attrs[0].f, pos = call->attrs[1].f, neg = call->attrs[2].f;
  return ewcall::unary<Types::kFloat>(call, [=](auto tag) {
    using C = decltype(tag);
    using A = acc_t<C>;
    // The replacements rounded to the input's dtype first (torch converts them to scalar_t).
    return fx::NanToNum<A>{load_acc(convert<C, double>(nan)), load_acc(convert<C, double>(pos)),
                           load_acc(convert<C, double>(neg))};
  });
}

glia_error* k_lerp_scalar(const glia_kernel_call* call) {
  const double w = call->attrs[0].f;
  return ewcall::binary<Types::kFloat>(call, [w](auto tag) {
    using A = acc_t<decltype(tag)>;
    return fx::LerpScalar<A>{static_cast<A>(w)};
  });
}

glia_error* k_lerp(const glia_kernel_call* call) {
  const char* what = "lerp";
  cudaStream_t s;
  if (glia_error* e = ewcall::begin(call, &s)) return e;
  const Views<4> v = out_then_inputs<4>(call);
  return ewcall::dispatch_types<Types::kFloat>(call->outputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    for (int k = 0; k < 3; ++k)
      if (glia_error* e = ewcall::expect_dtype(call->inputs[k], dtype_of<C>(), what, "an input")) return e;
    return launch<4>(v.v, what, Apply<C, fx::Lerp, C, C, C>{fx::Lerp{}}, s);
  });
}

glia_error* k_frexp(const glia_kernel_call* call) {
  const char* what = "frexp";
  cudaStream_t s;
  if (glia_error* e = ewcall::begin(call, &s)) return e;
  const glia_kernel_tensor* views[3] = {&call->outputs[0], &call->outputs[1], &call->inputs[0]};
  return ewcall::dispatch_types<Types::kFloat>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    if (glia_error* e = ewcall::expect_dtype(call->outputs[0], dtype_of<C>(), what, "the mantissa")) return e;
    if (glia_error* e = ewcall::expect_dtype(call->outputs[1], GLIA_INT32, what, "the exponent")) return e;
    return launch<3>(views, what, fx::Frexp<C>{}, s);
  });
}

}  // namespace

glia_kernel_fn elementwise_extra_kernel(Kid id) {
  switch (id) {
    case Kid::atan2:
      return &float_binary<fx::Atan2>;
    case Kid::hypot:
      return &float_binary<fx::Hypot>;
    case Kid::copysign:
      return &float_binary<fx::Copysign>;
    case Kid::xlogy:
      return &float_binary<fx::Xlogy>;
    case Kid::nextafter:
      return &k_nextafter;
    case Kid::frac:
      return &float_unary<fx::Frac>;
    case Kid::round:
      return &k_round;
    case Kid::logit:
      return &k_logit;
    case Kid::float_class:
      return &k_float_class;
    case Kid::nan_to_num:
      return &k_nan_to_num;
    case Kid::frexp:
      return &k_frexp;
    case Kid::lerp:
      return &k_lerp;
    case Kid::lerp_scalar:
      return &k_lerp_scalar;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
