// conv2d's float32 fast paths (Note [Direct AVX-512 convolution] in conv.cpp: few input channels per
// group; col2im's register accumulation) against the float64 path: forward with and without bias,
// the input, weight and bias gradients, across input channels per group 1-4 (the direct path takes
// <= 3 with >= 4 output channels per group), output channels that leave partial blocks of six,
// widths across 16-column chunks, padding (also wider than the kernel), height and width strides,
// dilation and groups.
#include <random>

#include "support/fixture.h"

using namespace glia_test;

namespace {

struct Case {
  int64_t N, C, O, H, W, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias;
};

// out: y, then the gradients of x, w, bias of sum(y * r) (r a fixed random tensor).
std::vector<std::vector<double>> run(const Case& c, glia_dtype dt, const std::vector<double>& x,
                                     const std::vector<double>& w, const std::vector<double>& b,
                                     const std::vector<double>& r) {
  Handles h;
  glia_tensor* xt = make(h, x, {c.N, c.C, c.H, c.W}, dt);
  glia_tensor* wt = make(h, w, {c.O, c.C / c.groups, c.kh, c.kw}, dt);
  glia_tensor* bt = c.bias ? make(h, b, {c.O}, dt) : nullptr;
  for (glia_tensor* t : {xt, wt, bt})
    if (t) ok(glia_tensor_set_requires_grad(t, 1), "requires_grad");
  glia_conv2d_options o;
  glia_conv2d_options_init(&o);
  o.stride[0] = c.sh, o.stride[1] = c.sw, o.padding[0] = c.ph, o.padding[1] = c.pw;
  o.dilation[0] = c.dh, o.dilation[1] = c.dw, o.groups = c.groups;
  glia_tensor *y = nullptr, *p = nullptr, *s = nullptr;
  ok(glia_conv2d(xt, wt, bt, &o, &y), "glia_conv2d");
  h.add(y);
  std::vector<int64_t> ys = shape(y);
  ok(glia_mul(y, make(h, std::vector<double>(r.begin(), r.begin() + static_cast<long>(values(y).size())), ys, dt), &p),
     "mul");
  h.add(p);
  ok(glia_sum(p, nullptr, 0, 0, &s), "sum");
  h.add(s);
  ok(glia_tensor_backward(s, nullptr, 0), "backward");
  std::vector<std::vector<double>> out{values(y)};
  for (glia_tensor* t : {xt, wt, bt}) {
    if (!t) continue;
    glia_tensor* g = nullptr;
    ok(glia_tensor_grad(t, &g), "grad");
    h.add(g);
    out.push_back(values(g));
  }
  return out;
}

TEST(ConvDirect, Float32MatchesFloat64) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  const Case cases[] = {
      {64, 1, 6, 28, 28, 5, 5, 1, 1, 2, 2, 1, 1, 1, true},  // LeNet's first layer
      {3, 1, 6, 12, 12, 5, 5, 1, 1, 0, 0, 1, 1, 1, false},  // unpadded
      {2, 1, 7, 9, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},    // partial block of six, 3 chunks
      {2, 2, 13, 10, 33, 3, 5, 2, 1, 1, 2, 1, 1, 1, true},  // height stride
      {2, 3, 8, 11, 20, 3, 3, 1, 1, 4, 4, 1, 1, 1, true},   // padding wider than the kernel
      {2, 3, 4, 12, 17, 3, 3, 1, 1, 2, 2, 2, 2, 1, false},  // dilation
      {2, 3, 5, 9, 16, 2, 3, 1, 2, 1, 0, 1, 1, 1, true},    // width stride (GEMM path)
      {2, 4, 8, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},    // groups: 2 channels, 4 filters each
      {2, 6, 12, 9, 18, 3, 3, 1, 1, 1, 1, 1, 1, 3, true},   // groups: 2 channels, 4 filters each
      {2, 4, 9, 8, 15, 3, 3, 1, 1, 0, 0, 1, 1, 1, true},    // 4 channels: GEMM path
      {2, 6, 16, 14, 14, 5, 5, 1, 1, 0, 0, 1, 1, 1, true},  // LeNet's second layer
      {2, 2, 6, 7, 70, 1, 7, 1, 1, 0, 3, 1, 1, 1, true},    // wide row, 1 x 7
      {1, 1, 6, 3, 3, 5, 5, 1, 1, 2, 2, 1, 1, 1, true},     // kernel as large as the padded input
  };
  for (const Case& c : cases) {
    std::vector<double> x(static_cast<size_t>(c.N * c.C * c.H * c.W));
    std::vector<double> w(static_cast<size_t>(c.O * (c.C / c.groups) * c.kh * c.kw)), b(static_cast<size_t>(c.O));
    std::vector<double> r(static_cast<size_t>(c.N * c.O * c.H * c.W * 4));
    for (auto* v : {&x, &w, &b, &r})
      for (double& e : *v) e = u(gen);
    auto f = run(c, GLIA_FLOAT32, x, w, b, r);
    auto d = run(c, GLIA_FLOAT64, x, w, b, r);
    if (HasFatalFailure()) return;
    ASSERT_EQ(f.size(), d.size());
    const char* what[] = {"y", "grad x", "grad w", "grad bias"};
    for (size_t i = 0; i < f.size(); ++i)
      expect_values(f[i], d[i], 2e-4,
                    std::string(what[i]) + " C=" + std::to_string(c.C) + " O=" + std::to_string(c.O) +
                        " W=" + std::to_string(c.W) + " groups=" + std::to_string(c.groups));
  }
}

}  // namespace
