// The activations of issue 21 (torch.nn.functional's hardshrink, softshrink,
// threshold, hardsigmoid, mish, logsigmoid, prelu, rrelu's noise) without
// autograd: their meta parts and fused backward kernels. The CPU loops are in
// ops/cpu/activation_extra.cpp; the differentiable forms in
// autograd/fn/activation_extra.h.
#pragma once

#include "core/dispatch.h"

namespace glia::ops {

Tensor hardshrink(const Tensor& a, double lambd);
Tensor softshrink(const Tensor& a, double lambd);  // lambd >= 0 (torch's message otherwise)
// The gradient of hardshrink and softshrink: 0 where -lambd <= x <= lambd, else grad.
Tensor shrink_backward(const Tensor& grad, const Tensor& x, double lambd);
// x <= threshold ? value : x, in x's dtype (any but bool).
Tensor threshold(const Tensor& a, double threshold, double value);
void threshold_(const Tensor& self, double threshold, double value);
Tensor hardsigmoid(const Tensor& a);
Tensor hardsigmoid_backward(const Tensor& grad, const Tensor& x);
Tensor mish(const Tensor& a);
Tensor mish_backward(const Tensor& grad, const Tensor& x);
Tensor log_sigmoid(const Tensor& a);
Tensor log_sigmoid_backward(const Tensor& grad, const Tensor& x);
// x > 0 ? x : w * x with w (a scalar or one per channel, dim 1) broadcast over x; torch's checks.
Tensor prelu(const Tensor& x, const Tensor& weight);
// weight viewed so that it broadcasts against x (channel dim 1): [1, C, 1, ...], or weight itself.
Tensor prelu_weight_view(const Tensor& x, const Tensor& weight);
// Runs the unary activation kernel `id` on self in place (in0 == out0, no temporary): self must be
// floating, else torch's "<kernel>" not implemented message; `any_dtype` allows every dtype but bool
// (hardtanh_, torch's "clamp_cpu" for bool).
void activation_inplace(KernelId id, const char* kernel, const Tensor& self, std::initializer_list<Attr> attrs = {},
                        bool any_dtype = false);
// rrelu's training noise: U(lower, upper) per element of x, drawn on the host from glia's
// generator (one stream, in order) and copied to x's device, in x's dtype.
Tensor rrelu_uniform(const Tensor& x, double lower, double upper);

}  // namespace glia::ops
