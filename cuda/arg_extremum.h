// The combine step of argmax / argmin / max_dim / min_dim on the GPU (reduce_extra.cu), host and device
// (host_device.h): a candidate is a value and its index along the row; arg_better keeps a NaN (the lower index
// among NaNs), else the greater (Max) or smaller value, the lower index on ties. It is associative and
// commutative, so any tree of partial results gives the CPU kernel's answer (src/ops/cpu/reduce.cpp's
// max_rows: the first NaN, else the first index of the extremum); tests/cuda/arg_extremum_test.cpp checks
// that against the CPU's serial rule over the block reduction's trees.
#ifndef GLIA_CUDA_ARG_EXTREMUM_H
#define GLIA_CUDA_ARG_EXTREMUM_H

#include <cstdint>
#include <type_traits>

#include "host_device.h"

namespace glia::cuda {

template <class A>
struct ArgCandidate {
  A v;
  int64_t i;  // -1: none yet (loses to anything)
};

template <class A>
GLIA_HOST_DEVICE bool arg_is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return v != v;
  else
    return false;
}

template <bool Max, class A>
GLIA_HOST_DEVICE ArgCandidate<A> arg_better(ArgCandidate<A> a, ArgCandidate<A> b) {
  if (a.i < 0) return b;
  if (b.i < 0) return a;
  const bool an = arg_is_nan(a.v), bn = arg_is_nan(b.v);
  if (an || bn) {
    if (an && bn) return a.i <= b.i ? a : b;
    return an ? a : b;
  }
  if (a.v == b.v) return a.i <= b.i ? a : b;
  return (Max ? a.v > b.v : a.v < b.v) ? a : b;
}

}  // namespace glia::cuda

#endif  // GLIA_CUDA_ARG_EXTREMUM_H
