// The LR schedulers of torch.optim.lr_scheduler beyond StepLR, MultiStepLR,
// CosineAnnealingLR and LinearLR (optimizer.h): ExponentialLR, PolynomialLR,
// ConstantLR, LambdaLR, MultiplicativeLR, SequentialLR, ChainedScheduler,
// ReduceLROnPlateau, CyclicLR, OneCycleLR and CosineAnnealingWarmRestarts.
// torch 1.13's formulas (chainable get_lr, closed forms for step(epoch)),
// checks and messages; state dicts carry torch's keys (strings as int64
// codes: see glia.h). A step whose host callback fails changes nothing.
#pragma once

#include <functional>
#include <vector>

#include "optim/optimizer.h"

namespace glia::optim {

// lr_lambda(group, epoch): LambdaLR's and MultiplicativeLR's factor. Throws to fail the step.
using LrLambda = std::function<double(int64_t group, int64_t epoch)>;
// CyclicLR's scale_fn(x), x the cycle or the iteration (scale_mode).
using ScaleFn = std::function<double(int64_t x)>;

Ref<LRScheduler> make_exponential_lr(OptimizerRef opt, double gamma);
Ref<LRScheduler> make_polynomial_lr(OptimizerRef opt, int64_t total_iters, double power);
Ref<LRScheduler> make_constant_lr(OptimizerRef opt, double factor, int64_t total_iters);
Ref<LRScheduler> make_lambda_lr(OptimizerRef opt, LrLambda fn);
Ref<LRScheduler> make_multiplicative_lr(OptimizerRef opt, LrLambda fn);
Ref<LRScheduler> make_sequential_lr(OptimizerRef opt, std::vector<Ref<LRScheduler>> schedulers,
                                    std::vector<int64_t> milestones);
Ref<LRScheduler> make_chained_scheduler(std::vector<Ref<LRScheduler>> schedulers);

struct PlateauOptions {
  int mode = 0;  // 0 "min", 1 "max"
  double factor = 0.1;
  int64_t patience = 10;
  double threshold = 1e-4;
  int threshold_mode = 0;  // 0 "rel", 1 "abs"
  int64_t cooldown = 0;
  std::vector<double> min_lrs;  // one per group, or one for all
  double eps = 1e-8;
};
Ref<LRScheduler> make_reduce_lr_on_plateau(OptimizerRef opt, const PlateauOptions& o);

struct CyclicOptions {
  std::vector<double> base_lrs, max_lrs;  // one per group, or one for all
  double step_size_up = 2000;
  bool has_step_size_down = false;  // false: step_size_up (torch's None)
  double step_size_down = 0;
  int mode = 0;  // 0 triangular, 1 triangular2, 2 exp_range
  double gamma = 1.0;
  ScaleFn scale_fn;    // empty: the mode's
  int scale_mode = 0;  // 0 "cycle", 1 "iterations" (with scale_fn only)
  bool cycle_momentum = true;
  std::vector<double> base_momentums{0.8}, max_momentums{0.9};
};
Ref<LRScheduler> make_cyclic_lr(OptimizerRef opt, const CyclicOptions& o);

struct OneCycleOptions {
  std::vector<double> max_lrs;  // one per group, or one for all
  bool has_total_steps = false, has_epochs = false, has_steps_per_epoch = false;
  int64_t total_steps = 0, epochs = 0, steps_per_epoch = 0;
  double pct_start = 0.3;
  int anneal_strategy = 0;  // 0 cos, 1 linear
  bool cycle_momentum = true;
  std::vector<double> base_momentums{0.85}, max_momentums{0.95};
  double div_factor = 25.0, final_div_factor = 1e4;
  bool three_phase = false;
};
Ref<LRScheduler> make_one_cycle_lr(OptimizerRef opt, const OneCycleOptions& o);

Ref<LRScheduler> make_cosine_annealing_warm_restarts(OptimizerRef opt, int64_t t_0, int64_t t_mult, double eta_min);

}  // namespace glia::optim
