// torch.nn's padding modules (nn/modules/resample.h).
#include "nn/modules/resample.h"

#include <utility>

namespace glia::nn {

PadModule::PadModule(std::string type_name, PadMode m, std::vector<int64_t> p, double v, bool zero)
    : Module(std::move(type_name)), mode(m), padding(std::move(p)), value(v), zero_pad(zero) {}

TensorList PadModule::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {pad(inputs[0], padding, mode, mode == PadMode::Constant ? value : 0.0)};
}

std::string PadModule::extra_repr() const {
  // torch prints the padding tuple: "(1, 2)", a 1-tuple "(1,)".
  std::string s = "(";
  for (size_t i = 0; i < padding.size(); ++i) s += (i ? ", " : "") + std::to_string(padding[i]);
  s += padding.size() == 1 ? ",)" : ")";
  if (mode != PadMode::Constant || zero_pad) return s;
  return "padding=" + s + ", value=" + py_float(value);
}

Upsample::Upsample(std::string type_name, std::optional<std::vector<int64_t>> sz, std::optional<std::vector<double>> sf,
                   InterpolateMode m, std::optional<bool> ac, std::optional<bool> rs)
    : Module(std::move(type_name)),
      size(std::move(sz)),
      scale_factor(std::move(sf)),
      mode(m),
      align_corners(ac),
      recompute_scale_factor(rs) {}

TensorList Upsample::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {interpolate(inputs[0], size, scale_factor, mode, align_corners, recompute_scale_factor)};
}

std::string Upsample::extra_repr() const {
  static const char* modes[] = {"nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact"};
  std::string s;
  if (scale_factor) {
    s = "scale_factor=";
    if (scale_factor->size() == 1) {
      s += py_float((*scale_factor)[0]);
    } else {
      s += "(";
      for (size_t i = 0; i < scale_factor->size(); ++i) s += (i ? ", " : "") + py_float((*scale_factor)[i]);
      s += ")";
    }
  } else {
    s = "size=";
    if (!size) {
      s += "None";
    } else if (size->size() == 1) {
      s += std::to_string((*size)[0]);
    } else {
      s += "(";
      for (size_t i = 0; i < size->size(); ++i) s += (i ? ", " : "") + std::to_string((*size)[i]);
      s += ")";
    }
  }
  return s + ", mode=" + modes[static_cast<int>(mode)];
}

namespace {
const char* shuffle_name(ShuffleModule::Kind k) {
  return k == ShuffleModule::Kind::PixelShuffle     ? "PixelShuffle"
         : k == ShuffleModule::Kind::PixelUnshuffle ? "PixelUnshuffle"
                                                    : "ChannelShuffle";
}
}  // namespace

ShuffleModule::ShuffleModule(Kind k, int64_t f) : Module(shuffle_name(k)), kind(k), factor(f) {}

TensorList ShuffleModule::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  if (kind == Kind::PixelShuffle) return {pixel_shuffle(inputs[0], factor)};
  if (kind == Kind::PixelUnshuffle) return {pixel_unshuffle(inputs[0], factor)};
  return {channel_shuffle(inputs[0], factor)};
}

std::string ShuffleModule::extra_repr() const {
  const char* key = kind == Kind::PixelShuffle     ? "upscale_factor="
                    : kind == Kind::PixelUnshuffle ? "downscale_factor="
                                                   : "groups=";
  return key + std::to_string(factor);
}

}  // namespace glia::nn
