// Differentiable activations (torch.nn.functional's, torch's grad_fn names).
#pragma once

#include "autograd/node.h"

namespace glia {

Tensor relu(const Tensor& a);
void relu_(const Tensor& self);
Tensor leaky_relu(const Tensor& a, double negative_slope = 0.01);
Tensor elu(const Tensor& a, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
// approximate: false = "none", true = "tanh".
Tensor gelu(const Tensor& a, bool approximate_tanh = false);
Tensor silu(const Tensor& a);
Tensor hardswish(const Tensor& a);
Tensor sigmoid(const Tensor& a);
Tensor tanh(const Tensor& a);
Tensor softplus(const Tensor& a, double beta = 1.0, double threshold = 20.0);
Tensor hardtanh(const Tensor& a, double min_val = -1.0, double max_val = 1.0);

}  // namespace glia
