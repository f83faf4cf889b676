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

}  // namespace glia
