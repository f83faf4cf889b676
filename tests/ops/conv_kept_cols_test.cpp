// conv2d's kept im2col (Note [Kept im2col] in conv.cpp): float32 GEMM-path convolutions whose weight
// needs a gradient keep forward's im2col matrices for the weight gradient. Checked against the
// float64 path (which never keeps them) at one and two threads (images in parallel write their own
// parts of the kept buffer), with groups, padding and strides, beyond the size limit (not kept),
// and with the graph retained: a second backward reads the same kept matrices and doubles the grads.
// Also the input gradient's col2im into an uninitialised gx (it writes every element, also the input
// rows no output row reads: strides larger than the kernel).
#include <random>

#include "support/fixture.h"

using namespace glia_test;

namespace {

struct Case {
  int64_t N, C, O, H, W, kh, kw, sh, sw, ph, pw, groups;
};

// The gradients of x and w of sum(conv2d(x, w) * r), after `passes` backward passes (graph retained).
std::vector<std::vector<double>> grads(const Case& c, glia_dtype dt, const std::vector<double>& x,
                                       const std::vector<double>& w, const std::vector<double>& r, int passes) {
  Handles h;
  glia_tensor* xt = make(h, x, {c.N, c.C, c.H, c.W}, dt);
  glia_tensor* wt = make(h, w, {c.O, c.C / c.groups, c.kh, c.kw}, dt);
  for (glia_tensor* t : {xt, wt}) ok(glia_tensor_set_requires_grad(t, 1), "requires_grad");
  glia_conv2d_options o;
  glia_conv2d_options_init(&o);
  o.stride[0] = c.sh, o.stride[1] = c.sw, o.padding[0] = c.ph, o.padding[1] = c.pw, o.groups = c.groups;
  glia_tensor *y = nullptr, *p = nullptr, *s = nullptr;
  ok(glia_conv2d(xt, wt, nullptr, &o, &y), "glia_conv2d");
  h.add(y);
  std::vector<int64_t> ys = shape(y);
  const auto ny = static_cast<long>(values(y).size());
  ok(glia_mul(y, make(h, std::vector<double>(r.begin(), r.begin() + ny), ys, dt), &p), "mul");
  h.add(p);
  ok(glia_sum(p, nullptr, 0, 0, &s), "sum");
  h.add(s);
  for (int i = 0; i < passes; ++i) ok(glia_tensor_backward(s, nullptr, 1), "backward");
  std::vector<std::vector<double>> out;
  for (glia_tensor* t : {xt, wt}) {
    glia_tensor* g = nullptr;
    ok(glia_tensor_grad(t, &g), "grad");
    h.add(g);
    out.push_back(values(g));
  }
  return out;
}

TEST(ConvKeptCols, Float32MatchesFloat64) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  const Case cases[] = {
      {8, 6, 16, 14, 14, 5, 5, 1, 1, 0, 0, 1},  // LeNet's second layer
      {5, 4, 6, 9, 11, 3, 3, 1, 1, 1, 1, 2},    // groups, padding, odd batch
      {3, 5, 7, 12, 10, 3, 2, 2, 1, 1, 0, 1},   // height stride
      {2, 4, 5, 9, 16, 3, 3, 1, 2, 1, 1, 1},    // width stride (generic im2col)
      {2, 64, 8, 66, 66, 3, 3, 1, 1, 0, 0, 1},  // 18 MB of columns: not kept
      {2, 3, 4, 9, 12, 1, 1, 2, 1, 0, 0, 1},    // 1x1, height stride 2: odd input rows get no gradient
      {2, 3, 5, 10, 12, 2, 3, 3, 1, 0, 1, 1},   // 2 rows, height stride 3: every third row none
  };
  const int32_t threads = glia_get_num_threads();
  for (int32_t nt : {1, 2}) {
    ok(glia_set_num_threads(nt), "set_num_threads");
    for (const Case& c : cases) {
      std::vector<double> x(static_cast<size_t>(c.N * c.C * c.H * c.W));
      std::vector<double> w(static_cast<size_t>(c.O * (c.C / c.groups) * c.kh * c.kw));
      std::vector<double> r(static_cast<size_t>(c.N * c.O * c.H * c.W));
      for (auto* v : {&x, &w, &r})
        for (double& e : *v) e = u(gen);
      for (int passes : {1, 2}) {
        auto f = grads(c, GLIA_FLOAT32, x, w, r, passes);
        auto d = grads(c, GLIA_FLOAT64, x, w, r, passes);
        if (HasFatalFailure()) break;
        const std::string what = " C=" + std::to_string(c.C) + " W=" + std::to_string(c.W) +
                                 " threads=" + std::to_string(nt) + " passes=" + std::to_string(passes);
        expect_values(f[0], d[0], 2e-4, "grad x" + what);
        expect_values(f[1], d[1], 2e-4 * (c.C >= 64 ? 10 : 1), "grad w" + what);
      }
    }
  }
  ok(glia_set_num_threads(threads), "set_num_threads");
}

}  // namespace
