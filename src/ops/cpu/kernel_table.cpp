// The CPU kernel table (Note [Op = meta + kernel + rule] in core/dispatch.h):
// one entry per line of core/kernels.def, in its order, constant-initialised
// so that dispatch to the CPU is one indexed indirect call and works from the
// first instruction on (no registration at start-up).
#include "core/dispatch.h"

namespace glia {

const CpuKernel kCpuKernels[kKernelCount] = {
#define GLIA_KERNEL(name, ...) &cpu::name##_kernel,
#include "core/kernels.def"
#undef GLIA_KERNEL
};

}  // namespace glia
