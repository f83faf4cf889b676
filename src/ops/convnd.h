// 1-D and 3-D convolutions and torch's im2col/col2im (F.unfold / F.fold), no autograd: meta parts (Note [Op =
// meta + kernel + rule] in core/dispatch.h); the CPU kernels are in ops/cpu/convnd.cpp.
//
// Note [N-d convolutions]: conv1d and conv_transpose1d are conv2d and conv_transpose2d on a view with a
// unit height (what torch does); conv3d and conv_transpose3d are vol2col (the im2col_nd kernel) and a
// batched GEMM per group, their input gradients a GEMM and col2vol (col2im_nd), so two data-movement
// kernels serve unfold, fold and the 3-D convolutions on every device.
#pragma once

#include "ops/conv.h"

namespace glia::ops {

// A sliding window over nd = 2 or 3 spatial dims of x [N, C, *in]: cols [N, C * prod(k), prod(out)],
// the row of channel c and tap (k0, k1[, k2]) is c * prod(k) + the tap's row-major index.
struct ColGeom {
  int nd = 2;
  int64_t N = 0, C = 0;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t taps() const { return k[0] * k[1] * k[2]; }
  int64_t blocks() const { return out[0] * out[1] * out[2]; }
};

// cols of x [N, C, *in] (contiguous or not), in x's dtype, on x's device.
Tensor im2col_nd(const Tensor& x, const ColGeom& g);
// The adjoint: x [N, C, *in] with every column element added at its window position.
Tensor col2im_nd(const Tensor& cols, const ColGeom& g);

// torch's im2col / col2im checks and messages (F.unfold: x [N, C, H, W] or [C, H, W]; F.fold: cols [N,
// C * kh * kw, L] or unbatched [C * kh * kw, L]); the geometry of the batched form.
ColGeom unfold_geom(const Tensor& x, const int64_t kernel[2], const int64_t dilation[2], const int64_t padding[2],
                    const int64_t stride[2]);
ColGeom fold_geom(const Tensor& cols, const int64_t output_size[2], const int64_t kernel[2], const int64_t dilation[2],
                  const int64_t padding[2], const int64_t stride[2]);

// torch's check_shape_forward for a convolution with nd spatial dims (x batched, `op` names it in the
// dimension message), then the checks of the parameters and dtypes.
void check_convnd(const char* op, int nd, const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t* stride,
                  const int64_t* pad, const int64_t* dilation, int64_t groups, bool transposed,
                  const int64_t* output_padding);

// conv1d's geometry as conv2d's on [N, C, 1, L] (pad_mode as conv2d_geom's); x [N, C, L], w [O, C / g, k].
ConvGeom conv1d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, int64_t stride, int64_t pad,
                     int64_t dilation, int64_t groups, int pad_mode);
ConvGeom conv_transpose1d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, int64_t stride, int64_t pad,
                               int64_t output_padding, int64_t dilation, int64_t groups);

// A 3-D convolution: col holds the convolution's input x [N, C, D, H, W] and output [N, O, *out] sizes
// (for conv_transpose3d those of the convolution whose input gradient it is).
struct Conv3dGeom {
  ColGeom col;
  int64_t O = 0, groups = 1;
};
Conv3dGeom conv3d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
                       const int64_t pad[3], const int64_t dilation[3], int64_t groups, int pad_mode);
Conv3dGeom conv_transpose3d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
                                 const int64_t pad[3], const int64_t output_padding[3], const int64_t dilation[3],
                                 int64_t groups);
// y = conv3d(x, w) + bias (bias may be undefined).
Tensor conv3d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv3dGeom& g);
// dL/dx from dL/dy [N, O, *out]; with `bias` added to its channels also conv_transpose3d's forward.
Tensor conv3d_backward_input(const Tensor& gy, const Tensor& w, const Conv3dGeom& g, const Tensor& bias = Tensor());
// dL/dw from dL/dy and x.
Tensor conv3d_backward_weight(const Tensor& gy, const Tensor& x, const Conv3dGeom& g);

}  // namespace glia::ops
