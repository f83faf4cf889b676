// The activation modules of issue 21 against torch.nn
// (tests/golden/gen_activation_extra.py -> golden/modules/activation_extra.json):
// forward, input and parameter gradients at float64 and float32, repr and
// state-dict keys, constructor and forward errors; inplace=True for the older
// activations through glia_nn_activation_set_inplace.
#include <gtest/gtest.h>

#include "layers_support.h"

using namespace glia_test;

namespace {

template <class T>
T get(const json& a, const char* key, T dflt) {
  return a.contains(key) && !a[key].is_null() ? a[key].get<T>() : dflt;
}

glia_error* build(const std::string& m, const json& a, const glia_factory_options* f, glia_module** out) {
  const int32_t inplace = get<bool>(a, "inplace", false) ? 1 : 0;
  if (m == "PReLU") return glia_nn_prelu(get<int64_t>(a, "num_parameters", 1), get<double>(a, "init", 0.25), f, out);
  if (m == "RReLU")
    return glia_nn_rrelu(get<double>(a, "lower", 1.0 / 8), get<double>(a, "upper", 1.0 / 3), inplace, f, out);
  if (m == "GLU") return glia_nn_glu(get<int64_t>(a, "dim", -1), f, out);
  if (m == "CELU") return glia_nn_celu(get<double>(a, "alpha", 1.0), inplace, f, out);
  if (m == "SELU") return glia_nn_selu(inplace, f, out);
  if (m == "Softmin") return glia_nn_softmin(a["dim"].get<int64_t>(), f, out);
  if (m == "Softmax2d") return glia_nn_softmax2d(f, out);
  if (m == "Softplus") return glia_nn_softplus(get<double>(a, "beta", 1.0), get<double>(a, "threshold", 20.0), f, out);
  if (m == "Softshrink") return glia_nn_softshrink(get<double>(a, "lambd", 0.5), f, out);
  if (m == "Hardshrink") return glia_nn_hardshrink(get<double>(a, "lambd", 0.5), f, out);
  if (m == "Tanhshrink") return glia_nn_tanhshrink(f, out);
  if (m == "Threshold") return glia_nn_threshold(a["threshold"], a["value"], inplace, f, out);
  if (m == "Hardtanh")
    return glia_nn_hardtanh(get<double>(a, "min_val", -1.0), get<double>(a, "max_val", 1.0), inplace, f, out);
  if (m == "ReLU6") return glia_nn_relu6(inplace, f, out);
  if (m == "Hardsigmoid") return glia_nn_hardsigmoid(inplace, f, out);
  if (m == "Hardswish") return glia_nn_hardswish(inplace, f, out);
  if (m == "Mish") return glia_nn_mish(inplace, f, out);
  if (m == "LogSigmoid") return glia_nn_logsigmoid(f, out);
  // ReLU, LeakyReLU, ELU, SiLU: the constructors of 0.1, then the flag.
  if (glia_error* e = build_layer(m, a, f, out)) return e;
  if (!inplace) return nullptr;
  if (glia_error* e = glia_nn_activation_set_inplace(*out, 1)) {
    glia_error_free(glia_module_release(*out));
    *out = nullptr;
    return e;
  }
  return nullptr;
}

void run_case(const json& c) {
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
  glia_grad_mode_set(0);
  for (const json& p : c["params"]) {
    glia_tensor* dst = parameter(h, m.get(), p["name"]);
    EXPECT_EQ(shape(dst), p["value"]["shape"].get<std::vector<int64_t>>()) << p["name"];
    GLIA_OK_(glia_copy_(dst, tensor_from_json(h, p["value"])));
  }
  glia_grad_mode_set(1);
  GLIA_OK_(glia_module_train(m.get(), c["train"].get<bool>() ? 1 : 0));
  const bool inplace = c["inplace"].get<bool>();
  std::vector<glia_tensor*> xs;
  std::vector<const glia_tensor*> args;
  for (const json& x : c["inputs"]) {
    glia_tensor* t = tensor_from_json(h, x);
    GLIA_OK_(glia_tensor_set_requires_grad(t, 1));
    xs.push_back(t);
    if (inplace) {  // a leaf that requires grad cannot be written in place: the module gets a clone
      glia_tensor* k = nullptr;
      GLIA_OK_(glia_tensor_clone(t, &k));
      h.add(k);
      t = k;
    }
    args.push_back(t);
  }
  glia_tensor* y = nullptr;
  int64_t n = 0;
  GLIA_OK_(glia_module_forward(m.get(), args.data(), static_cast<int64_t>(args.size()), &y, 1, &n));
  h.add(y);
  ASSERT_EQ(n, 1);
  const double tol = c["tol"];
  expect_tensor(y, c["out"], tol, name + " out");
  if (inplace) EXPECT_EQ(values(const_cast<glia_tensor*>(args[0])), values(y)) << "the input was not overwritten";
  GLIA_OK_(glia_tensor_backward(y, tensor_from_json(h, c["w"]), 0));
  for (size_t i = 0; i < xs.size(); ++i) {
    glia_tensor* g = grad_of(h, xs[i]);
    ASSERT_NE(g, nullptr);
    expect_tensor(g, c["grads"]["input" + std::to_string(i)], tol, name + " grad input");
  }
  for (const json& p : c["params"]) {
    glia_tensor* g = grad_of(h, parameter(h, m.get(), p["name"]));
    ASSERT_NE(g, nullptr);
    expect_tensor(g, c["grads"][p["name"].get<std::string>()], tol, name + " grad " + p["name"].get<std::string>());
  }
}

}  // namespace

TEST(ActivationModules, ForwardBackwardReprKeys) {
  json f = load_json("golden/modules/activation_extra.json");
  ASSERT_GE(f["cases"].size(), 50u);
  for (const json& c : f["cases"]) run_case(c);
}

// torch raises these at the first call (RReLU, Softshrink, CELU) or with an assert (Hardtanh); glia when built.
TEST(ActivationModules, ConstructorErrors) {
  json f = load_json("golden/modules/activation_extra.json");
  ASSERT_GE(f["errors"].size(), 4u);
  for (const json& e : f["errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    glia_module* m = nullptr;
    glia_error* err = build(e["module"], e["args"], nullptr, &m);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(glia_error_code(err), GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(glia_error_message(err)).find(e["message"].get<std::string>()), std::string::npos)
        << glia_error_message(err);
    glia_error_free(err);
  }
}

TEST(ActivationModules, ForwardErrors) {
  json f = load_json("golden/modules/activation_extra.json");
  ASSERT_EQ(f["forward_errors"].size(), 3u);
  for (const json& e : f["forward_errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    Handles h;
    ModuleHandle m;
    GLIA_OK_(build(e["module"], e["args"], nullptr, m.out()));
    std::vector<const glia_tensor*> xs;
    for (const json& x : e["inputs"]) xs.push_back(tensor_from_json(h, x));
    glia_tensor* y = nullptr;
    int64_t n = 0;
    glia_error* err = glia_module_forward(m.get(), xs.data(), static_cast<int64_t>(xs.size()), &y, 1, &n);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(y, nullptr);
    EXPECT_EQ(glia_error_code(err), e["module"] == "Softmax2d" ? GLIA_ERR_SHAPE : GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(glia_error_message(err)).find(e["message"].get<std::string>()), std::string::npos)
        << glia_error_message(err);
    glia_error_free(err);
  }
}

// PReLU's weight is torch's constant init (not drawn: the generator's stream does not move).
TEST(ActivationModules, PReLUInit) {
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_prelu(3, 0.1, nullptr, m.out()));
  EXPECT_EQ(values(parameter(h, m.get(), "weight")), std::vector<double>(3, static_cast<double>(0.1f)));
  ModuleHandle d;
  GLIA_OK_(glia_nn_prelu(1, 0.25, nullptr, d.out()));
  EXPECT_EQ(values(parameter(h, d.get(), "weight")), std::vector<double>{0.25});
  EXPECT_EQ(module_repr(d.get()), "PReLU(num_parameters=1)");
}

// RReLU follows the module's mode: random slopes in training, the mean slope in eval.
TEST(ActivationModules, RReLUTrainAndEval) {
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_rrelu(0.1, 0.3, 0, nullptr, m.out()));
  std::vector<double> xv(200, -1.0);
  glia_tensor* x = make(h, xv, {200});
  GLIA_OK_(glia_module_train(m.get(), 0));
  for (double v : values(call(h, m.get(), {x}))) EXPECT_DOUBLE_EQ(v, -0.2);  // float64 input
  GLIA_OK_(glia_module_train(m.get(), 1));
  std::vector<double> y = values(call(h, m.get(), {x}));
  double lo = 0, hi = -1;
  for (double v : y) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -0.3 - 1e-6);
  EXPECT_LE(hi, -0.1 + 1e-6);
  EXPECT_LT(hi - lo, 0.2 + 1e-6);
  EXPECT_GT(hi - lo, 0.1);  // 200 draws are not all one value
}

TEST(ActivationModules, SetInplaceRefusesOtherModules) {
  ModuleHandle m;
  GLIA_OK_(glia_nn_sigmoid(nullptr, m.out()));
  enum glia_error_code code;
  std::string msg = error_text(glia_nn_activation_set_inplace(m.get(), 1), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(msg, "glia_nn_activation_set_inplace: Sigmoid has no inplace argument");
  ModuleHandle r;
  GLIA_OK_(glia_nn_relu(nullptr, r.out()));
  GLIA_OK_(glia_nn_activation_set_inplace(r.get(), 1));
  EXPECT_EQ(module_repr(r.get()), "ReLU(inplace=True)");
  GLIA_OK_(glia_nn_activation_set_inplace(r.get(), 0));
  EXPECT_EQ(module_repr(r.get()), "ReLU()");
}
