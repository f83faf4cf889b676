// embedding_bag, embedding_ex (Embedding's scale_grad_by_freq) and ctc_loss against
// tests/golden/gen_embbag_ctc.py's fixtures (values, gradients, finite differences, torch's errors), plus
// the properties the fixtures cannot show: renormalisation and failed calls leaving weight unchanged,
// EmbeddingBagBackward0 / CtcLossBackward0 node names, the modules' repr and forward.
#include <cmath>
#include <limits>

#include "ops/golden_support.h"

using namespace glia_ops_test;
using namespace glia_test;

namespace {
glia_tensor* in_at(const Call& c, size_t k) { return k < c.in.size() ? c.in[k] : nullptr; }
glia_reduction reduction_of(const Call& c) {
  const std::string r = c.str("reduction", "mean");
  return r == "none" ? GLIA_REDUCTION_NONE : r == "sum" ? GLIA_REDUCTION_SUM : GLIA_REDUCTION_MEAN;
}
}  // namespace

GLIA_ADAPTER(embedding_bag) {
  const bool renorm = c.has("max_norm");
  double max_norm = c.num("max_norm", 0);
  int64_t pad = c.integer("padding_idx", 0);
  const std::string mode = c.str("mode", "mean");
  glia_tensor** outs = c.out(renorm ? 2 : 1);
  glia_error* e =
      glia_embedding_bag(c.in[0], c.in[1], in_at(c, 2), renorm ? &max_norm : nullptr, c.num("norm_type", 2.0),
                         c.flag("scale_grad_by_freq", false), mode.c_str(), in_at(c, 3),
                         c.flag("include_last_offset", false), c.has("padding_idx") ? &pad : nullptr, &outs[0]);
  if (e || !renorm) return e;
  return glia_tensor_clone(c.in[0], &outs[1]);
}

GLIA_ADAPTER(embedding_ex) {
  const bool renorm = c.has("max_norm");
  double max_norm = c.num("max_norm", 0);
  int64_t pad = c.integer("padding_idx", 0);
  glia_tensor** outs = c.out(renorm ? 2 : 1);
  glia_error* e =
      glia_embedding_ex(c.in[0], c.in[1], c.has("padding_idx") ? &pad : nullptr, renorm ? &max_norm : nullptr,
                        c.num("norm_type", 2.0), c.flag("scale_grad_by_freq", false), &outs[0]);
  if (e || !renorm) return e;
  return glia_tensor_clone(c.in[0], &outs[1]);
}

GLIA_ADAPTER(ctc_loss) {
  std::vector<int64_t> il = c.ints("input_lengths"), tl = c.ints("target_lengths");
  glia_tensor* lp = c.in[0];
  Handles local;
  if (c.flag("log_softmax", false)) {
    glia_tensor* s = nullptr;
    int64_t dim = 0;
    if (glia_error* e = glia_tensor_ndim(c.in[0], &dim)) return e;
    if (glia_error* e = glia_log_softmax(c.in[0], dim - 1, &s)) return e;
    lp = local.add(s);
  }
  return glia_ctc_loss(lp, c.in[1], il.data(), static_cast<int64_t>(il.size()), tl.data(),
                       static_cast<int64_t>(tl.size()), c.integer("blank", 0), reduction_of(c),
                       c.flag("zero_infinity", false), c.out());
}

TEST(EmbBagCtc, Golden) { run_cases("embbag_ctc.json"); }
TEST(EmbBagCtc, Errors) { run_errors("embbag_ctc.json"); }

namespace {

glia_tensor* longs(Handles& h, const std::vector<double>& v, const std::vector<int64_t>& shape) {
  return make(h, v, shape, GLIA_INT64);
}

}  // namespace

// The modules: torch's repr and state-dict key, the padding row zeroed, forward = the functional.
TEST(EmbBagCtc, EmbeddingBagModule) {
  Handles h;
  ModuleHandle m;
  int64_t pad = -2;
  GLIA_OK_(glia_nn_embedding_bag(10, 3, nullptr, 2.0, 0, "sum", 0, &pad, nullptr, m.out()));
  EXPECT_EQ(module_repr(m), "EmbeddingBag(10, 3, mode=sum, padding_idx=8)");
  EXPECT_EQ(state_dict_keys(m), std::vector<std::string>{"weight"});
  glia_tensor* w = parameter(h, m, "weight");
  std::vector<double> wv = values(w);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(wv[8 * 3 + k], 0.0);
  glia_tensor* idx = longs(h, {0, 8, 3, 3, 9}, {5});
  glia_tensor* off = longs(h, {0, 2}, {2});
  glia_tensor* y = call(h, m, {idx, off});
  glia_tensor* want = nullptr;
  GLIA_OK_(glia_embedding_bag(w, idx, off, nullptr, 2.0, 0, "sum", nullptr, 0, &pad, &want));
  h.add(want);
  expect_values(values(y), values(want), 0, "EmbeddingBag forward");
  EXPECT_EQ(grad_fn_name(y), "EmbeddingBagBackward0");
  ModuleHandle dflt;
  double mn = 1.5;
  GLIA_OK_(glia_nn_embedding_bag(10, 3, &mn, 3.0, 1, nullptr, 0, nullptr, nullptr, dflt.out()));
  EXPECT_EQ(module_repr(dflt), "EmbeddingBag(10, 3, max_norm=1.5, norm_type=3.0, scale_grad_by_freq=True, mode=mean)");
  ModuleHandle bad;
  EXPECT_GLIA_ERR(glia_nn_embedding_bag(10, 3, nullptr, 2.0, 0, "min", 0, nullptr, nullptr, bad.out()),
                  GLIA_ERR_INVALID_ARGUMENT);
  pad = 10;
  EXPECT_GLIA_ERR(glia_nn_embedding_bag(10, 3, nullptr, 2.0, 0, nullptr, 0, &pad, nullptr, bad.out()),
                  GLIA_ERR_INVALID_ARGUMENT);
}

TEST(EmbBagCtc, EmbeddingScaleGradByFreqModule) {
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_embedding(5, 2, nullptr, nullptr, 2.0, nullptr, m.out()));
  GLIA_OK_(glia_nn_embedding_set_scale_grad_by_freq(m, 1));
  EXPECT_EQ(module_repr(m), "Embedding(5, 2, scale_grad_by_freq=True)");
  glia_tensor* idx = longs(h, {1, 1, 1, 4}, {4});
  glia_tensor* y = call(h, m, {idx});
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &s));
  h.add(s);
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  // Each looked-up row's gradient is 1 summed over its occurrences, divided by its count: 1.
  std::vector<double> g = values(grad_of(h, parameter(h, m, "weight")));
  expect_values(g, {0, 0, 1, 1, 0, 0, 0, 0, 1, 1}, 0, "scale_grad_by_freq gradient");
  ModuleHandle lin;
  GLIA_OK_(glia_nn_linear(2, 2, 1, nullptr, lin.out()));
  EXPECT_GLIA_ERR(glia_nn_embedding_set_scale_grad_by_freq(lin, 1), GLIA_ERR_INVALID_ARGUMENT);
}

TEST(EmbBagCtc, CtcLossModule) {
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_ctc_loss(0, GLIA_REDUCTION_SUM, 0, nullptr, m.out()));
  EXPECT_EQ(module_repr(m), "CTCLoss()");
  std::vector<double> x(5 * 2 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(1.7 * static_cast<double>(i));
  glia_tensor* lp = nullptr;
  GLIA_OK_(glia_log_softmax(make(h, x, {5, 2, 3}), 2, &lp));
  h.add(lp);
  glia_tensor* tg = longs(h, {1, 2, 2, 0}, {2, 2});
  glia_tensor* il = longs(h, {5, 4}, {2});
  glia_tensor* tl = longs(h, {2, 1}, {2});
  glia_tensor* y = call(h, m, {lp, tg, il, tl});
  const int64_t ilv[] = {5, 4}, tlv[] = {2, 1};
  glia_tensor* want = nullptr;
  GLIA_OK_(glia_ctc_loss(lp, tg, ilv, 2, tlv, 2, 0, GLIA_REDUCTION_SUM, 0, &want));
  h.add(want);
  expect_values(values(y), values(want), 0, "CTCLoss forward");
  glia_tensor* fl = make(h, {5.0, 4.0}, {2});
  glia_tensor* outs[1] = {nullptr};
  int64_t n = 0;
  const glia_tensor* bad_in[] = {lp, tg, fl, tl};
  enum glia_error_code code;
  EXPECT_EQ(error_text(glia_module_forward(m, bad_in, 4, outs, 1, &n), &code), "input_lengths must be integral");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  glia_tensor* none = nullptr;
  GLIA_OK_(glia_ctc_loss(lp, tg, ilv, 2, tlv, 2, 0, GLIA_REDUCTION_NONE, 0, &none));
  h.add(none);
  EXPECT_EQ(grad_fn_name(none), "");  // lp does not require grad
}

// A failing embedding_bag with max_norm leaves weight as it was (the data checks run before the renorm).
TEST(EmbBagCtc, FailedCallLeavesWeight) {
  Handles h;
  glia_tensor* w = make(h, {3, 4, 6, 8, 0.3, 0.4}, {3, 2});
  const std::vector<double> before = values(w);
  double mn = 1.0;
  glia_tensor* out = nullptr;
  EXPECT_GLIA_ERR(glia_embedding_bag(w, longs(h, {0, 1, 2}, {3}), longs(h, {1}, {1}), &mn, 2.0, 0, "sum", nullptr, 0,
                                     nullptr, &out),
                  GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  expect_values(values(w), before, 0, "weight after a failed call");
  EXPECT_GLIA_ERR(glia_ctc_loss(w, longs(h, {0}, {1}), nullptr, 1, nullptr, 0, 0, GLIA_REDUCTION_MEAN, 0, &out),
                  GLIA_ERR_INVALID_ARGUMENT);
}
