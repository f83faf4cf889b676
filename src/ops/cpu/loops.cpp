// Out-of-line parts of the CPU's loop helpers (ops/cpu/loops.h).
#include "ops/cpu/loops.h"

#include "ops/cpu/cpu_features.h"

namespace glia::ops {

bool cpu_has_avx2() { return cpu_features().avx2; }

}  // namespace glia::ops
