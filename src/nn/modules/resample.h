// torch.nn's padding modules (ConstantPad1d/2d/3d, ZeroPad2d, ReflectionPad1d/2d/3d,
// ReplicationPad1d/2d/3d) and upsampling modules (Upsample, UpsamplingNearest2d,
// UpsamplingBilinear2d) and rearrangement modules (PixelShuffle, PixelUnshuffle, ChannelShuffle): thin modules over the
// differentiable pad (autograd/fn/index.h) and interpolate (autograd/fn/resample.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autograd/fn/resample.h"
#include "autograd/functions.h"
#include "nn/module.h"
#include "nn/repr.h"

namespace glia::nn {

// One class for the ten padding modules: the type name is torch's class name
// ("ReflectionPad2d"); padding is stored as torch stores it (an int already
// expanded to 2 * dims values, a tuple as given), forward is
// F.pad(x, padding, mode, value).
class PadModule : public Module {
 public:
  PadModule(std::string type_name, PadMode mode, std::vector<int64_t> padding, double value, bool zero_pad);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  PadMode mode;
  std::vector<int64_t> padding;
  double value;
  bool zero_pad;  // ZeroPad2d prints only its padding
};

// Upsample and its two subclasses (type_name "UpsamplingNearest2d" / "UpsamplingBilinear2d"): forward is
// F.interpolate with the stored arguments; size / scale_factor as interpolate takes them (one value: torch's
// int / float; nullopt: None).
class Upsample : public Module {
 public:
  Upsample(std::string type_name, std::optional<std::vector<int64_t>> size,
           std::optional<std::vector<double>> scale_factor, InterpolateMode mode, std::optional<bool> align_corners,
           std::optional<bool> recompute_scale_factor);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  std::optional<std::vector<int64_t>> size;
  std::optional<std::vector<double>> scale_factor;
  InterpolateMode mode;
  std::optional<bool> align_corners, recompute_scale_factor;
};

// PixelShuffle(upscale_factor), PixelUnshuffle(downscale_factor), ChannelShuffle(groups).
class ShuffleModule : public Module {
 public:
  enum class Kind { PixelShuffle, PixelUnshuffle, ChannelShuffle };
  ShuffleModule(Kind kind, int64_t factor);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  Kind kind;
  int64_t factor;
};

}  // namespace glia::nn
