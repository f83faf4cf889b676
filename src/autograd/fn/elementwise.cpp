#include "autograd/fn/elementwise.h"

#include <cmath>

#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"

// Note [One op, one rule]: every differentiable op is one function of autograd/functions.h that
// calls its kernel (ops::<name>), then, when any_requires_grad, records a Node
// subclass defined beside it in the same file, whose apply() is the backward
// rule written with these same differentiable functions (so create_graph and
// double backward work without a second set of rules). Node names are
// torch's (MulBackward0) and tests compare them. The micrograd/tinygrad
// shape: finding an op's gradient means reading one file, and an op without
// a rule cannot be recorded by accident because recording needs its Node.

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
  GLIA_CHECK(!self.impl()->is_inference || inference_mode(), State,
             "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
             "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
  GLIA_CHECK(!(grad_mode_enabled() && self.requires_grad() && is_leaf(self)), State,
             "a leaf Variable that requires grad is being used in an in-place operation. (", op, ")");
}

Tensor as_input(const Tensor& g, DType t) { return g.dtype() == t ? g : to_dtype(g, t); }

Tensor zero_like_scalar(const Tensor& g) { return zeros({}, g.dtype(), g.device()); }

namespace {

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

// torch's DivBackward2 (div with rounding_mode "trunc" or "floor"): the result is flat almost
// everywhere, so both gradients are zero (also what makes remainder's gradient come out right).
struct DivRoundingBackward : Node, BinaryInfo {
  const char* name() const override { return "DivBackward2"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = zeros(a_shape, a_dtype, g[0].device());
    if (next_edges[1].valid()) r[1] = zeros(b_shape, b_dtype, g[0].device());
    return r;
  }
};

struct NegBackward : Node {
  const char* name() const override { return "NegBackward0"; }
  TensorList apply(TensorList&& g) override { return {neg(g[0])}; }
};

using ops::Cmp;

// A bool mask of the comparison a <op> b (no graph).
Tensor cmp(const Tensor& a, const Tensor& b, Cmp op) { return ops::compare(a, b, op); }
Tensor cmp(const Tensor& a, double v, Cmp op) { return ops::compare(a, ops::wrapped_scalar(v, false), op); }
Tensor mask_and(const Tensor& a, const Tensor& b) { return ops::logical(a, b, ops::Logic::And); }
Tensor mask_or(const Tensor& a, const Tensor& b) { return ops::logical(a, b, ops::Logic::Or); }
// g where mask, else 0 (differentiable in g).
Tensor keep(const Tensor& mask, const Tensor& g) { return where(mask, g, zero_like_scalar(g)); }
Tensor scale(const Tensor& g, double v) { return mul(g, ops::wrapped_scalar(v, false)); }

struct UnaryInfo {
  Dims shape;
  DType dtype;
  void set(const Tensor& a) {
    shape = a.shape();
    dtype = a.dtype();
  }
};

struct RsubBackward : Node {
  double alpha;
  DType dtype;
  const char* name() const override { return "RsubBackward1"; }
  TensorList apply(TensorList&& g) override { return {as_input(scale(g[0], -alpha), dtype)}; }
};

struct AbsBackward : Node {
  SavedTensor x;
  const char* name() const override { return "AbsBackward0"; }
  TensorList apply(TensorList&& g) override { return {mul(g[0], sign(x.unpack(name())))}; }
  void release_variables() override { x.release(); }
};

struct SignBackward : Node, UnaryInfo {
  const char* name() const override { return "SignBackward0"; }
  TensorList apply(TensorList&& g) override { return {zeros(shape, dtype, g[0].device())}; }
};

// Unary ops whose backward needs the input (kind picks the rule).
enum class U { Log, Log1p, Erf };
struct UnaryXBackward : Node {
  SavedTensor x;
  U kind;
  const char* name() const override {
    return kind == U::Log ? "LogBackward0" : kind == U::Log1p ? "Log1PBackward0" : "ErfBackward0";
  }
  TensorList apply(TensorList&& g) override {
    Tensor v = x.unpack(name());
    switch (kind) {
      case U::Log:
        return {div(g[0], v)};
      case U::Log1p:
        return {div(g[0], add_scalar(v, Scalar::from_int(1)))};
      case U::Erf:
        // 2 / sqrt(pi) * exp(-x^2)
        return {mul(g[0], scale(exp(neg(mul(v, v))), 1.12837916709551257390))};
    }
    return {Tensor()};
  }
  void release_variables() override { x.release(); }
};

// Unary ops whose backward needs the output.
enum class R { Exp, Expm1, Sqrt, Rsqrt };
struct UnaryRBackward : Node {
  SavedTensor y;  // the node's own output (Note [Saving outputs])
  R kind;
  const char* name() const override {
    return kind == R::Exp     ? "ExpBackward0"
           : kind == R::Expm1 ? "Expm1Backward0"
           : kind == R::Sqrt  ? "SqrtBackward0"
                              : "RsqrtBackward0";
  }
  TensorList apply(TensorList&& g) override {
    Tensor r = y.unpack(name(), this);
    switch (kind) {
      case R::Exp:
        return {mul(g[0], r)};
      case R::Expm1:
        return {mul(g[0], add_scalar(r, Scalar::from_int(1)))};
      case R::Sqrt:
        return {div(g[0], scale(r, 2))};
      case R::Rsqrt:
        return {mul(scale(g[0], -0.5), pow_scalar(r, Scalar::from_int(3)))};
    }
    return {Tensor()};
  }
  void release_variables() override { y.release(); }
};

// tensor ** scalar
struct PowScalarBackward : Node {
  SavedTensor x;
  Scalar e;
  const char* name() const override { return "PowBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor v = x.unpack(name());
    if (e.to_double() == 0) return {zeros(v.shape(), v.dtype(), v.device())};
    Scalar em1 = e.is_floating() ? Scalar::from_double(e.f - 1) : Scalar::from_int(e.i - 1);
    return {mul(g[0], mul_scalar(pow_scalar(v, em1), e))};
  }
  void release_variables() override { x.release(); }
};

// grad * where(base == 0 & exponent >= 0, 0, result * log(base))
Tensor pow_exponent_grad(const Tensor& g, const Tensor& base, const Tensor& exponent, const Tensor& result) {
  Tensor cond = mask_and(cmp(base, 0.0, Cmp::Eq), cmp(exponent, 0.0, Cmp::Ge));
  Tensor lb = log(base.dtype() == result.dtype() ? base : to_dtype(base, result.dtype()));
  return mul(g, where(cond, zero_like_scalar(result), mul(result, lb)));
}

// tensor ** tensor
struct PowBackward : Node, BinaryInfo {
  SavedTensor a, b;
  SavedTensor y;  // the node's own output (Note [Saving outputs])
  const char* name() const override { return "PowBackward1"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    Tensor av = a.unpack(name()), bv = b.unpack(name());
    if (next_edges[0].valid()) {
      Tensor d = mul(g[0], mul(bv, pow(av, sub_scalar(bv, Scalar::from_int(1)))));
      r[0] = as_input(sum_to(where(cmp(bv, 0.0, Cmp::Eq), zero_like_scalar(d), d), a_shape), a_dtype);
    }
    if (next_edges[1].valid())
      r[1] = as_input(sum_to(pow_exponent_grad(g[0], av, bv, y.unpack(name(), this)), b_shape), b_dtype);
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
    y.release();
  }
};

// scalar ** tensor
struct ScalarPowBackward : Node, UnaryInfo {
  Scalar base;
  SavedTensor b;
  SavedTensor y;  // the node's own output (Note [Saving outputs])
  const char* name() const override { return "PowBackward2"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = y.unpack(name(), this);
    double lb = std::log(base.to_double());
    Tensor d = mul(g[0], scale(r, lb));
    if (base.to_double() == 0) d = where(cmp(b.unpack(name()), 0.0, Cmp::Ge), zero_like_scalar(d), d);
    return {as_input(d, dtype)};
  }
  void release_variables() override {
    b.release();
    y.release();
  }
};

// clamp with scalar bounds (clamp_ too)
struct ClampScalarBackward : Node {
  SavedTensor x;
  std::optional<Scalar> lo, hi;
  const char* name() const override { return "ClampBackward1"; }
  TensorList apply(TensorList&& g) override {
    Tensor v = x.unpack(name());
    Tensor mask;
    if (lo) mask = ops::compare(v, lo->to_tensor(), Cmp::Ge);
    if (hi) {
      Tensor m2 = ops::compare(v, hi->to_tensor(), Cmp::Le);
      mask = mask.defined() ? mask_and(mask, m2) : m2;
    }
    return {keep(mask, g[0])};
  }
  void release_variables() override { x.release(); }
};

// clamp with tensor bounds
struct ClampTensorBackward : Node {
  SavedTensor x, lo, hi;
  Dims shapes[3];
  DType dtypes[3];
  const char* name() const override { return "ClampBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor v = x.unpack(name()), l = lo.unpack(name()), h = hi.unpack(name());
    TensorList r(3);
    auto out = [&](int k, const Tensor& mask) { r[k] = as_input(sum_to(keep(mask, g[0]), shapes[k]), dtypes[k]); };
    if (l.defined() && h.defined()) {
      if (next_edges[0].valid()) out(0, mask_and(cmp(v, l, Cmp::Ge), cmp(v, h, Cmp::Le)));
      if (next_edges[1].valid()) out(1, mask_and(cmp(v, l, Cmp::Lt), cmp(l, h, Cmp::Lt)));
      if (next_edges[2].valid()) out(2, mask_or(cmp(h, l, Cmp::Le), cmp(v, h, Cmp::Gt)));
    } else if (l.defined()) {
      if (next_edges[0].valid()) out(0, cmp(v, l, Cmp::Ge));
      if (next_edges[1].valid()) out(1, cmp(v, l, Cmp::Lt));
    } else {
      if (next_edges[0].valid()) out(0, cmp(v, h, Cmp::Le));
      if (next_edges[2].valid()) out(2, cmp(v, h, Cmp::Gt));
    }
    return r;
  }
  void release_variables() override {
    x.release();
    lo.release();
    hi.release();
  }
};

struct MaxMinBackward : Node, BinaryInfo {
  SavedTensor a, b;
  bool is_max;
  const char* name() const override { return is_max ? "MaximumBackward0" : "MinimumBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    Tensor av = a.unpack(name()), bv = b.unpack(name());
    Tensor eq = cmp(av, bv, Cmp::Eq);
    Tensor half = where(eq, scale(g[0], 0.5), g[0]);
    // a loses where it is the smaller (max) / larger (min) one; b the other way round.
    if (next_edges[0].valid())
      r[0] = as_input(sum_to(where(cmp(av, bv, is_max ? Cmp::Lt : Cmp::Gt), zero_like_scalar(half), half), a_shape),
                      a_dtype);
    if (next_edges[1].valid())
      r[1] = as_input(sum_to(where(cmp(av, bv, is_max ? Cmp::Gt : Cmp::Lt), zero_like_scalar(half), half), b_shape),
                      b_dtype);
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct WhereBackward : Node {
  SavedTensor cond;
  Dims shapes[2];
  DType dtypes[2];
  const char* name() const override { return "WhereBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(3);
    Tensor c = to_dtype(cond.unpack(name()), DType::Bool);
    Tensor z = zero_like_scalar(g[0]);
    if (next_edges[1].valid()) r[1] = as_input(sum_to(where(c, g[0], z), shapes[0]), dtypes[0]);
    if (next_edges[2].valid()) r[2] = as_input(sum_to(where(c, z, g[0]), shapes[1]), dtypes[1]);
    return r;
  }
  void release_variables() override { cond.release(); }
};

struct AddcBackward : Node {
  SavedTensor t1, t2;
  Scalar value;
  bool is_div;
  DType self_dtype;
  Dims shapes[2];
  DType dtypes[2];
  const char* name() const override { return is_div ? "AddcdivBackward0" : "AddcmulBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(3);
    if (next_edges[0].valid()) r[0] = as_input(g[0], self_dtype);
    Tensor a = t1.unpack(name()), b = t2.unpack(name());
    Tensor gv = mul_scalar(g[0], value);
    if (!is_div) {
      if (next_edges[1].valid()) r[1] = as_input(sum_to(mul(gv, b), shapes[0]), dtypes[0]);
      if (next_edges[2].valid()) r[2] = as_input(sum_to(mul(gv, a), shapes[1]), dtypes[1]);
    } else {
      if (next_edges[1].valid()) r[1] = as_input(sum_to(div(gv, b), shapes[0]), dtypes[0]);
      if (next_edges[2].valid()) r[2] = as_input(sum_to(neg(div(mul(gv, a), mul(b, b))), shapes[1]), dtypes[1]);
    }
    return r;
  }
  void release_variables() override {
    t1.release();
    t2.release();
  }
};

// zero_, fill_: the old values do not matter.
struct OverwriteBackward : Node, UnaryInfo {
  const char* nm;
  const char* name() const override { return nm; }
  TensorList apply(TensorList&& g) override { return {zeros(shape, dtype, g[0].device())}; }
};

struct CopyBackward : Node {
  Dims self_shape, src_shape;
  DType self_dtype, src_dtype;
  Device src_device;  // copy_ may cross devices: src's gradient goes back to src's device (torch: grad.to(src))
  const char* name() const override { return "CopyBackwards"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = zeros(self_shape, self_dtype, g[0].device());
    if (next_edges[1].valid()) r[1] = to_with_grad(sum_to(g[0], src_shape), src_device, src_dtype);
    return r;
  }
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
    if (rounding_mode) {
      auto n = make_ref<DivRoundingBackward>();
      n->set(a, b);
      set_history(n.get(), {&a, &b}, {&out});
      return out;
    }
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

namespace glia {

namespace {
template <class N>
Ref<N> unary_node(const Tensor& a, const Tensor& out) {
  auto n = make_ref<N>();
  set_history(n.get(), {&a}, {&out});
  return n;
}
}  // namespace

// ---- scalar operands: torch wraps the number and runs the tensor op (same grad_fn names).
Tensor add_scalar(const Tensor& a, const Scalar& s, double alpha) { return add(a, s.to_tensor(), alpha); }
Tensor sub_scalar(const Tensor& a, const Scalar& s, double alpha) { return sub(a, s.to_tensor(), alpha); }
Tensor mul_scalar(const Tensor& a, const Scalar& s) { return mul(a, s.to_tensor()); }
Tensor div_scalar(const Tensor& a, const Scalar& s, const char* rounding_mode) {
  return div(a, s.to_tensor(), rounding_mode);
}
Tensor rsub_scalar(const Tensor& a, const Scalar& s, double alpha) {
  Tensor out = ops::rsub(a, s.to_tensor(), alpha);
  if (any_requires_grad({&a})) {
    auto n = make_ref<RsubBackward>();
    n->alpha = alpha;
    n->dtype = a.dtype();
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

// ---- math
Tensor abs(const Tensor& a) {
  Tensor out = ops::abs(a);
  if (any_requires_grad({&a})) unary_node<AbsBackward>(a, out)->x = SavedTensor(a);
  return out;
}

Tensor sign(const Tensor& a) {
  Tensor out = ops::sign(a);
  if (any_requires_grad({&a})) unary_node<SignBackward>(a, out)->set(a);
  return out;
}

namespace {
Tensor unary_x(const Tensor& a, Tensor out, U kind) {
  if (any_requires_grad({&a})) {
    auto n = unary_node<UnaryXBackward>(a, out);
    n->x = SavedTensor(a);
    n->kind = kind;
  }
  return out;
}
Tensor unary_r(const Tensor& a, Tensor out, R kind) {
  if (any_requires_grad({&a})) {
    auto n = unary_node<UnaryRBackward>(a, out);
    n->y = SavedTensor::output(out);
    n->kind = kind;
  }
  return out;
}
}  // namespace

Tensor exp(const Tensor& a) { return unary_r(a, ops::exp(a), R::Exp); }
Tensor expm1(const Tensor& a) { return unary_r(a, ops::expm1(a), R::Expm1); }
Tensor sqrt(const Tensor& a) { return unary_r(a, ops::sqrt(a), R::Sqrt); }
Tensor rsqrt(const Tensor& a) { return unary_r(a, ops::rsqrt(a), R::Rsqrt); }
Tensor log(const Tensor& a) { return unary_x(a, ops::log(a), U::Log); }
Tensor log1p(const Tensor& a) { return unary_x(a, ops::log1p(a), U::Log1p); }
Tensor erf(const Tensor& a) { return unary_x(a, ops::erf(a), U::Erf); }

Tensor pow(const Tensor& a, const Tensor& b) {
  Tensor out = ops::pow(a, b);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<PowBackward>();
    n->set(a, b);
    n->a = SavedTensor(a);
    n->b = SavedTensor(b);
    n->y = SavedTensor::output(out);
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor pow_scalar(const Tensor& a, const Scalar& e) {
  Tensor out = ops::pow(a, e.to_tensor());
  if (any_requires_grad({&a})) {
    auto n = unary_node<PowScalarBackward>(a, out);
    n->x = SavedTensor(a);
    n->e = e;
  }
  return out;
}

Tensor scalar_pow(const Scalar& base, const Tensor& b) {
  Tensor out = ops::pow(base.to_tensor(), b);
  if (any_requires_grad({&b})) {
    auto n = unary_node<ScalarPowBackward>(b, out);
    n->set(b);
    n->base = base;
    n->b = SavedTensor(b);
    n->y = SavedTensor::output(out);
  }
  return out;
}

Tensor clamp(const Tensor& a, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  Tensor out = ops::clamp(a, lo ? lo->to_tensor() : Tensor(), hi ? hi->to_tensor() : Tensor());
  if (any_requires_grad({&a})) {
    auto n = unary_node<ClampScalarBackward>(a, out);
    n->x = SavedTensor(a);
    n->lo = lo;
    n->hi = hi;
  }
  return out;
}

Tensor clamp_tensor(const Tensor& a, const Tensor& lo, const Tensor& hi) {
  Tensor out = ops::clamp(a, lo, hi);
  if (any_requires_grad({&a, &lo, &hi})) {
    auto n = make_ref<ClampTensorBackward>();
    n->x = SavedTensor(a);
    n->lo = SavedTensor(lo);
    n->hi = SavedTensor(hi);
    const Tensor* ts[3] = {&a, &lo, &hi};
    for (int k = 0; k < 3; ++k)
      if (ts[k]->defined()) {
        n->shapes[k] = ts[k]->shape();
        n->dtypes[k] = ts[k]->dtype();
      }
    set_history(n.get(), {&a, &lo, &hi}, {&out});
  }
  return out;
}

namespace {
Tensor maxmin(const Tensor& a, const Tensor& b, bool is_max) {
  Tensor out = is_max ? ops::maximum(a, b) : ops::minimum(a, b);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<MaxMinBackward>();
    n->set(a, b);
    n->a = SavedTensor(a);
    n->b = SavedTensor(b);
    n->is_max = is_max;
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}
}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) { return maxmin(a, b, true); }
Tensor minimum(const Tensor& a, const Tensor& b) { return maxmin(a, b, false); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor out = ops::where(cond, a, b);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<WhereBackward>();
    n->cond = SavedTensor(cond);
    n->shapes[0] = a.shape();
    n->shapes[1] = b.shape();
    n->dtypes[0] = a.dtype();
    n->dtypes[1] = b.dtype();
    set_history(n.get(), {&cond, &a, &b}, {&out});
  }
  return out;
}

Tensor compare(const Tensor& a, const Tensor& b, ops::Cmp op) { return ops::compare(a, b, op); }
Tensor compare_scalar(const Tensor& a, const Scalar& s, ops::Cmp op) { return ops::compare(a, s.to_tensor(), op); }
Tensor logical(const Tensor& a, const Tensor& b, ops::Logic op) { return ops::logical(a, b, op); }
Tensor logical_not(const Tensor& a) { return ops::logical_not(a); }

// ---- in place (Note [In-place and autograd])
void sub_(const Tensor& self, const Tensor& other, double alpha) {
  check_inplace(self, "sub_");
  bool record = any_requires_grad({&self, &other});
  ops::sub_(self, other, alpha);
  bump_version(self);
  if (record) {
    auto n = make_ref<AddBackward>();
    n->set(self, other);
    n->alpha = alpha;
    n->sub = true;
    set_history(n.get(), {&self, &other}, {&self});
  }
}

void div_(const Tensor& self, const Tensor& other) {
  check_inplace(self, "div_");
  bool record = any_requires_grad({&self, &other});
  Ref<DivBackward> n;
  if (record) {
    n = make_ref<DivBackward>();
    n->set(self, other);
    n->a = SavedTensor(clone(self));
  }
  ops::div_(self, other);
  bump_version(self);
  if (record) {
    n->b = other.impl()->storage() == self.impl()->storage() ? SavedTensor(n->a.unpack("DivBackward0"))
                                                             : SavedTensor(other);
    set_history(n.get(), {&self, &other}, {&self});
  }
}

void add_scalar_(const Tensor& self, const Scalar& s, double alpha) { add_(self, s.to_tensor(), alpha); }
void mul_scalar_(const Tensor& self, const Scalar& s) { mul_(self, s.to_tensor()); }

namespace {
void addc_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value, bool is_div) {
  check_inplace(self, is_div ? "addcdiv_" : "addcmul_");
  bool record = any_requires_grad({&self, &t1, &t2});
  Ref<AddcBackward> n;
  if (record) {
    n = make_ref<AddcBackward>();
    // Saved before the write: t1/t2 may alias self.
    auto save = [&](const Tensor& t) {
      return SavedTensor(t.impl()->storage() == self.impl()->storage() ? clone(t) : t);
    };
    n->t1 = save(t1);
    n->t2 = save(t2);
    n->value = value;
    n->is_div = is_div;
    n->self_dtype = self.dtype();
    n->shapes[0] = t1.shape();
    n->shapes[1] = t2.shape();
    n->dtypes[0] = t1.dtype();
    n->dtypes[1] = t2.dtype();
  }
  if (is_div)
    ops::addcdiv_(self, t1, t2, value);
  else
    ops::addcmul_(self, t1, t2, value);
  bump_version(self);
  if (record) set_history(n.get(), {&self, &t1, &t2}, {&self});
}

}  // namespace

void overwrite_history(const Tensor& self, const char* node_name) {
  bump_version(self);
  if (any_requires_grad({&self})) {
    auto n = make_ref<OverwriteBackward>();
    n->set(self);
    n->nm = node_name;
    set_history(n.get(), {&self}, {&self});
  }
}

void addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  addc_(self, t1, t2, value, false);
}
void addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  addc_(self, t1, t2, value, true);
}

void zero_(const Tensor& self) {
  check_inplace(self, "zero_");
  ops::fill_(self, Scalar::from_int(0));
  overwrite_history(self, "ZeroBackward0");
}

void fill_(const Tensor& self, const Scalar& value) {
  check_inplace(self, "fill_");
  ops::fill_(self, value);
  overwrite_history(self, "FillBackward2");
}

void copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  check_inplace(self, "copy_");
  bool record = any_requires_grad({&self, &src});
  ops::copy_(self, src, non_blocking);
  bump_version(self);
  if (record) {
    auto n = make_ref<CopyBackward>();
    n->self_shape = self.shape();
    n->src_shape = src.shape();
    n->self_dtype = self.dtype();
    n->src_dtype = src.dtype();
    n->src_device = src.device();
    set_history(n.get(), {&self, &src}, {&self});
  }
}

void clamp_(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  check_inplace(self, "clamp_");
  bool record = any_requires_grad({&self});
  Tensor before = record ? clone(self) : Tensor();
  ops::clamp_(self, lo ? lo->to_tensor() : Tensor(), hi ? hi->to_tensor() : Tensor());
  bump_version(self);
  if (record) {
    auto n = make_ref<ClampScalarBackward>();
    n->x = SavedTensor(before);
    n->lo = lo;
    n->hi = hi;
    set_history(n.get(), {&self}, {&self});
  }
}

}  // namespace glia
