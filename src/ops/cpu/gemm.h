// glia's own single-precision GEMM for small and medium shapes (Note [Own SGEMM] in gemm.cpp):
// packed operands and an AVX-512 (or AVX2+FMA) register-tile microkernel chosen at run time.
#pragma once

#include <cstdint>

namespace glia::ops {

// True when this CPU has a microkernel (AVX-512F, or AVX2 with FMA) and GLIA_OWN_GEMM is not "0".
bool own_sgemm_available();

// Whether glia's kernel should take a float GEMM of this size (available and small enough that
// OpenBLAS's blocking for large matrices does not matter).
bool own_sgemm_preferred(int64_t M, int64_t N, int64_t K);

// C [M, N] (row stride ldc, column stride 1) <- beta C + alpha A B on the calling thread, with
// A(i, k) = A[i * as0 + k * as1] and B(k, j) = B[k * bs0 + j * bs1] (any strides). beta == 0 does not
// read C. Requires own_sgemm_available().
void own_sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t as0, int64_t as1, const float* B,
               int64_t bs0, int64_t bs1, float beta, float* C, int64_t ldc);

}  // namespace glia::ops
