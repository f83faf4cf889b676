// The elementwise kernels of the CUDA backend: fill, arithmetic, unary math, pow, clamps, maximum/minimum,
// where, comparisons and logic, the activations and their fused backward formulas. Each runs the per-element
// functor of elementwise_ops.h (the CPU kernel's formula, attributes read as the CPU kernel reads them)
// through the launcher of launch.cuh (Note [CUDA elementwise launcher]). The copy kernel is in copy.cu.
#include <cstring>
#include <string>
#include <type_traits>

#include "common.h"
#include "elementwise_ops.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

// The device of the call set current, its stream in *s.
glia_error* begin(const glia_kernel_call* call, cudaStream_t* s) {
  const int32_t dev = call->outputs[0].device_index;
  const cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  *s = call_stream(call, dev)->stream;
  return nullptr;
}

// The views of a call must hold the element types the kernel was instantiated for (a mismatch would read or
// write the wrong width): the meta parts guarantee it, this makes a broken guarantee an error, not corruption.
glia_error* expect_dtype(const glia_kernel_tensor& t, glia_dtype want, const char* what, const char* role) {
  if (t.dtype == want) return nullptr;
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + role + " is " + dtype_name(t.dtype) +
                                           ", the kernel expects " + dtype_name(want));
}

const char* kname(const glia_kernel_call* call) {
  const char* n = services().kernel_name(call->kernel);
  return n ? n : "kernel";
}

// out (C, or bool for a predicate) = f(in0, in1), in0 and in1 of the compute dtype C (in0's dtype).
template <Set S, class Make>
glia_error* binary(const glia_kernel_call* call, Make make) {
  const char* what = kname(call);
  cudaStream_t s;
  if (glia_error* e = begin(call, &s)) return e;
  const Views<3> v = out_then_inputs<3>(call);
  return dispatch<S>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    using A = acc_t<C>;
    const auto f = make(A{});
    using F = std::remove_const_t<decltype(f)>;
    using R = decltype(f(A{}, A{}));
    using Out = std::conditional_t<std::is_same_v<R, bool>, bool, C>;
    if (glia_error* e = expect_dtype(call->inputs[1], dtype_of<C>(), what, "input 1")) return e;
    if (glia_error* e = expect_dtype(call->outputs[0], dtype_of<Out>(), what, "the output")) return e;
    return launch<3>(v.v, what, Apply<Out, F, C, C>{f}, s);
  });
}

// out = f(in0), out of in0's dtype (or bool for a predicate).
template <Set S, class Make>
glia_error* unary(const glia_kernel_call* call, Make make) {
  const char* what = kname(call);
  cudaStream_t s;
  if (glia_error* e = begin(call, &s)) return e;
  const Views<2> v = out_then_inputs<2>(call);
  return dispatch<S>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    using A = acc_t<C>;
    const auto f = make(tag);
    using F = std::remove_const_t<decltype(f)>;
    using R = decltype(f(A{}));
    using Out = std::conditional_t<std::is_same_v<R, bool>, bool, C>;
    if (glia_error* e = expect_dtype(call->outputs[0], dtype_of<Out>(), what, "the output")) return e;
    return launch<2>(v.v, what, Apply<Out, F, C>{f}, s);
  });
}

// A functor that needs no attribute, for every compute type.
template <class F>
struct Plain {
  template <class T>
  F operator()(T) const {
    return F{};
  }
};

template <class F>
glia_error* float_unary(const glia_kernel_call* call) {
  return unary<Set::kFloat>(call, Plain<F>{});
}
template <class F>
glia_error* float_binary(const glia_kernel_call* call) {
  return binary<Set::kFloat>(call, Plain<F>{});
}

// ---- fill

glia_error* k_fill(const glia_kernel_call* call) {
  const char* what = "fill";
  cudaStream_t s;
  if (glia_error* e = begin(call, &s)) return e;
  const glia_kernel_attr& a = call->attrs[0];
  const Views<1> v{{&call->outputs[0]}};
  return dispatch<Set::kAll>(call->outputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const T value = a.s && a.s[0] == 'i'   ? convert<T, int64_t>(a.i)
                    : a.s && a.s[0] == 'b' ? convert<T, bool>(a.i != 0)
                                           : convert<T, double>(a.f);
    return launch<1>(v.v, what, Fill<T>{value}, s);
  });
}

// ---- arithmetic

glia_error* k_add(const glia_kernel_call* call) {
  const double alpha = call->attrs[0].f;
  return binary<Set::kAll>(call, [alpha](auto a) {
    using A = decltype(a);
    return ew::Add<A>{convert<A, double>(alpha), alpha == 1.0};
  });
}
glia_error* k_sub(const glia_kernel_call* call) {
  const double alpha = call->attrs[0].f;
  return binary<Set::kAll>(call, [alpha](auto a) {
    using A = decltype(a);
    return ew::Sub<A>{convert<A, double>(alpha)};
  });
}
glia_error* k_mul(const glia_kernel_call* call) { return binary<Set::kAll>(call, Plain<ew::Mul>{}); }
glia_error* k_div(const glia_kernel_call* call) {
  const char* mode = call->attrs[0].s;
  if (!mode) return float_binary<ew::TrueDiv>(call);
  const glia_dtype t = call->inputs[1].dtype;
  if (t != GLIA_FLOAT32 && t != GLIA_FLOAT64 && t != GLIA_FLOAT16 && t != GLIA_BFLOAT16)
    // torch fails an integer division by zero (the CPU kernel checks every divisor first): not on the GPU yet.
    return make_error(GLIA_ERR_UNSUPPORTED, std::string("cuda: div with rounding_mode='") + mode +
                                                "' on integer tensors is not supported on the GPU yet (" +
                                                dtype_name(t) + ")");
  if (mode[0] == 't') return float_binary<ew::TruncDiv>(call);
  return float_binary<ew::FloorDiv>(call);
}
glia_error* k_neg(const glia_kernel_call* call) { return unary<Set::kNoBool>(call, Plain<ew::Neg>{}); }

// ---- unary math, pow, clamps, maximum, minimum, where

glia_error* k_abs(const glia_kernel_call* call) { return unary<Set::kAll>(call, Plain<ew::Abs>{}); }
glia_error* k_sign(const glia_kernel_call* call) { return unary<Set::kAll>(call, Plain<ew::Sign>{}); }
glia_error* k_pow(const glia_kernel_call* call) { return binary<Set::kAll>(call, Plain<ew::Pow>{}); }
glia_error* k_pow_scalar(const glia_kernel_call* call) {
  const double e = call->attrs[0].f;
  const int mode = ew::pow_scalar_mode(e);
  return unary<Set::kFloat>(call, [e, mode](auto tag) {
    using C = decltype(tag);
    using A = acc_t<C>;
    return ew::PowScalar<A>{load_acc(convert<C, double>(e)), mode};  // the exponent rounded to the dtype
  });
}
glia_error* k_clamp_min(const glia_kernel_call* call) {
  if (call->attrs[0].i) return binary<Set::kAll>(call, Plain<ew::LenientClampLo>{});
  return binary<Set::kAll>(call, Plain<ew::ClampLo>{});
}
glia_error* k_clamp_max(const glia_kernel_call* call) {
  if (call->attrs[0].i) return binary<Set::kAll>(call, Plain<ew::LenientClampHi>{});
  return binary<Set::kAll>(call, Plain<ew::ClampHi>{});
}
glia_error* k_clamp(const glia_kernel_call* call) {
  const char* what = "clamp";
  cudaStream_t s;
  if (glia_error* e = begin(call, &s)) return e;
  const Views<4> v = out_then_inputs<4>(call);
  return dispatch<Set::kAll>(call->outputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    for (int k = 0; k < 3; ++k)
      if (glia_error* e = expect_dtype(call->inputs[k], dtype_of<C>(), what, "an input")) return e;
    return launch<4>(v.v, what, Apply<C, ew::Clamp, C, C, C>{ew::Clamp{}}, s);
  });
}
glia_error* k_maximum(const glia_kernel_call* call) { return binary<Set::kAll>(call, Plain<ew::Maximum>{}); }
glia_error* k_minimum(const glia_kernel_call* call) { return binary<Set::kAll>(call, Plain<ew::Minimum>{}); }
glia_error* k_where(const glia_kernel_call* call) {
  const char* what = "where";
  cudaStream_t s;
  if (glia_error* e = begin(call, &s)) return e;
  const Views<4> v = out_then_inputs<4>(call);
  if (glia_error* e = expect_dtype(call->inputs[0], GLIA_BOOL, what, "the condition")) return e;
  return dispatch<Set::kAll>(call->outputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    for (int k = 1; k < 3; ++k)
      if (glia_error* e = expect_dtype(call->inputs[k], dtype_of<C>(), what, "an input")) return e;
    return launch<4>(v.v, what, Apply<C, ew::Where, bool, C, C>{ew::Where{}}, s);
  });
}

// ---- comparisons and logic

template <class F>
glia_error* compare(const glia_kernel_call* call) {
  return binary<Set::kAll>(call, Plain<F>{});
}
template <class F>
glia_error* logical(const glia_kernel_call* call) {
  return binary<Set::kBool>(call, Plain<F>{});
}
glia_error* k_logical_not(const glia_kernel_call* call) { return unary<Set::kBool>(call, Plain<ew::LogicalNot>{}); }

// ---- activations

glia_error* k_relu(const glia_kernel_call* call) { return unary<Set::kNoBool>(call, Plain<ew::Relu>{}); }
glia_error* k_leaky_relu(const glia_kernel_call* call) {
  const double slope = call->attrs[0].f;
  return unary<Set::kFloat>(call, [slope](auto tag) { return ew::LeakyRelu<acc_t<decltype(tag)>>{slope}; });
}
glia_error* k_elu(const glia_kernel_call* call) {
  const double alpha = call->attrs[0].f, scale = call->attrs[1].f, input_scale = call->attrs[2].f;
  return unary<Set::kFloat>(call, [=](auto tag) { return ew::Elu<acc_t<decltype(tag)>>{alpha, scale, input_scale}; });
}
glia_error* k_gelu(const glia_kernel_call* call) {
  if (call->attrs[0].i) return float_unary<ew::GeluTanh>(call);
  return float_unary<ew::GeluErf>(call);
}
glia_error* k_softplus(const glia_kernel_call* call) {
  const double beta = call->attrs[0].f, threshold = call->attrs[1].f;
  return unary<Set::kFloat>(call, [=](auto tag) { return ew::Softplus<acc_t<decltype(tag)>>{beta, threshold}; });
}
glia_error* k_hardtanh(const glia_kernel_call* call) {
  const double min_val = call->attrs[0].f, max_val = call->attrs[1].f;
  return unary<Set::kNoBool>(call, [=](auto tag) {
    using C = decltype(tag);
    return ew::Hardtanh<acc_t<C>>{load_acc(convert<C, double>(min_val)), load_acc(convert<C, double>(max_val))};
  });
}
glia_error* k_threshold(const glia_kernel_call* call) {
  const double threshold = call->attrs[0].f, value = call->attrs[1].f;
  return unary<Set::kNoBool>(call, [=](auto tag) {
    using C = decltype(tag);
    return ew::Threshold<acc_t<C>>{load_acc(convert<C, double>(threshold)), load_acc(convert<C, double>(value))};
  });
}
glia_error* k_threshold_backward(const glia_kernel_call* call) {
  const double threshold = call->attrs[0].f;
  return binary<Set::kFloat>(call, [threshold](auto a) { return ew::ThresholdBackward<decltype(a)>{threshold}; });
}
glia_error* k_gelu_backward(const glia_kernel_call* call) {
  if (call->attrs[0].i) return float_binary<ew::GeluTanhBackward>(call);
  return float_binary<ew::GeluErfBackward>(call);
}

}  // namespace

glia_error* dtype_error(const char* what, glia_dtype t) {
  return make_error(GLIA_ERR_UNSUPPORTED,
                    std::string("cuda: ") + what + " has no GPU kernel for " + dtype_name(t) + " tensors");
}

glia_kernel_fn elementwise_kernel(Kid id) {
  switch (id) {
    case Kid::fill:
      return &k_fill;
    case Kid::add:
      return &k_add;
    case Kid::sub:
      return &k_sub;
    case Kid::mul:
      return &k_mul;
    case Kid::div:
      return &k_div;
    case Kid::neg:
      return &k_neg;
    case Kid::abs:
      return &k_abs;
    case Kid::sign:
      return &k_sign;
    case Kid::exp:
      return &float_unary<ew::Exp>;
    case Kid::log:
      return &float_unary<ew::Log>;
    case Kid::log1p:
      return &float_unary<ew::Log1p>;
    case Kid::expm1:
      return &float_unary<ew::Expm1>;
    case Kid::sqrt:
      return &float_unary<ew::Sqrt>;
    case Kid::rsqrt:
      return &float_unary<ew::Rsqrt>;
    case Kid::erf:
      return &float_unary<ew::Erf>;
    case Kid::sigmoid:
      return &float_unary<ew::Sigmoid>;
    case Kid::tanh:
      return &float_unary<ew::Tanh>;
    case Kid::pow:
      return &k_pow;
    case Kid::pow_scalar:
      return &k_pow_scalar;
    case Kid::clamp_min:
      return &k_clamp_min;
    case Kid::clamp_max:
      return &k_clamp_max;
    case Kid::clamp:
      return &k_clamp;
    case Kid::maximum:
      return &k_maximum;
    case Kid::minimum:
      return &k_minimum;
    case Kid::where:
      return &k_where;
    case Kid::eq:
      return &compare<ew::Eq>;
    case Kid::ne:
      return &compare<ew::Ne>;
    case Kid::lt:
      return &compare<ew::Lt>;
    case Kid::le:
      return &compare<ew::Le>;
    case Kid::gt:
      return &compare<ew::Gt>;
    case Kid::ge:
      return &compare<ew::Ge>;
    case Kid::logical_and:
      return &logical<ew::LogicalAnd>;
    case Kid::logical_or:
      return &logical<ew::LogicalOr>;
    case Kid::logical_xor:
      return &logical<ew::LogicalXor>;
    case Kid::logical_not:
      return &k_logical_not;
    case Kid::relu:
      return &k_relu;
    case Kid::leaky_relu:
      return &k_leaky_relu;
    case Kid::elu:
      return &k_elu;
    case Kid::gelu:
      return &k_gelu;
    case Kid::silu:
      return &float_unary<ew::Silu>;
    case Kid::softplus:
      return &k_softplus;
    case Kid::hardtanh:
      return &k_hardtanh;
    case Kid::threshold_backward:
      return &k_threshold_backward;
    case Kid::sigmoid_backward:
      return &float_binary<ew::SigmoidBackward>;
    case Kid::tanh_backward:
      return &float_binary<ew::TanhBackward>;
    case Kid::gelu_backward:
      return &k_gelu_backward;
    case Kid::silu_backward:
      return &float_binary<ew::SiluBackward>;
    case Kid::hardswish:
      return &float_unary<ew::Hardswish>;
    case Kid::hardswish_backward:
      return &float_binary<ew::HardswishBackward>;
    case Kid::sin:
      return &float_unary<ew::Sin>;
    case Kid::cos:
      return &float_unary<ew::Cos>;
    case Kid::tan:
      return &float_unary<ew::Tan>;
    case Kid::asin:
      return &float_unary<ew::Asin>;
    case Kid::acos:
      return &float_unary<ew::Acos>;
    case Kid::atan:
      return &float_unary<ew::Atan>;
    case Kid::sinh:
      return &float_unary<ew::Sinh>;
    case Kid::cosh:
      return &float_unary<ew::Cosh>;
    case Kid::asinh:
      return &float_unary<ew::Asinh>;
    case Kid::acosh:
      return &float_unary<ew::Acosh>;
    case Kid::atanh:
      return &float_unary<ew::Atanh>;
    case Kid::exp2:
      return &float_unary<ew::Exp2>;
    case Kid::log2:
      return &float_unary<ew::Log2>;
    case Kid::log10:
      return &float_unary<ew::Log10>;
    case Kid::erfc:
      return &float_unary<ew::Erfc>;
    case Kid::trunc:
      return &float_unary<ew::Trunc>;
    case Kid::floor:
      return &float_unary<ew::Floor>;
    case Kid::ceil:
      return &float_unary<ew::Ceil>;
    case Kid::threshold:
      return &k_threshold;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
