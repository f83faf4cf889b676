// torch.nn.init: in-place initialisers (run without recording autograd, bump
// the tensor's version) and calculate_gain. Formulas, defaults and error texts
// are torch's. Random draws come from the calling thread's generator.
#pragma once

#include <cmath>
#include <string>
#include <utility>

#include "core/tensor.h"

namespace glia::nn::init {

enum class FanMode { FanIn, FanOut };

// calculate_gain(nonlinearity, param): "linear", "conv1d", "conv2d", "conv3d",
// "conv_transpose1d/2d/3d", "sigmoid" -> 1; "tanh" -> 5/3; "relu" -> sqrt(2);
// "leaky_relu" -> sqrt(2 / (1 + param^2)) (param defaults to 0.01 when NaN);
// "selu" -> 3/4. Unknown: "Unsupported nonlinearity <name>" (InvalidArgument).
double calculate_gain(const std::string& nonlinearity, double param = std::nan(""));
// (fan_in, fan_out) of a weight of dim >= 2 (torch's _calculate_fan_in_and_fan_out).
std::pair<int64_t, int64_t> fans(const Tensor& t);

void uniform_(const Tensor& t, double a = 0.0, double b = 1.0);
void normal_(const Tensor& t, double mean = 0.0, double std = 1.0);
void constant_(const Tensor& t, double value);
void ones_(const Tensor& t);
void zeros_(const Tensor& t);
void eye_(const Tensor& t);  // 2-D only
// dirac_(t, groups): 3-, 4- or 5-D; the identity of a convolution (1 at the kernel's centre of
// channel d of each group's output d), torch's errors.
void dirac_(const Tensor& t, int64_t groups = 1);
// sparse_(t, sparsity, std): 2-D; N(0, std) values with ceil(sparsity * rows) of each column's
// entries, at random rows, set to zero (torch's sparse_; the tensor stays dense).
void sparse_(const Tensor& t, double sparsity, double std = 0.01);
void xavier_uniform_(const Tensor& t, double gain = 1.0);
void xavier_normal_(const Tensor& t, double gain = 1.0);
void kaiming_uniform_(const Tensor& t, double a = 0.0, FanMode mode = FanMode::FanIn,
                      const std::string& nonlinearity = "leaky_relu");
void kaiming_normal_(const Tensor& t, double a = 0.0, FanMode mode = FanMode::FanIn,
                     const std::string& nonlinearity = "leaky_relu");
// Implemented in init_extra.cpp.
void orthogonal_(const Tensor& t, double gain = 1.0);
void trunc_normal_(const Tensor& t, double mean = 0.0, double std = 1.0, double a = -2.0, double b = 2.0);

// The bound torch's Linear/Conv use for their bias: 1/sqrt(fan_in) (0 when fan_in is 0).
double bias_bound(const Tensor& weight);

}  // namespace glia::nn::init
