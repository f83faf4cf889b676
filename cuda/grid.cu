// Grid sampling on the GPU: kernels.def's grid_sampler and grid_sampler_backward (src/ops/cpu/grid.cpp),
// float32 and float64, contiguous operands, 2-D (bilinear, nearest, bicubic) and 3-D (trilinear, nearest). The
// coordinate, padding and weight math is core/grid_math.h's, which the CPU kernels run too.
//   - forward: one thread per output element (image, channel, point).
//   - backward, grad_grid: one thread per (image, point), summing over the channels in the CPU's order.
//   - backward, grad_input: a scatter (any point may land anywhere in the input), made deterministic without
//     atomics: one thread per (image, channel) plane zeroes it and adds the points' contributions in point order,
//     the CPU's loop, so the CPU's bits. Its parallelism is N * C threads (torch's CUDA kernel scatters with
//     atomics and is not deterministic); a sorted-segment formulation for few large planes is future work.
#include <string>

#include "common.h"
#include "core/grid_math.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

using namespace glia::math;

struct GridGeom {
  int64_t N, C, in[3], out[3];  // in: D, H, W (D = 1 in 2-D); out: Do, Ho, Wo
  int mode, padding;
  bool align, three;
};

// ---- 2-D: input [N, C, H, W], grid [N, Ho, Wo, 2], out [N, C, Ho, Wo].

// Output point p of image n, channel c (grid.cpp's grid_sample_2d body for one channel).
template <class T>
__device__ T sample_2d(const GridGeom& g, const T* __restrict src, const T* gxy) {
  const int64_t H = g.in[1], W = g.in[2];
  if (g.mode == kGridBicubic) {
    const T x = grid_unnormalize<T>(gxy[0], W, g.align), y = grid_unnormalize<T>(gxy[1], H, g.align);
    const T fx = std::floor(x), fy = std::floor(y);
    T cx[4], cy[4];
    grid_cubic_coefficients<T>(cx, x - fx);
    grid_cubic_coefficients<T>(cy, y - fy);
    T rows[4];
    for (int i = 0; i < 4; ++i) {
      T v[4];
      for (int j = 0; j < 4; ++j) {
        int64_t at = 0;
        v[j] = grid_cubic_tap<T>(fx - T(1) + T(j), fy - T(1) + T(i), W, H, g.padding, g.align, &at) ? src[at] : T(0);
      }
      rows[i] = cx[0] * v[0] + cx[1] * v[1] + cx[2] * v[2] + cx[3] * v[3];
    }
    return cy[0] * rows[0] + cy[1] * rows[1] + cy[2] * rows[2] + cy[3] * rows[3];
  }
  const T x = grid_source_index<T>(gxy[0], W, g.padding, g.align);
  const T y = grid_source_index<T>(gxy[1], H, g.padding, g.align);
  if (g.mode == kGridNearest) {
    const int64_t ix = grid_nearest_index(x), iy = grid_nearest_index(y);
    return grid_in_bounds(ix, W) && grid_in_bounds(iy, H) ? src[iy * W + ix] : T(0);
  }
  const T xw = std::floor(x), yn = std::floor(y);
  const int64_t ix = static_cast<int64_t>(xw), iy = static_cast<int64_t>(yn);
  const T we = x - xw, ea = T(1) - we, no = y - yn, so = T(1) - no;
  const T nw = so * ea, ne = so * we, sw = no * ea, se = no * we;
  const bool bw = grid_in_bounds(ix, W), be = grid_in_bounds(ix + 1, W), bn = grid_in_bounds(iy, H),
             bs = grid_in_bounds(iy + 1, H);
  const int64_t o = iy * W + ix;
  const T vnw = bn && bw ? src[o] : T(0), vne = bn && be ? src[o + 1] : T(0);
  const T vsw = bs && bw ? src[o + W] : T(0), vse = bs && be ? src[o + W + 1] : T(0);
  return vnw * nw + vne * ne + vsw * sw + vse * se;
}

// The backward of point p of image n over channels [c0, c1) (grid.cpp's grid_sample_2d_backward body): with
// `gsrc` (the input gradient of image n, channel c0 first) the input gradient's additions, with `gg` the grid
// gradient.
template <class T>
__device__ void sample_2d_backward(const GridGeom& g, const T* __restrict src, const T* __restrict go, int64_t c0,
                                   int64_t c1, const T* gxy, T* gsrc, T* gg) {
  const int64_t H = g.in[1], W = g.in[2], plane = H * W, oplane = g.out[1] * g.out[2];
  if (g.mode == kGridBicubic) {
    T mx, my;
    const T x = grid_unnormalize<T>(gxy[0], W, g.align, &mx), y = grid_unnormalize<T>(gxy[1], H, g.align, &my);
    const T fx = std::floor(x), fy = std::floor(y);
    T cx[4], cy[4], dx[4], dy[4];
    grid_cubic_coefficients<T>(cx, x - fx);
    grid_cubic_coefficients<T>(cy, y - fy);
    grid_cubic_coefficients_grad<T>(dx, x - fx);
    grid_cubic_coefficients_grad<T>(dy, y - fy);
    int64_t at[4][4];
    bool in[4][4];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        in[i][j] = grid_cubic_tap<T>(fx - T(1) + T(i), fy - T(1) + T(j), W, H, g.padding, g.align, &at[i][j]);
    T gx = T(0), gyv = T(0);
    for (int64_t c = c0; c < c1; ++c) {
      const T gv = go[c * oplane];
      const T* s = src + c * plane;
      T* gs = gsrc ? gsrc + (c - c0) * plane : nullptr;
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          if (!in[i][j]) continue;
          if (gs) gs[at[i][j]] += gv * cx[i] * cy[j];
          const T v = s[at[i][j]];
          gx -= v * gv * dx[i] * cy[j];
          gyv -= v * gv * dy[j] * cx[i];
        }
    }
    if (gg) gg[0] = gx * mx, gg[1] = gyv * my;
    return;
  }
  T mx, my;
  const T x = grid_source_index<T>(gxy[0], W, g.padding, g.align, &mx);
  const T y = grid_source_index<T>(gxy[1], H, g.padding, g.align, &my);
  if (g.mode == kGridNearest) {
    const int64_t ix = grid_nearest_index(x), iy = grid_nearest_index(y);
    if (gsrc && grid_in_bounds(ix, W) && grid_in_bounds(iy, H))
      for (int64_t c = c0; c < c1; ++c) gsrc[(c - c0) * plane + iy * W + ix] += go[c * oplane];
    if (gg) gg[0] = T(0), gg[1] = T(0);
    return;
  }
  const T xw = std::floor(x), yn = std::floor(y);
  const int64_t ix = static_cast<int64_t>(xw), iy = static_cast<int64_t>(yn);
  const T we = x - xw, ea = T(1) - we, no = y - yn, so = T(1) - no;
  const T nw = so * ea, ne = so * we, sw = no * ea, se = no * we;
  const bool bw = grid_in_bounds(ix, W), be = grid_in_bounds(ix + 1, W), bn = grid_in_bounds(iy, H),
             bs = grid_in_bounds(iy + 1, H);
  const int64_t o = iy * W + ix;
  T gx = T(0), gyv = T(0);
  for (int64_t c = c0; c < c1; ++c) {
    const T gv = go[c * oplane];
    const T* s = src + c * plane;
    T* gs = gsrc ? gsrc + (c - c0) * plane : nullptr;
    T vnw = T(0), vne = T(0), vsw = T(0), vse = T(0);
    if (bn && bw) {
      if (gs) gs[o] += gv * nw;
      vnw = s[o];
    }
    if (bn && be) {
      if (gs) gs[o + 1] += gv * ne;
      vne = s[o + 1];
    }
    if (bs && bw) {
      if (gs) gs[o + W] += gv * sw;
      vsw = s[o + W];
    }
    if (bs && be) {
      if (gs) gs[o + W + 1] += gv * se;
      vse = s[o + W + 1];
    }
    gx = gx + ((vne - vnw) * so + (vse - vsw) * no) * gv;
    gyv = gyv + ((vsw - vnw) * ea + (vse - vne) * we) * gv;
  }
  if (gg) gg[0] = gx * mx, gg[1] = gyv * my;
}

// ---- 3-D: input [N, C, D, H, W], grid [N, Do, Ho, Wo, 3] (x, y, z), out [N, C, Do, Ho, Wo].

template <class T>
__device__ T sample_3d(const GridGeom& g, const T* __restrict src, const T* g3) {
  const int64_t D = g.in[0], H = g.in[1], W = g.in[2];
  const T ix = grid_source_index<T>(g3[0], W, g.padding, g.align);
  const T iy = grid_source_index<T>(g3[1], H, g.padding, g.align);
  const T iz = grid_source_index<T>(g3[2], D, g.padding, g.align);
  if (g.mode == kGridNearest) {
    const int64_t x = grid_nearest_index(ix), y = grid_nearest_index(iy), z = grid_nearest_index(iz);
    const bool inside = grid_in_bounds(x, W) && grid_in_bounds(y, H) && grid_in_bounds(z, D);
    return inside ? src[(z * H + y) * W + x] : T(0);
  }
  int64_t at[8];
  bool in[8];
  T f[3][2];
  grid_trilinear<T>(ix, iy, iz, D, H, W, at, in, f);
  T v = T(0);
  for (int k = 0; k < 8; ++k) {
    const T wt = f[0][k & 1] * f[1][(k >> 1) & 1] * f[2][k >> 2];
    if (in[k]) v += src[at[k]] * wt;
  }
  return v;
}

template <class T>
__device__ void sample_3d_backward(const GridGeom& g, const T* __restrict src, const T* __restrict go, int64_t c0,
                                   int64_t c1, const T* g3, T* gsrc, T* gg) {
  const int64_t D = g.in[0], H = g.in[1], W = g.in[2], vol = D * H * W, ovol = g.out[0] * g.out[1] * g.out[2];
  T mx, my, mz;
  const T ix = grid_source_index<T>(g3[0], W, g.padding, g.align, &mx);
  const T iy = grid_source_index<T>(g3[1], H, g.padding, g.align, &my);
  const T iz = grid_source_index<T>(g3[2], D, g.padding, g.align, &mz);
  if (g.mode == kGridNearest) {
    const int64_t x = grid_nearest_index(ix), y = grid_nearest_index(iy), z = grid_nearest_index(iz);
    if (gsrc && grid_in_bounds(x, W) && grid_in_bounds(y, H) && grid_in_bounds(z, D))
      for (int64_t c = c0; c < c1; ++c) gsrc[(c - c0) * vol + (z * H + y) * W + x] += go[c * ovol];
    if (gg) gg[0] = gg[1] = gg[2] = T(0);
    return;
  }
  int64_t at[8];
  bool in[8];
  T f[3][2];
  grid_trilinear<T>(ix, iy, iz, D, H, W, at, in, f);
  T wt[8], dwx[8], dwy[8], dwz[8];
  for (int k = 0; k < 8; ++k) {
    const int bx = k & 1, by = (k >> 1) & 1, bz = k >> 2;
    wt[k] = f[0][bx] * f[1][by] * f[2][bz];
    dwx[k] = (bx ? T(1) : T(-1)) * f[1][by] * f[2][bz];
    dwy[k] = (by ? T(1) : T(-1)) * f[0][bx] * f[2][bz];
    dwz[k] = (bz ? T(1) : T(-1)) * f[0][bx] * f[1][by];
  }
  T gx = T(0), gyv = T(0), gz = T(0);
  for (int64_t c = c0; c < c1; ++c) {
    const T gv = go[c * ovol];
    const T* s = src + c * vol;
    T* gs = gsrc ? gsrc + (c - c0) * vol : nullptr;
    for (int k = 0; k < 8; ++k) {
      if (!in[k]) continue;
      if (gs) gs[at[k]] += wt[k] * gv;
      const T v = s[at[k]];
      gx += v * dwx[k] * gv;
      gyv += v * dwy[k] * gv;
      gz += v * dwz[k] * gv;
    }
  }
  if (gg) gg[0] = mx * gx, gg[1] = my * gyv, gg[2] = mz * gz;
}

// ---- kernels

template <class T>
__global__ void __launch_bounds__(kThreads)
    grid_sampler_kernel(int64_t total, GridGeom g, const T* __restrict x, const T* __restrict grid, T* __restrict y) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vol = g.in[0] * g.in[1] * g.in[2], ovol = g.out[0] * g.out[1] * g.out[2];
  const int k = g.three ? 3 : 2;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    const int64_t p = o % ovol, nc = o / ovol, n = nc / g.C;
    const T* src = x + nc * vol;
    const T* gp = grid + (n * ovol + p) * k;
    y[o] = g.three ? sample_3d<T>(g, src, gp) : sample_2d<T>(g, src, gp);
  }
}

// grad_grid: one thread per (image, point).
template <class T>
__global__ void __launch_bounds__(kThreads)
    grid_grad_kernel(int64_t total, GridGeom g, const T* __restrict gy, const T* __restrict x, const T* __restrict grid,
                     T* __restrict ggrid) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vol = g.in[0] * g.in[1] * g.in[2], ovol = g.out[0] * g.out[1] * g.out[2];
  const int k = g.three ? 3 : 2;
  for (int64_t q = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; q < total; q += step) {
    const int64_t n = q / ovol, p = q % ovol;
    const T* src = x + n * g.C * vol;
    const T* go = gy + n * g.C * ovol + p;
    if (g.three)
      sample_3d_backward<T>(g, src, go, 0, g.C, grid + q * k, nullptr, ggrid + q * k);
    else
      sample_2d_backward<T>(g, src, go, 0, g.C, grid + q * k, nullptr, ggrid + q * k);
  }
}

// grad_input: one thread per (image, channel) plane, the points in order.
template <class T>
__global__ void __launch_bounds__(kThreads)
    input_grad_kernel(int64_t planes, GridGeom g, const T* __restrict gy, const T* __restrict x,
                      const T* __restrict grid, T* __restrict ginput) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vol = g.in[0] * g.in[1] * g.in[2], ovol = g.out[0] * g.out[1] * g.out[2];
  const int k = g.three ? 3 : 2;
  for (int64_t nc = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; nc < planes; nc += step) {
    const int64_t n = nc / g.C, c = nc % g.C;
    T* gs = ginput + nc * vol;
    for (int64_t i = 0; i < vol; ++i) gs[i] = T(0);
    const T* src = x + n * g.C * vol;
    for (int64_t p = 0; p < ovol; ++p) {
      const T* go = gy + n * g.C * ovol + p;
      const T* gp = grid + (n * ovol + p) * k;
      if (g.three)
        sample_3d_backward<T>(g, src, go, c, c + 1, gp, gs, nullptr);
      else
        sample_2d_backward<T>(g, src, go, c, c + 1, gp, gs, nullptr);
    }
  }
}

// ---- host side

glia_error* internal(const char* what, const char* msg) {
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + msg);
}

// From input [N, C, (D,) H, W] and the sampled output's shape [N, C, *grid's spatial].
glia_error* geom_of(const glia_kernel_call* call, const glia_kernel_tensor& x, const glia_kernel_tensor& y,
                    const glia_kernel_tensor& grid, const char* what, GridGeom* g) {
  if ((x.ndim != 4 && x.ndim != 5) || y.ndim != x.ndim || grid.ndim != x.ndim)
    return internal(what, "operands of the wrong rank");
  if (call->n_attrs < 3) return internal(what, "missing attributes");
  g->three = x.ndim == 5;
  g->N = x.sizes[0], g->C = x.sizes[1];
  g->in[0] = g->three ? x.sizes[2] : 1, g->in[1] = x.sizes[x.ndim - 2], g->in[2] = x.sizes[x.ndim - 1];
  g->out[0] = g->three ? y.sizes[2] : 1, g->out[1] = y.sizes[y.ndim - 2], g->out[2] = y.sizes[y.ndim - 1];
  g->mode = static_cast<int>(call->attrs[0].i);
  g->padding = static_cast<int>(call->attrs[1].i);
  g->align = call->attrs[2].i != 0;
  if (g->mode < 0 || g->mode > 2 || (g->three && g->mode == kGridBicubic)) return internal(what, "unknown mode");
  return nullptr;
}

template <class F>
glia_error* dispatch_real(glia_dtype t, const char* what, F&& f) {
  if (t == GLIA_FLOAT32) return f(float{});
  if (t == GLIA_FLOAT64) return f(double{});
  return dtype_error(what, t);
}

glia_error* k_grid_sampler(const glia_kernel_call* call) {
  const char* what = "grid_sampler";
  const glia_kernel_tensor &x = call->inputs[0], &grid = call->inputs[1], &y = call->outputs[0];
  GridGeom g;
  if (glia_error* e = geom_of(call, x, y, grid, what, &g)) return e;
  if (x.dtype != grid.dtype || x.dtype != y.dtype) return internal(what, "operands of different dtypes");
  const int64_t total = view_numel(y);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  glia_error* e = dispatch_real(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    grid_sampler_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, g, static_cast<const T*>(x.data), static_cast<const T*>(grid.data), static_cast<T*>(y.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_grid_sampler_backward(const glia_kernel_call* call) {
  const char* what = "grid_sampler_backward";
  const glia_kernel_tensor &gy = call->inputs[0], &x = call->inputs[1], &grid = call->inputs[2], &gi = call->outputs[0],
                           &gg = call->outputs[1];
  GridGeom g;
  if (glia_error* e = geom_of(call, x, gy, grid, what, &g)) return e;
  if (x.dtype != grid.dtype || x.dtype != gy.dtype || x.dtype != gi.dtype || x.dtype != gg.dtype)
    return internal(what, "operands of different dtypes");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gi.device_index, &s)) return e;
  const int64_t planes = g.N * g.C, points = g.N * g.out[0] * g.out[1] * g.out[2];
  const int64_t vol = g.in[0] * g.in[1] * g.in[2];
  glia_error* e = dispatch_real(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if (points > 0)
      grid_grad_kernel<T><<<grid_for(points), kThreads, 0, s>>>(
          points, g, static_cast<const T*>(gy.data), static_cast<const T*>(x.data), static_cast<const T*>(grid.data),
          static_cast<T*>(gg.data));
    if (planes > 0 && vol > 0)
      input_grad_kernel<T><<<grid_for(planes), kThreads, 0, s>>>(
          planes, g, static_cast<const T*>(gy.data), static_cast<const T*>(x.data), static_cast<const T*>(grid.data),
          static_cast<T*>(gi.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

}  // namespace

glia_kernel_fn grid_kernel(Kid id) {
  switch (id) {
    case Kid::grid_sampler:
      return &k_grid_sampler;
    case Kid::grid_sampler_backward:
      return &k_grid_sampler_backward;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
