// The other losses (glia_kl_div ... glia_triplet_margin_with_distance_loss) against
// tests/golden/gen_loss_extra.py's fixtures (ops/loss_extra.json), plus the host distance callback
// and the reductions only kl_div takes.
#include <cmath>
#include <string>

#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
glia_reduction red(const Call& c) {
  std::string r = c.str("reduction", "mean");
  return r == "none"        ? GLIA_REDUCTION_NONE
         : r == "sum"       ? GLIA_REDUCTION_SUM
         : r == "batchmean" ? GLIA_REDUCTION_BATCHMEAN
                            : GLIA_REDUCTION_MEAN;
}
glia_tensor* opt_in(const Call& c, size_t k) { return k < c.in.size() ? c.in[k] : nullptr; }
}  // namespace

GLIA_ADAPTER(kl_div) { return glia_kl_div(c.in[0], c.in[1], red(c), c.flag("log_target", false), c.out()); }
GLIA_ADAPTER(poisson_nll_loss) {
  return glia_poisson_nll_loss(c.in[0], c.in[1], c.flag("log_input", true), c.flag("full", false), c.num("eps", 1e-8),
                               red(c), c.out());
}
GLIA_ADAPTER(gaussian_nll_loss) {
  return glia_gaussian_nll_loss(c.in[0], c.in[1], c.in[2], c.flag("full", false), c.num("eps", 1e-6), red(c), c.out());
}
GLIA_ADAPTER(margin_ranking_loss) {
  return glia_margin_ranking_loss(c.in[0], c.in[1], c.in[2], c.num("margin", 0.0), red(c), c.out());
}
GLIA_ADAPTER(hinge_embedding_loss) {
  return glia_hinge_embedding_loss(c.in[0], c.in[1], c.num("margin", 1.0), red(c), c.out());
}
GLIA_ADAPTER(soft_margin_loss) { return glia_soft_margin_loss(c.in[0], c.in[1], red(c), c.out()); }
GLIA_ADAPTER(multilabel_soft_margin_loss) {
  return glia_multilabel_soft_margin_loss(c.in[0], c.in[1], opt_in(c, 2), red(c), c.out());
}
GLIA_ADAPTER(cosine_embedding_loss) {
  return glia_cosine_embedding_loss(c.in[0], c.in[1], c.in[2], c.num("margin", 0.0), red(c), c.out());
}
GLIA_ADAPTER(multi_margin_loss) {
  return glia_multi_margin_loss(c.in[0], c.in[1], c.integer("p", 1), c.num("margin", 1.0), opt_in(c, 2), red(c),
                                c.out());
}
GLIA_ADAPTER(multilabel_margin_loss) { return glia_multilabel_margin_loss(c.in[0], c.in[1], red(c), c.out()); }
GLIA_ADAPTER(triplet_margin_loss) {
  return glia_triplet_margin_loss(c.in[0], c.in[1], c.in[2], c.num("margin", 1.0), c.num("p", 2.0), c.num("eps", 1e-6),
                                  c.flag("swap", false), red(c), c.out());
}
GLIA_ADAPTER(triplet_margin_with_distance_loss) {
  return glia_triplet_margin_with_distance_loss(c.in[0], c.in[1], c.in[2], nullptr, nullptr, c.num("margin", 1.0),
                                                c.flag("swap", false), red(c), c.out());
}

TEST(LossExtra, Golden) { run_cases("loss_extra.json"); }
TEST(LossExtra, Errors) { run_errors("loss_extra.json"); }

namespace {

// An L1 distance over the last dim written with the C API: sum(|x1 - x2|, -1).
struct DistanceCalls {
  int calls = 0;
  bool fail = false;
};
glia_error* l1_distance(void* user_data, const glia_tensor* x1, const glia_tensor* x2, glia_tensor** out) {
  auto* d = static_cast<DistanceCalls*>(user_data);
  ++d->calls;
  if (d->fail) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "no distance today");
  glia_tensor *diff = nullptr, *a = nullptr;
  glia_error* e = glia_sub(x1, x2, 1.0, &diff);
  if (!e) e = glia_abs(diff, &a);
  int64_t dim = -1;
  if (!e) e = glia_sum(a, &dim, 1, 0, out);
  glia_error_free(glia_tensor_release(diff));
  glia_error_free(glia_tensor_release(a));
  return e;
}

double item(glia_tensor* t) { return values(t).at(0); }

}  // namespace

TEST(LossExtra, HostDistanceFunction) {
  Handles h;
  // anchor 0; positive at L1 distance 3, negative at 1 (and 2 from the positive): loss = 3 - 1 + m.
  glia_tensor* a = make(h, {0.0, 0.0}, {1, 2});
  glia_tensor* p = make(h, {1.0, 2.0}, {1, 2});
  glia_tensor* n = make(h, {1.0, 0.0}, {1, 2});
  DistanceCalls calls;
  glia_tensor* out = nullptr;
  GLIA_OK_(glia_triplet_margin_with_distance_loss(a, p, n, l1_distance, &calls, 0.5, 0, GLIA_REDUCTION_SUM, &out));
  h.add(out);
  EXPECT_EQ(calls.calls, 2);
  EXPECT_DOUBLE_EQ(item(out), 2.5);
  // swap: min(d(a, n), d(p, n)) = min(1, 2); a third call.
  glia_tensor* out2 = nullptr;
  GLIA_OK_(glia_triplet_margin_with_distance_loss(a, p, n, l1_distance, &calls, 0.5, 1, GLIA_REDUCTION_NONE, &out2));
  h.add(out2);
  EXPECT_EQ(calls.calls, 5);
  EXPECT_DOUBLE_EQ(item(out2), 2.5);
  // A failing callback: GLIA_ERR_CALLBACK with its message, nothing written.
  calls.fail = true;
  glia_tensor* bad = nullptr;
  glia_error* e =
      glia_triplet_margin_with_distance_loss(a, p, n, l1_distance, &calls, 0.5, 0, GLIA_REDUCTION_MEAN, &bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_CALLBACK);
  EXPECT_NE(std::string(glia_error_message(e)).find("no distance today"), std::string::npos);
  EXPECT_EQ(bad, nullptr);
  glia_error_free(e);
}

TEST(LossExtra, BatchmeanOnlyForKlDiv) {
  Handles h;
  glia_tensor* x = make(h, {-1.0, -2.0, -0.5, -1.5}, {2, 2});
  glia_tensor* t = make(h, {0.25, 0.75, 0.5, 0.5}, {2, 2});
  glia_tensor *bm = nullptr, *sum = nullptr;
  GLIA_OK_(glia_kl_div(x, t, GLIA_REDUCTION_BATCHMEAN, 0, &bm));
  h.add(bm);
  GLIA_OK_(glia_kl_div(x, t, GLIA_REDUCTION_SUM, 0, &sum));
  h.add(sum);
  EXPECT_DOUBLE_EQ(item(bm), item(sum) / 2);
  glia_tensor* bad = nullptr;
  glia_error* e = glia_soft_margin_loss(x, t, GLIA_REDUCTION_BATCHMEAN, &bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
  glia_error_free(e);
  e = glia_kl_div(x, t, static_cast<glia_reduction>(4), 0, &bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  glia_error_free(e);
}
