// Per-element index and weight math of upsampling (F.interpolate), with torch
// 1.13's formulas (aten/src/ATen/native/UpSample.h and the CPU kernels): T is
// the computing type (float for float32, double for float64); a scale
// factor <= 0 stands for torch's None. Shared by the CPU kernels (src/ops/cpu/resample.cpp) and the CUDA
// backend's (cuda/resample.cu), compiled by both compilers (GLIA_RESAMPLE_HD is __host__ __device__ under
// nvcc); it lives in src/core/, the one directory both may include (tests/layering/check_layers.py). The CPU
// goldens test it through the CPU kernels; tests/cuda/resample_math_test.cpp checks the backward's inverse
// ranges (upsample_outputs_of) by brute force.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define GLIA_RESAMPLE_HD __host__ __device__
#else
#define GLIA_RESAMPLE_HD
#endif

namespace glia::math {

// torch's compute_scales_value: 1 / scale_factor when one was given, else in / out.
template <class T>
GLIA_RESAMPLE_HD inline T upsample_scale_value(double scale, int64_t in, int64_t out) {
  return scale > 0.0 ? static_cast<T>(1.0 / scale) : static_cast<T>(in) / static_cast<T>(out);
}

// torch's area_pixel_compute_scale.
template <class T>
GLIA_RESAMPLE_HD inline T area_pixel_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return upsample_scale_value<T>(scale, in, out);
}

// torch's area_pixel_compute_source_index (cubic: no clamp at 0).
template <class T>
GLIA_RESAMPLE_HD inline T area_pixel_source_index(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(dst);
  T src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  return (!cubic && src < T(0)) ? T(0) : src;
}

// "nearest": min(floor(dst * scale), in - 1) in float.
GLIA_RESAMPLE_HD inline int64_t nearest_source_index(float scale, int64_t dst, int64_t in) {
  int64_t i = static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale));
  return i < in - 1 ? i : in - 1;
}

// "nearest-exact": min(floor((dst + 0.5) * scale), in - 1).
GLIA_RESAMPLE_HD inline int64_t nearest_exact_source_index(float scale, int64_t dst, int64_t in) {
  int64_t i = static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(dst) + 0.5) * scale)));
  return i < in - 1 ? i : in - 1;
}

// torch's nearest_idx, used by the backward of "nearest" only: the shortcuts for out == in (copy) and
// out == 2 * in (i >> 1), which the forward no longer takes.
GLIA_RESAMPLE_HD inline int64_t nearest_backward_index(int64_t dst, int64_t in, int64_t out, double scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  return nearest_source_index(upsample_scale_value<float>(scale, in, out), dst, in);
}

// torch's compute_source_index_and_lambda: the two taps of linear interpolation and their weights;
// out == in copies.
template <class T>
GLIA_RESAMPLE_HD inline void linear_taps(T scale, int64_t dst, int64_t in, int64_t out, bool align_corners, int64_t& i0,
                                         int64_t& i1, T& l0, T& l1) {
  if (out == in) {
    i0 = i1 = dst;
    l0 = T(1);
    l1 = T(0);
    return;
  }
  const T real = area_pixel_source_index<T>(scale, dst, align_corners, false);
  i0 = static_cast<int64_t>(real);
  if (i0 > in - 1) i0 = in - 1;
  i1 = i0 + (i0 < in - 1 ? 1 : 0);
  T d = real - static_cast<T>(i0);
  l1 = d < T(0) ? T(0) : (d > T(1) ? T(1) : d);
  l0 = T(1) - l1;
}

// Keys' cubic convolution with A = -0.75 (torch's get_cubic_upsample_coefficients).
template <class T>
GLIA_RESAMPLE_HD inline T cubic_convolution1(T x, T a) {
  return ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
}
template <class T>
GLIA_RESAMPLE_HD inline T cubic_convolution2(T x, T a) {
  return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
}
template <class T>
GLIA_RESAMPLE_HD inline void cubic_coefficients(T w[4], T t) {
  const T a = T(-0.75);
  w[0] = cubic_convolution2<T>(t + T(1), a);
  w[1] = cubic_convolution1<T>(t, a);
  w[2] = cubic_convolution1<T>(T(1) - t, a);
  w[3] = cubic_convolution2<T>(T(1) - t + T(1), a);
}

// The four taps of bicubic interpolation (clamped to [0, in - 1]) and their weights.
template <class T>
GLIA_RESAMPLE_HD inline void cubic_taps(T scale, int64_t dst, int64_t in, bool align_corners, int64_t idx[4], T w[4]) {
  const T real = area_pixel_source_index<T>(scale, dst, align_corners, true);
  const int64_t i = static_cast<int64_t>(std::floor(static_cast<float>(real)));
  cubic_coefficients<T>(w, real - static_cast<T>(i));
  for (int64_t j = 0; j < 4; ++j) {
    int64_t v = i - 1 + j;
    idx[j] = v < 0 ? 0 : (v > in - 1 ? in - 1 : v);
  }
}

// The taps of output `dst` of one dim (ops::UpsampleKind's numbering: 0 nearest, 1 nearest-exact, 2 linear,
// 3 cubic): their input positions idx[0..n) in ascending order and weights w, n returned. `backward`: the
// index rules of torch's backward kernels (nearest: nearest_idx's shortcuts). The CPU kernels build their tap
// tables with it, the CUDA kernels call it per element.
template <class T>
GLIA_RESAMPLE_HD inline int upsample_taps(int kind, int64_t in, int64_t out, double scale, bool align_corners,
                                          bool backward, int64_t dst, int64_t idx[4], T w[4]) {
  if (kind == 0 || kind == 1) {
    const float s = upsample_scale_value<float>(scale, in, out);
    idx[0] = kind == 1  ? nearest_exact_source_index(s, dst, in)
             : backward ? nearest_backward_index(dst, in, out, scale)
                        : nearest_source_index(s, dst, in);
    w[0] = T(1);
    return 1;
  }
  const T s = area_pixel_scale<T>(in, out, align_corners, scale);
  if (kind == 2) {
    linear_taps<T>(s, dst, in, out, align_corners, idx[0], idx[1], w[0], w[1]);
    return 2;
  }
  cubic_taps<T>(s, dst, in, align_corners, idx, w);
  return 4;
}

// The outputs [*lo, *hi) of one dim whose taps (upsample_taps) include input position i: the backward's
// gather runs over exactly these, in increasing order (the order of the CPU kernel's scatter). Every rule's
// taps are non-decreasing in dst and cover a run of consecutive positions, so the outputs holding i are those
// with first tap <= i <= last tap, a range found by two binary searches.
template <class T>
GLIA_RESAMPLE_HD inline void upsample_outputs_of(int kind, int64_t in, int64_t out, double scale, bool align_corners,
                                                 bool backward, int64_t i, int64_t* lo, int64_t* hi) {
  int64_t idx[4];
  T w[4];
  int64_t a = 0, b = out;  // the first output whose last tap is >= i
  while (a < b) {
    const int64_t m = a + (b - a) / 2;
    const int n = upsample_taps<T>(kind, in, out, scale, align_corners, backward, m, idx, w);
    if (idx[n - 1] >= i)
      b = m;
    else
      a = m + 1;
  }
  *lo = a;
  b = out;  // the first output whose first tap is > i
  while (a < b) {
    const int64_t m = a + (b - a) / 2;
    upsample_taps<T>(kind, in, out, scale, align_corners, backward, m, idx, w);
    if (idx[0] > i)
      b = m;
    else
      a = m + 1;
  }
  *hi = a;
}

// An upsample call's spatial geometry padded to 3 dims (the leading ones of size 1, with one tap of weight 1),
// as the CPU kernel pads it; kind and align_corners as upsample_taps takes them, k the real spatial dims.
struct UpsampleGeom {
  int64_t in[3], out[3];
  double scale[3];
  int k, kind;
  bool align_corners;
};

template <class T>
GLIA_RESAMPLE_HD inline int upsample_dim_taps(const UpsampleGeom& g, int j, bool backward, int64_t o, int64_t idx[4],
                                              T w[4]) {
  if (j < 3 - g.k) {
    idx[0] = 0;
    w[0] = T(1);
    return 1;
  }
  return upsample_taps<T>(g.kind, g.in[j], g.out[j], g.scale[j], g.align_corners, backward, o, idx, w);
}

// Output (c0, c1, c2) of one plane `src` [in0, in1, in2]: the CPU kernel's nesting (innermost dim first, each
// level's first term a product, then sums).
template <class T>
GLIA_RESAMPLE_HD inline T upsample_output(const UpsampleGeom& g, const T* src, const int64_t c[3]) {
  int64_t id[3][4];
  T w[3][4];
  int n[3];
  for (int j = 0; j < 3; ++j) n[j] = upsample_dim_taps<T>(g, j, false, c[j], id[j], w[j]);
  const int64_t ih = g.in[1], iw = g.in[2];
  if (g.kind == 0 || g.kind == 1) return src[(id[0][0] * ih + id[1][0]) * iw + id[2][0]];
  T vd = T(0);
  for (int td = 0; td < n[0]; ++td) {
    T vh = T(0);
    for (int th = 0; th < n[1]; ++th) {
      const T* row = src + (id[0][td] * ih + id[1][th]) * iw;
      T vw = row[id[2][0]] * w[2][0];
      for (int tw = 1; tw < n[2]; ++tw) vw += row[id[2][tw]] * w[2][tw];
      vh = th == 0 ? vw * w[1][th] : vh + vw * w[1][th];
    }
    vd = td == 0 ? vh * w[0][td] : vd + vh * w[0][td];
  }
  return vd;
}

// The backward's gather: input element (c0, c1, c2)'s gradient from one plane `gy` [out0, out1, out2]. The
// outputs whose taps hold it (upsample_outputs_of per dim) in increasing order and, per output, its taps in
// the CPU kernel's order, each weighted gradient added as the CPU's scatter adds it: the CPU's additions in
// the CPU's order, so its bits (tests/cuda/resample_math_test.cpp checks that against the scatter). Not for
// bicubic with equal sizes, which the kernels copy.
template <class T>
GLIA_RESAMPLE_HD inline T upsample_input_grad(const UpsampleGeom& g, const T* gy, const int64_t c[3]) {
  int64_t lo[3], hi[3];
  for (int j = 0; j < 3; ++j) {
    if (j < 3 - g.k) {
      lo[j] = 0, hi[j] = 1;
    } else {
      upsample_outputs_of<T>(g.kind, g.in[j], g.out[j], g.scale[j], g.align_corners, true, c[j], &lo[j], &hi[j]);
    }
  }
  const bool cubic = g.kind == 3;
  T acc = T(0);
  int64_t id[3][4];
  T w[3][4];
  for (int64_t od = lo[0]; od < hi[0]; ++od) {
    const int n0 = upsample_dim_taps<T>(g, 0, true, od, id[0], w[0]);
    for (int64_t oh = lo[1]; oh < hi[1]; ++oh) {
      const int n1 = upsample_dim_taps<T>(g, 1, true, oh, id[1], w[1]);
      for (int64_t ow = lo[2]; ow < hi[2]; ++ow) {
        const int n2 = upsample_dim_taps<T>(g, 2, true, ow, id[2], w[2]);
        const T v = gy[(od * g.out[1] + oh) * g.out[2] + ow];
        for (int td = 0; td < n0; ++td) {
          if (id[0][td] != c[0]) continue;
          for (int th = 0; th < n1; ++th) {
            if (id[1][th] != c[1]) continue;
            for (int tw = 0; tw < n2; ++tw) {
              if (id[2][tw] != c[2]) continue;
              acc += cubic ? v * w[1][th] * w[2][tw] : w[0][td] * w[1][th] * w[2][tw] * v;
            }
          }
        }
      }
    }
  }
  return acc;
}

}  // namespace glia::math
