// Compiled by nvcc for every architecture of GLIA_CUDA_ARCHITECTURES (tests/cuda/suite.cmake): the
// __host__ __device__ headers of cuda/ are device code as well as the host code their CPU tests run.
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
