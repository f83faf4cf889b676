#include "autograd/fn/index_extra.h"

#include <functional>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/shape.h"
#include "autograd/fn/shape_ops.h"
#include "ops/elementwise.h"
#include "ops/index.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/shape_ops.h"

namespace glia {

namespace {

// One node type for the family: torch's name, the saved tensors and a rule written in differentiable ops
// (so create_graph goes through it). The rule gets the output gradient and the unpacked saved tensors and
// returns one gradient per input (undefined where next_edges[i] is not valid is fine).
struct IndexFamilyBackward : Node {
  const char* node_name = "";
  std::vector<SavedTensor> saved;
  std::function<TensorList(const Tensor&, const std::vector<Tensor>&, const Node&)> rule;
  const char* name() const override { return node_name; }
  TensorList apply(TensorList&& g) override {
    std::vector<Tensor> s;
    s.reserve(saved.size());
    for (const SavedTensor& t : saved) s.push_back(t.unpack(node_name, this));
    Tensor grad = g[0].defined() ? g[0] : zeros(output_shapes[0], output_dtypes[0], output_device);
    return rule(grad, s, *this);
  }
  void release_variables() override {
    for (SavedTensor& t : saved) t.release();
  }
};

template <class Rule>
void record(const char* name, const TensorList& inputs, Tensor& out, std::vector<Tensor> save, bool save_out,
            Rule rule) {
  if (!any_requires_grad(inputs)) return;
  auto n = make_ref<IndexFamilyBackward>();
  n->node_name = name;
  for (const Tensor& t : save) n->saved.push_back(SavedTensor(t));
  if (save_out) n->saved.push_back(SavedTensor::output(out));
  n->rule = std::move(rule);
  set_history(n.get(), inputs, TensorList{out});
}

Tensor zeros_of(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }
Tensor scalar0(double v) { return ops::wrapped_scalar(v, false); }
Tensor mask_eq(const Tensor& a, double v) { return compare_scalar(a, Scalar::from_double(v), ops::Cmp::Eq); }
Tensor as_float(const Tensor& mask, DType dtype) { return to_dtype(mask, dtype); }

// gather's result padded with zeros up to `shape` (a src larger than its index: the rest was not used).
Tensor pad_to(const Tensor& g, IntSpan shape) {
  if (g.shape() == Dims(shape)) return g;
  Dims p;
  for (int64_t d = g.dim() - 1; d >= 0; --d) {
    p.push_back(0);
    p.push_back(shape[d] - g.shape()[d]);
  }
  return pad(g, p, PadMode::Constant, 0.0);
}

}  // namespace

Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor out = ops::index_add(t, dim, index, source, alpha);
  const Dims src_shape = source.shape();
  record("IndexAddBackward0", TensorList{t, source}, out, {index}, false,
         [dim, alpha, src_shape](const Tensor& g, const std::vector<Tensor>& s, const Node& n) {
           TensorList r(2);
           if (n.next_edges[0].valid()) r[0] = g;
           if (n.next_edges[1].valid()) {
             Tensor gs = reshape(index_select(g, dim, s[0]), src_shape);
             r[1] = alpha.to_double() == 1.0 ? gs : mul_scalar(gs, alpha);
           }
           return r;
         });
  return out;
}

Tensor index_copy(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = ops::index_copy(t, dim, index, source);
  const Dims src_shape = source.shape();
  record("IndexCopyBackward0", TensorList{t, source}, out, {index}, false,
         [dim, src_shape](const Tensor& g, const std::vector<Tensor>& s, const Node& n) {
           TensorList r(2);
           if (n.next_edges[0].valid()) r[0] = index_fill(g, dim, s[0], Scalar::from_double(0.0));
           if (n.next_edges[1].valid()) r[1] = reshape(index_select(g, dim, s[0]), src_shape);
           return r;
         });
  return out;
}

Tensor index_fill(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = ops::index_fill(t, dim, index, value);
  record("IndexFillBackward0", TensorList{t}, out, {index}, false,
         [dim](const Tensor& g, const std::vector<Tensor>& s, const Node&) {
           return TensorList{index_fill(g, dim, s[0], Scalar::from_double(0.0))};
         });
  return out;
}

namespace {

// torch's scatter_reduce_backward (tools/autograd/templates/FunctionsManual.cpp, 1.13), for scatter_reduce and
// index_reduce (whose index is spread over src's shape).
void record_scatter_reduce(const char* name, const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                           ops::ScatterReduce reduce, bool include_self, Tensor& out) {
  using R = ops::ScatterReduce;
  record(name, TensorList{t, src}, out, {t, index, src}, true,
         [dim, reduce, include_self](const Tensor& g, const std::vector<Tensor>& s, const Node& n) {
           const Tensor &self = s[0], &index = s[1], &src = s[2], &result = s[3];
           const DType dt = self.dtype();
           Tensor gs, gsrc;
           if (reduce == R::Sum) {
             gs = g;
             gsrc = gather(g, dim, index);
           } else if (reduce == R::Prod) {
             Tensor masked_self = where(mask_eq(self, 0), scalar0(1), self);
             Tensor masked_self_result = glia::scatter_reduce(masked_self, dim, index, src, reduce, include_self);
             gs = div(mul(g, masked_self_result), masked_self);
             Tensor src_zero = mask_eq(src, 0);
             Tensor src_num_zeros = gather(scatter_add(zeros_of(self), dim, index, as_float(src_zero, dt)), dim, index);
             Tensor src_single_zero = glia::logical(src_zero, mask_eq(src_num_zeros, 1), ops::Logic::And);
             Tensor masked_src = where(src_single_zero, scalar0(1), src);
             Tensor masked_src_result = glia::scatter_reduce(self, dim, index, masked_src, reduce, include_self);
             gsrc = where(src_single_zero, gather(mul(g, masked_src_result), dim, index),
                          div(gather(mul(g, result), dim, index), where(src_zero, scalar0(1), src)));
           } else if (reduce == R::Mean) {
             Tensor N = include_self ? ones(g.shape(), g.dtype(), g.device()) : zeros_of(g);
             N = scatter_add(N, dim, index, ones(src.shape(), g.dtype(), g.device()));
             N = where(mask_eq(N, 0), scalar0(1), N);
             gs = div(g, N);
             gsrc = div(gather(g, dim, index), gather(N, dim, index));
           } else {
             // amax / amin: the gradient split evenly between the elements equal to the result.
             Tensor value = gather(result, dim, index);
             Tensor self_is_result = as_float(glia::compare(self, result, ops::Cmp::Eq), dt);
             Tensor src_is_result = as_float(glia::compare(src, value, ops::Cmp::Eq), dt);
             Tensor n_to_distribute = scatter_add(self_is_result, dim, index, src_is_result);
             Tensor grad_distributed = div(g, n_to_distribute);
             gs = mul(self_is_result, grad_distributed);
             gsrc = mul(src_is_result, gather(grad_distributed, dim, index));
           }
           if (!include_self) gs = scatter_value(gs, dim, index, Scalar::from_double(0.0));
           TensorList r(2);
           if (n.next_edges[0].valid()) r[0] = gs;
           if (n.next_edges[1].valid())
             r[1] = gsrc.numel() == src.numel() ? reshape(gsrc, src.shape()) : pad_to(gsrc, src.shape());
           return r;
         });
}

}  // namespace

Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, ops::ScatterReduce reduce,
                      bool include_self) {
  Tensor out = ops::scatter_reduce(t, dim, index, src, reduce, include_self);
  record_scatter_reduce("ScatterReduceBackward0", t, dim, index, src, reduce, include_self, out);
  return out;
}

Tensor index_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, ops::ScatterReduce reduce,
                    bool include_self) {
  Tensor spread = ops::index_reduce_index(t, dim, index, source, reduce);
  Tensor out = ops::scatter_reduce(t, dim, spread, source, reduce, include_self);
  record_scatter_reduce("IndexReduceBackward0", t, dim, spread, source, reduce, include_self, out);
  return out;
}

Tensor masked_scatter(const Tensor& t, const Tensor& mask, const Tensor& source) {
  Tensor out = ops::masked_scatter(t, mask, source);
  const Dims self_shape = t.shape(), src_shape = source.shape();
  record("MaskedScatterBackward0", TensorList{t, source}, out, {mask}, false,
         [self_shape, src_shape](const Tensor& g, const std::vector<Tensor>& s, const Node& n) {
           TensorList r(2);
           if (n.next_edges[0].valid()) r[0] = sum_to(where(s[0], scalar0(0), g), self_shape);
           if (n.next_edges[1].valid()) {
             Tensor sel = masked_select(g, s[0]);
             const int64_t total = checked_numel(src_shape), diff = total - sel.numel();
             if (diff > 0) sel = cat({sel, zeros(Dims{diff}, g.dtype(), g.device())}, 0);
             r[1] = reshape(sel, src_shape);
           }
           return r;
         });
  return out;
}

Tensor put(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate) {
  common_device("put", t, index, false);
  common_device("put", t, source, false);
  GLIA_CHECK(index.dtype() == DType::Int64, DType, "put_(): Expected a long tensor for index, but got ",
             scalar_type_name(index.dtype()));
  GLIA_CHECK(t.dtype() == source.dtype(), DType,
             "put_(): self and source expected to have the same dtype, but got self.dtype = ",
             scalar_type_name(t.dtype()), " and source.dtype = ", scalar_type_name(source.dtype()));
  GLIA_CHECK(source.numel() == index.numel(), InvalidArgument,
             "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
             source.numel(), ", index.numel() = ", index.numel());
  const int64_t numel = t.numel();
  Tensor lin = index.numel() == 0
                   ? ops::reshape(index, Dims{-1})
                   : ops::check_index(ops::reshape(index, Dims{-1}), numel, 0, true, ops::IndexMessage::Put);
  Tensor flat = ops::reshape(t, Dims{-1}), src = ops::reshape(source, Dims{-1});
  Tensor out = ops::reshape(
      accumulate ? ops::index_add(flat, 0, lin, src, Scalar::from_int(1)) : ops::index_copy(flat, 0, lin, src),
      t.shape());
  const Dims shape = t.shape(), src_shape = source.shape();
  record("PutBackward0", TensorList{t, source}, out, {lin}, false,
         [accumulate, shape, src_shape](const Tensor& g, const std::vector<Tensor>& s, const Node& n) {
           TensorList r(2);
           Tensor gf = reshape(g, Dims{-1});
           if (n.next_edges[0].valid())
             r[0] = accumulate ? g : reshape(index_fill(gf, 0, s[0], Scalar::from_double(0.0)), shape);
           if (n.next_edges[1].valid()) r[1] = reshape(index_select(gf, 0, s[0]), src_shape);
           return r;
         });
  return out;
}

Tensor index_put(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  common_device("index_put", t, values, false);
  int64_t k = 0;
  Dims bshape;
  Tensor lin = ops::reshape(ops::index_put_linear(t, indices, k, bshape), Dims{-1});
  GLIA_CHECK(t.dtype() == values.dtype(), DType, "Index put requires the source and destination dtypes match, got ",
             scalar_type_name(t.dtype()), " for the destination and ", scalar_type_name(values.dtype()),
             " for the source.");
  // t viewed as [P, rest...] (P: the first k dims), values as [N, rest...] (N: the broadcast indices).
  Dims flat_shape{1}, target = bshape;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < k)
      flat_shape[0] *= t.shape()[d];
    else {
      flat_shape.push_back(t.shape()[d]);
      target.push_back(t.shape()[d]);
    }
  }
  bool fits = true;
  try {
    fits = ops::broadcast_shapes("index_put", values.shape(), target) == target;
  } catch (const Error&) {
    fits = false;
  }
  GLIA_CHECK(fits, Shape, "shape mismatch: value tensor of shape ", values.shape(),
             " cannot be broadcast to indexing result of shape ", target);
  Dims v_shape = flat_shape;
  v_shape[0] = lin.numel();
  Tensor flat = ops::reshape(t, flat_shape);
  Tensor v = ops::reshape(ops::expand(values, target), v_shape);
  Tensor out = ops::reshape(
      accumulate ? ops::index_add(flat, 0, lin, v, Scalar::from_int(1)) : ops::index_copy(flat, 0, lin, v), t.shape());
  const Dims shape = t.shape(), val_shape = values.shape();
  record(
      "IndexPutBackward0", TensorList{t, values}, out, {lin}, false,
      [accumulate, shape, val_shape, flat_shape, target](const Tensor& g, const std::vector<Tensor>& s, const Node& n) {
        TensorList r(2);
        Tensor g2 = reshape(g, flat_shape);
        if (n.next_edges[0].valid())
          r[0] = accumulate ? g : reshape(index_fill(g2, 0, s[0], Scalar::from_double(0.0)), shape);
        if (n.next_edges[1].valid()) r[1] = sum_to(reshape(index_select(g2, 0, s[0]), target), val_shape);
        return r;
      });
  return out;
}

Tensor nonzero(const Tensor& t) { return ops::nonzero(t); }

Tensor diagonal_scatter(const Tensor& t, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ops::diagonal_scatter(t, src, offset, dim1, dim2);
  const Dims src_shape = src.shape();
  const DType src_dt = src.dtype();
  record("DiagonalScatterBackward0", TensorList{t, src}, out, {}, false,
         [=](const Tensor& g, const std::vector<Tensor>&, const Node& n) {
           TensorList r(2);
           if (n.next_edges[0].valid())
             r[0] = diagonal_scatter(g, zeros(src_shape, g.dtype(), g.device()), offset, dim1, dim2);
           if (n.next_edges[1].valid()) r[1] = as_input(diagonal(g, offset, dim1, dim2), src_dt);
           return r;
         });
  return out;
}

Tensor select_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t index) {
  Tensor out = ops::select_scatter(t, src, dim, index);
  const Dims src_shape = src.shape();
  const DType src_dt = src.dtype();
  record("SelectScatterBackward0", TensorList{t, src}, out, {}, false,
         [=](const Tensor& g, const std::vector<Tensor>&, const Node& n) {
           TensorList r(2);
           if (n.next_edges[0].valid()) r[0] = select_scatter(g, zeros(src_shape, g.dtype(), g.device()), dim, index);
           if (n.next_edges[1].valid()) r[1] = as_input(select(g, dim, index), src_dt);
           return r;
         });
  return out;
}

Tensor slice_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Tensor out = ops::slice_scatter(t, src, dim, start, end, step);
  const Dims src_shape = src.shape();
  const DType src_dt = src.dtype();
  record("SliceScatterBackward0", TensorList{t, src}, out, {}, false,
         [=](const Tensor& g, const std::vector<Tensor>&, const Node& n) {
           TensorList r(2);
           if (n.next_edges[0].valid())
             r[0] = slice_scatter(g, zeros(src_shape, g.dtype(), g.device()), dim, start, end, step);
           if (n.next_edges[1].valid()) r[1] = as_input(slice(g, dim, start, end, step), src_dt);
           return r;
         });
  return out;
}

}  // namespace glia
