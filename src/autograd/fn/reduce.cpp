#include "autograd/fn/reduce.h"

#include "ops/reduce.h"

namespace glia {

namespace {

struct SumBackward : Node {
  Dims in_shape;
  SmallVector<bool, 8> mask;
  bool keepdim;
  DType in_dtype;
  const char* name() const override { return "SumBackward1"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = expand_reduced(g[0], in_shape, mask, keepdim);
    return {r.dtype() == in_dtype ? r : to_dtype(r, in_dtype)};
  }
};

// Backward of expand_reduced: sum over the expanded dims again.
struct ExpandReducedBackward : Node {
  SmallVector<bool, 8> mask;
  bool keepdim;
  const char* name() const override { return "ExpandBackward0"; }
  TensorList apply(TensorList&& g) override {
    Dims dims;
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) dims.push_back(static_cast<int64_t>(d));
    return {sum(g[0], dims, keepdim)};
  }
};

}  // namespace

Tensor sum(const Tensor& t, IntSpan dims, bool keepdim, std::optional<DType> dtype) {
  Tensor out = ops::sum(t, dims, keepdim, dtype);
  if (any_requires_grad({&t})) {
    auto n = make_ref<SumBackward>();
    n->in_shape = t.shape();
    n->mask = ops::reduce_mask("sum", dims, t.dim());
    n->keepdim = keepdim;
    n->in_dtype = t.dtype();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor expand_reduced(const Tensor& t, IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim) {
  // View with the reduced dims as size 1 (stride 0), then expand.
  Dims st(shape.size(), 0);
  int64_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (mask[d]) {
      if (keepdim) ++k;
      continue;
    }
    st[d] = t.strides()[k++];
  }
  Tensor out = make_view(t, shape, st, t.offset());
  if (any_requires_grad({&t})) {
    auto n = make_ref<ExpandReducedBackward>();
    n->mask = mask;
    n->keepdim = keepdim;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace glia
