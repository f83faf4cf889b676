// KLDivLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss, HingeEmbeddingLoss,
// SoftMarginLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss, MultiMarginLoss,
// MultiLabelMarginLoss, TripletMarginLoss and TripletMarginWithDistanceLoss modules against
// torch 1.13 (tests/golden/gen_loss_extra.py, modules/loss_extra.json): loss, the first
// input's gradient, weight buffers, repr, state-dict keys; the host distance's user_data.
#include "support/fixture.h"

namespace glia_test {
namespace {

glia_reduction red(const json& a) {
  std::string r = a["reduction"];
  return r == "none"        ? GLIA_REDUCTION_NONE
         : r == "sum"       ? GLIA_REDUCTION_SUM
         : r == "batchmean" ? GLIA_REDUCTION_BATCHMEAN
                            : GLIA_REDUCTION_MEAN;
}

glia_module* build(Handles& h, const json& c) {
  const json& a = c["args"];
  std::string k = c["module"];
  glia_reduction r = red(a);
  glia_tensor* w = c["buffers"].contains("weight") ? tensor_from_json(h, c["buffers"]["weight"]) : nullptr;
  auto b = [&](const char* key) { return static_cast<int32_t>(a[key].get<bool>()); };
  glia_module* m = nullptr;
  if (k == "kl_div_loss")
    ok(glia_nn_kl_div_loss(r, b("log_target"), nullptr, &m), k.c_str());
  else if (k == "poisson_nll_loss")
    ok(glia_nn_poisson_nll_loss(b("log_input"), b("full"), a["eps"], r, nullptr, &m), k.c_str());
  else if (k == "gaussian_nll_loss")
    ok(glia_nn_gaussian_nll_loss(b("full"), a["eps"], r, nullptr, &m), k.c_str());
  else if (k == "margin_ranking_loss")
    ok(glia_nn_margin_ranking_loss(a["margin"], r, nullptr, &m), k.c_str());
  else if (k == "hinge_embedding_loss")
    ok(glia_nn_hinge_embedding_loss(a["margin"], r, nullptr, &m), k.c_str());
  else if (k == "soft_margin_loss")
    ok(glia_nn_soft_margin_loss(r, nullptr, &m), k.c_str());
  else if (k == "multilabel_soft_margin_loss")
    ok(glia_nn_multilabel_soft_margin_loss(w, r, nullptr, &m), k.c_str());
  else if (k == "cosine_embedding_loss")
    ok(glia_nn_cosine_embedding_loss(a["margin"], r, nullptr, &m), k.c_str());
  else if (k == "multi_margin_loss")
    ok(glia_nn_multi_margin_loss(a["p"], a["margin"], w, r, nullptr, &m), k.c_str());
  else if (k == "multilabel_margin_loss")
    ok(glia_nn_multilabel_margin_loss(r, nullptr, &m), k.c_str());
  else if (k == "triplet_margin_loss")
    ok(glia_nn_triplet_margin_loss(a["margin"], a["p"], a["eps"], b("swap"), r, nullptr, &m), k.c_str());
  else
    ok(glia_nn_triplet_margin_with_distance_loss(nullptr, nullptr, nullptr, a["margin"], b("swap"), r, nullptr, &m),
       k.c_str());
  return m;
}

TEST(LossExtraModules, MatchTorch) {
  static const json fixture = load_json("golden/modules/loss_extra.json");
  const json& cases = fixture["losses"];
  ASSERT_GE(cases.size(), 34u);
  for (const json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Handles h;
    ModuleHandle m(build(h, c));
    ASSERT_NE(m.get(), nullptr);
    std::string want_repr = c["repr"];
    if (c["module"] == "triplet_margin_with_distance_loss") {
      // torch's default distance is a PairwiseDistance child module; glia's is a function (no child).
      EXPECT_EQ(want_repr.rfind("TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()", 0), 0u);
      want_repr = "TripletMarginWithDistanceLoss()";
    }
    EXPECT_EQ(module_repr(m), want_repr);
    EXPECT_EQ(state_dict_keys(m), c["keys"].get<std::vector<std::string>>());
    for (auto& [name, buf] : c["buffers"].items()) expect_tensor(buffer(h, m, name), buf, 0, name);
    double tol = c["dtype"] == "float64" ? 1e-10 : 2e-5;
    std::vector<const glia_tensor*> ins;
    for (const json& t : c["inputs"]) ins.push_back(tensor_from_json(h, t));
    ok(glia_tensor_set_requires_grad(const_cast<glia_tensor*>(ins[0]), 1), "requires_grad");
    glia_tensor* y = call(h, m, ins);
    expect_tensor(y, c["out"], tol, "loss");
    ok(glia_tensor_backward(y, tensor_from_json(h, c["w"]), 0), "backward");
    expect_tensor(grad_of(h, const_cast<glia_tensor*>(ins[0])), c["grad_input"], tol, "grad_input");
  }
}

struct DistanceState {
  int frees = 0;
  int calls = 0;
};
void free_owned(void* p) { ++static_cast<DistanceState*>(p)->frees; }
glia_error* squared_distance(void* user_data, const glia_tensor* x1, const glia_tensor* x2, glia_tensor** out) {
  ++static_cast<DistanceState*>(user_data)->calls;
  glia_tensor *d = nullptr, *sq = nullptr;
  glia_error* e = glia_sub(x1, x2, 1.0, &d);
  if (!e) e = glia_mul(d, d, &sq);
  int64_t dim = -1;
  if (!e) e = glia_sum(sq, &dim, 1, 0, out);
  glia_error_free(glia_tensor_release(d));
  glia_error_free(glia_tensor_release(sq));
  return e;
}

// The module calls the host distance in forward, keeps user_data while it lives and frees it
// once; a failing construction frees it at once.
TEST(LossExtraModules, HostDistanceUserData) {
  DistanceState o;
  {
    Handles h;
    ModuleHandle m;
    ok(glia_nn_triplet_margin_with_distance_loss(squared_distance, &o, free_owned, 1.0, 0, GLIA_REDUCTION_NONE, nullptr,
                                                 m.out()),
       "tmwdl");
    glia_tensor* a = make(h, {0, 0}, {1, 2});
    glia_tensor* p = make(h, {1, 1}, {1, 2});
    glia_tensor* n = make(h, {2, 0}, {1, 2});
    glia_tensor* y = call(h, m, {a, p, n});
    EXPECT_EQ(values(y), std::vector<double>{0.0});  // max(0, 2 - 4 + 1)
    EXPECT_EQ(o.calls, 2);
    EXPECT_EQ(o.frees, 0);
  }
  EXPECT_EQ(o.frees, 1);
  glia_module* bad = nullptr;
  EXPECT_GLIA_ERR(glia_nn_triplet_margin_with_distance_loss(squared_distance, &o, free_owned, 1.0, 0,
                                                            static_cast<glia_reduction>(9), nullptr, &bad),
                  GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(o.frees, 2);
}

TEST(LossExtraModules, Errors) {
  Handles h;
  glia_module* m = nullptr;
  EXPECT_EQ(error_text(glia_nn_multi_margin_loss(3, 1.0, nullptr, GLIA_REDUCTION_MEAN, nullptr, &m)),
            "only p == 1 and p == 2 supported");
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(
      error_text(glia_nn_multi_margin_loss(1, 1.0, make(h, {1, 2, 3, 4}, {2, 2}), GLIA_REDUCTION_MEAN, nullptr, &m)),
      "weight must be one-dimensional");
  EXPECT_GLIA_ERR(glia_nn_soft_margin_loss(GLIA_REDUCTION_BATCHMEAN, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  // Three-input losses: two inputs are torch's TypeError text.
  ModuleHandle cos;
  ok(glia_nn_cosine_embedding_loss(0.0, GLIA_REDUCTION_MEAN, nullptr, cos.out()), "cos");
  const glia_tensor* xs[2] = {make(h, {1, 2}, {2}), make(h, {1, 2}, {2})};
  glia_tensor* y = nullptr;
  int64_t n = 0;
  EXPECT_EQ(error_text(glia_module_forward(cos, xs, 2, &y, 1, &n)),
            "CosineEmbeddingLoss.forward() takes 4 positional arguments but 3 were given");
}

}  // namespace
}  // namespace glia_test
