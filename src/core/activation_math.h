// Per-element math of the activations of issue 21 (hardshrink, softshrink, hardsigmoid, mish, log_sigmoid,
// prelu) and their fused backward formulas, on one value of an accumulation type A (float for float32 and the
// 16-bit floats, double for float64): torch 1.13's CPU formulas. Shared by the CPU kernels
// (src/ops/cpu/activation_extra.cpp) and the CUDA backend's (cuda/activation_extra.cu), as elementwise_math.h
// (GLIA_MATH_HD); no tensor types here. std::min / std::max are spelled out with their exact comparisons, so
// that a NaN goes where theirs goes.
#ifndef GLIA_CORE_ACTIVATION_MATH_H
#define GLIA_CORE_ACTIVATION_MATH_H

#include <cmath>

#include "core/elementwise_math.h"

namespace glia::math {

template <class A>
GLIA_MATH_HD A hardshrink(A x, A l) {
  return (x >= -l && x <= l) ? A(0) : x;
}
template <class A>
GLIA_MATH_HD A softshrink(A x, A l) {
  return x > l ? x - l : (x < -l ? x + l : A(0));
}
template <class A>
GLIA_MATH_HD A shrink_backward(A g, A x, A l) {
  return (x >= -l && x <= l) ? A(0) : g;
}
// std::min(std::max(x + 3, 0), 6) / 6: max(a, b) is (a < b) ? b : a, min(a, b) is (b < a) ? b : a.
template <class A>
GLIA_MATH_HD A hardsigmoid(A x) {
  const A up = x + A(3);
  const A lo = up < A(0) ? A(0) : up;
  return (A(6) < lo ? A(6) : lo) / A(6);
}
template <class A>
GLIA_MATH_HD A hardsigmoid_backward(A g, A x) {
  // torch's one_sixth is the float 1.0f / 6.0f, also for double.
  return (x > A(-3) && x < A(3)) ? g * static_cast<A>(1.0f / 6.0f) : A(0);
}
template <class A>
GLIA_MATH_HD A mish(A x) {
  return x * std::tanh(std::log1p(std::exp(x)));
}
template <class A>
GLIA_MATH_HD A mish_backward(A g, A x) {
  const A s = A(1) / (A(1) + std::exp(-x));
  const A t = std::tanh(std::log1p(std::exp(x)));
  return g * (t + x * s * (A(1) - t * t));
}
// torch's log_sigmoid_cpu: min(x, 0) - log1p(exp(-|x|)).
template <class A>
GLIA_MATH_HD A log_sigmoid(A x) {
  return (A(0) < x ? A(0) : x) - std::log1p(std::exp(-std::fabs(x)));
}
// torch's log_sigmoid_backward_cpu.
template <class A>
GLIA_MATH_HD A log_sigmoid_backward(A g, A x) {
  const bool neg = x < A(0);
  const A z = std::exp(-std::fabs(x));
  return g * ((neg ? A(1) : A(0)) - (neg ? A(1) : A(-1)) * (z / (A(1) + z)));
}
template <class A>
GLIA_MATH_HD A prelu(A x, A w) {
  return x > A(0) ? x : w * x;
}

}  // namespace glia::math

#endif  // GLIA_CORE_ACTIVATION_MATH_H
