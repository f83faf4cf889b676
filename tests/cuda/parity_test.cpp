// Training parity, CPU against CUDA (issue 16's "training-parity test", run by scripts/gpu-check.sh's
// parity-cuda stage through the ctest label cuda_parity): the W3 MLP and the W4 LeNet of
// ../shared/design/BENCHMARKS.md, built twice from the same seed (so with the same initial weights), one
// copy moved to cuda:0, then 20 train steps (forward, cross-entropy, zero_grad, backward, optimizer step) on
// the same batch on each device. The losses of every step and the final parameters must agree within a
// float32 tolerance: the GPU's kernels sum in other orders than the CPU's (cuBLAS, cuDNN, block
// reductions), so bits differ, but 20 steps must not drift apart. TF32 is off on both sides (glia's default
// for matmul; cuDNN's convolutions are switched to full float32 here when the C API offers the switch).
// Without a CUDA device every test is skipped, and says why.
// The same file built with GLIA_TESTDEVICE_PATH (testdevice_parity_tests, every CI run) trains the copy on
// testdevice:0 instead: the test device runs the CPU kernels on its own memory, so there the runs agree bit
// for bit, and the harness itself (moves, item, parameters read back from a device) is checked without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

#ifdef GLIA_TESTDEVICE_PATH
constexpr glia_device kDevice{GLIA_PRIVATEUSE1, 0};
constexpr double kTolerance = 0;  // the same CPU kernels on both sides: the same bits
#else
constexpr glia_device kDevice{GLIA_CUDA, 0};
constexpr double kTolerance = 1e-4;  // relative, of max(1, |value|)
#endif

void ok(glia_error* e) { ASSERT_EQ(e, nullptr) << glia_error_message(e); }

glia_module* seq(std::vector<glia_module*> mods) {
  glia_module* s = nullptr;
  EXPECT_EQ(glia_nn_sequential(mods.data(), static_cast<int64_t>(mods.size()), &s), nullptr);
  for (glia_module* m : mods) glia_module_release(m);
  return s;
}
glia_module* linear(int64_t in, int64_t out) {
  glia_module* m = nullptr;
  EXPECT_EQ(glia_nn_linear(in, out, 1, nullptr, &m), nullptr);
  return m;
}
glia_module* relu() {
  glia_module* m = nullptr;
  EXPECT_EQ(glia_nn_relu(nullptr, &m), nullptr);
  return m;
}
glia_module* conv(int64_t in, int64_t out, int64_t k, int64_t padding) {
  glia_nn_conv2d_options o;
  glia_nn_conv2d_options_init(&o);
  o.padding[0] = o.padding[1] = padding;
  glia_module* m = nullptr;
  EXPECT_EQ(glia_nn_conv2d(in, out, k, k, &o, nullptr, &m), nullptr);
  return m;
}
glia_module* max_pool(int64_t k) {
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  o.kernel_size[0] = o.kernel_size[1] = k;
  glia_module* m = nullptr;
  EXPECT_EQ(glia_nn_max_pool2d(&o, nullptr, &m), nullptr);
  return m;
}
glia_module* flatten() {
  glia_module* m = nullptr;
  EXPECT_EQ(glia_nn_flatten(1, -1, nullptr, &m), nullptr);
  return m;
}

enum class Net { kMlp, kLeNet };
enum class Opt { kSgdMomentum, kAdam };

// The network with glia_manual_seed(seed)'s initial weights (the same on every call with the same seed).
glia_module* make(Net net, uint64_t seed) {
  glia_manual_seed(seed);
  if (net == Net::kMlp) return seq({linear(784, 256), relu(), linear(256, 128), relu(), linear(128, 10)});
  return seq({conv(1, 6, 5, 2), relu(), max_pool(2), conv(6, 16, 5, 0), relu(), max_pool(2), flatten(),
              linear(400, 120), relu(), linear(120, 84), relu(), linear(84, 10)});
}

std::vector<glia_tensor*> parameters(glia_module* m) {
  glia_tensor_dict* d = nullptr;
  EXPECT_EQ(glia_module_named_parameters(m, nullptr, 1, 1, &d), nullptr);
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_dict_size(d, &n), nullptr);
  std::vector<glia_tensor*> ps(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(glia_tensor_dict_value_at(d, i, &ps[static_cast<size_t>(i)]), nullptr);
  glia_tensor_dict_release(d);
  return ps;
}

// A tensor's values as float32 on the host (any device).
std::vector<float> host_values(const glia_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
  const glia_device cpu{GLIA_CPU, 0};
  const glia_dtype f32 = GLIA_FLOAT32;
  glia_tensor* f = nullptr;
  EXPECT_EQ(glia_tensor_to(t, &cpu, &f32, &f), nullptr);
  std::vector<float> v(static_cast<size_t>(n));
  EXPECT_EQ(glia_tensor_copy_to_host(f, v.data(), v.size() * sizeof(float)), nullptr);
  glia_tensor_release(f);
  return v;
}

glia_tensor* on(glia_tensor* t, glia_device dev) {
  glia_tensor* out = nullptr;
  EXPECT_EQ(glia_tensor_to(t, &dev, nullptr, &out), nullptr);
  return out;
}

struct TrainRun {
  std::vector<double> losses;              // one per step
  std::vector<std::vector<float>> params;  // after the last step
};

// `steps` train steps of `model` on (x, target), both already on the model's device.
TrainRun train(glia_module* model, Opt which, glia_tensor* x, glia_tensor* target, int steps) {
  TrainRun r;
  glia_module* loss_fn = nullptr;
  EXPECT_EQ(glia_nn_cross_entropy_loss(nullptr, nullptr, &loss_fn), nullptr);
  std::vector<glia_tensor*> ps = parameters(model);
  glia_optimizer* opt = nullptr;
  if (which == Opt::kSgdMomentum) {
    glia_sgd_options o;
    glia_sgd_options_init(&o);
    o.lr = 0.01;
    o.momentum = 0.9;
    EXPECT_EQ(glia_optim_sgd(ps.data(), static_cast<int64_t>(ps.size()), &o, &opt), nullptr);
  } else {
    glia_adam_options o;
    glia_adam_options_init(&o);
    o.lr = 1e-3;
    EXPECT_EQ(glia_optim_adam(ps.data(), static_cast<int64_t>(ps.size()), &o, &opt), nullptr);
  }
  for (int s = 0; s < steps && opt; ++s) {
    glia_tensor* logits = nullptr;
    int64_t n = 0;
    EXPECT_EQ(glia_module_forward(model, &x, 1, &logits, 1, &n), nullptr);
    const glia_tensor* in[] = {logits, target};
    glia_tensor* loss = nullptr;
    EXPECT_EQ(glia_module_forward(loss_fn, in, 2, &loss, 1, &n), nullptr);
    EXPECT_EQ(glia_optimizer_zero_grad(opt, 1), nullptr);
    EXPECT_EQ(glia_tensor_backward(loss, nullptr, 0), nullptr);
    EXPECT_EQ(glia_optimizer_step(opt), nullptr);
    double v = NAN;
    EXPECT_EQ(glia_tensor_item_double(loss, &v), nullptr);
    r.losses.push_back(v);
    glia_tensor_release(loss);
    glia_tensor_release(logits);
  }
  for (glia_tensor* p : ps) {
    r.params.push_back(host_values(p));
    glia_tensor_release(p);
  }
  glia_optimizer_release(opt);
  glia_module_release(loss_fn);
  return r;
}

class DeviceParity : public ::testing::TestWithParam<std::tuple<Net, Opt>> {
 protected:
#ifdef GLIA_TESTDEVICE_PATH
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
#else
  void SetUp() override {
    int32_t n = 0;
    char why[512] = "";
    size_t len = 0;
    glia_error* e = glia_backend_status(GLIA_CUDA, &n, why, sizeof why, &len);
    glia_error_free(e);
    if (n == 0) GTEST_SKIP() << "skipped: no CUDA device (" << why << ")";
  }
#endif
};

TEST_P(DeviceParity, TwentyStepsAgree) {
  const auto [net, which] = GetParam();
  constexpr int kSteps = 20;
  constexpr int64_t kBatch = 64;
  glia_module* cpu_model = make(net, 0);
  glia_module* gpu_model = make(net, 0);
  ok(glia_module_to(gpu_model, &kDevice, nullptr));

  glia_manual_seed(1);
  std::vector<int64_t> shape =
      net == Net::kMlp ? std::vector<int64_t>{kBatch, 784} : std::vector<int64_t>{kBatch, 1, 28, 28};
  glia_tensor* x = nullptr;
  ok(glia_tensor_randn(shape.data(), static_cast<int64_t>(shape.size()), nullptr, &x));
  std::vector<int64_t> t(kBatch);
  for (int64_t i = 0; i < kBatch; ++i) t[static_cast<size_t>(i)] = (i * 7 + 3) % 10;
  glia_tensor* target = nullptr;
  ok(glia_tensor_from_data(t.data(), t.size() * sizeof(int64_t), &kBatch, 1, GLIA_INT64, &target));
  glia_tensor* gx = on(x, kDevice);
  glia_tensor* gtarget = on(target, kDevice);

  const TrainRun c = train(cpu_model, which, x, target, kSteps);
  const TrainRun g = train(gpu_model, which, gx, gtarget, kSteps);
  ASSERT_EQ(c.losses.size(), static_cast<size_t>(kSteps));
  ASSERT_EQ(g.losses.size(), static_cast<size_t>(kSteps));
  // The loss falls on both (the run trains at all) ...
  EXPECT_LT(c.losses.back(), c.losses.front());
  // ... and agrees step by step: float32 sums in other orders differ by ~1e-6 relative per step.
  for (int s = 0; s < kSteps; ++s)
    EXPECT_NEAR(g.losses[static_cast<size_t>(s)], c.losses[static_cast<size_t>(s)],
                kTolerance * std::max(1.0, std::fabs(c.losses[static_cast<size_t>(s)])))
        << "step " << s;
  ASSERT_EQ(c.params.size(), g.params.size());
  for (size_t i = 0; i < c.params.size(); ++i) {
    ASSERT_EQ(c.params[i].size(), g.params[i].size()) << "parameter " << i;
    double worst = 0, scale = 0;
    for (size_t k = 0; k < c.params[i].size(); ++k) {
      worst = std::max(worst, static_cast<double>(std::fabs(c.params[i][k] - g.params[i][k])));
      scale = std::max(scale, static_cast<double>(std::fabs(c.params[i][k])));
    }
    EXPECT_LE(worst, kTolerance * std::max(1.0, scale)) << "parameter " << i << " after " << kSteps << " steps";
  }
  glia_tensor_release(gx);
  glia_tensor_release(gtarget);
  glia_tensor_release(x);
  glia_tensor_release(target);
  glia_module_release(cpu_model);
  glia_module_release(gpu_model);
}

INSTANTIATE_TEST_SUITE_P(
    Nets, DeviceParity,
    ::testing::Values(std::make_tuple(Net::kMlp, Opt::kSgdMomentum), std::make_tuple(Net::kLeNet, Opt::kSgdMomentum),
                      std::make_tuple(Net::kMlp, Opt::kAdam), std::make_tuple(Net::kLeNet, Opt::kAdam)),
    [](const auto& info) {
      const Net net = std::get<0>(info.param);
      const Opt o = std::get<1>(info.param);
      return std::string(net == Net::kMlp ? "Mlp" : "LeNet") + (o == Opt::kSgdMomentum ? "SgdMomentum" : "Adam");
    });

}  // namespace
