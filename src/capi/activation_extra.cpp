// C entry points of the activations of issue 21 (autograd/fn/activation_extra.h)
// and of the in-place activations.
#include "autograd/functions.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {

// The body of an in-place activation: unwraps self, runs f(self).
template <class F>
glia_error* inplace_entry(glia_tensor* self, const char* fn, F f) {
  return guard([&] { f(tensor_arg(self, fn, "self")); });
}

}  // namespace

extern "C" {

glia_error* glia_prelu(const glia_tensor* a, const glia_tensor* weight, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_prelu", "a");
    Tensor w = tensor_arg(weight, "glia_prelu", "weight");
    check_out(out, "glia_prelu", "out");
    *out = tensor_handle(prelu(x, w));
  });
}
glia_error* glia_rrelu(const glia_tensor* a, double lower, double upper, int32_t training, glia_tensor** out) {
  return unary_entry(a, out, "glia_rrelu", [&](const Tensor& x) { return rrelu(x, lower, upper, training != 0); });
}
glia_error* glia_glu(const glia_tensor* a, int64_t dim, glia_tensor** out) {
  return unary_entry(a, out, "glia_glu", [&](const Tensor& x) { return glu(x, dim); });
}
glia_error* glia_celu(const glia_tensor* a, double alpha, glia_tensor** out) {
  return unary_entry(a, out, "glia_celu", [&](const Tensor& x) { return celu(x, alpha); });
}
glia_error* glia_selu(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_selu", [](const Tensor& x) { return selu(x); });
}
glia_error* glia_softmin(const glia_tensor* a, int64_t dim, glia_tensor** out) {
  return unary_entry(a, out, "glia_softmin", [&](const Tensor& x) { return softmin(x, dim); });
}
glia_error* glia_softshrink(const glia_tensor* a, double lambd, glia_tensor** out) {
  return unary_entry(a, out, "glia_softshrink", [&](const Tensor& x) { return softshrink(x, lambd); });
}
glia_error* glia_hardshrink(const glia_tensor* a, double lambd, glia_tensor** out) {
  return unary_entry(a, out, "glia_hardshrink", [&](const Tensor& x) { return hardshrink(x, lambd); });
}
glia_error* glia_tanhshrink(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_tanhshrink", [](const Tensor& x) { return tanhshrink(x); });
}
glia_error* glia_threshold(const glia_tensor* a, double threshold, double value, glia_tensor** out) {
  return unary_entry(a, out, "glia_threshold", [&](const Tensor& x) { return glia::threshold(x, threshold, value); });
}
glia_error* glia_relu6(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_relu6", [](const Tensor& x) { return relu6(x); });
}
glia_error* glia_hardsigmoid(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_hardsigmoid", [](const Tensor& x) { return hardsigmoid(x); });
}
glia_error* glia_mish(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_mish", [](const Tensor& x) { return mish(x); });
}
glia_error* glia_logsigmoid(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_logsigmoid", [](const Tensor& x) { return log_sigmoid(x); });
}

// ---- in place

glia_error* glia_leaky_relu_(glia_tensor* self, double negative_slope) {
  return inplace_entry(self, "glia_leaky_relu_", [&](const Tensor& s) { leaky_relu_(s, negative_slope); });
}
glia_error* glia_elu_(glia_tensor* self, double alpha, double scale, double input_scale) {
  return inplace_entry(self, "glia_elu_", [&](const Tensor& s) { elu_(s, alpha, scale, input_scale); });
}
glia_error* glia_celu_(glia_tensor* self, double alpha) {
  return inplace_entry(self, "glia_celu_", [&](const Tensor& s) { celu_(s, alpha); });
}
glia_error* glia_selu_(glia_tensor* self) {
  return inplace_entry(self, "glia_selu_", [](const Tensor& s) { selu_(s); });
}
glia_error* glia_hardtanh_(glia_tensor* self, double min_val, double max_val) {
  return inplace_entry(self, "glia_hardtanh_", [&](const Tensor& s) { hardtanh_(s, min_val, max_val); });
}
glia_error* glia_threshold_(glia_tensor* self, double threshold, double value) {
  return inplace_entry(self, "glia_threshold_", [&](const Tensor& s) { threshold_(s, threshold, value); });
}
glia_error* glia_rrelu_(glia_tensor* self, double lower, double upper, int32_t training) {
  return inplace_entry(self, "glia_rrelu_", [&](const Tensor& s) { rrelu_(s, lower, upper, training != 0); });
}
glia_error* glia_hardsigmoid_(glia_tensor* self) {
  return inplace_entry(self, "glia_hardsigmoid_", [](const Tensor& s) { hardsigmoid_(s); });
}
glia_error* glia_hardswish_(glia_tensor* self) {
  return inplace_entry(self, "glia_hardswish_", [](const Tensor& s) { hardswish_(s); });
}
glia_error* glia_mish_(glia_tensor* self) {
  return inplace_entry(self, "glia_mish_", [](const Tensor& s) { mish_(s); });
}
glia_error* glia_silu_(glia_tensor* self) {
  return inplace_entry(self, "glia_silu_", [](const Tensor& s) { silu_(s); });
}

}  // extern "C"
