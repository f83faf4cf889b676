// torch's indexing and scatter family beyond ops/index.h (issue 20): index_add with alpha, index_copy,
// index_fill, scatter_reduce, masked_scatter, put, index_put, nonzero and the *_scatter ops. Meta parts
// (glia::ops, no autograd) in src/ops/index_extra.cpp, composed of existing kernels (scatter and its reduce
// modes, index_add, masked_scatter, masked_select, copies); the differentiable forms are in
// autograd/fn/index_extra.h. Messages follow torch 1.13.
#pragma once

#include <vector>

#include "core/scalar.h"
#include "ops/iter.h"

namespace glia::ops {

// torch.scatter_reduce's reductions (Mean runs as Sum, then divides).
enum class ScatterReduce { Sum = 0, Prod = 1, Mean = 2, Amax = 3, Amin = 4 };
// "sum", "prod", "mean", "amax", "amin"; torch's error for anything else.
ScatterReduce scatter_reduce_kind(const char* reduce);

// The messages of check_index's failure.
enum class IndexMessage { IndexCopy = 0, Bounds = 1, Put = 2, OutOfRange = 3 };
// index (integer, any shape) checked against [0, size) -- [-size, size) with wrap, negatives then counted
// from the end -- as a contiguous 1-D int64 tensor; the bounds failure carries message kind `msg`. The
// out-of-range entries are read back to the host (a small explicit copy, as masked_select's size).
Tensor check_index(const Tensor& index, int64_t size, int64_t dim, bool wrap, IndexMessage msg);

// Out of place, torch's argument checks and messages.
Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha);
Tensor index_copy(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source);
// torch.index_reduce is scatter_reduce with the index spread over source's shape: torch's checks (reduce
// is not Sum, index_reduce_'s messages, the bounds), then that int64 index (source's shape, 0-dim as [1]).
Tensor index_reduce_index(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                          ScatterReduce reduce);
Tensor index_fill(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                      bool include_self);
// torch.masked_scatter: self and mask broadcast together (the result has the broadcast shape).
Tensor masked_scatter(const Tensor& t, const Tensor& mask, const Tensor& source);
// torch.nonzero: int64 [n, t.dim()] of the coordinates of the nonzero elements, row-major order.
Tensor nonzero(const Tensor& t);
// The index tensors of index_put after torch's conversion: bool masks become their nonzero coordinates,
// every index is checked (negatives counted from the end) and the linear index into the first k dims
// (k = the number of indexed dims) is returned with the broadcast shape of the indices (`bshape`).
Tensor index_put_linear(const Tensor& t, const std::vector<Tensor>& indices, int64_t& k, Dims& bshape);
Tensor diagonal_scatter(const Tensor& t, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2);
Tensor select_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t start, int64_t end, int64_t step);

}  // namespace glia::ops
