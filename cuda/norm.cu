// Batch, layer and group normalisation on the GPU (kernels.def's normalisation block and its Note [Optional
// kernel arguments]: x and dy contiguous, floating (float32, float64, float16, bfloat16); parameters contiguous,
// read as flat vectors; statistics float64; an absent optional argument holds a stand-in that is neither read
// nor written, the flags / mask attributes say which slots are real). The CPU kernels' formulas
// (src/ops/cpu/norm.cpp) through core/norm_math.h, which both compile, in the CPU's types: statistics and
// sums in float64, the elementwise step y = x * scale + shift (layer norm: (x - mean) * scale [* w] [+ b]) and
// dx = dy * a + x * b + c in acc_t of x (float for float32 and the 16-bit floats).
//
// One block per channel (batch norm), row (layer norm) or (sample, group) (group norm); batch norm of an
// [N, C] input and layer norm's parameter gradients, whose reductions run down columns, take 32 adjacent columns
// a block (8 row lanes each, so that a warp reads adjacent elements); group norm's parameter gradients one
// block per channel. Statistics with Welford's update in float64 (cuda/welford.h):
// thread t adds elements t, t + kThreads, ... in order, then partial results combine in a fixed tree; sums the
// same way (Note [Deterministic CUDA reductions] in reduce.cu): no atomics, two runs give the same bits. The
// CPU uses two passes (mean, then squared deviations) in float64: the statistics agree to float64 rounding,
// not bit for bit.
#include <cmath>
#include <limits>
#include <string>

#include "common.h"
#include "core/norm_math.h"
#include "kernel_call.h"
#include "launch.cuh"
#include "welford.h"

namespace glia::cuda {

namespace {

// Element i of a contiguous floating vector of dtype t as float64 (torch's conversion, the CPU's f64_values).
__device__ __forceinline__ double load_f64(const void* p, glia_dtype t, int64_t i) {
  switch (t) {
    case GLIA_FLOAT32:
      return static_cast<const float*>(p)[i];
    case GLIA_FLOAT64:
      return static_cast<const double*>(p)[i];
    case GLIA_FLOAT16:
      return f16_to_float(static_cast<const f16*>(p)[i]);
    case GLIA_BFLOAT16:
      return bf16_to_float(static_cast<const bf16*>(p)[i]);
    default:
      return NAN;
  }
}
// v stored into element i of a floating vector of dtype t (convert<T, double>: 16-bit floats through float).
__device__ __forceinline__ void store_f64(void* p, glia_dtype t, int64_t i, double v) {
  switch (t) {
    case GLIA_FLOAT32:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case GLIA_FLOAT64:
      static_cast<double*>(p)[i] = v;
      break;
    case GLIA_FLOAT16:
      static_cast<f16*>(p)[i] = float_to_f16(static_cast<float>(v));
      break;
    case GLIA_BFLOAT16:
      static_cast<bf16*>(p)[i] = float_to_bf16(static_cast<float>(v));
      break;
    default:
      break;
  }
}

// A float64 vector parameter: data and dtype, or absent (nullptr).
struct Param {
  const void* p;
  glia_dtype t;
  __device__ double at(int64_t i, double absent) const { return p ? load_f64(p, t, i) : absent; }
};

// The block's Welford reduction of every thread's partial result, in a fixed tree; every thread gets it.
__device__ Welford<double> block_welford(Welford<double> v, double* sm, double* sq, double* sn) {
  const int tid = static_cast<int>(threadIdx.x);
  sm[tid] = v.mean, sq[tid] = v.m2, sn[tid] = v.n;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (tid < s) {
      const Welford<double> r = welford_combine(Welford<double>{sm[tid], sq[tid], sn[tid]},
                                                Welford<double>{sm[tid + s], sq[tid + s], sn[tid + s]});
      sm[tid] = r.mean, sq[tid] = r.m2, sn[tid] = r.n;
    }
    __syncthreads();
  }
  const Welford<double> r{sm[0], sq[0], sn[0]};
  __syncthreads();  // the arrays are reused by the next reduction
  return r;
}

// The block's sums of two values (every thread's partial sums), in a fixed tree; every thread gets them.
__device__ void block_sum2(double* a, double* b, double* pa, double* pb) {
  const int tid = static_cast<int>(threadIdx.x);
  pa[tid] = *a, pb[tid] = *b;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (tid < s) pa[tid] += pa[tid + s], pb[tid] += pb[tid + s];
    __syncthreads();
  }
  *a = pa[0], *b = pb[0];
  __syncthreads();
}

// The statistics of a Welford result over `count` elements: mean and biased variance, NaN for none.
__device__ __forceinline__ void mean_var(const Welford<double>& w, int64_t count, double* mean, double* var) {
  *mean = count > 0 ? w.mean : NAN;
  *var = count > 0 ? welford_variance(w, 0.0) : NAN;
}

// ---- batch norm: block per channel c of x [N, C, S]

struct BatchNormArgs {
  int64_t N, C, S;
  bool training;
  double momentum, eps;
  Param w, b;
  void* running_mean;  // nullptr: absent
  glia_dtype rm_t;
  void* running_var;
  glia_dtype rv_t;
  double* mean;
  double* rstd;
};

template <class T>
__global__ void __launch_bounds__(kThreads) batch_norm_kernel(BatchNormArgs a, const T* __restrict x, T* __restrict y) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads], s2[kThreads];
  const int64_t count = a.N * a.S;
  for (int64_t c = blockIdx.x; c < a.C; c += gridDim.x) {
    double mu, rs;
    if (a.training) {
      Welford<double> wf;
      for (int64_t j = threadIdx.x; j < count; j += kThreads) {
        const int64_t n = j / a.S;
        wf = welford_add(wf, static_cast<double>(load_acc(x[(n * a.C + c) * a.S + (j - n * a.S)])));
      }
      wf = block_welford(wf, s0, s1, s2);
      double var;
      mean_var(wf, count, &mu, &var);
      rs = norm::rstd_of(var, a.eps);
      if (threadIdx.x == 0 && count > 0) {
        // torch: running = momentum * batch + (1 - momentum) * running, unbiased variance.
        if (a.running_mean)
          store_f64(a.running_mean, a.rm_t, c,
                    norm::running_update(load_f64(a.running_mean, a.rm_t, c), mu, a.momentum, 1.0));
        if (a.running_var)
          store_f64(a.running_var, a.rv_t, c,
                    norm::running_update(load_f64(a.running_var, a.rv_t, c), var, a.momentum,
                                         static_cast<double>(count) / static_cast<double>(count - 1)));
      }
    } else {
      mu = load_f64(a.running_mean, a.rm_t, c);
      rs = norm::rstd_of(load_f64(a.running_var, a.rv_t, c), a.eps);
    }
    if (threadIdx.x == 0) a.mean[c] = mu, a.rstd[c] = rs;
    const norm::Affine af = norm::batch_norm_affine(mu, rs, a.w.at(c, 1.0), a.b.at(c, 0.0));
    const C al = static_cast<C>(af.scale), be = static_cast<C>(af.shift);
    for (int64_t j = threadIdx.x; j < count; j += kThreads) {
      const int64_t n = j / a.S;
      const int64_t i = (n * a.C + c) * a.S + (j - n * a.S);
      y[i] = store_as<T>(static_cast<C>(load_acc(x[i])) * al + be);
    }
  }
}

struct BatchNormBackwardArgs {
  int64_t N, C, S;
  bool training;
  Param w;
  const double* mean;
  const double* rstd;
  double* dw;  // nullptr: not wanted
  double* db;
};

template <class T>
__global__ void __launch_bounds__(kThreads) batch_norm_backward_kernel(BatchNormBackwardArgs a, const T* __restrict dy,
                                                                       const T* __restrict x, T* __restrict dx) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads];
  const int64_t count = a.N * a.S;
  for (int64_t c = blockIdx.x; c < a.C; c += gridDim.x) {
    const double mu = a.mean[c], rs = a.rstd[c];
    double s_dy = 0, s_dot = 0;
    for (int64_t j = threadIdx.x; j < count; j += kThreads) {
      const int64_t n = j / a.S;
      const int64_t i = (n * a.C + c) * a.S + (j - n * a.S);
      const double g = static_cast<double>(load_acc(dy[i]));
      s_dy += g;
      s_dot += (static_cast<double>(load_acc(x[i])) - mu) * g;
    }
    block_sum2(&s_dy, &s_dot, s0, s1);
    if (threadIdx.x == 0) {
      if (a.dw) a.dw[c] = s_dot * rs;
      if (a.db) a.db[c] = s_dy;
    }
    if (!dx) continue;
    const norm::Coeffs q = norm::batch_norm_backward_coeffs(a.training, count, mu, rs, a.w.at(c, 1.0), s_dy, s_dot);
    const C ca = static_cast<C>(q.a), cb = static_cast<C>(q.b), cc = static_cast<C>(q.c);
    for (int64_t j = threadIdx.x; j < count; j += kThreads) {
      const int64_t n = j / a.S;
      const int64_t i = (n * a.C + c) * a.S + (j - n * a.S);
      dx[i] = store_as<T>(static_cast<C>(load_acc(dy[i])) * ca + static_cast<C>(load_acc(x[i])) * cb + cc);
    }
  }
}

// ---- [rows, cols] column reductions (batch norm of [N, C], layer norm's parameter gradients): a block holds
// kCols adjacent columns and kRowLanes row lanes; thread (lane ty, column tx) takes rows ty, ty + kRowLanes, ...
// in order (a warp reads kCols adjacent elements), then a fixed tree over the row lanes.

constexpr int kCols = 32;
constexpr int kRowLanes = kThreads / kCols;

// The tree over the row lanes of every thread's partial result; every thread gets its column's.
__device__ Welford<double> col_welford(Welford<double> v, double* sm, double* sq, double* sn) {
  const int tid = static_cast<int>(threadIdx.x);
  sm[tid] = v.mean, sq[tid] = v.m2, sn[tid] = v.n;
  __syncthreads();
  for (int s = kRowLanes / 2; s > 0; s /= 2) {
    if (tid / kCols < s) {
      const int u = tid + s * kCols;
      const Welford<double> r =
          welford_combine(Welford<double>{sm[tid], sq[tid], sn[tid]}, Welford<double>{sm[u], sq[u], sn[u]});
      sm[tid] = r.mean, sq[tid] = r.m2, sn[tid] = r.n;
    }
    __syncthreads();
  }
  const int col = tid % kCols;
  const Welford<double> r{sm[col], sq[col], sn[col]};
  __syncthreads();
  return r;
}

__device__ void col_sum2(double* a, double* b, double* pa, double* pb) {
  const int tid = static_cast<int>(threadIdx.x);
  pa[tid] = *a, pb[tid] = *b;
  __syncthreads();
  for (int s = kRowLanes / 2; s > 0; s /= 2) {
    if (tid / kCols < s) pa[tid] += pa[tid + s * kCols], pb[tid] += pb[tid + s * kCols];
    __syncthreads();
  }
  *a = pa[tid % kCols], *b = pb[tid % kCols];
  __syncthreads();
}

unsigned col_blocks_for(int64_t cols) {
  const int64_t b = (cols + kCols - 1) / kCols;
  return static_cast<unsigned>(b < 65536 ? b : 65536);
}

// batch norm of x [N, C] (S == 1): the channels are columns.
template <class T>
__global__ void __launch_bounds__(kThreads)
    batch_norm_cols_kernel(BatchNormArgs a, const T* __restrict x, T* __restrict y) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads], s2[kThreads];
  const int tx = static_cast<int>(threadIdx.x) % kCols, ty = static_cast<int>(threadIdx.x) / kCols;
  for (int64_t cb = blockIdx.x; cb * kCols < a.C; cb += gridDim.x) {
    const int64_t c = cb * kCols + tx;
    const bool ok = c < a.C;
    double mu = 0, rs = 0;
    if (a.training) {
      Welford<double> wf;
      if (ok)
        for (int64_t n = ty; n < a.N; n += kRowLanes)
          wf = welford_add(wf, static_cast<double>(load_acc(x[n * a.C + c])));
      wf = col_welford(wf, s0, s1, s2);
      double var;
      mean_var(wf, a.N, &mu, &var);
      rs = norm::rstd_of(var, a.eps);
      if (ty == 0 && ok && a.N > 0) {
        if (a.running_mean)
          store_f64(a.running_mean, a.rm_t, c,
                    norm::running_update(load_f64(a.running_mean, a.rm_t, c), mu, a.momentum, 1.0));
        if (a.running_var)
          store_f64(a.running_var, a.rv_t, c,
                    norm::running_update(load_f64(a.running_var, a.rv_t, c), var, a.momentum,
                                         static_cast<double>(a.N) / static_cast<double>(a.N - 1)));
      }
    } else if (ok) {
      mu = load_f64(a.running_mean, a.rm_t, c);
      rs = norm::rstd_of(load_f64(a.running_var, a.rv_t, c), a.eps);
    }
    if (!ok) continue;
    if (ty == 0) a.mean[c] = mu, a.rstd[c] = rs;
    const norm::Affine af = norm::batch_norm_affine(mu, rs, a.w.at(c, 1.0), a.b.at(c, 0.0));
    const C al = static_cast<C>(af.scale), be = static_cast<C>(af.shift);
    for (int64_t n = ty; n < a.N; n += kRowLanes)
      y[n * a.C + c] = store_as<T>(static_cast<C>(load_acc(x[n * a.C + c])) * al + be);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    batch_norm_backward_cols_kernel(BatchNormBackwardArgs a, const T* __restrict dy, const T* __restrict x,
                                    T* __restrict dx) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads];
  const int tx = static_cast<int>(threadIdx.x) % kCols, ty = static_cast<int>(threadIdx.x) / kCols;
  for (int64_t cb = blockIdx.x; cb * kCols < a.C; cb += gridDim.x) {
    const int64_t c = cb * kCols + tx;
    const bool ok = c < a.C;
    const double mu = ok ? a.mean[c] : 0, rs = ok ? a.rstd[c] : 0;
    double s_dy = 0, s_dot = 0;
    if (ok)
      for (int64_t n = ty; n < a.N; n += kRowLanes) {
        const double g = static_cast<double>(load_acc(dy[n * a.C + c]));
        s_dy += g;
        s_dot += (static_cast<double>(load_acc(x[n * a.C + c])) - mu) * g;
      }
    col_sum2(&s_dy, &s_dot, s0, s1);
    if (!ok) continue;
    if (ty == 0) {
      if (a.dw) a.dw[c] = s_dot * rs;
      if (a.db) a.db[c] = s_dy;
    }
    if (!dx) continue;
    const norm::Coeffs q = norm::batch_norm_backward_coeffs(a.training, a.N, mu, rs, a.w.at(c, 1.0), s_dy, s_dot);
    const C ca = static_cast<C>(q.a), cb_ = static_cast<C>(q.b), cc = static_cast<C>(q.c);
    for (int64_t n = ty; n < a.N; n += kRowLanes) {
      const int64_t i = n * a.C + c;
      dx[i] = store_as<T>(static_cast<C>(load_acc(dy[i])) * ca + static_cast<C>(load_acc(x[i])) * cb_ + cc);
    }
  }
}

// ---- layer norm: block per row of n

template <class T>
__global__ void __launch_bounds__(kThreads)
    layer_norm_kernel(int64_t m, int64_t n, double eps, const T* __restrict x, const T* __restrict w,
                      const T* __restrict b, T* __restrict y, double* __restrict mean, double* __restrict rstd) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads], s2[kThreads];
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    const T* xr = x + r * n;
    Welford<double> wf;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) wf = welford_add(wf, static_cast<double>(load_acc(xr[i])));
    wf = block_welford(wf, s0, s1, s2);
    double mu, var;
    mean_var(wf, n, &mu, &var);
    const double rs = norm::rstd_of(var, eps);
    if (threadIdx.x == 0) mean[r] = mu, rstd[r] = rs;
    const C scale = static_cast<C>(rs), centre = static_cast<C>(mu);
    T* yr = y + r * n;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) {
      C v = (static_cast<C>(load_acc(xr[i])) - centre) * scale;
      if (w) v = v * static_cast<C>(load_acc(w[i]));
      if (b) v = v + static_cast<C>(load_acc(b[i]));
      yr[i] = store_as<T>(v);
    }
  }
}

// mean and rstd of rows with no elements: NaN (the CPU's).
__global__ void __launch_bounds__(kThreads) nan_fill_kernel(int64_t rows, double* mean, double* rstd) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < rows; i += step)
    mean[i] = NAN, rstd[i] = NAN;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    layer_norm_backward_dx_kernel(int64_t m, int64_t n, Param w, const T* __restrict dy, const T* __restrict x,
                                  const double* __restrict mean, const double* __restrict rstd, T* __restrict dx) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads];
  for (int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    const T* xr = x + r * n;
    const T* gr = dy + r * n;
    // ds = sum(dy * w * x), db = sum(dy * w)
    double ds = 0, db = 0;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) {
      const double gw = static_cast<double>(load_acc(gr[i])) * w.at(i, 1.0);
      ds += gw * static_cast<double>(load_acc(xr[i]));
      db += gw;
    }
    block_sum2(&ds, &db, s0, s1);
    const norm::Coeffs q = norm::layer_norm_backward_coeffs(mean[r], rstd[r], ds, db, n);
    const C ca = static_cast<C>(q.a), cb = static_cast<C>(q.b), cc = static_cast<C>(q.c);
    T* dr = dx + r * n;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) {
      C g = ca * static_cast<C>(load_acc(gr[i]));
      if (w.p) g = g * static_cast<C>(w.at(i, 1.0));
      dr[i] = store_as<T>(g + cb * static_cast<C>(load_acc(xr[i])) + cc);
    }
  }
}

// Column sums over the m rows: dw[j] = sum dy * (x - mean) * rstd, db[j] = sum dy (kCols columns a block).
template <class T>
__global__ void __launch_bounds__(kThreads)
    layer_norm_backward_params_kernel(int64_t m, int64_t n, const T* __restrict dy, const T* __restrict x,
                                      const double* __restrict mean, const double* __restrict rstd,
                                      double* __restrict dw, double* __restrict db) {
  __shared__ double s0[kThreads], s1[kThreads];
  const int tx = static_cast<int>(threadIdx.x) % kCols, ty = static_cast<int>(threadIdx.x) / kCols;
  for (int64_t jb = blockIdx.x; jb * kCols < n; jb += gridDim.x) {
    const int64_t j = jb * kCols + tx;
    double sw = 0, sb = 0;
    if (j < n)
      for (int64_t r = ty; r < m; r += kRowLanes) {
        const double g = static_cast<double>(load_acc(dy[r * n + j]));
        sw += g * (static_cast<double>(load_acc(x[r * n + j])) - mean[r]) * rstd[r];
        sb += g;
      }
    col_sum2(&sw, &sb, s0, s1);
    if (ty == 0 && j < n) {
      if (dw) dw[j] = sw;
      if (db) db[j] = sb;
    }
  }
}

// ---- group norm: x [N, C, S], groups of dpg channels; block per (sample, group), len = dpg * S elements

template <class T>
__global__ void __launch_bounds__(kThreads)
    group_norm_kernel(int64_t items, int64_t groups, int64_t dpg, int64_t S, double eps, Param w, Param b,
                      const T* __restrict x, T* __restrict y, double* __restrict mean, double* __restrict rstd) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads], s2[kThreads];
  const int64_t len = dpg * S;
  for (int64_t it = blockIdx.x; it < items; it += gridDim.x) {
    const T* xr = x + it * len;
    Welford<double> wf;
    for (int64_t i = threadIdx.x; i < len; i += kThreads) wf = welford_add(wf, static_cast<double>(load_acc(xr[i])));
    wf = block_welford(wf, s0, s1, s2);
    double mu, var;
    mean_var(wf, len, &mu, &var);
    const double rs = norm::rstd_of(var, eps);
    if (threadIdx.x == 0) mean[it] = mu, rstd[it] = rs;
    const int64_t c0 = (it % groups) * dpg;
    T* yr = y + it * len;
    for (int64_t i = threadIdx.x; i < len; i += kThreads) {
      const int64_t c = c0 + i / S;
      const norm::Affine af = norm::group_norm_affine(mu, rs, w.at(c, 1.0), b.at(c, 0.0));
      yr[i] = store_as<T>(static_cast<C>(load_acc(xr[i])) * static_cast<C>(af.scale) + static_cast<C>(af.shift));
    }
  }
}

// Per (sample, group): per channel s_dy = sum(dy), s_dot = sum(x * dy) over S, ds_g / db_g their w-weighted
// sums over the group's channels in order, then dx.
template <class T>
__global__ void __launch_bounds__(kThreads)
    group_norm_backward_dx_kernel(int64_t items, int64_t groups, int64_t dpg, int64_t S, Param w,
                                  const T* __restrict dy, const T* __restrict x, const double* __restrict mean,
                                  const double* __restrict rstd, T* __restrict dx) {
  using C = acc_t<T>;
  __shared__ double s0[kThreads], s1[kThreads];
  const int64_t len = dpg * S;
  for (int64_t it = blockIdx.x; it < items; it += gridDim.x) {
    const int64_t c0 = (it % groups) * dpg;
    const T* xr = x + it * len;
    const T* gr = dy + it * len;
    double ds_g = 0, db_g = 0;
    for (int64_t k = 0; k < dpg; ++k) {
      double s_dy = 0, s_dot = 0;
      for (int64_t j = threadIdx.x; j < S; j += kThreads) {
        const double g = static_cast<double>(load_acc(gr[k * S + j]));
        s_dy += g;
        s_dot += static_cast<double>(load_acc(xr[k * S + j])) * g;
      }
      block_sum2(&s_dy, &s_dot, s0, s1);
      const double wc = w.at(c0 + k, 1.0);
      ds_g += s_dot * wc;
      db_g += s_dy * wc;
    }
    const double mu = mean[it], rs = rstd[it];
    const norm::Coeffs q = norm::group_norm_backward_coeffs(mu, rs, ds_g, db_g, len);
    const C cb = static_cast<C>(q.b), cc = static_cast<C>(q.c);
    T* dr = dx + it * len;
    for (int64_t i = threadIdx.x; i < len; i += kThreads) {
      const C c1 = static_cast<C>(rs * w.at(c0 + i / S, 1.0));
      dr[i] = store_as<T>(c1 * static_cast<C>(load_acc(gr[i])) + cb * static_cast<C>(load_acc(xr[i])) + cc);
    }
  }
}

// Per channel c: dw[c] = sum over samples of (sum(x * dy) - sum(dy) * mean) * rstd, db[c] = sum of sum(dy), the
// samples in order.
template <class T>
__global__ void __launch_bounds__(kThreads)
    group_norm_backward_params_kernel(int64_t N, int64_t Cn, int64_t groups, int64_t S, const T* __restrict dy,
                                      const T* __restrict x, const double* __restrict mean,
                                      const double* __restrict rstd, double* __restrict dw, double* __restrict db) {
  __shared__ double s0[kThreads], s1[kThreads];
  const int64_t dpg = Cn / groups;
  for (int64_t c = blockIdx.x; c < Cn; c += gridDim.x) {
    double sw = 0, sb = 0;
    for (int64_t nn = 0; nn < N; ++nn) {
      const int64_t off = (nn * Cn + c) * S;
      double s_dy = 0, s_dot = 0;
      for (int64_t j = threadIdx.x; j < S; j += kThreads) {
        const double g = static_cast<double>(load_acc(dy[off + j]));
        s_dy += g;
        s_dot += static_cast<double>(load_acc(x[off + j])) * g;
      }
      block_sum2(&s_dy, &s_dot, s0, s1);
      const int64_t i = nn * groups + c / dpg;
      sw += (s_dot - s_dy * mean[i]) * rstd[i];
      sb += s_dy;
    }
    if (threadIdx.x == 0) {
      if (dw) dw[c] = sw;
      if (db) db[c] = sb;
    }
  }
}

// ---- host side

bool floating(glia_dtype t) {
  return t == GLIA_FLOAT32 || t == GLIA_FLOAT64 || t == GLIA_FLOAT16 || t == GLIA_BFLOAT16;
}

// Input `slot` as a parameter when `present`, else absent; an error for a non-floating one.
glia_error* param_of(const glia_kernel_call* call, int slot, bool present, const char* what, Param* p) {
  *p = Param{nullptr, GLIA_FLOAT64};
  if (!present) return nullptr;
  const glia_kernel_tensor& t = call->inputs[slot];
  if (!floating(t.dtype)) return dtype_error(what, t.dtype);
  *p = Param{t.data, t.dtype};
  return nullptr;
}

glia_error* check_stats(const glia_kernel_tensor& t, const char* what) {
  if (t.dtype == GLIA_FLOAT64) return nullptr;
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": statistics are not float64");
}

// [N, C, S] sizes of x (at least 2-D).
glia_error* ncs_of(const glia_kernel_tensor& x, const char* what, int64_t* N, int64_t* C, int64_t* S) {
  if (x.ndim < 2) return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": expected [N, C, *]");
  *N = x.sizes[0], *C = x.sizes[1], *S = 1;
  for (int32_t d = 2; d < x.ndim; ++d) *S *= x.sizes[d];
  return nullptr;
}

glia_error* k_batch_norm(const glia_kernel_call* call) {
  const char* what = "batch_norm";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0];
  BatchNormArgs a{};
  if (glia_error* e = ncs_of(x, what, &a.N, &a.C, &a.S)) return e;
  a.training = call->attrs[0].i != 0;
  a.momentum = call->attrs[1].f;
  a.eps = call->attrs[2].f;
  const int64_t flags = call->attrs[3].i;
  if (glia_error* e = param_of(call, 1, flags & 1, what, &a.w)) return e;
  if (glia_error* e = param_of(call, 2, flags & 2, what, &a.b)) return e;
  Param rm, rv;
  if (glia_error* e = param_of(call, 3, flags & 4, what, &rm)) return e;
  if (glia_error* e = param_of(call, 4, flags & 8, what, &rv)) return e;
  if (!a.training && (!rm.p || !rv.p))
    return make_error(GLIA_ERR_INTERNAL, "cuda: batch_norm: evaluation without running statistics");
  a.running_mean = rm.p ? call->inputs[3].data : nullptr, a.rm_t = rm.t;
  a.running_var = rv.p ? call->inputs[4].data : nullptr, a.rv_t = rv.t;
  if (glia_error* e = check_stats(call->outputs[1], what)) return e;
  if (glia_error* e = check_stats(call->outputs[2], what)) return e;
  a.mean = static_cast<double*>(call->outputs[1].data);
  a.rstd = static_cast<double*>(call->outputs[2].data);
  if (a.C == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  glia_error* e = dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if (y.dtype != x.dtype) return make_error(GLIA_ERR_INTERNAL, "cuda: batch_norm: output dtype differs");
    if (a.S == 1)  // [N, C]: the channels are columns
      batch_norm_cols_kernel<T>
          <<<col_blocks_for(a.C), kThreads, 0, s>>>(a, static_cast<const T*>(x.data), static_cast<T*>(y.data));
    else
      batch_norm_kernel<T>
          <<<blocks_for(a.C), kThreads, 0, s>>>(a, static_cast<const T*>(x.data), static_cast<T*>(y.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

// The backward kernels' common operands: in0 dy, in1 x, in2 weight, in3 mean, in4 rstd -> out0 dx, out1 dweight,
// out2 dbias; attributes (attr0, has_weight, mask).
struct NormBackward {
  const glia_kernel_tensor *dy, *x;
  Param w;
  const double *mean, *rstd;
  void* dx;
  double *dw, *db;
};

glia_error* backward_operands(const glia_kernel_call* call, const char* what, NormBackward* b) {
  b->dy = &call->inputs[0], b->x = &call->inputs[1];
  if (b->dy->dtype != b->x->dtype)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": dy and x of different dtypes");
  if (glia_error* e = param_of(call, 2, call->attrs[1].i != 0, what, &b->w)) return e;
  if (glia_error* e = check_stats(call->inputs[3], what)) return e;
  if (glia_error* e = check_stats(call->inputs[4], what)) return e;
  b->mean = static_cast<const double*>(call->inputs[3].data);
  b->rstd = static_cast<const double*>(call->inputs[4].data);
  const int64_t mask = call->attrs[2].i;
  b->dx = (mask & 1) ? call->outputs[0].data : nullptr;
  if ((mask & 1) && call->outputs[0].dtype != b->x->dtype)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": dx of another dtype than x");
  for (int k = 1; k < 3; ++k)
    if ((mask & (1 << k)) && call->outputs[k].dtype != GLIA_FLOAT64)
      return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": parameter gradients are not float64");
  b->dw = (mask & 2) ? static_cast<double*>(call->outputs[1].data) : nullptr;
  b->db = (mask & 4) ? static_cast<double*>(call->outputs[2].data) : nullptr;
  return nullptr;
}

glia_error* k_batch_norm_backward(const glia_kernel_call* call) {
  const char* what = "batch_norm_backward";
  NormBackward b;
  if (glia_error* e = backward_operands(call, what, &b)) return e;
  BatchNormBackwardArgs a{};
  if (glia_error* e = ncs_of(*b.x, what, &a.N, &a.C, &a.S)) return e;
  a.training = call->attrs[0].i != 0;
  a.w = b.w, a.mean = b.mean, a.rstd = b.rstd, a.dw = b.dw, a.db = b.db;
  if (a.C == 0 || (!b.dx && !b.dw && !b.db)) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, b.x->device_index, &s)) return e;
  glia_error* e = dispatch<Set::kFloat>(b.x->dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if (a.S == 1)
      batch_norm_backward_cols_kernel<T><<<col_blocks_for(a.C), kThreads, 0, s>>>(
          a, static_cast<const T*>(b.dy->data), static_cast<const T*>(b.x->data), static_cast<T*>(b.dx));
    else
      batch_norm_backward_kernel<T><<<blocks_for(a.C), kThreads, 0, s>>>(
          a, static_cast<const T*>(b.dy->data), static_cast<const T*>(b.x->data), static_cast<T*>(b.dx));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_layer_norm(const glia_kernel_call* call) {
  const char* what = "layer_norm";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0];
  const int64_t n = call->attrs[0].i, flags = call->attrs[2].i;
  const double eps = call->attrs[1].f;
  const int64_t m = n == 0 ? 0 : view_numel(x) / n;
  const int64_t rows = view_numel(call->outputs[1]);
  if (glia_error* e = check_stats(call->outputs[1], what)) return e;
  if (glia_error* e = check_stats(call->outputs[2], what)) return e;
  double* mean = static_cast<double*>(call->outputs[1].data);
  double* rstd = static_cast<double*>(call->outputs[2].data);
  if (rows == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  if (m == 0) {
    nan_fill_kernel<<<grid_for(rows), kThreads, 0, s>>>(rows, mean, rstd);
    return launched(what);
  }
  glia_error* e = dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if (y.dtype != x.dtype || ((flags & 1) && call->inputs[1].dtype != x.dtype) ||
        ((flags & 2) && call->inputs[2].dtype != x.dtype))
      return make_error(GLIA_ERR_INTERNAL, "cuda: layer_norm: operands of different dtypes");
    layer_norm_kernel<T><<<blocks_for(m), kThreads, 0, s>>>(
        m, n, eps, static_cast<const T*>(x.data), (flags & 1) ? static_cast<const T*>(call->inputs[1].data) : nullptr,
        (flags & 2) ? static_cast<const T*>(call->inputs[2].data) : nullptr, static_cast<T*>(y.data), mean, rstd);
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_layer_norm_backward(const glia_kernel_call* call) {
  const char* what = "layer_norm_backward";
  NormBackward b;
  if (glia_error* e = backward_operands(call, what, &b)) return e;
  const int64_t n = call->attrs[0].i;
  const int64_t m = n == 0 ? 0 : view_numel(*b.x) / n;
  if (n == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, b.x->device_index, &s)) return e;
  glia_error* e = dispatch<Set::kFloat>(b.x->dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const T* dy = static_cast<const T*>(b.dy->data);
    const T* x = static_cast<const T*>(b.x->data);
    if (b.dx && m > 0)
      layer_norm_backward_dx_kernel<T>
          <<<blocks_for(m), kThreads, 0, s>>>(m, n, b.w, dy, x, b.mean, b.rstd, static_cast<T*>(b.dx));
    if (b.dw || b.db)
      layer_norm_backward_params_kernel<T>
          <<<col_blocks_for(n), kThreads, 0, s>>>(m, n, dy, x, b.mean, b.rstd, b.dw, b.db);
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_group_norm(const glia_kernel_call* call) {
  const char* what = "group_norm";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0];
  int64_t N, C, S;
  if (glia_error* e = ncs_of(x, what, &N, &C, &S)) return e;
  const int64_t groups = call->attrs[0].i, flags = call->attrs[2].i;
  const double eps = call->attrs[1].f;
  if (groups <= 0 || C % groups != 0)
    return make_error(GLIA_ERR_INTERNAL, "cuda: group_norm: channels not divisible by groups");
  Param w, bp;
  if (glia_error* e = param_of(call, 1, flags & 1, what, &w)) return e;
  if (glia_error* e = param_of(call, 2, flags & 2, what, &bp)) return e;
  if (glia_error* e = check_stats(call->outputs[1], what)) return e;
  if (glia_error* e = check_stats(call->outputs[2], what)) return e;
  const int64_t items = N * groups;
  if (items == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  glia_error* e = dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if (y.dtype != x.dtype) return make_error(GLIA_ERR_INTERNAL, "cuda: group_norm: output dtype differs");
    group_norm_kernel<T><<<blocks_for(items), kThreads, 0, s>>>(
        items, groups, C / groups, S, eps, w, bp, static_cast<const T*>(x.data), static_cast<T*>(y.data),
        static_cast<double*>(call->outputs[1].data), static_cast<double*>(call->outputs[2].data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_group_norm_backward(const glia_kernel_call* call) {
  const char* what = "group_norm_backward";
  NormBackward b;
  if (glia_error* e = backward_operands(call, what, &b)) return e;
  int64_t N, C, S;
  if (glia_error* e = ncs_of(*b.x, what, &N, &C, &S)) return e;
  const int64_t groups = call->attrs[0].i;
  if (groups <= 0 || C % groups != 0)
    return make_error(GLIA_ERR_INTERNAL, "cuda: group_norm_backward: channels not divisible by groups");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, b.x->device_index, &s)) return e;
  const int64_t items = N * groups;
  glia_error* e = dispatch<Set::kFloat>(b.x->dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const T* dy = static_cast<const T*>(b.dy->data);
    const T* x = static_cast<const T*>(b.x->data);
    if (b.dx && items > 0)
      group_norm_backward_dx_kernel<T><<<blocks_for(items), kThreads, 0, s>>>(items, groups, C / groups, S, b.w, dy, x,
                                                                              b.mean, b.rstd, static_cast<T*>(b.dx));
    if ((b.dw || b.db) && C > 0)
      group_norm_backward_params_kernel<T>
          <<<blocks_for(C), kThreads, 0, s>>>(N, C, groups, S, dy, x, b.mean, b.rstd, b.dw, b.db);
    return nullptr;
  });
  return e ? e : launched(what);
}

}  // namespace

glia_kernel_fn norm_kernel(Kid id) {
  switch (id) {
    case Kid::batch_norm:
      return &k_batch_norm;
    case Kid::batch_norm_backward:
      return &k_batch_norm_backward;
    case Kid::layer_norm:
      return &k_layer_norm;
    case Kid::layer_norm_backward:
      return &k_layer_norm_backward;
    case Kid::group_norm:
      return &k_group_norm;
    case Kid::group_norm_backward:
      return &k_group_norm_backward;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
