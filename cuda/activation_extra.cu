// The activations of issue 21 on the CUDA backend: hardshrink, softshrink, shrink_backward, hardsigmoid,
// hardsigmoid_backward, mish, mish_backward, log_sigmoid, log_sigmoid_backward and prelu (threshold is in
// elementwise.cu); float32, float64, float16 and bfloat16 (in float), as the CPU kernels. Each element runs the
// CPU kernel's own function of src/core/activation_math.h, lambd converted as the CPU converts it
// (static_cast to the accumulation type). prelu's weight arrives broadcast to x by its meta part.
#include "core/activation_math.h"
#include "elementwise_call.cuh"
#include "special_kernels.h"

namespace glia::cuda {

namespace act {

template <class A>
struct Hardshrink {
  A l;
  GLIA_HOST_DEVICE A operator()(A x) const { return math::hardshrink<A>(x, l); }
};
template <class A>
struct Softshrink {
  A l;
  GLIA_HOST_DEVICE A operator()(A x) const { return math::softshrink<A>(x, l); }
};
template <class A>
struct ShrinkBackward {
  A l;
  GLIA_HOST_DEVICE A operator()(A g, A x) const { return math::shrink_backward<A>(g, x, l); }
};
struct Hardsigmoid {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return math::hardsigmoid<A>(x);
  }
};
struct HardsigmoidBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A x) const {
    return math::hardsigmoid_backward<A>(g, x);
  }
};
struct Mish {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return math::mish<A>(x);
  }
};
struct MishBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A x) const {
    return math::mish_backward<A>(g, x);
  }
};
struct LogSigmoid {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x) const {
    return math::log_sigmoid<A>(x);
  }
};
struct LogSigmoidBackward {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A g, A x) const {
    return math::log_sigmoid_backward<A>(g, x);
  }
};
struct Prelu {
  template <class A>
  GLIA_HOST_DEVICE A operator()(A x, A w) const {
    return math::prelu<A>(x, w);
  }
};

}  // namespace act

namespace {

using ewcall::Types;

using ewcall::float_binary;
using ewcall::float_unary;

glia_error* k_hardshrink(const glia_kernel_call* call) {
  const double l = call->attrs[0].f;
  return ewcall::unary<Types::kFloat>(call, [l](auto tag) {
    using A = acc_t<decltype(tag)>;
    return act::Hardshrink<A>{static_cast<A>(l)};
  });
}
glia_error* k_softshrink(const glia_kernel_call* call) {
  const double l = call->attrs[0].f;
  return ewcall::unary<Types::kFloat>(call, [l](auto tag) {
    using A = acc_t<decltype(tag)>;
    return act::Softshrink<A>{static_cast<A>(l)};
  });
}
glia_error* k_shrink_backward(const glia_kernel_call* call) {
  const double l = call->attrs[0].f;
  return ewcall::binary<Types::kFloat>(call, [l](auto tag) {
    using A = acc_t<decltype(tag)>;
    return act::ShrinkBackward<A>{static_cast<A>(l)};
  });
}

}  // namespace

glia_kernel_fn activation_extra_kernel(Kid id) {
  switch (id) {
    case Kid::hardshrink:
      return &k_hardshrink;
    case Kid::softshrink:
      return &k_softshrink;
    case Kid::shrink_backward:
      return &k_shrink_backward;
    case Kid::hardsigmoid:
      return &float_unary<act::Hardsigmoid>;
    case Kid::hardsigmoid_backward:
      return &float_binary<act::HardsigmoidBackward>;
    case Kid::mish:
      return &float_unary<act::Mish>;
    case Kid::mish_backward:
      return &float_binary<act::MishBackward>;
    case Kid::log_sigmoid:
      return &float_unary<act::LogSigmoid>;
    case Kid::log_sigmoid_backward:
      return &float_binary<act::LogSigmoidBackward>;
    case Kid::prelu:
      return &float_binary<act::Prelu>;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
