#include "distributed/sync_batch_norm.h"

#include <algorithm>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/norm.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"

namespace glia::dist {

namespace {

struct AllGatherBackward : Node {
  Ref<ProcessGroup> group;
  const char* name() const override { return "AllGatherBackward"; }
  TensorList apply(TensorList&& g) override {
    // Every rank's loss depends on this rank's row: its gradient is that row summed over the ranks
    // (every rank takes part, with zeros where no gradient flowed here).
    Tensor grad = g[0].defined() ? clone(g[0]) : zeros(output_shapes[0], output_dtypes[0], output_device);
    group->allreduce(grad, ReduceOp::Sum)->wait(Millis(-1));
    return {clone(select(grad, 0, group->rank()))};
  }
  bool backward_is_differentiable() const override { return false; }
};

// y = (x - mean) * invstd * weight + bias with the statistics of every rank's batch. As torch's
// batch_norm_stats and batch_norm_gather_stats_with_counts: each rank's per-channel mean and sum of
// squared deviations from it (not the sum of squares, whose difference with the squared mean loses
// the variance of data far from zero), in float for 16-bit inputs (in float16 a batch's sum of
// squares overflows and a count over 2048 rounds; the test device's collectives take no 16-bit
// floats), gathered with the counts and combined (Chan et al.'s update), so that a rank without
// rows counts for nothing.
Tensor sync_batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                       const Tensor& bias, double momentum, double eps, ProcessGroup& group) {
  const int64_t c = x.size(1);
  const DType acc = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16 ? DType::Float32 : x.dtype();
  Dims dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  Dims per_channel(static_cast<size_t>(x.dim()), 1);
  per_channel[1] = c;
  const Tensor xa = to_dtype_with_grad(x, acc);
  const int64_t local_n = x.numel() / c;
  Tensor local_mean =
      mul_scalar(sum(xa, dims), Scalar::from_double(1.0 / static_cast<double>(std::max<int64_t>(local_n, 1))));
  Tensor centered = sub(xa, reshape(local_mean, per_channel));
  Tensor local_m2 = sum(mul(centered, centered), dims);
  Tensor count = full(Dims{1}, static_cast<double>(local_n), acc, x.device());
  Tensor all = all_gather_stack(cat({local_mean, local_m2, count}, 0), group);  // [world, 2c + 1]
  Tensor counts = narrow(all, 1, 2 * c, 1);                                     // [world, 1]
  double n = 0;
  {
    GradModeGuard no_grad(false);
    n = item_double(sum(counts));
  }
  GLIA_CHECK(n > 0, InvalidArgument, "SyncBatchNorm: every rank's input is empty");
  Tensor means = narrow(all, 1, 0, c);
  Tensor mean = mul_scalar(sum(mul(means, counts), Dims{0}), Scalar::from_double(1.0 / n));
  Tensor spread = sub(means, unsqueeze(mean, 0));
  Tensor m2 = add(sum(narrow(all, 1, c, c), Dims{0}), sum(mul(mul(spread, spread), counts), Dims{0}));
  Tensor var = mul_scalar(m2, Scalar::from_double(1.0 / n));
  Tensor y =
      mul(sub(xa, reshape(mean, per_channel)), reshape(rsqrt(add_scalar(var, Scalar::from_double(eps))), per_channel));
  if (weight.defined()) y = mul(y, reshape(to_dtype_with_grad(weight, acc), per_channel));
  if (bias.defined()) y = add(y, reshape(to_dtype_with_grad(bias, acc), per_channel));
  if (running_mean.defined()) {
    GradModeGuard no_grad(false);
    Tensor unbiased = mul_scalar(var, Scalar::from_double(n > 1 ? n / (n - 1) : 1.0));
    copy_into(running_mean, add(mul_scalar(to_dtype(running_mean, acc), Scalar::from_double(1.0 - momentum)),
                                mul_scalar(mean, Scalar::from_double(momentum))));
    copy_into(running_var, add(mul_scalar(to_dtype(running_var, acc), Scalar::from_double(1.0 - momentum)),
                               mul_scalar(unbiased, Scalar::from_double(momentum))));
    bump_version(running_mean);
    bump_version(running_var);
  }
  return to_dtype_with_grad(y, x.dtype());
}

}  // namespace

Tensor all_gather_stack(const Tensor& x, ProcessGroup& group) {
  Tensor in, out;
  std::vector<Tensor> parts;
  {
    GradModeGuard no_grad(false);
    in = clone(x);  // contiguous, and not the caller's storage
    for (int r = 0; r < group.size(); ++r) parts.push_back(empty(x.shape(), x.dtype(), x.device()));
  }
  group.allgather(parts, in)->wait(Millis(-1));
  {
    GradModeGuard no_grad(false);
    out = stack(parts, 0);
  }
  if (any_requires_grad({&x})) {
    auto node = make_ref<AllGatherBackward>();
    node->group = Ref<ProcessGroup>::share(&group);
    set_history(node.get(), {&x}, {&out});
  }
  return out;
}

SyncBatchNorm::SyncBatchNorm(int64_t num_features, const nn::BatchNormOptions& options, Ref<ProcessGroup> group,
                             const nn::Factory& factory)
    : nn::BatchNorm(1, num_features, options, factory), group_(std::move(group)) {
  set_type_name("SyncBatchNorm");
}

TensorList SyncBatchNorm::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  GLIA_CHECK(x.dim() >= 2, InvalidArgument, "expected at least 2D input (got ", x.dim(), "D input)");
  GLIA_CHECK(x.size(1) != 0, InvalidArgument, "SyncBatchNorm number of input channels should be non-zero");
  const nn::BatchNormOptions& o = options();
  double factor = o.momentum.value_or(0.0);
  const Tensor& rm = buffer("running_mean");
  const Tensor& rv = buffer("running_var");
  if (training_ && o.track_running_stats) {
    const Tensor& nbt = buffer("num_batches_tracked");
    if (nbt.defined()) {
      int64_t n = item_int64(nbt) + 1;
      fill(nbt, static_cast<double>(n));
      bump_version(nbt);
      if (!o.momentum) factor = 1.0 / static_cast<double>(n);
    }
  }
  const bool bn_training = training_ || (!rm.defined() && !rv.defined());
  const bool pass_stats = !training_ || o.track_running_stats;
  const Tensor& stat_mean = pass_stats ? rm : Tensor();
  const Tensor& stat_var = pass_stats ? rv : Tensor();
  if (bn_training && training_ && group_ && group_->size() > 1)
    return {sync_batch_norm(x, stat_mean, stat_var, param("weight"), param("bias"), factor, o.eps, *group_)};
  return {batch_norm(x, stat_mean, stat_var, param("weight"), param("bias"), bn_training, factor, o.eps)};
}

}  // namespace glia::dist
