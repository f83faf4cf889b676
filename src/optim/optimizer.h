// torch.optim: the Optimizer base (param groups with their own options,
// per-parameter state, zero_grad, state_dict / load_state_dict), SGD, Adam,
// AdamW, RMSprop, and the LR schedulers StepLR, MultiStepLR,
// CosineAnnealingLR and LinearLR.
//
// Note [Optimizer semantics follow torch]: the update of each parameter is
// torch's single-tensor ("foreach=False") reference, fused into one pass over
// the data (a kernel per algorithm, dispatched to the parameter's device:
// float32/float64 contiguous fast paths; other dtypes and layouts go through a
// float64 copy). step() records no autograd graph, skips parameters whose
// .grad is undefined and bumps the version of every updated parameter. State
// tensors live on their parameter's device, "step" on the CPU (as torch keeps
// it when neither capturable nor fused); state_dict() hands out the state
// tensors themselves (saving copies them to the host), load_state_dict casts
// and moves loaded state to each parameter's dtype and device.
// Options are a per-group ordered list of named values in torch's defaults
// order (betas is a pair), which is also the state-dict layout:
// "param_groups.<g>.<option>" and "state.<param index>.<name>".
#pragma once

#include <array>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/refcount.h"
#include "core/small_vector.h"
#include "core/tensor.h"
#include "nn/repr.h"
#include "nn/tensor_dict.h"
#include "nn/utils.h"

namespace glia::optim {

// One named option value: a scalar (1 value) or betas (2 values).
struct Option {
  std::string name;
  SmallVector<double, 2> value;
};

struct ParamGroup {
  std::vector<Tensor> params;
  std::vector<Option> options;  // torch's defaults order; "initial_lr" appended by a scheduler

  const Option* find(const std::string& name) const;
  double get(const std::string& name) const;  // first value; Error(Internal) when absent
  double get(const std::string& name, size_t i) const;
  void set(const std::string& name, double v);  // appends when absent
};

// The state of one parameter: named tensors in torch's insertion order.
struct ParamState {
  std::vector<std::pair<std::string, Tensor>> entries;
  Tensor* find(const std::string& name);
  Tensor& get_or_add(const std::string& name);
};

// One parameter's update, as a step's prepare pass leaves it for its commit
// pass (Note [All-or-nothing step]): a fused update kernel (sgd_step,
// adam_step, rmsprop_step; core/kernels.def) with its tensors and attributes.
// The kernel gets the parameter, its grad and its states contiguous and of
// one dtype, float32 or float64; otherwise (`fast` false) it runs on float64
// contiguous working copies made by the prepare pass on the parameter's
// device, which run() writes back. States are handles sharing the state
// tensors' storage. run() allocates nothing.
struct Update {
  KernelId kernel{};
  Tensor p, g;  // the parameter and its grad
  std::array<Tensor, 3> states;
  int32_t n_states = 0;
  bool fast = true;
  Tensor pd, gd;                // slow path: float64 working copies
  std::array<Tensor, 3> sd;     // slow path: float64 copies of the states
  std::array<Attr, 9> attrs{};  // the kernel's attributes
  int32_t n_attrs = 0;
  Tensor step;  // when defined: state "step", set to step_value before the update
  double step_value = 0;
  // More 0-dim states the commit pass sets (when defined) before the update: ASGD's eta and mu,
  // NAdam's mu_product (optim/algorithms_extra.cpp).
  std::array<Tensor, 2> scalars;
  std::array<double, 2> scalar_values{};

  void run();
};

class Optimizer : public RefCounted {
 public:
  // The updates a step's prepare pass leaves for its commit pass (Note [All-or-nothing step]).
  using Commit = std::vector<Update>;

  // The type's name ("SGD") for messages.
  virtual const char* type_name() const = 0;
  // Default options (torch's defaults dict, in its order).
  const std::vector<Option>& defaults() const { return defaults_; }

  void step();
  // torch's step(closure): the closure (a host callback that re-evaluates the model, runs backward
  // and returns the loss) runs with grad mode on, then step(); returns its loss. LBFGS overrides it
  // (optim/lbfgs.cpp).
  virtual double step_closure(const std::function<double()>& closure);
  void zero_grad(bool set_to_none = true);
  // Adds a group; missing options are taken from the defaults. Validates like
  // torch (non-leaf, duplicates across groups, option ranges). All-or-nothing.
  void add_param_group(std::vector<Tensor> params, std::vector<Option> options);

  size_t num_groups() const { return groups_.size(); }
  ParamGroup& group(size_t g);
  const ParamGroup& group(size_t g) const;
  double get_lr(size_t g) const { return group(g).get("lr"); }
  void set_lr(size_t g, double lr);
  // param_groups[g][name] by name (glia_optimizer_get_option / set_option):
  // "beta1" and "beta2" address betas[0] and betas[1]; flags read 0 or 1 and
  // accept only 0 or 1; "initial_lr" (set by a scheduler) any value. Unknown
  // names are InvalidArgument ("SGD has no option 'foo'"); an absent
  // initial_lr is NotFound ("'initial_lr'"). set_option validates the group
  // with the new value as the constructor does (torch's ValueError texts);
  // on error nothing changes.
  double get_option(size_t g, const std::string& name) const;
  void set_option(size_t g, const std::string& name, double value);
  int64_t num_params() const;

  // torch's state_dict() flattened (see the Note).
  Ref<nn::TensorDict> state_dict() const;
  // torch's load_state_dict: all-or-nothing.
  void load_state_dict(const nn::TensorDict& dict);

  // The state of `p` (created on first use).
  ParamState& state_of(const Tensor& p);
  ParamState* state_if(const Tensor& p);

 protected:
  explicit Optimizer(std::vector<Option> defaults) : defaults_(std::move(defaults)) {}
  // Throws torch's ValueError text (InvalidArgument) for bad option values.
  virtual void validate(const std::vector<Option>& options) const = 0;
  // Note [All-or-nothing step]: a step runs in two passes. prepare_group does
  // everything that may fail (creating state entries and zero tensors,
  // float64 working copies, device checks) and appends to `commit` the
  // updates of the group's parameters that have a grad; those run only after
  // every group was prepared, and neither allocate nor fail. A prepare pass
  // changes the state's structure only by adding: states of new parameters,
  // entries appended to a state, and tensors given to undefined entries
  // (never replacing a defined one). When a prepare throws, step takes those
  // additions back, so parameters and state are unchanged (a host
  // parallel_for or a device that fails during the commit is the exception:
  // what ran has updated its elements).
  virtual void prepare_group(ParamGroup& group, Commit& commit) = 0;
  // Names of state entries that are not shaped like the parameter ("step").
  virtual bool is_scalar_state(const std::string& name) const { return name == "step"; }
  // Names of state entries of any shape (LBFGS's flat vectors and histories): loaded as copies on the
  // parameter's device, floating ones cast to its dtype.
  virtual bool is_free_state(const std::string&) const { return false; }

 private:
  std::vector<Option> defaults_;
  std::vector<ParamGroup> groups_;
  // Per-parameter state in insertion order (torch's dict order).
  std::vector<std::pair<Ref<TensorImpl>, ParamState>> state_;
  std::unordered_map<const TensorImpl*, size_t> state_index_;
};

using OptimizerRef = Ref<Optimizer>;

struct SGDOptions {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
};
struct AdamOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool amsgrad = false, maximize = false;
};
struct RMSpropOptions {
  double lr = 1e-2, alpha = 0.99, eps = 1e-8, weight_decay = 0, momentum = 0;
  bool centered = false, maximize = false;
};

std::vector<Option> to_options(const SGDOptions& o);
std::vector<Option> to_options(const AdamOptions& o);
std::vector<Option> to_options(const RMSpropOptions& o);

// Construct with one group of `params` (torch: "optimizer got an empty parameter list").
OptimizerRef make_sgd(std::vector<Tensor> params, const SGDOptions& o);
OptimizerRef make_adam(std::vector<Tensor> params, const AdamOptions& o);
OptimizerRef make_adamw(std::vector<Tensor> params, const AdamOptions& o);
OptimizerRef make_rmsprop(std::vector<Tensor> params, const RMSpropOptions& o);

using nn::py_float;

// Group entries a scheduler adds (torch's group keys): "initial_lr" (every
// _LRScheduler), "max_lr", "min_lr", "max_momentum", "base_momentum"
// (OneCycleLR). Options of no optimizer; state dicts carry them.
bool is_scheduler_option(const std::string& name);

// ---- LR schedulers --------------------------------------------------------------

// torch's _LRScheduler: construction sets each group's initial_lr (when
// absent) and performs the initial step; step() computes torch's chainable
// get_lr() from the groups' current lrs.
class LRScheduler : public RefCounted {
 public:
  // step(): chainable; on error (a host callback's) nothing changed.
  virtual void step();
  // torch's step(epoch): last_epoch = epoch and the closed form where torch
  // has one (_get_closed_form_lr), else get_lr(). Integral epochs only,
  // except where a scheduler overrides it (CosineAnnealingWarmRestarts).
  virtual void step_epoch(double epoch);
  // ReduceLROnPlateau's step(metrics); InvalidArgument for the others.
  virtual void step_metric(double metric);
  // torch's class name ("StepLR") for messages.
  virtual const char* type_name() const = 0;
  const std::vector<double>& last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  Optimizer& optimizer() { return *opt_; }
  // torch's state_dict(): "last_epoch", "_step_count" (int64 0-dim),
  // "base_lrs", "_last_lr" (float64 [groups]), then the scheduler's own
  // settings (StepLR: "step_size", "gamma"; MultiStepLR: "milestones" (int64,
  // sorted, repeats kept), "gamma"; CosineAnnealingLR: "T_max", "eta_min";
  // LinearLR: "start_factor", "end_factor", "total_iters").
  virtual Ref<nn::TensorDict> state_dict() const;
  // torch's load_state_dict: every key above is required, no other key is
  // accepted (torch's "verbose" and "_get_lr_called_within_step" are ignored);
  // all-or-nothing. The optimizer's lrs are not touched (load its own state).
  virtual void load_state_dict(const nn::TensorDict& dict);
  // ChainedScheduler has no last_epoch in torch.
  virtual bool has_last_epoch() const { return true; }
  // For SequentialLR: torch's `scheduler.last_epoch -= 1` and `scheduler._initial_step()`.
  void undo_epoch() { --last_epoch_; }
  void rerun_initial_step() { initial_step(); }

 protected:
  explicit LRScheduler(OptimizerRef opt);
  // Schedulers that are no _LRScheduler in torch (ReduceLROnPlateau) or do
  // not call its constructor (SequentialLR, ChainedScheduler): the optimizer
  // only, the groups untouched.
  struct Bare {};
  LRScheduler(OptimizerRef opt, Bare);
  // Call at the end of a derived constructor (torch's _initial_step).
  void initial_step();
  virtual std::vector<double> get_lr() = 0;
  // torch's _get_closed_form_lr (step(epoch)); schedulers without one use get_lr().
  virtual std::vector<double> closed_form_lr() { return get_lr(); }
  std::vector<double> group_lrs() const;
  // The scheduler's own settings for state dicts (as float64 or int64 0-dim
  // tensors, milestones a 1-D int64); load_settings reads the same keys
  // (already checked to be present).
  virtual void save_settings(nn::TensorDict& d) const = 0;
  virtual void load_settings(const nn::TensorDict& d) = 0;
  virtual std::vector<std::string> setting_keys() const = 0;

  OptimizerRef opt_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  std::vector<double> last_lr_;
};

Ref<LRScheduler> make_step_lr(OptimizerRef opt, int64_t step_size, double gamma);
Ref<LRScheduler> make_multi_step_lr(OptimizerRef opt, std::vector<int64_t> milestones, double gamma);
Ref<LRScheduler> make_cosine_annealing_lr(OptimizerRef opt, int64_t t_max, double eta_min);
Ref<LRScheduler> make_linear_lr(OptimizerRef opt, double start_factor, double end_factor, int64_t total_iters);

}  // namespace glia::optim
