// The norms, dropouts and distances of issue 21 (torch.nn.functional's names,
// torch 1.13's checks, messages and gradients), composed of differentiable ops.
#pragma once

#include "autograd/node.h"

namespace glia {

// x / (1 + |x|).
Tensor softsign(const Tensor& x);
// sum(x1 * x2, dim) / (max(|x1|, eps) * max(|x2|, eps)) over the broadcast
// shape; torch's gradient (the clamped norms take part in it).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
// (pairwise_distance is autograd/fn/loss_extra.h's.)
// The p-norm distances between the rows of a 2-D x, i < j in row-major order.
Tensor pdist(const Tensor& x, double p = 2.0);
// torch.instance_norm: batch_norm of x viewed as [1, N * C, *]; the running
// statistics (optional) are updated in place with the mean over the batch.
Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps);
// x / (k + alpha * mean of x^2 over `size` neighbouring channels (zero padded))^beta.
Tensor local_response_norm(const Tensor& x, int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0);
// ATen's _dropout_impl: `feature` draws one value per [N, C] (x has >= 2 dims),
// `alpha` keeps the mean and variance of SELU activations. p == 0, eval or an
// empty x give x itself.
Tensor dropout_impl(const Tensor& x, double p, bool training, bool feature, bool alpha);
// torch.nn.functional.dropout1d / dropout2d / dropout3d (channel-wise), alpha_dropout, feature_alpha_dropout.
Tensor dropout1d(const Tensor& x, double p, bool training);
Tensor dropout2d(const Tensor& x, double p, bool training);
Tensor dropout3d(const Tensor& x, double p, bool training);
Tensor alpha_dropout(const Tensor& x, double p, bool training);
Tensor feature_alpha_dropout(const Tensor& x, double p, bool training);

}  // namespace glia
