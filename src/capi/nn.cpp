// C entry points of the normalisation functions, embedding, dropout and normalize.
#include <cmath>
#include <optional>

#include "autograd/functions.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

glia_error* glia_batch_norm(const glia_tensor* x, glia_tensor* running_mean, glia_tensor* running_var,
                            const glia_tensor* weight, const glia_tensor* bias, int32_t training, double momentum,
                            double eps, glia_tensor** out) {
  const char* fn = "glia_batch_norm";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor rm = tensor_opt(running_mean, fn, "running_mean");
    Tensor rv = tensor_opt(running_var, fn, "running_var");
    Tensor w = tensor_opt(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(batch_norm(xt, rm, rv, w, b, training != 0, momentum, eps));
  });
}

glia_error* glia_layer_norm(const glia_tensor* x, const int64_t* normalized_shape, int64_t n, const glia_tensor* weight,
                            const glia_tensor* bias, double eps, glia_tensor** out) {
  const char* fn = "glia_layer_norm";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    IntSpan shape = dims_arg(normalized_shape, n, fn, "normalized_shape", "n");
    Tensor w = tensor_opt(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(layer_norm(xt, shape, w, b, eps));
  });
}

glia_error* glia_group_norm(const glia_tensor* x, int64_t num_groups, const glia_tensor* weight,
                            const glia_tensor* bias, double eps, glia_tensor** out) {
  const char* fn = "glia_group_norm";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor w = tensor_opt(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(group_norm(xt, num_groups, w, b, eps));
  });
}

glia_error* glia_embedding(glia_tensor* weight, const glia_tensor* indices, const int64_t* padding_idx,
                           const double* max_norm, double norm_type, glia_tensor** out) {
  const char* fn = "glia_embedding";
  return guard([&] {
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor i = tensor_arg(indices, fn, "indices");
    check_out(out, fn, "out");
    std::optional<int64_t> pad;
    if (padding_idx) pad = *padding_idx;
    std::optional<double> mn;
    if (max_norm) {
      GLIA_CHECK(!std::isnan(*max_norm), InvalidArgument, fn, ": max_norm is NaN");
      mn = *max_norm;
    }
    *out = tensor_handle(embedding(w, i, pad, mn, norm_type));
  });
}

glia_error* glia_dropout(const glia_tensor* x, double p, int32_t training, glia_tensor** out) {
  const char* fn = "glia_dropout";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(dropout(xt, p, training != 0));
  });
}

glia_error* glia_normalize(const glia_tensor* x, const double* mean, int64_t n_mean, const double* std, int64_t n_std,
                           glia_tensor** out) {
  const char* fn = "glia_normalize";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    GLIA_CHECK(n_mean >= 0 && (mean || n_mean == 0), InvalidArgument, fn, ": argument 'mean' is NULL or n_mean < 0");
    GLIA_CHECK(n_std >= 0 && (std || n_std == 0), InvalidArgument, fn, ": argument 'std' is NULL or n_std < 0");
    check_out(out, fn, "out");
    *out = tensor_handle(normalize(xt, std::span<const double>(mean, static_cast<size_t>(n_mean)),
                                   std::span<const double>(std, static_cast<size_t>(n_std))));
  });
}

}  // extern "C"
