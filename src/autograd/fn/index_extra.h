// Differentiable forms of ops/index_extra.h (issue 20): index_add, index_copy, index_fill, scatter_reduce,
// masked_scatter, put, index_put, diagonal_scatter, select_scatter, slice_scatter and nonzero (no gradient).
// Each records torch's node (IndexAddBackward0, ...) whose rule is written in differentiable ops.
#pragma once

#include <vector>

#include "autograd/node.h"
#include "ops/index_extra.h"

namespace glia {

Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha);
Tensor index_copy(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, ops::ScatterReduce reduce,
                      bool include_self);
// torch.index_reduce (reduce: Prod, Mean, Amax or Amin).
Tensor index_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, ops::ScatterReduce reduce,
                    bool include_self);
Tensor masked_scatter(const Tensor& t, const Tensor& mask, const Tensor& source);
Tensor put(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate);
Tensor index_put(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate);
Tensor nonzero(const Tensor& t);
Tensor diagonal_scatter(const Tensor& t, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2);
Tensor select_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t start, int64_t end, int64_t step);

}  // namespace glia
