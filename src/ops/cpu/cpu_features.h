// Note [CPU features]: the one place where the CPU kernels learn what the processor can do.
// x86 code paths (AVX2 and AVX-512 intrinsics in functions marked __attribute__((target(...))))
// are compiled only where GLIA_X86 is 1 and chosen at run time from cpu_features(). A kernel file
// includes this header instead of <immintrin.h> and puts each x86 function under `#if GLIA_X86`,
// with an `#else` stub of the same signature that calls x86_only(): on other processors
// (aarch64) every feature reads false, so the stubs are never called and the portable loops run.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#define GLIA_X86 1
#include <immintrin.h>
#else
#define GLIA_X86 0
#endif

namespace glia {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool f16c = false;
  bool bmi2 = false;
};

// Detected once (thread-safe); all false off x86.
const CpuFeatures& cpu_features();

// The body of an x86 kernel's stub on other processors: unreachable (its feature reads false).
[[noreturn]] void x86_only();

}  // namespace glia
