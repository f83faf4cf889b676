#include "core/scratch.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "core/alloc_fault.h"

namespace glia {
namespace {

constexpr int kSlots = static_cast<int>(ScratchSlot::kCount);

struct Registry {
  std::mutex mu;
  std::vector<void*> blocks;  // every live scratch block of every thread
  std::atomic<uint64_t> generation{1};
  ~Registry() {
    for (void* p : blocks) std::free(p);
  }
};

Registry& registry() {
  static Registry r;  // destroyed at exit or dlclose (a static, not TLS: it pins nothing)
  return r;
}

struct Slot {
  void* p;
  size_t cap;
  uint64_t generation;
};
thread_local Slot t_slots[kSlots];  // trivially destructible: zero-initialised, no destructor

}  // namespace

void* thread_scratch(ScratchSlot which, size_t bytes) {
  Slot& s = t_slots[static_cast<int>(which)];
  Registry& r = registry();
  const uint64_t gen = r.generation.load(std::memory_order_acquire);
  if (s.generation != gen) s = Slot{nullptr, 0, gen};  // freed by release_thread_scratch
  if (bytes <= s.cap) return s.p;
  size_t rounded = std::max<size_t>((bytes + 63) / 64 * 64, 64);
  void* p = fault::alloc_fails() ? nullptr : std::aligned_alloc(64, rounded);
  if (!p) throw std::bad_alloc();
  std::lock_guard<std::mutex> lock(r.mu);
  if (s.p) {
    auto it = std::find(r.blocks.begin(), r.blocks.end(), s.p);
    if (it != r.blocks.end()) r.blocks.erase(it);
    std::free(s.p);
    s.p = nullptr;
    s.cap = 0;
  }
  try {
    r.blocks.push_back(p);
  } catch (...) {
    std::free(p);
    throw;
  }
  s.p = p;
  s.cap = rounded;
  return p;
}

void release_thread_scratch() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (void* p : r.blocks) std::free(p);
  r.blocks.clear();
  r.generation.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace glia
