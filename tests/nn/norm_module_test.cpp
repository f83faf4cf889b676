// BatchNorm1d/2d, LayerNorm, GroupNorm against torch 1.13 (tests/golden/gen_norm_loss.py):
// forward, input and parameter gradients, running statistics over train/eval steps,
// repr, state-dict keys, default initialisation, constructor and forward errors.
#include <cmath>

#include "support/fixture.h"

namespace glia_test {
namespace {

const json& fixture() {
  static const json j = load_json("golden/modules/norm_loss.json");
  return j;
}

glia_module* build_norm(const json& c) {
  const json& a = c["args"];
  std::string k = c["module"];
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = dtype_named(c["dtype"]);
  glia_module* m = nullptr;
  if (k == "batch_norm1d" || k == "batch_norm2d") {
    glia_batch_norm_options o;
    glia_batch_norm_options_init(&o);
    o.eps = a["eps"];
    if (a["momentum"].is_null())
      o.momentum_none = 1;
    else
      o.momentum = a["momentum"];
    o.affine = a["affine"].get<bool>();
    o.track_running_stats = a["track_running_stats"].get<bool>();
    auto ctor = k == "batch_norm1d" ? glia_nn_batch_norm1d : glia_nn_batch_norm2d;
    ok(ctor(a["num_features"], &o, &f, &m), k.c_str());
  } else if (k == "layer_norm") {
    auto shape = a["normalized_shape"].get<std::vector<int64_t>>();
    ok(glia_nn_layer_norm(shape.data(), static_cast<int64_t>(shape.size()), a["eps"],
                          a["elementwise_affine"].get<bool>(), a["bias"].get<bool>(), &f, &m),
       "layer_norm");
  } else {
    ok(glia_nn_group_norm(a["num_groups"], a["num_channels"], a["eps"], a["affine"].get<bool>(), &f, &m), "group_norm");
  }
  return m;
}

TEST(NormModules, MatchTorch) {
  const json& cases = fixture()["norms"];
  ASSERT_GE(cases.size(), 20u);
  for (const json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Handles h;
    ModuleHandle m(build_norm(c));
    ASSERT_NE(m.get(), nullptr);
    EXPECT_EQ(module_repr(m), c["repr"].get<std::string>());
    EXPECT_EQ(state_dict_keys(m), c["keys"].get<std::vector<std::string>>());
    // Default init: the exact tensors torch makes (weights ones, biases zeros, running stats 0/1/0).
    for (auto& [name, t] : c["init"]["params"].items()) expect_tensor(parameter(h, m, name), t, 0, "init " + name);
    for (auto& [name, t] : c["init"]["buffers"].items()) {
      glia_tensor* b = buffer(h, m, name);
      EXPECT_EQ(dtype(b), dtype_named(t["dtype"])) << name;
      expect_tensor(b, t, 0, "init " + name);
    }
    for (auto& [name, t] : c["params"].items()) assign(h, parameter(h, m, name), t);
    double tol = c["dtype"] == "float64" ? 1e-10 : 2e-5;
    int step = 0;
    for (const json& s : c["steps"]) {
      std::string at = " step " + std::to_string(step++);
      ok(glia_module_train(m, s["train"].get<bool>()), "train");
      glia_tensor* x = tensor_from_json(h, s["x"]);
      ok(glia_tensor_set_requires_grad(x, 1), "requires_grad");
      glia_tensor* y = call(h, m, {x});
      expect_tensor(y, s["out"], tol, "out" + at);
      ok(glia_tensor_backward(y, tensor_from_json(h, s["w"]), 0), "backward");
      expect_tensor(grad_of(h, x), s["grad_x"], tol, "grad_x" + at);
      for (auto& [name, g] : s["grads"].items())
        expect_tensor(grad_of(h, parameter(h, m, name)), g, tol, "grad " + name + at);
      for (auto& [name, b] : s["buffers"].items())
        expect_tensor(buffer(h, m, name), b, name == "num_batches_tracked" ? 0 : tol, name + at);
    }
  }
}

TEST(NormModules, ErrorsMatchTorch) {
  const json& errs = fixture()["errors"];
  auto msg = [&](const std::string& name) {
    for (const json& e : errs)
      if (e["name"] == name) return e["message"].get<std::string>();
    ADD_FAILURE() << name;
    return std::string();
  };
  Handles h;
  {
    ModuleHandle bn;
    ok(glia_nn_batch_norm1d(3, nullptr, nullptr, bn.out()), "bn1d");
    const glia_tensor* x = make(h, std::vector<double>(24, 1.0), {2, 3, 2, 2}, GLIA_FLOAT32);
    glia_tensor* y = nullptr;
    int64_t n = 0;
    enum glia_error_code code = GLIA_OK;
    EXPECT_EQ(error_text(glia_module_forward(bn, &x, 1, &y, 1, &n), &code), msg("bn1d_4d"));
    EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  }
  {
    ModuleHandle bn;
    ok(glia_nn_batch_norm2d(3, nullptr, nullptr, bn.out()), "bn2d");
    const glia_tensor* x = make(h, std::vector<double>(12, 1.0), {2, 3, 2}, GLIA_FLOAT32);
    glia_tensor* y = nullptr;
    int64_t n = 0;
    EXPECT_EQ(error_text(glia_module_forward(bn, &x, 1, &y, 1, &n)), msg("bn2d_3d"));
  }
  glia_module* m = nullptr;
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_nn_group_norm(4, 6, 1e-5, 1, nullptr, &m), &code), msg("group_norm_divisible"));
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);  // nothing written on failure
  EXPECT_GLIA_ERR(glia_nn_group_norm(0, 6, 1e-5, 1, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_batch_norm1d(3, nullptr, nullptr, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_batch_norm1d(-1, nullptr, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_layer_norm(nullptr, 1, 1e-5, 1, 1, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  int64_t neg = -2;
  EXPECT_GLIA_ERR(glia_nn_layer_norm(&neg, 1, 1e-5, 1, 1, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  glia_batch_norm_options bad;
  glia_batch_norm_options_init(&bad);
  bad.struct_size = 0;
  EXPECT_GLIA_ERR(glia_nn_batch_norm2d(3, &bad, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
}

// Options defaults are torch's, and a float64 factory makes float64 statistics but an int64 counter.
TEST(NormModules, DefaultsAndFactory) {
  glia_batch_norm_options o;
  glia_batch_norm_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.eps, 1e-5);
  EXPECT_EQ(o.momentum, 0.1);
  EXPECT_EQ(o.momentum_none, 0);
  EXPECT_EQ(o.affine, 1);
  EXPECT_EQ(o.track_running_stats, 1);
  Handles h;
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = GLIA_FLOAT64;
  ModuleHandle bn;
  ok(glia_nn_batch_norm2d(5, nullptr, &f, bn.out()), "bn2d");
  EXPECT_EQ(dtype(parameter(h, bn, "weight")), GLIA_FLOAT64);
  EXPECT_EQ(dtype(buffer(h, bn, "running_var")), GLIA_FLOAT64);
  glia_tensor* nbt = buffer(h, bn, "num_batches_tracked");
  EXPECT_EQ(dtype(nbt), GLIA_INT64);
  EXPECT_TRUE(shape(nbt).empty());
  // skip_init leaves the parameters allocated but the module still has them.
  f.skip_init = 1;
  ModuleHandle ln;
  int64_t s = 7;
  ok(glia_nn_layer_norm(&s, 1, 1e-5, 1, 1, &f, ln.out()), "layer_norm");
  EXPECT_EQ(shape(parameter(h, ln, "weight")), std::vector<int64_t>{7});
  // Eval without tracked statistics uses the batch statistics (output has zero mean per channel).
  glia_batch_norm_options nt;
  glia_batch_norm_options_init(&nt);
  nt.track_running_stats = 0;
  ModuleHandle bn2;
  ok(glia_nn_batch_norm1d(2, &nt, nullptr, bn2.out()), "bn1d");
  EXPECT_EQ(state_dict_keys(bn2), (std::vector<std::string>{"weight", "bias"}));
  ok(glia_module_train(bn2, 0), "eval");
  glia_tensor* y = call(h, bn2, {make(h, {1, 10, 3, 20, 5, 30}, {3, 2}, GLIA_FLOAT32)});
  auto v = values(y);
  EXPECT_NEAR(v[0] + v[2] + v[4], 0.0, 1e-5);
  EXPECT_NEAR(v[1] + v[3] + v[5], 0.0, 1e-5);
}

}  // namespace
}  // namespace glia_test
