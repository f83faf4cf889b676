#pragma once

#include "autograd/node.h"

namespace glia {

Tensor add(const Tensor& a, const Tensor& b, double alpha = 1.0);
Tensor sub(const Tensor& a, const Tensor& b, double alpha = 1.0);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b, const char* rounding_mode = nullptr);
Tensor neg(const Tensor& a);
// In place (bumps the version counter; an error on a leaf that requires grad in grad mode).
void add_(const Tensor& self, const Tensor& other, double alpha = 1.0);
void mul_(const Tensor& self, const Tensor& other);

// Sums `grad` down to `shape` (undoes broadcasting), differentiably.
Tensor sum_to(const Tensor& grad, IntSpan shape);
// Checks that `self` may be written in place under autograd (torch's leaf rule).
void check_inplace(const Tensor& self, const char* op);

}  // namespace glia

#include <optional>

#include "core/scalar.h"
#include "ops/elementwise.h"

namespace glia {

// Scalar operands (Python numbers: wrapped 0-dim tensors, torch's promotion).
Tensor add_scalar(const Tensor& a, const Scalar& s, double alpha = 1.0);
Tensor sub_scalar(const Tensor& a, const Scalar& s, double alpha = 1.0);
Tensor rsub_scalar(const Tensor& a, const Scalar& s, double alpha = 1.0);  // s - alpha * a
Tensor mul_scalar(const Tensor& a, const Scalar& s);
Tensor div_scalar(const Tensor& a, const Scalar& s, const char* rounding_mode = nullptr);

Tensor abs(const Tensor& a);
Tensor sign(const Tensor& a);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor log1p(const Tensor& a);
Tensor expm1(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor rsqrt(const Tensor& a);
Tensor erf(const Tensor& a);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow_scalar(const Tensor& a, const Scalar& exponent);
Tensor scalar_pow(const Scalar& base, const Tensor& b);
Tensor clamp(const Tensor& a, const std::optional<Scalar>& min, const std::optional<Scalar>& max);
Tensor clamp_tensor(const Tensor& a, const Tensor& min, const Tensor& max);  // undefined = None
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// Comparisons and logic: not differentiable, results are bool.
Tensor compare(const Tensor& a, const Tensor& b, ops::Cmp op);
Tensor compare_scalar(const Tensor& a, const Scalar& s, ops::Cmp op);
Tensor logical(const Tensor& a, const Tensor& b, ops::Logic op);
Tensor logical_not(const Tensor& a);

// In place (all bump the version counter and follow the leaf rule).
void sub_(const Tensor& self, const Tensor& other, double alpha = 1.0);
void div_(const Tensor& self, const Tensor& other);
void add_scalar_(const Tensor& self, const Scalar& s, double alpha = 1.0);
void mul_scalar_(const Tensor& self, const Scalar& s);
void addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
// After an op overwrote `self` in place (fill_, zero_, the random fills): bumps its version and, when it
// requires grad, records node_name, whose gradient for the old value is zero.
void overwrite_history(const Tensor& self, const char* node_name);
void zero_(const Tensor& self);
void fill_(const Tensor& self, const Scalar& value);
void copy_(const Tensor& self, const Tensor& src, bool non_blocking = false);
void clamp_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max);

// Converts a gradient to the dtype of the input it belongs to.
Tensor as_input(const Tensor& g, DType t);
// A 0-dim zero of g's dtype (where's "no gradient" branch).
Tensor zero_like_scalar(const Tensor& g);

}  // namespace glia
