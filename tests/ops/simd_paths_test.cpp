// The AVX-512 paths of the convolution and pooling kernels against their portable counterparts.
//
// max_pool2d's 2x2 / stride-2 fast paths (scalar for float64, AVX-512 for float32 with masked row
// tails) against a naive reference of torch's rule: taps in scan order, the first maximum wins, a
// NaN wins (the last NaN in scan order). Many ties and NaNs, widths across the 16-lane tail masks,
// odd sizes (the last row / column is dropped), values and the returned indices.
#include <cmath>
#include <random>

#include "support/fixture.h"

using namespace glia_test;

namespace {

void check_pool(int64_t N, int64_t C, int64_t H, int64_t W, glia_dtype dt, std::mt19937& gen) {
  std::uniform_int_distribution<int> pick(0, 9);
  std::vector<double> x(static_cast<size_t>(N * C * H * W));
  for (double& v : x) {
    int r = pick(gen);
    v = r == 0 ? NAN : r == 1 ? -INFINITY : static_cast<double>(pick(gen) % 4);  // ties are common
  }
  Handles h;
  glia_tensor* t = make(h, x, {N, C, H, W}, dt);
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  o.kernel_size[0] = o.kernel_size[1] = 2;
  glia_tensor *y = nullptr, *idx = nullptr;
  ok(glia_max_pool2d(t, &o, &y, &idx), "glia_max_pool2d");
  h.add(y);
  h.add(idx);
  std::vector<double> got = values(y), gidx = values(idx);
  const int64_t Ho = H / 2, Wo = W / 2;
  ASSERT_EQ(got.size(), static_cast<size_t>(N * C * Ho * Wo));
  for (int64_t p = 0; p < N * C; ++p)
    for (int64_t oh = 0; oh < Ho; ++oh)
      for (int64_t ow = 0; ow < Wo; ++ow) {
        double best = -INFINITY;
        int64_t bi = 2 * oh * W + 2 * ow;
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 2; ++j) {
            int64_t at = (2 * oh + i) * W + 2 * ow + j;
            double v = x[static_cast<size_t>(p * H * W + at)];
            if (v > best || std::isnan(v)) best = v, bi = at;
          }
        size_t o = static_cast<size_t>((p * Ho + oh) * Wo + ow);
        if (std::isnan(best))
          ASSERT_TRUE(std::isnan(got[o])) << "W=" << W << " at " << o;
        else
          ASSERT_EQ(got[o], best) << "W=" << W << " at " << o;
        ASSERT_EQ(gidx[o], static_cast<double>(bi)) << "W=" << W << " at " << o;
      }
}

TEST(MaxPool2x2, FastPathMatchesScanOrderRule) {
  std::mt19937 gen(1);
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64})
    for (int64_t W : {2, 3, 5, 16, 30, 31, 32, 33, 34, 64, 66, 70})
      for (int64_t H : {2, 5}) {
        check_pool(2, 3, H, W, dt, gen);
        if (HasFatalFailure()) return;
      }
}

// im2col's and col2im's masked AVX-512 rows (float32, stride 1) against the float64 path, over output widths
// across several 16-column chunks, padding (also wider than the kernel) and dilation.
TEST(Im2colAvx512, Float32ConvMatchesFloat64) {
  std::mt19937 gen(2);
  std::uniform_real_distribution<double> u(-1, 1);
  struct G {
    int64_t H, W, k, pad, dil;
  };
  for (G g : {G{9, 37, 5, 2, 1}, G{7, 20, 3, 4, 1}, G{6, 33, 3, 1, 2}, G{5, 16, 1, 0, 1}, G{6, 50, 5, 0, 1},
              G{5, 70, 3, 1, 1}, G{7, 66, 2, 0, 1}}) {
    std::vector<double> x(static_cast<size_t>(2 * 3 * g.H * g.W)), w(static_cast<size_t>(4 * 3 * g.k * g.k));
    for (double& v : x) v = u(gen);
    for (double& v : w) v = u(gen);
    glia_conv2d_options o;
    glia_conv2d_options_init(&o);
    o.padding[0] = o.padding[1] = g.pad;
    o.dilation[0] = o.dilation[1] = g.dil;
    std::vector<double> out[2];
    int i = 0;
    for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64}) {
      Handles h;
      glia_tensor* y = nullptr;
      ok(glia_conv2d(make(h, x, {2, 3, g.H, g.W}, dt), make(h, w, {4, 3, g.k, g.k}, dt), nullptr, &o, &y),
         "glia_conv2d");
      h.add(y);
      out[i++] = values(y);
    }
    expect_values(out[0], out[1], 1e-5, "conv2d W=" + std::to_string(g.W));
    // col2im (the input gradient): the same in float32 and float64.
    std::vector<double> gx[2];
    i = 0;
    for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64}) {
      Handles h;
      glia_tensor* xt = make(h, x, {2, 3, g.H, g.W}, dt);
      ok(glia_tensor_set_requires_grad(xt, 1), "requires_grad");
      glia_tensor *y = nullptr, *s = nullptr, *grad = nullptr;
      ok(glia_conv2d(xt, make(h, w, {4, 3, g.k, g.k}, dt), nullptr, &o, &y), "glia_conv2d");
      h.add(y);
      ok(glia_sum(y, nullptr, 0, 0, &s), "sum");
      h.add(s);
      ok(glia_tensor_backward(s, nullptr, 0), "backward");
      ok(glia_tensor_grad(xt, &grad), "grad");
      h.add(grad);
      gx[i++] = values(grad);
    }
    expect_values(gx[0], gx[1], 1e-5, "conv2d input grad W=" + std::to_string(g.W));
  }
}

}  // namespace
