#include "autograd/fn/grid.h"

#include <string>

#include "autograd/fn/convnd.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "ops/conv.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/grid.h"
#include "ops/index.h"
#include "ops/iter.h"
#include "ops/linalg.h"
#include "ops/shape.h"

namespace glia {

namespace {

// ---- grid_sample

struct GridSamplerBackward : Node {
  SavedTensor input, grid;
  int64_t mode = 0, padding = 0;
  bool align = false, three = false;
  const char* name() const override { return three ? "GridSampler3DBackward0" : "GridSampler2DBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    auto r = ops::grid_sampler_backward(g[0], input.unpack(name()), grid.unpack(name()), mode, padding, align);
    return {r.first, r.second};
  }
  void release_variables() override {
    input.release();
    grid.release();
  }
};

// ---- affine_grid

// torch's linspace_from_neg_one: [-1, 1] in `steps` points, scaled by (steps - 1) / steps without
// align_corners; a single 0 for steps <= 1.
Tensor linspace_from_neg_one(int64_t steps, bool align_corners, DType dtype, Device device) {
  if (steps <= 1) return zeros({}, dtype, device);
  Tensor r = ops::linspace(-1.0, 1.0, steps, dtype, device);
  if (!align_corners)
    r = ops::div(ops::mul(r, ops::wrapped_scalar(static_cast<double>(steps - 1), true)),
                 ops::wrapped_scalar(static_cast<double>(steps), true), nullptr);
  return r;
}

// torch's make_base_grid_4D / 5D: [N, (D,) H, W, k + 1] holding (x, y(, z), 1).
Tensor base_grid(IntSpan size, bool align_corners, DType dtype, Device device) {
  const int64_t k = static_cast<int64_t>(size.size()) - 2;
  Dims shape{size[0]};
  for (int64_t j = 0; j < k; ++j) shape.push_back(size[2 + j]);
  shape.push_back(k + 1);
  Tensor base = empty(shape, dtype, device);
  if (base.numel() == 0) return base;
  Dims plane(IntSpan(shape.data(), shape.size() - 1));
  for (int64_t j = 0; j < k; ++j) {
    // coordinate j (x, y, z) varies along spatial dim k - 1 - j
    Tensor r = linspace_from_neg_one(size[2 + k - 1 - j], align_corners, dtype, device);
    Dims rs(static_cast<size_t>(k + 1), 1);
    if (r.dim() == 1) rs[static_cast<size_t>(k - j)] = r.size(0);
    ops::copy_(ops::select(base, -1, j), ops::expand(ops::reshape(r, rs), plane));
  }
  fill(ops::select(base, -1, k), 1.0);
  return base;
}

struct AffineGridBackward : Node {
  Dims size;
  bool align = false;
  const char* name() const override { return "AffineGridGeneratorBackward0"; }
  // torch's affine_grid_generator_backward: base^T @ grad, transposed; written in differentiable ops.
  TensorList apply(TensorList&& g) override {
    const int64_t k = static_cast<int64_t>(size.size()) - 2;
    int64_t points = 1;
    for (int64_t j = 0; j < k; ++j) points *= size[2 + j];
    Tensor base = base_grid(size, align, g[0].dtype(), g[0].device());
    const int64_t bs[3] = {size[0], points, k + 1}, gs[3] = {size[0], points, k};
    Tensor gt = glia::bmm(glia::transpose(glia::view(base, bs), 1, 2), glia::reshape(g[0], gs));
    return {glia::transpose(gt, 1, 2)};
  }
};

std::string py_ints(IntSpan v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// ---- fractional max pooling

struct FractionalMaxPoolBackward : Node {
  SavedTensor indices;
  Dims x_shape, in4;  // x's shape; x as [N, C, (T *) H, W]
  DType dtype;
  bool three = false;
  const char* name() const override { return three ? "FractionalMaxPool3DBackward0" : "FractionalMaxPool2DBackward0"; }
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

// ---- conv_tbc: conv1d on [B, C, T] views; the gradients are conv_transpose1d / conv1d again, in
// differentiable ops.

struct ConvTbcBackward : Node {
  SavedTensor input, weight;
  int64_t pad = 0;
  const char* name() const override { return "ConvTbcBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = input.unpack(name()), w = weight.unpack(name());
    const Tensor& gy = g[0];  // [To, B, Cout]
    if (gy.numel() == 0)
      return {zeros(x.shape(), x.dtype(), gy.device()), zeros(w.shape(), w.dtype(), gy.device()),
              zeros(Dims{w.size(2)}, w.dtype(), gy.device())};
    ConvTransposeNdOptions t;
    t.padding[0] = pad;
    // dL/dx[s, b, c] = sum_k sum_o gy[s - k + pad, b, o] w[k, c, o]
    Tensor gx = glia::permute(
        glia::conv_transpose1d(glia::permute(gy, Dims{1, 2, 0}), glia::permute(w, Dims{2, 1, 0}), Tensor(), t),
        Dims{2, 0, 1});
    // dL/dw[k, c, o] = sum_t sum_b x[t + k - pad, b, c] gy[t, b, o]: a convolution over t with B as channels
    ConvNdOptions o;
    o.padding[0] = pad;
    Tensor gw = glia::permute(
        glia::conv1d(glia::permute(x, Dims{2, 1, 0}), glia::permute(gy, Dims{2, 1, 0}), Tensor(), o), Dims{2, 0, 1});
    Tensor gb = glia::sum(gy, Dims{0, 1});
    return {gx, gw, gb};
  }
  void release_variables() override {
    input.release();
    weight.release();
  }
};

}  // namespace

Tensor grid_sample(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding_mode, bool align_corners) {
  Tensor out = ops::grid_sampler(input, grid, mode, padding_mode, align_corners);
  if (any_requires_grad({&input, &grid})) {
    auto n = make_ref<GridSamplerBackward>();
    n->input = SavedTensor(input);
    n->grid = SavedTensor(grid);
    n->mode = mode;
    n->padding = padding_mode;
    n->align = align_corners;
    n->three = input.dim() == 5;
    set_history(n.get(), {&input, &grid}, {&out});
  }
  return out;
}

Tensor affine_grid(const Tensor& theta, IntSpan size, bool align_corners) {
  GLIA_CHECK(is_floating(theta.dtype()), InvalidArgument, "Expected theta to have floating point type, but got torch.",
             dtype_name(theta.dtype()));
  const int64_t ns = static_cast<int64_t>(size.size());
  GLIA_CHECK(ns == 4 || ns == 5, Unsupported,
             "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size ",
             py_ints(size), ".");
  const int64_t k = ns - 2;
  GLIA_CHECK(theta.dim() == 3 && theta.size(1) == k && theta.size(2) == k + 1, InvalidArgument, "Expected a batch of ",
             k, "D affine matrices of shape Nx", k, "x", k + 1, " for size ", py_ints(size), ". Got torch.Size(",
             py_ints(theta.shape()), ").");
  int64_t smallest = size[0];
  for (int64_t v : size) smallest = std::min(smallest, v);
  int64_t smallest_spatial = size[2];
  for (int64_t j = 2; j < ns; ++j) smallest_spatial = std::min(smallest_spatial, size[j]);
  // torch warns (and goes on) for unit-size grids with align_corners; otherwise sizes must be positive.
  GLIA_CHECK((align_corners && smallest_spatial == 1) || smallest > 0, InvalidArgument,
             "Expected non-zero, positive output size. Got ", py_ints(size));
  GLIA_CHECK(theta.size(0) == size[0], Shape, "Expected size for first two dimensions of batch2 tensor to be: [",
             size[0], ", ", k + 1, "] but got: [", theta.size(0), ", ", k + 1, "].");
  int64_t points = 1;
  for (int64_t j = 0; j < k; ++j) points *= size[2 + j];
  Tensor base = base_grid(size, align_corners, theta.dtype(), theta.device());
  const int64_t bs[3] = {size[0], points, k + 1};
  Tensor grid = ops::bmm(ops::view(base, bs), ops::transpose(theta, 1, 2));
  Dims gshape{size[0]};
  for (int64_t j = 0; j < k; ++j) gshape.push_back(size[2 + j]);
  gshape.push_back(k);
  Tensor out = ops::view(grid, gshape);
  if (any_requires_grad({&theta})) {
    auto n = make_ref<AffineGridBackward>();
    n->size = Dims(size);
    n->align = align_corners;
    set_history(n.get(), {&theta}, {&out});
  }
  return out;
}

Tensor fractional_max_pool(const Tensor& input, int64_t k, IntSpan kernel_size, IntSpan output_size,
                           const Tensor* samples, Tensor* indices) {
  Tensor idx;
  Tensor y = ops::fractional_max_pool(input, k, kernel_size, output_size, samples, &idx);
  if (any_requires_grad({&input})) {
    auto n = make_ref<FractionalMaxPoolBackward>();
    n->indices = SavedTensor(idx);
    n->x_shape = input.shape();
    const bool batched = input.dim() == k + 2;
    const int64_t b = batched ? 1 : 0;
    n->in4 = Dims{batched ? input.size(0) : 1, input.size(b), 1, input.size(input.dim() - 1)};
    for (int64_t j = 0; j + 1 < k; ++j) n->in4[2] *= input.size(b + 1 + j);
    n->dtype = input.dtype();
    n->three = k == 3;
    set_history(n.get(), {&input}, {&y});
  }
  if (indices) *indices = idx;
  return y;
}

Tensor conv_tbc(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t pad) {
  GLIA_CHECK(input.dim() == 3, Shape, "Input must have 3 dims: time, batch, in_channel");
  GLIA_CHECK(weight.dim() == 3, Shape, "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.");
  GLIA_CHECK(bias.dim() == 1, Shape, "Bias must be 1-D");
  GLIA_CHECK(input.size(2) == weight.size(1), Shape,
             "Input dim 2 (input channels) is not == dim 1 in the weight tensor");
  GLIA_CHECK(weight.size(2) == bias.size(0), Shape,
             "Bias size must equal dim 2 in the weight tensor (output channels).");
  const int64_t T = input.size(0), B = input.size(1), K = weight.size(0), O = weight.size(2);
  const int64_t olen = T - K + 1 + 2 * pad;
  GLIA_CHECK(olen >= 0, Shape, "Trying to create tensor with negative dimension ", olen, ": [", olen, ", ", B, ", ", O,
             "]");
  if (pad < 0) return conv_tbc(glia::narrow(input, 0, -pad, T + 2 * pad), weight, bias, 0);
  Tensor out;
  if (olen == 0 || B == 0) {
    const int64_t shape[3] = {olen, B, O};
    out = zeros(shape, input.dtype(), input.device());
  } else {
    GradModeGuard no_grad(false);
    ConvNdOptions o;
    o.padding[0] = pad;
    out = contiguous(ops::permute(
        glia::conv1d(ops::permute(input, Dims{1, 2, 0}), ops::permute(weight, Dims{2, 1, 0}), bias, o), Dims{2, 0, 1}));
  }
  if (any_requires_grad({&input, &weight, &bias})) {
    auto n = make_ref<ConvTbcBackward>();
    n->input = SavedTensor(input);
    n->weight = SavedTensor(weight);
    n->pad = pad;
    set_history(n.get(), {&input, &weight, &bias}, {&out});
  }
  return out;
}

}  // namespace glia
