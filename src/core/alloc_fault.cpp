#include "core/alloc_fault.h"

namespace glia::fault {

AllocFault g_alloc_fault;

bool alloc_fault_tick() noexcept {
  AllocFault& f = g_alloc_fault;
  const int64_t n = f.count.fetch_add(1, std::memory_order_relaxed) + 1;
  const bool fail = f.fail_at > 0 && (n == f.fail_at || (f.persistent && n > f.fail_at));
  if (fail) f.failed.fetch_add(1, std::memory_order_relaxed);
  return fail;
}

void reset_alloc_fault(int64_t fail_at, bool persistent) noexcept {
  AllocFault& f = g_alloc_fault;
  f.armed.store(false, std::memory_order_seq_cst);
  f.count.store(0, std::memory_order_relaxed);
  f.failed.store(0, std::memory_order_relaxed);
  f.fail_at = fail_at;
  f.persistent = persistent;
}

}  // namespace glia::fault
