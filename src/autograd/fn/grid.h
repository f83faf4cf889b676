// Differentiable grid sampling and fractional max pooling (kernels: ops/grid.h): torch.nn.functional's
// grid_sample (torch.grid_sampler), affine_grid (torch.affine_grid_generator) and fractional_max_pool2d /
// 3d (torch._C._nn.fractional_max_pool2d / 3d) and torch.conv_tbc, with torch 1.13's checks, messages and node names.
#pragma once

#include "autograd/node.h"

namespace glia {

// torch.grid_sampler(input, grid, mode, padding_mode, align_corners): mode 0 bilinear, 1 nearest,
// 2 bicubic; padding_mode 0 zeros, 1 border, 2 reflection. Gradients to input and grid
// (GridSampler2DBackward0 / GridSampler3DBackward0; first derivatives only, as torch).
Tensor grid_sample(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding_mode, bool align_corners);

// torch.nn.functional.affine_grid(theta, size, align_corners) with its Python checks: theta [N, 2, 3]
// for size [N, C, H, W] (grid [N, H, W, 2]) or [N, 3, 4] for [N, C, D, H, W] (grid [N, D, H, W, 3]).
// AffineGridGeneratorBackward0, whose gradient is itself differentiable.
Tensor affine_grid(const Tensor& theta, IntSpan size, bool align_corners);

// torch._C._nn.fractional_max_pool2d / 3d (k = 2 / 3): samples null for torch.nn.functional's default
// draw. *indices (when non-null) the int64 flat positions. FractionalMaxPool2DBackward0 / 3D.
Tensor fractional_max_pool(const Tensor& input, int64_t k, IntSpan kernel_size, IntSpan output_size,
                           const Tensor* samples, Tensor* indices = nullptr);

// torch.conv_tbc(input [T, B, Cin], weight [K, Cin, Cout], bias [Cout], pad) with torch's checks and messages:
// conv1d on [B, C, T] views (a negative pad narrows the input). ConvTbcBackward0, whose gradients are
// conv_transpose1d / conv1d / sum again (differentiable).
Tensor conv_tbc(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t pad);

}  // namespace glia
