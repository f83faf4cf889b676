// F.grid_sample, F.affine_grid and F.fractional_max_pool2d / 3d against torch 1.13 (tests/golden/gen_grid_frac.py,
// golden/ops/grid.json), and glia's own argument checks.
#include <string>
#include <vector>

#include "golden_support.h"

using namespace glia_ops_test;

namespace {

glia_grid_sample_mode grid_mode(const std::string& m) {
  if (m == "nearest") return GLIA_GRID_SAMPLE_NEAREST;
  if (m == "bicubic") return GLIA_GRID_SAMPLE_BICUBIC;
  return GLIA_GRID_SAMPLE_BILINEAR;
}

glia_grid_padding grid_padding(const std::string& p) {
  if (p == "border") return GLIA_GRID_PADDING_BORDER;
  if (p == "reflection") return GLIA_GRID_PADDING_REFLECTION;
  return GLIA_GRID_PADDING_ZEROS;
}

// An int or a list of ints (torch's int / tuple arguments).
std::vector<int64_t> int_list(const Call& c, const char* key) {
  if (!c.has(key)) return {};
  const json& v = c.args[key];
  return v.is_array() ? v.get<std::vector<int64_t>>() : std::vector<int64_t>{v.get<int64_t>()};
}

std::vector<double> float_list(const Call& c, const char* key) {
  if (!c.has(key)) return {};
  const json& v = c.args[key];
  return v.is_array() ? v.get<std::vector<double>>() : std::vector<double>{v.get<double>()};
}

template <class F>
glia_error* fractional(Call& c, F fn) {
  std::vector<int64_t> k = int_list(c, "kernel_size"), o = int_list(c, "output_size");
  std::vector<double> r = float_list(c, "output_ratio");
  const bool with_indices = c.flag("return_indices", false);
  glia_tensor** outs = c.out(with_indices ? 2 : 1);
  return fn(c.in[0], k.data(), static_cast<int64_t>(k.size()), o.empty() ? nullptr : o.data(),
            static_cast<int64_t>(o.size()), r.empty() ? nullptr : r.data(), static_cast<int64_t>(r.size()),
            c.in.size() > 1 ? c.in[1] : nullptr, &outs[0], with_indices ? &outs[1] : nullptr);
}

}  // namespace

GLIA_ADAPTER(grid_sample) {
  return glia_grid_sample(c.in[0], c.in[1], grid_mode(c.str("mode", "bilinear")),
                          grid_padding(c.str("padding_mode", "zeros")), c.flag("align_corners", false) ? 1 : 0,
                          c.out());
}

GLIA_ADAPTER(affine_grid) {
  std::vector<int64_t> size = c.ints("size");
  return glia_affine_grid(c.in[0], size.data(), static_cast<int64_t>(size.size()),
                          c.flag("align_corners", false) ? 1 : 0, c.out());
}

GLIA_ADAPTER(fractional_max_pool2d) { return fractional(c, glia_fractional_max_pool2d); }
GLIA_ADAPTER(fractional_max_pool3d) { return fractional(c, glia_fractional_max_pool3d); }

TEST(Grid, Golden) { run_cases("grid.json"); }
TEST(Grid, Errors) { run_errors("grid.json"); }

TEST(Grid, ArgumentErrors) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4}, {1, 1, 2, 2});
  glia_tensor* g = make(h, {0.25, -0.5}, {1, 1, 1, 2});
  glia_tensor* y = nullptr;
  enum glia_error_code code = GLIA_OK;
  std::string msg = glia_test::error_text(
      glia_grid_sample(x, g, static_cast<glia_grid_sample_mode>(3), GLIA_GRID_PADDING_ZEROS, 0, &y), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 3"), std::string::npos) << msg;
  msg = glia_test::error_text(
      glia_grid_sample(x, g, GLIA_GRID_SAMPLE_NEAREST, static_cast<glia_grid_padding>(-1), 0, &y), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("expected padding_mode to be 'zeros', 'border', or 'reflection', but got: -1"), std::string::npos)
      << msg;
  msg = glia_test::error_text(glia_grid_sample(x, g, GLIA_GRID_SAMPLE_NEAREST, GLIA_GRID_PADDING_ZEROS, 2, &y), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("'align_corners' must be -1 (None), 0 or 1, got 2"), std::string::npos) << msg;
  msg = glia_test::error_text(glia_affine_grid(x, nullptr, 4, 0, &y), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("argument 'size' is NULL with n_size 4"), std::string::npos) << msg;
  EXPECT_EQ(y, nullptr);
}

// align_corners -1 is torch's None: False (same values as 0), with torch's warning.
TEST(Grid, AlignCornersNone) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4}, {1, 1, 2, 2});
  glia_tensor* g = make(h, {0.25, -0.5, -0.75, 0.6}, {1, 1, 2, 2});
  glia_tensor *a = nullptr, *b = nullptr;
  GLIA_OK_(glia_grid_sample(x, g, GLIA_GRID_SAMPLE_BILINEAR, GLIA_GRID_PADDING_ZEROS, -1, &a));
  h.add(a);
  GLIA_OK_(glia_grid_sample(x, g, GLIA_GRID_SAMPLE_BILINEAR, GLIA_GRID_PADDING_ZEROS, 0, &b));
  h.add(b);
  EXPECT_EQ(values(a), values(b));
}

// glia's checks where torch reads out of bounds: random_samples of another shape, a kernel size <= 0.
TEST(Grid, FractionalSampleChecks) {
  Handles h;
  std::vector<double> xv(2 * 3 * 7 * 8, 0.5);
  glia_tensor* x = make(h, xv, {2, 3, 7, 8});
  glia_tensor* s = make(h, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {1, 3, 2});
  const int64_t k[2] = {2, 2}, o[2] = {4, 4}, k0[2] = {0, 2};
  glia_tensor *y = nullptr, *idx = nullptr;
  enum glia_error_code code = GLIA_OK;
  std::string msg = glia_test::error_text(glia_fractional_max_pool2d(x, k, 2, o, 2, nullptr, 0, s, &y, &idx), &code);
  EXPECT_EQ(code, GLIA_ERR_SHAPE);
  EXPECT_NE(msg.find("fractional_max_pool2d(): expected _random_samples of shape [2, 3, 2], but got [1, 3, 2]"),
            std::string::npos)
      << msg;
  msg = glia_test::error_text(glia_fractional_max_pool2d(x, k0, 2, o, 2, nullptr, 0, nullptr, &y, &idx), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("kernel_size must be greater than zero, but got [0, 2]"), std::string::npos) << msg;
  EXPECT_EQ(y, nullptr);
  EXPECT_EQ(idx, nullptr);
}

// Without random_samples the windows come from glia's generator: the same seed gives the same result, the
// windows lie inside the input, and every output is the maximum of its window (indices point at it).
TEST(Grid, FractionalDefaultSamples) {
  Handles h;
  std::vector<double> xv;
  for (int i = 0; i < 2 * 2 * 9 * 10; ++i) xv.push_back(static_cast<double>((i * 37) % 101));
  glia_tensor* x = make(h, xv, {2, 2, 9, 10});
  const int64_t k[1] = {2};
  const double r[1] = {0.5};
  glia_tensor *y1 = nullptr, *i1 = nullptr, *y2 = nullptr, *i2 = nullptr;
  glia_manual_seed(7);
  GLIA_OK_(glia_fractional_max_pool2d(x, k, 1, nullptr, 0, r, 1, nullptr, &y1, &i1));
  h.add(y1), h.add(i1);
  glia_manual_seed(7);
  GLIA_OK_(glia_fractional_max_pool2d(x, k, 1, nullptr, 0, r, 1, nullptr, &y2, &i2));
  h.add(y2), h.add(i2);
  EXPECT_EQ(shape(y1), (std::vector<int64_t>{2, 2, 4, 5}));
  EXPECT_EQ(values(y1), values(y2));
  EXPECT_EQ(values(i1), values(i2));
  std::vector<double> yv = values(y1), iv = values(i1);
  for (size_t j = 0; j < yv.size(); ++j) {
    const size_t plane = j / 20;
    const auto at = static_cast<int64_t>(iv[j]);
    ASSERT_GE(at, 0);
    ASSERT_LT(at, 90);
    EXPECT_EQ(yv[j], xv[plane * 90 + static_cast<size_t>(at)]);
  }
}

GLIA_ADAPTER(conv_tbc) { return glia_conv_tbc(c.in[0], c.in[1], c.in[2], c.integer("pad", 0), c.out()); }
