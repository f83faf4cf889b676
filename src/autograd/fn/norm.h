#pragma once

#include "autograd/node.h"

namespace glia {

// torch.nn.functional.batch_norm on [N, C, *]. running_mean / running_var
// (optional in training, required in eval) are updated in place in training
// with running = (1 - momentum) * running + momentum * batch (unbiased
// variance); they take no part in autograd. momentum = 1 / k at the k-th call
// gives the cumulative average (torch's momentum=None).
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum = 0.1, double eps = 1e-5);
// torch.nn.functional.layer_norm over the trailing dims `normalized_shape`.
Tensor layer_norm(const Tensor& x, IntSpan normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps = 1e-5);
// torch.nn.functional.group_norm on [N, C, *].
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps = 1e-5);

}  // namespace glia
