// Built-in modules: normalisation layers and losses (glia_nn_batch_norm1d, ..., glia_nn_bce_with_logits_loss).
#include <cstddef>

#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/loss.h"
#include "nn/modules/norm.h"

using namespace glia;
using namespace glia::capi;

namespace {

nn::BatchNormOptions batch_norm_options(const glia_batch_norm_options* o, const char* fn) {
  glia_batch_norm_options d;
  glia_batch_norm_options_init(&d);
  if (o) {
    check_struct_size(o, fn, "glia_batch_norm_options_init");
    GLIA_READ(o, eps, d.eps);
    GLIA_READ(o, momentum, d.momentum);
    GLIA_READ(o, momentum_none, d.momentum_none);
    GLIA_READ(o, affine, d.affine);
    GLIA_READ(o, track_running_stats, d.track_running_stats);
  }
  nn::BatchNormOptions r;
  r.eps = d.eps;
  if (d.momentum_none)
    r.momentum = std::nullopt;
  else
    r.momentum = d.momentum;
  r.affine = d.affine != 0;
  r.track_running_stats = d.track_running_stats != 0;
  return r;
}

glia_error* batch_norm_entry(int spatial_dims, int64_t num_features, const glia_batch_norm_options* options,
                             const glia_factory_options* factory, glia_module** out, const char* fn) {
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    nn::BatchNormOptions o = batch_norm_options(options, fn);
    return make_ref<nn::BatchNorm>(spatial_dims, num_features, o, f);
  });
}

// Simple losses: validates the reduction inside the guard.
template <class F>
glia_error* simple_loss(nn::LossKind kind, glia_reduction reduction, const glia_factory_options* factory,
                        glia_module** out, const char* fn, F extra) {
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    nn::LossOptions o;
    o.reduction = reduction_arg(reduction, fn);
    extra(o);
    return make_ref<nn::Loss>(kind, o);
  });
}

}  // namespace

extern "C" {

void glia_batch_norm_options_init(glia_batch_norm_options* o) {
  if (!o) return;
  *o = glia_batch_norm_options{};
  o->struct_size = sizeof(glia_batch_norm_options);
  o->eps = 1e-5;
  o->momentum = 0.1;
  o->momentum_none = 0;
  o->affine = 1;
  o->track_running_stats = 1;
}

glia_error* glia_nn_batch_norm1d(int64_t num_features, const glia_batch_norm_options* options,
                                 const glia_factory_options* factory, glia_module** out) {
  return batch_norm_entry(1, num_features, options, factory, out, "glia_nn_batch_norm1d");
}

glia_error* glia_nn_batch_norm2d(int64_t num_features, const glia_batch_norm_options* options,
                                 const glia_factory_options* factory, glia_module** out) {
  return batch_norm_entry(2, num_features, options, factory, out, "glia_nn_batch_norm2d");
}

glia_error* glia_nn_layer_norm(const int64_t* normalized_shape, int64_t n, double eps, int32_t elementwise_affine,
                               int32_t bias, const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_layer_norm";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    IntSpan shape = dims_arg(normalized_shape, n, fn, "normalized_shape", "n");
    return make_ref<nn::LayerNorm>(shape, eps, elementwise_affine != 0, bias != 0, f);
  });
}

glia_error* glia_nn_group_norm(int64_t num_groups, int64_t num_channels, double eps, int32_t affine,
                               const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_group_norm", [&](const nn::Factory& f) -> nn::ModuleRef {
    return make_ref<nn::GroupNorm>(num_groups, num_channels, eps, affine != 0, f);
  });
}

glia_error* glia_nn_cross_entropy_loss(const glia_cross_entropy_options* options, const glia_factory_options* factory,
                                       glia_module** out) {
  const char* fn = "glia_nn_cross_entropy_loss";
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    glia_cross_entropy_options d = cross_entropy_options_arg(options, fn);
    nn::LossOptions o;
    o.weight = tensor_opt(d.weight, fn, "options->weight");
    o.ignore_index = d.ignore_index;
    o.reduction = reduction_arg(d.reduction, fn, "options->reduction");
    o.label_smoothing = d.label_smoothing;
    return make_ref<nn::Loss>(nn::LossKind::CrossEntropy, o);
  });
}

glia_error* glia_nn_nll_loss(const glia_nll_loss_options* options, const glia_factory_options* factory,
                             glia_module** out) {
  const char* fn = "glia_nn_nll_loss";
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    glia_nll_loss_options d = nll_loss_options_arg(options, fn);
    nn::LossOptions o;
    o.weight = tensor_opt(d.weight, fn, "options->weight");
    o.ignore_index = d.ignore_index;
    o.reduction = reduction_arg(d.reduction, fn, "options->reduction");
    return make_ref<nn::Loss>(nn::LossKind::NLL, o);
  });
}

glia_error* glia_nn_mse_loss(glia_reduction reduction, const glia_factory_options* factory, glia_module** out) {
  return simple_loss(nn::LossKind::MSE, reduction, factory, out, "glia_nn_mse_loss", [](nn::LossOptions&) {});
}

glia_error* glia_nn_l1_loss(glia_reduction reduction, const glia_factory_options* factory, glia_module** out) {
  return simple_loss(nn::LossKind::L1, reduction, factory, out, "glia_nn_l1_loss", [](nn::LossOptions&) {});
}

glia_error* glia_nn_smooth_l1_loss(glia_reduction reduction, double beta, const glia_factory_options* factory,
                                   glia_module** out) {
  return simple_loss(nn::LossKind::SmoothL1, reduction, factory, out, "glia_nn_smooth_l1_loss",
                     [&](nn::LossOptions& o) { o.beta = beta; });
}

glia_error* glia_nn_huber_loss(glia_reduction reduction, double delta, const glia_factory_options* factory,
                               glia_module** out) {
  return simple_loss(nn::LossKind::Huber, reduction, factory, out, "glia_nn_huber_loss",
                     [&](nn::LossOptions& o) { o.delta = delta; });
}

glia_error* glia_nn_bce_loss(glia_tensor* weight_or_null, glia_reduction reduction, const glia_factory_options* factory,
                             glia_module** out) {
  const char* fn = "glia_nn_bce_loss";
  return simple_loss(nn::LossKind::BCE, reduction, factory, out, fn,
                     [&](nn::LossOptions& o) { o.weight = tensor_opt(weight_or_null, fn, "weight"); });
}

glia_error* glia_nn_bce_with_logits_loss(glia_tensor* weight_or_null, glia_tensor* pos_weight_or_null,
                                         glia_reduction reduction, const glia_factory_options* factory,
                                         glia_module** out) {
  const char* fn = "glia_nn_bce_with_logits_loss";
  return simple_loss(nn::LossKind::BCEWithLogits, reduction, factory, out, fn, [&](nn::LossOptions& o) {
    o.weight = tensor_opt(weight_or_null, fn, "weight");
    o.pos_weight = tensor_opt(pos_weight_or_null, fn, "pos_weight");
  });
}

}  // extern "C"
