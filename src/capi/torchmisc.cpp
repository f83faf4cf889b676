// C entry points of the torch functions of issue 20 missing from OpInfo / coverage (autograd/fn/torchmisc.h):
// gcd, lcm, bincount, vander, as_strided, as_strided_scatter, gradient, segment_reduce, native_batch_norm,
// native_layer_norm, histogram, histogramdd.
#include "autograd/fn/torchmisc.h"

#include <string>

#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class F>
glia_error* binary(const glia_tensor* a, const glia_tensor* b, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    Tensor y = tensor_arg(b, fn, "b");
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, y));
  });
}

template <class F>
glia_error* inplace(glia_tensor* self, const glia_tensor* other, const char* fn, F f) {
  return guard([&] {
    Tensor s = tensor_arg(self, fn, "self");
    Tensor o = tensor_arg(other, fn, "other");
    f(s, o);
  });
}

Dims ints(const int64_t* v, int64_t n, const char* fn, const char* arg, const char* n_arg) {
  return Dims(dims_arg(v, n, fn, arg, n_arg));
}

}  // namespace

extern "C" {

glia_error* glia_gcd(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary(a, b, out, "glia_gcd", [](const Tensor& x, const Tensor& y) { return gcd(x, y); });
}
glia_error* glia_lcm(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary(a, b, out, "glia_lcm", [](const Tensor& x, const Tensor& y) { return lcm(x, y); });
}
glia_error* glia_gcd_(glia_tensor* self, const glia_tensor* other) {
  return inplace(self, other, "glia_gcd_", [](const Tensor& s, const Tensor& o) { gcd_(s, o); });
}
glia_error* glia_lcm_(glia_tensor* self, const glia_tensor* other) {
  return inplace(self, other, "glia_lcm_", [](const Tensor& s, const Tensor& o) { lcm_(s, o); });
}

glia_error* glia_bincount(const glia_tensor* input, const glia_tensor* weights, int64_t minlength, glia_tensor** out) {
  const char* fn = "glia_bincount";
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    Tensor w = tensor_opt(weights, fn, "weights");
    check_out(out, fn, "out");
    *out = tensor_handle(bincount(x, w, minlength));
  });
}

glia_error* glia_vander(const glia_tensor* x, const int64_t* columns, int32_t increasing, glia_tensor** out) {
  const char* fn = "glia_vander";
  return guard([&] {
    Tensor t = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(vander(t, columns, increasing != 0));
  });
}

glia_error* glia_as_strided(const glia_tensor* input, const int64_t* shape, const int64_t* strides, int64_t ndim,
                            const int64_t* storage_offset, glia_tensor** out) {
  const char* fn = "glia_as_strided";
  return guard([&] {
    Tensor t = tensor_arg(input, fn, "input");
    Dims sz = ints(shape, ndim, fn, "shape", "ndim"), st = ints(strides, ndim, fn, "strides", "ndim");
    check_out(out, fn, "out");
    *out = tensor_handle(as_strided(t, sz, st, storage_offset));
  });
}

glia_error* glia_as_strided_scatter(const glia_tensor* input, const glia_tensor* src, const int64_t* shape,
                                    const int64_t* strides, int64_t ndim, const int64_t* storage_offset,
                                    glia_tensor** out) {
  const char* fn = "glia_as_strided_scatter";
  return guard([&] {
    Tensor t = tensor_arg(input, fn, "input");
    Tensor s = tensor_arg(src, fn, "src");
    Dims sz = ints(shape, ndim, fn, "shape", "ndim"), st = ints(strides, ndim, fn, "strides", "ndim");
    check_out(out, fn, "out");
    *out = tensor_handle(as_strided_scatter(t, s, sz, st, storage_offset));
  });
}

glia_error* glia_gradient(const glia_tensor* input, const double* spacing, int64_t n_spacing,
                          const glia_tensor* const* coordinates, int64_t n_coordinates, const int64_t* dims,
                          int64_t n_dims, int64_t edge_order, glia_tensor** outs, int64_t capacity,
                          int64_t* out_count) {
  const char* fn = "glia_gradient";
  return guard([&] {
    Tensor t = tensor_arg(input, fn, "input");
    GLIA_CHECK(n_spacing >= 0 && (n_spacing == 0 || spacing), InvalidArgument, fn, ": argument 'spacing' is NULL");
    GLIA_CHECK(n_spacing == 0 || n_coordinates == 0, InvalidArgument, fn,
               ": give spacing as numbers or as coordinate tensors, not both");
    std::vector<double> sp(spacing, spacing + n_spacing);
    std::vector<Tensor> coords =
        n_coordinates ? tensors_arg(coordinates, n_coordinates, fn, "coordinates") : std::vector<Tensor>{};
    Dims d = dims ? ints(dims, n_dims, fn, "dims", "n_dims") : Dims{};
    check_outputs(outs, capacity, out_count, fn);
    write_outputs(gradient(t, sp, coords, d, dims == nullptr, edge_order), outs, capacity, out_count, fn);
  });
}

glia_error* glia_segment_reduce(const glia_tensor* data, const char* reduce, const glia_tensor* lengths,
                                const glia_tensor* offsets, int64_t axis, int32_t unsafe, const double* initial,
                                glia_tensor** out) {
  const char* fn = "glia_segment_reduce";
  return guard([&] {
    Tensor d = tensor_arg(data, fn, "data");
    GLIA_CHECK(reduce, InvalidArgument, fn, ": argument 'reduce' is NULL");
    Tensor l = tensor_opt(lengths, fn, "lengths");
    Tensor o = tensor_opt(offsets, fn, "offsets");
    check_out(out, fn, "out");
    *out = tensor_handle(segment_reduce(d, reduce, l, o, axis, unsafe != 0, initial));
  });
}

glia_error* glia_native_batch_norm(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                                   glia_tensor* running_mean, glia_tensor* running_var, int32_t training,
                                   double momentum, double eps, glia_tensor** out_y, glia_tensor** out_mean,
                                   glia_tensor** out_invstd) {
  const char* fn = "glia_native_batch_norm";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor w = tensor_opt(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    Tensor rm = tensor_opt(running_mean, fn, "running_mean");
    Tensor rv = tensor_opt(running_var, fn, "running_var");
    check_out(out_y, fn, "out_y");
    check_out(out_mean, fn, "out_mean");
    check_out(out_invstd, fn, "out_invstd");
    auto [y, m, s] = native_batch_norm(xt, w, b, rm, rv, training != 0, momentum, eps);
    *out_y = tensor_handle(y);
    *out_mean = tensor_handle(m);
    *out_invstd = tensor_handle(s);
  });
}

glia_error* glia_native_layer_norm(const glia_tensor* x, const int64_t* normalized_shape, int64_t normalized_ndim,
                                   const glia_tensor* weight, const glia_tensor* bias, double eps, glia_tensor** out_y,
                                   glia_tensor** out_mean, glia_tensor** out_rstd) {
  const char* fn = "glia_native_layer_norm";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    IntSpan shape = dims_arg(normalized_shape, normalized_ndim, fn, "normalized_shape", "normalized_ndim");
    Tensor w = tensor_opt(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out_y, fn, "out_y");
    check_out(out_mean, fn, "out_mean");
    check_out(out_rstd, fn, "out_rstd");
    auto [y, m, s] = native_layer_norm(xt, shape, w, b, eps);
    *out_y = tensor_handle(y);
    *out_mean = tensor_handle(m);
    *out_rstd = tensor_handle(s);
  });
}

glia_error* glia_histogram(const glia_tensor* input, int64_t bins, const glia_tensor* bin_edges, const double* range,
                           const glia_tensor* weight, int32_t density, glia_tensor** out_hist,
                           glia_tensor** out_bin_edges) {
  const char* fn = "glia_histogram";
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    Tensor e = tensor_opt(bin_edges, fn, "bin_edges");
    Tensor w = tensor_opt(weight, fn, "weight");
    check_out(out_hist, fn, "out_hist");
    check_out(out_bin_edges, fn, "out_bin_edges");
    auto [h, edges] = histogram(x, bins, e, range, w, density != 0);
    *out_hist = tensor_handle(h);
    *out_bin_edges = tensor_handle(edges);
  });
}

glia_error* glia_histogramdd(const glia_tensor* input, const int64_t* bins, int64_t n_bins,
                             const glia_tensor* const* edges, int64_t n_edges, const double* range, int64_t n_range,
                             const glia_tensor* weight, int32_t density, glia_tensor** out_hist, glia_tensor** outs,
                             int64_t capacity, int64_t* out_count) {
  const char* fn = "glia_histogramdd";
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    Dims b = n_bins ? ints(bins, n_bins, fn, "bins", "n_bins") : Dims{};
    std::vector<Tensor> e = n_edges ? tensors_arg(edges, n_edges, fn, "edges") : std::vector<Tensor>{};
    GLIA_CHECK(n_range == 0 || range, InvalidArgument, fn, ": argument 'range' is NULL");
    Tensor w = tensor_opt(weight, fn, "weight");
    check_out(out_hist, fn, "out_hist");
    check_outputs(outs, capacity, out_count, fn);
    auto [h, es] = histogramdd(x, b, e, n_range ? range : nullptr, n_range, w, density != 0);
    write_outputs(es, outs, capacity, out_count, fn);
    *out_hist = tensor_handle(h);
  });
}

}  // extern "C"
