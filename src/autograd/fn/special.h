// Elementwise and special functions with torch 1.13's backward rules
// (LogaddexpBackward0, PolygammaBackward0, MvlgammaBackward0, I0Backward0,
// SincBackward0, FrexpBackward0, IgammaBackward0 ...), and the ops torch
// composes of others (ldexp, float_power, dist, renorm). The rules are written
// in differentiable ops, so create_graph works where the registry says GRAD2.
#pragma once

#include <utility>

#include "autograd/node.h"
#include "ops/special.h"

namespace glia {

// logaddexp, logaddexp2, igamma, igammac: differentiable (igamma/igammac w.r.t. x only:
// torch's error for the first argument); heaviside and nextafter are not differentiable.
Tensor special_binary(ops::SpecialBinary op, const Tensor& a, const Tensor& b);
// (mantissa, int32 exponent); the mantissa's gradient is grad / 2^exponent.
std::pair<Tensor, Tensor> frexp(const Tensor& a);
Tensor polygamma(int64_t n, const Tensor& a);
Tensor mvlgamma(const Tensor& a, int64_t p);
Tensor i0(const Tensor& a);
Tensor special_i1(const Tensor& a);  // i0's derivative (I1Backward0)
Tensor sinc(const Tensor& a);
// torch's compositions: a * 2^b; pow in float64; vector_norm(a - b, p); each slice along dim
// with a p-norm above maxnorm scaled to maxnorm.
Tensor ldexp(const Tensor& a, const Tensor& b);
Tensor float_power(const Tensor& a, const Tensor& b);
Tensor dist(const Tensor& a, const Tensor& b, double p);
Tensor renorm(const Tensor& a, double p, int64_t dim, double maxnorm);

}  // namespace glia
