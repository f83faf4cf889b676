#include "core/allocator.h"

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "core/alloc_fault.h"
#include "core/error.h"

// Note [Poisoned cache under ASan]: a caching allocator hides overruns and uses
// after free from AddressSanitizer, which sees one live malloc'd block where glia
// sees a tensor of fewer bytes, or a freed one. Under ASan every block is
// poisoned except the bytes the caller asked for: the rounding tail of a live
// block and every cached block, so an overrun past a tensor's bytes or a read of
// a released storage is reported (tests/core/asan_poison_test.cpp). Blocks are
// unpoisoned before they go back to their allocator.
#if defined(__SANITIZE_ADDRESS__)
#define GLIA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLIA_ASAN 1
#endif
#endif
#ifdef GLIA_ASAN
#include <sanitizer/asan_interface.h>
#define GLIA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define GLIA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define GLIA_POISON(p, n) ((void)(p), (void)(n))
#define GLIA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace glia {

HostAllocator::~HostAllocator() {
  if (free_user_data) free_user_data(user_data);
}

namespace {

// Size classes: multiples of 64 up to 1 KiB, then four classes per power of two.
// Blocks above kMaxCached bytes go straight back to their allocator.
constexpr size_t kMaxCached = size_t(64) << 20;
constexpr int kNumBins = 16 + 4 * 27;

int bin_of(size_t n, size_t* rounded) {
  if (n <= 1024) {
    size_t r = (n + 63) & ~size_t(63);
    if (r == 0) r = 64;
    *rounded = r;
    return static_cast<int>(r / 64) - 1;  // 0..15
  }
  int lg = 63 - __builtin_clzll(n - 1);    // 2^lg < n <= 2^(lg+1)
  size_t quarter = size_t(1) << (lg - 2);  // classes 2^lg * {1.25, 1.5, 1.75, 2}
  size_t base = size_t(1) << lg;
  size_t k = (n - base + quarter - 1) / quarter;  // 1..4
  *rounded = base + k * quarter;
  return 16 + (lg - 10) * 4 + static_cast<int>(k) - 1;
}

// Note [Allocator lock]: the sections under the lock are a few instructions
// (a bin's push or pop and the statistics). A spin lock takes one atomic
// exchange to enter and a plain store to leave; pthread's mutex cost two
// locked operations and two calls per allocation, a tenth of a small op's
// time (W1). A waiter spins briefly, then yields the core.
//
// Note [Host hooks outside the lock]: the host's alloc and free hooks never run
// under the lock. A hook may call back into glia (glia_memory_stats_get, even
// an allocation); under a spin lock that would deadlock. Emptying the cache
// detaches the cached blocks under the lock and frees them after it.
class SpinLock {
 public:
  void lock() noexcept {
    while (held_.exchange(true, std::memory_order_acquire)) {
      for (int spins = 0; held_.load(std::memory_order_relaxed); ++spins) {
        if (spins < 128) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          sched_yield();
        }
      }
    }
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

struct State {
  ~State();
  SpinLock mu;
  Ref<HostAllocator> current;  // null: built-in aligned_alloc
  std::vector<void*> bins[kNumBins];
  // Statistics, under mu (the allocation path holds it anyway; no extra atomics).
  uint64_t in_use = 0, peak = 0, cached = 0, allocations = 0;
};

State& state() {
  // Destroyed at exit or dlclose, after every handle must have been released.
  static State s;
  return s;
}

void* raw_alloc(HostAllocator* a, size_t size) {
  if (a) return a->alloc_fn(a->user_data, size, kAlignment);
  return std::aligned_alloc(kAlignment, size);
}
void raw_free(HostAllocator* a, void* p, size_t size) {
  GLIA_UNPOISON(p, size);  // the allocator it goes back to may touch it
  if (a)
    a->free_fn(a->user_data, p, size);
  else
    std::free(p);
}

size_t bin_size(int b) {
  if (b < 16) return size_t(b + 1) * 64;
  int lg = (b - 16) / 4 + 10;
  return (size_t(1) << lg) + size_t((b - 16) % 4 + 1) * (size_t(1) << (lg - 2));
}

// A bin's blocks taken out of the cache, to be freed after the lock is dropped.
struct Detached {
  std::vector<void*> blocks[kNumBins];
};

// Under s.mu: moves every cached block into `out` (no allocation: the vectors are swapped).
void detach_locked(State& s, Detached& out) {
  for (int b = 0; b < kNumBins; ++b) out.blocks[b].swap(s.bins[b]);
  s.cached = 0;
}

// Without the lock (Note [Host hooks outside the lock]): hands detached blocks to `owner`'s free.
void free_detached(HostAllocator* owner, Detached& d) {
  for (int b = 0; b < kNumBins; ++b) {
    for (void* p : d.blocks[b]) raw_free(owner, p, bin_size(b));
    d.blocks[b].clear();
  }
}

State::~State() {
  Detached d;
  detach_locked(*this, d);
  free_detached(current.get(), d);
}

// Under s.mu.
void note_in_use(State& s, int64_t delta) {
  s.in_use += static_cast<uint64_t>(delta);
  if (s.in_use > s.peak) s.peak = s.in_use;
}

}  // namespace

CpuBlock cpu_allocate(size_t nbytes) {
  State& s = state();
  CpuBlock b;
  if (nbytes == 0) return b;
  // No object is larger than PTRDIFF_MAX bytes; refusing here also keeps the rounding below from wrapping.
  GLIA_CHECK(nbytes <= static_cast<size_t>(PTRDIFF_MAX) - kAlignment && !fault::alloc_fails(), OutOfMemory,
             "out of memory: failed to allocate ", nbytes, " bytes on cpu");
  size_t rounded = 0;
  int bin = nbytes <= kMaxCached ? bin_of(nbytes, &rounded) : -1;
  if (bin < 0) rounded = (nbytes + kAlignment - 1) & ~(kAlignment - 1);
  {
    std::lock_guard<SpinLock> lock(s.mu);
    b.owner = s.current;
    if (bin >= 0 && !s.bins[bin].empty()) {
      b.ptr = s.bins[bin].back();
      s.bins[bin].pop_back();
      s.cached -= rounded;
      b.size = rounded;
      ++s.allocations;
      note_in_use(s, static_cast<int64_t>(rounded));
    }
  }
  if (b.ptr) {
    GLIA_UNPOISON(b.ptr, nbytes);  // the rest of the block stays poisoned
    return b;
  }
  b.ptr = raw_alloc(b.owner.get(), rounded);
  if (!b.ptr) {
    empty_cache();
    b.ptr = raw_alloc(b.owner.get(), rounded);
  }
  GLIA_CHECK(b.ptr, OutOfMemory, "out of memory: failed to allocate ", nbytes, " bytes on cpu");
  b.size = rounded;
  GLIA_POISON(static_cast<char*>(b.ptr) + nbytes, rounded - nbytes);  // the rounding tail
  std::lock_guard<SpinLock> lock(s.mu);
  ++s.allocations;
  note_in_use(s, static_cast<int64_t>(rounded));
  return b;
}

void cpu_deallocate(CpuBlock& b) noexcept {
  if (!b.ptr) return;
  State& s = state();
  size_t rounded = 0;
  int bin = b.size <= kMaxCached ? bin_of(b.size, &rounded) : -1;
  // Poisoned before another thread can take it from the cache; raw_free unpoisons.
  GLIA_POISON(b.ptr, b.size);
  {
    std::lock_guard<SpinLock> lock(s.mu);
    note_in_use(s, -static_cast<int64_t>(b.size));
    if (bin >= 0 && rounded == b.size && b.owner == s.current) {
      try {
        s.bins[bin].push_back(b.ptr);
        s.cached += b.size;
        b.ptr = nullptr;
      } catch (...) {
        // No room to cache it: fall through and free it.
      }
    }
  }
  if (b.ptr) raw_free(b.owner.get(), b.ptr, b.size);
  b.ptr = nullptr;
  b.owner.reset();
}

void set_host_allocator(Ref<HostAllocator> a) {
  State& s = state();
  Ref<HostAllocator> old;
  Detached d;
  {
    std::lock_guard<SpinLock> lock(s.mu);
    detach_locked(s, d);
    old = std::move(s.current);
    s.current = std::move(a);
  }
  free_detached(old.get(), d);
}

MemoryStats memory_stats() {
  State& s = state();
  std::lock_guard<SpinLock> lock(s.mu);
  return {s.in_use, s.peak, s.cached, s.allocations};
}

void reset_peak_memory_stats() {
  State& s = state();
  std::lock_guard<SpinLock> lock(s.mu);
  s.peak = s.in_use;
}

void empty_cache() {
  State& s = state();
  Ref<HostAllocator> owner;
  Detached d;
  {
    std::lock_guard<SpinLock> lock(s.mu);
    detach_locked(s, d);
    owner = s.current;
  }
  free_detached(owner.get(), d);
}

}  // namespace glia
