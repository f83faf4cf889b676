// Upsampling (torch 1.13's upsample_nearest*d, _upsample_nearest_exact*d, upsample_linear1d,
// upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d and their backwards), no autograd:
// meta parts with torch's checks (src/ops/cpu/resample.cpp), CPU kernels in the same file. The input is
// [N, C, *spatial] with 1 to 3 spatial dims (bicubic: 2), float32 or float64; `scales` holds one scale
// factor per spatial dim, <= 0 for torch's None (then in / out is used).
#pragma once

#include "core/tensor.h"

namespace glia::ops {

enum class UpsampleKind { Nearest = 0, NearestExact = 1, Linear = 2, Cubic = 3 };

// out_size: one size per spatial dim. align_corners is read by Linear and Cubic only.
Tensor upsample(const Tensor& x, UpsampleKind kind, IntSpan out_size, const double* scales, bool align_corners);
// The gradient of upsample: grad has the output's shape, the result in_shape.
Tensor upsample_backward(const Tensor& grad, UpsampleKind kind, IntSpan in_shape, const double* scales,
                         bool align_corners);

}  // namespace glia::ops
