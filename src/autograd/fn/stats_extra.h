// torch functions of issue 20 composed of differentiable ops (src/autograd/fn/stats_extra.cpp): diff,
// cross, tensordot, kron, block_diag, diagflat, cov, corrcoef, trapezoid, cumulative_trapezoid, cdist,
// constant_pad_nd, combinations, einsum. Their gradients are those of the ops they are made of.
#pragma once

#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace glia {

Tensor diff(const Tensor& input, int64_t n, int64_t dim, const Tensor* prepend, const Tensor* append);
Tensor cross(const Tensor& input, const Tensor& other, const int64_t* dim);
Tensor tensordot(const Tensor& a, const Tensor& b, IntSpan dims_a, IntSpan dims_b);
Tensor kron(const Tensor& a, const Tensor& b);
Tensor block_diag(const std::vector<Tensor>& tensors);
Tensor diagflat(const Tensor& input, int64_t offset);
Tensor cov(const Tensor& input, int64_t correction, const Tensor* fweights, const Tensor* aweights);
Tensor corrcoef(const Tensor& input);
// x null: spacing dx.
Tensor trapezoid(const Tensor& y, const Tensor* x, double dx, int64_t dim);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor* x, double dx, int64_t dim);
Tensor cdist(const Tensor& x1, const Tensor& x2, double p);
Tensor constant_pad_nd(const Tensor& input, IntSpan pad, double value);
Tensor combinations(const Tensor& input, int64_t r, bool with_replacement);
Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands);

}  // namespace glia
