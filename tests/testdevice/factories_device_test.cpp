// Tensors the library makes for other tensors land on those tensors' devices
// (the factories of core/tensor.h take the device explicitly): autograd's
// zero-fills and the gradients it sends back, on the test device (Note [Test
// device memory]). The copy_ case failed before: the gradient was made on the
// wrong device.
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
    for (T t : owned_) glia_tensor_release(t);
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
