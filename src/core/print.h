// torch's repr of a tensor (torch/_tensor_str.py with default print options).
#pragma once

#include <string>

#include "core/tensor.h"

namespace glia {

// Exactly what Python's repr(t) prints for a CPU tensor with default print
// options: precision 4, threshold 1000, edgeitems 3, linewidth 80.
// `suffixes` holds extra ", key=value" parts torch appends before the dtype
// check (e.g. "requires_grad=True", "grad_fn=<AddBackward0>"), in order.
std::string to_string(const Tensor& t, const std::string& suffixes = "");

}  // namespace glia
