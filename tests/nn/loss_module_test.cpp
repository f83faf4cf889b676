// CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss and
// BCEWithLogitsLoss modules against torch 1.13 (tests/golden/gen_norm_loss.py):
// loss, input gradient, weight buffers, repr, state-dict keys, errors.
#include "support/fixture.h"

namespace glia_test {
namespace {

glia_module* build_loss(Handles& h, const json& c) {
  const json& a = c["args"];
  std::string k = c["module"];
  auto red = static_cast<glia_reduction>(a["reduction"].get<int>());
  auto buf = [&](const char* name) -> glia_tensor* {
    return c["buffers"].contains(name) ? tensor_from_json(h, c["buffers"][name]) : nullptr;
  };
  glia_module* m = nullptr;
  if (k == "cross_entropy_loss") {
    glia_cross_entropy_options o;
    glia_cross_entropy_options_init(&o);
    o.weight = buf("weight");
    o.reduction = red;
    if (a.contains("ignore_index")) o.ignore_index = a["ignore_index"];
    if (a.contains("label_smoothing")) o.label_smoothing = a["label_smoothing"];
    ok(glia_nn_cross_entropy_loss(&o, nullptr, &m), "ce");
  } else if (k == "nll_loss") {
    glia_nll_loss_options o;
    glia_nll_loss_options_init(&o);
    o.weight = buf("weight");
    o.reduction = red;
    if (a.contains("ignore_index")) o.ignore_index = a["ignore_index"];
    ok(glia_nn_nll_loss(&o, nullptr, &m), "nll");
  } else if (k == "mse_loss") {
    ok(glia_nn_mse_loss(red, nullptr, &m), "mse");
  } else if (k == "l1_loss") {
    ok(glia_nn_l1_loss(red, nullptr, &m), "l1");
  } else if (k == "smooth_l1_loss") {
    ok(glia_nn_smooth_l1_loss(red, a["beta"], nullptr, &m), "smooth_l1");
  } else if (k == "huber_loss") {
    ok(glia_nn_huber_loss(red, a["delta"], nullptr, &m), "huber");
  } else if (k == "bce_loss") {
    ok(glia_nn_bce_loss(buf("weight"), red, nullptr, &m), "bce");
  } else {
    ok(glia_nn_bce_with_logits_loss(buf("weight"), buf("pos_weight"), red, nullptr, &m), "bce_logits");
  }
  return m;
}

TEST(LossModules, MatchTorch) {
  static const json fixture = load_json("golden/modules/norm_loss.json");
  const json& cases = fixture["losses"];
  ASSERT_GE(cases.size(), 38u);
  for (const json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Handles h;
    ModuleHandle m(build_loss(h, c));
    ASSERT_NE(m.get(), nullptr);
    EXPECT_EQ(module_repr(m), c["repr"].get<std::string>());
    EXPECT_EQ(state_dict_keys(m), c["keys"].get<std::vector<std::string>>());
    for (auto& [name, b] : c["buffers"].items()) expect_tensor(buffer(h, m, name), b, 0, name);
    double tol = c["dtype"] == "float64" ? 1e-10 : 2e-5;
    glia_tensor* x = tensor_from_json(h, c["input"]);
    ok(glia_tensor_set_requires_grad(x, 1), "requires_grad");
    glia_tensor* y = call(h, m, {x, tensor_from_json(h, c["target"])});
    expect_tensor(y, c["out"], tol, "loss");
    ok(glia_tensor_backward(y, tensor_from_json(h, c["w"]), 0), "backward");
    expect_tensor(grad_of(h, x), c["grad_input"], tol, "grad_input");
  }
}

// The weight buffer is the caller's tensor itself (torch's register_buffer), and a
// missing weight reserves the name: get_buffer reports it as not a buffer.
TEST(LossModules, WeightIsABuffer) {
  Handles h;
  glia_tensor* w = make(h, {1, 2, 3}, {3}, GLIA_FLOAT32);
  glia_cross_entropy_options o;
  glia_cross_entropy_options_init(&o);
  EXPECT_EQ(o.ignore_index, -100);
  EXPECT_EQ(o.reduction, GLIA_REDUCTION_MEAN);
  o.weight = w;
  ModuleHandle ce;
  ok(glia_nn_cross_entropy_loss(&o, nullptr, ce.out()), "ce");
  ok(glia_copy_(w, make(h, {4, 5, 6}, {3})), "copy");
  EXPECT_EQ(values(buffer(h, ce, "weight")), (std::vector<double>{4, 5, 6}));
  glia_tensor_dict* params = nullptr;
  ok(glia_module_named_parameters(ce, nullptr, 1, 1, &params), "named_parameters");
  EXPECT_TRUE(dict_keys(params).empty());
  glia_error_free(glia_tensor_dict_release(params));

  ModuleHandle bce;
  ok(glia_nn_bce_with_logits_loss(nullptr, w, GLIA_REDUCTION_SUM, nullptr, bce.out()), "bce");
  EXPECT_EQ(state_dict_keys(bce), std::vector<std::string>{"pos_weight"});
  glia_tensor* t = nullptr;
  EXPECT_EQ(error_text(glia_module_get_buffer(bce, "weight", &t)), "`weight` is not a buffer");
  EXPECT_EQ(module_repr(bce), "BCEWithLogitsLoss()");
}

TEST(LossModules, Errors) {
  Handles h;
  glia_module* m = nullptr;
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_nn_mse_loss(static_cast<glia_reduction>(7), nullptr, &m), &code),
            "glia_nn_mse_loss: argument 'reduction' is 7, expected GLIA_REDUCTION_NONE, _MEAN or _SUM");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  EXPECT_GLIA_ERR(glia_nn_l1_loss(GLIA_REDUCTION_MEAN, nullptr, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = GLIA_INT64;
  EXPECT_GLIA_ERR(glia_nn_huber_loss(GLIA_REDUCTION_MEAN, 1.0, &f, &m), GLIA_ERR_DTYPE);
  // forward(input, target): one argument is torch's TypeError text.
  ModuleHandle mse;
  ok(glia_nn_mse_loss(GLIA_REDUCTION_MEAN, nullptr, mse.out()), "mse");
  const glia_tensor* x = make(h, {1, 2}, {2});
  glia_tensor* y = nullptr;
  int64_t n = 0;
  EXPECT_EQ(error_text(glia_module_forward(mse, &x, 1, &y, 1, &n)),
            "MSELoss.forward() takes 3 positional arguments but 2 were given");
}

}  // namespace
}  // namespace glia_test
