#include "nn/modules/loss.h"

#include "autograd/functions.h"

namespace glia::nn {

namespace {
const char* loss_name(LossKind k) {
  switch (k) {
    case LossKind::CrossEntropy:
      return "CrossEntropyLoss";
    case LossKind::NLL:
      return "NLLLoss";
    case LossKind::MSE:
      return "MSELoss";
    case LossKind::L1:
      return "L1Loss";
    case LossKind::SmoothL1:
      return "SmoothL1Loss";
    case LossKind::Huber:
      return "HuberLoss";
    case LossKind::BCE:
      return "BCELoss";
    case LossKind::BCEWithLogits:
      return "BCEWithLogitsLoss";
  }
  return "Loss";
}
bool weighted(LossKind k) {
  return k == LossKind::CrossEntropy || k == LossKind::NLL || k == LossKind::BCE || k == LossKind::BCEWithLogits;
}
}  // namespace

Loss::Loss(LossKind kind, const LossOptions& options) : Module(loss_name(kind)), kind_(kind), options_(options) {
  if (weighted(kind)) register_buffer("weight", options.weight);
  if (kind == LossKind::BCEWithLogits) register_buffer("pos_weight", options.pos_weight);
  options_.weight = Tensor();
  options_.pos_weight = Tensor();
}

TensorList Loss::forward(const TensorList& inputs) {
  check_num_inputs(inputs, 2);
  const Tensor& x = inputs[0];
  const Tensor& t = inputs[1];
  GLIA_CHECK(x.defined() && t.defined(), InvalidArgument, type_name(), ".forward: input and target must be tensors");
  const LossOptions& o = options_;
  Tensor w = weighted(kind_) ? buffer("weight") : Tensor();
  switch (kind_) {
    case LossKind::CrossEntropy:
      return {cross_entropy(x, t, w, o.ignore_index, o.reduction, o.label_smoothing)};
    case LossKind::NLL:
      return {nll_loss(x, t, w, o.ignore_index, o.reduction)};
    case LossKind::MSE:
      return {mse_loss(x, t, o.reduction)};
    case LossKind::L1:
      return {l1_loss(x, t, o.reduction)};
    case LossKind::SmoothL1:
      return {smooth_l1_loss(x, t, o.reduction, o.beta)};
    case LossKind::Huber:
      return {huber_loss(x, t, o.reduction, o.delta)};
    case LossKind::BCE:
      return {binary_cross_entropy(x, t, w, o.reduction)};
    case LossKind::BCEWithLogits:
      return {binary_cross_entropy_with_logits(x, t, w, buffer("pos_weight"), o.reduction)};
  }
  return {};
}

}  // namespace glia::nn
