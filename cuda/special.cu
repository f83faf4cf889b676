// The special functions of the CUDA backend: lgamma, digamma, trigamma, polygamma, mvlgamma, erfinv, i0, i1,
// sinc (unary), logaddexp, logaddexp2, igamma, igammac (binary); float32, float64, float16 and bfloat16 (in
// float), as the CPU kernels. Each element runs the CPU kernel's own function of src/core/special_math.h /
// elementwise_math.h (lgamma: the C library's, CUDA's lgamma / lgammaf here), so the CPU goldens test the code
// the GPU runs; the series (Hurwitz zeta, Bessel, incomplete gamma) loop per element in double, as on the CPU.
#include <cmath>

#include "core/special_math.h"
#include "elementwise_call.cuh"
#include "special_kernels.h"

namespace glia::cuda {

namespace sp {

struct Lgamma {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return std::lgamma(x);
  }
};
#define GLIA_CUDA_MATH_UNARY(Name, fn)         \
  struct Name {                                \
    template <class A>                         \
    GLIA_HOST_DEVICE A operator()(A x) const { \
      return math::fn<A>(x);                   \
    }                                          \
  };
GLIA_CUDA_MATH_UNARY(Digamma, digamma)
GLIA_CUDA_MATH_UNARY(Trigamma, trigamma)
GLIA_CUDA_MATH_UNARY(Erfinv, erfinv)
GLIA_CUDA_MATH_UNARY(I0, i0)
GLIA_CUDA_MATH_UNARY(I1, i1)
GLIA_CUDA_MATH_UNARY(Sinc, sinc)
#undef GLIA_CUDA_MATH_UNARY

#define GLIA_CUDA_MATH_BINARY(Name, fn)             \
  struct Name {                                     \
    template <class A>                              \
    GLIA_HOST_DEVICE A operator()(A x, A y) const { \
      return math::fn<A>(x, y);                     \
    }                                               \
  };
GLIA_CUDA_MATH_BINARY(Logaddexp, logaddexp)
GLIA_CUDA_MATH_BINARY(Logaddexp2, logaddexp2)
GLIA_CUDA_MATH_BINARY(Igamma, igamma)
GLIA_CUDA_MATH_BINARY(Igammac, igammac)
#undef GLIA_CUDA_MATH_BINARY

template <class A>
struct Polygamma {
  int64_t n;
  GLIA_HOST_DEVICE A operator()(A x) const { return math::polygamma<A>(n, x); }
};
template <class A>
struct Mvlgamma {
  int64_t p;
  GLIA_HOST_DEVICE A operator()(A x) const { return math::mvlgamma<A>(x, p); }
};

}  // namespace sp

namespace {

using ewcall::Types;

using ewcall::float_binary;
using ewcall::float_unary;

glia_error* k_polygamma(const glia_kernel_call* call) {
  const int64_t n = call->attrs[0].i;
  return ewcall::unary<Types::kFloat>(call, [n](auto tag) { return sp::Polygamma<acc_t<decltype(tag)>>{n}; });
}
glia_error* k_mvlgamma(const glia_kernel_call* call) {
  const int64_t p = call->attrs[0].i;
  return ewcall::unary<Types::kFloat>(call, [p](auto tag) { return sp::Mvlgamma<acc_t<decltype(tag)>>{p}; });
}

}  // namespace

glia_kernel_fn special_kernel(Kid id) {
  switch (id) {
    case Kid::lgamma:
      return &float_unary<sp::Lgamma>;
    case Kid::digamma:
      return &float_unary<sp::Digamma>;
    case Kid::trigamma:
      return &float_unary<sp::Trigamma>;
    case Kid::erfinv:
      return &float_unary<sp::Erfinv>;
    case Kid::i0:
      return &float_unary<sp::I0>;
    case Kid::i1:
      return &float_unary<sp::I1>;
    case Kid::sinc:
      return &float_unary<sp::Sinc>;
    case Kid::polygamma:
      return &k_polygamma;
    case Kid::mvlgamma:
      return &k_mvlgamma;
    case Kid::logaddexp:
      return &float_binary<sp::Logaddexp>;
    case Kid::logaddexp2:
      return &float_binary<sp::Logaddexp2>;
    case Kid::igamma:
      return &float_binary<sp::Igamma>;
    case Kid::igammac:
      return &float_binary<sp::Igammac>;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
