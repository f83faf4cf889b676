// The activation modules of issue 21 (torch.nn's PReLU, RReLU, GLU, CELU,
// SELU, Softmin, Softmax2d, Softplus, Softshrink, Hardshrink, Tanhshrink,
// Threshold, Hardtanh, ReLU6, Hardsigmoid, Hardswish, Mish, LogSigmoid):
// torch's constructor arguments and checks, extra_repr and parameter names;
// forward calls autograd/fn/activation_extra.h (the in-place form when built
// with inplace).
#pragma once

#include "nn/modules/layers.h"

namespace glia::nn {

class ActivationExtra : public Module {
 public:
  enum class Kind {
    RReLU,  // a lower, b upper
    GLU,    // dim
    CELU,   // a alpha
    SELU,
    Softmin,  // dim
    Softmax2d,
    Softplus,    // a beta, b threshold
    Softshrink,  // a lambd
    Hardshrink,  // a lambd
    Tanhshrink,
    Threshold,  // a threshold, b value
    Hardtanh,   // a min_val, b max_val
    ReLU6,
    Hardsigmoid,
    Hardswish,
    Mish,
    LogSigmoid,
  };
  // Validates torch's arguments (InvalidArgument with torch's text).
  ActivationExtra(Kind kind, double a = 0.0, double b = 0.0, int64_t dim = 0, bool inplace = false);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  Kind kind;
  double a, b;
  int64_t dim;
  bool inplace;
};

// torch.nn.PReLU(num_parameters, init): parameter "weight" [num_parameters] filled with init.
class PReLU : public Module {
 public:
  PReLU(int64_t num_parameters, double init, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int64_t num_parameters;
  double init;
};

}  // namespace glia::nn
