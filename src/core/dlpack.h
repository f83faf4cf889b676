// Zero-copy DLPack import and export (dlpack/dlpack.h, DLPack 0.6+).
#pragma once

#include "core/tensor.h"

struct DLManagedTensor;

namespace glia {

// Takes ownership of `m` on success (its deleter runs exactly once when the
// last view dies); on failure throws and leaves `m` to the caller.
Tensor from_dlpack(DLManagedTensor* m);
// A new DLManagedTensor viewing `t`; its deleter releases glia's reference.
DLManagedTensor* to_dlpack(const Tensor& t);

}  // namespace glia
