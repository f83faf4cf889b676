// Differentiable activations of issue 21 (torch.nn.functional's names and
// defaults, torch 1.13's grad_fn names) and the in-place forms torch has.
// The in-place forms follow torch's rules: they bump self's version, refuse a
// leaf that requires grad in grad mode, and save what torch saves (the result
// for leaky_relu_, elu_, celu_, selu_ and rrelu_, whose nodes are torch's
// *Backward1; a copy of self before the write for the others, threshold_'s
// node being ThresholdBackward1 all the same).
#pragma once

#include "autograd/node.h"

namespace glia {

Tensor hardshrink(const Tensor& a, double lambd = 0.5);
Tensor softshrink(const Tensor& a, double lambd = 0.5);
Tensor tanhshrink(const Tensor& a);  // a - tanh(a)
// a <= threshold ? value : a (any dtype but bool).
Tensor threshold(const Tensor& a, double threshold, double value);
Tensor hardsigmoid(const Tensor& a);
Tensor mish(const Tensor& a);
Tensor log_sigmoid(const Tensor& a);  // torch.nn.functional.logsigmoid
Tensor celu(const Tensor& a, double alpha = 1.0);
Tensor selu(const Tensor& a);
Tensor relu6(const Tensor& a);  // hardtanh(a, 0, 6)
Tensor glu(const Tensor& a, int64_t dim = -1);
// weight: a scalar or one value per channel (dim 1 of a).
Tensor prelu(const Tensor& a, const Tensor& weight);
// Training: a >= 0 ? a : a * U(lower, upper) per element (glia's generator); eval: the mean slope.
Tensor rrelu(const Tensor& a, double lower = 1.0 / 8.0, double upper = 1.0 / 3.0, bool training = false);
Tensor softmin(const Tensor& a, int64_t dim);  // softmax(-a, dim)

void leaky_relu_(const Tensor& self, double negative_slope = 0.01);
void elu_(const Tensor& self, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
void celu_(const Tensor& self, double alpha = 1.0);
void selu_(const Tensor& self);
void hardtanh_(const Tensor& self, double min_val = -1.0, double max_val = 1.0);
void threshold_(const Tensor& self, double threshold, double value);
void rrelu_(const Tensor& self, double lower = 1.0 / 8.0, double upper = 1.0 / 3.0, bool training = false);
void hardsigmoid_(const Tensor& self);
void hardswish_(const Tensor& self);
void mish_(const Tensor& self);
void silu_(const Tensor& self);

}  // namespace glia
