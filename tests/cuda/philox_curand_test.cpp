// cuda/philox.h against curand itself: curand's Philox4_32_10 device functions compiled for the host (curand
// keeps a host path for each), where the CUDA toolkit's headers are installed. This ties Note [Philox streams]
// and the conversions to what torch's CUDA kernels call, not only to the published Philox vectors.
#define QUALIFIERS static inline
#include <cuda_runtime_api.h>
#include <curand_kernel.h>
#include <gtest/gtest.h>

#include "philox.h"

namespace glia::cuda {
namespace {

TEST(PhiloxCurand, Curand4IsPhiloxOfSubsequenceAndOffsetOverFour) {
  const unsigned long long seeds[] = {0, 42, 0x0123456789abcdefULL, ~0ULL};
  const unsigned long long subsequences[] = {0, 1, 77, 0xffffffffULL, 0x100000003ULL};
  const unsigned long long offsets[] = {0, 4, 1024, 0x3fffffffcULL, 0x400000000ULL};
  for (auto seed : seeds)
    for (auto sub : subsequences)
      for (auto off : offsets) {
        curandStatePhilox4_32_10_t st;
        curand_init(seed, sub, off, &st);
        for (uint64_t j = 0; j < 3; ++j) {
          const uint4 want = curand4(&st);
          const PhiloxCounter got = philox4x32(philox_counter(sub, off / 4 + j), philox_key(seed));
          ASSERT_EQ(got.x, want.x) << seed << " " << sub << " " << off << " " << j;
          ASSERT_EQ(got.y, want.y);
          ASSERT_EQ(got.z, want.z);
          ASSERT_EQ(got.w, want.w);
        }
      }
}

TEST(PhiloxCurand, UniformConversionsAreCurandsBitForBit) {
  curandStatePhilox4_32_10_t a, b, c;
  curand_init(7, 3, 0, &a);
  curand_init(7, 3, 0, &b);
  curand_init(7, 3, 0, &c);
  for (int i = 0; i < 20000; ++i) {
    const uint4 w = curand4(&a);
    const float4 f = curand_uniform4(&b);
    ASSERT_EQ(philox_uniform_float(w.x), f.x);
    ASSERT_EQ(philox_uniform_float(w.y), f.y);
    ASSERT_EQ(philox_uniform_float(w.z), f.z);
    ASSERT_EQ(philox_uniform_float(w.w), f.w);
    // Each state draws two blocks per iteration, the first of them (for c) unused.
    const uint4 w2 = curand4(&a);
    curand4(&b);
    curand4(&c);
    const double2 d = curand_uniform2_double(&c);
    ASSERT_EQ(philox_uniform_double(w2.x, w2.y), d.x);
    ASSERT_EQ(philox_uniform_double(w2.z, w2.w), d.y);
  }
}

TEST(PhiloxCurand, NormalConversionsAgreeWithCurandsHostPath) {
  curandStatePhilox4_32_10_t a, b, c;
  curand_init(11, 5, 8, &a);
  curand_init(11, 5, 8, &b);
  curand_init(11, 5, 8, &c);
  for (int i = 0; i < 20000; ++i) {
    const uint4 w = curand4(&a);
    const float4 f = curand_normal4(&b);
    const NormalPair p = philox_normal_float(w.x, w.y), q = philox_normal_float(w.z, w.w);
    // curand's host path rounds y * (2pi / 2^32) before adding; the device (and philox.h) fuse the two.
    ASSERT_NEAR(p.first, f.x, 2e-6f * (1 + std::fabs(f.x)));
    ASSERT_NEAR(p.second, f.y, 2e-6f * (1 + std::fabs(f.y)));
    ASSERT_NEAR(q.first, f.z, 2e-6f * (1 + std::fabs(f.z)));
    ASSERT_NEAR(q.second, f.w, 2e-6f * (1 + std::fabs(f.w)));
    const uint4 w2 = curand4(&a);
    curand4(&b);
    curand4(&c);
    const double2 d = curand_normal2_double(&c);
    const NormalPairDouble e = philox_normal_double(w2.x, w2.y, w2.z, w2.w);
    ASSERT_EQ(e.first, d.x);  // every product here is by a power of two: fusing changes nothing
    ASSERT_EQ(e.second, d.y);
  }
}

}  // namespace
}  // namespace glia::cuda
