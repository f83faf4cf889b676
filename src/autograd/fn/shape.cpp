#include "autograd/fn/shape.h"

#include "autograd/fn/elementwise.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia {

namespace {

// Gradient of any reshaping view: reshape back to the input's shape.
struct ReshapeBackward : Node {
  Dims in_shape;
  const char* nm;
  const char* name() const override { return nm; }
  TensorList apply(TensorList&& g) override { return {reshape(g[0], in_shape)}; }
};

struct PermuteBackward : Node {
  Dims inverse;
  const char* name() const override { return "PermuteBackward0"; }
  TensorList apply(TensorList&& g) override { return {permute(g[0], inverse)}; }
};

struct TransposeBackward : Node {
  int64_t d0, d1;
  const char* name() const override { return "TransposeBackward0"; }
  TensorList apply(TensorList&& g) override { return {transpose(g[0], d0, d1)}; }
};

struct ExpandBackward : Node {
  Dims in_shape;
  const char* name() const override { return "ExpandBackward0"; }
  TensorList apply(TensorList&& g) override { return {sum_to(g[0], in_shape)}; }
};

struct CloneBackward : Node {
  const char* name() const override { return "CloneBackward0"; }
  TensorList apply(TensorList&& g) override { return {g[0]}; }
};

Tensor record_reshape(const Tensor& t, Tensor out, const char* name) {
  if (any_requires_grad({&t})) {
    auto n = make_ref<ReshapeBackward>();
    n->in_shape = t.shape();
    n->nm = name;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace

Tensor view(const Tensor& t, IntSpan shape) { return record_reshape(t, ops::view(t, shape), "ViewBackward0"); }
Tensor reshape(const Tensor& t, IntSpan shape) {
  return record_reshape(t, ops::reshape(t, shape), "ReshapeAliasBackward0");
}
Tensor unsqueeze(const Tensor& t, int64_t dim) {
  return record_reshape(t, ops::unsqueeze(t, dim), "UnsqueezeBackward0");
}
Tensor squeeze(const Tensor& t, IntSpan dims, bool all_dims) {
  return record_reshape(t, ops::squeeze(t, dims, all_dims), all_dims ? "SqueezeBackward0" : "SqueezeBackward1");
}
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  return record_reshape(t, ops::flatten(t, start_dim, end_dim), "ViewBackward0");
}

Tensor permute(const Tensor& t, IntSpan dims) {
  Tensor out = ops::permute(t, dims);
  if (any_requires_grad({&t})) {
    auto n = make_ref<PermuteBackward>();
    n->inverse.assign(dims.size(), 0);
    for (size_t i = 0; i < dims.size(); ++i) n->inverse[ops::wrap_dim(dims[i], t.dim())] = static_cast<int64_t>(i);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  Tensor out = ops::transpose(t, d0, d1);
  if (any_requires_grad({&t})) {
    auto n = make_ref<TransposeBackward>();
    n->d0 = d0;
    n->d1 = d1;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor expand(const Tensor& t, IntSpan shape) {
  Tensor out = ops::expand(t, shape);
  if (any_requires_grad({&t})) {
    auto n = make_ref<ExpandBackward>();
    n->in_shape = t.shape();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor clone_with_grad(const Tensor& t) {
  Tensor out = clone(t);
  if (any_requires_grad({&t})) {
    auto n = make_ref<CloneBackward>();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace glia
