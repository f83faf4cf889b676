// torch.optim's Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam and Rprop
// (optim/algorithms_extra.cpp): options in torch's signatures with torch's
// defaults, the group options (and state-dict layout) in torch's defaults
// order. See Note [Optimizer semantics follow torch] in optim/optimizer.h.
#pragma once

#include <vector>

#include "optim/optimizer.h"

namespace glia::optim {

struct AdadeltaOptions {
  double lr = 1.0, rho = 0.9, eps = 1e-6, weight_decay = 0;
  bool maximize = false;
};
struct AdagradOptions {
  double lr = 1e-2, lr_decay = 0, weight_decay = 0, initial_accumulator_value = 0, eps = 1e-10;
  bool maximize = false;
};
struct AdamaxOptions {
  double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool maximize = false;
};
struct ASGDOptions {
  double lr = 1e-2, lambd = 1e-4, alpha = 0.75, t0 = 1e6, weight_decay = 0;
  bool maximize = false;
};
struct NAdamOptions {
  double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, momentum_decay = 4e-3;
};
struct RAdamOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
};
struct RpropOptions {
  double lr = 1e-2, etaminus = 0.5, etaplus = 1.2, step_size_min = 1e-6, step_size_max = 50;
  bool maximize = false;
};

std::vector<Option> to_options(const AdadeltaOptions& o);
std::vector<Option> to_options(const AdagradOptions& o);
std::vector<Option> to_options(const AdamaxOptions& o);
std::vector<Option> to_options(const ASGDOptions& o);
std::vector<Option> to_options(const NAdamOptions& o);
std::vector<Option> to_options(const RAdamOptions& o);
std::vector<Option> to_options(const RpropOptions& o);

// Construct with one group of `params`. Adagrad creates the state ("step", "sum") of every
// parameter of that group at construction, as torch does; a parameter of a group added later gets
// it on its first step (torch would fail with a KeyError).
OptimizerRef make_adadelta(std::vector<Tensor> params, const AdadeltaOptions& o);
OptimizerRef make_adagrad(std::vector<Tensor> params, const AdagradOptions& o);
OptimizerRef make_adamax(std::vector<Tensor> params, const AdamaxOptions& o);
OptimizerRef make_asgd(std::vector<Tensor> params, const ASGDOptions& o);
OptimizerRef make_nadam(std::vector<Tensor> params, const NAdamOptions& o);
OptimizerRef make_radam(std::vector<Tensor> params, const RAdamOptions& o);
OptimizerRef make_rprop(std::vector<Tensor> params, const RpropOptions& o);

}  // namespace glia::optim

namespace glia::optim {

// torch.optim.LBFGS. max_eval < 0 means torch's None (max_iter * 5 / 4); line_search_fn 0 is None,
// 1 "strong_wolfe".
struct LBFGSOptions {
  double lr = 1;
  int64_t max_iter = 20, max_eval = -1;
  double tolerance_grad = 1e-7, tolerance_change = 1e-9;
  int64_t history_size = 100;
  int32_t line_search_fn = 0;
};
std::vector<Option> to_options(const LBFGSOptions& o);
// One parameter group only, as torch. step() without a closure fails (torch's TypeError text); its
// state lives under the first parameter (torch's state[params[0]]), see optim/lbfgs.cpp.
OptimizerRef make_lbfgs(std::vector<Tensor> params, const LBFGSOptions& o);

}  // namespace glia::optim
