// The backend ABI v2 and device dispatch, on the test device
// (libglia_testdevice.so, Note [Test device memory]): loading and status,
// copies both ways, ops whose kernels run on the device agreeing exactly with
// the CPU, torch's same-device rule, autograd across devices, and the errors
// for ops without a kernel, host access, injected out-of-memory and sticky
// device errors.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};
constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};
constexpr glia_device kDev1{GLIA_PRIVATEUSE1, 1};

// The test device's fault-injection entry points (dlsym on the loaded library).
template <class F>
F control(const char* name) {
  void* h = dlopen(GLIA_TESTDEVICE_PATH, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr) << "the test device is not loaded";
  F f = h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
  EXPECT_NE(f, nullptr) << name;
  if (h) dlclose(h);  // drops only the reference RTLD_NOLOAD added
  return f;
}

class TestDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (glia_tensor* t : owned_) glia_tensor_release(t);
    owned_.clear();
    if (auto live = control<int64_t (*)(int32_t)>("glia_testdevice_live_allocations")) {
      EXPECT_EQ(live(0), 0) << "device memory leaked";
      EXPECT_EQ(live(1), 0) << "device memory leaked";
    }
  }
  glia_tensor* keep(glia_tensor* t) {
    owned_.push_back(t);
    return t;
  }
  glia_tensor* host(const std::vector<float>& v, std::vector<int64_t> shape) {
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  glia_tensor* to(glia_tensor* t, glia_device d, glia_dtype dt = GLIA_FLOAT32) {
    glia_tensor* out = nullptr;
    glia_error* e = glia_tensor_to(t, &d, &dt, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  std::vector<float> values(glia_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float));
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return v;
  }
  glia_device device_of(glia_tensor* t) {
    glia_device d{};
    EXPECT_EQ(glia_tensor_device(t, &d), nullptr);
    return d;
  }
  std::vector<glia_tensor*> owned_;
};

TEST_F(TestDevice, StatusReportsDevicesAndReasons) {
  int32_t n = -1;
  char buf[256];
  size_t len = 0;
  GLIA_OK_(glia_backend_status(GLIA_PRIVATEUSE1, &n, buf, sizeof buf, &len));
  EXPECT_EQ(n, 2);
  EXPECT_STREQ(buf, "");
  GLIA_OK_(glia_backend_status(GLIA_CPU, &n, buf, sizeof buf, &len));
  EXPECT_EQ(n, 1);
  // Loading again by path is a no-op; an unknown type is refused.
  GLIA_OK_(glia_backend_load(GLIA_TESTDEVICE_PATH));
  EXPECT_GLIA_MSG(glia_backend_status(static_cast<glia_device_type>(7), &n, buf, sizeof buf, &len),
                  GLIA_ERR_INVALID_ARGUMENT, "unknown device type 7");
  // A library that is no backend stays refused with the reason.
  EXPECT_GLIA_MSG(glia_backend_load("/nonexistent/libnothing.so"), GLIA_ERR_NOT_FOUND, "libnothing.so");
}

TEST_F(TestDevice, CopiesRoundTripWithConversionAndStrides) {
  glia_tensor* x = host({1, 2, 3, 4, 5, 6}, {2, 3});
  glia_tensor* d = to(x, kDev1);
  glia_device dev = device_of(d);
  EXPECT_EQ(dev.type, GLIA_PRIVATEUSE1);
  EXPECT_EQ(dev.index, 1);
  EXPECT_EQ(values(d), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // A transposed view on the device, copied to the host, comes back in row-major order.
  glia_tensor* dt = nullptr;
  GLIA_OK_(glia_transpose(d, 0, 1, &dt));
  keep(dt);
  EXPECT_EQ(values(dt), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  // Device to device (another index) with a dtype conversion on the way.
  glia_tensor* d0 = to(dt, kDev0, GLIA_FLOAT64);
  glia_tensor* back = to(d0, kCpu, GLIA_FLOAT32);
  EXPECT_EQ(device_of(back).type, GLIA_CPU);
  EXPECT_EQ(values(back), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  double v = 0;
  glia_tensor* one = nullptr;
  GLIA_OK_(glia_select(d0, 0, 1, &one));
  keep(one);
  glia_tensor* one_el = nullptr;
  GLIA_OK_(glia_select(one, 0, 1, &one_el));
  keep(one_el);
  GLIA_OK_(glia_tensor_item_double(one_el, &v));
  EXPECT_EQ(v, 5.0);
}

TEST_F(TestDevice, PrintsTheDeviceAsTorchDoes) {
  glia_tensor* d = to(host({1.5f, -2}, {2}), kDev1);
  char buf[256];
  size_t len = 0;
  GLIA_OK_(glia_tensor_to_string(d, buf, sizeof buf, &len));
  EXPECT_STREQ(buf, "tensor([ 1.5000, -2.0000], device='testdevice:1')");
  glia_tensor* i = to(d, kDev1, GLIA_INT32);
  GLIA_OK_(glia_tensor_to_string(i, buf, sizeof buf, &len));
  EXPECT_STREQ(buf, "tensor([ 1, -2], device='testdevice:1', dtype=torch.int32)");
}

// The device result equals the CPU result bit for bit (the same kernels run on both).
TEST_F(TestDevice, ElementwiseOpsMatchTheCpu) {
  glia_tensor* a = host({1, -2, 3.5f, 4, -5, 6}, {2, 3});
  glia_tensor* b = host({2, 0.5f, -3}, {3});  // broadcast along the rows
  glia_tensor* da = to(a, kDev0);
  glia_tensor* db = to(b, kDev0);
  auto check = [&](const char* what, glia_error* (*op)(const glia_tensor*, const glia_tensor*, glia_tensor**)) {
    glia_tensor *c = nullptr, *d = nullptr;
    GLIA_OK_(op(a, b, &c));
    GLIA_OK_(op(da, db, &d));
    keep(c);
    keep(d);
    EXPECT_EQ(device_of(d).type, GLIA_PRIVATEUSE1) << what;
    EXPECT_EQ(values(d), values(c)) << what;
  };
  check("mul", &glia_mul);
  check("add", [](const glia_tensor* x, const glia_tensor* y, glia_tensor** o) { return glia_add(x, y, 2.5, o); });
  check("sub", [](const glia_tensor* x, const glia_tensor* y, glia_tensor** o) { return glia_sub(x, y, -1, o); });
  check("div", [](const glia_tensor* x, const glia_tensor* y, glia_tensor** o) { return glia_div(x, y, nullptr, o); });
  check("div floor",
        [](const glia_tensor* x, const glia_tensor* y, glia_tensor** o) { return glia_div(x, y, "floor", o); });
  check("div trunc",
        [](const glia_tensor* x, const glia_tensor* y, glia_tensor** o) { return glia_div(x, y, "trunc", o); });
  check("neg", [](const glia_tensor* x, const glia_tensor*, glia_tensor** o) { return glia_neg(x, o); });
  // Mixed dtypes promote on the device as on the CPU: int32 * float32 -> float32.
  glia_tensor* di = to(a, kDev0, GLIA_INT32);
  glia_tensor* m = nullptr;
  GLIA_OK_(glia_mul(di, db, &m));
  keep(m);
  glia_dtype dt{};
  GLIA_OK_(glia_tensor_dtype(m, &dt));
  EXPECT_EQ(dt, GLIA_FLOAT32);
  EXPECT_EQ(values(m), (std::vector<float>{2, -1, -9, 8, -2.5f, -18}));  // int32(3.5) = 3
}

TEST_F(TestDevice, CpuScalarsJoinDeviceOpsOtherCpuTensorsDoNot) {
  glia_tensor* d = to(host({1, 2, 3}, {3}), kDev0);
  float three = 3;
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_tensor_from_data(&three, sizeof three, nullptr, 0, GLIA_FLOAT32, &s));
  keep(s);
  glia_tensor* r = nullptr;
  GLIA_OK_(glia_mul(d, s, &r));  // a 0-dim CPU tensor is a scalar: allowed, as in torch
  keep(r);
  EXPECT_EQ(device_of(r).type, GLIA_PRIVATEUSE1);
  EXPECT_EQ(values(r), (std::vector<float>{3, 6, 9}));
  glia_tensor* c = host({1, 1, 1}, {3});
  glia_tensor* bad = nullptr;
  EXPECT_GLIA_MSG(glia_add(c, d, 1, &bad), GLIA_ERR_DEVICE,
                  "Expected all tensors to be on the same device, but found at least two devices, cpu and "
                  "testdevice:0!");
  glia_tensor* d1 = to(c, kDev1);
  EXPECT_GLIA_MSG(glia_mul(d, d1, &bad), GLIA_ERR_DEVICE, "testdevice:0 and testdevice:1");
  EXPECT_EQ(bad, nullptr);
}

TEST_F(TestDevice, HostReadsOfDeviceTensorsAreRefused) {
  glia_tensor* d = to(host({1, 2, 3}, {3}), kDev0);
  void* p = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_data(d, &p), GLIA_ERR_DEVICE, "testdevice:0");
  EXPECT_EQ(p, nullptr);
}

TEST_F(TestDevice, AutogradRunsOnTheDeviceAndBackAcrossACopy) {
  // x on the CPU, y = x.to(device); z = y * y + y; dz/dx = 2x + 1 arrives on the CPU.
  glia_tensor* x = host({1, -2, 3}, {3});
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* y = to(x, kDev0);
  glia_tensor *yy = nullptr, *z = nullptr;
  GLIA_OK_(glia_mul(y, y, &yy));
  keep(yy);
  GLIA_OK_(glia_add(yy, y, 1, &z));
  keep(z);
  glia_tensor* seed = to(host({1, 1, 1}, {3}), kDev0);
  GLIA_OK_(glia_tensor_backward(z, seed, 0));
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(x, &g));
  keep(g);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(device_of(g).type, GLIA_CPU);
  EXPECT_EQ(values(g), (std::vector<float>{3, -3, 7}));
  // A seed on another device is refused with torch's message.
  glia_tensor* z2 = nullptr;
  GLIA_OK_(glia_mul(y, y, &z2));
  keep(z2);
  EXPECT_GLIA_MSG(glia_tensor_backward(z2, host({1, 1, 1}, {3}), 0), GLIA_ERR_DEVICE,
                  "expected device testdevice:0 but got cpu");
}

TEST_F(TestDevice, InjectedOutOfMemoryFailsTheCallAndLeaksNothing) {
  glia_tensor* x = host({1, 2, 3, 4}, {4});
  auto fail_after = control<void (*)(int64_t)>("glia_testdevice_fail_alloc_after");
  ASSERT_NE(fail_after, nullptr);
  fail_after(0);
  glia_tensor* d = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_to(x, &kDev0, ptr_to(GLIA_FLOAT32), &d), GLIA_ERR_OUT_OF_MEMORY,
                  "out of memory (injected)");
  EXPECT_EQ(d, nullptr);
  // The second allocation of a device op fails: the first (a converted input) is given back.
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* di = to(x, kDev0, GLIA_INT32);
  fail_after(1);
  glia_tensor* r = nullptr;
  EXPECT_GLIA_ERR(glia_mul(dx, di, &r), GLIA_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(r, nullptr);
  fail_after(-1);
  GLIA_OK_(glia_mul(dx, di, &r));
  keep(r);
  EXPECT_EQ(values(r), (std::vector<float>{1, 4, 9, 16}));
}

TEST_F(TestDevice, StickyErrorsSurfaceUntilCleared) {
  glia_tensor* d = to(host({1, 2}, {2}), kDev0);
  auto sticky = control<void (*)(int)>("glia_testdevice_set_sticky_error");
  ASSERT_NE(sticky, nullptr);
  sticky(1);
  glia_tensor* r = nullptr;
  EXPECT_GLIA_MSG(glia_mul(d, d, &r), GLIA_ERR_DEVICE, "sticky error (injected)");
  EXPECT_GLIA_MSG(glia_device_synchronize(kDev0), GLIA_ERR_DEVICE, "sticky error");
  std::vector<float> v(2);
  EXPECT_GLIA_ERR(glia_tensor_copy_to_host(d, v.data(), sizeof(float) * 2), GLIA_ERR_DEVICE);
  sticky(0);
  GLIA_OK_(glia_device_synchronize(kDev0));
  GLIA_OK_(glia_mul(d, d, &r));
  keep(r);
  EXPECT_EQ(values(r), (std::vector<float>{1, 4}));
}

TEST_F(TestDevice, DevicesOutOfRangeAreRefused) {
  glia_tensor* x = host({1}, {1});
  glia_tensor* r = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_to(x, ptr_to(glia_device{GLIA_PRIVATEUSE1, 2}), ptr_to(GLIA_FLOAT32), &r),
                  GLIA_ERR_DEVICE, "device testdevice:2 is not available (the testdevice backend has 2 devices)");
  EXPECT_EQ(r, nullptr);
}

}  // namespace

namespace {

// Module.to(device) moves parameters in place (same handles) and back; a device that
// cannot hold tensors fails before anything moves.
TEST_F(TestDevice, ModulesMoveToTheDeviceAndBack) {
  glia_module* m = nullptr;
  GLIA_OK_(glia_nn_linear(3, 2, 1, nullptr, &m));
  glia_tensor_dict* params = nullptr;
  GLIA_OK_(glia_module_named_parameters(m, nullptr, 1, 1, &params));
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_tensor_dict_get(params, "weight", &w));
  keep(w);
  std::vector<float> before = values(w);
  GLIA_OK_(glia_module_to(m, &kDev1, nullptr));
  EXPECT_EQ(device_of(w).type, GLIA_PRIVATEUSE1);  // the same handle sees the moved data
  EXPECT_EQ(device_of(w).index, 1);
  EXPECT_EQ(values(w), before);
  const glia_device nowhere{GLIA_PRIVATEUSE1, 5};
  EXPECT_GLIA_MSG(glia_module_to(m, &nowhere, nullptr), GLIA_ERR_DEVICE, "testdevice:5 is not available");
  EXPECT_EQ(device_of(w).index, 1);
  const glia_dtype f64 = GLIA_FLOAT64;
  GLIA_OK_(glia_module_to(m, &kCpu, &f64));
  EXPECT_EQ(device_of(w).type, GLIA_CPU);
  std::vector<double> back(6);
  GLIA_OK_(glia_tensor_copy_to_host(w, back.data(), back.size() * sizeof(double)));
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(back[i], static_cast<double>(before[i]));
  GLIA_OK_(glia_tensor_dict_release(params));
  GLIA_OK_(glia_module_release(m));
}

}  // namespace

TEST_F(TestDevice, MemoryStatsArePerDevice) {
  glia_memory_stats cpu0{}, d0{}, d1{};
  cpu0.struct_size = d0.struct_size = d1.struct_size = sizeof(glia_memory_stats);
  GLIA_OK_(glia_memory_stats_get(&cpu0));
  GLIA_OK_(glia_device_memory_stats_get(kDev0, &d0));
  GLIA_OK_(glia_device_memory_stats_get(kDev1, &d1));
  glia_tensor* x = host(std::vector<float>(256, 1.0f), {256});  // 1 KiB on the CPU
  glia_memory_stats cpu_after_host{};
  cpu_after_host.struct_size = sizeof cpu_after_host;
  GLIA_OK_(glia_device_memory_stats_get(kCpu, &cpu_after_host));
  glia_tensor* dx = to(x, kDev0);
  glia_memory_stats a0{}, a1{}, acpu{};
  a0.struct_size = a1.struct_size = acpu.struct_size = sizeof(glia_memory_stats);
  GLIA_OK_(glia_device_memory_stats_get(kDev0, &a0));
  GLIA_OK_(glia_device_memory_stats_get(kDev1, &a1));
  GLIA_OK_(glia_memory_stats_get(&acpu));
  EXPECT_EQ(a0.bytes_in_use, d0.bytes_in_use + 1024);  // the copy lives on testdevice:0 ...
  EXPECT_EQ(a0.allocations, d0.allocations + 1);
  EXPECT_EQ(a1.bytes_in_use, d1.bytes_in_use);                // ... not on testdevice:1
  EXPECT_EQ(acpu.bytes_in_use, cpu_after_host.bytes_in_use);  // and not on the CPU
  EXPECT_GE(a0.peak_bytes_in_use, a0.bytes_in_use);
  GLIA_OK_(glia_tensor_release(dx));
  owned_.erase(std::find(owned_.begin(), owned_.end(), dx));
  GLIA_OK_(glia_device_memory_stats_get(kDev0, &a0));
  EXPECT_EQ(a0.bytes_in_use, d0.bytes_in_use);
  EXPECT_GE(a0.peak_bytes_in_use, d0.bytes_in_use + 1024);
  GLIA_OK_(glia_device_reset_peak_memory_stats(kDev0));
  GLIA_OK_(glia_device_memory_stats_get(kDev0, &a0));
  EXPECT_EQ(a0.peak_bytes_in_use, a0.bytes_in_use);
  GLIA_OK_(glia_device_empty_cache(kDev0));
  GLIA_OK_(glia_device_empty_cache(kCpu));

  EXPECT_GLIA_MSG(
      glia_device_memory_stats_get(glia_device{GLIA_PRIVATEUSE1, 5}, &a0), GLIA_ERR_DEVICE,
      "glia_device_memory_stats_get: device testdevice:5 is not available (the testdevice backend has 2 devices)");
  EXPECT_GLIA_ERR(glia_device_memory_stats_get(glia_device{GLIA_CUDA, 63}, &a0), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_device_reset_peak_memory_stats(glia_device{GLIA_CUDA, 63}), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_device_memory_stats_get(kDev0, nullptr), GLIA_ERR_INVALID_ARGUMENT);
}
