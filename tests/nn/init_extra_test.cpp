// torch.nn.init through the C API: distributions over large tensors against
// torch's formulas, orthogonality, truncation, calculate_gain and torch's
// error texts (golden/optim/init.json from tests/golden/gen_init.py).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

// A parameter-like tensor: float32, requires grad.
glia_tensor* param(Handles& h, const std::vector<int64_t>& shape, glia_dtype d = GLIA_FLOAT32) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  glia_tensor* t = make(h, std::vector<double>(static_cast<size_t>(n), 0.0), shape, d);
  EXPECT_EQ(glia_tensor_set_requires_grad(t, 1), nullptr);
  return t;
}

// mean within k standard errors, std within 3%.
void expect_moments(const Stats& s, double mean, double std, size_t n, const std::string& what) {
  double se = std / std::sqrt(static_cast<double>(n));
  EXPECT_NEAR(s.mean, mean, 6 * se) << what;
  EXPECT_NEAR(s.std, std, 0.03 * std) << what;
}

}  // namespace

TEST(NnInitStats, UniformAndNormal) {
  glia_manual_seed(1);
  Handles h;
  glia_tensor* t = param(h, {200, 500});
  GLIA_OK_(glia_nn_init_uniform_(t, -2.0, 3.0));
  Stats s = stats(values(t));
  EXPECT_GE(s.min, -2.0);
  EXPECT_LT(s.max, 3.0);
  EXPECT_LT(s.min, -1.99);
  EXPECT_GT(s.max, 2.99);
  expect_moments(s, 0.5, 5 / std::sqrt(12.0), 100000, "uniform_");
  GLIA_OK_(glia_nn_init_normal_(t, 1.0, 2.0));
  expect_moments(stats(values(t)), 1.0, 2.0, 100000, "normal_");
  // Still a leaf that requires grad, with no history.
  int32_t leaf = 0;
  GLIA_OK_(glia_tensor_is_leaf(t, &leaf));
  EXPECT_EQ(leaf, 1);
}

TEST(NnInitStats, Xavier) {
  glia_manual_seed(2);
  Handles h;
  glia_tensor* t = param(h, {200, 500});
  const double gain = 2.0, std = gain * std::sqrt(2.0 / 700.0), bound = std::sqrt(3.0) * std;
  GLIA_OK_(glia_nn_init_xavier_uniform_(t, gain));
  Stats s = stats(values(t));
  EXPECT_GE(s.min, -bound);
  EXPECT_LE(s.max, bound);
  EXPECT_GT(s.max, 0.99 * bound);
  expect_moments(s, 0, std, 100000, "xavier_uniform_");
  GLIA_OK_(glia_nn_init_xavier_normal_(t, gain));
  expect_moments(stats(values(t)), 0, std, 100000, "xavier_normal_");
}

TEST(NnInitStats, KaimingOnConvWeights) {
  glia_manual_seed(3);
  Handles h;
  glia_tensor* t = param(h, {64, 32, 7, 7});  // fan_in 1568, fan_out 3136
  const size_t n = 64 * 32 * 49;
  const double gain = std::sqrt(2.0 / (1 + 0.2 * 0.2));
  double bound = std::sqrt(3.0) * gain / std::sqrt(1568.0);
  GLIA_OK_(glia_nn_init_kaiming_uniform_(t, 0.2, GLIA_FAN_IN, "leaky_relu"));
  Stats s = stats(values(t));
  EXPECT_GE(s.min, -bound);
  EXPECT_LE(s.max, bound);
  expect_moments(s, 0, bound / std::sqrt(3.0), n, "kaiming_uniform_ fan_in");
  GLIA_OK_(glia_nn_init_kaiming_normal_(t, 0.0, GLIA_FAN_OUT, "relu"));
  expect_moments(stats(values(t)), 0, std::sqrt(2.0) / std::sqrt(3136.0), n, "kaiming_normal_ fan_out");
  // NULL nonlinearity is torch's default "leaky_relu" with a = 0: gain sqrt(2).
  GLIA_OK_(glia_nn_init_kaiming_normal_(t, 0.0, GLIA_FAN_IN, nullptr));
  expect_moments(stats(values(t)), 0, std::sqrt(2.0) / std::sqrt(1568.0), n, "kaiming_normal_ default");
  EXPECT_GLIA_MSG(glia_nn_init_kaiming_normal_(t, 0.0, static_cast<glia_fan_mode>(7), nullptr),
                  GLIA_ERR_INVALID_ARGUMENT, "fan_in, fan_out");
}

// W W^T (rows <= cols) or W^T W is gain^2 I, for 2-D and flattened 4-D weights.
TEST(NnInitStats, OrthogonalRowsOrColumns) {
  glia_manual_seed(4);
  struct Case {
    std::vector<int64_t> shape;
    double gain;
  };
  for (const Case& c : {Case{{30, 80}, 2.0}, Case{{80, 30}, 1.0}, Case{{40, 40}, 0.5}, Case{{6, 2, 3, 3}, 1.0},
                        Case{{50, 3, 2}, 1.5}}) {
    Handles h;
    glia_tensor* t = param(h, c.shape, GLIA_FLOAT64);
    GLIA_OK_(glia_nn_init_orthogonal_(t, c.gain));
    std::vector<double> w = values(t);
    const int64_t rows = c.shape[0], cols = static_cast<int64_t>(w.size()) / rows;
    const bool by_rows = rows <= cols;
    const int64_t k = by_rows ? rows : cols, len = by_rows ? cols : rows;
    auto at = [&](int64_t vec, int64_t i) { return by_rows ? w[vec * cols + i] : w[i * cols + vec]; };
    double worst = 0;
    for (int64_t a = 0; a < k; ++a)
      for (int64_t b = 0; b < k; ++b) {
        double dot = 0;
        for (int64_t i = 0; i < len; ++i) dot += at(a, i) * at(b, i);
        worst = std::max(worst, std::fabs(dot - (a == b ? c.gain * c.gain : 0.0)));
      }
    EXPECT_LT(worst, 1e-12) << "shape[0] " << rows << " cols " << cols;
  }
  // float32 too.
  Handles h;
  glia_tensor* t = param(h, {16, 64});
  GLIA_OK_(glia_nn_init_orthogonal_(t, 1.0));
  std::vector<double> w = values(t);
  for (int64_t a = 0; a < 16; ++a) {
    double dot = 0;
    for (int64_t i = 0; i < 64; ++i) dot += w[a * 64 + i] * w[a * 64 + i];
    EXPECT_NEAR(dot, 1.0, 1e-5);
  }
  // Orthogonal matrices from different draws differ (the draw is random, not a fixed basis).
  std::vector<double> first = values(t);
  GLIA_OK_(glia_nn_init_orthogonal_(t, 1.0));
  EXPECT_NE(values(t), first);
}

// torch's truncated normal: inside [a, b] with the truncated distribution's mean and std.
TEST(NnInitStats, TruncNormal) {
  glia_manual_seed(5);
  auto phi = [](double x) { return std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi); };
  auto Phi = [](double x) { return 0.5 * (1 + std::erf(x / std::sqrt(2.0))); };
  struct Case {
    double mean, std, a, b;
  };
  for (const Case& c : {Case{0, 1, -2, 2}, Case{0.5, 1, -1, 1.5}, Case{0, 0.02, -0.04, 0.04}, Case{-1, 2, -3, 0}}) {
    Handles h;
    glia_tensor* t = param(h, {400, 250}, GLIA_FLOAT64);
    GLIA_OK_(glia_nn_init_trunc_normal_(t, c.mean, c.std, c.a, c.b));
    Stats s = stats(values(t));
    EXPECT_GE(s.min, c.a);
    EXPECT_LE(s.max, c.b);
    const double al = (c.a - c.mean) / c.std, be = (c.b - c.mean) / c.std, z = Phi(be) - Phi(al);
    const double m = c.mean + c.std * (phi(al) - phi(be)) / z;
    const double var = c.std * c.std * (1 + (al * phi(al) - be * phi(be)) / z - std::pow((phi(al) - phi(be)) / z, 2));
    expect_moments(s, m, std::sqrt(var), 100000, "trunc_normal_");
    EXPECT_LT(s.min, c.a + 0.01 * (c.b - c.a));
    EXPECT_GT(s.max, c.b - 0.01 * (c.b - c.a));
  }
}

TEST(NnInitStats, ConstantsEyeAndSeeds) {
  Handles h;
  glia_tensor* t = param(h, {3, 5});
  GLIA_OK_(glia_nn_init_eye_(t));
  std::vector<double> v = values(t);
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 5; ++c) EXPECT_EQ(v[r * 5 + c], r == c ? 1.0 : 0.0);
  GLIA_OK_(glia_nn_init_constant_(t, 0.25));
  EXPECT_EQ(values(t), std::vector<double>(15, 0.25));
  GLIA_OK_(glia_nn_init_ones_(t));
  EXPECT_EQ(values(t), std::vector<double>(15, 1.0));
  GLIA_OK_(glia_nn_init_zeros_(t));
  EXPECT_EQ(values(t), std::vector<double>(15, 0.0));
  // glia_manual_seed makes draws reproducible.
  glia_manual_seed(77);
  GLIA_OK_(glia_nn_init_trunc_normal_(t, 0, 1, -2, 2));
  std::vector<double> a = values(t);
  glia_manual_seed(77);
  GLIA_OK_(glia_nn_init_trunc_normal_(t, 0, 1, -2, 2));
  EXPECT_EQ(values(t), a);
}

TEST(NnInitGain, CalculateGainMatchesTorch) {
  json g = load_json("golden/optim/init.json");
  for (const json& c : g["gains"]) {
    double param = c["param"].is_null() ? NAN : c["param"].get<double>();
    double got = 0;
    GLIA_OK_(glia_nn_init_calculate_gain(c["nonlinearity"].get<std::string>().c_str(), param, &got));
    EXPECT_DOUBLE_EQ(got, c["gain"].get<double>()) << c.dump();
  }
}

TEST(NnInitDirac, MatchesTorch) {
  json g = load_json("golden/optim/init.json");
  for (const json& c : g["dirac"]) {
    Handles h;
    std::vector<int64_t> shape = c["shape"].get<std::vector<int64_t>>();
    glia_tensor* t = param(h, shape, GLIA_FLOAT64);
    GLIA_OK_(glia_nn_init_constant_(t, 7.0));  // dirac_ zeroes everything it does not set to 1
    GLIA_OK_(glia_nn_init_dirac_(t, c["groups"].get<int64_t>()));
    EXPECT_EQ(values(t), c["values"].get<std::vector<double>>()) << c["shape"].dump();
  }
}

TEST(NnInitSparse, ZerosPerColumnAndStd) {
  Handles h;
  const int64_t rows = 300, cols = 200;
  glia_tensor* t = param(h, {rows, cols}, GLIA_FLOAT64);
  GLIA_OK_(glia_nn_init_constant_(t, 7.0));
  GLIA_OK_(glia_nn_init_sparse_(t, 0.3, 0.5));
  std::vector<double> v = values(t);
  std::vector<double> kept;
  for (int64_t c = 0; c < cols; ++c) {
    int64_t z = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const double x = v[r * cols + c];
      if (x == 0.0)
        ++z;
      else
        kept.push_back(x);
    }
    EXPECT_EQ(z, 90) << "column " << c;  // ceil(0.3 * 300)
  }
  expect_moments(stats(kept), 0.0, 0.5, kept.size(), "sparse_");
  // sparsity 0 keeps everything; sparsity 1 zeroes everything.
  GLIA_OK_(glia_nn_init_sparse_(t, 0.0, 1.0));
  for (double x : values(t)) EXPECT_NE(x, 0.0);
  GLIA_OK_(glia_nn_init_sparse_(t, 1.0, 1.0));
  for (double x : values(t)) EXPECT_EQ(x, 0.0);
}

TEST(NnInitErrors, TorchsTexts) {
  json e = load_json("golden/optim/init.json")["errors"];
  Handles h;
  double gain = 0;
  EXPECT_GLIA_MSG(glia_nn_init_calculate_gain("foo", NAN, &gain), GLIA_ERR_INVALID_ARGUMENT,
                  e["gain"].get<std::string>());
  glia_tensor* v = param(h, {5});
  EXPECT_GLIA_MSG(glia_nn_init_xavier_uniform_(v, 1.0), GLIA_ERR_INVALID_ARGUMENT, e["fan"].get<std::string>());
  EXPECT_GLIA_MSG(glia_nn_init_kaiming_normal_(v, 0, GLIA_FAN_IN, "relu"), GLIA_ERR_INVALID_ARGUMENT,
                  e["fan"].get<std::string>());
  EXPECT_GLIA_MSG(glia_nn_init_orthogonal_(v, 1.0), GLIA_ERR_INVALID_ARGUMENT, e["orthogonal"].get<std::string>());
  glia_tensor* c = param(h, {2, 2, 2});
  EXPECT_GLIA_MSG(glia_nn_init_eye_(c), GLIA_ERR_INVALID_ARGUMENT, e["eye"].get<std::string>());
  glia_tensor* w = param(h, {3, 4});
  EXPECT_GLIA_MSG(glia_nn_init_dirac_(w, 1), GLIA_ERR_INVALID_ARGUMENT, e["dirac_dims"].get<std::string>());
  glia_tensor* k = param(h, {3, 2, 3});
  EXPECT_GLIA_MSG(glia_nn_init_dirac_(k, 2), GLIA_ERR_INVALID_ARGUMENT, e["dirac_groups"].get<std::string>());
  EXPECT_GLIA_ERR(glia_nn_init_dirac_(k, 0), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_MSG(glia_nn_init_sparse_(k, 0.5, 0.01), GLIA_ERR_INVALID_ARGUMENT, e["sparse_dims"].get<std::string>());
  EXPECT_GLIA_ERR(glia_nn_init_sparse_(w, 1.5, 0.01), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_MSG(glia_nn_init_kaiming_uniform_(w, 0, GLIA_FAN_IN, "foo"), GLIA_ERR_INVALID_ARGUMENT,
                  e["kaiming_nl"].get<std::string>());
  glia_tensor* ints = make(h, {1, 2, 3, 4}, {2, 2}, GLIA_INT64);
  EXPECT_GLIA_ERR(glia_nn_init_orthogonal_(ints, 1.0), GLIA_ERR_DTYPE);
  EXPECT_GLIA_ERR(glia_nn_init_trunc_normal_(ints, 0, 1, -2, 2), GLIA_ERR_DTYPE);
  EXPECT_GLIA_ERR(glia_nn_init_uniform_(nullptr, 0, 1), GLIA_ERR_INVALID_HANDLE);
  EXPECT_GLIA_ERR(glia_nn_init_calculate_gain(nullptr, NAN, &gain), GLIA_ERR_INVALID_ARGUMENT);
}
