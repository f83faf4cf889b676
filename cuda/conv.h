// What conv.cpp (cuDNN) and conv.cu (its own kernels) share: the geometry of a convolution call and the
// kernels that cuDNN does not run (bias addition, the bias gradient, int64 convolutions).
#ifndef GLIA_CUDA_CONV_H
#define GLIA_CUDA_CONV_H

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common.h"

namespace glia::cuda {

// x [N, C, H, W], w [O, C / groups, kh, kw], y [N, O, Ho, Wo]; padding ph/pw is the top/left one (the
// bottom/right one is whatever makes Ho, Wo: "same" padding may add one row or column there).
struct ConvShape {
  int64_t N, C, H, W, O, kh, kw, Ho, Wo;
  int64_t sh, sw, ph, pw, dh, dw, groups;
};

// out [N, C, HW] (contiguous) += bias [C] (contiguous), in the accumulation type of the dtype (float for the
// 16-bit floats), rounded once (the CPU's add_channel_bias).
glia_error* add_channel_bias(void* out, const void* bias, glia_dtype t, int64_t N, int64_t C, int64_t HW,
                             cudaStream_t stream);

// The int64 convolutions (cuDNN has none; the CPU computes them exactly, wrapping on overflow): gather
// formulations, one thread per output element, so every element is written once in a fixed order.
// dir 0: y = conv(x, w); 1: gx from gy and w; 2: gw from gy and x. All contiguous.
glia_error* conv_int64(int dir, const ConvShape& g, const int64_t* a, const int64_t* b, int64_t* out,
                       cudaStream_t stream);

// conv2d_backward_bias (conv.cu): per-channel sums of gy [N, O, Ho, Wo], deterministic.
glia_kernel_fn conv_bias_kernel();

}  // namespace glia::cuda

#endif  // GLIA_CUDA_CONV_H
