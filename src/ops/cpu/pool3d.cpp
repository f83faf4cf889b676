// 3-D pooling (max_pool3d, avg_pool3d, adaptive_avg_pool3d): one pass per output volume, parallel
// over the N * C volumes. Meta parts (glia::ops) and CPU kernels (glia::cpu), Note [Op = meta +
// kernel + rule]. max_pool3d's backward is max_pool2d's kernel on [N, C, T * H, W] views (the
// indices are flat positions in the volume either way).
#include "ops/pool3d.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "core/checked.h"
#include "core/dispatch.h"
#include "core/pool_math.h"
#include "ops/conv.h"
#include "ops/cpu/loops.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

// torch's pooling_output_shape (pad already checked), Checked; also checks that the last window's
// end is representable, so the kernels' window arithmetic cannot overflow.
int64_t out_size(const char* op, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const Checked span = Checked(dil, op) * (k - 1);
  const Checked num = Checked(in, op) + Checked(2) * pad - span - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (floor_div(num, stride) + 1).value();
  if (ceil_mode && ((Checked(out, op) - 1) * stride).value() >= (Checked(in, op) + pad).value()) --out;
  if (out > 0) (void)((Checked(out, op) - 1) * stride - pad + span + 1);
  return out;
}

template <class F>
void dispatch3d(DType t, const char* op, bool allow_int64, F&& body) {
  switch (t) {
    case DType::Float32:
      return body(float{});
    case DType::Float64:
      return body(double{});
    case DType::Int64:
      if (allow_int64) return body(int64_t{});
      break;
    default:
      break;
  }
  not_implemented_for(op, t);
}

void check_dtype3d(DType t, const char* op, bool allow_int64) {
  if (t == DType::Float32 || t == DType::Float64 || (allow_int64 && t == DType::Int64)) return;
  not_implemented_for(op, t);
}

// The first of the taps start, start + dil, ... that is >= 0 (core/pool_math.h, shared with the CUDA kernels).
using pool::first_tap_inside;

int64_t grain_for(int64_t per_volume) { return std::max<int64_t>(1, kGrain / std::max<int64_t>(per_volume, 1)); }
// Work per volume: outputs * taps, saturated (kernel sizes may be huge).
int64_t grain_for(int64_t outs, const int64_t k[3]) {
  int64_t w;
  if (__builtin_mul_overflow(outs, k[0], &w) || __builtin_mul_overflow(w, k[1], &w) ||
      __builtin_mul_overflow(w, k[2], &w))
    return 1;
  return grain_for(w);
}

void zero(const Tensor& t) { std::memset(t.data(), 0, static_cast<size_t>(t.numel()) * itemsize(t.dtype())); }

// torch's rule for the maximum: a NaN wins (the last one in scan order), else the first maximum.
template <class A>
inline bool takes(A v, A best) {
  return (v > best) | (v != v);
}

void max_pool3d_into(const Tensor& x, const Pool3dGeom& g, const Tensor& y, const Tensor& idx) {
  dispatch3d(x.dtype(), "max_pool3d_with_indices_cpu", false, [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    int64_t* ip = idx.data_ptr<int64_t>();
    const int64_t HW = g.H * g.W, vol = g.T * HW, ovol = g.To * g.Ho * g.Wo;
    // Windows all inside the input (no padding, no dilation, no partial ceil_mode window): tap-major
    // over a row of windows with branchless updates, a loop the compiler vectorises.
    const bool inside = g.p[0] == 0 && g.p[1] == 0 && g.p[2] == 0 && g.d[0] == 1 && g.d[1] == 1 && g.d[2] == 1 &&
                        (g.To - 1) * g.s[0] + g.k[0] <= g.T && (g.Ho - 1) * g.s[1] + g.k[1] <= g.H &&
                        (g.Wo - 1) * g.s[2] + g.k[2] <= g.W;
    parallel_for(0, g.N * g.C, grain_for(ovol, g.k), [&](int64_t b, int64_t e) {
      std::unique_ptr<T[]> best(inside ? new T[g.Wo] : nullptr);
      for (int64_t p = b; p < e; ++p) {
        const T* src = xp + p * vol;
        for (int64_t ot = 0; ot < g.To; ++ot)
          for (int64_t oh = 0; oh < g.Ho; ++oh) {
            T* __restrict dst = yp + p * ovol + (ot * g.Ho + oh) * g.Wo;
            int64_t* __restrict id = ip + p * ovol + (ot * g.Ho + oh) * g.Wo;
            if (inside) {
              T* __restrict bv = best.get();
              const int64_t first = ot * g.s[0] * HW + oh * g.s[1] * g.W;
              for (int64_t ow = 0; ow < g.Wo; ++ow) {
                bv[ow] = -std::numeric_limits<T>::infinity();
                id[ow] = first + ow * g.s[2];
              }
              for (int64_t i = 0; i < g.k[0]; ++i)
                for (int64_t j = 0; j < g.k[1]; ++j)
                  for (int64_t l = 0; l < g.k[2]; ++l) {
                    const int64_t base = (ot * g.s[0] + i) * HW + (oh * g.s[1] + j) * g.W + l;
                    const T* __restrict row = src + base;
                    for (int64_t ow = 0; ow < g.Wo; ++ow) {
                      T v = row[ow * g.s[2]];
                      bool take = takes(v, bv[ow]);
                      bv[ow] = take ? v : bv[ow];
                      id[ow] = take ? base + ow * g.s[2] : id[ow];
                    }
                  }
              for (int64_t ow = 0; ow < g.Wo; ++ow) dst[ow] = bv[ow];
              continue;
            }
            int64_t t0 = ot * g.s[0] - g.p[0];
            const int64_t t1 = std::min(t0 + (g.k[0] - 1) * g.d[0] + 1, g.T);
            t0 = first_tap_inside(t0, g.d[0]);
            int64_t h0 = oh * g.s[1] - g.p[1];
            const int64_t h1 = std::min(h0 + (g.k[1] - 1) * g.d[1] + 1, g.H);
            h0 = first_tap_inside(h0, g.d[1]);
            for (int64_t ow = 0; ow < g.Wo; ++ow) {
              int64_t w0 = ow * g.s[2] - g.p[2];
              const int64_t w1 = std::min(w0 + (g.k[2] - 1) * g.d[2] + 1, g.W);
              w0 = first_tap_inside(w0, g.d[2]);
              T bestv = -std::numeric_limits<T>::infinity();
              int64_t bi = t0 * HW + h0 * g.W + w0;
              for (int64_t t = t0; t < t1; t += g.d[0])
                for (int64_t h = h0; h < h1; h += g.d[1])
                  for (int64_t w = w0; w < w1; w += g.d[2]) {
                    const int64_t at = t * HW + h * g.W + w;
                    T v = src[at];
                    if (v > bestv || std::isnan(v)) {
                      bestv = v;
                      bi = at;
                    }
                  }
              dst[ow] = bestv;
              id[ow] = bi;
            }
          }
      }
    });
  });
}

// Window of output (ot, oh, ow) of avg_pool3d, clipped, and its divisor (torch's avg_pool3d kernel;
// core/pool_math.h, shared with the CUDA kernels).
using Window3 = pool::AvgWindow3;
inline Window3 avg_window3(const Pool3dGeom& g, const int64_t o[3], bool count_include_pad, int64_t divisor_override) {
  const int64_t in[3] = {g.T, g.H, g.W};
  return pool::avg_window3(o, in, g.k, g.s, g.p, count_include_pad, divisor_override);
}

void avg_pool3d_into(const Tensor& x, const Pool3dGeom& g, bool cip, int64_t dov, const Tensor& y) {
  dispatch3d(x.dtype(), "avg_pool3d_out_frame", true, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    const int64_t HW = g.H * g.W, vol = g.T * HW, ovol = g.To * g.Ho * g.Wo;
    parallel_for(0, g.N * g.C, grain_for(ovol, g.k), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* src = xp + p * vol;
        T* dst = yp + p * ovol;
        for (int64_t ot = 0; ot < g.To; ++ot)
          for (int64_t oh = 0; oh < g.Ho; ++oh)
            for (int64_t ow = 0; ow < g.Wo; ++ow) {
              const int64_t o[3] = {ot, oh, ow};
              const Window3 wd = avg_window3(g, o, cip, dov);
              T& out = dst[(ot * g.Ho + oh) * g.Wo + ow];
              if (wd.lo[0] >= wd.hi[0] || wd.lo[1] >= wd.hi[1] || wd.lo[2] >= wd.hi[2]) {
                out = T(0);
                continue;
              }
              A s = 0;
              for (int64_t t = wd.lo[0]; t < wd.hi[0]; ++t)
                for (int64_t h = wd.lo[1]; h < wd.hi[1]; ++h) {
                  const T* __restrict row = src + t * HW + h * g.W;
                  for (int64_t w = wd.lo[2]; w < wd.hi[2]; ++w) s += static_cast<A>(row[w]);
                }
              out = static_cast<T>(s / static_cast<A>(wd.div));
            }
      }
    });
  });
}

void avg_pool3d_backward_into(const Tensor& gy, const Pool3dGeom& g, bool cip, int64_t dov, const Tensor& gx) {
  zero(gx);
  dispatch3d(gx.dtype(), "avg_pool3d_backward_out_frame", false, [&](auto tag) {
    using T = decltype(tag);
    const T* gp = gy.data_ptr<T>();
    T* xp = gx.data_ptr<T>();
    const int64_t HW = g.H * g.W, vol = g.T * HW, ovol = g.To * g.Ho * g.Wo;
    parallel_for(0, g.N * g.C, grain_for(ovol, g.k), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* dst = xp + p * vol;
        const T* src = gp + p * ovol;
        for (int64_t ot = 0; ot < g.To; ++ot)
          for (int64_t oh = 0; oh < g.Ho; ++oh)
            for (int64_t ow = 0; ow < g.Wo; ++ow) {
              const int64_t o[3] = {ot, oh, ow};
              const Window3 wd = avg_window3(g, o, cip, dov);
              const T v = static_cast<T>(src[(ot * g.Ho + oh) * g.Wo + ow] / static_cast<T>(wd.div));
              for (int64_t t = wd.lo[0]; t < wd.hi[0]; ++t)
                for (int64_t h = wd.lo[1]; h < wd.hi[1]; ++h) {
                  T* __restrict row = dst + t * HW + h * g.W;
                  for (int64_t w = wd.lo[2]; w < wd.hi[2]; ++w) row[w] += v;
                }
            }
      }
    });
  });
}

// Adaptive windows: core/pool_math.h's, shared with the CUDA kernels.
using pool::end_index;
using pool::start_index;

void adaptive_avg_pool3d_into(const Tensor& x, const Tensor& y) {
  const int64_t N = x.size(0), C = x.size(1), T_ = x.size(2), H = x.size(3), W = x.size(4);
  const int64_t OT = y.size(2), OH = y.size(3), OW = y.size(4);
  dispatch3d(x.dtype(), "adaptive_avg_pool3d_cpu", false, [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    parallel_for(0, N * C, grain_for(T_ * H * W), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* src = xp + p * T_ * H * W;
        T* dst = yp + p * OT * OH * OW;
        for (int64_t ot = 0; ot < OT; ++ot) {
          const int64_t t0 = start_index(ot, OT, T_), t1 = end_index(ot, OT, T_);
          for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
            for (int64_t ow = 0; ow < OW; ++ow) {
              const int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
              T s = 0;
              for (int64_t t = t0; t < t1; ++t)
                for (int64_t h = h0; h < h1; ++h) {
                  const T* __restrict row = src + (t * H + h) * W;
                  for (int64_t w = w0; w < w1; ++w) s += row[w];
                }
              dst[(ot * OH + oh) * OW + ow] = s / static_cast<T>((t1 - t0) * (h1 - h0) * (w1 - w0));
            }
          }
        }
      }
    });
  });
}

void adaptive_avg_pool3d_backward_into(const Tensor& gy, const Tensor& gx) {
  const int64_t N = gx.size(0), C = gx.size(1), T_ = gx.size(2), H = gx.size(3), W = gx.size(4);
  const int64_t OT = gy.size(2), OH = gy.size(3), OW = gy.size(4);
  zero(gx);
  dispatch3d(gx.dtype(), "adaptive_avg_pool3d_backward_cpu", false, [&](auto tag) {
    using T = decltype(tag);
    const T* gp = gy.data_ptr<T>();
    T* xp = gx.data_ptr<T>();
    parallel_for(0, N * C, grain_for(T_ * H * W), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* dst = xp + p * T_ * H * W;
        const T* src = gp + p * OT * OH * OW;
        for (int64_t ot = 0; ot < OT; ++ot) {
          const int64_t t0 = start_index(ot, OT, T_), t1 = end_index(ot, OT, T_);
          for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
            for (int64_t ow = 0; ow < OW; ++ow) {
              const int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
              const T v = src[(ot * OH + oh) * OW + ow] / static_cast<T>((t1 - t0) * (h1 - h0) * (w1 - w0));
              for (int64_t t = t0; t < t1; ++t)
                for (int64_t h = h0; h < h1; ++h) {
                  T* __restrict row = dst + (t * H + h) * W;
                  for (int64_t w = w0; w < w1; ++w) row[w] += v;
                }
            }
          }
        }
      }
    });
  });
}

// adaptive_max_pool2d / 3d on [P, T, H, W] planes (T = 1 for 2-D): torch's windows, its rule for
// the maximum; indices flat in the plane. bfloat16 computes in float (2-D only, as torch).
template <class T>
void adaptive_max_into(const T* xp, T* yp, int64_t* ip, int64_t P, const int64_t in[3], const int64_t out[3]) {
  using A = acc_t<T>;
  const int64_t vol = in[0] * in[1] * in[2], ovol = out[0] * out[1] * out[2];
  parallel_for(0, P, grain_for(vol), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* src = xp + p * vol;
      for (int64_t ot = 0; ot < out[0]; ++ot) {
        const int64_t t0 = start_index(ot, out[0], in[0]), t1 = end_index(ot, out[0], in[0]);
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          const int64_t h0 = start_index(oh, out[1], in[1]), h1 = end_index(oh, out[1], in[1]);
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            const int64_t w0 = start_index(ow, out[2], in[2]), w1 = end_index(ow, out[2], in[2]);
            A best = -std::numeric_limits<A>::infinity();
            int64_t bi = (t0 * in[1] + h0) * in[2] + w0;
            for (int64_t t = t0; t < t1; ++t)
              for (int64_t h = h0; h < h1; ++h)
                for (int64_t w = w0; w < w1; ++w) {
                  const int64_t at = (t * in[1] + h) * in[2] + w;
                  const A v = static_cast<A>(src[at]);
                  if (v > best || std::isnan(v)) {
                    best = v;
                    bi = at;
                  }
                }
            const int64_t o = p * ovol + (ot * out[1] + oh) * out[2] + ow;
            yp[o] = static_cast<T>(best);
            ip[o] = bi;
          }
        }
      }
    }
  });
}

// x [N, C, spatial...] -> y [N, C, out spatial...]; `dims` spatial dims (2 or 3).
void adaptive_max_pool_into(const Tensor& x, const Tensor& y, const Tensor& idx, int dims) {
  const int64_t P = x.size(0) * x.size(1);
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  for (int a = 0; a < dims; ++a) in[3 - dims + a] = x.size(2 + a), out[3 - dims + a] = y.size(2 + a);
  const char* op = dims == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d_cpu";
  int64_t* ip = idx.data_ptr<int64_t>();
  switch (x.dtype()) {
    case DType::Float32:
      return adaptive_max_into(x.data_ptr<float>(), y.data_ptr<float>(), ip, P, in, out);
    case DType::Float64:
      return adaptive_max_into(x.data_ptr<double>(), y.data_ptr<double>(), ip, P, in, out);
    case DType::BFloat16:
      if (dims == 2) return adaptive_max_into(x.data_ptr<BFloat16>(), y.data_ptr<BFloat16>(), ip, P, in, out);
      break;
    default:
      break;
  }
  not_implemented_for(op, x.dtype());
}

// max_unpool: out zeroed, then out[p, indices[p, i]] = x[p, i] per plane; element bits are copied.
template <class T>
void unpool_into(const T* xp, const int64_t* ip, T* op, int64_t P, int64_t n, int64_t m, int64_t* bad) {
  parallel_for(0, P, grain_for(n), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p)
      for (int64_t i = 0; i < n; ++i) {
        const int64_t at = ip[p * n + i];
        if (at < 0 || at >= m) {
          __atomic_store_n(bad, at, __ATOMIC_RELAXED);
          continue;
        }
        op[p * m + at] = xp[p * n + i];
      }
  });
}

void max_unpool_into(const Tensor& x, const Tensor& idx, const Tensor& out) {
  zero(out);
  const int64_t P = x.size(0) * x.size(1), n = x.numel() / std::max<int64_t>(P, 1),
                m = out.numel() / std::max<int64_t>(P, 1);
  // Indices are checked as they are read; a bad one seen is reported (torch reports one too).
  constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
  int64_t bad = kNone;
  switch (x.dtype()) {
    case DType::Float32:
      unpool_into(x.data_ptr<float>(), idx.data_ptr<int64_t>(), out.data_ptr<float>(), P, n, m, &bad);
      break;
    case DType::Float64:
      unpool_into(x.data_ptr<double>(), idx.data_ptr<int64_t>(), out.data_ptr<double>(), P, n, m, &bad);
      break;
    default:
      not_implemented_for(out.dim() == 5 ? "max_unpooling3d_forward_out_cpu_frame" : "max_unpool2d", x.dtype());
  }
  if (bad != kNone) {
    std::string sizes;
    for (int64_t d = 2; d < out.dim(); ++d) {
      if (d > 2) sizes += 'x';
      sizes += std::to_string(out.size(d));
    }
    fail(Code::InvalidArgument, "Found an invalid max index: ", bad, " (output volumes are of size ", sizes);
  }
}

}  // namespace

Pool3dGeom pool3d_geom(const Tensor& x, const int64_t kernel[3], const int64_t stride_in[3], const int64_t pad[3],
                       const int64_t dilation_in[3], bool ceil_mode, bool is_max) {
  GLIA_CHECK(x.dim() == 4 || x.dim() == 5, Shape, "non-empty 4D or 5D (batch mode) tensor expected for input");
  const char* fn = is_max ? "max_pool3d_with_indices_out_cpu_template()" : "avg_pool3d()";
  const char* op = is_max ? "max_pool3d" : "avg_pool3d";
  Pool3dGeom g;
  const int64_t b = x.dim() - 4;
  g.N = b ? x.size(0) : 1, g.C = x.size(b), g.T = x.size(b + 1), g.H = x.size(b + 2), g.W = x.size(b + 3);
  for (int a = 0; a < 3; ++a) {
    g.k[a] = kernel[a];
    g.s[a] = stride_in[a] == 0 ? kernel[a] : stride_in[a];
    g.p[a] = pad[a];
    g.d[a] = is_max ? dilation_in[a] : 1;
  }
  // pooling_output_shape's checks (T, H, W in turn), then pool3d_shape_check's.
  for (int a = 0; a < 3; ++a) {
    GLIA_CHECK(g.s[a] != 0, InvalidArgument, "stride should not be zero");
    GLIA_CHECK(g.p[a] >= 0, InvalidArgument, "pad must be non-negative, but got pad: ", g.p[a]);
    GLIA_CHECK(g.p[a] <= g.k[a] / 2, InvalidArgument, "pad should be at most half of kernel size, but got pad=", g.p[a],
               " and kernel_size=", g.k[a]);
  }
  GLIA_CHECK(g.k[0] > 0 && g.k[1] > 0 && g.k[2] > 0, InvalidArgument,
             "kernel size should be greater than zero, but got kT: ", g.k[0], " kH: ", g.k[1], " kW: ", g.k[2]);
  GLIA_CHECK(g.s[0] > 0 && g.s[1] > 0 && g.s[2] > 0, InvalidArgument,
             "stride should be greater than zero, but got dT: ", g.s[0], " dH: ", g.s[1], " dW: ", g.s[2]);
  GLIA_CHECK(g.d[0] > 0 && g.d[1] > 0 && g.d[2] > 0, InvalidArgument,
             "dilation should be greater than zero, but got dilationT: ", g.d[0], " dilationH: ", g.d[1],
             " dilationW: ", g.d[2]);
  for (int64_t i = b; i < x.dim(); ++i)
    GLIA_CHECK(x.size(i) > 0, Shape, fn,
               ": Expected input's non-batch dimensions to have positive length, but input has a shape of ", x.shape(),
               " and non-batch dimension ", x.size(i), " has length zero!");
  if (!is_max)
    GLIA_CHECK(g.T >= g.k[0] && g.H >= g.k[1] && g.W >= g.k[2], Shape, "input image (T: ", g.T, " H: ", g.H,
               " W: ", g.W, ") smaller than kernel size (kT: ", g.k[0], " kH: ", g.k[1], " kW: ", g.k[2], ")");
  g.To = out_size(op, g.T, g.k[0], g.p[0], g.s[0], g.d[0], ceil_mode);
  g.Ho = out_size(op, g.H, g.k[1], g.p[1], g.s[1], g.d[1], ceil_mode);
  g.Wo = out_size(op, g.W, g.k[2], g.p[2], g.s[2], g.d[2], ceil_mode);
  GLIA_CHECK(g.To >= 1 && g.Ho >= 1 && g.Wo >= 1, Shape, "Given input size: (", g.C, "x", g.T, "x", g.H, "x", g.W,
             "). Calculated output size: (", g.C, "x", g.To, "x", g.Ho, "x", g.Wo, "). Output size is too small");
  return g;
}

// ---- meta parts: the checks are pool3d_geom's (and adaptive_avg_pool3d's in autograd/fn/pool.cpp)
// and the dtypes'; these convert, allocate on the input's device and run the kernel.

Tensor max_pool3d_forward(const Tensor& x_in, const Pool3dGeom& g, Tensor* indices) {
  check_dtype3d(x_in.dtype(), "max_pool3d_with_indices_cpu", false);
  const Device dev = x_in.device();
  Tensor x = contiguous(x_in);
  int64_t shape[5] = {g.N, g.C, g.To, g.Ho, g.Wo};
  Tensor y = empty(shape, x.dtype(), dev);
  Tensor idx = empty(shape, DType::Int64, dev);
  if (y.numel() > 0)
    run_kernel(KernelId::max_pool3d, dev, {&x}, {&y, &idx},
               {attr_ints(g.k), attr_ints(g.s), attr_ints(g.p), attr_ints(g.d)});
  if (indices) *indices = idx;
  return y;
}

Tensor max_pool3d_backward(const Tensor& gy, const Tensor& indices, const Pool3dGeom& g, DType dtype) {
  // max_pool2d's backward on [N, C, T * H, W]: the same scatter of gy through flat volume indices.
  PoolGeom g2{};
  g2.N = g.N, g2.C = g.C, g2.H = g.T * g.H, g2.W = g.W, g2.Ho = g.To * g.Ho, g2.Wo = g.Wo;
  const int64_t flat_out[4] = {g.N, g.C, g.To * g.Ho, g.Wo};
  Tensor gx = max_pool2d_backward(reshape(gy, flat_out), reshape(indices, flat_out), g2, dtype);
  const int64_t shape[5] = {g.N, g.C, g.T, g.H, g.W};
  return reshape(gx, shape);
}

Tensor avg_pool3d_forward(const Tensor& x_in, const Pool3dGeom& g, bool count_include_pad, int64_t divisor_override) {
  check_dtype3d(x_in.dtype(), "avg_pool3d_out_frame", true);
  const Device dev = x_in.device();
  Tensor x = contiguous(x_in);
  int64_t shape[5] = {g.N, g.C, g.To, g.Ho, g.Wo};
  Tensor y = empty(shape, x.dtype(), dev);
  if (y.numel() > 0)
    run_kernel(KernelId::avg_pool3d, dev, {&x}, {&y},
               {attr_ints(g.k), attr_ints(g.s), attr_ints(g.p), attr_i(count_include_pad), attr_i(divisor_override)});
  return y;
}

Tensor avg_pool3d_backward(const Tensor& gy_in, const Pool3dGeom& g, bool count_include_pad, int64_t divisor_override,
                           DType dtype) {
  const Device dev = gy_in.device();
  Tensor gy = contiguous(to_dtype(gy_in, dtype));
  int64_t shape[5] = {g.N, g.C, g.T, g.H, g.W};
  Tensor gx = empty(shape, dtype, dev);
  if (gx.numel() > 0)
    run_kernel(KernelId::avg_pool3d_backward, dev, {&gy}, {&gx},
               {attr_ints(g.k), attr_ints(g.s), attr_ints(g.p), attr_i(count_include_pad), attr_i(divisor_override)});
  return gx;
}

Tensor adaptive_avg_pool3d_forward(const Tensor& x_in, int64_t oT, int64_t oH, int64_t oW) {
  check_dtype3d(x_in.dtype(), "adaptive_avg_pool3d_cpu", false);
  Tensor x = contiguous(x_in);
  int64_t shape[5] = {x.size(0), x.size(1), oT, oH, oW};
  Tensor y = empty(shape, x.dtype(), x.device());
  if (y.numel() > 0) run_kernel(KernelId::adaptive_avg_pool3d, x.device(), {&x}, {&y});
  return y;
}

Tensor adaptive_avg_pool3d_backward(const Tensor& gy_in, int64_t T, int64_t H, int64_t W, DType dtype) {
  Tensor gy = contiguous(to_dtype(gy_in, dtype));
  int64_t shape[5] = {gy.size(0), gy.size(1), T, H, W};
  Tensor gx = empty(shape, dtype, gy.device());
  if (gx.numel() > 0) run_kernel(KernelId::adaptive_avg_pool3d_backward, gy.device(), {&gy}, {&gx});
  return gx;
}

Tensor adaptive_max_pool_forward(const Tensor& x_in, IntSpan out_size, Tensor* indices) {
  const bool three = out_size.size() == 3;
  const DType t = x_in.dtype();
  if (!(t == DType::Float32 || t == DType::Float64 || (!three && t == DType::BFloat16)))
    not_implemented_for(three ? "adaptive_max_pool3d_cpu" : "adaptive_max_pool2d", t);
  const Device dev = x_in.device();
  Tensor x = contiguous(x_in);
  Dims shape{x.size(0), x.size(1)};
  for (int64_t v : out_size) shape.push_back(v);
  Tensor y = empty(shape, x.dtype(), dev);
  Tensor idx = empty(shape, DType::Int64, dev);
  if (y.numel() > 0)
    run_kernel(three ? KernelId::adaptive_max_pool3d : KernelId::adaptive_max_pool2d, dev, {&x}, {&y, &idx}, {});
  if (indices) *indices = idx;
  return y;
}

Tensor max_unpool_forward(const Tensor& x_in, const Tensor& indices_in, IntSpan out_size) {
  const bool three = out_size.size() == 3;
  const Device dev =
      common_device(three ? "max_unpooling3d_forward_out" : "max_unpooling2d_forward_out", x_in, indices_in, false);
  if (x_in.dtype() != DType::Float32 && x_in.dtype() != DType::Float64)
    not_implemented_for(three ? "max_unpooling3d_forward_out_cpu_frame" : "max_unpool2d", x_in.dtype());
  Tensor x = contiguous(x_in), idx = contiguous(indices_in);
  Dims shape{x.size(0), x.size(1)};
  for (int64_t v : out_size) shape.push_back(v);
  Tensor out = empty(shape, x.dtype(), dev);
  if (out.numel() > 0 && x.numel() > 0) {
    run_kernel(KernelId::max_unpool, dev, {&x, &idx}, {&out}, {});
  } else if (out.numel() > 0) {
    out = zeros(shape, x.dtype(), dev);
  }
  return out;
}
}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

namespace {

using ops::Pool3dGeom;

// The geometry from x [N, C, T, H, W], y [N, C, To, Ho, Wo] and the attributes kernel, stride,
// padding (.ints) and, with `dilated`, dilation (.ints).
Pool3dGeom geom3(const Tensor& x, const Tensor& y, const KernelArgs& k, bool dilated) {
  Pool3dGeom g;
  g.N = x.size(0), g.C = x.size(1), g.T = x.size(2), g.H = x.size(3), g.W = x.size(4);
  g.To = y.size(2), g.Ho = y.size(3), g.Wo = y.size(4);
  for (int a = 0; a < 3; ++a) {
    g.k[a] = k.attr(0).ints[a], g.s[a] = k.attr(1).ints[a], g.p[a] = k.attr(2).ints[a];
    g.d[a] = dilated ? k.attr(3).ints[a] : 1;
  }
  return g;
}

}  // namespace

void max_pool3d_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  ops::max_pool3d_into(x, geom3(x, y, k, true), y, k.output(1));
}

void avg_pool3d_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  ops::avg_pool3d_into(x, geom3(x, y, k, false), k.attr(3).i != 0, k.attr(4).i, y);
}

void avg_pool3d_backward_kernel(const KernelArgs& k) {
  const Tensor &gy = k.input(0), &gx = k.output(0);
  ops::avg_pool3d_backward_into(gy, geom3(gx, gy, k, false), k.attr(3).i != 0, k.attr(4).i, gx);
}

void adaptive_avg_pool3d_kernel(const KernelArgs& k) { ops::adaptive_avg_pool3d_into(k.input(0), k.output(0)); }

void adaptive_avg_pool3d_backward_kernel(const KernelArgs& k) {
  ops::adaptive_avg_pool3d_backward_into(k.input(0), k.output(0));
}

void adaptive_max_pool2d_kernel(const KernelArgs& k) {
  ops::adaptive_max_pool_into(k.input(0), k.output(0), k.output(1), 2);
}

void adaptive_max_pool3d_kernel(const KernelArgs& k) {
  ops::adaptive_max_pool_into(k.input(0), k.output(0), k.output(1), 3);
}

void max_unpool_kernel(const KernelArgs& k) { ops::max_unpool_into(k.input(0), k.input(1), k.output(0)); }

}  // namespace glia::cpu
