// The upsampling math that the CPU kernels and the CUDA kernels share (src/core/resample_math.h), run on the
// CPU. The CPU goldens exercise upsample_taps through the CPU kernels; here: the inverse ranges that the CUDA
// backward gathers over (upsample_outputs_of), against a brute-force search of every output's taps, for every
// rule, with and without scale factors and align_corners, on the sizes that take torch's shortcuts (out == in,
// out == 2 * in) and on others; and the CUDA kernels' per-element functions (upsample_output, the gather
// upsample_input_grad) against the CPU kernel's table loops (src/ops/cpu/resample.cpp), bit for bit.
#include "core/resample_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace math = glia::math;

namespace {

template <class T>
void check_inverse_ranges(int* checked) {
  const double scales[] = {0.0, 2.0, 1.5, 0.75, 3.3};
  for (int kind = 0; kind <= 3; ++kind)
    for (bool align : {false, true})
      for (bool backward : {false, true})
        for (double scale : scales)
          for (int64_t in = 1; in <= 9; ++in)
            for (int64_t out = 1; out <= 21; ++out) {
              for (int64_t i = 0; i < in; ++i) {
                int64_t lo = -1, hi = -1;
                math::upsample_outputs_of<T>(kind, in, out, scale, align, backward, i, &lo, &hi);
                ASSERT_LE(0, lo);
                ASSERT_LE(lo, hi);
                ASSERT_LE(hi, out);
                for (int64_t o = 0; o < out; ++o) {
                  int64_t idx[4];
                  T w[4];
                  const int n = math::upsample_taps<T>(kind, in, out, scale, align, backward, o, idx, w);
                  bool holds = false;
                  for (int t = 0; t < n; ++t) {
                    ASSERT_TRUE(idx[t] >= 0 && idx[t] < in) << "kind " << kind << " in " << in << " out " << out;
                    if (t > 0) {
                      ASSERT_LE(idx[t - 1], idx[t]);
                    }
                    holds = holds || idx[t] == i;
                  }
                  ASSERT_EQ(holds, o >= lo && o < hi)
                      << "kind " << kind << " align " << align << " backward " << backward << " scale " << scale
                      << " in " << in << " out " << out << " i " << i << " o " << o;
                }
                ++*checked;
              }
            }
}

TEST(ResampleMath, OutputsOfIsTheSetOfOutputsWhoseTapsHoldTheInput) {
  int checked = 0;
  check_inverse_ranges<float>(&checked);
  check_inverse_ranges<double>(&checked);
  EXPECT_GT(checked, 50000);
}

// The nearest rules' taps are torch's (UpSample.h): floor(dst * scale) and floor((dst + 0.5) * scale), clamped;
// the backward's shortcuts for out == in and out == 2 * in.
TEST(ResampleMath, NearestTapsAreTorchs) {
  int64_t idx[4];
  float w[4];
  ASSERT_EQ(math::upsample_taps<float>(0, 3, 7, 0.0, false, false, 6, idx, w), 1);
  EXPECT_EQ(idx[0], 2);  // floor(6 * 3 / 7) = 2
  EXPECT_EQ(w[0], 1.0f);
  math::upsample_taps<float>(1, 3, 7, 0.0, false, false, 1, idx, w);
  EXPECT_EQ(idx[0], 0);  // floor(1.5 * 3 / 7) = 0
  math::upsample_taps<float>(1, 3, 7, 0.0, false, false, 2, idx, w);
  EXPECT_EQ(idx[0], 1);  // floor(2.5 * 3 / 7) = 1
  math::upsample_taps<float>(0, 4, 8, 0.0, false, true, 5, idx, w);
  EXPECT_EQ(idx[0], 2);  // 5 >> 1
}

// The CPU kernel's loops (resample.cpp's upsample_kernel and upsample_backward_kernel) on one plane, over the
// tap tables it builds with upsample_taps.
struct Tables {
  int n[3];
  std::vector<int64_t> idx[3];
  std::vector<double> w[3];
};
Tables tables(const math::UpsampleGeom& g, bool backward) {
  Tables t;
  for (int j = 0; j < 3; ++j) {
    t.n[j] = j < 3 - g.k ? 1 : g.kind == 2 ? 2 : g.kind == 3 ? 4 : 1;
    t.idx[j].resize(static_cast<size_t>(t.n[j] * g.out[j]));
    t.w[j].resize(t.idx[j].size());
    for (int64_t o = 0; o < g.out[j]; ++o)
      math::upsample_dim_taps<double>(g, j, backward, o, &t.idx[j][static_cast<size_t>(o * t.n[j])],
                                      &t.w[j][static_cast<size_t>(o * t.n[j])]);
  }
  return t;
}

std::vector<double> cpu_backward(const math::UpsampleGeom& g, const std::vector<double>& gy) {
  const Tables t = tables(g, true);
  std::vector<double> gi(static_cast<size_t>(g.in[0] * g.in[1] * g.in[2]), 0.0);
  const int64_t ih = g.in[1], iw = g.in[2];
  for (int64_t d = 0; d < g.out[0]; ++d)
    for (int64_t h = 0; h < g.out[1]; ++h)
      for (int64_t o = 0; o < g.out[2]; ++o) {
        const double v = gy[static_cast<size_t>((d * g.out[1] + h) * g.out[2] + o)];
        const int64_t* id = &t.idx[0][static_cast<size_t>(d * t.n[0])];
        const int64_t* ihx = &t.idx[1][static_cast<size_t>(h * t.n[1])];
        const int64_t* xi = &t.idx[2][static_cast<size_t>(o * t.n[2])];
        const double* wd = &t.w[0][static_cast<size_t>(d * t.n[0])];
        const double* wh = &t.w[1][static_cast<size_t>(h * t.n[1])];
        const double* xw = &t.w[2][static_cast<size_t>(o * t.n[2])];
        for (int td = 0; td < t.n[0]; ++td)
          for (int th = 0; th < t.n[1]; ++th) {
            double* row = gi.data() + (id[td] * ih + ihx[th]) * iw;
            for (int tw = 0; tw < t.n[2]; ++tw)
              row[xi[tw]] += g.kind == 3 ? v * wh[th] * xw[tw] : wd[td] * wh[th] * xw[tw] * v;
          }
      }
  return gi;
}

std::vector<double> cpu_forward(const math::UpsampleGeom& g, const std::vector<double>& x) {
  const Tables t = tables(g, false);
  std::vector<double> y(static_cast<size_t>(g.out[0] * g.out[1] * g.out[2]));
  const int64_t ih = g.in[1], iw = g.in[2];
  for (int64_t d = 0; d < g.out[0]; ++d)
    for (int64_t h = 0; h < g.out[1]; ++h)
      for (int64_t o = 0; o < g.out[2]; ++o) {
        const int64_t* id = &t.idx[0][static_cast<size_t>(d * t.n[0])];
        const int64_t* ihx = &t.idx[1][static_cast<size_t>(h * t.n[1])];
        const int64_t* xi = &t.idx[2][static_cast<size_t>(o * t.n[2])];
        const double* wd = &t.w[0][static_cast<size_t>(d * t.n[0])];
        const double* wh = &t.w[1][static_cast<size_t>(h * t.n[1])];
        const double* xw = &t.w[2][static_cast<size_t>(o * t.n[2])];
        double& dst = y[static_cast<size_t>((d * g.out[1] + h) * g.out[2] + o)];
        if (g.kind <= 1) {
          dst = x[static_cast<size_t>((id[0] * ih + ihx[0]) * iw + xi[0])];
          continue;
        }
        double vd = 0;
        for (int td = 0; td < t.n[0]; ++td) {
          double vh = 0;
          for (int th = 0; th < t.n[1]; ++th) {
            const double* row = x.data() + (id[td] * ih + ihx[th]) * iw;
            double vw = row[xi[0]] * xw[0];
            for (int tw = 1; tw < t.n[2]; ++tw) vw += row[xi[tw]] * xw[tw];
            vh = th == 0 ? vw * wh[th] : vh + vw * wh[th];
          }
          vd = td == 0 ? vh * wd[td] : vd + vh * wd[td];
        }
        dst = vd;
      }
  return y;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(ResampleMath, GatherAndOutputsAreTheCpuKernelsBitForBit) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int64_t sizes[][2] = {{1, 1}, {2, 5}, {3, 3}, {4, 8}, {5, 2}, {7, 4}, {3, 10}};
  const double scales[] = {0.0, 1.7, 2.0, 0.6};
  int cases = 0;
  for (int kind = 0; kind <= 3; ++kind)
    for (int k = 1; k <= 3; ++k) {
      if (kind == 3 && k != 2) continue;  // bicubic is 2-D only
      for (bool align : {false, true})
        for (const auto& a : sizes)
          for (const auto& b : sizes)
            for (double scale : scales) {
              math::UpsampleGeom g{};
              g.k = k, g.kind = kind, g.align_corners = align;
              for (int j = 0; j < 3; ++j) {
                const bool real = j >= 3 - k;
                g.in[j] = real ? a[j % 2] : 1;
                g.out[j] = real ? b[(j + 1) % 2] : 1;
                g.scale[j] = real ? scale : 0.0;
              }
              if (kind == 3 && g.in[1] == g.out[1] && g.in[2] == g.out[2]) continue;  // the kernels copy
              std::vector<double> x(static_cast<size_t>(g.in[0] * g.in[1] * g.in[2]));
              std::vector<double> gy(static_cast<size_t>(g.out[0] * g.out[1] * g.out[2]));
              for (double& v : x) v = u(rng);
              for (double& v : gy) v = u(rng);
              const std::vector<double> y = cpu_forward(g, x), gi = cpu_backward(g, gy);
              int64_t c[3];
              for (c[0] = 0; c[0] < g.out[0]; ++c[0])
                for (c[1] = 0; c[1] < g.out[1]; ++c[1])
                  for (c[2] = 0; c[2] < g.out[2]; ++c[2]) {
                    const double want = y[static_cast<size_t>((c[0] * g.out[1] + c[1]) * g.out[2] + c[2])];
                    ASSERT_TRUE(same_bits(math::upsample_output<double>(g, x.data(), c), want))
                        << "forward kind " << kind << " k " << k;
                  }
              for (c[0] = 0; c[0] < g.in[0]; ++c[0])
                for (c[1] = 0; c[1] < g.in[1]; ++c[1])
                  for (c[2] = 0; c[2] < g.in[2]; ++c[2]) {
                    const double want = gi[static_cast<size_t>((c[0] * g.in[1] + c[1]) * g.in[2] + c[2])];
                    ASSERT_TRUE(same_bits(math::upsample_input_grad<double>(g, gy.data(), c), want))
                        << "backward kind " << kind << " k " << k << " align " << align << " scale " << scale << " in "
                        << g.in[2] << " out " << g.out[2];
                  }
              ++cases;
            }
    }
  EXPECT_GT(cases, 1000);
}

}  // namespace
