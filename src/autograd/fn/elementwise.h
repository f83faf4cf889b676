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
