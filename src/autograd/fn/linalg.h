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

}  // namespace glia
