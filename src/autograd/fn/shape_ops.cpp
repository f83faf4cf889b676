#include "autograd/fn/shape_ops.h"

#include "autograd/fn/index.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "core/dispatch.h"
#include "ops/elementwise.h"
#include "ops/iter.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/shape_ops.h"

namespace glia {

namespace {

Tensor diagonal_backward(const Tensor& g, IntSpan in_shape, int64_t offset, int64_t dim1, int64_t dim2);

struct TrilBackward : Node {
  int64_t diagonal = 0;
  bool upper = false;
  const char* name() const override { return upper ? "TriuBackward0" : "TrilBackward0"; }
  TensorList apply(TensorList&& g) override { return {upper ? triu(g[0], diagonal) : tril(g[0], diagonal)}; }
};

// The diagonal's geometry, dims wrapped against the input.
struct Diag {
  Dims in_shape;
  int64_t offset = 0, dim1 = 0, dim2 = 1;
};

struct DiagonalBackward : Node {
  Diag d;
  const char* name() const override { return "DiagonalBackward0"; }
  TensorList apply(TensorList&& g) override { return {diagonal_backward(g[0], d.in_shape, d.offset, d.dim1, d.dim2)}; }
};

struct DiagonalBackwardBackward : Node {
  Diag d;
  const char* name() const override { return "DiagonalBackwardBackward0"; }
  TensorList apply(TensorList&& g) override { return {diagonal(g[0], d.offset, d.dim1, d.dim2)}; }
};

// Zeros of in_shape with g on the diagonal, differentiable (its backward takes the diagonal again).
Tensor diagonal_backward(const Tensor& g, IntSpan in_shape, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ops::diagonal_scatter_zeros(g, in_shape, offset, dim1, dim2);
  if (any_requires_grad({&g})) {
    auto n = make_ref<DiagonalBackwardBackward>();
    n->d = Diag{Dims(in_shape), offset, dim1, dim2};
    set_history(n.get(), {&g}, {&out});
  }
  return out;
}

struct DiagBackward : Node {
  Dims in_shape;
  int64_t k = 0;
  const char* name() const override { return "DiagBackward0"; }
  TensorList apply(TensorList&& g) override {
    if (in_shape.size() == 1) return {diagonal(g[0], k, 0, 1)};
    return {diagonal_backward(g[0], in_shape, k, 0, 1)};
  }
};

struct DiagEmbedBackward : Node {
  int64_t offset = 0, dim1 = 0, dim2 = 1;
  const char* name() const override { return "DiagEmbedBackward0"; }
  TensorList apply(TensorList&& g) override { return {diagonal(g[0], offset, dim1, dim2)}; }
};

struct TraceBackward : Node {
  Dims in_shape;
  const char* name() const override { return "TraceBackward0"; }
  TensorList apply(TensorList&& g) override {
    const int64_t n[] = {std::min(in_shape[0], in_shape[1])};
    return {diagonal_backward(expand(g[0], n), in_shape, 0, 0, 1)};
  }
};

struct FlipBackward : Node {
  Dims dims;
  const char* name() const override { return "FlipBackward0"; }
  TensorList apply(TensorList&& g) override { return {flip(g[0], dims)}; }
};

struct RollBackward : Node {
  Dims shifts, dims;
  const char* name() const override { return "RollBackward0"; }
  TensorList apply(TensorList&& g) override {
    Dims back = shifts;
    for (int64_t& s : back) s = -s;
    return {roll(g[0], back, dims)};
  }
};

Tensor tri(const Tensor& t, int64_t diagonal, bool upper) {
  Tensor out = ops::tril(t, diagonal, upper);
  if (any_requires_grad({&t})) {
    auto n = make_ref<TrilBackward>();
    n->diagonal = diagonal;
    n->upper = upper;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal) { return tri(t, diagonal, false); }
Tensor triu(const Tensor& t, int64_t diagonal) { return tri(t, diagonal, true); }

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ops::diagonal(t, offset, dim1, dim2);  // checks the dims
  if (any_requires_grad({&t})) {
    auto n = make_ref<DiagonalBackward>();
    n->d = Diag{t.shape(), offset, ops::wrap_dim(dim1, t.dim()), ops::wrap_dim(dim2, t.dim())};
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor diag(const Tensor& t, int64_t k) {
  Tensor out = ops::diag(t, k);
  if (any_requires_grad({&t})) {
    auto n = make_ref<DiagBackward>();
    n->in_shape = t.shape();
    n->k = k;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ops::diag_embed(t, offset, dim1, dim2);
  if (any_requires_grad({&t})) {
    auto n = make_ref<DiagEmbedBackward>();
    ops::diag_embed_dims(t.dim(), dim1, dim2);
    n->offset = offset;
    n->dim1 = dim1;
    n->dim2 = dim2;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor trace(const Tensor& t) {
  Tensor out = ops::trace(t);
  if (any_requires_grad({&t})) {
    auto n = make_ref<TraceBackward>();
    n->in_shape = t.shape();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor flip(const Tensor& t, IntSpan dims) {
  Tensor out = ops::flip(t, dims);
  if (any_requires_grad({&t})) {
    auto n = make_ref<FlipBackward>();
    n->dims = Dims(dims);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor roll(const Tensor& t, IntSpan shifts, IntSpan dims) {
  Tensor out = ops::roll(t, shifts, dims);
  if (any_requires_grad({&t})) {
    auto n = make_ref<RollBackward>();
    n->shifts = Dims(shifts);
    n->dims = Dims(dims);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

}  // namespace glia

namespace glia {

namespace {

struct UnfoldBackward : Node {
  Dims in_shape;
  int64_t dim = 0, size = 0, step = 1;
  const char* name() const override { return "UnfoldBackward0"; }
  TensorList apply(TensorList&& g) override;
};

struct UnfoldBackwardBackward : Node {
  int64_t dim = 0, size = 0, step = 1;
  const char* name() const override { return "UnfoldBackwardBackward0"; }
  TensorList apply(TensorList&& g) override { return {unfold(g[0], dim, size, step)}; }
};

TensorList UnfoldBackward::apply(TensorList&& g) {
  Tensor out = ops::unfold_backward(g[0], in_shape, dim, size, step);
  if (any_requires_grad({&g[0]})) {
    auto n = make_ref<UnfoldBackwardBackward>();
    n->dim = dim;
    n->size = size;
    n->step = step;
    set_history(n.get(), {&g[0]}, {&out});
  }
  return {out};
}

struct Rot90Backward : Node {
  int64_t k = 0;
  Dims dims;
  const char* name() const override { return "Rot90Backward0"; }
  TensorList apply(TensorList&& g) override { return {rot90(g[0], -k, dims)}; }
};

struct RepeatBackward : Node {
  Dims in_shape, repeats;
  const char* name() const override { return "RepeatBackward0"; }
  TensorList apply(TensorList&& g) override {
    // g viewed as [r0, s0, r1, s1, ...], summed over the r dims.
    const size_t lead = repeats.size() - in_shape.size();
    Dims split, red;
    for (size_t i = 0; i < repeats.size(); ++i) {
      split.push_back(repeats[i]);
      split.push_back(i < lead ? 1 : in_shape[i - lead]);
      red.push_back(static_cast<int64_t>(2 * i));
    }
    return {reshape(sum(reshape(g[0], split), red, false), in_shape)};
  }
};

}  // namespace

Tensor movedim(const Tensor& t, IntSpan src, IntSpan dst) { return permute(t, ops::movedim_order(t.dim(), src, dst)); }

Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  Tensor out = ops::unfold(t, dim, size, step);
  if (any_requires_grad({&t})) {
    auto n = make_ref<UnfoldBackward>();
    n->in_shape = t.shape();
    n->dim = ops::wrap_dim(dim, t.dim());
    n->size = size;
    n->step = step;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor rot90(const Tensor& t, int64_t k, IntSpan dims) {
  int64_t d0 = 0, d1 = 0;
  const int64_t r = ops::rot90_args(t, k, dims, d0, d1);
  Tensor out;
  if (r == 0) {
    out = clone(t);
  } else if (r == 2) {
    const int64_t both[] = {d0, d1};
    out = ops::flip(t, both);
  } else {
    const int64_t one[] = {r == 1 ? d1 : d0};
    out = ops::transpose(ops::flip(t, one), d0, d1);
  }
  if (any_requires_grad({&t})) {
    auto n = make_ref<Rot90Backward>();
    n->k = r;
    n->dims = Dims{d0, d1};
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor repeat(const Tensor& t, IntSpan repeats) {
  Tensor out = ops::repeat(t, repeats);
  if (any_requires_grad({&t})) {
    auto n = make_ref<RepeatBackward>();
    n->in_shape = t.shape();
    n->repeats = Dims(repeats);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor tile(const Tensor& t, IntSpan reps) {
  Dims r(reps);
  while (r.ssize() < t.dim()) r.insert(0, 1);
  return repeat(t, r);
}

namespace {

// index_select along dim (or over the flattened t) with element i repeated reps(i) times.
template <class Reps>
Tensor interleave(const Tensor& t, const int64_t* dim, Reps&& reps) {
  Tensor x = dim ? t : reshape(t, Dims{-1});
  const int64_t d = dim ? ops::wrap_dim(*dim, t.dim()) : 0;
  const int64_t n = x.dim() == 0 ? 1 : x.shape()[static_cast<size_t>(d)];
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) total += reps(i);
  const int64_t len[] = {total};
  Tensor idx = empty(len, DType::Int64, Device{});
  int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t i = 0, k = 0; i < n; ++i)
    for (int64_t r = reps(i); r > 0; --r) p[k++] = i;
  return index_select(x, d, to_device(idx, t.device()));
}

}  // namespace

Tensor repeat_interleave(const Tensor& t, int64_t repeats, const int64_t* dim) {
  GLIA_CHECK(repeats >= 0, InvalidArgument, "repeats can not be negative");
  return interleave(t, dim, [&](int64_t) { return repeats; });
}

Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, const int64_t* dim) {
  GLIA_CHECK(repeats.dim() <= 1, InvalidArgument, "repeats must be 0-dim or 1-dim tensor");
  const int64_t n = dim ? (t.dim() == 0 ? 1 : t.shape()[static_cast<size_t>(ops::wrap_dim(*dim, t.dim()))]) : t.numel();
  GLIA_CHECK(repeats.dim() == 0 || repeats.numel() == n, InvalidArgument,
             "repeats must have the same size as input along dim");
  if (repeats.dtype() != DType::Int64 && repeats.dtype() != DType::Int32)
    ops::not_implemented_for("repeat_interleave_cpu", repeats.dtype());
  // The counts decide the result's size: read them on the host (torch synchronises here too).
  Tensor host = contiguous(to_dtype(to_device(repeats, Device{}), DType::Int64));
  const int64_t* r = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < host.numel(); ++i) GLIA_CHECK(r[i] >= 0, InvalidArgument, "repeats can not be negative");
  const bool scalar = repeats.dim() == 0;
  return interleave(t, dim, [&](int64_t i) { return r[scalar ? 0 : i]; });
}

std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim) {
  GLIA_CHECK(t.dim() > 0, InvalidArgument,
             "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ", t.dim(), " dims");
  GLIA_CHECK(sections > 0, InvalidArgument, "number of sections must be larger than 0, got ", sections);
  const int64_t d = ops::wrap_dim(dim, t.dim());
  const int64_t size = t.shape()[static_cast<size_t>(d)];
  const int64_t base = size / sections, extra = size % sections;
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(slice(t, d, start, start + len, 1));
    start += len;
  }
  return out;
}

std::vector<Tensor> tensor_split(const Tensor& t, IntSpan indices, int64_t dim) {
  GLIA_CHECK(t.dim() > 0, InvalidArgument,
             "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ", t.dim(), " dims");
  const int64_t d = ops::wrap_dim(dim, t.dim());
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t idx : indices) {
    out.push_back(slice(t, d, start, idx, 1));
    start = idx;
  }
  out.push_back(slice(t, d, start, INT64_MAX, 1));
  return out;
}

}  // namespace glia

namespace glia {

namespace {

struct TakeBackward : Node {
  Dims in_shape;
  Tensor index;  // flattened, wrapped to [0, numel)
  const char* name() const override { return "TakeBackward0"; }
  TensorList apply(TensorList&& g) override {
    const int64_t n[] = {checked_numel(in_shape)};
    Tensor z = zeros(n, g[0].dtype(), g[0].device());
    return {reshape(scatter_add(z, 0, index, reshape(g[0], Dims{-1})), in_shape)};
  }
};

}  // namespace

Tensor take(const Tensor& t, const Tensor& index) {
  GLIA_CHECK(index.dtype() == DType::Int64, DType, "take(): Expected a long tensor for index, but got ",
             scalar_type_name(index.dtype()));
  common_device("take", t, index, false);
  const int64_t numel = t.numel();
  Tensor flat = ops::reshape(t, Dims{-1});
  Tensor idx = ops::reshape(index, Dims{-1});
  // Negative indices count from the end; gather checks the range (its message names the flat size).
  Tensor wrapped = ops::where(ops::compare(idx, ops::wrapped_scalar(0, true), ops::Cmp::Lt),
                              ops::add(idx, ops::wrapped_scalar(static_cast<double>(numel), true), 1.0), idx);
  Tensor out = ops::reshape(ops::gather(flat, 0, wrapped), index.shape());
  if (any_requires_grad({&t})) {
    auto n = make_ref<TakeBackward>();
    n->in_shape = t.shape();
    n->index = wrapped;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor take_along_dim(const Tensor& t, const Tensor& indices, const int64_t* dim) {
  if (!dim) {
    GLIA_CHECK(indices.dtype() == DType::Int64, DType,
               "torch.take_along_dim(): dtype of indices should be Long but got ", scalar_type_name(indices.dtype()));
    return gather(reshape(t, Dims{-1}), 0, reshape(indices, Dims{-1}));
  }
  GLIA_CHECK(t.dim() == indices.dim(), InvalidArgument,
             "torch.take_along_dim(): input and indices should have the same number of dimensions, but got ", t.dim(),
             " dimensions for input, and ", indices.dim(), " dimensions for indices");
  GLIA_CHECK(indices.dtype() == DType::Int64, DType, "torch.take_along_dim(): dtype of indices should be Long but got ",
             scalar_type_name(indices.dtype()));
  const int64_t d = ops::wrap_dim(*dim, t.dim());
  if (t.dim() == 0) return gather(t, d, indices);
  Dims self_sizes = t.shape(), idx_sizes = indices.shape();
  self_sizes[static_cast<size_t>(d)] = indices.shape()[static_cast<size_t>(d)];
  Dims idx_shape = ops::broadcast_shapes("take_along_dim", self_sizes, indices.shape());
  idx_sizes[static_cast<size_t>(d)] = t.shape()[static_cast<size_t>(d)];
  Dims self_shape = ops::broadcast_shapes("take_along_dim", idx_sizes, t.shape());
  return gather(expand(t, self_shape), d, expand(indices, idx_shape));
}

}  // namespace glia
