// Compiled by nvcc for every architecture of GLIA_CUDA_ARCHITECTURES (tests/cuda/suite.cmake): the
// __host__ __device__ headers of cuda/ are device code as well as the host code their CPU tests run. Run on a
// GPU (ctest cuda.device_parity; exit status 77 without one), the kernels' results are compared with the same
// functions run on the host: Philox words and uniforms bit for bit, normals (the device's __sincosf and
// sincospi) and Welford statistics to a tolerance.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "philox.h"
#include "welford.h"

namespace glia::cuda {

__global__ void philox_check(float* f, double* d, uint64_t seed, uint64_t block) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const PhiloxCounter w = philox4x32(philox_counter(i, block), philox_key(seed));
  const NormalPair n = philox_normal_float(w.x, w.y);
  const NormalPairDouble nd = philox_normal_double(w.x, w.y, w.z, w.w);
  f[4 * i] = uniform_from_to(philox_uniform_float(w.z), -1.0f, 2.0f);
  f[4 * i + 1] = normal_from(n.first, 0.5f, 2.0f);
  f[4 * i + 2] = n.second;
  f[4 * i + 3] = static_cast<float>(philox4x32<7>(w, philox_key(seed)).x);
  d[2 * i] = uniform_from_to(philox_uniform_double(w.x, w.y), 0.0, 1.0);
  d[2 * i + 1] = normal_from(nd.first, 0.0, 1.0) + nd.second;
}

__global__ void welford_check(const float* x, float* mean, float* var, int n) {
  Welford<float> w;
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) w = welford_add(w, x[i]);
  for (int offset = 16; offset > 0; offset /= 2) {
    Welford<float> other;
    other.mean = __shfl_down_sync(0xffffffffu, w.mean, offset);
    other.m2 = __shfl_down_sync(0xffffffffu, w.m2, offset);
    other.n = __shfl_down_sync(0xffffffffu, w.n, offset);
    w = welford_combine(w, other);
  }
  if (threadIdx.x == 0) {
    *mean = w.mean;
    *var = welford_variance(w, 1.0f);
  }
}

}  // namespace glia::cuda

namespace {

int failures = 0;

void check(bool ok, const char* what, unsigned i, double got, double want) {
  if (ok) return;
  if (++failures <= 10) std::printf("MISMATCH %s [%u]: device %.17g, host %.17g\n", what, i, got, want);
}

bool cuda_ok(cudaError_t st, const char* call) {
  if (st == cudaSuccess) return true;
  std::printf("FAILED: %s: %s\n", call, cudaGetErrorString(st));
  return false;
}

}  // namespace

int main() {
  using namespace glia::cuda;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device\n");
    return 77;
  }
  constexpr unsigned kThreads = 8192;
  constexpr uint64_t kSeed = 0x0123456789abcdefULL, kBlock = 7;
  constexpr int kN = 1000;
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = 100.0f + std::sin(static_cast<float>(i));
  float *f = nullptr, *xd = nullptr, *mv = nullptr;
  double* d = nullptr;
  if (!cuda_ok(cudaMalloc(&f, 4 * kThreads * sizeof(float)), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&d, 2 * kThreads * sizeof(double)), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&xd, kN * sizeof(float)), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&mv, 2 * sizeof(float)), "cudaMalloc") ||
      !cuda_ok(cudaMemcpy(xd, x.data(), kN * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy"))
    return 1;
  philox_check<<<kThreads / 256, 256>>>(f, d, kSeed, kBlock);
  welford_check<<<1, 32>>>(xd, mv, mv + 1, kN);
  std::vector<float> fh(4 * kThreads), mvh(2);
  std::vector<double> dh(2 * kThreads);
  if (!cuda_ok(cudaGetLastError(), "kernel launch") ||
      !cuda_ok(cudaMemcpy(fh.data(), f, fh.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy") ||
      !cuda_ok(cudaMemcpy(dh.data(), d, dh.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy") ||
      !cuda_ok(cudaMemcpy(mvh.data(), mv, 2 * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy"))
    return 1;
  for (unsigned i = 0; i < kThreads; ++i) {
    const PhiloxCounter w = philox4x32(philox_counter(i, kBlock), philox_key(kSeed));
    const NormalPair n = philox_normal_float(w.x, w.y);
    const NormalPairDouble nd = philox_normal_double(w.x, w.y, w.z, w.w);
    const float uf = uniform_from_to(philox_uniform_float(w.z), -1.0f, 2.0f);
    check(fh[4 * i] == uf, "uniform float", i, fh[4 * i], uf);
    const float nf = normal_from(n.first, 0.5f, 2.0f);
    check(std::fabs(fh[4 * i + 1] - nf) <= 1e-4f * (1 + std::fabs(nf)), "normal float", i, fh[4 * i + 1], nf);
    check(std::fabs(fh[4 * i + 2] - n.second) <= 1e-4f * (1 + std::fabs(n.second)), "normal float", i, fh[4 * i + 2],
          n.second);
    const auto w7 = static_cast<float>(philox4x32<7>(w, philox_key(kSeed)).x);
    check(fh[4 * i + 3] == w7, "philox 7 rounds", i, fh[4 * i + 3], w7);
    const double ud = uniform_from_to(philox_uniform_double(w.x, w.y), 0.0, 1.0);
    check(dh[2 * i] == ud, "uniform double", i, dh[2 * i], ud);
    const double ndv = normal_from(nd.first, 0.0, 1.0) + nd.second;
    check(std::fabs(dh[2 * i + 1] - ndv) <= 1e-12 * (1 + std::fabs(ndv)), "normal double", i, dh[2 * i + 1], ndv);
  }
  double mean = 0, m2 = 0;
  for (float v : x) mean += v;
  mean /= kN;
  for (float v : x) m2 += (v - mean) * (v - mean);
  check(std::fabs(mvh[0] - mean) <= 1e-4 * std::fabs(mean), "welford mean", 0, mvh[0], mean);
  check(std::fabs(mvh[1] / (m2 / (kN - 1)) - 1) <= 1e-3, "welford variance", 0, mvh[1], m2 / (kN - 1));
  std::printf("%s: %u Philox threads and one Welford reduction on the device against the host\n",
              failures ? "FAILED" : "ok", kThreads);
  return failures ? 1 : 0;
}
