// C entry points of the reductions and softmax (glia_sum lives in capi/ops.cpp).
#include "autograd/functions.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {
// An op over (a, dims, n_dims, keepdim) -> out.
template <class F>
glia_error* dims_op(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out,
                    const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan d = dims_arg(dims, n_dims, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, d, keepdim != 0));
  });
}

glia_error* max_min(const glia_tensor* a, int64_t dim, int32_t keepdim, glia_tensor** out_values,
                    glia_tensor** out_indices, const char* fn, bool is_max) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out_values, fn, "out_values");
    check_out(out_indices, fn, "out_indices");
    auto r = is_max ? max_dim(x, dim, keepdim != 0) : min_dim(x, dim, keepdim != 0);
    glia_tensor* v = tensor_handle(r.first);
    glia_tensor* i = nullptr;
    try {
      i = tensor_handle(r.second);
    } catch (...) {
      glia_error_free(glia_tensor_release(v));
      throw;
    }
    *out_values = v;
    *out_indices = i;
  });
}

template <class F>
glia_error* arg_op(const glia_tensor* a, const int64_t* dim, int32_t keepdim, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out, fn, "out");
    std::optional<int64_t> d;
    if (dim) d = *dim;
    *out = tensor_handle(f(x, d, keepdim != 0));
  });
}
}  // namespace

extern "C" {

glia_error* glia_mean(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_mean",
                 [](const Tensor& x, IntSpan d, bool k) { return mean(x, d, k); });
}

glia_error* glia_prod(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_prod",
                 [](const Tensor& x, IntSpan d, bool k) { return prod(x, d, k); });
}

glia_error* glia_amax(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_amax",
                 [](const Tensor& x, IntSpan d, bool k) { return amax(x, d, k); });
}

glia_error* glia_amin(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_amin",
                 [](const Tensor& x, IntSpan d, bool k) { return amin(x, d, k); });
}

glia_error* glia_max(const glia_tensor* a, int64_t dim, int32_t keepdim, glia_tensor** out_values,
                     glia_tensor** out_indices) {
  return max_min(a, dim, keepdim, out_values, out_indices, "glia_max", true);
}

glia_error* glia_min(const glia_tensor* a, int64_t dim, int32_t keepdim, glia_tensor** out_values,
                     glia_tensor** out_indices) {
  return max_min(a, dim, keepdim, out_values, out_indices, "glia_min", false);
}

glia_error* glia_argmax(const glia_tensor* a, const int64_t* dim_or_null, int32_t keepdim, glia_tensor** out) {
  return arg_op(a, dim_or_null, keepdim, out, "glia_argmax",
                [](const Tensor& x, std::optional<int64_t> d, bool k) { return argmax(x, d, k); });
}

glia_error* glia_argmin(const glia_tensor* a, const int64_t* dim_or_null, int32_t keepdim, glia_tensor** out) {
  return arg_op(a, dim_or_null, keepdim, out, "glia_argmin",
                [](const Tensor& x, std::optional<int64_t> d, bool k) { return argmin(x, d, k); });
}

glia_error* glia_var(const glia_tensor* a, const int64_t* dims, int64_t n_dims, double correction, int32_t keepdim,
                     glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_var",
                 [&](const Tensor& x, IntSpan d, bool k) { return var(x, d, correction, k); });
}

glia_error* glia_std(const glia_tensor* a, const int64_t* dims, int64_t n_dims, double correction, int32_t keepdim,
                     glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_std",
                 [&](const Tensor& x, IntSpan d, bool k) { return std_dev(x, d, correction, k); });
}

glia_error* glia_logsumexp(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim,
                           glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_logsumexp",
                 [](const Tensor& x, IntSpan d, bool k) { return logsumexp(x, d, k); });
}

glia_error* glia_norm(const glia_tensor* a, double p, const int64_t* dims, int64_t n_dims, int32_t keepdim,
                      glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_norm",
                 [&](const Tensor& x, IntSpan d, bool k) { return vector_norm(x, p, d, k); });
}

glia_error* glia_softmax(const glia_tensor* a, int64_t dim, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_softmax", "a");
    check_out(out, "glia_softmax", "out");
    *out = tensor_handle(softmax(x, dim));
  });
}

glia_error* glia_log_softmax(const glia_tensor* a, int64_t dim, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_log_softmax", "a");
    check_out(out, "glia_log_softmax", "out");
    *out = tensor_handle(log_softmax(x, dim));
  });
}

}  // extern "C"
