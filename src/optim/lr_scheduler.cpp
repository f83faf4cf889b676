// StepLR, MultiStepLR, CosineAnnealingLR and LinearLR: torch's chainable
// get_lr(), computed from the groups' current lrs as torch's step() does.
#include <cmath>
#include <map>
#include <numbers>

#include "core/error.h"
#include "optim/optimizer.h"
#include "optim/scheduler_state.h"

namespace glia::optim {

LRScheduler::LRScheduler(OptimizerRef opt) : opt_(std::move(opt)) {
  GLIA_CHECK(opt_, InvalidArgument, "the scheduler needs an optimizer");
  for (size_t g = 0; g < opt_->num_groups(); ++g) {
    ParamGroup& pg = opt_->group(g);
    if (!pg.find("initial_lr")) pg.set("initial_lr", pg.get("lr"));
    base_lrs_.push_back(pg.get("initial_lr"));
  }
}

LRScheduler::LRScheduler(OptimizerRef opt, Bare) : opt_(std::move(opt)) {
  GLIA_CHECK(opt_, InvalidArgument, "the scheduler needs an optimizer");
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> v;
  for (size_t g = 0; g < opt_->num_groups(); ++g) v.push_back(opt_->get_lr(g));
  return v;
}

void LRScheduler::step() {
  const int64_t saved_count = step_count_, saved_epoch = last_epoch_;
  ++step_count_;
  ++last_epoch_;
  std::vector<double> values;
  try {
    values = get_lr();  // may run a host callback: on error nothing changed
  } catch (...) {
    step_count_ = saved_count;
    last_epoch_ = saved_epoch;
    throw;
  }
  // zip(param_groups, values): groups added after construction keep their lr.
  for (size_t g = 0; g < values.size() && g < opt_->num_groups(); ++g) opt_->group(g).set("lr", values[g]);
  last_lr_ = group_lrs();
}

void LRScheduler::step_epoch(double epoch) {
  GLIA_CHECK(std::isfinite(epoch) && epoch == std::floor(epoch) && std::fabs(epoch) < 9.0e15, InvalidArgument,
             type_name(), ".step(epoch): epoch must be an integer, got ", py_float(epoch));
  const int64_t saved_count = step_count_, saved_epoch = last_epoch_;
  ++step_count_;
  last_epoch_ = static_cast<int64_t>(epoch);
  std::vector<double> values;
  try {
    values = closed_form_lr();
  } catch (...) {
    step_count_ = saved_count;
    last_epoch_ = saved_epoch;
    throw;
  }
  for (size_t g = 0; g < values.size() && g < opt_->num_groups(); ++g) opt_->group(g).set("lr", values[g]);
  last_lr_ = group_lrs();
}

void LRScheduler::step_metric(double) {
  fail(Code::InvalidArgument, type_name(),
       ".step() takes no metric (only ReduceLROnPlateau does): use glia_lr_scheduler_step");
}

namespace {

using namespace sched_state;

}  // namespace

Ref<nn::TensorDict> LRScheduler::state_dict() const {
  auto d = make_ref<nn::TensorDict>();
  d->set("last_epoch", i64_scalar(last_epoch_));
  d->set("_step_count", i64_scalar(step_count_));
  d->set("base_lrs", f64_vector(base_lrs_));
  d->set("_last_lr", f64_vector(last_lr_));
  save_settings(*d);
  return d;
}

void LRScheduler::load_state_dict(const nn::TensorDict& dict) {
  std::vector<std::string> keys{"last_epoch", "_step_count", "base_lrs", "_last_lr"};
  for (std::string& k : setting_keys()) keys.push_back(std::move(k));
  for (size_t i = 0; i < dict.size(); ++i) {
    const std::string& k = dict.key_at(i);
    bool known = k == "verbose" || k == "_get_lr_called_within_step";
    for (const std::string& x : keys) known = known || x == k;
    GLIA_CHECK(known, InvalidArgument, "loaded scheduler state dict has an unexpected key \"", k, "\"");
  }
  for (const std::string& k : keys) entry(dict, k);
  int64_t last_epoch = int_entry(dict, "last_epoch"), step_count = int_entry(dict, "_step_count");
  std::vector<double> base = f64_values(entry(dict, "base_lrs")), last = f64_values(entry(dict, "_last_lr"));
  GLIA_CHECK(base.size() == base_lrs_.size(), InvalidArgument, "loaded scheduler state dict has ", base.size(),
             " base_lrs, expected ", base_lrs_.size());
  GLIA_CHECK(last.size() == last_lr_.size(), InvalidArgument, "loaded scheduler state dict has ", last.size(),
             " _last_lr values, expected ", last_lr_.size());
  load_settings(dict);  // validates first, then assigns (may throw: nothing changed yet)
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  base_lrs_ = std::move(base);
  last_lr_ = std::move(last);
}

namespace {

class StepLR final : public LRScheduler {
 public:
  StepLR(OptimizerRef opt, int64_t step_size, double gamma)
      : LRScheduler(std::move(opt)), step_size_(step_size), gamma_(gamma) {
    initial_step();
  }
  const char* type_name() const override { return "StepLR"; }

 protected:
  std::vector<double> closed_form_lr() override {
    // Python's // is a floor division.
    int64_t q = last_epoch_ / step_size_;
    if ((last_epoch_ % step_size_ != 0) && (last_epoch_ < 0)) --q;
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(q));
    return lrs;
  }
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
    for (double& lr : lrs) lr *= gamma_;
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("step_size", i64_scalar(step_size_));
    d.set("gamma", f64_scalar(gamma_));
  }
  std::vector<std::string> setting_keys() const override { return {"step_size", "gamma"}; }
  void load_settings(const nn::TensorDict& d) override {
    int64_t step_size = int_entry(d, "step_size");
    GLIA_CHECK(step_size >= 1, InvalidArgument, "StepLR: step_size must be a positive integer, got ", step_size);
    double gamma = scalar_entry(d, "gamma");
    step_size_ = step_size;
    gamma_ = gamma;
  }

 private:
  int64_t step_size_;
  double gamma_;
};

class MultiStepLR final : public LRScheduler {
 public:
  MultiStepLR(OptimizerRef opt, const std::vector<int64_t>& milestones, double gamma)
      : LRScheduler(std::move(opt)), gamma_(gamma) {
    for (int64_t m : milestones) ++counts_[m];
    initial_step();
  }
  const char* type_name() const override { return "MultiStepLR"; }

 protected:
  std::vector<double> closed_form_lr() override {
    int64_t k = 0;  // bisect_right(sorted milestones, last_epoch)
    for (const auto& [m, c] : counts_)
      if (m <= last_epoch_) k += c;
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(k));
    return lrs;
  }
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    auto it = counts_.find(last_epoch_);
    if (it == counts_.end()) return lrs;
    for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(it->second));
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    std::vector<int64_t> ms;
    for (const auto& [m, c] : counts_)
      for (int64_t k = 0; k < c; ++k) ms.push_back(m);
    const auto n = static_cast<int64_t>(ms.size());
    Tensor t = empty(IntSpan(&n, 1), DType::Int64, Device{});
    for (size_t i = 0; i < ms.size(); ++i) t.data_ptr<int64_t>()[i] = ms[i];
    d.set("milestones", t);
    d.set("gamma", f64_scalar(gamma_));
  }
  std::vector<std::string> setting_keys() const override { return {"milestones", "gamma"}; }
  void load_settings(const nn::TensorDict& d) override {
    const Tensor& t = entry(d, "milestones");
    GLIA_CHECK(t.dim() <= 1 && !is_floating(t.dtype()), InvalidArgument,
               "loaded scheduler state dict's \"milestones\" must be a 1-D integer tensor");
    Tensor c = contiguous(to_dtype(t, DType::Int64));
    std::map<int64_t, int64_t> counts;
    for (int64_t i = 0; i < c.numel(); ++i) ++counts[c.data_ptr<int64_t>()[i]];
    double gamma = scalar_entry(d, "gamma");
    counts_ = std::move(counts);
    gamma_ = gamma;
  }

 private:
  std::map<int64_t, int64_t> counts_;  // torch's Counter(milestones)
  double gamma_;
};

class CosineAnnealingLR final : public LRScheduler {
 public:
  CosineAnnealingLR(OptimizerRef opt, int64_t t_max, double eta_min)
      : LRScheduler(std::move(opt)), t_max_(t_max), eta_min_(eta_min) {
    initial_step();
  }
  const char* type_name() const override { return "CosineAnnealingLR"; }

 protected:
  std::vector<double> closed_form_lr() override {
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs)
      lr = eta_min_ +
           (lr - eta_min_) *
               (1 + std::cos(std::numbers::pi * static_cast<double>(last_epoch_) / static_cast<double>(t_max_))) / 2;
    return lrs;
  }
  std::vector<double> get_lr() override {
    constexpr double pi = std::numbers::pi;
    std::vector<double> lrs = group_lrs();
    const double T = static_cast<double>(t_max_);
    const int64_t e = last_epoch_;
    if (e == 0) return lrs;
    size_t n = std::min(lrs.size(), base_lrs_.size());
    if (step_count_ == 1 && e > 0) {
      for (size_t g = 0; g < n; ++g)
        lrs[g] = eta_min_ + (base_lrs_[g] - eta_min_) * (1 + std::cos(static_cast<double>(e) * pi / T)) / 2;
      lrs.resize(n);
      return lrs;
    }
    // Python's % is a floor modulo.
    int64_t period = 2 * t_max_, r = (e - 1 - t_max_) % period;
    if (r < 0) r += period;
    if (r == 0) {
      for (size_t g = 0; g < n; ++g) lrs[g] = lrs[g] + (base_lrs_[g] - eta_min_) * (1 - std::cos(pi / T)) / 2;
      lrs.resize(n);
      return lrs;
    }
    for (double& lr : lrs)
      lr = (1 + std::cos(pi * static_cast<double>(e) / T)) / (1 + std::cos(pi * static_cast<double>(e - 1) / T)) *
               (lr - eta_min_) +
           eta_min_;
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("T_max", i64_scalar(t_max_));
    d.set("eta_min", f64_scalar(eta_min_));
  }
  std::vector<std::string> setting_keys() const override { return {"T_max", "eta_min"}; }
  void load_settings(const nn::TensorDict& d) override {
    int64_t t_max = int_entry(d, "T_max");
    GLIA_CHECK(t_max >= 1, InvalidArgument, "CosineAnnealingLR: T_max must be a positive integer, got ", t_max);
    double eta_min = scalar_entry(d, "eta_min");
    t_max_ = t_max;
    eta_min_ = eta_min;
  }

 private:
  int64_t t_max_;
  double eta_min_;
};

class LinearLR final : public LRScheduler {
 public:
  LinearLR(OptimizerRef opt, double start, double end, int64_t total)
      : LRScheduler(std::move(opt)), start_(start), end_(end), total_(total) {
    initial_step();
  }
  const char* type_name() const override { return "LinearLR"; }

 protected:
  std::vector<double> closed_form_lr() override {
    GLIA_CHECK(total_ != 0, InvalidArgument, "LinearLR.step(epoch): division by zero (total_iters is 0)");
    std::vector<double> lrs = base_lrs_;
    const double k = static_cast<double>(std::min(total_, last_epoch_));
    for (double& lr : lrs) lr *= start_ + (end_ - start_) * k / static_cast<double>(total_);
    return lrs;
  }
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    if (last_epoch_ == 0) {
      for (double& lr : lrs) lr *= start_;
      return lrs;
    }
    if (last_epoch_ > total_) return lrs;
    for (double& lr : lrs)
      lr *= 1. + (end_ - start_) /
                     (static_cast<double>(total_) * start_ + static_cast<double>(last_epoch_ - 1) * (end_ - start_));
    return lrs;
  }
  void save_settings(nn::TensorDict& d) const override {
    d.set("start_factor", f64_scalar(start_));
    d.set("end_factor", f64_scalar(end_));
    d.set("total_iters", i64_scalar(total_));
  }
  std::vector<std::string> setting_keys() const override { return {"start_factor", "end_factor", "total_iters"}; }
  void load_settings(const nn::TensorDict& d) override {
    double start = scalar_entry(d, "start_factor"), end = scalar_entry(d, "end_factor");
    int64_t total = int_entry(d, "total_iters");
    GLIA_CHECK(!(start > 1.0 || start < 0), InvalidArgument,
               "Starting multiplicative factor expected to be between 0 and 1.");
    GLIA_CHECK(!(end > 1.0 || end < 0), InvalidArgument,
               "Ending multiplicative factor expected to be between 0 and 1.");
    GLIA_CHECK(total >= 0, InvalidArgument, "LinearLR: total_iters must be non-negative, got ", total);
    start_ = start;
    end_ = end;
    total_ = total;
  }

 private:
  double start_, end_;
  int64_t total_;
};

}  // namespace

Ref<LRScheduler> make_step_lr(OptimizerRef opt, int64_t step_size, double gamma) {
  GLIA_CHECK(step_size >= 1, InvalidArgument, "StepLR: step_size must be a positive integer, got ", step_size);
  return make_ref<StepLR>(std::move(opt), step_size, gamma);
}

Ref<LRScheduler> make_multi_step_lr(OptimizerRef opt, std::vector<int64_t> milestones, double gamma) {
  return make_ref<MultiStepLR>(std::move(opt), milestones, gamma);
}

Ref<LRScheduler> make_cosine_annealing_lr(OptimizerRef opt, int64_t t_max, double eta_min) {
  GLIA_CHECK(t_max >= 1, InvalidArgument, "CosineAnnealingLR: T_max must be a positive integer, got ", t_max);
  return make_ref<CosineAnnealingLR>(std::move(opt), t_max, eta_min);
}

Ref<LRScheduler> make_linear_lr(OptimizerRef opt, double start_factor, double end_factor, int64_t total_iters) {
  GLIA_CHECK(!(start_factor > 1.0 || start_factor < 0), InvalidArgument,
             "Starting multiplicative factor expected to be between 0 and 1.");
  GLIA_CHECK(!(end_factor > 1.0 || end_factor < 0), InvalidArgument,
             "Ending multiplicative factor expected to be between 0 and 1.");
  GLIA_CHECK(total_iters >= 0, InvalidArgument, "LinearLR: total_iters must be non-negative, got ", total_iters);
  return make_ref<LinearLR>(std::move(opt), start_factor, end_factor, total_iters);
}

}  // namespace glia::optim
