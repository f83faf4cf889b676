// Shape operators: views and reshapes.
#include "autograd/functions.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

glia_error* glia_view(const glia_tensor* a, const int64_t* shape, int64_t ndim, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_view";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan s = dims_arg(shape, ndim, fn, "shape", "ndim");
    check_out(out, fn, "out");
    *out = tensor_handle(view(x, s));
  });
}

glia_error* glia_reshape(const glia_tensor* a, const int64_t* shape, int64_t ndim, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_reshape";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan s = dims_arg(shape, ndim, fn, "shape", "ndim");
    check_out(out, fn, "out");
    *out = tensor_handle(reshape(x, s));
  });
}

glia_error* glia_flatten(const glia_tensor* a, int64_t start_dim, int64_t end_dim, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_flatten", "a");
    check_out(out, "glia_flatten", "out");
    *out = tensor_handle(flatten(x, start_dim, end_dim));
  });
}

glia_error* glia_squeeze(const glia_tensor* a, const int64_t* dims, int64_t n_dims, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_squeeze";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan d = dims_arg(dims, n_dims, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(squeeze(x, d, n_dims == 0));
  });
}

glia_error* glia_unsqueeze(const glia_tensor* a, int64_t dim, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_unsqueeze", "a");
    check_out(out, "glia_unsqueeze", "out");
    *out = tensor_handle(unsqueeze(x, dim));
  });
}

glia_error* glia_permute(const glia_tensor* a, const int64_t* dims, int64_t n_dims, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_permute";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan d = dims_arg(dims, n_dims, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(permute(x, d));
  });
}

glia_error* glia_transpose(const glia_tensor* a, int64_t dim0, int64_t dim1, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_transpose", "a");
    check_out(out, "glia_transpose", "out");
    *out = tensor_handle(transpose(x, dim0, dim1));
  });
}

glia_error* glia_expand(const glia_tensor* a, const int64_t* shape, int64_t ndim, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_expand";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan s = dims_arg(shape, ndim, fn, "shape", "ndim");
    check_out(out, fn, "out");
    *out = tensor_handle(expand(x, s));
  });
}

glia_error* glia_unflatten(const glia_tensor* a, int64_t dim, const int64_t* sizes, int64_t n, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_unflatten";
    Tensor x = tensor_arg(a, fn, "a");
    IntSpan s = dims_arg(sizes, n, fn, "sizes", "n");
    check_out(out, fn, "out");
    *out = tensor_handle(unflatten(x, dim, s));
  });
}

glia_error* glia_narrow(const glia_tensor* a, int64_t dim, int64_t start, int64_t length, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_narrow", "a");
    check_out(out, "glia_narrow", "out");
    *out = tensor_handle(narrow(x, dim, start, length));
  });
}

glia_error* glia_slice(const glia_tensor* a, int64_t dim, int64_t start, int64_t end, int64_t step, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_slice", "a");
    check_out(out, "glia_slice", "out");
    *out = tensor_handle(slice(x, dim, start, end, step));
  });
}

glia_error* glia_select(const glia_tensor* a, int64_t dim, int64_t index, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_select", "a");
    check_out(out, "glia_select", "out");
    *out = tensor_handle(select(x, dim, index));
  });
}

}  // extern "C"
