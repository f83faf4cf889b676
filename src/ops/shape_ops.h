// Triangles, diagonals, flips and rolls (no autograd; src/autograd/fn/shape_ops.cpp adds it):
// diagonal is a view as in torch; tril/triu and flip run their kernels (src/ops/cpu/layout.cpp);
// diag, diag_embed, trace and roll are made of views, copies (the copy kernel) and sums.
#pragma once

#include "core/tensor.h"

namespace glia::ops {

// torch.tril / torch.triu (upper): elements with j - i <= diagonal (>= for triu) of the last two dims
// kept, the others zero; a contiguous copy.
Tensor tril(const Tensor& t, int64_t diagonal, bool upper);
// torch.diagonal: a view of the diagonal `offset` of dims dim1 and dim2, appended as the last dim.
Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
// Zeros of `shape` with `src` written onto their diagonal (offset, dim1, dim2): diagonal's gradient.
Tensor diagonal_scatter_zeros(const Tensor& src, IntSpan shape, int64_t offset, int64_t dim1, int64_t dim2);
// torch.diag: a vector's matrix (diagonal `k`), or a matrix's diagonal `k` as a copy.
Tensor diag(const Tensor& t, int64_t k);
// torch.diag_embed: the last dim of t as diagonals (offset) of the new dims dim1, dim2.
Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
// The wrapped (dim1, dim2) of diag_embed for a t of `ndim` dims.
void diag_embed_dims(int64_t ndim, int64_t& dim1, int64_t& dim2);
// torch.trace: the sum of a matrix's main diagonal (integers and bool in int64, as sum).
Tensor trace(const Tensor& t);
// torch.flip: a copy of t reversed along dims.
Tensor flip(const Tensor& t, IntSpan dims);
// torch.roll: a copy of t shifted circularly along dims (dims empty: over the flattened tensor).
Tensor roll(const Tensor& t, IntSpan shifts, IntSpan dims);

}  // namespace glia::ops

namespace glia::ops {

// torch.movedim: a permuted view with dims `src` moved to positions `dst`.
Tensor movedim(const Tensor& t, IntSpan src, IntSpan dst);
// The permutation movedim applies (checks torch's conditions).
Dims movedim_order(int64_t ndim, IntSpan src, IntSpan dst);
// Tensor.unfold: a view of the windows of `size` elements every `step` along dim, appended as a last dim.
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
// The gradient of unfold: zeros of in_shape with each window of g summed back in place.
Tensor unfold_backward(const Tensor& g, IntSpan in_shape, int64_t dim, int64_t size, int64_t step);
// torch.rot90's checks; returns k reduced to [0, 4) and the wrapped dims.
int64_t rot90_args(const Tensor& t, int64_t k, IntSpan dims, int64_t& d0, int64_t& d1);
// Tensor.repeat: t tiled `repeats` times along each dim (leading new dims allowed); a contiguous copy.
Tensor repeat(const Tensor& t, IntSpan repeats);

}  // namespace glia::ops
