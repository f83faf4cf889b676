// CPU kernels of tril/triu and flip (meta parts: src/ops/shape_ops.cpp). Both move elements
// without looking at their values, so they dispatch on the element size only.
#include <algorithm>
#include <cstring>

#include "core/dispatch.h"
#include "ops/cpu/loops.h"
#include "ops/index.h"

namespace glia::cpu {

using ops::dispatch_size;

// out0 (contiguous) <- in0 (any strides) with the elements off the kept triangle of each matrix zeroed.
void tril_kernel(const KernelArgs& k) {
  const Tensor &in = k.input(0), &out = k.output(0);
  const int64_t diagonal = k.attr(0).i;
  const bool upper = k.attr(1).i != 0;
  const int64_t nd = in.dim();
  const int64_t rows = in.shape()[nd - 2], cols = in.shape()[nd - 1];
  if (out.numel() == 0) return;
  const size_t sz = itemsize(in.dtype());
  const int64_t rs = in.strides()[nd - 2], cs = in.strides()[nd - 1];
  const int64_t batch = out.numel() / (rows * cols);
  const char* ib = static_cast<const char*>(in.data());
  char* ob = static_cast<char*>(out.data());
  int64_t idx[64] = {};
  dispatch_size(sz, [&](auto tag) {
    using U = decltype(tag);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t boff = 0;
      for (int64_t d = 0; d < nd - 2; ++d) boff += idx[d] * in.strides()[d];
      const U* src = reinterpret_cast<const U*>(ib) + boff;
      U* dst = reinterpret_cast<U*>(ob) + b * rows * cols;
      for (int64_t i = 0; i < rows; ++i) {
        // Kept columns [lo, hi): tril j <= i + diagonal, triu j >= i + diagonal (no overflow: clamped first).
        const int64_t edge = std::clamp<int64_t>(diagonal, -rows - 1, cols + 1) + i;
        const int64_t lo = upper ? std::clamp<int64_t>(edge, 0, cols) : 0;
        const int64_t hi = upper ? cols : std::clamp<int64_t>(edge + 1, 0, cols);
        U* row = dst + i * cols;
        const U* srow = src + i * rs;
        if (lo > 0) std::memset(row, 0, static_cast<size_t>(lo) * sz);
        if (hi < cols) std::memset(row + hi, 0, static_cast<size_t>(cols - hi) * sz);
        if (cs == 1) {
          if (hi > lo) std::memcpy(row + lo, srow + lo, static_cast<size_t>(hi - lo) * sz);
        } else {
          for (int64_t j = lo; j < hi; ++j) row[j] = srow[j * cs];
        }
      }
      for (int64_t d = nd - 3; d >= 0; --d) {
        if (++idx[d] < in.shape()[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// out0 (contiguous) <- in0 reversed along the dims of attr 0: in0 read with those strides negated,
// one row of the last dim at a time (a memcpy when that dim is neither flipped nor strided).
void flip_kernel(const KernelArgs& k) {
  const Tensor &in = k.input(0), &out = k.output(0);
  if (out.numel() == 0) return;
  const Attr& dims = k.attr(0);
  const int64_t nd = in.dim();
  Dims st = in.strides();
  int64_t start = 0;
  for (int64_t i = 0; i < dims.n_ints; ++i) {
    const size_t d = static_cast<size_t>(dims.ints[i]);
    start += (in.shape()[d] - 1) * st[d];
    st[d] = -st[d];
  }
  const size_t sz = itemsize(in.dtype());
  const int64_t inner = in.shape()[nd - 1], is = st[nd - 1];
  const int64_t rows = out.numel() / inner;
  const char* base = static_cast<const char*>(in.data());
  char* ob = static_cast<char*>(out.data());
  int64_t idx[64] = {};
  dispatch_size(sz, [&](auto tag) {
    using U = decltype(tag);
    const U* src0 = reinterpret_cast<const U*>(base) + start;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd - 1; ++d) off += idx[d] * st[static_cast<size_t>(d)];
      const U* src = src0 + off;
      U* dst = reinterpret_cast<U*>(ob) + r * inner;
      if (is == 1)
        std::memcpy(dst, src, static_cast<size_t>(inner) * sz);
      else
        for (int64_t j = 0; j < inner; ++j) dst[j] = src[j * is];
      for (int64_t d = nd - 2; d >= 0; --d) {
        if (++idx[d] < in.shape()[static_cast<size_t>(d)]) break;
        idx[d] = 0;
      }
    }
  });
}

}  // namespace glia::cpu
