// Matrix products (no autograd): GEMM through OpenBLAS for float32/float64
// (bfloat16 computes in float32), plain loops for the integer types.
#pragma once

#include <atomic>

#include "ops/iter.h"

namespace glia::ops {

// out <- beta * out + alpha * a @ b for a [M, K], b [K, N] with any strides (transposed operands
// go to BLAS as flags, other BLAS-compatible strides as leading dimensions; only others are copied)
// and out a contiguous [M, N] tensor of the same dtype. beta == 0 ignores out's contents.
// `op` names the operation in dtype errors ("addmm_impl_cpu_", "bmm", "dot", "addmv_impl_cpu").
void gemm_into(const Tensor& out, const Tensor& a, const Tensor& b, double beta, double alpha,
               const char* op = "addmm_impl_cpu_");
// out[i] <- beta * out[i] + alpha * a[i] @ b[i] over dim 0 of 3-D operands (batch strides may be 0).
void bgemm_into(const Tensor& out, const Tensor& a, const Tensor& b, double beta, double alpha, const char* op = "bmm");

// torch.mm / torch.bmm / torch.addmm / torch.dot / torch.mv with torch's checks and messages.
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta, double alpha);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& m, const Tensor& v);

// C [M, N] (row stride ldc) <- beta C + alpha op(A) op(B) for row-major A ([M, K], or [K, M] when ta)
// and B ([K, N], or [N, K] when tb) with leading dimensions lda, ldb. T: float, double (OpenBLAS,
// split across glia's pool when large; serial inside a parallel region) or int64_t (loops).
template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb,
          T beta, T* C, int64_t ldc);

// Runs body(i) for every i in [0, n) on glia's pool, pieces claimed dynamically: parallel_for over
// the threads, each claiming pieces until none is left, so a thread that starts late (descheduled
// on a busy machine) finds the work done instead of holding the others up. Serial with one
// thread or inside a parallel region.
template <class F>
void parallel_pieces(int64_t n, F&& body) {
  int nt = get_num_threads();
  if (n <= 1 || nt == 1 || in_parallel_region()) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<int64_t> next{0};
  parallel_for(0, std::min<int64_t>(nt, n), 1, [&](int64_t, int64_t) {
    for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
         i = next.fetch_add(1, std::memory_order_relaxed))
      body(i);
  });
}

// Note [BLAS threads]: see linalg.cpp. Makes OpenBLAS single-threaded (glia parallelises GEMMs
// itself on its pool); cheap to call before every BLAS call.
void blas_single_thread();

}  // namespace glia::ops
