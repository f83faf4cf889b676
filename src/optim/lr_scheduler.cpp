// StepLR, MultiStepLR, CosineAnnealingLR and LinearLR: torch's chainable
// get_lr(), computed from the groups' current lrs as torch's step() does.
#include <cmath>
#include <map>
#include <numbers>

#include "core/error.h"
#include "optim/optimizer.h"

namespace glia::optim {

LRScheduler::LRScheduler(OptimizerRef opt) : opt_(std::move(opt)) {
  GLIA_CHECK(opt_, InvalidArgument, "the scheduler needs an optimizer");
  for (size_t g = 0; g < opt_->num_groups(); ++g) {
    ParamGroup& pg = opt_->group(g);
    if (!pg.find("initial_lr")) pg.set("initial_lr", pg.get("lr"));
    base_lrs_.push_back(pg.get("initial_lr"));
  }
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
  ++step_count_;
  ++last_epoch_;
  std::vector<double> values = get_lr();
  // zip(param_groups, values): groups added after construction keep their lr.
  for (size_t g = 0; g < values.size() && g < opt_->num_groups(); ++g) opt_->group(g).set("lr", values[g]);
  last_lr_ = group_lrs();
}

namespace {

class StepLR final : public LRScheduler {
 public:
  StepLR(OptimizerRef opt, int64_t step_size, double gamma)
      : LRScheduler(std::move(opt)), step_size_(step_size), gamma_(gamma) {
    initial_step();
  }

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
    for (double& lr : lrs) lr *= gamma_;
    return lrs;
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

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> lrs = group_lrs();
    auto it = counts_.find(last_epoch_);
    if (it == counts_.end()) return lrs;
    for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(it->second));
    return lrs;
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

 protected:
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

 protected:
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
