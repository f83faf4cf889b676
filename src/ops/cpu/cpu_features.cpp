// Note [CPU features] (cpu_features.h).
#include "ops/cpu/cpu_features.h"

#include "core/error.h"

#if GLIA_X86
#include <cpuid.h>
#endif

namespace glia {

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    CpuFeatures r;
#if GLIA_X86
    __builtin_cpu_init();
    r.avx2 = __builtin_cpu_supports("avx2") != 0;
    r.fma = __builtin_cpu_supports("fma") != 0;
    r.avx512f = __builtin_cpu_supports("avx512f") != 0;
    r.bmi2 = __builtin_cpu_supports("bmi2") != 0;
    // F16C through cpuid: clang's __builtin_cpu_supports does not know "f16c" (the fuzz build uses clang).
    unsigned a = 0, b = 0, c = 0, d = 0;
    r.f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
#endif
    return r;
  }();
  return f;
}

void x86_only() { fail(Code::Internal, "an x86 kernel was called on a processor without x86 support"); }

}  // namespace glia
