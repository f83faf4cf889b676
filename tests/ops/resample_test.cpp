// F.interpolate, pixel_shuffle, pixel_unshuffle and channel_shuffle against torch 1.13 (tests/golden/gen_resample.py,
// golden/ops/resample.json).
#include <string>
#include <vector>

#include "golden_support.h"

using namespace glia_ops_test;

namespace {

glia_interpolate_mode mode_named(const std::string& m) {
  if (m == "linear") return GLIA_INTERPOLATE_LINEAR;
  if (m == "bilinear") return GLIA_INTERPOLATE_BILINEAR;
  if (m == "bicubic") return GLIA_INTERPOLATE_BICUBIC;
  if (m == "trilinear") return GLIA_INTERPOLATE_TRILINEAR;
  if (m == "area") return GLIA_INTERPOLATE_AREA;
  if (m == "nearest-exact") return GLIA_INTERPOLATE_NEAREST_EXACT;
  return GLIA_INTERPOLATE_NEAREST;
}

// A torch None / bool argument as -1 / 0 / 1.
int32_t opt_flag(const Call& c, const char* key) { return c.has(key) ? (c.args[key].get<bool>() ? 1 : 0) : -1; }

}  // namespace

GLIA_ADAPTER(interpolate) {
  std::vector<int64_t> size;
  std::vector<double> scale;
  if (c.has("size")) {
    const json& s = c.args["size"];
    size = s.is_array() ? s.get<std::vector<int64_t>>() : std::vector<int64_t>{s.get<int64_t>()};
  }
  if (c.has("scale_factor")) {
    const json& s = c.args["scale_factor"];
    scale = s.is_array() ? s.get<std::vector<double>>() : std::vector<double>{s.get<double>()};
  }
  return glia_interpolate(c.in[0], size.empty() ? nullptr : size.data(), static_cast<int64_t>(size.size()),
                          scale.empty() ? nullptr : scale.data(), static_cast<int64_t>(scale.size()),
                          mode_named(c.str("mode", "nearest")), opt_flag(c, "align_corners"),
                          opt_flag(c, "recompute_scale_factor"), c.out());
}

GLIA_ADAPTER(pixel_shuffle) { return glia_pixel_shuffle(c.in[0], c.integer("upscale_factor", 1), c.out()); }
GLIA_ADAPTER(pixel_unshuffle) { return glia_pixel_unshuffle(c.in[0], c.integer("downscale_factor", 1), c.out()); }
GLIA_ADAPTER(channel_shuffle) { return glia_channel_shuffle(c.in[0], c.integer("groups", 1), c.out()); }

TEST(Resample, Golden) { run_cases("resample.json"); }
TEST(Resample, Errors) { run_errors("resample.json"); }

TEST(Resample, ArgumentErrors) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4}, {1, 1, 4});
  glia_tensor* y = nullptr;
  const int64_t size[1] = {3};
  enum glia_error_code code = GLIA_OK;
  std::string msg = glia_test::error_text(
      glia_interpolate(x, size, 1, nullptr, 0, static_cast<glia_interpolate_mode>(9), -1, -1, &y), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("glia_interpolate: unknown interpolation mode 9"), std::string::npos) << msg;
  msg = glia_test::error_text(glia_interpolate(x, nullptr, 0, nullptr, 2, GLIA_INTERPOLATE_NEAREST, -1, -1, &y), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("argument 'scale_factor' is NULL with n_scale_factor 2"), std::string::npos) << msg;
  msg = glia_test::error_text(glia_interpolate(x, size, 1, nullptr, 0, GLIA_INTERPOLATE_LINEAR, 2, -1, &y), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("'align_corners' must be -1 (None), 0 or 1, got 2"), std::string::npos) << msg;
  EXPECT_EQ(y, nullptr);
}
