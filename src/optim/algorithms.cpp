// SGD, Adam, AdamW and RMSprop: torch's single-tensor math fused into one
// pass over each parameter (Note [Optimizer semantics follow torch]).
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "autograd/node.h"
#include "core/error.h"
#include "core/parallel.h"
#include "optim/optimizer.h"

namespace glia::optim {

namespace {

constexpr int64_t kGrain = 1 << 15;

// One parameter's update, prepared (Note [All-or-nothing step]): prepare_update
// does the allocations, run() does none. Fast path: float32/float64 with
// parameter, grad and states contiguous and of one dtype. Otherwise the kernel
// runs in float64 on contiguous copies made here, which run() writes back
// (parameter and states keep their dtypes). States are handles sharing the
// state tensors' storage; an undefined one is not used.
template <size_t N>
struct Update {
  Tensor p, g;
  std::array<Tensor, N> states;
  bool fast = true;
  Tensor pd, gd;             // slow path: float64 working copies
  std::array<Tensor, N> sd;  // slow path: float64 copies of the states

  // Runs kernel(p, g, states, begin, end) over the elements, then writes back (slow path).
  template <class K>
  void run(const K& kernel) {
    auto go = [&]<class T>(T* pp, const T* gp, std::array<T*, N> sp, int64_t n) {
      parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) { kernel(pp, gp, sp, b, e); });
    };
    if (fast && p.dtype() == DType::Float32) {
      std::array<float*, N> sp{};
      for (size_t i = 0; i < N; ++i) sp[i] = states[i].defined() ? states[i].template data_ptr<float>() : nullptr;
      go(p.data_ptr<float>(), g.data_ptr<float>(), sp, p.numel());
    } else if (fast) {
      std::array<double*, N> sp{};
      for (size_t i = 0; i < N; ++i) sp[i] = states[i].defined() ? states[i].template data_ptr<double>() : nullptr;
      go(p.data_ptr<double>(), g.data_ptr<double>(), sp, p.numel());
    } else {
      std::array<double*, N> sp{};
      for (size_t i = 0; i < N; ++i) sp[i] = sd[i].defined() ? sd[i].template data_ptr<double>() : nullptr;
      go(pd.data_ptr<double>(), gd.data_ptr<double>(), sp, p.numel());
      copy_into(p, pd);
      for (size_t i = 0; i < N; ++i)
        if (states[i].defined()) copy_into(states[i], sd[i]);
    }
    bump_version(p);
  }
};

template <size_t N>
Update<N> prepare_update(const Tensor& p, const Tensor& g, const std::array<Tensor*, N>& states) {
  Update<N> u;
  u.p = p;
  u.g = g;
  for (size_t i = 0; i < N; ++i) u.states[i] = *states[i];
  u.fast = (p.dtype() == DType::Float32 || p.dtype() == DType::Float64) && p.is_contiguous() && g.is_contiguous() &&
           g.dtype() == p.dtype();
  for (const Tensor& st : u.states)
    u.fast = u.fast && (!st.defined() || (st.is_contiguous() && st.dtype() == p.dtype()));
  if (u.fast) return u;
  GLIA_CHECK(is_floating(p.dtype()), DType, "optimizer step: expected a floating point parameter, got ",
             dtype_name(p.dtype()));
  u.pd = contiguous(clone(to_dtype(p, DType::Float64)));
  u.gd = contiguous(to_dtype(g, DType::Float64));
  for (size_t i = 0; i < N; ++i)
    if (u.states[i].defined()) u.sd[i] = contiguous(clone(to_dtype(u.states[i], DType::Float64)));
  return u;
}

// Note [Flag-free update loops]: the per-element loops must not test option
// flags (maximize, weight decay, momentum, ...) per element: the branches stop
// the compiler from vectorising and made SGD-momentum a third of a small MLP's
// train step. with_flags turns runtime flags into std::bool_constant
// arguments, one instantiation per combination, so each loop is branch-free.
template <class F>
void with_flags(F&& f) {
  f();
}
template <class F, class... B>
void with_flags(F&& f, bool b, B... rest) {
  if (b)
    with_flags([&](auto... c) { f(std::true_type{}, c...); }, rest...);
  else
    with_flags([&](auto... c) { f(std::false_type{}, c...); }, rest...);
}

Tensor grad_of(const Tensor& p) {
  AutogradMeta* m = autograd_meta_if(p);
  return m ? m->grad : Tensor();
}

Tensor zeros_like(const Tensor& p) { return zeros(p.shape(), p.dtype(), p.device()); }

// state["step"] (a float32 0-dim tensor, as torch >= 1.12 stores it), created at 0 when absent.
Tensor step_tensor(ParamState& st) {
  Tensor& step = st.get_or_add("step");
  if (!step.defined()) step = zeros({}, DType::Float32);
  return step;
}
// step += 1 (commit pass); returns the new count.
double bump_step(const Tensor& step) {
  double v = item_double(step) + 1;
  fill(step, v);
  return v;
}

void check_nonneg(double v, const char* what) {
  GLIA_CHECK(0.0 <= v, InvalidArgument, "Invalid ", what, ": ", py_float(v));
}

template <class T>
T nan_max(T a, T b) {
  if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
  return a < b ? b : a;
}

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
      Tensor none;
      std::array<Tensor*, 1> states{momentum != 0 ? &buf : &none};
      with_flags(
          [&](auto kMax, auto kWd, auto kMom, auto kNest, auto kFirst) {
            Update<1> u = prepare_update(p, g, states);
            commit.emplace_back([u = std::move(u), lr, momentum, dampening, wd]() mutable {
              u.run([&]<class T>(T* pp, const T* gp, std::array<T*, 1> s, int64_t b, int64_t e) {
                const T twd = T(wd), tm = T(momentum), tdamp = T(1 - dampening), tlr = T(-lr);
                T* __restrict bp = s[0];
                T* __restrict pr = pp;
                const T* __restrict gr = gp;
                for (int64_t i = b; i < e; ++i) {
                  T d = gr[i];
                  if constexpr (decltype(kMax)::value) d = -d;
                  if constexpr (decltype(kWd)::value) d = d + twd * pr[i];
                  if constexpr (decltype(kMom)::value) {
                    T nb;
                    if constexpr (decltype(kFirst)::value)
                      nb = d;
                    else
                      nb = bp[i] * tm + tdamp * d;
                    bp[i] = nb;
                    d = decltype(kNest)::value ? d + tm * nb : nb;
                  }
                  pr[i] = pr[i] + tlr * d;
                }
              });
            });
          },
          maximize, wd != 0, momentum != 0, nesterov, first);
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
        st.get_or_add("step") = zeros({}, DType::Float32);
        st.get_or_add("exp_avg") = zeros_like(p);
        st.get_or_add("exp_avg_sq") = zeros_like(p);
        if (amsgrad) st.get_or_add("max_exp_avg_sq") = zeros_like(p);
      }
      // A group switched to amsgrad after the state was created (torch would fail with a KeyError).
      if (amsgrad && st.find("max_exp_avg_sq") == nullptr) st.get_or_add("max_exp_avg_sq") = zeros_like(p);
      const Tensor step_t = step_tensor(st);
      Tensor none;
      std::array<Tensor*, 3> states{st.find("exp_avg"), st.find("exp_avg_sq"),
                                    amsgrad ? st.find("max_exp_avg_sq") : &none};
      with_flags(
          [&](auto kMax, auto kDecoupled, auto kWd, auto kAms) {
            Update<3> u = prepare_update(p, g, states);
            commit.emplace_back([u = std::move(u), step_t, lr, beta1, beta2, eps, wd]() mutable {
              const double step = bump_step(step_t);
              const double bc1 = 1 - std::pow(beta1, step), bc2 = 1 - std::pow(beta2, step);
              const double step_size = lr / bc1, bc2_sqrt = std::sqrt(bc2);
              u.run([&]<class T>(T* pp, const T* gp, std::array<T*, 3> s, int64_t b, int64_t e) {
                const T twd = T(wd), tb1 = T(beta1), t1b1 = T(1 - beta1), tb2 = T(beta2), t1b2 = T(1 - beta2),
                        tbc2 = T(bc2_sqrt), teps = T(eps), tstep = T(-step_size), tdecay = T(1 - lr * wd);
                T* __restrict m = s[0], * __restrict v = s[1], * __restrict vmax = s[2];
                T* __restrict pr = pp;
                const T* __restrict gr = gp;
                for (int64_t i = b; i < e; ++i) {
                  T gi = gr[i];
                  if constexpr (decltype(kMax)::value) gi = -gi;
                  if constexpr (decltype(kDecoupled)::value)
                    pr[i] = pr[i] * tdecay;
                  else if constexpr (decltype(kWd)::value)
                    gi = gi + twd * pr[i];
                  m[i] = m[i] * tb1 + t1b1 * gi;
                  v[i] = v[i] * tb2 + t1b2 * gi * gi;
                  T denom;
                  if constexpr (decltype(kAms)::value) {
                    vmax[i] = nan_max(vmax[i], v[i]);
                    denom = std::sqrt(vmax[i]) / tbc2 + teps;
                  } else {
                    denom = std::sqrt(v[i]) / tbc2 + teps;
                  }
                  pr[i] = pr[i] + tstep * (m[i] / denom);
                }
              });
            });
          },
          maximize, decoupled, wd != 0, amsgrad);
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
        st.get_or_add("step") = zeros({}, DType::Float32);
        st.get_or_add("square_avg") = zeros_like(p);
        if (momentum > 0) st.get_or_add("momentum_buffer") = zeros_like(p);
        if (centered) st.get_or_add("grad_avg") = zeros_like(p);
      }
      if (momentum > 0 && st.find("momentum_buffer") == nullptr) st.get_or_add("momentum_buffer") = zeros_like(p);
      if (centered && st.find("grad_avg") == nullptr) st.get_or_add("grad_avg") = zeros_like(p);
      const Tensor step_t = step_tensor(st);
      Tensor none;
      std::array<Tensor*, 3> states{st.find("square_avg"), momentum > 0 ? st.find("momentum_buffer") : &none,
                                    centered ? st.find("grad_avg") : &none};
      with_flags(
          [&](auto kMax, auto kWd, auto kCentered, auto kMom) {
            Update<3> u = prepare_update(p, g, states);
            commit.emplace_back([u = std::move(u), step_t, lr, alpha, eps, wd, momentum]() mutable {
              bump_step(step_t);
              u.run([&]<class T>(T* pp, const T* gp, std::array<T*, 3> s, int64_t b, int64_t e) {
                const T twd = T(wd), ta = T(alpha), t1a = T(1 - alpha), teps = T(eps), tm = T(momentum), tlr = T(-lr);
                T* __restrict sq = s[0], * __restrict buf = s[1], * __restrict ga = s[2];
                T* __restrict pr = pp;
                const T* __restrict gr = gp;
                for (int64_t i = b; i < e; ++i) {
                  T gi = gr[i];
                  if constexpr (decltype(kMax)::value) gi = -gi;
                  if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
                  sq[i] = sq[i] * ta + t1a * gi * gi;
                  T avg;
                  if constexpr (decltype(kCentered)::value) {
                    ga[i] = ga[i] * ta + t1a * gi;
                    avg = std::sqrt(sq[i] + T(-1) * ga[i] * ga[i]);
                  } else {
                    avg = std::sqrt(sq[i]);
                  }
                  avg = avg + teps;
                  if constexpr (decltype(kMom)::value) {
                    buf[i] = buf[i] * tm + gi / avg;
                    pr[i] = pr[i] + tlr * buf[i];
                  } else {
                    pr[i] = pr[i] + tlr * (gi / avg);
                  }
                }
              });
            });
          },
          maximize, wd != 0, centered, momentum > 0);
    }
  }
};

OptimizerRef with_group(OptimizerRef opt, std::vector<Tensor> params) {
  opt->add_param_group(std::move(params), {});
  return opt;
}

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
