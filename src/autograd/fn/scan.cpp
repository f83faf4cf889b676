// Autograd rules of the scans (cumsum, cumprod, cummax / cummin, logcumsumexp)
// and of sorting and selection (sort, topk, kthvalue, median, nanmedian, mode),
// with torch's node names. The selecting ops send the gradient back to the
// indices they picked (zeros elsewhere).
#include <utility>

#include "autograd/fn/elementwise.h"
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

}  // namespace glia
