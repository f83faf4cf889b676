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
    case LossKind::KLDiv:
      return "KLDivLoss";
    case LossKind::PoissonNLL:
      return "PoissonNLLLoss";
    case LossKind::GaussianNLL:
      return "GaussianNLLLoss";
    case LossKind::MarginRanking:
      return "MarginRankingLoss";
    case LossKind::HingeEmbedding:
      return "HingeEmbeddingLoss";
    case LossKind::SoftMargin:
      return "SoftMarginLoss";
    case LossKind::MultiLabelSoftMargin:
      return "MultiLabelSoftMarginLoss";
    case LossKind::CosineEmbedding:
      return "CosineEmbeddingLoss";
    case LossKind::MultiMargin:
      return "MultiMarginLoss";
    case LossKind::MultiLabelMargin:
      return "MultiLabelMarginLoss";
    case LossKind::TripletMargin:
      return "TripletMarginLoss";
    case LossKind::TripletMarginWithDistance:
      return "TripletMarginWithDistanceLoss";
  }
  return "Loss";
}
bool weighted(LossKind k) {
  return k == LossKind::CrossEntropy || k == LossKind::NLL || k == LossKind::BCE || k == LossKind::BCEWithLogits ||
         k == LossKind::MultiLabelSoftMargin || k == LossKind::MultiMargin;
}
size_t arity(LossKind k) {
  switch (k) {
    case LossKind::GaussianNLL:
    case LossKind::MarginRanking:
    case LossKind::CosineEmbedding:
    case LossKind::TripletMargin:
    case LossKind::TripletMarginWithDistance:
      return 3;
    default:
      return 2;
  }
}
}  // namespace

Loss::Loss(LossKind kind, const LossOptions& options) : Module(loss_name(kind)), kind_(kind), options_(options) {
  if (weighted(kind)) register_buffer("weight", options.weight);
  if (kind == LossKind::BCEWithLogits) register_buffer("pos_weight", options.pos_weight);
  options_.weight = Tensor();
  options_.pos_weight = Tensor();
}

TensorList Loss::forward(const TensorList& inputs) {
  const size_t n = arity(kind_);
  check_num_inputs(inputs, n);
  const Tensor& x = inputs[0];
  const Tensor& t = inputs[1];
  if (n == 3)
    GLIA_CHECK(x.defined() && t.defined() && inputs[2].defined(), InvalidArgument, type_name(),
               ".forward: the three inputs must be tensors");
  else
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
    case LossKind::KLDiv:
      return {kl_div(x, t, o.reduction, o.log_target, o.batchmean)};
    case LossKind::PoissonNLL:
      return {poisson_nll_loss(x, t, o.log_input, o.full, o.eps, o.reduction)};
    case LossKind::GaussianNLL:
      return {gaussian_nll_loss(x, t, inputs[2], o.full, o.eps, o.reduction)};
    case LossKind::MarginRanking:
      return {margin_ranking_loss(x, t, inputs[2], o.margin, o.reduction)};
    case LossKind::HingeEmbedding:
      return {hinge_embedding_loss(x, t, o.margin, o.reduction)};
    case LossKind::SoftMargin:
      return {soft_margin_loss(x, t, o.reduction)};
    case LossKind::MultiLabelSoftMargin:
      return {multilabel_soft_margin_loss(x, t, w, o.reduction)};
    case LossKind::CosineEmbedding:
      return {cosine_embedding_loss(x, t, inputs[2], o.margin, o.reduction)};
    case LossKind::MultiMargin:
      return {multi_margin_loss(x, t, static_cast<int64_t>(o.p), o.margin, w, o.reduction)};
    case LossKind::MultiLabelMargin:
      return {multilabel_margin_loss(x, t, o.reduction)};
    case LossKind::TripletMargin:
      return {triplet_margin_loss(x, t, inputs[2], o.margin, o.p, o.eps, o.swap, o.reduction)};
    case LossKind::TripletMarginWithDistance:
      return {triplet_margin_with_distance_loss(x, t, inputs[2], o.distance, o.margin, o.swap, o.reduction)};
  }
  return {};
}

}  // namespace glia::nn
