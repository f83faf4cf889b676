// 2-D pooling on the GPU (kernels.def's pooling block: x [N, C, H, W] contiguous, y [N, C, Ho, Wo]; float32,
// float64, bfloat16 computing in float, avg_pool2d's forward also int64; attributes kernel, stride, padding
// (and dilation for max) as .ints of 2; the output size from the shapes). The CPU kernels' formulas
// (src/ops/cpu/pool.cpp), with the index and divisor math of core/pool_math.h, which both compile:
//   - forwards: one thread per output, the window scanned in the CPU's order (max: torch's rule, a NaN wins,
//     else the first maximum; avg: the sum in the accumulation type divided by the window's divisor);
//   - backwards: gathers, no atomics. avg_pool2d's and adaptive_avg_pool2d's: one thread per input element,
//     adding the outputs whose windows hold it (core/pool_math.h's inverse ranges) in increasing order, rounding
//     to the element type after each addition as the CPU's scatter does, so the result is the CPU's bit for
//     bit. max_pool2d_backward has no geometry (it also serves max_pool3d, adaptive_max_pool2d and the
//     fractional pools, whose indices point anywhere in the plane): one warp per plane zero-fills it and adds
//     the gradients in output order, 32 outputs a step, the lanes of a step that share an index summed by the
//     lowest of them in lane order: the CPU's order and bits. Only N * C warps: a sort/segment formulation for
//     a few large planes is future work (docs/cuda.md).
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "common.h"
#include "core/pool_math.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

struct Geom {
  int64_t N, C, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw;
};

// The geometry from x [N, C, H, W], y [N, C, Ho, Wo] and the attributes kernel, stride, padding and, with
// `dilated`, dilation (pool.cpp's pool_geom).
glia_error* geom_of(const glia_kernel_call* call, const glia_kernel_tensor& x, const glia_kernel_tensor& y,
                    bool dilated, const char* what, Geom* g) {
  if (x.ndim != 4 || y.ndim != 4)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": expected 4-D operands");
  const int n_attrs = dilated ? 4 : 3;
  if (call->n_attrs < n_attrs)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": missing attributes");
  for (int a = 0; a < n_attrs; ++a)
    if (call->attrs[a].n_ints != 2 || !call->attrs[a].ints)
      return make_error(GLIA_ERR_INTERNAL,
                        std::string("cuda: ") + what + ": attribute " + std::to_string(a) + " is not a list of 2");
  g->N = x.sizes[0], g->C = x.sizes[1], g->H = x.sizes[2], g->W = x.sizes[3], g->Ho = y.sizes[2], g->Wo = y.sizes[3];
  g->kh = call->attrs[0].ints[0], g->kw = call->attrs[0].ints[1];
  g->sh = call->attrs[1].ints[0], g->sw = call->attrs[1].ints[1];
  g->ph = call->attrs[2].ints[0], g->pw = call->attrs[2].ints[1];
  g->dh = dilated ? call->attrs[3].ints[0] : 1, g->dw = dilated ? call->attrs[3].ints[1] : 1;
  return nullptr;
}

// ---- max_pool2d

template <class T>
__global__ void __launch_bounds__(kThreads)
    max_pool2d_kernel(int64_t total, Geom g, const T* __restrict x, T* __restrict y, int64_t* __restrict idx) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    const int64_t ow = o % g.Wo, oh = (o / g.Wo) % g.Ho, p = o / (g.Wo * g.Ho);
    const T* src = x + p * g.H * g.W;
    int64_t h0 = oh * g.sh - g.ph;
    const int64_t h1 = h0 + (g.kh - 1) * g.dh + 1 < g.H ? h0 + (g.kh - 1) * g.dh + 1 : g.H;
    h0 = pool::first_tap_inside(h0, g.dh);
    int64_t w0 = ow * g.sw - g.pw;
    const int64_t w1 = w0 + (g.kw - 1) * g.dw + 1 < g.W ? w0 + (g.kw - 1) * g.dw + 1 : g.W;
    w0 = pool::first_tap_inside(w0, g.dw);
    A best = -std::numeric_limits<A>::infinity();
    int64_t bi = h0 * g.W + w0;
    for (int64_t h = h0; h < h1; h += g.dh)
      for (int64_t w = w0; w < w1; w += g.dw) {
        const A v = static_cast<A>(load_acc(src[h * g.W + w]));
        if (pool::max_pool_takes(v, best)) {
          best = v;
          bi = h * g.W + w;
        }
      }
    y[o] = store_as<T>(best);
    idx[o] = bi;
  }
}

// gx's plane p: zeros, then gx[idx[o]] += gy[o] for the plane's outputs in increasing o, rounding after each
// addition (the CPU's loop, so the CPU's bits). One warp per plane, 32 outputs a step: the lanes whose outputs
// point to one input element find each other (__match_any_sync, sm_70 and newer), and the lowest of them adds
// their gradients in lane order; steps are ordered by __syncwarp. No atomics.
constexpr int kWarp = 32;
template <class T>
__global__ void __launch_bounds__(kThreads)
    max_pool2d_backward_kernel(int64_t planes, int64_t HW, int64_t HoWo, const T* __restrict gy,
                               const int64_t* __restrict idx, T* __restrict gx) {
  using A = acc_t<T>;
  __shared__ A grads[kThreads];
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  A* wg = grads + (static_cast<int>(threadIdx.x) - lane);  // this warp's 32 gradients
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kThreads / kWarp);
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * (kThreads / kWarp) + threadIdx.x / kWarp; p < planes;
       p += warps) {
    T* dst = gx + p * HW;
    for (int64_t i = lane; i < HW; i += kWarp) dst[i] = store_as<T>(A(0));
    __syncwarp();
    const T* g = gy + p * HoWo;
    const int64_t* ip = idx + p * HoWo;
    for (int64_t base = 0; base < HoWo; base += kWarp) {
      const int64_t o = base + lane;
      // An index outside the plane (never from the pools) is dropped, as are the lanes past the end: each
      // gets a key of its own.
      int64_t i = o < HoWo ? ip[o] : -1;
      if (i < 0 || i >= HW) i = -1 - lane;
      wg[lane] = o < HoWo ? static_cast<A>(load_acc(g[o])) : A(0);
      const unsigned same = __match_any_sync(0xffffffffu, static_cast<unsigned long long>(i));
      __syncwarp();
      if (i >= 0 && lane == __ffs(static_cast<int>(same)) - 1) {
        T acc = dst[i];
        for (unsigned m = same; m; m &= m - 1)
          acc = store_as<T>(static_cast<A>(load_acc(acc)) + wg[__ffs(static_cast<int>(m)) - 1]);
        dst[i] = acc;
      }
      __syncwarp();
    }
  }
}

// ---- avg_pool2d

template <class T>
__global__ void __launch_bounds__(kThreads)
    avg_pool2d_kernel(int64_t total, Geom g, bool count_include_pad, int64_t divisor_override, const T* __restrict x,
                      T* __restrict y) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    const int64_t ow = o % g.Wo, oh = (o / g.Wo) % g.Ho, p = o / (g.Wo * g.Ho);
    const pool::AvgWindow wd =
        pool::avg_window(oh, ow, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, count_include_pad, divisor_override);
    if (wd.h0 >= wd.h1 || wd.w0 >= wd.w1) {
      y[o] = store_as<T>(A(0));
      continue;
    }
    const T* src = x + p * g.H * g.W;
    A s = 0;
    for (int64_t h = wd.h0; h < wd.h1; ++h)
      for (int64_t w = wd.w0; w < wd.w1; ++w) s += static_cast<A>(load_acc(src[h * g.W + w]));
    y[o] = store_as<T>(s / static_cast<A>(wd.div));
  }
}

// gx[h, w] = the sum, in output order, of gy[oh, ow] / divisor over the windows that hold (h, w).
template <class T>
__global__ void __launch_bounds__(kThreads)
    avg_pool2d_backward_kernel(int64_t total, Geom g, bool count_include_pad, int64_t divisor_override,
                               const T* __restrict gy, T* __restrict gx) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    const int64_t w = i % g.W, h = (i / g.W) % g.H, p = i / (g.W * g.H);
    int64_t oh0, oh1, ow0, ow1;
    pool::avg_outputs_of(h, g.kh, g.sh, g.ph, g.Ho, &oh0, &oh1);
    pool::avg_outputs_of(w, g.kw, g.sw, g.pw, g.Wo, &ow0, &ow1);
    const T* src = gy + p * g.Ho * g.Wo;
    T acc = store_as<T>(A(0));
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        const pool::AvgWindow wd =
            pool::avg_window(oh, ow, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, count_include_pad, divisor_override);
        const A v = static_cast<A>(load_acc(src[oh * g.Wo + ow])) / static_cast<A>(wd.div);
        acc = store_as<T>(static_cast<A>(load_acc(acc)) + v);
      }
    gx[i] = acc;
  }
}

// ---- adaptive_avg_pool2d

template <class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg_pool2d_kernel(int64_t total, int64_t H, int64_t W, int64_t OH, int64_t OW, const T* __restrict x,
                               T* __restrict y) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    const int64_t ow = o % OW, oh = (o / OW) % OH, p = o / (OW * OH);
    const int64_t h0 = pool::start_index(oh, OH, H), h1 = pool::end_index(oh, OH, H);
    const int64_t w0 = pool::start_index(ow, OW, W), w1 = pool::end_index(ow, OW, W);
    const T* src = x + p * H * W;
    A s = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) s += static_cast<A>(load_acc(src[h * W + w]));
    y[o] = store_as<T>(s / static_cast<A>((h1 - h0) * (w1 - w0)));
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg_pool2d_backward_kernel(int64_t total, int64_t H, int64_t W, int64_t OH, int64_t OW,
                                        const T* __restrict gy, T* __restrict gx) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    const int64_t w = i % W, h = (i / W) % H, p = i / (W * H);
    int64_t oh0, oh1, ow0, ow1;
    pool::adaptive_outputs_of(h, H, OH, &oh0, &oh1);
    pool::adaptive_outputs_of(w, W, OW, &ow0, &ow1);
    const T* src = gy + p * OH * OW;
    T acc = store_as<T>(A(0));
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      const int64_t kh = pool::end_index(oh, OH, H) - pool::start_index(oh, OH, H);
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        const int64_t kw = pool::end_index(ow, OW, W) - pool::start_index(ow, OW, W);
        const A v = static_cast<A>(load_acc(src[oh * OW + ow])) / static_cast<A>(kh * kw);
        acc = store_as<T>(static_cast<A>(load_acc(acc)) + v);
      }
    }
    gx[i] = acc;
  }
}

// ---- host side

// The pooling dtypes (pool.cpp's dispatch_pool): float32, float64, bfloat16, and int64 where `int64` says.
template <class F>
glia_error* dispatch_pool(glia_dtype t, const char* what, bool int64, F&& f) {
  switch (t) {
    case GLIA_FLOAT32:
      return f(float{});
    case GLIA_FLOAT64:
      return f(double{});
    case GLIA_BFLOAT16:
      return f(bf16{});
    case GLIA_INT64:
      if (int64) return f(int64_t{});
      break;
    default:
      break;
  }
  return dtype_error(what, t);
}

glia_error* same_dtype(const glia_kernel_tensor& a, const glia_kernel_tensor& b, const char* what) {
  if (a.dtype == b.dtype) return nullptr;
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": operands of different dtypes");
}

glia_error* k_max_pool2d(const glia_kernel_call* call) {
  const char* what = "max_pool2d";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0], &idx = call->outputs[1];
  Geom g;
  if (glia_error* e = geom_of(call, x, y, true, what, &g)) return e;
  if (glia_error* e = same_dtype(x, y, what)) return e;
  if (idx.dtype != GLIA_INT64) return make_error(GLIA_ERR_INTERNAL, "cuda: max_pool2d: indices are not int64");
  const int64_t total = view_numel(y);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  glia_error* e = dispatch_pool(x.dtype, what, false, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    max_pool2d_kernel<T><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const T*>(x.data),
                                                              static_cast<T*>(y.data), static_cast<int64_t*>(idx.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_max_pool2d_backward(const glia_kernel_call* call) {
  const char* what = "max_pool2d_backward";
  const glia_kernel_tensor &gy = call->inputs[0], &idx = call->inputs[1], &gx = call->outputs[0];
  if (gy.ndim != 4 || gx.ndim != 4 || idx.dtype != GLIA_INT64)
    return make_error(GLIA_ERR_INTERNAL, "cuda: max_pool2d_backward: expected 4-D operands and int64 indices");
  if (glia_error* e = same_dtype(gy, gx, what)) return e;
  const int64_t planes = gx.sizes[0] * gx.sizes[1], HW = gx.sizes[2] * gx.sizes[3], HoWo = gy.sizes[2] * gy.sizes[3];
  if (planes * HW == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gx.device_index, &s)) return e;
  glia_error* e = dispatch_pool(gx.dtype, what, false, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const int64_t blocks = (planes + kThreads / kWarp - 1) / (kThreads / kWarp);
    max_pool2d_backward_kernel<T><<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kThreads, 0, s>>>(
        planes, HW, HoWo, static_cast<const T*>(gy.data), static_cast<const int64_t*>(idx.data),
        static_cast<T*>(gx.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_avg_pool2d(const glia_kernel_call* call) {
  const char* what = "avg_pool2d";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0];
  Geom g;
  if (glia_error* e = geom_of(call, x, y, false, what, &g)) return e;
  if (glia_error* e = same_dtype(x, y, what)) return e;
  if (call->n_attrs < 5) return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": missing attributes");
  const bool cip = call->attrs[3].i != 0;
  const int64_t dov = call->attrs[4].i;
  const int64_t total = view_numel(y);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  glia_error* e = dispatch_pool(x.dtype, what, true, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    avg_pool2d_kernel<T><<<grid_for(total), kThreads, 0, s>>>(total, g, cip, dov, static_cast<const T*>(x.data),
                                                              static_cast<T*>(y.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_avg_pool2d_backward(const glia_kernel_call* call) {
  const char* what = "avg_pool2d_backward";
  const glia_kernel_tensor &gy = call->inputs[0], &gx = call->outputs[0];
  Geom g;
  if (glia_error* e = geom_of(call, gx, gy, false, what, &g)) return e;
  if (glia_error* e = same_dtype(gy, gx, what)) return e;
  if (call->n_attrs < 5) return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": missing attributes");
  const bool cip = call->attrs[3].i != 0;
  const int64_t dov = call->attrs[4].i;
  const int64_t total = view_numel(gx);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gx.device_index, &s)) return e;
  glia_error* e = dispatch_pool(gx.dtype, what, false, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    avg_pool2d_backward_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, g, cip, dov, static_cast<const T*>(gy.data), static_cast<T*>(gx.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_adaptive_avg_pool2d(const glia_kernel_call* call) {
  const char* what = "adaptive_avg_pool2d";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0];
  if (x.ndim != 4 || y.ndim != 4)
    return make_error(GLIA_ERR_INTERNAL, "cuda: adaptive_avg_pool2d: expected 4-D operands");
  if (glia_error* e = same_dtype(x, y, what)) return e;
  const int64_t total = view_numel(y);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  glia_error* e = dispatch_pool(x.dtype, what, false, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    adaptive_avg_pool2d_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, x.sizes[2], x.sizes[3], y.sizes[2], y.sizes[3], static_cast<const T*>(x.data), static_cast<T*>(y.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_adaptive_avg_pool2d_backward(const glia_kernel_call* call) {
  const char* what = "adaptive_avg_pool2d_backward";
  const glia_kernel_tensor &gy = call->inputs[0], &gx = call->outputs[0];
  if (gy.ndim != 4 || gx.ndim != 4)
    return make_error(GLIA_ERR_INTERNAL, "cuda: adaptive_avg_pool2d_backward: expected 4-D operands");
  if (glia_error* e = same_dtype(gy, gx, what)) return e;
  const int64_t total = view_numel(gx);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gx.device_index, &s)) return e;
  glia_error* e = dispatch_pool(gx.dtype, what, false, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    adaptive_avg_pool2d_backward_kernel<T>
        <<<grid_for(total), kThreads, 0, s>>>(total, gx.sizes[2], gx.sizes[3], gy.sizes[2], gy.sizes[3],
                                              static_cast<const T*>(gy.data), static_cast<T*>(gx.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

}  // namespace

glia_kernel_fn pool_kernel(Kid id) {
  switch (id) {
    case Kid::max_pool2d:
      return &k_max_pool2d;
    case Kid::max_pool2d_backward:
      return &k_max_pool2d_backward;
    case Kid::avg_pool2d:
      return &k_avg_pool2d;
    case Kid::avg_pool2d_backward:
      return &k_avg_pool2d_backward;
    case Kid::adaptive_avg_pool2d:
      return &k_adaptive_avg_pool2d;
    case Kid::adaptive_avg_pool2d_backward:
      return &k_adaptive_avg_pool2d_backward;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
