// W9a's denominator (../shared/design/BENCHMARKS.md, issue 16): cuBLAS called directly on an
// n x n x n matrix product (default 4096^3), the figure glia_matmul on CUDA must reach 90% of.
//   (1) cublasSgemm, float32, math mode CUBLAS_DEFAULT_MATH (no TF32; also what torch does with
//       TF32 off);
//   (2) cublasGemmEx, bfloat16 A, B and C, CUBLAS_COMPUTE_32F (what torch's bf16 mm asks for).
// Each repetition times `inner` back-to-back products between two CUDA events; the figure is the
// median over the repetitions, in TFLOP/s (2 n^3 flop per product), after warm-up products. Inputs
// are uniform in [-1, 1) from a hash of the index (the same on the host), and a few entries of C
// are checked against a double-precision dot product on the host, so a wrong call (or TF32 in the
// float32 product) cannot pass silently: the program exits 1 after printing its figures. Prints a readable line and a
// JSON line (prefix "JSON ") per measurement; scripts/ gpu-check.sh collects the JSON lines.
//
//   nvcc -O2 -arch=sm_90 -o w9_cublas benchmarks/gpu/w9_cublas.cu -lcublas
//   ./w9_cublas [--n 4096] [--reps 20] [--inner 10] [--warmup 5]
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                                                             \
  do {                                                                                                               \
    cudaError_t e_ = (call);                                                                                         \
    if (e_ != cudaSuccess) {                                                                                         \
      std::fprintf(stderr, "w9_cublas: %s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                                                  \
    }                                                                                                                \
  } while (0)

#define CUBLAS_CHECK(call)                                                                                   \
  do {                                                                                                       \
    cublasStatus_t s_ = (call);                                                                              \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                       \
      std::fprintf(stderr, "w9_cublas: %s failed: %s (%s:%d)\n", #call, cublasGetStatusString(s_), __FILE__, \
                   __LINE__);                                                                                \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

namespace {

// Uniform in [-1, 1) from (seed, index): a 32-bit integer hash (lowbias32), host and device alike.
__host__ __device__ inline float hash_uniform(unsigned seed, size_t i) {
  unsigned x = static_cast<unsigned>(i) ^ (seed * 0x9E3779B9u) ^ static_cast<unsigned>(i >> 32);
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return static_cast<float>(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void fill_f32(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = hash_uniform(seed, i);
}

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16(hash_uniform(seed, i));
}

struct Options {
  int n = 4096, reps = 20, inner = 10, warmup = 5;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Times `product` (which enqueues one matrix product): median milliseconds per product.
template <class F>
double time_ms(const Options& o, F product) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < o.warmup; ++i) product();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int r = 0; r < o.reps; ++r) {
    CUDA_CHECK(cudaEventRecord(start));
    for (int i = 0; i < o.inner; ++i) product();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(static_cast<double>(t) / o.inner);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return median(ms);
}

// Largest error of a few entries of C (column-major, C = A B) against double precision on the host,
// inputs regenerated from the hash (rounded to bfloat16 when `bf16`), relative to sqrt(sum_k
// (a_ik b_kj)^2), the size of a sum of n random-signed terms: a wrong entry scores about 1, float32
// rounding about 1e-6, TF32 inputs about 4e-4, a bfloat16 output about 2e-3.
template <class T>
double check(const Options& o, const T* d_c, bool bf16) {
  const int n = o.n;
  const int samples[][2] = {{0, 0}, {n - 1, n - 1}, {1, n / 2}, {n / 3, 7}, {n / 2, n - 2}, {n - 5, n / 5}};
  double worst = 0;
  for (const auto& s : samples) {
    const int i = s[0], j = s[1];
    double ref = 0, l2 = 0;
    for (int k = 0; k < n; ++k) {
      float a = hash_uniform(1, i + static_cast<size_t>(k) * n);
      float b = hash_uniform(2, k + static_cast<size_t>(j) * n);
      if (bf16) {
        a = __bfloat162float(__float2bfloat16(a));
        b = __bfloat162float(__float2bfloat16(b));
      }
      ref += static_cast<double>(a) * b;
      l2 += static_cast<double>(a) * b * (static_cast<double>(a) * b);
    }
    T got_raw;
    CUDA_CHECK(cudaMemcpy(&got_raw, d_c + i + static_cast<size_t>(j) * n, sizeof(T), cudaMemcpyDeviceToHost));
    double got;
    if constexpr (sizeof(T) == 4)
      got = got_raw;
    else
      got = __bfloat162float(got_raw);
    worst = std::max(worst, std::fabs(got - ref) / std::max(std::sqrt(l2), 1e-30));
  }
  return worst;
}

void report(const char* workload, const char* call, double ms, double flop, double err, double tol, const Options& o,
            const char* device) {
  const double tflops = flop / (ms * 1e-3) / 1e12;
  std::printf("W9a cuBLAS %-44s %8.1f TFLOP/s  (%.3f ms per product, median of %d x %d; max rel err %.1e)\n", workload,
              tflops, ms, o.reps, o.inner, err);
  std::printf(
      "JSON {\"id\": \"W9a\", \"workload\": \"%s\", \"impl\": \"cublas\", \"value\": %.2f, "
      "\"unit\": \"TFLOP/s\", \"timing\": \"CUDA events, %d products per event pair, median of %d\", "
      "\"ms\": %.4f, \"call\": \"%s\", \"max_rel_err\": %.3g, \"device\": \"%s\"}\n",
      workload, tflops, o.inner, o.reps, ms, call, err, device);
  if (!(err <= tol)) {
    std::fprintf(stderr, "w9_cublas: %s: relative error %.3g above %.1g: wrong result\n", workload, err, tol);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    int* dst = nullptr;
    if (!std::strcmp(argv[i], "--n"))
      dst = &o.n;
    else if (!std::strcmp(argv[i], "--reps"))
      dst = &o.reps;
    else if (!std::strcmp(argv[i], "--inner"))
      dst = &o.inner;
    else if (!std::strcmp(argv[i], "--warmup"))
      dst = &o.warmup;
    if (!dst || i + 1 >= argc || (*dst = std::atoi(argv[i + 1])) <= 0) {
      std::fprintf(stderr, "usage: w9_cublas [--n 4096] [--reps 20] [--inner 10] [--warmup 5]\n");
      return 2;
    }
    ++i;
  }

  int runtime = 0, driver = 0, device = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  int cublas_version = 0;
  CUBLAS_CHECK(cublasGetVersion(handle, &cublas_version));
  // Default math: no TF32 for float32 (CUBLAS_TF32_TENSOR_OP_MATH would allow it).
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  std::printf("w9_cublas: %s (sm_%d%d, %d SMs), CUDA runtime %d, driver API %d, cuBLAS %d, n = %d\n", prop.name,
              prop.major, prop.minor, prop.multiProcessorCount, runtime, driver, cublas_version, o.n);
  std::printf(
      "JSON {\"meta\": \"cublas\", \"device\": \"%s\", \"cuda_runtime\": %d, \"cuda_driver\": %d, "
      "\"cublas\": %d, \"n\": %d}\n",
      prop.name, runtime, driver, cublas_version, o.n);

  const size_t n = static_cast<size_t>(o.n), elems = n * n;
  const double flop = 2.0 * n * n * n;
  const float alpha = 1.0f, beta = 0.0f;
  const int grid = 4 * prop.multiProcessorCount, block = 256;

  {  // (1) float32
    float *a, *b, *c;
    CUDA_CHECK(cudaMalloc(&a, elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b, elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&c, elems * sizeof(float)));
    fill_f32<<<grid, block>>>(a, elems, 1);
    fill_f32<<<grid, block>>>(b, elems, 2);
    CUDA_CHECK(cudaGetLastError());
    const int m = o.n;
    auto product = [&] {
      CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, a, m, b, m, &beta, c, m));
    };
    const double ms = time_ms(o, product);
    const double err = check(o, c, false);
    char workload[96];
    std::snprintf(workload, sizeof workload, "matmul %d^3 float32 (no TF32)", o.n);
    // 5e-5: also fails if the product ran on TF32 inputs.
    report(workload, "cublasSgemm, CUBLAS_DEFAULT_MATH", ms, flop, err, 5e-5, o, prop.name);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(c));
  }
  {  // (2) bfloat16 in and out, float32 accumulation
    __nv_bfloat16 *a, *b, *c;
    CUDA_CHECK(cudaMalloc(&a, elems * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&b, elems * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&c, elems * sizeof(__nv_bfloat16)));
    fill_bf16<<<grid, block>>>(a, elems, 1);
    fill_bf16<<<grid, block>>>(b, elems, 2);
    CUDA_CHECK(cudaGetLastError());
    const int m = o.n;
    auto product = [&] {
      CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, a, CUDA_R_16BF, m, b, CUDA_R_16BF, m,
                                &beta, c, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    const double ms = time_ms(o, product);
    const double err = check(o, c, true);
    char workload[96];
    std::snprintf(workload, sizeof workload, "matmul %d^3 bfloat16 (fp32 accumulate)", o.n);
    report(workload, "cublasGemmEx, CUDA_R_16BF, CUBLAS_COMPUTE_32F", ms, flop, err, 2e-2, o, prop.name);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(c));
  }
  CUBLAS_CHECK(cublasDestroy(handle));
  return 0;
}
