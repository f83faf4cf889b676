// 3-D pooling (max, avg, adaptive avg) on x [N, C, T, H, W]: meta parts (Note [Op = meta + kernel +
// rule] in core/dispatch.h); the CPU kernels are in ops/cpu/pool3d.cpp. The 1-D pools run the 2-D
// kernels on a view with H = 1 (autograd/fn/pool.cpp).
#pragma once

#include "ops/iter.h"

namespace glia::ops {

// Geometry of one 3-D pool: input [N, C, T, H, W], output [N, C, To, Ho, Wo]; k, s, p, d are the
// kernel, stride, padding and dilation in the order T, H, W.
struct Pool3dGeom {
  int64_t N, C, T, H, W, To, Ho, Wo;
  int64_t k[3], s[3], p[3], d[3] = {1, 1, 1};
};

// torch's checks of max_pool3d / avg_pool3d (is_max false: dilation ignored, torch's "input image
// smaller than kernel size" check) on x, 4-D (unbatched) or 5-D; stride 0 is kernel_size. The
// geometry has N = 1 for a 4-D x.
Pool3dGeom pool3d_geom(const Tensor& x, const int64_t kernel[3], const int64_t stride[3], const int64_t pad[3],
                       const int64_t dilation[3], bool ceil_mode, bool is_max);

// x 5-D. Indices: int64 flat positions in each T * H * W volume.
Tensor max_pool3d_forward(const Tensor& x, const Pool3dGeom& g, Tensor* indices);
Tensor max_pool3d_backward(const Tensor& gy, const Tensor& indices, const Pool3dGeom& g, DType dtype);
Tensor avg_pool3d_forward(const Tensor& x, const Pool3dGeom& g, bool count_include_pad, int64_t divisor_override);
Tensor avg_pool3d_backward(const Tensor& gy, const Pool3dGeom& g, bool count_include_pad, int64_t divisor_override,
                           DType dtype);
// x 5-D; output [N, C, oT, oH, oW].
Tensor adaptive_avg_pool3d_forward(const Tensor& x, int64_t oT, int64_t oH, int64_t oW);
Tensor adaptive_avg_pool3d_backward(const Tensor& gy, int64_t T, int64_t H, int64_t W, DType dtype);

// adaptive_max_pool2d / 3d (out_size of 2 or 3 sizes) on x [N, C, spatial...]; indices: int64 flat
// positions in each plane or volume. The backward is max_pool2d_backward / max_pool3d_backward's.
Tensor adaptive_max_pool_forward(const Tensor& x, IntSpan out_size, Tensor* indices);
// max_unpool2d / 3d (out_size of 2 or 3 sizes): x and indices [N, C, spatial...] of one shape (the
// caller checks), result [N, C, out_size...] zero but where the indices put x's values.
Tensor max_unpool_forward(const Tensor& x, const Tensor& indices, IntSpan out_size);

}  // namespace glia::ops
