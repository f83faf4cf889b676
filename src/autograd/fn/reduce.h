#pragma once

#include <optional>
#include <utility>

#include "autograd/node.h"

namespace glia {

Tensor sum(const Tensor& t, IntSpan dims = {}, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
// Broadcasts t (of shape reduced over `mask` without keepdim) back to `shape`.
Tensor expand_reduced(const Tensor& t, IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim);

// Reductions (empty dims: all dims), as torch's; see ops/reduce.h for the kernels.
Tensor mean(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
Tensor prod(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
Tensor amax(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
Tensor amin(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
// torch.max(t, dim, keepdim) / min: (values, int64 indices); gradient flows to the index.
std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& t, IntSpan dims = {}, double correction = 1.0, bool keepdim = false);
Tensor std_dev(const Tensor& t, IntSpan dims = {}, double correction = 1.0, bool keepdim = false);
Tensor logsumexp(const Tensor& t, IntSpan dims, bool keepdim = false);
// torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim).
Tensor vector_norm(const Tensor& t, double p = 2.0, IntSpan dims = {}, bool keepdim = false);
Tensor softmax(const Tensor& t, int64_t dim);
Tensor log_softmax(const Tensor& t, int64_t dim);

// torch.all / any / count_nonzero (not differentiable; see ops/reduce.h).
Tensor all(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
Tensor any(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
Tensor count_nonzero(const Tensor& t, IntSpan dims = {});
// torch.aminmax: (min, max); like torch, backward through them is an error.
std::pair<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor nansum(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
Tensor nanmean(const Tensor& t, IntSpan dims = {}, bool keepdim = false);
// torch.var_mean / std_mean: (var or std, mean) with one node (VarMeanBackward0 / StdMeanBackward0).
std::pair<Tensor, Tensor> var_mean(const Tensor& t, IntSpan dims = {}, double correction = 1.0, bool keepdim = false);
std::pair<Tensor, Tensor> std_mean(const Tensor& t, IntSpan dims = {}, double correction = 1.0, bool keepdim = false);

// Scans (src/autograd/fn/scan.cpp).
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<DType> dtype = std::nullopt);
std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim);
Tensor logcumsumexp(const Tensor& t, int64_t dim);
// Sorting and selection (src/autograd/fn/scan.cpp); the gradient flows to the selected indices.
std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& t, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor msort(const Tensor& t);
std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim = -1, bool keepdim = false);
// median / nanmedian without a dim (values only) and over a dim (values, indices).
Tensor median(const Tensor& t, bool ignore_nan = false);
std::pair<Tensor, Tensor> median_dim(const Tensor& t, int64_t dim, bool keepdim = false, bool ignore_nan = false);
std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim = -1, bool keepdim = false);
// torch.quantile / nanquantile(t, q, dim, keepdim, interpolation): q a 0-dim or 1-D tensor of t's dtype
// (float32 or float64) with values in [0, 1] (read on the host); a 1-D q's dim comes first.
enum class QuantileInterpolation { Linear = 0, Lower = 1, Higher = 2, Midpoint = 3, Nearest = 4 };
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                QuantileInterpolation interpolation, bool ignore_nan);

}  // namespace glia
