#pragma once

#include "autograd/node.h"
#include "ops/math.h"

namespace glia {

// Unary floating math and rounding with torch's backward rules (SinBackward0,
// LgammaBackward0, RoundBackward1...). Every rule is written in differentiable
// ops, so create_graph works, except digamma's: its derivative (trigamma) has
// no derivative of its own here (an error when asked for).
Tensor math(ops::MathOp op, const Tensor& a);
Tensor round_decimals(const Tensor& a, int64_t decimals);
Tensor logit(const Tensor& a, double eps);  // eps < 0: None
Tensor trigamma(const Tensor& a);

// In place (sin_ ...): torch's cast rule, the version counter and the leaf rule.
void math_(ops::MathOp op, const Tensor& self);
void round_decimals_(const Tensor& self, int64_t decimals);
void logit_(const Tensor& self, double eps);

// Binary math with torch's rules (Atan2Backward0, RemainderBackward1, FmaxBackward0...);
// the bitwise ops are not differentiable.
Tensor binary_math(ops::BinaryMathOp op, const Tensor& a, const Tensor& b);
Tensor bitwise_not(const Tensor& a);
// Not differentiable (bool results).
Tensor float_class(ops::FloatClass c, const Tensor& a);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);
// NanToNumBackward0: the gradient flows where the input is finite.
Tensor nan_to_num(const Tensor& a, double nan, const double* posinf, const double* neginf);

// LerpBackward1 (tensor weight), LerpBackward0 (a number).
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor lerp_scalar(const Tensor& start, const Tensor& end, double weight);

}  // namespace glia
