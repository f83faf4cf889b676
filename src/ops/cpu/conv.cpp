// conv2d and its gradients: im2col + GEMM (OpenBLAS), a copy-free path for
// 1x1 stride-1 unpadded kernels, a direct path for depthwise forward,
// parallel over the batch. Meta parts (glia::ops) and CPU kernels (glia::cpu),
// Note [Op = meta + kernel + rule].
#include "ops/conv.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/checked.h"
#include "core/dispatch.h"
#include "core/scratch.h"
#include "ops/cpu/cpu_features.h"
#include "ops/cpu/loops.h"
#include "ops/linalg.h"
#include "ops/reduce.h"

namespace glia::ops {

std::string torch_tensor_type(DType t, Device d) {
  std::string s = "torch.";
  if (!d.is_cpu()) s += std::string(device_type_name(d.type)) + ".";
  return s + scalar_type_name(t) + "Tensor";
}

namespace {

void check_conv_params(const int64_t stride[2], const int64_t pad[2], const int64_t dilation[2], int64_t groups) {
  GLIA_CHECK(stride[0] > 0 && stride[1] > 0, InvalidArgument, "non-positive stride is not supported");
  GLIA_CHECK(pad[0] >= 0 && pad[1] >= 0, InvalidArgument, "negative padding is not supported");
  GLIA_CHECK(dilation[0] > 0 && dilation[1] > 0, InvalidArgument, "non-positive dilation is not supported");
  GLIA_CHECK(groups > 0, InvalidArgument, "non-positive groups is not supported");
}

void check_conv_dtypes(const Tensor& x, const Tensor& w, const Tensor& bias, bool transposed) {
  // torch's transposed path (slow_conv_transpose2d) reports a mismatch as scalar types.
  GLIA_CHECK(!transposed || x.dtype() == w.dtype(), DType, "expected scalar type ", scalar_type_name(x.dtype()),
             " but found ", scalar_type_name(w.dtype()));
  // torch compares the tensor types, dtype and device together (the devices' message is the same).
  if (x.dtype() != w.dtype() || x.device() != w.device())
    fail(x.dtype() != w.dtype() ? Code::DType : Code::Device, "Input type (", torch_tensor_type(x.dtype(), x.device()),
         ") and weight type (", torch_tensor_type(w.dtype(), w.device()),
         ") should be the same or input should be a MKLDNN tensor and weight is a dense tensor");
  if (bias.defined() && (bias.dtype() != x.dtype() || bias.device() != x.device()))
    fail(bias.dtype() != x.dtype() ? Code::DType : Code::Device, "Input type (",
         torch_tensor_type(x.dtype(), x.device()), ") and bias type (", torch_tensor_type(bias.dtype(), bias.device()),
         ") should be the same");
  DType t = x.dtype();
  // float16 too on CUDA, where cuDNN runs it (torch's CUDA convolutions take it, its CPU ones do not).
  const bool half_on_cuda = t == DType::Float16 && x.device().type == DeviceType::CUDA;
  if (t != DType::Float32 && t != DType::Float64 && t != DType::BFloat16 && t != DType::Int64 && !half_on_cuda)
    not_implemented_for("slow_conv2d_cpu", t);
}

}  // namespace

ConvGeom conv2d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                     const int64_t pad[2], const int64_t dilation[2], int64_t groups, int pad_mode) {
  GLIA_CHECK(x.dim() == 4, Shape,
             "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: ", x.shape());
  GLIA_CHECK(w.dim() == 4, Shape,
             "Expected 4D weight [out_channels, in_channels / groups, kH, kW] for conv2d, but got weight of size: ",
             w.shape());
  check_conv_params(stride, pad, dilation, groups);
  check_conv_dtypes(x, w, bias, false);
  GLIA_CHECK(w.size(0) % groups == 0, Shape, "Given groups=", groups, ", expected weight to be divisible by ", groups,
             " at dimension 0, but got weight of size [", w.shape(), "] instead");
  const int64_t in_c = checked_mul(w.size(1), groups, "conv2d");
  GLIA_CHECK(x.size(1) == in_c, Shape, "Given groups=", groups, ", weight of size ", w.shape(), ", expected input",
             x.shape(), " to have ", in_c, " channels, but got ", x.size(1), " channels instead");
  GLIA_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == w.size(0)), Shape, "Given weight of size ",
             w.shape(), ", expected bias to be 1-dimensional with ", w.size(0), " elements, but got bias of size ",
             bias.shape(), " instead");
  ConvGeom g;
  g.N = x.size(0), g.C = x.size(1), g.H = x.size(2), g.W = x.size(3);
  g.O = w.size(0), g.kh = w.size(2), g.kw = w.size(3);
  g.sh = stride[0], g.sw = stride[1], g.dh = dilation[0], g.dw = dilation[1], g.groups = groups;
  // Note [Checked sizes]: paddings, dilations and kernel sizes come from the caller.
  Checked tot_h = Checked(2, "conv2d") * pad[0], tot_w = Checked(2, "conv2d") * pad[1];
  g.ph = pad[0], g.pw = pad[1];
  if (pad_mode == 1) {
    tot_h = tot_w = g.ph = g.pw = 0;
  } else if (pad_mode == 2) {
    GLIA_CHECK(g.sh == 1 && g.sw == 1, InvalidArgument, "padding='same' is not supported for strided convolutions");
    tot_h = Checked(g.dh, "conv2d") * (g.kh - 1), tot_w = Checked(g.dw, "conv2d") * (g.kw - 1);
    g.ph = tot_h.value() / 2, g.pw = tot_w.value() / 2;
  }
  const Checked ekh = Checked(g.dh, "conv2d") * (g.kh - 1) + 1, ekw = Checked(g.dw, "conv2d") * (g.kw - 1) + 1;
  const Checked padded_h = tot_h + g.H, padded_w = tot_w + g.W;
  GLIA_CHECK(padded_h.value() >= ekh.value() && padded_w.value() >= ekw.value(), Shape,
             "Calculated padded input size per channel: (", padded_h.value(), " x ", padded_w.value(),
             "). Kernel size: (", ekh.value(), " x ", ekw.value(),
             "). Kernel size can't be greater than actual input size");
  g.Ho = (padded_h - ekh).value() / g.sh + 1;
  g.Wo = (padded_w - ekw).value() / g.sw + 1;
  return g;
}

ConvGeom conv_transpose2d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                               const int64_t pad[2], const int64_t output_padding[2], const int64_t dilation[2],
                               int64_t groups) {
  GLIA_CHECK(x.dim() == 4, Shape,
             "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: ", x.shape());
  GLIA_CHECK(
      w.dim() == 4, Shape,
      "Expected 4D weight [in_channels, out_channels / groups, kH, kW] for conv_transpose2d, but got weight of size: ",
      w.shape());
  check_conv_params(stride, pad, dilation, groups);
  GLIA_CHECK(output_padding[0] >= 0 && output_padding[1] >= 0, InvalidArgument,
             "negative output_padding is not supported");
  check_conv_dtypes(x, w, bias, true);
  GLIA_CHECK(w.size(0) % groups == 0, Shape, "Given groups=", groups, ", expected weight to be divisible by ", groups,
             " at dimension 0, but got weight of size [", w.shape(), "] instead");
  GLIA_CHECK(x.size(1) == w.size(0), Shape, "Given transposed=1, weight of size ", w.shape(), ", expected input",
             x.shape(), " to have ", w.size(0), " channels, but got ", x.size(1), " channels instead");
  int64_t out_c = checked_mul(w.size(1), groups, "conv_transpose2d");
  GLIA_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_c), Shape,
             "Given transposed=1, weight of size ", w.shape(), ", expected bias to be 1-dimensional with ", out_c,
             " elements, but got bias of size ", bias.shape(), " instead");
  GLIA_CHECK((output_padding[0] < stride[0] || output_padding[0] < dilation[0]) &&
                 (output_padding[1] < stride[1] || output_padding[1] < dilation[1]),
             InvalidArgument,
             "output padding must be smaller than either stride or dilation, but got output_padding_height: ",
             output_padding[0], " output_padding_width: ", output_padding[1], " stride_height: ", stride[0],
             " stride_width: ", stride[1], " dilation_height: ", dilation[0], " dilation_width: ", dilation[1]);
  ConvGeom g;
  g.N = x.size(0), g.O = x.size(1), g.Ho = x.size(2), g.Wo = x.size(3);
  g.C = out_c, g.kh = w.size(2), g.kw = w.size(3);
  g.sh = stride[0], g.sw = stride[1], g.ph = pad[0], g.pw = pad[1], g.dh = dilation[0], g.dw = dilation[1];
  g.groups = groups;
  g.H = ((Checked(g.Ho, "conv_transpose2d") - 1) * g.sh - Checked(2) * g.ph + Checked(g.dh) * (g.kh - 1) +
         output_padding[0] + 1)
            .value();
  g.W = ((Checked(g.Wo, "conv_transpose2d") - 1) * g.sw - Checked(2) * g.pw + Checked(g.dw) * (g.kw - 1) +
         output_padding[1] + 1)
            .value();
  GLIA_CHECK(g.H > 0 && g.W > 0, Shape, "Given input size per channel: (", g.Ho, " x ", g.Wo,
             "). Calculated output size per channel: (", g.H, " x ", g.W, "). Output size is too small");
  return g;
}

namespace {

// Output columns [ow0, ow1) whose input column ow * s - p + k * d lies in [0, W).
inline void valid_range(int64_t W, int64_t Wo, int64_t s, int64_t p, int64_t off, int64_t& o0, int64_t& o1) {
  // iw = ow * s + (off - p) in [0, W)
  // In unsigned arithmetic: with a padding near INT64_MAX (legal when the output stays small),
  // -base and W - base do not fit in int64 (Note [Checked sizes]).
  const int64_t base = off - p;  // off, p >= 0: no overflow
  const uint64_t us = static_cast<uint64_t>(s);
  const uint64_t neg = base >= 0 ? 0 : uint64_t{0} - static_cast<uint64_t>(base);                // -base
  const uint64_t span = base >= W ? 0 : static_cast<uint64_t>(W) - static_cast<uint64_t>(base);  // W - base
  const uint64_t u0 = neg == 0 ? 0 : (neg - 1) / us + 1;
  const uint64_t u1 = span == 0 ? 0 : (span - 1) / us + 1;
  const uint64_t uwo = static_cast<uint64_t>(Wo);
  o0 = static_cast<int64_t>(std::min(u0, uwo));
  o1 = std::max(static_cast<int64_t>(std::min(u1, uwo)), o0);
}

// GCC 12's avx512fintrin.h trips -Wuninitialized on its own _mm512_undefined_* placeholders.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

bool has_avx512f() { return cpu_features().avx512f; }

// d[ow] = ow in [ow0, ow1) ? src[ow] : 0 for ow < Wo, 16 columns a step with masked loads and stores
// (an im2col row at stride 1: the rows are short, a memmove call per row cost more than the copy).
// Masked-off lanes are not read (`src` may point before the input row for padded columns).
#if GLIA_X86
__attribute__((target("avx512f"))) void im2col_row_avx512(const float* src, int64_t Wo, int64_t ow0, int64_t ow1,
                                                          float* d) {
  for (int64_t ow = 0; ow < Wo; ow += 16) {
    const int64_t n = std::min<int64_t>(16, Wo - ow);
    const int64_t lo = std::clamp<int64_t>(ow0 - ow, 0, 16), hi = std::clamp<int64_t>(ow1 - ow, 0, 16);
    const uint32_t valid = hi > lo ? ((1u << hi) - 1) & ~((1u << lo) - 1) : 0u;
    const float* s =
        reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(src) + static_cast<uintptr_t>(ow) * sizeof(float));
    // Plain moves where all 16 lanes are valid (masked ones cost more on some cores).
    const __m512 v = valid == 0xffffu ? _mm512_loadu_ps(s) : _mm512_maskz_loadu_ps(static_cast<__mmask16>(valid), s);
    if (n == 16)
      _mm512_storeu_ps(d + ow, v);
    else
      _mm512_mask_storeu_ps(d + ow, static_cast<__mmask16>((1u << n) - 1), v);
  }
}
#else
void im2col_row_avx512(const float* src, int64_t Wo, int64_t ow0, int64_t ow1, float* d) { x86_only(); }
#endif

// All output rows [oh0, oh1) of one (channel, ki, kj) row block of im2col at stride 1 in width, for
// Wo <= 64: the load and store masks of the (at most four) 16-column chunks are computed once, each
// output row is then a few masked moves (rows are short: per-row overhead dominated otherwise).
// xc: the channel's [H, W] plane; dst: [oh1 - oh0, Wo]. The stores are whole 16-lane vectors (masked
// stores are slow on some cores): a row's last vector spills up to 15 elements into the next row or
// row block, which im2col writes afterwards (it fills its buffer in ascending order); the buffer has
// 16 elements of slack for the last row (ColBuffer::kSlack).
#if GLIA_X86
__attribute__((target("avx512f"))) void im2col_rows_avx512(const float* xc, const ConvGeom& g, int64_t ki, int64_t kj,
                                                           int64_t oh0, int64_t oh1, int64_t ow0, int64_t ow1,
                                                           float* dst) {
  const int64_t nch = (g.Wo + 15) / 16;
  __mmask16 lm[4];
  for (int64_t ch = 0; ch < nch; ++ch) {
    const int64_t ow = 16 * ch;
    const int64_t lo = std::clamp<int64_t>(ow0 - ow, 0, 16), hi = std::clamp<int64_t>(ow1 - ow, 0, 16);
    lm[ch] = static_cast<__mmask16>(hi > lo ? ((1u << hi) - 1) & ~((1u << lo) - 1) : 0u);
  }
  const uintptr_t col0 = static_cast<uintptr_t>(kj * g.dw - g.pw) * sizeof(float);
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
    float* d = dst + (oh - oh0) * g.Wo;
    if (ih < 0 || ih >= g.H) {
      for (int64_t ch = 0; ch < nch; ++ch) _mm512_storeu_ps(d + 16 * ch, _mm512_setzero_ps());
      continue;
    }
    // The row's first element as an address (it may lie before the row when padded; masked-off
    // lanes are not read).
    const uintptr_t row = reinterpret_cast<uintptr_t>(xc + ih * g.W) + col0;
    for (int64_t ch = 0; ch < nch; ++ch) {
      const float* src = reinterpret_cast<const float*>(row + static_cast<uintptr_t>(64 * ch));
      _mm512_storeu_ps(d + 16 * ch, _mm512_maskz_loadu_ps(lm[ch], src));
    }
  }
}
#else
void im2col_rows_avx512(const float* xc, const ConvGeom& g, int64_t ki, int64_t kj, int64_t oh0, int64_t oh1,
                        int64_t ow0, int64_t ow1, float* dst) {
  x86_only();
}
#endif

// cols [C * kh * kw, (oh1 - oh0) * Wo]: output rows [oh0, oh1) of the im2col matrix of one image's
// channels x [C, H, W].
template <class T>
void im2col(const T* __restrict x, int64_t C, const ConvGeom& g, int64_t oh0, int64_t oh1, T* __restrict cols) {
  const int64_t L = (oh1 - oh0) * g.Wo;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        T* dst = cols + ((c * g.kh + ki) * g.kw + kj) * L;
        int64_t ow0, ow1;
        valid_range(g.W, g.Wo, g.sw, g.pw, kj * g.dw, ow0, ow1);
        if constexpr (std::is_same_v<T, float>) {
          if (g.sw == 1 && g.Wo <= 64 && has_avx512f()) {
            im2col_rows_avx512(x + c * g.H * g.W, g, ki, kj, oh0, oh1, ow0, ow1, dst);
            continue;
          }
        }
        for (int64_t oh = oh0; oh < oh1; ++oh) {
          int64_t ih = oh * g.sh - g.ph + ki * g.dh;
          T* d = dst + (oh - oh0) * g.Wo;
          if (ih < 0 || ih >= g.H) {
            std::fill(d, d + g.Wo, T(0));
            continue;
          }
          if constexpr (std::is_same_v<T, float>) {
            if (g.sw == 1 && has_avx512f()) {
              // The row's first element as an address (it may lie before the row when padded).
              const uintptr_t row = reinterpret_cast<uintptr_t>(x + (c * g.H + ih) * g.W) +
                                    static_cast<uintptr_t>(kj * g.dw - g.pw) * sizeof(float);
              im2col_row_avx512(reinterpret_cast<const float*>(row), g.Wo, ow0, ow1, d);
              continue;
            }
          }
          const T* src = x + (c * g.H + ih) * g.W + kj * g.dw - g.pw;
          std::fill(d, d + ow0, T(0));
          if (g.sw == 1) {
            std::copy(src + ow0, src + ow1, d + ow0);
          } else {
            for (int64_t ow = ow0; ow < ow1; ++ow) d[ow] = src[ow * g.sw];
          }
          std::fill(d + ow1, d + g.Wo, T(0));
        }
      }
}

// The adjoint of im2col_rows_avx512 for one (channel, ki) row block, all kj at once: each input row
// [W] (W <= 64, stride 1 in width) is loaded once, gets the kw shifted source rows added in
// registers and is stored once (adding each kj's row in memory stalled on store forwarding: the
// masked stores of neighbouring kj overlap). src: the block's kw row groups, each [oh1 - oh0, Wo]
// at a distance L; xc [H, W].
#if GLIA_X86
__attribute__((target("avx512f"))) void col2im_rows_avx512(const float* src, int64_t L, const ConvGeom& g, int64_t ki,
                                                           int64_t oh0, int64_t oh1, float* xc) {
  const int64_t nch = (g.W + 15) / 16;
  __mmask16 sm[4];
  for (int64_t ch = 0; ch < nch; ++ch)
    sm[ch] = static_cast<__mmask16>((1u << std::min<int64_t>(16, g.W - 16 * ch)) - 1);
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    float* d = xc + ih * g.W;
    const float* s0 = src + (oh - oh0) * g.Wo;
    for (int64_t ch = 0; ch < nch; ++ch) {
      const int64_t iw0 = 16 * ch;
      __m512 acc = _mm512_maskz_loadu_ps(sm[ch], d + iw0);
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        // lane l takes source column ow = iw0 + l + pw - kj * dw when 0 <= ow < Wo and iw0 + l < W.
        const int64_t off = iw0 + g.pw - kj * g.dw;
        const int64_t lo = std::clamp<int64_t>(-off, 0, 16), hi = std::clamp<int64_t>(g.Wo - off, 0, 16);
        const uint32_t m = (hi > lo ? ((1u << hi) - 1) & ~((1u << lo) - 1) : 0u) & sm[ch];
        if (m == 0) continue;
        const float* s = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(s0 + kj * L) +
                                                        static_cast<uintptr_t>(off) * sizeof(float));
        acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(static_cast<__mmask16>(m), s));
      }
      _mm512_mask_storeu_ps(d + iw0, sm[ch], acc);
    }
  }
}
#else
void col2im_rows_avx512(const float* src, int64_t L, const ConvGeom& g, int64_t ki, int64_t oh0, int64_t oh1,
                        float* xc) {
  x86_only();
}
#endif

// col2im_rows_avx512 for all kernel rows of one channel at once (kw <= 16): each input row is loaded
// and stored once per block with every (ki, kj) contribution added in registers. Per kernel row, the
// row's masked store stalled the next kernel row's load of it (no store forwarding from masked
// stores): most of the time of a LeNet step's col2im. src: the channel's kh * kw row groups [oh1 -
// oh0, Wo] at a distance L; xc [H, W].
#if GLIA_X86
__attribute__((target("avx512f"))) void col2im_plane_avx512(const float* src, int64_t L, const ConvGeom& g, int64_t oh0,
                                                            int64_t oh1, float* xc, bool overwrite) {
  const int64_t nch = (g.W + 15) / 16;
  __mmask16 sm[4], mk[4][16];
  intptr_t ob[4][16];  // byte offsets of the taps' sources from the kernel row's source row
  int nt[4];
  for (int64_t ch = 0; ch < nch; ++ch) {
    sm[ch] = static_cast<__mmask16>((1u << std::min<int64_t>(16, g.W - 16 * ch)) - 1);
    nt[ch] = 0;
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      // lane l takes source column ow = 16 ch + l + pw - kj * dw when 0 <= ow < Wo and 16 ch + l < W.
      const int64_t off = 16 * ch + g.pw - kj * g.dw;
      const int64_t lo = std::clamp<int64_t>(-off, 0, 16), hi = std::clamp<int64_t>(g.Wo - off, 0, 16);
      const uint32_t m = (hi > lo ? ((1u << hi) - 1) & ~((1u << lo) - 1) : 0u) & sm[ch];
      if (m == 0) continue;
      mk[ch][nt[ch]] = static_cast<__mmask16>(m);
      ob[ch][nt[ch]++] = static_cast<intptr_t>((kj * L + off) * static_cast<int64_t>(sizeof(float)));
    }
  }
  for (int64_t ih = 0; ih < g.H; ++ih) {
    // Kernel rows ki whose output row oh = (ih + ph - ki * dh) / sh is whole and in [oh0, oh1).
    uintptr_t rows[64];
    int nr = 0;
    for (int64_t ki = 0; ki < g.kh; ++ki) {
      const int64_t t = ih + g.ph - ki * g.dh;
      if (t < 0 || t % g.sh != 0) continue;
      const int64_t oh = t / g.sh;
      if (oh < oh0 || oh >= oh1) continue;
      rows[nr++] = reinterpret_cast<uintptr_t>(src + ki * g.kw * L + (oh - oh0) * g.Wo);
    }
    if (nr == 0 && !overwrite) continue;
    float* d = xc + ih * g.W;
    for (int64_t ch = 0; ch < nch; ++ch) {
      __m512 acc = overwrite ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(sm[ch], d + 16 * ch);
      for (int r = 0; r < nr; ++r)
        for (int t = 0; t < nt[ch]; ++t)
          // Masked-off lanes are not read (the address may lie outside the source row).
          acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(mk[ch][t], reinterpret_cast<const float*>(
                                                                        rows[r] + static_cast<uintptr_t>(ob[ch][t]))));
      _mm512_mask_storeu_ps(d + 16 * ch, sm[ch], acc);
    }
  }
}
#else
void col2im_plane_avx512(const float* src, int64_t L, const ConvGeom& g, int64_t oh0, int64_t oh1, float* xc,
                         bool overwrite) {
  x86_only();
}
#endif

// Whether col2im takes col2im_plane_avx512 for T.
template <class T>
bool col2im_by_planes(const ConvGeom& g) {
  return std::is_same_v<T, float> && g.sw == 1 && g.W <= 64 && g.kw <= 16 && g.kh <= 64 && has_avx512f();
}

// x [C, H, W] += col2im(cols) for cols holding output rows [oh0, oh1) (layout of im2col).
// overwrite (only where col2im_by_planes and [oh0, oh1) are all output rows): x = col2im(cols), every
// element written (x may be uninitialised).
template <class T>
void col2im(const T* __restrict cols, int64_t C, const ConvGeom& g, int64_t oh0, int64_t oh1, T* __restrict x,
            bool overwrite = false) {
  const int64_t L = (oh1 - oh0) * g.Wo;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const T* src = cols + ((c * g.kh + ki) * g.kw + kj) * L;
        if constexpr (std::is_same_v<T, float>) {
          if (g.sw == 1 && g.W <= 64 && has_avx512f()) {
            if (col2im_by_planes<T>(g)) {
              if (ki == 0 && kj == 0) col2im_plane_avx512(src, L, g, oh0, oh1, x + c * g.H * g.W, overwrite);
            } else if (kj == 0) {
              col2im_rows_avx512(src, L, g, ki, oh0, oh1, x + c * g.H * g.W);
            }
            continue;
          }
        }
        int64_t ow0, ow1;
        valid_range(g.W, g.Wo, g.sw, g.pw, kj * g.dw, ow0, ow1);
        for (int64_t oh = oh0; oh < oh1; ++oh) {
          int64_t ih = oh * g.sh - g.ph + ki * g.dh;
          if (ih < 0 || ih >= g.H) continue;
          T* d = x + (c * g.H + ih) * g.W + kj * g.dw - g.pw;
          const T* s = src + (oh - oh0) * g.Wo;
          if (g.sw == 1) {
            for (int64_t ow = ow0; ow < ow1; ++ow) d[ow] += s[ow];
          } else {
            for (int64_t ow = ow0; ow < ow1; ++ow) d[ow * g.sw] += s[ow];
          }
        }
      }
}

// Note [im2col blocks]: the im2col matrix of an image is built and consumed a
// block of output rows at a time, sized so that the block (about kColBytes)
// stays in the core's cache between im2col writing it and the GEMM packing it,
// instead of a full [K, Ho * Wo] matrix streaming through memory twice.
constexpr int64_t kColBytes = 512 * 1024;
std::atomic<int64_t> g_col_bytes{kColBytes};
inline int64_t rows_per_block(int64_t K, const ConvGeom& g, size_t itemsize) {
  int64_t bytes = g_col_bytes.load(std::memory_order_relaxed);
  int64_t per_row = std::max<int64_t>(1, K * g.Wo * static_cast<int64_t>(itemsize));
  return std::clamp<int64_t>(bytes / per_row, 1, std::max<int64_t>(g.Ho, 1));
}

// One output plane y [Ho, Wo] from the group's input channels x [Cg, H, W] and the filter w [Cg, kh, kw]:
// shifted multiply-adds over the plane, no im2col (Note [Direct convolution]), the inner loop
// contiguous for stride 1.
template <class T>
void direct_plane(const T* __restrict x, const T* __restrict w, int64_t Cg, const ConvGeom& g, T* __restrict y) {
  std::fill(y, y + g.Ho * g.Wo, T(0));
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const T wv = w[(c * g.kh + ki) * g.kw + kj];
        int64_t ow0, ow1;
        valid_range(g.W, g.Wo, g.sw, g.pw, kj * g.dw, ow0, ow1);
        for (int64_t oh = 0; oh < g.Ho; ++oh) {
          int64_t ih = oh * g.sh - g.ph + ki * g.dh;
          if (ih < 0 || ih >= g.H) continue;
          const T* src = x + (c * g.H + ih) * g.W + kj * g.dw - g.pw;
          T* d = y + oh * g.Wo;
          if (g.sw == 1) {
            for (int64_t ow = ow0; ow < ow1; ++ow) d[ow] += wv * src[ow];
          } else {
            for (int64_t ow = ow0; ow < ow1; ++ow) d[ow] += wv * src[ow * g.sw];
          }
        }
      }
}

// Note [Direct AVX-512 convolution]: a convolution with few input channels per group (LeNet's first
// layer: one channel, 5x5, six filters) spends most of its im2col + GEMM time building the column
// matrix (K = Cg * kh * kw is small, so the GEMM itself is short). direct_fwd_avx512 instead keeps up
// to six output channels x 16 output columns in registers and, per kernel tap, loads the shifted input
// row once (masked: padding and the row end read nothing) and does one FMA per output channel. Float32,
// AVX-512, stride 1 in width; any height stride, padding, dilation, groups.
inline bool use_direct_avx512(const ConvGeom& g, int64_t Cg, int64_t Og) {
  return g.sw == 1 && Cg <= 3 && Og >= 4 && has_avx512f();
}

// y [NB, Ho, Wo] (plane stride HoWo) = conv of the group's input channels x [Cg, H, W] with w [NB, K]
// (+ bias [NB] when non-null).
#if GLIA_X86
template <int NB>
__attribute__((target("avx512f,fma"))) void direct_fwd_avx512(const float* x, const float* w, const float* bias,
                                                              int64_t Cg, const ConvGeom& g, float* y) {
  const int64_t K = Cg * g.kh * g.kw, HoWo = g.Ho * g.Wo;
  if (g.kw <= 16) {
    // Column chunks outside, rows inside: the taps' load masks depend on the chunk only, computed
    // once per chunk with the taps that read nothing dropped (per tap and row they cost as much as
    // the FMAs).
    for (int64_t ow0 = 0; ow0 < g.Wo; ow0 += 16) {
      const __mmask16 sm = static_cast<__mmask16>((1u << std::min<int64_t>(16, g.Wo - ow0)) - 1);
      __mmask16 mk[16];
      intptr_t ob[16];  // byte offset of the tap's lane 0 from the input row
      int64_t kjs[16];
      int nt = 0;
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const int64_t off = ow0 - g.pw + kj * g.dw;  // input column of lane 0
        const int64_t lo = std::clamp<int64_t>(-off, 0, 16), hi = std::clamp<int64_t>(g.W - off, 0, 16);
        const uint32_t m = (hi > lo ? ((1u << hi) - 1) & ~((1u << lo) - 1) : 0u) & sm;
        if (m == 0) continue;
        mk[nt] = static_cast<__mmask16>(m);
        ob[nt] = static_cast<intptr_t>(off * static_cast<int64_t>(sizeof(float)));
        kjs[nt++] = kj;
      }
      for (int64_t oh = 0; oh < g.Ho; ++oh) {
        __m512 acc[NB];
        for (int b = 0; b < NB; ++b) acc[b] = bias ? _mm512_set1_ps(bias[b]) : _mm512_setzero_ps();
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t ki = 0; ki < g.kh; ++ki) {
            const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
            if (ih < 0 || ih >= g.H) continue;
            const uintptr_t row = reinterpret_cast<uintptr_t>(x + (c * g.H + ih) * g.W);
            const float* wk = w + (c * g.kh + ki) * g.kw;
            for (int t = 0; t < nt; ++t) {
              // Masked-off lanes are not read (the address may lie outside the row when padded).
              const __m512 xv =
                  _mm512_maskz_loadu_ps(mk[t], reinterpret_cast<const float*>(row + static_cast<uintptr_t>(ob[t])));
              for (int b = 0; b < NB; ++b) acc[b] = _mm512_fmadd_ps(_mm512_set1_ps(wk[b * K + kjs[t]]), xv, acc[b]);
            }
          }
        for (int b = 0; b < NB; ++b) _mm512_mask_storeu_ps(y + b * HoWo + oh * g.Wo + ow0, sm, acc[b]);
      }
    }
    return;
  }
  for (int64_t oh = 0; oh < g.Ho; ++oh)
    for (int64_t ow0 = 0; ow0 < g.Wo; ow0 += 16) {
      const __mmask16 sm = static_cast<__mmask16>((1u << std::min<int64_t>(16, g.Wo - ow0)) - 1);
      __m512 acc[NB];
      for (int b = 0; b < NB; ++b) acc[b] = bias ? _mm512_set1_ps(bias[b]) : _mm512_setzero_ps();
      for (int64_t c = 0; c < Cg; ++c)
        for (int64_t ki = 0; ki < g.kh; ++ki) {
          const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
          if (ih < 0 || ih >= g.H) continue;
          const float* row = x + (c * g.H + ih) * g.W;
          const float* wk = w + (c * g.kh + ki) * g.kw;
          for (int64_t kj = 0; kj < g.kw; ++kj) {
            const int64_t off = ow0 - g.pw + kj * g.dw;  // input column of lane 0
            const int64_t lo = std::clamp<int64_t>(-off, 0, 16), hi = std::clamp<int64_t>(g.W - off, 0, 16);
            const uint32_t m = (hi > lo ? ((1u << hi) - 1) & ~((1u << lo) - 1) : 0u) & sm;
            if (m == 0) continue;
            const float* src = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(row) +
                                                              static_cast<uintptr_t>(off) * sizeof(float));
            const __m512 xv = _mm512_maskz_loadu_ps(static_cast<__mmask16>(m), src);
            for (int b = 0; b < NB; ++b) acc[b] = _mm512_fmadd_ps(_mm512_set1_ps(wk[b * K + kj]), xv, acc[b]);
          }
        }
      for (int b = 0; b < NB; ++b) _mm512_mask_storeu_ps(y + b * HoWo + oh * g.Wo + ow0, sm, acc[b]);
    }
}
#else
template <int NB>
void direct_fwd_avx512(const float* x, const float* w, const float* bias, int64_t Cg, const ConvGeom& g, float* y) {
  x86_only();
}
#endif

void direct_fwd_block(const float* x, const float* w, const float* bias, int64_t nb, int64_t Cg, const ConvGeom& g,
                      float* y) {
  switch (nb) {
    case 1:
      return direct_fwd_avx512<1>(x, w, bias, Cg, g, y);
    case 2:
      return direct_fwd_avx512<2>(x, w, bias, Cg, g, y);
    case 3:
      return direct_fwd_avx512<3>(x, w, bias, Cg, g, y);
    case 4:
      return direct_fwd_avx512<4>(x, w, bias, Cg, g, y);
    case 5:
      return direct_fwd_avx512<5>(x, w, bias, Cg, g, y);
    default:
      return direct_fwd_avx512<6>(x, w, bias, Cg, g, y);
  }
}

// The weight gradient of the direct path: acc [O, K, 16] (per-lane partial sums, reduced by the
// caller) += gy [Og, Ho, Wo] x shifted input rows of image x [C, H, W], for the output channels
// [o0, o0 + NO) of group gr and the taps kj0 .. kj0 + NJ - 1 of kernel row ki of input channel c.
// NO x NJ accumulators stay in registers over the image; one masked input load feeds NO FMAs.
#if GLIA_X86
template <int NO, int NJ>
__attribute__((target("avx512f,fma"))) void direct_wgrad_avx512(const float* x, const float* gy, int64_t Cg,
                                                                const ConvGeom& g, int64_t o0, int64_t c, int64_t ki,
                                                                int64_t kj0, float* acc) {
  const int64_t K = Cg * g.kh * g.kw, HoWo = g.Ho * g.Wo;
  __m512 a[NO][NJ];
  for (int o = 0; o < NO; ++o)
    for (int j = 0; j < NJ; ++j)
      a[o][j] = _mm512_loadu_ps(acc + ((o0 + o) * K + (c * g.kh + ki) * g.kw + kj0 + j) * 16);
  // Column chunks outside, rows inside: the taps' load masks depend on the chunk only.
  for (int64_t ow0 = 0; ow0 < g.Wo; ow0 += 16) {
    const __mmask16 sm = static_cast<__mmask16>((1u << std::min<int64_t>(16, g.Wo - ow0)) - 1);
    __mmask16 m[NJ];
    int64_t off[NJ];
    for (int j = 0; j < NJ; ++j) {
      off[j] = ow0 - g.pw + (kj0 + j) * g.dw;  // input column of lane 0
      const int64_t lo = std::clamp<int64_t>(-off[j], 0, 16), hi = std::clamp<int64_t>(g.W - off[j], 0, 16);
      m[j] = static_cast<__mmask16>((hi > lo ? ((1u << hi) - 1) & ~((1u << lo) - 1) : 0u) & sm);
    }
    for (int64_t oh = 0; oh < g.Ho; ++oh) {
      const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
      if (ih < 0 || ih >= g.H) continue;
      const uintptr_t row = reinterpret_cast<uintptr_t>(x + (c * g.H + ih) * g.W);
      __m512 gv[NO];
      for (int o = 0; o < NO; ++o) gv[o] = _mm512_maskz_loadu_ps(sm, gy + (o0 + o) * HoWo + oh * g.Wo + ow0);
      for (int j = 0; j < NJ; ++j) {
        // Masked-off lanes are not read (the address may lie outside the row when padded).
        const __m512 xv = _mm512_maskz_loadu_ps(
            m[j], reinterpret_cast<const float*>(row + static_cast<uintptr_t>(off[j]) * sizeof(float)));
        for (int o = 0; o < NO; ++o) a[o][j] = _mm512_fmadd_ps(gv[o], xv, a[o][j]);
      }
    }
  }
  for (int o = 0; o < NO; ++o)
    for (int j = 0; j < NJ; ++j)
      _mm512_storeu_ps(acc + ((o0 + o) * K + (c * g.kh + ki) * g.kw + kj0 + j) * 16, a[o][j]);
}
#else
template <int NO, int NJ>
void direct_wgrad_avx512(const float* x, const float* gy, int64_t Cg, const ConvGeom& g, int64_t o0, int64_t c,
                         int64_t ki, int64_t kj0, float* acc) {
  x86_only();
}
#endif

template <int NO>
void direct_wgrad_taps(const float* x, const float* gy, int64_t Cg, const ConvGeom& g, int64_t o0, int64_t c,
                       int64_t ki, float* acc) {
  for (int64_t kj0 = 0; kj0 < g.kw; kj0 += 5) {
    switch (std::min<int64_t>(5, g.kw - kj0)) {
      case 1:
        direct_wgrad_avx512<NO, 1>(x, gy, Cg, g, o0, c, ki, kj0, acc);
        break;
      case 2:
        direct_wgrad_avx512<NO, 2>(x, gy, Cg, g, o0, c, ki, kj0, acc);
        break;
      case 3:
        direct_wgrad_avx512<NO, 3>(x, gy, Cg, g, o0, c, ki, kj0, acc);
        break;
      case 4:
        direct_wgrad_avx512<NO, 4>(x, gy, Cg, g, o0, c, ki, kj0, acc);
        break;
      default:
        direct_wgrad_avx512<NO, 5>(x, gy, Cg, g, o0, c, ki, kj0, acc);
        break;
    }
  }
}

// acc [O, K, 16] += the weight gradient of one image (x [C, H, W], gy [O, Ho, Wo]), direct path.
void direct_wgrad_image(const float* x, const float* gy, const ConvGeom& g, float* acc) {
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups;
  for (int64_t gr = 0; gr < g.groups; ++gr) {
    const float* xg = x + gr * Cg * g.H * g.W;
    for (int64_t o0 = gr * Og; o0 < (gr + 1) * Og; o0 += 3) {
      const int64_t no = std::min<int64_t>(3, (gr + 1) * Og - o0);
      for (int64_t c = 0; c < Cg; ++c)
        for (int64_t ki = 0; ki < g.kh; ++ki) {
          if (no == 3)
            direct_wgrad_taps<3>(xg, gy, Cg, g, o0, c, ki, acc);
          else if (no == 2)
            direct_wgrad_taps<2>(xg, gy, Cg, g, o0, c, ki, acc);
          else
            direct_wgrad_taps<1>(xg, gy, Cg, g, o0, c, ki, acc);
        }
    }
  }
}

// The im2col block of the calling thread: kept between calls (up to kColBytes * 2) so that a train
// step's convolutions do not allocate (and fault in) a fresh block each time. A nested use on the
// same thread (none today) would take a fresh allocation instead of the cached one.
// kSlack elements past the end: im2col_rows_avx512 stores whole 16-lane vectors (see there).
template <class T>
class ColBuffer {
 public:
  static constexpr int64_t kSlack = 16;
  explicit ColBuffer(int64_t n) {
    if (n <= 0) return;
    bool& busy = busy_flag();
    if (!busy && static_cast<size_t>(n) * sizeof(T) <= 2 * kColBytes) {
      // Note [Per-thread scratch]: a thread_local object with a destructor would pin libglia.
      p_ = static_cast<T*>(thread_scratch(slot(), sizeof(T) * static_cast<size_t>(n + kSlack)));
      busy = true;
      cached_ = true;
    } else {
      own_.reset(new T[n + kSlack]);
      p_ = own_.get();
    }
  }
  ~ColBuffer() {
    if (cached_) busy_flag() = false;
  }
  ColBuffer(const ColBuffer&) = delete;
  ColBuffer& operator=(const ColBuffer&) = delete;
  T* get() const { return p_; }

 private:
  static constexpr ScratchSlot slot() {
    return std::is_same_v<T, float>    ? ScratchSlot::ConvColFloat
           : std::is_same_v<T, double> ? ScratchSlot::ConvColDouble
                                       : ScratchSlot::ConvColOther;
  }
  static bool& busy_flag() {
    thread_local bool busy = false;  // trivially destructible
    return busy;
  }
  std::unique_ptr<T[]> own_;
  T* p_ = nullptr;
  bool cached_ = false;
};

// Note [Direct convolution]: grouped convolutions with one input channel per group (depthwise) run
// direct_plane: im2col + GEMM would make one tiny GEMM (M = out channels per group) per group and
// image. Measured (1 thread, 2-core EPYC): depthwise 3x3 on 8x64x56x56 5.9-6.4 ms direct vs 7.6 ms
// GEMM; but a single-channel 5x5 input (LeNet's first layer) 0.54 ms GEMM vs 1.5 ms direct, and
// RGB 3x3 1.2 ms vs 9.6 ms: OpenBLAS's AVX2/AVX-512 kernels beat these portable (SSE) loops
// whenever the GEMM has a real M, so everything else takes im2col + GEMM, except float32 with few
// input channels per group, which takes the AVX-512 direct path (Note [Direct AVX-512 convolution]).
inline bool use_direct(const ConvGeom& g) { return g.groups > 1 && g.C / g.groups == 1; }

inline bool is_pointwise(const ConvGeom& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.Ho == g.H && g.Wo == g.W;
}

Tensor as_compute(const Tensor& t, DType ct) { return contiguous(to_dtype(t, ct)); }

// Calls body(T{}) for the compute types.
template <class F>
void dispatch_conv(DType t, F&& body) {
  switch (t) {
    case DType::Float32:
      return body(float{});
    case DType::Float64:
      return body(double{});
    case DType::Int64:
      return body(int64_t{});
    default:
      not_implemented_for("slow_conv2d_cpu", t);
  }
}

// Per-image parallelism: images across glia's pool when there are at least as many as threads
// (the GEMMs then run serially inside); fewer images run one after another, each GEMM split
// across the pool instead.
inline bool images_in_parallel(int64_t N) {
  int nt = get_num_threads();
  return nt > 1 && N >= nt && !in_parallel_region();
}

// f(claim) runs once per participating thread; claim() hands out the next image, -1 when none is left
// (claimed dynamically: a late thread's images are taken over, see parallel_pieces).
template <class F>
void for_images(int64_t N, F&& f) {
  if (images_in_parallel(N)) {
    std::atomic<int64_t> next{0};
    parallel_for(0, std::min<int64_t>(get_num_threads(), N), 1, [&](int64_t, int64_t) {
      f([&] {
        int64_t i = next.fetch_add(1, std::memory_order_relaxed);
        return i < N ? i : int64_t{-1};
      });
    });
    return;
  }
  int64_t i = 0;
  f([&] { return i < N ? i++ : int64_t{-1}; });
}

// Note [Kept im2col]: a training step builds the im2col matrix of a convolution's input twice, once
// in forward and again for the weight gradient. When the matrices of all images are small (one
// block per image, at most kKeptColBytes in all; float32), forward writes them into a tensor the
// autograd node keeps and the weight gradient reads them back instead of rebuilding them (LeNet's
// second layer: 3.8 MB at batch 64, the rebuild was about 6% of a train step). Each image's matrix
// starts at a multiple of kept_cols_stride (its 16 elements of slack keep im2col_rows_avx512's
// whole-vector stores inside the image's own part when images run on different threads).
constexpr int64_t kKeptColBytes = 16 << 20;
inline int64_t kept_cols_stride(const ConvGeom& g) {
  const int64_t K = g.C / g.groups * g.kh * g.kw;
  return (g.groups * K * g.Ho * g.Wo + 16 + 15) / 16 * 16;
}
inline bool keeps_cols(const ConvGeom& g, DType t) {
  if (t != DType::Float32 || is_pointwise(g) || use_direct(g)) return false;
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups, K = Cg * g.kh * g.kw;
  if (use_direct_avx512(g, Cg, Og)) return false;
  if (rows_per_block(K, g, sizeof(float)) < g.Ho) return false;
  return g.N * kept_cols_stride(g) * static_cast<int64_t>(sizeof(float)) <= kKeptColBytes;
}

// Adds bias[o] to every element of channel o of y [N, O, H, W] in place.
void add_channel_bias(const Tensor& y, const Tensor& bias) {
  int64_t N = y.size(0), O = y.size(1), HW = y.size(2) * y.size(3);
  dispatch_all(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    T* p = y.data_ptr<T>();
    Tensor b = contiguous(to_dtype(bias, y.dtype()));
    const T* bp = b.data_ptr<T>();
    parallel_for(0, N * O, std::max<int64_t>(1, kGrain / std::max<int64_t>(HW, 1)), [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) {
        A bv = static_cast<A>(bp[i % O]);
        T* q = p + i * HW;
        for (int64_t k = 0; k < HW; ++k) q[k] = static_cast<T>(static_cast<A>(q[k]) + bv);
      }
    });
  });
}

// Sets every element of the contiguous t to zero (all-zero bits: 0 for the conv dtypes).
void zero_fill(const Tensor& t) { std::memset(t.data(), 0, static_cast<size_t>(t.numel()) * itemsize(t.dtype())); }

// ---- the bodies of the CPU kernels: contiguous tensors of the compute type (float32, float64,
// int64), outputs allocated.

// y = conv2d(x, w) (+ bias when defined); `kept` (may be undefined): where forward keeps its im2col
// matrices (Note [Kept im2col]).
void conv2d_forward_into(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g, const Tensor& y,
                         const Tensor& kept) {
  const DType ct = y.dtype();
  bool fused_bias = false;
  dispatch_conv(ct, [&](auto tag) {
    using T = decltype(tag);
    const int64_t Cg = g.C / g.groups, Og = g.O / g.groups, K = Cg * g.kh * g.kw, HoWo = g.Ho * g.Wo;
    const T* xp = x.data_ptr<T>();
    const T* wp = w.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    const bool pw = is_pointwise(g);
    if constexpr (std::is_same_v<T, float>) {
      if (!pw && use_direct_avx512(g, Cg, Og)) {
        Tensor b = bias.defined() ? as_compute(bias, ct) : Tensor();
        const float* bp = b.defined() ? b.data_ptr<float>() : nullptr;
        const int64_t nblk = (Og + 5) / 6, tasks = g.N * g.groups * nblk;
        parallel_for(0, tasks, std::max<int64_t>(1, kGrain / std::max<int64_t>(6 * HoWo * K, 1)),
                     [&](int64_t s, int64_t e) {
                       for (int64_t i = s; i < e; ++i) {
                         const int64_t n = i / (g.groups * nblk), gr = i / nblk % g.groups;
                         const int64_t o0 = gr * Og + i % nblk * 6, nb = std::min<int64_t>(6, (gr + 1) * Og - o0);
                         direct_fwd_block(xp + (n * g.C + gr * Cg) * g.H * g.W, wp + o0 * K, bp ? bp + o0 : nullptr, nb,
                                          Cg, g, yp + (n * g.O + o0) * HoWo);
                       }
                     });
        fused_bias = true;
        return;
      }
    }
    if (!pw && use_direct(g)) {
      parallel_for(0, g.N * g.O, std::max<int64_t>(1, kGrain / std::max<int64_t>(HoWo * K, 1)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t i = b; i < e; ++i) {
                       int64_t n = i / g.O, o = i % g.O, gr = o / Og;
                       direct_plane(xp + (n * g.C + gr * Cg) * g.H * g.W, wp + o * K, Cg, g, yp + i * HoWo);
                     }
                   });
      return;
    }
    const int64_t R = rows_per_block(K, g, sizeof(T));
    T* keptp = kept.defined() ? kept.data_ptr<T>() : nullptr;
    const int64_t kstride = keptp ? kept_cols_stride(g) : 0;
    for_images(g.N, [&](auto&& claim) {
      ColBuffer<T> cols(pw || keptp ? 0 : K * R * g.Wo);
      for (int64_t n = claim(); n >= 0; n = claim())
        for (int64_t gr = 0; gr < g.groups; ++gr) {
          const T* xg = xp + (n * g.C + gr * Cg) * g.H * g.W;
          T* yg = yp + (n * g.O + gr * Og) * HoWo;
          if (pw) {
            gemm<T>(false, false, Og, HoWo, K, T(1), wp + gr * Og * K, K, xg, HoWo, T(0), yg, HoWo);
            continue;
          }
          // Kept: one block per image (keeps_cols), written where the weight gradient finds it.
          T* cb = keptp ? keptp + n * kstride + gr * K * HoWo : cols.get();
          for (int64_t oh0 = 0; oh0 < g.Ho; oh0 += R) {
            int64_t oh1 = std::min(oh0 + R, g.Ho), L = (oh1 - oh0) * g.Wo;
            im2col(xg, Cg, g, oh0, oh1, cb);
            gemm<T>(false, false, Og, L, K, T(1), wp + gr * Og * K, K, cb, L, T(0), yg + oh0 * g.Wo, HoWo);
          }
        }
    });
  });
  if (bias.defined() && !fused_bias) add_channel_bias(y, bias);
}

// gx [N, C, H, W] = conv2d's input gradient from gy [N, O, Ho, Wo] (every element written).
void conv2d_backward_input_into(const Tensor& gy, const Tensor& w, const ConvGeom& g, const Tensor& gx) {
  const DType ct = gx.dtype();
  // One block per image through col2im_plane_avx512 writes every element: no zero fill needed.
  const int64_t Kc = g.C / g.groups * g.kh * g.kw;
  const bool overwrite = ct == DType::Float32 && !is_pointwise(g) && col2im_by_planes<float>(g) &&
                         rows_per_block(Kc, g, sizeof(float)) >= g.Ho;
  if (!overwrite) zero_fill(gx);
  dispatch_conv(ct, [&](auto tag) {
    using T = decltype(tag);
    const int64_t Cg = g.C / g.groups, Og = g.O / g.groups, K = Cg * g.kh * g.kw, HoWo = g.Ho * g.Wo;
    const T* gp = gy.data_ptr<T>();
    const T* wp = w.data_ptr<T>();
    T* xp = gx.data_ptr<T>();
    const bool pw = is_pointwise(g);
    const int64_t R = rows_per_block(K, g, sizeof(T));
    // col2im overwrites (one block per image); should the block size have changed meanwhile
    // (set_conv_block_bytes), the uninitialised gx is zeroed and accumulated into instead.
    const bool whole = overwrite && std::is_same_v<T, float> && R >= g.Ho;
    if (overwrite && !whole) std::fill(xp, xp + gx.numel(), T(0));
    for_images(g.N, [&](auto&& claim) {
      ColBuffer<T> cols(pw ? 0 : K * R * g.Wo);
      for (int64_t n = claim(); n >= 0; n = claim())
        for (int64_t gr = 0; gr < g.groups; ++gr) {
          T* xg = xp + (n * g.C + gr * Cg) * g.H * g.W;
          const T* gyg = gp + (n * g.O + gr * Og) * HoWo;
          if (pw) {
            gemm<T>(true, false, K, HoWo, Og, T(1), wp + gr * Og * K, K, gyg, HoWo, T(0), xg, HoWo);
            continue;
          }
          for (int64_t oh0 = 0; oh0 < g.Ho; oh0 += R) {
            int64_t oh1 = std::min(oh0 + R, g.Ho), L = (oh1 - oh0) * g.Wo;
            // cols = w_g^T [K, Og] @ gy_g [Og, rows of the block]
            gemm<T>(true, false, K, L, Og, T(1), wp + gr * Og * K, K, gyg + oh0 * g.Wo, HoWo, T(0), cols.get(), L);
            col2im(cols.get(), Cg, g, oh0, oh1, xg, whole);
          }
        }
    });
  });
}

// gw [O, C / groups, kh, kw] = conv2d's weight gradient from gy and x; `kept` (may be undefined):
// what forward kept for this x.
void conv2d_backward_weight_into(const Tensor& gy, const Tensor& x, const ConvGeom& g, const Tensor& kept,
                                 const Tensor& gw) {
  const DType ct = gw.dtype();
  zero_fill(gw);
  if (g.N == 0) return;
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups, K = Cg * g.kh * g.kw, HoWo = g.Ho * g.Wo;
  dispatch_conv(ct, [&](auto tag) {
    using T = decltype(tag);
    const T* gp = gy.data_ptr<T>();
    const T* xp = x.data_ptr<T>();
    T* wp = gw.data_ptr<T>();
    const bool pw = is_pointwise(g);
    if constexpr (std::is_same_v<T, float>) {
      if (!pw && use_direct_avx512(g, Cg, Og)) {
        // Fixed image ranges per chunk, per-lane partial sums per chunk, added in chunk order
        // (deterministic at a given thread count, as below).
        const int64_t OK = g.O * K;
        const int64_t nc = images_in_parallel(g.N) ? std::min<int64_t>(get_num_threads(), g.N) : 1;
        std::vector<float> partial(static_cast<size_t>(nc * OK * 16), 0.0f);
        parallel_for(0, nc, 1, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c)
            for (int64_t n = c * g.N / nc; n < (c + 1) * g.N / nc; ++n)
              direct_wgrad_image(xp + n * g.C * g.H * g.W, gp + n * g.O * HoWo, g, partial.data() + c * OK * 16);
        });
        for (int64_t k = 0; k < OK; ++k) {
          float t = 0.0f;
          for (int64_t c = 0; c < nc; ++c) {
            const float* q = partial.data() + (c * OK + k) * 16;
            float u = 0.0f;
            for (int l = 0; l < 16; ++l) u += q[l];
            t += u;
          }
          wp[k] = t;
        }
        return;
      }
    }
    const int64_t R = rows_per_block(K, g, sizeof(T));
    // What forward kept (Note [Kept im2col]): one block per image, no rebuild.
    const T* keptp = nullptr;
    if (kept.defined() && kept.dtype() == ct && keeps_cols(g, ct) && kept.dim() == 2 && kept.size(0) == g.N &&
        kept.size(1) == kept_cols_stride(g))
      keptp = kept.data_ptr<T>();
    const int64_t kstride = kept_cols_stride(g);
    // Images [n0, n1) accumulate into acc.
    auto run = [&](int64_t n0, int64_t n1, T* acc) {
      ColBuffer<T> cols(pw || keptp ? 0 : K * R * g.Wo);
      for (int64_t n = n0; n < n1; ++n)
        for (int64_t gr = 0; gr < g.groups; ++gr) {
          const T* xg = xp + (n * g.C + gr * Cg) * g.H * g.W;
          const T* gyg = gp + (n * g.O + gr * Og) * HoWo;
          if (pw) {
            gemm<T>(false, true, Og, K, HoWo, T(1), gyg, HoWo, xg, HoWo, T(1), acc + gr * Og * K, K);
            continue;
          }
          if (keptp) {
            gemm<T>(false, true, Og, K, HoWo, T(1), gyg, HoWo, keptp + n * kstride + gr * K * HoWo, HoWo, T(1),
                    acc + gr * Og * K, K);
            continue;
          }
          for (int64_t oh0 = 0; oh0 < g.Ho; oh0 += R) {
            int64_t oh1 = std::min(oh0 + R, g.Ho), L = (oh1 - oh0) * g.Wo;
            im2col(xg, Cg, g, oh0, oh1, cols.get());
            // gw_g [Og, K] += gy_g [Og, rows of the block] @ cols^T [rows, K]
            gemm<T>(false, true, Og, K, L, T(1), gyg + oh0 * g.Wo, HoWo, cols.get(), L, T(1), acc + gr * Og * K, K);
          }
        }
    };
    if (!images_in_parallel(g.N)) {
      run(0, g.N, wp);
      return;
    }
    // Deterministic: a fixed range of images per chunk, each into its own partial sum, the partial
    // sums added in chunk order (the same bits from run to run at a given thread count).
    const int64_t nc = std::min<int64_t>(get_num_threads(), g.N), OK = g.O * K;
    std::vector<T> partial(nc * OK, T(0));
    parallel_for(0, nc, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) run(c * g.N / nc, (c + 1) * g.N / nc, partial.data() + c * OK);
    });
    for (int64_t c = 0; c < nc; ++c) {
      const T* q = partial.data() + c * OK;
      for (int64_t k = 0; k < OK; ++k) wp[k] += q[k];
    }
  });
}

// Sum of the N planes q + n * stride [HW] in float64: 16 floats a step into two 8-double accumulators.
#if GLIA_X86
__attribute__((target("avx512f"))) double plane_sum_avx512(const float* q, int64_t N, int64_t stride, int64_t HW) {
  __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
  for (int64_t n = 0; n < N; ++n, q += stride) {
    int64_t k = 0;
    for (; k + 16 <= HW; k += 16) {
      a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(q + k)));
      a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_loadu_ps(q + k + 8)));
    }
    if (k < HW) {
      const __m512 v = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << (HW - k)) - 1), q + k);
      a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
      a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    }
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
}
#else
double plane_sum_avx512(const float* q, int64_t N, int64_t stride, int64_t HW) { x86_only(); }
#endif

// Runs a convolution kernel with its attributes (kernels.def: stride, padding, dilation, groups);
// the tensor counts vary with the optional bias and kept columns, hence no initializer lists.
void run_conv(KernelId id, Device dev, const Tensor* const* in, int32_t n_in, const Tensor* const* out, int32_t n_out,
              const ConvGeom& g) {
  const int64_t s[2] = {g.sh, g.sw}, p[2] = {g.ph, g.pw}, d[2] = {g.dh, g.dw};
  const Attr attrs[4] = {attr_ints(s), attr_ints(p), attr_ints(d), attr_i(g.groups)};
  const KernelArgs k{in, out, attrs, n_in, n_out, 4};
  if (__builtin_expect(dev.is_cpu(), 1))
    kCpuKernels[static_cast<uint32_t>(id)](k);
  else
    run_kernel_external(id, dev, k);
}

}  // namespace

int64_t set_conv_block_bytes(int64_t bytes) {
  return g_col_bytes.exchange(bytes > 0 ? bytes : kColBytes, std::memory_order_relaxed);
}

// ---- meta parts (Note [Op = meta + kernel + rule] in core/dispatch.h): the checks are
// conv2d_geom's and conv_transpose2d_geom's; these convert, allocate on the inputs' device and run
// the kernel.

Tensor conv2d_forward(const Tensor& x_in, const Tensor& w_in, const Tensor& bias, const ConvGeom& g, Tensor* cols_out) {
  if (cols_out) *cols_out = Tensor();
  const Device dev = common_device("convolution", x_in, w_in, false);
  Tensor x = contiguous(x_in), w = contiguous(to_dtype(w_in, x_in.dtype()));
  int64_t shape[4] = {g.N, g.O, g.Ho, g.Wo};
  Tensor y = empty(shape, x.dtype(), dev);
  if (y.numel() == 0) return y;
  Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  const Tensor* in[3] = {&x, &w, &b};
  const int32_t n_in = bias.defined() ? 3 : 2;
  if (cols_out && dev.is_cpu() && x.dtype() == DType::Float32 && keeps_cols(g, DType::Float32)) {
    int64_t kshape[2] = {g.N, kept_cols_stride(g)};
    Tensor kept = empty(kshape, DType::Float32, dev);
    const Tensor* out[2] = {&y, &kept};
    run_conv(KernelId::conv2d, dev, in, n_in, out, 2, g);
    *cols_out = std::move(kept);
    return y;
  }
  const Tensor* out[1] = {&y};
  run_conv(KernelId::conv2d, dev, in, n_in, out, 1, g);
  return y;
}

Tensor conv2d_backward_input(const Tensor& gy_in, const Tensor& w_in, const ConvGeom& g, const Tensor& bias) {
  const Device dev = common_device("convolution_backward", gy_in, w_in, false);
  Tensor gy = contiguous(gy_in), w = contiguous(to_dtype(w_in, gy_in.dtype()));
  int64_t shape[4] = {g.N, g.C, g.H, g.W};
  Tensor gx = empty(shape, gy.dtype(), dev);
  if (gx.numel() == 0) return gx;
  Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  const Tensor* in[3] = {&gy, &w, &b};
  const Tensor* out[1] = {&gx};
  run_conv(KernelId::conv2d_backward_input, dev, in, bias.defined() ? 3 : 2, out, 1, g);
  return gx;
}

Tensor conv2d_backward_weight(const Tensor& gy_in, const Tensor& x_in, const ConvGeom& g, const Tensor& kept) {
  const Device dev = common_device("convolution_backward", gy_in, x_in, false);
  Tensor gy = contiguous(gy_in), x = contiguous(to_dtype(x_in, gy_in.dtype()));
  int64_t shape[4] = {g.O, g.C / g.groups, g.kh, g.kw};
  Tensor gw = empty(shape, gy.dtype(), dev);
  if (gw.numel() == 0) return gw;
  const Tensor* in[3] = {&gy, &x, &kept};
  const Tensor* out[1] = {&gw};
  run_conv(KernelId::conv2d_backward_weight, dev, in, kept.defined() && dev.is_cpu() ? 3 : 2, out, 1, g);
  return gw;
}

Tensor conv_backward_bias(const Tensor& gy) {
  // Float32 contiguous: one kernel (per-channel sums in float64); otherwise sum's kernels.
  if (gy.dtype() == DType::Float32 && gy.dim() == 4 && gy.is_contiguous() && gy.numel() > 0) {
    int64_t shape[1] = {gy.size(1)};
    Tensor gb = empty(shape, DType::Float32, gy.device());
    run_kernel(KernelId::conv2d_backward_bias, gy.device(), {&gy}, {&gb});
    return gb;
  }
  int64_t dims[3] = {0, 2, 3};
  return sum(gy, dims, false);
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

namespace {

using ops::ConvGeom;

// The geometry from the shapes of x [N, C, H, W], w [O, C / groups, kh, kw] and y [N, O, Ho, Wo] and
// the attributes (stride, padding, dilation: .ints; groups: .i).
ConvGeom conv_geom(const Tensor& x, const Tensor& w, const Tensor& y, const KernelArgs& k) {
  ConvGeom g;
  g.N = x.size(0), g.C = x.size(1), g.H = x.size(2), g.W = x.size(3);
  g.O = w.size(0), g.kh = w.size(2), g.kw = w.size(3), g.Ho = y.size(2), g.Wo = y.size(3);
  const Attr &s = k.attr(0), &p = k.attr(1), &d = k.attr(2);
  g.sh = s.ints[0], g.sw = s.ints[1], g.ph = p.ints[0], g.pw = p.ints[1], g.dh = d.ints[0], g.dw = d.ints[1];
  g.groups = k.attr(3).i;
  return g;
}

// bfloat16 computes in float32 (undefined stays undefined).
Tensor as_float(const Tensor& t) { return t.defined() ? contiguous(to_dtype(t, DType::Float32)) : t; }

}  // namespace

void conv2d_kernel(const KernelArgs& k) {
  const Tensor none;
  const Tensor &x = k.input(0), &w = k.input(1), &y = k.output(0);
  const Tensor& bias = k.n_in > 2 ? k.input(2) : none;
  const ConvGeom g = conv_geom(x, w, y, k);
  if (y.dtype() == DType::BFloat16) {
    Tensor yf = empty(y.shape(), DType::Float32, y.device());
    ops::conv2d_forward_into(as_float(x), as_float(w), as_float(bias), g, yf, none);
    copy_into(y, yf);
    return;
  }
  ops::conv2d_forward_into(x, w, bias, g, y, k.n_out > 1 ? k.output(1) : none);
}

void conv2d_backward_input_kernel(const KernelArgs& k) {
  const Tensor &gy = k.input(0), &w = k.input(1), &gx = k.output(0);
  const ConvGeom g = conv_geom(gx, w, gy, k);
  if (gx.dtype() == DType::BFloat16) {
    Tensor gxf = empty(gx.shape(), DType::Float32, gx.device());
    ops::conv2d_backward_input_into(as_float(gy), as_float(w), g, gxf);
    copy_into(gx, gxf);
  } else {
    ops::conv2d_backward_input_into(gy, w, g, gx);
  }
  // conv_transpose2d's bias, added in gx's dtype.
  if (k.n_in > 2) ops::add_channel_bias(gx, k.input(2));
}

void conv2d_backward_weight_kernel(const KernelArgs& k) {
  const Tensor none;
  const Tensor &gy = k.input(0), &x = k.input(1), &gw = k.output(0);
  const ConvGeom g = conv_geom(x, gw, gy, k);
  if (gw.dtype() == DType::BFloat16) {
    Tensor gwf = empty(gw.shape(), DType::Float32, gw.device());
    ops::conv2d_backward_weight_into(as_float(gy), as_float(x), g, none, gwf);
    copy_into(gw, gwf);
    return;
  }
  ops::conv2d_backward_weight_into(gy, x, g, k.n_in > 2 ? k.input(2) : none, gw);
}

void conv2d_backward_bias_kernel(const KernelArgs& k) {
  // Per-channel sums in float64 over 8 independent lanes (they vectorise; the generic reduction took
  // 2% of a LeNet train step). Same accumulation type as sum's.
  const Tensor &gy = k.input(0), &gb = k.output(0);
  const int64_t N = gy.size(0), O = gy.size(1), HW = gy.size(2) * gy.size(3);
  const float* p = gy.data_ptr<float>();
  float* out = gb.data_ptr<float>();
  parallel_for(0, O, std::max<int64_t>(1, ops::kGrain / std::max<int64_t>(N * HW, 1)), [&](int64_t s, int64_t e) {
    for (int64_t o = s; o < e; ++o) {
      if (ops::has_avx512f()) {
        out[o] = static_cast<float>(ops::plane_sum_avx512(p + o * HW, N, O * HW, HW));
        continue;
      }
      double lane[8] = {};
      double tail = 0.0;
      for (int64_t n = 0; n < N; ++n) {
        const float* q = p + (n * O + o) * HW;
        int64_t k = 0;
        for (; k + 8 <= HW; k += 8)
          for (int l = 0; l < 8; ++l) lane[l] += static_cast<double>(q[k + l]);
        for (; k < HW; ++k) tail += static_cast<double>(q[k]);
      }
      double t = tail;
      for (double v : lane) t += v;
      out[o] = static_cast<float>(t);
    }
  });
}

}  // namespace glia::cpu
