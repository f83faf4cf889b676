// Meta parts of tril/triu, diagonal, diag, diag_embed, trace, flip and roll (ops/shape_ops.h).
#include "ops/shape_ops.h"

#include <cstdlib>

#include "core/checked.h"
#include "core/dispatch.h"
#include "ops/elementwise.h"
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
  // The diagonal's stride is the sum of the two; it overflows only for a tensor without elements
  // (a [0, 2^63 - 1] tensor has stride 2^63 - 1; found by tests/fuzz), whose view any stride fits.
  int64_t step = 0;
  if (__builtin_add_overflow(t.strides()[static_cast<size_t>(d1)], t.strides()[static_cast<size_t>(d2)], &step)) {
    GLIA_CHECK(t.numel() == 0, Shape, "diagonal: integer overflow computing the stride of the diagonal");
    step = 1;
  }
  strides.push_back(step);
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

namespace glia::ops {

Dims movedim_order(int64_t ndim, IntSpan src, IntSpan dst) {
  GLIA_CHECK(src.size() == dst.size(), InvalidArgument, "movedim: Invalid source or destination dims: source (", src,
             " dims) should contain the same number of dims as destination (", dst, " dims)");
  const int64_t n = ndim == 0 ? 1 : ndim;
  SmallVector<bool, 8> seen_src(static_cast<size_t>(n), false), seen_dst(static_cast<size_t>(n), false);
  Dims s, d;
  for (int64_t x : src) s.push_back(wrap_dim(x, ndim));
  for (int64_t x : dst) d.push_back(wrap_dim(x, ndim));
  for (int64_t x : s) {
    GLIA_CHECK(!seen_src[static_cast<size_t>(x)], InvalidArgument, "movedim: repeated dim in `source` (", src, ")");
    seen_src[static_cast<size_t>(x)] = true;
  }
  for (int64_t x : d) {
    GLIA_CHECK(!seen_dst[static_cast<size_t>(x)], InvalidArgument, "movedim: repeated dim in `destination` (", dst,
               ")");
    seen_dst[static_cast<size_t>(x)] = true;
  }
  Dims order(static_cast<size_t>(ndim), -1);
  for (size_t i = 0; i < s.size() && ndim > 0; ++i) order[static_cast<size_t>(d[i])] = s[i];
  // The other dims keep their relative order in the free positions.
  int64_t next = 0;
  for (int64_t pos = 0; pos < ndim; ++pos) {
    if (order[static_cast<size_t>(pos)] != -1) continue;
    while (seen_src[static_cast<size_t>(next)]) ++next;
    order[static_cast<size_t>(pos)] = next++;
  }
  return order;
}

Tensor movedim(const Tensor& t, IntSpan src, IntSpan dst) { return permute(t, movedim_order(t.dim(), src, dst)); }

Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  const int64_t nd = t.dim();
  const int64_t d = wrap_dim(dim, nd);
  const int64_t max_size = nd == 0 ? 1 : t.shape()[static_cast<size_t>(d)];
  GLIA_CHECK(size <= max_size, InvalidArgument, "maximum size for tensor at dimension ", d, " is ", max_size,
             " but size is ", size);
  GLIA_CHECK(step > 0, InvalidArgument, "step is ", step, " but must be > 0");
  GLIA_CHECK(size >= 0, InvalidArgument, "size is ", size, " but must be >= 0");
  Dims shape = t.shape(), strides = t.strides();
  const int64_t stride = nd == 0 ? 1 : strides[static_cast<size_t>(d)];
  if (nd > 0) {
    shape[static_cast<size_t>(d)] = (max_size - size) / step + 1;
    // A step past the tensor leaves one window, whose stride is never used: step * stride may then
    // overflow (found by tests/fuzz with step = 2^63 - 1), and the element stride stands in.
    int64_t window_stride;
    strides[static_cast<size_t>(d)] = __builtin_mul_overflow(step, stride, &window_stride) ? stride : window_stride;
  }
  shape.push_back(size);
  strides.push_back(stride);
  return make_view(t, shape, strides, t.offset());
}

Tensor unfold_backward(const Tensor& g, IntSpan in_shape, int64_t dim, int64_t size, int64_t step) {
  Tensor out = zeros(in_shape, g.dtype(), g.device());
  if (out.numel() == 0 || size == 0) return out;
  // A 0-dim input has one window of its one element.
  Tensor o = in_shape.empty() ? make_view(out, Dims{1}, Dims{1}, out.offset()) : out;
  const int64_t d = in_shape.empty() ? 0 : dim;
  const int64_t windows = g.dim() == 1 ? 1 : g.shape()[static_cast<size_t>(d)];
  for (int64_t k = 0; k < size; ++k) {
    Tensor target = slice(o, d, k, k + step * (windows - 1) + 1, step);
    Tensor gk = select(g, g.dim() - 1, k);
    if (in_shape.empty()) gk = make_view(gk, Dims{1}, Dims{1}, gk.offset());
    copy_strided(target, add(target, gk, 1.0));
  }
  return out;
}

int64_t rot90_args(const Tensor& t, int64_t k, IntSpan dims, int64_t& d0, int64_t& d1) {
  const int64_t nd = t.dim(), n = static_cast<int64_t>(dims.size());
  GLIA_CHECK(n == 2, InvalidArgument, "expected total rotation dims == 2, but got dims = ", n);
  GLIA_CHECK(nd >= 2, InvalidArgument, "expected total dims >= 2, but got total dims = ", nd);
  GLIA_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != nd, InvalidArgument,
             "expected rotation dims to be different, but got dim0 = ", dims[0], " and dim1 = ", dims[1]);
  GLIA_CHECK(dims[0] < nd && dims[0] >= -nd, InvalidArgument, "Rotation dim0 out of range, dim0 = ", dims[0]);
  GLIA_CHECK(dims[1] < nd && dims[1] >= -nd, InvalidArgument, "Rotation dim1 out of range, dim1 = ", dims[1]);
  d0 = wrap_dim(dims[0], nd);
  d1 = wrap_dim(dims[1], nd);
  return ((k % 4) + 4) % 4;
}

Tensor repeat(const Tensor& t, IntSpan repeats) {
  const int64_t nd = t.dim(), nr = static_cast<int64_t>(repeats.size());
  GLIA_CHECK(nr >= nd, InvalidArgument,
             "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const int64_t lead = nr - nd;
  Dims out_shape, both_shape, both_strides;
  for (int64_t i = 0; i < nr; ++i) {
    const int64_t s = i < lead ? 1 : t.shape()[static_cast<size_t>(i - lead)];
    out_shape.push_back(checked_mul(s, repeats[static_cast<size_t>(i)], "repeat"));
  }
  for (int64_t i = 0; i < nr; ++i)
    GLIA_CHECK(repeats[static_cast<size_t>(i)] >= 0, InvalidArgument,
               "Trying to create tensor with negative dimension ", out_shape[static_cast<size_t>(i)], ": ", out_shape);
  // out viewed as [r0, s0, r1, s1, ...] <- t broadcast along the r dims.
  for (int64_t i = 0; i < nr; ++i) {
    const bool old = i >= lead;
    both_shape.push_back(repeats[static_cast<size_t>(i)]);
    both_shape.push_back(old ? t.shape()[static_cast<size_t>(i - lead)] : 1);
    both_strides.push_back(0);
    both_strides.push_back(old ? t.strides()[static_cast<size_t>(i - lead)] : 0);
  }
  Tensor out = empty(out_shape, t.dtype(), t.device());
  if (out.numel() == 0) return out;
  Tensor src = make_view(t, both_shape, both_strides, t.offset());
  copy_strided(make_view(out, both_shape, contiguous_strides(both_shape), out.offset()), src);
  return out;
}

}  // namespace glia::ops
