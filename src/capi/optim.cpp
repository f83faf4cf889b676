// Optimizers and LR schedulers (torch.optim) behind the C ABI.
#include <cstddef>
#include <cstring>

#include "capi/api.h"
#include "capi/options.h"
#include "optim/optimizer.h"

using namespace glia;
using namespace glia::capi;
using glia::optim::Optimizer;

namespace glia::capi {
// The options structs of the optimizers in capi/optim_extra.cpp (false: another type).
bool extra_optimizer_options(const std::string& type, const void* options, const char* fn,
                             std::vector<optim::Option>* out);
}  // namespace glia::capi

namespace {

optim::SGDOptions sgd_arg(const glia_sgd_options* o, const char* fn) {
  optim::SGDOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_sgd_options_init");
  GLIA_READ(o, lr, r.lr);
  GLIA_READ(o, momentum, r.momentum);
  GLIA_READ(o, dampening, r.dampening);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ_FLAG(o, nesterov, r.nesterov);
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

optim::AdamOptions adam_arg(const glia_adam_options* o, bool adamw, const char* fn) {
  optim::AdamOptions r;
  if (adamw) r.weight_decay = 1e-2;
  if (!o) return r;
  check_struct_size(o, fn, adamw ? "glia_adamw_options_init" : "glia_adam_options_init");
  GLIA_READ(o, lr, r.lr);
  if (GLIA_COVERS(o, betas)) {
    r.beta1 = o->betas[0];
    r.beta2 = o->betas[1];
  }
  GLIA_READ(o, eps, r.eps);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ_FLAG(o, amsgrad, r.amsgrad);
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

optim::RMSpropOptions rmsprop_arg(const glia_rmsprop_options* o, const char* fn) {
  optim::RMSpropOptions r;
  if (!o) return r;
  check_struct_size(o, fn, "glia_rmsprop_options_init");
  GLIA_READ(o, lr, r.lr);
  GLIA_READ(o, alpha, r.alpha);
  GLIA_READ(o, eps, r.eps);
  GLIA_READ(o, weight_decay, r.weight_decay);
  GLIA_READ(o, momentum, r.momentum);
  GLIA_READ_FLAG(o, centered, r.centered);
  GLIA_READ_FLAG(o, maximize, r.maximize);
  return r;
}

Optimizer* opt_raw(const glia_optimizer* h, const char* fn) {
  return lookup<Optimizer>(h, HandleType::Optimizer, fn, "optimizer");
}
optim::OptimizerRef opt_arg(const glia_optimizer* h, const char* fn) {
  return optim::OptimizerRef::share(opt_raw(h, fn));
}
glia_optimizer* opt_handle(const optim::OptimizerRef& o) {
  return static_cast<glia_optimizer*>(handle_for(o.get(), HandleType::Optimizer));
}
optim::LRScheduler* sched_raw(const glia_lr_scheduler* h, const char* fn) {
  return lookup<optim::LRScheduler>(h, HandleType::Scheduler, fn, "scheduler");
}
glia_lr_scheduler* sched_handle(const Ref<optim::LRScheduler>& s) {
  return static_cast<glia_lr_scheduler*>(handle_for(s.get(), HandleType::Scheduler));
}

std::vector<Tensor> params_arg(glia_tensor* const* ps, int64_t n, const char* fn) {
  return tensors_arg(const_cast<const glia_tensor* const*>(ps), n, fn, "params");
}

size_t group_arg(const Optimizer& o, int64_t g, const char* fn) {
  GLIA_CHECK(g >= 0 && static_cast<size_t>(g) < o.num_groups(), InvalidArgument, fn, ": group index ", g,
             " is out of range (the optimizer has ", o.num_groups(), " parameter groups)");
  return static_cast<size_t>(g);
}

template <class F>
glia_error* make_optimizer(glia_optimizer** out, const char* fn, F build) {
  return guard([&] {
    check_out(out, fn, "out");
    optim::OptimizerRef o = build();
    *out = opt_handle(o);
  });
}

template <class F>
glia_error* make_scheduler(glia_optimizer* optimizer, glia_lr_scheduler** out, const char* fn, F build) {
  return guard([&] {
    optim::OptimizerRef o = opt_arg(optimizer, fn);
    check_out(out, fn, "out");
    Ref<optim::LRScheduler> s = build(o);
    *out = sched_handle(s);
  });
}

}  // namespace

extern "C" {

void glia_sgd_options_init(glia_sgd_options* o) {
  if (!o) return;
  *o = glia_sgd_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1e-3;
}

void glia_adam_options_init(glia_adam_options* o) {
  if (!o) return;
  *o = glia_adam_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1e-3;
  o->betas[0] = 0.9;
  o->betas[1] = 0.999;
  o->eps = 1e-8;
}

void glia_adamw_options_init(glia_adamw_options* o) {
  if (!o) return;
  glia_adam_options_init(o);
  o->weight_decay = 1e-2;
}

void glia_rmsprop_options_init(glia_rmsprop_options* o) {
  if (!o) return;
  *o = glia_rmsprop_options{};
  o->struct_size = sizeof(*o);
  o->lr = 1e-2;
  o->alpha = 0.99;
  o->eps = 1e-8;
}

glia_error* glia_optim_sgd(glia_tensor* const* params, int64_t n, const glia_sgd_options* options,
                           glia_optimizer** out) {
  const char* fn = "glia_optim_sgd";
  return make_optimizer(out, fn, [&] { return optim::make_sgd(params_arg(params, n, fn), sgd_arg(options, fn)); });
}

glia_error* glia_optim_adam(glia_tensor* const* params, int64_t n, const glia_adam_options* options,
                            glia_optimizer** out) {
  const char* fn = "glia_optim_adam";
  return make_optimizer(out, fn,
                        [&] { return optim::make_adam(params_arg(params, n, fn), adam_arg(options, false, fn)); });
}

glia_error* glia_optim_adamw(glia_tensor* const* params, int64_t n, const glia_adamw_options* options,
                             glia_optimizer** out) {
  const char* fn = "glia_optim_adamw";
  return make_optimizer(out, fn,
                        [&] { return optim::make_adamw(params_arg(params, n, fn), adam_arg(options, true, fn)); });
}

glia_error* glia_optim_rmsprop(glia_tensor* const* params, int64_t n, const glia_rmsprop_options* options,
                               glia_optimizer** out) {
  const char* fn = "glia_optim_rmsprop";
  return make_optimizer(out, fn,
                        [&] { return optim::make_rmsprop(params_arg(params, n, fn), rmsprop_arg(options, fn)); });
}

glia_error* glia_optimizer_retain(glia_optimizer* o) {
  return guard([&] { handle_retain(o, HandleType::Optimizer, "glia_optimizer_retain"); });
}

glia_error* glia_optimizer_release(glia_optimizer* o) {
  if (!o) return nullptr;
  return guard([&] { handle_release(o, HandleType::Optimizer, "glia_optimizer_release"); });
}

glia_error* glia_optimizer_step(glia_optimizer* o) {
  return guard([&] { opt_arg(o, "glia_optimizer_step")->step(); });
}

glia_error* glia_optimizer_zero_grad(glia_optimizer* o, int32_t set_to_none) {
  return guard([&] { opt_arg(o, "glia_optimizer_zero_grad")->zero_grad(set_to_none != 0); });
}

glia_error* glia_optimizer_add_param_group(glia_optimizer* optimizer, glia_tensor* const* params, int64_t n,
                                           const void* options) {
  const char* fn = "glia_optimizer_add_param_group";
  return guard([&] {
    optim::OptimizerRef o = opt_arg(optimizer, fn);
    std::vector<Tensor> ps = params_arg(params, n, fn);
    std::vector<optim::Option> opts;
    if (options) {
      std::string type = o->type_name();
      if (type == "SGD")
        opts = optim::to_options(sgd_arg(static_cast<const glia_sgd_options*>(options), fn));
      else if (type == "Adam" || type == "AdamW")
        opts = optim::to_options(adam_arg(static_cast<const glia_adam_options*>(options), type == "AdamW", fn));
      else if (type == "RMSprop")
        opts = optim::to_options(rmsprop_arg(static_cast<const glia_rmsprop_options*>(options), fn));
      else if (!extra_optimizer_options(type, options, fn, &opts))
        fail(Code::Internal, fn, ": unknown optimizer type ", type);
    } else {
      // NULL: the optimizer's defaults (torch's param_group.setdefault from self.defaults).
      opts = o->defaults();
    }
    o->add_param_group(std::move(ps), std::move(opts));
  });
}

glia_error* glia_optimizer_num_param_groups(const glia_optimizer* o, int64_t* out) {
  const char* fn = "glia_optimizer_num_param_groups";
  return guard([&] {
    Optimizer* opt = opt_raw(o, fn);
    check_out(out, fn, "out");
    *out = static_cast<int64_t>(opt->num_groups());
  });
}

glia_error* glia_optimizer_get_lr(const glia_optimizer* o, int64_t group, double* out) {
  const char* fn = "glia_optimizer_get_lr";
  return guard([&] {
    Optimizer* opt = opt_raw(o, fn);
    size_t g = group_arg(*opt, group, fn);
    check_out(out, fn, "out");
    *out = opt->get_lr(g);
  });
}

glia_error* glia_optimizer_set_lr(glia_optimizer* o, int64_t group, double lr) {
  const char* fn = "glia_optimizer_set_lr";
  return guard([&] {
    Optimizer* opt = opt_raw(o, fn);
    size_t g = group_arg(*opt, group, fn);
    GLIA_CHECK(0.0 <= lr, InvalidArgument, fn, ": Invalid learning rate: ", optim::py_float(lr));
    opt->set_lr(g, lr);
  });
}

glia_error* glia_optimizer_state_dict(const glia_optimizer* o, glia_tensor_dict** out) {
  const char* fn = "glia_optimizer_state_dict";
  return guard([&] {
    Optimizer* opt = opt_raw(o, fn);
    check_out(out, fn, "out");
    Ref<nn::TensorDict> d = opt->state_dict();
    *out = dict_handle(d.get());
  });
}

glia_error* glia_optimizer_load_state_dict(glia_optimizer* o, const glia_tensor_dict* dict) {
  const char* fn = "glia_optimizer_load_state_dict";
  return guard([&] {
    Optimizer* opt = opt_raw(o, fn);
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    opt->load_state_dict(*d);
  });
}

// ---- schedulers ----------------------------------------------------------------------

glia_error* glia_lr_scheduler_step_lr(glia_optimizer* optimizer, int64_t step_size, double gamma,
                                      glia_lr_scheduler** out) {
  return make_scheduler(optimizer, out, "glia_lr_scheduler_step_lr",
                        [&](optim::OptimizerRef o) { return optim::make_step_lr(o, step_size, gamma); });
}

glia_error* glia_lr_scheduler_multi_step_lr(glia_optimizer* optimizer, const int64_t* milestones, int64_t n,
                                            double gamma, glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_multi_step_lr";
  return make_scheduler(optimizer, out, fn, [&](optim::OptimizerRef o) {
    GLIA_CHECK(n >= 0, InvalidArgument, fn, ": n_milestones must be >= 0, got ", n);
    GLIA_CHECK(milestones || n == 0, InvalidArgument, fn, ": argument 'milestones' is NULL with ", n, " milestones");
    std::vector<int64_t> ms(milestones, milestones + n);
    return optim::make_multi_step_lr(o, std::move(ms), gamma);
  });
}

glia_error* glia_lr_scheduler_cosine_annealing_lr(glia_optimizer* optimizer, int64_t t_max, double eta_min,
                                                  glia_lr_scheduler** out) {
  return make_scheduler(optimizer, out, "glia_lr_scheduler_cosine_annealing_lr",
                        [&](optim::OptimizerRef o) { return optim::make_cosine_annealing_lr(o, t_max, eta_min); });
}

glia_error* glia_lr_scheduler_linear_lr(glia_optimizer* optimizer, double start_factor, double end_factor,
                                        int64_t total_iters, glia_lr_scheduler** out) {
  return make_scheduler(optimizer, out, "glia_lr_scheduler_linear_lr", [&](optim::OptimizerRef o) {
    return optim::make_linear_lr(o, start_factor, end_factor, total_iters);
  });
}

glia_error* glia_lr_scheduler_step(glia_lr_scheduler* s) {
  // A reference of our own: a host callback (lr_lambda) may drop the caller's last one.
  return guard([&] { Ref<optim::LRScheduler>::share(sched_raw(s, "glia_lr_scheduler_step"))->step(); });
}

glia_error* glia_lr_scheduler_get_last_lr(const glia_lr_scheduler* s, int64_t group, double* out) {
  const char* fn = "glia_lr_scheduler_get_last_lr";
  return guard([&] {
    optim::LRScheduler* sc = sched_raw(s, fn);
    const std::vector<double>& lrs = sc->last_lr();
    GLIA_CHECK(group >= 0 && static_cast<size_t>(group) < lrs.size(), InvalidArgument, fn, ": group index ", group,
               " is out of range (the scheduler has ", lrs.size(), " lrs)");
    check_out(out, fn, "out");
    *out = lrs[static_cast<size_t>(group)];
  });
}

glia_error* glia_lr_scheduler_retain(glia_lr_scheduler* s) {
  return guard([&] { handle_retain(s, HandleType::Scheduler, "glia_lr_scheduler_retain"); });
}

glia_error* glia_lr_scheduler_release(glia_lr_scheduler* s) {
  if (!s) return nullptr;
  return guard([&] { handle_release(s, HandleType::Scheduler, "glia_lr_scheduler_release"); });
}

}  // extern "C"
