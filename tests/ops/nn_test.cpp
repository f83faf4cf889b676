// embedding, dropout and normalize against tests/golden/gen_nn.py's fixtures,
// plus dropout's statistics and seeding, and embedding's edge cases.
#include <cmath>
#include <cstdint>
#include <string>

#include "autograd/engine.h"
#include "autograd/functions.h"
#include "capi/api.h"
#include "core/parallel.h"
#include "ops/golden_support.h"

using namespace glia_ops_test;

// Inputs [weight, indices]; with max_norm the second output is weight after the call.
GLIA_ADAPTER(embedding) {
  int64_t pad = c.integer("padding_idx", 0);
  double max_norm = c.num("max_norm", 0);
  const bool renorm = c.has("max_norm");
  glia_tensor** outs = c.out(renorm ? 2 : 1);
  glia_error* e = glia_embedding(c.in[0], c.in[1], c.has("padding_idx") ? &pad : nullptr, renorm ? &max_norm : nullptr,
                                 c.num("norm_type", 2.0), &outs[0]);
  if (e || !renorm) return e;
  // A copy: the weight handle itself requires grad and is an input.
  return glia_tensor_clone(c.in[0], &outs[1]);
}

GLIA_ADAPTER(dropout) { return glia_dropout(c.in[0], c.num("p", 0.5), c.flag("training", true), c.out()); }

GLIA_ADAPTER(normalize) {
  std::vector<double> mean, std;
  for (const json& v : c.args["mean"]) mean.push_back(v.get<double>());
  for (const json& v : c.args["std"]) std.push_back(v.get<double>());
  return glia_normalize(c.in[0], mean.data(), static_cast<int64_t>(mean.size()), std.data(),
                        static_cast<int64_t>(std.size()), c.out());
}

TEST(Embedding, Golden) { run_cases("embedding.json"); }
TEST(Embedding, Errors) { run_errors("embedding.json"); }
TEST(Dropout, Golden) { run_cases("dropout.json"); }
TEST(Dropout, Errors) { run_errors("dropout.json"); }
TEST(Normalize, Golden) { run_cases("normalize.json"); }
TEST(Normalize, Errors) { run_errors("normalize.json"); }

TEST(Embedding, PaddingIdxOutOfRange) {
  Handles h;
  glia_tensor* w = make(h, {1, 2, 3, 4, 5, 6}, {3, 2});
  glia_tensor* idx = make(h, {0, 1}, {2}, GLIA_INT64);
  glia_tensor* y = nullptr;
  for (int64_t pad : {3, -4}) {
    glia_test::ErrorInfo info = glia_test::take(glia_embedding(w, idx, &pad, nullptr, 2.0, &y));
    EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(info.message.find("Padding_idx must be within num_embeddings"), std::string::npos) << info.message;
    EXPECT_EQ(y, nullptr);
  }
  int64_t pad = -3;  // row 0
  GLIA_OK_(glia_embedding(w, idx, &pad, nullptr, 2.0, &y));
  h.add(y);
}

TEST(Embedding, OutOfRangeNeverTouchesMemoryOrWeight) {
  Handles h;
  glia_tensor* w = make(h, {3, 4, 6, 8}, {2, 2});
  glia_tensor* idx = make(h, {0, 1, 2147483647.0}, {3}, GLIA_INT32);
  glia_tensor* y = nullptr;
  double max_norm = 1.0;
  EXPECT_GLIA_ERR(glia_embedding(w, idx, nullptr, &max_norm, 2.0, &y), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(y, nullptr);
  // Validation comes before the renormalisation.
  EXPECT_EQ(values(w), (std::vector<double>{3, 4, 6, 8}));
  glia_tensor* big = make(h, {0, -9.0e15}, {2}, GLIA_INT64);
  EXPECT_GLIA_ERR(glia_embedding(w, big, nullptr, nullptr, 2.0, &y), GLIA_ERR_INVALID_ARGUMENT);
}

TEST(Embedding, GradientSkipsPaddingRow) {
  using namespace glia;
  Tensor w = ones(Dims{4, 3}, DType::Float32, Device{});
  set_requires_grad(w, true);
  Tensor idx = empty(Dims{5}, DType::Int64, Device{});
  int64_t iv[5] = {1, 2, 1, 3, 2};
  std::copy(iv, iv + 5, idx.data_ptr<int64_t>());
  Tensor y = embedding(w, idx, int64_t{2});
  EXPECT_STREQ(grad_fn(y)->name(), "EmbeddingBackward0");
  backward({sum(y, {}, false)}, {}, false, false);
  Tensor g = contiguous(autograd_meta(w).grad);
  const float* p = g.data_ptr<float>();
  const float want[4] = {0, 2, 0, 1};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(p[r * 3 + c], want[r]) << r << "," << c;
}

namespace {

// x (float64 values 1..n) through glia_dropout; returns the output's values.
std::vector<double> run_dropout(Handles& h, glia_tensor* x, double p) {
  glia_tensor* y = nullptr;
  glia_error* e = glia_dropout(x, p, 1, &y);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  h.add(y);
  return y ? values(y) : std::vector<double>{};
}

}  // namespace

TEST(Dropout, Statistics) {
  const int64_t n = 100000;
  std::vector<double> xv(n);
  for (int64_t i = 0; i < n; ++i) xv[i] = 1.0 + static_cast<double>(i % 97) * 0.25;
  for (glia_dtype dt : {GLIA_FLOAT64, GLIA_FLOAT32}) {
    for (double p : {0.5, 0.75, 0.875}) {
      Handles h;
      glia_tensor* x = make(h, xv, {n}, dt);
      std::vector<double> y = run_dropout(h, x, p);
      ASSERT_EQ(y.size(), xv.size());
      int64_t zeroed = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (y[i] == 0) {
          ++zeroed;
        } else {
          // 1/(1-p) is a power of two for these p: kept values are exactly x / (1 - p).
          EXPECT_EQ(y[i], xv[i] / (1 - p)) << i;
        }
      }
      // Binomial(n, p): 5 standard deviations is < 0.7% of n.
      double frac = static_cast<double>(zeroed) / n;
      EXPECT_NEAR(frac, p, 5 * std::sqrt(p * (1 - p) / n)) << "p " << p;
    }
  }
}

TEST(Dropout, SeedReproducesMaskAcrossThreadCounts) {
  const int64_t n = 70000;  // above the parallel grain
  std::vector<double> xv(n, 1.0);
  Handles h;
  glia_tensor* x = make(h, xv, {n}, GLIA_FLOAT32);
  glia_manual_seed(123);
  std::vector<double> a = run_dropout(h, x, 0.5);
  glia_manual_seed(123);
  std::vector<double> b = run_dropout(h, x, 0.5);
  EXPECT_EQ(a, b);
  std::vector<double> c = run_dropout(h, x, 0.5);
  EXPECT_NE(a, c);
  int threads = glia::get_num_threads();
  glia::set_num_threads(1);
  glia_manual_seed(123);
  std::vector<double> d = run_dropout(h, x, 0.5);
  glia::set_num_threads(threads);
  EXPECT_EQ(a, d);
}

TEST(Dropout, GradientIsMaskTimesScale) {
  using namespace glia;
  Tensor x = full(Dims{1000}, 3.0, DType::Float64, Device{});
  set_requires_grad(x, true);
  Tensor y = dropout(x, 0.2, true);
  EXPECT_STREQ(grad_fn(y)->name(), "MulBackward0");
  backward({sum(y, {}, false)}, {}, false, false);
  Tensor g = autograd_meta(x).grad;
  const double* py = contiguous(y).data_ptr<double>();
  const double* pg = contiguous(g).data_ptr<double>();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(pg[i], py[i] == 0 ? 0.0 : 1.0 / 0.8) << i;
    EXPECT_EQ(py[i], pg[i] * 3.0) << i;
  }
}

TEST(Dropout, EvalAndZeroPReturnInput) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3}, {3});
  for (auto [p, training] : {std::pair{0.5, 0}, std::pair{0.0, 1}}) {
    glia_tensor* y = nullptr;
    GLIA_OK_(glia_dropout(x, p, training, &y));
    h.add(y);
    EXPECT_EQ(glia::capi::tensor_arg(y, "t", "y").impl(), glia::capi::tensor_arg(x, "t", "x").impl());
  }
  glia_tensor* y = nullptr;
  EXPECT_GLIA_ERR(glia_dropout(x, NAN, 1, &y), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(y, nullptr);
}

TEST(Normalize, GradFnAndGradient) {
  using namespace glia;
  Tensor x = full(Dims{2, 2, 2}, 1.0, DType::Float64, Device{});
  set_requires_grad(x, true);
  const double mean[2] = {0.5, 0.25}, stdv[2] = {2.0, 4.0};
  Tensor y = normalize(x, mean, stdv);
  EXPECT_STREQ(grad_fn(y)->name(), "DivBackward0");
  backward({sum(y, {}, false)}, {}, false, false);
  Tensor g = contiguous(autograd_meta(x).grad);
  const double* p = g.data_ptr<double>();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(p[i], i < 4 ? 0.5 : 0.25);
}
