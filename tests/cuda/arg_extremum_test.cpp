// cuda/arg_extremum.h on the CPU: the GPU's argmax / argmin reduction (each of T threads folds the elements
// t, t + T, ..., then a tree over the partial results, T the power of two from 32 to 256 that covers the row,
// as reduce_extra.cu's max_rows_kernel) against the CPU kernel's serial rule (src/ops/cpu/reduce.cpp's
// max_rows: the first NaN, else the first index of the extremum), on rows full of ties, NaNs, signed zeros
// and infinities.
#include "arg_extremum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace glia::cuda {
namespace {

// src/ops/cpu/reduce.cpp's max_rows for one row.
template <bool Max, class A>
int64_t serial(const std::vector<A>& row) {
  A best = row[0];
  int64_t bi = 0;
  if (!arg_is_nan(best))
    for (int64_t j = 1; j < static_cast<int64_t>(row.size()); ++j) {
      const A v = row[static_cast<size_t>(j)];
      if (arg_is_nan(v)) return j;
      if (Max ? v > best : v < best) {
        best = v;
        bi = j;
      }
    }
  return bi;
}

template <bool Max, class A>
int64_t block(const std::vector<A>& row) {
  const int64_t n = static_cast<int64_t>(row.size());
  int64_t threads = 32;
  while (threads < 256 && threads < n) threads *= 2;
  std::vector<ArgCandidate<A>> part(static_cast<size_t>(threads));
  for (int64_t t = 0; t < threads; ++t) {
    ArgCandidate<A> b{A(0), -1};
    for (int64_t j = t; j < n; j += threads) b = arg_better<Max>(b, ArgCandidate<A>{row[static_cast<size_t>(j)], j});
    part[static_cast<size_t>(t)] = b;
  }
  for (int64_t s = threads / 2; s > 0; s /= 2)
    for (int64_t t = 0; t < s; ++t)
      part[static_cast<size_t>(t)] = arg_better<Max>(part[static_cast<size_t>(t)], part[static_cast<size_t>(t + s)]);
  return part[0].i;
}

template <class A>
void check(const std::vector<A>& pool, uint32_t seed) {
  std::mt19937 rng(seed);
  int rows = 0;
  for (int64_t n : {1, 2, 3, 31, 32, 33, 100, 255, 256, 257, 600, 2000}) {
    for (int rep = 0; rep < 40; ++rep) {
      std::vector<A> row(static_cast<size_t>(n));
      // Rows drawn from a few values (ties everywhere); some with a rare NaN or extremum.
      const int k = 1 + static_cast<int>(rng() % pool.size());
      for (size_t j = 0; j < row.size(); ++j) row[j] = pool[rng() % static_cast<uint32_t>(k)];
      if (rep % 4 == 0) row[rng() % row.size()] = pool.back();
      ASSERT_EQ(block<true>(row), serial<true>(row)) << "argmax, n " << n << " rep " << rep;
      ASSERT_EQ(block<false>(row), serial<false>(row)) << "argmin, n " << n << " rep " << rep;
      ++rows;
    }
  }
  EXPECT_EQ(rows, 12 * 40);
}

TEST(ArgExtremum, FloatRowsMatchTheCpuRule) {
  const float inf = std::numeric_limits<float>::infinity();
  check<float>({1.0f, 0.0f, -0.0f, 2.0f, -inf, inf, -3.5f, std::nanf("")}, 1);
}

TEST(ArgExtremum, DoubleRowsMatchTheCpuRule) {
  const double inf = std::numeric_limits<double>::infinity();
  check<double>({0.5, -0.5, 0.0, inf, -inf, 7.0, std::nan("")}, 2);
}

TEST(ArgExtremum, IntegerAndBoolRowsMatchTheCpuRule) {
  check<int64_t>({3, -2, 0, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}, 3);
  check<int8_t>({1, -1, 0, 127, -128}, 4);
  check<bool>({false, true}, 5);
}

}  // namespace
}  // namespace glia::cuda
