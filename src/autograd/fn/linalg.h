#pragma once

#include "autograd/node.h"

namespace glia {

// Matrix products (see ops/linalg.h); backward rules are matrix products of
// transposed views, so create_graph (double backward) works.
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& m, const Tensor& v);
// beta * bias + alpha * (a @ b), bias broadcast to [M, N].
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta = 1.0, double alpha = 1.0);
// torch.matmul: dot, mv, mm, folded and broadcast batched products.
Tensor matmul(const Tensor& a, const Tensor& b);
// torch.nn.functional.linear: x [*, in], w [out, in], bias [out] or undefined.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& bias);

// ---- products composed from the ones above (issue 20, fn/linalg_extra.cpp): torch's checks and
// messages, then mm / bmm / addmm / mul, so autograd (and create_graph) follows from theirs.
struct Scalar;
// input + value * t1 * t2 / input + value * t1 / t2, broadcast (torch.addcmul / torch.addcdiv).
Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value);
Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value);
// torch.vdot for real tensors (dot).
Tensor vdot(const Tensor& a, const Tensor& b);
// torch.inner: the sum over the last dims (a 0-dim operand multiplies).
Tensor inner(const Tensor& a, const Tensor& b);
// torch.outer (torch.ger): a[i] * b[j] of 1-D a and b.
Tensor outer(const Tensor& a, const Tensor& b);
// beta * input + alpha * product; with beta == 0 input is not read (torch.addmv, addr, baddbmm, addbmm).
Tensor addmv(const Tensor& input, const Tensor& m, const Tensor& v, double beta = 1.0, double alpha = 1.0);
Tensor addr(const Tensor& input, const Tensor& v1, const Tensor& v2, double beta = 1.0, double alpha = 1.0);
Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, double beta = 1.0, double alpha = 1.0);
Tensor addbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, double beta = 1.0, double alpha = 1.0);

}  // namespace glia
