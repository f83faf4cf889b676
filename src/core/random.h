// Per-thread random generators (Note [Per-thread generators]): each thread
// draws from its own PCG64 stream; glia_manual_seed re-seeds all of them, the
// caller's at once and the others at their next draw.
#pragma once

#include <cstdint>

namespace glia {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // torch's default_rng_seed_val

void manual_seed(uint64_t seed);

class Generator {
 public:
  explicit Generator(uint64_t seed) { reseed(seed); }
  void reseed(uint64_t seed);
  uint64_t next_u64();
  // Uniform on [0, 1) with 24 (float) or 53 (double) random bits.
  float next_float() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }
  double next_double() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
  double next_normal();

 private:
  unsigned __int128 state_ = 0;
  unsigned __int128 inc_ = 0;
  double spare_ = 0;
  bool has_spare_ = false;
};

// The calling thread's generator, re-seeded first if a newer seed was set.
Generator& thread_generator();

}  // namespace glia
