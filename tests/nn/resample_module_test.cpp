// The padding, upsampling and pixel-shuffle modules against torch.nn
// (tests/golden/gen_resample.py, golden/modules/resample.json): forward, the
// input's gradient and its node name, repr and (empty) state-dict keys at
// float64 and float32; forward errors with torch's text; the constructors'
// own argument errors.
#include <gtest/gtest.h>

#include "support/fixture.h"

using namespace glia_test;

namespace {

// torch's `padding` keyword: an int (n_padding 1) or a list.
std::vector<int64_t> padding_of(const json& a) {
  const json& p = a["padding"];
  if (p.is_array()) return p.get<std::vector<int64_t>>();
  return {p.get<int64_t>()};
}

glia_interpolate_mode mode_named(const std::string& m) {
  if (m == "linear") return GLIA_INTERPOLATE_LINEAR;
  if (m == "bilinear") return GLIA_INTERPOLATE_BILINEAR;
  if (m == "bicubic") return GLIA_INTERPOLATE_BICUBIC;
  if (m == "trilinear") return GLIA_INTERPOLATE_TRILINEAR;
  if (m == "area") return GLIA_INTERPOLATE_AREA;
  if (m == "nearest-exact") return GLIA_INTERPOLATE_NEAREST_EXACT;
  return GLIA_INTERPOLATE_NEAREST;
}

int32_t opt_flag(const json& a, const char* key) {
  return a.contains(key) && !a[key].is_null() ? (a[key].get<bool>() ? 1 : 0) : -1;
}

glia_error* build_upsample(const std::string& m, const json& a, const glia_factory_options* f, glia_module** out) {
  std::vector<int64_t> size;
  std::vector<double> scale;
  if (a.contains("size"))
    size =
        a["size"].is_array() ? a["size"].get<std::vector<int64_t>>() : std::vector<int64_t>{a["size"].get<int64_t>()};
  if (a.contains("scale_factor"))
    scale = a["scale_factor"].is_array() ? a["scale_factor"].get<std::vector<double>>()
                                         : std::vector<double>{a["scale_factor"].get<double>()};
  const int64_t* sp = size.empty() ? nullptr : size.data();
  const double* fp = scale.empty() ? nullptr : scale.data();
  const auto ns = static_cast<int64_t>(size.size()), nf = static_cast<int64_t>(scale.size());
  if (m == "UpsamplingNearest2d") return glia_nn_upsampling_nearest2d(sp, ns, fp, nf, f, out);
  if (m == "UpsamplingBilinear2d") return glia_nn_upsampling_bilinear2d(sp, ns, fp, nf, f, out);
  return glia_nn_upsample(sp, ns, fp, nf, mode_named(a.value("mode", "nearest")), opt_flag(a, "align_corners"),
                          opt_flag(a, "recompute_scale_factor"), f, out);
}

glia_error* build(const std::string& m, const json& a, const glia_factory_options* f, glia_module** out) {
  if (m.rfind("Upsampl", 0) == 0) return build_upsample(m, a, f, out);
  if (m == "PixelShuffle") return glia_nn_pixel_shuffle(a["upscale_factor"], f, out);
  if (m == "PixelUnshuffle") return glia_nn_pixel_unshuffle(a["downscale_factor"], f, out);
  if (m == "ChannelShuffle") return glia_nn_channel_shuffle(a["groups"], f, out);
  std::vector<int64_t> p = padding_of(a);
  const int64_t* pp = p.data();
  const auto n = static_cast<int64_t>(p.size());
  double v = a.contains("value") ? a["value"].get<double>() : 0.0;
  if (m == "ConstantPad1d") return glia_nn_constant_pad1d(pp, n, v, f, out);
  if (m == "ConstantPad2d") return glia_nn_constant_pad2d(pp, n, v, f, out);
  if (m == "ConstantPad3d") return glia_nn_constant_pad3d(pp, n, v, f, out);
  if (m == "ZeroPad2d") return glia_nn_zero_pad2d(pp, n, f, out);
  if (m == "ReflectionPad1d") return glia_nn_reflection_pad1d(pp, n, f, out);
  if (m == "ReflectionPad2d") return glia_nn_reflection_pad2d(pp, n, f, out);
  if (m == "ReflectionPad3d") return glia_nn_reflection_pad3d(pp, n, f, out);
  if (m == "ReplicationPad1d") return glia_nn_replication_pad1d(pp, n, f, out);
  if (m == "ReplicationPad2d") return glia_nn_replication_pad2d(pp, n, f, out);
  if (m == "ReplicationPad3d") return glia_nn_replication_pad3d(pp, n, f, out);
  ADD_FAILURE() << "no constructor for " << m;
  return nullptr;
}

}  // namespace

TEST(ResampleModules, ForwardBackwardRepr) {
  json f = load_json("golden/modules/resample.json");
  ASSERT_GE(f["cases"].size(), 40u);
  for (const json& c : f["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    Handles h;
    glia_factory_options fo;
    glia_factory_options_init(&fo);
    fo.dtype = dtype_named(c["dtype"]);
    ModuleHandle m;
    GLIA_OK_(build(c["module"], c["args"], &fo, m.out()));
    EXPECT_EQ(module_repr(m.get()), c["repr"].get<std::string>());
    EXPECT_EQ(state_dict_keys(m.get()), c["keys"].get<std::vector<std::string>>());

    glia_tensor* x = tensor_from_json(h, c["inputs"][0]);
    GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
    glia_tensor* y = call(h, m.get(), {x});
    const double tol = c["tol"];
    expect_tensor(y, c["out"], tol, name + " out");
    EXPECT_EQ(grad_fn_name(y), c["node"].get<std::string>());
    GLIA_OK_(glia_tensor_backward(y, tensor_from_json(h, c["w"]), 0));
    expect_tensor(grad_of(h, x), c["grads"]["input0"], tol, name + " grad");
  }
}

TEST(ResampleModules, ForwardErrors) {
  json f = load_json("golden/modules/resample.json");
  ASSERT_GE(f["forward_errors"].size(), 12u);
  for (const json& e : f["forward_errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    Handles h;
    ModuleHandle m;
    GLIA_OK_(build(e["module"], e["args"], nullptr, m.out()));
    const glia_tensor* x = tensor_from_json(h, e["inputs"][0]);
    glia_tensor* y = nullptr;
    int64_t n = 0;
    enum glia_error_code code = GLIA_OK;
    std::string msg = error_text(glia_module_forward(m.get(), &x, 1, &y, 1, &n), &code);
    EXPECT_EQ(y, nullptr);
    EXPECT_EQ(code, code_named(e["code"]));
    EXPECT_NE(msg.find(e["message"].get<std::string>()), std::string::npos) << msg;
  }
}

TEST(ResampleModules, PaddingConstructorArguments) {
  glia_module* m = nullptr;
  enum glia_error_code code = GLIA_OK;
  const int64_t p[2] = {1, 2};
  std::string msg = error_text(glia_nn_reflection_pad1d(p, -1, nullptr, &m), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("glia_nn_reflection_pad1d: argument 'n_padding' must be >= 0, got -1"), std::string::npos) << msg;
  EXPECT_EQ(m, nullptr);
  msg = error_text(glia_nn_constant_pad2d(nullptr, 4, 0.0, nullptr, &m), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("argument 'padding' is NULL with n_padding 4"), std::string::npos) << msg;
  EXPECT_EQ(m, nullptr);
  msg = error_text(glia_nn_zero_pad2d(p, 2, nullptr, nullptr), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  // An empty padding is torch's ConstantPad1d(()): the input unchanged.
  ModuleHandle id;
  GLIA_OK_(glia_nn_constant_pad1d(nullptr, 0, 2.0, nullptr, id.out()));
  EXPECT_EQ(module_repr(id.get()), "ConstantPad1d(padding=(), value=2.0)");
}

TEST(ResampleModules, UpsampleConstructorArguments) {
  glia_module* m = nullptr;
  enum glia_error_code code = GLIA_OK;
  const int64_t size[2] = {3, 4};
  std::string msg = error_text(
      glia_nn_upsample(size, 2, nullptr, 0, static_cast<glia_interpolate_mode>(7), -1, -1, nullptr, &m), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("glia_nn_upsample: unknown interpolation mode 7"), std::string::npos) << msg;
  msg = error_text(glia_nn_upsampling_nearest2d(nullptr, 0, nullptr, -1, nullptr, &m), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("argument 'n_scale_factor' must be >= 0, got -1"), std::string::npos) << msg;
  msg = error_text(glia_nn_upsample(size, 2, nullptr, 0, GLIA_INTERPOLATE_BILINEAR, 3, -1, nullptr, &m), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("'align_corners' must be -1 (None), 0 or 1, got 3"), std::string::npos) << msg;
  EXPECT_EQ(m, nullptr);
  // torch: float(scale_factor) if scale_factor else None; then forward needs a size or a scale factor.
  const double zero = 0.0;
  ModuleHandle u;
  GLIA_OK_(glia_nn_upsample(nullptr, 0, &zero, 1, GLIA_INTERPOLATE_NEAREST, -1, -1, nullptr, u.out()));
  EXPECT_EQ(module_repr(u.get()), "Upsample(size=None, mode=nearest)");
  Handles h;
  const glia_tensor* x = make(h, {1, 2, 3}, {1, 1, 3});
  glia_tensor* y = nullptr;
  int64_t n = 0;
  msg = error_text(glia_module_forward(u.get(), &x, 1, &y, 1, &n), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("either size or scale_factor should be defined"), std::string::npos) << msg;
}

TEST(ResampleModules, ChannelShuffle) {
  // torch 1.13's channel_shuffle has no derivative (its node is NotImplemented): forward and repr only.
  ModuleHandle m;
  GLIA_OK_(glia_nn_channel_shuffle(3, nullptr, m.out()));
  EXPECT_EQ(module_repr(m.get()), "ChannelShuffle(groups=3)");
  Handles h;
  glia_tensor* x = make(h, {0, 1, 2, 3, 4, 5}, {1, 6, 1});
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* y = call(h, m.get(), {x});
  EXPECT_EQ(values(y), (std::vector<double>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(grad_fn_name(y), "torch::autograd::NotImplemented");
  enum glia_error_code code = GLIA_OK;
  std::string msg = error_text(glia_tensor_backward(y, make(h, {1, 1, 1, 1, 1, 1}, {1, 6, 1}), 0), &code);
  EXPECT_NE(code, GLIA_OK);
  EXPECT_NE(msg.find("derivative for channel_shuffle is not implemented"), std::string::npos) << msg;
}
