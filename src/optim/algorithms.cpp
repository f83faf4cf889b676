// SGD, Adam, AdamW and RMSprop: torch's single-tensor math fused into one
// pass over each parameter (Note [Optimizer semantics follow torch]). The
// passes are kernels (sgd_step, adam_step, rmsprop_step; the CPU's in
// ops/cpu/optim.cpp), so a step runs on the parameters' device; the prepare
// pass here is their meta part: it creates the state on the parameter's
// device, checks devices and makes the working copies.
#include <algorithm>
#include <array>
#include <initializer_list>

#include "autograd/node.h"
#include "core/dispatch.h"
#include "core/error.h"
#include "optim/optimizer.h"
#include "optim/step_common.h"

namespace glia::optim {

namespace {

using namespace detail;

// ---- SGD ---------------------------------------------------------------------------

class SGD final : public Optimizer {
 public:
  explicit SGD(const SGDOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "SGD"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("momentum"), "momentum value");
    check_nonneg(g.get("weight_decay"), "weight_decay value");
    GLIA_CHECK(!(g.get("nesterov") != 0 && (g.get("momentum") <= 0 || g.get("dampening") != 0)), InvalidArgument,
               "Nesterov momentum requires a momentum and zero dampening");
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), momentum = group.get("momentum"), dampening = group.get("dampening"),
                 wd = group.get("weight_decay");
    const bool nesterov = group.get("nesterov") != 0, maximize = group.get("maximize") != 0;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      // torch stores momentum_buffer = None when momentum is 0 (left out of the state dict here).
      Tensor& buf = st.get_or_add("momentum_buffer");
      bool first = false;
      if (momentum != 0 && !buf.defined()) {
        buf = zeros_like(p);  // written before it is read (buf = d_p on the first step)
        first = true;
      }
      prepare_update(commit, KernelId::sgd_step, "sgd_step", p, g, {momentum != 0 ? &buf : nullptr},
                     std::array<Attr, 7>{attr_f(lr), attr_f(momentum), attr_f(dampening), attr_f(wd), attr_i(nesterov),
                                         attr_i(maximize), attr_i(first)});
    }
  }
};

// ---- Adam / AdamW ---------------------------------------------------------------------

class Adam final : public Optimizer {
 public:
  Adam(const AdamOptions& o, bool decoupled) : Optimizer(to_options(o)), decoupled_(decoupled) {}
  const char* type_name() const override { return decoupled_ ? "AdamW" : "Adam"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("eps"), "epsilon value");
    double b0 = g.get("betas", 0), b1 = g.get("betas", 1);
    GLIA_CHECK(0.0 <= b0 && b0 < 1.0, InvalidArgument, "Invalid beta parameter at index 0: ", py_float(b0));
    GLIA_CHECK(0.0 <= b1 && b1 < 1.0, InvalidArgument, "Invalid beta parameter at index 1: ", py_float(b1));
    check_nonneg(g.get("weight_decay"), "weight_decay value");
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), beta1 = group.get("betas", 0), beta2 = group.get("betas", 1),
                 eps = group.get("eps"), wd = group.get("weight_decay");
    const bool amsgrad = group.get("amsgrad") != 0, maximize = group.get("maximize") != 0;
    const bool decoupled = decoupled_;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.find("step") == nullptr) {
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("exp_avg") = zeros_like(p);
        st.get_or_add("exp_avg_sq") = zeros_like(p);
        if (amsgrad) st.get_or_add("max_exp_avg_sq") = zeros_like(p);
      }
      // A group switched to amsgrad after the state was created (torch would fail with a KeyError).
      if (amsgrad && st.find("max_exp_avg_sq") == nullptr) st.get_or_add("max_exp_avg_sq") = zeros_like(p);
      const Tensor step_t = step_tensor(st);
      Update& u = prepare_update(
          commit, KernelId::adam_step, decoupled ? "adamw_step" : "adam_step", p, g,
          {state_entry(st, "exp_avg"), state_entry(st, "exp_avg_sq"),
           amsgrad ? state_entry(st, "max_exp_avg_sq") : nullptr},
          std::array<Attr, 9>{attr_f(lr), attr_f(beta1), attr_f(beta2), attr_f(eps), attr_f(wd),
                              attr_f(next_step(step_t)), attr_i(amsgrad), attr_i(maximize), attr_i(decoupled)});
      u.step = step_t;
      u.step_value = u.attrs[5].f;
    }
  }

 private:
  bool decoupled_;
};

// ---- RMSprop ---------------------------------------------------------------------------

class RMSprop final : public Optimizer {
 public:
  explicit RMSprop(const RMSpropOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "RMSprop"; }

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    check_nonneg(g.get("lr"), "learning rate");
    check_nonneg(g.get("eps"), "epsilon value");
    check_nonneg(g.get("momentum"), "momentum value");
    check_nonneg(g.get("weight_decay"), "weight_decay value");
    check_nonneg(g.get("alpha"), "alpha value");
  }

  void prepare_group(ParamGroup& group, Commit& commit) override {
    const double lr = group.get("lr"), alpha = group.get("alpha"), eps = group.get("eps"),
                 wd = group.get("weight_decay"), momentum = group.get("momentum");
    const bool centered = group.get("centered") != 0, maximize = group.get("maximize") != 0;
    for (const Tensor& p : group.params) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      ParamState& st = state_of(p);
      if (st.find("step") == nullptr) {
        st.get_or_add("step") = zeros({}, DType::Float32, Device{});
        st.get_or_add("square_avg") = zeros_like(p);
        if (momentum > 0) st.get_or_add("momentum_buffer") = zeros_like(p);
        if (centered) st.get_or_add("grad_avg") = zeros_like(p);
      }
      if (momentum > 0 && st.find("momentum_buffer") == nullptr) st.get_or_add("momentum_buffer") = zeros_like(p);
      if (centered && st.find("grad_avg") == nullptr) st.get_or_add("grad_avg") = zeros_like(p);
      const Tensor step_t = step_tensor(st);
      Update& u =
          prepare_update(commit, KernelId::rmsprop_step, "rmsprop_step", p, g,
                         {state_entry(st, "square_avg"), momentum > 0 ? state_entry(st, "momentum_buffer") : nullptr,
                          centered ? state_entry(st, "grad_avg") : nullptr},
                         std::array<Attr, 7>{attr_f(lr), attr_f(alpha), attr_f(eps), attr_f(wd), attr_f(momentum),
                                             attr_i(centered), attr_i(maximize)});
      u.step = step_t;
      u.step_value = next_step(step_t);
    }
  }
};

}  // namespace

std::vector<Option> to_options(const SGDOptions& o) {
  return {{"lr", {o.lr}},
          {"momentum", {o.momentum}},
          {"dampening", {o.dampening}},
          {"weight_decay", {o.weight_decay}},
          {"nesterov", {o.nesterov ? 1.0 : 0.0}},
          {"maximize", {o.maximize ? 1.0 : 0.0}}};
}

std::vector<Option> to_options(const AdamOptions& o) {
  return {{"lr", {o.lr}},
          {"betas", {o.beta1, o.beta2}},
          {"eps", {o.eps}},
          {"weight_decay", {o.weight_decay}},
          {"amsgrad", {o.amsgrad ? 1.0 : 0.0}},
          {"maximize", {o.maximize ? 1.0 : 0.0}}};
}

std::vector<Option> to_options(const RMSpropOptions& o) {
  return {{"lr", {o.lr}},
          {"momentum", {o.momentum}},
          {"alpha", {o.alpha}},
          {"eps", {o.eps}},
          {"centered", {o.centered ? 1.0 : 0.0}},
          {"weight_decay", {o.weight_decay}},
          {"maximize", {o.maximize ? 1.0 : 0.0}}};
}

OptimizerRef make_sgd(std::vector<Tensor> params, const SGDOptions& o) {
  return with_group(make_ref<SGD>(o), std::move(params));
}
OptimizerRef make_adam(std::vector<Tensor> params, const AdamOptions& o) {
  return with_group(make_ref<Adam>(o, false), std::move(params));
}
OptimizerRef make_adamw(std::vector<Tensor> params, const AdamOptions& o) {
  return with_group(make_ref<Adam>(o, true), std::move(params));
}
OptimizerRef make_rmsprop(std::vector<Tensor> params, const RMSpropOptions& o) {
  return with_group(make_ref<RMSprop>(o), std::move(params));
}

}  // namespace glia::optim
