// torch.nn.utils: clip_grad_norm_ and clip_grad_value_.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace glia::nn::utils {

// torch's clip_grad_norm_: the total norm of the grads of `params` (those
// with a grad), as if all were one vector (norm_type may be +-inf), then each
// grad is scaled in place by min(1, max_norm / (total + 1e-6)). Returns the
// total norm, a 0-dim tensor on the first grad's device in the grads'
// promoted dtype (a float32 0 on the CPU when no parameter has a grad), as
// torch does. With error_if_nonfinite a NaN or infinite total is an error
// (torch's text) and no grad is changed. Made of ops: runs on any device.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// torch's clip_grad_value_: clamps every grad to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace glia::nn::utils
