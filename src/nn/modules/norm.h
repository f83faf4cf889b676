// torch.nn normalisation layers: BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm.
// Parameters, buffers (and their order), defaults, repr and error texts are
// torch's; the computation is the functional layer's (autograd/fn/norm.h).
#pragma once

#include <optional>

#include "nn/module.h"
#include "nn/repr.h"

namespace glia::nn {

struct BatchNormOptions {
  double eps = 1e-5;
  std::optional<double> momentum = 0.1;  // nullopt: torch's momentum=None (cumulative moving average)
  bool affine = true;
  bool track_running_stats = true;
};

// torch's _BatchNorm. `spatial_dims` is 1 for BatchNorm1d ([N, C] or [N, C, L])
// 2 for BatchNorm2d ([N, C, H, W]) and 3 for BatchNorm3d ([N, C, D, H, W]). Registers weight, bias (None when not
// affine), running_mean, running_var, num_batches_tracked (int64, 0-dim; all
// three None when not tracking).
class BatchNorm : public Module {
 public:
  BatchNorm(int spatial_dims, int64_t num_features, const BatchNormOptions& options, const Factory& factory);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  void reset_running_stats();
  // The size a lazy module infers from its first input (nn/modules/lazy.h).
  void set_num_features(int64_t n) { num_features_ = n; }
  const BatchNormOptions& options() const { return options_; }

 private:
  int spatial_dims_;
  int64_t num_features_;
  BatchNormOptions options_;
};

class LayerNorm : public Module {
 public:
  LayerNorm(IntSpan normalized_shape, double eps, bool elementwise_affine, bool bias, const Factory& factory);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;

 private:
  Dims normalized_shape_;
  double eps_;
  bool elementwise_affine_;
};

class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine, const Factory& factory);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;

 private:
  int64_t num_groups_, num_channels_;
  double eps_;
  bool affine_;
};

}  // namespace glia::nn
