// C entry points of the elementwise and special functions (autograd/fn/special.h).
#include "autograd/fn/special.h"

#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {
template <ops::SpecialBinary Op>
glia_error* special_binary_entry(const glia_tensor* a, const glia_tensor* b, glia_tensor** out, const char* fn) {
  return binary_entry(a, b, out, fn, [](const Tensor& x, const Tensor& y) { return glia::special_binary(Op, x, y); });
}
}  // namespace

extern "C" {

glia_error* glia_logaddexp(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return special_binary_entry<ops::SpecialBinary::Logaddexp>(a, b, out, "glia_logaddexp");
}
glia_error* glia_logaddexp2(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return special_binary_entry<ops::SpecialBinary::Logaddexp2>(a, b, out, "glia_logaddexp2");
}
glia_error* glia_heaviside(const glia_tensor* a, const glia_tensor* values, glia_tensor** out) {
  return special_binary_entry<ops::SpecialBinary::Heaviside>(a, values, out, "glia_heaviside");
}
glia_error* glia_nextafter(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return special_binary_entry<ops::SpecialBinary::Nextafter>(a, b, out, "glia_nextafter");
}
glia_error* glia_igamma(const glia_tensor* a, const glia_tensor* x, glia_tensor** out) {
  return special_binary_entry<ops::SpecialBinary::Igamma>(a, x, out, "glia_igamma");
}
glia_error* glia_igammac(const glia_tensor* a, const glia_tensor* x, glia_tensor** out) {
  return special_binary_entry<ops::SpecialBinary::Igammac>(a, x, out, "glia_igammac");
}
glia_error* glia_ldexp(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_ldexp", [](const Tensor& x, const Tensor& y) { return glia::ldexp(x, y); });
}
glia_error* glia_float_power(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_float_power",
                      [](const Tensor& x, const Tensor& y) { return glia::float_power(x, y); });
}
glia_error* glia_dist(const glia_tensor* a, const glia_tensor* b, double p, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_dist", [p](const Tensor& x, const Tensor& y) { return glia::dist(x, y, p); });
}

glia_error* glia_frexp(const glia_tensor* a, glia_tensor** out_mantissa, glia_tensor** out_exponent) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_frexp", "a");
    check_out(out_mantissa, "glia_frexp", "out_mantissa");
    check_out(out_exponent, "glia_frexp", "out_exponent");
    auto [m, e] = glia::frexp(x);
    *out_mantissa = tensor_handle(m);
    *out_exponent = tensor_handle(e);
  });
}
glia_error* glia_polygamma(int64_t order, const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_polygamma", [order](const Tensor& x) { return glia::polygamma(order, x); });
}
glia_error* glia_mvlgamma(const glia_tensor* a, int64_t p, glia_tensor** out) {
  return unary_entry(a, out, "glia_mvlgamma", [p](const Tensor& x) { return glia::mvlgamma(x, p); });
}
glia_error* glia_i0(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_i0", [](const Tensor& x) { return glia::i0(x); });
}
glia_error* glia_special_i1(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_special_i1", [](const Tensor& x) { return glia::special_i1(x); });
}
glia_error* glia_sinc(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_sinc", [](const Tensor& x) { return glia::sinc(x); });
}
glia_error* glia_renorm(const glia_tensor* a, double p, int64_t dim, double maxnorm, glia_tensor** out) {
  return unary_entry(a, out, "glia_renorm", [&](const Tensor& x) { return glia::renorm(x, p, dim, maxnorm); });
}

}  // extern "C"
