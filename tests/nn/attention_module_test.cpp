// glia_nn_multihead_attention against torch.nn.MultiheadAttention (the
// MultiheadAttention cases of tests/golden/gen_transformer.py's
// modules/transformer.json): with torch's parameters copied in, outputs and the
// gradients of every input and parameter match, repr and state-dict keys are
// torch's; glia_module_forward gives torch's defaults; hooks run around
// glia_nn_multihead_attention_forward; init follows torch's scheme.
#include <gtest/gtest.h>

#include <cmath>

#include "layers_support.h"

using namespace glia_test;

namespace {

const json& fixture() {
  static const json f = load_json("golden/modules/transformer.json");
  return f;
}

template <class T>
T arg(const json& a, const char* key, T dflt) {
  return a.contains(key) && !a[key].is_null() ? a[key].get<T>() : dflt;
}

glia_error* build_mha(const json& a, const glia_factory_options* f, glia_module** out) {
  glia_nn_multihead_attention_options o;
  glia_nn_multihead_attention_options_init(&o);
  o.dropout = arg<double>(a, "dropout", 0.0);
  o.bias = arg<bool>(a, "bias", true) ? 1 : 0;
  o.add_bias_kv = arg<bool>(a, "add_bias_kv", false) ? 1 : 0;
  o.add_zero_attn = arg<bool>(a, "add_zero_attn", false) ? 1 : 0;
  o.kdim = arg<int64_t>(a, "kdim", -1);
  o.vdim = arg<int64_t>(a, "vdim", -1);
  o.batch_first = arg<bool>(a, "batch_first", false) ? 1 : 0;
  return glia_nn_multihead_attention(a["embed_dim"], a["num_heads"], &o, f, out);
}

// The tensor of input `kw` of case `c` (NULL when absent or null).
const json* input_of(const json& c, const std::string& kw) {
  for (const json& x : c["inputs"])
    if (x[0] == kw && !x[1].is_null()) return &x[1];
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
  GLIA_OK_(build_mha(c["args"], &fo, m.out()));
  EXPECT_EQ(module_repr(m), c["repr"].get<std::string>());
  std::vector<std::string> keys;
  for (const json& k : c["keys"]) {
    keys.push_back(k[0]);
    EXPECT_EQ(shape(parameter(h, m, k[0])), k[1].get<std::vector<int64_t>>()) << k[0];
  }
  EXPECT_EQ(state_dict_keys(m), keys);
  for (const json& p : c["params"]) assign(h, parameter(h, m, p["name"]), p["value"]);
  GLIA_OK_(glia_module_train(m, c["train"].get<bool>() ? 1 : 0));

  glia_tensor* q = tensor_from_json(h, *input_of(c, "query"));
  GLIA_OK_(glia_tensor_set_requires_grad(q, 1));
  glia_tensor *k = q, *v = q;
  const std::string same = c["same"].is_null() ? "" : c["same"].get<std::string>();
  if (same != "qkv") {
    k = tensor_from_json(h, *input_of(c, "key"));
    GLIA_OK_(glia_tensor_set_requires_grad(k, 1));
    v = k;
    if (same != "kv") {
      v = tensor_from_json(h, *input_of(c, "value"));
      GLIA_OK_(glia_tensor_set_requires_grad(v, 1));
    }
  }
  const json* kpm = input_of(c, "key_padding_mask");
  const json* mask = input_of(c, "attn_mask");
  const bool need_weights = arg<bool>(c["flags"], "need_weights", true);
  const bool average = arg<bool>(c["flags"], "average_attn_weights", true);
  glia_tensor *out = nullptr, *w = nullptr;
  GLIA_OK_(glia_nn_multihead_attention_forward(m, q, k, v, kpm ? tensor_from_json(h, *kpm) : nullptr, need_weights,
                                               mask ? tensor_from_json(h, *mask) : nullptr, average, &out, &w));
  h.add(out);
  if (w) h.add(w);
  const double tol = c["tol"];
  expect_tensor(out, c["outs"][0], tol, name + " attn_output");
  if (c["outs"][1].is_null()) {
    EXPECT_EQ(w, nullptr);
  } else {
    ASSERT_NE(w, nullptr);
    expect_tensor(w, c["outs"][1], tol, name + " attn_output_weights");
  }
  glia_tensor* outs[2] = {out, w};
  glia_tensor* ws[2] = {tensor_from_json(h, c["w"][0]), w ? tensor_from_json(h, c["w"][1]) : nullptr};
  GLIA_OK_(glia_autograd_backward(outs, w ? 2 : 1, ws, 0, 0));
  const json& grads = c["grads"];
  const std::pair<const char*, glia_tensor*> ins[3] = {{"query", q}, {"key", k}, {"value", v}};
  for (const auto& [kw, t] : ins) {
    std::string key = std::string("input:") + kw;
    if (!grads.contains(key)) continue;
    glia_tensor* g = grad_of(h, t);
    ASSERT_NE(g, nullptr) << key;
    expect_tensor(g, grads[key], tol, name + " grad " + key);
  }
  for (const json& p : c["params"]) {
    const std::string pn = p["name"];
    glia_tensor* g = grad_of(h, parameter(h, m, pn));
    ASSERT_NE(g, nullptr) << pn;
    expect_tensor(g, grads[pn], tol, name + " grad " + pn);
  }
}

}  // namespace

TEST(MultiheadAttentionGolden, ForwardBackwardReprKeys) {
  int n = 0;
  for (const json& c : fixture()["cases"])
    if (c["module"] == "MultiheadAttention") {
      run_case(c);
      ++n;
    }
  EXPECT_GE(n, 9);
}

TEST(MultiheadAttention, ModuleForwardUsesTorchDefaultsAndNullMasks) {
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_multihead_attention(4, 2, nullptr, nullptr, m.out()));
  glia_tensor* q = make(h, std::vector<double>(24, 0.0), {3, 2, 4}, GLIA_FLOAT32);
  GLIA_OK_(glia_nn_init_normal_(q, 0.0, 1.0));
  // [q, q, q] and [q, q, q, NULL, NULL]: attn_output and the head-averaged weights [2, 3, 3].
  for (int64_t n_in : {3, 5}) {
    const glia_tensor* xs[5] = {q, q, q, nullptr, nullptr};
    glia_tensor* outs[4] = {};
    int64_t n = 0;
    GLIA_OK_(glia_module_forward(m, xs, n_in, outs, 4, &n));
    ASSERT_EQ(n, 2);
    h.add(outs[0]);
    h.add(outs[1]);
    EXPECT_EQ(shape(outs[0]), (std::vector<int64_t>{3, 2, 4}));
    EXPECT_EQ(shape(outs[1]), (std::vector<int64_t>{2, 3, 3}));
    for (double s : values(outs[1])) EXPECT_TRUE(std::isfinite(s));
    glia_tensor *o2 = nullptr, *w2 = nullptr;
    GLIA_OK_(glia_nn_multihead_attention_forward(m, q, q, q, nullptr, 1, nullptr, 1, &o2, &w2));
    h.add(o2);
    h.add(w2);
    expect_values(values(outs[0]), values(o2), 0.0, "module forward == full forward");
    expect_values(values(outs[1]), values(w2), 0.0, "weights");
  }
  // Two inputs, or a NULL query: torch's arity and None errors.
  const glia_tensor* two[2] = {q, q};
  glia_tensor* outs[4] = {};
  int64_t n = 0;
  EXPECT_GLIA_MSG(glia_module_forward(m, two, 2, outs, 4, &n), GLIA_ERR_INVALID_ARGUMENT,
                  "MultiheadAttention.forward: expected 3 to 5 inputs");
  const glia_tensor* none[3] = {nullptr, q, q};
  EXPECT_GLIA_MSG(glia_module_forward(m, none, 3, outs, 4, &n), GLIA_ERR_INVALID_ARGUMENT, "input 1 of 3 is None");
}

TEST(MultiheadAttention, FullForwardFlagsAndOtherModules) {
  Handles h;
  ModuleHandle m, lin;
  GLIA_OK_(glia_nn_multihead_attention(4, 2, nullptr, nullptr, m.out()));
  GLIA_OK_(glia_nn_linear(4, 4, 1, nullptr, lin.out()));
  glia_tensor* q = make(h, std::vector<double>(8, 0.5), {2, 4}, GLIA_FLOAT32);  // unbatched
  glia_tensor *o = nullptr, *w = nullptr;
  GLIA_OK_(glia_nn_multihead_attention_forward(m, q, q, q, nullptr, 0, nullptr, 1, &o, &w));
  h.add(o);
  EXPECT_EQ(w, nullptr);
  EXPECT_EQ(shape(o), (std::vector<int64_t>{2, 4}));
  GLIA_OK_(glia_nn_multihead_attention_forward(m, q, q, q, nullptr, 1, nullptr, 0, &o, &w));
  h.add(o);
  h.add(w);
  EXPECT_EQ(shape(w), (std::vector<int64_t>{2, 2, 2}));  // per head: [num_heads, L, S]
  EXPECT_GLIA_MSG(glia_nn_multihead_attention_forward(lin, q, q, q, nullptr, 1, nullptr, 1, &o, &w),
                  GLIA_ERR_INVALID_ARGUMENT, "argument 'module' is a Linear, expected a MultiheadAttention");
  glia_tensor* bad_kpm = make(h, {0, 0, 0}, {3}, GLIA_INT64);
  EXPECT_GLIA_MSG(glia_nn_multihead_attention_forward(m, q, q, q, bad_kpm, 1, nullptr, 1, &o, &w),
                  GLIA_ERR_INVALID_ARGUMENT, "only bool and floating types of key_padding_mask are supported");
}

TEST(MultiheadAttention, ConstructorChecksAndInit) {
  Handles h;
  ModuleHandle m;
  EXPECT_GLIA_MSG(glia_nn_multihead_attention(5, 2, nullptr, nullptr, m.out()), GLIA_ERR_INVALID_ARGUMENT,
                  "embed_dim must be divisible by num_heads");
  EXPECT_GLIA_MSG(glia_nn_multihead_attention(4, 0, nullptr, nullptr, m.out()), GLIA_ERR_INVALID_ARGUMENT,
                  "integer division or modulo by zero");
  glia_manual_seed(3);
  GLIA_OK_(glia_nn_multihead_attention(64, 4, nullptr, nullptr, m.out()));
  // xavier_uniform_ on [192, 64]: U(+-sqrt(6 / 256)), std sqrt(2 / 256); zero biases.
  std::vector<double> w = values(parameter(h, m, "in_proj_weight"));
  const double bound = std::sqrt(6.0 / 256.0);
  double sq = 0;
  for (double x : w) {
    EXPECT_LE(std::fabs(x), bound);
    sq += x * x;
  }
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(w.size())), std::sqrt(2.0 / 256.0), 0.005);
  for (double x : values(parameter(h, m, "in_proj_bias"))) EXPECT_EQ(x, 0.0);
  for (double x : values(parameter(h, m, "out_proj.bias"))) EXPECT_EQ(x, 0.0);
  // out_proj keeps Linear's kaiming_uniform(a=sqrt(5)): U(+-1/sqrt(64)).
  for (double x : values(parameter(h, m, "out_proj.weight"))) EXPECT_LE(std::fabs(x), 0.125);
}
