// torch.nn losses: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss,
// HuberLoss, BCELoss, BCEWithLogitsLoss. forward(input, target); weight and
// pos_weight are buffers as in torch (_WeightedLoss registers "weight" even
// when None, which reserves the name). extra_repr is empty as in torch.
#pragma once

#include "nn/module.h"
#include "ops/loss.h"

namespace glia::nn {

enum class LossKind { CrossEntropy, NLL, MSE, L1, SmoothL1, Huber, BCE, BCEWithLogits };

struct LossOptions {
  Reduction reduction = Reduction::Mean;
  Tensor weight;                 // CrossEntropy, NLL, BCE, BCEWithLogits
  Tensor pos_weight;             // BCEWithLogits
  int64_t ignore_index = -100;   // CrossEntropy, NLL
  double label_smoothing = 0.0;  // CrossEntropy
  double beta = 1.0;             // SmoothL1
  double delta = 1.0;            // Huber
};

class Loss : public Module {
 public:
  Loss(LossKind kind, const LossOptions& options);
  TensorList forward(const TensorList& inputs) override;
  LossKind kind() const { return kind_; }

 private:
  LossKind kind_;
  LossOptions options_;  // weight / pos_weight live in the buffers
};

}  // namespace glia::nn
