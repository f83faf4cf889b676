// The index math of im2col_nd / col2im_nd on the GPU (cuda/resample.cu), compiled by both compilers so that
// tests/cuda/fold_index_test.cpp checks it on the CPU against the CPU kernels' loops (src/ops/cpu/convnd.cpp).
// A 2-D geometry is a 3-D one with a unit leading dim, as convnd.cpp's col_geom pads it.
#ifndef GLIA_CUDA_FOLD_INDEX_H
#define GLIA_CUDA_FOLD_INDEX_H

#include <cstdint>

#include "host_device.h"

namespace glia::cuda {

struct FoldGeom {
  int64_t P, in[3], k[3], d[3], p[3], s[3], out[3];
};

// Column element e of cols [P, taps * L]: the flat position of its source in its image plane [in0, in1, in2],
// or -1 when the window position lies outside the image (a zero).
GLIA_HOST_DEVICE int64_t im2col_source(const FoldGeom& g, int64_t e, int64_t* plane) {
  const int64_t L = g.out[0] * g.out[1] * g.out[2], taps = g.k[0] * g.k[1] * g.k[2];
  const int64_t row = e / L, l = e % L, tap = row % taps;
  *plane = row / taps;
  const int64_t kk[3] = {tap / (g.k[1] * g.k[2]), (tap / g.k[2]) % g.k[1], tap % g.k[2]};
  const int64_t o[3] = {l / (g.out[1] * g.out[2]), (l / g.out[2]) % g.out[1], l % g.out[2]};
  int64_t at = 0;
  for (int a = 0; a < 3; ++a) {
    const int64_t pos = o[a] * g.s[a] - g.p[a] + kk[a] * g.d[a];
    if (pos < 0 || pos >= g.in[a]) return -1;
    at = at * g.in[a] + pos;
  }
  return at;
}

// col2im's gather: image element c (of plane `src`'s columns [taps, L]) is the sum, in tap order, of the column
// entry of each tap whose window position lands on it (o * s - p + k * d == c in every dim; at most one per tap).
// The CPU's scatter adds the same entries in the same order.
template <class T>
GLIA_HOST_DEVICE T col2im_element(const FoldGeom& g, const T* src, const int64_t c[3]) {
  const int64_t L = g.out[0] * g.out[1] * g.out[2];
  T acc = T(0);
  int64_t tap = 0;
  for (int64_t kd = 0; kd < g.k[0]; ++kd)
    for (int64_t kh = 0; kh < g.k[1]; ++kh)
      for (int64_t kw = 0; kw < g.k[2]; ++kw, ++tap) {
        const int64_t kk[3] = {kd, kh, kw};
        int64_t l = 0;
        bool hit = true;
        for (int a = 0; a < 3 && hit; ++a) {
          const int64_t num = c[a] + g.p[a] - kk[a] * g.d[a];
          hit = num >= 0 && num % g.s[a] == 0 && num / g.s[a] < g.out[a];
          l = l * g.out[a] + (hit ? num / g.s[a] : 0);
        }
        if (hit) acc += src[tap * L + l];
      }
  return acc;
}

}  // namespace glia::cuda

#endif  // GLIA_CUDA_FOLD_INDEX_H
