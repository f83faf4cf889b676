// View and reshape operations (no autograd): metadata only, except reshape of
// a tensor whose strides do not allow a view, which copies (as torch does).
#pragma once

#include "ops/iter.h"

namespace glia::ops {

// torch's infer_size: resolves one -1 in `shape` for `numel` elements.
Dims infer_size(IntSpan shape, int64_t numel);
// Strides for viewing t as `shape` without a copy, or empty optional (torch's computeStride).
bool view_strides(const Tensor& t, IntSpan shape, Dims& out_strides);

Tensor view(const Tensor& t, IntSpan shape);
Tensor reshape(const Tensor& t, IntSpan shape);
Tensor permute(const Tensor& t, IntSpan dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor unsqueeze(const Tensor& t, int64_t dim);
// Squeezes the given dims of size 1 (all size-1 dims when `dims` is empty and all_dims).
Tensor squeeze(const Tensor& t, IntSpan dims, bool all_dims);
// -1 keeps a dim's size; new leading dims are allowed.
Tensor expand(const Tensor& t, IntSpan shape);
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);

}  // namespace glia::ops
