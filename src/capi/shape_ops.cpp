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

extern "C" {

glia_error* glia_movedim(const glia_tensor* a, const int64_t* source, int64_t n_source, const int64_t* destination,
                         int64_t n_destination, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_movedim";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan s = dims_arg(source, n_source, fn, "source", "n_source");
    IntSpan d = dims_arg(destination, n_destination, fn, "destination", "n_destination");
    check_out(out, fn, "out");
    *out = tensor_handle(movedim(x, s, d));
  });
}

glia_error* glia_unfold(const glia_tensor* a, int64_t dimension, int64_t size, int64_t step, glia_tensor** out) {
  return one(a, out, "glia_unfold", [&](const Tensor& x) { return unfold(x, dimension, size, step); });
}

glia_error* glia_rot90(const glia_tensor* a, int64_t k, const int64_t* dims, int64_t n_dims, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_rot90";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan d = dims_arg(dims, n_dims, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(rot90(x, k, d));
  });
}

glia_error* glia_repeat(const glia_tensor* a, const int64_t* repeats, int64_t n_repeats, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_repeat";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan r = dims_arg(repeats, n_repeats, fn, "repeats", "n_repeats");
    check_out(out, fn, "out");
    *out = tensor_handle(repeat(x, r));
  });
}

glia_error* glia_tile(const glia_tensor* a, const int64_t* dims, int64_t n_dims, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tile";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan r = dims_arg(dims, n_dims, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(tile(x, r));
  });
}

glia_error* glia_repeat_interleave(const glia_tensor* a, int64_t repeats, const int64_t* dim_or_null,
                                   glia_tensor** out) {
  return one(a, out, "glia_repeat_interleave",
             [&](const Tensor& x) { return repeat_interleave(x, repeats, dim_or_null); });
}

glia_error* glia_repeat_interleave_tensor(const glia_tensor* a, const glia_tensor* repeats, const int64_t* dim_or_null,
                                          glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_repeat_interleave_tensor";
    Tensor x = tensor_arg(a, fn, "a"), r = tensor_arg(repeats, fn, "repeats");
    check_out(out, fn, "out");
    *out = tensor_handle(repeat_interleave(x, r, dim_or_null));
  });
}

glia_error* glia_tensor_split(const glia_tensor* a, int64_t sections, int64_t dim, glia_tensor** outs, int64_t capacity,
                              int64_t* out_count) {
  return guard([&] {
    const char* fn = "glia_tensor_split";
    Tensor x = tensor_arg(a, fn, "a");
    check_outputs(outs, capacity, out_count, fn);
    // The result has exactly `sections` views, whatever the size: a count past the caller's room
    // (or a count query) is answered before making any, not after making 2^40 of them (found by
    // tests/fuzz). tensor_split(x, 1, dim) raises the errors of x and dim first, as torch's order has them.
    if (sections > 1 && (!outs || sections > capacity)) {
      tensor_split(x, 1, dim);
      GLIA_CHECK(!outs, InvalidArgument, fn, ": 'outs' has room for ", capacity, " tensors but the result has ",
                 sections);
      *out_count = sections;
      return;
    }
    write_outputs(tensor_split(x, sections, dim), outs, capacity, out_count, fn);
  });
}

glia_error* glia_tensor_split_indices(const glia_tensor* a, const int64_t* indices, int64_t n_indices, int64_t dim,
                                      glia_tensor** outs, int64_t capacity, int64_t* out_count) {
  return guard([&] {
    const char* fn = "glia_tensor_split_indices";
    Tensor x = tensor_arg(a, fn, "a");
    GLIA_CHECK(n_indices >= 0, InvalidArgument, fn, ": argument 'n_indices' must be >= 0, got ", n_indices);
    GLIA_CHECK(indices || n_indices == 0, InvalidArgument, fn, ": argument 'indices' is NULL with n_indices ",
               n_indices);
    check_outputs(outs, capacity, out_count, fn);
    write_outputs(tensor_split(x, IntSpan(indices, static_cast<size_t>(n_indices)), dim), outs, capacity, out_count,
                  fn);
  });
}

}  // extern "C"

extern "C" {

glia_error* glia_take(const glia_tensor* a, const glia_tensor* index, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_take";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index");
    check_out(out, fn, "out");
    *out = tensor_handle(take(x, i));
  });
}

glia_error* glia_take_along_dim(const glia_tensor* a, const glia_tensor* indices, const int64_t* dim_or_null,
                                glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_take_along_dim";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(indices, fn, "indices");
    check_out(out, fn, "out");
    *out = tensor_handle(take_along_dim(x, i, dim_or_null));
  });
}

}  // extern "C"
