// The built-in layers against torch.nn (tests/golden/gen_layers.py): with
// torch's parameter values copied in, forward and the gradients of every
// input and parameter match torch at float64 and float32; repr and
// state-dict keys are torch's; constructor and forward errors carry torch's text.
#include <gtest/gtest.h>

#include "layers_support.h"

using namespace glia_test;

namespace {

void run_case(const json& c) {
  const std::string name = c["name"];
  SCOPED_TRACE(name);
  Handles h;
  glia_factory_options fo;
  glia_factory_options_init(&fo);
  fo.dtype = dtype_named(c["dtype"]);
  ModuleHandle m;
  GLIA_OK_(build_layer(c["module"], c["args"], &fo, m.out()));

  EXPECT_EQ(module_repr(m.get()), c["repr"].get<std::string>());
  EXPECT_EQ(state_dict_keys(m.get()), c["keys"].get<std::vector<std::string>>());

  // torch's parameter values (same names, shapes and dtype).
  glia_grad_mode_set(0);
  for (const json& p : c["params"]) {
    glia_tensor* dst = parameter(h, m.get(), p["name"]);
    EXPECT_EQ(shape(dst), p["value"]["shape"].get<std::vector<int64_t>>()) << p["name"];
    EXPECT_EQ(dtype(dst), fo.dtype);
    glia_tensor* src = tensor_from_json(h, p["value"]);
    GLIA_OK_(glia_copy_(dst, src));
  }
  glia_grad_mode_set(1);
  GLIA_OK_(glia_module_train(m.get(), c["train"].get<bool>() ? 1 : 0));

  std::vector<glia_tensor*> xs;
  for (const json& x : c["inputs"]) {
    glia_tensor* t = tensor_from_json(h, x);
    glia_dtype d = dtype(t);
    if (d == GLIA_FLOAT32 || d == GLIA_FLOAT64) GLIA_OK_(glia_tensor_set_requires_grad(t, 1));
    xs.push_back(t);
  }
  glia_tensor* y = nullptr;
  int64_t n = 0;
  GLIA_OK_(glia_module_forward(m.get(), const_cast<const glia_tensor* const*>(xs.data()),
                               static_cast<int64_t>(xs.size()), &y, 1, &n));
  h.add(y);
  ASSERT_EQ(n, 1);
  const double tol = c["tol"];
  expect_tensor(y, c["out"], tol, name + " out");

  glia_tensor* w = tensor_from_json(h, c["w"]);
  GLIA_OK_(glia_tensor_backward(y, w, 0));
  const json& grads = c["grads"];
  for (size_t i = 0; i < xs.size(); ++i) {
    std::string key = "input" + std::to_string(i);
    if (!grads.contains(key)) continue;
    glia_tensor* g = nullptr;
    GLIA_OK_(glia_tensor_grad(xs[i], &g));
    ASSERT_NE(g, nullptr) << key;
    h.add(g);
    expect_tensor(g, grads[key], tol, name + " grad " + key);
  }
  for (const json& p : c["params"]) {
    const std::string pn = p["name"];
    glia_tensor* g = nullptr;
    GLIA_OK_(glia_tensor_grad(parameter(h, m.get(), pn), &g));
    ASSERT_NE(g, nullptr) << pn;
    h.add(g);
    expect_tensor(g, grads[pn], tol, name + " grad " + pn);
  }
}

void run_file(const char* file, size_t min_cases) {
  json f = load_json(file);
  ASSERT_GE(f["cases"].size(), min_cases);
  for (const json& c : f["cases"]) run_case(c);
}

}  // namespace

TEST(LayersGolden, ForwardBackwardReprKeys) { run_file("golden/modules/layers.json", 40); }

TEST(LayersGolden, ConvolutionsAndPools) { run_file("golden/modules/layers_conv.json", 20); }

TEST(LayersGolden, ConstructorErrors) {
  json f = load_json("golden/modules/layers.json");
  ASSERT_GE(f["errors"].size(), 10u);
  for (const json& e : f["errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    glia_module* m = nullptr;
    glia_error* err = build_layer(e["module"], e["args"], nullptr, &m);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(glia_error_code(err), GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(glia_error_message(err)).find(e["message"].get<std::string>()), std::string::npos)
        << glia_error_message(err);
    glia_error_free(err);
  }
}

TEST(LayersGolden, ForwardErrors) {
  json f = load_json("golden/modules/layers.json");
  ASSERT_GE(f["forward_errors"].size(), 4u);
  for (const json& e : f["forward_errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    Handles h;
    ModuleHandle m;
    GLIA_OK_(build_layer(e["module"], e["args"], nullptr, m.out()));
    std::vector<const glia_tensor*> xs;
    for (const json& x : e["inputs"]) xs.push_back(tensor_from_json(h, x));
    glia_tensor* y = nullptr;
    int64_t n = 0;
    glia_error* err = glia_module_forward(m.get(), xs.data(), static_cast<int64_t>(xs.size()), &y, 1, &n);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(y, nullptr);
    EXPECT_EQ(glia_error_code(err), GLIA_ERR_SHAPE);
    EXPECT_NE(std::string(glia_error_message(err)).find(e["message"].get<std::string>()), std::string::npos)
        << glia_error_message(err);
    glia_error_free(err);
  }
}
