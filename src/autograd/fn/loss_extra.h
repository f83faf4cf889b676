// torch.nn.functional's other losses (kl_div ... triplet_margin_with_distance_loss), composed of
// differentiable ops as torch 1.13 composes most of them (autograd comes from the parts; the
// result's grad_fn is its last op's, e.g. MeanBackward0 for reduction mean). Checks and messages
// are torch's. Reduction None/Mean/Sum as in loss.h.
#pragma once

#include <functional>

#include "autograd/node.h"
#include "ops/loss.h"

namespace glia {

// torch.kl_div; batchmean (torch's reduction='batchmean') divides the sum by input.size(0) (no
// division for a 0-dim input) and overrides reduction.
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean, bool log_target = false,
              bool batchmean = false);
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true, bool full = false,
                        double eps = 1e-8, Reduction reduction = Reduction::Mean);
// var: the input's shape, the input's shape without its last dim, or that with a last dim of 1
// (else "var is of incorrect size"); negative entries fail; var is clamped to eps outside autograd.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, Reduction reduction = Reduction::Mean);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           Reduction reduction = Reduction::Mean);
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            Reduction reduction = Reduction::Mean);
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   Reduction reduction = Reduction::Mean);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             Reduction reduction = Reduction::Mean);
// input [N, C], [C] or 0-dim; target int64 class indices [N] (or [1] / 0-dim); p is 1 or 2.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1, double margin = 1.0,
                         const Tensor& weight = {}, Reduction reduction = Reduction::Mean);
// target int64 of the input's shape: class indices, the first -1 ends each row's list.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
// torch.pairwise_distance: ||x1 - x2 + eps||_p over the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6, bool keepdim = false);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin = 1.0,
                           double p = 2.0, double eps = 1e-6, bool swap = false, Reduction reduction = Reduction::Mean);
using DistanceFn = std::function<Tensor(const Tensor&, const Tensor&)>;
// distance empty: pairwise_distance.
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFn& distance = {}, double margin = 1.0, bool swap = false,
                                         Reduction reduction = Reduction::Mean);

}  // namespace glia
