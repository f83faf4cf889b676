#include "autograd/fn/loss.h"

#include "autograd/fn/elementwise.h"
#include "autograd/fn/reduce.h"
#include "ops/elementwise.h"

namespace glia {

namespace {

Tensor as_dtype(const Tensor& g, DType t) { return !g.defined() || g.dtype() == t ? g : to_dtype(g, t); }

// mse: written with differentiable ops, so double backward works.
struct MseLossBackward : Node {
  SavedTensor input, target;
  Reduction reduction;
  Dims in_shape, t_shape;
  DType in_dtype, t_dtype;
  const char* name() const override { return "MseLossBackward0"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = input.unpack(name()), t = target.unpack(name());
    Tensor d = sub(x, t);
    double scale = 2.0;
    if (reduction == Reduction::Mean) scale /= static_cast<double>(d.numel());
    Tensor gd = mul(mul(d, ops::wrapped_scalar(scale, false)), g[0]);
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = as_dtype(sum_to(gd, in_shape), in_dtype);
    if (next_edges[1].valid()) r[1] = as_dtype(neg(sum_to(gd, t_shape)), t_dtype);
    return r;
  }
  void release_variables() override {
    input.release();
    target.release();
  }
};

struct PointwiseLossBackward : Node {
  SavedTensor input, target, weight, pos_weight;
  ops::PointwiseLoss kind;
  double param;
  Reduction reduction;
  Dims in_shape, t_shape;
  DType in_dtype, t_dtype;
  const char* name() const override {
    switch (kind) {
      case ops::PointwiseLoss::L1:  // torch's l1_loss is (input - target).abs() then the reduction
        return reduction == Reduction::None   ? "AbsBackward0"
               : reduction == Reduction::Mean ? "MeanBackward0"
                                              : "SumBackward0";
      case ops::PointwiseLoss::SmoothL1:
        return "SmoothL1LossBackward0";
      case ops::PointwiseLoss::Huber:
        return "HuberLossBackward0";
      case ops::PointwiseLoss::Bce:
        return "BinaryCrossEntropyBackward0";
      default:
        return "BinaryCrossEntropyWithLogitsBackward0";
    }
  }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    ops::PointwiseArgs a{
        kind,     input.unpack(name()), target.unpack(name()), weight.unpack(name()), pos_weight.unpack(name()), param,
        reduction};
    auto [gi, gt] = ops::pointwise_loss_backward(a, g[0], next_edges[0].valid(), next_edges[1].valid());
    TensorList r(2);
    if (gi.defined()) r[0] = as_dtype(sum_to(gi, in_shape), in_dtype);
    if (gt.defined()) r[1] = as_dtype(sum_to(gt, t_shape), t_dtype);
    return r;
  }
  void release_variables() override {
    input.release();
    target.release();
    weight.release();
    pos_weight.release();
  }
};

struct ClassLossBackward : Node {
  SavedTensor input, target, weight;
  ops::ClassLossArgs args;  // tensors cleared; restored from the saved ones in apply
  ops::ClassLossResult result;
  const char* node_name = "NllLossBackward0";
  const char* name() const override { return node_name; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    ops::ClassLossArgs a = args;
    a.input = input.unpack(name());
    a.target = target.unpack(name());
    a.weight = weight.unpack(name());
    return {ops::class_loss_backward(a, result, g[0])};
  }
  void release_variables() override {
    input.release();
    target.release();
    weight.release();
    result.lse = Tensor();
  }
};

struct ProbCrossEntropyBackward : Node {
  SavedTensor input, target, weight;
  ops::ClassLossArgs args;
  const char* name() const override { return args.reduction == Reduction::Mean ? "DivBackward1" : "NegBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    ops::ClassLossArgs a = args;
    a.input = input.unpack(name());
    a.target = target.unpack(name());
    a.weight = weight.unpack(name());
    auto [gi, gt] = ops::prob_cross_entropy_backward(a, g[0], next_edges[0].valid(), next_edges[1].valid());
    return {gi, gt};
  }
  void release_variables() override {
    input.release();
    target.release();
    weight.release();
  }
};

Tensor pointwise(ops::PointwiseLoss kind, const Tensor& input, const Tensor& target, const Tensor& weight,
                 const Tensor& pos_weight, double param, Reduction reduction) {
  ops::PointwiseArgs a{kind, input, target, weight, pos_weight, param, reduction};
  Tensor out = ops::pointwise_loss(a);
  if (any_requires_grad({&input, &target})) {
    if (kind == ops::PointwiseLoss::Mse) {
      auto n = make_ref<MseLossBackward>();
      n->input = SavedTensor(input);
      n->target = SavedTensor(target);
      n->reduction = reduction;
      n->in_shape = input.shape();
      n->t_shape = target.shape();
      n->in_dtype = input.dtype();
      n->t_dtype = target.dtype();
      set_history(n.get(), {&input, &target}, {&out});
    } else {
      auto n = make_ref<PointwiseLossBackward>();
      n->input = SavedTensor(input);
      n->target = SavedTensor(target);
      n->weight = SavedTensor(weight.defined() ? detach(weight) : weight);
      n->pos_weight = SavedTensor(pos_weight.defined() ? detach(pos_weight) : pos_weight);
      n->kind = kind;
      n->param = param;
      n->reduction = reduction;
      n->in_shape = input.shape();
      n->t_shape = target.shape();
      n->in_dtype = input.dtype();
      n->t_dtype = target.dtype();
      set_history(n.get(), {&input, &target}, {&out});
    }
  }
  return out;
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return pointwise(ops::PointwiseLoss::Mse, input, target, {}, {}, 0.0, reduction);
}
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return pointwise(ops::PointwiseLoss::L1, input, target, {}, {}, 0.0, reduction);
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  return pointwise(ops::PointwiseLoss::SmoothL1, input, target, {}, {}, beta, reduction);
}
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  return pointwise(ops::PointwiseLoss::Huber, input, target, {}, {}, delta, reduction);
}
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction) {
  return pointwise(ops::PointwiseLoss::Bce, input, target, weight, {}, 0.0, reduction);
}
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, Reduction reduction) {
  return pointwise(ops::PointwiseLoss::BceLogits, input, target, weight, pos_weight, 0.0, reduction);
}

namespace {

Tensor class_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                  Reduction reduction, double label_smoothing, bool log_softmax) {
  ops::ClassLossArgs a{input, target, weight, ignore_index, reduction, label_smoothing, log_softmax};
  ops::ClassLossResult r = ops::class_loss(a);
  Tensor out = r.loss;
  if (any_requires_grad({&input})) {
    auto n = make_ref<ClassLossBackward>();
    n->input = SavedTensor(input);
    n->target = SavedTensor(target);
    n->weight = SavedTensor(weight.defined() ? detach(weight) : weight);
    n->args = ops::ClassLossArgs{{}, {}, {}, ignore_index, reduction, label_smoothing, log_softmax};
    n->result = ops::ClassLossResult{Tensor(), r.lse};
    n->node_name = log_softmax && label_smoothing > 0 ? "AddBackward0"
                   : input.dim() >= 3                 ? "NllLoss2DBackward0"
                                                      : "NllLossBackward0";
    set_history(n.get(), {&input}, {&out});
  }
  return out;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  return class_loss(input, target, weight, ignore_index, reduction, 0.0, false);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     Reduction reduction, double label_smoothing) {
  if (!ops::is_prob_target(input, target))
    return class_loss(input, target, weight, ignore_index, reduction, label_smoothing, true);
  ops::ClassLossArgs a{input, target, weight, ignore_index, reduction, label_smoothing, true};
  Tensor out = ops::prob_cross_entropy(a);
  if (any_requires_grad({&input, &target})) {
    auto n = make_ref<ProbCrossEntropyBackward>();
    n->input = SavedTensor(input);
    n->target = SavedTensor(target);
    n->weight = SavedTensor(weight.defined() ? detach(weight) : weight);
    n->args = ops::ClassLossArgs{{}, {}, {}, ignore_index, reduction, label_smoothing, true};
    set_history(n.get(), {&input, &target}, {&out});
  }
  return out;
}

}  // namespace glia
