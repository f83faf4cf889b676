// torch.nn modules of issue 21's norms, dropouts and distances: InstanceNorm1d/2d/3d,
// LocalResponseNorm, CosineSimilarity, PairwiseDistance, Softsign, Dropout1d/2d/3d,
// AlphaDropout, FeatureAlphaDropout. Parameters, buffers, defaults, repr and error
// texts are torch 1.13's; the computation is autograd/fn/nnmisc.h's.
#pragma once

#include "nn/module.h"
#include "nn/repr.h"

namespace glia::nn {

struct InstanceNormOptions {
  double eps = 1e-5;
  double momentum = 0.1;
  bool affine = false;
  bool track_running_stats = false;
};

// torch's _InstanceNorm (a _NormBase): weight, bias (None unless affine),
// running_mean, running_var, num_batches_tracked (None unless tracked; the
// count is never incremented, as in torch). `spatial_dims` is 1, 2 or 3.
class InstanceNorm : public Module {
 public:
  InstanceNorm(int spatial_dims, int64_t num_features, const InstanceNormOptions& options, const Factory& factory);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  // The size a lazy module infers from its first input (nn/modules/lazy.h).
  void set_num_features(int64_t n) { num_features_ = n; }

 private:
  int spatial_dims_;
  int64_t num_features_;
  InstanceNormOptions options_;
};

// The stateless modules of this block: one class, one kind each.
class NnMisc : public Module {
 public:
  enum class Kind {
    LocalResponseNorm,  // size, alpha, beta, k
    CosineSimilarity,   // dim, eps
    PairwiseDistance,   // p (torch's norm), eps, keepdim
    Softsign,
    Dropout1d,  // p, inplace
    Dropout2d,
    Dropout3d,
    AlphaDropout,
    FeatureAlphaDropout,
  };
  struct Args {
    int64_t size = 0, dim = 1;
    double alpha = 1e-4, beta = 0.75, k = 1.0, eps = 0.0, p = 0.5;
    bool keepdim = false, inplace = false;
  };
  NnMisc(Kind kind, const Args& args);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;

 private:
  Kind kind_;
  Args args_;
};

}  // namespace glia::nn
