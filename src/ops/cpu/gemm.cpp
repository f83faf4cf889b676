// Note [Own SGEMM]: the GEMMs of small networks (an MLP at batch 64: 64x784x256
// and its transposed backward shapes; LeNet's per-image convolution GEMMs with
// 6 or 16 rows) are too small for OpenBLAS's blocking to pay off, and on these
// machines OpenBLAS is often held to its AVX2 kernels (OPENBLAS_CORETYPE=Haswell)
// on a CPU with AVX-512. glia packs both operands (any strides, so transposed
// operands cost nothing extra) and runs a register-tile microkernel:
//   AVX-512F: 8 rows x 32 columns (16 zmm accumulators), AVX2+FMA: 6 x 16 (12 ymm),
// chosen once at run time (Note [CPU features]). Blocking: K in slices of
// kKC (the packed B micro-panel, kKC x NR, stays in L1 while the A panels of an
// M block stream from L2), M in blocks of kMC. Edge tiles run the same kernel
// into a local tile and are added in scalar code. Large GEMMs (own_sgemm_preferred)
// stay with OpenBLAS. GLIA_OWN_GEMM=0 in the environment turns this path off
// (for comparisons); GLIA_OWN_GEMM=avx2 takes the AVX2 kernel even where AVX-512 is
// there (to test it).
#include "ops/cpu/gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/scratch.h"
#include "ops/cpu/cpu_features.h"

// GCC 12's avx512fintrin.h trips -Wuninitialized on its own _mm512_undefined_* placeholders.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace glia::ops {

namespace {

constexpr int64_t kKC = 256;
constexpr int64_t kMC = 96;
constexpr int kMaxMR = 8, kMaxNR = 32;

// C tile [MR, NR] (row stride ldc) <- alpha * Ap Bp + beta * C over kc steps (beta == 0: C not read); Ap packed
// [kc][MR], Bp rows of NR floats ldb apart (packed: ldb == NR; or B itself when its rows are contiguous).
using Kernel = void (*)(int64_t kc, const float* Ap, const float* Bp, int64_t ldb, float* C, int64_t ldc, float alpha,
                        float beta);

#if GLIA_X86
__attribute__((target("avx512f,fma"))) void kernel_avx512(int64_t kc, const float* __restrict Ap,
                                                          const float* __restrict Bp, int64_t ldb, float* __restrict C,
                                                          int64_t ldc, float alpha, float beta) {
  __m512 c[8][2];
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) c[r][0] = c[r][1] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    __m512 b0 = _mm512_loadu_ps(Bp), b1 = _mm512_loadu_ps(Bp + 16);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      __m512 a = _mm512_set1_ps(Ap[r]);
      c[r][0] = _mm512_fmadd_ps(a, b0, c[r][0]);
      c[r][1] = _mm512_fmadd_ps(a, b1, c[r][1]);
    }
    Ap += 8;
    Bp += ldb;
  }
  __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    float* q = C + r * ldc;
    if (beta == 0.0f) {
      _mm512_storeu_ps(q, _mm512_mul_ps(va, c[r][0]));
      _mm512_storeu_ps(q + 16, _mm512_mul_ps(va, c[r][1]));
    } else {
      _mm512_storeu_ps(q, _mm512_fmadd_ps(vb, _mm512_loadu_ps(q), _mm512_mul_ps(va, c[r][0])));
      _mm512_storeu_ps(q + 16, _mm512_fmadd_ps(vb, _mm512_loadu_ps(q + 16), _mm512_mul_ps(va, c[r][1])));
    }
  }
}
#else
void kernel_avx512(int64_t kc, const float* __restrict Ap, const float* __restrict Bp, int64_t ldb, float* __restrict C,
                   int64_t ldc, float alpha, float beta) {
  x86_only();
}
#endif

#if GLIA_X86
__attribute__((target("avx2,fma"))) void kernel_avx2(int64_t kc, const float* __restrict Ap, const float* __restrict Bp,
                                                     int64_t ldb, float* __restrict C, int64_t ldc, float alpha,
                                                     float beta) {
  __m256 c[6][2];
#pragma GCC unroll 6
  for (int r = 0; r < 6; ++r) c[r][0] = c[r][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    __m256 b0 = _mm256_loadu_ps(Bp), b1 = _mm256_loadu_ps(Bp + 8);
#pragma GCC unroll 6
    for (int r = 0; r < 6; ++r) {
      __m256 a = _mm256_broadcast_ss(Ap + r);
      c[r][0] = _mm256_fmadd_ps(a, b0, c[r][0]);
      c[r][1] = _mm256_fmadd_ps(a, b1, c[r][1]);
    }
    Ap += 6;
    Bp += ldb;
  }
  __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
  for (int r = 0; r < 6; ++r) {
    float* q = C + r * ldc;
    if (beta == 0.0f) {
      _mm256_storeu_ps(q, _mm256_mul_ps(va, c[r][0]));
      _mm256_storeu_ps(q + 8, _mm256_mul_ps(va, c[r][1]));
    } else {
      _mm256_storeu_ps(q, _mm256_fmadd_ps(vb, _mm256_loadu_ps(q), _mm256_mul_ps(va, c[r][0])));
      _mm256_storeu_ps(q + 8, _mm256_fmadd_ps(vb, _mm256_loadu_ps(q + 8), _mm256_mul_ps(va, c[r][1])));
    }
  }
}
#else
void kernel_avx2(int64_t kc, const float* __restrict Ap, const float* __restrict Bp, int64_t ldb, float* __restrict C,
                 int64_t ldc, float alpha, float beta) {
  x86_only();
}
#endif

struct Isa {
  int mr = 0, nr = 0;
  Kernel kernel = nullptr;
};

Isa pick_isa() {
  const char* env = std::getenv("GLIA_OWN_GEMM");
  if (env && std::strcmp(env, "0") == 0) return {};
  const CpuFeatures& f = cpu_features();
  // GLIA_OWN_GEMM=avx2 picks the AVX2 kernel on an AVX-512 CPU (to test it).
  if (f.avx512f && !(env && std::strcmp(env, "avx2") == 0)) return {8, 32, kernel_avx512};
  if (f.avx2 && f.fma) return {6, 16, kernel_avx2};
  return {};
}

const Isa& isa() {
  static const Isa i = pick_isa();
  return i;
}

#define GLIA_UNPACK_PD(f, a, b) _mm512_castpd_ps(f(_mm512_castps_pd(a), _mm512_castps_pd(b)))

// dst[k * ldd + c] = src[c * lds + k] for c < rows (<= 16), k < 16: a 16x16 in-register transpose
// (rows beyond `rows` read as zero; only `rows` columns of dst are written).
#if GLIA_X86
__attribute__((target("avx512f"))) void transpose16(const float* src, int64_t lds, int rows, float* dst, int64_t ldd) {
  __m512 r[16], t[16];
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) r[c] = c < rows ? _mm512_loadu_ps(src + c * lds) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = GLIA_UNPACK_PD(_mm512_unpacklo_pd, t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = GLIA_UNPACK_PD(_mm512_unpackhi_pd, t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = GLIA_UNPACK_PD(_mm512_unpacklo_pd, t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = GLIA_UNPACK_PD(_mm512_unpackhi_pd, t[4 * i + 1], t[4 * i + 3]);
  }
  // r[4i + j] holds rows 4i..4i+3 at column 4L + j in 128-bit lane L.
  const __mmask16 m = static_cast<__mmask16>((1u << rows) - 1);
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    __m512 x0 = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88), x1 = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xdd);
    __m512 y0 = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88), y1 = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xdd);
    _mm512_mask_storeu_ps(dst + j * ldd, m, _mm512_shuffle_f32x4(x0, y0, 0x88));
    _mm512_mask_storeu_ps(dst + (4 + j) * ldd, m, _mm512_shuffle_f32x4(x1, y1, 0x88));
    _mm512_mask_storeu_ps(dst + (8 + j) * ldd, m, _mm512_shuffle_f32x4(x0, y0, 0xdd));
    _mm512_mask_storeu_ps(dst + (12 + j) * ldd, m, _mm512_shuffle_f32x4(x1, y1, 0xdd));
  }
}
#else
void transpose16(const float* src, int64_t lds, int rows, float* dst, int64_t ldd) { x86_only(); }
#endif

// dst[k * ldd + c] = src[c * lds + k] for c < n, k < kc, with the 16x16 transpose where available.
void transpose_into(const float* src, int64_t lds, int64_t n, int64_t kc, float* dst, int64_t ldd, bool avx512) {
  int64_t k = 0;
  if (avx512)
    for (; k + 16 <= kc; k += 16)
      for (int64_t c = 0; c < n; c += 16)
        transpose16(src + c * lds + k, lds, static_cast<int>(std::min<int64_t>(16, n - c)), dst + k * ldd + c, ldd);
  for (int64_t c = 0; c < n; ++c)
    for (int64_t kk = k; kk < kc; ++kk) dst[kk * ldd + c] = src[c * lds + kk];
}

// Bp [panels][kc][NR]: B rows [k0, k0 + kc), all N columns, zero beyond N.
void pack_b(const float* B, int64_t s0, int64_t s1, int64_t k0, int64_t kc, int64_t N, int nr, float* Bp, bool avx512) {
  for (int64_t j0 = 0; j0 < N; j0 += nr) {
    int64_t w = std::min<int64_t>(nr, N - j0);
    float* dst = Bp + j0 * kc;  // (j0 / nr) * kc * nr
    if (s1 == 1) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* src = B + (k0 + k) * s0 + j0;
        float* d = dst + k * nr;
        for (int64_t c = 0; c < w; ++c) d[c] = src[c];
        for (int64_t c = w; c < nr; ++c) d[c] = 0.0f;
      }
    } else if (s0 == 1) {
      transpose_into(B + k0 + j0 * s1, s1, w, kc, dst, nr, avx512);
    } else {
      for (int64_t c = 0; c < w; ++c) {
        const float* src = B + k0 * s0 + (j0 + c) * s1;
        for (int64_t k = 0; k < kc; ++k) dst[k * nr + c] = src[k * s0];
      }
    }
    if (s1 != 1) {
      for (int64_t c = w; c < nr; ++c)
        for (int64_t k = 0; k < kc; ++k) dst[k * nr + c] = 0.0f;
    }
  }
}

// Ap [panels][kc][MR]: A rows [i0, i0 + mc), columns [k0, k0 + kc), zero beyond mc.
void pack_a(const float* A, int64_t s0, int64_t s1, int64_t i0, int64_t mc, int64_t k0, int64_t kc, int mr, float* Ap,
            bool avx512) {
  for (int64_t r0 = 0; r0 < mc; r0 += mr) {
    int64_t h = std::min<int64_t>(mr, mc - r0);
    float* dst = Ap + r0 * kc;
    if (s0 == 1 && s1 != 1) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* src = A + (i0 + r0) + (k0 + k) * s1;
        float* d = dst + k * mr;
        for (int64_t r = 0; r < h; ++r) d[r] = src[r];
        for (int64_t r = h; r < mr; ++r) d[r] = 0.0f;
      }
    } else if (s1 == 1) {
      transpose_into(A + (i0 + r0) * s0 + k0, s0, h, kc, dst, mr, avx512);
    } else {
      for (int64_t r = 0; r < h; ++r) {
        const float* src = A + (i0 + r0 + r) * s0 + k0 * s1;
        for (int64_t k = 0; k < kc; ++k) dst[k * mr + r] = src[k * s1];
      }
    }
    if (!(s0 == 1 && s1 != 1)) {
      for (int64_t r = h; r < mr; ++r)
        for (int64_t k = 0; k < kc; ++k) dst[k * mr + r] = 0.0f;
    }
  }
}

}  // namespace

bool own_sgemm_available() { return isa().kernel != nullptr; }

bool own_sgemm_preferred(int64_t M, int64_t N, int64_t K) {
  // Up to 2^25 multiply-adds (a 256^3 GEMM; W3's largest is 64x784x256 = 12.8M).
  return own_sgemm_available() && static_cast<double>(M) * N * K <= static_cast<double>(1 << 25);
}

void own_sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t as0, int64_t as1, const float* B,
               int64_t bs0, int64_t bs1, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == 0.0f) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
    return;
  }
  const Isa& s = isa();
  const int mr = s.mr, nr = s.nr;
  const bool avx512 = s.kernel == kernel_avx512;
  const int64_t npan = (N + nr - 1) / nr;
  const int64_t kcmax = std::min(K, kKC);
  // Note [Per-thread scratch]: no thread_local object with a destructor (it would pin libglia).
  float* Bp = static_cast<float*>(thread_scratch(ScratchSlot::GemmB, sizeof(float) * npan * nr * kcmax));
  float* Ap = static_cast<float*>(
      thread_scratch(ScratchSlot::GemmA, sizeof(float) * ((std::min(M, kMC) + mr - 1) / mr * mr * kcmax)));
  alignas(64) float tile[kMaxMR * kMaxNR];
  for (int64_t k0 = 0; k0 < K; k0 += kKC) {
    const int64_t kc = std::min(kKC, K - k0);
    const float b = k0 == 0 ? beta : 1.0f;
    // Few row panels reuse each B panel: read B in place where its rows are contiguous (packing would
    // cost as much as the product, e.g. a convolution's 6-row GEMM); the edge panel is packed.
    const bool direct_b = bs1 == 1 && M <= 32;
    if (direct_b) {
      if (N % nr) pack_b(B + (N / nr) * nr, bs0, bs1, k0, kc, N % nr, nr, Bp + (N / nr) * nr * kc, avx512);
    } else {
      pack_b(B, bs0, bs1, k0, kc, N, nr, Bp, avx512);
    }
    for (int64_t i0 = 0; i0 < M; i0 += kMC) {
      const int64_t mc = std::min(kMC, M - i0);
      pack_a(A, as0, as1, i0, mc, k0, kc, mr, Ap, avx512);
      for (int64_t j0 = 0; j0 < N; j0 += nr) {
        const int64_t w = std::min<int64_t>(nr, N - j0);
        const bool in_place = direct_b && w == nr;
        const float* bp = in_place ? B + k0 * bs0 + j0 : Bp + j0 * kc;
        const int64_t ldb = in_place ? bs0 : nr;
        for (int64_t r0 = 0; r0 < mc; r0 += mr) {
          const int64_t h = std::min<int64_t>(mr, mc - r0);
          const float* ap = Ap + r0 * kc;
          float* c = C + (i0 + r0) * ldc + j0;
          if (h == mr && w == nr) {
            s.kernel(kc, ap, bp, ldb, c, ldc, alpha, b);
            continue;
          }
          s.kernel(kc, ap, bp, ldb, tile, nr, 1.0f, 0.0f);
          for (int64_t r = 0; r < h; ++r)
            for (int64_t q = 0; q < w; ++q) {
              float v = alpha * tile[r * nr + q];
              c[r * ldc + q] = b == 0.0f ? v : v + b * c[r * ldc + q];
            }
        }
      }
    }
  }
}

}  // namespace glia::ops
