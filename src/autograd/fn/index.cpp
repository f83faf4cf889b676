#include "autograd/fn/index.h"

#include "autograd/fn/elementwise.h"
#include "autograd/fn/shape.h"
#include "ops/reduce.h"

namespace glia {

namespace {

Tensor as_dtype(const Tensor& g, DType t) { return g.dtype() == t ? g : to_dtype(g, t); }

// The adjoints of index_select, gather and masked_select (index_add / scatter_add / masked_scatter into
// zeros): their backward rules, differentiable in turn (the adjoint of an adjoint is the op itself), so
// create_graph goes through any number of levels.
enum class Adjoint { IndexAdd, ScatterAdd, MaskedScatter };

struct AdjointBackward : Node {
  Adjoint kind = Adjoint::IndexAdd;
  int64_t dim = 0;
  SavedTensor index;  // the mask for MaskedScatter
  const char* name() const override {
    return kind == Adjoint::IndexAdd     ? "IndexAddBackward0"
           : kind == Adjoint::ScatterAdd ? "ScatterAddBackward0"
                                         : "MaskedScatterBackward0";
  }
  TensorList apply(TensorList&& g) override {
    Tensor idx = index.unpack(name());
    if (kind == Adjoint::IndexAdd) return {index_select(g[0], dim, idx)};
    if (kind == Adjoint::ScatterAdd) return {gather(g[0], dim, idx)};
    return {masked_select(g[0], idx)};
  }
  void release_variables() override { index.release(); }
};

Tensor adjoint(Adjoint kind, const Tensor& g, IntSpan shape, int64_t dim, const Tensor& index) {
  Tensor out = zeros(shape, g.dtype(), g.device());
  if (kind == Adjoint::IndexAdd)
    ops::index_add_(out, dim, index, g);
  else if (kind == Adjoint::ScatterAdd)
    ops::scatter_(out, dim, index, g, true);
  else
    ops::masked_scatter_(out, index, g);
  if (any_requires_grad({&g})) {
    auto n = make_ref<AdjointBackward>();
    n->kind = kind;
    n->dim = dim;
    n->index = SavedTensor(index);
    set_history(n.get(), {&g}, {&out});
  }
  return out;
}

// Backward of index_select and gather.
struct IndexGradBackward : Node {
  bool is_gather = false;
  int64_t dim = 0;
  Dims in_shape;
  SavedTensor index;
  const char* name() const override { return is_gather ? "GatherBackward0" : "IndexSelectBackward0"; }
  TensorList apply(TensorList&& g) override {
    return {adjoint(is_gather ? Adjoint::ScatterAdd : Adjoint::IndexAdd, g[0], in_shape, dim, index.unpack(name()))};
  }
  void release_variables() override { index.release(); }
};

struct ScatterBackward : Node {
  bool add = false;
  int64_t dim = 0;
  Dims src_shape;
  SavedTensor index;
  const char* name() const override { return add ? "ScatterAddBackward0" : "ScatterBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor idx = index.unpack(name());
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = add ? g[0] : scatter_value(g[0], dim, idx, Scalar::from_double(0.0));
    if (next_edges[1].valid()) {
      Tensor gs = gather(g[0], dim, idx);
      if (gs.shape() != src_shape) {
        // src larger than index: its other elements were not used (zeros after the gathered block).
        Dims p;
        for (int64_t d = gs.dim() - 1; d >= 0; --d) {
          p.push_back(0);
          p.push_back(src_shape[d] - gs.shape()[d]);
        }
        gs = pad(gs, p, PadMode::Constant, 0.0);
      }
      r[1] = gs;
    }
    return r;
  }
  void release_variables() override { index.release(); }
};

struct ScatterValueBackward : Node {
  int64_t dim = 0;
  SavedTensor index;
  const char* name() const override { return "ScatterBackward1"; }
  TensorList apply(TensorList&& g) override {
    return {scatter_value(g[0], dim, index.unpack(name()), Scalar::from_double(0.0))};
  }
  void release_variables() override { index.release(); }
};

struct MaskedSelectBackward : Node {
  Dims in_shape, full_shape;
  SavedTensor mask;
  const char* name() const override { return "MaskedSelectBackward0"; }
  TensorList apply(TensorList&& g) override {
    return {sum_to(adjoint(Adjoint::MaskedScatter, g[0], full_shape, 0, mask.unpack(name())), in_shape)};
  }
  void release_variables() override { mask.release(); }
};

struct CatBackward : Node {
  int64_t dim = 0;
  bool stack = false;
  std::vector<Dims> shapes;
  std::vector<DType> dtypes;
  const char* name() const override { return stack ? "StackBackward0" : "CatBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(shapes.size());
    int64_t off = 0;
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (stack) {
        if (next_edges[i].valid()) r[i] = as_dtype(select(g[0], dim, static_cast<int64_t>(i)), dtypes[i]);
        continue;
      }
      if (shapes[i].size() == 1 && shapes[i][0] == 0) {  // legacy empty input: skipped by cat
        if (next_edges[i].valid()) r[i] = zeros(shapes[i], dtypes[i], g[0].device());
        continue;
      }
      int64_t n = shapes[i][dim];
      if (next_edges[i].valid()) r[i] = as_dtype(narrow(g[0], dim, off, n), dtypes[i]);
      off += n;
    }
    return r;
  }
};

struct SplitBackward : Node {
  int64_t dim = 0;
  bool with_sizes = false;
  DType dtype = DType::Float32;
  const char* name() const override { return with_sizes ? "SplitWithSizesBackward0" : "SplitBackward0"; }
  TensorList apply(TensorList&& g) override {
    std::vector<Tensor> parts;
    for (size_t k = 0; k < g.size(); ++k) parts.push_back(g[k].defined() ? g[k] : zeros(output_shapes[k], dtype, output_device));
    return {cat(parts, dim)};
  }
};

struct ConstantPadBackward : Node {
  Dims neg_pad, in_shape;
  const char* name() const override { return "ConstantPadNdBackward0"; }
  TensorList apply(TensorList&& g) override {
    for (int64_t s : in_shape)
      if (s == 0) return {zeros(in_shape, g[0].dtype(), g[0].device())};
    return {glia::pad(g[0], neg_pad, PadMode::Constant, 0.0)};
  }
};

// The gradient of a reflect / replicate / circular pad (sums onto the input positions); differentiable: its
// own gradient is the pad again.
struct PadBackwardBackward : Node {
  Dims pads;
  PadMode mode = PadMode::Reflect;
  // torch: ReflectionPad1DBackwardBackward0 etc.; one name for all here.
  const char* name() const override { return "PadBackwardBackward0"; }
  TensorList apply(TensorList&& g) override { return {glia::pad(g[0], pads, mode, 0.0)}; }
};

Tensor differentiable_pad_backward(const Tensor& grad, IntSpan in_shape, IntSpan pads, PadMode mode) {
  Tensor out = ops::pad_backward(grad, in_shape, pads, mode);
  if (any_requires_grad({&grad})) {
    auto n = make_ref<PadBackwardBackward>();
    n->pads = Dims(pads);
    n->mode = mode;
    set_history(n.get(), {&grad}, {&out});
  }
  return out;
}

struct PadBackward : Node {
  Dims pads, in_shape;
  PadMode mode = PadMode::Reflect;
  const char* name() const override {
    static const char* names[2][3] = {
        {"ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0"},
        {"ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0"}};
    if (mode == PadMode::Circular) return "CopySlices";
    return names[mode == PadMode::Reflect ? 0 : 1][pads.size() / 2 - 1];
  }
  TensorList apply(TensorList&& g) override { return {differentiable_pad_backward(g[0], in_shape, pads, mode)}; }
};

std::vector<Tensor> record_split(const Tensor& t, std::vector<Tensor> outs, int64_t dim, bool with_sizes) {
  if (any_requires_grad({&t})) {
    auto n = make_ref<SplitBackward>();
    n->dim = ops::wrap_dim(dim, t.dim());
    n->with_sizes = with_sizes;
    n->dtype = t.dtype();
    set_history(n.get(), TensorList{t}, outs);
  }
  return outs;
}

Tensor record_cat(const std::vector<Tensor>& ts, Tensor out, int64_t dim, bool stack) {
  if (any_requires_grad(ts)) {
    auto n = make_ref<CatBackward>();
    n->dim = dim;
    n->stack = stack;
    for (const Tensor& t : ts) {
      n->shapes.push_back(t.shape());
      n->dtypes.push_back(t.dtype());
    }
    set_history(n.get(), ts, TensorList{out});
  }
  return out;
}

}  // namespace

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  Tensor out = ops::index_select(t, dim, index);
  if (any_requires_grad({&t})) {
    auto n = make_ref<IndexGradBackward>();
    n->dim = dim;
    n->in_shape = t.shape();
    n->index = SavedTensor(index);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  Tensor out = ops::gather(t, dim, index);
  if (any_requires_grad({&t})) {
    auto n = make_ref<IndexGradBackward>();
    n->is_gather = true;
    n->dim = dim;
    n->in_shape = t.shape();
    n->index = SavedTensor(index);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

static Tensor scatter_impl(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  Tensor out = ops::scatter(t, dim, index, src, add);
  if (any_requires_grad({&t, &src})) {
    auto n = make_ref<ScatterBackward>();
    n->add = add;
    n->dim = dim;
    n->src_shape = src.shape();
    n->index = SavedTensor(index);
    set_history(n.get(), {&t, &src}, {&out});
  }
  return out;
}

Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl(t, dim, index, src, false);
}
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl(t, dim, index, src, true);
}

Tensor scatter_value(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = ops::scatter_value(t, dim, index, value);
  if (any_requires_grad({&t})) {
    auto n = make_ref<ScatterValueBackward>();
    n->dim = dim;
    n->index = SavedTensor(index);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor masked_select(const Tensor& t, const Tensor& mask) {
  Tensor out = ops::masked_select(t, mask);
  if (any_requires_grad({&t})) {
    auto n = make_ref<MaskedSelectBackward>();
    n->in_shape = t.shape();
    n->full_shape = ops::broadcast_shapes("masked_select", mask.shape(), t.shape());
    n->mask = SavedTensor(mask);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  Tensor out = ops::cat(ts, dim);
  if (!any_requires_grad(ts)) return out;
  int64_t wdim = 0;
  for (const Tensor& t : ts)
    if (!(t.dim() == 1 && t.numel() == 0)) {
      wdim = ops::wrap_dim(dim, t.dim());
      break;
    }
  return record_cat(ts, out, wdim, false);
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  Tensor out = ops::stack(ts, dim);
  if (!any_requires_grad(ts)) return out;
  return record_cat(ts, out, ops::wrap_dim(dim, ts[0].dim() + 1), true);
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  return record_split(t, ops::split(t, split_size, dim), dim, false);
}
std::vector<Tensor> split_with_sizes(const Tensor& t, IntSpan sizes, int64_t dim) {
  return record_split(t, ops::split_with_sizes(t, sizes, dim), dim, true);
}
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  std::vector<Tensor> outs = ops::chunk(t, chunks, dim);
  int64_t dim_size = t.shape()[ops::wrap_dim(dim, t.dim())];
  return record_split(t, std::move(outs), dim, dim_size == 0);
}

Tensor pad(const Tensor& t, IntSpan p, PadMode mode, double value) {
  Tensor out = ops::pad(t, p, mode, value);
  if (any_requires_grad({&t})) {
    if (mode == PadMode::Constant) {
      auto n = make_ref<ConstantPadBackward>();
      for (int64_t v : p) n->neg_pad.push_back(-v);
      n->in_shape = t.shape();
      set_history(n.get(), {&t}, {&out});
    } else {
      auto n = make_ref<PadBackward>();
      n->pads = Dims(p);
      n->in_shape = t.shape();
      n->mode = mode;
      set_history(n.get(), {&t}, {&out});
    }
  }
  return out;
}

}  // namespace glia
