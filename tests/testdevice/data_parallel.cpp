// glia_nn_data_parallel (torch.nn.DataParallel, Note [DataParallel]) over the two devices of the
// test device: a replica per device on threads of their own, each fed its chunk of the batch. The
// reference is the same module on the CPU run on each chunk: outputs equal the chunks' outputs
// concatenated, gradients their sum, a few SGD steps the CPU model's steps; BatchNorm's running
// statistics follow replica 0's chunk (torch's rule); weight_norm's weight is computed per replica;
// hooks run once per replica on its device; a replica's error names it; torch's checks and messages.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
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
constexpr glia_device kDev1{GLIA_PRIVATEUSE1, 1};

class DataParallel : public ::testing::Test {
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
    void* h = dlopen(GLIA_TESTDEVICE_PATH, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(h, nullptr);
    auto live = reinterpret_cast<int64_t (*)(int32_t)>(dlsym(h, "glia_testdevice_live_allocations"));
    dlclose(h);
    ASSERT_NE(live, nullptr);
    EXPECT_EQ(live(0), 0) << "device 0 memory leaked";
    EXPECT_EQ(live(1), 0) << "device 1 memory leaked";
  }

  glia_tensor* keep(glia_tensor* t) {
    owned_.push_back(t);
    return t;
  }
  glia_module* keep(glia_module* m) {
    modules_.push_back(m);
    return m;
  }
  // Deterministic values in [-1, 1) on the CPU.
  glia_tensor* ramp(std::vector<int64_t> shape, float phase) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7f * static_cast<float>(i) + phase);
    glia_tensor* t = nullptr;
    EXPECT_OK_(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                     static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t));
    return keep(t);
  }
  static glia_device device_of(const glia_tensor* t) {
    glia_device d{};
    EXPECT_EQ(glia_tensor_device(t, &d), nullptr);
    return d;
  }
  static std::vector<int64_t> shape_of(const glia_tensor* t) {
    int64_t nd = 0;
    EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
    std::vector<int64_t> s(static_cast<size_t>(nd));
    EXPECT_EQ(glia_tensor_shape(t, nd, s.data()), nullptr);
    return s;
  }
  static std::vector<float> floats(const glia_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float));
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return v;
  }
  static void expect_close(const std::vector<float>& got, const std::vector<float>& want, double tol,
                           const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << what << " [" << i << "]";
  }
  glia_tensor* narrow(const glia_tensor* t, int64_t dim, int64_t start, int64_t len) {
    glia_tensor* out = nullptr;
    EXPECT_OK_(glia_narrow(t, dim, start, len, &out));
    return keep(out);
  }
  glia_tensor* cat(std::vector<glia_tensor*> ts, int64_t dim) {
    glia_tensor* out = nullptr;
    EXPECT_OK_(glia_cat(ts.data(), static_cast<int64_t>(ts.size()), dim, &out));
    return keep(out);
  }
  std::vector<glia_tensor*> forward(glia_module* m, std::vector<const glia_tensor*> in) {
    glia_tensor* outs[4] = {};
    int64_t n = 0;
    glia_error* e = glia_module_forward(m, in.data(), static_cast<int64_t>(in.size()), outs, 4, &n);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    glia_error_free(e);
    std::vector<glia_tensor*> r;
    for (int64_t i = 0; i < n; ++i) r.push_back(keep(outs[i]));
    return r;
  }
  glia_tensor* forward1(glia_module* m, const glia_tensor* x) {
    std::vector<glia_tensor*> r = forward(m, {x});
    return r.empty() ? nullptr : r[0];
  }
  // sum(out * w) for a fixed ramp w of out's shape: a loss whose gradient differs per element.
  glia_tensor* weighted_sum(glia_tensor* out) {
    glia_tensor* w = ramp(shape_of(out), 0.3f);
    glia_device d = device_of(out);
    glia_tensor* wd = nullptr;
    EXPECT_OK_(glia_tensor_to(w, &d, nullptr, &wd));
    keep(wd);
    glia_tensor *p = nullptr, *s = nullptr;
    EXPECT_OK_(glia_mul(out, wd, &p));
    keep(p);
    EXPECT_OK_(glia_sum(p, nullptr, 0, 0, &s));
    return keep(s);
  }
  // The parameters in named_parameters order.
  std::vector<glia_tensor*> params(glia_module* m) {
    glia_tensor_dict* d = nullptr;
    EXPECT_OK_(glia_module_named_parameters(m, nullptr, 1, 1, &d));
    dicts_.push_back(d);
    int64_t n = 0;
    EXPECT_OK_(glia_tensor_dict_size(d, &n));
    std::vector<glia_tensor*> ps;
    for (int64_t i = 0; i < n; ++i) {
      glia_tensor* t = nullptr;
      EXPECT_OK_(glia_tensor_dict_value_at(d, i, &t));
      ps.push_back(keep(t));
    }
    return ps;
  }
  std::vector<float> grad(glia_tensor* p) {
    glia_tensor* g = nullptr;
    EXPECT_OK_(glia_tensor_grad(p, &g));
    EXPECT_NE(g, nullptr);
    if (!g) return {};
    keep(g);
    return floats(g);
  }
  glia_module* dp(glia_module* inner, std::vector<glia_device> ids, const glia_device* output = nullptr,
                  int64_t dim = 0) {
    glia_module* m = nullptr;
    glia_error* e = glia_nn_data_parallel(inner, ids.data(), static_cast<int64_t>(ids.size()), output, dim, &m);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    glia_error_free(e);
    return m ? keep(m) : nullptr;
  }

  // Linear(5, 7) -> Tanh -> Linear(7, 3), initialised from `seed`, on `dev`.
  glia_module* mlp(glia_device dev, uint64_t seed = 11) {
    glia_manual_seed(seed);
    glia_module* parts[3] = {};
    EXPECT_OK_(glia_nn_linear(5, 7, 1, nullptr, &parts[0]));
    EXPECT_OK_(glia_nn_tanh(nullptr, &parts[1]));
    EXPECT_OK_(glia_nn_linear(7, 3, 1, nullptr, &parts[2]));
    glia_module* seq = nullptr;
    EXPECT_OK_(glia_nn_sequential(parts, 3, &seq));
    for (glia_module* m : parts) glia_module_release(m);
    keep(seq);
    EXPECT_OK_(glia_module_to(seq, &dev, nullptr));
    return seq;
  }

  std::vector<glia_tensor*> owned_;
  std::vector<glia_module*> modules_;
  std::vector<glia_tensor_dict*> dicts_;
  std::vector<glia_optimizer*> opts_;
};

TEST_F(DataParallel, OutputsAndGradientsAreThoseOfTheChunksOnTheCpu) {
  glia_module* ref = mlp(kCpu);
  glia_module* net = dp(mlp(kDev0), {kDev0, kDev1});
  glia_tensor* x = ramp({6, 5}, 0.1f);  // on the CPU: scattered from there, as torch allows

  glia_tensor* y = forward1(net, x);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(device_of(y).type, GLIA_PRIVATEUSE1);
  EXPECT_EQ(device_of(y).index, 0);
  EXPECT_EQ(shape_of(y), (std::vector<int64_t>{6, 3}));
  glia_tensor* want = cat({forward1(ref, narrow(x, 0, 0, 3)), forward1(ref, narrow(x, 0, 3, 3))}, 0);
  expect_close(floats(y), floats(want), 1e-6, "output");

  GLIA_OK_(glia_tensor_backward(weighted_sum(y), nullptr, 0));
  GLIA_OK_(glia_tensor_backward(weighted_sum(want), nullptr, 0));
  std::vector<glia_tensor*> ps = params(net), rs = params(ref);
  ASSERT_EQ(ps.size(), 4u);
  for (size_t i = 0; i < ps.size(); ++i) {
    EXPECT_EQ(device_of(ps[i]).index, 0);
    expect_close(grad(ps[i]), grad(rs[i]), 1e-5, "grad " + std::to_string(i));
  }
}

TEST_F(DataParallel, SgdStepsTrainAsTheCpuModelOnTheWholeBatch) {
  glia_module* ref = mlp(kCpu);
  glia_module* inner = mlp(kDev0);
  glia_module* net = dp(inner, {kDev0, kDev1});
  std::vector<glia_tensor*> ps = params(net), rs = params(ref);
  glia_optimizer *opt = nullptr, *ropt = nullptr;
  glia_sgd_options o;
  glia_sgd_options_init(&o);
  o.lr = 0.05;
  o.momentum = 0.9;
  GLIA_OK_(glia_optim_sgd(ps.data(), static_cast<int64_t>(ps.size()), &o, &opt));
  opts_.push_back(opt);
  GLIA_OK_(glia_optim_sgd(rs.data(), static_cast<int64_t>(rs.size()), &o, &ropt));
  opts_.push_back(ropt);
  for (int step = 0; step < 5; ++step) {
    glia_tensor* x = ramp({8, 5}, 0.2f * static_cast<float>(step));
    GLIA_OK_(glia_optimizer_zero_grad(opt, 1));
    GLIA_OK_(glia_optimizer_zero_grad(ropt, 1));
    GLIA_OK_(glia_tensor_backward(weighted_sum(forward1(net, x)), nullptr, 0));
    GLIA_OK_(glia_tensor_backward(weighted_sum(forward1(ref, x)), nullptr, 0));
    GLIA_OK_(glia_optimizer_step(opt));
    GLIA_OK_(glia_optimizer_step(ropt));
  }
  for (size_t i = 0; i < ps.size(); ++i) expect_close(floats(ps[i]), floats(rs[i]), 1e-5, "param " + std::to_string(i));
}

TEST_F(DataParallel, UnevenBatchesUseFewerReplicasAndOutputDeviceAndDimAreHonoured) {
  glia_module* ref = mlp(kCpu);
  // Batch 3 over 2 devices: chunks of 2 and 1 (torch.chunk); outputs gathered on the CPU.
  glia_module* net = dp(mlp(kDev0), {kDev0, kDev1}, &kCpu);
  glia_tensor* x = ramp({3, 5}, 0.4f);
  glia_tensor* y = forward1(net, x);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(device_of(y).type, GLIA_CPU);
  glia_tensor* want = cat({forward1(ref, narrow(x, 0, 0, 2)), forward1(ref, narrow(x, 0, 2, 1))}, 0);
  expect_close(floats(y), floats(want), 1e-6, "batch 3");
  // Batch 1: one chunk, one replica.
  glia_tensor* x1 = ramp({1, 5}, 0.5f);
  expect_close(floats(forward1(net, x1)), floats(forward1(ref, x1)), 1e-6, "batch 1");

  // dim = 1: the input [5, 4] is split into columns [5, 2] and [5, 2] of a module that works per column.
  glia_module* t_ref = nullptr;
  GLIA_OK_(glia_nn_tanh(nullptr, &t_ref));
  keep(t_ref);
  glia_module* t_in = nullptr;
  GLIA_OK_(glia_nn_tanh(nullptr, &t_in));
  keep(t_in);
  glia_module* cols = dp(t_in, {kDev0, kDev1}, nullptr, 1);
  glia_tensor* x2 = ramp({5, 4}, 0.6f);
  glia_tensor* y2 = forward1(cols, x2);
  EXPECT_EQ(shape_of(y2), (std::vector<int64_t>{5, 4}));
  expect_close(floats(y2), floats(forward1(t_ref, x2)), 1e-6, "dim 1");
}

TEST_F(DataParallel, BatchNormRunningStatisticsFollowReplicaZerosChunk) {
  glia_batch_norm_options bo;
  glia_batch_norm_options_init(&bo);
  glia_module *bn = nullptr, *ref_a = nullptr, *ref_b = nullptr;
  GLIA_OK_(glia_nn_batch_norm1d(4, &bo, nullptr, &bn));
  keep(bn);
  GLIA_OK_(glia_nn_batch_norm1d(4, &bo, nullptr, &ref_a));
  keep(ref_a);
  GLIA_OK_(glia_nn_batch_norm1d(4, &bo, nullptr, &ref_b));
  keep(ref_b);
  GLIA_OK_(glia_module_to(bn, &kDev0, nullptr));
  glia_module* net = dp(bn, {kDev0, kDev1});
  glia_tensor* x = ramp({8, 4}, 0.7f);
  glia_tensor* y = forward1(net, x);
  // Each replica normalises its own chunk with its own batch statistics.
  glia_tensor* want = cat({forward1(ref_a, narrow(x, 0, 0, 4)), forward1(ref_b, narrow(x, 0, 4, 4))}, 0);
  expect_close(floats(y), floats(want), 1e-6, "output");
  // The module's running statistics were updated by replica 0 only, from the first chunk.
  for (const char* name : {"running_mean", "running_var", "num_batches_tracked"}) {
    glia_tensor *got = nullptr, *exp = nullptr;
    GLIA_OK_(glia_module_get_buffer(bn, name, &got));
    keep(got);
    GLIA_OK_(glia_module_get_buffer(ref_a, name, &exp));
    keep(exp);
    EXPECT_EQ(device_of(got).index, 0) << name;
    if (std::strcmp(name, "num_batches_tracked") == 0) {
      int64_t g = 0, w = 0;
      GLIA_OK_(glia_tensor_copy_to_host(got, &g, sizeof g));
      GLIA_OK_(glia_tensor_copy_to_host(exp, &w, sizeof w));
      EXPECT_EQ(g, 1);
      EXPECT_EQ(g, w);
    } else {
      expect_close(floats(got), floats(exp), 1e-6, name);
    }
  }
}

TEST_F(DataParallel, WeightNormIsComputedPerReplicaAndItsGradientsSum) {
  glia_manual_seed(3);
  glia_module *lin = nullptr, *ref = nullptr;
  GLIA_OK_(glia_nn_linear(5, 3, 1, nullptr, &lin));
  keep(lin);
  glia_manual_seed(3);
  GLIA_OK_(glia_nn_linear(5, 3, 1, nullptr, &ref));
  keep(ref);
  GLIA_OK_(glia_nn_utils_weight_norm(lin, "weight", 0));
  GLIA_OK_(glia_nn_utils_weight_norm(ref, "weight", 0));
  GLIA_OK_(glia_module_to(lin, &kDev0, nullptr));
  glia_module* net = dp(lin, {kDev0, kDev1});
  glia_tensor* x = ramp({4, 5}, 0.8f);
  glia_tensor* y = forward1(net, x);
  glia_tensor* want = cat({forward1(ref, narrow(x, 0, 0, 2)), forward1(ref, narrow(x, 0, 2, 2))}, 0);
  expect_close(floats(y), floats(want), 1e-6, "output");
  GLIA_OK_(glia_tensor_backward(weighted_sum(y), nullptr, 0));
  GLIA_OK_(glia_tensor_backward(weighted_sum(want), nullptr, 0));
  for (const char* name : {"weight_g", "weight_v", "bias"}) {
    glia_tensor *p = nullptr, *r = nullptr;
    GLIA_OK_(glia_module_get_parameter(lin, name, &p));
    keep(p);
    GLIA_OK_(glia_module_get_parameter(ref, name, &r));
    keep(r);
    expect_close(grad(p), grad(r), 1e-5, name);
  }
  // The module's own computed weight stays on device 0 (the replicas computed theirs on the side).
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_module_get_tensor_attribute(lin, "weight", &w));
  keep(w);
  EXPECT_EQ(device_of(w).index, 0);
}

struct HookLog {
  std::mutex mu;
  std::vector<int32_t> devices;
  std::vector<std::thread::id> threads;
  int fail_on = -1;
};

glia_error* record_hook(void* user, glia_module*, const glia_tensor* const* inputs, int64_t, const glia_tensor* const*,
                        int64_t, glia_tensor**, int64_t, int64_t* out_count) {
  auto* log = static_cast<HookLog*>(user);
  glia_device d{};
  glia_error* e = glia_tensor_device(inputs[0], &d);
  if (e) return e;
  (void)out_count;  // left at -1: the outputs are kept
  {
    std::lock_guard<std::mutex> lock(log->mu);
    log->devices.push_back(d.index);
    log->threads.push_back(std::this_thread::get_id());
  }
  if (d.index == log->fail_on) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "this hook refuses device 1");
  return nullptr;
}

TEST_F(DataParallel, HooksRunOncePerReplicaOnItsThreadAndAReplicasErrorNamesIt) {
  glia_module* inner = mlp(kDev0);
  glia_module* net = dp(inner, {kDev0, kDev1});
  HookLog log;
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_forward_hook(inner, record_hook, &log, nullptr, 0, &id));
  glia_tensor* x = ramp({4, 5}, 0.9f);
  ASSERT_NE(forward1(net, x), nullptr);
  ASSERT_EQ(log.devices.size(), 2u);
  std::vector<int32_t> devs = log.devices;
  std::sort(devs.begin(), devs.end());
  EXPECT_EQ(devs, (std::vector<int32_t>{0, 1}));
  EXPECT_NE(log.threads[0], log.threads[1]);

  log.fail_on = 1;
  glia_tensor* outs[1] = {};
  int64_t n = 0;
  const glia_tensor* in[1] = {x};
  glia_error* e = glia_module_forward(net, in, 1, outs, 1, &n);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_CALLBACK);
  std::string msg = glia_error_message(e);
  EXPECT_EQ(msg.rfind("DataParallel: caught an error in replica 1 on device testdevice:1: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("this hook refuses device 1"), std::string::npos) << msg;
  glia_error_free(e);
  EXPECT_EQ(outs[0], nullptr);
  GLIA_OK_(glia_module_remove_hook(inner, id));
}

void collect(void* user, glia_log_level, const char* message) {
  static_cast<std::vector<std::string>*>(user)->push_back(message);
}

TEST_F(DataParallel, ScalarOutputsBecomeAVectorWithTorchsWarning) {
  glia_module* inner = mlp(kDev0);
  // A module whose output is 0-d: the MLP followed by a sum, through a forward hook.
  uint64_t id = 0;
  auto sum_hook = [](void*, glia_module*, const glia_tensor* const*, int64_t, const glia_tensor* const* outs, int64_t,
                     glia_tensor** repl, int64_t cap, int64_t* count) -> glia_error* {
    if (cap < 1) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "no room");
    *count = 1;
    return glia_sum(outs[0], nullptr, 0, 0, &repl[0]);
  };
  GLIA_OK_(glia_module_add_forward_hook(inner, sum_hook, nullptr, nullptr, 0, &id));
  glia_module* net = dp(inner, {kDev0, kDev1});
  std::vector<std::string> logs;
  GLIA_OK_(glia_set_log_callback(collect, GLIA_LOG_WARNING, &logs, nullptr));
  glia_tensor* y = forward1(net, ramp({4, 5}, 1.0f));
  GLIA_OK_(glia_set_log_callback(nullptr, GLIA_LOG_WARNING, nullptr, nullptr));
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(shape_of(y), (std::vector<int64_t>{2}));
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0],
            "Was asked to gather along dimension 0, but all input tensors were scalars; will instead unsqueeze and "
            "return a vector.");
}

TEST_F(DataParallel, StateDictKeysPassThroughAndNoGrad) {
  glia_module* net = dp(mlp(kDev0), {kDev0, kDev1});
  glia_tensor_dict* sd = nullptr;
  GLIA_OK_(glia_module_state_dict(net, &sd));
  dicts_.push_back(sd);
  char key[64];
  size_t len = 0;
  GLIA_OK_(glia_tensor_dict_key_at(sd, 0, key, sizeof key, &len));
  EXPECT_STREQ(key, "module.0.weight");

  // Under no_grad the replicas get plain copies and the output records nothing.
  glia_grad_mode_set(0);
  glia_tensor* y = forward1(net, ramp({4, 5}, 1.1f));
  glia_grad_mode_set(1);
  ASSERT_NE(y, nullptr);
  int32_t rg = 1;
  GLIA_OK_(glia_tensor_requires_grad(y, &rg));
  EXPECT_EQ(rg, 0);

  // No devices: the module is called as it is, on the CPU.
  glia_module* ref = mlp(kCpu);
  glia_module* pass = dp(mlp(kCpu), {});
  glia_tensor* x = ramp({3, 5}, 1.2f);
  expect_close(floats(forward1(pass, x)), floats(forward1(ref, x)), 0, "pass-through");
}

TEST_F(DataParallel, TorchsChecksAndMessages) {
  auto expect_error = [](glia_error* e, enum glia_error_code code, const std::string& msg) {
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(glia_error_code(e), code) << glia_error_message(e);
    EXPECT_EQ(glia_error_message(e), msg);
    glia_error_free(e);
  };
  glia_module* cpu_net = mlp(kCpu);
  glia_module* out = nullptr;
  glia_device ids_cpu[2] = {kCpu, kDev0};
  expect_error(glia_nn_data_parallel(cpu_net, ids_cpu, 2, nullptr, 0, &out), GLIA_ERR_DEVICE,
               "DataParallel: device_ids[0] is the CPU; DataParallel replicates over the devices of a backend (cuda or "
               "another loaded one), pass no device_ids to run on the CPU");
  glia_device ids_far[2] = {kDev0, {GLIA_PRIVATEUSE1, 2}};
  expect_error(glia_nn_data_parallel(cpu_net, ids_far, 2, nullptr, 0, &out), GLIA_ERR_DEVICE,
               "DataParallel: device_ids[1] is testdevice:2, but testdevice has 2 devices");
  glia_device ids_twice[2] = {kDev1, kDev1};
  expect_error(glia_nn_data_parallel(cpu_net, ids_twice, 2, nullptr, 0, &out), GLIA_ERR_INVALID_ARGUMENT,
               "DataParallel: device_ids[1] repeats device_ids[0] (testdevice:1)");
  expect_error(glia_nn_data_parallel(cpu_net, nullptr, 2, nullptr, 0, &out), GLIA_ERR_INVALID_ARGUMENT,
               "glia_nn_data_parallel: argument 'device_ids' is NULL with 2 devices");
  EXPECT_EQ(out, nullptr);

  // Parameters left on the CPU: torch's message at forward.
  glia_module* net = dp(cpu_net, {kDev0, kDev1});
  glia_tensor* outs[1] = {};
  int64_t n = 0;
  const glia_tensor* in[1] = {ramp({4, 5}, 0.0f)};
  expect_error(glia_module_forward(net, in, 1, outs, 1, &n), GLIA_ERR_DEVICE,
               "module must have its parameters and buffers on device testdevice:0 (device_ids[0]) but found one of "
               "them on device: cpu");
  // One device: the module is moved there at construction, as torch does.
  glia_module* one = dp(mlp(kCpu), {kDev1});
  glia_tensor* y = forward1(one, ramp({4, 5}, 0.0f));
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(device_of(y).index, 1);
}

}  // namespace
