// The loss and embedding kernels' per-element math (cuda/loss_ops.h) run on the CPU: the derivatives against
// finite differences of the values, the values and derivatives against the CPU kernel's formulas
// (src/ops/cpu/loss.cpp, written out again here: the layering rule keeps src/ from including cuda/) bit for
// bit, including NaN and infinities, torch's clamps, and the class-loss and renorm helpers.
#include "loss_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace loss = glia::cuda::loss;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
// Equal bits, or both NaN.
bool same(double a, double b) { return (a != a && b != b) || bits(a) == bits(b); }

// src/ops/cpu/loss.cpp's loss_value and loss_derivs, as written there.
namespace cpu {
double softplus_neg(double x) { return std::log1p(std::exp(-std::fabs(x))) + std::max(-x, 0.0); }
double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}
double loss_value(int64_t k, double x, double t, double pw, double param) {
  switch (k) {
    case 0: {
      double d = x - t;
      return d * d;
    }
    case 1:
      return std::fabs(x - t);
    case 2: {
      double d = std::fabs(x - t);
      if (param == 0) return d;
      return d < param ? 0.5 * d * d / param : d - 0.5 * param;
    }
    case 3: {
      double d = std::fabs(x - t);
      return d < param ? 0.5 * d * d : param * (d - 0.5 * param);
    }
    case 4:
      return -(t * std::max(std::log(x), -100.0) + (1 - t) * std::max(std::log1p(-x), -100.0));
    case 5: {
      double lw = 1 + (pw - 1) * t;
      return (1 - t) * x + lw * softplus_neg(x);
    }
  }
  return 0;
}
void loss_derivs(int64_t k, double x, double t, double pw, double param, double& dx, double& dt) {
  switch (k) {
    case 0:
      dx = 2 * (x - t);
      dt = -dx;
      return;
    case 1: {
      double d = x - t;
      dx = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
      dt = -dx;
      return;
    }
    case 2: {
      double d = x - t;
      double s = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
      dx = std::fabs(d) < param ? d / param : s;
      dt = -dx;
      return;
    }
    case 3: {
      double d = x - t;
      dx = std::min(std::max(d, -param), param);
      dt = -dx;
      return;
    }
    case 4:
      dx = (x - t) / std::max((1 - x) * x, 1e-12);
      dt = std::log1p(-x) - std::log(x);
      return;
    case 5: {
      double lw = 1 + (pw - 1) * t;
      dx = (1 - t) - lw * (1 - sigmoid(x));
      dt = -x + (pw - 1) * softplus_neg(x);
      return;
    }
  }
}
}  // namespace cpu

struct Case {
  int64_t kind;
  double pw, param;
};
const Case kCases[] = {{loss::kMse, 1, 0},         {loss::kL1, 1, 0},          {loss::kSmoothL1, 1, 0.5},
                       {loss::kSmoothL1, 1, 0},    {loss::kSmoothL1, 1, 2},    {loss::kHuber, 1, 0.7},
                       {loss::kHuber, 1, 3},       {loss::kBce, 1, 0},         {loss::kBceLogits, 1, 0},
                       {loss::kBceLogits, 2.5, 0}, {loss::kBceLogits, 0.25, 0}};

std::vector<double> sample_values() {
  std::vector<double> v = {0.0,  -0.0,  1.0,   -1.0,   0.5,  1e-300, -1e-300, 1e-13, 1 - 1e-13, 2.0,  -3.5,
                           40.0, -40.0, 800.0, -800.0, kInf, -kInf,  kNan,    0.7,   -0.7,      1e300};
  for (int i = -20; i <= 20; ++i) v.push_back(i * 0.173);
  return v;
}

}  // namespace

TEST(CudaLossOps, PointwiseMatchesTheCpuFormulasBitForBit) {
  const std::vector<double> vals = sample_values();
  for (const Case& c : kCases)
    for (double x : vals)
      for (double t : vals) {
        const double v = loss::loss_value(c.kind, x, t, c.pw, c.param);
        ASSERT_TRUE(same(v, cpu::loss_value(c.kind, x, t, c.pw, c.param)))
            << "kind " << c.kind << " x " << x << " t " << t << ": " << v;
        double dx = 0, dt = 0, cdx = 0, cdt = 0;
        loss::loss_derivs(c.kind, x, t, c.pw, c.param, &dx, &dt);
        cpu::loss_derivs(c.kind, x, t, c.pw, c.param, cdx, cdt);
        ASSERT_TRUE(same(dx, cdx)) << "kind " << c.kind << " x " << x << " t " << t << ": " << dx << " vs " << cdx;
        ASSERT_TRUE(same(dt, cdt)) << "kind " << c.kind << " x " << x << " t " << t << ": " << dt << " vs " << cdt;
      }
}

TEST(CudaLossOps, DerivativesMatchFiniteDifferences) {
  const double h = 1e-6;
  int checked = 0;
  for (const Case& c : kCases) {
    const bool bce = c.kind == loss::kBce;
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j) {
        // BCE: inputs inside (0, 1), targets in [0, 1]; else a spread that avoids the kinks at |x - t| = param.
        const double x = bce ? 0.05 + 0.1 * i : -2.13 + 0.51 * i;
        const double t = bce ? 0.125 * j : -1.97 + 0.49 * j;
        auto f = [&](double xx, double tt) { return loss::loss_value(c.kind, xx, tt, c.pw, c.param); };
        const double d = std::fabs(x - t);
        if (std::fabs(d - c.param) < 1e-3 || d < 1e-3) continue;  // at a kink
        double dx, dt;
        loss::loss_derivs(c.kind, x, t, c.pw, c.param, &dx, &dt);
        const double fdx = (f(x + h, t) - f(x - h, t)) / (2 * h), fdt = (f(x, t + h) - f(x, t - h)) / (2 * h);
        EXPECT_NEAR(dx, fdx, 1e-6 * std::max(1.0, std::fabs(fdx))) << "kind " << c.kind << " x " << x << " t " << t;
        EXPECT_NEAR(dt, fdt, 1e-6 * std::max(1.0, std::fabs(fdt))) << "kind " << c.kind << " x " << x << " t " << t;
        ++checked;
      }
  }
  EXPECT_GT(checked, 700);
}

TEST(CudaLossOps, TorchsClampsAndEdges) {
  // binary_cross_entropy: logs clamped at -100, the derivative's denominator at 1e-12.
  EXPECT_EQ(loss::loss_value(loss::kBce, 0.0, 1.0, 1, 0), 100.0);
  EXPECT_EQ(loss::loss_value(loss::kBce, 1.0, 0.0, 1, 0), 100.0);
  EXPECT_EQ(loss::loss_value(loss::kBce, 0.0, 0.0, 1, 0), 0.0);
  double dx, dt;
  loss::loss_derivs(loss::kBce, 0.0, 1.0, 1, 0, &dx, &dt);
  EXPECT_EQ(dx, -1e12);
  EXPECT_EQ(dt, kInf);  // log1p(-0) - log(0)
  EXPECT_TRUE(loss::bce_input_ok(0.0) && loss::bce_input_ok(1.0) && loss::bce_input_ok(0.5));
  EXPECT_FALSE(loss::bce_input_ok(-1e-300) || loss::bce_input_ok(1.0000001) || loss::bce_input_ok(kNan));
  // with_logits is stable far from 0: no overflow to inf.
  EXPECT_DOUBLE_EQ(loss::loss_value(loss::kBceLogits, 1000.0, 0.0, 1, 0), 1000.0);
  EXPECT_DOUBLE_EQ(loss::loss_value(loss::kBceLogits, -1000.0, 1.0, 1, 0), 1000.0);
  EXPECT_DOUBLE_EQ(loss::loss_value(loss::kBceLogits, -1000.0, 1.0, 3.0, 0), 3000.0);
  EXPECT_EQ(loss::sigmoid(-700.0), std::exp(-700.0));  // e / (1 + e), no 1 - (1 - e)
  // smooth_l1 with beta 0 is l1; huber is linear outside delta.
  EXPECT_EQ(loss::loss_value(loss::kSmoothL1, 3.0, 1.25, 1, 0), 1.75);
  EXPECT_EQ(loss::loss_value(loss::kSmoothL1, 1.5, 1.0, 1, 1.0), 0.125);
  EXPECT_EQ(loss::loss_value(loss::kHuber, 4.0, 1.0, 1, 2.0), 2.0 * (3.0 - 1.0));
  loss::loss_derivs(loss::kHuber, 4.0, 1.0, 1, 2.0, &dx, &dt);
  EXPECT_EQ(dx, 2.0);
  EXPECT_EQ(dt, -2.0);
  loss::loss_derivs(loss::kL1, 1.0, 1.0, 1, 0, &dx, &dt);
  EXPECT_EQ(dx, 0.0);  // torch's sign(0)
  // NaN propagates as the CPU's std::max keeps a NaN first argument (fmax would drop it).
  EXPECT_TRUE(std::isnan(loss::softplus_neg(kNan)));
  EXPECT_TRUE(std::isnan(loss::loss_value(loss::kBceLogits, kNan, 0.0, 1, 0)));
  loss::loss_derivs(loss::kHuber, kNan, 0.0, 1, 1.0, &dx, &dt);
  EXPECT_TRUE(std::isnan(dx));
  EXPECT_TRUE(std::isnan(loss::max_of(kNan, 0.0)));
  EXPECT_EQ(loss::max_of(0.0, kNan), 0.0);
}

TEST(CudaLossOps, RowLogSumExp) {
  const std::vector<double> row = {0.5, -1.25, 2.0, 0.0};
  auto at = [&](int64_t c) { return row[static_cast<size_t>(c)]; };
  double ref = 0;
  for (double v : row) ref += std::exp(v);
  EXPECT_NEAR(loss::row_logsumexp(4, at), std::log(ref), 1e-15);
  // Shifted by the max: no overflow.
  auto big = [](int64_t c) { return 1000.0 + static_cast<double>(c == 0); };
  EXPECT_NEAR(loss::row_logsumexp(2, big), 1001.0 + std::log1p(std::exp(-1.0)), 1e-12);
  EXPECT_EQ(loss::row_logsumexp(3, [](int64_t) { return -kInf; }), -kInf);
  EXPECT_EQ(loss::row_logsumexp(2, [](int64_t c) { return c ? kInf : 0.0; }), kInf);
  EXPECT_TRUE(std::isnan(loss::row_logsumexp(3, [](int64_t c) { return c == 1 ? kNan : 1.0; })));
  EXPECT_EQ(loss::row_logsumexp(0, at), -kInf);  // log(0)
}

TEST(CudaLossOps, ClassValueAndGradient) {
  const int64_t C = 5;
  std::vector<double> x = {0.3, -1.1, 2.2, 0.05, -0.4};
  const std::vector<double> w = {0.5, 2.0, 1.0, 0.25, 3.0};
  auto wv = [&](int64_t c) { return w[static_cast<size_t>(c)]; };
  auto ones = [](int64_t) { return 1.0; };
  auto xv = [&](int64_t c) { return x[static_cast<size_t>(c)]; };
  // nll_loss: -w[t] * x[t].
  EXPECT_EQ(loss::class_value(C, 2, xv, wv, false, 0.0, 0.0), -2.2);
  EXPECT_EQ(loss::class_value(C, 1, xv, wv, false, 0.0, 0.0), 2.2);
  for (double ls : {0.0, 0.1, 0.6})
    for (int64_t t = 0; t < C; ++t) {
      auto value = [&]() {
        const double lse = loss::row_logsumexp(C, xv);
        return loss::class_value(C, t, xv, wv, true, lse, ls);
      };
      // torch's label smoothing: (1 - ls) * nll(log_softmax) + ls * (-sum_c w[c] log_softmax[c]) / C.
      const double lse = loss::row_logsumexp(C, xv);
      double smooth = 0;
      for (int64_t c = 0; c < C; ++c) smooth -= wv(c) * (xv(c) - lse);
      EXPECT_NEAR(value(), (1 - ls) * -wv(t) * (xv(t) - lse) + ls * smooth / C, 1e-14);
      // The gradient against finite differences.
      double w_all = 0;
      for (int64_t c = 0; c < C; ++c) w_all += wv(c);
      for (int64_t c = 0; c < C; ++c) {
        const double pc = std::exp(xv(c) - lse);
        const double g = loss::class_grad(pc, c == t, wv(t) * (1 - ls), ls, C, w_all, wv(c));
        const double h = 1e-6, keep = x[c];
        x[c] = keep + h;
        const double up = value();
        x[c] = keep - h;
        const double down = value();
        x[c] = keep;
        EXPECT_NEAR(g, (up - down) / (2 * h), 1e-7) << "ls " << ls << " t " << t << " c " << c;
      }
    }
  // Without weights and smoothing: the softmax minus the one-hot target.
  const double lse = loss::row_logsumexp(C, xv);
  EXPECT_NEAR(loss::class_value(C, 0, xv, ones, true, lse, 0.0), lse - 0.3, 1e-15);
  EXPECT_NEAR(loss::class_grad(std::exp(0.3 - lse), true, 1.0, 0.0, C, 5.0, 1.0), std::exp(0.3 - lse) - 1, 1e-15);
  EXPECT_DOUBLE_EQ(loss::smoothed_prob(0.25, 0.2, 4), 0.25 * 0.8 + 0.05);
}

TEST(CudaLossOps, RenormRowNorm) {
  const std::vector<double> r = {3.0, -4.0, 0.0, 1.5};
  auto at = [&](int64_t j) { return r[static_cast<size_t>(j)]; };
  auto nz = [&](int64_t j) { return r[static_cast<size_t>(j)] != 0.0; };
  EXPECT_EQ(loss::renorm_row_norm(4, 2.0, at, nz), std::sqrt(9.0 + 16.0 + 0.0 + 2.25));
  EXPECT_EQ(loss::renorm_row_norm(4, 1.0, at, nz), 8.5);
  EXPECT_EQ(loss::renorm_row_norm(4, kInf, at, nz), 4.0);
  EXPECT_EQ(loss::renorm_row_norm(4, 0.0, at, nz), 3.0);
  EXPECT_NEAR(loss::renorm_row_norm(4, 3.0, at, nz), std::cbrt(27.0 + 64.0 + 1.5 * 1.5 * 1.5), 1e-13);
  EXPECT_TRUE(loss::renorm_needed(5.0, 1.0));
  EXPECT_FALSE(loss::renorm_needed(1.0, 1.0));
  EXPECT_FALSE(loss::renorm_needed(kNan, 1.0));
  EXPECT_TRUE(loss::renorm_needed(1.0, 0.0));
  EXPECT_EQ(loss::renorm_scale(5.0, 1.0), 1.0 / (5.0 + 1e-7));
  EXPECT_EQ(loss::renorm_scale(2.0, 0.0), 0.0);
}
