// The index maps of reflect / replicate / circular padding (torch.nn.functional.pad; kernels.def's pad and
// pad_backward), host and device (host_device.h): pad_source_index is src/ops/cpu/pad.cpp's index_map for one
// output position, and pad_for_each_source_of calls f(o) for every output position o whose source is input
// position i, in ascending order, so that a backward kernel can gather the gradient of each input element in
// the CPU kernel's order of accumulation (row-major over the output) without atomics.
// Modes as kernels.def: 1 reflect, 2 replicate, 3 circular. `pl` and `pr` are the padding before and after
// (negative: cropping), `size` the input's size along the dim and `out` = size + pl + pr the output's.
#ifndef GLIA_CUDA_PAD_INDEX_H
#define GLIA_CUDA_PAD_INDEX_H

#include <cstdint>

#include "host_device.h"

namespace glia::cuda {

constexpr int64_t kPadReflect = 1, kPadReplicate = 2, kPadCircular = 3;

GLIA_HOST_DEVICE int64_t pad_max(int64_t a, int64_t b) { return a > b ? a : b; }
GLIA_HOST_DEVICE int64_t pad_min(int64_t a, int64_t b) { return a < b ? a : b; }

// The input position that output position o of one padded dim copies.
GLIA_HOST_DEVICE int64_t pad_source_index(int64_t mode, int64_t size, int64_t pl, int64_t pr, int64_t o) {
  int64_t i = o - pl;
  if (mode == kPadReflect) {
    if (i < 0) i = -i;
    if (i >= size) i = 2 * (size - 1) - i;
  } else if (mode == kPadReplicate) {
    i = pad_min(pad_max(i, 0), size - 1);
  } else {
    // circular (torch's _pad_circular): the cropped centre [c_lo, c_lo + len) repeats with period len.
    const int64_t c_lo = pad_max(-pl, 0), len = size - c_lo - pad_max(-pr, 0);
    i = len > 0 ? c_lo + ((o - pad_max(pl, 0)) % len + len) % len : 0;
  }
  return i;
}

// f(o) for each output position o in [0, out) with pad_source_index(o) == i, ascending. The candidates of each
// mode are a superset of the answer, in ascending order; each is checked against pad_source_index.
template <class F>
GLIA_HOST_DEVICE void pad_for_each_source_of(int64_t mode, int64_t size, int64_t pl, int64_t pr, int64_t out, int64_t i,
                                             F&& f) {
  int64_t last = -1;
  auto visit = [&](int64_t o) {
    if (o > last && o >= 0 && o < out && pad_source_index(mode, size, pl, pr, o) == i) {
      f(o);
      last = o;
    }
  };
  if (mode == kPadReflect) {
    // the left mirror, the copy, the right mirror (ascending for 0 <= i < size)
    visit(pl - i);
    visit(pl + i);
    visit(pl + 2 * (size - 1) - i);
  } else if (mode == kPadReplicate) {
    // a range: the copy, widened to the left edge for i == 0 and to the right edge for i == size - 1
    const int64_t lo = pad_max(i == 0 ? 0 : i + pl, 0), hi = pad_min(i == size - 1 ? out - 1 : i + pl, out - 1);
    for (int64_t o = lo; o <= hi; ++o) visit(o);
  } else {
    const int64_t c_lo = pad_max(-pl, 0), len = size - c_lo - pad_max(-pr, 0);
    if (len <= 0) {  // every output position reads element 0
      for (int64_t o = 0; o < out; ++o) visit(o);
      return;
    }
    // o = max(pl, 0) + (i - c_lo) + t * len for integers t
    int64_t o = pad_max(pl, 0) + (i - c_lo);
    o = ((o % len) + len) % len;
    for (; o < out; o += len) visit(o);
  }
}

}  // namespace glia::cuda

#endif  // GLIA_CUDA_PAD_INDEX_H
