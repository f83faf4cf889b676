#include "autograd/fn/shape.h"

#include "autograd/fn/elementwise.h"
#include "core/stream.h"
#include "ops/index.h"
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

// Also torch's PinMemoryBackward0: the gradient passes unchanged.
struct CloneBackward : Node {
  const char* nm = "CloneBackward0";
  const char* name() const override { return nm; }
  TensorList apply(TensorList&& g) override { return {g[0]}; }
};

// torch's ToCopyBackward0: the gradient goes back to the input's dtype, through the same
// differentiable conversion (so create_graph works).
struct ToCopyBackward : Node {
  DType in_dtype = DType::Float32;
  Device in_device;
  const char* name() const override { return "ToCopyBackward0"; }
  TensorList apply(TensorList&& g) override { return {to_with_grad(g[0], in_device, in_dtype)}; }
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

// The gradient of a slice or select: zeros of the input's shape with `g` written
// where the view was taken. Differentiable: its backward takes the same view again.
struct Embed {
  bool is_select = false;
  int64_t dim = 0, start = 0, end = 0, step = 1;
  Tensor take(const Tensor& t) const {
    return is_select ? ops::select(t, dim, start) : ops::slice(t, dim, start, end, step);
  }
};

Tensor embed(const Tensor& g, IntSpan in_shape, const Embed& e);

struct SliceBackward : Node {
  Dims in_shape;
  Embed e;
  const char* name() const override { return e.is_select ? "SelectBackward0" : "SliceBackward0"; }
  TensorList apply(TensorList&& g) override { return {embed(g[0], in_shape, e)}; }
};

struct EmbedBackward : Node {
  Embed e;
  const char* name() const override { return e.is_select ? "SelectBackwardBackward0" : "SliceBackwardBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor gg = g[0];
    return {e.is_select ? select(gg, e.dim, e.start) : slice(gg, e.dim, e.start, e.end, e.step)};
  }
};

Tensor embed(const Tensor& g, IntSpan in_shape, const Embed& e) {
  Tensor out = zeros(in_shape, g.dtype(), g.device());
  ops::copy_strided(e.take(out), g);
  if (any_requires_grad({&g})) {
    auto n = make_ref<EmbedBackward>();
    n->e = e;
    set_history(n.get(), {&g}, {&out});
  }
  return out;
}

Tensor record_slice(const Tensor& t, Tensor out, const Embed& e) {
  if (any_requires_grad({&t})) {
    auto n = make_ref<SliceBackward>();
    n->in_shape = t.shape();
    n->e = e;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace

Tensor unflatten(const Tensor& t, int64_t dim, IntSpan sizes) {
  return record_reshape(t, ops::unflatten(t, dim, sizes), "ViewBackward0");
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Tensor out = ops::narrow(t, dim, start, length);
  // ops::narrow validated: dim and start are in range here.
  Embed e;
  e.dim = ops::wrap_dim(dim, t.dim());
  int64_t cur = t.shape()[e.dim];
  e.start = start < 0 ? start + cur : start;
  e.end = e.start + length;
  return record_slice(t, out, e);
}

Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Tensor out = ops::slice(t, dim, start, end, step);
  Embed e;
  e.dim = dim;
  e.start = start;
  e.end = end;
  e.step = step;
  return record_slice(t, out, e);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  Tensor out = ops::select(t, dim, index);
  Embed e;
  e.is_select = true;
  e.dim = dim;
  e.start = index;
  return record_slice(t, out, e);
}

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

Tensor to_dtype_with_grad(const Tensor& t, DType dtype) { return to_with_grad(t, t.device(), dtype); }

Tensor to_with_grad(const Tensor& t, Device device, DType dtype, bool non_blocking) {
  if (t.dtype() == dtype && t.device() == device) return t;
  Tensor out;
  if (!non_blocking) {
    // Convert on the host side of a transfer (a device needs no conversion kernel for it).
    out = t.device().is_cpu() ? to_device(to_dtype(t, dtype), device) : to_dtype(to_device(t, device), dtype);
  } else {
    // One copy_into, which converts on the source device where it has a kernel and otherwise blocks
    // (Note [Non-blocking copies]); from a device to the CPU into pinned memory, as torch's _to_copy.
    out = device.is_cpu() && !t.device().is_cpu() ? empty_pinned(t.shape(), dtype, t.device().type, "to")
                                                  : empty(t.shape(), dtype, device);
    copy_into(out, t, true);
  }
  // Only floating results carry gradients (x.long() of a leaf that requires grad does not).
  if (is_floating(dtype) && any_requires_grad({&t})) {
    auto n = make_ref<ToCopyBackward>();
    n->in_dtype = t.dtype();
    n->in_device = t.device();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor pin_memory_with_grad(const Tensor& t, DeviceType backend, const char* what) {
  Tensor out = pin_memory(t, backend, what);
  if (!out.is_same(t) && any_requires_grad({&t})) {
    auto n = make_ref<CloneBackward>();
    n->nm = "PinMemoryBackward0";
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor contiguous_with_grad(const Tensor& t) { return t.is_contiguous() ? t : clone_with_grad(t); }

}  // namespace glia
