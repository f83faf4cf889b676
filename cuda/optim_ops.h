// The optimizers' per-element updates (kernels.def's sgd_step, adam_step, rmsprop_step, adadelta_step,
// adagrad_step, adamax_step, asgd_step, nadam_step, radam_step, rprop_step), compiled by both the host compiler
// and nvcc (host_device.h): the CPU kernels (src/ops/cpu/optim.cpp, optim_extra.cpp) call them in their loops
// and the CUDA kernels (cuda/optim.cu) in theirs, so both devices run one formula. For each algorithm:
//   - <alg>_args(attrs): the kernel's attributes in kernels.def's order (the core's Attr is glia_kernel_attr,
//     so one template reads both), with the values torch computes in Python floats (bias corrections, step
//     sizes, RAdam's rectification) in double, and outputs(): how many outputs the options call for;
//   - <alg>_consts<T>(args): those values rounded once to the parameter's dtype T (float or double);
//   - <alg>_update(consts, flags..., g, p, states...): one element: torch 1.13's single-tensor update, each
//     operation in torch's order and in T. The parameter and the states are references, read and written.
// Flags are values that convert to bool: std::bool_constant on the CPU (Note [Flag-free update loops] in
// src/ops/cpu/optim_loops.h: every test folds away and the loops stay branch-free), plain bools in the CUDA
// kernels (the same for every thread of a launch). A state the options leave out is a reference the update
// never touches.
//
// Note [Optimizer updates without contraction]: nvcc contracts a * b + c into a fused multiply-add by default
// (-fmad=true), rounding once where the CPU (x86-64, built without -mfma) rounds twice. The updates do their
// products, sums and differences with mul/add/sub below: __fmul_rn, __fadd_rn... in device code (never
// contracted), the plain operators on the host. Division and square root are IEEE on both (nvcc's default
// -prec-div=true -prec-sqrt=true; no fast math). So a CUDA step gives the CPU's bits.
// tests/cuda/optim_ops_test.cpp checks the functions on the CPU; the optimizer goldens (tests/optim/) check
// them through the CPU kernels.
#ifndef GLIA_CUDA_OPTIM_OPS_H
#define GLIA_CUDA_OPTIM_OPS_H

#include <cmath>
#include <cstdint>
#include <limits>

#include "host_device.h"

namespace glia::cuda::optim_ops {

// ---- arithmetic without contraction (Note [Optimizer updates without contraction])

GLIA_HOST_DEVICE float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
GLIA_HOST_DEVICE double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
GLIA_HOST_DEVICE float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
GLIA_HOST_DEVICE double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
GLIA_HOST_DEVICE float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
GLIA_HOST_DEVICE double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// torch.maximum / amax of two values: NaN when either is NaN.
template <class T>
GLIA_HOST_DEVICE T nan_max(T a, T b) {
  if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
  return a < b ? b : a;
}

// torch's sign(): -1, 0 or 1; NaN stays NaN.
template <class T>
GLIA_HOST_DEVICE T sign_of(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
}

// ---- SGD. attrs: lr, momentum, dampening, weight_decay (.f); nesterov, maximize, first (.i). Outputs: param,
// then momentum_buffer iff momentum != 0 (first: written, not read).

struct SgdArgs {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first;
  int32_t outputs() const { return momentum != 0 ? 2 : 1; }
};
template <class A>
inline SgdArgs sgd_args(const A* a) {
  return {a[0].f, a[1].f, a[2].f, a[3].f, a[4].i != 0, a[5].i != 0, a[6].i != 0};
}
template <class T>
struct SgdConsts {
  T weight_decay, momentum, one_minus_dampening, neg_lr;
};
template <class T>
inline SgdConsts<T> sgd_consts(const SgdArgs& a) {
  return {T(a.weight_decay), T(a.momentum), T(1 - a.dampening), T(-a.lr)};
}
template <class T, class Max, class Wd, class Mom, class Nest, class First>
GLIA_HOST_DEVICE void sgd_update(const SgdConsts<T>& c, Max maximize, Wd weight_decay, Mom momentum, Nest nesterov,
                                 First first, T g, T& p, T& buf) {
  T d = g;
  if (maximize) d = -d;
  if (weight_decay) d = add(d, mul(c.weight_decay, p));
  if (momentum) {
    const T nb = first ? d : add(mul(buf, c.momentum), mul(c.one_minus_dampening, d));
    buf = nb;
    d = nesterov ? add(d, mul(c.momentum, nb)) : nb;
  }
  p = add(p, mul(c.neg_lr, d));
}

// ---- Adam and AdamW (decoupled). attrs: lr, beta1, beta2, eps, weight_decay, step (.f; the count after this
// step); amsgrad, maximize, decoupled (.i). Outputs: param, exp_avg, exp_avg_sq, then max_exp_avg_sq iff amsgrad.

struct AdamArgs {
  double lr, beta1, beta2, eps, weight_decay, step;
  bool amsgrad, maximize, decoupled;
  double step_size, bias_correction2_sqrt;  // lr / (1 - beta1^step), sqrt(1 - beta2^step)
  int32_t outputs() const { return amsgrad ? 4 : 3; }
};
template <class A>
inline AdamArgs adam_args(const A* a) {
  AdamArgs r{a[0].f, a[1].f, a[2].f, a[3].f, a[4].f, a[5].f, a[6].i != 0, a[7].i != 0, a[8].i != 0, 0, 0};
  const double bc1 = 1 - std::pow(r.beta1, r.step), bc2 = 1 - std::pow(r.beta2, r.step);
  r.step_size = r.lr / bc1;
  r.bias_correction2_sqrt = std::sqrt(bc2);
  return r;
}
template <class T>
struct AdamConsts {
  T weight_decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bias_correction2_sqrt, eps, neg_step_size, decay;
};
template <class T>
inline AdamConsts<T> adam_consts(const AdamArgs& a) {
  return {T(a.weight_decay), T(a.beta1),      T(1 - a.beta1),
          T(a.beta2),        T(1 - a.beta2),  T(a.bias_correction2_sqrt),
          T(a.eps),          T(-a.step_size), T(1 - a.lr * a.weight_decay)};
}
template <class T, class Max, class Decoupled, class Wd, class Ams>
GLIA_HOST_DEVICE void adam_update(const AdamConsts<T>& c, Max maximize, Decoupled decoupled, Wd weight_decay,
                                  Ams amsgrad, T g, T& p, T& m, T& v, T& vmax) {
  T gi = g;
  if (maximize) gi = -gi;
  if (decoupled)
    p = mul(p, c.decay);
  else if (weight_decay)
    gi = add(gi, mul(c.weight_decay, p));
  m = add(mul(m, c.beta1), mul(c.one_minus_beta1, gi));
  v = add(mul(v, c.beta2), mul(mul(c.one_minus_beta2, gi), gi));
  T denom;
  if (amsgrad) {
    vmax = nan_max(vmax, v);
    denom = add(std::sqrt(vmax) / c.bias_correction2_sqrt, c.eps);
  } else {
    denom = add(std::sqrt(v) / c.bias_correction2_sqrt, c.eps);
  }
  p = add(p, mul(c.neg_step_size, m / denom));
}

// ---- RMSprop. attrs: lr, alpha, eps, weight_decay, momentum (.f); centered, maximize (.i). Outputs: param,
// square_avg, then momentum_buffer iff momentum > 0, then grad_avg iff centered.

struct RmspropArgs {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
  bool has_momentum() const { return momentum > 0; }
  int32_t outputs() const { return 2 + (has_momentum() ? 1 : 0) + (centered ? 1 : 0); }
};
template <class A>
inline RmspropArgs rmsprop_args(const A* a) {
  return {a[0].f, a[1].f, a[2].f, a[3].f, a[4].f, a[5].i != 0, a[6].i != 0};
}
template <class T>
struct RmspropConsts {
  T weight_decay, alpha, one_minus_alpha, eps, momentum, neg_lr;
};
template <class T>
inline RmspropConsts<T> rmsprop_consts(const RmspropArgs& a) {
  return {T(a.weight_decay), T(a.alpha), T(1 - a.alpha), T(a.eps), T(a.momentum), T(-a.lr)};
}
template <class T, class Max, class Wd, class Centered, class Mom>
GLIA_HOST_DEVICE void rmsprop_update(const RmspropConsts<T>& c, Max maximize, Wd weight_decay, Centered centered,
                                     Mom momentum, T g, T& p, T& square_avg, T& buf, T& grad_avg) {
  T gi = g;
  if (maximize) gi = -gi;
  if (weight_decay) gi = add(gi, mul(c.weight_decay, p));
  square_avg = add(mul(square_avg, c.alpha), mul(mul(c.one_minus_alpha, gi), gi));
  T avg;
  if (centered) {
    grad_avg = add(mul(grad_avg, c.alpha), mul(c.one_minus_alpha, gi));
    avg = std::sqrt(add(square_avg, mul(mul(T(-1), grad_avg), grad_avg)));  // torch's addcmul(value=-1)
  } else {
    avg = std::sqrt(square_avg);
  }
  avg = add(avg, c.eps);
  if (momentum) {
    buf = add(mul(buf, c.momentum), gi / avg);
    p = add(p, mul(c.neg_lr, buf));
  } else {
    p = add(p, mul(c.neg_lr, gi / avg));
  }
}

// ---- Adadelta. attrs: lr, rho, eps, weight_decay (.f); maximize (.i). Outputs: param, square_avg, acc_delta.

struct AdadeltaArgs {
  double lr, rho, eps, weight_decay;
  bool maximize;
  int32_t outputs() const { return 3; }
};
template <class A>
inline AdadeltaArgs adadelta_args(const A* a) {
  return {a[0].f, a[1].f, a[2].f, a[3].f, a[4].i != 0};
}
template <class T>
struct AdadeltaConsts {
  T weight_decay, rho, one_minus_rho, eps, neg_lr;
};
template <class T>
inline AdadeltaConsts<T> adadelta_consts(const AdadeltaArgs& a) {
  return {T(a.weight_decay), T(a.rho), T(1 - a.rho), T(a.eps), T(-a.lr)};
}
template <class T, class Max, class Wd>
GLIA_HOST_DEVICE void adadelta_update(const AdadeltaConsts<T>& c, Max maximize, Wd weight_decay, T g, T& p,
                                      T& square_avg, T& acc_delta) {
  T gi = g;
  if (maximize) gi = -gi;
  if (weight_decay) gi = add(gi, mul(c.weight_decay, p));
  square_avg = add(mul(square_avg, c.rho), mul(mul(c.one_minus_rho, gi), gi));
  const T std_ = std::sqrt(add(square_avg, c.eps));
  const T delta = mul(std::sqrt(add(acc_delta, c.eps)) / std_, gi);
  acc_delta = add(mul(acc_delta, c.rho), mul(mul(c.one_minus_rho, delta), delta));
  p = add(p, mul(c.neg_lr, delta));
}

// ---- Adagrad. attrs: lr, lr_decay, eps, weight_decay, step (.f; the count after this step); maximize (.i).
// Outputs: param, sum.

struct AdagradArgs {
  double lr, lr_decay, eps, weight_decay, step;
  bool maximize;
  double clr;  // lr / (1 + (step - 1) * lr_decay)
  int32_t outputs() const { return 2; }
};
template <class A>
inline AdagradArgs adagrad_args(const A* a) {
  AdagradArgs r{a[0].f, a[1].f, a[2].f, a[3].f, a[4].f, a[5].i != 0, 0};
  r.clr = r.lr / (1 + (r.step - 1) * r.lr_decay);
  return r;
}
template <class T>
struct AdagradConsts {
  T weight_decay, eps, neg_clr;
};
template <class T>
inline AdagradConsts<T> adagrad_consts(const AdagradArgs& a) {
  return {T(a.weight_decay), T(a.eps), T(-a.clr)};
}
template <class T, class Max, class Wd>
GLIA_HOST_DEVICE void adagrad_update(const AdagradConsts<T>& c, Max maximize, Wd weight_decay, T g, T& p, T& sum) {
  T gi = g;
  if (maximize) gi = -gi;
  if (weight_decay) gi = add(gi, mul(c.weight_decay, p));
  sum = add(sum, mul(mul(T(1), gi), gi));  // torch's addcmul_(grad, grad, value=1)
  const T std_ = add(std::sqrt(sum), c.eps);
  p = add(p, mul(c.neg_clr, gi / std_));
}

// ---- Adamax. attrs: lr, beta1, beta2, eps, weight_decay, step (.f); maximize (.i). Outputs: param, exp_avg,
// exp_inf.

struct AdamaxArgs {
  double lr, beta1, beta2, eps, weight_decay, step;
  bool maximize;
  double clr;  // lr / (1 - beta1^step)
  int32_t outputs() const { return 3; }
};
template <class A>
inline AdamaxArgs adamax_args(const A* a) {
  AdamaxArgs r{a[0].f, a[1].f, a[2].f, a[3].f, a[4].f, a[5].f, a[6].i != 0, 0};
  r.clr = r.lr / (1 - std::pow(r.beta1, r.step));
  return r;
}
template <class T>
struct AdamaxConsts {
  T weight_decay, beta1, one_minus_beta1, beta2, eps, neg_clr;
};
template <class T>
inline AdamaxConsts<T> adamax_consts(const AdamaxArgs& a) {
  return {T(a.weight_decay), T(a.beta1), T(1 - a.beta1), T(a.beta2), T(a.eps), T(-a.clr)};
}
template <class T, class Max, class Wd>
GLIA_HOST_DEVICE void adamax_update(const AdamaxConsts<T>& c, Max maximize, Wd weight_decay, T g, T& p, T& exp_avg,
                                    T& exp_inf) {
  T gi = g;
  if (maximize) gi = -gi;
  if (weight_decay) gi = add(gi, mul(c.weight_decay, p));
  exp_avg = add(mul(exp_avg, c.beta1), mul(c.one_minus_beta1, gi));
  exp_inf = nan_max(mul(exp_inf, c.beta2), add(std::abs(gi), c.eps));  // torch.amax of the two
  p = add(p, mul(c.neg_clr, exp_avg / exp_inf));
}

// ---- ASGD. attrs: lambd, eta, mu, weight_decay (.f; eta and mu: the state's values before this step);
// maximize (.i). Outputs: param, ax. The average is updated only when mu != 1 (else ax = param).

struct AsgdArgs {
  double lambd, eta, mu, weight_decay;
  bool maximize;
  bool averaging() const { return mu != 1; }
  int32_t outputs() const { return 2; }
};
template <class A>
inline AsgdArgs asgd_args(const A* a) {
  return {a[0].f, a[1].f, a[2].f, a[3].f, a[4].i != 0};
}
template <class T>
struct AsgdConsts {
  T weight_decay, decay, neg_eta, mu;
};
template <class T>
inline AsgdConsts<T> asgd_consts(const AsgdArgs& a) {
  return {T(a.weight_decay), T(1 - a.lambd * a.eta), T(-a.eta), T(a.mu)};
}
template <class T, class Max, class Wd, class Avg>
GLIA_HOST_DEVICE void asgd_update(const AsgdConsts<T>& c, Max maximize, Wd weight_decay, Avg averaging, T g, T& p,
                                  T& ax) {
  T gi = g;
  if (maximize) gi = -gi;
  if (weight_decay) gi = add(gi, mul(c.weight_decay, p));
  T pi = mul(p, c.decay);
  pi = add(pi, mul(c.neg_eta, gi));
  p = pi;
  if (averaging)
    ax = add(ax, mul(sub(pi, ax), c.mu));
  else
    ax = pi;
}

// ---- NAdam (torch 1.13's has no maximize). attrs: beta1, beta2, eps, weight_decay, step, grad_coef, avg_coef
// (.f; the coefs: torch's addcdiv values). Outputs: param, exp_avg, exp_avg_sq.

struct NadamArgs {
  double beta1, beta2, eps, weight_decay, step, grad_coef, avg_coef;
  double bias_correction2;  // 1 - beta2^step
  int32_t outputs() const { return 3; }
};
template <class A>
inline NadamArgs nadam_args(const A* a) {
  NadamArgs r{a[0].f, a[1].f, a[2].f, a[3].f, a[4].f, a[5].f, a[6].f, 0};
  r.bias_correction2 = 1 - std::pow(r.beta2, r.step);
  return r;
}
template <class T>
struct NadamConsts {
  T weight_decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bias_correction2, eps, grad_coef, avg_coef;
};
template <class T>
inline NadamConsts<T> nadam_consts(const NadamArgs& a) {
  return {T(a.weight_decay),     T(a.beta1), T(1 - a.beta1), T(a.beta2),   T(1 - a.beta2),
          T(a.bias_correction2), T(a.eps),   T(a.grad_coef), T(a.avg_coef)};
}
template <class T, class Wd>
GLIA_HOST_DEVICE void nadam_update(const NadamConsts<T>& c, Wd weight_decay, T g, T& p, T& exp_avg, T& exp_avg_sq) {
  T gi = g;
  if (weight_decay) gi = add(gi, mul(c.weight_decay, p));
  exp_avg = add(mul(exp_avg, c.beta1), mul(c.one_minus_beta1, gi));
  exp_avg_sq = add(mul(exp_avg_sq, c.beta2), mul(mul(c.one_minus_beta2, gi), gi));
  const T denom = add(std::sqrt(exp_avg_sq / c.bias_correction2), c.eps);
  const T pi = add(p, mul(c.grad_coef, gi / denom));
  p = add(pi, mul(c.avg_coef, exp_avg / denom));
}

// ---- RAdam (torch 1.13's has no maximize). attrs: lr, beta1, beta2, eps, weight_decay, step (.f). Outputs:
// param, exp_avg, exp_avg_sq. The rectification (rho_t > 5) is decided per call, as torch does per parameter.

struct RadamArgs {
  double lr, beta1, beta2, eps, weight_decay, step;
  double bias_correction1, bias_correction2;
  bool rectified;
  double rect;  // the rectification term when rectified, else 0
  int32_t outputs() const { return 3; }
};
template <class A>
inline RadamArgs radam_args(const A* a) {
  RadamArgs r{a[0].f, a[1].f, a[2].f, a[3].f, a[4].f, a[5].f, 0, 0, false, 0};
  r.bias_correction1 = 1 - std::pow(r.beta1, r.step);
  r.bias_correction2 = 1 - std::pow(r.beta2, r.step);
  const double rho_inf = 2 / (1 - r.beta2) - 1;
  const double rho_t = rho_inf - 2 * r.step * std::pow(r.beta2, r.step) / r.bias_correction2;
  r.rectified = rho_t > 5.;
  r.rect = r.rectified ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) : 0;
  return r;
}
template <class T>
struct RadamConsts {
  T weight_decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bias_correction1, bias_correction2_sqrt, eps, lr,
      rect;
};
template <class T>
inline RadamConsts<T> radam_consts(const RadamArgs& a) {
  return {T(a.weight_decay),
          T(a.beta1),
          T(1 - a.beta1),
          T(a.beta2),
          T(1 - a.beta2),
          T(a.bias_correction1),
          T(std::sqrt(a.bias_correction2)),
          T(a.eps),
          T(a.lr),
          T(a.rect)};
}
template <class T, class Wd, class Rect>
GLIA_HOST_DEVICE void radam_update(const RadamConsts<T>& c, Wd weight_decay, Rect rectified, T g, T& p, T& exp_avg,
                                   T& exp_avg_sq) {
  T gi = g;
  if (weight_decay) gi = add(gi, mul(c.weight_decay, p));
  exp_avg = add(mul(exp_avg, c.beta1), mul(c.one_minus_beta1, gi));
  exp_avg_sq = add(mul(exp_avg_sq, c.beta2), mul(mul(c.one_minus_beta2, gi), gi));
  const T corrected = exp_avg / c.bias_correction1;
  if (rectified) {
    // torch: sqrt(bc2) / (sqrt(v) + eps) is Tensor.__rtruediv__, a reciprocal times the number.
    const T adaptive = mul(T(1) / add(std::sqrt(exp_avg_sq), c.eps), c.bias_correction2_sqrt);
    p = add(p, mul(T(-1), mul(mul(mul(corrected, c.lr), adaptive), c.rect)));
  } else {
    p = add(p, mul(T(-1), mul(corrected, c.lr)));
  }
}

// ---- Rprop. attrs: etaminus, etaplus, step_size_min, step_size_max (.f); maximize (.i). Outputs: param, prev,
// step_size.

struct RpropArgs {
  double etaminus, etaplus, step_size_min, step_size_max;
  bool maximize;
  int32_t outputs() const { return 3; }
};
template <class A>
inline RpropArgs rprop_args(const A* a) {
  return {a[0].f, a[1].f, a[2].f, a[3].f, a[4].i != 0};
}
template <class T>
struct RpropConsts {
  T etaminus, etaplus, step_size_min, step_size_max;
};
template <class T>
inline RpropConsts<T> rprop_consts(const RpropArgs& a) {
  return {T(a.etaminus), T(a.etaplus), T(a.step_size_min), T(a.step_size_max)};
}
template <class T, class Max>
GLIA_HOST_DEVICE void rprop_update(const RpropConsts<T>& c, Max maximize, T g, T& p, T& prev, T& step_size) {
  T gi = g;
  if (maximize) gi = -gi;
  const T prod = mul(gi, prev);
  // torch: sign(grad * prev) mapped to etaplus / etaminus / 1 (NaN stays NaN).
  const T factor = prod > T(0) ? c.etaplus : (prod < T(0) ? c.etaminus : (prod == T(0) ? T(1) : prod));
  T size = mul(step_size, factor);
  size = size < c.step_size_min ? c.step_size_min : size;  // clamp_ as std::min(std::max(..)): NaN stays NaN
  size = c.step_size_max < size ? c.step_size_max : size;
  step_size = size;
  if (prod < T(0)) gi = T(0);  // where the sign changed: no step, prev = 0
  p = add(p, mul(mul(T(-1), sign_of(gi)), size));
  prev = gi;
}

}  // namespace glia::cuda::optim_ops

#endif  // GLIA_CUDA_OPTIM_OPS_H
