// Run by the ctest testdevice.missing_kernel with GLIA_TESTDEVICE_WITHOUT_KERNELS=embedding,mul: the
// test device then reports no kernel for those two (a backend's kernels are read once, when it loads,
// hence a process of its own). An op whose kernel a backend lacks fails with an error naming op and
// device: no read of device memory, no fallback to the CPU, nothing leaked.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};

glia_tensor* on_device(const std::vector<float>& v, std::vector<int64_t> shape, glia_dtype dt = GLIA_FLOAT32) {
  glia_tensor *h = nullptr, *d = nullptr;
  EXPECT_EQ(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(), static_cast<int64_t>(shape.size()),
                                  GLIA_FLOAT32, &h),
            nullptr);
  EXPECT_EQ(glia_tensor_to(h, &kDev0, &dt, &d), nullptr);
  glia_tensor_release(h);
  return d;
}

TEST(MissingKernel, OpsWithoutADeviceKernelFailCleanly) {
  ASSERT_STREQ(std::getenv("GLIA_TESTDEVICE_WITHOUT_KERNELS"), "embedding,mul");
  GLIA_OK_(glia_backend_load(GLIA_TESTDEVICE_PATH));
  glia_tensor* w = on_device({1, 2, 3, 4}, {2, 2});
  glia_tensor* idx = on_device({1, 0}, {2}, GLIA_INT64);
  glia_tensor* r = nullptr;
  EXPECT_GLIA_MSG(glia_embedding(w, idx, nullptr, nullptr, 2.0, &r), GLIA_ERR_UNSUPPORTED, "testdevice:0");
  EXPECT_EQ(r, nullptr);
  EXPECT_GLIA_MSG(glia_mul(w, w, &r), GLIA_ERR_UNSUPPORTED,
                  "'mul' is not implemented for device testdevice:0 (the testdevice backend has no kernel for it)");
  EXPECT_EQ(r, nullptr);
  GLIA_OK_(glia_add(w, w, 1.0, &r));  // the other kernels are there
  std::vector<float> v(4);
  GLIA_OK_(glia_tensor_copy_to_host(r, v.data(), v.size() * sizeof(float)));
  EXPECT_EQ(v, (std::vector<float>{2, 4, 6, 8}));
  glia_tensor_release(r);
  glia_tensor_release(idx);
  glia_tensor_release(w);
  void* h = dlopen(GLIA_TESTDEVICE_PATH, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr);
  auto live = reinterpret_cast<int64_t (*)(int32_t)>(dlsym(h, "glia_testdevice_live_allocations"));
  ASSERT_NE(live, nullptr);
  EXPECT_EQ(live(0), 0) << "device memory leaked";
}

}  // namespace
