// Autograd rules of the scans (cumsum, cumprod, cummax / cummin, logcumsumexp)
// and of sorting and selection (sort, topk, kthvalue, median, nanmedian, mode),
// with torch's node names. The selecting ops send the gradient back to the
// indices they picked (zeros elsewhere).
#include <cstdio>
#include <limits>
#include <utility>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "ops/reduce.h"

namespace glia {

namespace {

// Cumsum with a direction: its backward is the cumsum the other way (so create_graph works).
Tensor cumsum_dir(const Tensor& t, int64_t dim, std::optional<DType> dtype, bool reverse);

struct CumsumBackward : Node {
  int64_t dim;
  bool reverse;
  DType in_dtype;
  const char* name() const override { return "CumsumBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = cumsum_dir(g[0], dim, std::nullopt, !reverse);
    return {r.dtype() == in_dtype ? r : to_dtype_with_grad(r, in_dtype)};
  }
};

Tensor cumsum_dir(const Tensor& t, int64_t dim, std::optional<DType> dtype, bool reverse) {
  Tensor out = ops::cumsum(t, dim, dtype, reverse);
  if (any_requires_grad({&t})) {
    auto n = make_ref<CumsumBackward>();
    n->dim = dim;
    n->reverse = reverse;
    n->in_dtype = t.dtype();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

struct CumprodBackward : Node {
  SavedTensor self, result;
  int64_t dim;
  DType in_dtype;
  const char* name() const override { return "CumprodBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(name());
    Tensor r = ops::cumprod_backward(g[0], x, result.unpack(name()), dim);
    return {r.dtype() == in_dtype ? r : to_dtype(r, in_dtype)};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

struct LogcumsumexpBackward : Node {
  SavedTensor self, result;
  int64_t dim;
  const char* name() const override { return "LogcumsumexpBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    return {ops::logcumsumexp_backward(g[0], self.unpack(name()), result.unpack(name()), dim)};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

// Backward of an op whose values are the input's elements at `indices` (same rank as the
// input): the gradient scattered (cummax/cummin: accumulated) back to those positions.
struct ScatterIndicesBackward : Node {
  const char* node_name;
  SavedTensor indices;
  Dims in_shape;
  int64_t dim;
  bool accumulate;
  const char* name() const override { return node_name; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    return {ops::select_backward_scatter(g[0], indices.unpack(name()), in_shape, dim, accumulate)};
  }
  void release_variables() override { indices.release(); }
};

// Backward of an op with one value per reduced row (kthvalue, median with a dim, mode).
struct IndexSelectReduceBackward : Node {
  const char* node_name;
  SavedTensor indices;
  Dims in_shape;
  int64_t dim;
  bool keepdim;
  const char* name() const override { return node_name; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    return {ops::index_reduce_backward(g[0], indices.unpack(name()), in_shape, dim, keepdim)};
  }
  void release_variables() override { indices.release(); }
};

// median() / nanmedian() of all elements: the gradient split among the elements equal to it.
struct MedianAllBackward : Node {
  SavedTensor self, result;
  bool ignore_nan;
  const char* name() const override { return ignore_nan ? "NanmedianBackward0" : "MedianBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    return {ops::amax_backward(g[0], self.unpack(name()), result.unpack(name()), {}, false)};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

std::pair<Tensor, Tensor> scatter_recorded(std::pair<Tensor, Tensor> r, const Tensor& t, const char* node, int64_t dim,
                                           bool accumulate) {
  if (any_requires_grad({&t})) {
    auto n = make_ref<ScatterIndicesBackward>();
    n->node_name = node;
    n->indices = SavedTensor(r.second);
    n->in_shape = t.shape();
    n->dim = dim;
    n->accumulate = accumulate;
    set_history(n.get(), {&t}, {&r.first});
  }
  return r;
}

std::pair<Tensor, Tensor> reduce_recorded(std::pair<Tensor, Tensor> r, const Tensor& t, const char* node, int64_t dim,
                                          bool keepdim) {
  if (any_requires_grad({&t})) {
    auto n = make_ref<IndexSelectReduceBackward>();
    n->node_name = node;
    n->indices = SavedTensor(r.second);
    n->in_shape = t.shape();
    n->dim = dim;
    n->keepdim = keepdim;
    set_history(n.get(), {&t}, {&r.first});
  }
  return r;
}

}  // namespace

Tensor cumsum(const Tensor& t, int64_t dim, std::optional<DType> dtype) { return cumsum_dir(t, dim, dtype, false); }

Tensor cumprod(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  Tensor out = ops::cumprod(t, dim, dtype);
  if (any_requires_grad({&t})) {
    auto n = make_ref<CumprodBackward>();
    n->self = SavedTensor(t);
    n->result = SavedTensor(detach(out));
    n->dim = dim;
    n->in_dtype = t.dtype();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim) {
  return scatter_recorded(ops::cummax(t, dim), t, "CummaxBackward0", dim, true);
}
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim) {
  return scatter_recorded(ops::cummin(t, dim), t, "CumminBackward0", dim, true);
}

Tensor logcumsumexp(const Tensor& t, int64_t dim) {
  Tensor out = ops::logcumsumexp(t, dim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<LogcumsumexpBackward>();
    n->self = SavedTensor(t);
    n->result = SavedTensor(detach(out));
    n->dim = dim;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  return scatter_recorded(ops::sort(t, dim, descending, stable), t, "SortBackward0", dim, false);
}

Tensor argsort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  return ops::sort(t, dim, descending, stable).second;
}

Tensor msort(const Tensor& t) { return sort(t, 0, false, false).first; }

std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
  return scatter_recorded(ops::topk(t, k, dim, largest, sorted), t, "TopkBackward0", dim, false);
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  return reduce_recorded(ops::kthvalue(t, k, dim, keepdim), t, "KthvalueBackward0", dim, keepdim);
}

Tensor median(const Tensor& t, bool ignore_nan) {
  Tensor out = ops::median_all(t, ignore_nan);
  if (any_requires_grad({&t})) {
    auto n = make_ref<MedianAllBackward>();
    n->self = SavedTensor(t);
    n->result = SavedTensor(detach(out));
    n->ignore_nan = ignore_nan;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

std::pair<Tensor, Tensor> median_dim(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan) {
  return reduce_recorded(ops::median_dim(t, dim, keepdim, ignore_nan), t,
                         ignore_nan ? "NanmedianBackward1" : "MedianBackward1", dim, keepdim);
}

std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim) {
  return reduce_recorded(ops::mode(t, dim, keepdim), t, "ModeBackward0", dim, keepdim);
}

// torch.quantile / nanquantile, composed as torch's quantile_impl is: sort along the dim (moved last),
// ranks q * (count - 1) (count: the row's size, or its non-NaN elements for nanquantile; a row that
// gives NaN takes the last rank, where the sorted NaNs are), then gather below / above and
// interpolate. Gradients flow through sort, gather and the arithmetic.
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                QuantileInterpolation interpolation, bool ignore_nan) {
  const char* op = "quantile()";  // torch names quantile() in nanquantile's messages too
  GLIA_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, DType, op,
             " input tensor must be either float or double dtype");
  GLIA_CHECK(q.dtype() == t.dtype(), DType, op, " q tensor must be same dtype as the input tensor");
  GLIA_CHECK(q.device() == t.device(), Device, op, " q tensor must be on the same device as the input tensor");
  GLIA_CHECK(q.dim() <= 1, InvalidArgument, op, " q must be a scalar or 1D tensor");
  GLIA_CHECK(t.numel() > 0, InvalidArgument, op, " input tensor must be non-empty");
  int64_t d = dim ? ops::wrap_dim(*dim, t.dim()) : 0;
  {  // q's values decide the result's shape only through their count, but torch checks them (a host copy).
    Tensor qh = contiguous(to_dtype(to_device(q, Device{}), DType::Float64));
    const double* qp = qh.data_ptr<double>();
    for (int64_t i = 0; i < qh.numel(); ++i) {
      if (q.dim() == 0)
        GLIA_CHECK(qp[i] >= 0 && qp[i] <= 1, InvalidArgument, op, " q must be in the range [0, 1] but got ", qp[i]);
      else
        GLIA_CHECK(qp[i] >= 0 && qp[i] <= 1, InvalidArgument, op, " q values must be in the range [0, 1]");
    }
  }
  // The values as rows [..., n] with the reduced dim last (all of them flattened without a dim).
  Tensor rows;
  Dims kept;  // the result's shape before q's dim and keepdim
  if (dim && t.dim() > 0) {
    Dims perm;
    for (int64_t k = 0; k < t.dim(); ++k)
      if (k != d) {
        perm.push_back(k);
        kept.push_back(t.shape()[k]);
      }
    perm.push_back(d);
    rows = permute(t, perm);
  } else {
    int64_t n[1] = {t.numel()};
    rows = reshape(t, n);
  }
  const int64_t last = rows.dim() - 1;
  const int64_t n = rows.shape()[last];
  Tensor sorted = sort(rows, last, false, false).first;
  Tensor sd = detach(sorted);
  const Tensor nan_row = ops::any(ops::compare(sd, sd, ops::Cmp::Ne), Dims{last}, true);  // [..., 1] bool
  const Tensor last_rank = ops::wrapped_scalar(static_cast<double>(n - 1), false);
  Tensor qrow = reshape(detach(q), Dims{q.numel()});  // [nq]
  Tensor ranks;                                       // [..., nq] in t's dtype
  if (ignore_nan) {
    Tensor valid = ops::sum(ops::compare(sd, sd, ops::Cmp::Eq), Dims{last}, true);  // [..., 1] int64
    Tensor k = to_dtype(ops::sub(valid, ops::wrapped_scalar(1, true), 1.0), t.dtype());
    ranks = ops::mul(qrow, k);
    Tensor all_nan = ops::compare(valid, ops::wrapped_scalar(0, true), ops::Cmp::Eq);
    ranks = ops::where(all_nan, to_dtype(last_rank, t.dtype()), ranks);
  } else {
    ranks = ops::mul(qrow, to_dtype(last_rank, t.dtype()));
    Dims rs = sd.shape();
    rs[last] = q.numel();
    ranks = ops::where(nan_row, to_dtype(last_rank, t.dtype()), ops::expand_to(ranks, rs));
  }
  Dims rshape = sd.shape();
  rshape[last] = q.numel();
  ranks = contiguous(ops::expand_to(ranks, rshape));
  const Tensor one = ops::wrapped_scalar(1, true);
  Tensor below = to_dtype(ranks, DType::Int64);  // floor: ranks >= 0
  Tensor result;
  if (interpolation == QuantileInterpolation::Lower) {
    result = gather(sorted, last, below);
  } else if (interpolation == QuantileInterpolation::Higher) {
    Tensor up = ops::compare(ranks, to_dtype(below, t.dtype()), ops::Cmp::Gt);
    result = gather(sorted, last, ops::add(below, to_dtype(up, DType::Int64), 1.0));
  } else if (interpolation == QuantileInterpolation::Nearest) {
    // torch: ranks.round() (half to even).
    Tensor frac = ops::sub(ranks, to_dtype(below, t.dtype()), 1.0);
    Tensor half = ops::wrapped_scalar(0.5, false);
    Tensor odd = ops::compare(
        ops::sub(below, ops::mul(ops::div(below, ops::wrapped_scalar(2, true), "trunc"), ops::wrapped_scalar(2, true)),
                 1.0),
        one, ops::Cmp::Eq);
    Tensor up =
        ops::logical(ops::compare(frac, half, ops::Cmp::Gt),
                     ops::logical(ops::compare(frac, half, ops::Cmp::Eq), odd, ops::Logic::And), ops::Logic::Or);
    result = gather(sorted, last, ops::add(below, to_dtype(up, DType::Int64), 1.0));
  } else {
    Tensor up = ops::compare(ranks, to_dtype(below, t.dtype()), ops::Cmp::Gt);
    Tensor above = ops::add(below, to_dtype(up, DType::Int64), 1.0);
    Tensor vb = gather(sorted, last, below);
    Tensor va = gather(sorted, last, above);
    Tensor w = interpolation == QuantileInterpolation::Midpoint ? ops::wrapped_scalar(0.5, false)
                                                                : ops::sub(ranks, to_dtype(below, t.dtype()), 1.0);
    result = add(vb, mul(sub(va, vb), w));
  }
  // [..., nq] -> q's dim first (none for a 0-dim q), then keepdim's size-1 dims.
  if (q.dim() == 0) {
    result = reshape(result, kept);
  } else {
    Dims perm{last};
    for (int64_t k = 0; k < last; ++k) perm.push_back(k);
    result = permute(result, perm);
  }
  if (keepdim) {
    const int64_t off = q.dim() == 0 ? 0 : 1;
    if (dim && t.dim() > 0) {
      result = unsqueeze(result, d + off);
    } else {
      Dims s;
      if (off) s.push_back(q.numel());
      for (int64_t k = 0; k < t.dim(); ++k) s.push_back(1);
      result = reshape(result, s);
    }
  }
  return result;
}

}  // namespace glia
