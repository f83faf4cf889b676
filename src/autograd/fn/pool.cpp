#include "autograd/fn/pool.h"

#include "autograd/fn/activation.h"
#include "autograd/fn/conv.h"
#include "autograd/fn/elementwise.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "core/checked.h"
#include "ops/conv.h"
#include "ops/index.h"
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

// adaptive_max_pool2d / 3d: the scatter of max_pool2d's backward through the saved flat indices.
struct AdaptiveMaxPoolBackward : Node {
  SavedTensor indices;  // [N, C, out...]
  Dims x_shape;         // x's own shape
  Dims in4;             // x as [N, C, (T *) H, W]
  DType dtype;
  bool three = false;
  const char* name() const override { return three ? "AdaptiveMaxPool3DBackward0" : "AdaptiveMaxPool2DBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    Tensor idx = indices.unpack(name());
    const int64_t out_planes = idx.numel() / std::max<int64_t>(in4[0] * in4[1], 1);
    const int64_t flat[4] = {in4[0], in4[1], 1, out_planes};
    ops::PoolGeom g{};
    g.N = in4[0], g.C = in4[1], g.H = in4[2], g.W = in4[3], g.Ho = 1, g.Wo = out_planes;
    Tensor gx = ops::max_pool2d_backward(ops::reshape(grads[0], flat), ops::reshape(idx, flat), g, dtype);
    return {ops::reshape(gx, x_shape)};
  }
  void release_variables() override { indices.release(); }
};

// max_unpool2d / 3d: dL/dx gathers dL/dy at the indices.
struct MaxUnpoolBackward : Node {
  SavedTensor indices;
  Dims x_shape;
  bool three = false;
  const char* name() const override { return three ? "MaxUnpool3DBackward0" : "MaxUnpool2DBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& grads) override {
    Tensor idx = indices.unpack(name());
    const int64_t lead = x_shape.size() == (three ? 5u : 4u) ? 2 : 1;
    const Tensor& gy = grads[0];
    Dims gflat, iflat;
    for (int64_t d = 0; d < lead; ++d) gflat.push_back(gy.size(d)), iflat.push_back(idx.size(d));
    gflat.push_back(-1), iflat.push_back(-1);
    Tensor g = ops::gather(ops::reshape(gy, gflat), lead, ops::reshape(idx, iflat));
    return {ops::reshape(g, x_shape)};
  }
  void release_variables() override { indices.release(); }
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
  if (!indices && !any_requires_grad({&x})) {
    // torch's max_pool1d without a gradient to record (check_max_pool1d, max_pool1d_impl): its own
    // messages, and an empty output is a result, not an error. Otherwise torch goes straight to
    // max_pool1d_with_indices (max_pool2d's checks and messages), as here.
    GLIA_CHECK(o.kernel_size > 0, InvalidArgument, "max_pool1d() kernel_size must be greater than zero, but got ",
               o.kernel_size);
    GLIA_CHECK(stride > 0, InvalidArgument, "max_pool1d() stride must be greater than zero, but got ", stride);
    GLIA_CHECK(o.padding >= 0, InvalidArgument, "max_pool1d() padding must be non-negative, but got ", o.padding);
    GLIA_CHECK(o.padding <= o.kernel_size / 2, InvalidArgument,
               "max_pool1d() padding should be at most half of kernel size, but got padding=", o.padding,
               " and kernel_size=", o.kernel_size);
    GLIA_CHECK(o.dilation > 0, InvalidArgument, "max_pool1d() dilation must be greater than zero, but got ",
               o.dilation);
    // The output length as torch's pooling_output_shape (Checked: the arguments are the caller's).
    const Checked span = Checked(o.dilation, "max_pool1d") * (o.kernel_size - 1);
    const Checked num =
        Checked(x.size(-1), "max_pool1d") + Checked(2) * o.padding - span - 1 + (o.ceil_mode ? stride - 1 : 0);
    int64_t ow = (floor_div(num, stride) + 1).value();
    if (o.ceil_mode && ((Checked(ow, "max_pool1d") - 1) * stride).value() >= x.size(-1) + o.padding) --ow;
    GLIA_CHECK(ow >= 0, Shape, "max_pool1d() Invalid computed output size: ", ow);
    if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64 && x.dtype() != DType::BFloat16)
      ops::not_implemented_for("max_pool1d_impl", x.dtype());
    if (ow == 0) {
      Dims shape = x.shape();
      shape.back() = 0;
      return empty(shape, x.dtype(), x.device());
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

namespace {

// torch's adaptive_max_pool2d / 3d checks, the output size's sign (empty()'s message with torch's
// shape), the pool on a batched view and the node on x itself.
Tensor adaptive_max(const Tensor& x, IntSpan out, Tensor* indices) {
  const bool three = out.size() == 3;
  const char* fn = three ? "adaptive_max_pool3d()" : "adaptive_max_pool2d()";
  const int64_t sd = static_cast<int64_t>(out.size());
  GLIA_CHECK(x.dim() == sd + 1 || x.dim() == sd + 2, Shape, fn, ": Expected ", three ? "4D or 5D" : "3D or 4D",
             " tensor, but got: ", x.shape());
  for (int64_t d = 1; d < x.dim(); ++d)
    GLIA_CHECK(x.size(d) > 0, Shape, fn,
               ": Expected input to have non-zero size for non-batch dimensions, but input has sizes ", x.shape(),
               " with dimension ", d, " being empty");
  Dims y_shape;
  for (int64_t d = 0; d < x.dim() - sd; ++d) y_shape.push_back(x.size(d));
  for (int64_t v : out) y_shape.push_back(v);
  for (int64_t v : out) GLIA_CHECK(v >= 0, Shape, "Trying to create tensor with negative dimension ", v, ": ", y_shape);
  const bool batched = x.dim() == sd + 2;
  Tensor xb = batched ? x : ops::unsqueeze(x, 0);
  Tensor idx;
  Tensor y = ops::adaptive_max_pool_forward(xb, out, &idx);
  if (!batched) y = ops::squeeze(y, Dims{0}, false), idx = ops::squeeze(idx, Dims{0}, false);
  if (any_requires_grad({&x})) {
    auto n = make_ref<AdaptiveMaxPoolBackward>();
    n->indices = SavedTensor(idx);
    n->x_shape = x.shape();
    int64_t inner = 1;
    for (int64_t d = 2; d < xb.dim() - 1; ++d) inner *= xb.size(d);
    n->in4 = Dims{xb.size(0), xb.size(1), inner, xb.size(-1)};
    n->dtype = x.dtype();
    n->three = three;
    set_history(n.get(), {&x}, {&y});
  }
  if (indices) *indices = idx;
  return y;
}

}  // namespace

Tensor adaptive_max_pool1d(const Tensor& x, int64_t out_l, Tensor* indices) {
  check_2_to_3_dims(x, "adaptive_max_pool1d");
  Tensor idx;
  Tensor y = squeeze(adaptive_max_pool2d(unsqueeze(x, -2), 1, out_l, &idx), Dims{-2}, false);
  if (indices) *indices = ops::squeeze(idx, Dims{-2}, false);
  return y;
}

Tensor adaptive_max_pool2d(const Tensor& x, int64_t out_h, int64_t out_w, Tensor* indices) {
  const int64_t out[2] = {out_h, out_w};
  return adaptive_max(x, out, indices);
}

Tensor adaptive_max_pool3d(const Tensor& x, int64_t out_t, int64_t out_h, int64_t out_w, Tensor* indices) {
  const int64_t out[3] = {out_t, out_h, out_w};
  return adaptive_max(x, out, indices);
}

Tensor max_unpool(const Tensor& x, const Tensor& indices, IntSpan out_size) {
  const int64_t sd = static_cast<int64_t>(out_size.size());
  if (sd == 1) {
    // torch's max_unpool1d: max_unpool2d on [..., L, 1].
    const int64_t out2[2] = {out_size[0], 1};
    return squeeze(max_unpool(unsqueeze(x, -1), ops::unsqueeze(indices, -1), out2), Dims{-1}, false);
  }
  const bool three = sd == 3;
  if (three)
    GLIA_CHECK(indices.dtype() == DType::Int64, DType, "elements in indices should be type int64");
  else
    GLIA_CHECK(indices.dtype() == DType::Int64, DType,
               "elements in indices should be type int64 but got: ", scalar_type_name(indices.dtype()));
  GLIA_CHECK(x.dim() == sd + 1 || x.dim() == sd + 2, Shape, "Input to max_unpooling", sd, "d should be a ", sd + 1,
             "d or ", sd + 2, "d Tensor, but got a tensor with ", x.dim(), " dimensions.");
  GLIA_CHECK(x.shape() == indices.shape(), Shape, "Expected shape of indices to be same as that of the input tensor (",
             x.shape(), ") but got indices tensor with shape: ", indices.shape());
  for (int64_t d = 1; d < x.dim(); ++d)
    GLIA_CHECK(x.size(d) > 0, Shape, three ? "max_unpooling3d_forward_out_cpu()" : "max_unpooling2d_forward_out_cpu()",
               ": Expected input to have non-zero size for non-batch dimensions, but got ", x.shape(),
               " with dimension ", d, " being empty.");
  const bool batched = x.dim() == sd + 2;
  Tensor y = ops::max_unpool_forward(batched ? x : ops::unsqueeze(x, 0), batched ? indices : ops::unsqueeze(indices, 0),
                                     out_size);
  if (!batched) y = ops::squeeze(y, Dims{0}, false);
  if (any_requires_grad({&x})) {
    auto n = make_ref<MaxUnpoolBackward>();
    n->indices = SavedTensor(indices);
    n->x_shape = x.shape();
    n->three = three;
    set_history(n.get(), {&x}, {&y});
  }
  return y;
}

namespace {

// torch's tail of lp_pool: (sign(a) * relu(|a|)).mul(kernel numel).pow(1 / norm_type).
Tensor lp_tail(const Tensor& a, double norm_type, int64_t numel) {
  return pow_scalar(mul_scalar(mul(sign(a), relu(abs(a))), Scalar::from_int(numel)),
                    Scalar::from_double(1.0 / norm_type));
}

}  // namespace

Tensor lp_pool1d(const Tensor& x, double norm_type, int64_t kernel_size, int64_t stride, bool ceil_mode) {
  AvgPool1dOptions o;
  o.kernel_size = kernel_size;
  o.stride = stride;
  o.ceil_mode = ceil_mode;
  return lp_tail(avg_pool1d(pow_scalar(x, Scalar::from_double(norm_type)), o), norm_type, kernel_size);
}

Tensor lp_pool2d(const Tensor& x, double norm_type, const int64_t kernel_size[2], const int64_t stride[2],
                 bool ceil_mode) {
  AvgPool2dOptions o;
  o.kernel_size[0] = kernel_size[0], o.kernel_size[1] = kernel_size[1];
  o.stride[0] = stride[0], o.stride[1] = stride[1];
  o.ceil_mode = ceil_mode;
  return lp_tail(avg_pool2d(pow_scalar(x, Scalar::from_double(norm_type)), o), norm_type,
                 (Checked(kernel_size[0], "lp_pool2d") * kernel_size[1]).value());
}

}  // namespace glia
