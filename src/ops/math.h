// Unary floating math (trigonometric and hyperbolic functions and their
// inverses, exp2/log2/log10, erfc/erfinv, lgamma/digamma, logit) and rounding
// (trunc, frac, floor, ceil, round): the meta parts (no autograd), in
// ops/cpu/math.cpp. Ops marked "float" give float32 for integer and bool
// inputs (torch's default dtype); the rounding ops keep integer dtypes.
#pragma once

#include "core/dispatch.h"

namespace glia::ops {

// The unary math ops, one kernel each (core/kernels.def).
enum class MathOp {
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Exp2,
  Log2,
  Log10,
  Erf,
  Erfc,
  Erfinv,
  Lgamma,
  Digamma,
  Trunc,
  Frac,
  Floor,
  Ceil,
  Round,
};

// op(a); float ops promote integer inputs. Trunc, floor, ceil and round copy
// integer inputs and refuse bool; frac refuses integers (torch's messages).
Tensor math(MathOp op, const Tensor& a);
// round(a, decimals): decimals != 0 refuses integer inputs.
Tensor round_decimals(const Tensor& a, int64_t decimals);
// log(z / (1 - z)), z = clamp(a, eps, 1 - eps) when eps >= 0 (eps < 0: None). Float.
Tensor logit(const Tensor& a, double eps);
// polygamma(1, a), digamma's derivative (internal: digamma's backward).
Tensor trigamma(const Tensor& a);
// torch's name of an op (its Python name: "sin", "lgamma"...).
const char* math_name(MathOp op);
const char* math_inplace_name(MathOp op);  // "sin_"

// self <- r (the out-of-place result), after torch's in-place cast check
// ("result type Float can't be cast to the desired output type Long").
void assign_inplace(const char* name, const Tensor& self, const Tensor& r);

}  // namespace glia::ops

namespace glia::ops {

// ---- binary math (ops/cpu/math.cpp): broadcasting and torch's promotion; "float" ops give
// float32 for integer operands.
enum class BinaryMathOp {
  Atan2,      // float
  Hypot,      // floating operands only ("hypot_cpu" not implemented for 'Long')
  Copysign,   // float
  Xlogy,      // float: x * log(y), 0 where x == 0 (unless y is NaN)
  Fmod,       // any but bool; the sign of the dividend; integer division by zero fails
  Remainder,  // any but bool; the sign of the divisor (Python's %)
  Fmax,       // any; a NaN operand is ignored
  Fmin,
  BitwiseAnd,  // integers and bool
  BitwiseOr,
  BitwiseXor,
  LeftShift,   // integers; shifts by a negative count or by the width or more give 0
  RightShift,  // integers; arithmetic for signed types, 0 or -1 past the width
};
Tensor binary_math(BinaryMathOp op, const Tensor& a, const Tensor& b);
const char* binary_math_name(BinaryMathOp op);  // torch's op name ("atan2", "bitwise_and")

// ~a (integers and bool).
Tensor bitwise_not(const Tensor& a);

// Predicates: bool results. Integer and bool inputs are finite and never NaN.
enum class FloatClass { IsNan, IsInf, IsFinite, IsPosInf, IsNegInf };
Tensor float_class(FloatClass c, const Tensor& a);

// NaN -> nan, +inf -> posinf, -inf -> neginf (NULL: the dtype's largest / lowest finite
// value); integer inputs are copied.
Tensor nan_to_num(const Tensor& a, double nan, const double* posinf, const double* neginf);

}  // namespace glia::ops

namespace glia::ops {
// torch.isclose: |a - b| <= atol + rtol * |b| (finite), or a == b, or both NaN when equal_nan.
// a and b must have one dtype (torch's "Float did not match Double").
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);
}  // namespace glia::ops

namespace glia::ops {
// torch.lerp: start + weight * (end - start) (torch's two-sided formula); start, end and a
// tensor weight must share one floating dtype ("expected dtype float for `end` but got dtype
// double").
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor lerp_scalar(const Tensor& start, const Tensor& end, double weight);
}  // namespace glia::ops
