// The pooling and normalisation math that the CPU kernels and the CUDA kernels share (src/core/pool_math.h,
// src/core/norm_math.h), run on the CPU. The CPU goldens exercise these functions through the CPU kernels; here:
// the inverse ranges that the CUDA backward kernels gather over (against a brute-force search of the forward
// windows), the avg_pool2d divisors at torch's edges, and the normalisation coefficients against the
// textbook formulas they factor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/norm_math.h"
#include "core/pool_math.h"

namespace pool = glia::pool;
namespace norm = glia::norm;

namespace {

// torch's pooling_output_shape for one dim (no dilation).
int64_t pool_out(int64_t in, int64_t k, int64_t p, int64_t s, bool ceil_mode) {
  const int64_t num = in + 2 * p - (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = num / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

TEST(PoolMath, AvgOutputsOfIsTheSetOfWindowsHoldingTheInput) {
  int checked = 0;
  for (int64_t in = 1; in <= 9; ++in)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t p = 0; p <= k / 2; ++p)
        for (int64_t s = 1; s <= 4; ++s)
          for (bool ceil_mode : {false, true}) {
            const int64_t out = pool_out(in, k, p, s, ceil_mode);
            if (out < 1) continue;
            for (int64_t i = 0; i < in; ++i) {
              int64_t lo = 0, hi = 0;
              pool::avg_outputs_of(i, k, s, p, out, &lo, &hi);
              for (int64_t o = 0; o < out; ++o) {
                // The clipped window of o, as the forward kernel computes it (W = 1 column, kw = 1).
                const pool::AvgWindow w = pool::avg_window(o, 0, in, 1, k, 1, s, 1, p, 0, true, 0);
                const bool holds = w.h0 <= i && i < w.h1;
                EXPECT_EQ(holds, lo <= o && o < hi) << "in " << in << " k " << k << " p " << p << " s " << s << " ceil "
                                                    << ceil_mode << " i " << i << " o " << o;
                ++checked;
              }
            }
          }
  EXPECT_GT(checked, 10000);
}

TEST(PoolMath, AdaptiveOutputsOfIsTheSetOfWindowsHoldingTheInput) {
  for (int64_t in = 1; in <= 40; ++in)
    for (int64_t out = 1; out <= 40; ++out)
      for (int64_t i = 0; i < in; ++i) {
        int64_t lo = 0, hi = 0;
        pool::adaptive_outputs_of(i, in, out, &lo, &hi);
        for (int64_t o = 0; o < out; ++o) {
          const bool holds = pool::start_index(o, out, in) <= i && i < pool::end_index(o, out, in);
          ASSERT_EQ(holds, lo <= o && o < hi) << "in " << in << " out " << out << " i " << i << " o " << o;
        }
      }
}

TEST(PoolMath, AdaptiveWindowsCoverTheInputInOrder) {
  // torch's windows: the first starts at 0, the last ends at `in`, each is non-empty.
  for (int64_t in = 1; in <= 30; ++in)
    for (int64_t out = 1; out <= 30; ++out) {
      EXPECT_EQ(pool::start_index(0, out, in), 0);
      EXPECT_EQ(pool::end_index(out - 1, out, in), in);
      for (int64_t o = 0; o < out; ++o) EXPECT_LT(pool::start_index(o, out, in), pool::end_index(o, out, in));
    }
  // 5 -> 3: [0, 2), [1, 4), [3, 5)
  EXPECT_EQ(pool::start_index(1, 3, 5), 1);
  EXPECT_EQ(pool::end_index(1, 3, 5), 4);
  EXPECT_EQ(pool::start_index(2, 3, 5), 3);
}

TEST(PoolMath, AvgWindowDivisors) {
  // 3x3 kernel, stride 2, padding 1 over a 4x4 input: output (0, 0) covers rows/cols [-1, 2).
  pool::AvgWindow w = pool::avg_window(0, 0, 4, 4, 3, 3, 2, 2, 1, 1, true, 0);
  EXPECT_EQ(w.h0, 0);
  EXPECT_EQ(w.h1, 2);
  EXPECT_EQ(w.w0, 0);
  EXPECT_EQ(w.w1, 2);
  EXPECT_EQ(w.div, 9.0);  // count_include_pad: the padded window
  w = pool::avg_window(0, 0, 4, 4, 3, 3, 2, 2, 1, 1, false, 0);
  EXPECT_EQ(w.div, 4.0);  // the taps inside
  w = pool::avg_window(0, 0, 4, 4, 3, 3, 2, 2, 1, 1, true, 7);
  EXPECT_EQ(w.div, 7.0);  // divisor_override wins
  // ceil_mode's last window of 5 with k 2, s 2 (out 3): [4, 6) clipped to the padded end 5 and the input.
  w = pool::avg_window(2, 0, 5, 1, 2, 1, 2, 1, 0, 0, true, 0);
  EXPECT_EQ(w.h0, 4);
  EXPECT_EQ(w.h1, 5);
  EXPECT_EQ(w.div, 1.0);  // torch: the window ends at in + pad even with count_include_pad
  // A huge kernel: the padded size does not overflow (double).
  const int64_t big = int64_t{1} << 40;
  w = pool::avg_window(0, 0, 3, 3, big, big, 1, 1, big / 2, big / 2, true, 0);
  EXPECT_EQ(w.h0, 0);
  EXPECT_EQ(w.h1, 3);
  EXPECT_GT(w.div, 1e24);
}

TEST(PoolMath, MaxRuleAndFirstTap) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(pool::max_pool_takes(2.0f, 1.0f));
  EXPECT_FALSE(pool::max_pool_takes(1.0f, 1.0f));  // the first maximum stays
  EXPECT_TRUE(pool::max_pool_takes(nan, 1.0f));    // a NaN wins
  EXPECT_FALSE(pool::max_pool_takes(5.0f, nan));   // and sticks
  EXPECT_TRUE(pool::max_pool_takes(nan, nan));     // the last NaN
  EXPECT_FALSE(pool::max_pool_takes(-std::numeric_limits<float>::infinity(), nan));
  EXPECT_EQ(pool::first_tap_inside(3, 2), 3);
  EXPECT_EQ(pool::first_tap_inside(-1, 1), 0);
  EXPECT_EQ(pool::first_tap_inside(-3, 2), 1);
  EXPECT_EQ(pool::first_tap_inside(-4, 2), 0);
  EXPECT_EQ(pool::first_tap_inside(-(int64_t{1} << 61), 3), 1);  // -2^61 = 1 (mod 3)
}

// The normalisation's factored forms against the formulas they factor, on one row of values.
TEST(NormMath, BatchNormAffineAndBackwardCoefficients) {
  const std::vector<double> x = {0.5, -1.25, 2.0, 3.5, -0.75, 1.0};
  const std::vector<double> dy = {0.1, -0.4, 0.25, 0.7, -0.2, 0.05};
  const double n = static_cast<double>(x.size()), w = 1.5, b = -0.25, eps = 1e-5;
  double mean = 0, var = 0;
  for (double v : x) mean += v / n;
  for (double v : x) var += (v - mean) * (v - mean) / n;
  const double rs = norm::rstd_of(var, eps);
  EXPECT_DOUBLE_EQ(rs, 1.0 / std::sqrt(var + eps));
  const norm::Affine af = norm::batch_norm_affine(mean, rs, w, b);
  const norm::Affine gf = norm::group_norm_affine(mean, rs, w, b);
  double s_dy = 0, s_dot = 0;
  for (size_t i = 0; i < x.size(); ++i) s_dy += dy[i], s_dot += (x[i] - mean) * dy[i];
  const norm::Coeffs tq =
      norm::batch_norm_backward_coeffs(true, static_cast<int64_t>(x.size()), mean, rs, w, s_dy, s_dot);
  const norm::Coeffs eq =
      norm::batch_norm_backward_coeffs(false, static_cast<int64_t>(x.size()), mean, rs, w, s_dy, s_dot);
  for (size_t i = 0; i < x.size(); ++i) {
    const double xhat = (x[i] - mean) * rs;
    EXPECT_NEAR(x[i] * af.scale + af.shift, xhat * w + b, 1e-12);
    EXPECT_NEAR(x[i] * gf.scale + gf.shift, xhat * w + b, 1e-12);
    // dx = w * rstd * (dy - mean(dy) - xhat * mean(dy * xhat))
    const double want = w * rs * (dy[i] - s_dy / n - xhat * (s_dot * rs) / n);
    EXPECT_NEAR(dy[i] * tq.a + x[i] * tq.b + tq.c, want, 1e-12);
    EXPECT_NEAR(dy[i] * eq.a + x[i] * eq.b + eq.c, dy[i] * rs * w, 1e-15);  // eval: no batch terms
  }
  // The running statistics: torch's momentum update with the unbiased variance factor.
  EXPECT_DOUBLE_EQ(norm::running_update(2.0, 4.0, 0.1, 1.0), 0.1 * 4.0 + 0.9 * 2.0);
  EXPECT_DOUBLE_EQ(norm::running_update(1.0, var, 0.1, n / (n - 1)), 0.1 * var * n / (n - 1) + 0.9);
}

TEST(NormMath, LayerAndGroupNormBackwardCoefficients) {
  const std::vector<double> x = {1.0, 2.5, -0.5, 0.25, 4.0};
  const std::vector<double> dy = {0.3, -0.1, 0.2, -0.6, 0.45};
  const std::vector<double> w = {0.5, 1.0, -2.0, 1.5, 0.75};
  const double n = static_cast<double>(x.size()), eps = 1e-5;
  double mean = 0, var = 0;
  for (double v : x) mean += v / n;
  for (double v : x) var += (v - mean) * (v - mean) / n;
  const double rs = norm::rstd_of(var, eps);
  double ds = 0, db = 0, g_xhat = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ds += dy[i] * w[i] * x[i];
    db += dy[i] * w[i];
    g_xhat += dy[i] * w[i] * (x[i] - mean) * rs;
  }
  const norm::Coeffs lq = norm::layer_norm_backward_coeffs(mean, rs, ds, db, static_cast<int64_t>(x.size()));
  // Group norm with one channel per element (S = 1): the same row, w per channel.
  const norm::Coeffs gq = norm::group_norm_backward_coeffs(mean, rs, ds, db, static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double xhat = (x[i] - mean) * rs;
    // dx = rstd * (dy w - mean(dy w) - xhat * mean(dy w xhat))
    const double want = rs * (dy[i] * w[i] - db / n - xhat * g_xhat / n);
    EXPECT_NEAR(lq.a * dy[i] * w[i] + lq.b * x[i] + lq.c, want, 1e-12);
    EXPECT_NEAR(rs * w[i] * dy[i] + gq.b * x[i] + gq.c, want, 1e-12);
  }
}

}  // namespace
