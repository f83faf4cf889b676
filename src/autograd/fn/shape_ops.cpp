#include "autograd/fn/shape_ops.h"

#include "autograd/fn/shape.h"
#include "ops/reduce.h"
#include "ops/shape_ops.h"

namespace glia {

namespace {

Tensor diagonal_backward(const Tensor& g, IntSpan in_shape, int64_t offset, int64_t dim1, int64_t dim2);

struct TrilBackward : Node {
  int64_t diagonal = 0;
  bool upper = false;
  const char* name() const override { return upper ? "TriuBackward0" : "TrilBackward0"; }
  TensorList apply(TensorList&& g) override { return {upper ? triu(g[0], diagonal) : tril(g[0], diagonal)}; }
};

// The diagonal's geometry, dims wrapped against the input.
struct Diag {
  Dims in_shape;
  int64_t offset = 0, dim1 = 0, dim2 = 1;
};

struct DiagonalBackward : Node {
  Diag d;
  const char* name() const override { return "DiagonalBackward0"; }
  TensorList apply(TensorList&& g) override { return {diagonal_backward(g[0], d.in_shape, d.offset, d.dim1, d.dim2)}; }
};

struct DiagonalBackwardBackward : Node {
  Diag d;
  const char* name() const override { return "DiagonalBackwardBackward0"; }
  TensorList apply(TensorList&& g) override { return {diagonal(g[0], d.offset, d.dim1, d.dim2)}; }
};

// Zeros of in_shape with g on the diagonal, differentiable (its backward takes the diagonal again).
Tensor diagonal_backward(const Tensor& g, IntSpan in_shape, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ops::diagonal_scatter_zeros(g, in_shape, offset, dim1, dim2);
  if (any_requires_grad({&g})) {
    auto n = make_ref<DiagonalBackwardBackward>();
    n->d = Diag{Dims(in_shape), offset, dim1, dim2};
    set_history(n.get(), {&g}, {&out});
  }
  return out;
}

struct DiagBackward : Node {
  Dims in_shape;
  int64_t k = 0;
  const char* name() const override { return "DiagBackward0"; }
  TensorList apply(TensorList&& g) override {
    if (in_shape.size() == 1) return {diagonal(g[0], k, 0, 1)};
    return {diagonal_backward(g[0], in_shape, k, 0, 1)};
  }
};

struct DiagEmbedBackward : Node {
  int64_t offset = 0, dim1 = 0, dim2 = 1;
  const char* name() const override { return "DiagEmbedBackward0"; }
  TensorList apply(TensorList&& g) override { return {diagonal(g[0], offset, dim1, dim2)}; }
};

struct TraceBackward : Node {
  Dims in_shape;
  const char* name() const override { return "TraceBackward0"; }
  TensorList apply(TensorList&& g) override {
    const int64_t n[] = {std::min(in_shape[0], in_shape[1])};
    return {diagonal_backward(expand(g[0], n), in_shape, 0, 0, 1)};
  }
};

struct FlipBackward : Node {
  Dims dims;
  const char* name() const override { return "FlipBackward0"; }
  TensorList apply(TensorList&& g) override { return {flip(g[0], dims)}; }
};

struct RollBackward : Node {
  Dims shifts, dims;
  const char* name() const override { return "RollBackward0"; }
  TensorList apply(TensorList&& g) override {
    Dims back = shifts;
    for (int64_t& s : back) s = -s;
    return {roll(g[0], back, dims)};
  }
};

Tensor tri(const Tensor& t, int64_t diagonal, bool upper) {
  Tensor out = ops::tril(t, diagonal, upper);
  if (any_requires_grad({&t})) {
    auto n = make_ref<TrilBackward>();
    n->diagonal = diagonal;
    n->upper = upper;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal) { return tri(t, diagonal, false); }
Tensor triu(const Tensor& t, int64_t diagonal) { return tri(t, diagonal, true); }

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ops::diagonal(t, offset, dim1, dim2);  // checks the dims
  if (any_requires_grad({&t})) {
    auto n = make_ref<DiagonalBackward>();
    n->d = Diag{t.shape(), offset, ops::wrap_dim(dim1, t.dim()), ops::wrap_dim(dim2, t.dim())};
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor diag(const Tensor& t, int64_t k) {
  Tensor out = ops::diag(t, k);
  if (any_requires_grad({&t})) {
    auto n = make_ref<DiagBackward>();
    n->in_shape = t.shape();
    n->k = k;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ops::diag_embed(t, offset, dim1, dim2);
  if (any_requires_grad({&t})) {
    auto n = make_ref<DiagEmbedBackward>();
    ops::diag_embed_dims(t.dim(), dim1, dim2);
    n->offset = offset;
    n->dim1 = dim1;
    n->dim2 = dim2;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor trace(const Tensor& t) {
  Tensor out = ops::trace(t);
  if (any_requires_grad({&t})) {
    auto n = make_ref<TraceBackward>();
    n->in_shape = t.shape();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor flip(const Tensor& t, IntSpan dims) {
  Tensor out = ops::flip(t, dims);
  if (any_requires_grad({&t})) {
    auto n = make_ref<FlipBackward>();
    n->dims = Dims(dims);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor roll(const Tensor& t, IntSpan shifts, IntSpan dims) {
  Tensor out = ops::roll(t, shifts, dims);
  if (any_requires_grad({&t})) {
    auto n = make_ref<RollBackward>();
    n->shifts = Dims(shifts);
    n->dims = Dims(dims);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace glia
