// Differentiable upsampling: torch.nn.functional.interpolate (kernels: ops/resample.h).
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

}  // namespace glia
