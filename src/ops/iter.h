// Broadcasting and type promotion, device-neutral: what every op's meta part
// needs (the role of torch's TensorIterator, without its generality). The
// strided loops the CPU kernels run on are in ops/cpu/loops.h.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "core/tensor.h"

namespace glia::ops {

// torch.broadcast_shapes; Error(Shape) with torch's message naming `op`.
Dims broadcast_shapes(const char* op, IntSpan a, IntSpan b);
// torch.promote_types.
DType promote_types(DType a, DType b);
// torch.result_type over operands (wrapped numbers and 0-dim tensors have lower priority).
DType result_type(std::span<const Tensor* const> operands);
inline DType result_type(const Tensor& a, const Tensor& b) {
  const Tensor* ops[] = {&a, &b};
  return result_type(ops);
}
// torch's error for a CPU kernel without an instance for `t`:
// "<kernel>" not implemented for '<ScalarType>' (GLIA_ERR_DTYPE).
[[noreturn]] void not_implemented_for(const char* kernel, DType t);
// A 0-dim tensor holding a Python-number-like scalar: int64 when `integral`, else float64 (wrapped).
Tensor wrapped_scalar(double v, bool integral);
// View of `t` expanded (stride 0) to `shape`; `shape` must be a broadcast of t's shape.
Tensor expand_to(const Tensor& t, IntSpan shape);

}  // namespace glia::ops
