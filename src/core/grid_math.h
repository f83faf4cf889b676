// Per-element math of grid sampling (F.grid_sample) and fractional max pooling, with torch 1.13's
// formulas (aten/src/ATen/native/GridSampler.h, GridSamplerKernel.cpp, FractionalMaxPool2d.cpp): T is
// the computing type (float for float32, double for float64). No tensor types here: shared by the CPU kernels
// (src/ops/cpu/grid.cpp) and the CUDA backend's (cuda/grid.cu, cuda/pool3d.cu), compiled by both compilers
// (GLIA_GRID_HD is __host__ __device__ under nvcc); it lives in src/core/, the one directory both may include
// (tests/layering/check_layers.py). The CPU goldens test it through the CPU kernels.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/resample_math.h"

#if defined(__CUDACC__)
#define GLIA_GRID_HD __host__ __device__
#else
#define GLIA_GRID_HD
#endif

namespace glia::math {

// torch's GridSamplerPadding.
enum GridPadding : int { kGridZeros = 0, kGridBorder = 1, kGridReflection = 2 };
// torch's GridSamplerInterpolation.
enum GridMode : int { kGridBilinear = 0, kGridNearest = 1, kGridBicubic = 2 };

// grid_sampler_unnormalize: [-1, 1] to pixel coordinates; *d (when non-null) its derivative.
template <class T>
GLIA_GRID_HD inline T grid_unnormalize(T coord, int64_t size, bool align_corners, T* d = nullptr) {
  if (align_corners) {
    if (d) *d = static_cast<T>(size - 1) / T(2);
    return ((coord + T(1)) / T(2)) * static_cast<T>(size - 1);
  }
  if (d) *d = static_cast<T>(size) / T(2);
  return ((coord + T(1)) * static_cast<T>(size) - T(1)) / T(2);
}

// clip_coordinates(_set_grad): into [0, size - 1]; the borders count as outside for the gradient.
template <class T>
GLIA_GRID_HD inline T grid_clip(T in, int64_t size, T* d = nullptr) {
  const T hi = static_cast<T>(size - 1);
  if (d) {
    if (in <= T(0)) {
      *d = T(0);
      return T(0);
    }
    if (in >= hi) {
      *d = T(0);
      return hi;
    }
    *d = T(1);
    return in;
  }
  const T lo = in < T(0) ? T(0) : in;  // torch's std::min(size - 1, std::max(in, 0))
  return lo < hi ? lo : hi;
}

// reflect_coordinates(_set_grad): reflects `in` into [twice_low / 2, twice_high / 2].
template <class T>
GLIA_GRID_HD inline T grid_reflect(T in, int64_t twice_low, int64_t twice_high, T* d = nullptr) {
  if (twice_low == twice_high) {
    if (d) *d = T(0);
    return T(0);
  }
  const T lo = static_cast<T>(twice_low) / T(2);
  const T span = static_cast<T>(twice_high - twice_low) / T(2);
  in = in - lo;
  T sign = T(1);
  if (in < T(0)) {
    sign = T(-1);
    in = -in;
  }
  const T extra = std::fmod(in, span);
  const int flips = static_cast<int>(std::floor(in / span));
  if (flips % 2 == 0) {
    if (d) *d = sign;
    return extra + lo;
  }
  if (d) *d = -sign;
  return span - extra + lo;
}

// compute_coordinates: the padding mode's mapping of a pixel coordinate (zeros: unchanged).
template <class T>
GLIA_GRID_HD inline T grid_pad_coord(T coord, int64_t size, int padding, bool align_corners, T* d = nullptr) {
  T g1 = T(1), g2 = T(1);
  if (padding == kGridBorder) {
    coord = grid_clip<T>(coord, size, d ? &g1 : nullptr);
  } else if (padding == kGridReflection) {
    coord = align_corners ? grid_reflect<T>(coord, 0, 2 * (size - 1), d ? &g2 : nullptr)
                          : grid_reflect<T>(coord, -1, 2 * size - 1, d ? &g2 : nullptr);
    coord = grid_clip<T>(coord, size, d ? &g1 : nullptr);
  }
  if (d) *d = g1 * g2;
  return coord;
}

// grid_sampler_compute_source_index(_set_grad).
template <class T>
GLIA_GRID_HD inline T grid_source_index(T coord, int64_t size, int padding, bool align_corners, T* d = nullptr) {
  T du = T(1), dp = T(1);
  coord = grid_unnormalize<T>(coord, size, align_corners, d ? &du : nullptr);
  coord = grid_pad_coord<T>(coord, size, padding, align_corners, d ? &dp : nullptr);
  if (d) *d = du * dp;
  return coord;
}

GLIA_GRID_HD inline bool grid_in_bounds(int64_t i, int64_t size) { return i >= 0 && i < size; }

// The four cubic weights of torch's get_cubic_upsample_coefficients (A = -0.75) and their derivatives in t
// (get_cubic_coefficients_grad).
template <class T>
GLIA_GRID_HD inline void grid_cubic_coefficients_grad(T w[4], T t) {
  const T a = T(-0.75);
  T x = -T(1) - t;  // 1 < |x| < 2
  w[0] = (-T(3) * a * x - T(10) * a) * x - T(8) * a;
  x = -t;  // |x| <= 1
  w[1] = (-T(3) * (a + T(2)) * x - T(2) * (a + T(3))) * x;
  x = T(1) - t;  // |x| <= 1
  w[2] = (T(3) * (a + T(2)) * x - T(2) * (a + T(3))) * x;
  x = T(2) - t;  // 1 < |x| < 2
  w[3] = (T(3) * a * x - T(10) * a) * x + T(8) * a;
}

// nearest mode's pixel: round half to even (std::nearbyint in the default rounding mode).
template <class T>
GLIA_GRID_HD inline int64_t grid_nearest_index(T v) {
  return static_cast<int64_t>(std::nearbyint(v));
}

// The four bicubic weights of torch's vectorised grid sampler (get_cubic_coefficients, A = -0.75).
template <class T>
GLIA_GRID_HD inline void grid_cubic_coefficients(T w[4], T t) {
  const T a = T(-0.75);
  T x = t + T(1);
  w[0] = ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
  x = t;
  w[1] = ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
  x = T(1) - t;
  w[2] = ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
  x = T(2) - t;
  w[3] = ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
}

// A bicubic tap: the padding mode's coordinate of pixel (x, y), *at its flat position in the H x W plane, and
// whether it lies inside.
template <class T>
GLIA_GRID_HD inline bool grid_cubic_tap(T x, T y, int64_t W, int64_t H, int padding, bool align_corners, int64_t* at) {
  const T px = grid_pad_coord<T>(x, W, padding, align_corners), py = grid_pad_coord<T>(y, H, padding, align_corners);
  const int64_t ix = static_cast<int64_t>(px), iy = static_cast<int64_t>(py);
  if (!(px >= T(0) && py >= T(0)) || !grid_in_bounds(ix, W) || !grid_in_bounds(iy, H)) return false;
  *at = iy * W + ix;
  return true;
}

// torch's generic 3-D kernel's trilinear corners and factors: corner k (x fastest, then y, then z: tnw, tne,
// tsw, tse, bnw, bne, bsw, bse) at flat position at[k] of the D x H x W volume, inside when in[k]; it weighs
// f[0][k & 1] * f[1][(k >> 1) & 1] * f[2][k >> 2], with f[.][1] = i - i0 and f[.][0] = i0 + 1 - i.
template <class T>
GLIA_GRID_HD inline void grid_trilinear(T ix, T iy, T iz, int64_t D, int64_t H, int64_t W, int64_t at[8], bool in[8],
                                        T f[3][2]) {
  const int64_t x0 = static_cast<int64_t>(std::floor(ix)), y0 = static_cast<int64_t>(std::floor(iy)),
                z0 = static_cast<int64_t>(std::floor(iz));
  f[0][0] = static_cast<T>(x0 + 1) - ix, f[0][1] = ix - static_cast<T>(x0);
  f[1][0] = static_cast<T>(y0 + 1) - iy, f[1][1] = iy - static_cast<T>(y0);
  f[2][0] = static_cast<T>(z0 + 1) - iz, f[2][1] = iz - static_cast<T>(z0);
  for (int k = 0; k < 8; ++k) {
    const int64_t x = x0 + (k & 1), y = y0 + ((k >> 1) & 1), z = z0 + (k >> 2);
    in[k] = grid_in_bounds(x, W) && grid_in_bounds(y, H) && grid_in_bounds(z, D);
    at[k] = (z * H + y) * W + x;
  }
}

// Fractional max pooling's window starts (torch's generate_intervals): start[i] for output i of a dim of
// `in` positions pooled with windows of `pool` into `out`; `sample` in [0, 1) (the window positions'
// random offset). T is the input's dtype (the formula runs in it).
template <class T>
GLIA_GRID_HD inline int64_t fractional_start(T sample, int64_t in, int64_t out, int64_t pool, int64_t i) {
  if (i == out - 1) return in - pool;
  const T alpha = static_cast<T>(in - pool) / static_cast<T>(out - 1);
  return static_cast<int64_t>(static_cast<int>((static_cast<T>(i) + sample) * alpha) -
                              static_cast<int>(sample * alpha));
}

}  // namespace glia::math
