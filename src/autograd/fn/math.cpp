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

}  // namespace glia
