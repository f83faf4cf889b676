// torch 1.13's other optimizers behind the C ABI: Adadelta, Adagrad, Adamax,
// ASGD, NAdam, RAdam and Rprop (optim/algorithms_extra.h). The shared
// glia_optimizer_* functions are in capi/optim.cpp.
#include <string>
#include <vector>

#include "capi/api.h"
#include "capi/options.h"
#include "optim/algorithms_extra.h"

using namespace glia;
using namespace glia::capi;

namespace {

optim::AdadeltaOptions adadelta_arg(const glia_adadelta_options* o, const char* fn) {
  optim::AdadeltaOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_adadelta_options_init");
  GLIA_READ(o, lr, r.lr);
  GLIA_READ(o, rho, r.rho);
  GLIA_READ(o, eps, r.eps);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

optim::AdagradOptions adagrad_arg(const glia_adagrad_options* o, const char* fn) {
  optim::AdagradOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_adagrad_options_init");
  GLIA_READ(o, lr, r.lr);
  GLIA_READ(o, lr_decay, r.lr_decay);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ(o, initial_accumulator_value, r.initial_accumulator_value);
  GLIA_READ(o, eps, r.eps);
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

optim::AdamaxOptions adamax_arg(const glia_adamax_options* o, const char* fn) {
  optim::AdamaxOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_adamax_options_init");
  GLIA_READ(o, lr, r.lr);
  if (GLIA_COVERS(o, betas)) {
    r.beta1 = o->betas[0];
    r.beta2 = o->betas[1];
  }
  GLIA_READ(o, eps, r.eps);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

optim::ASGDOptions asgd_arg(const glia_asgd_options* o, const char* fn) {
  optim::ASGDOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_asgd_options_init");
  GLIA_READ(o, lr, r.lr);
  GLIA_READ(o, lambd, r.lambd);
  GLIA_READ(o, alpha, r.alpha);
  GLIA_READ(o, t0, r.t0);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

optim::NAdamOptions nadam_arg(const glia_nadam_options* o, const char* fn) {
  optim::NAdamOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_nadam_options_init");
  GLIA_READ(o, lr, r.lr);
  if (GLIA_COVERS(o, betas)) {
    r.beta1 = o->betas[0];
    r.beta2 = o->betas[1];
  }
  GLIA_READ(o, eps, r.eps);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ(o, momentum_decay, r.momentum_decay);
  return r;
}

optim::RAdamOptions radam_arg(const glia_radam_options* o, const char* fn) {
  optim::RAdamOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_radam_options_init");
  GLIA_READ(o, lr, r.lr);
  if (GLIA_COVERS(o, betas)) {
    r.beta1 = o->betas[0];
    r.beta2 = o->betas[1];
  }
  GLIA_READ(o, eps, r.eps);
  GLIA_READ(o, weight_decay, r.weight_decay);
  return r;
}

optim::RpropOptions rprop_arg(const glia_rprop_options* o, const char* fn) {
  optim::RpropOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_rprop_options_init");
  GLIA_READ(o, lr, r.lr);
  if (GLIA_COVERS(o, etas)) {
    r.etaminus = o->etas[0];
    r.etaplus = o->etas[1];
  }
  if (GLIA_COVERS(o, step_sizes)) {
    r.step_size_min = o->step_sizes[0];
    r.step_size_max = o->step_sizes[1];
  }
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

optim::LBFGSOptions lbfgs_arg(const glia_lbfgs_options* o, const char* fn) {
  optim::LBFGSOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_lbfgs_options_init");
  GLIA_READ(o, lr, r.lr);
  GLIA_READ(o, max_iter, r.max_iter);
  GLIA_READ(o, max_eval, r.max_eval);
  GLIA_READ(o, tolerance_grad, r.tolerance_grad);
  GLIA_READ(o, tolerance_change, r.tolerance_change);
  GLIA_READ(o, history_size, r.history_size);
  GLIA_READ(o, line_search_fn, r.line_search_fn);
  return r;
}

template <class Opts, class Make>
glia_error* make_optimizer(glia_tensor* const* params, int64_t n, const Opts& opts, glia_optimizer** out,
                           const char* fn, Make make) {
  return guard([&] {
    check_out(out, fn, "out");
    std::vector<Tensor> ps = tensors_arg(const_cast<const glia_tensor* const*>(params), n, fn, "params");
    optim::OptimizerRef o = make(std::move(ps), opts());
    *out = static_cast<glia_optimizer*>(handle_for(o.get(), HandleType::Optimizer));
  });
}

}  // namespace

namespace glia::capi {

// add_param_group's options struct of the optimizers above (capi/optim.cpp): false for another type.
bool extra_optimizer_options(const std::string& type, const void* options, const char* fn,
                             std::vector<optim::Option>* out) {
  if (type == "Adadelta")
    *out = optim::to_options(adadelta_arg(static_cast<const glia_adadelta_options*>(options), fn));
  else if (type == "Adagrad")
    *out = optim::to_options(adagrad_arg(static_cast<const glia_adagrad_options*>(options), fn));
  else if (type == "Adamax")
    *out = optim::to_options(adamax_arg(static_cast<const glia_adamax_options*>(options), fn));
  else if (type == "ASGD")
    *out = optim::to_options(asgd_arg(static_cast<const glia_asgd_options*>(options), fn));
  else if (type == "NAdam")
    *out = optim::to_options(nadam_arg(static_cast<const glia_nadam_options*>(options), fn));
  else if (type == "RAdam")
    *out = optim::to_options(radam_arg(static_cast<const glia_radam_options*>(options), fn));
  else if (type == "Rprop")
    *out = optim::to_options(rprop_arg(static_cast<const glia_rprop_options*>(options), fn));
  else if (type == "LBFGS")
    *out = optim::to_options(lbfgs_arg(static_cast<const glia_lbfgs_options*>(options), fn));
  else
    return false;
  return true;
}

}  // namespace glia::capi

extern "C" {

void glia_adadelta_options_init(glia_adadelta_options* o) {
  if (!o) return;
  *o = glia_adadelta_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1.0;
  o->rho = 0.9;
  o->eps = 1e-6;
}

void glia_adagrad_options_init(glia_adagrad_options* o) {
  if (!o) return;
  *o = glia_adagrad_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1e-2;
  o->eps = 1e-10;
}

void glia_adamax_options_init(glia_adamax_options* o) {
  if (!o) return;
  *o = glia_adamax_options{};
  o->struct_size = sizeof(*o);
  o->lr = 2e-3;
  o->betas[0] = 0.9;
  o->betas[1] = 0.999;
  o->eps = 1e-8;
}

void glia_asgd_options_init(glia_asgd_options* o) {
  if (!o) return;
  *o = glia_asgd_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1e-2;
  o->lambd = 1e-4;
  o->alpha = 0.75;
  o->t0 = 1e6;
}

void glia_nadam_options_init(glia_nadam_options* o) {
  if (!o) return;
  *o = glia_nadam_options{};
  o->struct_size = sizeof(*o);
  o->lr = 2e-3;
  o->betas[0] = 0.9;
  o->betas[1] = 0.999;
  o->eps = 1e-8;
  o->momentum_decay = 4e-3;
}

void glia_radam_options_init(glia_radam_options* o) {
  if (!o) return;
  *o = glia_radam_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1e-3;
  o->betas[0] = 0.9;
  o->betas[1] = 0.999;
  o->eps = 1e-8;
}

void glia_rprop_options_init(glia_rprop_options* o) {
  if (!o) return;
  *o = glia_rprop_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1e-2;
  o->etas[0] = 0.5;
  o->etas[1] = 1.2;
  o->step_sizes[0] = 1e-6;
  o->step_sizes[1] = 50;
}

glia_error* glia_optim_adadelta(glia_tensor* const* params, int64_t n, const glia_adadelta_options* options,
                                glia_optimizer** out) {
  const char* fn = "glia_optim_adadelta";
  return make_optimizer(
      params, n, [&] { return adadelta_arg(options, fn); }, out, fn, optim::make_adadelta);
}

glia_error* glia_optim_adagrad(glia_tensor* const* params, int64_t n, const glia_adagrad_options* options,
                               glia_optimizer** out) {
  const char* fn = "glia_optim_adagrad";
  return make_optimizer(
      params, n, [&] { return adagrad_arg(options, fn); }, out, fn, optim::make_adagrad);
}

glia_error* glia_optim_adamax(glia_tensor* const* params, int64_t n, const glia_adamax_options* options,
                              glia_optimizer** out) {
  const char* fn = "glia_optim_adamax";
  return make_optimizer(
      params, n, [&] { return adamax_arg(options, fn); }, out, fn, optim::make_adamax);
}

glia_error* glia_optim_asgd(glia_tensor* const* params, int64_t n, const glia_asgd_options* options,
                            glia_optimizer** out) {
  const char* fn = "glia_optim_asgd";
  return make_optimizer(
      params, n, [&] { return asgd_arg(options, fn); }, out, fn, optim::make_asgd);
}

glia_error* glia_optim_nadam(glia_tensor* const* params, int64_t n, const glia_nadam_options* options,
                             glia_optimizer** out) {
  const char* fn = "glia_optim_nadam";
  return make_optimizer(
      params, n, [&] { return nadam_arg(options, fn); }, out, fn, optim::make_nadam);
}

glia_error* glia_optim_radam(glia_tensor* const* params, int64_t n, const glia_radam_options* options,
                             glia_optimizer** out) {
  const char* fn = "glia_optim_radam";
  return make_optimizer(
      params, n, [&] { return radam_arg(options, fn); }, out, fn, optim::make_radam);
}

glia_error* glia_optim_rprop(glia_tensor* const* params, int64_t n, const glia_rprop_options* options,
                             glia_optimizer** out) {
  const char* fn = "glia_optim_rprop";
  return make_optimizer(
      params, n, [&] { return rprop_arg(options, fn); }, out, fn, optim::make_rprop);
}

void glia_lbfgs_options_init(glia_lbfgs_options* o) {
  if (!o) return;
  *o = glia_lbfgs_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1;
  o->max_iter = 20;
  o->max_eval = -1;
  o->tolerance_grad = 1e-7;
  o->tolerance_change = 1e-9;
  o->history_size = 100;
}

glia_error* glia_optim_lbfgs(glia_tensor* const* params, int64_t n, const glia_lbfgs_options* options,
                             glia_optimizer** out) {
  const char* fn = "glia_optim_lbfgs";
  return make_optimizer(
      params, n, [&] { return lbfgs_arg(options, fn); }, out, fn, optim::make_lbfgs);
}

glia_error* glia_optimizer_step_closure(glia_optimizer* optimizer, glia_optimizer_closure_fn closure, void* user_data,
                                        double* out_loss) {
  const char* fn = "glia_optimizer_step_closure";
  return guard([&] {
    optim::OptimizerRef o =
        optim::OptimizerRef::share(lookup<optim::Optimizer>(optimizer, HandleType::Optimizer, fn, "optimizer"));
    GLIA_CHECK(closure, InvalidArgument, fn, ": argument 'closure' is NULL");
    double loss = o->step_closure([&] {
      double l = 0;
      if (glia_error* e = closure(user_data, &l)) rethrow_callback(e, fn, "closure");
      return l;
    });
    if (out_loss) *out_loss = loss;
  });
}

}  // extern "C"
