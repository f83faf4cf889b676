#pragma once

#include "autograd/node.h"

namespace glia {

// Differentiable views (see ops/shape.h for the rules); gradients reshape,
// permute or sum back, through differentiable ops (so create_graph works).
Tensor view(const Tensor& t, IntSpan shape);
Tensor reshape(const Tensor& t, IntSpan shape);
Tensor permute(const Tensor& t, IntSpan dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor squeeze(const Tensor& t, IntSpan dims = {}, bool all_dims = true);
Tensor expand(const Tensor& t, IntSpan shape);
Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);
// torch.clone: a copy that gradients flow through (core's clone() records nothing).
Tensor clone_with_grad(const Tensor& t);
// Tensor.to(dtype) / .double() / .float() ...: core's to_dtype with torch's ToCopyBackward0
// (the input itself when the dtype is already `dtype`; non-floating results record nothing).
// t on `device` with `dtype`, differentiable (ToCopyBackward0); t itself when both match.
// non_blocking: torch's .to(..., non_blocking=True) (Note [Non-blocking copies] in core/tensor.cpp): a
// copy from a device to the CPU then lands in pinned memory of the device's backend.
Tensor to_with_grad(const Tensor& t, Device device, DType dtype, bool non_blocking = false);
// torch's Tensor.pin_memory(): t (a CPU tensor) in pinned memory of `backend`'s device type
// (PinMemoryBackward0); t itself when it is pinned already.
Tensor pin_memory_with_grad(const Tensor& t, DeviceType backend, const char* what);
Tensor to_dtype_with_grad(const Tensor& t, DType dtype);
// Tensor.contiguous(): the input itself when contiguous, else a copy gradients flow through.
Tensor contiguous_with_grad(const Tensor& t);

}  // namespace glia

namespace glia {

// Differentiable slicing views (GRAD2: their backward embeds the gradient into
// zeros through a differentiable op whose own backward slices again).
Tensor unflatten(const Tensor& t, int64_t dim, IntSpan sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Tensor select(const Tensor& t, int64_t dim, int64_t index);

}  // namespace glia
