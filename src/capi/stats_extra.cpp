// Searching, set membership, unique values and histograms (issue 20): searchsorted, bucketize, isin,
// unique, unique_consecutive, histc. None is differentiable (torch's aren't): they call the ops directly.
// Then the functions composed of differentiable ops (src/autograd/fn/stats_extra.cpp): diff, cross,
// tensordot, kron, block_diag, diagflat, cov, corrcoef, trapezoid, cumulative_trapezoid, cdist,
// constant_pad_nd, combinations, einsum.
#include "autograd/fn/stats_extra.h"

#include <optional>
#include <string_view>

#include "capi/api.h"
#include "ops/search.h"

using namespace glia;
using namespace glia::capi;

namespace {

void check_no_dim(const int64_t* dim, const char* fn) {
  GLIA_CHECK(dim == nullptr, Unsupported, fn, ": dim is not supported (only dim=None: unique of all elements)");
}

void hand_out(const std::tuple<Tensor, Tensor, Tensor>& r, glia_tensor** out, glia_tensor** inverse,
              glia_tensor** counts) {
  *out = tensor_handle(std::get<0>(r));
  if (inverse) *inverse = tensor_handle(std::get<1>(r));
  if (counts) *counts = tensor_handle(std::get<2>(r));
}

}  // namespace

extern "C" {

glia_error* glia_searchsorted(const glia_tensor* sorted_sequence, const glia_tensor* values, int32_t out_int32,
                              int32_t right, const char* side_or_null, const glia_tensor* sorter_or_null,
                              glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_searchsorted";
    Tensor s = tensor_arg(sorted_sequence, fn, "sorted_sequence");
    Tensor v = tensor_arg(values, fn, "values");
    std::optional<Tensor> sorter;
    if (sorter_or_null) sorter = tensor_arg(sorter_or_null, fn, "sorter");
    check_out(out, fn, "out");
    std::optional<std::string_view> side;
    if (side_or_null) side = std::string_view(side_or_null);
    *out = tensor_handle(ops::searchsorted(s, v, out_int32 != 0, right != 0, side, sorter ? &*sorter : nullptr));
  });
}

glia_error* glia_bucketize(const glia_tensor* input, const glia_tensor* boundaries, int32_t out_int32, int32_t right,
                           glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_bucketize";
    Tensor x = tensor_arg(input, fn, "input");
    Tensor b = tensor_arg(boundaries, fn, "boundaries");
    check_out(out, fn, "out");
    *out = tensor_handle(ops::bucketize(x, b, out_int32 != 0, right != 0));
  });
}

glia_error* glia_isin(const glia_tensor* elements, const glia_tensor* test_elements, int32_t assume_unique,
                      int32_t invert, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_isin";
    Tensor e = tensor_arg(elements, fn, "elements");
    Tensor t = tensor_arg(test_elements, fn, "test_elements");
    check_out(out, fn, "out");
    *out = tensor_handle(ops::isin(e, t, assume_unique != 0, invert != 0));
  });
}

glia_error* glia_unique(const glia_tensor* input, int32_t sorted, const int64_t* dim_or_null, glia_tensor** out,
                        glia_tensor** out_inverse_or_null, glia_tensor** out_counts_or_null) {
  return guard([&] {
    const char* fn = "glia_unique";
    Tensor x = tensor_arg(input, fn, "input");
    check_out(out, fn, "out");
    check_no_dim(dim_or_null, fn);
    hand_out(ops::unique(x, sorted != 0), out, out_inverse_or_null, out_counts_or_null);
  });
}

glia_error* glia_unique_consecutive(const glia_tensor* input, const int64_t* dim_or_null, glia_tensor** out,
                                    glia_tensor** out_inverse_or_null, glia_tensor** out_counts_or_null) {
  return guard([&] {
    const char* fn = "glia_unique_consecutive";
    Tensor x = tensor_arg(input, fn, "input");
    check_out(out, fn, "out");
    check_no_dim(dim_or_null, fn);
    hand_out(ops::unique_consecutive(x), out, out_inverse_or_null, out_counts_or_null);
  });
}

glia_error* glia_histc(const glia_tensor* input, int64_t bins, double min, double max, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_histc";
    Tensor x = tensor_arg(input, fn, "input");
    check_out(out, fn, "out");
    *out = tensor_handle(ops::histc(x, bins, min, max));
  });
}

glia_error* glia_diff(const glia_tensor* input, int64_t order, int64_t dim, const glia_tensor* prepend_or_null,
                      const glia_tensor* append_or_null, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_diff";
    Tensor x = tensor_arg(input, fn, "input");
    std::optional<Tensor> pre, app;
    if (prepend_or_null) pre = tensor_arg(prepend_or_null, fn, "prepend");
    if (append_or_null) app = tensor_arg(append_or_null, fn, "append");
    check_out(out, fn, "out");
    *out = tensor_handle(diff(x, order, dim, pre ? &*pre : nullptr, app ? &*app : nullptr));
  });
}

glia_error* glia_cross(const glia_tensor* input, const glia_tensor* other, const int64_t* dim_or_null,
                       glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_cross";
    Tensor a = tensor_arg(input, fn, "input");
    Tensor b = tensor_arg(other, fn, "other");
    check_out(out, fn, "out");
    *out = tensor_handle(cross(a, b, dim_or_null));
  });
}

glia_error* glia_tensordot(const glia_tensor* a, const glia_tensor* b, const int64_t* dims_a, int64_t n_dims_a,
                           const int64_t* dims_b, int64_t n_dims_b, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensordot";
    Tensor x = tensor_arg(a, fn, "a");
    Tensor y = tensor_arg(b, fn, "b");
    IntSpan da = dims_arg(dims_a, n_dims_a, fn, "dims_a", "n_dims_a");
    IntSpan db = dims_arg(dims_b, n_dims_b, fn, "dims_b", "n_dims_b");
    check_out(out, fn, "out");
    *out = tensor_handle(tensordot(x, y, da, db));
  });
}

glia_error* glia_kron(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_kron", [](const Tensor& x, const Tensor& y) { return kron(x, y); });
}

glia_error* glia_block_diag(const glia_tensor* const* tensors, int64_t n_tensors, glia_tensor** out) {
  return guard([&] {
    std::vector<Tensor> ts = tensors_arg(tensors, n_tensors, "glia_block_diag", "tensors");
    check_out(out, "glia_block_diag", "out");
    *out = tensor_handle(block_diag(ts));
  });
}

glia_error* glia_diagflat(const glia_tensor* input, int64_t offset, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(input, "glia_diagflat", "input");
    check_out(out, "glia_diagflat", "out");
    *out = tensor_handle(diagflat(x, offset));
  });
}

glia_error* glia_cov(const glia_tensor* input, int64_t correction, const glia_tensor* fweights_or_null,
                     const glia_tensor* aweights_or_null, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_cov";
    Tensor x = tensor_arg(input, fn, "input");
    std::optional<Tensor> fw, aw;
    if (fweights_or_null) fw = tensor_arg(fweights_or_null, fn, "fweights");
    if (aweights_or_null) aw = tensor_arg(aweights_or_null, fn, "aweights");
    check_out(out, fn, "out");
    *out = tensor_handle(cov(x, correction, fw ? &*fw : nullptr, aw ? &*aw : nullptr));
  });
}

glia_error* glia_corrcoef(const glia_tensor* input, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(input, "glia_corrcoef", "input");
    check_out(out, "glia_corrcoef", "out");
    *out = tensor_handle(corrcoef(x));
  });
}

namespace {

glia_error* trapezoid_entry(const glia_tensor* y, const glia_tensor* x_or_null, double dx, int64_t dim,
                            glia_tensor** out, const char* fn, bool cumulative) {
  return guard([&] {
    Tensor ty = tensor_arg(y, fn, "y");
    std::optional<Tensor> tx;
    if (x_or_null) tx = tensor_arg(x_or_null, fn, "x");
    check_out(out, fn, "out");
    const Tensor* px = tx ? &*tx : nullptr;
    *out = tensor_handle(cumulative ? cumulative_trapezoid(ty, px, dx, dim) : trapezoid(ty, px, dx, dim));
  });
}

}  // namespace

glia_error* glia_trapezoid(const glia_tensor* y, const glia_tensor* x_or_null, double dx, int64_t dim,
                           glia_tensor** out) {
  return trapezoid_entry(y, x_or_null, dx, dim, out, "glia_trapezoid", false);
}

glia_error* glia_cumulative_trapezoid(const glia_tensor* y, const glia_tensor* x_or_null, double dx, int64_t dim,
                                      glia_tensor** out) {
  return trapezoid_entry(y, x_or_null, dx, dim, out, "glia_cumulative_trapezoid", true);
}

glia_error* glia_cdist(const glia_tensor* x1, const glia_tensor* x2, double p, glia_tensor** out) {
  return binary_entry(x1, x2, out, "glia_cdist", [p](const Tensor& a, const Tensor& b) { return cdist(a, b, p); });
}

glia_error* glia_constant_pad_nd(const glia_tensor* input, const int64_t* pad, int64_t n_pad, double value,
                                 glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_constant_pad_nd";
    Tensor x = tensor_arg(input, fn, "input");
    GLIA_CHECK(n_pad >= 0 && (n_pad == 0 || pad), InvalidArgument, fn, ": pad must hold n_pad >= 0 entries");
    check_out(out, fn, "out");
    *out = tensor_handle(constant_pad_nd(x, IntSpan(pad, static_cast<size_t>(n_pad)), value));
  });
}

glia_error* glia_combinations(const glia_tensor* input, int64_t r, int32_t with_replacement, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(input, "glia_combinations", "input");
    check_out(out, "glia_combinations", "out");
    *out = tensor_handle(combinations(x, r, with_replacement != 0));
  });
}

glia_error* glia_einsum(const char* equation, const glia_tensor* const* operands, int64_t n_operands,
                        glia_tensor** out) {
  return guard([&] {
    GLIA_CHECK(equation != nullptr, InvalidArgument, "glia_einsum: argument 'equation' is NULL");
    std::vector<Tensor> ts = tensors_arg(operands, n_operands, "glia_einsum", "operands");
    check_out(out, "glia_einsum", "out");
    *out = tensor_handle(einsum(equation, ts));
  });
}

}  // extern "C"
