// Host-side helpers of the norms, dropouts and distances of issue 21
// (autograd/fn/nnmisc.cpp composes the ops themselves from existing ops).
#pragma once

#include "core/tensor.h"

namespace glia::ops {

// A Bernoulli mask of `shape` and floating `dtype` on `device`: 1 where an
// element is kept (probability keep, drawn in order from glia's generator on
// the host, so a device gets the CPU's mask for the same seed), else 0.
Tensor bernoulli_mask(IntSpan shape, DType dtype, Device device, double keep);

// pdist's row pairs of an [n, m] input: first[k], second[k] (int64, on
// `device`) enumerate i < j in torch's order (row-major upper triangle).
void pdist_pairs(int64_t n, Device device, Tensor* first, Tensor* second);

}  // namespace glia::ops
