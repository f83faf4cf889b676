// Batch, layer and group norm with torch's backward formulas (fused kernels of
// ops/cpu/norm.cpp, so double backward through them is an error).
#include "autograd/fn/norm.h"

#include "autograd/fn/elementwise.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "ops/norm.h"

namespace glia {

namespace {

struct NormNode : Node {
  SavedTensor x, weight;
  Dims weight_shape, bias_shape;
  DType weight_dtype = DType::Float32, bias_dtype = DType::Float32;
  Tensor mean, rstd;  // float64 statistics of the forward (no autograd)
  bool backward_is_differentiable() const override { return false; }
  void release_variables() override {
    x.release();
    weight.release();
    mean = Tensor();
    rstd = Tensor();
  }
  void set_params(const Tensor& w, const Tensor& b) {
    if (w.defined()) {
      weight = SavedTensor(w);
      weight_shape = w.shape();
      weight_dtype = w.dtype();
    }
    if (b.defined()) {
      bias_shape = b.shape();
      bias_dtype = b.dtype();
    }
  }
  ops::GradMask mask() const { return {next_edges[0].valid(), next_edges[1].valid(), next_edges[2].valid()}; }
  TensorList finish(ops::NormGrads&& g) const {
    TensorList r(3);
    r[0] = g.input;
    if (g.weight.defined())
      r[1] = to_dtype(make_view(g.weight, weight_shape, contiguous_strides(weight_shape), 0), weight_dtype);
    if (g.bias.defined()) r[2] = to_dtype(make_view(g.bias, bias_shape, contiguous_strides(bias_shape), 0), bias_dtype);
    return r;
  }
};

struct BatchNormBackward : NormNode {
  bool training = true;
  const char* name() const override { return "NativeBatchNormBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor w = weight.defined() ? weight.unpack(name()) : Tensor();
    return finish(ops::batch_norm_backward(g[0], x.unpack(name()), w, mean, rstd, training, mask()));
  }
};

struct LayerNormBackward : NormNode {
  Dims normalized_shape;
  const char* name() const override { return "NativeLayerNormBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor w = weight.defined() ? weight.unpack(name()) : Tensor();
    return finish(ops::layer_norm_backward(g[0], x.unpack(name()), normalized_shape, mean, rstd, w, mask()));
  }
};

struct GroupNormBackward : NormNode {
  int64_t groups = 1;
  const char* name() const override { return "NativeGroupNormBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor w = weight.defined() ? weight.unpack(name()) : Tensor();
    return finish(ops::group_norm_backward(g[0], x.unpack(name()), groups, mean, rstd, w, mask()));
  }
};

template <class N>
void record(Ref<N>& n, const Tensor& x, const Tensor& weight, const Tensor& bias, ops::NormOut& r) {
  n->x = SavedTensor(x);
  n->set_params(weight, bias);
  n->mean = r.mean;
  n->rstd = r.rstd;
  set_history(n.get(), {&x, &weight, &bias}, {&r.out});
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  if (x.numel() == 0) {
    // torch's _batch_norm_impl_index: an empty input skips every check and gives
    // input.clone() (* weight[0]) (+ bias[0]), a new tensor in the graph.
    Tensor out = clone_with_grad(x);
    if (weight.defined()) out = mul(out, select(weight, 0, 0));
    if (bias.defined()) out = add(out, select(bias, 0, 0));
    return out;
  }
  ops::NormOut r = ops::batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps);
  if (training && x.numel() > 0) {
    if (running_mean.defined()) bump_version(running_mean);
    if (running_var.defined()) bump_version(running_var);
  }
  if (any_requires_grad({&x, &weight, &bias})) {
    auto n = make_ref<BatchNormBackward>();
    n->training = training;
    record(n, x, weight, bias, r);
  }
  return r.out;
}

Tensor layer_norm(const Tensor& x, IntSpan normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  ops::NormOut r = ops::layer_norm(x, normalized_shape, weight, bias, eps);
  if (any_requires_grad({&x, &weight, &bias})) {
    auto n = make_ref<LayerNormBackward>();
    n->normalized_shape = Dims(normalized_shape);
    record(n, x, weight, bias, r);
  }
  return r.out;
}

Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  ops::NormOut r = ops::group_norm(x, num_groups, weight, bias, eps);
  if (any_requires_grad({&x, &weight, &bias})) {
    auto n = make_ref<GroupNormBackward>();
    n->groups = num_groups;
    record(n, x, weight, bias, r);
  }
  return r.out;
}

}  // namespace glia
