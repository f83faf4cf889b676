// glia's own SGEMM (src/ops/cpu/gemm.cpp, Note [Own SGEMM]) and the float GEMM entry point
// ops::gemm<float> against a naive double-precision reference: odd shapes around the register tile
// (8x32 AVX-512, 6x16 AVX2) and the K slice (256), transposed and arbitrarily strided operands,
// broadcast (stride-0) operands, row-padded C, alpha/beta, beta == 0 ignoring NaN in C, threads.
#include "ops/cpu/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/parallel.h"
#include "ops/cpu/loops.h"
#include "ops/linalg.h"

namespace {

struct Case {
  int64_t M, N, K;
  int layout_a, layout_b;  // 0 row-major, 1 transposed (column-major), 2 strided (neither stride 1), 3 stride-0 rows
  float alpha, beta;
  int64_t ldc_pad;
};

// Strides (s0, s1) of an [r, c] operand stored in a buffer of the returned size.
int64_t layout(int kind, int64_t r, int64_t c, int64_t& s0, int64_t& s1) {
  switch (kind) {
    case 0:  // row-major with a padded leading dimension
      s0 = c + 3, s1 = 1;
      return r * s0;
    case 1:  // column-major (a transposed contiguous matrix) with padding
      s0 = 1, s1 = r + 2;
      return c * s1;
    case 2:  // neither stride is 1
      s0 = 2 * c + 1, s1 = 2;
      return r * s0;
    default:  // every row the same (an expanded [1, c] operand)
      s0 = 0, s1 = 1;
      return c;
  }
}

void check_case(const Case& t, bool own, std::mt19937& gen) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int64_t as0, as1, bs0, bs1;
  std::vector<float> A(static_cast<size_t>(std::max<int64_t>(1, layout(t.layout_a, t.M, t.K, as0, as1))));
  std::vector<float> B(static_cast<size_t>(std::max<int64_t>(1, layout(t.layout_b, t.K, t.N, bs0, bs1))));
  for (float& v : A) v = u(gen);
  for (float& v : B) v = u(gen);
  const int64_t ldc = t.N + t.ldc_pad;
  std::vector<float> C(static_cast<size_t>(std::max<int64_t>(1, t.M * ldc)));
  for (float& v : C) v = t.beta == 0.0f ? NAN : u(gen);
  std::vector<float> C0 = C;
  if (own) {
    glia::ops::own_sgemm(t.M, t.N, t.K, t.alpha, A.data(), as0, as1, B.data(), bs0, bs1, t.beta, C.data(), ldc);
  } else {
    // ops::gemm takes BLAS-style operands: only row-major (0) and transposed (1) layouts.
    ASSERT_LE(t.layout_a, 1);
    ASSERT_LE(t.layout_b, 1);
    glia::ops::gemm<float>(t.layout_a == 1, t.layout_b == 1, t.M, t.N, t.K, t.alpha, A.data(),
                           t.layout_a == 1 ? as1 : as0, B.data(), t.layout_b == 1 ? bs1 : bs0, t.beta, C.data(), ldc);
  }
  for (int64_t i = 0; i < t.M; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      float got = C[i * ldc + j];
      if (j >= t.N) {  // padding of C is never written
        ASSERT_TRUE(std::isnan(C0[i * ldc + j]) ? std::isnan(got) : got == C0[i * ldc + j]);
        continue;
      }
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < t.K; ++k) {
        double p = static_cast<double>(A[i * as0 + k * as1]) * B[k * bs0 + j * bs1];
        ref += p;
        mag += std::fabs(p);
      }
      ref *= t.alpha;
      mag *= std::fabs(t.alpha);
      if (t.beta != 0.0f) {
        ref += static_cast<double>(t.beta) * C0[i * ldc + j];
        mag += std::fabs(t.beta * C0[i * ldc + j]);
      }
      ASSERT_NEAR(got, ref, 1e-5 * mag + 1e-6)
          << (own ? "own_sgemm" : "gemm<float>") << " M=" << t.M << " N=" << t.N << " K=" << t.K
          << " layouts=" << t.layout_a << "," << t.layout_b << " alpha=" << t.alpha << " beta=" << t.beta << " at ("
          << i << ", " << j << ")";
    }
}

const float kAlphaBeta[][2] = {{1.0f, 0.0f}, {0.5f, 0.0f}, {1.0f, 1.0f}, {-2.0f, 0.25f}, {0.0f, 0.5f}, {0.0f, 0.0f}};

void sweep(bool own, int max_layout) {
  const int64_t mn[] = {1, 2, 5, 6, 7, 8, 9, 16, 17, 31, 32, 33, 64, 70};
  const int64_t ks[] = {1, 3, 16, 17, 64, 257};
  std::mt19937 gen(7);
  int n = 0;
  for (int64_t M : mn)
    for (int64_t N : mn)
      for (int64_t K : ks) {
        Case t{M,
               N,
               K,
               n % (max_layout + 1),
               (n / (max_layout + 1)) % (max_layout + 1),
               kAlphaBeta[n % 6][0],
               kAlphaBeta[n % 6][1],
               n % 3 == 0 ? 5 : 0};
        ++n;
        check_case(t, own, gen);
        if (testing::Test::HasFatalFailure()) return;
      }
}

TEST(OwnSgemm, OddShapesLayoutsAlphaBeta) {
  if (!glia::ops::own_sgemm_available()) GTEST_SKIP() << "no AVX-512 or AVX2+FMA on this CPU";
  sweep(true, 3);
}

TEST(OwnSgemm, EveryLayoutPairAndLargeBlocks) {
  if (!glia::ops::own_sgemm_available()) GTEST_SKIP() << "no AVX-512 or AVX2+FMA on this CPU";
  std::mt19937 gen(11);
  // Beyond one M block (96 rows) and several K slices (256), every pair of operand layouts.
  for (int la = 0; la < 4; ++la)
    for (int lb = 0; lb < 4; ++lb) {
      check_case({203, 45, 530, la, lb, 1.0f, 0.0f, 1}, true, gen);
      check_case({97, 65, 300, la, lb, 0.75f, -1.0f, 0}, true, gen);
    }
}

TEST(OwnSgemm, EmptyAndZeroK) {
  if (!glia::ops::own_sgemm_available()) GTEST_SKIP() << "no AVX-512 or AVX2+FMA on this CPU";
  std::mt19937 gen(3);
  check_case({0, 5, 4, 0, 0, 1.0f, 0.0f, 0}, true, gen);
  check_case({5, 0, 4, 0, 0, 1.0f, 0.0f, 0}, true, gen);
  check_case({5, 7, 0, 0, 0, 1.0f, 0.0f, 0}, true, gen);  // beta 0: C becomes 0 (NaN not kept)
  check_case({5, 7, 0, 0, 0, 1.0f, 0.5f, 2}, true, gen);
}

// The entry point the operators use (own kernel for small shapes, OpenBLAS for large ones, split
// across glia's pool), at 1 and 2 threads.
TEST(OwnSgemm, GemmEntryPointThreads) {
  int saved = glia::get_num_threads();
  for (int threads : {1, 2}) {
    glia::set_num_threads(threads);
    sweep(false, 1);
    std::mt19937 gen(5);
    check_case({64, 784, 256, 0, 0, 1.0f, 0.0f, 0}, false, gen);  // W3's backward shapes
    check_case({64, 256, 784, 0, 1, 1.0f, 1.0f, 0}, false, gen);
    check_case({256, 784, 64, 1, 0, 1.0f, 0.0f, 0}, false, gen);
    check_case({300, 300, 400, 1, 1, 1.0f, 0.0f, 0}, false, gen);  // OpenBLAS
  }
  glia::set_num_threads(saved);
}

}  // namespace
