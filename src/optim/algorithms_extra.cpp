// Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam and Rprop: torch 1.13's
// single-tensor math fused into one pass over each parameter (Note [Optimizer
// semantics follow torch] in optim/optimizer.h), as the kernels adadelta_step,
// ..., rprop_step (the CPU's in ops/cpu/optim_extra.cpp). The prepare passes
// here are their meta parts: state creation in torch's order, the host-side
// scalars torch computes with .item() (ASGD's eta and mu, NAdam's float32
// mu_product), device checks and working copies (optim/step_common.h).
#include "optim/algorithms_extra.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "optim/step_common.h"

namespace glia::optim {

namespace {

using namespace detail;

Option flag(const char* name, bool v) { return Option{name, {v ? 1.0 : 0.0}}; }

void check_betas(const ParamGroup& g) {
  double b0 = g.get("betas", 0), b1 = g.get("betas", 1);
  GLIA_CHECK(0.0 <= b0 && b0 < 1.0, InvalidArgument, "Invalid beta parameter at index 0: ", py_float(b0));
  GLIA_CHECK(0.0 <= b1 && b1 < 1.0, InvalidArgument, "Invalid beta parameter at index 1: ", py_float(b1));
}

// A state tensor shaped like `p` holding `value` everywhere.
Tensor full_like(const Tensor& p, double value) { return full(p.shape(), value, p.dtype(), p.device()); }
// A float32 0-dim CPU tensor (torch.tensor(value) with the default dtype).
Tensor scalar_state(double value) { return full({}, value, DType::Float32, Device{}); }

// ---- Adadelta --------------------------------------------------------------------------

class Adadelta final : public Optimizer {
 public:
  explicit Adadelta(const AdadeltaOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "Adadelta"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    const double rho = g.get("rho");
    GLIA_CHECK(0.0 <= rho && rho <= 1.0, InvalidArgument, "Invalid rho value: ", py_float(rho));
    check_nonneg(g.get("eps"), "epsilon value");
    check_nonneg(g.get("weight_decay"), "weight_decay value");
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), rho = group.get("rho"), eps = group.get("eps"), wd = group.get("weight_decay");
    const bool maximize = group.get("maximize") != 0;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.entries.empty()) {
        // torch 1.13 keeps a Python int "step"; glia a float32 0-dim tensor like Adam's.
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("square_avg") = zeros_like(p);
        st.get_or_add("acc_delta") = zeros_like(p);
      }
      const Tensor step_t = step_tensor(st);
      Update& u =
          prepare_update(commit, KernelId::adadelta_step, "adadelta_step", p, g,
                         {state_entry(st, "square_avg"), state_entry(st, "acc_delta")},
                         std::array<Attr, 5>{attr_f(lr), attr_f(rho), attr_f(eps), attr_f(wd), attr_i(maximize)});
      u.step = step_t;
      u.step_value = next_step(step_t);
    }
  }
};

// ---- Adagrad -----------------------------------------------------------------------------

class Adagrad final : public Optimizer {
 public:
  explicit Adagrad(const AdagradOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "Adagrad"; }

  // torch's constructor: "step" and "sum" of every parameter of the groups.
  void init_state() {
    for (size_t gi = 0; gi < num_groups(); ++gi) {
      const ParamGroup& g = group(gi);
      for (const Tensor& p : g.params) init(state_of(p), p, g.get("initial_accumulator_value"));
    }
  }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("lr_decay"), "lr_decay value");
    check_nonneg(g.get("weight_decay"), "weight_decay value");
    check_nonneg(g.get("initial_accumulator_value"), "initial_accumulator_value value");
    check_nonneg(g.get("eps"), "epsilon value");
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), lr_decay = group.get("lr_decay"), eps = group.get("eps"),
                 wd = group.get("weight_decay");
    const bool maximize = group.get("maximize") != 0;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.entries.empty()) init(st, p, group.get("initial_accumulator_value"));
      const Tensor step_t = step_tensor(st);
      const double step = next_step(step_t);
      Update& u = prepare_update(
          commit, KernelId::adagrad_step, "adagrad_step", p, g, {state_entry(st, "sum")},
          std::array<Attr, 6>{attr_f(lr), attr_f(lr_decay), attr_f(eps), attr_f(wd), attr_f(step), attr_i(maximize)});
      u.step = step_t;
      u.step_value = step;
    }
  }

 private:
  static void init(ParamState& st, const Tensor& p, double initial) {
    st.get_or_add("step") = zeros({}, DType::Float32, Device{});
    st.get_or_add("sum") = full_like(p, initial);
  }
};

// ---- Adamax ------------------------------------------------------------------------------

class Adamax final : public Optimizer {
 public:
  explicit Adamax(const AdamaxOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "Adamax"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("eps"), "epsilon value");
    check_betas(g);
    check_nonneg(g.get("weight_decay"), "weight_decay value");
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), beta1 = group.get("betas", 0), beta2 = group.get("betas", 1),
                 eps = group.get("eps"), wd = group.get("weight_decay");
    const bool maximize = group.get("maximize") != 0;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.entries.empty()) {
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("exp_avg") = zeros_like(p);
        st.get_or_add("exp_inf") = zeros_like(p);
      }
      const Tensor step_t = step_tensor(st);
      const double step = next_step(step_t);
      Update& u = prepare_update(commit, KernelId::adamax_step, "adamax_step", p, g,
                                 {state_entry(st, "exp_avg"), state_entry(st, "exp_inf")},
                                 std::array<Attr, 7>{attr_f(lr), attr_f(beta1), attr_f(beta2), attr_f(eps), attr_f(wd),
                                                     attr_f(step), attr_i(maximize)});
      u.step = step_t;
      u.step_value = step;
    }
  }
};

// ---- ASGD ----------------------------------------------------------------------------------

class ASGD final : public Optimizer {
 public:
  explicit ASGD(const ASGDOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "ASGD"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("weight_decay"), "weight_decay value");
  }
  bool is_scalar_state(const std::string& name) const override {
    return name == "step" || name == "eta" || name == "mu";
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), lambd = group.get("lambd"), alpha = group.get("alpha"), t0 = group.get("t0"),
                 wd = group.get("weight_decay");
    const bool maximize = group.get("maximize") != 0;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.entries.empty()) {
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("eta") = scalar_state(lr);
        st.get_or_add("mu") = scalar_state(1.0);
        st.get_or_add("ax") = zeros_like(p);
      }
      const Tensor step_t = step_tensor(st);
      const double step = next_step(step_t);
      Tensor eta = *state_entry(st, "eta"), mu = *state_entry(st, "mu");
      // torch: the update reads eta and mu with .item(), then stores float32 tensors of the next ones.
      const double eta_v = item_double(eta), mu_v = item_double(mu);
      Update& u =
          prepare_update(commit, KernelId::asgd_step, "asgd_step", p, g, {state_entry(st, "ax")},
                         std::array<Attr, 5>{attr_f(lambd), attr_f(eta_v), attr_f(mu_v), attr_f(wd), attr_i(maximize)});
      u.step = step_t;
      u.step_value = step;
      u.scalars = {eta, mu};
      u.scalar_values = {lr / std::pow(1 + lambd * lr * step, alpha), 1 / std::max(1.0, step - t0)};
    }
  }
};

// ---- NAdam ---------------------------------------------------------------------------------

class NAdam final : public Optimizer {
 public:
  explicit NAdam(const NAdamOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "NAdam"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("eps"), "epsilon value");
    check_betas(g);
    check_nonneg(g.get("weight_decay"), "weight_decay value");
    check_nonneg(g.get("momentum_decay"), "momentum_decay value");
  }
  bool is_scalar_state(const std::string& name) const override { return name == "step" || name == "mu_product"; }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), beta1 = group.get("betas", 0), beta2 = group.get("betas", 1),
                 eps = group.get("eps"), wd = group.get("weight_decay"), md = group.get("momentum_decay");
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.entries.empty()) {
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("mu_product") = scalar_state(1.0);
        st.get_or_add("exp_avg") = zeros_like(p);
        st.get_or_add("exp_avg_sq") = zeros_like(p);
      }
      const Tensor step_t = step_tensor(st);
      const double step = next_step(step_t);
      Tensor mu_product = *state_entry(st, "mu_product");
      // The momentum cache mu^t and mu^(t+1); torch's mu_product is a float32 tensor, multiplied by
      // the (float32-rounded) numbers in place, and read back with .item().
      const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * md));
      const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * md));
      const float mp = static_cast<float>(item_double(mu_product)) * static_cast<float>(mu);
      const float mp_next = (mp * static_cast<float>(mu)) * static_cast<float>(mu_next);
      const double grad_coef = -lr * (1. - mu) / (1. - static_cast<double>(mp));
      const double avg_coef = -lr * mu_next / (1. - static_cast<double>(mp_next));
      Update& u = prepare_update(commit, KernelId::nadam_step, "nadam_step", p, g,
                                 {state_entry(st, "exp_avg"), state_entry(st, "exp_avg_sq")},
                                 std::array<Attr, 7>{attr_f(beta1), attr_f(beta2), attr_f(eps), attr_f(wd),
                                                     attr_f(step), attr_f(grad_coef), attr_f(avg_coef)});
      u.step = step_t;
      u.step_value = step;
      u.scalars[0] = mu_product;
      u.scalar_values[0] = static_cast<double>(mp);
    }
  }
};

// ---- RAdam ---------------------------------------------------------------------------------

class RAdam final : public Optimizer {
 public:
  explicit RAdam(const RAdamOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "RAdam"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("eps"), "epsilon value");
    check_betas(g);
    check_nonneg(g.get("weight_decay"), "weight_decay value");
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), beta1 = group.get("betas", 0), beta2 = group.get("betas", 1),
                 eps = group.get("eps"), wd = group.get("weight_decay");
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.entries.empty()) {
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("exp_avg") = zeros_like(p);
        st.get_or_add("exp_avg_sq") = zeros_like(p);
      }
      const Tensor step_t = step_tensor(st);
      const double step = next_step(step_t);
      Update& u = prepare_update(
          commit, KernelId::radam_step, "radam_step", p, g, {state_entry(st, "exp_avg"), state_entry(st, "exp_avg_sq")},
          std::array<Attr, 6>{attr_f(lr), attr_f(beta1), attr_f(beta2), attr_f(eps), attr_f(wd), attr_f(step)});
      u.step = step_t;
      u.step_value = step;
    }
  }
};

// ---- Rprop ---------------------------------------------------------------------------------

class Rprop final : public Optimizer {
 public:
  explicit Rprop(const RpropOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "Rprop"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    const double e0 = g.get("etas", 0), e1 = g.get("etas", 1);
    GLIA_CHECK(0.0 < e0 && e0 < 1.0 && 1.0 < e1, InvalidArgument, "Invalid eta values: ", py_float(e0), ", ",
               py_float(e1));
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double etaminus = group.get("etas", 0), etaplus = group.get("etas", 1), ss_min = group.get("step_sizes", 0),
                 ss_max = group.get("step_sizes", 1);
    const bool maximize = group.get("maximize") != 0;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.entries.empty()) {
        // torch 1.13 keeps a Python int "step"; glia a float32 0-dim tensor like Adam's.
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("prev") = zeros_like(p);
        st.get_or_add("step_size") = full_like(p, group.get("lr"));
      }
      const Tensor step_t = step_tensor(st);
      Update& u = prepare_update(
          commit, KernelId::rprop_step, "rprop_step", p, g, {state_entry(st, "prev"), state_entry(st, "step_size")},
          std::array<Attr, 5>{attr_f(etaminus), attr_f(etaplus), attr_f(ss_min), attr_f(ss_max), attr_i(maximize)});
      u.step = step_t;
      u.step_value = next_step(step_t);
    }
  }
};

}  // namespace

std::vector<Option> to_options(const AdadeltaOptions& o) {
  return {{"lr", {o.lr}},
          {"rho", {o.rho}},
          {"eps", {o.eps}},
          {"weight_decay", {o.weight_decay}},
          flag("maximize", o.maximize)};
}

std::vector<Option> to_options(const AdagradOptions& o) {
  return {{"lr", {o.lr}},
          {"lr_decay", {o.lr_decay}},
          {"eps", {o.eps}},
          {"weight_decay", {o.weight_decay}},
          {"initial_accumulator_value", {o.initial_accumulator_value}},
          flag("maximize", o.maximize)};
}

std::vector<Option> to_options(const AdamaxOptions& o) {
  return {{"lr", {o.lr}},
          {"betas", {o.beta1, o.beta2}},
          {"eps", {o.eps}},
          {"weight_decay", {o.weight_decay}},
          flag("maximize", o.maximize)};
}

std::vector<Option> to_options(const ASGDOptions& o) {
  return {{"lr", {o.lr}},
          {"lambd", {o.lambd}},
          {"alpha", {o.alpha}},
          {"t0", {o.t0}},
          {"weight_decay", {o.weight_decay}},
          flag("maximize", o.maximize)};
}

std::vector<Option> to_options(const NAdamOptions& o) {
  return {{"lr", {o.lr}},
          {"betas", {o.beta1, o.beta2}},
          {"eps", {o.eps}},
          {"weight_decay", {o.weight_decay}},
          {"momentum_decay", {o.momentum_decay}}};
}

std::vector<Option> to_options(const RAdamOptions& o) {
  return {{"lr", {o.lr}}, {"betas", {o.beta1, o.beta2}}, {"eps", {o.eps}}, {"weight_decay", {o.weight_decay}}};
}

std::vector<Option> to_options(const RpropOptions& o) {
  return {{"lr", {o.lr}},
          {"etas", {o.etaminus, o.etaplus}},
          {"step_sizes", {o.step_size_min, o.step_size_max}},
          flag("maximize", o.maximize)};
}

OptimizerRef make_adadelta(std::vector<Tensor> params, const AdadeltaOptions& o) {
  return with_group(make_ref<Adadelta>(o), std::move(params));
}
OptimizerRef make_adagrad(std::vector<Tensor> params, const AdagradOptions& o) {
  Ref<Adagrad> opt = make_ref<Adagrad>(o);
  opt->add_param_group(std::move(params), {});
  opt->init_state();
  return opt;
}
OptimizerRef make_adamax(std::vector<Tensor> params, const AdamaxOptions& o) {
  return with_group(make_ref<Adamax>(o), std::move(params));
}
OptimizerRef make_asgd(std::vector<Tensor> params, const ASGDOptions& o) {
  return with_group(make_ref<ASGD>(o), std::move(params));
}
OptimizerRef make_nadam(std::vector<Tensor> params, const NAdamOptions& o) {
  return with_group(make_ref<NAdam>(o), std::move(params));
}
OptimizerRef make_radam(std::vector<Tensor> params, const RAdamOptions& o) {
  return with_group(make_ref<RAdam>(o), std::move(params));
}
OptimizerRef make_rprop(std::vector<Tensor> params, const RpropOptions& o) {
  return with_group(make_ref<Rprop>(o), std::move(params));
}

}  // namespace glia::optim
