// C entry points of the norms, dropouts and distances of issue 21: the
// functionals (glia_instance_norm, ..., glia_feature_alpha_dropout) and their
// modules (glia_nn_batch_norm3d, glia_nn_instance_norm1d, ..., glia_nn_feature_alpha_dropout).
#include "autograd/fn/nnmisc.h"

#include "autograd/fn/bilinear.h"
#include "autograd/fn/loss_extra.h"
#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/misc_nd.h"
#include "nn/modules/norm.h"

using namespace glia;
using namespace glia::capi;

namespace {

using K = nn::NnMisc::Kind;

template <class F>
glia_error* dropout_entry(const glia_tensor* x, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(f(xt));
  });
}

glia_error* instance_norm_entry(int spatial_dims, int64_t num_features, const glia_instance_norm_options* o,
                                const glia_factory_options* factory, glia_module** out, const char* fn) {
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    glia_instance_norm_options d;
    glia_instance_norm_options_init(&d);
    if (o) {
      check_struct_size(o, fn, "glia_instance_norm_options_init");
      GLIA_READ(o, eps, d.eps);
      GLIA_READ(o, momentum, d.momentum);
      GLIA_READ(o, affine, d.affine);
      GLIA_READ(o, track_running_stats, d.track_running_stats);
    }
    nn::InstanceNormOptions r;
    r.eps = d.eps;
    r.momentum = d.momentum;
    r.affine = d.affine != 0;
    r.track_running_stats = d.track_running_stats != 0;
    return make_ref<nn::InstanceNorm>(spatial_dims, num_features, r, f);
  });
}

glia_error* misc_entry(const glia_factory_options* factory, glia_module** out, const char* fn, K kind,
                       const nn::NnMisc::Args& args) {
  return module_entry(factory, out, fn,
                      [&](const nn::Factory&) -> nn::ModuleRef { return make_ref<nn::NnMisc>(kind, args); });
}

glia_error* dropout_module(double p, int32_t inplace, const glia_factory_options* factory, glia_module** out,
                           const char* fn, K kind) {
  nn::NnMisc::Args a;
  a.p = p;
  a.inplace = inplace != 0;
  return misc_entry(factory, out, fn, kind, a);
}

}  // namespace

extern "C" {

// ---- functionals

glia_error* glia_instance_norm(const glia_tensor* x, glia_tensor* running_mean, glia_tensor* running_var,
                               const glia_tensor* weight, const glia_tensor* bias, int32_t use_input_stats,
                               double momentum, double eps, glia_tensor** out) {
  const char* fn = "glia_instance_norm";
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor rm = tensor_opt(running_mean, fn, "running_mean");
    Tensor rv = tensor_opt(running_var, fn, "running_var");
    Tensor w = tensor_opt(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(instance_norm(xt, rm, rv, w, b, use_input_stats != 0, momentum, eps));
  });
}

glia_error* glia_local_response_norm(const glia_tensor* x, int64_t size, double alpha, double beta, double k,
                                     glia_tensor** out) {
  return unary_entry(x, out, "glia_local_response_norm",
                     [&](const Tensor& t) { return local_response_norm(t, size, alpha, beta, k); });
}

glia_error* glia_cosine_similarity(const glia_tensor* x1, const glia_tensor* x2, int64_t dim, double eps,
                                   glia_tensor** out) {
  const char* fn = "glia_cosine_similarity";
  return guard([&] {
    Tensor a = tensor_arg(x1, fn, "x1");
    Tensor b = tensor_arg(x2, fn, "x2");
    check_out(out, fn, "out");
    *out = tensor_handle(cosine_similarity(a, b, dim, eps));
  });
}

glia_error* glia_pairwise_distance(const glia_tensor* x1, const glia_tensor* x2, double p, double eps, int32_t keepdim,
                                   glia_tensor** out) {
  const char* fn = "glia_pairwise_distance";
  return guard([&] {
    Tensor a = tensor_arg(x1, fn, "x1");
    Tensor b = tensor_arg(x2, fn, "x2");
    check_out(out, fn, "out");
    *out = tensor_handle(pairwise_distance(a, b, p, eps, keepdim != 0));
  });
}

glia_error* glia_pdist(const glia_tensor* x, double p, glia_tensor** out) {
  return unary_entry(x, out, "glia_pdist", [&](const Tensor& t) { return pdist(t, p); });
}

glia_error* glia_bilinear(const glia_tensor* x1, const glia_tensor* x2, const glia_tensor* weight,
                          const glia_tensor* bias, glia_tensor** out) {
  const char* fn = "glia_bilinear";
  return guard([&] {
    Tensor a = tensor_arg(x1, fn, "x1");
    Tensor b = tensor_arg(x2, fn, "x2");
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor bi = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(bilinear(a, b, w, bi));
  });
}

glia_error* glia_softsign(const glia_tensor* x, glia_tensor** out) {
  return unary_entry(x, out, "glia_softsign", [](const Tensor& t) { return softsign(t); });
}

glia_error* glia_dropout1d(const glia_tensor* x, double p, int32_t training, glia_tensor** out) {
  return dropout_entry(x, out, "glia_dropout1d", [&](const Tensor& t) { return dropout1d(t, p, training != 0); });
}

glia_error* glia_dropout2d(const glia_tensor* x, double p, int32_t training, glia_tensor** out) {
  return dropout_entry(x, out, "glia_dropout2d", [&](const Tensor& t) { return dropout2d(t, p, training != 0); });
}

glia_error* glia_dropout3d(const glia_tensor* x, double p, int32_t training, glia_tensor** out) {
  return dropout_entry(x, out, "glia_dropout3d", [&](const Tensor& t) { return dropout3d(t, p, training != 0); });
}

glia_error* glia_alpha_dropout(const glia_tensor* x, double p, int32_t training, glia_tensor** out) {
  return dropout_entry(x, out, "glia_alpha_dropout",
                       [&](const Tensor& t) { return alpha_dropout(t, p, training != 0); });
}

glia_error* glia_feature_alpha_dropout(const glia_tensor* x, double p, int32_t training, glia_tensor** out) {
  return dropout_entry(x, out, "glia_feature_alpha_dropout",
                       [&](const Tensor& t) { return feature_alpha_dropout(t, p, training != 0); });
}

// ---- modules

glia_error* glia_nn_batch_norm3d(int64_t num_features, const glia_batch_norm_options* options,
                                 const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_batch_norm3d";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    glia_batch_norm_options d;
    glia_batch_norm_options_init(&d);
    if (options) {
      check_struct_size(options, fn, "glia_batch_norm_options_init");
      GLIA_READ(options, eps, d.eps);
      GLIA_READ(options, momentum, d.momentum);
      GLIA_READ(options, momentum_none, d.momentum_none);
      GLIA_READ(options, affine, d.affine);
      GLIA_READ(options, track_running_stats, d.track_running_stats);
    }
    nn::BatchNormOptions r;
    r.eps = d.eps;
    if (d.momentum_none)
      r.momentum = std::nullopt;
    else
      r.momentum = d.momentum;
    r.affine = d.affine != 0;
    r.track_running_stats = d.track_running_stats != 0;
    return make_ref<nn::BatchNorm>(3, num_features, r, f);
  });
}

void glia_instance_norm_options_init(glia_instance_norm_options* o) {
  if (!o) return;
  *o = glia_instance_norm_options{};
  o->struct_size = sizeof(glia_instance_norm_options);
  o->eps = 1e-5;
  o->momentum = 0.1;
  o->affine = 0;
  o->track_running_stats = 0;
}

glia_error* glia_nn_instance_norm1d(int64_t num_features, const glia_instance_norm_options* options,
                                    const glia_factory_options* factory, glia_module** out) {
  return instance_norm_entry(1, num_features, options, factory, out, "glia_nn_instance_norm1d");
}

glia_error* glia_nn_instance_norm2d(int64_t num_features, const glia_instance_norm_options* options,
                                    const glia_factory_options* factory, glia_module** out) {
  return instance_norm_entry(2, num_features, options, factory, out, "glia_nn_instance_norm2d");
}

glia_error* glia_nn_instance_norm3d(int64_t num_features, const glia_instance_norm_options* options,
                                    const glia_factory_options* factory, glia_module** out) {
  return instance_norm_entry(3, num_features, options, factory, out, "glia_nn_instance_norm3d");
}

glia_error* glia_nn_local_response_norm(int64_t size, double alpha, double beta, double k,
                                        const glia_factory_options* factory, glia_module** out) {
  nn::NnMisc::Args a;
  a.size = size;
  a.alpha = alpha;
  a.beta = beta;
  a.k = k;
  return misc_entry(factory, out, "glia_nn_local_response_norm", K::LocalResponseNorm, a);
}

glia_error* glia_nn_cosine_similarity(int64_t dim, double eps, const glia_factory_options* factory, glia_module** out) {
  nn::NnMisc::Args a;
  a.dim = dim;
  a.eps = eps;
  return misc_entry(factory, out, "glia_nn_cosine_similarity", K::CosineSimilarity, a);
}

glia_error* glia_nn_pairwise_distance(double p, double eps, int32_t keepdim, const glia_factory_options* factory,
                                      glia_module** out) {
  nn::NnMisc::Args a;
  a.p = p;
  a.eps = eps;
  a.keepdim = keepdim != 0;
  return misc_entry(factory, out, "glia_nn_pairwise_distance", K::PairwiseDistance, a);
}

glia_error* glia_nn_softsign(const glia_factory_options* factory, glia_module** out) {
  return misc_entry(factory, out, "glia_nn_softsign", K::Softsign, nn::NnMisc::Args{});
}

glia_error* glia_nn_dropout1d(double p, int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return dropout_module(p, inplace, factory, out, "glia_nn_dropout1d", K::Dropout1d);
}

glia_error* glia_nn_dropout2d(double p, int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return dropout_module(p, inplace, factory, out, "glia_nn_dropout2d", K::Dropout2d);
}

glia_error* glia_nn_dropout3d(double p, int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return dropout_module(p, inplace, factory, out, "glia_nn_dropout3d", K::Dropout3d);
}

glia_error* glia_nn_alpha_dropout(double p, int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return dropout_module(p, inplace, factory, out, "glia_nn_alpha_dropout", K::AlphaDropout);
}

glia_error* glia_nn_feature_alpha_dropout(double p, int32_t inplace, const glia_factory_options* factory,
                                          glia_module** out) {
  return dropout_module(p, inplace, factory, out, "glia_nn_feature_alpha_dropout", K::FeatureAlphaDropout);
}

}  // extern "C"
