// relu and its backward on contiguous float32 tensors (Note [relu fast paths] in activation.cpp:
// AVX-512 loops) against the float64 (generic) path: NaN, -0, +-inf, zeros, lengths across the
// 16-lane tails and a tensor large enough to be split across threads; values exactly equal.
#include <cmath>
#include <random>

#include "support/fixture.h"

using namespace glia_test;

namespace {

// relu(x) and the gradient of sum(relu(x) * r) with respect to x.
std::vector<std::vector<double>> relu_and_grad(const std::vector<double>& x, const std::vector<double>& r,
                                               glia_dtype dt) {
  Handles h;
  const int64_t n = static_cast<int64_t>(x.size());
  glia_tensor* xt = make(h, x, {n}, dt);
  ok(glia_tensor_set_requires_grad(xt, 1), "requires_grad");
  glia_tensor *y = nullptr, *p = nullptr, *s = nullptr, *g = nullptr;
  ok(glia_relu(xt, &y), "glia_relu");
  h.add(y);
  ok(glia_mul(y, make(h, r, {n}, dt), &p), "mul");
  h.add(p);
  ok(glia_sum(p, nullptr, 0, 0, &s), "sum");
  h.add(s);
  ok(glia_tensor_backward(s, nullptr, 0), "backward");
  ok(glia_tensor_grad(xt, &g), "grad");
  h.add(g);
  return {values(y), values(g)};
}

TEST(ReluFast, Float32MatchesFloat64) {
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> pick(0, 7);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int64_t n : {1, 5, 15, 16, 17, 31, 33, 64, 100, 1000, 300000}) {
    std::vector<double> x(static_cast<size_t>(n)), r(static_cast<size_t>(n));
    for (double& v : x) {
      int k = pick(gen);
      v = k == 0 ? NAN : k == 1 ? -0.0 : k == 2 ? 0.0 : k == 3 ? (pick(gen) % 2 ? INFINITY : -INFINITY) : u(gen);
      v = static_cast<double>(static_cast<float>(v));  // exactly representable in float32
    }
    for (double& v : r) v = static_cast<double>(static_cast<float>(u(gen)));
    auto f = relu_and_grad(x, r, GLIA_FLOAT32);
    auto d = relu_and_grad(x, r, GLIA_FLOAT64);
    if (HasFatalFailure()) return;
    for (size_t i = 0; i < x.size(); ++i) {
      // relu: x <= 0 -> +0 (also for -0), NaN stays NaN, else x.
      double want = std::isnan(x[i]) ? NAN : x[i] <= 0 ? 0.0 : x[i];
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(f[0][i])) << "n=" << n << " at " << i;
      } else {
        ASSERT_EQ(f[0][i], want) << "n=" << n << " at " << i;
        ASSERT_FALSE(std::signbit(f[0][i])) << "n=" << n << " at " << i;
      }
      // The gradient passes where x > 0 or x is NaN.
      double gwant = (std::isnan(x[i]) || x[i] > 0) ? r[i] : 0.0;
      ASSERT_EQ(f[1][i], gwant) << "n=" << n << " at " << i;
      ASSERT_EQ(d[1][i], gwant) << "n=" << n << " at " << i;
    }
  }
}

}  // namespace
