// The process-wide math switches of torch.use_deterministic_algorithms, torch.backends.cudnn.deterministic and
// torch.backends.{cuda.matmul,cudnn}.allow_tf32 (glia_set_deterministic_algorithms, glia_set_allow_tf32...).
// The CPU kernels are deterministic and never use TF32 whatever they say; backends read them through
// glia_backend_services.math_flags at every kernel call (Note [Math flags]).
#pragma once

#include <cstdint>

namespace glia {

// Note [Math flags]: four process-wide bits (torch's are global too, not per thread), read with relaxed atomics
// (a kernel sees the value of some recent set; torch gives no stronger promise). Defaults are torch's:
// deterministic algorithms off, cudnn.deterministic off, TF32 off for matrix products and on for cuDNN
// convolutions. The bits are the GLIA_BACKEND_MATH_* values of include/glia/glia_backend.h.
uint32_t math_flags();
void set_math_flag(uint32_t bit, bool on);
bool math_flag(uint32_t bit);

}  // namespace glia
