// The elementwise kernels of the CUDA backend that take integer tensors too: fmod, remainder (every dtype but
// bool), fmax, fmin, heaviside (every dtype), bitwise_and, bitwise_or, bitwise_xor, bitwise_not (integers and
// bool), left_shift, right_shift (integers). Each element runs the CPU kernel's formula (src/ops/cpu/math.cpp,
// special.cpp; the shared ones from src/core/elementwise_math.h and special_math.h).
//
// An integer fmod or remainder by zero is torch's ZeroDivisionError, which the CPU raises before writing
// anything: here a first kernel over the divisor raises a flag in device memory (several threads may store the
// same 1: no atomics needed) and the call reads it back (one stream synchronisation, integer dtypes only)
// before the division runs, so a failing call leaves its output as it was, as on the CPU.
#include <string>
#include <type_traits>

#include "core/special_math.h"
#include "elementwise_call.cuh"
#include "special_kernels.h"

namespace glia::cuda {

namespace bx {

struct Fmod {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return math::fmod<A>(x, y);
  }
};
struct Remainder {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return math::remainder<A>(x, y);
  }
};
// y if x is NaN, x if y is NaN, else the larger (smaller): the CPU's fmax_kernel / fmin_kernel.
struct Fmax {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    if constexpr (std::is_floating_point_v<A>)
      return (x > y || y != y) ? x : y;
    else
      return x > y ? x : y;
  }
};
struct Fmin {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    if constexpr (std::is_floating_point_v<A>)
      return (x < y || y != y) ? x : y;
    else
      return x < y ? x : y;
  }
};
struct Heaviside {
  GLIA_HOST_DEVICE bool operator()(bool x, bool v) const { return x ? true : v; }
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A v) const {
    return math::heaviside<A>(x, v);
  }
};
struct BitAnd {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return static_cast<A>(x & y);
  }
};
struct BitOr {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return static_cast<A>(x | y);
  }
};
struct BitXor {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A y) const {
    return static_cast<A>(x ^ y);
  }
};
struct BitNot {
  GLIA_HOST_DEVICE bool operator()(bool x) const { return !x; }
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return static_cast<A>(~x);
  }
};
struct ShiftLeft {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A n) const {
    return math::shift_left<A>(x, n);
  }
};
struct ShiftRight {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A n) const {
    return math::shift_right<A>(x, n);
  }
};

// Raises *flag where the divisor is zero.
template <class C>
struct ZeroFlag {
  int* flag;
  template <class Off>
  __device__ __forceinline__ void operator()(const Ptrs<1>& p, const Off* off) const {
    if (*reinterpret_cast<const C*>(p.p[0] + off[0]) == C(0)) *flag = 1;
  }
};

}  // namespace bx

namespace {

using ewcall::Plain;
using ewcall::Types;

// Device memory for the zero flag, freed when the call returns (after its read-back synchronised the stream).
struct Flag {
  int32_t dev;
  void* p = nullptr;
  ~Flag() {
    if (p) device_free(dev, p);
  }
};

// torch's ZeroDivisionError for an integer divisor holding a zero (the CPU's check_nonzero_divisor).
glia_error* check_nonzero_divisor(const glia_kernel_call* call, const char* what) {
  const glia_kernel_tensor& y = call->inputs[1];
  if (y.dtype == GLIA_FLOAT32 || y.dtype == GLIA_FLOAT64 || y.dtype == GLIA_FLOAT16 || y.dtype == GLIA_BFLOAT16)
    return nullptr;
  if (view_numel(y) == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = ewcall::begin(call, &s)) return e;
  Flag flag{call->outputs[0].device_index};
  if (glia_error* e = device_alloc(flag.dev, sizeof(int), &flag.p)) return e;
  cudaError_t st = cudaMemsetAsync(flag.p, 0, sizeof(int), s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  const glia_kernel_tensor* views[1] = {&y};
  int* fp = static_cast<int*>(flag.p);
  glia_error* e = ewcall::dispatch_types<Types::kInt>(y.dtype, what, [&](auto tag) -> glia_error* {
    using C = decltype(tag);
    return launch<1>(views, what, bx::ZeroFlag<C>{fp}, s);
  });
  if (e) return e;
  int zero = 0;
  st = cudaMemcpyAsync(&zero, fp, sizeof zero, cudaMemcpyDeviceToHost, s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", std::string(what) + ": reading its check back");
  st = cudaStreamSynchronize(s);
  if (st != cudaSuccess) return cuda_error(st, "cudaStreamSynchronize", what);
  if (zero) return make_error(GLIA_ERR_INVALID_ARGUMENT, "ZeroDivisionError");
  return nullptr;
}

template <class F>
glia_error* k_division(const glia_kernel_call* call) {
  if (glia_error* e = check_nonzero_divisor(call, ewcall::kname(call))) return e;
  return ewcall::binary<Types::kNoBool>(call, Plain<F>{});
}
template <class F>
glia_error* any_binary(const glia_kernel_call* call) {
  return ewcall::binary<Types::kAll>(call, Plain<F>{});
}
template <class F>
glia_error* bitwise(const glia_kernel_call* call) {
  return ewcall::binary<Types::kIntBool>(call, Plain<F>{});
}
template <class F>
glia_error* shift(const glia_kernel_call* call) {
  return ewcall::binary<Types::kInt>(call, Plain<F>{});
}
glia_error* k_bitwise_not(const glia_kernel_call* call) {
  return ewcall::unary<Types::kIntBool>(call, Plain<bx::BitNot>{});
}

}  // namespace

glia_kernel_fn binary_extra_kernel(Kid id) {
  switch (id) {
    case Kid::fmod:
      return &k_division<bx::Fmod>;
    case Kid::remainder:
      return &k_division<bx::Remainder>;
    case Kid::fmax:
      return &any_binary<bx::Fmax>;
    case Kid::fmin:
      return &any_binary<bx::Fmin>;
    case Kid::heaviside:
      return &any_binary<bx::Heaviside>;
    case Kid::bitwise_and:
      return &bitwise<bx::BitAnd>;
    case Kid::bitwise_or:
      return &bitwise<bx::BitOr>;
    case Kid::bitwise_xor:
      return &bitwise<bx::BitXor>;
    case Kid::bitwise_not:
      return &k_bitwise_not;
    case Kid::left_shift:
      return &shift<bx::ShiftLeft>;
    case Kid::right_shift:
      return &shift<bx::ShiftRight>;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
