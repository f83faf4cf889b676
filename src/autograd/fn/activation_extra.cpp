// The activations of issue 21 and their backward rules (Note [Fused activation
// backward] in activation.cpp: one fused kernel without create_graph,
// differentiable ops under it), and the in-place activations.
#include "autograd/fn/activation_extra.h"

#include "autograd/fn/activation.h"
#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "ops/activation_extra.h"
#include "ops/elementwise.h"
#include "ops/index.h"
#include "ops/reduce.h"

namespace glia {

namespace {

using ops::Cmp;

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

Tensor mask_of(const Tensor& x, Cmp op, double v) { return ops::compare(x, ops::wrapped_scalar(v, false), op); }
Tensor scale(const Tensor& g, double v) { return mul(g, ops::wrapped_scalar(v, false)); }
// -lo <= x <= hi as a bool mask.
Tensor inside(const Tensor& x, Cmp lo_op, double lo, Cmp hi_op, double hi) {
  return ops::logical(mask_of(x, lo_op, lo), mask_of(x, hi_op, hi), ops::Logic::And);
}

enum class K {
  Hardshrink,
  Softshrink,
  Threshold,  // ThresholdBackward0 (from the input) / 1 (from threshold_'s result: same formula)
  Hardsigmoid,
  Mish,
  LogSigmoid,
  Celu,         // from the input: p0 alpha
  EluResult,    // elu_, selu_, celu_ (EluBackward1 / CeluBackward1): p0 alpha, p1 scale, p2 input_scale
  LeakyResult,  // leaky_relu_ (LeakyReluBackward1): p0 slope
  Rrelu,        // RreluWithNoiseBackward0/1: noise (training) or the mean slope p0 (eval)
  Hardswish,    // hardswish_, silu_, hardtanh_ from a copy of self
  Silu,
  Hardtanh,
  Glu,  // p0 dim (wrapped)
};

struct ExtraBackward : Node {
  SavedTensor x;      // the input, or the result for the *Backward1 nodes
  SavedTensor noise;  // Rrelu in training
  K kind;
  double p0 = 0, p1 = 0, p2 = 0;
  bool result = false;        // x holds the node's own output (in-place forms)
  bool celu = false;          // EluResult: named CeluBackward1
  bool inplace_form = false;  // recorded by an in-place op (torch's *Backward1 names)
  const char* name() const override {
    switch (kind) {
      case K::Hardshrink:
        return "HardshrinkBackward0";
      case K::Softshrink:
        return "SoftshrinkBackward0";
      case K::Threshold:
        return inplace_form ? "ThresholdBackward1" : "ThresholdBackward0";
      case K::Hardsigmoid:
        return "HardsigmoidBackward0";
      case K::Mish:
        return "MishBackward0";
      case K::LogSigmoid:
        return "LogSigmoidBackward0";
      case K::Celu:
        return "CeluBackward0";
      case K::EluResult:
        return celu ? "CeluBackward1" : "EluBackward1";
      case K::LeakyResult:
        return "LeakyReluBackward1";
      case K::Rrelu:
        return inplace_form ? "RreluWithNoiseBackward1" : "RreluWithNoiseBackward0";
      case K::Hardswish:
        return "HardswishBackward0";
      case K::Silu:
        return "SiluBackward0";
      case K::Hardtanh:
        return "HardtanhBackward0";
      case K::Glu:
        return "GluBackward0";
    }
    return "?";
  }
  TensorList apply(TensorList&& grads) override {
    const Tensor& g = grads[0];
    Tensor v = result ? x.unpack(name(), this) : x.unpack(name());
    const bool fused = !grad_mode_enabled();
    switch (kind) {
      case K::Hardshrink:
      case K::Softshrink:
        if (fused) return {ops::shrink_backward(g, v, p0)};
        return {where(inside(v, Cmp::Ge, -p0, Cmp::Le, p0), zero_like_scalar(g), g)};
      case K::Threshold:
        if (fused) return {ops::threshold_backward(g, v, p0)};
        return {where(mask_of(v, Cmp::Le, p0), zero_like_scalar(g), g)};
      case K::Hardsigmoid:
        if (fused) return {ops::hardsigmoid_backward(g, v)};
        return {
            where(inside(v, Cmp::Gt, -3, Cmp::Lt, 3), scale(g, static_cast<double>(1.0f / 6.0f)), zero_like_scalar(g))};
      case K::Mish: {
        if (fused) return {ops::mish_backward(g, v)};
        Tensor s = sigmoid(v);
        Tensor t = glia::tanh(softplus(v));
        return {mul(g, add(t, mul(mul(v, s), rsub_scalar(mul(t, t), Scalar::from_int(1)))))};
      }
      case K::LogSigmoid:
        if (fused) return {ops::log_sigmoid_backward(g, v)};
        return {mul(g, sigmoid(neg(v)))};
      case K::Celu: {
        // x <= 0 ? g * exp(x / alpha) : g
        Tensor neg_mask = mask_of(v, Cmp::Le, 0);
        Tensor xn = where(neg_mask, v, zero_like_scalar(v));  // no overflow in the unused branch
        return {where(neg_mask, mul(g, exp(scale(xn, 1.0 / p0))), g)};
      }
      case K::EluResult: {
        // torch's elu_backward from the result: y <= 0 ? g * input_scale * (y + alpha * scale) : g * scale
        GLIA_CHECK(p0 >= 0, State,
                   "In-place elu backward calculation is triggered with a negative slope which is not supported. "
                   "This is caused by calling in-place forward function with a negative slope, please call "
                   "out-of-place version instead.");
        Tensor neg_mask = mask_of(v, Cmp::Le, 0);
        Tensor dneg = mul(g, scale(add_scalar(v, Scalar::from_double(p0 * p1)), p2));
        return {where(neg_mask, dneg, scale(g, p1))};
      }
      case K::LeakyResult:
        GLIA_CHECK(p0 >= 0, State,
                   "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                   "supported. This is caused by calling in-place forward function with a negative slope, please "
                   "call out-of-place version instead.");
        return {where(mask_of(v, Cmp::Gt, 0), g, scale(g, p0))};
      case K::Rrelu:
        if (noise.defined()) return {mul(g, noise.unpack(name()))};
        return {where(mask_of(v, Cmp::Gt, 0), g, scale(g, p0))};
      case K::Hardswish: {
        if (fused) return {ops::hardswish_backward(g, v)};
        Tensor mid = mul(g, add_scalar(scale(v, 1.0 / 3.0), Scalar::from_double(0.5)));
        Tensor upper = where(mask_of(v, Cmp::Le, 3), mid, g);
        return {where(mask_of(v, Cmp::Lt, -3), zero_like_scalar(v), upper)};
      }
      case K::Silu: {
        if (fused) return {ops::silu_backward(g, v)};
        Tensor s = sigmoid(v);
        return {mul(g, mul(s, add_scalar(mul(v, rsub_scalar(s, Scalar::from_int(1))), Scalar::from_int(1))))};
      }
      case K::Hardtanh:
        return {where(inside(v, Cmp::Gt, p0, Cmp::Lt, p1), g, zero_like_scalar(g))};
      case K::Glu: {
        // out = a * sigmoid(b): d/da = sigmoid(b), d/db = a * sigmoid(b) * (1 - sigmoid(b))
        const int64_t dim = static_cast<int64_t>(p0), h = v.size(dim) / 2;
        Tensor a = narrow(v, dim, 0, h), sb = sigmoid(narrow(v, dim, h, h));
        Tensor ga = mul(g, sb);
        Tensor gb = mul(mul(ga, a), rsub_scalar(sb, Scalar::from_int(1)));
        return {cat({ga, gb}, dim)};
      }
    }
    return {Tensor()};
  }
  void release_variables() override {
    x.release();
    noise.release();
  }
};

Ref<ExtraBackward> node(K kind, double p0 = 0, double p1 = 0, double p2 = 0) {
  auto n = make_ref<ExtraBackward>();
  n->kind = kind;
  n->p0 = p0;
  n->p1 = p1;
  n->p2 = p2;
  return n;
}

// Records node n (when a requires grad) with a saved as its input.
Tensor record(const Tensor& a, Tensor out, Ref<ExtraBackward> n) {
  if (any_requires_grad({&a})) {
    n->x = SavedTensor(a);
    set_history(n.get(), {&a}, {&out});
  }
  return out;
}

// An in-place activation (Note [In-place and autograd] in autograd/fn/elementwise.cpp): write()
// overwrites self; the node saves a copy of self taken before (save_result false) or self's new
// value as the node's output (save_result true, torch's *Backward1).
template <class Write>
void inplace(const Tensor& self, const char* name, bool save_result, Ref<ExtraBackward> n, Write write) {
  check_inplace(self, name);
  const bool rec = any_requires_grad({&self});
  Tensor before = rec && !save_result ? clone(self) : Tensor();
  write();
  bump_version(self);
  if (rec) {
    n->result = save_result;
    n->inplace_form = true;
    n->x = save_result ? SavedTensor::output(self) : SavedTensor(before);
    set_history(n.get(), {&self}, {&self});
  }
}

void check_rrelu(double lower, double upper) {
  GLIA_CHECK(lower <= upper, InvalidArgument, "Lower bound should be less than or equal to the upper bound");
}

// rrelu's noise in training: U(lower, upper) where a <= 0, 1 elsewhere (torch's rrelu_with_noise).
Tensor rrelu_noise(const Tensor& a, double lower, double upper) {
  if (!is_floating(a.dtype())) ops::not_implemented_for("rrelu_with_noise_out_cpu", a.dtype());
  Tensor r = ops::rrelu_uniform(a, lower, upper);
  return ops::where(mask_of(a, Cmp::Le, 0), r, ops::wrapped_scalar(1.0, false));
}

struct PreluBackward : Node {
  SavedTensor x, w;
  const char* name() const override { return "PreluBackward0"; }
  TensorList apply(TensorList&& grads) override {
    const Tensor& g = grads[0];
    Tensor xv = x.unpack(name()), wv = w.unpack(name());
    Tensor pos = mask_of(xv, Cmp::Gt, 0);
    TensorList r(2);
    // The weight as it broadcasts against x (a differentiable view, for create_graph).
    Dims shape;
    if (wv.numel() > 1 && xv.dim() >= 2) {
      shape.assign(static_cast<size_t>(xv.dim()), 1);
      shape[1] = wv.numel();
    }
    if (next_edges[0].valid()) r[0] = where(pos, g, mul(g, reshape(wv, shape)));
    if (next_edges[1].valid()) {
      Tensor t = where(pos, zero_like_scalar(g), mul(xv, g));
      Tensor s;
      if (wv.numel() > 1 && xv.dim() >= 2) {
        Dims dims;
        for (int64_t d = 0; d < xv.dim(); ++d)
          if (d != 1) dims.push_back(d);
        s = sum(t, dims);
      } else {
        s = sum(t);
      }
      r[1] = reshape(s, wv.shape());
    }
    return r;
  }
  void release_variables() override {
    x.release();
    w.release();
  }
};

}  // namespace

Tensor hardshrink(const Tensor& a, double lambd) {
  return record(a, ops::hardshrink(a, lambd), node(K::Hardshrink, lambd));
}
Tensor softshrink(const Tensor& a, double lambd) {
  return record(a, ops::softshrink(a, lambd), node(K::Softshrink, lambd));
}
Tensor tanhshrink(const Tensor& a) { return sub(a, glia::tanh(a)); }
Tensor threshold(const Tensor& a, double threshold, double value) {
  return record(a, ops::threshold(a, threshold, value), node(K::Threshold, threshold));
}
Tensor hardsigmoid(const Tensor& a) { return record(a, ops::hardsigmoid(a), node(K::Hardsigmoid)); }
Tensor mish(const Tensor& a) { return record(a, ops::mish(a), node(K::Mish)); }
Tensor log_sigmoid(const Tensor& a) { return record(a, ops::log_sigmoid(a), node(K::LogSigmoid)); }

Tensor celu(const Tensor& a, double alpha) {
  GLIA_CHECK(alpha != 0, InvalidArgument, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return record(a, ops::elu(a, alpha, 1.0, 1.0 / alpha), node(K::Celu, alpha));
}
Tensor selu(const Tensor& a) { return elu(a, kSeluAlpha, kSeluScale, 1.0); }
Tensor relu6(const Tensor& a) { return hardtanh(a, 0.0, 6.0); }

Tensor glu(const Tensor& a, int64_t dim) {
  GLIA_CHECK(a.dim() > 0, InvalidArgument, "glu does not support scalars because halving size must be even");
  const int64_t d = ops::wrap_dim(dim, a.dim());
  const int64_t n = a.size(d);
  GLIA_CHECK(n % 2 == 0, InvalidArgument, "Halving dimension must be even, but dimension ", d, " is size ", n);
  if (!is_floating(a.dtype())) ops::not_implemented_for("glu_cpu", a.dtype());
  Tensor out = ops::mul(ops::narrow(a, d, 0, n / 2), ops::sigmoid(ops::narrow(a, d, n / 2, n / 2)));
  return record(a, out, node(K::Glu, static_cast<double>(d)));
}

Tensor prelu(const Tensor& a, const Tensor& weight) {
  Tensor out = ops::prelu(a, weight);
  if (any_requires_grad({&a, &weight})) {
    auto n = make_ref<PreluBackward>();
    n->x = SavedTensor(a);
    n->w = SavedTensor(weight);
    set_history(n.get(), {&a, &weight}, {&out});
  }
  return out;
}

Tensor rrelu(const Tensor& a, double lower, double upper, bool training) {
  check_rrelu(lower, upper);
  if (!training) return record(a, ops::leaky_relu(a, (lower + upper) / 2), node(K::Rrelu, (lower + upper) / 2));
  Tensor noise = rrelu_noise(a, lower, upper);
  Tensor out = ops::mul(a, noise);
  auto n = node(K::Rrelu, (lower + upper) / 2);
  if (any_requires_grad({&a})) n->noise = SavedTensor(noise);
  return record(a, out, n);
}

Tensor softmin(const Tensor& a, int64_t dim) { return softmax(neg(a), dim); }

// ---- in place

void leaky_relu_(const Tensor& self, double negative_slope) {
  inplace(self, "leaky_relu_", true, node(K::LeakyResult, negative_slope),
          [&] { ops::activation_inplace(KernelId::leaky_relu, "leaky_relu_cpu", self, {attr_f(negative_slope)}); });
}
void elu_(const Tensor& self, double alpha, double scale, double input_scale) {
  inplace(self, "elu_", true, node(K::EluResult, alpha, scale, input_scale), [&] {
    ops::activation_inplace(KernelId::elu, "elu_cpu", self, {attr_f(alpha), attr_f(scale), attr_f(input_scale)});
  });
}
void celu_(const Tensor& self, double alpha) {
  GLIA_CHECK(alpha != 0, InvalidArgument, "ZeroDivisionError: alpha cannot be 0 for CELU");
  auto n = node(K::EluResult, alpha, 1.0, 1.0 / alpha);
  n->celu = true;
  inplace(self, "celu_", true, n, [&] {
    ops::activation_inplace(KernelId::elu, "elu_cpu", self, {attr_f(alpha), attr_f(1.0), attr_f(1.0 / alpha)});
  });
}
void selu_(const Tensor& self) {
  inplace(self, "selu_", true, node(K::EluResult, kSeluAlpha, kSeluScale, 1.0), [&] {
    ops::activation_inplace(KernelId::elu, "elu_cpu", self, {attr_f(kSeluAlpha), attr_f(kSeluScale), attr_f(1.0)});
  });
}
void hardtanh_(const Tensor& self, double min_val, double max_val) {
  inplace(self, "hardtanh_", false, node(K::Hardtanh, min_val, max_val), [&] {
    ops::activation_inplace(KernelId::hardtanh, "clamp_cpu", self, {attr_f(min_val), attr_f(max_val)}, true);
  });
}
void threshold_(const Tensor& self, double threshold, double value) {
  // ThresholdBackward1: torch's threshold_ formula reads self as it was (a copy), not the result.
  inplace(self, "threshold_", false, node(K::Threshold, threshold), [&] { ops::threshold_(self, threshold, value); });
}
void rrelu_(const Tensor& self, double lower, double upper, bool training) {
  check_rrelu(lower, upper);
  const double slope = (lower + upper) / 2;
  auto n = node(K::Rrelu, slope);
  if (!training) {
    inplace(self, "rrelu_", true, n,
            [&] { ops::activation_inplace(KernelId::leaky_relu, "leaky_relu_cpu", self, {attr_f(slope)}); });
    return;
  }
  check_inplace(self, "rrelu_");
  Tensor noise = rrelu_noise(self, lower, upper);
  if (any_requires_grad({&self})) n->noise = SavedTensor(noise);
  inplace(self, "rrelu_", true, n, [&] { ops::mul_(self, noise); });
}
void hardsigmoid_(const Tensor& self) {
  inplace(self, "hardsigmoid_", false, node(K::Hardsigmoid),
          [&] { ops::activation_inplace(KernelId::hardsigmoid, "hardsigmoid_cpu", self); });
}
void hardswish_(const Tensor& self) {
  inplace(self, "hardswish_", false, node(K::Hardswish),
          [&] { ops::activation_inplace(KernelId::hardswish, "hardswish_cpu", self); });
}
void mish_(const Tensor& self) {
  inplace(self, "mish_", false, node(K::Mish), [&] { ops::activation_inplace(KernelId::mish, "mish_cpu", self); });
}
void silu_(const Tensor& self) {
  inplace(self, "silu_", false, node(K::Silu), [&] { ops::activation_inplace(KernelId::silu, "silu_cpu", self); });
}

}  // namespace glia
