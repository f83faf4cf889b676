// Philox4x32 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3", SC 2011; Random123),
// the counter-based generator of curand's Philox4_32_10 that torch's CUDA random ops use, and torch's
// conversions of its words to uniform and normal numbers. Host and device (host_device.h): a draw is a pure
// function of (seed, subsequence, block), so a CPU loop can reproduce any element of a GPU kernel's draws.
//
// Note [Philox streams]: curand_init(seed, subsequence, offset) followed by curand4() yields
// philox4x32<10>(philox_counter(subsequence, offset / 4), philox_key(seed)), the next curand4() the same with
// offset / 4 + 1, and so on (offset a multiple of 4, as torch's philox offsets are). torch's kernels give each
// thread its own subsequence and advance the offset per launch; which element takes which draw is the
// kernel's choice (its grid), documented where the kernel is.
#ifndef GLIA_CUDA_PHILOX_H
#define GLIA_CUDA_PHILOX_H

#include <cmath>
#include <cstdint>

#include "host_device.h"

namespace glia::cuda {

struct PhiloxCounter {
  uint32_t x, y, z, w;
};
struct PhiloxKey {
  uint32_t x, y;
};

constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // key increments per round (golden ratio, sqrt(3) - 1)
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;  // round multipliers
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;

// The low 32 bits of a * b; the high ones in *hi.
GLIA_HOST_DEVICE uint32_t philox_mulhilo(uint32_t a, uint32_t b, uint32_t* hi) {
#if defined(__CUDA_ARCH__)
  *hi = __umulhi(a, b);
  return a * b;
#else
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
#endif
}

GLIA_HOST_DEVICE PhiloxCounter philox_round(PhiloxCounter c, PhiloxKey k) {
  uint32_t hi0 = 0, hi1 = 0;
  const uint32_t lo0 = philox_mulhilo(kPhiloxM0, c.x, &hi0);
  const uint32_t lo1 = philox_mulhilo(kPhiloxM1, c.z, &hi1);
  return PhiloxCounter{hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0};
}

// The Philox4x32 bijection with `Rounds` rounds (10: curand's and torch's; Random123's default).
template <int Rounds = 10>
GLIA_HOST_DEVICE PhiloxCounter philox4x32(PhiloxCounter c, PhiloxKey k) {
  for (int r = 0; r < Rounds; ++r) {
    if (r > 0) {
      k.x += kPhiloxW0;
      k.y += kPhiloxW1;
    }
    c = philox_round(c, k);
  }
  return c;
}

GLIA_HOST_DEVICE PhiloxKey philox_key(uint64_t seed) {
  return PhiloxKey{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
}

// Block `block` (offset / 4) of subsequence `subsequence`: Note [Philox streams].
GLIA_HOST_DEVICE PhiloxCounter philox_counter(uint64_t subsequence, uint64_t block) {
  return PhiloxCounter{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                       static_cast<uint32_t>(subsequence), static_cast<uint32_t>(subsequence >> 32)};
}

// curand's constants (curand_globals.h), spelled as curand spells them so that they round the same.
constexpr float kCurand2Pow32Inv = 2.3283064e-10f;
constexpr float kCurand2Pow32Inv2Pi = 2.3283064e-10f * 6.2831855f;
constexpr double kCurand2Pow53Inv = 1.1102230246251565e-16;
constexpr double kCurandPi = 3.1415926535897932;

// curand_uniform of one word: in (0, 1]. nvcc fuses curand's `x * k + k / 2` into one multiply-add; fmaf does
// the same on the host, so both give the same bits.
GLIA_HOST_DEVICE float philox_uniform_float(uint32_t x) {
  return fmaf(static_cast<float>(x), kCurand2Pow32Inv, kCurand2Pow32Inv / 2.0f);
}

// curand_uniform2_double's conversion of two words (53 random bits): in (0, 1].
GLIA_HOST_DEVICE double philox_uniform_double(uint32_t x, uint32_t y) {
  const uint64_t z = static_cast<uint64_t>(x) ^ (static_cast<uint64_t>(y) << (53 - 32));
  return fma(static_cast<double>(z), kCurand2Pow53Inv, kCurand2Pow53Inv / 2.0);
}

// torch 1.13's uniform_(from, to) of a draw in (0, 1]: 1 becomes 0, so the result is in [from, to).
GLIA_HOST_DEVICE float uniform_from_to(float rand, float from, float range) {
  return fmaf(rand == 1.0f ? 0.0f : rand, range, from);
}
GLIA_HOST_DEVICE double uniform_from_to(double rand, double from, double range) {
  return fma(rand == 1.0 ? 0.0 : rand, range, from);
}

struct NormalPair {
  float first, second;
};
struct NormalPairDouble {
  double first, second;
};

// curand's Box-Muller of two words (curand_normal4 takes words x, y then z, w). On the device with curand's
// fast __sincosf; the host's sinf/cosf/logf agree to a few ulp, not to the bit.
GLIA_HOST_DEVICE NormalPair philox_normal_float(uint32_t x, uint32_t y) {
  const float u = fmaf(static_cast<float>(x), kCurand2Pow32Inv, kCurand2Pow32Inv / 2.0f);
  const float v = fmaf(static_cast<float>(y), kCurand2Pow32Inv2Pi, kCurand2Pow32Inv2Pi / 2.0f);
  const float s = sqrtf(-2.0f * logf(u));
  float sn = 0, cs = 0;
#if defined(__CUDA_ARCH__)
  __sincosf(v, &sn, &cs);
#else
  sn = sinf(v);
  cs = cosf(v);
#endif
  return NormalPair{sn * s, cs * s};
}

// curand_normal2_double's Box-Muller of four words (53 bits for each uniform).
GLIA_HOST_DEVICE NormalPairDouble philox_normal_double(uint32_t x0, uint32_t x1, uint32_t y0, uint32_t y1) {
  const uint64_t zx = static_cast<uint64_t>(x0) ^ (static_cast<uint64_t>(x1) << (53 - 32));
  const uint64_t zy = static_cast<uint64_t>(y0) ^ (static_cast<uint64_t>(y1) << (53 - 32));
  const double u = fma(static_cast<double>(zx), kCurand2Pow53Inv, kCurand2Pow53Inv / 2.0);
  const double v = fma(static_cast<double>(zy), kCurand2Pow53Inv * 2.0, kCurand2Pow53Inv);
  const double s = sqrt(-2.0 * log(u));
  double sn = 0, cs = 0;
#if defined(__CUDA_ARCH__)
  sincospi(v, &sn, &cs);
#else
  sn = sin(v * kCurandPi);
  cs = cos(v * kCurandPi);
#endif
  return NormalPairDouble{sn * s, cs * s};
}

// torch's normal_(mean, std) of a standard normal draw.
GLIA_HOST_DEVICE float normal_from(float rand, float mean, float std) { return fmaf(rand, std, mean); }
GLIA_HOST_DEVICE double normal_from(double rand, double mean, double std) { return fma(rand, std, mean); }

}  // namespace glia::cuda

#endif  // GLIA_CUDA_PHILOX_H
