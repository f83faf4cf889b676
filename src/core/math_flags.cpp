#include "core/math_flags.h"

#include <atomic>

#include "glia/glia_backend.h"

namespace glia {

namespace {
std::atomic<uint32_t> g_flags{GLIA_BACKEND_MATH_TF32_CUDNN};
}  // namespace

uint32_t math_flags() { return g_flags.load(std::memory_order_relaxed); }

void set_math_flag(uint32_t bit, bool on) {
  if (on)
    g_flags.fetch_or(bit, std::memory_order_relaxed);
  else
    g_flags.fetch_and(~bit, std::memory_order_relaxed);
}

bool math_flag(uint32_t bit) { return (math_flags() & bit) != 0; }

}  // namespace glia
