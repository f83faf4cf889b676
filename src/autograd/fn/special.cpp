#include "autograd/fn/special.h"

#include <limits>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/math.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "ops/elementwise.h"
#include "ops/math.h"
#include "ops/reduce.h"

// Note [One op, one rule] (autograd/fn/elementwise.cpp): torch 1.13's derivatives.yaml formulas.

namespace glia {

namespace {

using ops::SpecialBinary;

Tensor scalar_t(double v) { return ops::wrapped_scalar(v, false); }
Tensor plus_one(const Tensor& t) { return add_scalar(t, Scalar::from_int(1)); }
constexpr double kPi = 3.14159265358979323846;

const char* special_node_name(SpecialBinary op) {
  switch (op) {
    case SpecialBinary::Logaddexp:
      return "LogaddexpBackward0";
    case SpecialBinary::Logaddexp2:
      return "Logaddexp2Backward0";
    case SpecialBinary::Igamma:
      return "IgammaBackward0";
    case SpecialBinary::Igammac:
      return "IgammacBackward0";
    default:
      return "NotImplemented";
  }
}

struct SpecialBinaryBackward : Node {
  SavedTensor a, b;
  SpecialBinary op;
  Dims shapes[2];
  DType dtypes[2];
  const char* name() const override { return special_node_name(op); }
  TensorList apply(TensorList&& gs) override {
    const Tensor& g = gs[0];
    Tensor x = a.unpack(name()), y = b.unpack(name());
    Tensor ga, gb;
    const bool need_a = next_edges[0].valid(), need_b = next_edges[1].valid();
    switch (op) {
      case SpecialBinary::Logaddexp:  // g / (1 + exp(y - x)), g / (1 + exp(x - y))
        if (need_a) ga = div(g, plus_one(exp(sub(y, x))));
        if (need_b) gb = div(g, plus_one(exp(sub(x, y))));
        break;
      case SpecialBinary::Logaddexp2:
        if (need_a) ga = div(g, plus_one(glia::math(ops::MathOp::Exp2, sub(y, x))));
        if (need_b) gb = div(g, plus_one(glia::math(ops::MathOp::Exp2, sub(x, y))));
        break;
      case SpecialBinary::Igamma:
      case SpecialBinary::Igammac: {
        if (need_a)
          fail(Code::Unsupported, "the derivative for '", op == SpecialBinary::Igamma ? "igamma" : "igammac",
               ": input' is not implemented.");
        if (need_b) {  // d/dx P(a, x) = exp((a - 1) log x - x - lgamma(a)); Q's is its negative
          Tensor d =
              exp(sub(sub(mul(sub_scalar(x, Scalar::from_int(1)), log(y)), y), glia::math(ops::MathOp::Lgamma, x)));
          gb = mul(g, op == SpecialBinary::Igamma ? d : neg(d));
        }
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

enum class Unary { Polygamma, Mvlgamma, I0, I1, Sinc };

struct SpecialUnaryBackward : Node {
  SavedTensor x;
  Unary op;
  int64_t n = 0;  // polygamma's n, mvlgamma's p
  const char* name() const override {
    static const char* names[] = {"PolygammaBackward0", "MvlgammaBackward0", "I0Backward0", "SpecialI1Backward0",
                                  "SincBackward0"};
    return names[static_cast<int>(op)];
  }
  TensorList apply(TensorList&& gs) override {
    const Tensor& g = gs[0];
    Tensor v = x.unpack(name());
    switch (op) {
      case Unary::Polygamma:
        return {mul(g, glia::polygamma(n + 1, v))};
      case Unary::Mvlgamma: {  // sum_j digamma(x - j / 2)
        Tensor s;
        for (int64_t j = n - 1; j >= 0; --j) {
          Tensor d =
              glia::math(ops::MathOp::Digamma, add_scalar(v, Scalar::from_double(-0.5 * static_cast<double>(j))));
          s = s.defined() ? add(s, d) : d;
        }
        return {mul(g, s)};
      }
      case Unary::I0:
        return {mul(g, glia::special_i1(v))};
      case Unary::I1: {  // torch's i1_backward: i0(x) - i1(x) / x, 0.5 where |x| <= eps
        const double eps = v.dtype() == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                                       : static_cast<double>(std::numeric_limits<float>::epsilon());
        Tensor not_tiny = glia::compare(abs(v), scalar_t(eps), ops::Cmp::Gt);
        Tensor tiny = add_scalar(zeros({}, v.dtype(), v.device()), Scalar::from_double(eps));
        Tensor safe = where(not_tiny, v, tiny);
        Tensor d = sub(glia::i0(safe), div(glia::special_i1(safe), safe));
        Tensor half = add_scalar(zeros({}, g.dtype(), g.device()), Scalar::from_double(0.5));
        return {mul(g, where(not_tiny, d, half))};
      }
      case Unary::Sinc: {  // (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x == 0
        Tensor px = mul(v, scalar_t(kPi));
        Tensor d = div(sub(mul(px, glia::math(ops::MathOp::Cos, px)), glia::math(ops::MathOp::Sin, px)), mul(px, v));
        Tensor zero = zeros({}, d.dtype(), d.device());
        return {mul(g, where(glia::compare(v, scalar_t(0), ops::Cmp::Eq), zero, d))};
      }
    }
    return {Tensor()};
  }
  void release_variables() override { x.release(); }
};

Tensor record_unary(Unary op, const Tensor& a, Tensor out, int64_t n = 0) {
  if (any_requires_grad({&a})) {
    auto node = make_ref<SpecialUnaryBackward>();
    node->op = op;
    node->n = n;
    node->x = SavedTensor(a);
    set_history(node.get(), {&a}, {&out});
  }
  return out;
}

struct FrexpBackward : Node {
  SavedTensor exponent;
  const char* name() const override { return "FrexpBackward0"; }
  TensorList apply(TensorList&& gs) override {
    Tensor e = exponent.unpack(name());
    return {div(gs[0], glia::math(ops::MathOp::Exp2, e))};
  }
  void release_variables() override { exponent.release(); }
};

}  // namespace

Tensor special_binary(SpecialBinary op, const Tensor& a, const Tensor& b) {
  Tensor out = ops::special_binary(op, a, b);
  const bool differentiable = op != SpecialBinary::Heaviside && op != SpecialBinary::Nextafter;
  if (differentiable && any_requires_grad({&a, &b})) {
    auto n = make_ref<SpecialBinaryBackward>();
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

std::pair<Tensor, Tensor> frexp(const Tensor& a) {
  auto [m, e] = ops::frexp(a);
  if (any_requires_grad({&a})) {
    auto n = make_ref<FrexpBackward>();
    n->exponent = SavedTensor(e);
    set_history(n.get(), {&a}, {&m});
  }
  return {m, e};
}

Tensor polygamma(int64_t n, const Tensor& a) { return record_unary(Unary::Polygamma, a, ops::polygamma(n, a), n); }
Tensor mvlgamma(const Tensor& a, int64_t p) { return record_unary(Unary::Mvlgamma, a, ops::mvlgamma(a, p), p); }
Tensor i0(const Tensor& a) { return record_unary(Unary::I0, a, ops::i0(a)); }
Tensor special_i1(const Tensor& a) { return record_unary(Unary::I1, a, ops::i1(a)); }
Tensor sinc(const Tensor& a) { return record_unary(Unary::Sinc, a, ops::sinc(a)); }

Tensor ldexp(const Tensor& a, const Tensor& b) { return mul(a, scalar_pow(Scalar::from_double(2.0), b)); }

Tensor float_power(const Tensor& a, const Tensor& b) {
  return pow(to_dtype_with_grad(a, DType::Float64), to_dtype_with_grad(b, DType::Float64));
}

Tensor dist(const Tensor& a, const Tensor& b, double p) {
  const DType t = ops::result_type(a, b);
  GLIA_CHECK(is_floating(t), DType, "norm(): input dtype should be either floating point or complex. Got ",
             scalar_type_name(t), " instead.");
  return vector_norm(sub(a, b), p);
}

Tensor renorm(const Tensor& a, double p, int64_t dim, double maxnorm) {
  GLIA_CHECK(p > 0, InvalidArgument, "renorm: non-positive-norm not supported");
  GLIA_CHECK(maxnorm >= 0, InvalidArgument, "renorm: expected maxnorm to be >= 0 but got ", maxnorm);
  const int64_t nd = a.dim();
  GLIA_CHECK(nd > 1, Shape, "renorm: input needs at least 2 dimensions, got ", nd, " dimensions");
  const int64_t d = ops::wrap_dim(dim, nd);
  SmallVector<int64_t, 8> dims;
  for (int64_t i = 0; i < nd; ++i)
    if (i != d) dims.push_back(i);
  Tensor norm = vector_norm(a, p, IntSpan(dims.data(), dims.size()), true);
  // torch's factor: maxnorm / (norm + 1e-7) where norm > maxnorm, else 1.
  Tensor scaled = div(scalar_t(maxnorm), add_scalar(norm, Scalar::from_double(1e-7)));
  Tensor one = add_scalar(zeros({}, scaled.dtype(), scaled.device()), Scalar::from_int(1));
  Tensor factor = where(glia::compare(norm, scalar_t(maxnorm), ops::Cmp::Gt), scaled, one);
  return mul(a, factor);
}

}  // namespace glia
