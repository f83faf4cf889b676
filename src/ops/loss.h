// Loss functions (no autograd): meta parts of fused forward kernels and their backward kernels
// (ops/cpu/loss.cpp); results live on the input's device.
#pragma once

#include "ops/iter.h"

namespace glia {

// torch's reduction argument; values equal glia_reduction's.
enum class Reduction : int32_t { None = 0, Mean = 1, Sum = 2 };

}  // namespace glia

namespace glia::ops {

// Pointwise losses of input and target (broadcast for mse/l1/smooth_l1/huber, equal shapes for
// the binary cross entropies; weight and pos_weight broadcast), computed in the promoted dtype.
enum class PointwiseLoss : int32_t { Mse, L1, SmoothL1, Huber, Bce, BceLogits };
struct PointwiseArgs {
  PointwiseLoss kind;
  Tensor input, target, weight, pos_weight;  // weight / pos_weight may be undefined
  double param = 1.0;                        // beta (smooth_l1) or delta (huber)
  Reduction reduction = Reduction::Mean;
};
// Validates the arguments as torch does (shapes, dtypes, beta/delta) and returns the loss.
Tensor pointwise_loss(const PointwiseArgs& a);
// Gradients w.r.t. input and target (of the broadcast shape; the caller sums them to the
// operands' shapes): grad_in = dL/dx * g, grad_target = dL/dt * g, with g scaled for mean.
std::pair<Tensor, Tensor> pointwise_loss_backward(const PointwiseArgs& a, const Tensor& grad, bool want_input,
                                                  bool want_target);

// nll_loss / cross_entropy with class-index targets over input [N, C, d1..dK] or [C].
struct ClassLossArgs {
  Tensor input, target, weight;  // weight may be undefined
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::Mean;
  double label_smoothing = 0.0;  // cross_entropy only
  bool log_softmax = false;      // cross_entropy (input are logits) vs nll_loss (input are log-probabilities)
};
struct ClassLossResult {
  Tensor loss;
  Tensor lse;  // cross_entropy: per position log-sum-exp (float64, [N * S]) for the backward
};
ClassLossResult class_loss(const ClassLossArgs& a);
Tensor class_loss_backward(const ClassLossArgs& a, const ClassLossResult& r, const Tensor& grad);

// cross_entropy with class probabilities (target of the input's shape).
Tensor prob_cross_entropy(const ClassLossArgs& a);
std::pair<Tensor, Tensor> prob_cross_entropy_backward(const ClassLossArgs& a, const Tensor& grad, bool want_input,
                                                      bool want_target);
// True when cross_entropy takes `target` as class probabilities (torch: same shape as input).
bool is_prob_target(const Tensor& input, const Tensor& target);

}  // namespace glia::ops
