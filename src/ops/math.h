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
