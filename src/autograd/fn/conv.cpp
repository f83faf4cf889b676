#include "autograd/fn/conv.h"

#include "autograd/fn/shape.h"
#include "ops/conv.h"
#include "ops/linalg.h"
#include "ops/shape.h"

namespace glia {

namespace {

// Convolution gradients run fused kernels: first derivatives only.
struct ConvolutionBackward : Node {
  SavedTensor x, w;
  Tensor cols;  // x's im2col matrices when forward kept them (Note [Kept im2col]); internal, never exposed
  ops::ConvGeom g;
  bool transposed = false;
  const char* name() const override { return "ConvolutionBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    TensorList r(3);
    const Tensor& gy = grads[0];
    Tensor xv = x.unpack(name()), wv = w.unpack(name());
    if (!transposed) {
      if (next_edges[0].valid()) r[0] = ops::conv2d_backward_input(gy, wv, g);
      if (next_edges[1].valid()) r[1] = ops::conv2d_backward_weight(gy, xv, g, cols);
    } else {
      if (next_edges[0].valid()) r[0] = ops::conv2d_forward(gy, wv, Tensor(), g);
      if (next_edges[1].valid()) r[1] = ops::conv2d_backward_weight(xv, gy, g);
    }
    if (next_edges.size() > 2 && next_edges[2].valid()) r[2] = ops::conv_backward_bias(gy);
    return r;
  }
  void release_variables() override {
    x.release();
    w.release();
    cols = Tensor();
  }
};

struct MaxPoolBackward : Node {
  SavedTensor indices;
  ops::PoolGeom g;
  DType dtype;
  const char* name() const override { return "MaxPool2DWithIndicesBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    return {ops::max_pool2d_backward(grads[0], indices.unpack(name()), g, dtype)};
  }
  void release_variables() override { indices.release(); }
};

struct AvgPoolBackward : Node {
  ops::PoolGeom g;
  bool count_include_pad;
  int64_t divisor_override;
  DType dtype;
  const char* name() const override { return "AvgPool2DBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    return {ops::avg_pool2d_backward(grads[0], g, count_include_pad, divisor_override, dtype)};
  }
};

struct AdaptiveAvgPoolBackward : Node {
  int64_t H, W;
  DType dtype;
  const char* name() const override { return "AdaptiveAvgPool2DBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override { return {ops::adaptive_avg_pool2d_backward(grads[0], H, W, dtype)}; }
};

// Runs f on a batched view of x (unsqueezed when x is 3-D) and removes the batch dim again.
template <class F>
Tensor batched(const Tensor& x, F&& f) {
  if (x.dim() != 3) return f(x);
  Tensor y = f(unsqueeze(x, 0));
  return squeeze(y, Dims{0}, false);
}

Tensor conv_common(const Tensor& x4, const Tensor& w, const Tensor& bias, const ops::ConvGeom& g, bool transposed) {
  bool with_bias = bias.defined();
  const bool needs_grad = with_bias ? any_requires_grad({&x4, &w, &bias}) : any_requires_grad({&x4, &w});
  Tensor y, cols;
  if (!transposed) {
    // Keep x's im2col for the weight gradient when there will be one (Note [Kept im2col]).
    y = ops::conv2d_forward(x4, w, bias, g, needs_grad && any_requires_grad({&w}) ? &cols : nullptr);
  } else {
    y = ops::conv2d_backward_input(x4, w, g, bias);
  }
  if (needs_grad) {
    auto n = make_ref<ConvolutionBackward>();
    n->cols = std::move(cols);
    n->x = SavedTensor(x4);
    n->w = SavedTensor(w);
    n->g = g;
    n->transposed = transposed;
    if (with_bias)
      set_history(n.get(), {&x4, &w, &bias}, {&y});
    else
      set_history(n.get(), {&x4, &w}, {&y});
  }
  return y;
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dOptions& o) {
  return batched(x, [&](const Tensor& x4) {
    ops::ConvGeom g = ops::conv2d_geom(x4, w, bias, o.stride, o.padding, o.dilation, o.groups, o.padding_mode);
    return conv_common(x4, w, bias, g, false);
  });
}

Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvTranspose2dOptions& o) {
  return batched(x, [&](const Tensor& x4) {
    ops::ConvGeom g =
        ops::conv_transpose2d_geom(x4, w, bias, o.stride, o.padding, o.output_padding, o.dilation, o.groups);
    return conv_common(x4, w, bias, g, true);
  });
}

Tensor max_pool2d(const Tensor& x, const MaxPool2dOptions& o, Tensor* indices) {
  Tensor idx;
  Tensor y = batched(x, [&](const Tensor& x4) {
    ops::PoolGeom g = ops::pool2d_geom(x4, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode, true);
    Tensor out = ops::max_pool2d_forward(x4, g, &idx);
    if (any_requires_grad({&x4})) {
      auto n = make_ref<MaxPoolBackward>();
      n->indices = SavedTensor(idx);
      n->g = g;
      n->dtype = x4.dtype();
      set_history(n.get(), {&x4}, {&out});
    }
    return out;
  });
  if (indices) *indices = x.dim() == 3 ? ops::squeeze(idx, Dims{0}, false) : idx;
  return y;
}

Tensor avg_pool2d(const Tensor& x, const AvgPool2dOptions& o) {
  return batched(x, [&](const Tensor& x4) {
    int64_t dil[2] = {1, 1};
    ops::PoolGeom g = ops::pool2d_geom(x4, o.kernel_size, o.stride, o.padding, dil, o.ceil_mode, false);
    Tensor out = ops::avg_pool2d_forward(x4, g, o.count_include_pad, o.divisor_override);
    if (any_requires_grad({&x4})) {
      auto n = make_ref<AvgPoolBackward>();
      n->g = g;
      n->count_include_pad = o.count_include_pad;
      n->divisor_override = o.divisor_override;
      n->dtype = x4.dtype();
      set_history(n.get(), {&x4}, {&out});
    }
    return out;
  });
}

Tensor adaptive_avg_pool2d(const Tensor& x, int64_t out_h, int64_t out_w) {
  GLIA_CHECK(x.dim() >= 3, Shape, "Input dimension should be at least 3");
  GLIA_CHECK(x.dim() == 3 || x.dim() == 4, Shape, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
             x.shape());
  for (int64_t d = x.dim() == 4 ? 1 : 0; d < x.dim(); ++d)
    GLIA_CHECK(x.size(d) > 0, Shape,
               "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
               "sizes ",
               x.shape(), " with dimension ", d, " being empty");
  GLIA_CHECK(out_h >= 0 && out_w >= 0, InvalidArgument,
             "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {", out_h,
             ", ", out_w, "}");
  return batched(x, [&](const Tensor& x4) {
    Tensor out = ops::adaptive_avg_pool2d_forward(x4, out_h, out_w);
    if (any_requires_grad({&x4})) {
      auto n = make_ref<AdaptiveAvgPoolBackward>();
      n->H = x4.size(2);
      n->W = x4.size(3);
      n->dtype = x4.dtype();
      set_history(n.get(), {&x4}, {&out});
    }
    return out;
  });
}

}  // namespace glia
