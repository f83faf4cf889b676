// Linear algebra: matmul, mm, bmm, addmm, linear.
#include "autograd/functions.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

glia_error* glia_matmul(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_matmul", [](const Tensor& x, const Tensor& y) { return matmul(x, y); });
}

glia_error* glia_mm(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_mm", [](const Tensor& x, const Tensor& y) { return mm(x, y); });
}

glia_error* glia_bmm(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_bmm", [](const Tensor& x, const Tensor& y) { return bmm(x, y); });
}

glia_error* glia_addmm(const glia_tensor* bias, const glia_tensor* a, const glia_tensor* b, double beta, double alpha,
                       glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_addmm";
    Tensor c = tensor_arg(bias, fn, "bias");
    Tensor x = tensor_arg(a, fn, "a");
    Tensor y = tensor_arg(b, fn, "b");
    check_out(out, fn, "out");
    *out = tensor_handle(addmm(c, x, y, beta, alpha));
  });
}

glia_error* glia_linear(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_linear";
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(linear(xt, w, b));
  });
}

}  // extern "C"
