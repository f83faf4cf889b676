// The restricted unpickler (Python pickle protocols 2 to 5) that torch_read.cpp
// builds state dicts with. Only the globals a state dict needs are allowed; any
// other GLOBAL/STACK_GLOBAL, or a REDUCE/NEWOBJ/BUILD on anything else, is
// Error(Format) naming it. No code runs, ever.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nn/tensor_dict.h"

namespace glia::io {

// The unpickler alone, as the fuzzer and the hostile-pickle tests drive it: parses
// `data` as torch's data.pkl, resolving each persistent id ('storage', type, key,
// location, numel) to a zero-filled storage (Error(Format) when one would exceed
// max_storage_bytes), and returns the dict read_torch would build from it.
// Errors: Format.
Ref<nn::TensorDict> unpickle_state_dict(const uint8_t* data, size_t size, uint64_t max_storage_bytes);

}  // namespace glia::io
