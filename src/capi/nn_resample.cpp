// glia_interpolate, glia_pixel_shuffle, glia_pixel_unshuffle, glia_channel_shuffle and the glia_nn_*
// constructors of the padding, upsampling and rearrangement modules
// (autograd/fn/resample.h, nn/modules/resample.h).
#include <optional>
#include <vector>

#include "autograd/fn/resample.h"
#include "capi/api.h"
#include "nn/modules/resample.h"

using namespace glia;
using namespace glia::capi;

namespace {

// A list of integers (pointer, count); NULL only with count 0.
IntSpan ints_arg(const int64_t* p, int64_t n, const char* fn, const char* arg, const char* n_arg) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument '", n_arg, "' must be >= 0, got ", n);
  GLIA_CHECK(p || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n_arg, " ", n);
  return IntSpan(p, static_cast<size_t>(n));
}

// torch's `padding` argument: n 1 is an int repeated on both sides of `dims` dims, else the tuple as given.
std::vector<int64_t> padding_arg(const int64_t* p, int64_t n, int64_t dims, const char* fn) {
  ints_arg(p, n, fn, "padding", "n_padding");
  if (n == 1) return std::vector<int64_t>(static_cast<size_t>(2 * dims), p[0]);
  return std::vector<int64_t>(p, p + n);
}

glia_error* pad_module(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                       glia_module** out, const char* fn, const char* type, PadMode mode, int64_t dims,
                       double value = 0.0, bool zero = false) {
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    return make_ref<nn::PadModule>(type, mode, padding_arg(padding, n_padding, dims, fn), value, zero);
  });
}

std::optional<std::vector<int64_t>> size_arg(const int64_t* size, int64_t n_size, const char* fn) {
  IntSpan sz = ints_arg(size, n_size, fn, "size", "n_size");
  if (n_size == 0) return std::nullopt;
  return std::vector<int64_t>(sz.begin(), sz.end());
}

std::optional<std::vector<double>> scale_arg(const double* scale_factor, int64_t n, const char* fn) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument 'n_scale_factor' must be >= 0, got ", n);
  GLIA_CHECK(scale_factor || n == 0, InvalidArgument, fn, ": argument 'scale_factor' is NULL with n_scale_factor ", n);
  if (n == 0) return std::nullopt;
  return std::vector<double>(scale_factor, scale_factor + n);
}

std::optional<bool> flag_arg(int32_t v, const char* fn, const char* arg) {
  GLIA_CHECK(v >= -1 && v <= 1, InvalidArgument, fn, ": argument '", arg, "' must be -1 (None), 0 or 1, got ", v);
  if (v < 0) return std::nullopt;
  return v != 0;
}

InterpolateMode mode_arg(glia_interpolate_mode mode, const char* fn) {
  const int m = static_cast<int>(mode);
  GLIA_CHECK(m >= 0 && m <= 6, InvalidArgument, fn, ": unknown interpolation mode ", m);
  return static_cast<InterpolateMode>(m);
}

glia_error* upsample_module(const int64_t* size, int64_t n_size, const double* scale_factor, int64_t n_scale_factor,
                            glia_interpolate_mode mode, int32_t align_corners, int32_t recompute_scale_factor,
                            const glia_factory_options* factory, glia_module** out, const char* fn, const char* type) {
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    auto sz = size_arg(size, n_size, fn);
    auto sf = scale_arg(scale_factor, n_scale_factor, fn);
    // torch: float(scale_factor) if scale_factor else None.
    if (sf && sf->size() == 1 && (*sf)[0] == 0.0) sf.reset();
    return make_ref<nn::Upsample>(type, std::move(sz), std::move(sf), mode_arg(mode, fn),
                                  flag_arg(align_corners, fn, "align_corners"),
                                  flag_arg(recompute_scale_factor, fn, "recompute_scale_factor"));
  });
}

}  // namespace

extern "C" {

glia_error* glia_nn_upsample(const int64_t* size, int64_t n_size, const double* scale_factor, int64_t n_scale_factor,
                             glia_interpolate_mode mode, int32_t align_corners, int32_t recompute_scale_factor,
                             const glia_factory_options* factory, glia_module** out) {
  return upsample_module(size, n_size, scale_factor, n_scale_factor, mode, align_corners, recompute_scale_factor,
                         factory, out, "glia_nn_upsample", "Upsample");
}
glia_error* glia_nn_upsampling_nearest2d(const int64_t* size, int64_t n_size, const double* scale_factor,
                                         int64_t n_scale_factor, const glia_factory_options* factory,
                                         glia_module** out) {
  return upsample_module(size, n_size, scale_factor, n_scale_factor, GLIA_INTERPOLATE_NEAREST, -1, -1, factory, out,
                         "glia_nn_upsampling_nearest2d", "UpsamplingNearest2d");
}
glia_error* glia_nn_upsampling_bilinear2d(const int64_t* size, int64_t n_size, const double* scale_factor,
                                          int64_t n_scale_factor, const glia_factory_options* factory,
                                          glia_module** out) {
  return upsample_module(size, n_size, scale_factor, n_scale_factor, GLIA_INTERPOLATE_BILINEAR, 1, -1, factory, out,
                         "glia_nn_upsampling_bilinear2d", "UpsamplingBilinear2d");
}

glia_error* glia_interpolate(const glia_tensor* a, const int64_t* size, int64_t n_size, const double* scale_factor,
                             int64_t n_scale_factor, glia_interpolate_mode mode, int32_t align_corners,
                             int32_t recompute_scale_factor, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_interpolate";
    auto sz = size_arg(size, n_size, fn);
    auto sf = scale_arg(scale_factor, n_scale_factor, fn);
    InterpolateMode m = mode_arg(mode, fn);
    auto ac = flag_arg(align_corners, fn, "align_corners");
    auto rs = flag_arg(recompute_scale_factor, fn, "recompute_scale_factor");
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out, fn, "out");
    *out = tensor_handle(glia::interpolate(x, sz, sf, m, ac, rs));
  });
}

glia_error* glia_pixel_shuffle(const glia_tensor* a, int64_t upscale_factor, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_pixel_shuffle", "a");
    check_out(out, "glia_pixel_shuffle", "out");
    *out = tensor_handle(glia::pixel_shuffle(x, upscale_factor));
  });
}
glia_error* glia_pixel_unshuffle(const glia_tensor* a, int64_t downscale_factor, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_pixel_unshuffle", "a");
    check_out(out, "glia_pixel_unshuffle", "out");
    *out = tensor_handle(glia::pixel_unshuffle(x, downscale_factor));
  });
}
glia_error* glia_channel_shuffle(const glia_tensor* a, int64_t groups, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_channel_shuffle", "a");
    check_out(out, "glia_channel_shuffle", "out");
    *out = tensor_handle(glia::channel_shuffle(x, groups));
  });
}

glia_error* glia_nn_pixel_shuffle(int64_t upscale_factor, const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_pixel_shuffle", [&](const nn::Factory&) -> nn::ModuleRef {
    return make_ref<nn::ShuffleModule>(nn::ShuffleModule::Kind::PixelShuffle, upscale_factor);
  });
}
glia_error* glia_nn_pixel_unshuffle(int64_t downscale_factor, const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_pixel_unshuffle", [&](const nn::Factory&) -> nn::ModuleRef {
    return make_ref<nn::ShuffleModule>(nn::ShuffleModule::Kind::PixelUnshuffle, downscale_factor);
  });
}
glia_error* glia_nn_channel_shuffle(int64_t groups, const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_channel_shuffle", [&](const nn::Factory&) -> nn::ModuleRef {
    return make_ref<nn::ShuffleModule>(nn::ShuffleModule::Kind::ChannelShuffle, groups);
  });
}

glia_error* glia_nn_constant_pad1d(const int64_t* padding, int64_t n_padding, double value,
                                   const glia_factory_options* factory, glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_constant_pad1d", "ConstantPad1d", PadMode::Constant, 1,
                    value);
}
glia_error* glia_nn_constant_pad2d(const int64_t* padding, int64_t n_padding, double value,
                                   const glia_factory_options* factory, glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_constant_pad2d", "ConstantPad2d", PadMode::Constant, 2,
                    value);
}
glia_error* glia_nn_constant_pad3d(const int64_t* padding, int64_t n_padding, double value,
                                   const glia_factory_options* factory, glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_constant_pad3d", "ConstantPad3d", PadMode::Constant, 3,
                    value);
}
glia_error* glia_nn_zero_pad2d(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                               glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_zero_pad2d", "ZeroPad2d", PadMode::Constant, 2, 0.0,
                    true);
}
glia_error* glia_nn_reflection_pad1d(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                                     glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_reflection_pad1d", "ReflectionPad1d", PadMode::Reflect,
                    1);
}
glia_error* glia_nn_reflection_pad2d(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                                     glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_reflection_pad2d", "ReflectionPad2d", PadMode::Reflect,
                    2);
}
glia_error* glia_nn_reflection_pad3d(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                                     glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_reflection_pad3d", "ReflectionPad3d", PadMode::Reflect,
                    3);
}
glia_error* glia_nn_replication_pad1d(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                                      glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_replication_pad1d", "ReplicationPad1d",
                    PadMode::Replicate, 1);
}
glia_error* glia_nn_replication_pad2d(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                                      glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_replication_pad2d", "ReplicationPad2d",
                    PadMode::Replicate, 2);
}
glia_error* glia_nn_replication_pad3d(const int64_t* padding, int64_t n_padding, const glia_factory_options* factory,
                                      glia_module** out) {
  return pad_module(padding, n_padding, factory, out, "glia_nn_replication_pad3d", "ReplicationPad3d",
                    PadMode::Replicate, 3);
}

}  // extern "C"
