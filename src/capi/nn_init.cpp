// torch.nn.init and torch.nn.utils (clip_grad_*) behind the C ABI.
#include <cmath>

#include "capi/api.h"
#include "nn/init.h"
#include "nn/utils.h"

using namespace glia;
using namespace glia::capi;
namespace init = glia::nn::init;

namespace {

// Runs f(tensor) on the tensor argument.
template <class F>
glia_error* init_entry(glia_tensor* tensor, const char* fn, F f) {
  return guard([&] { f(tensor_arg(tensor, fn, "tensor")); });
}

init::FanMode mode_arg(glia_fan_mode m, const char* fn) {
  GLIA_CHECK(m == GLIA_FAN_IN || m == GLIA_FAN_OUT, InvalidArgument, fn, ": Mode ", static_cast<int>(m),
             " not supported, please use one of fan_in, fan_out");
  return m == GLIA_FAN_IN ? init::FanMode::FanIn : init::FanMode::FanOut;
}

std::string nonlinearity_arg(const char* s) { return s ? std::string(s) : std::string("leaky_relu"); }

}  // namespace

extern "C" {

glia_error* glia_nn_init_uniform_(glia_tensor* t, double a, double b) {
  return init_entry(t, "glia_nn_init_uniform_", [&](const Tensor& x) { init::uniform_(x, a, b); });
}
glia_error* glia_nn_init_normal_(glia_tensor* t, double mean, double std) {
  return init_entry(t, "glia_nn_init_normal_", [&](const Tensor& x) { init::normal_(x, mean, std); });
}
glia_error* glia_nn_init_constant_(glia_tensor* t, double value) {
  return init_entry(t, "glia_nn_init_constant_", [&](const Tensor& x) { init::constant_(x, value); });
}
glia_error* glia_nn_init_ones_(glia_tensor* t) {
  return init_entry(t, "glia_nn_init_ones_", [&](const Tensor& x) { init::ones_(x); });
}
glia_error* glia_nn_init_zeros_(glia_tensor* t) {
  return init_entry(t, "glia_nn_init_zeros_", [&](const Tensor& x) { init::zeros_(x); });
}
glia_error* glia_nn_init_eye_(glia_tensor* t) {
  return init_entry(t, "glia_nn_init_eye_", [&](const Tensor& x) { init::eye_(x); });
}
glia_error* glia_nn_init_dirac_(glia_tensor* t, int64_t groups) {
  return init_entry(t, "glia_nn_init_dirac_", [&](const Tensor& x) { init::dirac_(x, groups); });
}
glia_error* glia_nn_init_sparse_(glia_tensor* t, double sparsity, double std) {
  return init_entry(t, "glia_nn_init_sparse_", [&](const Tensor& x) { init::sparse_(x, sparsity, std); });
}
glia_error* glia_nn_init_xavier_uniform_(glia_tensor* t, double gain) {
  return init_entry(t, "glia_nn_init_xavier_uniform_", [&](const Tensor& x) { init::xavier_uniform_(x, gain); });
}
glia_error* glia_nn_init_xavier_normal_(glia_tensor* t, double gain) {
  return init_entry(t, "glia_nn_init_xavier_normal_", [&](const Tensor& x) { init::xavier_normal_(x, gain); });
}
glia_error* glia_nn_init_kaiming_uniform_(glia_tensor* t, double a, glia_fan_mode mode, const char* nonlinearity) {
  const char* fn = "glia_nn_init_kaiming_uniform_";
  return init_entry(t, fn, [&](const Tensor& x) {
    init::kaiming_uniform_(x, a, mode_arg(mode, fn), nonlinearity_arg(nonlinearity));
  });
}
glia_error* glia_nn_init_kaiming_normal_(glia_tensor* t, double a, glia_fan_mode mode, const char* nonlinearity) {
  const char* fn = "glia_nn_init_kaiming_normal_";
  return init_entry(
      t, fn, [&](const Tensor& x) { init::kaiming_normal_(x, a, mode_arg(mode, fn), nonlinearity_arg(nonlinearity)); });
}
glia_error* glia_nn_init_orthogonal_(glia_tensor* t, double gain) {
  return init_entry(t, "glia_nn_init_orthogonal_", [&](const Tensor& x) { init::orthogonal_(x, gain); });
}
glia_error* glia_nn_init_trunc_normal_(glia_tensor* t, double mean, double std, double a, double b) {
  return init_entry(t, "glia_nn_init_trunc_normal_", [&](const Tensor& x) { init::trunc_normal_(x, mean, std, a, b); });
}

glia_error* glia_nn_init_calculate_gain(const char* nonlinearity, double param, double* out) {
  const char* fn = "glia_nn_init_calculate_gain";
  return guard([&] {
    check_out(nonlinearity, fn, "nonlinearity");
    check_out(out, fn, "out");
    *out = init::calculate_gain(nonlinearity, param);
  });
}

glia_error* glia_nn_utils_clip_grad_norm_(glia_tensor* const* params, int64_t n, double max_norm, double norm_type,
                                          int32_t error_if_nonfinite, double* out_total_norm) {
  const char* fn = "glia_nn_utils_clip_grad_norm_";
  return guard([&] {
    std::vector<Tensor> ps = tensors_arg(const_cast<const glia_tensor* const*>(params), n, fn, "params");
    // The total comes back as a 0-dim tensor on the grads' device: read through a copy.
    double total = item_double(nn::utils::clip_grad_norm_(ps, max_norm, norm_type, error_if_nonfinite != 0));
    if (out_total_norm) *out_total_norm = total;
  });
}

glia_error* glia_nn_utils_clip_grad_value_(glia_tensor* const* params, int64_t n, double clip_value) {
  const char* fn = "glia_nn_utils_clip_grad_value_";
  return guard([&] {
    std::vector<Tensor> ps = tensors_arg(const_cast<const glia_tensor* const*>(params), n, fn, "params");
    nn::utils::clip_grad_value_(ps, clip_value);
  });
}

}  // extern "C"
