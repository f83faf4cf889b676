// 2-D pooling: one pass per output plane, parallel over the N * C planes. Meta parts (glia::ops)
// and CPU kernels (glia::cpu), Note [Op = meta + kernel + rule].
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "core/checked.h"
#include "core/dispatch.h"
#include "core/pool_math.h"
#include "ops/conv.h"
#include "ops/cpu/cpu_features.h"
#include "ops/cpu/loops.h"
#include "ops/linalg.h"

// GCC 12's avx512fintrin.h trips -Wuninitialized on its own _mm512_undefined_* placeholders.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace glia::ops {

namespace {

// One row of 2x2 / stride-2 max pooling (float, AVX-512, 16 outputs a step, masked tail): rows r0
// and r1 of the input, Wo outputs into dst and their flat indices (base + column) into id. Same rule
// as the scalar loop: taps in scan order, the first maximum, a NaN wins (the last one).
#if GLIA_X86
__attribute__((target("avx512f"))) void max_pool_2x2_row_avx512(const float* r0, const float* r1, int64_t W, int64_t Wo,
                                                                int64_t base, float* dst, int64_t* id) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512i off1 = _mm512_set1_epi32(1), offw = _mm512_set1_epi32(static_cast<int>(W)),
                offw1 = _mm512_set1_epi32(static_cast<int>(W + 1));
  for (int64_t ow = 0; ow < Wo; ow += 16) {
    const int64_t n = std::min<int64_t>(16, Wo - ow);
    const __mmask16 mo = static_cast<__mmask16>((1u << n) - 1);
    // 2n input columns from 2 * ow, loaded as two halves of 16.
    const int64_t c = 2 * n;
    const __mmask16 ml = static_cast<__mmask16>(c >= 16 ? 0xffff : (1u << c) - 1);
    const __mmask16 mh = static_cast<__mmask16>(c <= 16 ? 0 : (1u << (c - 16)) - 1);
    __m512 a0 = _mm512_maskz_loadu_ps(ml, r0 + 2 * ow), a1 = _mm512_maskz_loadu_ps(mh, r0 + 2 * ow + 16);
    __m512 b0 = _mm512_maskz_loadu_ps(ml, r1 + 2 * ow), b1 = _mm512_maskz_loadu_ps(mh, r1 + 2 * ow + 16);
    __m512 v1 = _mm512_permutex2var_ps(a0, odd, a1), v2 = _mm512_permutex2var_ps(b0, even, b1),
           v3 = _mm512_permutex2var_ps(b0, odd, b1);
    __m512 best = _mm512_permutex2var_ps(a0, even, a1);
    __m512i bi = _mm512_setzero_si512();
    __mmask16 t = _mm512_cmp_ps_mask(v1, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v1, v1, _CMP_UNORD_Q);
    best = _mm512_mask_mov_ps(best, t, v1);
    bi = _mm512_mask_mov_epi32(bi, t, off1);
    t = _mm512_cmp_ps_mask(v2, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v2, v2, _CMP_UNORD_Q);
    best = _mm512_mask_mov_ps(best, t, v2);
    bi = _mm512_mask_mov_epi32(bi, t, offw);
    t = _mm512_cmp_ps_mask(v3, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v3, v3, _CMP_UNORD_Q);
    best = _mm512_mask_mov_ps(best, t, v3);
    bi = _mm512_mask_mov_epi32(bi, t, offw1);
    _mm512_mask_storeu_ps(dst + ow, mo, best);
    // index = base + 2 * (ow + lane) + bi, in int64 (`even` is 2 * lane).
    __m512i rel = _mm512_add_epi32(bi, even);
    __m512i b64 = _mm512_set1_epi64(base + 2 * ow);
    _mm512_mask_storeu_epi64(id + ow, static_cast<__mmask8>(mo & 0xff),
                             _mm512_add_epi64(b64, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(rel))));
    _mm512_mask_storeu_epi64(id + ow + 8, static_cast<__mmask8>(mo >> 8),
                             _mm512_add_epi64(b64, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(rel, 1))));
  }
}
#else
void max_pool_2x2_row_avx512(const float* r0, const float* r1, int64_t W, int64_t Wo, int64_t base, float* dst,
                             int64_t* id) {
  x86_only();
}
#endif

bool has_avx512f() { return cpu_features().avx512f; }

// torch's pooling_output_shape.
// torch's pooling_output_shape, with Checked arithmetic (Note [Checked sizes]); also checks that
// the last window's end, (out - 1) * stride - pad + (k - 1) * dil + 1, is representable, so the
// kernels' window arithmetic cannot overflow.
int64_t pool_out(const char* op, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const Checked span = Checked(dil, op) * (k - 1);
  const Checked num = Checked(in, op) + Checked(2) * pad - span - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (floor_div(num, stride) + 1).value();
  // The last window must start inside the input or the left padding.
  if (ceil_mode && ((Checked(out, op) - 1) * stride).value() >= (Checked(in, op) + pad).value()) --out;
  if (out > 0) (void)((Checked(out, op) - 1) * stride - pad + span + 1);
  return out;
}

// Runs body(T{}) for the floating types (bfloat16 computes in float); `op` names the op in errors.
template <class F>
void dispatch_pool(DType t, const char* op, bool allow_int64, F&& body) {
  switch (t) {
    case DType::Float32:
      return body(float{});
    case DType::Float64:
      return body(double{});
    case DType::BFloat16:
      return body(BFloat16{});
    case DType::Int64:
      if (allow_int64) return body(int64_t{});
      break;
    default:
      break;
  }
  not_implemented_for(op, t);
}

using pool::first_tap_inside;  // core/pool_math.h, shared with the CUDA kernels

int64_t plane_grain(int64_t per_plane) { return std::max<int64_t>(1, kGrain / std::max<int64_t>(per_plane, 1)); }
// Work per plane of a pooling window loop: HoWo * kh * kw, saturated (kernel sizes may be huge).
int64_t plane_grain(int64_t HoWo, int64_t kh, int64_t kw) {
  int64_t w;
  if (__builtin_mul_overflow(HoWo, kh, &w) || __builtin_mul_overflow(w, kw, &w)) return 1;
  return plane_grain(w);
}

}  // namespace

PoolGeom pool2d_geom(const Tensor& x, const int64_t kernel[2], const int64_t stride_in[2], const int64_t pad[2],
                     const int64_t dilation[2], bool ceil_mode, bool is_max) {
  GLIA_CHECK(x.dim() == 4, Shape, "non-empty 3D or 4D (batch mode) tensor expected for input");
  GLIA_CHECK(kernel[0] > 0 && kernel[1] > 0, InvalidArgument,
             "kernel size should be greater than zero, but got kH: ", kernel[0], " kW: ", kernel[1]);
  int64_t stride[2] = {stride_in[0] == 0 ? kernel[0] : stride_in[0], stride_in[1] == 0 ? kernel[1] : stride_in[1]};
  GLIA_CHECK(stride[0] > 0 && stride[1] > 0, InvalidArgument,
             "stride should be greater than zero, but got dH: ", stride[0], " dW: ", stride[1]);
  GLIA_CHECK(dilation[0] > 0 && dilation[1] > 0, InvalidArgument,
             "dilation should be greater than zero, but got dilationH: ", dilation[0], " dilationW: ", dilation[1]);
  GLIA_CHECK(pad[0] >= 0 && pad[1] >= 0, InvalidArgument, "pad must be non-negative, but got padH: ", pad[0],
             " padW: ", pad[1]);
  GLIA_CHECK(pad[0] <= kernel[0] / 2 && pad[1] <= kernel[1] / 2, InvalidArgument,
             "pad should be at most half of kernel size, but got pad=", pad[0] > kernel[0] / 2 ? pad[0] : pad[1],
             " and kernel_size=", pad[0] > kernel[0] / 2 ? kernel[0] : kernel[1]);
  GLIA_CHECK(x.size(1) != 0 && x.size(2) != 0 && x.size(3) != 0, Shape,
             "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:", x.shape());
  PoolGeom g;
  g.N = x.size(0), g.C = x.size(1), g.H = x.size(2), g.W = x.size(3);
  g.kh = kernel[0], g.kw = kernel[1], g.sh = stride[0], g.sw = stride[1], g.ph = pad[0], g.pw = pad[1];
  g.dh = dilation[0], g.dw = dilation[1];
  const char* op = is_max ? "max_pool2d" : "avg_pool2d";
  g.Ho = pool_out(op, g.H, g.kh, g.ph, g.sh, g.dh, ceil_mode);
  g.Wo = pool_out(op, g.W, g.kw, g.pw, g.sw, g.dw, ceil_mode);
  GLIA_CHECK(g.Ho >= 1 && g.Wo >= 1, Shape, "Given input size: (", g.C, "x", g.H, "x", g.W,
             "). Calculated output size: (", g.C, "x", g.Ho, "x", g.Wo, "). Output size is too small");
  return g;
}

namespace {

// ---- the bodies of the CPU kernels: x, gy and indices contiguous, outputs allocated.

void max_pool2d_into(const Tensor& x, const PoolGeom& g, const Tensor& y, const Tensor& idx) {
  dispatch_pool(x.dtype(), "max_pool2d", false, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    int64_t* ip = idx.data_ptr<int64_t>();
    const int64_t HW = g.H * g.W, HoWo = g.Ho * g.Wo;
    // Windows all inside the input (no padding, no dilation, no partial ceil_mode window): tap-major
    // over a row of windows with branchless updates, a loop the compiler vectorises.
    const bool inside = g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1 && (g.Ho - 1) * g.sh + g.kh <= g.H &&
                        (g.Wo - 1) * g.sw + g.kw <= g.W;
    if (inside && g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2) {
      // The common 2x2 / stride 2 window: four taps per output in scan order, torch's rule (the first
      // maximum, a NaN wins: the last one in scan order).
      const bool simd = has_avx512f();
      parallel_for(0, g.N * g.C, plane_grain(HoWo * 4), [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          const T* src = xp + p * HW;
          T* __restrict dst = yp + p * HoWo;
          int64_t* __restrict id = ip + p * HoWo;
          for (int64_t oh = 0; oh < g.Ho; ++oh) {
            const int64_t base = 2 * oh * g.W;
            const T* r0 = src + base;
            const T* r1 = r0 + g.W;
            if constexpr (std::is_same_v<T, float>) {
              if (simd && g.W < (int64_t{1} << 30)) {
                max_pool_2x2_row_avx512(r0, r1, g.W, g.Wo, base, dst + oh * g.Wo, id + oh * g.Wo);
                continue;
              }
            }
            for (int64_t ow = 0; ow < g.Wo; ++ow) {
              A v[4] = {static_cast<A>(r0[2 * ow]), static_cast<A>(r0[2 * ow + 1]), static_cast<A>(r1[2 * ow]),
                        static_cast<A>(r1[2 * ow + 1])};
              const int64_t off[4] = {0, 1, g.W, g.W + 1};
              A best = v[0];
              int64_t bi = 0;
              for (int t = 1; t < 4; ++t) {
                bool take = (v[t] > best) | (v[t] != v[t]);
                best = take ? v[t] : best;
                bi = take ? off[t] : bi;
              }
              dst[oh * g.Wo + ow] = static_cast<T>(best);
              id[oh * g.Wo + ow] = base + 2 * ow + bi;
            }
          }
        }
      });
      return;
    }
    if (inside) {
      parallel_for(0, g.N * g.C, plane_grain(HoWo, g.kh, g.kw), [&](int64_t b, int64_t e) {
        std::unique_ptr<A[]> best(new A[g.Wo]);
        for (int64_t p = b; p < e; ++p) {
          const T* src = xp + p * HW;
          for (int64_t oh = 0; oh < g.Ho; ++oh) {
            T* __restrict dst = yp + p * HoWo + oh * g.Wo;
            int64_t* __restrict id = ip + p * HoWo + oh * g.Wo;
            A* __restrict bv = best.get();
            for (int64_t ow = 0; ow < g.Wo; ++ow) {
              bv[ow] = -std::numeric_limits<A>::infinity();
              id[ow] = oh * g.sh * g.W + ow * g.sw;
            }
            for (int64_t i = 0; i < g.kh; ++i)
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t base = (oh * g.sh + i) * g.W + j;
                const T* __restrict row = src + base;
                for (int64_t ow = 0; ow < g.Wo; ++ow) {
                  A v = static_cast<A>(row[ow * g.sw]);
                  bool take = (v > bv[ow]) | (v != v);
                  bv[ow] = take ? v : bv[ow];
                  id[ow] = take ? base + ow * g.sw : id[ow];
                }
              }
            for (int64_t ow = 0; ow < g.Wo; ++ow) dst[ow] = static_cast<T>(bv[ow]);
          }
        }
      });
      return;
    }
    parallel_for(0, g.N * g.C, plane_grain(HoWo, g.kh, g.kw), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* src = xp + p * HW;
        T* dst = yp + p * HoWo;
        int64_t* id = ip + p * HoWo;
        for (int64_t oh = 0; oh < g.Ho; ++oh) {
          int64_t h0 = oh * g.sh - g.ph;
          int64_t h1 = std::min(h0 + (g.kh - 1) * g.dh + 1, g.H);
          h0 = first_tap_inside(h0, g.dh);
          for (int64_t ow = 0; ow < g.Wo; ++ow) {
            int64_t w0 = ow * g.sw - g.pw;
            int64_t w1 = std::min(w0 + (g.kw - 1) * g.dw + 1, g.W);
            w0 = first_tap_inside(w0, g.dw);
            A best = -std::numeric_limits<A>::infinity();
            int64_t bi = h0 * g.W + w0;
            for (int64_t h = h0; h < h1; h += g.dh)
              for (int64_t w = w0; w < w1; w += g.dw) {
                A v = static_cast<A>(src[h * g.W + w]);
                // torch's rule: a NaN wins (the last one in scan order), else the first maximum.
                if (pool::max_pool_takes(v, best)) {
                  best = v;
                  bi = h * g.W + w;
                }
              }
            dst[oh * g.Wo + ow] = static_cast<T>(best);
            id[oh * g.Wo + ow] = bi;
          }
        }
      }
    });
  });
}

// Sets every element of the contiguous t to zero (all-zero bits: 0 for the pooling dtypes).
void zero_fill(const Tensor& t) { std::memset(t.data(), 0, static_cast<size_t>(t.numel()) * itemsize(t.dtype())); }

void max_pool2d_backward_into(const Tensor& gy, const Tensor& indices, const PoolGeom& g, const Tensor& gx) {
  zero_fill(gx);
  dispatch_pool(gx.dtype(), "max_pool2d_backward", false, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* gp = gy.data_ptr<T>();
    const int64_t* ip = indices.data_ptr<int64_t>();
    T* xp = gx.data_ptr<T>();
    const int64_t HW = g.H * g.W, HoWo = g.Ho * g.Wo;
    parallel_for(0, g.N * g.C, plane_grain(HoWo), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* dst = xp + p * HW;
        for (int64_t o = 0; o < HoWo; ++o) {
          int64_t i = ip[p * HoWo + o];
          dst[i] = static_cast<T>(static_cast<A>(dst[i]) + static_cast<A>(gp[p * HoWo + o]));
        }
      }
    });
  });
}

// Window of output (oh, ow) of avg_pool2d, clipped, and its divisor (core/pool_math.h, shared with the CUDA
// kernels).
using pool::AvgWindow;
inline AvgWindow avg_window(const PoolGeom& g, int64_t oh, int64_t ow, bool count_include_pad,
                            int64_t divisor_override) {
  return pool::avg_window(oh, ow, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, count_include_pad, divisor_override);
}

void avg_pool2d_into(const Tensor& x, const PoolGeom& g, bool count_include_pad, int64_t divisor_override,
                     const Tensor& y) {
  dispatch_pool(x.dtype(), "avg_pool2d", true, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    const int64_t HW = g.H * g.W, HoWo = g.Ho * g.Wo;
    parallel_for(0, g.N * g.C, plane_grain(HoWo, g.kh, g.kw), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* src = xp + p * HW;
        T* dst = yp + p * HoWo;
        for (int64_t oh = 0; oh < g.Ho; ++oh)
          for (int64_t ow = 0; ow < g.Wo; ++ow) {
            AvgWindow wd = avg_window(g, oh, ow, count_include_pad, divisor_override);
            if (wd.h0 >= wd.h1 || wd.w0 >= wd.w1) {
              dst[oh * g.Wo + ow] = T(0);
              continue;
            }
            A s = 0;
            for (int64_t h = wd.h0; h < wd.h1; ++h)
              for (int64_t w = wd.w0; w < wd.w1; ++w) s += static_cast<A>(src[h * g.W + w]);
            dst[oh * g.Wo + ow] = static_cast<T>(s / static_cast<A>(wd.div));
          }
      }
    });
  });
}

void avg_pool2d_backward_into(const Tensor& gy, const PoolGeom& g, bool count_include_pad, int64_t divisor_override,
                              const Tensor& gx) {
  zero_fill(gx);
  dispatch_pool(gx.dtype(), "avg_pool2d_backward", false, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* gp = gy.data_ptr<T>();
    T* xp = gx.data_ptr<T>();
    const int64_t HW = g.H * g.W, HoWo = g.Ho * g.Wo;
    parallel_for(0, g.N * g.C, plane_grain(HoWo, g.kh, g.kw), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* dst = xp + p * HW;
        const T* src = gp + p * HoWo;
        for (int64_t oh = 0; oh < g.Ho; ++oh)
          for (int64_t ow = 0; ow < g.Wo; ++ow) {
            AvgWindow wd = avg_window(g, oh, ow, count_include_pad, divisor_override);
            A v = static_cast<A>(src[oh * g.Wo + ow]) / static_cast<A>(wd.div);
            for (int64_t h = wd.h0; h < wd.h1; ++h)
              for (int64_t w = wd.w0; w < wd.w1; ++w)
                dst[h * g.W + w] = static_cast<T>(static_cast<A>(dst[h * g.W + w]) + v);
          }
      }
    });
  });
}

using pool::end_index;  // core/pool_math.h, shared with the CUDA kernels
using pool::start_index;

void adaptive_avg_pool2d_into(const Tensor& x, const Tensor& y) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3), OH = y.size(2), OW = y.size(3);
  dispatch_pool(x.dtype(), "adaptive_avg_pool2d", false, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    parallel_for(0, N * C, plane_grain(H * W), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* src = xp + p * H * W;
        T* dst = yp + p * OH * OW;
        for (int64_t oh = 0; oh < OH; ++oh) {
          int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
            A s = 0;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) s += static_cast<A>(src[h * W + w]);
            dst[oh * OW + ow] = static_cast<T>(s / static_cast<A>((h1 - h0) * (w1 - w0)));
          }
        }
      }
    });
  });
}

void adaptive_avg_pool2d_backward_into(const Tensor& gy, const Tensor& gx) {
  const int64_t N = gy.size(0), C = gy.size(1), OH = gy.size(2), OW = gy.size(3), H = gx.size(2), W = gx.size(3);
  zero_fill(gx);
  dispatch_pool(gx.dtype(), "adaptive_avg_pool2d_backward", false, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* gp = gy.data_ptr<T>();
    T* xp = gx.data_ptr<T>();
    parallel_for(0, N * C, plane_grain(H * W), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* dst = xp + p * H * W;
        const T* src = gp + p * OH * OW;
        for (int64_t oh = 0; oh < OH; ++oh) {
          int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
            A v = static_cast<A>(src[oh * OW + ow]) / static_cast<A>((h1 - h0) * (w1 - w0));
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) dst[h * W + w] = static_cast<T>(static_cast<A>(dst[h * W + w]) + v);
          }
        }
      }
    });
  });
}

}  // namespace

// ---- meta parts (Note [Op = meta + kernel + rule] in core/dispatch.h): the checks are
// pool2d_geom's (and adaptive_avg_pool2d's in autograd/fn/conv.cpp) and the dtypes'; these convert,
// allocate on the input's device and run the kernel.

namespace {

// dispatch_pool's dtypes, with its message.
void check_pool_dtype(DType t, const char* op, bool allow_int64) {
  if (t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16 || (allow_int64 && t == DType::Int64)) return;
  not_implemented_for(op, t);
}

}  // namespace

Tensor max_pool2d_forward(const Tensor& x_in, const PoolGeom& g, Tensor* indices) {
  check_pool_dtype(x_in.dtype(), "max_pool2d", false);
  const Device dev = x_in.device();
  Tensor x = contiguous(x_in);
  int64_t shape[4] = {g.N, g.C, g.Ho, g.Wo};
  Tensor y = empty(shape, x.dtype(), dev);
  Tensor idx = empty(shape, DType::Int64, dev);
  if (y.numel() > 0) {
    const int64_t k[2] = {g.kh, g.kw}, s[2] = {g.sh, g.sw}, p[2] = {g.ph, g.pw}, d[2] = {g.dh, g.dw};
    run_kernel(KernelId::max_pool2d, dev, {&x}, {&y, &idx}, {attr_ints(k), attr_ints(s), attr_ints(p), attr_ints(d)});
  }
  if (indices) *indices = idx;
  return y;
}

Tensor max_pool2d_backward(const Tensor& gy_in, const Tensor& indices, const PoolGeom& g, DType dtype) {
  const Device dev = common_device("max_pool2d_with_indices_backward", gy_in, indices, false);
  Tensor gy = contiguous(to_dtype(gy_in, dtype)), idx = contiguous(indices);
  int64_t shape[4] = {g.N, g.C, g.H, g.W};
  Tensor gx = empty(shape, dtype, dev);
  if (gx.numel() > 0) run_kernel(KernelId::max_pool2d_backward, dev, {&gy, &idx}, {&gx});
  return gx;
}

Tensor avg_pool2d_forward(const Tensor& x_in, const PoolGeom& g, bool count_include_pad, int64_t divisor_override) {
  check_pool_dtype(x_in.dtype(), "avg_pool2d", true);
  const Device dev = x_in.device();
  Tensor x = contiguous(x_in);
  int64_t shape[4] = {g.N, g.C, g.Ho, g.Wo};
  Tensor y = empty(shape, x.dtype(), dev);
  if (y.numel() > 0) {
    const int64_t k[2] = {g.kh, g.kw}, s[2] = {g.sh, g.sw}, p[2] = {g.ph, g.pw};
    run_kernel(KernelId::avg_pool2d, dev, {&x}, {&y},
               {attr_ints(k), attr_ints(s), attr_ints(p), attr_i(count_include_pad), attr_i(divisor_override)});
  }
  return y;
}

Tensor avg_pool2d_backward(const Tensor& gy_in, const PoolGeom& g, bool count_include_pad, int64_t divisor_override,
                           DType dtype) {
  const Device dev = gy_in.device();
  Tensor gy = contiguous(to_dtype(gy_in, dtype));
  int64_t shape[4] = {g.N, g.C, g.H, g.W};
  Tensor gx = empty(shape, dtype, dev);
  if (gx.numel() > 0) {
    const int64_t k[2] = {g.kh, g.kw}, s[2] = {g.sh, g.sw}, p[2] = {g.ph, g.pw};
    run_kernel(KernelId::avg_pool2d_backward, dev, {&gy}, {&gx},
               {attr_ints(k), attr_ints(s), attr_ints(p), attr_i(count_include_pad), attr_i(divisor_override)});
  }
  return gx;
}

Tensor adaptive_avg_pool2d_forward(const Tensor& x_in, int64_t OH, int64_t OW) {
  check_pool_dtype(x_in.dtype(), "adaptive_avg_pool2d", false);
  Tensor x = contiguous(x_in);
  int64_t shape[4] = {x.size(0), x.size(1), OH, OW};
  Tensor y = empty(shape, x.dtype(), x.device());
  if (y.numel() > 0) run_kernel(KernelId::adaptive_avg_pool2d, x.device(), {&x}, {&y});
  return y;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& gy_in, int64_t H, int64_t W, DType dtype) {
  Tensor gy = contiguous(to_dtype(gy_in, dtype));
  int64_t shape[4] = {gy.size(0), gy.size(1), H, W};
  Tensor gx = empty(shape, dtype, gy.device());
  if (gx.numel() > 0) run_kernel(KernelId::adaptive_avg_pool2d_backward, gy.device(), {&gy}, {&gx});
  return gx;
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

namespace {

using ops::PoolGeom;

// The geometry from x [N, C, H, W], y [N, C, Ho, Wo] and the attributes kernel, stride, padding
// (.ints) and, with `dilated`, dilation (.ints).
PoolGeom pool_geom(const Tensor& x, const Tensor& y, const KernelArgs& k, bool dilated) {
  PoolGeom g;
  g.N = x.size(0), g.C = x.size(1), g.H = x.size(2), g.W = x.size(3), g.Ho = y.size(2), g.Wo = y.size(3);
  g.kh = k.attr(0).ints[0], g.kw = k.attr(0).ints[1], g.sh = k.attr(1).ints[0], g.sw = k.attr(1).ints[1];
  g.ph = k.attr(2).ints[0], g.pw = k.attr(2).ints[1];
  if (dilated) g.dh = k.attr(3).ints[0], g.dw = k.attr(3).ints[1];
  return g;
}

}  // namespace

void max_pool2d_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  ops::max_pool2d_into(x, pool_geom(x, y, k, true), y, k.output(1));
}

void max_pool2d_backward_kernel(const KernelArgs& k) {
  const Tensor &gy = k.input(0), &gx = k.output(0);
  PoolGeom g{};
  g.N = gx.size(0), g.C = gx.size(1), g.H = gx.size(2), g.W = gx.size(3), g.Ho = gy.size(2), g.Wo = gy.size(3);
  ops::max_pool2d_backward_into(gy, k.input(1), g, gx);
}

void avg_pool2d_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  ops::avg_pool2d_into(x, pool_geom(x, y, k, false), k.attr(3).i != 0, k.attr(4).i, y);
}

void avg_pool2d_backward_kernel(const KernelArgs& k) {
  const Tensor &gy = k.input(0), &gx = k.output(0);
  ops::avg_pool2d_backward_into(gy, pool_geom(gx, gy, k, false), k.attr(3).i != 0, k.attr(4).i, gx);
}

void adaptive_avg_pool2d_kernel(const KernelArgs& k) { ops::adaptive_avg_pool2d_into(k.input(0), k.output(0)); }

void adaptive_avg_pool2d_backward_kernel(const KernelArgs& k) {
  ops::adaptive_avg_pool2d_backward_into(k.input(0), k.output(0));
}

}  // namespace glia::cpu
