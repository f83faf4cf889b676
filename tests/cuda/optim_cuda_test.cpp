// The optimizer steps on cuda:0 (cuda/optim.cu): every torch.optim algorithm glia has (but LBFGS, which is
// built from ops), with the options that switch each branch of its update, steps parameters on the GPU as
// on the CPU, bit for bit: both devices run cuda/optim_ops.h's per-element functions, and the GPU's products
// and sums are never contracted into fused multiply-adds (Note [Optimizer updates without contraction]).
// float32 and float64 parameters take the kernels directly; bfloat16 and float16 ones go through the core's
// float64 working copies (copy kernels), as on the CPU. The state (state_dict) must agree too. Skipped
// without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCuda{GLIA_CUDA, 0};
constexpr glia_device kCpu{GLIA_CPU, 0};

using Bytes = std::vector<unsigned char>;
using Make = std::function<glia_error*(glia_tensor* const*, int64_t, glia_optimizer**)>;

struct OptCase {
  std::string name;
  Make make;
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
  cases.push_back({"adamw amsgrad", adam(true, 0.05, 1, 0)});
  auto rmsprop = [](double momentum, int centered, double wd, int maximize) {
    return [=](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
      glia_rmsprop_options o;
      glia_rmsprop_options_init(&o);
      o.lr = 0.01;
      o.momentum = momentum;
      o.centered = centered;
      o.weight_decay = wd;
      o.maximize = maximize;
      return glia_optim_rmsprop(ps, n, &o, out);
    };
  };
  cases.push_back({"rmsprop", rmsprop(0, 0, 0, 0)});
  cases.push_back({"rmsprop centered", rmsprop(0, 1, 0, 0)});
  cases.push_back({"rmsprop momentum weight_decay maximize", rmsprop(0.5, 0, 0.01, 1)});
  cases.push_back({"rmsprop centered momentum", rmsprop(0.5, 1, 0, 0)});
  cases.push_back({"adadelta weight_decay maximize", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_adadelta_options o;
                     glia_adadelta_options_init(&o);
                     o.weight_decay = 0.01;
                     o.maximize = 1;
                     return glia_optim_adadelta(ps, n, &o, out);
                   }});
  cases.push_back({"adagrad lr_decay initial_accumulator_value weight_decay",
                   [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_adagrad_options o;
                     glia_adagrad_options_init(&o);
                     o.lr_decay = 0.1;
                     o.initial_accumulator_value = 0.2;
                     o.weight_decay = 0.01;
                     return glia_optim_adagrad(ps, n, &o, out);
                   }});
  cases.push_back({"adamax weight_decay maximize", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_adamax_options o;
                     glia_adamax_options_init(&o);
                     o.weight_decay = 0.01;
                     o.maximize = 1;
                     return glia_optim_adamax(ps, n, &o, out);
                   }});
  cases.push_back({"asgd averaging", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_asgd_options o;
                     glia_asgd_options_init(&o);
                     o.t0 = 1;  // averaging from the second step on
                     o.lambd = 0.01;
                     o.weight_decay = 0.01;
                     return glia_optim_asgd(ps, n, &o, out);
                   }});
  cases.push_back({"nadam weight_decay", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_nadam_options o;
                     glia_nadam_options_init(&o);
                     o.weight_decay = 0.01;
                     return glia_optim_nadam(ps, n, &o, out);
                   }});
  cases.push_back({"radam weight_decay", [](glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
                     glia_radam_options o;
                     glia_radam_options_init(&o);
                     o.betas[1] = 0.9;  // rho_t > 5 from step 6: unrectified, then rectified steps
                     o.weight_decay = 0.01;
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

class CudaOptim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (glia_cuda_device_count() == 0) GTEST_SKIP() << "skipped: no CUDA device";
  }
  void TearDown() override {
    for (glia_optimizer* o : opts_) glia_optimizer_release(o);
    for (glia_tensor_dict* d : dicts_) glia_tensor_dict_release(d);
    for (glia_tensor* t : owned_) glia_tensor_release(t);
  }
  glia_tensor* keep(glia_tensor* t) {
    owned_.push_back(t);
    return t;
  }
  // Deterministic values (sin of a ramp with a phase), as float64 on the host, then `dt` on `d`.
  glia_tensor* values(const std::vector<int64_t>& shape, double phase, glia_dtype dt, glia_device d) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7 * static_cast<double>(i) + phase);
    glia_tensor *h = nullptr, *t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(double), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_FLOAT64, &h);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    keep(h);
    e = glia_tensor_to(h, &d, &dt, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  // The elements as the host sees them (a copy from the device), with the dtype.
  static Bytes bytes(const glia_tensor* t) {
    glia_dtype dt{};
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_dtype(t, &dt), nullptr);
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    Bytes b(static_cast<size_t>(n) * glia_dtype_size(dt));
    glia_error* e = glia_tensor_copy_to_host(t, b.data(), b.size());
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    b.push_back(static_cast<unsigned char>(dt));
    return b;
  }
  // A state dict's entries: keys and elements.
  std::vector<std::pair<std::string, Bytes>> state(glia_optimizer* o) {
    glia_tensor_dict* d = nullptr;
    glia_error* e = glia_optimizer_state_dict(o, &d);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    std::vector<std::pair<std::string, Bytes>> out;
    if (!d) return out;
    dicts_.push_back(d);
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_dict_size(d, &n), nullptr);
    for (int64_t i = 0; i < n; ++i) {
      char key[256];
      size_t len = 0;
      EXPECT_EQ(glia_tensor_dict_key_at(d, i, key, sizeof key, &len), nullptr);
      glia_tensor* v = nullptr;
      EXPECT_EQ(glia_tensor_dict_value_at(d, i, &v), nullptr);
      keep(v);
      out.emplace_back(key, bytes(v));
    }
    return out;
  }
  std::vector<glia_optimizer*> opts_;
  std::vector<glia_tensor_dict*> dicts_;
  std::vector<glia_tensor*> owned_;
};

TEST_F(CudaOptim, EveryOptimizerStepsAsOnTheCpu) {
  const std::vector<std::vector<int64_t>> shapes{{4, 5}, {7}, {}};
  const std::pair<glia_dtype, const char*> dtypes[] = {
      {GLIA_FLOAT32, "float32"}, {GLIA_FLOAT64, "float64"}, {GLIA_BFLOAT16, "bfloat16"}, {GLIA_FLOAT16, "float16"}};
  for (const auto& [dt, dt_name] : dtypes) {
    for (const OptCase& c : optimizer_cases()) {
      SCOPED_TRACE(c.name + " " + dt_name);
      std::vector<glia_tensor*> cp, dp;
      for (size_t k = 0; k < shapes.size(); ++k) {
        cp.push_back(values(shapes[k], 0.3 * static_cast<double>(k), dt, kCpu));
        dp.push_back(values(shapes[k], 0.3 * static_cast<double>(k), dt, kCuda));
        GLIA_OK_(glia_tensor_set_requires_grad(cp.back(), 1));
        GLIA_OK_(glia_tensor_set_requires_grad(dp.back(), 1));
      }
      glia_optimizer *co = nullptr, *dopt = nullptr;
      GLIA_OK_(c.make(cp.data(), static_cast<int64_t>(cp.size()), &co));
      opts_.push_back(co);
      GLIA_OK_(c.make(dp.data(), static_cast<int64_t>(dp.size()), &dopt));
      opts_.push_back(dopt);
      for (int step = 0; step < 7; ++step) {
        for (size_t k = 0; k < shapes.size(); ++k) {
          const double phase = 1.1 * step + 0.5 * static_cast<double>(k);
          GLIA_OK_(glia_tensor_set_grad(cp[k], values(shapes[k], phase, dt, kCpu)));
          GLIA_OK_(glia_tensor_set_grad(dp[k], values(shapes[k], phase, dt, kCuda)));
        }
        GLIA_OK_(glia_optimizer_step(co));
        GLIA_OK_(glia_optimizer_step(dopt));
        for (size_t k = 0; k < shapes.size(); ++k)
          ASSERT_EQ(bytes(dp[k]), bytes(cp[k])) << "parameter " << k << " after step " << step + 1;
      }
      EXPECT_EQ(state(dopt), state(co));
    }
  }
}

}  // namespace
