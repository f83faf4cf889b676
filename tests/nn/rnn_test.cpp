// The recurrent modules against torch.nn (tests/golden/gen_rnn.py): with
// torch's parameter values copied in, every output and the gradients of every
// input, state and parameter match torch at float64 and float32; repr and
// state-dict keys and shapes are torch's; constructor and forward errors carry
// torch's text; a torch checkpoint loads; gradients match finite differences;
// init, dropout between layers, and an LSTM that learns with Adam.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>

#include "layers_support.h"

using namespace glia_test;

namespace {

template <class T>
T arg(const json& a, const char* key, T dflt) {
  return a.contains(key) && !a[key].is_null() ? a[key].get<T>() : dflt;
}

glia_error* build_rnn(const std::string& module, const json& a, const glia_factory_options* f, glia_module** out) {
  const int64_t in = a["input_size"], hidden = a["hidden_size"];
  const int32_t bias = arg<bool>(a, "bias", true) ? 1 : 0;
  std::string nl = arg<std::string>(a, "nonlinearity", "");
  const char* nonlinearity = nl.empty() ? nullptr : nl.c_str();
  if (module == "RNNCell") return glia_nn_rnn_cell(in, hidden, bias, nonlinearity, f, out);
  if (module == "LSTMCell") return glia_nn_lstm_cell(in, hidden, bias, f, out);
  if (module == "GRUCell") return glia_nn_gru_cell(in, hidden, bias, f, out);
  glia_nn_rnn_options o;
  glia_nn_rnn_options_init(&o);
  o.num_layers = arg<int64_t>(a, "num_layers", 1);
  o.bias = bias;
  o.batch_first = arg<bool>(a, "batch_first", false) ? 1 : 0;
  o.dropout = arg<double>(a, "dropout", 0.0);
  o.bidirectional = arg<bool>(a, "bidirectional", false) ? 1 : 0;
  o.proj_size = arg<int64_t>(a, "proj_size", 0);
  o.nonlinearity = nonlinearity;
  if (module == "RNN") return glia_nn_rnn(in, hidden, &o, f, out);
  if (module == "LSTM") return glia_nn_lstm(in, hidden, &o, f, out);
  if (module == "GRU") return glia_nn_gru(in, hidden, &o, f, out);
  ADD_FAILURE() << "unknown module " << module;
  return nullptr;
}

const json& fixture() {
  static const json f = load_json("golden/modules/rnn.json");
  return f;
}

const json& case_named(const std::string& name) {
  for (const json& c : fixture()["cases"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no case " + name);
}

// Forward with all outputs (owned by h).
std::vector<glia_tensor*> forward(Handles& h, glia_module* m, const std::vector<glia_tensor*>& xs) {
  glia_tensor* outs[8] = {};
  int64_t n = 0;
  glia_error* e = glia_module_forward(m, const_cast<const glia_tensor* const*>(xs.data()),
                                      static_cast<int64_t>(xs.size()), outs, 8, &n);
  std::vector<glia_tensor*> r;
  if (e) {
    ADD_FAILURE() << "forward: " << glia_error_message(e);
    glia_error_free(e);
    return r;
  }
  for (int64_t i = 0; i < n; ++i) r.push_back(h.add(outs[i]));
  return r;
}

// A built module holding the case's (torch's) parameters, and its inputs (requiring grad).
struct Built {
  ModuleHandle m;
  std::vector<glia_tensor*> xs;
};

void build_case(Handles& h, const json& c, Built& b) {
  glia_factory_options fo;
  glia_factory_options_init(&fo);
  fo.dtype = dtype_named(c["dtype"]);
  GLIA_OK_(build_rnn(c["module"], c["args"], &fo, b.m.out()));
  for (const json& p : c["params"]) assign(h, parameter(h, b.m, p["name"]), p["value"]);
  GLIA_OK_(glia_module_train(b.m, c["train"].get<bool>() ? 1 : 0));
  for (const json& x : c["inputs"]) {
    glia_tensor* t = tensor_from_json(h, x);
    if (t) GLIA_OK_(glia_tensor_set_requires_grad(t, 1));
    b.xs.push_back(t);
  }
}

void run_case(const json& c) {
  const std::string name = c["name"];
  SCOPED_TRACE(name);
  Handles h;
  Built b;
  build_case(h, c, b);
  EXPECT_EQ(module_repr(b.m), c["repr"].get<std::string>());
  std::vector<std::string> keys;
  for (const json& k : c["keys"]) {
    keys.push_back(k[0]);
    EXPECT_EQ(shape(parameter(h, b.m, k[0])), k[1].get<std::vector<int64_t>>()) << k[0];
  }
  EXPECT_EQ(state_dict_keys(b.m), keys);

  std::vector<glia_tensor*> outs = forward(h, b.m, b.xs);
  ASSERT_EQ(outs.size(), c["outs"].size());
  const double tol = c["tol"];
  std::vector<glia_tensor*> ws;
  for (size_t k = 0; k < outs.size(); ++k) {
    expect_tensor(outs[k], c["outs"][k], tol, name + " out" + std::to_string(k));
    ws.push_back(tensor_from_json(h, c["w"][k]));
  }
  GLIA_OK_(glia_autograd_backward(outs.data(), static_cast<int64_t>(outs.size()), ws.data(), 0, 0));
  const json& grads = c["grads"];
  for (size_t i = 0; i < b.xs.size(); ++i) {
    if (!b.xs[i]) continue;
    std::string key = "input" + std::to_string(i);
    glia_tensor* g = grad_of(h, b.xs[i]);
    ASSERT_NE(g, nullptr) << key;
    expect_tensor(g, grads[key], tol, name + " grad " + key);
  }
  for (const json& p : c["params"]) {
    const std::string pn = p["name"];
    glia_tensor* g = grad_of(h, parameter(h, b.m, pn));
    ASSERT_NE(g, nullptr) << pn;
    expect_tensor(g, grads[pn], tol, name + " grad " + pn);
  }
}

// How a case turns its inputs into outputs (owned by the Handles): glia_module_forward, or the packed path.
using Runner = std::function<std::vector<glia_tensor*>(Handles&, glia_module*, const std::vector<glia_tensor*>&)>;

// sum_k <outs[k], w[k]> without recording a graph.
double loss_of(const Runner& run, glia_module* m, const std::vector<glia_tensor*>& xs,
               const std::vector<std::vector<double>>& ws) {
  Handles h;
  glia_grad_mode_set(0);
  std::vector<glia_tensor*> outs = run(h, m, xs);
  glia_grad_mode_set(1);
  double s = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    std::vector<double> v = values(outs[k]);
    s += std::inner_product(v.begin(), v.end(), ws[k].begin(), 0.0);
  }
  return s;
}

void set_values(glia_tensor* t, const std::vector<double>& v) {
  Handles h;
  glia_grad_mode_set(0);
  GLIA_OK_(glia_copy_(t, make(h, v, shape(t), dtype(t))));
  glia_grad_mode_set(1);
}

// Central differences of the case's loss against glia's gradients, for every
// element of every input, state and parameter.
void check_finite_differences(const json& c, const Runner& run = forward) {
  SCOPED_TRACE(c["name"].get<std::string>());
  Handles h;
  Built b;
  build_case(h, c, b);
  std::vector<glia_tensor*> outs = run(h, b.m, b.xs);
  std::vector<glia_tensor*> ws;
  std::vector<std::vector<double>> wv;
  for (size_t k = 0; k < outs.size(); ++k) {
    ws.push_back(tensor_from_json(h, c["w"][k]));
    wv.push_back(values(ws.back()));
  }
  GLIA_OK_(glia_autograd_backward(outs.data(), static_cast<int64_t>(outs.size()), ws.data(), 0, 0));
  std::vector<std::pair<std::string, glia_tensor*>> targets;
  for (size_t i = 0; i < b.xs.size(); ++i)
    if (b.xs[i]) targets.emplace_back("input" + std::to_string(i), b.xs[i]);
  for (const json& p : c["params"]) targets.emplace_back(p["name"], parameter(h, b.m, p["name"]));
  const double eps = 1e-6;
  for (auto& [what, t] : targets) {
    std::vector<double> g = values(grad_of(h, t));
    std::vector<double> v = values(t);
    for (size_t j = 0; j < v.size(); ++j) {
      std::vector<double> p = v;
      p[j] = v[j] + eps;
      set_values(t, p);
      double up = loss_of(run, b.m, b.xs, wv);
      p[j] = v[j] - eps;
      set_values(t, p);
      double down = loss_of(run, b.m, b.xs, wv);
      set_values(t, v);
      double fd = (up - down) / (2 * eps);
      EXPECT_NEAR(g[j], fd, 1e-6 * (1 + std::abs(fd))) << what << "[" << j << "]";
    }
  }
}

}  // namespace

TEST(RnnGolden, ForwardBackwardReprKeys) {
  ASSERT_GE(fixture()["cases"].size(), 30u);
  for (const json& c : fixture()["cases"]) run_case(c);
}

TEST(RnnGolden, ConstructorErrors) {
  ASSERT_GE(fixture()["errors"].size(), 12u);
  for (const json& e : fixture()["errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    glia_module* m = nullptr;
    enum glia_error_code code = GLIA_OK;
    std::string msg = error_text(build_rnn(e["module"], e["args"], nullptr, &m), &code);
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(msg.find(e["message"].get<std::string>()), std::string::npos) << msg;
  }
}

TEST(RnnGolden, ForwardErrors) {
  ASSERT_GE(fixture()["forward_errors"].size(), 20u);
  for (const json& e : fixture()["forward_errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    Handles h;
    ModuleHandle m;
    GLIA_OK_(build_rnn(e["module"], e["args"], nullptr, m.out()));
    std::vector<const glia_tensor*> xs;
    for (const json& x : e["inputs"]) xs.push_back(tensor_from_json(h, x));
    glia_tensor* y[4] = {};
    int64_t n = -1;
    enum glia_error_code code = GLIA_OK;
    std::string msg = error_text(glia_module_forward(m, xs.data(), static_cast<int64_t>(xs.size()), y, 4, &n), &code);
    EXPECT_EQ(y[0], nullptr);
    EXPECT_EQ(n, -1);
    EXPECT_EQ(code, GLIA_ERR_SHAPE);
    EXPECT_NE(msg.find(e["message"].get<std::string>()), std::string::npos) << msg;
  }
}

TEST(Rnn, StatesMustBothBeGivenAndInputsCounted) {
  Handles h;
  ModuleHandle lstm, gru;
  GLIA_OK_(glia_nn_lstm(3, 4, nullptr, nullptr, lstm.out()));
  GLIA_OK_(glia_nn_gru_cell(3, 4, 1, nullptr, gru.out()));
  glia_tensor* x = make(h, std::vector<double>(6, 0.5), {1, 2, 3}, GLIA_FLOAT32);
  glia_tensor* s = make(h, std::vector<double>(8, 0.0), {1, 2, 4}, GLIA_FLOAT32);
  glia_tensor* out[4] = {};
  int64_t n = 0;
  enum glia_error_code code = GLIA_OK;
  const glia_tensor* only_h[] = {x, s, nullptr};
  EXPECT_EQ(error_text(glia_module_forward(lstm, only_h, 3, out, 4, &n), &code),
            "LSTM.forward: h_0 and c_0 must both be given or both be None (torch's hx=(h_0, c_0)), got h_0 without "
            "c_0");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  const glia_tensor* only_c[] = {x, nullptr, s};
  EXPECT_NE(error_text(glia_module_forward(lstm, only_c, 3, out, 4, &n), &code).find("got c_0 without h_0"),
            std::string::npos);
  const glia_tensor* four[] = {x, s, s, s};
  EXPECT_EQ(error_text(glia_module_forward(lstm, four, 4, out, 4, &n), &code),
            "LSTM.forward: expected 1 to 3 inputs (input, h_0, c_0), got 4");
  const glia_tensor* three[] = {x, s, s};
  EXPECT_EQ(error_text(glia_module_forward(gru, three, 3, out, 4, &n), &code),
            "GRUCell.forward: expected 1 to 2 inputs (input, h_0), got 3");
  const glia_tensor* none[] = {nullptr};
  EXPECT_EQ(error_text(glia_module_forward(gru, none, 1, out, 4, &n), &code),
            "GRUCell.forward: input 1 of 1 is None, expected a Tensor");
  EXPECT_EQ(out[0], nullptr);
  // Both NULL is torch's hx=None: zeros.
  std::vector<glia_tensor*> with_nulls = forward(h, lstm, {x, nullptr, nullptr});
  std::vector<glia_tensor*> without = forward(h, lstm, {x});
  ASSERT_EQ(with_nulls.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(values(with_nulls[k]), values(without[k]));
}

TEST(Rnn, TorchCheckpointLoads) {
  const json& ck = fixture()["checkpoint"];
  Handles h;
  ModuleHandle m;
  GLIA_OK_(build_rnn(ck["module"], ck["args"], nullptr, m.out()));
  EXPECT_EQ(state_dict_keys(m), ck["keys"].get<std::vector<std::string>>());
  GLIA_OK_(glia_module_load(m, data_path("golden/modules/" + ck["file"].get<std::string>()).c_str(), 1, nullptr));
  std::vector<glia_tensor*> outs = forward(h, m, {tensor_from_json(h, ck["input"])});
  ASSERT_EQ(outs.size(), 3u);
  for (size_t k = 0; k < 3; ++k) expect_tensor(outs[k], ck["outs"][k], 1e-6, "out" + std::to_string(k));
}

TEST(Rnn, GradientsMatchFiniteDifferences) {
  for (const char* name :
       {"rnn_cell_relu_nobias_state", "lstm_cell_state", "lstm_cell_unbatched_nobias", "gru_cell_state",
        "rnn_relu_2layers_bidir_state", "lstm_2layers_state", "lstm_proj_2layers_bidir",
        "lstm_proj_unbatched_batch_first", "gru_2layers_bidir", "gru_batch_first_state"})
    check_finite_differences(case_named(name));
}

TEST(Rnn, InitIsUniformInOneOverSqrtHiddenInTorchsOrder) {
  Handles h;
  glia_manual_seed(21);
  ModuleHandle big;
  glia_nn_rnn_options o;
  glia_nn_rnn_options_init(&o);
  o.num_layers = 2;
  o.bidirectional = 1;
  GLIA_OK_(glia_nn_lstm(64, 100, &o, nullptr, big.out()));
  std::vector<double> all;
  for (const std::string& k : state_dict_keys(big)) {
    std::vector<double> v = values(parameter(h, big, k));
    all.insert(all.end(), v.begin(), v.end());
  }
  Stats s = stats(all);
  EXPECT_GE(s.min, -0.1);
  EXPECT_LE(s.max, 0.1);
  EXPECT_LT(s.min, -0.0999);
  EXPECT_GT(s.max, 0.0999);
  EXPECT_NEAR(s.mean, 0.0, 1e-3);
  EXPECT_NEAR(s.std, 0.1 / std::sqrt(3.0), 1e-3);

  // The draws are glia_nn_init_uniform_'s, parameter after parameter in registration order.
  for (const char* module : {"LSTMCell", "GRU"}) {
    SCOPED_TRACE(module);
    json a = {{"input_size", 3}, {"hidden_size", 4}, {"num_layers", 2}};
    glia_manual_seed(5);
    ModuleHandle m;
    GLIA_OK_(build_rnn(module, a, nullptr, m.out()));
    glia_manual_seed(5);
    for (const std::string& k : state_dict_keys(m)) {
      glia_tensor* p = parameter(h, m, k);
      std::vector<int64_t> sh = shape(p);
      glia_tensor* t = make(h, std::vector<double>(values(p).size(), 0.0), sh, GLIA_FLOAT32);
      GLIA_OK_(glia_nn_init_uniform_(t, -0.5, 0.5));
      EXPECT_EQ(values(t), values(p)) << k;
    }
  }
}

TEST(Rnn, DropoutBetweenLayersOnlyInTraining) {
  Handles h;
  glia_nn_rnn_options o;
  glia_nn_rnn_options_init(&o);
  o.num_layers = 2;
  o.dropout = 1.0;
  ModuleHandle two, top;
  GLIA_OK_(glia_nn_lstm(3, 4, &o, nullptr, two.out()));
  // The top layer alone: an LSTM(4, 4) with the second layer's parameters.
  GLIA_OK_(glia_nn_lstm(4, 4, nullptr, nullptr, top.out()));
  for (const char* k : {"weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l"}) {
    glia_tensor* src = parameter(h, two, std::string(k) + "1");
    glia_grad_mode_set(0);
    GLIA_OK_(glia_copy_(parameter(h, top, std::string(k) + "0"), src));
    glia_grad_mode_set(1);
  }
  std::vector<double> xv(5 * 2 * 3);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.7 * static_cast<double>(i));
  glia_tensor* x = make(h, xv, {5, 2, 3}, GLIA_FLOAT32);
  glia_tensor* zero = make(h, std::vector<double>(5 * 2 * 4, 0.0), {5, 2, 4}, GLIA_FLOAT32);
  // Training with p = 1: the top layer sees zeros.
  std::vector<glia_tensor*> trained = forward(h, two, {x});
  std::vector<glia_tensor*> alone = forward(h, top, {zero});
  EXPECT_EQ(values(trained[0]), values(alone[0]));
  // Eval: no dropout, the top layer sees the first layer's output.
  GLIA_OK_(glia_module_train(two, 0));
  std::vector<glia_tensor*> evaluated = forward(h, two, {x});
  EXPECT_NE(values(evaluated[0]), values(alone[0]));
  EXPECT_EQ(module_repr(two), "LSTM(3, 4, num_layers=2, dropout=1.0)");
}

// A character-style sequence task: after each step, predict the input of two
// steps before (a memory of 2). An LSTM(1, 16) + Linear(16, 1) trained with
// Adam brings the mean squared error well below its start.
TEST(Rnn, LstmLearnsASequenceTaskWithAdam) {
  Handles h;
  glia_manual_seed(3);
  ModuleHandle lstm, head;
  GLIA_OK_(glia_nn_lstm(1, 16, nullptr, nullptr, lstm.out()));
  GLIA_OK_(glia_nn_linear(16, 1, 1, nullptr, head.out()));
  std::vector<glia_tensor*> params;
  for (glia_module* m : {lstm.get(), head.get()})
    for (const std::string& k : state_dict_keys(m)) params.push_back(parameter(h, m, k));
  glia_adam_options ao;
  glia_adam_options_init(&ao);
  ao.lr = 0.02;
  OptHandle opt;
  GLIA_OK_(glia_optim_adam(params.data(), static_cast<int64_t>(params.size()), &ao, opt.out()));
  const int64_t T = 12, B = 8;
  std::vector<double> xv(T * B), yv(T * B, 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) xv[t * B + b] = std::sin(1.3 * static_cast<double>(t * 7 + b * 3) + 0.5 * b);
  for (int64_t t = 2; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) yv[t * B + b] = xv[(t - 2) * B + b];
  glia_tensor* x = make(h, xv, {T, B, 1}, GLIA_FLOAT32);
  glia_tensor* y = make(h, yv, {T, B, 1}, GLIA_FLOAT32);
  double first = 0, last = 0;
  for (int step = 0; step < 150; ++step) {
    Handles s;
    GLIA_OK_(glia_optimizer_zero_grad(opt, 1));
    std::vector<glia_tensor*> outs = forward(s, lstm, {x});
    glia_tensor* pred = call(s, head, {outs[0]});
    glia_tensor* loss = nullptr;
    GLIA_OK_(glia_mse_loss(pred, y, GLIA_REDUCTION_MEAN, &loss));
    s.add(loss);
    GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
    GLIA_OK_(glia_optimizer_step(opt));
    double l = values(loss)[0];
    if (step == 0) first = l;
    last = l;
  }
  EXPECT_GT(first, 0.2);
  EXPECT_LT(last, 0.1 * first) << "first " << first << " last " << last;
}

namespace {

// Owns a glia_packed_sequence's four references.
struct Packed {
  glia_packed_sequence s{};
  ~Packed() { glia_error_free(glia_packed_sequence_release(&s)); }
};

void expect_optional(glia_tensor* got, const json& want, const std::string& what) {
  if (want.is_null()) {
    EXPECT_EQ(got, nullptr) << what;
  } else {
    ASSERT_NE(got, nullptr) << what;
    expect_tensor(got, want, 0, what);
  }
}

void run_packed_case(const json& c) {
  const std::string name = c["name"];
  SCOPED_TRACE(name);
  Handles h;
  Built b;
  build_case(h, c, b);
  const bool bf = arg<bool>(c["args"], "batch_first", false);
  std::vector<int64_t> lengths = c["lengths"].get<std::vector<int64_t>>();
  Packed in, out;
  GLIA_OK_(glia_nn_utils_rnn_pack_padded_sequence(b.xs[0], lengths.data(), static_cast<int64_t>(lengths.size()),
                                                  bf ? 1 : 0, c["enforce_sorted"].get<bool>() ? 1 : 0, &in.s));
  const double tol = c["tol"];
  expect_tensor(in.s.data, c["packed"][0], tol, "packed data");
  expect_optional(in.s.batch_sizes, c["packed"][1], "batch_sizes");
  expect_optional(in.s.sorted_indices, c["packed"][2], "sorted_indices");
  expect_optional(in.s.unsorted_indices, c["packed"][3], "unsorted_indices");

  glia_tensor *h_n = nullptr, *c_n = nullptr;
  GLIA_OK_(glia_nn_rnn_forward_packed(b.m, &in.s, b.xs.size() > 1 ? b.xs[1] : nullptr,
                                      b.xs.size() > 2 ? b.xs[2] : nullptr, &out.s, &h_n, &c_n));
  h.add(h_n);
  h.add(c_n);
  expect_tensor(out.s.data, c["out_data"], tol, "output data");
  expect_optional(out.s.batch_sizes, c["packed"][1], "output batch_sizes");
  glia_tensor *padded = nullptr, *lens = nullptr;
  GLIA_OK_(glia_nn_utils_rnn_pad_packed_sequence(&out.s, bf ? 1 : 0, 0.0, nullptr, &padded, &lens));
  h.add(padded);
  h.add(lens);
  expect_tensor(lens, c["out_lengths"], 0, "lengths");
  std::vector<glia_tensor*> outs{padded, h_n};
  if (c_n) outs.push_back(c_n);
  ASSERT_EQ(outs.size(), c["outs"].size());
  std::vector<glia_tensor*> ws;
  for (size_t k = 0; k < outs.size(); ++k) {
    expect_tensor(outs[k], c["outs"][k], tol, "out" + std::to_string(k));
    ws.push_back(tensor_from_json(h, c["w"][k]));
  }
  GLIA_OK_(glia_autograd_backward(outs.data(), static_cast<int64_t>(outs.size()), ws.data(), 0, 0));
  for (size_t i = 0; i < b.xs.size(); ++i)
    expect_tensor(grad_of(h, b.xs[i]), c["grads"]["input" + std::to_string(i)], tol, "grad input" + std::to_string(i));
  for (const json& p : c["params"])
    expect_tensor(grad_of(h, parameter(h, b.m, p["name"])), c["grads"][p["name"].get<std::string>()], tol,
                  "grad " + p["name"].get<std::string>());
}

// A packed case's outputs: pack_padded_sequence(input, lengths) -> the layer -> pad_packed_sequence;
// [padded output, h_n(, c_n)].
Runner packed_runner(const json& c) {
  const bool bf = arg<bool>(c["args"], "batch_first", false);
  const bool sorted = c["enforce_sorted"];
  const std::vector<int64_t> lengths = c["lengths"].get<std::vector<int64_t>>();
  return [=](Handles& h, glia_module* m, const std::vector<glia_tensor*>& xs) {
    Packed in, out;
    std::vector<glia_tensor*> r;
    glia_tensor *h_n = nullptr, *c_n = nullptr, *padded = nullptr;
    glia_error* e = glia_nn_utils_rnn_pack_padded_sequence(xs[0], lengths.data(), static_cast<int64_t>(lengths.size()),
                                                           bf ? 1 : 0, sorted ? 1 : 0, &in.s);
    if (!e)
      e = glia_nn_rnn_forward_packed(m, &in.s, xs.size() > 1 ? xs[1] : nullptr, xs.size() > 2 ? xs[2] : nullptr, &out.s,
                                     &h_n, &c_n);
    if (!e) e = glia_nn_utils_rnn_pad_packed_sequence(&out.s, bf ? 1 : 0, 0.0, nullptr, &padded, nullptr);
    if (e) {
      ADD_FAILURE() << glia_error_message(e);
      glia_error_free(e);
      return r;
    }
    r = {h.add(padded), h.add(h_n)};
    if (c_n) r.push_back(h.add(c_n));
    return r;
  };
}

std::vector<glia_tensor*> sequences_of(Handles& h, const json& u) {
  std::vector<glia_tensor*> seqs;
  for (const json& q : u["sequences"]) seqs.push_back(tensor_from_json(h, q));
  return seqs;
}

}  // namespace

TEST(RnnGolden, PackedSequencesThroughTheLayers) {
  ASSERT_GE(fixture()["packed"].size(), 7u);
  for (const json& c : fixture()["packed"]) run_packed_case(c);
}

TEST(Rnn, PackedGradientsMatchFiniteDifferences) {
  for (const json& c : fixture()["packed"])
    if (c["dtype"] == "float64") check_finite_differences(c, packed_runner(c));
}

TEST(RnnGolden, PadSequenceAndPadPackedSequence) {
  ASSERT_GE(fixture()["utils"].size(), 4u);
  for (const json& u : fixture()["utils"]) {
    SCOPED_TRACE(u["name"].get<std::string>());
    Handles h;
    std::vector<glia_tensor*> seqs = sequences_of(h, u);
    const int32_t bf = u["batch_first"].get<bool>() ? 1 : 0;
    const double pad = u["padding_value"];
    glia_tensor* out = nullptr;
    if (u["fn"] == "pad_sequence") {
      GLIA_OK_(glia_nn_utils_rnn_pad_sequence(seqs.data(), static_cast<int64_t>(seqs.size()), bf, pad, &out));
      h.add(out);
      expect_tensor(out, u["out"], 0, "pad_sequence");
      continue;
    }
    // pack_padded_sequence(pad_sequence(seqs), lengths, enforce_sorted=False), then pad to total_length.
    glia_tensor* padded = nullptr;
    GLIA_OK_(glia_nn_utils_rnn_pad_sequence(seqs.data(), static_cast<int64_t>(seqs.size()), 0, 0.0, &padded));
    h.add(padded);
    std::vector<int64_t> lengths;
    for (glia_tensor* q : seqs) lengths.push_back(shape(q)[0]);
    Packed p;
    GLIA_OK_(glia_nn_utils_rnn_pack_padded_sequence(padded, lengths.data(), static_cast<int64_t>(lengths.size()), 0, 0,
                                                    &p.s));
    const int64_t total = u["total_length"];
    glia_tensor* lens = nullptr;
    GLIA_OK_(glia_nn_utils_rnn_pad_packed_sequence(&p.s, bf, pad, &total, &out, &lens));
    h.add(out);
    h.add(lens);
    expect_tensor(out, u["out"], 0, "pad_packed_sequence");
    expect_tensor(lens, u["lengths"], 0, "lengths");
  }
}

TEST(RnnGolden, PackedSequenceErrors) {
  ASSERT_GE(fixture()["utils_errors"].size(), 7u);
  for (const json& e : fixture()["utils_errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    Handles h;
    enum glia_error_code code = GLIA_OK;
    std::string msg;
    if (e["fn"] == "pack_padded_sequence") {
      std::vector<int64_t> lengths = e["lengths"].get<std::vector<int64_t>>();
      Packed p;
      msg = error_text(glia_nn_utils_rnn_pack_padded_sequence(tensor_from_json(h, e["input"]), lengths.data(),
                                                              static_cast<int64_t>(lengths.size()), 0,
                                                              e["enforce_sorted"].get<bool>() ? 1 : 0, &p.s),
                       &code);
      EXPECT_EQ(p.s.data, nullptr);
    } else if (e["fn"] == "pad_sequence") {
      glia_tensor* out = nullptr;
      msg = error_text(glia_nn_utils_rnn_pad_sequence(nullptr, 0, 0, 0.0, &out), &code);
      EXPECT_EQ(out, nullptr);
    } else {
      std::vector<glia_tensor*> seqs = sequences_of(h, e);
      glia_tensor* padded = nullptr;
      GLIA_OK_(glia_nn_utils_rnn_pad_sequence(seqs.data(), static_cast<int64_t>(seqs.size()), 0, 0.0, &padded));
      h.add(padded);
      std::vector<int64_t> lengths;
      for (glia_tensor* q : seqs) lengths.push_back(shape(q)[0]);
      Packed p;
      GLIA_OK_(glia_nn_utils_rnn_pack_padded_sequence(padded, lengths.data(), static_cast<int64_t>(lengths.size()), 0,
                                                      0, &p.s));
      const int64_t total = e["total_length"];
      glia_tensor* out = nullptr;
      msg = error_text(glia_nn_utils_rnn_pad_packed_sequence(&p.s, 0, 0.0, &total, &out, nullptr), &code);
      EXPECT_EQ(out, nullptr);
    }
    EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(msg.find(e["message"].get<std::string>()), std::string::npos) << msg;
  }
}

TEST(Rnn, PackedForwardRefusesOtherModulesAndShapes) {
  Handles h;
  ModuleHandle lin, lstm;
  GLIA_OK_(glia_nn_linear(2, 3, 1, nullptr, lin.out()));
  GLIA_OK_(glia_nn_lstm(2, 3, nullptr, nullptr, lstm.out()));
  glia_tensor* x = make(h, std::vector<double>(12, 0.25), {3, 2, 2}, GLIA_FLOAT32);
  int64_t lengths[] = {3, 2};
  Packed in, out;
  GLIA_OK_(glia_nn_utils_rnn_pack_padded_sequence(x, lengths, 2, 0, 1, &in.s));
  glia_tensor* h_n = nullptr;
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_nn_rnn_forward_packed(lin, &in.s, nullptr, nullptr, &out.s, &h_n, nullptr), &code),
            "glia_nn_rnn_forward_packed: argument 'module' is a Linear, expected an RNN, LSTM or GRU");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  glia_tensor* h0 = make(h, std::vector<double>(9, 0.0), {1, 3, 3}, GLIA_FLOAT32);
  EXPECT_EQ(error_text(glia_nn_rnn_forward_packed(lstm, &in.s, h0, h0, &out.s, &h_n, nullptr), &code),
            "Expected hidden[0] size (1, 2, 3), got [1, 3, 3]");
  EXPECT_EQ(code, GLIA_ERR_SHAPE);
  EXPECT_NE(error_text(glia_nn_rnn_forward_packed(lstm, &in.s, h0, nullptr, &out.s, &h_n, nullptr), &code)
                .find("h_0 and c_0 must both be given"),
            std::string::npos);
  EXPECT_EQ(out.s.data, nullptr);
  EXPECT_EQ(h_n, nullptr);
  // A length above the input's steps (torch 1.13 reads past the input).
  int64_t too_long[] = {4, 2};
  EXPECT_EQ(error_text(glia_nn_utils_rnn_pack_padded_sequence(x, too_long, 2, 0, 1, &out.s), &code),
            "pack_padded_sequence: the longest length 4 exceeds the input's 3 steps");
}
