// Triangles, diagonals, flips and rolls (torch.tril, diag, flip, roll, ...).
#include "autograd/functions.h"
#include "capi/api.h"
#include "ops/factory.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class F>
glia_error* one(const glia_tensor* a, glia_tensor** out, const char* fn, F&& f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out, fn, "out");
    *out = tensor_handle(f(x));
  });
}

glia_error* tri_indices(int64_t row, int64_t col, int64_t offset, const glia_tensor_options* options, glia_tensor** out,
                        bool upper, const char* fn) {
  return guard([&] {
    check_out(out, fn, "out");
    DType dt = DType::Int64;
    Device dev;
    if (options) {
      GLIA_CHECK(options->struct_size >= offsetof(glia_tensor_options, device) + sizeof(glia_device), InvalidArgument,
                 fn, ": options->struct_size is ", options->struct_size, ", expected at least ",
                 sizeof(glia_tensor_options), " (use glia_tensor_options_init)");
      dt = dtype_arg(options->dtype, fn, "options->dtype");
      dev = device_arg(options->device, fn);
    }
    *out = tensor_handle(ops::tril_indices(row, col, offset, upper, dt, dev));
  });
}

}  // namespace

extern "C" {

glia_error* glia_tril(const glia_tensor* a, int64_t diagonal, glia_tensor** out) {
  return one(a, out, "glia_tril", [&](const Tensor& x) { return tril(x, diagonal); });
}

glia_error* glia_triu(const glia_tensor* a, int64_t diagonal, glia_tensor** out) {
  return one(a, out, "glia_triu", [&](const Tensor& x) { return triu(x, diagonal); });
}

glia_error* glia_tensor_tril_indices(int64_t row, int64_t col, int64_t offset, const glia_tensor_options* options,
                                     glia_tensor** out) {
  return tri_indices(row, col, offset, options, out, false, "glia_tensor_tril_indices");
}

glia_error* glia_tensor_triu_indices(int64_t row, int64_t col, int64_t offset, const glia_tensor_options* options,
                                     glia_tensor** out) {
  return tri_indices(row, col, offset, options, out, true, "glia_tensor_triu_indices");
}

glia_error* glia_diagonal(const glia_tensor* a, int64_t offset, int64_t dim1, int64_t dim2, glia_tensor** out) {
  return one(a, out, "glia_diagonal", [&](const Tensor& x) { return diagonal(x, offset, dim1, dim2); });
}

glia_error* glia_diag(const glia_tensor* a, int64_t diagonal, glia_tensor** out) {
  return one(a, out, "glia_diag", [&](const Tensor& x) { return diag(x, diagonal); });
}

glia_error* glia_diag_embed(const glia_tensor* a, int64_t offset, int64_t dim1, int64_t dim2, glia_tensor** out) {
  return one(a, out, "glia_diag_embed", [&](const Tensor& x) { return diag_embed(x, offset, dim1, dim2); });
}

glia_error* glia_trace(const glia_tensor* a, glia_tensor** out) {
  return one(a, out, "glia_trace", [&](const Tensor& x) { return trace(x); });
}

glia_error* glia_flip(const glia_tensor* a, const int64_t* dims, int64_t n_dims, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_flip";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan d = dims_arg(dims, n_dims, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(flip(x, d));
  });
}

glia_error* glia_fliplr(const glia_tensor* a, glia_tensor** out) {
  return one(a, out, "glia_fliplr", [&](const Tensor& x) {
    GLIA_CHECK(x.dim() >= 2, InvalidArgument, "Input must be >= 2-d.");
    const int64_t d[] = {1};
    return flip(x, d);
  });
}

glia_error* glia_flipud(const glia_tensor* a, glia_tensor** out) {
  return one(a, out, "glia_flipud", [&](const Tensor& x) {
    GLIA_CHECK(x.dim() >= 1, InvalidArgument, "Input must be >= 1-d.");
    const int64_t d[] = {0};
    return flip(x, d);
  });
}

glia_error* glia_roll(const glia_tensor* a, const int64_t* shifts, int64_t n_shifts, const int64_t* dims,
                      int64_t n_dims, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_roll";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan s = dims_arg(shifts, n_shifts, fn, "shifts", "n_shifts");
    IntSpan d = dims_arg(dims, n_dims, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(roll(x, s, d));
  });
}

}  // extern "C"
