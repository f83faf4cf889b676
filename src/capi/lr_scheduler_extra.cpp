// The LR schedulers of optim/lr_scheduler_extra.h behind the C ABI, with
// their host callbacks (LambdaLR's and MultiplicativeLR's lr_lambda,
// CyclicLR's scale_fn).
#include "optim/lr_scheduler_extra.h"

#include <cmath>
#include <memory>

#include "capi/api.h"
#include "capi/options.h"

using namespace glia;
using namespace glia::capi;

namespace {

optim::OptimizerRef optimizer_arg(const glia_optimizer* h, const char* fn) {
  return optim::OptimizerRef::share(lookup<optim::Optimizer>(h, HandleType::Optimizer, fn, "optimizer"));
}
Ref<optim::LRScheduler> scheduler_arg(const glia_lr_scheduler* h, const char* fn, const char* arg = "scheduler") {
  return Ref<optim::LRScheduler>::share(lookup<optim::LRScheduler>(h, HandleType::Scheduler, fn, arg));
}

template <class F>
glia_error* make(glia_lr_scheduler** out, const char* fn, F build) {
  return guard([&] {
    check_out(out, fn, "out");
    Ref<optim::LRScheduler> s = build();
    *out = static_cast<glia_lr_scheduler*>(handle_for(s.get(), HandleType::Scheduler));
  });
}

// Owns a host callback's user_data: free_user_data runs once, when the last copy of the
// std::function holding it dies (the scheduler's, or the failed constructor's).
template <class Fn>
struct HostFn {
  Fn fn = nullptr;
  void* user_data = nullptr;
  void (*free_user_data)(void*) = nullptr;
  ~HostFn() {
    if (free_user_data) free_user_data(user_data);
  }
};

// Takes ownership at once; when even that allocation fails, frees user_data and returns null.
template <class Fn>
std::shared_ptr<HostFn<Fn>> own(Fn fn, void* user_data, void (*free_user_data)(void*)) {
  std::shared_ptr<HostFn<Fn>> h;
  try {
    h = std::make_shared<HostFn<Fn>>();
  } catch (...) {
    if (free_user_data) free_user_data(user_data);
    return nullptr;
  }
  h->fn = fn;
  h->user_data = user_data;
  h->free_user_data = free_user_data;
  return h;
}

optim::LrLambda lr_lambda(std::shared_ptr<HostFn<glia_lr_lambda_fn>> h, const char* who) {
  return [h = std::move(h), who](int64_t group, int64_t epoch) {
    double v = 0;
    if (glia_error* e = h->fn(h->user_data, group, epoch, &v)) rethrow_callback(e, who, "lr_lambda");
    return v;
  };
}

glia_error* make_lambda(glia_optimizer* optimizer, glia_lr_lambda_fn fn, void* user_data, void (*free_user_data)(void*),
                        glia_lr_scheduler** out, bool multiplicative) {
  const char* name = multiplicative ? "glia_lr_scheduler_multiplicative_lr" : "glia_lr_scheduler_lambda_lr";
  auto h = own(fn, user_data, free_user_data);  // frees user_data exactly once, also on failure
  if (!h) return glia_error_new(GLIA_ERR_OUT_OF_MEMORY, "out of memory");
  return make(out, name, [&] {
    optim::OptimizerRef o = optimizer_arg(optimizer, name);
    GLIA_CHECK(fn, InvalidArgument, name, ": argument 'fn' is NULL");
    optim::LrLambda f = lr_lambda(std::move(h), multiplicative ? "MultiplicativeLR" : "LambdaLR");
    return multiplicative ? optim::make_multiplicative_lr(o, std::move(f)) : optim::make_lambda_lr(o, std::move(f));
  });
}

std::vector<double> values_arg(const double* v, int64_t n, const char* fn, const char* arg) {
  GLIA_CHECK(n >= 1, InvalidArgument, fn, ": n_", arg, " must be >= 1, got ", n);
  GLIA_CHECK(v, InvalidArgument, fn, ": argument '", arg, "' is NULL");
  return std::vector<double>(v, v + n);
}

std::vector<Ref<optim::LRScheduler>> schedulers_arg(glia_lr_scheduler* const* s, int64_t n, const char* fn) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": n_schedulers must be >= 0, got ", n);
  GLIA_CHECK(s || n == 0, InvalidArgument, fn, ": argument 'schedulers' is NULL with ", n, " schedulers");
  std::vector<Ref<optim::LRScheduler>> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(scheduler_arg(s[i], fn, "schedulers"));
  return out;
}

// (base_momentums, max_momentums): per-group arrays when given, else the scalars.
template <class O>
void momentums_arg(const O* o, std::vector<double>& base, std::vector<double>& max, const char* fn) {
  const double* b = nullptr;
  const double* m = nullptr;
  int64_t n = 0;
  GLIA_READ(o, base_momentum, base[0]);
  GLIA_READ(o, max_momentum, max[0]);
  GLIA_READ(o, base_momentums, b);
  GLIA_READ(o, max_momentums, m);
  GLIA_READ(o, n_momentums, n);
  if (b) base = values_arg(b, n, fn, "momentums");
  if (m) max = values_arg(m, n, fn, "momentums");
}

}  // namespace

extern "C" {

glia_error* glia_lr_scheduler_exponential_lr(glia_optimizer* optimizer, double gamma, glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_exponential_lr";
  return make(out, fn, [&] { return optim::make_exponential_lr(optimizer_arg(optimizer, fn), gamma); });
}

glia_error* glia_lr_scheduler_polynomial_lr(glia_optimizer* optimizer, int64_t total_iters, double power,
                                            glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_polynomial_lr";
  return make(out, fn, [&] { return optim::make_polynomial_lr(optimizer_arg(optimizer, fn), total_iters, power); });
}

glia_error* glia_lr_scheduler_constant_lr(glia_optimizer* optimizer, double factor, int64_t total_iters,
                                          glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_constant_lr";
  return make(out, fn, [&] { return optim::make_constant_lr(optimizer_arg(optimizer, fn), factor, total_iters); });
}

glia_error* glia_lr_scheduler_lambda_lr(glia_optimizer* optimizer, glia_lr_lambda_fn fn, void* user_data,
                                        void (*free_user_data)(void*), glia_lr_scheduler** out) {
  return make_lambda(optimizer, fn, user_data, free_user_data, out, false);
}

glia_error* glia_lr_scheduler_multiplicative_lr(glia_optimizer* optimizer, glia_lr_lambda_fn fn, void* user_data,
                                                void (*free_user_data)(void*), glia_lr_scheduler** out) {
  return make_lambda(optimizer, fn, user_data, free_user_data, out, true);
}

glia_error* glia_lr_scheduler_sequential_lr(glia_optimizer* optimizer, glia_lr_scheduler* const* schedulers,
                                            int64_t n_schedulers, const int64_t* milestones, int64_t n_milestones,
                                            glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_sequential_lr";
  return make(out, fn, [&] {
    optim::OptimizerRef o = optimizer_arg(optimizer, fn);
    std::vector<Ref<optim::LRScheduler>> s = schedulers_arg(schedulers, n_schedulers, fn);
    GLIA_CHECK(n_milestones >= 0, InvalidArgument, fn, ": n_milestones must be >= 0, got ", n_milestones);
    GLIA_CHECK(milestones || n_milestones == 0, InvalidArgument, fn, ": argument 'milestones' is NULL with ",
               n_milestones, " milestones");
    std::vector<int64_t> ms(milestones, milestones + n_milestones);
    return optim::make_sequential_lr(o, std::move(s), std::move(ms));
  });
}

glia_error* glia_lr_scheduler_chained_scheduler(glia_lr_scheduler* const* schedulers, int64_t n_schedulers,
                                                glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_chained_scheduler";
  return make(out, fn, [&] { return optim::make_chained_scheduler(schedulers_arg(schedulers, n_schedulers, fn)); });
}

void glia_reduce_lr_on_plateau_options_init(glia_reduce_lr_on_plateau_options* o) {
  if (!o) return;
  *o = glia_reduce_lr_on_plateau_options{};
  o->struct_size = sizeof(*o);
  o->mode = GLIA_PLATEAU_MIN;
  o->factor = 0.1;
  o->patience = 10;
  o->threshold = 1e-4;
  o->threshold_mode = GLIA_THRESHOLD_REL;
  o->eps = 1e-8;
}

glia_error* glia_lr_scheduler_reduce_lr_on_plateau(glia_optimizer* optimizer,
                                                   const glia_reduce_lr_on_plateau_options* options,
                                                   glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_reduce_lr_on_plateau";
  return make(out, fn, [&] {
    optim::OptimizerRef opt = optimizer_arg(optimizer, fn);
    optim::PlateauOptions p;
    double min_lr = 0;
    if (const glia_reduce_lr_on_plateau_options* o = options) {
      check_struct_size(o, fn, "glia_reduce_lr_on_plateau_options_init");
      if (GLIA_COVERS(o, mode)) p.mode = static_cast<int>(o->mode);
      GLIA_READ(o, factor, p.factor);
      GLIA_READ(o, patience, p.patience);
      GLIA_READ(o, threshold, p.threshold);
      if (GLIA_COVERS(o, threshold_mode)) p.threshold_mode = static_cast<int>(o->threshold_mode);
      GLIA_READ(o, cooldown, p.cooldown);
      GLIA_READ(o, min_lr, min_lr);
      const double* lrs = nullptr;
      int64_t n = 0;
      GLIA_READ(o, min_lrs, lrs);
      GLIA_READ(o, n_min_lrs, n);
      if (lrs) {
        GLIA_CHECK(n >= 0, InvalidArgument, fn, ": n_min_lrs must be >= 0, got ", n);
        p.min_lrs.assign(lrs, lrs + n);
        // torch's list: one per group exactly (a list of one is not a scalar).
        GLIA_CHECK(static_cast<size_t>(n) == opt->num_groups(), InvalidArgument, "expected ", opt->num_groups(),
                   " min_lrs, got ", n);
      }
      GLIA_READ(o, eps, p.eps);
    }
    if (p.min_lrs.empty()) p.min_lrs.assign(1, min_lr);
    return optim::make_reduce_lr_on_plateau(opt, p);
  });
}

glia_error* glia_lr_scheduler_step_metric(glia_lr_scheduler* scheduler, double metric) {
  const char* fn = "glia_lr_scheduler_step_metric";
  return guard([&] { scheduler_arg(scheduler, fn)->step_metric(metric); });
}

glia_error* glia_lr_scheduler_step_epoch(glia_lr_scheduler* scheduler, double epoch) {
  const char* fn = "glia_lr_scheduler_step_epoch";
  return guard([&] { scheduler_arg(scheduler, fn)->step_epoch(epoch); });
}

void glia_cyclic_lr_options_init(glia_cyclic_lr_options* o) {
  if (!o) return;
  *o = glia_cyclic_lr_options{};
  o->struct_size = sizeof(*o);
  o->step_size_up = 2000;
  o->step_size_down = std::nan("");
  o->mode = GLIA_CYCLIC_TRIANGULAR;
  o->gamma = 1.0;
  o->scale_mode = GLIA_CYCLIC_SCALE_CYCLE;
  o->cycle_momentum = 1;
  o->base_momentum = 0.8;
  o->max_momentum = 0.9;
}

glia_error* glia_lr_scheduler_cyclic_lr(glia_optimizer* optimizer, const double* base_lrs, int64_t n_base_lrs,
                                        const double* max_lrs, int64_t n_max_lrs, const glia_cyclic_lr_options* options,
                                        glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_cyclic_lr";
  // The scale_fn's user_data is owned first: freed exactly once, also when this call fails.
  std::shared_ptr<HostFn<glia_lr_scale_fn>> h;
  if (options && options->struct_size >= offsetof(glia_cyclic_lr_options, free_scale_fn_user_data) +
                                             sizeof(options->free_scale_fn_user_data)) {
    h = own(options->scale_fn, options->scale_fn_user_data, options->free_scale_fn_user_data);
    if (!h) return glia_error_new(GLIA_ERR_OUT_OF_MEMORY, "out of memory");
  }
  return make(out, fn, [&] {
    optim::OptimizerRef opt = optimizer_arg(optimizer, fn);
    optim::CyclicOptions c;
    c.base_lrs = values_arg(base_lrs, n_base_lrs, fn, "base_lrs");
    c.max_lrs = values_arg(max_lrs, n_max_lrs, fn, "max_lrs");
    if (const glia_cyclic_lr_options* o = options) {
      check_struct_size(o, fn, "glia_cyclic_lr_options_init");
      GLIA_READ(o, step_size_up, c.step_size_up);
      if (GLIA_COVERS(o, step_size_down) && !std::isnan(o->step_size_down)) {
        c.has_step_size_down = true;
        c.step_size_down = o->step_size_down;
      }
      if (GLIA_COVERS(o, mode)) c.mode = static_cast<int>(o->mode);
      GLIA_READ(o, gamma, c.gamma);
      if (h && h->fn) {
        c.scale_fn = [h](int64_t x) {
          double v = 0;
          if (glia_error* e = h->fn(h->user_data, x, &v)) rethrow_callback(e, "CyclicLR", "scale_fn");
          return v;
        };
      }
      if (GLIA_COVERS(o, scale_mode)) c.scale_mode = static_cast<int>(o->scale_mode);
      GLIA_READ_FLAG(o, cycle_momentum, c.cycle_momentum);
      momentums_arg(o, c.base_momentums, c.max_momentums, fn);
    }
    h.reset();  // the scheduler's copy (in c.scale_fn) owns it from here
    return optim::make_cyclic_lr(opt, c);
  });
}

void glia_one_cycle_lr_options_init(glia_one_cycle_lr_options* o) {
  if (!o) return;
  *o = glia_one_cycle_lr_options{};
  o->struct_size = sizeof(*o);
  o->pct_start = 0.3;
  o->anneal_strategy = GLIA_ANNEAL_COS;
  o->cycle_momentum = 1;
  o->base_momentum = 0.85;
  o->max_momentum = 0.95;
  o->div_factor = 25.0;
  o->final_div_factor = 1e4;
}

glia_error* glia_lr_scheduler_one_cycle_lr(glia_optimizer* optimizer, const double* max_lrs, int64_t n_max_lrs,
                                           const glia_one_cycle_lr_options* options, glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_one_cycle_lr";
  return make(out, fn, [&] {
    optim::OptimizerRef opt = optimizer_arg(optimizer, fn);
    optim::OneCycleOptions c;
    c.max_lrs = values_arg(max_lrs, n_max_lrs, fn, "max_lrs");
    if (const glia_one_cycle_lr_options* o = options) {
      check_struct_size(o, fn, "glia_one_cycle_lr_options_init");
      const int64_t* v = nullptr;
      GLIA_READ(o, total_steps, v);
      if (v) c.has_total_steps = true, c.total_steps = *v;
      v = nullptr;
      GLIA_READ(o, epochs, v);
      if (v) c.has_epochs = true, c.epochs = *v;
      v = nullptr;
      GLIA_READ(o, steps_per_epoch, v);
      if (v) c.has_steps_per_epoch = true, c.steps_per_epoch = *v;
      GLIA_READ(o, pct_start, c.pct_start);
      if (GLIA_COVERS(o, anneal_strategy)) c.anneal_strategy = static_cast<int>(o->anneal_strategy);
      GLIA_READ_FLAG(o, cycle_momentum, c.cycle_momentum);
      momentums_arg(o, c.base_momentums, c.max_momentums, fn);
      GLIA_READ(o, div_factor, c.div_factor);
      GLIA_READ(o, final_div_factor, c.final_div_factor);
      GLIA_READ_FLAG(o, three_phase, c.three_phase);
    }
    return optim::make_one_cycle_lr(opt, c);
  });
}

glia_error* glia_lr_scheduler_cosine_annealing_warm_restarts(glia_optimizer* optimizer, int64_t t_0, int64_t t_mult,
                                                             double eta_min, glia_lr_scheduler** out) {
  const char* fn = "glia_lr_scheduler_cosine_annealing_warm_restarts";
  return make(out, fn, [&] {
    return optim::make_cosine_annealing_warm_restarts(optimizer_arg(optimizer, fn), t_0, t_mult, eta_min);
  });
}

}  // extern "C"
