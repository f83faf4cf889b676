// Allocation-failure injection for tests (Note [Allocation failure injection]).
// Internal: not part of the C ABI (libglia.so exports only glia_*); the tests
// that link the static glia_internal reach it, as io_failure_test reaches
// io::file_ops().
#pragma once

#include <atomic>
#include <cstdint>

namespace glia::fault {

// Note [Allocation failure injection]: the library's own allocation sites
// ask alloc_fails() before they allocate: the CPU allocator (each
// cpu_allocate, cached block or not, so also each host-hook allocation), the
// per-thread scratch buffers, the handle registry (each new handle),
// checkpoint buffers (ByteSource copies, save_buffer's result) and the name
// strings glia_module_named_children returns. Not asked (yet): SmallVector's
// heap part (more than 8 dimensions), and libzip, zlib and OpenBLAS, which
// call malloc themselves. A test's replacement of the global operator new
// asks it too (tests/reliability/oom_test.cpp), which covers every `new`
// and standard container inside the library. While disarmed (always, outside
// such tests) the check is one relaxed load of a flag and a branch predicted
// not taken; armed, allocations are counted and allocation number `fail_at`
// (1-based) fails, and with `persistent` every later one too, until disarmed.
struct AllocFault {
  std::atomic<bool> armed{false};
  std::atomic<int64_t> count{0};   // allocations counted while armed
  std::atomic<int64_t> failed{0};  // allocations made to fail
  int64_t fail_at = 0;             // 0: count only
  bool persistent = false;
};
extern AllocFault g_alloc_fault;

bool alloc_fault_tick() noexcept;

// True when this allocation must fail (the site then reports out of memory).
inline bool alloc_fails() noexcept {
  if (__builtin_expect(!g_alloc_fault.armed.load(std::memory_order_relaxed), 1)) return false;
  return alloc_fault_tick();
}

// For tests, on one thread while no other thread allocates. reset: count from
// zero, make allocation `fail_at` fail (0: none), and every later one when
// `persistent`; the flag stays off until arm(). arm/disarm bracket the
// stretches of code whose allocations count (a test's own allocations
// between library calls do not).
void reset_alloc_fault(int64_t fail_at, bool persistent) noexcept;
inline void arm_alloc_fault() noexcept { g_alloc_fault.armed.store(true, std::memory_order_seq_cst); }
inline void disarm_alloc_fault() noexcept { g_alloc_fault.armed.store(false, std::memory_order_seq_cst); }

}  // namespace glia::fault
