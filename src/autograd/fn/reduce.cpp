#include "autograd/fn/reduce.h"

#include <cmath>
#include <limits>

#include "autograd/fn/elementwise.h"
#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"

namespace glia {

namespace {

struct SumBackward : Node {
  Dims in_shape;
  SmallVector<bool, 8> mask;
  bool keepdim;
  bool all;  // torch.sum(t) is SumBackward0, torch.sum(t, dims) SumBackward1
  DType in_dtype;
  const char* name() const override { return all ? "SumBackward0" : "SumBackward1"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = expand_reduced(g[0], in_shape, mask, keepdim);
    return {r.dtype() == in_dtype ? r : to_dtype(r, in_dtype)};
  }
};

// Backward of expand_reduced: sum over the expanded dims again.
struct ExpandReducedBackward : Node {
  SmallVector<bool, 8> mask;
  bool keepdim;
  const char* name() const override { return "ExpandBackward0"; }
  TensorList apply(TensorList&& g) override {
    Dims dims;
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) dims.push_back(static_cast<int64_t>(d));
    return {sum(g[0], dims, keepdim)};
  }
};

}  // namespace

Tensor sum(const Tensor& t, IntSpan dims, bool keepdim, std::optional<DType> dtype) {
  Tensor out = ops::sum(t, dims, keepdim, dtype);
  if (any_requires_grad({&t})) {
    auto n = make_ref<SumBackward>();
    n->in_shape = t.shape();
    n->mask = ops::reduce_mask("sum", dims, t.dim());
    n->keepdim = keepdim;
    n->all = dims.empty();
    n->in_dtype = t.dtype();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor expand_reduced(const Tensor& t, IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim) {
  // View with the reduced dims as size 1 (stride 0), then expand.
  Dims st(shape.size(), 0);
  int64_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (mask[d]) {
      if (keepdim) ++k;
      continue;
    }
    st[d] = t.strides()[k++];
  }
  Tensor out = make_view(t, shape, st, t.offset());
  if (any_requires_grad({&t})) {
    auto n = make_ref<ExpandReducedBackward>();
    n->mask = mask;
    n->keepdim = keepdim;
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

namespace {

Dims mask_dims(const SmallVector<bool, 8>& mask) {
  Dims dims;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back(static_cast<int64_t>(d));
  return dims;
}

int64_t reduced_count(IntSpan shape, const SmallVector<bool, 8>& mask) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (mask[d]) n *= shape[d];
  return n;
}

// Common state of a reduction node: the input's shape, the reduced dims and keepdim.
struct ReduceInfo {
  Dims in_shape;
  SmallVector<bool, 8> mask;
  bool keepdim = false;
  void set(const Tensor& t, const char* op, IntSpan dims, bool kd) {
    in_shape = t.shape();
    mask = ops::reduce_mask(op, dims, t.dim());
    keepdim = kd;
  }
  Dims dims() const { return mask_dims(mask); }
};

// exp as a differentiable op of its own (ExpBackward0 recomputes from the input, so the
// graph holds no cycle through a saved output); used by logsumexp's backward.
Tensor exp_d(const Tensor& t);

struct ExpBackward : Node {
  SavedTensor self;
  const char* name() const override { return "ExpBackward0"; }
  TensorList apply(TensorList&& g) override { return {mul(g[0], exp_d(self.unpack(name())))}; }
  void release_variables() override { self.release(); }
};

Tensor exp_d(const Tensor& t) {
  Tensor out = ops::exp(t);
  if (any_requires_grad({&t})) {
    auto n = make_ref<ExpBackward>();
    n->self = SavedTensor(t);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

struct MeanBackward : Node, ReduceInfo {
  bool all;
  const char* name() const override { return all ? "MeanBackward0" : "MeanBackward1"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = expand_reduced(g[0], in_shape, mask, keepdim);
    double n = static_cast<double>(reduced_count(in_shape, mask));
    return {div(r, ops::wrapped_scalar(n, false))};
  }
};

struct ProdBackward : Node, ReduceInfo {
  SavedTensor self;
  bool all;
  const char* name() const override { return all ? "ProdBackward0" : "ProdBackward1"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Dims d = dims();
    return {ops::prod_backward(g[0], self.unpack(name()), d, keepdim)};
  }
  void release_variables() override { self.release(); }
};

struct AmaxBackward : Node, ReduceInfo {
  SavedTensor self, result;
  bool is_max;
  const char* name() const override { return is_max ? "AmaxBackward0" : "AminBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Dims d = dims();
    return {ops::amax_backward(g[0], self.unpack(name()), result.unpack(name()), d, keepdim)};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

struct MaxDimBackward : Node {
  Dims in_shape;
  int64_t dim;
  bool keepdim, is_max;
  SavedTensor indices;
  const char* name() const override { return is_max ? "MaxBackward0" : "MinBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    return {ops::index_reduce_backward(g[0], indices.unpack(name()), in_shape, dim, keepdim)};
  }
  void release_variables() override { indices.release(); }
};

// var: g * 2 (x - mean) / max(0, N - correction), all differentiable (create_graph works).
Tensor var_backward(const Tensor& g, const Tensor& x, const ReduceInfo& info, double correction) {
  Dims d = info.dims();
  double n = static_cast<double>(reduced_count(info.in_shape, info.mask));
  double scale = 2.0 / std::max(0.0, n - correction);
  if (info.in_shape.empty() && n - correction <= 0)  // torch's 0-dim rule: grad * inf
    return mul(expand_reduced(g, info.in_shape, info.mask, info.keepdim),
               ops::wrapped_scalar(std::numeric_limits<double>::infinity(), false));
  Tensor centered = sub(x, mean(x, d, true));
  Tensor ge = expand_reduced(g, info.in_shape, info.mask, info.keepdim);
  return mul(mul(ge, centered), ops::wrapped_scalar(scale, false));
}

struct VarBackward : Node, ReduceInfo {
  SavedTensor self;
  double correction;
  const char* name() const override { return "VarBackward0"; }
  TensorList apply(TensorList&& g) override { return {var_backward(g[0], self.unpack(name()), *this, correction)}; }
  void release_variables() override { self.release(); }
};

struct StdBackward : Node, ReduceInfo {
  SavedTensor self, result;
  double correction;
  const char* name() const override { return "StdBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    // torch: var_backward((grad / (2 * result)).masked_fill_(result == 0, 0)), in ops (any device).
    Tensor r = result.unpack(name());
    const Tensor zero = ops::wrapped_scalar(0.0, false);
    Tensor gs = ops::div(to_dtype(g[0], r.dtype()), ops::mul(r, ops::wrapped_scalar(2.0, false)), nullptr);
    gs = ops::where(ops::compare(r, zero, ops::Cmp::Eq), zero, gs);
    return {var_backward(gs, self.unpack(name()), *this, correction)};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

struct LogsumexpBackward : Node, ReduceInfo {
  SavedTensor self, result;
  const char* name() const override { return "LogsumexpBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(name());
    Dims d = dims();
    // With create_graph the result is recomputed differentiably (the saved one is detached).
    Tensor r = grad_mode_enabled() && x.requires_grad() ? logsumexp(x, d, true) : result.unpack(name());
    Tensor re = expand_reduced(r, in_shape, mask, grad_mode_enabled() && x.requires_grad() ? true : keepdim);
    Tensor ge = expand_reduced(g[0], in_shape, mask, keepdim);
    return {mul(ge, exp_d(sub(x, re)))};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

struct NormBackward : Node, ReduceInfo {
  SavedTensor self, result;
  double p;
  const char* name() const override { return "LinalgVectorNormBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Dims d = dims();
    return {ops::norm_backward(g[0], self.unpack(name()), result.unpack(name()), p, d, keepdim)};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

struct SoftmaxBackward : Node {
  SavedTensor result;
  int64_t dim;
  bool log;
  DType in_dtype;
  const char* name() const override { return log ? "LogSoftmaxBackward0" : "SoftmaxBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override { return {ops::softmax_backward(g[0], result.unpack(name()), dim, log)}; }
  void release_variables() override { result.release(); }
};

}  // namespace

Tensor mean(const Tensor& t, IntSpan dims, bool keepdim) {
  Tensor out = ops::mean(t, dims, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<MeanBackward>();
    n->set(t, "mean", dims, keepdim);
    n->all = dims.empty();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor prod(const Tensor& t, IntSpan dims, bool keepdim) {
  Tensor out = ops::prod(t, dims, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<ProdBackward>();
    n->set(t, "prod", dims, keepdim);
    n->all = dims.empty();
    n->self = SavedTensor(t);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

namespace {
Tensor amax_common(const Tensor& t, IntSpan dims, bool keepdim, bool is_max) {
  Tensor out = is_max ? ops::amax(t, dims, keepdim) : ops::amin(t, dims, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<AmaxBackward>();
    n->set(t, is_max ? "amax" : "amin", dims, keepdim);
    n->is_max = is_max;
    n->self = SavedTensor(t);
    n->result = SavedTensor(detach(out));
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}
std::pair<Tensor, Tensor> max_common(const Tensor& t, int64_t dim, bool keepdim, bool is_max) {
  auto r = is_max ? ops::max_dim(t, dim, keepdim) : ops::min_dim(t, dim, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<MaxDimBackward>();
    n->in_shape = t.shape();
    n->dim = dim;
    n->keepdim = keepdim;
    n->is_max = is_max;
    n->indices = SavedTensor(r.second);
    set_history(n.get(), {&t}, {&r.first});
  }
  return r;
}
}  // namespace

Tensor amax(const Tensor& t, IntSpan dims, bool keepdim) { return amax_common(t, dims, keepdim, true); }
Tensor amin(const Tensor& t, IntSpan dims, bool keepdim) { return amax_common(t, dims, keepdim, false); }
std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim) {
  return max_common(t, dim, keepdim, true);
}
std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim) {
  return max_common(t, dim, keepdim, false);
}
Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) { return ops::argmax(t, dim, keepdim); }
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim) { return ops::argmin(t, dim, keepdim); }

Tensor var(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  Tensor out = ops::var(t, dims, correction, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<VarBackward>();
    n->set(t, "var", dims, keepdim);
    n->correction = correction;
    n->self = SavedTensor(t);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor std_dev(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  Tensor out = ops::std_dev(t, dims, correction, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<StdBackward>();
    n->set(t, "std", dims, keepdim);
    n->correction = correction;
    n->self = SavedTensor(t);
    n->result = SavedTensor(detach(out));
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor logsumexp(const Tensor& t, IntSpan dims, bool keepdim) {
  Tensor out = ops::logsumexp(t, dims, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<LogsumexpBackward>();
    n->set(t, "logsumexp", dims, keepdim);
    n->self = SavedTensor(t);
    n->result = SavedTensor(detach(out));
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor vector_norm(const Tensor& t, double p, IntSpan dims, bool keepdim) {
  Tensor out = ops::vector_norm(t, p, dims, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<NormBackward>();
    n->set(t, "linalg.vector_norm", dims, keepdim);
    n->p = p;
    n->self = SavedTensor(t);
    n->result = SavedTensor(detach(out));
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

namespace {
Tensor softmax_common(const Tensor& t, int64_t dim, bool log) {
  Tensor out = ops::softmax(t, dim, log);
  if (any_requires_grad({&t})) {
    auto n = make_ref<SoftmaxBackward>();
    n->result = SavedTensor(detach(out));
    n->dim = dim;
    n->log = log;
    n->in_dtype = t.dtype();
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}
}  // namespace

Tensor softmax(const Tensor& t, int64_t dim) { return softmax_common(t, dim, false); }
Tensor log_softmax(const Tensor& t, int64_t dim) { return softmax_common(t, dim, true); }

// ---- all / any / count_nonzero / aminmax / nansum / nanmean / var_mean / std_mean

Tensor all(const Tensor& t, IntSpan dims, bool keepdim) { return ops::all(t, dims, keepdim); }
Tensor any(const Tensor& t, IntSpan dims, bool keepdim) { return ops::any(t, dims, keepdim); }
Tensor count_nonzero(const Tensor& t, IntSpan dims) { return ops::count_nonzero(t, dims); }

namespace {

// torch records a node without a derivative formula: backward through it is an error.
struct NotImplementedBackward : Node {
  const char* op;
  const char* name() const override { return "NotImplemented"; }
  TensorList apply(TensorList&&) override {
    GLIA_CHECK(false, Unsupported, "derivative for aten::", op, " is not implemented");
    return {};
  }
};

struct NansumBackward : Node, ReduceInfo {
  SavedTensor self;
  const char* name() const override { return "NansumBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(name());
    Tensor ge = expand_reduced(g[0], in_shape, mask, keepdim);
    // torch: grad * self.isnan().logical_not() (an infinite grad at a NaN gives NaN, as in torch).
    return {mul(ge, to_dtype(ops::compare(x, x, ops::Cmp::Eq), ge.dtype()))};
  }
  void release_variables() override { self.release(); }
};

// VarMeanBackward0 / StdMeanBackward0: outputs (var or std, mean).
struct VarMeanBackward : Node, ReduceInfo {
  SavedTensor self, result;
  double correction;
  bool is_std;
  const char* name() const override { return is_std ? "StdMeanBackward0" : "VarMeanBackward0"; }
  // std's part divides by the saved (detached) result, as StdBackward0 does.
  bool backward_is_differentiable() const override { return !is_std; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(name());
    Tensor out;
    if (g[0].defined()) {
      Tensor gv = g[0];
      if (is_std) {
        Tensor r = result.unpack(name());
        const Tensor zero = ops::wrapped_scalar(0.0, false);
        gv = div(to_dtype(gv, r.dtype()), mul(r, ops::wrapped_scalar(2.0, false)));
        gv = where(ops::compare(r, zero, ops::Cmp::Eq), zero, gv);
      }
      out = var_backward(gv, x, *this, correction);
    }
    if (g[1].defined()) {
      double n = static_cast<double>(reduced_count(in_shape, mask));
      Tensor gm = div(expand_reduced(g[1], in_shape, mask, keepdim), ops::wrapped_scalar(n, false));
      out = out.defined() ? add(out, gm) : gm;
    }
    return {out};
  }
  void release_variables() override {
    self.release();
    result.release();
  }
};

std::pair<Tensor, Tensor> var_mean_common(const Tensor& t, IntSpan dims, double correction, bool keepdim, bool is_std) {
  const char* op = is_std ? "std_mean" : "var_mean";
  GLIA_CHECK(is_floating(t.dtype()), DType, op, " only support floating point and complex dtypes");
  Tensor v = is_std ? ops::std_dev(t, dims, correction, keepdim) : ops::var(t, dims, correction, keepdim);
  Tensor m = ops::mean(t, dims, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<VarMeanBackward>();
    n->set(t, op, dims, keepdim);
    n->correction = correction;
    n->is_std = is_std;
    n->self = SavedTensor(t);
    if (is_std) n->result = SavedTensor(detach(v));
    set_history(n.get(), {&t}, {&v, &m});
  }
  return {v, m};
}

}  // namespace

std::pair<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  auto r = ops::aminmax(t, dim, keepdim);
  if (any_requires_grad({&t}) && is_floating(t.dtype())) {
    auto n = make_ref<NotImplementedBackward>();
    n->op = "aminmax";
    set_history(n.get(), {&t}, {&r.first, &r.second});
  }
  return r;
}

Tensor nansum(const Tensor& t, IntSpan dims, bool keepdim) {
  Tensor out = ops::nansum(t, dims, keepdim);
  if (any_requires_grad({&t})) {
    auto n = make_ref<NansumBackward>();
    n->set(t, "nansum", dims, keepdim);
    n->self = SavedTensor(t);
    set_history(n.get(), {&t}, {&out});
  }
  return out;
}

Tensor nanmean(const Tensor& t, IntSpan dims, bool keepdim) {
  GLIA_CHECK(is_floating(t.dtype()), DType, "nanmean(): expected input to have floating point dtype but got ",
             scalar_type_name(t.dtype()));
  // torch's composite: nansum(x) / (number of non-NaN elements), so its node is DivBackward0.
  Tensor count = ops::sum(ops::compare(t, t, ops::Cmp::Eq), dims, keepdim);
  return div(nansum(t, dims, keepdim), to_dtype(count, t.dtype()));
}

std::pair<Tensor, Tensor> var_mean(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  return var_mean_common(t, dims, correction, keepdim, false);
}
std::pair<Tensor, Tensor> std_mean(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  return var_mean_common(t, dims, correction, keepdim, true);
}

}  // namespace glia
