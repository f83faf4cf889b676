#include "core/random.h"

#include <atomic>
#include <cmath>

namespace glia {

namespace {
// (epoch, seed) pair published by manual_seed; threads compare epochs.
std::atomic<uint64_t> g_seed{kDefaultSeed};
std::atomic<uint64_t> g_epoch{0};

struct ThreadGen {
  Generator gen{kDefaultSeed};
  uint64_t epoch = 0;
};
// Trivially destructible so that no TLS destructor pins the library at dlclose.
static_assert(std::is_trivially_destructible_v<Generator>);
thread_local ThreadGen t_gen;
}  // namespace

void Generator::reseed(uint64_t seed) {
  // PCG64 (XSL-RR 128/64) seeding as in the reference implementation.
  inc_ = ((static_cast<unsigned __int128>(seed) << 64 | 0xda3e39cb94b95bdbULL) << 1) | 1u;
  state_ = 0;
  next_u64();
  state_ += (static_cast<unsigned __int128>(seed ^ 0x853c49e6748fea9bULL) << 64) | seed;
  next_u64();
  has_spare_ = false;
}

uint64_t Generator::next_u64() {
  constexpr unsigned __int128 mult =
      (static_cast<unsigned __int128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;
  state_ = state_ * mult + inc_;
  uint64_t x = static_cast<uint64_t>(state_ >> 64) ^ static_cast<uint64_t>(state_);
  unsigned rot = static_cast<unsigned>(state_ >> 122);
  return (x >> rot) | (x << ((-rot) & 63));
}

double Generator::next_normal() {
  // Box-Muller; the second value of each pair is kept for the next call.
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u1 = 1.0 - next_double();  // (0, 1]
  double u2 = next_double();
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = 2.0 * M_PI * u2;
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

void manual_seed(uint64_t seed) {
  g_seed.store(seed, std::memory_order_relaxed);
  uint64_t e = g_epoch.fetch_add(1, std::memory_order_acq_rel) + 1;
  t_gen.gen.reseed(seed);
  t_gen.epoch = e;
}

Generator& thread_generator() {
  uint64_t e = g_epoch.load(std::memory_order_acquire);
  if (e != t_gen.epoch) {
    t_gen.gen.reseed(g_seed.load(std::memory_order_relaxed));
    t_gen.epoch = e;
  }
  return t_gen.gen;
}

}  // namespace glia
