// The order and position rules of sorting, selection and searching, shared by the CPU kernels
// (src/ops/cpu/sort.cpp, search.cpp) and the CUDA backend's (cuda/sort.cu): compiled by the host compiler and by
// nvcc, where GLIA_SORT_HD is __host__ __device__. It lives in src/core/ because that is the one directory both
// may include (tests/layering/check_layers.py). The CPU goldens test the rules through the CPU kernels;
// tests/cuda/sort_math_test.cpp checks the radix keys, which only the GPU uses, against less_nan.
#ifndef GLIA_CORE_SORT_MATH_H
#define GLIA_CORE_SORT_MATH_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define GLIA_SORT_HD __host__ __device__ inline
#else
#define GLIA_SORT_HD inline
#endif

namespace glia::sorting {

// torch's order for sorting: a < b, NaN above every number (and NaNs equal among themselves).
template <class A>
GLIA_SORT_HD bool less_nan(A a, A b) {
  if constexpr (std::is_floating_point_v<A>)
    return a < b || (b != b && a == a);
  else
    return a < b;
}

// The rank (0-based, ascending, NaN largest) median and nanmedian select in a row of n with `nans` NaNs: the
// lower median; -1 when the result is the row's first NaN (median of a row with a NaN, nanmedian of an all-NaN
// row).
GLIA_SORT_HD int64_t median_rank(int64_t n, int64_t nans, bool ignore_nan) {
  if (ignore_nan) return nans == n ? -1 : (n - nans - 1) / 2;
  return nans > 0 ? -1 : (n - 1) / 2;
}

// torch's cus_lower_bound / cus_upper_bound (Bucketization.cpp): `!(mid >= val)` and `!(mid > val)`, so a NaN
// in the boundaries or as the value lands where torch's does. at(i) is the boundary i of the row, as A.
template <class A, class At>
GLIA_SORT_HD int64_t search_bound(At at, int64_t m, A val, bool right) {
  int64_t start = 0, end = m;
  while (start < end) {
    const int64_t mid = start + ((end - start) >> 1);
    const A mv = at(mid);
    const bool go_right = right ? !(mv > val) : !(mv >= val);
    if (go_right)
      start = mid + 1;
    else
      end = mid;
  }
  return start;
}

// The first position of a row of m sorted ascending (less_nan) whose element is not less than val: isin's
// search (then `found` when that element equals val, which a NaN never does).
template <class A, class At>
GLIA_SORT_HD int64_t lower_bound_nan(At at, int64_t m, A val) {
  int64_t start = 0, end = m;
  while (start < end) {
    const int64_t mid = start + ((end - start) >> 1);
    if (less_nan<A>(at(mid), val))
      start = mid + 1;
    else
      end = mid;
  }
  return start;
}

// torch's histc (HistogramKernel.cpp): the bin of v among `edges` = bins + 1 edges from left to right, by
// division only (no search of the edges around it, so a value on an inner edge may land in the bin below);
// the last bin holds its right edge; -1 for a value outside the edges or NaN. T is float or double, the
// arithmetic T's as torch's.
template <class T>
GLIA_SORT_HD int64_t histc_bin(T v, T left, T right, int64_t edges) {
  if (!(v >= left && v <= right)) return -1;
  int64_t pos = static_cast<int64_t>((v - left) * static_cast<T>(edges - 1) / (right - left));
  if (pos == edges - 1) pos -= 1;
  return pos;
}

// Radix keys: an unsigned integer per value whose order is less_nan's, with equal keys exactly for the values
// less_nan cannot tell apart (every NaN; -0.0 and +0.0), so a stable radix sort of (key, index) gives the
// CPU's stable sort, ties in index order. K is uint32_t for float and integers up to 32 bits, uint64_t for
// double and int64; 16-bit floats are keyed by their float value. Descending: ~key, still ascending and stable.
template <class K, class A>
GLIA_SORT_HD K radix_key(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    static_assert(sizeof(K) == sizeof(A), "a float keyed by its own width");
    constexpr K sign = K(1) << (sizeof(K) * 8 - 1);
    if (v != v) return ~K(0);  // every NaN, the largest
    if (v == A(0)) v = A(0);   // -0.0 == +0.0
    K bits;
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(A) == 8)
      bits = static_cast<K>(__double_as_longlong(v));
    else
      bits = static_cast<K>(__float_as_uint(v));
#else
    std::memcpy(&bits, &v, sizeof bits);
#endif
    return (bits & sign) ? ~bits : (bits | sign);
  } else if constexpr (std::is_same_v<A, bool>) {
    return static_cast<K>(v ? 1 : 0);
  } else if constexpr (std::is_signed_v<A>) {
    using U = std::make_unsigned_t<A>;  // the sign bit flipped: the minimum first
    return static_cast<K>(static_cast<U>(static_cast<U>(v) ^ static_cast<U>(U(1) << (sizeof(A) * 8 - 1))));
  } else {
    return static_cast<K>(v);
  }
}

// On a row of keys sorted ascending (key(i), i < n), what the GPU's selections look up (cuda/sort.cu):
// the first position of the NaN key ~K(0) (n when the row has no NaN), and the first position of the run of
// equal keys that holds position j.
template <class K, class At>
GLIA_SORT_HD int64_t first_nan_key(At key, int64_t n) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    if (key(mid) != static_cast<K>(~K(0)))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
template <class At>
GLIA_SORT_HD int64_t run_start(At key, int64_t j) {
  int64_t lo = 0, hi = j;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    if (key(mid) < key(j))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// mode's choice between two runs of a sorted row, (length, last position): the longer, then the one ending
// first (the smaller value); a length of 0 is no run.
GLIA_SORT_HD bool mode_prefers(int64_t len, int64_t end, int64_t than_len, int64_t than_end) {
  return len > than_len || (len == than_len && len > 0 && end < than_end);
}

}  // namespace glia::sorting

#endif  // GLIA_CORE_SORT_MATH_H
