#include "autograd/fn/math.h"

#include <limits>

#include "autograd/fn/elementwise.h"
#include "ops/elementwise.h"

// Note [One op, one rule] (autograd/fn/elementwise.cpp): the unary math ops
// and their rules, torch 1.13's derivatives.yaml formulas.

namespace glia {

namespace {

using ops::MathOp;

const char* node_name(MathOp op) {
  static const char* names[] = {
      "SinBackward0",     "CosBackward0",   "TanBackward0",   "AsinBackward0",  "AcosBackward0",   "AtanBackward0",
      "SinhBackward0",    "CoshBackward0",  "AsinhBackward0", "AcoshBackward0", "AtanhBackward0",  "Exp2Backward0",
      "Log2Backward0",    "Log10Backward0", "ErfBackward0",   "ErfcBackward0",  "ErfinvBackward0", "LgammaBackward0",
      "DigammaBackward0", "TruncBackward0", "FracBackward0",  "FloorBackward0", "CeilBackward0",   "RoundBackward0",
  };
  return names[static_cast<int>(op)];
}

Tensor scalar_t(double v) { return ops::wrapped_scalar(v, false); }
Tensor times(const Tensor& g, double v) { return mul(g, scalar_t(v)); }
Tensor one_minus(const Tensor& t) { return rsub_scalar(t, Scalar::from_int(1)); }
Tensor plus_one(const Tensor& t) { return add_scalar(t, Scalar::from_int(1)); }

constexpr double kLn2 = 0.6931471805599453;
constexpr double kLn10 = 2.3025850929940456;

// The rules of the ops whose derivative is a function of the input x.
struct MathBackward : Node {
  SavedTensor x;
  MathOp op;
  const char* name() const override { return node_name(op); }
  TensorList apply(TensorList&& gs) override {
    const Tensor& g = gs[0];
    switch (op) {
      case MathOp::Trunc:
      case MathOp::Floor:
      case MathOp::Ceil:
      case MathOp::Round:
        return {zeros(g.shape(), g.dtype(), g.device())};
      case MathOp::Frac:
        return {g};
      default:
        break;
    }
    Tensor v = x.unpack(name());
    switch (op) {
      case MathOp::Sin:
        return {mul(g, glia::math(MathOp::Cos, v))};
      case MathOp::Cos:
        return {mul(g, neg(glia::math(MathOp::Sin, v)))};
      case MathOp::Tan: {
        Tensor t = glia::math(MathOp::Tan, v);
        return {mul(g, plus_one(mul(t, t)))};
      }
      case MathOp::Asin:
        return {mul(g, rsqrt(one_minus(mul(v, v))))};
      case MathOp::Acos:
        return {mul(g, neg(rsqrt(one_minus(mul(v, v)))))};
      case MathOp::Atan:
        return {div(g, plus_one(mul(v, v)))};
      case MathOp::Sinh:
        return {mul(g, glia::math(MathOp::Cosh, v))};
      case MathOp::Cosh:
        return {mul(g, glia::math(MathOp::Sinh, v))};
      case MathOp::Asinh:
        return {mul(g, rsqrt(plus_one(mul(v, v))))};
      case MathOp::Acosh:
        return {mul(g, rsqrt(sub_scalar(mul(v, v), Scalar::from_int(1))))};
      case MathOp::Atanh:
        return {div(g, one_minus(mul(v, v)))};
      case MathOp::Exp2:
        return {mul(g, times(glia::math(MathOp::Exp2, v), kLn2))};
      case MathOp::Log2:
        return {div(g, times(v, kLn2))};
      case MathOp::Log10:
        return {div(g, times(v, kLn10))};
      case MathOp::Erf:  // 2 / sqrt(pi) * exp(-x^2)
        return {mul(g, times(exp(neg(mul(v, v))), 1.12837916709551257390))};
      case MathOp::Erfc:
        return {mul(g, times(exp(neg(mul(v, v))), -1.12837916709551257390))};
      case MathOp::Erfinv: {  // sqrt(pi) / 2 * exp(erfinv(x)^2)
        Tensor y = glia::math(MathOp::Erfinv, v);
        return {mul(g, times(exp(mul(y, y)), 0.88622692545275801365))};
      }
      case MathOp::Lgamma:
        return {mul(g, glia::math(MathOp::Digamma, v))};
      case MathOp::Digamma:
        return {mul(g, trigamma(v))};
      default:
        break;
    }
    return {Tensor()};
  }
  void release_variables() override { x.release(); }
};

struct RoundDecimalsBackward : Node {
  const char* name() const override { return "RoundBackward1"; }
  TensorList apply(TensorList&& g) override { return {zeros(g[0].shape(), g[0].dtype(), g[0].device())}; }
};

// torch's infinitely_differentiable_logit_backward: g / (x (1 - x)) inside [eps, 1 - eps]
// (inside [0, 1] without eps), 0 outside (NaN without eps).
struct LogitBackward : Node {
  SavedTensor x;
  double eps;
  const char* name() const override { return "LogitBackward0"; }
  TensorList apply(TensorList&& gs) override {
    const Tensor& g = gs[0];
    Tensor v = x.unpack(name());
    const double lo = eps < 0 ? 0.0 : eps, hi = eps < 0 ? 1.0 : 1.0 - eps;
    Tensor inside = glia::logical(glia::compare(v, scalar_t(lo), ops::Cmp::Ge),
                                  glia::compare(v, scalar_t(hi), ops::Cmp::Le), ops::Logic::And);
    Tensor d = div(g, mul(v, one_minus(v)));
    Tensor outside = zeros({}, d.dtype(), d.device());
    if (eps < 0) outside = add_scalar(outside, Scalar::from_double(std::numeric_limits<double>::quiet_NaN()));
    return {where(inside, d, outside)};
  }
  void release_variables() override { x.release(); }
};

// trigamma = polygamma(1, x): its derivative, polygamma(2, x), is not implemented.
struct PolygammaBackward : Node {
  const char* name() const override { return "PolygammaBackward0"; }
  TensorList apply(TensorList&&) override {
    fail(Code::Unsupported, "the derivative of polygamma(1, x) (the second derivative of digamma) is not implemented");
  }
};

bool saves_input(MathOp op) {
  return !(op == MathOp::Trunc || op == MathOp::Floor || op == MathOp::Ceil || op == MathOp::Round ||
           op == MathOp::Frac);
}

}  // namespace

Tensor math(MathOp op, const Tensor& a) {
  Tensor out = ops::math(op, a);
  if (any_requires_grad({&a})) {
    auto n = make_ref<MathBackward>();
    n->op = op;
    if (saves_input(op)) n->x = SavedTensor(a);
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

Tensor round_decimals(const Tensor& a, int64_t decimals) {
  if (decimals == 0) return glia::math(MathOp::Round, a);
  Tensor out = ops::round_decimals(a, decimals);
  if (any_requires_grad({&a})) {
    auto n = make_ref<RoundDecimalsBackward>();
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

Tensor logit(const Tensor& a, double eps) {
  Tensor out = ops::logit(a, eps);
  if (any_requires_grad({&a})) {
    auto n = make_ref<LogitBackward>();
    n->x = SavedTensor(a);
    n->eps = eps;
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

Tensor trigamma(const Tensor& a) {
  Tensor out = ops::trigamma(a);
  if (any_requires_grad({&a})) {
    auto n = make_ref<PolygammaBackward>();
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

// ---- in place (Note [In-place and autograd] in autograd/fn/elementwise.cpp): the result is
// computed out of place, checked against self's dtype, then written; the node saves the old
// values of self (a clone taken before the write) where its rule needs them.
namespace {
// make_node() builds the node (only when recording); its x, when it has one and save_input, gets
// the values of self before the write.
template <class Compute, class MakeNode>
void inplace(const Tensor& self, const char* name, bool save_input, Compute compute, MakeNode make_node) {
  check_inplace(self, name);
  const bool record = any_requires_grad({&self});
  Tensor r = compute();
  Tensor before = record && save_input ? clone(self) : Tensor();
  ops::assign_inplace(name, self, r);
  bump_version(self);
  if (record) {
    auto n = make_node();
    if constexpr (requires { n->x; }) {
      if (before.defined()) n->x = SavedTensor(before);
    }
    set_history(n.get(), {&self}, {&self});
  }
}
}  // namespace

void math_(MathOp op, const Tensor& self) {
  inplace(
      self, ops::math_inplace_name(op), saves_input(op), [&] { return ops::math(op, self); },
      [op] {
        auto n = make_ref<MathBackward>();
        n->op = op;
        return n;
      });
}

void round_decimals_(const Tensor& self, int64_t decimals) {
  if (decimals == 0) return math_(MathOp::Round, self);
  inplace(
      self, "round_", false, [&] { return ops::round_decimals(self, decimals); },
      [] { return make_ref<RoundDecimalsBackward>(); });
}

void logit_(const Tensor& self, double eps) {
  inplace(
      self, "logit_", true, [&] { return ops::logit(self, eps); },
      [eps] {
        auto n = make_ref<LogitBackward>();
        n->eps = eps;
        return n;
      });
}

// ---- binary math

namespace {

using ops::BinaryMathOp;

const char* binary_node_name(BinaryMathOp op) {
  switch (op) {
    case BinaryMathOp::Atan2:
      return "Atan2Backward0";
    case BinaryMathOp::Hypot:
      return "HypotBackward0";
    case BinaryMathOp::Copysign:
      return "CopysignBackward0";
    case BinaryMathOp::Xlogy:
      return "XlogyBackward0";
    case BinaryMathOp::Fmod:
      return "FmodBackward1";
    case BinaryMathOp::Remainder:
      return "RemainderBackward1";
    case BinaryMathOp::Fmax:
      return "FmaxBackward0";
    case BinaryMathOp::Fmin:
      return "FminBackward0";
    default:
      return "NotImplemented";
  }
}

Tensor zero_where(const Tensor& mask, const Tensor& g) { return where(mask, zeros({}, g.dtype(), g.device()), g); }

struct BinaryMathBackward : Node {
  SavedTensor a, b;
  BinaryMathOp op;
  Dims shapes[2];
  DType dtypes[2];
  const char* name() const override { return binary_node_name(op); }
  TensorList apply(TensorList&& gs) override {
    const Tensor& g = gs[0];
    Tensor x = a.unpack(name()), y = b.unpack(name());
    Tensor ga, gb;
    const bool need_a = next_edges[0].valid(), need_b = next_edges[1].valid();
    using ops::Cmp;
    switch (op) {
      case BinaryMathOp::Atan2: {  // d/dx = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2)
        Tensor r = add(mul(x, x), mul(y, y));
        if (need_a) ga = mul(g, div(y, r));
        if (need_b) gb = mul(g, div(neg(x), r));
        break;
      }
      case BinaryMathOp::Hypot: {
        Tensor r = glia::binary_math(BinaryMathOp::Hypot, x, y);
        if (need_a) ga = mul(g, div(x, r));
        if (need_b) gb = mul(g, div(y, r));
        break;
      }
      case BinaryMathOp::Copysign: {  // result / x, 0 where x == 0
        Tensor r = glia::binary_math(BinaryMathOp::Copysign, x, y);
        if (need_a) ga = mul(g, zero_where(glia::compare(x, scalar_t(0), Cmp::Eq), div(r, x)));
        if (need_b) gb = zeros(y.shape(), g.dtype(), g.device());
        break;
      }
      case BinaryMathOp::Xlogy: {
        if (need_a) {
          Tensor m = glia::logical(glia::compare(x, scalar_t(0), Cmp::Eq), glia::compare(y, scalar_t(0), Cmp::Le),
                                   ops::Logic::And);
          ga = zero_where(m, glia::binary_math(BinaryMathOp::Xlogy, g, y));
        }
        if (need_b) gb = div(mul(g, x), y);
        break;
      }
      case BinaryMathOp::Fmod:
      case BinaryMathOp::Remainder:
        if (need_a) ga = g;
        if (need_b) gb = mul(neg(g), div(x, y, op == BinaryMathOp::Fmod ? "trunc" : "floor"));
        break;
      case BinaryMathOp::Fmax:
      case BinaryMathOp::Fmin: {
        // torch: self's gradient where self >= other (<= for fmin) or other is NaN; other's elsewhere.
        Tensor self_wins = glia::logical(glia::compare(x, y, op == BinaryMathOp::Fmax ? Cmp::Ge : Cmp::Le),
                                         glia::float_class(ops::FloatClass::IsNan, y), ops::Logic::Or);
        if (need_a) ga = zero_where(glia::logical_not(self_wins), g);
        if (need_b) gb = zero_where(self_wins, g);
        break;
      }
      default:
        break;
    }
    TensorList r(2);
    if (need_a) r[0] = as_input(sum_to(ga, shapes[0]), dtypes[0]);
    if (need_b) r[1] = as_input(sum_to(gb, shapes[1]), dtypes[1]);
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct NanToNumBackward : Node {
  SavedTensor x;
  const char* name() const override { return "NanToNumBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor v = x.unpack(name());
    return {where(glia::float_class(ops::FloatClass::IsFinite, v), g[0], zeros({}, g[0].dtype(), g[0].device()))};
  }
  void release_variables() override { x.release(); }
};

}  // namespace

Tensor binary_math(BinaryMathOp op, const Tensor& a, const Tensor& b) {
  Tensor out = ops::binary_math(op, a, b);
  if (op < BinaryMathOp::BitwiseAnd && any_requires_grad({&a, &b})) {
    auto n = make_ref<BinaryMathBackward>();
    n->op = op;
    n->a = SavedTensor(a);
    n->b = SavedTensor(b);
    n->shapes[0] = a.shape();
    n->shapes[1] = b.shape();
    n->dtypes[0] = a.dtype();
    n->dtypes[1] = b.dtype();
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor bitwise_not(const Tensor& a) { return ops::bitwise_not(a); }
Tensor float_class(ops::FloatClass c, const Tensor& a) { return ops::float_class(c, a); }
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return ops::isclose(a, b, rtol, atol, equal_nan);
}

Tensor nan_to_num(const Tensor& a, double nan, const double* posinf, const double* neginf) {
  Tensor out = ops::nan_to_num(a, nan, posinf, neginf);
  if (any_requires_grad({&a})) {
    auto n = make_ref<NanToNumBackward>();
    n->x = SavedTensor(a);
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

// ---- lerp

namespace {
struct LerpBackward : Node {
  SavedTensor start, end, weight;  // weight undefined: the number w
  double w = 0;
  Dims shapes[3];
  DType dtype;
  const char* name() const override { return weight.defined() ? "LerpBackward1" : "LerpBackward0"; }
  TensorList apply(TensorList&& gs) override {
    const Tensor& g = gs[0];
    TensorList r(3);
    if (!weight.defined()) {
      if (next_edges[0].valid()) r[0] = sum_to(times(g, 1.0 - w), shapes[0]);
      if (next_edges[1].valid()) r[1] = sum_to(times(g, w), shapes[1]);
      return r;
    }
    Tensor wv = weight.unpack(name());
    if (next_edges[0].valid()) r[0] = sum_to(mul(g, one_minus(wv)), shapes[0]);
    if (next_edges[1].valid()) r[1] = sum_to(mul(g, wv), shapes[1]);
    if (next_edges[2].valid()) r[2] = sum_to(mul(g, sub(end.unpack(name()), start.unpack(name()))), shapes[2]);
    return r;
  }
  void release_variables() override {
    start.release();
    end.release();
    weight.release();
  }
};
}  // namespace

Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  Tensor out = ops::lerp(start, end, weight);
  if (any_requires_grad({&start, &end, &weight})) {
    auto n = make_ref<LerpBackward>();
    n->weight = SavedTensor(weight);
    if (weight.requires_grad()) {
      n->start = SavedTensor(start);
      n->end = SavedTensor(end);
    }
    n->shapes[0] = start.shape();
    n->shapes[1] = end.shape();
    n->shapes[2] = weight.shape();
    set_history(n.get(), {&start, &end, &weight}, {&out});
  }
  return out;
}

Tensor lerp_scalar(const Tensor& start, const Tensor& end, double weight) {
  Tensor out = ops::lerp_scalar(start, end, weight);
  if (any_requires_grad({&start, &end})) {
    auto n = make_ref<LerpBackward>();
    n->w = weight;
    n->shapes[0] = start.shape();
    n->shapes[1] = end.shape();
    set_history(n.get(), {&start, &end}, {&out});
  }
  return out;
}

}  // namespace glia
