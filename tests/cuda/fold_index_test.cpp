// cuda/fold_index.h (the GPU's im2col_nd / col2im_nd index math) on the CPU, against the CPU kernels' loops
// (src/ops/cpu/convnd.cpp's im2col_plane and col2im_plane, copied here on one plane): every column element's
// source, and col2im's gather against the scatter bit for bit (random doubles: another order of additions
// would change the last bits), over 2-D and 3-D geometries with padding, dilation and strides.
#include "fold_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using glia::cuda::FoldGeom;

void valid_range(int64_t n, int64_t nout, int64_t s, int64_t p, int64_t off, int64_t& lo, int64_t& hi) {
  const int64_t a = p - off;
  lo = a <= 0 ? 0 : (a + s - 1) / s;
  const int64_t b = n + p - off;
  hi = b <= 0 ? 0 : (b - 1) / s + 1;
  lo = std::min(lo, nout);
  hi = std::clamp(hi, lo, nout);
}

std::vector<double> cpu_im2col(const FoldGeom& g, const std::vector<double>& x) {
  const int64_t L = g.out[0] * g.out[1] * g.out[2], Wo = g.out[2];
  std::vector<double> cols(static_cast<size_t>(g.k[0] * g.k[1] * g.k[2] * L));
  int64_t tap = 0;
  for (int64_t kd = 0; kd < g.k[0]; ++kd)
    for (int64_t kh = 0; kh < g.k[1]; ++kh)
      for (int64_t kw = 0; kw < g.k[2]; ++kw, ++tap) {
        double* row = cols.data() + tap * L;
        int64_t w0, w1;
        valid_range(g.in[2], Wo, g.s[2], g.p[2], kw * g.d[2], w0, w1);
        for (int64_t od = 0; od < g.out[0]; ++od) {
          const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
          for (int64_t oh = 0; oh < g.out[1]; ++oh) {
            const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
            double* d = row + (od * g.out[1] + oh) * Wo;
            std::fill(d, d + Wo, 0.0);
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) continue;
            const double* src = x.data() + (id * g.in[1] + ih) * g.in[2] + kw * g.d[2] - g.p[2];
            for (int64_t ow = w0; ow < w1; ++ow) d[ow] = src[ow * g.s[2]];
          }
        }
      }
  return cols;
}

std::vector<double> cpu_col2im(const FoldGeom& g, const std::vector<double>& cols) {
  const int64_t L = g.out[0] * g.out[1] * g.out[2], Wo = g.out[2];
  std::vector<double> x(static_cast<size_t>(g.in[0] * g.in[1] * g.in[2]), 0.0);
  int64_t tap = 0;
  for (int64_t kd = 0; kd < g.k[0]; ++kd)
    for (int64_t kh = 0; kh < g.k[1]; ++kh)
      for (int64_t kw = 0; kw < g.k[2]; ++kw, ++tap) {
        const double* row = cols.data() + tap * L;
        int64_t w0, w1;
        valid_range(g.in[2], Wo, g.s[2], g.p[2], kw * g.d[2], w0, w1);
        for (int64_t od = 0; od < g.out[0]; ++od) {
          const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
          if (id < 0 || id >= g.in[0]) continue;
          for (int64_t oh = 0; oh < g.out[1]; ++oh) {
            const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
            if (ih < 0 || ih >= g.in[1]) continue;
            double* d = x.data() + (id * g.in[1] + ih) * g.in[2] + kw * g.d[2] - g.p[2];
            const double* s = row + (od * g.out[1] + oh) * Wo;
            for (int64_t ow = w0; ow < w1; ++ow) d[ow * g.s[2]] += s[ow];
          }
        }
      }
  return x;
}

TEST(FoldIndex, Im2colSourcesAndCol2imGatherAreTheCpuKernels) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> in_d(1, 7), k_d(1, 3), s_d(1, 3), d_d(1, 2), p_d(0, 2);
  int cases = 0;
  for (int it = 0; it < 3000; ++it) {
    const int nd = 2 + it % 2;
    FoldGeom g{};
    g.P = 1;
    for (int a = 0; a < 3; ++a) {
      const bool real = a >= 3 - nd;
      g.in[a] = real ? in_d(rng) : 1;
      g.k[a] = real ? k_d(rng) : 1;
      g.s[a] = real ? s_d(rng) : 1;
      g.d[a] = real ? d_d(rng) : 1;
      g.p[a] = real ? std::min(p_d(rng), g.k[a] / 2 + 1) : 0;
      const int64_t span = g.d[a] * (g.k[a] - 1) + 1;
      g.out[a] = (g.in[a] + 2 * g.p[a] - span) / g.s[a] + 1;
    }
    if (g.out[0] < 1 || g.out[1] < 1 || g.out[2] < 1) continue;
    std::vector<double> x(static_cast<size_t>(g.in[0] * g.in[1] * g.in[2]));
    for (double& v : x) v = u(rng);
    const std::vector<double> cols = cpu_im2col(g, x);
    for (int64_t e = 0; e < static_cast<int64_t>(cols.size()); ++e) {
      int64_t plane = -1;
      const int64_t at = glia::cuda::im2col_source(g, e, &plane);
      ASSERT_EQ(plane, 0);
      ASSERT_EQ(at >= 0 ? x[static_cast<size_t>(at)] : 0.0, cols[static_cast<size_t>(e)]) << "element " << e;
    }
    std::vector<double> c2(cols.size());
    for (double& v : c2) v = u(rng);
    const std::vector<double> want = cpu_col2im(g, c2);
    int64_t c[3];
    for (c[0] = 0; c[0] < g.in[0]; ++c[0])
      for (c[1] = 0; c[1] < g.in[1]; ++c[1])
        for (c[2] = 0; c[2] < g.in[2]; ++c[2]) {
          const double got = glia::cuda::col2im_element<double>(g, c2.data(), c);
          const double w = want[static_cast<size_t>((c[0] * g.in[1] + c[1]) * g.in[2] + c[2])];
          ASSERT_EQ(std::memcmp(&got, &w, sizeof got), 0) << got << " vs " << w;
        }
    ++cases;
  }
  EXPECT_GT(cases, 1000);
}

}  // namespace
