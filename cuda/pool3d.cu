// 3-D, adaptive max, fractional pooling and max_unpool on the GPU (kernels.def's 3-D pooling block and the
// fractional pools): the CPU kernels' formulas (src/ops/cpu/pool3d.cpp, grid.cpp) with the index math of
// core/pool_math.h and core/grid_math.h, which both compile.
//   - forwards: one thread per output, the window scanned in the CPU's order (max: torch's rule, a NaN wins, else
//     the first maximum; avg: the CPU's sum divided by the window's divisor);
//   - backwards (avg_pool3d's, adaptive_avg_pool3d's): gathers, no atomics: one thread per input element adds
//     the outputs whose windows hold it (pool_math.h's inverse ranges) in increasing output order, the order of
//     the CPU's scatter, so the CPU's bits. The max pools' backward is max_pool2d_backward (pool.cu);
//   - max_unpool: a scatter whose duplicates (overlapping max_pool windows give them) must leave the last
//     write, as the CPU's loop does: one warp per plane, 32 inputs a step, the highest of the lanes that share an
//     index writing, steps ordered by __syncwarp. Deterministic, no atomics on the values.
// Data-dependent errors (max_unpool's index range, the fractional windows) come from a flag in device memory that
// the call reads back once: the CPU's messages.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "common.h"
#include "core/grid_math.h"
#include "core/pool_math.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

struct Geom3 {
  int64_t P, in[3], out[3], k[3], s[3], p[3], d[3];
};

glia_error* internal(const char* what, const char* msg) {
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + msg);
}

// From x [N, C, T, H, W], y [N, C, To, Ho, Wo] and the attributes kernel, stride, padding and, with `dilated`,
// dilation (pool3d.cpp's geom3).
glia_error* geom3_of(const glia_kernel_call* call, const glia_kernel_tensor& x, const glia_kernel_tensor& y,
                     bool dilated, const char* what, Geom3* g) {
  if (x.ndim != 5 || y.ndim != 5) return internal(what, "expected 5-D operands");
  const int n_attrs = dilated ? 4 : 3;
  if (call->n_attrs < n_attrs) return internal(what, "missing attributes");
  for (int a = 0; a < n_attrs; ++a)
    if (call->attrs[a].n_ints != 3 || !call->attrs[a].ints) return internal(what, "an attribute is not a list of 3");
  g->P = x.sizes[0] * x.sizes[1];
  for (int a = 0; a < 3; ++a) {
    g->in[a] = x.sizes[2 + a], g->out[a] = y.sizes[2 + a];
    g->k[a] = call->attrs[0].ints[a], g->s[a] = call->attrs[1].ints[a], g->p[a] = call->attrs[2].ints[a];
    g->d[a] = dilated ? call->attrs[3].ints[a] : 1;
  }
  return nullptr;
}

// Output o of [P, out0, out1, out2] as its plane and coordinates.
__device__ __forceinline__ int64_t split3(int64_t o, const int64_t out[3], int64_t c[3]) {
  c[2] = o % out[2];
  c[1] = (o / out[2]) % out[1];
  c[0] = (o / (out[2] * out[1])) % out[0];
  return o / (out[2] * out[1] * out[0]);
}

// ---- max_pool3d

template <class T>
__global__ void __launch_bounds__(kThreads)
    max_pool3d_kernel(int64_t total, Geom3 g, const T* __restrict x, T* __restrict y, int64_t* __restrict idx) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t HW = g.in[1] * g.in[2], vol = g.in[0] * HW;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    int64_t c[3], lo[3], hi[3];
    const int64_t p = split3(o, g.out, c);
    for (int a = 0; a < 3; ++a) {
      const int64_t start = c[a] * g.s[a] - g.p[a], end = start + (g.k[a] - 1) * g.d[a] + 1;
      hi[a] = end < g.in[a] ? end : g.in[a];
      lo[a] = pool::first_tap_inside(start, g.d[a]);
    }
    const T* src = x + p * vol;
    A best = -std::numeric_limits<A>::infinity();
    int64_t bi = lo[0] * HW + lo[1] * g.in[2] + lo[2];
    for (int64_t t = lo[0]; t < hi[0]; t += g.d[0])
      for (int64_t h = lo[1]; h < hi[1]; h += g.d[1])
        for (int64_t w = lo[2]; w < hi[2]; w += g.d[2]) {
          const int64_t at = t * HW + h * g.in[2] + w;
          const A v = static_cast<A>(load_acc(src[at]));
          if (pool::max_pool_takes(v, best)) {
            best = v;
            bi = at;
          }
        }
    y[o] = store_as<T>(best);
    idx[o] = bi;
  }
}

// ---- avg_pool3d

// Output c's window clipped to the input and its divisor (pool_math.h's, which pool3d.cpp's CPU kernels use).
using Window3 = pool::AvgWindow3;
__device__ __forceinline__ Window3 avg_window3(const Geom3& g, const int64_t c[3], bool cip, int64_t dov) {
  return pool::avg_window3(c, g.in, g.k, g.s, g.p, cip, dov);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    avg_pool3d_kernel(int64_t total, Geom3 g, bool cip, int64_t dov, const T* __restrict x, T* __restrict y) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t HW = g.in[1] * g.in[2], vol = g.in[0] * HW;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    int64_t c[3];
    const int64_t p = split3(o, g.out, c);
    const Window3 wd = avg_window3(g, c, cip, dov);
    if (wd.lo[0] >= wd.hi[0] || wd.lo[1] >= wd.hi[1] || wd.lo[2] >= wd.hi[2]) {
      y[o] = store_as<T>(A(0));
      continue;
    }
    const T* src = x + p * vol;
    A s = 0;
    for (int64_t t = wd.lo[0]; t < wd.hi[0]; ++t)
      for (int64_t h = wd.lo[1]; h < wd.hi[1]; ++h)
        for (int64_t w = wd.lo[2]; w < wd.hi[2]; ++w) s += static_cast<A>(load_acc(src[t * HW + h * g.in[2] + w]));
    y[o] = store_as<T>(s / static_cast<A>(wd.div));
  }
}

// gx[t, h, w] = the sum, in output order, of gy[o] / divisor(o) over the windows that hold (t, h, w).
template <class T>
__global__ void __launch_bounds__(kThreads) avg_pool3d_backward_kernel(int64_t total, Geom3 g, bool cip, int64_t dov,
                                                                       const T* __restrict gy, T* __restrict gx) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t ovol = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    int64_t c[3], lo[3], hi[3];
    const int64_t p = split3(i, g.in, c);
    for (int a = 0; a < 3; ++a) pool::avg_outputs_of(c[a], g.k[a], g.s[a], g.p[a], g.out[a], &lo[a], &hi[a]);
    const T* src = gy + p * ovol;
    T acc = T(0);
    int64_t oc[3];
    for (oc[0] = lo[0]; oc[0] < hi[0]; ++oc[0])
      for (oc[1] = lo[1]; oc[1] < hi[1]; ++oc[1])
        for (oc[2] = lo[2]; oc[2] < hi[2]; ++oc[2]) {
          const Window3 wd = avg_window3(g, oc, cip, dov);
          acc += static_cast<T>(src[(oc[0] * g.out[1] + oc[1]) * g.out[2] + oc[2]] / static_cast<T>(wd.div));
        }
    gx[i] = acc;
  }
}

// ---- adaptive pools on [P, in0, in1, in2] (in0 = out0 = 1 for the 2-D pools)

struct Adaptive {
  int64_t in[3], out[3];
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg3d_kernel(int64_t total, Adaptive g, const T* __restrict x, T* __restrict y) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vol = g.in[0] * g.in[1] * g.in[2];
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    int64_t c[3], lo[3], hi[3];
    const int64_t p = split3(o, g.out, c);
    for (int a = 0; a < 3; ++a)
      lo[a] = pool::start_index(c[a], g.out[a], g.in[a]), hi[a] = pool::end_index(c[a], g.out[a], g.in[a]);
    const T* src = x + p * vol;
    T s = 0;  // the CPU sums in T
    for (int64_t t = lo[0]; t < hi[0]; ++t)
      for (int64_t h = lo[1]; h < hi[1]; ++h)
        for (int64_t w = lo[2]; w < hi[2]; ++w) s += src[(t * g.in[1] + h) * g.in[2] + w];
    y[o] = s / static_cast<T>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg3d_backward_kernel(int64_t total, Adaptive g, const T* __restrict gy, T* __restrict gx) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t ovol = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    int64_t c[3], lo[3], hi[3];
    const int64_t p = split3(i, g.in, c);
    for (int a = 0; a < 3; ++a) pool::adaptive_outputs_of(c[a], g.in[a], g.out[a], &lo[a], &hi[a]);
    const T* src = gy + p * ovol;
    T acc = T(0);
    for (int64_t ot = lo[0]; ot < hi[0]; ++ot) {
      const int64_t kt = pool::end_index(ot, g.out[0], g.in[0]) - pool::start_index(ot, g.out[0], g.in[0]);
      for (int64_t oh = lo[1]; oh < hi[1]; ++oh) {
        const int64_t kh = pool::end_index(oh, g.out[1], g.in[1]) - pool::start_index(oh, g.out[1], g.in[1]);
        for (int64_t ow = lo[2]; ow < hi[2]; ++ow) {
          const int64_t kw = pool::end_index(ow, g.out[2], g.in[2]) - pool::start_index(ow, g.out[2], g.in[2]);
          acc += src[(ot * g.out[1] + oh) * g.out[2] + ow] / static_cast<T>(kt * kh * kw);
        }
      }
    }
    gx[i] = acc;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_max_kernel(int64_t total, Adaptive g, const T* __restrict x, T* __restrict y, int64_t* __restrict idx) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vol = g.in[0] * g.in[1] * g.in[2];
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    int64_t c[3], lo[3], hi[3];
    const int64_t p = split3(o, g.out, c);
    for (int a = 0; a < 3; ++a)
      lo[a] = pool::start_index(c[a], g.out[a], g.in[a]), hi[a] = pool::end_index(c[a], g.out[a], g.in[a]);
    const T* src = x + p * vol;
    A best = -std::numeric_limits<A>::infinity();
    int64_t bi = (lo[0] * g.in[1] + lo[1]) * g.in[2] + lo[2];
    for (int64_t t = lo[0]; t < hi[0]; ++t)
      for (int64_t h = lo[1]; h < hi[1]; ++h)
        for (int64_t w = lo[2]; w < hi[2]; ++w) {
          const int64_t at = (t * g.in[1] + h) * g.in[2] + w;
          const A v = static_cast<A>(load_acc(src[at]));
          if (pool::max_pool_takes(v, best)) {
            best = v;
            bi = at;
          }
        }
    y[o] = store_as<T>(best);
    idx[o] = bi;
  }
}

// ---- fractional max pooling on [P, in0, in1, in2] (in0 = out0 = pool0 = 1 for 2-D); samples [P, k]: 2-D (w, h),
// 3-D (t, h, w). bad[0] is set when a window of the plane lies outside the input (the CPU's check).
template <class T>
__global__ void __launch_bounds__(kThreads)
    fractional_kernel(int64_t total, Adaptive g, int k, int64_t pool0, int64_t pool1, int64_t pool2,
                      const T* __restrict x, const T* __restrict samples, T* __restrict y, int64_t* __restrict idx,
                      unsigned long long* bad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vol = g.in[0] * g.in[1] * g.in[2];
  const int64_t pool[3] = {pool0, pool1, pool2};
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    int64_t c[3], lo[3];
    const int64_t p = split3(o, g.out, c);
    const T* s = samples + p * k;
    const T smp[3] = {k == 3 ? s[0] : T(0), s[1], k == 3 ? s[2] : s[0]};
    bool ok = true;
    for (int a = 0; a < 3; ++a) {
      lo[a] = (a == 0 && k == 2) ? 0 : math::fractional_start<T>(smp[a], g.in[a], g.out[a], pool[a], c[a]);
      ok = ok && lo[a] >= 0 && lo[a] + pool[a] <= g.in[a];
    }
    if (!ok) {
      *bad = 1;
      y[o] = T(0);
      idx[o] = 0;
      continue;
    }
    const T* src = x + p * vol;
    T best = -std::numeric_limits<T>::infinity();
    int64_t bi = (lo[0] * g.in[1] + lo[1]) * g.in[2] + lo[2];
    for (int64_t t = lo[0]; t < lo[0] + pool[0]; ++t)
      for (int64_t h = lo[1]; h < lo[1] + pool[1]; ++h)
        for (int64_t w = lo[2]; w < lo[2] + pool[2]; ++w) {
          const int64_t at = (t * g.in[1] + h) * g.in[2] + w;
          const T v = src[at];
          if (pool::max_pool_takes(v, best)) {
            best = v;
            bi = at;
          }
        }
    y[o] = best;
    idx[o] = bi;
  }
}

// ---- max_unpool: out [P, m] zeroed before; one warp per plane.
constexpr int kWarp = 32;
template <class T>
__global__ void __launch_bounds__(kThreads)
    max_unpool_kernel(int64_t planes, int64_t n, int64_t m, const T* __restrict x, const int64_t* __restrict ip,
                      T* __restrict out, unsigned long long* bad) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kThreads / kWarp);
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * (kThreads / kWarp) + threadIdx.x / kWarp; p < planes;
       p += warps) {
    for (int64_t base = 0; base < n; base += kWarp) {
      const int64_t i = base + lane;
      int64_t at = i < n ? ip[p * n + i] : -1;
      if (i < n && (at < 0 || at >= m)) {
        bad[1] = static_cast<unsigned long long>(at);
        bad[0] = 1;
      }
      if (at < 0 || at >= m) at = -1 - lane;  // dropped; a key of its own
      const unsigned same = __match_any_sync(0xffffffffu, static_cast<unsigned long long>(at));
      // The last of the lanes that write one element writes it: the CPU's loop leaves the last write.
      if (at >= 0 && lane == 31 - __clz(static_cast<int>(same))) out[p * m + at] = x[p * n + i];
      __syncwarp();
    }
  }
}

// ---- host side

// float32 and float64, plus bfloat16 or int64 where asked (the CPU kernels' dtypes).
template <bool bf16_too, bool int64_too, class F>
glia_error* dispatch3(glia_dtype t, const char* what, F&& f) {
  switch (t) {
    case GLIA_FLOAT32:
      return f(float{});
    case GLIA_FLOAT64:
      return f(double{});
    case GLIA_BFLOAT16:
      if constexpr (bf16_too) return f(bf16{});
      break;
    case GLIA_INT64:
      if constexpr (int64_too) return f(int64_t{});
      break;
    default:
      break;
  }
  return dtype_error(what, t);
}

glia_error* same_dtype(const glia_kernel_tensor& a, const glia_kernel_tensor& b, const char* what) {
  return a.dtype == b.dtype ? nullptr : internal(what, "operands of different dtypes");
}

// Device scratch for a check flag (two 64-bit words: set, and a value for the message), zeroed on the stream.
struct Flag {
  int32_t dev;
  unsigned long long* p = nullptr;
  explicit Flag(int32_t d) : dev(d) {}
  Flag(const Flag&) = delete;
  Flag& operator=(const Flag&) = delete;
  ~Flag() {
    if (p) device_free(dev, p);
  }
  glia_error* init(cudaStream_t s, const char* what) {
    void* v = nullptr;
    if (glia_error* e = device_alloc(dev, 2 * sizeof(unsigned long long), &v)) return e;
    p = static_cast<unsigned long long*>(v);
    const cudaError_t st = cudaMemsetAsync(p, 0, 2 * sizeof(unsigned long long), s);
    return st == cudaSuccess ? nullptr : cuda_error(st, "cudaMemsetAsync", what);
  }
  // The flag's words after the stream's work (one synchronisation).
  glia_error* read(cudaStream_t s, const char* what, unsigned long long out[2]) const {
    cudaError_t st = cudaMemcpyAsync(out, p, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s);
    if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", std::string(what) + ": reading its check back");
    st = cudaStreamSynchronize(s);
    return st == cudaSuccess ? nullptr : cuda_error(st, "cudaStreamSynchronize", what);
  }
};

glia_error* k_max_pool3d(const glia_kernel_call* call) {
  const char* what = "max_pool3d";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0], &idx = call->outputs[1];
  Geom3 g;
  if (glia_error* e = geom3_of(call, x, y, true, what, &g)) return e;
  if (glia_error* e = same_dtype(x, y, what)) return e;
  if (idx.dtype != GLIA_INT64) return internal(what, "indices are not int64");
  const int64_t total = view_numel(y);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  glia_error* e = dispatch3<false, false>(x.dtype, "max_pool3d_with_indices_cpu", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    max_pool3d_kernel<T><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const T*>(x.data),
                                                              static_cast<T*>(y.data), static_cast<int64_t*>(idx.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* avg3d(const glia_kernel_call* call, bool backward) {
  const char* what = backward ? "avg_pool3d_backward" : "avg_pool3d";
  const glia_kernel_tensor &a = call->inputs[0], &b = call->outputs[0];
  const glia_kernel_tensor &x = backward ? b : a, &y = backward ? a : b;
  Geom3 g;
  if (glia_error* e = geom3_of(call, x, y, false, what, &g)) return e;
  if (glia_error* e = same_dtype(x, y, what)) return e;
  if (call->n_attrs < 5) return internal(what, "missing attributes");
  const bool cip = call->attrs[3].i != 0;
  const int64_t dov = call->attrs[4].i;
  const int64_t total = view_numel(b);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, b.device_index, &s)) return e;
  const char* cpu_name = backward ? "avg_pool3d_backward_out_frame" : "avg_pool3d_out_frame";
  auto body = [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, int64_t>) {
      avg_pool3d_kernel<T><<<grid_for(total), kThreads, 0, s>>>(total, g, cip, dov, static_cast<const T*>(a.data),
                                                                static_cast<T*>(b.data));
    } else if (backward) {
      avg_pool3d_backward_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
          total, g, cip, dov, static_cast<const T*>(a.data), static_cast<T*>(b.data));
    } else {
      avg_pool3d_kernel<T><<<grid_for(total), kThreads, 0, s>>>(total, g, cip, dov, static_cast<const T*>(a.data),
                                                                static_cast<T*>(b.data));
    }
    return nullptr;
  };
  glia_error* e =
      backward ? dispatch3<false, false>(a.dtype, cpu_name, body) : dispatch3<false, true>(a.dtype, cpu_name, body);
  return e ? e : launched(what);
}

glia_error* k_avg_pool3d(const glia_kernel_call* call) { return avg3d(call, false); }
glia_error* k_avg_pool3d_backward(const glia_kernel_call* call) { return avg3d(call, true); }

// [N, C, spatial...] with `dims` spatial dims as Adaptive (padded to 3 with leading 1s).
glia_error* adaptive_of(const glia_kernel_tensor& x, const glia_kernel_tensor& y, int dims, const char* what,
                        Adaptive* g) {
  if (x.ndim != 2 + dims || y.ndim != 2 + dims) return internal(what, "operands of the wrong rank");
  for (int a = 0; a < 3; ++a) g->in[a] = g->out[a] = 1;
  for (int a = 0; a < dims; ++a) g->in[3 - dims + a] = x.sizes[2 + a], g->out[3 - dims + a] = y.sizes[2 + a];
  return nullptr;
}

glia_error* adaptive_avg3d(const glia_kernel_call* call, bool backward) {
  const char* what = backward ? "adaptive_avg_pool3d_backward" : "adaptive_avg_pool3d";
  const glia_kernel_tensor &a = call->inputs[0], &b = call->outputs[0];
  Adaptive g;
  if (glia_error* e = adaptive_of(backward ? b : a, backward ? a : b, 3, what, &g)) return e;
  if (glia_error* e = same_dtype(a, b, what)) return e;
  const int64_t total = view_numel(b);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, b.device_index, &s)) return e;
  const char* cpu_name = backward ? "adaptive_avg_pool3d_backward_cpu" : "adaptive_avg_pool3d_cpu";
  glia_error* e = dispatch3<false, false>(a.dtype, cpu_name, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if (backward)
      adaptive_avg3d_backward_kernel<T>
          <<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const T*>(a.data), static_cast<T*>(b.data));
    else
      adaptive_avg3d_kernel<T>
          <<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const T*>(a.data), static_cast<T*>(b.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_adaptive_avg_pool3d(const glia_kernel_call* call) { return adaptive_avg3d(call, false); }
glia_error* k_adaptive_avg_pool3d_backward(const glia_kernel_call* call) { return adaptive_avg3d(call, true); }

glia_error* adaptive_max(const glia_kernel_call* call, int dims) {
  const char* what = dims == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0], &idx = call->outputs[1];
  Adaptive g;
  if (glia_error* e = adaptive_of(x, y, dims, what, &g)) return e;
  if (glia_error* e = same_dtype(x, y, what)) return e;
  if (idx.dtype != GLIA_INT64) return internal(what, "indices are not int64");
  const int64_t total = view_numel(y);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  const char* cpu_name = dims == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d_cpu";
  auto body = [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    adaptive_max_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, g, static_cast<const T*>(x.data), static_cast<T*>(y.data), static_cast<int64_t*>(idx.data));
    return nullptr;
  };
  glia_error* e =
      dims == 2 ? dispatch3<true, false>(x.dtype, cpu_name, body) : dispatch3<false, false>(x.dtype, cpu_name, body);
  return e ? e : launched(what);
}

glia_error* k_adaptive_max_pool2d(const glia_kernel_call* call) { return adaptive_max(call, 2); }
glia_error* k_adaptive_max_pool3d(const glia_kernel_call* call) { return adaptive_max(call, 3); }

glia_error* fractional(const glia_kernel_call* call, int dims) {
  const char* what = dims == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d";
  const glia_kernel_tensor &x = call->inputs[0], &smp = call->inputs[1], &y = call->outputs[0], &idx = call->outputs[1];
  if (x.ndim != dims + 1 && x.ndim != dims + 2) return internal(what, "input of the wrong rank");
  if (y.ndim != x.ndim) return internal(what, "output of the wrong rank");
  if (call->n_attrs < 1 || call->attrs[0].n_ints != dims || !call->attrs[0].ints)
    return internal(what, "kernel_size is missing");
  if (glia_error* e = same_dtype(x, y, what)) return e;
  if (glia_error* e = same_dtype(x, smp, what)) return e;
  if (idx.dtype != GLIA_INT64) return internal(what, "indices are not int64");
  const int b = x.ndim - dims;
  Adaptive g;
  int64_t pool[3] = {1, 1, 1};
  for (int a = 0; a < 3; ++a) g.in[a] = g.out[a] = 1;
  for (int a = 0; a < dims; ++a) {
    g.in[3 - dims + a] = x.sizes[b + a];
    g.out[3 - dims + a] = y.sizes[b + a];
    pool[3 - dims + a] = call->attrs[0].ints[a];
  }
  const int64_t total = view_numel(y);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  Flag bad(y.device_index);
  if (glia_error* e = bad.init(s, what)) return e;
  const char* cpu_name = dims == 2 ? "fractional_max_pool2d_out_frame" : "fractional_max_pool3d_out_frame";
  glia_error* e = dispatch3<false, false>(x.dtype, cpu_name, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    fractional_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, g, dims, pool[0], pool[1], pool[2], static_cast<const T*>(x.data), static_cast<const T*>(smp.data),
        static_cast<T*>(y.data), static_cast<int64_t*>(idx.data), bad.p);
    return nullptr;
  });
  if (e) return e;
  if ((e = launched(what))) return e;
  unsigned long long flag[2];
  if ((e = bad.read(s, what, flag))) return e;
  if (flag[0])
    return make_error(GLIA_ERR_INVALID_ARGUMENT,
                      std::string(dims == 2 ? "fractional_max_pool2d()" : "fractional_max_pool3d_out()") +
                          ": a pooling window lies outside the input (_random_samples should lie in [0, 1))");
  return nullptr;
}

glia_error* k_fractional_max_pool2d(const glia_kernel_call* call) { return fractional(call, 2); }
glia_error* k_fractional_max_pool3d(const glia_kernel_call* call) { return fractional(call, 3); }

glia_error* k_max_unpool(const glia_kernel_call* call) {
  const char* what = "max_unpool";
  const glia_kernel_tensor &x = call->inputs[0], &ix = call->inputs[1], &out = call->outputs[0];
  if (x.ndim < 2 || out.ndim < 2) return internal(what, "operands of the wrong rank");
  if (glia_error* e = same_dtype(x, out, what)) return e;
  if (ix.dtype != GLIA_INT64) return internal(what, "indices are not int64");
  const int64_t P = x.sizes[0] * x.sizes[1];
  const int64_t total = view_numel(out);
  if (total == 0) return nullptr;
  const int64_t n = P ? view_numel(x) / P : 0, m = P ? total / P : 0;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  const char* cpu_name = out.ndim == 5 ? "max_unpooling3d_forward_out_cpu_frame" : "max_unpool2d";
  if (x.dtype != GLIA_FLOAT32 && x.dtype != GLIA_FLOAT64) return dtype_error(cpu_name, x.dtype);
  cudaError_t st = cudaMemsetAsync(out.data, 0, static_cast<size_t>(total) * (x.dtype == GLIA_FLOAT32 ? 4 : 8), s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  if (n == 0) return nullptr;
  Flag bad(out.device_index);
  if (glia_error* e = bad.init(s, what)) return e;
  const int64_t blocks = (P + kThreads / kWarp - 1) / (kThreads / kWarp);
  const unsigned grid = static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
  if (x.dtype == GLIA_FLOAT32)
    max_unpool_kernel<float><<<grid, kThreads, 0, s>>>(P, n, m, static_cast<const float*>(x.data),
                                                       static_cast<const int64_t*>(ix.data),
                                                       static_cast<float*>(out.data), bad.p);
  else
    max_unpool_kernel<double><<<grid, kThreads, 0, s>>>(P, n, m, static_cast<const double*>(x.data),
                                                        static_cast<const int64_t*>(ix.data),
                                                        static_cast<double*>(out.data), bad.p);
  if (glia_error* e = launched(what)) return e;
  unsigned long long flag[2];
  if (glia_error* e = bad.read(s, what, flag)) return e;
  if (!flag[0]) return nullptr;
  std::string sizes;
  for (int d = 2; d < out.ndim; ++d) {
    if (d > 2) sizes += 'x';
    sizes += std::to_string(out.sizes[d]);
  }
  return make_error(GLIA_ERR_INVALID_ARGUMENT,
                    "Found an invalid max index: " + std::to_string(static_cast<int64_t>(flag[1])) +
                        " (output volumes are of size " + sizes);
}

}  // namespace

glia_kernel_fn pool3d_kernel(Kid id) {
  switch (id) {
    case Kid::max_pool3d:
      return &k_max_pool3d;
    case Kid::avg_pool3d:
      return &k_avg_pool3d;
    case Kid::avg_pool3d_backward:
      return &k_avg_pool3d_backward;
    case Kid::adaptive_avg_pool3d:
      return &k_adaptive_avg_pool3d;
    case Kid::adaptive_avg_pool3d_backward:
      return &k_adaptive_avg_pool3d_backward;
    case Kid::adaptive_max_pool2d:
      return &k_adaptive_max_pool2d;
    case Kid::adaptive_max_pool3d:
      return &k_adaptive_max_pool3d;
    case Kid::max_unpool:
      return &k_max_unpool;
    case Kid::fractional_max_pool2d:
      return &k_fractional_max_pool2d;
    case Kid::fractional_max_pool3d:
      return &k_fractional_max_pool3d;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
