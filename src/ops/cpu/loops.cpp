// Out-of-line parts of the CPU's loop helpers (ops/cpu/loops.h).
#include "ops/cpu/loops.h"

namespace glia::ops {

bool cpu_has_avx2() {
  static const bool has = [] {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
#else
    return false;
#endif
  }();
  return has;
}

}  // namespace glia::ops
