#include "autograd/fn/convnd.h"

#include "autograd/fn/shape.h"
#include "ops/convnd.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia {

namespace {

Tensor sq2(const Tensor& t) { return ops::squeeze(t, Dims{2}, false); }

// conv1d / conv3d and their transposes (torch's node for all convolutions). 1-D runs conv2d's kernels on
// views with a unit height (Note [N-d convolutions]); first derivatives only, as conv2d's.
struct ConvNdBackward : Node {
  SavedTensor x, w;
  Tensor cols;  // 1-D: x's kept im2col (Note [Kept im2col]); internal, never exposed
  ops::ConvGeom g2;
  ops::Conv3dGeom g3;
  int nd = 1;
  bool transposed = false;
  const char* name() const override { return "ConvolutionBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    TensorList r(3);
    const Tensor& gy = grads[0];
    const bool gx = next_edges[0].valid(), gw = next_edges[1].valid();
    const bool gb = next_edges.size() > 2 && next_edges[2].valid();
    Tensor xv = gw ? x.unpack(name()) : Tensor(), wv = w.unpack(name());
    if (nd == 1) {
      Tensor gy4 = ops::unsqueeze(gy, 2), w4 = ops::unsqueeze(wv, 2);
      Tensor x4 = xv.defined() ? ops::unsqueeze(xv, 2) : Tensor();
      if (!transposed) {
        if (gx) r[0] = sq2(ops::conv2d_backward_input(gy4, w4, g2));
        if (gw) r[1] = sq2(ops::conv2d_backward_weight(gy4, x4, g2, cols));
      } else {
        if (gx) r[0] = sq2(ops::conv2d_forward(gy4, w4, Tensor(), g2));
        if (gw) r[1] = sq2(ops::conv2d_backward_weight(x4, gy4, g2));
      }
      if (gb) r[2] = ops::conv_backward_bias(gy4);
    } else {
      if (!transposed) {
        if (gx) r[0] = ops::conv3d_backward_input(gy, wv, g3);
        if (gw) r[1] = ops::conv3d_backward_weight(gy, xv, g3);
      } else {
        if (gx) r[0] = ops::conv3d_forward(gy, wv, Tensor(), g3);
        if (gw) r[1] = ops::conv3d_backward_weight(xv, gy, g3);
      }
      if (gb) {
        int64_t dims[4] = {0, 2, 3, 4};
        r[2] = ops::sum(gy, dims, false);
      }
    }
    return r;
  }
  void release_variables() override {
    x.release();
    w.release();
    cols = Tensor();
  }
};

// Runs f on a batched view of x (unsqueezed when x has `unbatched_dim` dims) and removes the batch dim.
template <class F>
Tensor batched(const Tensor& x, int64_t unbatched_dim, F&& f) {
  if (x.dim() != unbatched_dim) return f(x);
  Tensor y = f(unsqueeze(x, 0));
  return squeeze(y, Dims{0}, false);
}

void record(ConvNdBackward* n, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y) {
  n->x = SavedTensor(x);
  n->w = SavedTensor(w);
  if (bias.defined())
    set_history(n, {&x, &w, &bias}, {&y});
  else
    set_history(n, {&x, &w}, {&y});
}

bool conv_needs_grad(const Tensor& x, const Tensor& w, const Tensor& bias) {
  return bias.defined() ? any_requires_grad({&x, &w, &bias}) : any_requires_grad({&x, &w});
}

void check_batched_dims(const Tensor& x, int64_t batched_dim, const char* op) {
  GLIA_CHECK(x.dim() == batched_dim - 1 || x.dim() == batched_dim, Shape, "Expected ", batched_dim - 1,
             "D (unbatched) or ", batched_dim, "D (batched) input to ", op, ", but got input of size: ", x.shape());
}

struct Im2ColBackward : Node {
  int64_t h = 0, w = 0;
  FoldOptions o;
  const char* name() const override { return "Im2ColBackward0"; }
  TensorList apply(TensorList&& grads) override { return {col2im(grads[0], h, w, o)}; }
};

struct Col2ImBackward : Node {
  FoldOptions o;
  const char* name() const override { return "Col2ImBackward0"; }
  TensorList apply(TensorList&& grads) override { return {im2col(grads[0], o)}; }
};

}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvNdOptions& o) {
  check_batched_dims(x, 3, "conv1d");
  return batched(x, 2, [&](const Tensor& x3) {
    ops::ConvGeom g = ops::conv1d_geom(x3, w, bias, o.stride[0], o.padding[0], o.dilation[0], o.groups, o.padding_mode);
    const bool needs_grad = conv_needs_grad(x3, w, bias);
    Tensor cols;
    Tensor y = sq2(ops::conv2d_forward(ops::unsqueeze(x3, 2), ops::unsqueeze(w, 2), bias, g,
                                       needs_grad && any_requires_grad({&w}) ? &cols : nullptr));
    if (needs_grad) {
      auto n = make_ref<ConvNdBackward>();
      n->cols = std::move(cols);
      n->g2 = g;
      n->nd = 1;
      record(n.get(), x3, w, bias, y);
    }
    return y;
  });
}

Tensor conv_transpose1d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvTransposeNdOptions& o) {
  check_batched_dims(x, 3, "conv_transpose1d");
  return batched(x, 2, [&](const Tensor& x3) {
    ops::ConvGeom g = ops::conv_transpose1d_geom(x3, w, bias, o.stride[0], o.padding[0], o.output_padding[0],
                                                 o.dilation[0], o.groups);
    Tensor y = sq2(ops::conv2d_backward_input(ops::unsqueeze(x3, 2), ops::unsqueeze(w, 2), g, bias));
    if (conv_needs_grad(x3, w, bias)) {
      auto n = make_ref<ConvNdBackward>();
      n->g2 = g;
      n->nd = 1;
      n->transposed = true;
      record(n.get(), x3, w, bias, y);
    }
    return y;
  });
}

Tensor conv3d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvNdOptions& o) {
  check_batched_dims(x, 5, "conv3d");
  return batched(x, 4, [&](const Tensor& x5) {
    ops::Conv3dGeom g = ops::conv3d_geom(x5, w, bias, o.stride, o.padding, o.dilation, o.groups, o.padding_mode);
    Tensor y = ops::conv3d_forward(x5, w, bias, g);
    if (conv_needs_grad(x5, w, bias)) {
      auto n = make_ref<ConvNdBackward>();
      n->g3 = g;
      n->nd = 3;
      record(n.get(), x5, w, bias, y);
    }
    return y;
  });
}

Tensor conv_transpose3d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvTransposeNdOptions& o) {
  check_batched_dims(x, 5, "conv_transpose3d");
  return batched(x, 4, [&](const Tensor& x5) {
    ops::Conv3dGeom g =
        ops::conv_transpose3d_geom(x5, w, bias, o.stride, o.padding, o.output_padding, o.dilation, o.groups);
    Tensor y = ops::conv3d_backward_input(x5, w, g, bias);
    if (conv_needs_grad(x5, w, bias)) {
      auto n = make_ref<ConvNdBackward>();
      n->g3 = g;
      n->nd = 3;
      n->transposed = true;
      record(n.get(), x5, w, bias, y);
    }
    return y;
  });
}

Tensor im2col(const Tensor& x, const FoldOptions& o) {
  ops::ColGeom g = ops::unfold_geom(x, o.kernel_size, o.dilation, o.padding, o.stride);
  const bool unbatched = x.dim() == 3;
  Tensor cols = ops::im2col_nd(unbatched ? ops::unsqueeze(x, 0) : x, g);
  Tensor y = unbatched ? ops::squeeze(cols, Dims{0}, false) : cols;
  if (any_requires_grad({&x})) {
    auto n = make_ref<Im2ColBackward>();
    n->h = g.in[0], n->w = g.in[1];
    n->o = o;
    set_history(n.get(), {&x}, {&y});
  }
  return y;
}

Tensor col2im(const Tensor& cols, int64_t out_h, int64_t out_w, const FoldOptions& o) {
  const int64_t out_size[2] = {out_h, out_w};
  ops::ColGeom g = ops::fold_geom(cols, out_size, o.kernel_size, o.dilation, o.padding, o.stride);
  const bool unbatched = cols.dim() == 2;
  Tensor x = ops::col2im_nd(unbatched ? ops::unsqueeze(cols, 0) : cols, g);
  Tensor y = unbatched ? ops::squeeze(x, Dims{0}, false) : x;
  if (any_requires_grad({&cols})) {
    auto n = make_ref<Col2ImBackward>();
    n->o = o;
    set_history(n.get(), {&cols}, {&y});
  }
  return y;
}

}  // namespace glia
