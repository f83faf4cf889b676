// The products of issue 20: addcmul, addcdiv, dot, vdot, inner, outer, ger, mv, addmv, addr, baddbmm, addbmm.
#include "autograd/functions.h"
#include "capi/api.h"
#include "core/scalar.h"

using namespace glia;
using namespace glia::capi;

namespace {

using Addc = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&);
using Scaled = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, double, double);

glia_error* addc_entry(const glia_tensor* input, const glia_tensor* t1, const glia_tensor* t2, glia_scalar value,
                       glia_tensor** out, const char* fn, Addc f) {
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    Tensor a = tensor_arg(t1, fn, "tensor1");
    Tensor b = tensor_arg(t2, fn, "tensor2");
    Scalar v = scalar_arg(value, fn, "value");
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, a, b, v));
  });
}

glia_error* scaled_entry(const glia_tensor* input, const glia_tensor* a, const glia_tensor* b, double beta,
                         double alpha, glia_tensor** out, const char* fn, const char* an, const char* bn, Scaled f) {
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    Tensor ta = tensor_arg(a, fn, an);
    Tensor tb = tensor_arg(b, fn, bn);
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, ta, tb, beta, alpha));
  });
}

}  // namespace

extern "C" {

glia_error* glia_addcmul(const glia_tensor* input, const glia_tensor* tensor1, const glia_tensor* tensor2,
                         glia_scalar value, glia_tensor** out) {
  return addc_entry(input, tensor1, tensor2, value, out, "glia_addcmul", addcmul);
}

glia_error* glia_addcdiv(const glia_tensor* input, const glia_tensor* tensor1, const glia_tensor* tensor2,
                         glia_scalar value, glia_tensor** out) {
  return addc_entry(input, tensor1, tensor2, value, out, "glia_addcdiv", addcdiv);
}

glia_error* glia_dot(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_dot", [](const Tensor& x, const Tensor& y) { return dot(x, y); });
}

glia_error* glia_vdot(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_vdot", [](const Tensor& x, const Tensor& y) { return vdot(x, y); });
}

glia_error* glia_inner(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_inner", [](const Tensor& x, const Tensor& y) { return inner(x, y); });
}

glia_error* glia_outer(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_outer", [](const Tensor& x, const Tensor& y) { return outer(x, y); });
}

glia_error* glia_ger(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_ger", [](const Tensor& x, const Tensor& y) { return outer(x, y); });
}

glia_error* glia_mv(const glia_tensor* mat, const glia_tensor* vec, glia_tensor** out) {
  return binary_entry(mat, vec, out, "glia_mv", [](const Tensor& x, const Tensor& y) { return mv(x, y); });
}

glia_error* glia_addmv(const glia_tensor* input, const glia_tensor* mat, const glia_tensor* vec, double beta,
                       double alpha, glia_tensor** out) {
  return scaled_entry(input, mat, vec, beta, alpha, out, "glia_addmv", "mat", "vec", addmv);
}

glia_error* glia_addr(const glia_tensor* input, const glia_tensor* vec1, const glia_tensor* vec2, double beta,
                      double alpha, glia_tensor** out) {
  return scaled_entry(input, vec1, vec2, beta, alpha, out, "glia_addr", "vec1", "vec2", addr);
}

glia_error* glia_baddbmm(const glia_tensor* input, const glia_tensor* batch1, const glia_tensor* batch2, double beta,
                         double alpha, glia_tensor** out) {
  return scaled_entry(input, batch1, batch2, beta, alpha, out, "glia_baddbmm", "batch1", "batch2", baddbmm);
}

glia_error* glia_addbmm(const glia_tensor* input, const glia_tensor* batch1, const glia_tensor* batch2, double beta,
                        double alpha, glia_tensor** out) {
  return scaled_entry(input, batch1, batch2, beta, alpha, out, "glia_addbmm", "batch1", "batch2", addbmm);
}

}  // extern "C"
