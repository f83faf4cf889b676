// Tensors the library makes for other tensors land on those tensors' devices
// (the factories of core/tensor.h take the device explicitly): autograd's
// zero-fills and the gradients it sends back, on the test device (Note [Test
// device memory]). The copy_ and backward hook cases failed before: the
// gradient was made on the wrong device.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};
constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};

using T = glia_tensor*;
using CT = const glia_tensor*;

class FactoriesDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (glia_module* m : modules_) glia_module_release(m);
    for (T t : owned_) glia_tensor_release(t);
    modules_.clear();
    owned_.clear();
    void* h = dlopen(GLIA_TESTDEVICE_PATH, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(h, nullptr);
    auto live = reinterpret_cast<int64_t (*)(int32_t)>(dlsym(h, "glia_testdevice_live_allocations"));
    dlclose(h);
    ASSERT_NE(live, nullptr);
    EXPECT_EQ(live(0), 0) << "device memory leaked";
  }
  static void ok(glia_error* e) {
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    if (e) glia_error_free(e);
  }
  T keep(T t) {
    if (t) owned_.push_back(t);
    return t;
  }
  glia_module* keep(glia_module* m) {
    if (m) modules_.push_back(m);
    return m;
  }
  T host(const std::vector<float>& v, std::vector<int64_t> shape) {
    T t = nullptr;
    ok(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(), static_cast<int64_t>(shape.size()),
                             GLIA_FLOAT32, &t));
    return keep(t);
  }
  T to(CT t, glia_device d) {
    T out = nullptr;
    glia_dtype dt = GLIA_FLOAT32;
    ok(glia_tensor_to(t, &d, &dt, &out));
    return keep(out);
  }
  // A leaf that requires grad on `d` with the values v.
  T leaf(const std::vector<float>& v, std::vector<int64_t> shape, glia_device d) {
    T t = d.type == GLIA_CPU ? host(v, shape) : to(host(v, shape), d);
    ok(glia_tensor_set_requires_grad(t, 1));
    return t;
  }
  T zeros(std::vector<int64_t> shape, glia_device d) {
    glia_tensor_options o;
    glia_tensor_options_init(&o);
    o.device = d;
    T t = nullptr;
    ok(glia_tensor_zeros(shape.data(), static_cast<int64_t>(shape.size()), &o, &t));
    return keep(t);
  }
  T sum(CT t) {
    T out = nullptr;
    ok(glia_sum(t, nullptr, 0, 0, &out));
    return keep(out);
  }
  T grad_of(T t) {
    T g = nullptr;
    ok(glia_tensor_grad(t, &g));
    return keep(g);
  }
  static glia_device device_of(CT t) {
    glia_device d{};
    EXPECT_EQ(glia_tensor_device(t, &d), nullptr);
    return d;
  }
  static bool same(glia_device a, glia_device b) { return a.type == b.type && a.index == b.index; }
  static std::vector<float> floats(CT t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float));
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return v;
  }

  std::vector<T> owned_;
  std::vector<glia_module*> modules_;
};

// copy_ across devices: src's gradient goes back to src's device (torch's CopyBackwards:
// grad.to(src.options())), both ways; self's own gradient stays on self's device.
TEST_F(FactoriesDevice, CopyAcrossDevicesSendsTheGradientBackToTheSource) {
  for (bool src_on_cpu : {true, false}) {
    SCOPED_TRACE(src_on_cpu ? "cpu -> device" : "device -> cpu");
    const glia_device src_dev = src_on_cpu ? kCpu : kDev0, self_dev = src_on_cpu ? kDev0 : kCpu;
    T src = leaf({1, 2, 3, 4, 5, 6}, {2, 3}, src_dev);
    T self = zeros({2, 3}, self_dev);
    ok(glia_copy_(self, src));
    ok(glia_tensor_backward(sum(self), nullptr, 0));
    T g = grad_of(src);
    ASSERT_NE(g, nullptr);
    EXPECT_TRUE(same(device_of(g), src_dev));
    EXPECT_EQ(floats(g), std::vector<float>(6, 1.0f));
  }
}

// A full backward hook wraps the module's inputs in one node; an input the forward leaves unused
// gets no gradient, and the engine's zero-fill for it is made on the inputs' device, so its grad
// is zeros there (torch: zeros like the input).
glia_error* first_input_doubled(void*, glia_module*, const glia_tensor* const* in, int64_t, glia_tensor** outs, int64_t,
                                int64_t* n) {
  *n = 1;
  return glia_add(in[0], in[0], 1.0, outs);
}

struct Seen {
  int calls = 0;
  bool all_on_device = true;
};

glia_error* note_backward(void* ud, glia_module*, const glia_tensor* const* gin, int64_t n_gin,
                          const glia_tensor* const* gout, int64_t n_gout, glia_tensor**, int64_t, int64_t*) {
  auto* seen = static_cast<Seen*>(ud);
  ++seen->calls;
  auto note = [&](const glia_tensor* t) {
    glia_device d{};
    if (t && (glia_tensor_device(t, &d) != nullptr || d.type != GLIA_PRIVATEUSE1)) seen->all_on_device = false;
  };
  for (int64_t i = 0; i < n_gin; ++i) note(gin[i]);
  for (int64_t i = 0; i < n_gout; ++i) note(gout[i]);
  return nullptr;
}

TEST_F(FactoriesDevice, BackwardHookZeroFillsAnUnusedInputOnItsDevice) {
  glia_module_def def;
  glia_module_def_init(&def);
  def.forward = first_input_doubled;
  glia_module* m = nullptr;
  ok(glia_module_create("FirstInput", &def, &m));
  keep(m);
  Seen seen;
  uint64_t id = 0;
  ok(glia_module_add_backward_hook(m, note_backward, &seen, nullptr, 0, &id));
  T a = leaf({1, 2, 3}, {3}, kDev0), b = leaf({4, 5, 6}, {3}, kDev0);
  const glia_tensor* in[2] = {a, b};
  T out = nullptr;
  int64_t n = 0;
  ok(glia_module_forward(m, in, 2, &out, 1, &n));
  keep(out);
  ok(glia_tensor_backward(sum(out), nullptr, 0));
  EXPECT_EQ(seen.calls, 1);
  EXPECT_TRUE(seen.all_on_device);
  T ga = grad_of(a), gb = grad_of(b);
  ASSERT_NE(ga, nullptr);
  ASSERT_NE(gb, nullptr);
  EXPECT_TRUE(same(device_of(ga), kDev0));
  EXPECT_TRUE(same(device_of(gb), kDev0));
  EXPECT_EQ(floats(ga), std::vector<float>(3, 2.0f));
  EXPECT_EQ(floats(gb), std::vector<float>(3, 0.0f));
  // A second backward accumulates into b's grad on the device (a CPU grad there would be refused).
  T out2 = nullptr;
  ok(glia_module_forward(m, in, 2, &out2, 1, &n));
  keep(out2);
  ok(glia_tensor_backward(sum(out2), nullptr, 0));
  T gb2 = grad_of(b);
  ASSERT_NE(gb2, nullptr);
  EXPECT_TRUE(same(device_of(gb2), kDev0));
}

// dropout with p = 1 is x * 0 with the zero on x's device (torch: at::zeros({}, input.options())).
TEST_F(FactoriesDevice, DropoutOfOneIsZeroOnTheDevice) {
  T x = leaf({1, -2, 3, -4}, {2, 2}, kDev0);
  T y = nullptr;
  ok(glia_dropout(x, 1.0, 1, &y));
  keep(y);
  EXPECT_TRUE(same(device_of(y), kDev0));
  std::vector<float> v = floats(y);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_TRUE(std::signbit(v[1]) && std::signbit(v[3]) && !std::signbit(v[0]));  // x * 0 keeps the signs
  ok(glia_tensor_backward(sum(y), nullptr, 0));
  T g = grad_of(x);
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(same(device_of(g), kDev0));
  EXPECT_EQ(floats(g), std::vector<float>(4, 0.0f));
}

}  // namespace

// torch's validate_outputs: a 0-dim CPU tensor that took part in a device op (a wrapped scalar) gets
// its gradient back on the CPU, whether it is a leaf or an intermediate result of CPU ops; the
// device operand's gradient stays on the device. Also under create_graph (the move is differentiable).
TEST_F(FactoriesDevice, ZeroDimCpuOperandsGetTheirGradientsOnTheCpu) {
  for (int create_graph : {0, 1}) {
    SCOPED_TRACE(create_graph);
    T a = leaf({1, 2, 3}, {3}, kDev0);
    T s = leaf({2}, {}, kCpu);  // a 0-dim CPU leaf
    T x = leaf({0.5f}, {}, kCpu);
    T sx = nullptr;  // 0-dim CPU intermediate: s * x
    ok(glia_mul(s, x, &sx));
    keep(sx);
    T as = nullptr, asx = nullptr, y = nullptr;
    ok(glia_mul(a, s, &as));     // on the device
    ok(glia_mul(as, sx, &asx));  // on the device
    keep(as);
    keep(asx);
    y = sum(asx);
    ok(glia_autograd_backward(&y, 1, nullptr, create_graph, create_graph));
    T ga = grad_of(a), gs = grad_of(s), gx = grad_of(x);
    EXPECT_TRUE(same(device_of(ga), kDev0));
    EXPECT_TRUE(same(device_of(gs), kCpu));
    EXPECT_TRUE(same(device_of(gx), kCpu));
    // y = sum(a) * s^2 * x: dy/da = s^2 x = 2, dy/ds = 2 s x sum(a) = 12, dy/dx = s^2 sum(a) = 24.
    EXPECT_EQ(floats(ga), (std::vector<float>{2, 2, 2}));
    EXPECT_EQ(floats(gs), (std::vector<float>{12}));
    EXPECT_EQ(floats(gx), (std::vector<float>{24}));
    // create_graph: the grads hold graphs that reach their leaves (torch's reference cycle); break it.
    for (T t : {a, s, x}) ok(glia_tensor_set_grad(t, nullptr));
  }
}
