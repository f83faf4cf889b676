// Slicing, indexing, joining and padding (no autograd): views where torch
// returns views (narrow, slice, select, unflatten, split, chunk), meta parts
// over kernels for the rest (src/ops/cpu/index.cpp, src/ops/cpu/pad.cpp; Note
// [Op = meta + kernel + rule]). Index bounds are checked by the kernels.
#pragma once

#include <vector>

#include "core/scalar.h"
#include "ops/iter.h"

namespace glia {
// torch.nn.functional.pad's modes (declared in glia, not glia::ops, so that argument-dependent lookup of
// pad(t, p, PadMode::...) finds only the differentiable glia::pad from autograd code).
enum class PadMode { Constant = 0, Reflect = 1, Replicate = 2, Circular = 3 };
}  // namespace glia

namespace glia::ops {

// Calls f(U{}) with an unsigned integer type of `size` bytes (type-agnostic element copies).
template <class F>
void dispatch_size(size_t size, F&& f) {
  switch (size) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    default:
      return f(uint64_t{});
  }
}

// ---- views
Tensor unflatten(const Tensor& t, int64_t dim, IntSpan sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
// torch's aten::slice: start/end clamped to [0, size] after wrapping negatives; step > 0.
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& t, IntSpan sizes, int64_t dim);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim);

// ---- copies
// dst <- src elementwise (same shapes); fast row copies when dtypes match (CPU), the copy kernel elsewhere.
void copy_strided(const Tensor& dst, const Tensor& src);
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
// out[index[i]] += src[i] along dim (torch's index_add_ with alpha 1); out is modified.
void index_add_(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
// Out of place: a copy of t with src scattered in (accumulate: scatter_add).
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, bool accumulate);
// In place on out (contiguous or not): out[index] (+)= src.
void scatter_(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool accumulate);
// Scatter of a scalar value (torch.scatter(self, dim, index, value)).
Tensor scatter_value(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value);
Tensor masked_select(const Tensor& t, const Tensor& mask);
// out (broadcast shape of mask) gets src's first elements at the true positions of mask, in order.
void masked_scatter_(const Tensor& out, const Tensor& mask, const Tensor& src);
// torch's argument checks of gather (src null) and scatter (not the index bounds: the kernels check those).
void check_gather(const char* op, const Tensor& t, int64_t dim, const Tensor& index, const Tensor* src);
Tensor cat(const std::vector<Tensor>& ts, int64_t dim);
Tensor stack(const std::vector<Tensor>& ts, int64_t dim);

// ---- padding (torch.nn.functional.pad)
Tensor pad(const Tensor& t, IntSpan pad, PadMode mode, double value);
// Gradient of a non-constant pad: sums grad back onto the input positions.
Tensor pad_backward(const Tensor& grad, IntSpan in_shape, IntSpan pad, PadMode mode);

}  // namespace glia::ops
