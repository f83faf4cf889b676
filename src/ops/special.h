// Elementwise and special functions (torch.logaddexp, heaviside, nextafter,
// frexp, polygamma, mvlgamma, i0, sinc, igamma ...): the meta parts (no
// autograd), in ops/cpu/special.cpp. Ops marked "float" give float32 for
// integer and bool inputs (torch's default dtype); binary ones broadcast and
// follow torch's type promotion.
#pragma once

#include <utility>

#include "core/dispatch.h"

namespace glia::ops {

enum class SpecialBinary {
  Logaddexp,   // floating operands only ("logaddexp_cpu" not implemented for 'Long')
  Logaddexp2,  // floating operands only
  Heaviside,   // one dtype for both (any real dtype); values where input == 0
  Nextafter,   // floating operands only
  Igamma,      // floating operands only: P(a, x)
  Igammac,     // floating operands only: Q(a, x) = 1 - P(a, x)
};
Tensor special_binary(SpecialBinary op, const Tensor& a, const Tensor& b);
const char* special_binary_name(SpecialBinary op);  // torch's name ("logaddexp")

// (mantissa, int32 exponent) with a = mantissa * 2^exponent; floating inputs only.
std::pair<Tensor, Tensor> frexp(const Tensor& a);
// polygamma(n, a), n >= 0. Float.
Tensor polygamma(int64_t n, const Tensor& a);
// The log of the multivariate gamma function of dimension p >= 1; bool refused. Float.
Tensor mvlgamma(const Tensor& a, int64_t p);
// Modified Bessel functions I0 and I1 (I1 internal: i0's derivative). Float.
Tensor i0(const Tensor& a);
Tensor i1(const Tensor& a);
// sin(pi a) / (pi a), 1 at 0. Float.
Tensor sinc(const Tensor& a);

}  // namespace glia::ops
