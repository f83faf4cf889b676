// Reductions (no autograd) over one dim, several dims or all of them.
#pragma once

#include <memory>
#include <optional>

#include "ops/iter.h"

namespace glia::ops {

// Wraps a possibly negative dim into [0, ndim); Error(InvalidArgument) with torch's text.
int64_t wrap_dim(int64_t dim, int64_t ndim);
// Dims to reduce as a mask over t's dims (empty `dims` means all); duplicates are an error.
SmallVector<bool, 8> reduce_mask(const char* op, IntSpan dims, int64_t ndim);
// Shape after reducing `mask` (kept as 1 when keepdim).
Dims reduced_shape(IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim);

// torch.sum(t, dims, keepdim, dtype): integral inputs sum in int64.
Tensor sum(const Tensor& t, IntSpan dims, bool keepdim, std::optional<DType> dtype = std::nullopt);

// Note [Canonical layout]: kernels that need a whole reduced slice at once
// (max with indices, var, logsumexp, norms and their backwards) see the input
// as a contiguous [n_out, n_red] matrix: kept dims first, reduced dims last.
// It is a view when the input already is laid out so, else a copy.
struct Canonical {
  Tensor x;       // contiguous, shape = t.shape() permuted by perm
  Dims perm;      // kept dims then reduced dims
  int64_t n_out;  // product of kept sizes
  int64_t n_red;  // product of reduced sizes
};
Canonical canonical(const Tensor& t, const SmallVector<bool, 8>& mask);
// Undoes canonical(): `g` is contiguous [n_out, n_red] data in the permuted order;
// the result has the original shape (contiguous).
Tensor from_canonical(const Tensor& g, IntSpan shape, IntSpan perm);
// Torch's error for reducing an empty dim without identity ("max(): Expected reduction dim 0 to have non-zero size.").
void check_nonempty_reduction(const char* op, const Tensor& t, const SmallVector<bool, 8>& mask, bool dims_given);

// torch.mean (floating only).
Tensor mean(const Tensor& t, IntSpan dims, bool keepdim);
// torch.prod (integral and bool inputs give int64).
Tensor prod(const Tensor& t, IntSpan dims, bool keepdim);
// torch.amax / amin (NaN propagates).
Tensor amax(const Tensor& t, IntSpan dims, bool keepdim);
Tensor amin(const Tensor& t, IntSpan dims, bool keepdim);
// torch.max(t, dim) / min(t, dim): values and int64 indices (first occurrence; NaN wins).
std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim);
// torch.argmax / argmin; no dim: over the flattened input.
Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim);
// torch.var / std with `correction` (divisor max(0, N - correction)).
Tensor var(const Tensor& t, IntSpan dims, double correction, bool keepdim);
Tensor std_dev(const Tensor& t, IntSpan dims, double correction, bool keepdim);
// torch.logsumexp (integral inputs give float32).
Tensor logsumexp(const Tensor& t, IntSpan dims, bool keepdim);
// torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim).
Tensor vector_norm(const Tensor& t, double p, IntSpan dims, bool keepdim);

// torch.all / any (dims: one dim in torch; empty: all): bool, or uint8 for a uint8 input.
Tensor all(const Tensor& t, IntSpan dims, bool keepdim);
Tensor any(const Tensor& t, IntSpan dims, bool keepdim);
// torch.count_nonzero(t, dims): int64.
Tensor count_nonzero(const Tensor& t, IntSpan dims);
// torch.nansum (NaN as zero; integral inputs give int64).
Tensor nansum(const Tensor& t, IntSpan dims, bool keepdim);
// torch.aminmax(t, dim=None, keepdim): (min, max).
std::pair<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim);

// Scans along `dim` (src/ops/cpu/scan.cpp). cumsum / cumprod: integral and bool inputs give
// int64 unless `dtype`; reverse scans from the end (cumsum's backward).
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt, bool reverse = false);
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt);
// cummax / cummin: values and int64 indices (the last of equal values; a NaN sticks).
std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim);
Tensor logcumsumexp(const Tensor& t, int64_t dim);
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);

// Sorting and selection along one dim (src/ops/cpu/sort.cpp); NaN sorts as the largest value.
std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool stable);
std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted);
std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim);
// median / nanmedian over a dim (the lower median); without a dim over all elements (values only).
std::pair<Tensor, Tensor> median_dim(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan);
Tensor median_all(const Tensor& t, bool ignore_nan);
// torch.mode: the smallest of the most frequent values, and the last index holding it.
std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim);
// Gradient of an op that selects along `dim` (sort, topk, cummax): zeros of `shape` with grad
// scattered (accumulate: added) at `indices`.
Tensor select_backward_scatter(const Tensor& grad, const Tensor& indices, IntSpan shape, int64_t dim, bool accumulate);

// Backward kernels (no graph).
// amax/amin: grad split evenly among the elements equal to the result.
Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntSpan dims, bool keepdim);
// max/min with dim: grad to the index.
Tensor index_reduce_backward(const Tensor& grad, const Tensor& indices, IntSpan shape, int64_t dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& self, IntSpan dims, bool keepdim);
Tensor norm_backward(const Tensor& grad, const Tensor& self, const Tensor& norm, double p, IntSpan dims, bool keepdim);

// softmax / log_softmax over `dim` (floating only) and their backwards from the output.
Tensor softmax(const Tensor& t, int64_t dim, bool log);
Tensor softmax_backward(const Tensor& grad, const Tensor& out, int64_t dim, bool log);

}  // namespace glia::ops
