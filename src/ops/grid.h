// Grid sampling (torch 1.13's grid_sampler_2d / grid_sampler_3d and their backwards) and fractional
// max pooling (fractional_max_pool2d / 3d), no autograd: meta parts with torch's checks and messages
// (src/ops/cpu/grid.cpp), CPU kernels in the same file, per-element math in core/grid_math.h.
#pragma once

#include <utility>

#include "core/tensor.h"

namespace glia::ops {

// torch.grid_sampler(input, grid, mode, padding_mode, align_corners): input [N, C, H, W] with grid
// [N, Ho, Wo, 2], or [N, C, D, H, W] with grid [N, Do, Ho, Wo, 3]; float32 / float64, one dtype.
// mode 0 bilinear, 1 nearest, 2 bicubic (4-D only); padding_mode 0 zeros, 1 border, 2 reflection.
// torch's checks (check_grid_sampler_common, _2d, _3d) and messages.
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding_mode, bool align_corners);
// The gradients of grid_sampler: {grad_input (input's shape), grad_grid (grid's shape)}; grad has the
// output's shape.
std::pair<Tensor, Tensor> grid_sampler_backward(const Tensor& grad, const Tensor& input, const Tensor& grid,
                                                int64_t mode, int64_t padding_mode, bool align_corners);

// torch._C._nn.fractional_max_pool2d / 3d(input, kernel_size, output_size, random_samples): k = 2 or 3
// spatial dims; input [N, C, *spatial] or unbatched [C, *spatial]; samples [N, C, k] (N = 1 unbatched)
// of the input's dtype, or null for torch.nn.functional's default (uniform [0, 1) draws from glia's
// generator, made after the checks). Returns the values; *indices (int64, flat positions in each plane
// or volume, the output's shape). torch's checks and messages, and glia's where torch reads out of
// bounds (kernel sizes must be positive, samples [N, C, k]).
Tensor fractional_max_pool(const Tensor& input, int64_t k, IntSpan kernel_size, IntSpan output_size,
                           const Tensor* samples, Tensor* indices);

}  // namespace glia::ops
