// Matrix products: glia's own SGEMM for small and medium float32 GEMMs (Note [Own SGEMM] in
// ops/cpu/gemm.cpp), OpenBLAS for larger ones and float64 (bfloat16 through float32), loops for integers.
#include "ops/linalg.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/log.h"
#include "core/parallel.h"
#include "ops/cpu/gemm.h"
#include "ops/cpu/loops.h"

namespace glia::ops {

// Note [BLAS threads]: glia owns the cores. OpenBLAS (pthread build) keeps one
// process-wide thread count, and its threaded level-3 path serialises
// concurrent callers on a lock, so OpenBLAS threads and glia's pool would
// either fight over the two cores or, when a GEMM runs inside a glia parallel
// region, queue up behind each other. So OpenBLAS runs single-threaded
// (set when it is loaded, and blas_single_thread() before every GEMM, a cheap
// check that resets the count when the host changed it) and glia splits a
// large GEMM into row or column blocks across its own pool (parallel_pieces;
// serial inside a parallel region, and with glia_set_num_threads(1)), and a
// batched GEMM over the batch. The thread count glia uses for BLAS work is
// therefore exactly glia_set_num_threads'; a host that calls OpenBLAS directly
// and wants it threaded sets openblas_set_num_threads itself (glia resets it on
// its next GEMM).
//
// Note [Lazy OpenBLAS]: libglia does not link OpenBLAS. The first GEMM that
// glia's own kernels do not take (Note [Own SGEMM]: large float32 GEMMs, and
// float64) dlopens it by the soname a link would have recorded
// (libopenblas.so.0, found as the dynamic linker would) and resolves the four
// functions glia calls. A program that never needs it never maps its 36 MiB
// and libgfortran, nor starts its threads: that is most of W8's cold start and
// closure (docs/performance.md). An OpenBLAS the host already loaded is the
// same object (same soname), so the thread count above is shared as before.
// It is never unloaded (OpenBLAS's threads may still be parked). Without it
// (not installed, or GLIA_BLAS=none in the environment, for tests) float32
// uses the own kernels at any size where the CPU has AVX2, and plain loops
// otherwise, with one Warning log line saying so.
namespace {

struct BlasApi {
  decltype(&cblas_sgemm) sgemm;
  decltype(&cblas_dgemm) dgemm;
  decltype(&openblas_get_num_threads) get_threads;
  decltype(&openblas_set_num_threads) set_threads;
};

std::atomic<const BlasApi*> g_blas{nullptr};

const BlasApi* load_blas() {
  static BlasApi api;
  const char* env = std::getenv("GLIA_BLAS");
  std::string why;
  if (env && !std::strcmp(env, "none")) {
    why = "GLIA_BLAS=none";
  } else {
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
      void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const char* e = dlerror();
        if (!why.empty()) why += "; ";
        why += e ? e : name;
        continue;
      }
      api.sgemm = reinterpret_cast<decltype(api.sgemm)>(dlsym(h, "cblas_sgemm"));
      api.dgemm = reinterpret_cast<decltype(api.dgemm)>(dlsym(h, "cblas_dgemm"));
      api.get_threads = reinterpret_cast<decltype(api.get_threads)>(dlsym(h, "openblas_get_num_threads"));
      api.set_threads = reinterpret_cast<decltype(api.set_threads)>(dlsym(h, "openblas_set_num_threads"));
      if (api.sgemm && api.dgemm && api.get_threads && api.set_threads) {
        if (api.get_threads() != 1) api.set_threads(1);
        log(LogLevel::Debug, std::string("loaded ") + name);
        return &api;
      }
      if (!why.empty()) why += "; ";
      why += std::string(name) + " lacks cblas_sgemm, cblas_dgemm or openblas_{get,set}_num_threads";
      dlclose(h);
    }
  }
  log(LogLevel::Warning, "OpenBLAS not loaded (" + why + "): large float32 GEMMs use glia's own kernels" +
                             (own_sgemm_available() ? "" : " (plain loops: no AVX2 here)") +
                             ", float64 GEMMs plain loops");
  return nullptr;
}

// The loaded OpenBLAS, loading it on first use; nullptr when there is none (Note [Lazy OpenBLAS]).
const BlasApi* blas() {
  static std::once_flag once;
  std::call_once(once, [] { g_blas.store(load_blas(), std::memory_order_release); });
  return g_blas.load(std::memory_order_acquire);
}

}  // namespace

void blas_single_thread() {
  // Only an OpenBLAS already loaded: checking must not load it (a small GEMM never needs it).
  const BlasApi* b = g_blas.load(std::memory_order_acquire);
  if (b && b->get_threads() != 1) b->set_threads(1);
}

namespace {

// Multiply-adds below which a GEMM stays on one thread; per chunk at least this much.
constexpr int64_t kGemmGrain = 1 << 17;

// A strided matrix operand: element (i, j) at p[i * s0 + j * s1].
template <class T>
struct Mat {
  const T* p;
  int64_t s0, s1;
};

// How BLAS can read an [r, c] operand with strides (s0, s1) in row-major terms: no transpose with
// leading dimension ld, or transposed; false when it must be copied.
bool blas_layout(int64_t r, int64_t c, int64_t s0, int64_t s1, bool& trans, int64_t& ld) {
  // Strides of size-1 dims do not matter; pick the ones BLAS accepts.
  int64_t n0 = r == 1 ? std::max<int64_t>(c, 1) : s0, n1 = c == 1 ? 1 : s1;
  if (n1 == 1 && n0 >= std::max<int64_t>(c, 1) && n0 <= INT_MAX) {
    trans = false;
    ld = n0;
    return true;
  }
  int64_t t0 = r == 1 ? 1 : s0, t1 = c == 1 ? std::max<int64_t>(r, 1) : s1;
  if (t0 == 1 && t1 >= std::max<int64_t>(r, 1) && t1 <= INT_MAX) {
    trans = true;
    ld = t1;
    return true;
  }
  return false;
}

inline void blas_call(const BlasApi& api, bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda,
                      const float* b, int ldb, float beta, float* c, int ldc) {
  api.sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b,
            ldb, beta, c, ldc);
}
inline void blas_call(const BlasApi& api, bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda,
                      const double* b, int ldb, double beta, double* c, int ldc) {
  api.dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b,
            ldb, beta, c, ldc);
}

// Without OpenBLAS (Note [Lazy OpenBLAS]): row by row, accumulating in T.
template <class T>
void gemm_loops(int64_t M, int64_t N, int64_t K, T alpha, Mat<T> A, Mat<T> B, T beta, T* C, int64_t ldc) {
  std::vector<T> acc(N);
  for (int64_t i = 0; i < M; ++i) {
    std::fill(acc.begin(), acc.end(), T(0));
    for (int64_t k = 0; k < K; ++k) {
      const T a = A.p[i * A.s0 + k * A.s1];
      const T* brow = B.p + k * B.s0;
      for (int64_t j = 0; j < N; ++j) acc[j] += a * brow[j * B.s1];
    }
    T* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) c[j] = alpha * acc[j] + (beta == T(0) ? T(0) : beta * c[j]);
  }
}

// C[M, N] (row stride ldc) <- beta C + alpha A B on the calling thread.
template <class T>
void gemm_serial(int64_t M, int64_t N, int64_t K, T alpha, Mat<T> A, Mat<T> B, T beta, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0 || alpha == T(0)) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == T(0) ? T(0) : beta * C[i * ldc + j];
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (own_sgemm_preferred(M, N, K)) {  // Note [Own SGEMM]
      own_sgemm(M, N, K, alpha, A.p, A.s0, A.s1, B.p, B.s0, B.s1, beta, C, ldc);
      return;
    }
  }
  const BlasApi* api = blas();
  if (!api) {
    if constexpr (std::is_same_v<T, float>) {
      if (own_sgemm_available()) {
        own_sgemm(M, N, K, alpha, A.p, A.s0, A.s1, B.p, B.s0, B.s1, beta, C, ldc);
        return;
      }
    }
    gemm_loops(M, N, K, alpha, A, B, beta, C, ldc);
    return;
  }
  bool ta, tb;
  int64_t lda, ldb;
  std::vector<T> abuf, bbuf;  // only for operands BLAS cannot read in place
  if (!blas_layout(M, K, A.s0, A.s1, ta, lda)) {
    abuf.resize(M * K);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k) abuf[i * K + k] = A.p[i * A.s0 + k * A.s1];
    A = {abuf.data(), K, 1};
    ta = false;
    lda = K;
  }
  if (!blas_layout(K, N, B.s0, B.s1, tb, ldb)) {
    bbuf.resize(K * N);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) bbuf[k * N + j] = B.p[k * B.s0 + j * B.s1];
    B = {bbuf.data(), N, 1};
    tb = false;
    ldb = N;
  }
  blas_call(*api, ta, tb, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, A.p,
            static_cast<int>(lda), B.p, static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

// Splits one GEMM into row blocks (M >= N) or column blocks across glia's pool (Note [BLAS threads]).
template <class T>
void gemm_parallel(int64_t M, int64_t N, int64_t K, T alpha, Mat<T> A, Mat<T> B, T beta, T* C, int64_t ldc) {
  double work = static_cast<double>(M) * N * std::max<int64_t>(K, 1);
  int nt = get_num_threads();
  if (nt == 1 || in_parallel_region() || work < 2.0 * kGemmGrain) {
    gemm_serial(M, N, K, alpha, A, B, beta, C, ldc);
    return;
  }
  // Pieces of whole 32-row (or column) blocks, each at least kGemmGrain multiply-adds, about two
  // per thread so that a late thread's share is taken over (parallel_pieces).
  constexpr int64_t kBlock = 32;  // a multiple of the own kernel's tile (Note [Own SGEMM])
  bool rows = M >= N;
  int64_t len = rows ? M : N;
  int64_t nb = (len + kBlock - 1) / kBlock;
  int64_t pieces = std::min<int64_t>({nb, std::max<int64_t>(1, static_cast<int64_t>(work / kGemmGrain)), 2 * nt});
  int64_t per = (nb + pieces - 1) / pieces;
  pieces = (nb + per - 1) / per;
  parallel_pieces(pieces, [&](int64_t i) {
    int64_t lo = i * per * kBlock, hi = std::min((i + 1) * per * kBlock, len);
    if (rows)
      gemm_serial(hi - lo, N, K, alpha, Mat<T>{A.p + lo * A.s0, A.s0, A.s1}, B, beta, C + lo * ldc, ldc);
    else
      gemm_serial(M, hi - lo, K, alpha, A, Mat<T>{B.p + lo * B.s1, B.s0, B.s1}, beta, C + lo, ldc);
  });
}

// Integer GEMM (wrapping arithmetic, as torch's): accumulate in int64, round trip through T.
template <class T>
void gemm_int(int64_t M, int64_t N, int64_t K, T alpha, Mat<T> A, Mat<T> B, T beta, T* C, int64_t ldc) {
  parallel_for(0, M, std::max<int64_t>(1, kGrain / std::max<int64_t>(N * std::max<int64_t>(K, 1), 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<uint64_t> acc(N);
                 for (int64_t i = b; i < e; ++i) {
                   std::fill(acc.begin(), acc.end(), 0);
                   for (int64_t k = 0; k < K; ++k) {
                     uint64_t a = static_cast<uint64_t>(static_cast<int64_t>(A.p[i * A.s0 + k * A.s1]));
                     const T* brow = B.p + k * B.s0;
                     for (int64_t j = 0; j < N; ++j)
                       acc[j] += a * static_cast<uint64_t>(static_cast<int64_t>(brow[j * B.s1]));
                   }
                   T* c = C + i * ldc;
                   for (int64_t j = 0; j < N; ++j) {
                     T prod = static_cast<T>(alpha * static_cast<T>(acc[j]));
                     c[j] = beta == T(0) ? prod : static_cast<T>(beta * c[j] + prod);
                   }
                 }
               });
}

template <class T>
T scalar_as(double v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<int64_t>(v));
  else
    return static_cast<T>(v);
}

// The batched driver: out[i] = beta out[i] + alpha a[i] b[i], i over `batch` (strides in elements).
void run_gemm(int64_t batch, int64_t M, int64_t N, int64_t K, const Tensor& out, int64_t os, const Tensor& a,
              int64_t as, int64_t a0, int64_t a1, const Tensor& b, int64_t bs, int64_t b0, int64_t b1, double beta,
              double alpha, const char* op) {
  DType t = out.dtype();
  if (t == DType::Float16 || t == DType::Bool) not_implemented_for(op, t);
  // An output without elements has nothing to compute: a batch of 2^40 empty products must not
  // loop 2^40 times (found by tests/fuzz: matmul of two [2^20, 2^20, 0, 0] tensors hung).
  if (batch == 0 || M == 0 || N == 0) return;
  if (t == DType::BFloat16) {
    // Compute in float32, round once on store.
    Tensor af = to_dtype(a, DType::Float32), bf = to_dtype(b, DType::Float32);
    Tensor of = beta != 0 ? to_dtype(out, DType::Float32) : empty(out.shape(), DType::Float32, out.device());
    int64_t nd = a.dim();
    run_gemm(batch, M, N, K, of, os, af, nd == 3 ? af.strides()[0] : 0, af.strides()[nd - 2], af.strides()[nd - 1], bf,
             nd == 3 ? bf.strides()[0] : 0, bf.strides()[nd - 2], bf.strides()[nd - 1], beta, alpha, op);
    copy_into(out, of);
    return;
  }
  blas_single_thread();
  dispatch_all(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, bool>) {
      not_implemented_for(op, t);
    } else {
      T* o = out.data_ptr<T>();
      const T* pa = a.data_ptr<T>();
      const T* pb = b.data_ptr<T>();
      T al = scalar_as<T>(alpha), be = scalar_as<T>(beta);
      // An empty operand (K == 0, or M or N == 0 for the output) has no data: no offset is applied
      // to its NULL pointer (undefined behaviour, found by tests/fuzz; the product is then beta * out).
      auto at = [](auto* p, int64_t off) { return p ? p + off : p; };
      auto one = [&](int64_t i, bool par) {
        Mat<T> A{at(pa, i * as), a0, a1}, B{at(pb, i * bs), b0, b1};
        if constexpr (std::is_integral_v<T>)
          gemm_int(M, N, K, al, A, B, be, at(o, i * os), N);
        else if (par)
          gemm_parallel(M, N, K, al, A, B, be, at(o, i * os), N);
        else
          gemm_serial(M, N, K, al, A, B, be, at(o, i * os), N);
      };
      double work = static_cast<double>(M) * N * std::max<int64_t>(K, 1);
      int nt = get_num_threads();
      if (batch > 1 && nt > 1 && batch >= nt && !in_parallel_region() && work * batch >= 2.0 * kGemmGrain) {
        parallel_pieces(batch, [&](int64_t i) { one(i, false); });
      } else {
        for (int64_t i = 0; i < batch; ++i) one(i, true);
      }
    }
  });
}

void check_int_size(int64_t v) {
  GLIA_CHECK(v <= INT_MAX, Unsupported, "matrix dimension ", v, " exceeds the BLAS limit of ", INT_MAX);
}

}  // namespace

void gemm_into(const Tensor& out, const Tensor& a, const Tensor& b, double beta, double alpha, const char* op) {
  int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  check_int_size(M);
  check_int_size(N);
  check_int_size(K);
  run_gemm(1, M, N, K, out, 0, a, 0, a.stride(0), a.stride(1), b, 0, b.stride(0), b.stride(1), beta, alpha, op);
}

void bgemm_into(const Tensor& out, const Tensor& a, const Tensor& b, double beta, double alpha, const char* op) {
  int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  check_int_size(M);
  check_int_size(N);
  check_int_size(K);
  run_gemm(B, M, N, K, out, M * N, a, a.stride(0), a.stride(1), a.stride(2), b, b.stride(0), b.stride(1), b.stride(2),
           beta, alpha, op);
}

template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb,
          T beta, T* C, int64_t ldc) {
  Mat<T> a = ta ? Mat<T>{A, 1, lda} : Mat<T>{A, lda, 1};
  Mat<T> b = tb ? Mat<T>{B, 1, ldb} : Mat<T>{B, ldb, 1};
  if constexpr (std::is_integral_v<T>) {
    gemm_int(M, N, K, alpha, a, b, beta, C, ldc);
  } else {
    check_int_size(M);
    check_int_size(N);
    check_int_size(K);
    blas_single_thread();
    gemm_parallel(M, N, K, alpha, a, b, beta, C, ldc);
  }
}
template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t,
                          float, float*, int64_t);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t);
template void gemm<int64_t>(bool, bool, int64_t, int64_t, int64_t, int64_t, const int64_t*, int64_t, const int64_t*,
                            int64_t, int64_t, int64_t*, int64_t);

// ---- meta parts (Note [Op = meta + kernel + rule] in core/dispatch.h): torch's checks, the
// result on the operands' device, then the kernel. dot and mv are the mm kernel on [1, n] / [n, 1] views.

namespace {
void check_same_dtype(const Tensor& a, const Tensor& b) {
  GLIA_CHECK(a.dtype() == b.dtype(), DType, "expected scalar type ", scalar_type_name(a.dtype()), " but found ",
             scalar_type_name(b.dtype()));
}
}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  const Device dev = common_device("mm", a, b, false);
  GLIA_CHECK(a.dim() == 2, Shape, "self must be a matrix");
  GLIA_CHECK(b.dim() == 2, Shape, "mat2 must be a matrix");
  GLIA_CHECK(a.size(1) == b.size(0), Shape, "mat1 and mat2 shapes cannot be multiplied (", a.size(0), "x", a.size(1),
             " and ", b.size(0), "x", b.size(1), ")");
  check_same_dtype(a, b);
  int64_t shape[2] = {a.size(0), b.size(1)};
  Tensor out = empty(shape, a.dtype(), dev);
  run_kernel(KernelId::mm, dev, {&a, &b}, {&out}, {attr_s("addmm_impl_cpu_")});
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  const Device dev = common_device("bmm", a, b, false);
  GLIA_CHECK(a.dim() == 3, Shape, "batch1 must be a 3D tensor");
  GLIA_CHECK(b.dim() == 3, Shape, "batch2 must be a 3D tensor");
  GLIA_CHECK(b.size(0) == a.size(0) && b.size(1) == a.size(2), Shape,
             "Expected size for first two dimensions of batch2 tensor to be: [", a.size(0), ", ", a.size(2),
             "] but got: [", b.size(0), ", ", b.size(1), "].");
  check_same_dtype(a, b);
  int64_t shape[3] = {a.size(0), a.size(1), b.size(2)};
  Tensor out = empty(shape, a.dtype(), dev);
  run_kernel(KernelId::bmm, dev, {&a, &b}, {&out});
  return out;
}

Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta, double alpha) {
  const Device dev = common_device("addmm", a, b, false);
  common_device("addmm", bias, a);  // a 0-dim CPU bias next to device matrices is a wrapped scalar
  GLIA_CHECK(a.dim() == 2, Shape, "mat1 must be a matrix, got ", a.dim(), "-D tensor");
  GLIA_CHECK(b.dim() == 2, Shape, "mat2 must be a matrix, got ", b.dim(), "-D tensor");
  GLIA_CHECK(a.size(1) == b.size(0), Shape, "mat1 and mat2 shapes cannot be multiplied (", a.size(0), "x", a.size(1),
             " and ", b.size(0), "x", b.size(1), ")");
  GLIA_CHECK(a.dtype() == b.dtype() && bias.dtype() == a.dtype(), DType, "self and mat2 must have the same dtype");
  int64_t shape[2] = {a.size(0), b.size(1)};
  // torch's expand_size message for a bias that does not broadcast to [M, N].
  GLIA_CHECK(bias.dim() <= 2, Shape, "The expanded size of the tensor must match: bias of size ", bias.shape(),
             " cannot be expanded to ", IntSpan(shape));
  for (int64_t d = 0; d < bias.dim(); ++d) {
    int64_t td = d + 2 - bias.dim();
    GLIA_CHECK(bias.size(d) == 1 || bias.size(d) == shape[td], Shape, "The expanded size of the tensor (", shape[td],
               ") must match the existing size (", bias.size(d), ") at non-singleton dimension ", td,
               ".  Target sizes: ", IntSpan(shape), ".  Tensor sizes: ", bias.shape());
  }
  Tensor out = empty(shape, a.dtype(), dev);
  // The bias goes unexpanded (its broadcast is the kernel's): an expanded view was one more allocation per linear.
  Tensor c = to_device(bias, dev);
  run_kernel(KernelId::addmm, dev, {&c, &a, &b}, {&out}, {attr_f(beta), attr_f(alpha)});
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  const Device dev = common_device("dot", a, b, false);
  GLIA_CHECK(a.dim() == 1 && b.dim() == 1, Shape, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(),
             "D tensors");
  GLIA_CHECK(a.dtype() == b.dtype(), DType, "dot : expected both vectors to have same dtype, but found ",
             scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  GLIA_CHECK(a.numel() == b.numel(), Shape, "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
             b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
             " elements respectively");
  Tensor out = empty({}, a.dtype(), dev);
  int64_t as[2] = {1, a.numel()}, ast[2] = {a.numel() * (a.numel() ? a.stride(0) : 1), a.stride(0)};
  int64_t bs[2] = {b.numel(), 1}, bst[2] = {b.stride(0), 1};
  int64_t os[2] = {1, 1}, ost[2] = {1, 1};
  Tensor av = make_view(a, as, ast, a.offset()), bv = make_view(b, bs, bst, b.offset());
  Tensor ov = make_view(out, os, ost, out.offset());
  run_kernel(KernelId::mm, dev, {&av, &bv}, {&ov}, {attr_s("dot")});
  return out;
}

Tensor mv(const Tensor& m, const Tensor& v) {
  const Device dev = common_device("mv", m, v, false);
  GLIA_CHECK(m.dim() == 2 && v.dim() == 1, Shape, "vector + matrix @ vector expected, got 1, ", m.dim(), ", ", v.dim());
  GLIA_CHECK(m.size(1) == v.size(0), Shape, "size mismatch, got ", m.size(0), ", ", m.size(0), "x", m.size(1), ",",
             v.size(0));
  check_same_dtype(m, v);
  int64_t shape[1] = {m.size(0)};
  Tensor out = empty(shape, m.dtype(), dev);
  int64_t vs[2] = {v.size(0), 1}, vst[2] = {v.stride(0), 1};
  int64_t os[2] = {m.size(0), 1}, ost[2] = {1, 1};
  Tensor vv = make_view(v, vs, vst, v.offset()), ov = make_view(out, os, ost, out.offset());
  run_kernel(KernelId::mm, dev, {&m, &vv}, {&ov}, {attr_s("addmv_impl_cpu")});
  return out;
}

}  // namespace glia::ops

// ---- CPU kernels: the GEMM drivers above on the kernel's tensors (no copies beyond theirs).

namespace glia::cpu {

void mm_kernel(const KernelArgs& k) { ops::gemm_into(k.output(0), k.input(0), k.input(1), 0.0, 1.0, k.attr(0).s); }

void addmm_kernel(const KernelArgs& k) {
  const Tensor &c = k.input(0), &out = k.output(0);
  const double beta = k.attr(0).f, alpha = k.attr(1).f;
  if (beta != 0) {
    const int64_t M = out.size(0), N = out.size(1);
    if (c.dim() == 1 && c.size(0) == N && c.dtype() == DType::Float32 && c.is_contiguous()) {
      // linear's bias: one row copy per output row (the strided copy of the expanded bias is slower).
      const float* bp = c.data_ptr<float>();
      float* op = out.data_ptr<float>();
      for (int64_t i = 0; i < M; ++i) std::copy(bp, bp + N, op + i * N);
    } else {
      copy_into(out, ops::expand_to(c, out.shape()));
    }
  }
  ops::gemm_into(out, k.input(1), k.input(2), beta, alpha);
}

void bmm_kernel(const KernelArgs& k) { ops::bgemm_into(k.output(0), k.input(0), k.input(1), 0.0, 1.0); }

}  // namespace glia::cpu
