// Loss functions: one fused pass per forward (elementwise loss, weighting and
// the reduction together), fused backwards. Meta parts (glia::ops: torch's
// checks and messages, operands converted and broadcast on the input's device,
// outputs allocated there) and CPU kernels (glia::cpu, below); Note [Op = meta
// + kernel + rule] in core/dispatch.h. Checks that need tensor data (the input
// range of binary_cross_entropy, the target range of nll_loss) run in the
// kernels, with torch's messages. Accumulation is in double; reductions over
// chunks of fixed size are summed in chunk order, so results do not depend on
// the number of threads.
#include "ops/loss.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/dispatch.h"
#include "ops/cpu/loops.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"

namespace glia::ops {

namespace {

const char* loss_name(PointwiseLoss k) {
  switch (k) {
    case PointwiseLoss::Mse:
      return "mse_loss";
    case PointwiseLoss::L1:
      return "l1_loss";
    case PointwiseLoss::SmoothL1:
      return "smooth_l1_loss";
    case PointwiseLoss::Huber:
      return "huber_loss";
    case PointwiseLoss::Bce:
      return "binary_cross_entropy";
    case PointwiseLoss::BceLogits:
      return "binary_cross_entropy_with_logits";
  }
  return "loss";
}

std::string torch_size(IntSpan s) {
  std::string r = "torch.Size([";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "])";
}

// The operands broadcast to one shape, in the compute dtype, contiguous, on one device.
struct Prepared {
  Dims shape;
  DType dt;
  Device dev;
  Tensor x, t, w, pw;
  int64_t n;
};

Prepared prepare(const PointwiseArgs& a) {
  const char* name = loss_name(a.kind);
  const Tensor& x = a.input;
  const Tensor& t = a.target;
  Prepared p;
  if (a.kind == PointwiseLoss::Bce) {
    GLIA_CHECK(x.shape() == t.shape(), Shape, "Using a target size (", torch_size(t.shape()),
               ") that is different to the input size (", torch_size(x.shape()),
               ") is deprecated. Please ensure they have the same size.");
    GLIA_CHECK(x.dtype() == t.dtype(), DType, "Found dtype ", scalar_type_name(t.dtype()), " but expected ",
               scalar_type_name(x.dtype()));
  } else if (a.kind == PointwiseLoss::BceLogits) {
    GLIA_CHECK(x.shape() == t.shape(), Shape, "Target size (", torch_size(t.shape()),
               ") must be the same as input size (", torch_size(x.shape()), ")");
  } else if (a.kind == PointwiseLoss::SmoothL1) {
    GLIA_CHECK(a.param >= 0, InvalidArgument, "smooth_l1_loss does not support negative values for beta.");
  } else if (a.kind == PointwiseLoss::Huber) {
    GLIA_CHECK(a.param > 0, InvalidArgument, "huber_loss does not support non-positive values for delta.");
  }
  // torch: huber_loss and binary_cross_entropy compute in the input's dtype, the others promote
  // input with target; weights never promote (torch multiplies them in place).
  bool input_dtype = a.kind == PointwiseLoss::Huber || a.kind == PointwiseLoss::Bce;
  p.dt = input_dtype && is_floating(x.dtype()) ? x.dtype() : promote_types(x.dtype(), t.dtype());
  if (!is_floating(p.dt)) {
    switch (a.kind) {
      case PointwiseLoss::Mse:
        not_implemented_for("mse_cpu", p.dt);
      case PointwiseLoss::L1:
        fail(Code::DType,
             "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
             "Got: ",
             scalar_type_name(p.dt));
      case PointwiseLoss::SmoothL1:
        not_implemented_for("smooth_l1_cpu", p.dt);
      case PointwiseLoss::Huber:
        not_implemented_for("huber_cpu", p.dt);
      default:
        not_implemented_for(name, p.dt);
    }
  }
  p.shape = broadcast_shapes(name, x.shape(), t.shape());
  if (a.weight.defined()) p.shape = broadcast_shapes(name, p.shape, a.weight.shape());
  if (a.pos_weight.defined()) p.shape = broadcast_shapes(name, p.shape, a.pos_weight.shape());
  p.dev = common_device(name, {&x, &t, &a.weight, &a.pos_weight});
  auto prep = [&](const Tensor& v) { return contiguous(expand_to(to_dtype(to_device(v, p.dev), p.dt), p.shape)); };
  p.x = prep(x);
  p.t = prep(t);
  if (a.weight.defined()) p.w = prep(a.weight);
  if (a.pos_weight.defined()) p.pw = prep(a.pos_weight);
  p.n = checked_numel(p.shape);
  return p;
}

// The kernels' flags: 1 weight, 2 pos_weight (absent: in0 stands in).
int64_t operand_flags(const Prepared& p) { return (p.w.defined() ? 1 : 0) | (p.pw.defined() ? 2 : 0); }

}  // namespace

Tensor pointwise_loss(const PointwiseArgs& a) {
  Prepared p = prepare(a);
  Tensor out = a.reduction == Reduction::None ? empty(p.shape, p.dt, p.dev) : empty({}, p.dt, p.dev);
  const Tensor& w = p.w.defined() ? p.w : p.x;
  const Tensor& pw = p.pw.defined() ? p.pw : p.x;
  run_kernel(KernelId::pointwise_loss, p.dev, {&p.x, &p.t, &w, &pw}, {&out},
             {attr_i(static_cast<int64_t>(a.kind)), attr_f(a.param), attr_i(static_cast<int64_t>(a.reduction)),
              attr_i(operand_flags(p))});
  return out;
}

std::pair<Tensor, Tensor> pointwise_loss_backward(const PointwiseArgs& a, const Tensor& grad, bool want_input,
                                                  bool want_target) {
  Prepared p = prepare(a);
  Tensor gi = want_input ? empty(p.shape, p.dt, p.dev) : Tensor();
  Tensor gt = want_target ? empty(p.shape, p.dt, p.dev) : Tensor();
  if (!want_input && !want_target) return {gi, gt};
  Tensor g = a.reduction == Reduction::None ? contiguous(expand_to(to_dtype(to_device(grad, p.dev), p.dt), p.shape))
                                            : to_dtype(to_device(grad, p.dev), DType::Float64);
  const Tensor& w = p.w.defined() ? p.w : p.x;
  const Tensor& pw = p.pw.defined() ? p.pw : p.x;
  const Tensor& any = want_input ? gi : gt;
  const int64_t flags = operand_flags(p) | (want_input ? 4 : 0) | (want_target ? 8 : 0);
  run_kernel(KernelId::pointwise_loss_backward, p.dev, {&p.x, &p.t, &w, &pw, &g},
             {want_input ? &gi : &any, want_target ? &gt : &any},
             {attr_i(static_cast<int64_t>(a.kind)), attr_f(a.param), attr_i(static_cast<int64_t>(a.reduction)),
              attr_i(flags)});
  return {gi, gt};
}

// ---- nll_loss / cross_entropy

namespace {

struct Layout {
  int64_t N = 1, C = 1, S = 1;
  Dims out_shape;  // reduction none
};

std::string sizes(IntSpan s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

void check_label_smoothing(double ls) {
  GLIA_CHECK(ls >= 0.0 && ls <= 1.0, InvalidArgument, "label_smoothing must be between 0.0 and 1.0. Got: ", ls);
}

void check_input_dtype(const ClassLossArgs& a) {
  const Tensor& x = a.input;
  if (is_floating(x.dtype()) && !(a.log_softmax && x.dtype() == DType::Float16)) return;
  if (a.log_softmax) {
    bool last = x.dim() <= 2;
    not_implemented_for(last ? "log_softmax_lastdim_kernel_impl" : "softmax_kernel_impl", x.dtype());
  }
  not_implemented_for("nll_loss_out_frame", x.dtype());
}

void check_weight(const Tensor& w, int64_t C, const char* prefix = "") {
  if (!w.defined()) return;
  GLIA_CHECK(w.dim() == 1 && w.numel() == C, Shape, prefix, "weight tensor should be defined either for all ", C,
             " classes or no classes but got weight tensor of shape: ", sizes(w.shape()));
}

Layout class_layout(const ClassLossArgs& a) {
  const Tensor& x = a.input;
  const Tensor& t = a.target;
  Layout l;
  GLIA_CHECK(x.dim() >= 1, Shape, "Expected 1 or more dimensions (got ", x.dim(), ")");
  if (x.dim() != 1) {
    GLIA_CHECK(t.dim() >= 1, Shape, "size mismatch (got input: ", sizes(x.shape()), ", target: ", sizes(t.shape()),
               ")");
    GLIA_CHECK(x.shape()[0] == t.shape()[0], Shape, "Expected input batch_size (", x.shape()[0],
               ") to match target batch_size (", t.shape()[0], ").");
  }
  if (x.dim() <= 2) {
    GLIA_CHECK(t.dim() <= 1, Shape, "0D or 1D target tensor expected, multi-target not supported");
    if (x.dim() == 1) {
      GLIA_CHECK(t.dim() == 0, Shape, "size mismatch (got input: ", sizes(x.shape()), ", target: ", sizes(t.shape()),
                 ")");
      l.C = x.shape()[0];
    } else {
      l.N = x.shape()[0];
      l.C = x.shape()[1];
      l.out_shape.push_back(l.N);
    }
  } else {
    if (x.dim() == 4) {
      GLIA_CHECK(t.dim() == 3, Shape,
                 "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", t.dim());
      GLIA_CHECK(t.shape()[1] == x.shape()[2] && t.shape()[2] == x.shape()[3], Shape,
                 "size mismatch (got input: ", sizes(x.shape()), " , target: ", sizes(t.shape()));
    }
    Dims want;
    want.push_back(x.shape()[0]);
    for (int64_t d = 2; d < x.dim(); ++d) want.push_back(x.shape()[d]);
    GLIA_CHECK(t.shape() == want, Shape, "Expected target size ", sizes(want), ", got ", sizes(t.shape()));
    l.N = x.shape()[0];
    l.C = x.shape()[1];
    for (int64_t d = 2; d < x.dim(); ++d) l.S *= x.shape()[d];
    l.out_shape = want;
  }
  GLIA_CHECK(t.dtype() == DType::Int64, DType, "expected scalar type Long but found ", scalar_type_name(t.dtype()));
  check_input_dtype(a);
  check_weight(a.weight, l.C);
  return l;
}

// input, target and weight on one device (torch's check on CUDA; no wrapped scalars here).
Device class_device(const ClassLossArgs& a) {
  const char* op = a.log_softmax ? "cross_entropy" : "nll_loss";
  const Device dev = a.input.device();
  for (const Tensor* t : {&a.target, &a.weight})
    if (t->defined() && t->device() != dev) fail_devices(op, dev, t->device());
  return dev;
}

// The class kernels' attributes; `ncs` holds N, C, S.
struct ClassAttrs {
  int64_t ncs[3];
  Attr attrs[6];
  ClassAttrs(const ClassLossArgs& a, const Layout& l)
      : ncs{l.N, l.C, l.S}, attrs{attr_ints(IntSpan(ncs, 3)),
                                  attr_i(a.ignore_index),
                                  attr_i(static_cast<int64_t>(a.reduction)),
                                  attr_f(a.label_smoothing),
                                  attr_i(a.log_softmax),
                                  attr_i(a.weight.defined())} {}
  ClassAttrs(const ClassAttrs&) = delete;
};

}  // namespace

bool is_prob_target(const Tensor& input, const Tensor& target) { return input.shape() == target.shape(); }

ClassLossResult class_loss(const ClassLossArgs& a) {
  if (a.log_softmax) check_label_smoothing(a.label_smoothing);
  Layout l = class_layout(a);
  const Device dev = class_device(a);
  Tensor x = contiguous(a.input);
  Tensor tg = contiguous(a.target);
  Tensor w = a.weight.defined() ? contiguous(to_dtype(a.weight, DType::Float64)) : x;
  ClassLossResult r;
  if (a.log_softmax) r.lse = empty(Dims{l.N * l.S}, DType::Float64, dev);
  r.loss = a.reduction == Reduction::None ? empty(l.out_shape, x.dtype(), dev) : empty({}, x.dtype(), dev);
  const ClassAttrs at(a, l);
  run_kernel(KernelId::class_loss, dev, {&x, &tg, &w}, {&r.loss, a.log_softmax ? &r.lse : &r.loss},
             {at.attrs[0], at.attrs[1], at.attrs[2], at.attrs[3], at.attrs[4], at.attrs[5]});
  return r;
}

Tensor class_loss_backward(const ClassLossArgs& a, const ClassLossResult& r, const Tensor& grad) {
  Layout l = class_layout(a);
  const Device dev = class_device(a);
  Tensor x = contiguous(a.input);
  Tensor tg = contiguous(a.target);
  Tensor w = a.weight.defined() ? contiguous(to_dtype(a.weight, DType::Float64)) : x;
  Tensor g = contiguous(to_dtype(to_device(grad, dev), DType::Float64));
  Tensor gi = empty(x.shape(), x.dtype(), dev);
  const ClassAttrs at(a, l);
  run_kernel(KernelId::class_loss_backward, dev, {&x, &tg, &w, a.log_softmax ? &r.lse : &x, &g}, {&gi},
             {at.attrs[0], at.attrs[1], at.attrs[2], at.attrs[3], at.attrs[4], at.attrs[5]});
  return gi;
}

namespace {

Layout prob_layout(const ClassLossArgs& a) {
  const Tensor& x = a.input;
  Layout l;
  GLIA_CHECK(is_floating(a.target.dtype()), DType,
             "Expected floating point type for target with class probabilities, got ",
             scalar_type_name(a.target.dtype()));
  GLIA_CHECK(a.ignore_index < 0, InvalidArgument, "ignore_index is not supported for floating point target");
  check_input_dtype(a);
  // torch's log_softmax over dim 1 of a 0-d input (shape()[1] does not exist: found by tests/fuzz).
  GLIA_CHECK(x.dim() > 0, InvalidArgument, "Dimension specified as 1 but tensor has no dimensions");
  if (x.dim() == 1) {
    l.C = x.shape()[0];
  } else {
    l.N = x.shape()[0];
    l.C = x.shape()[1];
    l.out_shape.push_back(l.N);
    for (int64_t d = 2; d < x.dim(); ++d) {
      l.S *= x.shape()[d];
      l.out_shape.push_back(x.shape()[d]);
    }
  }
  check_weight(a.weight, l.C, "cross_entropy: ");
  return l;
}

}  // namespace

Tensor prob_cross_entropy(const ClassLossArgs& a) {
  check_label_smoothing(a.label_smoothing);
  Layout l = prob_layout(a);
  const Device dev = class_device(a);
  Tensor x = contiguous(a.input);
  Tensor tg = contiguous(to_dtype(a.target, DType::Float64));
  Tensor w = a.weight.defined() ? contiguous(to_dtype(a.weight, DType::Float64)) : x;
  Tensor out = a.reduction == Reduction::None ? empty(l.out_shape, x.dtype(), dev) : empty({}, x.dtype(), dev);
  const ClassAttrs at(a, l);
  run_kernel(KernelId::prob_cross_entropy, dev, {&x, &tg, &w}, {&out},
             {at.attrs[0], at.attrs[1], at.attrs[2], at.attrs[3], at.attrs[4], at.attrs[5]});
  return out;
}

std::pair<Tensor, Tensor> prob_cross_entropy_backward(const ClassLossArgs& a, const Tensor& grad, bool want_input,
                                                      bool want_target) {
  Layout l = prob_layout(a);
  const Device dev = class_device(a);
  Tensor gi = want_input ? empty(a.input.shape(), a.input.dtype(), dev) : Tensor();
  Tensor gt = want_target ? empty(a.input.shape(), DType::Float64, dev) : Tensor();  // converted at the end
  if (!want_input && !want_target) return {gi, gt};
  Tensor x = contiguous(a.input);
  Tensor tg = contiguous(to_dtype(a.target, DType::Float64));
  Tensor w = a.weight.defined() ? contiguous(to_dtype(a.weight, DType::Float64)) : x;
  Tensor g = contiguous(to_dtype(to_device(grad, dev), DType::Float64));
  const Tensor& any = want_input ? gi : gt;
  const ClassAttrs at(a, l);
  // Attribute 6: which gradients (1 input, 2 target).
  run_kernel(KernelId::prob_cross_entropy_backward, dev, {&x, &tg, &w, &g},
             {want_input ? &gi : &any, want_target ? &gt : &any},
             {at.attrs[0], at.attrs[1], at.attrs[2], at.attrs[3], at.attrs[4], at.attrs[5],
              attr_i((want_input ? 1 : 0) | (want_target ? 2 : 0))});
  return {gi, want_target ? to_dtype(gt, a.target.dtype()) : Tensor()};
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::kGrain;
using ops::PointwiseLoss;

namespace {

// Sum over [0, n) of f(b, e) evaluated on fixed chunks of `grain` items, in chunk order.
template <class F>
double chunked_sum(int64_t n, int64_t grain, F f) {
  grain = std::max<int64_t>(grain, 1);
  int64_t chunks = (n + grain - 1) / grain;
  if (chunks <= 1) return n > 0 ? f(int64_t{0}, n) : 0.0;
  std::vector<double> part(static_cast<size_t>(chunks), 0.0);
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) part[c] = f(c * grain, std::min(n, (c + 1) * grain));
  });
  double s = 0;
  for (double v : part) s += v;
  return s;
}

// Runs f(b, e) over [0, n), parallel above `grain` items.
template <class F>
void for_range(int64_t n, int64_t grain, F f) {
  parallel_for(0, n, std::max<int64_t>(grain, 1), f);
}

// Either writes value(i) to out[i] for i in [0, n) (reduction none: returns 0) or returns the
// sum of value(i) over fixed chunks of `grain` items (independent of the thread count).
template <class T, class V>
double write_or_sum(bool none, T* out, int64_t n, int64_t grain, V value) {
  if (none) {
    for_range(n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = static_cast<T>(value(i));
    });
    return 0;
  }
  return chunked_sum(n, grain, [&](int64_t b, int64_t e) {
    double acc = 0;
    for (int64_t i = b; i < e; ++i) acc += value(i);
    return acc;
  });
}

// log(sum_c exp(x(c))) over c in [0, C), shifted by the max; a NaN propagates, an all -inf row gives -inf.
template <class X>
double row_logsumexp(int64_t C, X x) {
  double m = -INFINITY;
  for (int64_t c = 0; c < C; ++c) {
    double v = x(c);
    m = (v > m || v != v) ? v : m;  // a NaN sticks: nothing compares greater
  }
  double mm = std::isinf(m) ? 0.0 : m;
  double se = 0;
  for (int64_t c = 0; c < C; ++c) se += std::exp(x(c) - mm);
  return std::log(se) + mm;
}

inline double softplus_neg(double x) { return std::log1p(std::exp(-std::fabs(x))) + std::max(-x, 0.0); }
inline double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

// The elementwise loss (before weighting).
inline double loss_value(PointwiseLoss k, double x, double t, double pw, double param) {
  switch (k) {
    case PointwiseLoss::Mse: {
      double d = x - t;
      return d * d;
    }
    case PointwiseLoss::L1:
      return std::fabs(x - t);
    case PointwiseLoss::SmoothL1: {
      double d = std::fabs(x - t);
      if (param == 0) return d;
      return d < param ? 0.5 * d * d / param : d - 0.5 * param;
    }
    case PointwiseLoss::Huber: {
      double d = std::fabs(x - t);
      return d < param ? 0.5 * d * d : param * (d - 0.5 * param);
    }
    case PointwiseLoss::Bce:
      return -(t * std::max(std::log(x), -100.0) + (1 - t) * std::max(std::log1p(-x), -100.0));
    case PointwiseLoss::BceLogits: {
      double lw = 1 + (pw - 1) * t;
      return (1 - t) * x + lw * softplus_neg(x);
    }
  }
  return 0;
}

// dL/dx and dL/dt (before weighting).
inline void loss_derivs(PointwiseLoss k, double x, double t, double pw, double param, double& dx, double& dt) {
  switch (k) {
    case PointwiseLoss::Mse:
      dx = 2 * (x - t);
      dt = -dx;
      return;
    case PointwiseLoss::L1: {
      double d = x - t;
      dx = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
      dt = -dx;
      return;
    }
    case PointwiseLoss::SmoothL1: {
      double d = x - t;
      double s = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
      dx = std::fabs(d) < param ? d / param : s;
      dt = -dx;
      return;
    }
    case PointwiseLoss::Huber: {
      double d = x - t;
      dx = std::min(std::max(d, -param), param);
      dt = -dx;
      return;
    }
    case PointwiseLoss::Bce:
      dx = (x - t) / std::max((1 - x) * x, 1e-12);
      dt = std::log1p(-x) - std::log(x);
      return;
    case PointwiseLoss::BceLogits: {
      double lw = 1 + (pw - 1) * t;
      dx = (1 - t) - lw * (1 - sigmoid(x));
      dt = -x + (pw - 1) * softplus_neg(x);
      return;
    }
  }
}

// torch's range check of binary_cross_entropy's input (the first thing its kernel does).
template <class T>
void check_bce_input(const T* xp, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    double v = static_cast<double>(static_cast<acc_t<T>>(xp[i]));
    GLIA_CHECK(v >= 0 && v <= 1, InvalidArgument, "all elements of input should be between 0 and 1");
  }
}

}  // namespace

// ---- pointwise losses

void pointwise_loss_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &out = k.output(0);
  const PointwiseLoss kind = static_cast<PointwiseLoss>(k.attr(0).i);
  const double param = k.attr(1).f;
  const Reduction reduction = static_cast<Reduction>(k.attr(2).i);
  const int64_t flags = k.attr(3).i, n = xt.numel();
  dispatch_floating(xt.dtype(), "loss", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = xt.data_ptr<T>();
    const T* tp = k.input(1).data_ptr<T>();
    const T* wp = (flags & 1) ? k.input(2).data_ptr<T>() : nullptr;
    const T* pwp = (flags & 2) ? k.input(3).data_ptr<T>() : nullptr;
    if (kind == PointwiseLoss::Bce) check_bce_input(xp, n);
    auto value = [&](int64_t i) {
      double x = static_cast<A>(xp[i]), t = static_cast<A>(tp[i]);
      double v = loss_value(kind, x, t, pwp ? static_cast<double>(static_cast<A>(pwp[i])) : 1.0, param);
      return wp ? v * static_cast<double>(static_cast<A>(wp[i])) : v;
    };
    const bool none = reduction == Reduction::None;
    double s = write_or_sum(none, out.data_ptr<T>(), n, kGrain, value);
    if (!none) *out.data_ptr<T>() = static_cast<T>(reduction == Reduction::Mean ? s / static_cast<double>(n) : s);
  });
}

void pointwise_loss_backward_kernel(const KernelArgs& k) {
  const Tensor& xt = k.input(0);
  const PointwiseLoss kind = static_cast<PointwiseLoss>(k.attr(0).i);
  const double param = k.attr(1).f;
  const Reduction reduction = static_cast<Reduction>(k.attr(2).i);
  const int64_t flags = k.attr(3).i, n = xt.numel();
  const bool none = reduction == Reduction::None;
  double scale = 1.0;
  if (!none) {
    scale = *k.input(4).data_ptr<double>();
    if (reduction == Reduction::Mean) scale /= static_cast<double>(n);
  }
  dispatch_floating(xt.dtype(), "loss_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = xt.data_ptr<T>();
    const T* tp = k.input(1).data_ptr<T>();
    const T* wp = (flags & 1) ? k.input(2).data_ptr<T>() : nullptr;
    const T* pwp = (flags & 2) ? k.input(3).data_ptr<T>() : nullptr;
    const T* gp = none ? k.input(4).data_ptr<T>() : nullptr;
    T* gip = (flags & 4) ? k.output(0).data_ptr<T>() : nullptr;
    T* gtp = (flags & 8) ? k.output(1).data_ptr<T>() : nullptr;
    if (kind == PointwiseLoss::Bce) check_bce_input(xp, n);
    for_range(n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        double dx, dt;
        loss_derivs(kind, static_cast<A>(xp[i]), static_cast<A>(tp[i]),
                    pwp ? static_cast<double>(static_cast<A>(pwp[i])) : 1.0, param, dx, dt);
        double s = gp ? static_cast<double>(static_cast<A>(gp[i])) : scale;
        if (wp) s *= static_cast<double>(static_cast<A>(wp[i]));
        if (gip) gip[i] = static_cast<T>(dx * s);
        if (gtp) gtp[i] = static_cast<T>(dt * s);
      }
    });
  });
}

// ---- nll_loss / cross_entropy

namespace {

// The attributes the class kernels share (ops::ClassAttrs).
struct ClassKernelArgs {
  int64_t N, C, S, ignore_index;
  Reduction reduction;
  double ls;
  bool log_softmax;
  const double* wp;  // float64 class weights, or nullptr
  explicit ClassKernelArgs(const KernelArgs& k)
      : N(k.attr(0).ints[0]),
        C(k.attr(0).ints[1]),
        S(k.attr(0).ints[2]),
        ignore_index(k.attr(1).i),
        reduction(static_cast<Reduction>(k.attr(2).i)),
        ls(k.attr(3).f),
        log_softmax(k.attr(4).i != 0),
        wp(k.attr(5).i ? k.input(2).data_ptr<double>() : nullptr) {}
};

// The sum of the weights of the non-ignored targets (the mean's divisor), in target order.
double class_total_weight(const ClassKernelArgs& a, const int64_t* tp, int64_t P) {
  double total = 0;
  for (int64_t i = 0; i < P; ++i)
    if (tp[i] != a.ignore_index) total += a.wp ? a.wp[tp[i]] : 1.0;
  return total;
}

}  // namespace

void class_loss_kernel(const KernelArgs& k) {
  const ClassKernelArgs a(k);
  const Tensor &x = k.input(0), &loss = k.output(0);
  const int64_t C = a.C, S = a.S, P = a.N * a.S;
  const int64_t* tp = k.input(1).data_ptr<int64_t>();
  // Targets first, serially, so the error names the first bad one.
  for (int64_t i = 0; i < P; ++i) {
    int64_t c = tp[i];
    GLIA_CHECK(c == a.ignore_index || (c >= 0 && c < C), InvalidArgument, "Target ", c, " is out of bounds.");
  }
  const double* wp = a.wp;
  const double total_weight = class_total_weight(a, tp, P);
  double* lsep = a.log_softmax ? k.output(1).data_ptr<double>() : nullptr;
  const bool none = a.reduction == Reduction::None;
  const double ls = a.ls;
  dispatch_floating(x.dtype(), "nll_loss", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* op = none ? loss.data_ptr<T>() : nullptr;
    auto at = [&](int64_t pos, int64_t c) {
      int64_t i = pos / S, s = pos - i * S;
      return static_cast<double>(static_cast<A>(xp[(i * C + c) * S + s]));
    };
    // Loss at position pos (0 where ignored).
    auto value = [&](int64_t pos) -> double {
      int64_t t = tp[pos];
      if (!a.log_softmax) {
        if (t == a.ignore_index) return 0.0;
        return -(wp ? wp[t] : 1.0) * at(pos, t);
      }
      double lse = row_logsumexp(C, [&](int64_t c) { return at(pos, c); });
      lsep[pos] = lse;
      if (t == a.ignore_index) return 0.0;
      double v = -(wp ? wp[t] : 1.0) * (at(pos, t) - lse) * (1 - ls);
      if (ls > 0) {
        double sm = 0;
        for (int64_t c = 0; c < C; ++c) sm -= (wp ? wp[c] : 1.0) * (at(pos, c) - lse);
        v += sm * ls / static_cast<double>(C);
      }
      return v;
    };
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(C, 1));
    double s = write_or_sum(none, op, P, grain, value);
    if (!none) *loss.data_ptr<T>() = static_cast<T>(a.reduction == Reduction::Mean ? s / total_weight : s);
  });
}

void class_loss_backward_kernel(const KernelArgs& k) {
  const ClassKernelArgs a(k);
  const Tensor &x = k.input(0), &gi = k.output(0);
  const int64_t C = a.C, S = a.S, P = a.N * a.S;
  const int64_t* tp = k.input(1).data_ptr<int64_t>();
  const double* wp = a.wp;
  double w_all = 0;
  for (int64_t c = 0; c < C; ++c) w_all += wp ? wp[c] : 1.0;
  const bool none = a.reduction == Reduction::None;
  const double* gp = k.input(4).data_ptr<double>();
  double scale = none ? 1.0 : gp[0];
  if (a.reduction == Reduction::Mean) scale /= class_total_weight(a, tp, P);
  const double ls = a.ls;
  const double* lsep = a.log_softmax ? k.input(3).data_ptr<double>() : nullptr;
  if (gi.numel() > 0) std::memset(gi.data(), 0, static_cast<size_t>(gi.numel()) * itemsize(gi.dtype()));
  dispatch_floating(x.dtype(), "nll_loss_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* op = gi.data_ptr<T>();
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(C, 1));
    for_range(P, grain, [&](int64_t b, int64_t e) {
      for (int64_t pos = b; pos < e; ++pos) {
        int64_t t = tp[pos];
        if (t == a.ignore_index) continue;
        int64_t i = pos / S, s = pos - i * S;
        double gs = none ? gp[pos] : scale;
        int64_t base = i * C * S + s;
        if (!a.log_softmax) {
          op[base + t * S] = static_cast<T>(-(wp ? wp[t] : 1.0) * gs);
          continue;
        }
        double wt = (wp ? wp[t] : 1.0) * (1 - ls);
        double lse = lsep[pos];
        for (int64_t c = 0; c < C; ++c) {
          double pc = std::exp(static_cast<double>(static_cast<A>(xp[base + c * S])) - lse);
          double d = wt * (pc - (c == t ? 1.0 : 0.0));
          if (ls > 0) d += ls / static_cast<double>(C) * (w_all * pc - (wp ? wp[c] : 1.0));
          op[base + c * S] = static_cast<T>(d * gs);
        }
      }
    });
  });
}

void prob_cross_entropy_kernel(const KernelArgs& k) {
  const ClassKernelArgs a(k);
  const Tensor &x = k.input(0), &out = k.output(0);
  const int64_t C = a.C, S = a.S, P = a.N * a.S;
  const double* tp = k.input(1).data_ptr<double>();
  const double* wp = a.wp;
  const bool none = a.reduction == Reduction::None;
  const double ls = a.ls;
  dispatch_floating(x.dtype(), "cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    auto value = [&](int64_t pos) {
      int64_t i = pos / S, s = pos - i * S, base = i * C * S + s;
      double lse = row_logsumexp(C, [&](int64_t c) { return static_cast<double>(static_cast<A>(xp[base + c * S])); });
      double v = 0;
      for (int64_t c = 0; c < C; ++c) {
        double t = tp[base + c * S] * (1 - ls) + ls / static_cast<double>(C);
        v -= (wp ? wp[c] : 1.0) * t * (static_cast<double>(static_cast<A>(xp[base + c * S])) - lse);
      }
      return v;
    };
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(C, 1));
    double s = write_or_sum(none, out.data_ptr<T>(), P, grain, value);
    if (!none)
      *out.data_ptr<T>() =
          static_cast<T>(a.reduction == Reduction::Mean ? (P == 0 ? NAN : s / static_cast<double>(P)) : s);
  });
}

void prob_cross_entropy_backward_kernel(const KernelArgs& k) {
  const ClassKernelArgs a(k);
  const Tensor& x = k.input(0);
  const int64_t C = a.C, S = a.S, P = a.N * a.S;
  const double* tp = k.input(1).data_ptr<double>();
  const double* wp = a.wp;
  const bool none = a.reduction == Reduction::None;
  const double* gp = k.input(3).data_ptr<double>();
  double scale = none ? 1.0 : gp[0];
  if (a.reduction == Reduction::Mean) scale /= static_cast<double>(P);
  const int64_t mask = k.attr(6).i;
  double* gtp = (mask & 2) ? k.output(1).data_ptr<double>() : nullptr;
  const double ls = a.ls;
  dispatch_floating(x.dtype(), "cross_entropy_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* gip = (mask & 1) ? k.output(0).data_ptr<T>() : nullptr;
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(C, 1));
    for_range(P, grain, [&](int64_t b, int64_t e) {
      for (int64_t pos = b; pos < e; ++pos) {
        int64_t i = pos / S, s = pos - i * S, base = i * C * S + s;
        double gs = none ? gp[pos] : scale;
        double lse = row_logsumexp(C, [&](int64_t c) { return static_cast<double>(static_cast<A>(xp[base + c * S])); });
        double wt_sum = 0;
        for (int64_t c = 0; c < C; ++c)
          wt_sum += (wp ? wp[c] : 1.0) * (tp[base + c * S] * (1 - ls) + ls / static_cast<double>(C));
        for (int64_t c = 0; c < C; ++c) {
          int64_t kk = base + c * S;
          double xv = static_cast<A>(xp[kk]);
          double wc = wp ? wp[c] : 1.0;
          if (gip) {
            double t = tp[kk] * (1 - ls) + ls / static_cast<double>(C);
            gip[kk] = static_cast<T>(gs * (std::exp(xv - lse) * wt_sum - wc * t));
          }
          if (gtp) gtp[kk] = -gs * (1 - ls) * wc * (xv - lse);
        }
      }
    });
  });
}

}  // namespace glia::cpu
