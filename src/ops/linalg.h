// Matrix products (no autograd): the meta parts. The CPU's GEMM (OpenBLAS for
// float32/float64, bfloat16 in float32, plain loops for the integer types) is
// in ops/cpu/loops.h and ops/cpu/linalg.cpp.
#pragma once

#include "ops/iter.h"

namespace glia::ops {

// torch.mm / torch.bmm / torch.addmm / torch.dot / torch.mv with torch's checks and messages.
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta, double alpha);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& m, const Tensor& v);

}  // namespace glia::ops
