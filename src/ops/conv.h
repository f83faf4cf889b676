// 2-D convolution and pooling (no autograd), NCHW: meta parts (Note [Op = meta + kernel + rule] in
// core/dispatch.h); the CPU kernels are in ops/cpu/conv.cpp and ops/cpu/pool.cpp.
#pragma once

#include "ops/iter.h"

namespace glia::ops {

// Geometry of one convolution: input [N, C, H, W], weight [O, C / groups, kh, kw], output [N, O, Ho, Wo].
// ph, pw are the top/left paddings (the bottom/right ones only shape Ho, Wo: asymmetric "same").
struct ConvGeom {
  int64_t N, C, H, W, O, kh, kw, Ho, Wo;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

// torch's checks of conv2d's arguments (4-D x; `w` 4-D; bias undefined or [O]; one dtype and device) and the
// geometry.
// pad_mode: 0 explicit (pad), 1 valid, 2 same.
ConvGeom conv2d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                     const int64_t pad[2], const int64_t dilation[2], int64_t groups, int pad_mode);
// conv_transpose2d's: w [C, O / groups, kh, kw]; the geometry is that of the conv2d whose input
// gradient the transposed convolution is (its N, C, H, W describe the transposed conv's output).
ConvGeom conv_transpose2d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                               const int64_t pad[2], const int64_t output_padding[2], const int64_t dilation[2],
                               int64_t groups);

// The results are on the inputs' device.
// y = conv2d(x, w) + bias (bias may be undefined); x [N, C, H, W]. When `cols` is non-null and the
// im2col matrices of all images are cheap to keep (Note [Kept im2col]; CPU only), *cols receives them
// for conv2d_backward_weight; otherwise *cols is left undefined.
Tensor conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g, Tensor* cols = nullptr);
// dL/dx of conv2d from dL/dy [N, O, Ho, Wo]; with `bias` (may be undefined) added to its channels, also
// conv_transpose2d's forward.
Tensor conv2d_backward_input(const Tensor& gy, const Tensor& w, const ConvGeom& g, const Tensor& bias = Tensor());
// dL/dw of conv2d from dL/dy and x; `cols` (may be undefined): what conv2d_forward kept for this x.
Tensor conv2d_backward_weight(const Tensor& gy, const Tensor& x, const ConvGeom& g, const Tensor& cols = Tensor());
// Sum of gy over N, H, W (dL/dbias) in gy's dtype.
Tensor conv_backward_bias(const Tensor& gy);
// Size of the im2col blocks (Note [im2col blocks]); bytes <= 0 restores the default. Returns the
// previous size. For tests (small blocks exercise the block loop on small inputs).
int64_t set_conv_block_bytes(int64_t bytes);

// ---- pooling; x [N, C, H, W] (callers add the batch dim for 3-D inputs)
struct PoolGeom {
  int64_t N, C, H, W, kh, kw, Ho, Wo, sh, sw, ph, pw, dh = 1, dw = 1;
};
// torch's pooling_output_shape and pool2d_shape_check; `op` names the op in messages.
PoolGeom pool2d_geom(const Tensor& x, const int64_t kernel[2], const int64_t stride[2], const int64_t pad[2],
                     const int64_t dilation[2], bool ceil_mode, bool is_max);

// Max pooling; indices (int64, flat index into the H*W plane) when `indices` is non-null.
Tensor max_pool2d_forward(const Tensor& x, const PoolGeom& g, Tensor* indices);
Tensor max_pool2d_backward(const Tensor& gy, const Tensor& indices, const PoolGeom& g, DType dtype);
Tensor avg_pool2d_forward(const Tensor& x, const PoolGeom& g, bool count_include_pad, int64_t divisor_override);
Tensor avg_pool2d_backward(const Tensor& gy, const PoolGeom& g, bool count_include_pad, int64_t divisor_override,
                           DType dtype);
Tensor adaptive_avg_pool2d_forward(const Tensor& x, int64_t oh, int64_t ow);
Tensor adaptive_avg_pool2d_backward(const Tensor& gy, int64_t H, int64_t W, DType dtype);

// "torch.FloatTensor" style names of torch's conv messages ("torch.cuda.FloatTensor" off the CPU).
std::string torch_tensor_type(DType t, Device d);

}  // namespace glia::ops
