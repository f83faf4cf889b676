// Factories beyond core's (empty, zeros, ones, full, arange, rand, randn):
// torch.eye, linspace, logspace, randint and the *_like family. Every result is
// made on the device the caller names (no default); values computed on the host
// (linspace, logspace, randint, as core's arange and rand) are copied there.
#pragma once

#include "core/tensor.h"

namespace glia::ops {

// torch.eye(n, m): ones on the main diagonal (a fill of the diagonal view).
Tensor eye(int64_t n, int64_t m, DType dtype, Device device);
// torch.linspace: `steps` values from start to end (torch's two-sided formula).
Tensor linspace(double start, double end, int64_t steps, DType dtype, Device device);
// torch.logspace: base ** linspace(start, end, steps).
Tensor logspace(double start, double end, int64_t steps, double base, DType dtype, Device device);
// torch.randint: uniform integers in [low, high) from the calling thread's generator.
Tensor randint(int64_t low, int64_t high, IntSpan shape, DType dtype, Device device);
// torch.tril_indices / triu_indices (upper): the [2, N] row and column indices of the triangle's
// elements in row-major order (int64 or int32).
Tensor tril_indices(int64_t row, int64_t col, int64_t offset, bool upper, DType dtype, Device device);
// torch.empty_like (memory_format=torch.preserve_format): t's strides when t is dense and
// non-overlapping, else contiguous.
Tensor empty_like(const Tensor& t, DType dtype, Device device);

}  // namespace glia::ops
