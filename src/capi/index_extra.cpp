// torch's indexing and scatter family beyond index.cpp (issue 20): index_add, index_copy, index_fill,
// scatter_reduce, masked_scatter, put, index_put, nonzero and the *_scatter ops.
#include "autograd/fn/index_extra.h"

#include <cstring>

#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

glia_error* glia_index_add(const glia_tensor* a, int64_t dim, const glia_tensor* index, const glia_tensor* source,
                           glia_scalar alpha, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_index_add";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index"), s = tensor_arg(source, fn, "source");
    Scalar al = scalar_arg(alpha, fn, "alpha");
    check_out(out, fn, "out");
    *out = tensor_handle(index_add(x, dim, i, s, al));
  });
}

glia_error* glia_index_copy(const glia_tensor* a, int64_t dim, const glia_tensor* index, const glia_tensor* source,
                            glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_index_copy";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index"), s = tensor_arg(source, fn, "source");
    check_out(out, fn, "out");
    *out = tensor_handle(index_copy(x, dim, i, s));
  });
}

glia_error* glia_index_fill(const glia_tensor* a, int64_t dim, const glia_tensor* index, glia_scalar value,
                            glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_index_fill";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index");
    Scalar v = scalar_arg(value, fn, "value");
    check_out(out, fn, "out");
    *out = tensor_handle(index_fill(x, dim, i, v));
  });
}

glia_error* glia_scatter_reduce(const glia_tensor* a, int64_t dim, const glia_tensor* index, const glia_tensor* src,
                                const char* reduce, int32_t include_self, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_scatter_reduce";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index"), s = tensor_arg(src, fn, "src");
    check_out(out, fn, "out");
    ops::ScatterReduce r = ops::scatter_reduce_kind(reduce);
    *out = tensor_handle(glia::scatter_reduce(x, dim, i, s, r, include_self != 0));
  });
}

glia_error* glia_index_reduce(const glia_tensor* a, int64_t dim, const glia_tensor* index, const glia_tensor* source,
                              const char* reduce, int32_t include_self, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_index_reduce";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index"), s = tensor_arg(source, fn, "source");
    check_out(out, fn, "out");
    const char* r = reduce ? reduce : "";
    const bool known =
        !std::strcmp(r, "prod") || !std::strcmp(r, "mean") || !std::strcmp(r, "amax") || !std::strcmp(r, "amin");
    GLIA_CHECK(known, InvalidArgument, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ",
               r, ".");
    *out = tensor_handle(glia::index_reduce(x, dim, i, s, ops::scatter_reduce_kind(r), include_self != 0));
  });
}

glia_error* glia_masked_scatter(const glia_tensor* a, const glia_tensor* mask, const glia_tensor* source,
                                glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_masked_scatter";
    Tensor x = tensor_arg(a, fn, "a"), m = tensor_arg(mask, fn, "mask"), s = tensor_arg(source, fn, "source");
    check_out(out, fn, "out");
    *out = tensor_handle(masked_scatter(x, m, s));
  });
}

glia_error* glia_put(const glia_tensor* a, const glia_tensor* index, const glia_tensor* source, int32_t accumulate,
                     glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_put";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index"), s = tensor_arg(source, fn, "source");
    check_out(out, fn, "out");
    *out = tensor_handle(put(x, i, s, accumulate != 0));
  });
}

glia_error* glia_index_put(const glia_tensor* a, const glia_tensor* const* indices, int64_t n_indices,
                           const glia_tensor* values, int32_t accumulate, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_index_put";
    Tensor x = tensor_arg(a, fn, "a"), v = tensor_arg(values, fn, "values");
    std::vector<Tensor> is = tensors_arg(indices, n_indices, fn, "indices");
    check_out(out, fn, "out");
    *out = tensor_handle(index_put(x, is, v, accumulate != 0));
  });
}

glia_error* glia_nonzero(const glia_tensor* a, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_nonzero";
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out, fn, "out");
    *out = tensor_handle(nonzero(x));
  });
}

glia_error* glia_diagonal_scatter(const glia_tensor* a, const glia_tensor* src, int64_t offset, int64_t dim1,
                                  int64_t dim2, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_diagonal_scatter";
    Tensor x = tensor_arg(a, fn, "a"), s = tensor_arg(src, fn, "src");
    check_out(out, fn, "out");
    *out = tensor_handle(diagonal_scatter(x, s, offset, dim1, dim2));
  });
}

glia_error* glia_select_scatter(const glia_tensor* a, const glia_tensor* src, int64_t dim, int64_t index,
                                glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_select_scatter";
    Tensor x = tensor_arg(a, fn, "a"), s = tensor_arg(src, fn, "src");
    check_out(out, fn, "out");
    *out = tensor_handle(select_scatter(x, s, dim, index));
  });
}

glia_error* glia_slice_scatter(const glia_tensor* a, const glia_tensor* src, int64_t dim, int64_t start, int64_t end,
                               int64_t step, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_slice_scatter";
    Tensor x = tensor_arg(a, fn, "a"), s = tensor_arg(src, fn, "src");
    check_out(out, fn, "out");
    *out = tensor_handle(slice_scatter(x, s, dim, start, end, step));
  });
}

}  // extern "C"
