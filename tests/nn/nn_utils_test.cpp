// Module tensor attributes and torch.nn.utils' weight_norm, spectral_norm and
// convert_parameters through the C API, against torch 1.13
// (tests/golden/gen_nn_utils.py -> golden/nn_utils/cases.json).
#include <cmath>

#include "support/fixture.h"

namespace glia_test {
namespace {

const json& cases() {
  static const json all = load_json("golden/nn_utils/cases.json");
  return all;
}
const json& case_named(const std::string& name) {
  for (const json& c : cases())
    if (c["name"] == name) return c;
  throw std::runtime_error("no case " + name);
}

glia_module* build(const std::string& kind) {
  glia_module* m = nullptr;
  if (kind == "linear") {
    ok(glia_nn_linear(4, 3, 1, nullptr, &m), "linear");
  } else if (kind == "conv2d") {
    ok(glia_nn_conv2d(2, 3, 3, 3, nullptr, nullptr, &m), "conv2d");
  } else {
    ok(glia_nn_conv_transpose2d(3, 2, 3, 3, nullptr, nullptr, &m), "conv_transpose2d");
  }
  return m;
}

// A module of the case's kind with the case's weight and bias.
glia_module* make_module(Handles& h, const json& c) {
  glia_module* m = build(c["module"]);
  assign(h, parameter(h, m, "weight"), c["weight"]);
  assign(h, parameter(h, m, "bias"), c["bias"]);
  return m;
}

// forward on the case's x, then backward of sum(out * c).
glia_tensor* run(Handles& h, glia_module* m, const json& c) {
  glia_tensor* out = call(h, m, {tensor_from_json(h, c["x"])});
  glia_tensor* prod = nullptr;
  ok(glia_mul(out, tensor_from_json(h, c["c"]), &prod), "mul");
  h.add(prod);
  glia_tensor* loss = nullptr;
  ok(glia_sum(prod, nullptr, 0, 0, &loss), "sum");
  h.add(loss);
  ok(glia_tensor_backward(loss, nullptr, 0), "backward");
  return out;
}

glia_tensor* attribute(Handles& h, glia_module* m, const char* name) {
  glia_tensor* t = nullptr;
  ok(glia_module_get_tensor_attribute(m, name, &t), "get_tensor_attribute");
  return h.add(t);
}

TEST(TensorAttribute, BuiltinForwardReadsIt) {
  Handles h;
  ModuleHandle m(build("linear"));
  glia_tensor* x = make(h, {1, 2, 3, 4}, {1, 4}, GLIA_FLOAT32);
  glia_tensor* bias = parameter(h, m.get(), "bias");
  ok(glia_module_remove(m.get(), "weight"), "remove");
  const glia_tensor* in[1] = {x};
  glia_tensor* outs[1] = {nullptr};
  int64_t n_out = 0;
  EXPECT_EQ(error_text(glia_module_forward(m.get(), in, 1, outs, 1, &n_out)), "Linear has no parameter `weight`");
  // A non-leaf tensor: computed with a graph from a leaf that requires grad.
  glia_tensor* leaf = make(h, std::vector<double>(12, 0.5), {3, 4}, GLIA_FLOAT32);
  ok(glia_tensor_set_requires_grad(leaf, 1), "requires_grad");
  glia_tensor* w = nullptr;
  ok(glia_mul(leaf, leaf, &w), "mul");
  h.add(w);
  ok(glia_module_set_tensor_attribute(m.get(), "weight", w), "set");
  glia_tensor* out = call(h, m.get(), {x});
  std::vector<double> b = values(bias), want(3);
  for (int i = 0; i < 3; ++i) want[i] = 0.25 * (1 + 2 + 3 + 4) + b[i];
  expect_values(values(out), want, 1e-6, "out");
  glia_tensor* loss = nullptr;
  ok(glia_sum(out, nullptr, 0, 0, &loss), "sum");
  h.add(loss);
  ok(glia_tensor_backward(loss, nullptr, 0), "backward");
  // d/dleaf sum(x @ (leaf*leaf)^T) = 2 * leaf * x (per row)
  expect_values(values(grad_of(h, leaf)), {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}, 1e-6, "grad");
  EXPECT_EQ(state_dict_keys(m.get()), (std::vector<std::string>{"bias"}));
  EXPECT_EQ(values(attribute(h, m.get(), "weight")), values(w));
  ok(glia_module_remove_tensor_attribute(m.get(), "weight"), "remove attribute");
  enum glia_error_code code;
  glia_tensor* none = nullptr;
  EXPECT_EQ(error_text(glia_module_get_tensor_attribute(m.get(), "weight", &none), &code),
            "'Linear' object has no attribute 'weight'");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  EXPECT_EQ(error_text(glia_module_remove_tensor_attribute(m.get(), "weight"), &code),
            "'Linear' object has no attribute 'weight'");
}

TEST(TensorAttribute, NameConflictsAreTorchs) {
  Handles h;
  ModuleHandle m(build("linear"));
  glia_tensor* t = make(h, {1, 2}, {2}, GLIA_FLOAT32);
  enum glia_error_code code;
  EXPECT_EQ(error_text(glia_module_set_tensor_attribute(m.get(), "weight", t), &code),
            "cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  ok(glia_module_register_buffer(m.get(), "buf", t, 1), "buffer");
  EXPECT_EQ(error_text(glia_module_set_tensor_attribute(m.get(), "buf", t)), "attribute 'buf' already exists");
  ok(glia_module_set_tensor_attribute(m.get(), "extra", t), "set");
  EXPECT_EQ(error_text(glia_module_register_parameter(m.get(), "extra", t)), "attribute 'extra' already exists");
  EXPECT_EQ(error_text(glia_module_register_buffer(m.get(), "extra", t, 1)), "attribute 'extra' already exists");
  EXPECT_EQ(error_text(glia_module_set_tensor_attribute(m.get(), "a.b", t)), "attribute name can't contain \".\"");
  {
    enum glia_error_code c = GLIA_OK;
    error_text(glia_module_set_tensor_attribute(m.get(), "x", nullptr), &c);  // frees the error
    EXPECT_EQ(c, GLIA_ERR_INVALID_HANDLE);
  }
  ok(glia_module_remove(m.get(), "extra"), "remove removes an attribute too");
  EXPECT_EQ(state_dict_keys(m.get()), (std::vector<std::string>{"weight", "bias", "buf"}));
}

TEST(WeightNorm, MatchesTorch) {
  int n = 0;
  for (const json& c : cases()) {
    if (c["kind"] != "weight_norm") continue;
    ++n;
    SCOPED_TRACE(c["name"].get<std::string>());
    Handles h;
    ModuleHandle m(make_module(h, c));
    int64_t dim = c["dim"].is_null() ? -1 : c["dim"].get<int64_t>();
    ok(glia_nn_utils_weight_norm(m.get(), "weight", dim), "weight_norm");
    EXPECT_EQ(state_dict_keys(m.get()), c["keys"].get<std::vector<std::string>>());
    glia_tensor* g = parameter(h, m.get(), "weight_g");
    glia_tensor* v = parameter(h, m.get(), "weight_v");
    expect_tensor(g, c["weight_g"], 1e-5, "g");
    expect_tensor(v, c["weight_v"], 1e-5, "v");
    expect_tensor(run(h, m.get(), c), c["out"], 1e-5, "out");
    expect_tensor(grad_of(h, g), c["grad_g"], 1e-5, "grad g");
    expect_tensor(grad_of(h, v), c["grad_v"], 1e-5, "grad v");
    ok(glia_nn_utils_remove_weight_norm(m.get(), "weight"), "remove");
    EXPECT_EQ(state_dict_keys(m.get()), c["removed_keys"].get<std::vector<std::string>>());
    expect_tensor(parameter(h, m.get(), "weight"), c["removed_weight"], 1e-5, "removed");
  }
  EXPECT_EQ(n, 11);
}

TEST(WeightNorm, ErrorsChangeNothing) {
  const json& c = case_named("weight_norm_errors");
  Handles h;
  ModuleHandle m(build("linear"));
  ok(glia_nn_utils_weight_norm(m.get(), "weight", 0), "weight_norm");
  enum glia_error_code code;
  EXPECT_EQ(error_text(glia_nn_utils_weight_norm(m.get(), "weight", 0), &code), c["twice"]["message"]);
  EXPECT_EQ(code, GLIA_ERR_STATE);
  EXPECT_EQ(error_text(glia_nn_utils_remove_weight_norm(m.get(), "bias"), &code), c["remove_missing"]["message"]);
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  ModuleHandle m2(build("linear"));
  EXPECT_EQ(error_text(glia_nn_utils_weight_norm(m2.get(), "weight", 5), &code),
            "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  EXPECT_EQ(error_text(glia_nn_utils_weight_norm(m2.get(), "foo", 0), &code), "'Linear' object has no parameter 'foo'");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  EXPECT_EQ(state_dict_keys(m2.get()), (std::vector<std::string>{"weight", "bias"}));
}

TEST(SpectralNorm, MatchesTorch) {
  int n = 0;
  for (const json& c : cases()) {
    if (c["kind"] != "spectral_norm") continue;
    ++n;
    SCOPED_TRACE(c["name"].get<std::string>());
    Handles h;
    ModuleHandle m(make_module(h, c));
    ok(glia_nn_utils_spectral_norm(m.get(), "weight", c["n_power_iterations"].get<int64_t>(), 1e-12, 0, 0),
       "spectral_norm");
    EXPECT_EQ(state_dict_keys(m.get()), c["keys"].get<std::vector<std::string>>());
    glia_tensor* u = buffer(h, m.get(), "weight_u");
    glia_tensor* v = buffer(h, m.get(), "weight_v");
    assign(h, u, c["u0"]);
    assign(h, v, c["v0"]);
    glia_tensor* orig = parameter(h, m.get(), "weight_orig");
    expect_tensor(run(h, m.get(), c), c["out1"], 1e-5, "out1");
    expect_tensor(u, c["u1"], 1e-5, "u1");
    expect_tensor(v, c["v1"], 1e-5, "v1");
    expect_tensor(grad_of(h, orig), c["grad_orig"], 1e-4, "grad orig");
    expect_tensor(call(h, m.get(), {tensor_from_json(h, c["x"])}), c["out2"], 1e-5, "out2");
    ok(glia_module_train(m.get(), 0), "eval");
    expect_tensor(call(h, m.get(), {tensor_from_json(h, c["x"])}), c["out_eval"], 1e-5, "eval");
    expect_tensor(u, c["u2"], 1e-5, "eval keeps u");
    expect_tensor(attribute(h, m.get(), "weight"), c["weight_eval"], 1e-5, "weight");
    ok(glia_nn_utils_remove_spectral_norm(m.get(), "weight"), "remove");
    EXPECT_EQ(state_dict_keys(m.get()), c["removed_keys"].get<std::vector<std::string>>());
    expect_tensor(parameter(h, m.get(), "weight"), c["removed_weight"], 1e-5, "removed");
  }
  EXPECT_EQ(n, 4);
}

TEST(SpectralNorm, Errors) {
  const json& c = case_named("spectral_norm_errors");
  ModuleHandle m(build("linear"));
  ok(glia_nn_utils_spectral_norm(m.get(), "weight", 1, 1e-12, 0, 0), "spectral_norm");
  enum glia_error_code code;
  EXPECT_EQ(error_text(glia_nn_utils_spectral_norm(m.get(), "weight", 1, 1e-12, 0, 0), &code), c["twice"]["message"]);
  EXPECT_EQ(code, GLIA_ERR_STATE);
  ModuleHandle m2(build("linear"));
  EXPECT_EQ(error_text(glia_nn_utils_spectral_norm(m2.get(), "weight", 0, 1e-12, 0, 0), &code),
            c["iterations"]["message"]);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error_text(glia_nn_utils_remove_spectral_norm(m.get(), "bias"), &code), c["remove_missing"]["message"]);
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  EXPECT_EQ(state_dict_keys(m2.get()), (std::vector<std::string>{"weight", "bias"}));
}

TEST(ConvertParameters, RoundTrip) {
  const json& c = case_named("parameters_to_vector");
  Handles h;
  ModuleHandle m(build("linear"));
  glia_tensor* ps[2] = {parameter(h, m.get(), "weight"), parameter(h, m.get(), "bias")};
  assign(h, ps[0], c["weight"]);
  assign(h, ps[1], c["bias"]);
  glia_tensor* vec = nullptr;
  ok(glia_nn_utils_parameters_to_vector(ps, 2, &vec), "parameters_to_vector");
  h.add(vec);
  expect_tensor(vec, c["vector"], 1e-6, "vector");
  glia_tensor* twice = nullptr;
  ok(glia_add(vec, vec, 1.0, &twice), "add");
  h.add(twice);
  ok(glia_nn_utils_vector_to_parameters(twice, ps, 2), "vector_to_parameters");
  std::vector<double> want = values(twice);
  std::vector<double> got = values(ps[0]), b = values(ps[1]);
  got.insert(got.end(), b.begin(), b.end());
  expect_values(got, want, 0, "parameters");
  glia_tensor* shorter = make(h, {1, 2, 3}, {3}, GLIA_FLOAT32);
  {
    enum glia_error_code c = GLIA_OK;
    error_text(glia_nn_utils_vector_to_parameters(shorter, ps, 2), &c);  // frees the error
    EXPECT_EQ(c, GLIA_ERR_SHAPE);
  }
  got = values(ps[0]);
  EXPECT_EQ(got[0], want[0]) << "unchanged after the error";
}

TEST(SwapTensor, ReplacesAndRestores) {
  Handles h;
  ModuleHandle m(build("linear"));
  glia_tensor* w = parameter(h, m.get(), "weight");
  glia_tensor* x = make(h, {1, 1, 1, 1}, {1, 4}, GLIA_FLOAT32);
  glia_tensor* zeros = make(h, std::vector<double>(12, 0.0), {3, 4}, GLIA_FLOAT32);
  glia_tensor* prev = nullptr;
  ok(glia_module_swap_tensor(m.get(), "weight", zeros, &prev), "swap");
  h.add(prev);
  expect_values(values(call(h, m.get(), {x})), values(parameter(h, m.get(), "bias")), 1e-7, "with zeros");
  glia_tensor* back = nullptr;
  ok(glia_module_swap_tensor(m.get(), "weight", prev, &back), "swap back");
  h.add(back);
  EXPECT_EQ(values(parameter(h, m.get(), "weight")), values(w));
  {
    enum glia_error_code c = GLIA_OK;
    error_text(glia_module_swap_tensor(m.get(), "nope", zeros, &back), &c);  // frees the error
    EXPECT_EQ(c, GLIA_ERR_NOT_FOUND);
  }
}

}  // namespace
}  // namespace glia_test
