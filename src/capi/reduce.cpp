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

// Writes a pair of results to two out-parameters (both or neither).
void pair_out(const std::pair<Tensor, Tensor>& r, glia_tensor** out_a, glia_tensor** out_b) {
  glia_tensor* a = tensor_handle(r.first);
  glia_tensor* b = nullptr;
  try {
    b = tensor_handle(r.second);
  } catch (...) {
    glia_error_free(glia_tensor_release(a));
    throw;
  }
  *out_a = a;
  *out_b = b;
}

// An op over (a, dim) with values and indices.
template <class F>
glia_error* pair_op(const glia_tensor* a, glia_tensor** out_values, glia_tensor** out_indices, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out_values, fn, "out_values");
    check_out(out_indices, fn, "out_indices");
    pair_out(f(x), out_values, out_indices);
  });
}

std::optional<DType> opt_dtype(const glia_dtype* d, const char* fn) {
  if (!d) return std::nullopt;
  return dtype_arg(static_cast<int>(*d), fn, "dtype_or_null");
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

glia_error* glia_all(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_all",
                 [](const Tensor& x, IntSpan d, bool k) { return glia::all(x, d, k); });
}

glia_error* glia_any(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_any",
                 [](const Tensor& x, IntSpan d, bool k) { return glia::any(x, d, k); });
}

glia_error* glia_count_nonzero(const glia_tensor* a, const int64_t* dims, int64_t n_dims, glia_tensor** out) {
  return dims_op(a, dims, n_dims, 0, out, "glia_count_nonzero",
                 [](const Tensor& x, IntSpan d, bool) { return count_nonzero(x, d); });
}

glia_error* glia_aminmax(const glia_tensor* a, const int64_t* dim_or_null, int32_t keepdim, glia_tensor** out_min,
                         glia_tensor** out_max) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_aminmax", "a");
    check_out(out_min, "glia_aminmax", "out_min");
    check_out(out_max, "glia_aminmax", "out_max");
    std::optional<int64_t> d;
    if (dim_or_null) d = *dim_or_null;
    pair_out(aminmax(x, d, keepdim != 0), out_min, out_max);
  });
}

glia_error* glia_nansum(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim, glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_nansum",
                 [](const Tensor& x, IntSpan d, bool k) { return nansum(x, d, k); });
}

glia_error* glia_nanmean(const glia_tensor* a, const int64_t* dims, int64_t n_dims, int32_t keepdim,
                         glia_tensor** out) {
  return dims_op(a, dims, n_dims, keepdim, out, "glia_nanmean",
                 [](const Tensor& x, IntSpan d, bool k) { return nanmean(x, d, k); });
}

glia_error* glia_var_mean(const glia_tensor* a, const int64_t* dims, int64_t n_dims, double correction, int32_t keepdim,
                          glia_tensor** out_var, glia_tensor** out_mean) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_var_mean", "a");
    IntSpan d = dims_arg(dims, n_dims, "glia_var_mean");
    check_out(out_var, "glia_var_mean", "out_var");
    check_out(out_mean, "glia_var_mean", "out_mean");
    pair_out(var_mean(x, d, correction, keepdim != 0), out_var, out_mean);
  });
}

glia_error* glia_std_mean(const glia_tensor* a, const int64_t* dims, int64_t n_dims, double correction, int32_t keepdim,
                          glia_tensor** out_std, glia_tensor** out_mean) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_std_mean", "a");
    IntSpan d = dims_arg(dims, n_dims, "glia_std_mean");
    check_out(out_std, "glia_std_mean", "out_std");
    check_out(out_mean, "glia_std_mean", "out_mean");
    pair_out(std_mean(x, d, correction, keepdim != 0), out_std, out_mean);
  });
}

glia_error* glia_cumsum(const glia_tensor* a, int64_t dim, const glia_dtype* dtype_or_null, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_cumsum", "a");
    auto dt = opt_dtype(dtype_or_null, "glia_cumsum");
    check_out(out, "glia_cumsum", "out");
    *out = tensor_handle(cumsum(x, dim, dt));
  });
}

glia_error* glia_cumprod(const glia_tensor* a, int64_t dim, const glia_dtype* dtype_or_null, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_cumprod", "a");
    auto dt = opt_dtype(dtype_or_null, "glia_cumprod");
    check_out(out, "glia_cumprod", "out");
    *out = tensor_handle(cumprod(x, dim, dt));
  });
}

glia_error* glia_cummax(const glia_tensor* a, int64_t dim, glia_tensor** out_values, glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_cummax", [&](const Tensor& x) { return cummax(x, dim); });
}

glia_error* glia_cummin(const glia_tensor* a, int64_t dim, glia_tensor** out_values, glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_cummin", [&](const Tensor& x) { return cummin(x, dim); });
}

glia_error* glia_logcumsumexp(const glia_tensor* a, int64_t dim, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_logcumsumexp", "a");
    check_out(out, "glia_logcumsumexp", "out");
    *out = tensor_handle(logcumsumexp(x, dim));
  });
}

glia_error* glia_sort(const glia_tensor* a, int64_t dim, int32_t descending, int32_t stable, glia_tensor** out_values,
                      glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_sort",
                 [&](const Tensor& x) { return glia::sort(x, dim, descending != 0, stable != 0); });
}

glia_error* glia_argsort(const glia_tensor* a, int64_t dim, int32_t descending, int32_t stable, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_argsort", "a");
    check_out(out, "glia_argsort", "out");
    *out = tensor_handle(argsort(x, dim, descending != 0, stable != 0));
  });
}

glia_error* glia_msort(const glia_tensor* a, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_msort", "a");
    check_out(out, "glia_msort", "out");
    *out = tensor_handle(msort(x));
  });
}

glia_error* glia_topk(const glia_tensor* a, int64_t k, int64_t dim, int32_t largest, int32_t sorted,
                      glia_tensor** out_values, glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_topk",
                 [&](const Tensor& x) { return topk(x, k, dim, largest != 0, sorted != 0); });
}

glia_error* glia_kthvalue(const glia_tensor* a, int64_t k, int64_t dim, int32_t keepdim, glia_tensor** out_values,
                          glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_kthvalue",
                 [&](const Tensor& x) { return kthvalue(x, k, dim, keepdim != 0); });
}

glia_error* glia_median(const glia_tensor* a, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_median", "a");
    check_out(out, "glia_median", "out");
    *out = tensor_handle(median(x, false));
  });
}

glia_error* glia_median_dim(const glia_tensor* a, int64_t dim, int32_t keepdim, glia_tensor** out_values,
                            glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_median_dim",
                 [&](const Tensor& x) { return median_dim(x, dim, keepdim != 0, false); });
}

glia_error* glia_nanmedian(const glia_tensor* a, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_nanmedian", "a");
    check_out(out, "glia_nanmedian", "out");
    *out = tensor_handle(median(x, true));
  });
}

glia_error* glia_nanmedian_dim(const glia_tensor* a, int64_t dim, int32_t keepdim, glia_tensor** out_values,
                               glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_nanmedian_dim",
                 [&](const Tensor& x) { return median_dim(x, dim, keepdim != 0, true); });
}

glia_error* glia_mode(const glia_tensor* a, int64_t dim, int32_t keepdim, glia_tensor** out_values,
                      glia_tensor** out_indices) {
  return pair_op(a, out_values, out_indices, "glia_mode",
                 [&](const Tensor& x) { return glia::mode(x, dim, keepdim != 0); });
}

}  // extern "C"

namespace {
glia_error* quantile_op(const glia_tensor* a, const glia_tensor* q, const int64_t* dim_or_null, int32_t keepdim,
                        glia_quantile_interpolation interpolation, glia_tensor** out, const char* fn, bool ignore_nan) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    Tensor qt = tensor_arg(q, fn, "q");
    check_out(out, fn, "out");
    const int iv = static_cast<int>(interpolation);
    GLIA_CHECK(iv >= 0 && iv <= 4, InvalidArgument, "quantile()",
               " interpolation must be one of linear, lower, higher, midpoint or nearest, but got ", iv);
    std::optional<int64_t> d;
    if (dim_or_null) d = *dim_or_null;
    *out = tensor_handle(quantile(x, qt, d, keepdim != 0, static_cast<QuantileInterpolation>(iv), ignore_nan));
  });
}
}  // namespace

extern "C" {

glia_error* glia_quantile(const glia_tensor* a, const glia_tensor* q, const int64_t* dim_or_null, int32_t keepdim,
                          glia_quantile_interpolation interpolation, glia_tensor** out) {
  return quantile_op(a, q, dim_or_null, keepdim, interpolation, out, "glia_quantile", false);
}

glia_error* glia_nanquantile(const glia_tensor* a, const glia_tensor* q, const int64_t* dim_or_null, int32_t keepdim,
                             glia_quantile_interpolation interpolation, glia_tensor** out) {
  return quantile_op(a, q, dim_or_null, keepdim, interpolation, out, "glia_nanquantile", true);
}

}  // extern "C"
