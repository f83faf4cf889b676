// Training on the test device (libglia_testdevice.so, Note [Test device
// memory]): a small MLP moved with module.to(device) trains step for step as
// the same model on the CPU under every optimizer (the fused updates are
// kernels: the device gets exactly the CPU's parameters); optimizer state
// lives on the parameters' device; clip_grad_norm_/clip_grad_value_, dropout
// and the initialisers give the CPU's values; state dicts save from the device
// (copied to the host) in both checkpoint formats and load back onto a device
// module and optimizer; module hooks, tensor hooks and custom autograd
// functions run on device tensors; a grad on another device is torch's error.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.h"

// GLIA_OK_ for helpers that return a value (ASSERT_* needs a void function).
#define EXPECT_OK_(call)                                                         \
  do {                                                                           \
    glia_error* glia_e_ = (call);                                                \
    EXPECT_EQ(glia_e_, nullptr) << #call << ": " << glia_error_message(glia_e_); \
    glia_error_free(glia_e_);                                                    \
  } while (0)

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};
constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};

using Bytes = std::vector<unsigned char>;
using OptFactory = std::function<glia_error*(glia_tensor* const*, int64_t, glia_optimizer**)>;

class TrainingDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (glia_optimizer* o : opts_) glia_optimizer_release(o);
    for (glia_tensor_dict* d : dicts_) glia_tensor_dict_release(d);
    for (glia_module* m : modules_) glia_module_release(m);
    for (glia_tensor* t : owned_) glia_tensor_release(t);
    opts_.clear();
    dicts_.clear();
    modules_.clear();
    owned_.clear();
    // Everything released: no device memory may be left (optimizer state and copies included).
    void* h = dlopen(GLIA_TESTDEVICE_PATH, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(h, nullptr);
    auto live = reinterpret_cast<int64_t (*)(int32_t)>(dlsym(h, "glia_testdevice_live_allocations"));
    dlclose(h);
    ASSERT_NE(live, nullptr);
    EXPECT_EQ(live(0), 0) << "device memory leaked";
  }

  glia_tensor* keep(glia_tensor* t) {
    owned_.push_back(t);
    return t;
  }
  glia_module* keep(glia_module* m) {
    modules_.push_back(m);
    return m;
  }
  glia_tensor_dict* keep(glia_tensor_dict* d) {
    dicts_.push_back(d);
    return d;
  }
  glia_optimizer* keep(glia_optimizer* o) {
    opts_.push_back(o);
    return o;
  }

  glia_tensor* host(const std::vector<float>& v, std::vector<int64_t> shape) {
    glia_tensor* t = nullptr;
    EXPECT_OK_(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                     static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t));
    return keep(t);
  }
  // Deterministic values in [-1, 1).
  glia_tensor* ramp(std::vector<int64_t> shape, float phase) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7f * static_cast<float>(i) + phase);
    return host(v, shape);
  }
  glia_tensor* to(const glia_tensor* t, glia_device d, glia_dtype dt = GLIA_FLOAT32) {
    glia_tensor* out = nullptr;
    EXPECT_OK_(glia_tensor_to(t, &d, &dt, &out));
    return keep(out);
  }
  static glia_device device_of(const glia_tensor* t) {
    glia_device d{};
    EXPECT_EQ(glia_tensor_device(t, &d), nullptr);
    return d;
  }
  static bool on_device(const glia_tensor* t) { return device_of(t).type == GLIA_PRIVATEUSE1; }
  // The elements as the host sees them (a device-to-host copy), with dtype and shape.
  static Bytes bytes(const glia_tensor* t) {
    glia_dtype dt{};
    int64_t n = 0, nd = 0;
    EXPECT_EQ(glia_tensor_dtype(t, &dt), nullptr);
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
    std::vector<int64_t> shape(static_cast<size_t>(nd));
    EXPECT_EQ(glia_tensor_shape(t, nd, shape.data()), nullptr);
    Bytes b(static_cast<size_t>(n) * glia_dtype_size(dt));
    glia_error* e = glia_tensor_copy_to_host(t, b.data(), b.size());
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    b.push_back(static_cast<unsigned char>(dt));
    for (int64_t s : shape) b.push_back(static_cast<unsigned char>(s));
    return b;
  }
  static std::vector<float> floats(const glia_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float));
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return v;
  }
  glia_tensor* grad_of(glia_tensor* p) {
    glia_tensor* g = nullptr;
    EXPECT_OK_(glia_tensor_grad(p, &g));
    return g ? keep(g) : nullptr;
  }
  // The dict's entries in order: (key, tensor), tensors kept.
  std::vector<std::pair<std::string, glia_tensor*>> entries(const glia_tensor_dict* d) {
    int64_t n = 0;
    EXPECT_OK_(glia_tensor_dict_size(d, &n));
    std::vector<std::pair<std::string, glia_tensor*>> out;
    for (int64_t i = 0; i < n; ++i) {
      char key[256];
      size_t len = 0;
      EXPECT_OK_(glia_tensor_dict_key_at(d, i, key, sizeof key, &len));
      glia_tensor* t = nullptr;
      EXPECT_OK_(glia_tensor_dict_value_at(d, i, &t));
      out.emplace_back(key, keep(t));
    }
    return out;
  }

  // Linear(4, 8) -> ReLU -> Dropout(0.5) -> Linear(8, 3), in eval mode, initialised from `seed`
  // (the initialisers draw on the host: the same seed gives the same weights), moved to `dev`.
  glia_module* mlp(glia_device dev, uint64_t seed = 7) {
    glia_manual_seed(seed);
    glia_module* parts[4] = {};
    EXPECT_OK_(glia_nn_linear(4, 8, 1, nullptr, &parts[0]));
    EXPECT_OK_(glia_nn_relu(nullptr, &parts[1]));
    EXPECT_OK_(glia_nn_dropout(0.5, nullptr, &parts[2]));
    EXPECT_OK_(glia_nn_linear(8, 3, 1, nullptr, &parts[3]));
    glia_module* seq = nullptr;
    EXPECT_OK_(glia_nn_sequential(parts, 4, &seq));
    for (glia_module* m : parts) glia_module_release(m);
    keep(seq);
    EXPECT_OK_(glia_module_train(seq, 0));
    EXPECT_OK_(glia_module_to(seq, &dev, nullptr));
    return seq;
  }
  // The module's parameters in named_parameters order (the tensors themselves).
  std::vector<glia_tensor*> params(glia_module* m) {
    glia_tensor_dict* d = nullptr;
    EXPECT_OK_(glia_module_named_parameters(m, nullptr, 1, 1, &d));
    keep(d);
    std::vector<glia_tensor*> ps;
    for (auto& [k, t] : entries(d)) ps.push_back(t);
    return ps;
  }
  std::vector<Bytes> snapshot(const std::vector<glia_tensor*>& ps) {
    std::vector<Bytes> out;
    for (glia_tensor* p : ps) out.push_back(bytes(p));
    return out;
  }
  // One training step: zero_grad, mse loss of the forward against y (sub, mul, mean), backward, step.
  void train_step(glia_module* m, glia_optimizer* opt, const glia_tensor* x, const glia_tensor* y) {
    GLIA_OK_(glia_optimizer_zero_grad(opt, 1));
    glia_tensor* out = nullptr;
    int64_t n = 0;
    GLIA_OK_(glia_module_forward(m, &x, 1, &out, 1, &n));
    keep(out);
    glia_tensor *d = nullptr, *sq = nullptr, *loss = nullptr;
    GLIA_OK_(glia_sub(out, y, 1.0, &d));
    keep(d);
    GLIA_OK_(glia_mul(d, d, &sq));
    keep(sq);
    GLIA_OK_(glia_mean(sq, nullptr, 0, 0, &loss));
    keep(loss);
    EXPECT_EQ(device_of(loss).type, device_of(x).type);
    GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
    GLIA_OK_(glia_optimizer_step(opt));
  }

  std::vector<glia_tensor*> owned_;
  std::vector<glia_module*> modules_;
  std::vector<glia_tensor_dict*> dicts_;
  std::vector<glia_optimizer*> opts_;
};

struct OptCase {
  const char* name;
  OptFactory make;
};

std::vector<OptCase> optimizer_cases() {
  std::vector<OptCase> cases;
  auto sgd = [](double momentum, double dampening, double wd, int nesterov, int maximize) {
    return [=](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
      glia_sgd_options o;
      glia_sgd_options_init(&o);
      o.lr = 0.1;
      o.momentum = momentum;
      o.dampening = dampening;
      o.weight_decay = wd;
      o.nesterov = nesterov;
      o.maximize = maximize;
      return glia_optim_sgd(ps, n, &o, out);
    };
  };
  cases.push_back({"sgd", sgd(0, 0, 0, 0, 0)});
  cases.push_back({"sgd momentum dampening weight_decay", sgd(0.9, 0.1, 0.01, 0, 0)});
  cases.push_back({"sgd nesterov maximize", sgd(0.9, 0, 0.01, 1, 1)});
  auto adam = [](bool w, double wd, int amsgrad, int maximize) {
    return [=](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
      glia_adam_options o;
      if (w)
        glia_adamw_options_init(&o);
      else
        glia_adam_options_init(&o);
      o.lr = 0.01;
      o.weight_decay = wd;
      o.amsgrad = amsgrad;
      o.maximize = maximize;
      return w ? glia_optim_adamw(ps, n, &o, out) : glia_optim_adam(ps, n, &o, out);
    };
  };
  cases.push_back({"adam", adam(false, 0, 0, 0)});
  cases.push_back({"adam weight_decay amsgrad maximize", adam(false, 0.01, 1, 1)});
  cases.push_back({"adamw", adam(true, 0.01, 0, 0)});
  cases.push_back({"adamw amsgrad", adam(true, 0.05, 1, 0)});
  auto rmsprop = [](double momentum, int centered, double wd) {
    return [=](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
      glia_rmsprop_options o;
      glia_rmsprop_options_init(&o);
      o.lr = 0.01;
      o.momentum = momentum;
      o.centered = centered;
      o.weight_decay = wd;
      return glia_optim_rmsprop(ps, n, &o, out);
    };
  };
  cases.push_back({"rmsprop", rmsprop(0, 0, 0)});
  cases.push_back({"rmsprop centered momentum weight_decay", rmsprop(0.5, 1, 0.01)});
  // torch 1.13's other optimizers (h-optim).
  cases.push_back({"adadelta weight_decay maximize", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_adadelta_options o;
                     glia_adadelta_options_init(&o);
                     o.weight_decay = 0.01;
                     o.maximize = 1;
                     return glia_optim_adadelta(ps, n, &o, out);
                   }});
  cases.push_back(
      {"adagrad lr_decay initial_accumulator_value", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
         glia_adagrad_options o;
         glia_adagrad_options_init(&o);
         o.lr_decay = 0.1;
         o.initial_accumulator_value = 0.2;
         o.weight_decay = 0.01;
         return glia_optim_adagrad(ps, n, &o, out);
       }});
  cases.push_back({"adamax weight_decay", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_adamax_options o;
                     glia_adamax_options_init(&o);
                     o.weight_decay = 0.01;
                     return glia_optim_adamax(ps, n, &o, out);
                   }});
  cases.push_back({"asgd averaging", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_asgd_options o;
                     glia_asgd_options_init(&o);
                     o.t0 = 1;
                     o.lambd = 0.01;
                     return glia_optim_asgd(ps, n, &o, out);
                   }});
  cases.push_back({"nadam weight_decay", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_nadam_options o;
                     glia_nadam_options_init(&o);
                     o.weight_decay = 0.01;
                     return glia_optim_nadam(ps, n, &o, out);
                   }});
  cases.push_back({"radam", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_radam_options o;
                     glia_radam_options_init(&o);
                     o.betas[1] = 0.9;  // rectified from the fourth step on
                     return glia_optim_radam(ps, n, &o, out);
                   }});
  cases.push_back({"rprop maximize", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_rprop_options o;
                     glia_rprop_options_init(&o);
                     o.maximize = 1;
                     return glia_optim_rprop(ps, n, &o, out);
                   }});
  return cases;
}

// module.to(device) then forward/backward/step: the device's parameters equal the CPU's after
// every step, bit for bit (the same kernels), under every optimizer; the state sits on the device.
TEST_F(TrainingDevice, EveryOptimizerTrainsAsOnTheCpu) {
  glia_tensor* x = ramp({5, 4}, 0.3f);
  glia_tensor* y = ramp({5, 3}, 1.1f);
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* dy = to(y, kDev0);
  for (const OptCase& c : optimizer_cases()) {
    SCOPED_TRACE(c.name);
    glia_module* cm = mlp(kCpu);
    glia_module* dm = mlp(kDev0);
    std::vector<glia_tensor*> cp = params(cm), dp = params(dm);
    ASSERT_EQ(cp.size(), 4u);
    for (glia_tensor* p : dp) EXPECT_TRUE(on_device(p));
    const std::vector<Bytes> initial = snapshot(cp);
    EXPECT_EQ(snapshot(dp), initial);
    glia_optimizer *co = nullptr, *dopt = nullptr;
    GLIA_OK_(c.make(cp.data(), static_cast<int64_t>(cp.size()), &co));
    keep(co);
    GLIA_OK_(c.make(dp.data(), static_cast<int64_t>(dp.size()), &dopt));
    keep(dopt);
    for (int step = 0; step < 4; ++step) {
      train_step(cm, co, x, y);
      train_step(dm, dopt, dx, dy);
      ASSERT_EQ(snapshot(dp), snapshot(cp)) << "after step " << step + 1;
      for (size_t i = 0; i < dp.size(); ++i) {
        glia_tensor* g = grad_of(dp[i]);
        ASSERT_NE(g, nullptr);
        EXPECT_TRUE(on_device(g));
        EXPECT_EQ(bytes(g), bytes(grad_of(cp[i])));
      }
    }
    EXPECT_NE(snapshot(cp), initial);
    // State: on the parameter's device, "step" on the CPU (torch keeps it there unless capturable).
    glia_tensor_dict *cs = nullptr, *ds = nullptr;
    GLIA_OK_(glia_optimizer_state_dict(co, &cs));
    keep(cs);
    GLIA_OK_(glia_optimizer_state_dict(dopt, &ds));
    keep(ds);
    auto ce = entries(cs), de = entries(ds);
    ASSERT_EQ(ce.size(), de.size());
    for (size_t i = 0; i < de.size(); ++i) {
      SCOPED_TRACE(de[i].first);
      EXPECT_EQ(de[i].first, ce[i].first);
      const bool is_state = de[i].first.rfind("state.", 0) == 0;
      // 0-dim host numbers: "step", ASGD's "eta" and "mu", NAdam's "mu_product" (as torch keeps them).
      const std::string& key = de[i].first;
      const std::string leaf = key.substr(key.rfind('.') + 1);
      const bool is_step = leaf == "step" || leaf == "eta" || leaf == "mu" || leaf == "mu_product";
      EXPECT_EQ(on_device(de[i].second), is_state && !is_step);
      EXPECT_EQ(bytes(de[i].second), bytes(ce[i].second));
    }
  }
}

// LBFGS (h-optim) runs on ops (dot, cat, narrow, add_, ...): on the device it takes the CPU's
// iterations, with and without the strong-Wolfe line search, its state on the device.
TEST_F(TrainingDevice, LbfgsRunsOnTheDeviceAsOnTheCpu) {
  glia_tensor* x = ramp({5, 4}, 0.3f);
  glia_tensor* y = ramp({5, 3}, 1.1f);
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* dy = to(y, kDev0);
  using Closure = std::function<glia_error*(double*)>;
  auto trampoline = [](void* f, double* loss) { return (*static_cast<Closure*>(f))(loss); };
  for (int32_t wolfe : {0, 1}) {
    SCOPED_TRACE(wolfe ? "strong_wolfe" : "no line search");
    glia_module* cm = mlp(kCpu);
    glia_module* dm = mlp(kDev0);
    std::vector<glia_tensor*> cp = params(cm), dp = params(dm);
    glia_lbfgs_options o;
    glia_lbfgs_options_init(&o);
    o.lr = wolfe ? 1 : 0.1;
    o.max_iter = 5;
    o.line_search_fn = wolfe;
    glia_optimizer *co = nullptr, *dopt = nullptr;
    GLIA_OK_(glia_optim_lbfgs(cp.data(), static_cast<int64_t>(cp.size()), &o, &co));
    keep(co);
    GLIA_OK_(glia_optim_lbfgs(dp.data(), static_cast<int64_t>(dp.size()), &o, &dopt));
    keep(dopt);
    auto closure_of = [&](glia_module* m, glia_optimizer* opt, const glia_tensor* in, const glia_tensor* target) {
      return Closure([=, this](double* loss) -> glia_error* {
        EXPECT_OK_(glia_optimizer_zero_grad(opt, 1));
        glia_tensor* out = nullptr;
        int64_t n = 0;
        EXPECT_OK_(glia_module_forward(m, &in, 1, &out, 1, &n));
        keep(out);
        glia_tensor *d = nullptr, *sq = nullptr, *l = nullptr;
        EXPECT_OK_(glia_sub(out, target, 1.0, &d));
        keep(d);
        EXPECT_OK_(glia_mul(d, d, &sq));
        keep(sq);
        EXPECT_OK_(glia_mean(sq, nullptr, 0, 0, &l));
        keep(l);
        EXPECT_OK_(glia_tensor_backward(l, nullptr, 0));
        return glia_tensor_item_double(l, loss);
      });
    };
    Closure cc = closure_of(cm, co, x, y), dc = closure_of(dm, dopt, dx, dy);
    for (int step = 0; step < 2; ++step) {
      double cl = 0, dl = 0;
      GLIA_OK_(glia_optimizer_step_closure(co, trampoline, &cc, &cl));
      GLIA_OK_(glia_optimizer_step_closure(dopt, trampoline, &dc, &dl));
      EXPECT_EQ(dl, cl) << "step " << step + 1;
      ASSERT_EQ(snapshot(dp), snapshot(cp)) << "after step " << step + 1;
    }
    glia_tensor_dict* ds = nullptr;
    GLIA_OK_(glia_optimizer_state_dict(dopt, &ds));
    keep(ds);
    for (const auto& [k, v] : entries(ds))
      if (k == "state.0.d" || k == "state.0.old_dirs" || k == "state.0.prev_flat_grad") EXPECT_TRUE(on_device(v)) << k;
  }
}

// The slow path: a bfloat16 parameter (and a non-contiguous float32 one) update through float64
// working copies made on the device and written back there, as on the CPU.
TEST_F(TrainingDevice, OptimizersUpdateOtherDtypesAndLayoutsOnTheDevice) {
  for (const OptCase& c : optimizer_cases()) {
    SCOPED_TRACE(c.name);
    glia_tensor* base = ramp({3, 4}, 0.2f);
    glia_tensor* grad = ramp({3, 4}, 2.0f);
    glia_tensor* cpu_bf = to(base, kCpu, GLIA_BFLOAT16);
    glia_tensor* dev_bf = to(base, kDev0, GLIA_BFLOAT16);
    // A transposed view of a device tensor: a non-contiguous parameter.
    glia_tensor* cpu_t_base = ramp({3, 4}, 0.8f);
    glia_tensor* dev_t_base = to(cpu_t_base, kDev0);
    glia_tensor *cpu_t = nullptr, *dev_t = nullptr;
    GLIA_OK_(glia_transpose(cpu_t_base, 0, 1, &cpu_t));
    keep(cpu_t);
    GLIA_OK_(glia_transpose(dev_t_base, 0, 1, &dev_t));
    keep(dev_t);
    glia_tensor* cpu_ps[2] = {cpu_bf, cpu_t};
    glia_tensor* dev_ps[2] = {dev_bf, dev_t};
    for (glia_tensor* p : cpu_ps) GLIA_OK_(glia_tensor_set_requires_grad(p, 1));
    for (glia_tensor* p : dev_ps) GLIA_OK_(glia_tensor_set_requires_grad(p, 1));
    glia_tensor* gt = nullptr;
    GLIA_OK_(glia_transpose(grad, 0, 1, &gt));
    keep(gt);
    GLIA_OK_(glia_tensor_set_grad(cpu_bf, to(grad, kCpu, GLIA_BFLOAT16)));
    GLIA_OK_(glia_tensor_set_grad(dev_bf, to(grad, kDev0, GLIA_BFLOAT16)));
    GLIA_OK_(glia_tensor_set_grad(cpu_t, to(gt, kCpu)));
    GLIA_OK_(glia_tensor_set_grad(dev_t, to(gt, kDev0)));
    glia_optimizer *co = nullptr, *dopt = nullptr;
    GLIA_OK_(c.make(cpu_ps, 2, &co));
    keep(co);
    GLIA_OK_(c.make(dev_ps, 2, &dopt));
    keep(dopt);
    for (int step = 0; step < 3; ++step) {
      GLIA_OK_(glia_optimizer_step(co));
      GLIA_OK_(glia_optimizer_step(dopt));
      EXPECT_EQ(bytes(dev_bf), bytes(cpu_bf)) << "bfloat16, step " << step + 1;
      EXPECT_EQ(bytes(dev_t), bytes(cpu_t)) << "transposed, step " << step + 1;
    }
    EXPECT_NE(bytes(cpu_bf), bytes(to(base, kCpu, GLIA_BFLOAT16)));
    EXPECT_TRUE(on_device(dev_bf));
  }
}

// A grad on another device than its parameter is refused when it is assigned (torch's .grad
// setter), and the parameter keeps its grad; the optimizer's own device check (Note [All-or-nothing
// step]) therefore never sees one through the C API.
TEST_F(TrainingDevice, AGradOnAnotherDeviceIsRefused) {
  glia_tensor* a = to(ramp({3}, 0.1f), kDev0);
  GLIA_OK_(glia_tensor_set_requires_grad(a, 1));
  glia_tensor* ga = to(ramp({3}, 1.0f), kDev0);
  GLIA_OK_(glia_tensor_set_grad(a, ga));
  EXPECT_GLIA_MSG(glia_tensor_set_grad(a, ramp({3}, 1.5f)), GLIA_ERR_DEVICE,
                  "glia_tensor_set_grad: assigned grad has data located on a different device: cpu vs tensor "
                  "testdevice:0");
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(a, &g));
  keep(g);
  EXPECT_EQ(bytes(g), bytes(ga));  // unchanged
  glia_adam_options o;
  glia_adam_options_init(&o);
  glia_optimizer* opt = nullptr;
  GLIA_OK_(glia_optim_adam(&a, 1, &o, &opt));
  keep(opt);
  const Bytes before = bytes(a);
  GLIA_OK_(glia_optimizer_step(opt));
  EXPECT_NE(bytes(a), before);
}

// clip_grad_norm_ (every norm type, one grad or several) and clip_grad_value_ on device grads give
// the CPU's total and grads; error_if_nonfinite reads the device total and leaves the grads alone.
TEST_F(TrainingDevice, ClipGradOnTheDeviceMatchesTheCpu) {
  const double kInf = INFINITY;
  for (double norm_type : {2.0, 1.0, kInf, -kInf, 3.0, 0.5, 0.0}) {
    for (double max_norm : {0.5, 100.0}) {
      SCOPED_TRACE("norm_type " + std::to_string(norm_type) + " max_norm " + std::to_string(max_norm));
      std::vector<glia_tensor*> cps, dps;
      const std::vector<std::vector<int64_t>> shapes{{3, 4}, {5}, {2, 2}};
      for (size_t i = 0; i < shapes.size(); ++i) {
        glia_tensor* c = ramp(shapes[i], 0.4f * static_cast<float>(i));
        glia_tensor* d = to(c, kDev0);
        GLIA_OK_(glia_tensor_set_requires_grad(c, 1));
        GLIA_OK_(glia_tensor_set_requires_grad(d, 1));
        if (i < 2) {  // the third parameter has no grad
          glia_tensor* g = ramp(shapes[i], 1.0f + static_cast<float>(i));
          GLIA_OK_(glia_tensor_set_grad(c, to(g, kCpu)));
          GLIA_OK_(glia_tensor_set_grad(d, to(g, kDev0)));
        }
        cps.push_back(c);
        dps.push_back(d);
      }
      double ct = -1, dt = -2;
      GLIA_OK_(glia_nn_utils_clip_grad_norm_(cps.data(), 3, max_norm, norm_type, 0, &ct));
      GLIA_OK_(glia_nn_utils_clip_grad_norm_(dps.data(), 3, max_norm, norm_type, 0, &dt));
      EXPECT_EQ(dt, ct);
      for (size_t i = 0; i < 2; ++i) {
        glia_tensor* g = grad_of(dps[i]);
        EXPECT_TRUE(on_device(g));
        EXPECT_EQ(bytes(g), bytes(grad_of(cps[i])));
      }
      // One parameter alone.
      GLIA_OK_(glia_nn_utils_clip_grad_norm_(&cps[0], 1, max_norm, norm_type, 0, &ct));
      GLIA_OK_(glia_nn_utils_clip_grad_norm_(&dps[0], 1, max_norm, norm_type, 0, &dt));
      EXPECT_EQ(dt, ct);
      EXPECT_EQ(bytes(grad_of(dps[0])), bytes(grad_of(cps[0])));
    }
  }
  // A float64 grad next to a float32 one: the total in the promoted dtype, as on the CPU.
  {
    glia_tensor* c32 = ramp({4}, 0.1f);
    glia_tensor* c64 = to(ramp({3}, 0.2f), kCpu, GLIA_FLOAT64);
    glia_tensor* d32 = to(c32, kDev0);
    glia_tensor* d64 = to(c64, kDev0, GLIA_FLOAT64);
    for (glia_tensor* p : {c32, c64, d32, d64}) GLIA_OK_(glia_tensor_set_requires_grad(p, 1));
    GLIA_OK_(glia_tensor_set_grad(c32, to(ramp({4}, 3.0f), kCpu)));
    GLIA_OK_(glia_tensor_set_grad(d32, to(ramp({4}, 3.0f), kDev0)));
    GLIA_OK_(glia_tensor_set_grad(c64, to(ramp({3}, 4.0f), kCpu, GLIA_FLOAT64)));
    GLIA_OK_(glia_tensor_set_grad(d64, to(ramp({3}, 4.0f), kDev0, GLIA_FLOAT64)));
    glia_tensor* cp[2] = {c32, c64};
    glia_tensor* dp[2] = {d32, d64};
    double ct = 0, dt = 0;
    GLIA_OK_(glia_nn_utils_clip_grad_norm_(cp, 2, 0.3, 2.0, 0, &ct));
    GLIA_OK_(glia_nn_utils_clip_grad_norm_(dp, 2, 0.3, 2.0, 0, &dt));
    EXPECT_EQ(dt, ct);
    EXPECT_EQ(bytes(grad_of(d32)), bytes(grad_of(c32)));
    EXPECT_EQ(bytes(grad_of(d64)), bytes(grad_of(c64)));
  }
  // clip_grad_value_.
  glia_tensor* c = ramp({3, 4}, 0.0f);
  glia_tensor* d = to(c, kDev0);
  GLIA_OK_(glia_tensor_set_requires_grad(c, 1));
  GLIA_OK_(glia_tensor_set_requires_grad(d, 1));
  GLIA_OK_(glia_tensor_set_grad(c, ramp({3, 4}, 0.9f)));
  GLIA_OK_(glia_tensor_set_grad(d, to(ramp({3, 4}, 0.9f), kDev0)));
  GLIA_OK_(glia_nn_utils_clip_grad_value_(&c, 1, 0.35));
  GLIA_OK_(glia_nn_utils_clip_grad_value_(&d, 1, 0.35));
  EXPECT_EQ(bytes(grad_of(d)), bytes(grad_of(c)));
  EXPECT_TRUE(on_device(grad_of(d)));
  // A non-finite total with error_if_nonfinite: torch's text, grads unchanged.
  glia_tensor* p = to(ramp({2}, 0.0f), kDev0);
  GLIA_OK_(glia_tensor_set_requires_grad(p, 1));
  GLIA_OK_(glia_tensor_set_grad(p, to(host({INFINITY, 1.0f}, {2}), kDev0)));
  double total = 0;
  EXPECT_GLIA_MSG(glia_nn_utils_clip_grad_norm_(&p, 1, 1.0, 2.0, 1, &total), GLIA_ERR_INVALID_ARGUMENT,
                  "The total norm of order 2.0 for gradients from `parameters` is non-finite");
  EXPECT_EQ(floats(grad_of(p)), (std::vector<float>{INFINITY, 1.0f}));
}

// Dropout in training mode draws its mask on the host from glia's generator: the same seed gives
// the device the CPU's mask; its backward runs on the device. Eval mode is the identity.
TEST_F(TrainingDevice, DropoutOnTheDeviceDrawsTheCpusMask) {
  glia_tensor* x = ramp({6, 5}, 0.25f);
  glia_tensor* dx = to(x, kDev0);
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  GLIA_OK_(glia_tensor_set_requires_grad(dx, 1));
  glia_tensor *cy = nullptr, *dy = nullptr;
  glia_manual_seed(1234);
  GLIA_OK_(glia_dropout(x, 0.4, 1, &cy));
  keep(cy);
  glia_manual_seed(1234);
  GLIA_OK_(glia_dropout(dx, 0.4, 1, &dy));
  keep(dy);
  EXPECT_TRUE(on_device(dy));
  EXPECT_EQ(bytes(dy), bytes(cy));
  std::vector<float> v = floats(cy);
  int zeros = 0;
  for (float f : v) zeros += f == 0.0f;
  EXPECT_GT(zeros, 0);
  EXPECT_LT(zeros, static_cast<int>(v.size()));
  GLIA_OK_(glia_tensor_backward(cy, to(ramp({6, 5}, 2.0f), kCpu), 0));
  GLIA_OK_(glia_tensor_backward(dy, to(ramp({6, 5}, 2.0f), kDev0), 0));
  EXPECT_TRUE(on_device(grad_of(dx)));
  EXPECT_EQ(bytes(grad_of(dx)), bytes(grad_of(x)));
  // p = 1 and eval mode.
  glia_tensor* all = nullptr;
  GLIA_OK_(glia_dropout(dx, 1.0, 1, &all));
  keep(all);
  EXPECT_EQ(floats(all), std::vector<float>(30, 0.0f));
  glia_tensor* same = nullptr;
  GLIA_OK_(glia_dropout(dx, 0.4, 0, &same));
  keep(same);
  EXPECT_EQ(bytes(same), bytes(x));
  // The Dropout module in training mode, on a device module.
  glia_module* m = mlp(kDev0);
  GLIA_OK_(glia_module_train(m, 1));
  glia_module* cm = mlp(kCpu);
  GLIA_OK_(glia_module_train(cm, 1));
  glia_tensor* in = ramp({3, 4}, 0.5f);
  glia_tensor* din = to(in, kDev0);
  glia_tensor *co = nullptr, *dout = nullptr;
  int64_t n = 0;
  glia_manual_seed(99);
  GLIA_OK_(glia_module_forward(cm, const_cast<const glia_tensor* const*>(&in), 1, &co, 1, &n));
  keep(co);
  glia_manual_seed(99);
  GLIA_OK_(glia_module_forward(m, const_cast<const glia_tensor* const*>(&din), 1, &dout, 1, &n));
  keep(dout);
  EXPECT_EQ(bytes(dout), bytes(co));
}

// nn.init on device tensors: the draws are made on the host, so a seed gives the CPU's values.
TEST_F(TrainingDevice, InitialisersOnTheDeviceGiveTheCpusValues) {
  using Init = std::function<glia_error*(glia_tensor*)>;
  const std::vector<std::pair<const char*, Init>> inits{
      {"uniform_", [](glia_tensor* t) { return glia_nn_init_uniform_(t, -2, 3); }},
      {"normal_", [](glia_tensor* t) { return glia_nn_init_normal_(t, 1, 0.5); }},
      {"constant_", [](glia_tensor* t) { return glia_nn_init_constant_(t, 0.25); }},
      {"ones_", [](glia_tensor* t) { return glia_nn_init_ones_(t); }},
      {"zeros_", [](glia_tensor* t) { return glia_nn_init_zeros_(t); }},
      {"eye_", [](glia_tensor* t) { return glia_nn_init_eye_(t); }},
      {"xavier_uniform_", [](glia_tensor* t) { return glia_nn_init_xavier_uniform_(t, 1.5); }},
      {"xavier_normal_", [](glia_tensor* t) { return glia_nn_init_xavier_normal_(t, 1.0); }},
      {"kaiming_uniform_", [](glia_tensor* t) { return glia_nn_init_kaiming_uniform_(t, 0.1, GLIA_FAN_IN, "relu"); }},
      {"kaiming_normal_",
       [](glia_tensor* t) { return glia_nn_init_kaiming_normal_(t, 0, GLIA_FAN_OUT, "leaky_relu"); }},
      {"orthogonal_", [](glia_tensor* t) { return glia_nn_init_orthogonal_(t, 2.0); }},
      {"trunc_normal_", [](glia_tensor* t) { return glia_nn_init_trunc_normal_(t, 0, 1, -0.5, 0.5); }},
  };
  for (const auto& [name, init] : inits) {
    for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_BFLOAT16}) {
      SCOPED_TRACE(std::string(name) + " dtype " + std::to_string(static_cast<int>(dt)));
      glia_tensor* c = to(ramp({4, 6}, 0.0f), kCpu, dt);
      glia_tensor* d = to(c, kDev0, dt);
      glia_manual_seed(42);
      GLIA_OK_(init(c));
      glia_manual_seed(42);
      GLIA_OK_(init(d));
      EXPECT_TRUE(on_device(d));
      EXPECT_EQ(bytes(d), bytes(c));
    }
  }
  // A non-contiguous device view is written in place through its strides.
  glia_tensor* base_c = to(ramp({4, 6}, 0.0f), kCpu);
  glia_tensor* base_d = to(base_c, kDev0);
  glia_tensor *vc = nullptr, *vd = nullptr;
  GLIA_OK_(glia_transpose(base_c, 0, 1, &vc));
  keep(vc);
  GLIA_OK_(glia_transpose(base_d, 0, 1, &vd));
  keep(vd);
  glia_manual_seed(5);
  GLIA_OK_(glia_nn_init_normal_(vc, 0, 1));
  glia_manual_seed(5);
  GLIA_OK_(glia_nn_init_normal_(vd, 0, 1));
  EXPECT_EQ(bytes(base_d), bytes(base_c));
}

// Checkpoints from a device module: state_dict() tensors are the device's own; saving copies them to
// the host (safetensors and torch format, files and buffers); loading into a device module copies
// onto the device. An optimizer's state_dict saves the same way and loads back onto device
// parameters, after which training continues exactly as on the CPU.
TEST_F(TrainingDevice, CheckpointsSaveFromAndLoadOntoTheDevice) {
  glia_tensor* x = ramp({5, 4}, 0.3f);
  glia_tensor* y = ramp({5, 3}, 1.1f);
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* dy = to(y, kDev0);
  auto make_opt = [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
    glia_adam_options o;
    glia_adamw_options_init(&o);
    o.lr = 0.02;
    o.amsgrad = 1;
    return glia_optim_adamw(ps, n, &o, out);
  };
  glia_module* cm = mlp(kCpu);
  glia_module* dm = mlp(kDev0);
  std::vector<glia_tensor*> cp = params(cm), dp = params(dm);
  glia_optimizer *co = nullptr, *dopt = nullptr;
  GLIA_OK_(make_opt(cp.data(), 4, &co));
  keep(co);
  GLIA_OK_(make_opt(dp.data(), 4, &dopt));
  keep(dopt);
  for (int i = 0; i < 3; ++i) {
    train_step(cm, co, x, y);
    train_step(dm, dopt, dx, dy);
  }
  ASSERT_EQ(snapshot(dp), snapshot(cp));

  // The module's state dict: the device tensors themselves.
  glia_tensor_dict* msd = nullptr;
  GLIA_OK_(glia_module_state_dict(dm, &msd));
  keep(msd);
  for (auto& [k, t] : entries(msd)) EXPECT_TRUE(on_device(t)) << k;

  const std::string dir = ::testing::TempDir();
  const std::string st_path = dir + "/glia_training_device.safetensors";
  const std::string pt_path = dir + "/glia_training_device.pt";
  GLIA_OK_(glia_module_save(dm, st_path.c_str()));
  GLIA_OK_(glia_tensor_dict_save(msd, pt_path.c_str(), GLIA_FORMAT_TORCH));
  for (const std::string& path : {st_path, pt_path}) {
    SCOPED_TRACE(path);
    // The file holds host tensors with the device's values.
    glia_tensor_dict* loaded = nullptr;
    GLIA_OK_(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &loaded));
    keep(loaded);
    auto le = entries(loaded);
    ASSERT_EQ(le.size(), 4u);
    for (auto& [k, t] : le) {
      EXPECT_EQ(device_of(t).type, GLIA_CPU) << k;
      glia_tensor* src = nullptr;
      GLIA_OK_(glia_tensor_dict_get(msd, k.c_str(), &src));
      keep(src);
      EXPECT_EQ(bytes(t), bytes(src)) << k;
    }
    // Loading into a device module (other weights) copies onto the device, in place.
    glia_module* other = mlp(kDev0, 1000);
    std::vector<glia_tensor*> op = params(other);
    EXPECT_NE(snapshot(op), snapshot(dp));
    glia_load_report* report = nullptr;
    GLIA_OK_(glia_module_load(other, path.c_str(), 1, &report));
    glia_load_report_release(report);
    for (glia_tensor* p : op) EXPECT_TRUE(on_device(p));
    EXPECT_EQ(snapshot(op), snapshot(dp));
  }
  std::remove(st_path.c_str());
  std::remove(pt_path.c_str());

  // The optimizer's state dict through a buffer in each format: host tensors in the buffer.
  glia_tensor_dict* osd = nullptr;
  GLIA_OK_(glia_optimizer_state_dict(dopt, &osd));
  keep(osd);
  for (glia_format fmt : {GLIA_FORMAT_TORCH, GLIA_FORMAT_SAFETENSORS}) {
    SCOPED_TRACE(fmt == GLIA_FORMAT_TORCH ? "torch format" : "safetensors");
    void* data = nullptr;
    size_t size = 0;
    GLIA_OK_(glia_tensor_dict_save_buffer(osd, fmt, &data, &size));
    glia_tensor_dict* lo = nullptr;
    glia_error* e = glia_tensor_dict_load_buffer(data, size, fmt, &lo);
    glia_buffer_free(data);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
    keep(lo);
    for (auto& [k, t] : entries(lo)) EXPECT_EQ(device_of(t).type, GLIA_CPU) << k;
    // A fresh device model from the module checkpoint, its optimizer from the loaded state.
    glia_module* resumed = mlp(kDev0, 2000);
    GLIA_OK_(glia_module_load_state_dict(resumed, msd, 1, 0, nullptr));
    std::vector<glia_tensor*> rp = params(resumed);
    glia_optimizer* ro = nullptr;
    GLIA_OK_(make_opt(rp.data(), 4, &ro));
    keep(ro);
    GLIA_OK_(glia_optimizer_load_state_dict(ro, lo));
    glia_tensor_dict* rsd = nullptr;
    GLIA_OK_(glia_optimizer_state_dict(ro, &rsd));
    keep(rsd);
    for (auto& [k, t] : entries(rsd)) {
      const bool moved = k.rfind("state.", 0) == 0 && k.substr(k.size() - 5) != ".step";
      EXPECT_EQ(on_device(t), moved) << k;
    }
    // A CPU twin resumed from the same checkpoint: both continue identically.
    glia_module* twin = mlp(kCpu, 3000);
    GLIA_OK_(glia_module_load_state_dict(twin, msd, 1, 0, nullptr));
    std::vector<glia_tensor*> tp = params(twin);
    glia_optimizer* to_ = nullptr;
    GLIA_OK_(make_opt(tp.data(), 4, &to_));
    keep(to_);
    GLIA_OK_(glia_optimizer_load_state_dict(to_, lo));
    for (int i = 0; i < 3; ++i) {
      train_step(twin, to_, x, y);
      train_step(resumed, ro, dx, dy);
      ASSERT_EQ(snapshot(rp), snapshot(tp)) << "resumed step " << i + 1;
    }
  }
  // And the uninterrupted runs agree with the resumed ones.
  for (int i = 0; i < 3; ++i) {
    train_step(cm, co, x, y);
    train_step(dm, dopt, dx, dy);
  }
  EXPECT_EQ(snapshot(dp), snapshot(cp));
}

// A torch-format save of device views: one host copy per storage keeps offsets and strides.
TEST_F(TrainingDevice, TorchFormatSavesDeviceViewsOfOneStorage) {
  glia_tensor* c = ramp({3, 4}, 0.6f);
  glia_tensor* d = to(c, kDev0);
  glia_tensor *dt = nullptr, *row = nullptr;
  GLIA_OK_(glia_transpose(d, 0, 1, &dt));
  keep(dt);
  GLIA_OK_(glia_select(d, 0, 2, &row));
  keep(row);
  glia_tensor_dict* dict = nullptr;
  GLIA_OK_(glia_tensor_dict_create(&dict));
  keep(dict);
  GLIA_OK_(glia_tensor_dict_set(dict, "a", d));
  GLIA_OK_(glia_tensor_dict_set(dict, "t", dt));
  GLIA_OK_(glia_tensor_dict_set(dict, "row", row));
  void* data = nullptr;
  size_t size = 0;
  GLIA_OK_(glia_tensor_dict_save_buffer(dict, GLIA_FORMAT_TORCH, &data, &size));
  // The same dict on the CPU writes the same bytes: the file says 'cpu' and holds one storage.
  glia_tensor *ct = nullptr, *crow = nullptr;
  GLIA_OK_(glia_transpose(c, 0, 1, &ct));
  keep(ct);
  GLIA_OK_(glia_select(c, 0, 2, &crow));
  keep(crow);
  glia_tensor_dict* cdict = nullptr;
  GLIA_OK_(glia_tensor_dict_create(&cdict));
  keep(cdict);
  GLIA_OK_(glia_tensor_dict_set(cdict, "a", c));
  GLIA_OK_(glia_tensor_dict_set(cdict, "t", ct));
  GLIA_OK_(glia_tensor_dict_set(cdict, "row", crow));
  void* cdata = nullptr;
  size_t csize = 0;
  GLIA_OK_(glia_tensor_dict_save_buffer(cdict, GLIA_FORMAT_TORCH, &cdata, &csize));
  ASSERT_EQ(size, csize);
  EXPECT_EQ(std::memcmp(data, cdata, size), 0);
  glia_buffer_free(cdata);
  glia_tensor_dict* back = nullptr;
  glia_error* e = glia_tensor_dict_load_buffer(data, size, GLIA_FORMAT_TORCH, &back);
  glia_buffer_free(data);
  ASSERT_EQ(e, nullptr) << glia_error_message(e);
  keep(back);
  for (auto& [k, t] : entries(back)) {
    glia_tensor* want = nullptr;
    GLIA_OK_(glia_tensor_dict_get(cdict, k.c_str(), &want));
    keep(want);
    EXPECT_EQ(bytes(t), bytes(want)) << k;
  }
}

// Module hooks and tensor hooks see (and may replace) device tensors; a custom autograd function
// runs its forward and backward on the device.
struct HookLog {
  int forward = 0, backward = 0, tensor = 0;
  bool all_on_device = true;
};

void note(HookLog* log, const glia_tensor* t) {
  if (!t) return;
  glia_device d{};
  if (glia_tensor_device(t, &d) != nullptr || d.type != GLIA_PRIVATEUSE1) log->all_on_device = false;
}

glia_error* forward_hook(void* ud, glia_module*, const glia_tensor* const* in, int64_t n_in,
                         const glia_tensor* const* out, int64_t n_out, glia_tensor**, int64_t, int64_t*) {
  auto* log = static_cast<HookLog*>(ud);
  ++log->forward;
  for (int64_t i = 0; i < n_in; ++i) note(log, in[i]);
  for (int64_t i = 0; i < n_out; ++i) note(log, out[i]);
  return nullptr;
}

glia_error* backward_hook(void* ud, glia_module*, const glia_tensor* const* gin, int64_t n_gin,
                          const glia_tensor* const* gout, int64_t n_gout, glia_tensor**, int64_t, int64_t*) {
  auto* log = static_cast<HookLog*>(ud);
  ++log->backward;
  for (int64_t i = 0; i < n_gin; ++i) note(log, gin[i]);
  for (int64_t i = 0; i < n_gout; ++i) note(log, gout[i]);
  return nullptr;
}

// Doubles the gradient (the replacement is made on the device by a device op).
glia_error* doubling_tensor_hook(void* ud, const glia_tensor* grad, glia_tensor** out) {
  auto* log = static_cast<HookLog*>(ud);
  ++log->tensor;
  note(log, grad);
  return glia_add(grad, grad, 1.0, out);
}

// y = x * x, saving x; backward: 2 * x * g.
glia_error* square_forward(void*, glia_autograd_ctx* ctx, const glia_tensor* const* in, int64_t, glia_tensor** out,
                           int64_t) {
  if (glia_error* e = glia_autograd_ctx_save_for_backward(ctx, in, 1)) return e;
  return glia_mul(in[0], in[0], out);
}

glia_error* square_backward(void*, glia_autograd_ctx* ctx, const glia_tensor* const* gout, int64_t, glia_tensor** gin,
                            int64_t) {
  glia_tensor* x = nullptr;
  int64_t n = 0;
  if (glia_error* e = glia_autograd_ctx_saved_tensors(ctx, &x, 1, &n)) return e;
  glia_tensor* xg = nullptr;
  glia_error* e = glia_mul(x, gout[0], &xg);
  glia_tensor_release(x);
  if (e) return e;
  e = glia_add(xg, xg, 1.0, gin);
  glia_tensor_release(xg);
  return e;
}

TEST_F(TrainingDevice, HooksAndCustomFunctionsRunOnTheDevice) {
  HookLog log;
  glia_module* dm = mlp(kDev0);
  glia_module* cm = mlp(kCpu);
  glia_module* first = nullptr;
  GLIA_OK_(glia_nn_sequential_get(dm, 0, &first));
  keep(first);
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_forward_hook(first, forward_hook, &log, nullptr, 0, &id));
  GLIA_OK_(glia_module_add_backward_hook(first, backward_hook, &log, nullptr, 0, &id));
  glia_tensor* x = ramp({2, 4}, 0.7f);
  glia_tensor* dx = to(x, kDev0);
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  GLIA_OK_(glia_tensor_set_requires_grad(dx, 1));
  // Through the custom square first, then the module; the output's grad doubled by a tensor hook.
  auto apply_square = [&](glia_tensor* in) {
    glia_autograd_function_def def;
    glia_autograd_function_def_init(&def);
    def.name = "Square";
    def.forward = square_forward;
    def.backward = square_backward;
    const glia_tensor* ins[1] = {in};
    glia_tensor* out = nullptr;
    EXPECT_OK_(glia_autograd_function_apply(&def, ins, 1, &out, 1));
    return keep(out);
  };
  glia_tensor* cs = apply_square(x);
  glia_tensor* ds = apply_square(dx);
  EXPECT_TRUE(on_device(ds));
  EXPECT_EQ(bytes(ds), bytes(cs));
  glia_tensor *cy = nullptr, *dy = nullptr;
  int64_t n = 0;
  GLIA_OK_(glia_module_forward(cm, const_cast<const glia_tensor* const*>(&cs), 1, &cy, 1, &n));
  keep(cy);
  GLIA_OK_(glia_module_forward(dm, const_cast<const glia_tensor* const*>(&ds), 1, &dy, 1, &n));
  keep(dy);
  EXPECT_EQ(log.forward, 1);
  EXPECT_EQ(bytes(dy), bytes(cy));
  HookLog cpu_log;
  GLIA_OK_(glia_tensor_register_hook(cy, doubling_tensor_hook, &cpu_log, nullptr, &id));
  GLIA_OK_(glia_tensor_register_hook(dy, doubling_tensor_hook, &log, nullptr, &id));
  glia_tensor* seed = ramp({2, 3}, 1.9f);
  GLIA_OK_(glia_tensor_backward(cy, seed, 0));
  GLIA_OK_(glia_tensor_backward(dy, to(seed, kDev0), 0));
  EXPECT_EQ(log.backward, 1);
  EXPECT_EQ(log.tensor, 1);
  EXPECT_TRUE(log.all_on_device);
  glia_tensor* g = grad_of(dx);
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(on_device(g));
  EXPECT_EQ(bytes(g), bytes(grad_of(x)));
  std::vector<glia_tensor*> dp = params(dm), cp = params(cm);
  for (size_t i = 0; i < dp.size(); ++i) EXPECT_EQ(bytes(grad_of(dp[i])), bytes(grad_of(cp[i])));
  char name[64];
  size_t len = 0;
  GLIA_OK_(glia_tensor_grad_fn_name(ds, name, sizeof name, &len));
  EXPECT_STREQ(name, "SquareBackward");
}

// A custom function whose backward returns its input's gradient on the CPU: torch's
// validate_outputs refuses it, naming the function, the index and both devices; a 0-dim gradient
// (here a CPU scalar for a 0-dim device input) is moved to the input's device instead.
glia_error* identity_forward(void*, glia_autograd_ctx*, const glia_tensor* const* in, int64_t, glia_tensor** out,
                             int64_t) {
  return glia_tensor_clone(in[0], out);
}

glia_error* cpu_grad_backward(void*, glia_autograd_ctx*, const glia_tensor* const* gout, int64_t, glia_tensor** gin,
                              int64_t) {
  int64_t ndim = 0;
  if (glia_error* e = glia_tensor_ndim(gout[0], &ndim)) return e;
  int64_t shape[8] = {};
  if (glia_error* e = glia_tensor_shape(gout[0], 8, shape)) return e;
  return glia_tensor_ones(shape, ndim, nullptr, gin);  // on the CPU, whatever the input's device
}

TEST_F(TrainingDevice, CustomFunctionGradientsMustBeOnTheInputsDevice) {
  glia_autograd_function_def def;
  glia_autograd_function_def_init(&def);
  def.name = "CpuGrad";
  def.forward = identity_forward;
  def.backward = cpu_grad_backward;
  glia_tensor* x = to(ramp({3}, 0.5f), kDev0);
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  const glia_tensor* ins[1] = {x};
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_autograd_function_apply(&def, ins, 1, &y, 1));
  keep(y);
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &s));
  keep(s);
  EXPECT_GLIA_MSG(glia_tensor_backward(s, nullptr, 0), GLIA_ERR_DEVICE,
                  "Function CpuGradBackward returned an invalid gradient at index 0 - expected device testdevice:0 "
                  "but got cpu");
  EXPECT_EQ(grad_of(x), nullptr);

  const int64_t one = 1;
  glia_tensor* h = nullptr;
  GLIA_OK_(glia_tensor_full(&one, 0, 3.0, nullptr, &h));  // 0-dim
  keep(h);
  glia_tensor* x0 = to(h, kDev0);
  GLIA_OK_(glia_tensor_set_requires_grad(x0, 1));
  const glia_tensor* ins0[1] = {x0};
  glia_tensor* y0 = nullptr;
  GLIA_OK_(glia_autograd_function_apply(&def, ins0, 1, &y0, 1));
  keep(y0);
  GLIA_OK_(glia_tensor_backward(y0, nullptr, 0));
  glia_tensor* g = grad_of(x0);
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(on_device(g));
  glia_tensor* one_h = nullptr;
  GLIA_OK_(glia_tensor_full(&one, 0, 1.0, nullptr, &one_h));
  keep(one_h);
  EXPECT_EQ(bytes(g), bytes(one_h));  // d(sum)/dx of the 0-dim ones the backward returned
}

}  // namespace
