// torch.nn losses: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss,
// HuberLoss, BCELoss, BCEWithLogitsLoss, and (loss_extra.h's functions) KLDivLoss,
// PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss, HingeEmbeddingLoss,
// SoftMarginLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss, MultiMarginLoss,
// MultiLabelMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss.
// forward(input, target), or of three tensors for GaussianNLL (input, target, var),
// MarginRanking and CosineEmbedding (input1, input2, target) and the triplet losses
// (anchor, positive, negative); weight and
// pos_weight are buffers as in torch (_WeightedLoss registers "weight" even
// when None, which reserves the name). extra_repr is empty as in torch.
#pragma once

#include "autograd/fn/loss_extra.h"
#include "nn/module.h"
#include "ops/loss.h"

namespace glia::nn {

enum class LossKind {
  CrossEntropy,
  NLL,
  MSE,
  L1,
  SmoothL1,
  Huber,
  BCE,
  BCEWithLogits,
  KLDiv,
  PoissonNLL,
  GaussianNLL,
  MarginRanking,
  HingeEmbedding,
  SoftMargin,
  MultiLabelSoftMargin,
  CosineEmbedding,
  MultiMargin,
  MultiLabelMargin,
  TripletMargin,
  TripletMarginWithDistance
};

struct LossOptions {
  Reduction reduction = Reduction::Mean;
  Tensor weight;                 // CrossEntropy, NLL, BCE, BCEWithLogits
  Tensor pos_weight;             // BCEWithLogits
  int64_t ignore_index = -100;   // CrossEntropy, NLL
  double label_smoothing = 0.0;  // CrossEntropy
  double beta = 1.0;             // SmoothL1
  double delta = 1.0;            // Huber
  bool batchmean = false;        // KLDiv: reduction='batchmean' (overrides reduction)
  bool log_target = false;       // KLDiv
  bool log_input = true;         // PoissonNLL
  bool full = false;             // PoissonNLL, GaussianNLL
  double eps = 0.0;              // PoissonNLL (torch: 1e-8), GaussianNLL (1e-6), TripletMargin (1e-6)
  double margin = 0.0;           // MarginRanking, CosineEmbedding (0); HingeEmbedding, MultiMargin, triplets (1)
  double p = 2.0;                // MultiMargin (1 or 2), TripletMargin (the norm's order)
  bool swap = false;             // triplets
  DistanceFn distance;           // TripletMarginWithDistance (empty: pairwise_distance)
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
