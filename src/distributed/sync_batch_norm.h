// torch.nn.SyncBatchNorm over a ProcessGroup: BatchNorm whose training statistics are those of
// the batch of all ranks (torch 1.13's module; unlike torch 1.13, CPU tensors synchronise, over Gloo).
#pragma once

#include "distributed/process_group.h"
#include "nn/modules/norm.h"

namespace glia::dist {

// A differentiable all-gather: every rank's `x` stacked, [world size, *x.shape]; the gradient of `x`
// is its row of the output's gradients summed over the ranks. Backward runs the collective too.
Tensor all_gather_stack(const Tensor& x, ProcessGroup& group);

// torch's SyncBatchNorm: BatchNorm's parameters, buffers, defaults, state-dict layout and repr
// under the name "SyncBatchNorm", any input [N, C, *] ("expected at least 2D input (got 1D
// input)", "SyncBatchNorm number of input channels should be non-zero"). In training with a
// group of more than one rank, each rank all-gathers its per-channel mean, sum of squared
// deviations and count (float for 16-bit inputs; torch's batch_norm_stats and
// batch_norm_gather_stats_with_counts), normalises with the global mean and biased variance and
// updates the running statistics with the global unbiased variance; backward all-reduces the
// gradients of those statistics (torch's sum_dy / sum_dy_xmu all-reduce). Otherwise (eval, no
// group, one rank) it is BatchNorm.
class SyncBatchNorm : public nn::BatchNorm {
 public:
  SyncBatchNorm(int64_t num_features, const nn::BatchNormOptions& options, Ref<ProcessGroup> group,
                const nn::Factory& factory);
  TensorList forward(const TensorList& inputs) override;
  // torch's module.process_group = group (null: none).
  void set_process_group(Ref<ProcessGroup> group) { group_ = std::move(group); }

 private:
  Ref<ProcessGroup> group_;
};

}  // namespace glia::dist
