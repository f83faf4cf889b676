// One entry point per operator: unwrap handles, call the differentiable op, wrap the result.
#include "autograd/functions.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

glia_error* glia_add(const glia_tensor* a, const glia_tensor* b, double alpha, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_add", [&](const Tensor& x, const Tensor& y) { return add(x, y, alpha); });
}

glia_error* glia_sub(const glia_tensor* a, const glia_tensor* b, double alpha, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_sub", [&](const Tensor& x, const Tensor& y) { return sub(x, y, alpha); });
}

glia_error* glia_mul(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_mul", [](const Tensor& x, const Tensor& y) { return mul(x, y); });
}

glia_error* glia_div(const glia_tensor* a, const glia_tensor* b, const char* rounding_mode, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_div",
                      [&](const Tensor& x, const Tensor& y) { return div(x, y, rounding_mode); });
}

glia_error* glia_neg(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_neg", [](const Tensor& x) { return neg(x); });
}

glia_error* glia_sum(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_sum", "a");
    IntSpan d = dims_arg(dims, n_dims, "glia_sum");
    check_out(out, "glia_sum", "out");
    *out = tensor_handle(sum(x, d, keepdim != 0));
  });
}

glia_error* glia_add_(glia_tensor* self, const glia_tensor* other, double alpha) {
  return guard([&] { add_(tensor_arg(self, "glia_add_", "self"), tensor_arg(other, "glia_add_", "other"), alpha); });
}

glia_error* glia_mul_(glia_tensor* self, const glia_tensor* other) {
  return guard([&] { mul_(tensor_arg(self, "glia_mul_", "self"), tensor_arg(other, "glia_mul_", "other")); });
}

}  // extern "C"
