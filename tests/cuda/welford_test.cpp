// cuda/welford.h on the CPU: running and combined Welford statistics against a two-pass reference in long
// double, for data whose mean dwarfs its spread (where the one-pass sum of squares loses every digit).
#include "welford.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace glia::cuda {
namespace {

struct Reference {
  long double mean, m2;
};

template <class T>
Reference two_pass(const std::vector<T>& x, size_t lo, size_t hi) {
  long double s = 0;
  for (size_t i = lo; i < hi; ++i) s += x[i];
  const long double mean = s / static_cast<long double>(hi - lo);
  long double m2 = 0;
  for (size_t i = lo; i < hi; ++i) m2 += (x[i] - mean) * (x[i] - mean);
  return {mean, m2};
}

template <class T>
std::vector<T> data(size_t n, double offset, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0.0, 1.0);
  std::vector<T> x(n);
  for (T& v : x) v = static_cast<T>(offset + d(rng));
  return x;
}

template <class T>
Welford<T> run(const std::vector<T>& x, size_t lo, size_t hi) {
  Welford<T> w;
  for (size_t i = lo; i < hi; ++i) w = welford_add(w, x[i]);
  return w;
}

// Splits [lo, hi) at random points down to runs of at most `leaf`, and combines the halves: a random tree of
// partial results, as blocks and warps combine them.
template <class T>
Welford<T> tree(const std::vector<T>& x, size_t lo, size_t hi, size_t leaf, std::mt19937& rng) {
  if (hi - lo <= leaf) return run(x, lo, hi);
  const size_t mid = lo + rng() % (hi - lo + 1);  // may leave one side empty
  return welford_combine(tree(x, lo, mid, leaf, rng), tree(x, mid, hi, leaf, rng));
}

TEST(Welford, RunningStatisticsMatchATwoPassReference) {
  for (double offset : {0.0, 1e4, -3e6}) {
    const auto x = data<double>(100000, offset, 1);
    const Reference r = two_pass(x, 0, x.size());
    const Welford<double> w = run(x, 0, x.size());
    EXPECT_EQ(w.n, 100000.0);
    EXPECT_NEAR(w.mean, r.mean, 1e-12 * (1 + std::fabs(offset)));
    EXPECT_NEAR(w.m2 / r.m2, 1.0, 1e-9);
    EXPECT_NEAR(welford_variance(w, 0.0), static_cast<double>(r.m2 / 100000), 1e-9);
    EXPECT_NEAR(welford_variance(w, 1.0), static_cast<double>(r.m2 / 99999), 1e-9);
  }
}

TEST(Welford, FloatStaysAccurateWhereTheSumOfSquaresFails) {
  const auto x = data<float>(1 << 16, 1e4, 2);
  const Reference r = two_pass(x, 0, x.size());
  std::mt19937 rng(3);
  const Welford<float> w = tree(x, 0, x.size(), 256, rng);
  EXPECT_NEAR(welford_variance(w, 0.0f) / static_cast<double>(r.m2 / x.size()), 1.0, 1e-2);
  // The naive E[x^2] - E[x]^2 in float is off by far more than the variance itself.
  float s = 0, s2 = 0;
  for (float v : x) {
    s += v;
    s2 += v * v;
  }
  const float n = static_cast<float>(x.size());
  const double naive = static_cast<double>(s2 / n - (s / n) * (s / n));
  EXPECT_GT(std::fabs(naive / static_cast<double>(r.m2 / x.size()) - 1.0), 0.5);
}

TEST(Welford, CombiningPartialResultsInAnyTreeMatchesTheWhole) {
  const auto x = data<double>(5000, 100.0, 4);
  const Reference r = two_pass(x, 0, x.size());
  for (uint32_t seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(seed);
    const Welford<double> w = tree(x, 0, x.size(), 1 + seed * 7, rng);
    EXPECT_EQ(w.n, 5000.0);
    EXPECT_NEAR(w.mean, r.mean, 1e-11);
    EXPECT_NEAR(w.m2 / r.m2, 1.0, 1e-11);
  }
  // Two halves combined equal the reference of each half combined by hand.
  const Welford<double> a = run(x, 0, 1234), b = run(x, 1234, x.size());
  const Reference ra = two_pass(x, 0, 1234), rb = two_pass(x, 1234, x.size());
  EXPECT_NEAR(a.m2 / ra.m2, 1.0, 1e-12);
  EXPECT_NEAR(b.m2 / rb.m2, 1.0, 1e-12);
  const Welford<double> ab = welford_combine(a, b), ba = welford_combine(b, a);
  EXPECT_NEAR(ab.mean, ba.mean, 1e-12);
  EXPECT_NEAR(ab.m2 / ba.m2, 1.0, 1e-12);
}

TEST(Welford, EmptyPartsAndSmallCountsAsTorch) {
  const Welford<double> empty;
  const Welford<double> one = welford_add(empty, 3.5);
  EXPECT_EQ(one.mean, 3.5);
  EXPECT_EQ(one.m2, 0.0);
  const Welford<double> c = welford_combine(empty, one);
  EXPECT_EQ(c.mean, 3.5);
  EXPECT_EQ(c.n, 1.0);
  EXPECT_EQ(welford_combine(one, empty).n, 1.0);
  EXPECT_EQ(welford_variance(one, 0.0), 0.0);
  EXPECT_TRUE(std::isnan(welford_variance(one, 1.0)));  // torch.var of one element: nan
  EXPECT_TRUE(std::isnan(welford_variance(empty, 0.0)));
  const Welford<double> two = welford_add(one, 5.5);
  EXPECT_EQ(two.mean, 4.5);
  EXPECT_EQ(welford_variance(two, 1.0), 2.0);
  EXPECT_EQ(welford_variance(two, 0.0), 1.0);
  EXPECT_TRUE(std::isinf(welford_variance(two, 2.0)));  // m2 > 0 over a zero divisor
}

}  // namespace
}  // namespace glia::cuda
