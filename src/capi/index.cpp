// Indexing, joining, splitting and padding operators.
#include "autograd/functions.h"
#include "capi/api.h"
#include "ops/reduce.h"

using namespace glia;
using namespace glia::capi;

namespace {

// A list of integers (pointer, count) of any length; NULL only with count 0.
IntSpan ints_arg(const int64_t* p, int64_t n, const char* fn, const char* arg, const char* n_arg) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument '", n_arg, "' must be >= 0, got ", n);
  GLIA_CHECK(p || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n_arg, " = ", n);
  return IntSpan(p, static_cast<size_t>(n));
}

}  // namespace

extern "C" {

glia_error* glia_index_select(const glia_tensor* a, int64_t dim, const glia_tensor* index, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_index_select";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index");
    check_out(out, fn, "out");
    *out = tensor_handle(index_select(x, dim, i));
  });
}

glia_error* glia_gather(const glia_tensor* a, int64_t dim, const glia_tensor* index, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_gather";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index");
    check_out(out, fn, "out");
    *out = tensor_handle(gather(x, dim, i));
  });
}

glia_error* glia_scatter(const glia_tensor* a, int64_t dim, const glia_tensor* index, const glia_tensor* src,
                         glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_scatter";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index"), s = tensor_arg(src, fn, "src");
    check_out(out, fn, "out");
    *out = tensor_handle(scatter(x, dim, i, s));
  });
}

glia_error* glia_scatter_add(const glia_tensor* a, int64_t dim, const glia_tensor* index, const glia_tensor* src,
                             glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_scatter_add";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index"), s = tensor_arg(src, fn, "src");
    check_out(out, fn, "out");
    *out = tensor_handle(scatter_add(x, dim, i, s));
  });
}

glia_error* glia_scatter_value(const glia_tensor* a, int64_t dim, const glia_tensor* index, glia_scalar value,
                               glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_scatter_value";
    Tensor x = tensor_arg(a, fn, "a"), i = tensor_arg(index, fn, "index");
    Scalar v = scalar_arg(value, fn, "value");
    check_out(out, fn, "out");
    *out = tensor_handle(scatter_value(x, dim, i, v));
  });
}

glia_error* glia_masked_select(const glia_tensor* a, const glia_tensor* mask, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_masked_select";
    Tensor x = tensor_arg(a, fn, "a"), m = tensor_arg(mask, fn, "mask");
    check_out(out, fn, "out");
    *out = tensor_handle(masked_select(x, m));
  });
}

glia_error* glia_cat(const glia_tensor* const* tensors, int64_t n, int64_t dim, glia_tensor** out) {
  return guard([&] {
    std::vector<Tensor> ts = tensors_arg(tensors, n, "glia_cat", "tensors");
    check_out(out, "glia_cat", "out");
    *out = tensor_handle(cat(ts, dim));
  });
}

glia_error* glia_stack(const glia_tensor* const* tensors, int64_t n, int64_t dim, glia_tensor** out) {
  return guard([&] {
    std::vector<Tensor> ts = tensors_arg(tensors, n, "glia_stack", "tensors");
    check_out(out, "glia_stack", "out");
    *out = tensor_handle(stack(ts, dim));
  });
}

glia_error* glia_split(const glia_tensor* a, int64_t split_size, int64_t dim, glia_tensor** outs, int64_t capacity,
                       int64_t* n_outs) {
  return guard([&] {
    const char* fn = "glia_split";
    Tensor x = tensor_arg(a, fn, "a");
    check_outputs(outs, capacity, n_outs, fn);
    // The count is known before any view is made (as glia_tensor_split's): a dimension of 2^50 entries
    // (a tensor without elements) is not split into 2^50 views for a caller with room for two (found by
    // tests/fuzz). The errors of x, split_size and dim come first, in torch's order, from split itself.
    if (x.dim() != 0 && split_size > 0) {
      const int64_t size = x.shape()[static_cast<size_t>(ops::wrap_dim(dim, x.dim()))];
      const int64_t num = size == 0 ? 1 : (size - 1) / split_size + 1;
      if (!outs || num > capacity) {
        GLIA_CHECK(!outs, InvalidArgument, fn, ": 'outs' has room for ", capacity, " tensors but the result has ", num);
        *n_outs = num;
        return;
      }
    }
    write_outputs(split(x, split_size, dim), outs, capacity, n_outs, fn);
  });
}

glia_error* glia_split_with_sizes(const glia_tensor* a, const int64_t* sizes, int64_t n_sizes, int64_t dim,
                                  glia_tensor** outs, int64_t capacity, int64_t* n_outs) {
  return guard([&] {
    const char* fn = "glia_split_with_sizes";
    IntSpan s = ints_arg(sizes, n_sizes, fn, "sizes", "n_sizes");
    Tensor x = tensor_arg(a, fn, "a");
    check_outputs(outs, capacity, n_outs, fn);
    write_outputs(split_with_sizes(x, s, dim), outs, capacity, n_outs, fn);
  });
}

glia_error* glia_chunk(const glia_tensor* a, int64_t chunks, int64_t dim, glia_tensor** outs, int64_t capacity,
                       int64_t* n_outs) {
  return guard([&] {
    const char* fn = "glia_chunk";
    Tensor x = tensor_arg(a, fn, "a");
    check_outputs(outs, capacity, n_outs, fn);
    // The count first, as glia_split's: a dimension of 2^50 entries in `chunks` >= 2^50 pieces is not
    // made into 2^50 views for a caller with room for two (found by tests/fuzz). The errors of x,
    // chunks and dim come from chunk itself, in torch's order.
    if (x.dim() != 0 && chunks > 0) {
      const int64_t size = x.shape()[static_cast<size_t>(ops::wrap_dim(dim, x.dim()))];
      const int64_t split_size = size == 0 ? 0 : (size - 1) / chunks + 1;
      const int64_t num = size == 0 ? chunks : (size - 1) / split_size + 1;
      if (!outs || num > capacity) {
        GLIA_CHECK(!outs, InvalidArgument, fn, ": 'outs' has room for ", capacity, " tensors but the result has ", num);
        *n_outs = num;
        return;
      }
    }
    write_outputs(chunk(x, chunks, dim), outs, capacity, n_outs, fn);
  });
}

glia_error* glia_pad(const glia_tensor* a, const int64_t* pad, int64_t n_pad, glia_pad_mode mode, double value,
                     glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_pad";
    IntSpan p = ints_arg(pad, n_pad, fn, "pad", "n_pad");
    int m = static_cast<int>(mode);
    GLIA_CHECK(m >= 0 && m <= 3, InvalidArgument, fn, ": unknown padding mode ", m);
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out, fn, "out");
    *out = tensor_handle(glia::pad(x, p, static_cast<PadMode>(m), value));
  });
}

}  // extern "C"
