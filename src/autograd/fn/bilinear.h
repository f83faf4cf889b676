// torch.nn.functional.bilinear, composed of differentiable ops (so double
// backward works through it).
#pragma once

#include "autograd/node.h"

namespace glia {

// y[..., o] = sum_ij x1[..., i] * weight[o, i, j] * x2[..., j] + bias[o]:
// x1 [*, in1], x2 [*, in2] with the same leading dims, weight [out, in1, in2],
// bias [out] or undefined. Errors (Shape) are ATen's "bilinear(): ..." texts.
Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias);

}  // namespace glia
