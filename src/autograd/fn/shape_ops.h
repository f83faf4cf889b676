#pragma once

#include "autograd/node.h"

namespace glia {

// Differentiable triangles, diagonals, flips and rolls (ops/shape_ops.h), with torch's nodes
// (TrilBackward0, DiagonalBackward0, FlipBackward0, RollBackward0, ...). Every backward is made of
// these differentiable functions again, so create_graph works through them.
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
Tensor diagonal(const Tensor& t, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor diag(const Tensor& t, int64_t k = 0);
Tensor diag_embed(const Tensor& t, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor trace(const Tensor& t);
Tensor flip(const Tensor& t, IntSpan dims);
Tensor roll(const Tensor& t, IntSpan shifts, IntSpan dims);

}  // namespace glia

namespace glia {

// torch.movedim (a permute: PermuteBackward0).
Tensor movedim(const Tensor& t, IntSpan src, IntSpan dst);
// Tensor.unfold (a view; UnfoldBackward0).
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
// torch.rot90 (Rot90Backward0).
Tensor rot90(const Tensor& t, int64_t k, IntSpan dims);
// Tensor.repeat (RepeatBackward0) and torch.tile (repeats padded with leading 1s to t's dims).
Tensor repeat(const Tensor& t, IntSpan repeats);
Tensor tile(const Tensor& t, IntSpan reps);
// torch.repeat_interleave with an int or a tensor of repeats (an index_select: IndexSelectBackward0, as
// torch); dim null: over the flattened tensor. Tensor repeats are read on the host.
Tensor repeat_interleave(const Tensor& t, int64_t repeats, const int64_t* dim);
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, const int64_t* dim);
// torch.tensor_split into `sections` parts, or at `indices` (views: SliceBackward0).
std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim);
std::vector<Tensor> tensor_split(const Tensor& t, IntSpan indices, int64_t dim);

}  // namespace glia

namespace glia {

// torch.take: a's elements (flattened; negative indices count from the end) at `index` (int64), in
// index's shape (TakeBackward0).
Tensor take(const Tensor& t, const Tensor& index);
// torch.take_along_dim: gather along dim of t and indices broadcast against each other (GatherBackward0,
// as torch); dim null: over the flattened tensors.
Tensor take_along_dim(const Tensor& t, const Tensor& indices, const int64_t* dim);

}  // namespace glia
