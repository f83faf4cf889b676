// Slicing views, index ops (index_select, index_add, gather, scatter,
// masked_select, masked_scatter) and joining (cat, stack); messages follow
// torch 1.13. Meta parts (glia::ops) and CPU kernels (glia::cpu), Note [Op =
// meta + kernel + rule]; the kernels check the indices (torch's CPU messages).
#include "ops/index.h"

#include <cstring>
#include <vector>

#include "core/checked.h"
#include "core/dispatch.h"
#include "ops/cpu/loops.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

// 0-dim tensors behave as 1-element 1-D tensors in the index kernels.
Tensor as_1d(const Tensor& t) { return t.dim() == 0 ? make_view(t, Dims{1}, Dims{1}, t.offset()) : t; }

int64_t dim_or_1(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }

bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

}  // namespace

// ---- views

Tensor unflatten(const Tensor& t, int64_t dim, IntSpan sizes) {
  dim = wrap_dim(dim, t.dim());
  GLIA_CHECK(!sizes.empty(), InvalidArgument, "unflatten: sizes must be non-empty");
  int64_t size = t.dim() == 0 ? 1 : t.shape()[dim];
  Dims inferred;
  bool ok = true;
  try {
    inferred = infer_size(sizes, size);
  } catch (const Error&) {
    ok = false;
  }
  GLIA_CHECK(ok, Shape, "unflatten: Provided sizes ", sizes, " don't multiply up to the size of dim ", dim, " (", size,
             ") in the input tensor");
  Dims shape;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == dim)
      for (int64_t s : inferred) shape.push_back(s);
    else
      shape.push_back(t.shape()[d]);
  }
  if (t.dim() == 0) shape = inferred;
  return view(t, shape);
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  GLIA_CHECK(t.dim() > 0, InvalidArgument, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim());
  int64_t cur = t.shape()[dim];
  if (start != cur) start = wrap_dim(start, cur);
  GLIA_CHECK(length >= 0 && start <= cur - length, InvalidArgument, "start (", start, ") + length (", length,
             ") exceeds dimension size (", cur, ").");
  return slice(t, dim, start, start + length, 1);
}

Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  GLIA_CHECK(t.dim() > 0, InvalidArgument, "slice() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim());
  GLIA_CHECK(step > 0, InvalidArgument, "slice step must be positive");
  int64_t size = t.shape()[dim];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = start < 0 ? 0 : std::min(start, size);
  end = end < start ? start : std::min(end, size);
  Dims shape = t.shape(), st = t.strides();
  // 0 <= start <= end <= size: no overflow below unless the stride times the step does (Note [Checked sizes]).
  shape[dim] = end == start ? 0 : (end - start - 1) / step + 1;
  if (shape[dim] > 1) st[dim] = checked_mul(st[dim], step, "slice");
  return make_view(t, shape, st, checked_add(t.offset(), checked_mul(start, t.strides()[dim], "slice"), "slice"));
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  GLIA_CHECK(t.dim() > 0, InvalidArgument, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim());
  int64_t size = t.shape()[dim];
  GLIA_CHECK(index >= -size && index < size, InvalidArgument, "select(): index ", index,
             " out of range for tensor of size ", t.shape(), " at dimension ", dim);
  if (index < 0) index += size;
  Dims shape = t.shape(), st = t.strides();
  shape.erase(static_cast<size_t>(dim));
  st.erase(static_cast<size_t>(dim));
  return make_view(t, shape, st, t.offset() + index * t.strides()[dim]);
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  GLIA_CHECK(t.dim() != 0, InvalidArgument, "split expects at least a 1-dimensional tensor");
  GLIA_CHECK(split_size >= 0, InvalidArgument,
             "split expects split_size be non-negative, but got split_size=", split_size);
  dim = wrap_dim(dim, t.dim());
  int64_t dim_size = t.shape()[dim];
  GLIA_CHECK(split_size > 0 || dim_size == 0, InvalidArgument,
             "split_size can only be 0 if dimension size is 0, but got dimension size of ", dim_size);
  // Note [Checked sizes]: no dim_size + split_size (split_size may be INT64_MAX).
  const int64_t num = split_size == 0 || dim_size == 0 ? 1 : (dim_size - 1) / split_size + 1;
  const int64_t last = dim_size - split_size * (num - 1);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(num));
  for (int64_t i = 0; i < num; ++i) out.push_back(narrow(t, dim, i * split_size, i == num - 1 ? last : split_size));
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& t, IntSpan sizes, int64_t dim) {
  GLIA_CHECK(t.dim() != 0, InvalidArgument, "split expects at least a 1-dimensional tensor");
  int64_t wdim = wrap_dim(dim, t.dim());
  int64_t dim_size = t.shape()[wdim];
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t len : sizes) {
    GLIA_CHECK(len >= 0, InvalidArgument,
               "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=", sizes);
    out.push_back(narrow(t, wdim, start, len));
    start += len;
  }
  GLIA_CHECK(start == dim_size, InvalidArgument, "split_with_sizes expects split_sizes to sum exactly to ", dim_size,
             " (input tensor's size at dimension ", dim, "), but got split_sizes=", sizes);
  return out;
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  GLIA_CHECK(t.dim() > 0, InvalidArgument, "chunk expects at least a 1-dimensional tensor");
  GLIA_CHECK(chunks > 0, InvalidArgument, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  dim = wrap_dim(dim, t.dim());
  int64_t dim_size = t.shape()[dim];
  const int64_t split_size = dim_size == 0 ? 0 : (dim_size - 1) / chunks + 1;  // no dim_size + chunks
  if (split_size == 0 && dim_size == 0) {
    // torch returns `chunks` empty tensors; a list that long does not fit in memory.
    GLIA_CHECK(chunks <= (int64_t{1} << 31), OutOfMemory, "chunk: cannot return ", chunks, " tensors");
    Dims sizes(static_cast<size_t>(chunks), 0);
    return split_with_sizes(t, sizes, dim);
  }
  return split(t, split_size, dim);
}

// ---- copies

void copy_strided(const Tensor& dst, const Tensor& src) {
  GLIA_CHECK(dst.shape() == src.shape(), Shape, "copy: shape ", src.shape(), " does not match ", dst.shape());
  if (dst.numel() == 0) return;
  if (__builtin_expect(!dst.device().is_cpu() || !src.device().is_cpu(), 0)) {
    // Other devices: their copy kernel (any strides and dtypes).
    const Device dev = common_device("copy_", dst, src, false);
    run_kernel(KernelId::copy, dev, {&src}, {&dst});
    return;
  }
  if (dst.dtype() != src.dtype()) {
    copy_into(dst, src);
    return;
  }
  const size_t sz = itemsize(dst.dtype());
  Loop<2> loop({&dst, &src});
  dispatch_size(sz, [&](auto tag) {
    using U = decltype(tag);
    loop.run([&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
      if (s[0] == static_cast<int64_t>(sz) && s[1] == static_cast<int64_t>(sz)) {
        std::memcpy(p[0], p[1], static_cast<size_t>(n) * sz);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          U v;
          std::memcpy(&v, p[1] + i * s[1], sizeof(U));
          std::memcpy(p[0] + i * s[0], &v, sizeof(U));
        }
      }
    });
  });
}

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  const Device dev = common_device("index_select", t, index, false);
  GLIA_CHECK(index.dim() <= 1, InvalidArgument, "index_select(): Index is supposed to be a vector");
  GLIA_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, DType,
             "index_select(): Expected dtype int32 or int64 for index");
  dim = wrap_dim(dim, t.dim());
  Tensor tv = as_1d(t);
  Tensor idx = contiguous(to_dtype(as_1d(index), DType::Int64));
  const int64_t n = idx.numel();
  Dims shape = tv.shape();
  shape[dim] = n;
  Tensor out = empty(shape, t.dtype(), dev);
  // The kernel checks the indices (even when the result is empty).
  if (n > 0) run_kernel(KernelId::index_select, dev, {&tv, &idx}, {&out}, {attr_i(dim)});
  if (t.dim() == 0 && n == 1) return make_view(out, Dims{}, Dims{}, out.offset());
  return out;
}

void index_add_(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  const Device dev = common_device("index_add_", out, index, false);
  common_device("index_add_", out, src, false);
  dim = wrap_dim(dim, out.dim());
  Tensor ov = as_1d(out), sv = as_1d(src);
  Tensor idx = contiguous(to_dtype(as_1d(index), DType::Int64));
  if (idx.numel() == 0) return;
  Tensor s2 = to_dtype(sv, out.dtype());
  run_kernel(KernelId::index_add, dev, {&s2, &idx}, {&ov}, {attr_i(dim)});
}

void check_gather(const char* op, const Tensor& t, int64_t dim, const Tensor& index, const Tensor* src) {
  dim = wrap_dim(dim, t.dim());
  // torch's scatter_gather_dtype_check: an empty index may have any dtype.
  GLIA_CHECK(index.numel() == 0 || index.dtype() == DType::Int64, DType, op, "(): Expected dtype int64 for index");
  if (src) {
    GLIA_CHECK(src->dtype() == t.dtype(), DType, op, "(): Expected self.dtype to be equal to src.dtype");
  }
  if (index.numel() == 0) return;
  int64_t nd = dim_or_1(t);
  if (!src) {
    GLIA_CHECK(dim_or_1(index) == nd, InvalidArgument,
               "Index tensor must have the same number of dimensions as input tensor");
    for (int64_t d = 0; d < nd; ++d) {
      if (d == dim) continue;
      GLIA_CHECK(as_1d(index).shape()[d] <= as_1d(t).shape()[d], InvalidArgument, "Size does not match at dimension ",
                 d, " expected index ", index.shape(), " to be smaller than self ", t.shape(), " apart from dimension ",
                 dim);
    }
  } else {
    GLIA_CHECK(dim_or_1(index) == nd, InvalidArgument,
               "Index tensor must have the same number of dimensions as self tensor");
    GLIA_CHECK(dim_or_1(index) == dim_or_1(*src), InvalidArgument,
               "Index tensor must have the same number of dimensions as src tensor");
    Tensor iv = as_1d(index), tv = as_1d(t), sv = as_1d(*src);
    for (int64_t d = 0; d < nd; ++d) {
      bool ok = iv.shape()[d] <= sv.shape()[d] && (d == dim || iv.shape()[d] <= tv.shape()[d]);
      GLIA_CHECK(ok, InvalidArgument, "Expected index ", index.shape(), " to be smaller than self ", t.shape(),
                 " apart from dimension ", dim, " and to be smaller size than src ", src->shape());
    }
  }
}

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  const Device dev = common_device("gather", t, index, false);
  check_gather("gather", t, dim, index, nullptr);
  dim = wrap_dim(dim, t.dim());
  Tensor out = empty(index.shape(), t.dtype(), dev);
  if (out.numel() == 0) return out;
  Tensor tv = as_1d(t), iv = as_1d(index), ov = as_1d(out);
  run_kernel(KernelId::gather, dev, {&tv, &iv}, {&ov}, {attr_i(dim)});
  return out;
}

void scatter_(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool accumulate) {
  const char* op = "scatter";  // torch names scatter_add's checks "scatter()" too
  const Device dev = common_device(op, out, index, false);
  common_device(op, out, src, false);
  check_gather(op, out, dim, index, &src);
  dim = wrap_dim(dim, out.dim());
  if (index.numel() == 0) return;
  Tensor ov = as_1d(out), iv = as_1d(index), sv = as_1d(src);
  Tensor s2 = make_view(sv, iv.shape(), sv.strides(), sv.offset());
  run_kernel(KernelId::scatter, dev, {&s2, &iv}, {&ov}, {attr_i(dim), attr_i(accumulate)});
}

Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, bool accumulate) {
  common_device("scatter", t, index, false);
  common_device("scatter", t, src, false);
  check_gather("scatter", t, dim, index, &src);
  Tensor out = clone(t);
  scatter_(out, dim, index, src, accumulate);
  return out;
}

Tensor scatter_value(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value) {
  // The value converted to t's dtype (the fill kernel converts as a copy would), on t's device,
  // broadcast (stride 0) over the index.
  Tensor v = empty(Dims{}, t.dtype(), t.device());
  const char* kind = value.kind == Scalar::Kind::Float ? "float" : value.kind == Scalar::Kind::Int ? "int" : "bool";
  run_kernel(KernelId::fill, v.device(), {}, {&v}, {Attr{value.i, value.f, nullptr, 0, kind}});
  Tensor src = make_view(v, index.shape(), Dims(index.shape().size(), 0), v.offset());
  return scatter(t, dim, index, src, false);
}

Tensor masked_select(const Tensor& t, const Tensor& mask) {
  const Device dev = common_device("masked_select", t, mask, false);
  GLIA_CHECK(mask.dtype() == DType::Bool || mask.dtype() == DType::UInt8, DType,
             "masked_select: expected BoolTensor or ByteTensor for mask");
  Dims shape = broadcast_shapes("masked_select", mask.shape(), t.shape());
  Tensor te = expand_to(t, shape), me = expand_to(mask, shape);
  // Two kernels over chunks of about kGrain elements: count the selected elements of each chunk, then
  // each chunk copies its own to its prefix-sum offset. The result's size needs the counts on the host:
  // a small explicit copy (torch synchronises on CUDA here too).
  const int64_t numel = te.numel();
  const int64_t chunks = numel == 0 ? 0 : (numel + kGrain - 1) / kGrain;
  if (chunks == 0) return empty(Dims{0}, t.dtype(), dev);
  Tensor counts = empty(Dims{chunks}, DType::Int64, dev);
  run_kernel(KernelId::masked_select_count, dev, {&me}, {&counts});
  const Tensor host = to_device(counts, Device{});
  const int64_t* c = host.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < chunks; ++i) total += c[i];
  Tensor out = empty(Dims{total}, t.dtype(), dev);
  if (total > 0) run_kernel(KernelId::masked_select, dev, {&te, &me, &counts}, {&out});
  return out;
}

void masked_scatter_(const Tensor& out, const Tensor& mask, const Tensor& src) {
  const Device dev = common_device("masked_scatter_", out, mask, false);
  common_device("masked_scatter_", out, src, false);
  Tensor me = expand_to(mask, out.shape());
  Tensor s = contiguous(to_dtype(src, out.dtype()));
  if (out.numel() == 0) return;
  run_kernel(KernelId::masked_scatter, dev, {&me, &s}, {&out});
}

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  GLIA_CHECK(!ts.empty(), InvalidArgument, "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < ts.size(); ++i)
    GLIA_CHECK(ts[i].dim() > 0, InvalidArgument, "zero-dimensional tensor (at position ", i,
               ") cannot be concatenated");
  const Tensor* first = nullptr;
  DType dt = ts[0].dtype();
  for (const Tensor& t : ts) {
    common_device("cat", ts[0], t, false);
    dt = promote_types(dt, t.dtype());
    if (!first && !is_legacy_empty(t)) first = &t;
  }
  if (!first) return empty(Dims{0}, dt, ts[0].device());
  dim = wrap_dim(dim, first->dim());
  int64_t total = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    if (is_legacy_empty(t)) continue;
    GLIA_CHECK(t.dim() == first->dim(), Shape, "Tensors must have same number of dimensions: got ", first->dim(),
               " and ", t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == dim) continue;
      GLIA_CHECK(t.shape()[d] == first->shape()[d], Shape, "Sizes of tensors must match except in dimension ", dim,
                 ". Expected size ", first->shape()[d], " but got size ", t.shape()[d], " for tensor number ", i,
                 " in the list.");
    }
    // Tensors without elements may have sizes near 2^63 whose sum overflows (found by tests/fuzz).
    GLIA_CHECK(!__builtin_add_overflow(total, t.shape()[dim], &total), Shape,
               "cat: integer overflow computing the size of dimension ", dim, " of the result");
  }
  Dims shape = first->shape();
  shape[dim] = total;
  Tensor out = empty(shape, dt, first->device());
  int64_t off = 0;
  for (const Tensor& t : ts) {
    if (is_legacy_empty(t)) continue;
    int64_t n = t.shape()[dim];
    if (n > 0) copy_strided(slice(out, dim, off, off + n, 1), t);
    off += n;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  GLIA_CHECK(!ts.empty(), InvalidArgument, "stack expects a non-empty TensorList");
  for (const Tensor& t : ts) common_device("stack", ts[0], t, false);
  for (size_t i = 1; i < ts.size(); ++i)
    GLIA_CHECK(ts[i].shape() == ts[0].shape(), Shape, "stack expects each tensor to be equal size, but got ",
               ts[0].shape(), " at entry 0 and ", ts[i].shape(), " at entry ", i);
  dim = wrap_dim(dim, ts[0].dim() + 1);
  std::vector<Tensor> us;
  us.reserve(ts.size());
  for (const Tensor& t : ts) us.push_back(unsqueeze(t, dim));
  return cat(us, dim);
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::dispatch_size;
using ops::kGrain;
using ops::Loop;

namespace {

// t viewed with `shape` (each size <= t's, except along dim) and stride 0 along dim (torch's restride_dim).
Tensor restride(const Tensor& t, IntSpan shape, int64_t dim) {
  Dims st = t.strides();
  st[dim] = 0;
  return make_view(t, shape, st, t.offset());
}

// First int64 index (row-major) outside [0, size), if any.
bool find_bad_index(const Tensor& idx, int64_t size, int64_t& bad) {
  if (idx.numel() == 0) return false;
  Loop<1> loop({&idx});
  bool found = false;
  auto f = [&](const std::array<char*, 1>& p, const std::array<int64_t, 1>& s, int64_t n) {
    if (found) return;
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = *reinterpret_cast<const int64_t*>(p[0] + i * s[0]);
      if (v < 0 || v >= size) {
        bad = v;
        found = true;
        return;
      }
    }
  };
  loop.run_range(0, loop.numel, f);
  return found;
}

void check_index_bounds(const Tensor& index, int64_t dim, int64_t size) {
  int64_t bad = 0;
  GLIA_CHECK(!find_bad_index(index, size, bad), InvalidArgument, "index ", bad, " is out of bounds for dimension ", dim,
             " with size ", size);
}

// The index vector idx ([n], any stride) viewed with `shape` (n along dim, stride 0 elsewhere).
Tensor index_along(const Tensor& idx, IntSpan shape, int64_t dim) {
  Dims ist(shape.size(), 0);
  ist[dim] = idx.strides()[0];
  return make_view(idx, shape, ist, idx.offset());
}

// Runs f over three same-shape operands (source values, int64 index, destination restrided along dim) for the
// scatter-style kernels. Two elements that differ outside `dim` never write the same destination, so the
// positions outside `dim` are split between threads and each walks `dim` in order (serial semantics kept).
template <class F>
void scatter_loop(const Tensor& src, const Tensor& idx, const Tensor& dst, int64_t dim, F& f) {
  const int64_t k_size = src.shape()[dim];
  if (src.numel() == 0) return;
  std::array<Tensor, 3> first;  // the operands at position 0 along dim, without dim
  std::array<int64_t, 3> step;
  const Tensor* ops3[3] = {&src, &idx, &dst};
  for (size_t j = 0; j < 3; ++j) {
    const Tensor& t = *ops3[j];
    step[j] = t.strides()[dim] * static_cast<int64_t>(itemsize(t.dtype()));
    Dims shape = t.shape(), st = t.strides();
    shape.erase(static_cast<size_t>(dim));
    st.erase(static_cast<size_t>(dim));
    first[j] = make_view(t, shape, st, t.offset());
  }
  const Loop<3> loop({&first[0], &first[1], &first[2]});
  const int64_t cols = loop.numel;
  auto body = [&](int64_t b, int64_t e) {
    Loop<3> l = loop;
    for (int64_t k = 0; k < k_size; ++k) {
      l.run_range(b, e, f);
      for (size_t j = 0; j < 3; ++j) l.base[j] += step[j];
    }
  };
  if (cols * k_size < kGrain || cols == 1)
    body(0, cols);
  else
    parallel_for(0, cols, std::max<int64_t>(1, kGrain / k_size), body);
}

// dst[index] += src (bool: or) over scatter_loop's operands.
void scatter_add_loop(const Tensor& src, const Tensor& iv, const Tensor& dst, int64_t dim, int64_t dstride) {
  dispatch_all(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto f = [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t len) {
      for (int64_t i = 0; i < len; ++i) {
        int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
        T* d = reinterpret_cast<T*>(p[2] + i * s[2] + k * dstride);
        T v = *reinterpret_cast<const T*>(p[0] + i * s[0]);
        if constexpr (std::is_same_v<T, bool>)
          *d = *d || v;
        else
          *d = static_cast<T>(static_cast<acc_t<T>>(*d) + static_cast<acc_t<T>>(v));
      }
    };
    scatter_loop(src, iv, dst, dim, f);
  });
}

// dst[index] = reduce(dst[index], src) over scatter_loop's operands: mode 2 prod, 3 amax, 4 amin (torch's
// scatter_reduce: a NaN source wins amax / amin, a NaN already there stays).
void scatter_reduce_loop(const Tensor& src, const Tensor& iv, const Tensor& dst, int64_t dim, int64_t dstride,
                         int64_t mode) {
  dispatch_all(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = std::conditional_t<std::is_same_v<T, bool>, int64_t, acc_t<T>>;
    auto f = [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t len) {
      for (int64_t i = 0; i < len; ++i) {
        int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
        T* d = reinterpret_cast<T*>(p[2] + i * s[2] + k * dstride);
        const A v = static_cast<A>(*reinterpret_cast<const T*>(p[0] + i * s[0])), cur = static_cast<A>(*d);
        A r;
        if (mode == 2)
          r = cur * v;
        else if (mode == 3)
          r = v != v ? v : (cur < v ? v : cur);
        else
          r = v != v ? v : (v < cur ? v : cur);
        *d = static_cast<T>(r);
      }
    };
    scatter_loop(src, iv, dst, dim, f);
  });
}

// The chunks of masked_select: chunk c of `chunks` covers [c * len, min(numel, (c + 1) * len)).
int64_t chunk_len(int64_t numel, int64_t chunks) { return (numel + chunks - 1) / chunks; }

}  // namespace

void index_select_kernel(const KernelArgs& k) {
  const Tensor &tv = k.input(0), &idx = k.input(1), &out = k.output(0);
  const int64_t dim = k.attr(0).i;
  const int64_t size = tv.shape()[dim];
  int64_t bad = 0;
  GLIA_CHECK(!find_bad_index(idx, size, bad), InvalidArgument, "INDICES element is out of DATA bounds, id=", bad,
             " axis_dim=", size);
  if (out.numel() == 0) return;
  const Dims& shape = out.shape();
  Tensor src = restride(tv, shape, dim);
  Tensor iv = index_along(idx, shape, dim);
  const size_t sz = itemsize(tv.dtype());
  const int64_t dstride = tv.strides()[dim] * static_cast<int64_t>(sz);
  Loop<3> loop({&out, &iv, &src});
  dispatch_size(sz, [&](auto tag) {
    using U = decltype(tag);
    loop.run([&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t len) {
      if (s[1] == 0 && s[0] == static_cast<int64_t>(sz) && s[2] == static_cast<int64_t>(sz)) {
        std::memcpy(p[0], p[2] + *reinterpret_cast<const int64_t*>(p[1]) * dstride, static_cast<size_t>(len) * sz);
        return;
      }
      for (int64_t i = 0; i < len; ++i) {
        int64_t j = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
        U v;
        std::memcpy(&v, p[2] + i * s[2] + j * dstride, sizeof(U));
        std::memcpy(p[0] + i * s[0], &v, sizeof(U));
      }
    });
  });
}

void index_add_kernel(const KernelArgs& k) {
  const Tensor &sv = k.input(0), &idx = k.input(1), &ov = k.output(0);
  const int64_t dim = k.attr(0).i;
  int64_t bad = 0;
  GLIA_CHECK(!find_bad_index(idx, ov.shape()[dim], bad), InvalidArgument, "index out of range in self");
  if (sv.numel() == 0) return;
  Tensor dst = restride(ov, sv.shape(), dim);
  Tensor iv = index_along(idx, sv.shape(), dim);
  scatter_add_loop(sv, iv, dst, dim, ov.strides()[dim] * static_cast<int64_t>(itemsize(ov.dtype())));
}

void gather_kernel(const KernelArgs& k) {
  const Tensor &tv = k.input(0), &iv = k.input(1), &ov = k.output(0);
  const int64_t dim = k.attr(0).i;
  check_index_bounds(iv, dim, tv.shape()[dim]);
  Tensor src = restride(tv, iv.shape(), dim);
  const size_t sz = itemsize(tv.dtype());
  const int64_t dstride = tv.strides()[dim] * static_cast<int64_t>(sz);
  Loop<3> loop({&ov, &iv, &src});
  dispatch_size(sz, [&](auto tag) {
    using U = decltype(tag);
    loop.run([&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t len) {
      for (int64_t i = 0; i < len; ++i) {
        int64_t j = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
        U v;
        std::memcpy(&v, p[2] + i * s[2] + j * dstride, sizeof(U));
        std::memcpy(p[0] + i * s[0], &v, sizeof(U));
      }
    });
  });
}

void scatter_kernel(const KernelArgs& k) {
  const Tensor &s2 = k.input(0), &iv = k.input(1), &ov = k.output(0);
  const int64_t dim = k.attr(0).i;
  const int64_t mode = k.attr(1).i;  // 0 copy, 1 add, 2 prod, 3 amax, 4 amin (kernels.def's h-index block)
  check_index_bounds(iv, dim, ov.shape()[dim]);
  Tensor dst = restride(ov, iv.shape(), dim);
  const size_t sz = itemsize(ov.dtype());
  const int64_t dstride = ov.strides()[dim] * static_cast<int64_t>(sz);
  if (mode == 1) {
    scatter_add_loop(s2, iv, dst, dim, dstride);
    return;
  }
  if (mode >= 2) {
    scatter_reduce_loop(s2, iv, dst, dim, dstride, mode);
    return;
  }
  dispatch_size(sz, [&](auto tag) {
    using U = decltype(tag);
    auto f = [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t len) {
      for (int64_t i = 0; i < len; ++i) {
        int64_t j = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
        U v;
        std::memcpy(&v, p[0] + i * s[0], sizeof(U));
        std::memcpy(p[2] + i * s[2] + j * dstride, &v, sizeof(U));
      }
    };
    scatter_loop(s2, iv, dst, dim, f);
  });
}

void masked_select_count_kernel(const KernelArgs& k) {
  const Tensor &me = k.input(0), &counts = k.output(0);
  const int64_t numel = me.numel(), chunks = counts.numel();
  if (chunks == 0) return;
  const int64_t len = chunk_len(numel, chunks);
  int64_t* out = counts.data_ptr<int64_t>();
  const Loop<1> loop({&me});
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t count = 0;
      auto counter = [&](const std::array<char*, 1>& p, const std::array<int64_t, 1>& st, int64_t n) {
        for (int64_t i = 0; i < n; ++i) count += p[0][i * st[0]] != 0;
      };
      if (c * len < numel) loop.run_range(c * len, std::min(numel, (c + 1) * len), counter);
      out[c] = count;
    }
  });
}

void masked_select_kernel(const KernelArgs& k) {
  const Tensor &te = k.input(0), &me = k.input(1), &counts = k.input(2), &out = k.output(0);
  const int64_t numel = te.numel(), chunks = counts.numel();
  if (chunks == 0 || out.numel() == 0) return;
  const int64_t len = chunk_len(numel, chunks);
  std::vector<int64_t> offsets(static_cast<size_t>(chunks) + 1, 0);
  const int64_t* cp = counts.data_ptr<int64_t>();
  for (int64_t c = 0; c < chunks; ++c) offsets[static_cast<size_t>(c) + 1] = offsets[static_cast<size_t>(c)] + cp[c];
  const size_t sz = itemsize(te.dtype());
  const Loop<2> loop({&te, &me});
  char* base = static_cast<char*>(out.data());
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      char* o = base + offsets[static_cast<size_t>(c)] * static_cast<int64_t>(sz);
      auto writer = [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
        for (int64_t i = 0; i < n; ++i)
          if (p[1][i * st[1]]) {
            std::memcpy(o, p[0] + i * st[0], sz);
            o += sz;
          }
      };
      if (c * len < numel) loop.run_range(c * len, std::min(numel, (c + 1) * len), writer);
    }
  });
}

void masked_scatter_kernel(const KernelArgs& k) {
  const Tensor &me = k.input(0), &s = k.input(1), &out = k.output(0);
  const size_t sz = itemsize(out.dtype());
  const char* q = static_cast<const char*>(s.impl()->data());
  const char* end = q + s.numel() * static_cast<int64_t>(sz);
  Loop<2> loop({&out, &me});
  auto f = [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (p[1][i * st[1]]) {
        GLIA_CHECK(q < end, InvalidArgument, "Number of elements of source < number of ones in mask");
        std::memcpy(p[0] + i * st[0], q, sz);
        q += sz;
      }
  };
  if (loop.numel > 0) loop.run_range(0, loop.numel, f);
}

}  // namespace glia::cpu
