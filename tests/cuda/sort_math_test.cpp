// src/core/sort_math.h on the CPU: the radix keys that only the GPU sorts by (cuda/sort.cu, Note [CUDA sort by
// radix keys]) against less_nan, the CPU kernels' order, and the GPU's selections emulated step by step (a
// stable sort of (key, index), the keys cut to the bits the GPU sorts, ~key for descending orders; median's
// NaN search, mode's per-thread runs and tree) against the CPU kernels' own algorithms (src/ops/cpu/sort.cpp,
// copied here), on rows full of ties, NaNs, signed zeros and infinities.
#include "core/sort_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

namespace glia::sorting {
namespace {

template <class A>
std::vector<A> specials() {
  if constexpr (std::is_floating_point_v<A>) {
    const A inf = std::numeric_limits<A>::infinity(), nan = std::numeric_limits<A>::quiet_NaN();
    return {A(0),
            -A(0),
            A(1),
            A(-1),
            A(2.5),
            A(-2.5),
            inf,
            -inf,
            nan,
            -nan,
            std::numeric_limits<A>::signaling_NaN(),
            std::numeric_limits<A>::min(),
            -std::numeric_limits<A>::min(),
            std::numeric_limits<A>::denorm_min(),
            -std::numeric_limits<A>::denorm_min(),
            std::numeric_limits<A>::max(),
            std::numeric_limits<A>::lowest()};
  } else if constexpr (std::is_same_v<A, bool>) {
    return {false, true};
  } else {
    std::vector<A> v = {A(0), A(1), A(2), std::numeric_limits<A>::max(), std::numeric_limits<A>::min()};
    if constexpr (std::is_signed_v<A>) {
      v.push_back(A(-1));
      v.push_back(A(-2));
      v.push_back(static_cast<A>(std::numeric_limits<A>::min() + 1));
    }
    return v;
  }
}

// The key type and the key bits the GPU sorts on (sort.cu's key_of and key_bits).
template <class A>
using key_t = std::conditional_t<sizeof(A) == 8, uint64_t, uint32_t>;
template <class A>
constexpr int bits_of() {
  return std::is_floating_point_v<A> ? static_cast<int>(8 * sizeof(key_t<A>)) : static_cast<int>(8 * sizeof(A));
}

template <class A>
void check_key_order() {
  using K = key_t<A>;
  const auto vals = specials<A>();
  for (A a : vals) {
    const K ka = radix_key<K>(a);
    if constexpr (bits_of<A>() < 32) {
      EXPECT_LT(ka, K(1) << bits_of<A>()) << +a;  // the GPU sorts these bits only
    }
    if constexpr (std::is_floating_point_v<A>) {
      EXPECT_EQ(ka == static_cast<K>(~K(0)), a != a) << a;  // the NaN key is NaN's only
    }
    for (A b : vals) {
      const K kb = radix_key<K>(b);
      EXPECT_EQ(ka < kb, less_nan<A>(a, b)) << +a << " " << +b;
      EXPECT_EQ(ka == kb, !less_nan<A>(a, b) && !less_nan<A>(b, a)) << +a << " " << +b;
    }
  }
}

TEST(SortMath, RadixKeysOrderAsLessNan) {
  check_key_order<float>();
  check_key_order<double>();
  check_key_order<int64_t>();
  check_key_order<int32_t>();
  check_key_order<int16_t>();
  check_key_order<int8_t>();
  check_key_order<uint8_t>();
  check_key_order<bool>();
}

TEST(SortMath, RadixKeysOfRandomFloats) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 100000; ++i) {
    float a, b;
    const uint32_t ua = bits(rng), ub = bits(rng);
    std::memcpy(&a, &ua, 4);
    std::memcpy(&b, &ub, 4);
    ASSERT_EQ(radix_key<uint32_t>(a) < radix_key<uint32_t>(b), less_nan<float>(a, b)) << a << " " << b;
    ASSERT_EQ(radix_key<uint32_t>(a) == radix_key<uint32_t>(b), !less_nan<float>(a, b) && !less_nan<float>(b, a));
  }
}

// ---- the GPU's pipeline, emulated

template <class A>
struct Sorted {
  std::vector<key_t<A>> keys;
  std::vector<int64_t> pos;
};

// keys_kernel, then CUB's stable radix sort on the low bits_of<A>() bits of each key.
template <class A>
Sorted<A> gpu_sort(const std::vector<A>& row, bool flip) {
  using K = key_t<A>;
  const K mask = bits_of<A>() == 8 * static_cast<int>(sizeof(K)) ? static_cast<K>(~K(0))
                                                                 : static_cast<K>((K(1) << bits_of<A>()) - 1);
  const size_t n = row.size();
  std::vector<K> k(n);
  for (size_t i = 0; i < n; ++i) {
    const K key = radix_key<K>(row[i]);
    k[i] = static_cast<K>((flip ? static_cast<K>(~key) : key) & mask);
  }
  Sorted<A> s;
  s.pos.resize(n);
  std::iota(s.pos.begin(), s.pos.end(), int64_t(0));
  std::stable_sort(s.pos.begin(), s.pos.end(), [&](int64_t a, int64_t b) { return k[a] < k[b]; });
  for (int64_t p : s.pos) s.keys.push_back(k[p]);
  return s;
}

template <class A>
std::vector<int64_t> cpu_sort(const std::vector<A>& row, bool descending) {
  std::vector<int64_t> idx(row.size());
  std::iota(idx.begin(), idx.end(), int64_t(0));
  if (descending)
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t c) { return less_nan<A>(row[c], row[a]); });
  else
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t c) { return less_nan<A>(row[a], row[c]); });
  return idx;
}

template <class A>
std::vector<int64_t> cpu_topk(const std::vector<A>& row, int64_t k, bool largest) {
  std::vector<int64_t> idx(row.size());
  std::iota(idx.begin(), idx.end(), int64_t(0));
  auto cmp = [&](int64_t a, int64_t c) {
    const A va = row[a], vc = row[c];
    if (largest ? less_nan<A>(vc, va) : less_nan<A>(va, vc)) return true;
    if (largest ? less_nan<A>(va, vc) : less_nan<A>(vc, va)) return false;
    return a < c;
  };
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), cmp);
  idx.resize(static_cast<size_t>(k));
  return idx;
}

// sort.cpp's rank_select: kind 0 kthvalue, 1 median, 2 nanmedian.
template <class A>
int64_t cpu_select(const std::vector<A>& row, int kind, int64_t kth) {
  const int64_t n = static_cast<int64_t>(row.size());
  int64_t nans = 0, first_nan = -1;
  for (int64_t j = 0; j < n; ++j)
    if (row[j] != row[j]) {
      if (first_nan < 0) first_nan = j;
      ++nans;
    }
  const int64_t rank = kind == 0 ? kth - 1 : median_rank(n, nans, kind == 2);
  if (rank < 0) return first_nan;
  std::vector<int64_t> idx(row.size());
  std::iota(idx.begin(), idx.end(), int64_t(0));
  std::nth_element(idx.begin(), idx.begin() + rank, idx.end(), [&](int64_t a, int64_t c) {
    if (less_nan<A>(row[a], row[c])) return true;
    if (less_nan<A>(row[c], row[a])) return false;
    return a < c;
  });
  return idx[rank];
}

// sort.cu's select_kernel for one row.
template <class A>
int64_t gpu_select(const std::vector<A>& row, int kind, int64_t kth) {
  using K = key_t<A>;
  const Sorted<A> s = gpu_sort(row, false);
  const int64_t n = static_cast<int64_t>(row.size());
  int64_t rank = kth - 1;
  if (kind != 0) {
    int64_t first_nan = n;
    if constexpr (std::is_floating_point_v<A>) first_nan = first_nan_key<K>([&](int64_t j) { return s.keys[j]; }, n);
    rank = median_rank(n, n - first_nan, kind == 2);
    if (rank < 0) rank = first_nan;
  }
  return s.pos[rank];
}

// sort.cpp's mode_kernel for one row: the index it returns.
template <class A>
int64_t cpu_mode(const std::vector<A>& row) {
  const int64_t n = static_cast<int64_t>(row.size());
  std::vector<int64_t> idx(row.size());
  std::iota(idx.begin(), idx.end(), int64_t(0));
  std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t c) {
    if (less_nan<A>(row[a], row[c])) return true;
    if (less_nan<A>(row[c], row[a])) return false;
    return a < c;
  });
  int64_t best_begin = 0, best_len = 0;
  for (int64_t s = 0; s < n;) {
    int64_t t = s + 1;
    while (t < n && !less_nan<A>(row[idx[s]], row[idx[t]])) ++t;
    if (t - s > best_len) {
      best_len = t - s;
      best_begin = s;
    }
    s = t;
  }
  return idx[best_begin + best_len - 1];
}

// sort.cu's mode_kernel for one row: threads t of T (32..256 covering n) over run ends, then the tree.
template <class A>
int64_t gpu_mode(const std::vector<A>& row) {
  const Sorted<A> s = gpu_sort(row, false);
  const int64_t n = static_cast<int64_t>(row.size());
  int64_t threads = 32;
  while (threads < 256 && threads < n) threads *= 2;
  std::vector<int64_t> plen(threads), pend(threads);
  auto key = [&](int64_t q) { return s.keys[q]; };
  for (int64_t t = 0; t < threads; ++t) {
    int64_t len = 0, end = 0;
    for (int64_t j = t; j < n; j += threads) {
      if (j + 1 < n && s.keys[j + 1] == s.keys[j]) continue;
      const int64_t l = j - run_start(key, j) + 1;
      if (mode_prefers(l, j, len, end)) {
        len = l;
        end = j;
      }
    }
    plen[t] = len;
    pend[t] = end;
  }
  for (int64_t h = threads / 2; h > 0; h /= 2)
    for (int64_t t = 0; t < h; ++t)
      if (mode_prefers(plen[t + h], pend[t + h], plen[t], pend[t])) {
        plen[t] = plen[t + h];
        pend[t] = pend[t + h];
      }
  return s.pos[pend[0]];
}

template <class A>
void check_pipeline(uint32_t seed) {
  std::mt19937 rng(seed);
  const auto pool = specials<A>();
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t n = std::uniform_int_distribution<int64_t>(1, trial % 3 == 0 ? 700 : 40)(rng);
    // Few distinct values (ties everywhere); sometimes many.
    const size_t distinct = std::uniform_int_distribution<size_t>(1, pool.size())(rng);
    std::vector<A> row(static_cast<size_t>(n));
    for (size_t i = 0; i < row.size(); ++i) row[i] = pool[std::uniform_int_distribution<size_t>(0, distinct - 1)(rng)];
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " n " << n);
    for (bool desc : {false, true}) {
      const Sorted<A> s = gpu_sort(row, desc);
      ASSERT_EQ(s.pos, cpu_sort(row, desc)) << "descending " << desc;
    }
    if constexpr (!std::is_same_v<A, bool>) {
      const int64_t k = std::uniform_int_distribution<int64_t>(0, n)(rng);
      for (bool largest : {false, true}) {
        std::vector<int64_t> g = gpu_sort(row, largest).pos;
        g.resize(static_cast<size_t>(k));
        ASSERT_EQ(g, cpu_topk(row, k, largest)) << "largest " << largest << " k " << k;
      }
      const int64_t kth = std::uniform_int_distribution<int64_t>(1, n)(rng);
      ASSERT_EQ(gpu_select(row, 0, kth), cpu_select(row, 0, kth)) << "kthvalue " << kth;
      ASSERT_EQ(gpu_select(row, 1, 0), cpu_select(row, 1, 0)) << "median";
      ASSERT_EQ(gpu_select(row, 2, 0), cpu_select(row, 2, 0)) << "nanmedian";
    }
    ASSERT_EQ(gpu_mode(row), cpu_mode(row)) << "mode";
  }
}

TEST(SortMath, GpuSelectionsMatchTheCpuKernels) {
  check_pipeline<float>(1);
  check_pipeline<double>(2);
  check_pipeline<int64_t>(3);
  check_pipeline<int32_t>(4);
  check_pipeline<int16_t>(5);
  check_pipeline<int8_t>(6);
  check_pipeline<uint8_t>(7);
  check_pipeline<bool>(8);
}

TEST(SortMath, MedianRank) {
  EXPECT_EQ(median_rank(4, 0, false), 1);  // the lower median
  EXPECT_EQ(median_rank(5, 0, false), 2);
  EXPECT_EQ(median_rank(5, 1, false), -1);  // a NaN: the first NaN
  EXPECT_EQ(median_rank(5, 1, true), 1);    // nanmedian: the lower median of the other 4
  EXPECT_EQ(median_rank(3, 3, true), -1);   // all NaN
}

TEST(SortMath, HistcBinByDivision) {
  EXPECT_EQ(histc_bin<float>(0.f, 0.f, 1.f, 5), 0);
  EXPECT_EQ(histc_bin<float>(1.f, 0.f, 1.f, 5), 3);  // the right edge: the last bin
  EXPECT_EQ(histc_bin<float>(0.5f, 0.f, 1.f, 5), 2);
  EXPECT_EQ(histc_bin<float>(-0.1f, 0.f, 1.f, 5), -1);
  EXPECT_EQ(histc_bin<float>(1.1f, 0.f, 1.f, 5), -1);
  EXPECT_EQ(histc_bin<float>(std::nanf(""), 0.f, 1.f, 5), -1);
  // By division only: (0.3 - 0) * 3 / 0.9 is 0.9999999999999999 in double, so the first bin, though 0.3 is
  // the first inner edge.
  EXPECT_EQ(histc_bin<double>(0.3, 0.0, 0.9, 4), 0);
}

TEST(SortMath, SearchBoundsAsTorch) {
  const std::vector<float> row = {1.f, 2.f, 2.f, 3.f, std::nanf("")};
  auto at = [&](int64_t j) { return row[static_cast<size_t>(j)]; };
  const int64_t m = static_cast<int64_t>(row.size());
  EXPECT_EQ(search_bound<float>(at, m, 2.f, false), 1);
  EXPECT_EQ(search_bound<float>(at, m, 2.f, true), 5);  // past the NaN at the end, as torch (5)
  EXPECT_EQ(search_bound<float>(at, m, 0.f, false), 0);
  EXPECT_EQ(search_bound<float>(at, m, 9.f, true), 5);  // a NaN boundary never stops it (torch: 5)
  EXPECT_EQ(search_bound<float>(at, m, 9.f, false), 5);
  EXPECT_EQ(search_bound<float>(at, m, std::nanf(""), false), 5);  // a NaN value: the end (torch: 5)
  EXPECT_EQ(lower_bound_nan<float>(at, m, 2.f), 1);
  EXPECT_EQ(lower_bound_nan<float>(at, m, std::nanf("")), 4);
  EXPECT_EQ(lower_bound_nan<float>(at, m, 4.f), 4);
}

}  // namespace
}  // namespace glia::sorting
