#include "autograd/fn/pool.h"

#include "autograd/fn/conv.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "core/checked.h"
#include "ops/conv.h"
#include "ops/pool3d.h"
#include "ops/shape.h"

namespace glia {

namespace {

// The pool gradients run fused kernels: first derivatives only. A 4-D (unbatched) x is pooled as
// [1, C, T, H, W]; the nodes take and give x's own shapes (torch records no squeeze there).
struct MaxPool3dBackward : Node {
  SavedTensor indices;  // 5-D
  ops::Pool3dGeom g;
  DType dtype;
  Dims x_shape;
  const char* name() const override { return "MaxPool3DWithIndicesBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    const int64_t out5[5] = {g.N, g.C, g.To, g.Ho, g.Wo};
    Tensor gx = ops::max_pool3d_backward(ops::reshape(grads[0], out5), indices.unpack(name()), g, dtype);
    return {ops::reshape(gx, x_shape)};
  }
  void release_variables() override { indices.release(); }
};

struct AvgPool3dBackward : Node {
  ops::Pool3dGeom g;
  bool count_include_pad;
  int64_t divisor_override;
  DType dtype;
  Dims x_shape;
  const char* name() const override { return "AvgPool3DBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    const int64_t out5[5] = {g.N, g.C, g.To, g.Ho, g.Wo};
    Tensor gx = ops::avg_pool3d_backward(ops::reshape(grads[0], out5), g, count_include_pad, divisor_override, dtype);
    return {ops::reshape(gx, x_shape)};
  }
};

struct AdaptiveAvgPool3dBackward : Node {
  Dims x_shape, out5;
  DType dtype;
  const char* name() const override { return "AdaptiveAvgPool3DBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    const int64_t n = static_cast<int64_t>(x_shape.size());
    Tensor gx = ops::adaptive_avg_pool3d_backward(ops::reshape(grads[0], out5), x_shape[n - 3], x_shape[n - 2],
                                                  x_shape[n - 1], dtype);
    return {ops::reshape(gx, x_shape)};
  }
};

// x as [N, C, T, H, W] (a view with N = 1 for a 4-D x).
Tensor as5d(const Tensor& x) { return x.dim() == 5 ? x : ops::unsqueeze(x, 0); }
// y [N, C, ...] as x's batching: y itself for a 5-D x, else without its batch dim.
Tensor like_input(const Tensor& x, const Tensor& y5) { return x.dim() == 5 ? y5 : ops::squeeze(y5, Dims{0}, false); }

// torch's max_pool1d: "Expected 2D or 3D (batch mode) tensor ..." with a non-empty non-batch part.
void check_1d_input(const Tensor& x, const char* op) {
  const bool ok =
      (x.dim() == 2 && x.size(0) != 0 && x.size(1) != 0) || (x.dim() == 3 && x.size(1) != 0 && x.size(2) != 0);
  GLIA_CHECK(ok, Shape, op,
             ": Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:", x.shape());
}

// torch's checkDimRange for the 1-D functions that go through the 2-D ones.
void check_2_to_3_dims(const Tensor& x, const char* op) {
  GLIA_CHECK(x.dim() == 2 || x.dim() == 3, Shape, "Expected 2 to 3 dimensions, but got ", x.dim(),
             "-dimensional tensor for argument #1 'self' (while checking arguments for ", op, ")");
}

}  // namespace

Tensor max_pool1d(const Tensor& x, const MaxPool1dOptions& o, Tensor* indices) {
  check_1d_input(x, "max_pool1d");
  const int64_t stride = o.stride == 0 ? o.kernel_size : o.stride;
  if (!indices) {
    // torch's max_pool1d (check_max_pool1d): its own messages; without a gradient to record, an empty
    // output is a result, not an error.
    GLIA_CHECK(o.kernel_size > 0, InvalidArgument, "max_pool1d() kernel_size must be greater than zero, but got ",
               o.kernel_size);
    GLIA_CHECK(stride > 0, InvalidArgument, "max_pool1d() stride must be greater than zero, but got ", stride);
    GLIA_CHECK(o.padding >= 0, InvalidArgument, "max_pool1d() padding must be non-negative, but got ", o.padding);
    GLIA_CHECK(o.padding <= o.kernel_size / 2, InvalidArgument,
               "max_pool1d() padding should be at most half of kernel size, but got padding=", o.padding,
               " and kernel_size=", o.kernel_size);
    GLIA_CHECK(o.dilation > 0, InvalidArgument, "max_pool1d() dilation must be greater than zero, but got ",
               o.dilation);
    if (!any_requires_grad({&x})) {
      // The output length as torch's pooling_output_shape (values bounded: checked sizes below).
      const Checked span = Checked(o.dilation, "max_pool1d") * (o.kernel_size - 1);
      const Checked num =
          Checked(x.size(-1), "max_pool1d") + Checked(2) * o.padding - span - 1 + (o.ceil_mode ? stride - 1 : 0);
      int64_t ow = (floor_div(num, stride) + 1).value();
      if (o.ceil_mode && ((Checked(ow) - 1) * stride).value() >= x.size(-1) + o.padding) --ow;
      GLIA_CHECK(ow >= 0, Shape, "max_pool1d() Invalid computed output size: ", ow);
      if (ow == 0) {
        if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64 && x.dtype() != DType::BFloat16)
          ops::not_implemented_for("max_pool1d_impl", x.dtype());
        Dims shape = x.shape();
        shape.back() = 0;
        return empty(shape, x.dtype(), x.device());
      }
      if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64 && x.dtype() != DType::BFloat16)
        ops::not_implemented_for("max_pool1d_impl", x.dtype());
    }
  }
  MaxPool2dOptions o2;
  o2.kernel_size[1] = o.kernel_size;
  o2.stride[0] = 1, o2.stride[1] = stride;
  o2.padding[1] = o.padding;
  o2.dilation[1] = o.dilation;
  o2.ceil_mode = o.ceil_mode;
  Tensor idx;
  Tensor y = squeeze(max_pool2d(unsqueeze(x, -2), o2, indices ? &idx : nullptr), Dims{-2}, false);
  if (indices) *indices = ops::squeeze(idx, Dims{-2}, false);
  return y;
}

Tensor avg_pool1d(const Tensor& x, const AvgPool1dOptions& o) {
  check_2_to_3_dims(x, "avg_pool1d");
  AvgPool2dOptions o2;
  o2.kernel_size[1] = o.kernel_size;
  o2.stride[0] = 1, o2.stride[1] = o.stride == 0 ? o.kernel_size : o.stride;
  o2.padding[1] = o.padding;
  o2.ceil_mode = o.ceil_mode;
  o2.count_include_pad = o.count_include_pad;
  return squeeze(avg_pool2d(unsqueeze(x, -2), o2), Dims{-2}, false);
}

Tensor adaptive_avg_pool1d(const Tensor& x, int64_t out_l) {
  check_2_to_3_dims(x, "adaptive_avg_pool1d");
  return squeeze(adaptive_avg_pool2d(unsqueeze(x, -2), 1, out_l), Dims{-2}, false);
}

Tensor max_pool3d(const Tensor& x, const MaxPool3dOptions& o, Tensor* indices) {
  ops::Pool3dGeom g = ops::pool3d_geom(x, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode, true);
  Tensor idx;
  Tensor y5 = ops::max_pool3d_forward(as5d(x), g, &idx);
  Tensor y = like_input(x, y5);
  if (any_requires_grad({&x})) {
    auto n = make_ref<MaxPool3dBackward>();
    n->indices = SavedTensor(idx);
    n->g = g;
    n->dtype = x.dtype();
    n->x_shape = x.shape();
    set_history(n.get(), {&x}, {&y});
  }
  if (indices) *indices = like_input(x, idx);
  return y;
}

Tensor avg_pool3d(const Tensor& x, const AvgPool3dOptions& o) {
  const int64_t dil[3] = {1, 1, 1};
  ops::Pool3dGeom g = ops::pool3d_geom(x, o.kernel_size, o.stride, o.padding, dil, o.ceil_mode, false);
  Tensor y = like_input(x, ops::avg_pool3d_forward(as5d(x), g, o.count_include_pad, o.divisor_override));
  if (any_requires_grad({&x})) {
    auto n = make_ref<AvgPool3dBackward>();
    n->g = g;
    n->count_include_pad = o.count_include_pad;
    n->divisor_override = o.divisor_override;
    n->dtype = x.dtype();
    n->x_shape = x.shape();
    set_history(n.get(), {&x}, {&y});
  }
  return y;
}

Tensor adaptive_avg_pool3d(const Tensor& x, int64_t out_t, int64_t out_h, int64_t out_w) {
  // torch's order (at::adaptive_avg_pool3d; the Python wrapper's "Input dimension should be at least
  // 4" for a tuple output_size is the binding's): output_size, the mean shortcut for 1 x 1 x 1
  // (MeanBackward1, no further checks), then the kernel's checks.
  GLIA_CHECK(out_t >= 0 && out_h >= 0 && out_w >= 0, InvalidArgument,
             "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {", out_t,
             ", ", out_h, ",", out_w, "}");
  if (out_t == 1 && out_h == 1 && out_w == 1) {
    const int64_t dims[3] = {-1, -2, -3};
    return mean(x, dims, true);
  }
  for (int64_t d = 1; d < x.dim(); ++d)
    GLIA_CHECK(x.size(d) > 0, Shape,
               "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has "
               "sizes ",
               x.shape(), " with dimension ", d, " being empty");
  GLIA_CHECK(x.dim() == 4 || x.dim() == 5, Shape, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got ",
             x.shape());
  Tensor y5 = ops::adaptive_avg_pool3d_forward(as5d(x), out_t, out_h, out_w);
  Tensor y = like_input(x, y5);
  if (any_requires_grad({&x})) {
    auto n = make_ref<AdaptiveAvgPool3dBackward>();
    n->x_shape = x.shape();
    n->out5 = y5.shape();
    n->dtype = x.dtype();
    set_history(n.get(), {&x}, {&y});
  }
  return y;
}

}  // namespace glia
