// Meta parts of tril/triu, diagonal, diag, diag_embed, trace, flip and roll (ops/shape_ops.h).
#include "ops/shape_ops.h"

#include <cstdlib>

#include "core/dispatch.h"
#include "ops/index.h"
#include "ops/iter.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

// torch's maybe_wrap_dim without scalar wrapping (a 0-dim tensor has no dims to name).
int64_t wrap_dim_strict(int64_t dim, int64_t ndim) {
  GLIA_CHECK(ndim > 0, InvalidArgument, "Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(dim, ndim);
}

}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal, bool upper) {
  wrap_dim_strict(-2, t.dim());  // torch's error for inputs of fewer than 2 dims
  Tensor out = empty(t.shape(), t.dtype(), t.device());
  if (out.numel() > 0) run_kernel(KernelId::tril, t.device(), {&t}, {&out}, {attr_i(diagonal), attr_i(upper ? 1 : 0)});
  return out;
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = t.dim();
  const int64_t d1 = wrap_dim_strict(dim1, nd), d2 = wrap_dim_strict(dim2, nd);
  GLIA_CHECK(d1 != d2, InvalidArgument, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t s1 = t.shape()[static_cast<size_t>(d1)], s2 = t.shape()[static_cast<size_t>(d2)];
  int64_t len = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  if (len < 0) len = 0;
  int64_t off = t.offset();
  if (len > 0)
    off += offset >= 0 ? offset * t.strides()[static_cast<size_t>(d2)] : -offset * t.strides()[static_cast<size_t>(d1)];
  Dims shape, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == d1 || d == d2) continue;
    shape.push_back(t.shape()[static_cast<size_t>(d)]);
    strides.push_back(t.strides()[static_cast<size_t>(d)]);
  }
  shape.push_back(len);
  strides.push_back(t.strides()[static_cast<size_t>(d1)] + t.strides()[static_cast<size_t>(d2)]);
  return make_view(t, shape, strides, off);
}

Tensor diagonal_scatter_zeros(const Tensor& src, IntSpan shape, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = zeros(shape, src.dtype(), src.device());
  copy_strided(diagonal(out, offset, dim1, dim2), src);
  return out;
}

Tensor diag(const Tensor& t, int64_t k) {
  GLIA_CHECK(t.dim() == 1 || t.dim() == 2, InvalidArgument, "matrix or a vector expected");
  if (t.dim() == 2) {
    // torch 1.13 sizes the result min(rows, cols - k) (k >= 0) or min(rows + k, cols) unclamped, and fails
    // when that is negative.
    const int64_t rows = t.shape()[0], cols = t.shape()[1];
    GLIA_CHECK((k >= 0 ? std::min(rows, cols - k) : std::min(rows + k, cols)) >= 0, InvalidArgument,
               "numel: integer multiplication overflow");
    return clone(diagonal(t, k, 0, 1));
  }
  const int64_t n = t.shape()[0] + std::abs(k);
  const int64_t shape[] = {n, n};
  return diagonal_scatter_zeros(t, shape, k, 0, 1);
}

void diag_embed_dims(int64_t ndim, int64_t& dim1, int64_t& dim2) {
  const int64_t w1 = wrap_dim(dim1, ndim + 1), w2 = wrap_dim(dim2, ndim + 1);
  GLIA_CHECK(w1 != w2, InvalidArgument, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  dim1 = w1;
  dim2 = w2;
}

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  diag_embed_dims(t.dim(), dim1, dim2);
  const int64_t last = t.shape()[static_cast<size_t>(wrap_dim_strict(-1, t.dim()))];
  const int64_t n = std::abs(offset) + last;
  Dims shape = t.shape();
  shape.pop_back();
  const int64_t lo = std::min(dim1, dim2), hi = std::max(dim1, dim2);
  shape.insert(static_cast<size_t>(lo), n);
  shape.insert(static_cast<size_t>(hi), n);
  return diagonal_scatter_zeros(t, shape, offset, dim1, dim2);
}

Tensor trace(const Tensor& t) {
  GLIA_CHECK(t.dim() == 2, InvalidArgument, "trace: expected a matrix, but got tensor with dim ", t.dim());
  if (t.dtype() == DType::Bool) not_implemented_for("trace", t.dtype());
  return sum(diagonal(t, 0, 0, 1), {}, false);
}

Tensor flip(const Tensor& t, IntSpan dims) {
  const int64_t nd = t.dim();
  SmallVector<bool, 8> seen(static_cast<size_t>(nd == 0 ? 1 : nd), false);
  Dims wrapped;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, nd);
    GLIA_CHECK(!seen[static_cast<size_t>(w)], InvalidArgument, "dim ", w,
               " appears multiple times in the list of dims");
    seen[static_cast<size_t>(w)] = true;
    // A flip of a dim of size <= 1 (or of a 0-dim tensor) moves nothing.
    if (nd > 0 && t.shape()[static_cast<size_t>(w)] > 1) wrapped.push_back(w);
  }
  Tensor out = empty(t.shape(), t.dtype(), t.device());
  if (out.numel() == 0) return out;
  if (wrapped.empty()) {
    copy_strided(out, t);
    return out;
  }
  run_kernel(KernelId::flip, t.device(), {&t}, {&out}, {attr_ints(wrapped)});
  return out;
}

namespace {

// One dim: out[.., (i + shift) % n, ..] = t[.., i, ..], as two copies.
Tensor roll_dim(const Tensor& t, int64_t shift, int64_t dim) {
  const int64_t n = t.shape()[static_cast<size_t>(dim)];
  Tensor out = empty(t.shape(), t.dtype(), t.device());
  if (out.numel() == 0) return out;
  const int64_t s = ((shift % n) + n) % n;
  if (s == 0) {
    copy_strided(out, t);
    return out;
  }
  copy_strided(slice(out, dim, s, n, 1), slice(t, dim, 0, n - s, 1));
  copy_strided(slice(out, dim, 0, s, 1), slice(t, dim, n - s, n, 1));
  return out;
}

}  // namespace

Tensor roll(const Tensor& t, IntSpan shifts, IntSpan dims) {
  GLIA_CHECK(!shifts.empty(), InvalidArgument, "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    // torch: roll the flattened tensor, then view it in t's shape.
    Tensor flat = contiguous(t);
    const int64_t n = flat.numel();
    const int64_t one[] = {n};
    Tensor r = roll_dim(make_view(flat, one, Dims{1}, flat.offset()), shifts[0], 0);
    return make_view(r, t.shape(), contiguous_strides(t.shape()), r.offset());
  }
  GLIA_CHECK(shifts.size() == dims.size(), InvalidArgument, "shifts and dimensions must align. shifts: ", shifts.size(),
             ", dims:", dims.size());
  Tensor cur = t;
  for (size_t i = 0; i < dims.size(); ++i) cur = roll_dim(cur, shifts[i], wrap_dim_strict(dims[i], t.dim()));
  return cur;
}

}  // namespace glia::ops
