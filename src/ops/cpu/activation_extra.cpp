// The activations of issue 21: meta parts (glia::ops) and CPU kernels
// (glia::cpu) of hardshrink, softshrink, threshold, hardsigmoid, mish,
// log_sigmoid and prelu, their fused backward kernels, and rrelu's noise.
// Per-element math is in core/activation_math.h, shared with the CUDA
// backend.
#include "ops/activation_extra.h"

#include <cmath>
#include <type_traits>

#include "core/activation_math.h"
#include "core/random.h"
#include "ops/cpu/loops.h"
#include "ops/elementwise.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

void check_floating(const char* kernel, DType t) {
  if (!is_floating(t)) not_implemented_for(kernel, t);
}

Tensor float_meta(KernelId id, const char* kernel, const Tensor& a, std::initializer_list<Attr> attrs = {}) {
  check_floating(kernel, a.dtype());
  return unary_meta(id, a, a.dtype(), a.dtype(), attrs);
}

Tensor backward_meta(KernelId id, const Tensor& grad, const Tensor& x, std::initializer_list<Attr> attrs = {}) {
  DType t = x.dtype();
  GLIA_CHECK(is_floating(t), DType, "backward of an activation on a non-floating tensor");
  return binary_meta(id, "backward", grad, x, t, t, attrs);
}

}  // namespace

// ---- meta parts (Note [Op = meta + kernel + rule])

Tensor hardshrink(const Tensor& a, double lambd) {
  return float_meta(KernelId::hardshrink, "hardshrink_cpu", a, {attr_f(lambd)});
}

Tensor softshrink(const Tensor& a, double lambd) {
  GLIA_CHECK(lambd >= 0, InvalidArgument, "lambda must be greater or equal to 0, but found to be ", lambd, ".");
  return float_meta(KernelId::softshrink, "softshrink_cpu", a, {attr_f(lambd)});
}

Tensor shrink_backward(const Tensor& grad, const Tensor& x, double lambd) {
  return backward_meta(KernelId::shrink_backward, grad, x, {attr_f(lambd)});
}

Tensor threshold(const Tensor& a, double threshold, double value) {
  if (a.dtype() == DType::Bool) not_implemented_for("threshold_cpu", a.dtype());
  Tensor out = empty(a.shape(), a.dtype(), a.device());
  run_kernel(KernelId::threshold, a.device(), {&a}, {&out}, {attr_f(threshold), attr_f(value)});
  return out;
}

void threshold_(const Tensor& self, double threshold, double value) {
  if (self.dtype() == DType::Bool) not_implemented_for("threshold_cpu", self.dtype());
  run_kernel(KernelId::threshold, self.device(), {&self}, {&self}, {attr_f(threshold), attr_f(value)});
}

Tensor hardsigmoid(const Tensor& a) { return float_meta(KernelId::hardsigmoid, "hardsigmoid_cpu", a); }
Tensor hardsigmoid_backward(const Tensor& grad, const Tensor& x) {
  return backward_meta(KernelId::hardsigmoid_backward, grad, x);
}
Tensor mish(const Tensor& a) { return float_meta(KernelId::mish, "mish_cpu", a); }
Tensor mish_backward(const Tensor& grad, const Tensor& x) { return backward_meta(KernelId::mish_backward, grad, x); }
Tensor log_sigmoid(const Tensor& a) { return float_meta(KernelId::log_sigmoid, "log_sigmoid_cpu", a); }
Tensor log_sigmoid_backward(const Tensor& grad, const Tensor& x) {
  return backward_meta(KernelId::log_sigmoid_backward, grad, x);
}

Tensor prelu_weight_view(const Tensor& x, const Tensor& weight) {
  GLIA_CHECK(weight.dim() <= 1, InvalidArgument,
             "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = ", weight.dim());
  const int64_t channels = x.dim() >= 2 ? x.size(1) : 1;
  const int64_t n = weight.numel();
  GLIA_CHECK(n == 1 || n == channels, InvalidArgument,
             "Mismatch of parameter numbers and input channel size. Found parameter numbers = ", n,
             " and channel size = ", channels, ".");
  if (n == 1 || x.dim() < 2) return reshape(weight, Dims{});
  Dims shape(static_cast<size_t>(x.dim()), 1);
  shape[1] = n;
  return reshape(weight, shape);
}

Tensor prelu(const Tensor& x, const Tensor& weight) {
  GLIA_CHECK(weight.dtype() == x.dtype(), DType, "Found dtype ", scalar_type_name(weight.dtype()), " but expected ",
             scalar_type_name(x.dtype()));
  check_floating("prelu_cpu", x.dtype());
  common_device("prelu", {&x, &weight});
  Tensor w = prelu_weight_view(x, weight);
  return binary_meta(KernelId::prelu, "prelu", x, w, x.dtype(), x.dtype());
}

void activation_inplace(KernelId id, const char* kernel, const Tensor& self, std::initializer_list<Attr> attrs,
                        bool any_dtype) {
  if (any_dtype ? self.dtype() == DType::Bool : !is_floating(self.dtype())) not_implemented_for(kernel, self.dtype());
  run_kernel(id, self.device(), {&self}, {&self}, attrs);
}

Tensor rrelu_uniform(const Tensor& x, double lower, double upper) {
  Tensor noise = empty(x.shape(), x.dtype(), Device{});
  const int64_t n = noise.numel();
  dispatch_floating(x.dtype(), "rrelu_with_noise", [&](auto tag) {
    using T = decltype(tag);
    T* o = noise.data_ptr<T>();
    // One stream, in order: the noise depends only on the seed, not on the thread count.
    Generator& gen = thread_generator();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(lower + (upper - lower) * gen.next_double());
  });
  // Drawn on the host from glia's generator, so that a device gets the CPU's noise for the same seed.
  return to_device(noise, x.device());
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::Types;

namespace {
// f instantiated for floating acc types only (the meta parts reject the others).
template <class F>
auto floating_only(F f) {
  return [f](auto... xs) {
    using A = std::common_type_t<decltype(xs)...>;
    if constexpr (std::is_floating_point_v<A>)
      return static_cast<A>(f(xs...));
    else
      return A(0);
  };
}
template <class F>
void float_kernel(const KernelArgs& k, F f) {
  ops::unary_kernel<Types::Floating>(k, floating_only(f));
}
template <class F>
void float_binary_kernel(const KernelArgs& k, F f) {
  ops::binary_kernel<Types::Floating>(k, floating_only(f));
}
}  // namespace

void hardshrink_kernel(const KernelArgs& k) {
  const double l = k.attr(0).f;
  float_kernel(k, [l](auto x) { return math::hardshrink(x, static_cast<decltype(x)>(l)); });
}

void softshrink_kernel(const KernelArgs& k) {
  const double l = k.attr(0).f;
  float_kernel(k, [l](auto x) { return math::softshrink(x, static_cast<decltype(x)>(l)); });
}

void shrink_backward_kernel(const KernelArgs& k) {
  const double l = k.attr(0).f;
  float_binary_kernel(k, [l](auto g, auto x) { return math::shrink_backward(g, x, static_cast<decltype(g)>(l)); });
}

void threshold_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &a = k.input(0);
  const double threshold = k.attr(0).f, value = k.attr(1).f;
  dispatch_all(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    // torch converts both numbers to the input's dtype first.
    const A t = static_cast<A>(convert<T, double>(threshold)), v = static_cast<A>(convert<T, double>(value));
    ops::map_unary<T, T>(out, a, [t, v](A x) { return x <= t ? v : x; });  // NaN compares false: it stays
  });
}

void hardsigmoid_kernel(const KernelArgs& k) {
  float_kernel(k, [](auto x) { return math::hardsigmoid(x); });
}
void hardsigmoid_backward_kernel(const KernelArgs& k) {
  float_binary_kernel(k, [](auto g, auto x) { return math::hardsigmoid_backward(g, x); });
}
void mish_kernel(const KernelArgs& k) {
  float_kernel(k, [](auto x) { return math::mish(x); });
}
void mish_backward_kernel(const KernelArgs& k) {
  float_binary_kernel(k, [](auto g, auto x) { return math::mish_backward(g, x); });
}
void log_sigmoid_kernel(const KernelArgs& k) {
  float_kernel(k, [](auto x) { return math::log_sigmoid(x); });
}
void log_sigmoid_backward_kernel(const KernelArgs& k) {
  float_binary_kernel(k, [](auto g, auto x) { return math::log_sigmoid_backward(g, x); });
}
void prelu_kernel(const KernelArgs& k) {
  float_binary_kernel(k, [](auto x, auto w) { return math::prelu(x, w); });
}

}  // namespace glia::cpu
