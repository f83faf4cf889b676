#include "autograd/fn/elementwise.h"

#include "autograd/fn/reduce.h"
#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"

namespace glia {

Tensor sum_to(const Tensor& grad, IntSpan shape) {
  if (IntSpan(grad.shape()).size() == shape.size() && std::equal(shape.begin(), shape.end(), grad.shape().begin()))
    return grad;
  int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  Dims lead_dims, ones;
  for (int64_t d = 0; d < lead; ++d) lead_dims.push_back(d);
  for (int64_t d = lead; d < grad.dim(); ++d)
    if (shape[d - lead] == 1 && grad.shape()[d] != 1) ones.push_back(d - lead);
  Tensor r = lead_dims.empty() ? grad : sum(grad, lead_dims, false);
  return ones.empty() ? r : sum(r, ones, true);
}

void check_inplace(const Tensor& self, const char* op) {
  GLIA_CHECK(!(grad_mode_enabled() && self.requires_grad() && is_leaf(self)), State,
             "a leaf Variable that requires grad is being used in an in-place operation. (", op, ")");
}

namespace {

// Converts a gradient to the dtype of the input it belongs to.
Tensor as_input(const Tensor& g, DType t) { return g.dtype() == t ? g : to_dtype(g, t); }

struct BinaryInfo {
  Dims a_shape, b_shape;
  DType a_dtype, b_dtype;
  void set(const Tensor& a, const Tensor& b) {
    a_shape = a.shape();
    b_shape = b.shape();
    a_dtype = a.dtype();
    b_dtype = b.dtype();
  }
};

struct AddBackward : Node, BinaryInfo {
  double alpha;
  bool sub;
  const char* name() const override { return sub ? "SubBackward0" : "AddBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = as_input(sum_to(g[0], a_shape), a_dtype);
    if (next_edges[1].valid()) {
      Tensor gb = sum_to(g[0], b_shape);
      double s = sub ? -alpha : alpha;
      if (s != 1.0) gb = mul(gb, ops::wrapped_scalar(s, false));
      r[1] = as_input(gb, b_dtype);
    }
    return r;
  }
};

struct MulBackward : Node, BinaryInfo {
  SavedTensor a, b;
  const char* name() const override { return "MulBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = as_input(sum_to(mul(g[0], b.unpack(name())), a_shape), a_dtype);
    if (next_edges[1].valid()) r[1] = as_input(sum_to(mul(g[0], a.unpack(name())), b_shape), b_dtype);
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct DivBackward : Node, BinaryInfo {
  SavedTensor a, b;
  const char* name() const override { return "DivBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    Tensor bv = b.unpack(name());
    if (next_edges[0].valid()) r[0] = as_input(sum_to(div(g[0], bv), a_shape), a_dtype);
    if (next_edges[1].valid()) {
      // d(a/b)/db = -a / b^2
      Tensor av = a.unpack(name());
      r[1] = as_input(sum_to(neg(div(mul(g[0], av), mul(bv, bv))), b_shape), b_dtype);
    }
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct NegBackward : Node {
  const char* name() const override { return "NegBackward0"; }
  TensorList apply(TensorList&& g) override { return {neg(g[0])}; }
};

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, double alpha) {
  Tensor out = ops::add(a, b, alpha);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<AddBackward>();
    n->set(a, b);
    n->alpha = alpha;
    n->sub = false;
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor sub(const Tensor& a, const Tensor& b, double alpha) {
  Tensor out = ops::sub(a, b, alpha);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<AddBackward>();
    n->set(a, b);
    n->alpha = alpha;
    n->sub = true;
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = ops::mul(a, b);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<MulBackward>();
    n->set(a, b);
    n->a = SavedTensor(a);
    n->b = SavedTensor(b);
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor div(const Tensor& a, const Tensor& b, const char* rounding_mode) {
  Tensor out = ops::div(a, b, rounding_mode);
  if (any_requires_grad({&a, &b})) {
    GLIA_CHECK(!rounding_mode, State, "div with rounding_mode '", rounding_mode,
               "' is not differentiable (derivative for floor_divide/trunc is not implemented)");
    auto n = make_ref<DivBackward>();
    n->set(a, b);
    n->a = SavedTensor(a);
    n->b = SavedTensor(b);
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor neg(const Tensor& a) {
  Tensor out = ops::neg(a);
  if (any_requires_grad({&a})) {
    auto n = make_ref<NegBackward>();
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

// Note [In-place and autograd]: an in-place op on a tensor that takes part in
// a graph rebases its history: the tensor's grad_fn becomes the in-place op's
// node, whose first edge is where the tensor's gradient used to flow.
void add_(const Tensor& self, const Tensor& other, double alpha) {
  check_inplace(self, "add_");
  bool record = any_requires_grad({&self, &other});
  ops::add_(self, other, alpha);
  bump_version(self);
  if (record) {
    auto n = make_ref<AddBackward>();
    n->set(self, other);
    n->alpha = alpha;
    n->sub = false;
    set_history(n.get(), {&self, &other}, {&self});
  }
}

void mul_(const Tensor& self, const Tensor& other) {
  check_inplace(self, "mul_");
  bool record = any_requires_grad({&self, &other});
  Ref<MulBackward> n;
  if (record) {
    n = make_ref<MulBackward>();
    n->set(self, other);
    n->a = SavedTensor(clone(self));
    n->b = SavedTensor(other);
  }
  ops::mul_(self, other);
  bump_version(self);
  if (record) {
    // other is saved: if it aliases self, its version moved on; save the clone instead.
    if (other.impl()->storage() == self.impl()->storage()) n->b = SavedTensor(n->a.unpack("MulBackward0"));
    set_history(n.get(), {&self, &other}, {&self});
  }
}

}  // namespace glia
