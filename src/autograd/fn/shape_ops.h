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
