// Differentiable upsampling: torch.nn.functional.interpolate (kernels: ops/resample.h); pixel_shuffle,
// pixel_unshuffle and channel_shuffle (views and a copy).
#pragma once

#include <optional>
#include <vector>

#include "autograd/node.h"
#include "ops/resample.h"

namespace glia {

// F.interpolate's modes (glia_interpolate_mode's order).
enum class InterpolateMode {
  Nearest = 0,
  Linear = 1,
  Bilinear = 2,
  Bicubic = 3,
  Trilinear = 4,
  Area = 5,
  NearestExact = 6
};

// torch.nn.functional.interpolate(x, size, scale_factor, mode, align_corners, recompute_scale_factor) with
// torch 1.13's argument checks and messages. size / scale_factor: nullopt is None, one value is torch's
// int / float (every spatial dim), more are the list. align_corners and recompute_scale_factor: nullopt
// is None.
Tensor interpolate(const Tensor& x, const std::optional<std::vector<int64_t>>& size,
                   const std::optional<std::vector<double>>& scale_factor, InterpolateMode mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor);

// torch.nn.functional.pixel_shuffle / pixel_unshuffle with torch 1.13's checks; each one's gradient is the
// other (PixelShuffleBackward0 / PixelUnshuffleBackward0).
Tensor pixel_shuffle(const Tensor& x, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& x, int64_t downscale_factor);
// torch.nn.functional.channel_shuffle: not differentiable in torch 1.13 (an input that requires grad gives an
// output whose backward fails, as torch's NotImplemented node).
Tensor channel_shuffle(const Tensor& x, int64_t groups);

}  // namespace glia
