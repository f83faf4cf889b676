#pragma once

#include <optional>

#include "autograd/node.h"

namespace glia {

Tensor sum(const Tensor& t, IntSpan dims = {}, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
// Broadcasts t (of shape reduced over `mask` without keepdim) back to `shape`.
Tensor expand_reduced(const Tensor& t, IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim);

}  // namespace glia
