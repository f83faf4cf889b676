// ExponentialLR, PolynomialLR, ConstantLR, LambdaLR, MultiplicativeLR,
// SequentialLR, ChainedScheduler, ReduceLROnPlateau, CyclicLR, OneCycleLR and
// CosineAnnealingWarmRestarts: torch 1.13's lr_scheduler.py, step by step
// (its arithmetic in its order, so the lrs match to the last bit where the
// libm does).
#include "optim/lr_scheduler_extra.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "core/error.h"
#include "optim/scheduler_state.h"

namespace glia::optim {

namespace {

constexpr double kPi = std::numbers::pi;

using namespace sched_state;

Tensor i64_vector(const std::vector<int64_t>& v) {
  const auto n = static_cast<int64_t>(v.size());
  Tensor t = empty(IntSpan(&n, 1), DType::Int64, Device{});
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<int64_t>()[i] = v[i];
  return t;
}
int64_t code_entry(const nn::TensorDict& d, const std::string& key, int64_t n_codes) {
  int64_t v = int_entry(d, key);
  GLIA_CHECK(v >= 0 && v < n_codes, InvalidArgument, "loaded scheduler state dict's \"", key, "\" must be in [0, ",
             n_codes - 1, "], got ", v);
  return v;
}
std::vector<double> vector_entry(const nn::TensorDict& d, const std::string& key, size_t n) {
  std::vector<double> v = f64_values(entry(d, key));
  GLIA_CHECK(v.size() == n, InvalidArgument, "loaded scheduler state dict has ", v.size(), " ", key,
             " values, expected ", n);
  return v;
}
// Checks the keys of `d`: each one is in `keys` or torch's ignored "verbose" / "_get_lr_called_within_step".
void check_keys(const nn::TensorDict& d, const std::vector<std::string>& keys) {
  for (size_t i = 0; i < d.size(); ++i) {
    const std::string& k = d.key_at(i);
    bool known = k == "verbose" || k == "_get_lr_called_within_step";
    for (const std::string& x : keys) known = known || x == k;
    GLIA_CHECK(known, InvalidArgument, "loaded scheduler state dict has an unexpected key \"", k, "\"");
  }
}

// torch's _format_param: one value per group, or one for all.
std::vector<double> format_param(const char* name, const Optimizer& opt, const std::vector<double>& v) {
  const size_t n = opt.num_groups();
  if (v.size() == 1) return std::vector<double>(n, v[0]);
  GLIA_CHECK(v.size() == n, InvalidArgument, "expected ", n, " values for ", name, ", got ", v.size());
  return v;
}

bool has_default(const Optimizer& opt, const char* name) {
  for (const Option& o : opt.defaults())
    if (o.name == name) return true;
  return false;
}

// A group's value read by torch's name, KeyError as NotFound.
double group_value(const ParamGroup& g, const char* name) {
  const Option* o = g.find(name);
  GLIA_CHECK(o && !o->value.empty(), NotFound, "'", name, "'");
  return o->value[0];
}
// group['betas'] = (m, *group['betas'][1:]) or group['momentum'] = m.
void set_momentum(ParamGroup& g, bool use_beta1, double m) {
  if (!use_beta1) {
    g.set("momentum", m);
    return;
  }
  for (Option& o : g.options)
    if (o.name == "betas" && !o.value.empty()) {
      o.value[0] = m;
      return;
    }
  fail(Code::NotFound, "'betas'");
}

// Python's bisect_right (on any list, sorted or not, as torch calls it).
size_t bisect_right(const std::vector<int64_t>& a, int64_t x) {
  size_t lo = 0, hi = a.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (x < a[mid])
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// Puts the groups' options back unless dismissed (a constructor or step that failed half way).
class GroupsUndo {
 public:
  explicit GroupsUndo(Optimizer& o) : o_(o) {
    for (size_t g = 0; g < o.num_groups(); ++g) saved_.push_back(o.group(g).options);
  }
  ~GroupsUndo() {
    if (done_) return;
    for (size_t g = 0; g < saved_.size() && g < o_.num_groups(); ++g) o_.group(g).options = std::move(saved_[g]);
  }
  void dismiss() { done_ = true; }
  GroupsUndo(const GroupsUndo&) = delete;
  GroupsUndo& operator=(const GroupsUndo&) = delete;

 private:
  Optimizer& o_;
  std::vector<std::vector<Option>> saved_;
  bool done_ = false;
};

// Puts the schedulers' states back unless dismissed.
class SchedulersUndo {
 public:
  explicit SchedulersUndo(const std::vector<Ref<LRScheduler>>& s) {
    for (const Ref<LRScheduler>& x : s) saved_.emplace_back(x, x->state_dict());
  }
  ~SchedulersUndo() {
    if (done_) return;
    for (auto& [s, d] : saved_) {
      try {
        s->load_state_dict(*d);
      } catch (...) {  // a state the scheduler wrote itself loads back (only memory can fail)
      }
    }
  }
  void dismiss() { done_ = true; }
  SchedulersUndo(const SchedulersUndo&) = delete;
  SchedulersUndo& operator=(const SchedulersUndo&) = delete;

 private:
  std::vector<std::pair<Ref<LRScheduler>, Ref<nn::TensorDict>>> saved_;
  bool done_ = false;
};

// ---- ExponentialLR, PolynomialLR, ConstantLR ----------------------------------------

class ExponentialLR final : public LRScheduler {
 public:
  ExponentialLR(OptimizerRef opt, double gamma) : LRScheduler(std::move(opt)), gamma_(gamma) { initial_step(); }
  const char* type_name() const override { return "ExponentialLR"; }

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    if (last_epoch_ == 0) return lrs;
    for (double& lr : lrs) lr *= gamma_;
    return lrs;
  }
  std::vector<double> closed_form_lr() override {
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(last_epoch_));
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override { d.set("gamma", f64_scalar(gamma_)); }
  std::vector<std::string> setting_keys() const override { return {"gamma"}; }
  void load_settings(const nn::TensorDict& d) override { gamma_ = scalar_entry(d, "gamma"); }

 private:
  double gamma_;
};

class PolynomialLR final : public LRScheduler {
 public:
  PolynomialLR(OptimizerRef opt, int64_t total, double power)
      : LRScheduler(std::move(opt)), total_(total), power_(power) {
    initial_step();
  }
  const char* type_name() const override { return "PolynomialLR"; }

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    if (last_epoch_ == 0 || last_epoch_ > total_) return lrs;
    const double T = static_cast<double>(total_), e = static_cast<double>(last_epoch_);
    const double decay = std::pow((1.0 - e / T) / (1.0 - (e - 1) / T), power_);
    for (double& lr : lrs) lr *= decay;
    return lrs;
  }
  std::vector<double> closed_form_lr() override {
    GLIA_CHECK(total_ != 0, InvalidArgument, "PolynomialLR.step(epoch): division by zero (total_iters is 0)");
    const double f =
        std::pow(1.0 - static_cast<double>(std::min(total_, last_epoch_)) / static_cast<double>(total_), power_);
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs) lr *= f;
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("total_iters", i64_scalar(total_));
    d.set("power", f64_scalar(power_));
  }
  std::vector<std::string> setting_keys() const override { return {"total_iters", "power"}; }
  void load_settings(const nn::TensorDict& d) override {
    int64_t total = int_entry(d, "total_iters");
    power_ = scalar_entry(d, "power");
    total_ = total;
  }

 private:
  int64_t total_;
  double power_;
};

void check_constant_factor(double factor) {
  GLIA_CHECK(!(factor > 1.0 || factor < 0), InvalidArgument,
             "Constant multiplicative factor expected to be between 0 and 1.");
}

class ConstantLR final : public LRScheduler {
 public:
  ConstantLR(OptimizerRef opt, double factor, int64_t total)
      : LRScheduler(std::move(opt)), factor_(factor), total_(total) {
    initial_step();
  }
  const char* type_name() const override { return "ConstantLR"; }

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    if (last_epoch_ == 0) {
      for (double& lr : lrs) lr *= factor_;
      return lrs;
    }
    if (last_epoch_ != total_) return lrs;
    GLIA_CHECK(factor_ != 0, InvalidArgument, "ConstantLR: float division by zero (factor is 0)");
    for (double& lr : lrs) lr *= 1.0 / factor_;
    return lrs;
  }
  std::vector<double> closed_form_lr() override {
    const double f = factor_ + (last_epoch_ >= total_ ? 1.0 : 0.0) * (1 - factor_);
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs) lr *= f;
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("factor", f64_scalar(factor_));
    d.set("total_iters", i64_scalar(total_));
  }
  std::vector<std::string> setting_keys() const override { return {"factor", "total_iters"}; }
  void load_settings(const nn::TensorDict& d) override {
    double factor = scalar_entry(d, "factor");
    int64_t total = int_entry(d, "total_iters");
    check_constant_factor(factor);
    factor_ = factor;
    total_ = total;
  }

 private:
  double factor_;
  int64_t total_;
};

// ---- LambdaLR, MultiplicativeLR -------------------------------------------------------

class LambdaLR final : public LRScheduler {
 public:
  LambdaLR(OptimizerRef opt, LrLambda fn, bool multiplicative)
      : LRScheduler(std::move(opt)), fn_(std::move(fn)), multiplicative_(multiplicative) {
    initial_step();
  }
  const char* type_name() const override { return multiplicative_ ? "MultiplicativeLR" : "LambdaLR"; }

 protected:
  std::vector<double> get_lr() override {
    if (multiplicative_) {
      std::vector<double> lrs = group_lrs();
      if (last_epoch_ <= 0) return lrs;
      // zip(lr_lambdas, param_groups): one lambda per group at construction.
      lrs.resize(std::min(lrs.size(), base_lrs_.size()));
      for (size_t g = 0; g < lrs.size(); ++g) lrs[g] *= fn_(static_cast<int64_t>(g), last_epoch_);
      return lrs;
    }
    std::vector<double> lrs(base_lrs_.size());
    for (size_t g = 0; g < lrs.size(); ++g) lrs[g] = base_lrs_[g] * fn_(static_cast<int64_t>(g), last_epoch_);
    return lrs;
  }
  void save_settings(nn::TensorDict&) const override {}
  std::vector<std::string> setting_keys() const override { return {}; }
  void load_settings(const nn::TensorDict&) override {}

 private:
  LrLambda fn_;
  bool multiplicative_;
};

// ---- SequentialLR, ChainedScheduler ---------------------------------------------------

// "_schedulers.<i>.<key>" entries of `d`, one dict per scheduler (exactly n).
std::vector<Ref<nn::TensorDict>> split_sub_dicts(const nn::TensorDict& d, size_t n) {
  std::vector<Ref<nn::TensorDict>> subs;
  for (size_t i = 0; i < n; ++i) subs.push_back(make_ref<nn::TensorDict>());
  const std::string prefix = "_schedulers.";
  for (size_t i = 0; i < d.size(); ++i) {
    const std::string& k = d.key_at(i);
    if (k.rfind(prefix, 0) != 0) continue;
    size_t pos = prefix.size(), idx = 0;
    bool digits = pos < k.size() && std::isdigit(static_cast<unsigned char>(k[pos]));
    while (pos < k.size() && std::isdigit(static_cast<unsigned char>(k[pos])) && idx < 1000000)
      idx = idx * 10 + static_cast<size_t>(k[pos++] - '0');
    GLIA_CHECK(digits && pos < k.size() && k[pos] == '.' && pos + 1 < k.size(), InvalidArgument,
               "loaded scheduler state dict has an unexpected key \"", k, "\" (expected \"_schedulers.<i>.<key>\")");
    GLIA_CHECK(idx < n, InvalidArgument, "loaded scheduler state dict has state for _schedulers[", idx,
               "], but there are ", n, " schedulers");
    subs[idx]->set(k.substr(pos + 1), d.value_at(i));
  }
  for (size_t i = 0; i < n; ++i)
    GLIA_CHECK(subs[i]->size() > 0, InvalidArgument, "loaded scheduler state dict has no state for _schedulers[", i,
               "]");
  return subs;
}

void add_sub_dicts(nn::TensorDict& d, const std::vector<Ref<LRScheduler>>& subs) {
  for (size_t i = 0; i < subs.size(); ++i) {
    Ref<nn::TensorDict> s = subs[i]->state_dict();
    const std::string prefix = "_schedulers." + std::to_string(i) + ".";
    for (size_t j = 0; j < s->size(); ++j) d.set(prefix + s->key_at(j), s->value_at(j));
  }
}

void load_sub_dicts(const nn::TensorDict& d, const std::vector<Ref<LRScheduler>>& subs) {
  std::vector<Ref<nn::TensorDict>> parts = split_sub_dicts(d, subs.size());
  SchedulersUndo undo(subs);
  for (size_t i = 0; i < subs.size(); ++i) subs[i]->load_state_dict(*parts[i]);
  undo.dismiss();
}

class SequentialLR final : public LRScheduler {
 public:
  SequentialLR(OptimizerRef opt, std::vector<Ref<LRScheduler>> subs, std::vector<int64_t> milestones)
      : LRScheduler(std::move(opt), Bare{}), subs_(std::move(subs)), milestones_(std::move(milestones)) {
    GroupsUndo groups(*opt_);
    SchedulersUndo states(subs_);
    last_epoch_ = 0;  // last_epoch + 1
    for (size_t g = 0; g < opt_->num_groups(); ++g) opt_->group(g).set("lr", group_value(opt_->group(g), "initial_lr"));
    for (const Ref<LRScheduler>& s : subs_) s->undo_epoch();
    subs_[0]->rerun_initial_step();
    last_lr_ = subs_[0]->last_lr();
    states.dismiss();
    groups.dismiss();
  }
  const char* type_name() const override { return "SequentialLR"; }

  void step() override {
    GroupsUndo groups(*opt_);
    SchedulersUndo states(subs_);
    const int64_t epoch = last_epoch_ + 1;
    const size_t idx = bisect_right(milestones_, epoch);
    GLIA_CHECK(idx < subs_.size(), InvalidArgument, "SequentialLR: list index out of range (milestone ", idx, " of ",
               subs_.size(), " schedulers)");
    LRScheduler& s = *subs_[idx];
    if (idx > 0 && milestones_[idx - 1] == epoch)
      s.step_epoch(0);
    else
      s.step();
    last_epoch_ = epoch;
    last_lr_ = s.last_lr();
    states.dismiss();
    groups.dismiss();
  }
  void step_epoch(double) override { fail(Code::InvalidArgument, "SequentialLR.step() takes no epoch"); }

  Ref<nn::TensorDict> state_dict() const override {
    auto d = make_ref<nn::TensorDict>();
    d->set("_milestones", i64_vector(milestones_));
    d->set("last_epoch", i64_scalar(last_epoch_));
    d->set("_last_lr", f64_vector(last_lr_));
    add_sub_dicts(*d, subs_);
    return d;
  }
  void load_state_dict(const nn::TensorDict& d) override {
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string& k = d.key_at(i);
      GLIA_CHECK(k == "_milestones" || k == "last_epoch" || k == "_last_lr" || k.rfind("_schedulers.", 0) == 0,
                 InvalidArgument, "loaded scheduler state dict has an unexpected key \"", k, "\"");
    }
    const Tensor& m = entry(d, "_milestones");
    GLIA_CHECK(m.dim() <= 1 && !is_floating(m.dtype()), InvalidArgument,
               "loaded scheduler state dict's \"_milestones\" must be a 1-D integer tensor");
    Tensor mc = contiguous(to_dtype(m, DType::Int64));
    std::vector<int64_t> ms(mc.data_ptr<int64_t>(), mc.data_ptr<int64_t>() + mc.numel());
    GLIA_CHECK(ms.size() + 1 == subs_.size(), InvalidArgument, "loaded scheduler state dict has ", ms.size(),
               " _milestones, expected ", subs_.size() - 1);
    int64_t epoch = int_entry(d, "last_epoch");
    std::vector<double> last = f64_values(entry(d, "_last_lr"));
    load_sub_dicts(d, subs_);
    milestones_ = std::move(ms);
    last_epoch_ = epoch;
    last_lr_ = std::move(last);
  }

 protected:
  std::vector<double> get_lr() override { return last_lr_; }
  void save_settings(nn::TensorDict&) const override {}
  std::vector<std::string> setting_keys() const override { return {}; }
  void load_settings(const nn::TensorDict&) override {}

 private:
  std::vector<Ref<LRScheduler>> subs_;
  std::vector<int64_t> milestones_;
};

class ChainedScheduler final : public LRScheduler {
 public:
  explicit ChainedScheduler(std::vector<Ref<LRScheduler>> subs)
      : LRScheduler(OptimizerRef::share(&subs.at(0)->optimizer()), Bare{}), subs_(std::move(subs)) {
    last_lr_ = group_lrs();
  }
  const char* type_name() const override { return "ChainedScheduler"; }
  bool has_last_epoch() const override { return false; }

  void step() override {
    GroupsUndo groups(*opt_);
    SchedulersUndo states(subs_);
    for (const Ref<LRScheduler>& s : subs_) s->step();
    last_lr_ = group_lrs();
    states.dismiss();
    groups.dismiss();
  }
  void step_epoch(double) override { fail(Code::InvalidArgument, "ChainedScheduler.step() takes no epoch"); }

  Ref<nn::TensorDict> state_dict() const override {
    auto d = make_ref<nn::TensorDict>();
    d->set("_last_lr", f64_vector(last_lr_));
    add_sub_dicts(*d, subs_);
    return d;
  }
  void load_state_dict(const nn::TensorDict& d) override {
    for (size_t i = 0; i < d.size(); ++i) {
      const std::string& k = d.key_at(i);
      GLIA_CHECK(k == "_last_lr" || k.rfind("_schedulers.", 0) == 0, InvalidArgument,
                 "loaded scheduler state dict has an unexpected key \"", k, "\"");
    }
    std::vector<double> last = f64_values(entry(d, "_last_lr"));
    load_sub_dicts(d, subs_);
    last_lr_ = std::move(last);
  }

 protected:
  std::vector<double> get_lr() override { return last_lr_; }
  void save_settings(nn::TensorDict&) const override {}
  std::vector<std::string> setting_keys() const override { return {}; }
  void load_settings(const nn::TensorDict&) override {}

 private:
  std::vector<Ref<LRScheduler>> subs_;
};

// ---- ReduceLROnPlateau ----------------------------------------------------------------

void check_plateau_modes(int64_t mode, int64_t threshold_mode) {
  GLIA_CHECK(mode == 0 || mode == 1, InvalidArgument, "mode ", mode, " is unknown!");
  GLIA_CHECK(threshold_mode == 0 || threshold_mode == 1, InvalidArgument, "threshold mode ", threshold_mode,
             " is unknown!");
}

class ReduceLROnPlateau final : public LRScheduler {
 public:
  ReduceLROnPlateau(OptimizerRef opt, const PlateauOptions& o, std::vector<double> min_lrs)
      : LRScheduler(std::move(opt), Bare{}),
        factor_(o.factor),
        min_lrs_(std::move(min_lrs)),
        patience_(o.patience),
        cooldown_(o.cooldown),
        mode_(o.mode),
        threshold_(o.threshold),
        threshold_mode_(o.threshold_mode),
        eps_(o.eps) {
    last_epoch_ = 0;
    mode_worse_ = mode_ == 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    best_ = mode_worse_;
  }
  const char* type_name() const override { return "ReduceLROnPlateau"; }

  void step() override {
    fail(Code::InvalidArgument, "ReduceLROnPlateau.step() missing 1 required positional argument: 'metrics'");
  }
  void step_epoch(double) override {
    fail(Code::InvalidArgument, "ReduceLROnPlateau.step() missing 1 required positional argument: 'metrics'");
  }
  void step_metric(double current) override {
    const int64_t epoch = last_epoch_ + 1;
    last_epoch_ = epoch;
    if (is_better(current, best_)) {
      best_ = current;
      num_bad_epochs_ = 0;
    } else {
      num_bad_epochs_ += 1;
    }
    if (cooldown_counter_ > 0) {
      cooldown_counter_ -= 1;
      num_bad_epochs_ = 0;  // ignore any bad epochs in cooldown
    }
    if (num_bad_epochs_ > patience_) {
      for (size_t g = 0; g < opt_->num_groups() && g < min_lrs_.size(); ++g) {
        ParamGroup& pg = opt_->group(g);
        const double old_lr = pg.get("lr");
        const double a = old_lr * factor_, b = min_lrs_[g];
        const double new_lr = b > a ? b : a;  // Python's max(a, b)
        if (old_lr - new_lr > eps_) pg.set("lr", new_lr);
      }
      cooldown_counter_ = cooldown_;
      num_bad_epochs_ = 0;
    }
    last_lr_ = group_lrs();
    stepped_ = true;
  }

  Ref<nn::TensorDict> state_dict() const override {
    auto d = make_ref<nn::TensorDict>();
    d->set("factor", f64_scalar(factor_));
    d->set("min_lrs", f64_vector(min_lrs_));
    d->set("patience", i64_scalar(patience_));
    d->set("cooldown", i64_scalar(cooldown_));
    d->set("cooldown_counter", i64_scalar(cooldown_counter_));
    d->set("mode", i64_scalar(mode_));
    d->set("threshold", f64_scalar(threshold_));
    d->set("threshold_mode", i64_scalar(threshold_mode_));
    d->set("best", f64_scalar(best_));
    d->set("num_bad_epochs", i64_scalar(num_bad_epochs_));
    d->set("mode_worse", f64_scalar(mode_worse_));
    d->set("eps", f64_scalar(eps_));
    d->set("last_epoch", i64_scalar(last_epoch_));
    if (stepped_) d->set("_last_lr", f64_vector(last_lr_));
    return d;
  }
  void load_state_dict(const nn::TensorDict& d) override {
    std::vector<std::string> keys{"factor",     "min_lrs",   "patience",       "cooldown", "cooldown_counter",
                                  "mode",       "threshold", "threshold_mode", "best",     "num_bad_epochs",
                                  "mode_worse", "eps",       "last_epoch"};
    check_keys(d, [&] {
      auto k = keys;
      k.push_back("_last_lr");
      return k;
    }());
    for (const std::string& k : keys) entry(d, k);
    const double factor = scalar_entry(d, "factor");
    std::vector<double> min_lrs = vector_entry(d, "min_lrs", opt_->num_groups());
    const int64_t patience = int_entry(d, "patience"), cooldown = int_entry(d, "cooldown"),
                  counter = int_entry(d, "cooldown_counter"), mode = int_entry(d, "mode"),
                  tmode = int_entry(d, "threshold_mode"), bad = int_entry(d, "num_bad_epochs"),
                  epoch = int_entry(d, "last_epoch");
    const double threshold = scalar_entry(d, "threshold"), best = scalar_entry(d, "best"), eps = scalar_entry(d, "eps");
    check_plateau_modes(mode, tmode);
    const bool stepped = d.find("_last_lr") != nullptr;
    std::vector<double> last;
    if (stepped) last = f64_values(entry(d, "_last_lr"));
    factor_ = factor;
    min_lrs_ = std::move(min_lrs);
    patience_ = patience;
    cooldown_ = cooldown;
    cooldown_counter_ = counter;
    mode_ = static_cast<int>(mode);
    threshold_ = threshold;
    threshold_mode_ = static_cast<int>(tmode);
    best_ = best;
    num_bad_epochs_ = bad;
    // torch's load_state_dict re-runs _init_is_better, which resets mode_worse.
    mode_worse_ = mode_ == 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    eps_ = eps;
    last_epoch_ = epoch;
    last_lr_ = std::move(last);
    stepped_ = stepped;
  }

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }
  void save_settings(nn::TensorDict&) const override {}
  std::vector<std::string> setting_keys() const override { return {}; }
  void load_settings(const nn::TensorDict&) override {}

 private:
  bool is_better(double a, double best) const {
    if (mode_ == 0 && threshold_mode_ == 0) return a < best * (1. - threshold_);
    if (mode_ == 0) return a < best - threshold_;
    if (threshold_mode_ == 0) return a > best * (threshold_ + 1.);
    return a > best + threshold_;
  }

  double factor_;
  std::vector<double> min_lrs_;
  int64_t patience_, cooldown_, cooldown_counter_ = 0;
  int mode_;
  double threshold_;
  int threshold_mode_;
  double best_ = 0;
  int64_t num_bad_epochs_ = 0;
  double mode_worse_ = 0, eps_;
  bool stepped_ = false;  // torch has no _last_lr before the first step
};

// ---- CyclicLR -------------------------------------------------------------------------

class CyclicLR final : public LRScheduler {
 public:
  CyclicLR(OptimizerRef opt, const CyclicOptions& o, std::vector<double> base_lrs, std::vector<double> max_lrs,
           std::vector<double> base_moms, std::vector<double> max_moms)
      : LRScheduler(std::move(opt)),
        max_lrs_(std::move(max_lrs)),
        mode_(o.mode),
        gamma_(o.gamma),
        scale_fn_(o.scale_fn),
        scale_mode_(o.scale_fn ? o.scale_mode : (o.mode == 2 ? 1 : 0)),
        cycle_momentum_(o.cycle_momentum),
        base_moms_(std::move(base_moms)),
        max_moms_(std::move(max_moms)) {
    const double up = o.step_size_up, down = o.has_step_size_down ? o.step_size_down : up;
    total_size_ = up + down;
    step_ratio_ = up / total_size_;
    initial_step();
    base_lrs_ = std::move(base_lrs);
  }
  const char* type_name() const override { return "CyclicLR"; }

 protected:
  double scale(int64_t x) const {
    if (scale_fn_) return scale_fn_(x);
    if (mode_ == 0) return 1.;
    if (mode_ == 1) return 1 / std::pow(2., static_cast<double>(x) - 1);
    return std::pow(gamma_, static_cast<double>(x));
  }
  std::vector<double> get_lr() override {
    const double e = static_cast<double>(last_epoch_);
    const double c = std::floor(1 + e / total_size_);
    GLIA_CHECK(std::fabs(c) < 9.0e15, InvalidArgument, "CyclicLR: the cycle number overflows");
    const auto cycle = static_cast<int64_t>(c);
    const double x = 1. + e / total_size_ - c;
    double scale_factor;
    if (x <= step_ratio_) {
      GLIA_CHECK(step_ratio_ != 0, InvalidArgument, "CyclicLR: float division by zero (step_size_up is 0)");
      scale_factor = x / step_ratio_;
    } else {
      scale_factor = (x - 1) / (step_ratio_ - 1);
    }
    const int64_t arg = scale_mode_ == 0 ? cycle : last_epoch_;
    std::vector<double> lrs;
    for (size_t g = 0; g < base_lrs_.size() && g < max_lrs_.size(); ++g) {
      const double base_height = (max_lrs_[g] - base_lrs_[g]) * scale_factor;
      lrs.push_back(base_lrs_[g] + base_height * scale(arg));
    }
    if (cycle_momentum_) {
      std::vector<double> moms;
      for (size_t g = 0; g < base_moms_.size() && g < max_moms_.size(); ++g) {
        const double base_height = (max_moms_[g] - base_moms_[g]) * scale_factor;
        moms.push_back(max_moms_[g] - base_height * scale(arg));
      }
      // Every callback ran: now the side effect on the groups' momentum.
      for (size_t g = 0; g < moms.size() && g < opt_->num_groups(); ++g) opt_->group(g).set("momentum", moms[g]);
    }
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("max_lrs", f64_vector(max_lrs_));
    d.set("total_size", f64_scalar(total_size_));
    d.set("step_ratio", f64_scalar(step_ratio_));
    d.set("mode", i64_scalar(mode_));
    d.set("gamma", f64_scalar(gamma_));
    d.set("scale_mode", i64_scalar(scale_mode_));
    d.set("cycle_momentum", i64_scalar(cycle_momentum_ ? 1 : 0));
    if (cycle_momentum_) {
      d.set("base_momentums", f64_vector(base_moms_));
      d.set("max_momentums", f64_vector(max_moms_));
    }
  }
  std::vector<std::string> setting_keys() const override {
    std::vector<std::string> k{"max_lrs", "total_size", "step_ratio", "mode", "gamma", "scale_mode", "cycle_momentum"};
    if (cycle_momentum_) {
      k.push_back("base_momentums");
      k.push_back("max_momentums");
    }
    return k;
  }
  void load_settings(const nn::TensorDict& d) override {
    const size_t n = base_lrs_.size();
    std::vector<double> max_lrs = vector_entry(d, "max_lrs", n);
    const double total = scalar_entry(d, "total_size"), ratio = scalar_entry(d, "step_ratio"),
                 gamma = scalar_entry(d, "gamma");
    const int64_t mode = code_entry(d, "mode", 3), smode = code_entry(d, "scale_mode", 2),
                  cm = code_entry(d, "cycle_momentum", 2);
    GLIA_CHECK((cm == 1) == cycle_momentum_, InvalidArgument,
               "loaded scheduler state dict's \"cycle_momentum\" differs from the scheduler's");
    std::vector<double> bm, mm;
    if (cycle_momentum_) {
      bm = vector_entry(d, "base_momentums", n);
      mm = vector_entry(d, "max_momentums", n);
    }
    max_lrs_ = std::move(max_lrs);
    total_size_ = total;
    step_ratio_ = ratio;
    gamma_ = gamma;
    mode_ = static_cast<int>(mode);
    scale_mode_ = static_cast<int>(smode);
    base_moms_ = std::move(bm);
    max_moms_ = std::move(mm);
  }

 private:
  std::vector<double> max_lrs_;
  double total_size_ = 0, step_ratio_ = 0;
  int mode_;
  double gamma_;
  ScaleFn scale_fn_;
  int scale_mode_;
  bool cycle_momentum_;
  std::vector<double> base_moms_, max_moms_;
};

// ---- OneCycleLR -----------------------------------------------------------------------

class OneCycleLR final : public LRScheduler {
 public:
  OneCycleLR(OptimizerRef opt, int64_t total_steps, std::vector<double> end_steps, int anneal, bool cycle_momentum,
             bool use_beta1)
      : LRScheduler(std::move(opt)),
        total_steps_(total_steps),
        end_steps_(std::move(end_steps)),
        anneal_(anneal),
        cycle_momentum_(cycle_momentum),
        use_beta1_(use_beta1) {
    initial_step();
  }
  const char* type_name() const override { return "OneCycleLR"; }

 protected:
  double anneal(double start, double end, double pct) const {
    if (anneal_ == 0) {
      const double cos_out = std::cos(kPi * pct) + 1;
      return end + (start - end) / 2.0 * cos_out;
    }
    return (end - start) * pct + start;
  }
  std::vector<double> get_lr() override {
    const int64_t step_num = last_epoch_;
    GLIA_CHECK(step_num <= total_steps_, InvalidArgument, "Tried to step ", step_num + 1,
               " times. The specified number of total steps is ", total_steps_);
    // Phase i's (start_lr, end_lr, start_momentum, end_momentum) group keys.
    static const char* const two[2][4] = {{"initial_lr", "max_lr", "max_momentum", "base_momentum"},
                                          {"max_lr", "min_lr", "base_momentum", "max_momentum"}};
    static const char* const three[3][4] = {{"initial_lr", "max_lr", "max_momentum", "base_momentum"},
                                            {"max_lr", "initial_lr", "base_momentum", "max_momentum"},
                                            {"initial_lr", "min_lr", "max_momentum", "max_momentum"}};
    const size_t n_phases = end_steps_.size();
    std::vector<double> lrs, moms;
    for (size_t g = 0; g < opt_->num_groups(); ++g) {
      const ParamGroup& pg = opt_->group(g);
      double start_step = 0;
      for (size_t i = 0; i < n_phases; ++i) {
        const double end_step = end_steps_[i];
        if (static_cast<double>(step_num) <= end_step || i == n_phases - 1) {
          const char* const* keys = n_phases == 3 ? three[i] : two[i];
          GLIA_CHECK(end_step - start_step != 0, InvalidArgument, "OneCycleLR: float division by zero (phase ", i,
                     " is empty)");
          const double pct = (static_cast<double>(step_num) - start_step) / (end_step - start_step);
          lrs.push_back(anneal(group_value(pg, keys[0]), group_value(pg, keys[1]), pct));
          if (cycle_momentum_) moms.push_back(anneal(group_value(pg, keys[2]), group_value(pg, keys[3]), pct));
          break;
        }
        start_step = end_step;
      }
    }
    for (size_t g = 0; g < moms.size(); ++g) set_momentum(opt_->group(g), use_beta1_, moms[g]);
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("total_steps", i64_scalar(total_steps_));
    for (size_t i = 0; i < end_steps_.size(); ++i)
      d.set("_schedule_phases." + std::to_string(i) + ".end_step", f64_scalar(end_steps_[i]));
    d.set("anneal_func", i64_scalar(anneal_));
    d.set("cycle_momentum", i64_scalar(cycle_momentum_ ? 1 : 0));
    if (cycle_momentum_) d.set("use_beta1", i64_scalar(use_beta1_ ? 1 : 0));
  }
  std::vector<std::string> setting_keys() const override {
    std::vector<std::string> k{"total_steps"};
    for (size_t i = 0; i < end_steps_.size(); ++i) k.push_back("_schedule_phases." + std::to_string(i) + ".end_step");
    k.push_back("anneal_func");
    k.push_back("cycle_momentum");
    if (cycle_momentum_) k.push_back("use_beta1");
    return k;
  }
  void load_settings(const nn::TensorDict& d) override {
    const int64_t total = int_entry(d, "total_steps");
    std::vector<double> ends;
    for (size_t i = 0; i < end_steps_.size(); ++i)
      ends.push_back(scalar_entry(d, "_schedule_phases." + std::to_string(i) + ".end_step"));
    const int64_t anneal = code_entry(d, "anneal_func", 2), cm = code_entry(d, "cycle_momentum", 2);
    GLIA_CHECK((cm == 1) == cycle_momentum_, InvalidArgument,
               "loaded scheduler state dict's \"cycle_momentum\" differs from the scheduler's");
    bool beta1 = use_beta1_;
    if (cycle_momentum_) {
      beta1 = code_entry(d, "use_beta1", 2) == 1;
      GLIA_CHECK(!beta1 || has_default(*opt_, "betas"), InvalidArgument,
                 "loaded scheduler state dict's \"use_beta1\" is 1, but ", opt_->type_name(), " has no betas");
      GLIA_CHECK(beta1 || has_default(*opt_, "momentum"), InvalidArgument,
                 "loaded scheduler state dict's \"use_beta1\" is 0, but ", opt_->type_name(), " has no momentum");
    }
    total_steps_ = total;
    end_steps_ = std::move(ends);
    anneal_ = static_cast<int>(anneal);
    use_beta1_ = beta1;
  }

 private:
  int64_t total_steps_;
  std::vector<double> end_steps_;
  int anneal_;
  bool cycle_momentum_, use_beta1_;
};

// ---- CosineAnnealingWarmRestarts ------------------------------------------------------

void check_warm_restarts(int64_t t_0, int64_t t_mult) {
  GLIA_CHECK(t_0 > 0, InvalidArgument, "Expected positive integer T_0, but got ", t_0);
  GLIA_CHECK(t_mult >= 1, InvalidArgument, "Expected integer T_mult >= 1, but got ", t_mult);
}

class CosineAnnealingWarmRestarts final : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(OptimizerRef opt, int64_t t_0, int64_t t_mult, double eta_min)
      : LRScheduler(std::move(opt)), t_0_(t_0), t_i_(t_0), t_mult_(t_mult), eta_min_(eta_min), t_cur_(-1) {
    initial_step();
  }
  const char* type_name() const override { return "CosineAnnealingWarmRestarts"; }

  // torch's own step(): no _step_count increment; step() at last_epoch -1 is step(0).
  void step() override {
    if (last_epoch_ < 0) {
      step_epoch(0);
      return;
    }
    const double saved_cur = t_cur_;
    const int64_t saved_i = t_i_;
    t_cur_ = t_cur_ + 1;
    if (t_cur_ >= static_cast<double>(t_i_)) {
      t_cur_ = t_cur_ - static_cast<double>(t_i_);
      t_i_ = t_i_ * t_mult_;
    }
    apply(static_cast<double>(last_epoch_ + 1), saved_cur, saved_i);
  }
  void step_epoch(double epoch) override {
    GLIA_CHECK(!(epoch < 0), InvalidArgument, "Expected non-negative epoch, but got ", py_float(epoch));
    GLIA_CHECK(std::isfinite(epoch) && epoch < 9.0e15, InvalidArgument,
               "CosineAnnealingWarmRestarts.step(epoch): epoch must be finite, got ", py_float(epoch));
    const double saved_cur = t_cur_;
    const int64_t saved_i = t_i_;
    const double T0 = static_cast<double>(t_0_);
    if (epoch >= T0) {
      if (t_mult_ == 1) {
        t_cur_ = std::fmod(epoch, T0);
      } else {
        const double m = static_cast<double>(t_mult_);
        const double n = std::trunc(std::log(epoch / T0 * (m - 1) + 1) / std::log(m));
        t_cur_ = epoch - T0 * (std::pow(m, n) - 1) / (m - 1);
        t_i_ = t_0_ * static_cast<int64_t>(std::pow(m, n));
      }
    } else {
      t_i_ = t_0_;
      t_cur_ = epoch;
    }
    apply(epoch, saved_cur, saved_i);
  }

 protected:
  void apply(double epoch, double saved_cur, int64_t saved_i) {
    const int64_t saved_epoch = last_epoch_;
    last_epoch_ = static_cast<int64_t>(std::floor(epoch));
    std::vector<double> values;
    try {
      values = get_lr();
    } catch (...) {
      t_cur_ = saved_cur;
      t_i_ = saved_i;
      last_epoch_ = saved_epoch;
      throw;
    }
    for (size_t g = 0; g < values.size() && g < opt_->num_groups(); ++g) opt_->group(g).set("lr", values[g]);
    last_lr_ = group_lrs();
  }
  std::vector<double> get_lr() override {
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs)
      lr = eta_min_ + (lr - eta_min_) * (1 + std::cos(kPi * t_cur_ / static_cast<double>(t_i_))) / 2;
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("T_0", i64_scalar(t_0_));
    d.set("T_i", i64_scalar(t_i_));
    d.set("T_mult", i64_scalar(t_mult_));
    d.set("eta_min", f64_scalar(eta_min_));
    d.set("T_cur", f64_scalar(t_cur_));
  }
  std::vector<std::string> setting_keys() const override { return {"T_0", "T_i", "T_mult", "eta_min", "T_cur"}; }
  void load_settings(const nn::TensorDict& d) override {
    const int64_t t0 = int_entry(d, "T_0"), ti = int_entry(d, "T_i"), tm = int_entry(d, "T_mult");
    const double eta = scalar_entry(d, "eta_min"), cur = scalar_entry(d, "T_cur");
    check_warm_restarts(t0, tm);
    GLIA_CHECK(ti > 0, InvalidArgument, "loaded scheduler state dict's \"T_i\" must be positive, got ", ti);
    t_0_ = t0;
    t_i_ = ti;
    t_mult_ = tm;
    eta_min_ = eta;
    t_cur_ = cur;
  }

 private:
  int64_t t_0_, t_i_, t_mult_;
  double eta_min_, t_cur_;
};

}  // namespace

// ---- factories ------------------------------------------------------------------------

Ref<LRScheduler> make_exponential_lr(OptimizerRef opt, double gamma) {
  return make_ref<ExponentialLR>(std::move(opt), gamma);
}

Ref<LRScheduler> make_polynomial_lr(OptimizerRef opt, int64_t total_iters, double power) {
  return make_ref<PolynomialLR>(std::move(opt), total_iters, power);
}

Ref<LRScheduler> make_constant_lr(OptimizerRef opt, double factor, int64_t total_iters) {
  check_constant_factor(factor);
  return make_ref<ConstantLR>(std::move(opt), factor, total_iters);
}

namespace {
Ref<LRScheduler> make_lambda(OptimizerRef opt, LrLambda fn, bool multiplicative) {
  GLIA_CHECK(opt, InvalidArgument, "the scheduler needs an optimizer");
  GLIA_CHECK(fn, InvalidArgument, multiplicative ? "MultiplicativeLR" : "LambdaLR", ": lr_lambda is missing");
  GroupsUndo undo(*opt);  // the initial step runs the lambda; its failure takes initial_lr back
  Ref<LRScheduler> s = make_ref<LambdaLR>(std::move(opt), std::move(fn), multiplicative);
  undo.dismiss();
  return s;
}
}  // namespace

Ref<LRScheduler> make_lambda_lr(OptimizerRef opt, LrLambda fn) {
  return make_lambda(std::move(opt), std::move(fn), false);
}

Ref<LRScheduler> make_multiplicative_lr(OptimizerRef opt, LrLambda fn) {
  return make_lambda(std::move(opt), std::move(fn), true);
}

Ref<LRScheduler> make_sequential_lr(OptimizerRef opt, std::vector<Ref<LRScheduler>> schedulers,
                                    std::vector<int64_t> milestones) {
  GLIA_CHECK(opt, InvalidArgument, "the scheduler needs an optimizer");
  for (size_t i = 0; i < schedulers.size(); ++i) {
    GLIA_CHECK(schedulers[i], InvalidArgument, "SequentialLR: scheduler ", i, " is missing");
    GLIA_CHECK(&schedulers[i]->optimizer() == opt.get(), InvalidArgument,
               "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at "
               "index ",
               i, " to be different than the optimizer passed in.");
  }
  GLIA_CHECK(milestones.size() + 1 == schedulers.size(), InvalidArgument,
             "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
             "milestone points, but got number of schedulers ",
             schedulers.size(), " and the number of milestones to be equal to ", milestones.size());
  for (size_t g = 0; g < opt->num_groups(); ++g) group_value(opt->group(g), "initial_lr");
  return make_ref<SequentialLR>(std::move(opt), std::move(schedulers), std::move(milestones));
}

Ref<LRScheduler> make_chained_scheduler(std::vector<Ref<LRScheduler>> schedulers) {
  GLIA_CHECK(!schedulers.empty(), InvalidArgument, "ChainedScheduler: list index out of range (no schedulers)");
  for (size_t i = 0; i < schedulers.size(); ++i)
    GLIA_CHECK(schedulers[i], InvalidArgument, "ChainedScheduler: scheduler ", i, " is missing");
  for (size_t i = 1; i < schedulers.size(); ++i)
    GLIA_CHECK(&schedulers[i]->optimizer() == &schedulers[0]->optimizer(), InvalidArgument,
               "ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at index "
               "0 and ",
               i, " to be different");
  return make_ref<ChainedScheduler>(std::move(schedulers));
}

Ref<LRScheduler> make_reduce_lr_on_plateau(OptimizerRef opt, const PlateauOptions& o) {
  GLIA_CHECK(opt, InvalidArgument, "the scheduler needs an optimizer");
  GLIA_CHECK(o.factor < 1.0, InvalidArgument, "Factor should be < 1.0.");
  const size_t n = opt->num_groups();
  std::vector<double> min_lrs = o.min_lrs.empty() ? std::vector<double>{0.0} : o.min_lrs;
  if (min_lrs.size() == 1 && n != 1) min_lrs.assign(n, min_lrs[0]);
  GLIA_CHECK(min_lrs.size() == n, InvalidArgument, "expected ", n, " min_lrs, got ", min_lrs.size());
  check_plateau_modes(o.mode, o.threshold_mode);
  return make_ref<ReduceLROnPlateau>(std::move(opt), o, std::move(min_lrs));
}

Ref<LRScheduler> make_cyclic_lr(OptimizerRef opt, const CyclicOptions& o) {
  GLIA_CHECK(opt, InvalidArgument, "the scheduler needs an optimizer");
  std::vector<double> base_lrs = format_param("base_lr", *opt, o.base_lrs);
  std::vector<double> max_lrs = format_param("max_lr", *opt, o.max_lrs);
  const double up = o.step_size_up, down = o.has_step_size_down ? o.step_size_down : up;
  GLIA_CHECK(up + down != 0, InvalidArgument, "CyclicLR: float division by zero (step_size_up + step_size_down is 0)");
  GLIA_CHECK((o.mode >= 0 && o.mode <= 2) || o.scale_fn, InvalidArgument, "mode is invalid and scale_fn is None");
  GLIA_CHECK(!o.scale_fn || o.scale_mode == 0 || o.scale_mode == 1, InvalidArgument, "CyclicLR: scale_mode ",
             o.scale_mode, " is unknown (expected 0 \"cycle\" or 1 \"iterations\")");
  std::vector<double> base_moms, max_moms;
  if (o.cycle_momentum) {
    GLIA_CHECK(has_default(*opt, "momentum"), InvalidArgument,
               "optimizer must support momentum with `cycle_momentum` option enabled");
    base_moms = format_param("base_momentum", *opt, o.base_momentums);
    max_moms = format_param("max_momentum", *opt, o.max_momentums);
  }
  GroupsUndo undo(*opt);
  for (size_t g = 0; g < opt->num_groups(); ++g) {
    opt->group(g).set("lr", base_lrs[g]);
    if (o.cycle_momentum) opt->group(g).set("momentum", base_moms[g]);
  }
  Ref<LRScheduler> s =
      make_ref<CyclicLR>(opt, o, std::move(base_lrs), std::move(max_lrs), std::move(base_moms), std::move(max_moms));
  undo.dismiss();
  return s;
}

Ref<LRScheduler> make_one_cycle_lr(OptimizerRef opt, const OneCycleOptions& o) {
  GLIA_CHECK(opt, InvalidArgument, "the scheduler needs an optimizer");
  int64_t total = 0;
  if (!o.has_total_steps && !o.has_epochs && !o.has_steps_per_epoch) {
    fail(Code::InvalidArgument, "You must define either total_steps OR (epochs AND steps_per_epoch)");
  } else if (o.has_total_steps) {
    GLIA_CHECK(o.total_steps > 0, InvalidArgument, "Expected positive integer total_steps, but got ", o.total_steps);
    total = o.total_steps;
  } else {
    GLIA_CHECK(o.has_epochs, InvalidArgument, "Expected positive integer epochs, but got None");
    GLIA_CHECK(o.epochs > 0, InvalidArgument, "Expected positive integer epochs, but got ", o.epochs);
    GLIA_CHECK(o.has_steps_per_epoch, InvalidArgument, "Expected positive integer steps_per_epoch, but got None");
    GLIA_CHECK(o.steps_per_epoch > 0, InvalidArgument, "Expected positive integer steps_per_epoch, but got ",
               o.steps_per_epoch);
    GLIA_CHECK(o.epochs <= std::numeric_limits<int64_t>::max() / o.steps_per_epoch, InvalidArgument,
               "OneCycleLR: epochs * steps_per_epoch overflows");
    total = o.epochs * o.steps_per_epoch;
  }
  const double T = static_cast<double>(total), pct = o.pct_start;
  std::vector<double> ends;
  if (o.three_phase)
    ends = {pct * T - 1, 2 * pct * T - 2, T - 1};
  else
    ends = {pct * T - 1, T - 1};
  GLIA_CHECK(!(pct < 0 || pct > 1), InvalidArgument, "Expected float between 0 and 1 pct_start, but got ",
             py_float(pct));
  GLIA_CHECK(o.anneal_strategy == 0 || o.anneal_strategy == 1, InvalidArgument,
             "anneal_strategy must by one of 'cos' or 'linear', instead got ", o.anneal_strategy);
  std::vector<double> max_lrs = format_param("max_lr", *opt, o.max_lrs);
  bool use_beta1 = false;
  std::vector<double> max_moms, base_moms;
  if (o.cycle_momentum) {
    GLIA_CHECK(has_default(*opt, "momentum") || has_default(*opt, "betas"), InvalidArgument,
               "optimizer must support momentum with `cycle_momentum` option enabled");
    use_beta1 = has_default(*opt, "betas");
    max_moms = format_param("max_momentum", *opt, o.max_momentums);
    base_moms = format_param("base_momentum", *opt, o.base_momentums);
  }
  GroupsUndo undo(*opt);
  for (size_t g = 0; g < opt->num_groups(); ++g) {
    ParamGroup& pg = opt->group(g);
    const double initial = max_lrs[g] / o.div_factor;
    pg.set("initial_lr", initial);
    pg.set("max_lr", max_lrs[g]);
    pg.set("min_lr", initial / o.final_div_factor);
  }
  if (o.cycle_momentum)
    for (size_t g = 0; g < opt->num_groups(); ++g) {
      ParamGroup& pg = opt->group(g);
      set_momentum(pg, use_beta1, max_moms[g]);
      pg.set("max_momentum", max_moms[g]);
      pg.set("base_momentum", base_moms[g]);
    }
  Ref<LRScheduler> s =
      make_ref<OneCycleLR>(opt, total, std::move(ends), o.anneal_strategy, o.cycle_momentum, use_beta1);
  undo.dismiss();
  return s;
}

Ref<LRScheduler> make_cosine_annealing_warm_restarts(OptimizerRef opt, int64_t t_0, int64_t t_mult, double eta_min) {
  check_warm_restarts(t_0, t_mult);
  return make_ref<CosineAnnealingWarmRestarts>(std::move(opt), t_0, t_mult, eta_min);
}

}  // namespace glia::optim
