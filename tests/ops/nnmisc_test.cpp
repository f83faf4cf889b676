// instance_norm, local_response_norm, cosine_similarity, pairwise_distance, pdist, bilinear, softsign and the
// dropouts of issue 21 against tests/golden/gen_nnmisc.py's fixtures, plus the dropouts' masks and scales
// (statistics, channel-wise masks, seeding, eval identity).
#include <cmath>

#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(instance_norm) {
  glia_dtype sd = dtype(c.in[0]);
  glia_device xd{};
  if (glia_error* e = glia_tensor_device(c.in[0], &xd)) return e;
  Handles local;
  glia_tensor* stats[2] = {nullptr, nullptr};
  const char* keys[2] = {"running_mean", "running_var"};
  size_t n_stats = 0;
  for (int k = 0; k < 2; ++k)
    if (c.has(keys[k])) {
      std::vector<double> v = c.args[keys[k]].get<std::vector<double>>();
      stats[k] = make(local, v, {static_cast<int64_t>(v.size())}, sd);
      if (xd.type != GLIA_CPU) {
        glia_tensor* on_device = nullptr;
        if (glia_error* e = glia_tensor_to(stats[k], &xd, &sd, &on_device)) return e;
        stats[k] = local.add(on_device);
      }
      ++n_stats;
    }
  glia_tensor** outs = c.out(1 + n_stats);
  glia_error* e = glia_instance_norm(c.in[0], stats[0], stats[1], c.in[1], c.in[2], c.flag("use_input_stats", true),
                                     c.num("momentum", 0.1), c.num("eps", 1e-5), &outs[0]);
  if (e) return e;
  size_t k = 1;
  for (glia_tensor* s : stats)
    if (s) {
      if (glia_error* r = glia_tensor_retain(s)) return r;
      outs[k++] = s;
    }
  return nullptr;
}

GLIA_ADAPTER(local_response_norm) {
  return glia_local_response_norm(c.in[0], c.integer("size", 1), c.num("alpha", 1e-4), c.num("beta", 0.75),
                                  c.num("k", 1.0), c.out());
}
GLIA_ADAPTER(cosine_similarity) {
  return glia_cosine_similarity(c.in[0], c.in[1], c.integer("dim", 1), c.num("eps", 1e-8), c.out());
}
GLIA_ADAPTER(pairwise_distance) {
  return glia_pairwise_distance(c.in[0], c.in[1], c.num("p", 2.0), c.num("eps", 1e-6), c.flag("keepdim", false),
                                c.out());
}
GLIA_ADAPTER(pdist) { return glia_pdist(c.in[0], c.num("p", 2.0), c.out()); }
GLIA_ADAPTER(bilinear) { return glia_bilinear(c.in[0], c.in[1], c.in[2], c.in[3], c.out()); }
GLIA_ADAPTER(softsign) { return glia_softsign(c.in[0], c.out()); }
GLIA_ADAPTER(dropout1d) { return glia_dropout1d(c.in[0], c.num("p", 0.5), c.flag("training", true), c.out()); }
GLIA_ADAPTER(dropout2d) { return glia_dropout2d(c.in[0], c.num("p", 0.5), c.flag("training", true), c.out()); }
GLIA_ADAPTER(dropout3d) { return glia_dropout3d(c.in[0], c.num("p", 0.5), c.flag("training", true), c.out()); }
GLIA_ADAPTER(alpha_dropout) { return glia_alpha_dropout(c.in[0], c.num("p", 0.5), c.flag("training", false), c.out()); }
GLIA_ADAPTER(feature_alpha_dropout) {
  return glia_feature_alpha_dropout(c.in[0], c.num("p", 0.5), c.flag("training", false), c.out());
}

TEST(NnMisc, Golden) { run_cases("nnmisc.json"); }
TEST(NnMisc, Errors) { run_errors("nnmisc.json"); }

namespace {

using DropFn = glia_error* (*)(const glia_tensor*, double, int32_t, glia_tensor**);

std::vector<double> run(Handles& h, DropFn f, glia_tensor* x, double p, int32_t training = 1) {
  glia_tensor* y = nullptr;
  glia_error* e = f(x, p, training, &y);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  h.add(y);
  return y ? values(y) : std::vector<double>{};
}

std::vector<double> ramp(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = 1.0 + static_cast<double>(i % 97) * 0.25;
  return v;
}

}  // namespace

// Channel-wise dropout: every element of a channel shares one draw; kept
// channels are x / (1 - p) exactly (a power of two here); the fraction of
// dropped channels is p within 5 standard deviations.
TEST(NnMisc, FeatureDropoutMasksWholeChannels) {
  struct Case {
    DropFn f;
    std::vector<int64_t> shape;
    int64_t inner;  // elements per channel
  };
  const Case cases[] = {{glia_dropout1d, {40, 500, 3}, 3},
                        {glia_dropout1d, {2000, 3}, 3},
                        {glia_dropout2d, {40, 500, 2, 2}, 4},
                        {glia_dropout3d, {20, 1000, 1, 2, 2}, 4},
                        {glia_dropout3d, {2000, 2, 1, 2}, 4}};
  for (const Case& k : cases) {
    for (double p : {0.5, 0.75}) {
      Handles h;
      int64_t n = 1;
      for (int64_t s : k.shape) n *= s;
      std::vector<double> xv = ramp(n);
      glia_tensor* x = make(h, xv, k.shape, GLIA_FLOAT32);
      std::vector<double> y = run(h, k.f, x, p);
      ASSERT_EQ(y.size(), xv.size());
      int64_t dropped = 0, channels = n / k.inner;
      for (int64_t c = 0; c < channels; ++c) {
        const bool drop = y[c * k.inner] == 0;
        dropped += drop;
        for (int64_t j = 0; j < k.inner; ++j) {
          const int64_t i = c * k.inner + j;
          EXPECT_EQ(y[i], drop ? 0.0 : static_cast<double>(static_cast<float>(xv[i] / (1 - p)))) << i;
        }
      }
      const double frac = static_cast<double>(dropped) / static_cast<double>(channels);
      EXPECT_NEAR(frac, p, 5 * std::sqrt(p * (1 - p) / static_cast<double>(channels))) << p;
    }
  }
}

// Alpha dropout: kept elements are a * x + b, dropped ones a * (-alpha') + b
// (torch's constants); on standard normal-like inputs the mean and variance
// are kept.
TEST(NnMisc, AlphaDropoutAffineAndMoments) {
  const double alpha = 1.7580993408473766;
  const int64_t n = 200000;
  for (double p : {0.2, 0.5}) {
    const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
    const double b = alpha * a * p;
    // SELU's fixed point: samples of a zero-mean unit-variance variable (a deterministic ramp of normal quantiles
    // would do as well; a symmetric two-point set keeps the expectations exact).
    std::vector<double> xv(n);
    for (int64_t i = 0; i < n; ++i) xv[i] = (i % 2 ? 1.0 : -1.0);
    Handles h;
    glia_tensor* x = make(h, xv, {n}, GLIA_FLOAT64);
    std::vector<double> y = run(h, glia_alpha_dropout, x, p);
    int64_t dropped = 0;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double kept = a * xv[i] + b, gone = -alpha * a + b;
      if (std::abs(y[i] - gone) < 1e-12) {
        ++dropped;
      } else {
        EXPECT_NEAR(y[i], kept, 1e-12) << i;
      }
      sum += y[i];
      sq += y[i] * y[i];
    }
    const double frac = static_cast<double>(dropped) / n;
    EXPECT_NEAR(frac, p, 5 * std::sqrt(p * (1 - p) / n)) << p;
    const double mean = sum / n, var = sq / n - mean * mean;
    EXPECT_NEAR(mean, 0.0, 0.02) << p;
    EXPECT_NEAR(var, 1.0, 0.03) << p;
  }
}

TEST(NnMisc, FeatureAlphaDropoutMasksWholeChannels) {
  const double alpha = 1.7580993408473766, p = 0.5;
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p)), b = alpha * a * p;
  Handles h;
  const int64_t channels = 4000, inner = 3;
  std::vector<double> xv = ramp(channels * inner);
  glia_tensor* x = make(h, xv, {2, channels / 2, inner}, GLIA_FLOAT64);
  std::vector<double> y = run(h, glia_feature_alpha_dropout, x, p);
  int64_t dropped = 0;
  for (int64_t c = 0; c < channels; ++c) {
    const bool drop = std::abs(y[c * inner] - (-alpha * a + b)) < 1e-12;
    dropped += drop;
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t i = c * inner + j;
      EXPECT_NEAR(y[i], drop ? -alpha * a + b : a * xv[i] + b, 1e-12) << i;
    }
  }
  EXPECT_NEAR(static_cast<double>(dropped) / channels, p, 5 * std::sqrt(p * (1 - p) / channels));
}

// Eval (and p = 0) is the identity: the very tensor comes back.
TEST(NnMisc, DropoutsInEvalReturnTheInput) {
  for (DropFn f : {glia_dropout2d, glia_alpha_dropout, glia_feature_alpha_dropout}) {
    Handles h;
    glia_tensor* x = make(h, ramp(24), {2, 3, 4}, GLIA_FLOAT32);
    for (auto [p, training] : {std::pair<double, int32_t>{0.5, 0}, {0.0, 1}}) {
      glia_tensor* y = nullptr;
      ASSERT_EQ(f(x, p, training, &y), nullptr);
      h.add(y);
      EXPECT_EQ(values(y), values(x));
      void* px = nullptr;  // the same storage: the very tensor
      void* py = nullptr;
      ASSERT_EQ(glia_tensor_data(x, &px), nullptr);
      ASSERT_EQ(glia_tensor_data(y, &py), nullptr);
      EXPECT_EQ(px, py);
    }
  }
}

TEST(NnMisc, DropoutSeedReproducesMask) {
  for (DropFn f : {glia_dropout1d, glia_dropout2d, glia_dropout3d, glia_alpha_dropout, glia_feature_alpha_dropout}) {
    Handles h;
    glia_tensor* x = make(h, ramp(2 * 300 * 2 * 2), {2, 300, 2, 2}, GLIA_FLOAT32);
    if (f == glia_dropout1d) x = make(h, ramp(2 * 300 * 4), {2, 300, 4}, GLIA_FLOAT32);
    if (f == glia_dropout3d) x = make(h, ramp(2 * 300 * 4), {2, 300, 1, 2, 2}, GLIA_FLOAT32);  // 4-D is unbatched
    glia_manual_seed(7);
    std::vector<double> a = run(h, f, x, 0.5);
    glia_manual_seed(7);
    std::vector<double> b = run(h, f, x, 0.5);
    std::vector<double> c = run(h, f, x, 0.5);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
  }
}
