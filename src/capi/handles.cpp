#include "capi/handles.h"

#include <atomic>
#include <mutex>
#include <new>

#include "capi/handle_reserve.h"
#include "core/alloc_fault.h"

namespace glia::capi {

namespace {

constexpr uint32_t kChunkBits = 12;
constexpr uint32_t kChunkSize = 1u << kChunkBits;
constexpr uint32_t kMaxChunks = 4096;  // 16M live handles

struct Slot {
  // generation (high 32 bits) | handle reference count (low 32 bits).
  std::atomic<uint64_t> word{0};
  std::atomic<RefCounted*> obj{nullptr};
  std::atomic<uint8_t> type{0};
  std::atomic<uint32_t> next_free{0};
};

struct Registry {
  std::atomic<Slot*> chunks[kMaxChunks] = {};
  std::atomic<uint32_t> num_chunks{0};
  // Free list head: (tag << 32) | (slot index + 1); tag defeats ABA.
  std::atomic<uint64_t> free_head{0};
  std::mutex grow_mu;      // chunk allocation
  std::mutex identity_mu;  // handle_for on objects that may already have a slot

  ~Registry() {
    for (auto& c : chunks) delete[] c.load();
  }
};

Registry& reg() {
  static Registry r;
  return r;
}

Slot* slot_at(Registry& r, uint32_t idx) {
  uint32_t c = idx >> kChunkBits;
  if (c >= r.num_chunks.load(std::memory_order_acquire)) return nullptr;
  return &r.chunks[c].load(std::memory_order_acquire)[idx & (kChunkSize - 1)];
}

void push_free(Registry& r, uint32_t idx) {
  Slot* s = slot_at(r, idx);
  uint64_t head = r.free_head.load(std::memory_order_relaxed);
  for (;;) {
    s->next_free.store(static_cast<uint32_t>(head), std::memory_order_relaxed);
    uint64_t nh = (((head >> 32) + 1) << 32) | (idx + 1);
    if (r.free_head.compare_exchange_weak(head, nh, std::memory_order_release, std::memory_order_relaxed)) return;
  }
}

// Inlined: handle_for is on every op's path (W1), and a call here cost it a fifth.
[[gnu::always_inline]] inline uint32_t pop_free(Registry& r) {
  for (;;) {
    uint64_t head = r.free_head.load(std::memory_order_acquire);
    while (static_cast<uint32_t>(head) != 0) {
      uint32_t idx = static_cast<uint32_t>(head) - 1;
      uint32_t next = slot_at(r, idx)->next_free.load(std::memory_order_relaxed);
      uint64_t nh = (((head >> 32) + 1) << 32) | next;
      if (r.free_head.compare_exchange_weak(head, nh, std::memory_order_acq_rel, std::memory_order_acquire)) return idx;
    }
    std::lock_guard<std::mutex> lock(r.grow_mu);
    if (static_cast<uint32_t>(r.free_head.load(std::memory_order_acquire)) != 0) continue;
    uint32_t c = r.num_chunks.load(std::memory_order_relaxed);
    if (c == kMaxChunks) throw std::bad_alloc();
    Slot* chunk = new Slot[kChunkSize];
    for (uint32_t i = 0; i < kChunkSize; ++i) chunk[i].word.store(uint64_t(1) << 32, std::memory_order_relaxed);
    r.chunks[c].store(chunk, std::memory_order_release);
    r.num_chunks.store(c + 1, std::memory_order_release);
    // Slot 0 of chunk 0 is never used so that no token is (1 << 32 | 0)-ambiguous with small ints.
    for (uint32_t i = kChunkSize; i-- > (c == 0 ? 1u : 0u);) push_free(r, c * kChunkSize + i);
  }
}

void* token(uint32_t gen, uint32_t idx) { return reinterpret_cast<void*>((static_cast<uintptr_t>(gen) << 32) | idx); }

// Decodes `h`, returns its slot when generation, type and liveness match.
Slot* find(Registry& r, const void* h, HandleType type, uint64_t* word_out) {
  uintptr_t v = reinterpret_cast<uintptr_t>(h);
  uint32_t idx = static_cast<uint32_t>(v);
  uint32_t gen = static_cast<uint32_t>(v >> 32);
  if (gen == 0) return nullptr;
  Slot* s = slot_at(r, idx);
  if (!s) return nullptr;
  uint64_t w = s->word.load(std::memory_order_acquire);
  if ((w >> 32) != gen || static_cast<uint32_t>(w) == 0) return nullptr;
  if (s->type.load(std::memory_order_relaxed) != static_cast<uint8_t>(type)) return nullptr;
  *word_out = w;
  return s;
}

[[noreturn]] void bad_handle(const void* h, HandleType type, const char* fn, const char* arg) {
  if (!h) fail(Code::InvalidHandle, fn, ": argument '", arg, "' is NULL, expected a glia_", handle_type_name(type));
  fail(Code::InvalidHandle, fn, ": argument '", arg, "' is not a live glia_", handle_type_name(type),
       " (released, of another type, or never created)");
}

// Adds one handle reference if the slot is live with generation `gen`.
bool try_retain(Slot* s, uint32_t gen) {
  uint64_t w = s->word.load(std::memory_order_acquire);
  for (;;) {
    if ((w >> 32) != gen || static_cast<uint32_t>(w) == 0) return false;
    if (s->word.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
  }
}

// Makes free slot `idx` the handle of `obj` (a new handle reference). Allocates nothing.
[[gnu::always_inline]] inline void* bind_slot(Registry& r, uint32_t idx, RefCounted* obj, HandleType type) noexcept {
  Slot* s = slot_at(r, idx);
  obj->ref();
  s->obj.store(obj, std::memory_order_relaxed);
  s->type.store(static_cast<uint8_t>(type), std::memory_order_relaxed);
  uint64_t w = s->word.load(std::memory_order_relaxed);
  uint32_t gen = static_cast<uint32_t>(w >> 32);
  s->word.store((static_cast<uint64_t>(gen) << 32) | 1u, std::memory_order_release);
  // A releaser clears handle_slot only if it still names its own slot, so a
  // plain store here cannot be undone by a stale release.
  obj->handle_slot.store(idx, std::memory_order_release);
  return token(gen, idx);
}

}  // namespace

const char* handle_type_name(HandleType t) {
  switch (t) {
    case HandleType::Tensor:
      return "tensor";
    case HandleType::Module:
      return "module";
    case HandleType::Optimizer:
      return "optimizer";
    case HandleType::TensorDict:
      return "tensor_dict";
    case HandleType::LoadReport:
      return "load_report";
    case HandleType::ProcessGroup:
      return "process_group";
    case HandleType::Scheduler:
      return "lr_scheduler";
    case HandleType::Stream:
      return "stream";
    case HandleType::Event:
      return "event";
    case HandleType::Value:
      return "value";
    case HandleType::Store:
      return "store";
    case HandleType::Work:
      return "work";
  }
  return "object";
}

RefCounted* handle_lookup(const void* h, HandleType type, const char* fn, const char* arg) {
  uint64_t w;
  Slot* s = find(reg(), h, type, &w);
  if (!s) bad_handle(h, type, fn, arg);
  return s->obj.load(std::memory_order_relaxed);
}

void* handle_for(RefCounted* obj, HandleType type) {
  Registry& r = reg();
  uint32_t existing = obj->handle_slot.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock;
  if (existing != 0 || obj->use_count() > 1) {
    // Others may know this object: serialise identity lookups (see the Note).
    lock = std::unique_lock<std::mutex>(r.identity_mu);
    existing = obj->handle_slot.load(std::memory_order_acquire);
    if (existing != 0) {
      Slot* s = slot_at(r, existing);
      uint32_t gen = static_cast<uint32_t>(s->word.load(std::memory_order_acquire) >> 32);
      if (s->obj.load(std::memory_order_relaxed) == obj && try_retain(s, gen)) return token(gen, existing);
    }
  }
  if (fault::alloc_fails()) throw std::bad_alloc();  // a full registry (Note [Allocation failure injection])
  return bind_slot(r, pop_free(r), obj, type);
}

HandleReservation::HandleReservation() {
  if (fault::alloc_fails()) throw std::bad_alloc();
  idx_ = pop_free(reg());
}

HandleReservation::~HandleReservation() {
  if (!used_) push_free(reg(), idx_);
}

void* HandleReservation::bind(RefCounted* obj, HandleType type) noexcept {
  used_ = true;
  return bind_slot(reg(), idx_, obj, type);
}

void handle_retain(const void* h, HandleType type, const char* fn) {
  uint64_t w;
  Slot* s = find(reg(), h, type, &w);
  if (!s || !try_retain(s, static_cast<uint32_t>(w >> 32))) bad_handle(h, type, fn, "handle");
}

void handle_release(const void* h, HandleType type, const char* fn) {
  Registry& r = reg();
  uint64_t w;
  Slot* s = find(r, h, type, &w);
  if (!s) bad_handle(h, type, fn, "handle");
  uint32_t gen = static_cast<uint32_t>(w >> 32);
  for (;;) {
    if ((w >> 32) != gen || static_cast<uint32_t>(w) == 0) bad_handle(h, type, fn, "handle");
    uint64_t nw = static_cast<uint32_t>(w) == 1 ? (static_cast<uint64_t>(gen + 1 == 0 ? 1 : gen + 1) << 32) : w - 1;
    if (s->word.compare_exchange_weak(w, nw, std::memory_order_acq_rel, std::memory_order_acquire)) {
      if (static_cast<uint32_t>(w) != 1) return;
      break;
    }
  }
  // Last handle reference: the slot is dead (new generation); free it.
  uint32_t idx = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(h));
  RefCounted* obj = s->obj.exchange(nullptr, std::memory_order_acq_rel);
  uint32_t expected = idx;
  obj->handle_slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
  push_free(r, idx);
  obj->unref();
}

// Counted by a scan rather than kept in a shared counter: two fewer atomic read-modify-writes on every
// handle's creation and release (W1's path), for a function only leak checks call.
uint64_t live_handles() {
  Registry& r = reg();
  uint64_t n = 0;
  const uint32_t chunks = r.num_chunks.load(std::memory_order_acquire);
  for (uint32_t c = 0; c < chunks; ++c) {
    const Slot* chunk = r.chunks[c].load(std::memory_order_acquire);
    for (uint32_t i = 0; i < kChunkSize; ++i)
      if (static_cast<uint32_t>(chunk[i].word.load(std::memory_order_acquire)) != 0) ++n;
  }
  return n;
}

}  // namespace glia::capi
