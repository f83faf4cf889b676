// Activations and their backward rules. Note [Fused activation backward]:
// without create_graph (grad mode off inside backward) the first-order rule
// runs one fused kernel (ops::*_backward); under create_graph it is written
// with differentiable ops so that double backward works.
#include "autograd/fn/activation.h"

#include "autograd/fn/elementwise.h"
#include "autograd/grad_mode.h"
#include "ops/elementwise.h"

namespace glia {

namespace {

using ops::Cmp;

Tensor mask_of(const Tensor& x, Cmp op, double v) { return ops::compare(x, ops::wrapped_scalar(v, false), op); }
Tensor keep(const Tensor& mask, const Tensor& g) { return where(mask, g, zero_like_scalar(g)); }
Tensor scale(const Tensor& g, double v) { return mul(g, ops::wrapped_scalar(v, false)); }

struct ReluBackward : Node {
  SavedTensor y;  // the node's own output (Note [Saving outputs])
  const char* name() const override { return "ReluBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = y.unpack(name(), this);
    if (!grad_mode_enabled()) return {ops::threshold_backward(g[0], r, 0)};
    return {keep(mask_of(r, Cmp::Gt, 0), g[0])};
  }
  void release_variables() override { y.release(); }
};

struct SigmoidBackward : Node {
  SavedTensor y;  // the node's own output (Note [Saving outputs])
  const char* name() const override { return "SigmoidBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = y.unpack(name(), this);
    if (!grad_mode_enabled()) return {ops::sigmoid_backward(g[0], r)};
    return {mul(g[0], mul(r, rsub_scalar(r, Scalar::from_int(1))))};
  }
  void release_variables() override { y.release(); }
};

struct TanhBackward : Node {
  SavedTensor y;  // the node's own output (Note [Saving outputs])
  const char* name() const override { return "TanhBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = y.unpack(name(), this);
    if (!grad_mode_enabled()) return {ops::tanh_backward(g[0], r)};
    return {mul(g[0], rsub_scalar(mul(r, r), Scalar::from_int(1)))};
  }
  void release_variables() override { y.release(); }
};

// Activations whose backward needs the input.
enum class A { LeakyRelu, Elu, Gelu, Silu, Softplus, Hardtanh, Hardswish };
struct ActBackward : Node {
  SavedTensor x;
  A kind;
  double p0 = 0, p1 = 0, p2 = 0;
  bool tanh_approx = false;
  const char* name() const override {
    switch (kind) {
      case A::LeakyRelu:
        return "LeakyReluBackward0";
      case A::Elu:
        return "EluBackward0";
      case A::Gelu:
        return "GeluBackward0";
      case A::Silu:
        return "SiluBackward0";
      case A::Softplus:
        return "SoftplusBackward0";
      case A::Hardtanh:
        return "HardtanhBackward0";
      case A::Hardswish:
        return "HardswishBackward0";
    }
    return "?";
  }
  TensorList apply(TensorList&& grads) override {
    const Tensor& g = grads[0];
    Tensor v = x.unpack(name());
    const bool fused = !grad_mode_enabled();
    switch (kind) {
      case A::LeakyRelu: {
        // x > 0 ? g : g * slope
        Tensor pos = mask_of(v, Cmp::Gt, 0);
        return {where(pos, g, scale(g, p0))};
      }
      case A::Elu: {
        // x <= 0 ? g * input_scale * alpha * scale * exp(x * input_scale) : g * scale
        Tensor neg_mask = mask_of(v, Cmp::Le, 0);
        Tensor xn = where(neg_mask, v, zero_like_scalar(v));  // no overflow in the unused branch
        Tensor dneg = mul(g, scale(exp(scale(xn, p2)), p2 * p0 * p1));
        return {where(neg_mask, dneg, scale(g, p1))};
      }
      case A::Gelu: {
        if (fused) return {ops::gelu_backward(g, v, tanh_approx)};
        if (tanh_approx) {
          const double beta = 0.79788456080286535588, kappa = 0.044715;
          Tensor x_sq = mul(v, v);
          Tensor inner = scale(add(v, scale(mul(x_sq, v), kappa)), beta);
          Tensor t = tanh(inner);
          Tensor left_d = scale(add_scalar(t, Scalar::from_int(1)), 0.5);
          Tensor right_d = mul(mul(scale(v, 0.5), rsub_scalar(mul(t, t), Scalar::from_int(1))),
                               scale(add_scalar(scale(x_sq, 3 * kappa), Scalar::from_int(1)), beta));
          return {mul(g, add(left_d, right_d))};
        }
        Tensor cdf = scale(add_scalar(erf(scale(v, 0.70710678118654752440)), Scalar::from_int(1)), 0.5);
        Tensor pdf = scale(exp(scale(mul(v, v), -0.5)), 0.39894228040143267794);
        return {mul(g, add(cdf, mul(v, pdf)))};
      }
      case A::Silu: {
        if (fused) return {ops::silu_backward(g, v)};
        Tensor s = sigmoid(v);
        return {mul(g, mul(s, add_scalar(mul(v, rsub_scalar(s, Scalar::from_int(1))), Scalar::from_int(1))))};
      }
      case A::Softplus: {
        // x * beta > threshold ? g : g * sigmoid(x * beta)
        Tensor lin = ops::compare(ops::mul(v, ops::wrapped_scalar(p0, false)), ops::wrapped_scalar(p1, false), Cmp::Gt);
        return {where(lin, g, mul(g, sigmoid(scale(v, p0))))};
      }
      case A::Hardswish: {
        // 0 below -3, g * (x / 3 + 0.5) up to 3, g above: one kernel, or (create_graph) in ops
        if (fused) return {ops::hardswish_backward(g, v)};
        Tensor mid = mul(g, add_scalar(scale(v, 1.0 / 3.0), Scalar::from_double(0.5)));
        Tensor upper = where(mask_of(v, Cmp::Le, 3), mid, g);
        return {where(mask_of(v, Cmp::Lt, -3), zero_like_scalar(v), upper)};
      }
      case A::Hardtanh: {
        // 0 at and beyond the bounds
        Tensor inside = ops::logical(mask_of(v, Cmp::Gt, p0), mask_of(v, Cmp::Lt, p1), ops::Logic::And);
        return {keep(inside, g)};
      }
    }
    return {Tensor()};
  }
  void release_variables() override { x.release(); }
};

Tensor act(const Tensor& a, Tensor out, A kind, double p0 = 0, double p1 = 0, double p2 = 0, bool t = false) {
  if (any_requires_grad({&a})) {
    auto n = make_ref<ActBackward>();
    n->x = SavedTensor(a);
    n->kind = kind;
    n->p0 = p0;
    n->p1 = p1;
    n->p2 = p2;
    n->tanh_approx = t;
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

template <class N>
Tensor with_output(const Tensor& a, Tensor out) {
  if (any_requires_grad({&a})) {
    auto n = make_ref<N>();
    n->y = SavedTensor::output(out);
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

}  // namespace

Tensor relu(const Tensor& a) { return with_output<ReluBackward>(a, ops::relu(a)); }
Tensor sigmoid(const Tensor& a) { return with_output<SigmoidBackward>(a, ops::sigmoid(a)); }
Tensor tanh(const Tensor& a) { return with_output<TanhBackward>(a, ops::tanh(a)); }

void relu_(const Tensor& self) {
  check_inplace(self, "relu_");
  bool record = any_requires_grad({&self});
  ops::relu_(self);
  bump_version(self);
  if (record) {
    auto n = make_ref<ReluBackward>();
    n->y = SavedTensor::output(self);
    set_history(n.get(), {&self}, {&self});
  }
}

Tensor leaky_relu(const Tensor& a, double slope) { return act(a, ops::leaky_relu(a, slope), A::LeakyRelu, slope); }
Tensor elu(const Tensor& a, double alpha, double scale, double input_scale) {
  return act(a, ops::elu(a, alpha, scale, input_scale), A::Elu, alpha, scale, input_scale);
}
Tensor hardswish(const Tensor& a) { return act(a, ops::hardswish(a), A::Hardswish); }
Tensor gelu(const Tensor& a, bool approximate_tanh) {
  return act(a, ops::gelu(a, approximate_tanh), A::Gelu, 0, 0, 0, approximate_tanh);
}
Tensor silu(const Tensor& a) { return act(a, ops::silu(a), A::Silu); }
Tensor softplus(const Tensor& a, double beta, double threshold) {
  return act(a, ops::softplus(a, beta, threshold), A::Softplus, beta, threshold);
}
Tensor hardtanh(const Tensor& a, double min_val, double max_val) {
  return act(a, ops::hardtanh(a, min_val, max_val), A::Hardtanh, min_val, max_val);
}

}  // namespace glia
