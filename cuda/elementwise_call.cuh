// The call side of the elementwise kernel files that came after elementwise.cu (special.cu,
// elementwise_extra.cu, activation_extra.cu; nvcc only): the device and stream of a call, the dtype checks of its
// views, the dtype dispatch (launch.cuh's sets plus the integer ones of the bitwise ops) and the unary / binary
// drivers that run a per-element functor through the launcher (Note [CUDA elementwise launcher]). The functor
// maker gets the storage type C (a tag) and returns a functor on acc_t<C>; a functor returning bool makes a
// bool output, as the CPU's unary_kernel / binary_kernel do.
#ifndef GLIA_CUDA_ELEMENTWISE_CALL_CUH
#define GLIA_CUDA_ELEMENTWISE_CALL_CUH

#include <cstdint>
#include <string>
#include <type_traits>

#include "common.h"
#include "launch.cuh"

namespace glia::cuda::ewcall {

// The device of the call set current, its stream in *s.
inline glia_error* begin(const glia_kernel_call* call, cudaStream_t* s) {
  const int32_t dev = call->outputs[0].device_index;
  const cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  *s = call_stream(call, dev)->stream;
  return nullptr;
}

// A view must hold the element type the kernel was instantiated for: the meta parts guarantee it, this makes a
// broken guarantee an error, not a read or write of the wrong width.
inline glia_error* expect_dtype(const glia_kernel_tensor& t, glia_dtype want, const char* what, const char* role) {
  if (t.dtype == want) return nullptr;
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + role + " is " + dtype_name(t.dtype) +
                                           ", the kernel expects " + dtype_name(want));
}

inline const char* kname(const glia_kernel_call* call) {
  const char* n = services().kernel_name(call->kernel);
  return n ? n : "kernel";
}

// The compute dtypes of a kernel: launch.cuh's sets, and the integers without (kInt: the shifts) or with bool
// (kIntBool: bitwise and, or, xor, not).
enum class Types { kFloat, kAll, kNoBool, kInt, kIntBool };

template <Types S, class F>
glia_error* dispatch_types(glia_dtype t, const char* what, F&& f) {
  if constexpr (S == Types::kFloat) {
    return dispatch<Set::kFloat>(t, what, f);
  } else if constexpr (S == Types::kAll) {
    return dispatch<Set::kAll>(t, what, f);
  } else if constexpr (S == Types::kNoBool) {
    return dispatch<Set::kNoBool>(t, what, f);
  } else {
    switch (t) {
      case GLIA_INT64:
        return f(int64_t{});
      case GLIA_INT32:
        return f(int32_t{});
      case GLIA_INT16:
        return f(int16_t{});
      case GLIA_INT8:
        return f(int8_t{});
      case GLIA_UINT8:
        return f(uint8_t{});
      case GLIA_BOOL:
        if constexpr (S == Types::kIntBool) return f(bool{});
        break;
      default:
        break;
    }
    return dtype_error(what, t);
  }
}

// out = f(in0), out of in0's dtype (bool for a predicate).
template <Types S, class Make>
glia_error* unary(const glia_kernel_call* call, Make make) {
  const char* what = kname(call);
  cudaStream_t s;
  if (glia_error* e = begin(call, &s)) return e;
  const Views<2> v = out_then_inputs<2>(call);
  return dispatch_types<S>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
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

// out = f(in0, in1), both inputs of the compute dtype C (in0's), out of C (bool for a predicate).
template <Types S, class Make>
glia_error* binary(const glia_kernel_call* call, Make make) {
  const char* what = kname(call);
  cudaStream_t s;
  if (glia_error* e = begin(call, &s)) return e;
  const Views<3> v = out_then_inputs<3>(call);
  return dispatch_types<S>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    using A = acc_t<C>;
    const auto f = make(tag);
    using F = std::remove_const_t<decltype(f)>;
    using R = decltype(f(A{}, A{}));
    using Out = std::conditional_t<std::is_same_v<R, bool>, bool, C>;
    if (glia_error* e = expect_dtype(call->inputs[1], dtype_of<C>(), what, "input 1")) return e;
    if (glia_error* e = expect_dtype(call->outputs[0], dtype_of<Out>(), what, "the output")) return e;
    return launch<3>(v.v, what, Apply<Out, F, C, C>{f}, s);
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

// A float-only kernel of a functor that needs no attributes.
template <class F>
glia_error* float_unary(const glia_kernel_call* call) {
  return unary<Types::kFloat>(call, Plain<F>{});
}
template <class F>
glia_error* float_binary(const glia_kernel_call* call) {
  return binary<Types::kFloat>(call, Plain<F>{});
}

}  // namespace glia::cuda::ewcall

#endif  // GLIA_CUDA_ELEMENTWISE_CALL_CUH
