// The index and divisor math of 2-D pooling, shared by the CPU kernels (src/ops/cpu/pool.cpp) and the CUDA
// backend's (cuda/pool.cu): compiled by the host compiler and by nvcc, where GLIA_POOL_HD is __host__ __device__.
// It lives in src/core/ because that is the one directory both may include (tests/layering/check_layers.py:
// cuda/ includes cuda/ and src/core/ only, src/ never includes cuda/). The CPU goldens test it through the CPU
// kernels; tests/cuda/pool_norm_math_test.cpp checks the inverse ranges of the backward gathers by brute force.
#ifndef GLIA_CORE_POOL_MATH_H
#define GLIA_CORE_POOL_MATH_H

#include <cstdint>

#if defined(__CUDACC__)
#define GLIA_POOL_HD __host__ __device__ inline
#else
#define GLIA_POOL_HD inline
#endif

namespace glia::pool {

// The first of the taps start, start + dil, ... that is >= 0 (in one step: a padding of 2^61 is legal).
GLIA_POOL_HD int64_t first_tap_inside(int64_t start, int64_t dil) {
  return start >= 0 ? start : start + (-start + dil - 1) / dil * dil;
}

// max pooling's rule (torch's): a tap replaces the best so far when it is greater or NaN, so a NaN wins (the
// last one in scan order) and otherwise the first maximum does.
template <class A>
GLIA_POOL_HD bool max_pool_takes(A v, A best) {
  return v > best || v != v;
}

// Window of output (oh, ow) of avg_pool2d, clipped to the input, and its divisor (torch's avg_pool2d kernel:
// the padded window's size with count_include_pad, the clipped one's without, or divisor_override when
// non-zero). The window is empty (h0 >= h1 or w0 >= w1) when it lies in the padding only.
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  double div;  // a kernel of 2^40 x 2^40 is legal: its padded window has more than 2^63 taps
};
GLIA_POOL_HD AvgWindow avg_window(int64_t oh, int64_t ow, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t sh,
                                  int64_t sw, int64_t ph, int64_t pw, bool count_include_pad,
                                  int64_t divisor_override) {
  int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
  int64_t h1 = h0 + kh < H + ph ? h0 + kh : H + ph, w1 = w0 + kw < W + pw ? w0 + kw : W + pw;
  const double pool_size = static_cast<double>(h1 - h0) * static_cast<double>(w1 - w0);
  h0 = h0 > 0 ? h0 : 0, w0 = w0 > 0 ? w0 : 0;
  h1 = h1 < H ? h1 : H, w1 = w1 < W ? w1 : W;
  const double div = divisor_override    ? static_cast<double>(divisor_override)
                     : count_include_pad ? pool_size
                                         : static_cast<double>((h1 - h0) * (w1 - w0));
  return {h0, h1, w0, w1, div};
}

// avg_pool3d's window of output o (T, H, W) clipped to the input `in`, and its divisor (torch's avg_pool3d
// kernel: per dim as avg_window, the divisor the product over the dims). Shared by the CPU's pool3d.cpp and
// the CUDA backend's pool3d.cu; a dim whose window lies in the padding only has lo >= hi.
struct AvgWindow3 {
  int64_t lo[3], hi[3];
  double div;
};
GLIA_POOL_HD AvgWindow3 avg_window3(const int64_t o[3], const int64_t in[3], const int64_t k[3], const int64_t s[3],
                                    const int64_t p[3], bool count_include_pad, int64_t divisor_override) {
  AvgWindow3 w;
  double pool_size = 1, inside = 1;
  for (int a = 0; a < 3; ++a) {
    int64_t lo = o[a] * s[a] - p[a];
    int64_t hi = lo + k[a] < in[a] + p[a] ? lo + k[a] : in[a] + p[a];
    pool_size *= static_cast<double>(hi - lo);
    lo = lo > 0 ? lo : 0;
    hi = hi < in[a] ? hi : in[a];
    w.lo[a] = lo, w.hi[a] = hi;
    inside *= static_cast<double>(hi - lo > 0 ? hi - lo : 0);
  }
  w.div = divisor_override ? static_cast<double>(divisor_override) : count_include_pad ? pool_size : inside;
  return w;
}

// The outputs [*lo, *hi) of one dim (kernel k, stride s, padding p, `out` outputs) whose avg_pool2d windows
// hold input position i: the window of o is [o * s - p, o * s - p + k) clipped to the input, so it holds i
// (0 <= i < in) iff o * s <= i + p < o * s + k. The backward gathers over exactly these, in increasing order
// (the order in which the CPU kernel's scatter adds them).
GLIA_POOL_HD void avg_outputs_of(int64_t i, int64_t k, int64_t s, int64_t p, int64_t out, int64_t* lo, int64_t* hi) {
  *lo = i + p < k ? 0 : (i + p - k) / s + 1;
  const int64_t h = (i + p) / s + 1;
  *hi = h < out ? h : out;
}

// Adaptive pooling's window of output o (of `out`) over `in` positions: [start_index, end_index) (torch's
// start_index / end_index).
GLIA_POOL_HD int64_t start_index(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
GLIA_POOL_HD int64_t end_index(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }
// The outputs whose adaptive windows hold input i are [start_index(i, in, out), end_index(i, in, out)): the
// same functions with the roles swapped (start_index(o) <= i iff o * in < (i + 1) * out, and
// end_index(o) > i iff (o + 1) * in > i * out).
GLIA_POOL_HD void adaptive_outputs_of(int64_t i, int64_t in, int64_t out, int64_t* lo, int64_t* hi) {
  *lo = start_index(i, in, out);
  *hi = end_index(i, in, out);
}

}  // namespace glia::pool

#endif  // GLIA_CORE_POOL_MATH_H
