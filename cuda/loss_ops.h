// The per-element math of the loss and embedding kernels (cuda/loss.cu, cuda/embedding.cu), compiled by both
// the host compiler and nvcc (host_device.h). The formulas are src/ops/cpu/loss.cpp's and src/ops/cpu/nn.cpp's,
// with the same accumulation (double) and the same NaN behaviour: the CPU's std::max(a, b) is `a < b ? b : a`
// (a NaN first argument is kept), written out here as such, never fmax. tests/cuda/loss_ops_test.cpp checks
// them on the CPU (derivatives against finite differences, torch's clamps, NaN and infinity).
//
// The CPU kernels do not include this header: the layering rule (tests/layering/check_layers.py) lets src/
// reach cuda/ only through the backend table, so the test writes the CPU's formulas out again and compares.
#ifndef GLIA_CUDA_LOSS_OPS_H
#define GLIA_CUDA_LOSS_OPS_H

#include <cmath>
#include <cstdint>

#include "host_device.h"

namespace glia::cuda::loss {

// ops::PointwiseLoss's values (kernels.def's pointwise_loss: 0 mse, 1 l1, 2 smooth_l1, 3 huber,
// 4 binary_cross_entropy, 5 binary_cross_entropy_with_logits).
enum Kind : int64_t { kMse = 0, kL1 = 1, kSmoothL1 = 2, kHuber = 3, kBce = 4, kBceLogits = 5 };
// core's Reduction (0 none, 1 mean, 2 sum).
enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// std::max / std::min as the CPU calls them (the first argument wins ties and NaNs).
GLIA_HOST_DEVICE double max_of(double a, double b) { return a < b ? b : a; }
GLIA_HOST_DEVICE double min_of(double a, double b) { return b < a ? b : a; }

// log(1 + exp(-|x|)) + max(-x, 0) = log(1 + exp(-x)), stable.
GLIA_HOST_DEVICE double softplus_neg(double x) { return std::log1p(std::exp(-std::fabs(x))) + max_of(-x, 0.0); }
GLIA_HOST_DEVICE double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

// The elementwise loss before weighting: x input, t target, pw pos_weight (1 when absent), param beta/delta.
GLIA_HOST_DEVICE double loss_value(int64_t kind, double x, double t, double pw, double param) {
  switch (kind) {
    case kMse: {
      const double d = x - t;
      return d * d;
    }
    case kL1:
      return std::fabs(x - t);
    case kSmoothL1: {
      const double d = std::fabs(x - t);
      if (param == 0) return d;
      return d < param ? 0.5 * d * d / param : d - 0.5 * param;
    }
    case kHuber: {
      const double d = std::fabs(x - t);
      return d < param ? 0.5 * d * d : param * (d - 0.5 * param);
    }
    case kBce:  // torch clamps the logs at -100
      return -(t * max_of(std::log(x), -100.0) + (1 - t) * max_of(std::log1p(-x), -100.0));
    case kBceLogits: {
      const double lw = 1 + (pw - 1) * t;
      return (1 - t) * x + lw * softplus_neg(x);
    }
    default:
      return 0;
  }
}

// dL/dx and dL/dt before weighting.
GLIA_HOST_DEVICE void loss_derivs(int64_t kind, double x, double t, double pw, double param, double* dx, double* dt) {
  switch (kind) {
    case kMse:
      *dx = 2 * (x - t);
      *dt = -*dx;
      return;
    case kL1: {
      const double d = x - t;
      *dx = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
      *dt = -*dx;
      return;
    }
    case kSmoothL1: {
      const double d = x - t;
      const double s = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
      *dx = std::fabs(d) < param ? d / param : s;
      *dt = -*dx;
      return;
    }
    case kHuber: {
      const double d = x - t;
      *dx = min_of(max_of(d, -param), param);
      *dt = -*dx;
      return;
    }
    case kBce:  // torch's EPSILON clamp of the denominator
      *dx = (x - t) / max_of((1 - x) * x, 1e-12);
      *dt = std::log1p(-x) - std::log(x);
      return;
    case kBceLogits: {
      const double lw = 1 + (pw - 1) * t;
      *dx = (1 - t) - lw * (1 - sigmoid(x));
      *dt = -x + (pw - 1) * softplus_neg(x);
      return;
    }
    default:
      *dx = 0;
      *dt = 0;
      return;
  }
}

// torch's range check of binary_cross_entropy's input ("all elements of input should be between 0 and 1"):
// a NaN fails it.
GLIA_HOST_DEVICE bool bce_input_ok(double x) { return x >= 0 && x <= 1; }

// log(sum_c exp(x(c))) over c in [0, C), shifted by the max, in c order: a NaN propagates, an all -inf row
// gives -inf (the shift is 0 when the max is infinite).
template <class X>
GLIA_HOST_DEVICE double row_logsumexp(int64_t C, X x) {
  double m = -INFINITY;
  for (int64_t c = 0; c < C; ++c) {
    const double v = x(c);
    m = (v > m || v != v) ? v : m;  // a NaN sticks: nothing compares greater
  }
  const double mm = std::isinf(m) ? 0.0 : m;
  double se = 0;
  for (int64_t c = 0; c < C; ++c) se += std::exp(x(c) - mm);
  return std::log(se) + mm;
}

// nll_loss / cross_entropy at one position with class target t (not ignored): x(c) the input at class c (log
// probabilities, or logits when log_softmax), w(c) the class weight (1 without weights), lse the row's
// log-sum-exp (log_softmax only), ls the label smoothing.
template <class X, class W>
GLIA_HOST_DEVICE double class_value(int64_t C, int64_t t, X x, W w, bool log_softmax, double lse, double ls) {
  if (!log_softmax) return -w(t) * x(t);
  double v = -w(t) * (x(t) - lse) * (1 - ls);
  if (ls > 0) {
    double sm = 0;
    for (int64_t c = 0; c < C; ++c) sm -= w(c) * (x(c) - lse);
    v += sm * ls / static_cast<double>(C);
  }
  return v;
}

// cross_entropy's gradient at class c (before the incoming gradient): pc = exp(x(c) - lse), wt = w(t) * (1 -
// ls), w_all the sum of all class weights, wc = w(c).
GLIA_HOST_DEVICE double class_grad(double pc, bool is_target, double wt, double ls, int64_t C, double w_all,
                                   double wc) {
  double d = wt * (pc - (is_target ? 1.0 : 0.0));
  if (ls > 0) d += ls / static_cast<double>(C) * (w_all * pc - wc);
  return d;
}

// A probability target with label smoothing.
GLIA_HOST_DEVICE double smoothed_prob(double t, double ls, int64_t C) {
  return t * (1 - ls) + ls / static_cast<double>(C);
}

// embedding_renorm's norm of one row (dim values r(j) as doubles, in j order; nonzero(j) whether the value is
// nonzero in the row's accumulation type), as the CPU computes it.
template <class R, class NZ>
GLIA_HOST_DEVICE double renorm_row_norm(int64_t dim, double norm_type, R r, NZ nonzero) {
  double norm = 0;
  if (std::isinf(norm_type) && norm_type > 0) {
    for (int64_t j = 0; j < dim; ++j) norm = max_of(norm, std::fabs(r(j)));
  } else if (norm_type == 0) {
    for (int64_t j = 0; j < dim; ++j) norm += nonzero(j) ? 1.0 : 0.0;
  } else if (norm_type == 1) {
    for (int64_t j = 0; j < dim; ++j) norm += std::fabs(r(j));
  } else if (norm_type == 2) {
    for (int64_t j = 0; j < dim; ++j) {
      const double v = r(j);
      norm += v * v;
    }
    norm = std::sqrt(norm);
  } else {
    for (int64_t j = 0; j < dim; ++j) norm += std::pow(std::fabs(r(j)), norm_type);
    norm = std::pow(norm, 1.0 / norm_type);
  }
  return norm;
}

// Whether a row of that norm is renormalised (a NaN norm is not), and the factor torch scales it by.
GLIA_HOST_DEVICE bool renorm_needed(double norm, double max_norm) { return norm > max_norm; }
GLIA_HOST_DEVICE double renorm_scale(double norm, double max_norm) { return max_norm / (norm + 1e-7); }

}  // namespace glia::cuda::loss

#endif  // GLIA_CUDA_LOSS_OPS_H
