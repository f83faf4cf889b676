// The special functions, elementwise math and activations of h-cuspecial (cuda/special.cu, elementwise_extra.cu,
// binary_extra.cu, activation_extra.cu) through the C API on cuda:0 (skipped without a device): what the golden
// cases do not run there. An integer fmod / remainder by zero is torch's ZeroDivisionError (a flag read back
// from the device); the integer ops, nextafter in float16 and bfloat16 (every pattern) and frexp give the
// CPU's bits, since no C library function differs there; the special functions agree with the CPU's to a few
// ulp on inputs that take every branch of their series (CUDA's libdevice against glibc inside them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCuda{GLIA_CUDA, 0};
constexpr glia_device kCpu{GLIA_CPU, 0};

class CudaSpecial : public ::testing::Test {
 protected:
  void SetUp() override {
    if (glia_cuda_device_count() == 0) GTEST_SKIP() << "skipped: no CUDA device";
  }
  void TearDown() override {
    for (glia_tensor* t : owned_) glia_tensor_release(t);
  }
  glia_tensor* made(const std::function<glia_error*(glia_tensor**)>& f) {
    glia_tensor* t = nullptr;
    if (glia_error* e = f(&t)) {
      ADD_FAILURE() << glia_error_message(e);
      glia_error_free(e);
      return nullptr;
    }
    if (t) owned_.push_back(t);
    return t;
  }
  // The raw elements `v` (of dtype d, T of its size) as a tensor of `shape` on `dev`.
  template <class T>
  glia_tensor* tensor(const std::vector<T>& v, std::vector<int64_t> shape, glia_dtype d, const glia_device& dev) {
    glia_tensor* h = made([&](glia_tensor** o) {
      return glia_tensor_from_data(v.data(), v.size() * sizeof(T), shape.data(), static_cast<int64_t>(shape.size()), d,
                                   o);
    });
    return made([&](glia_tensor** o) { return glia_tensor_to(h, &dev, &d, o); });
  }
  // A tensor's bytes on the host.
  std::vector<uint8_t> bytes(const glia_tensor* t) {
    glia_tensor* h = made([&](glia_tensor** o) { return glia_tensor_to(t, &kCpu, nullptr, o); });
    int64_t n = 0;
    glia_dtype d = GLIA_FLOAT32;
    EXPECT_EQ(glia_tensor_numel(h, &n), nullptr);
    EXPECT_EQ(glia_tensor_dtype(h, &d), nullptr);
    std::vector<uint8_t> v(static_cast<size_t>(n) * glia_dtype_size(d));
    if (h) EXPECT_EQ(glia_tensor_copy_to_host(h, v.data(), v.size()), nullptr);
    return v;
  }
  std::vector<double> doubles(const glia_tensor* t) {
    const glia_dtype d = GLIA_FLOAT64;
    glia_tensor* h = made([&](glia_tensor** o) { return glia_tensor_to(t, &kCpu, &d, o); });
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(h, &n), nullptr);
    std::vector<double> v(static_cast<size_t>(n));
    if (h) EXPECT_EQ(glia_tensor_copy_to_host(h, v.data(), v.size() * sizeof(double)), nullptr);
    return v;
  }
  std::vector<glia_tensor*> owned_;
};

using Binary = glia_error* (*)(const glia_tensor*, const glia_tensor*, glia_tensor**);
using Unary = glia_error* (*)(const glia_tensor*, glia_tensor**);

TEST_F(CudaSpecial, IntegerDivisionByZeroIsZeroDivisionError) {
  for (glia_dtype d : {GLIA_INT64, GLIA_INT32, GLIA_INT8, GLIA_UINT8}) {
    SCOPED_TRACE(d);
    glia_tensor* a = tensor(std::vector<int64_t>{7, 5, 9, 4}, {4}, GLIA_INT64, kCuda);
    glia_tensor* b = tensor(std::vector<int64_t>{2, 3, 0, 1}, {4}, GLIA_INT64, kCuda);
    glia_tensor *ad = made([&](glia_tensor**o) { return glia_tensor_to(a, &kCuda, &d, o); }),
                *bd = made([&](glia_tensor**o) { return glia_tensor_to(b, &kCuda, &d, o); });
    for (Binary f : {&glia_fmod, &glia_remainder}) {
      glia_tensor* out = nullptr;
      EXPECT_GLIA_MSG(f(ad, bd, &out), GLIA_ERR_INVALID_ARGUMENT, "ZeroDivisionError");
      EXPECT_EQ(out, nullptr);
    }
  }
  // A floating zero divisor is no error: NaN, as on the CPU.
  glia_tensor* x = tensor(std::vector<double>{1, -2}, {2}, GLIA_FLOAT64, kCuda);
  glia_tensor* z = tensor(std::vector<double>{0, 0}, {2}, GLIA_FLOAT64, kCuda);
  glia_tensor* r = made([&](glia_tensor** o) { return glia_fmod(x, z, o); });
  for (double v : doubles(r)) EXPECT_TRUE(std::isnan(v));
}

// Every int8 value against counts and divisors of every sign, broadcast [256, 1] x [k]: the CPU's bytes.
TEST_F(CudaSpecial, IntegerOpsGiveTheCpusBits) {
  std::vector<int8_t> a(256);
  for (int i = 0; i < 256; ++i) a[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
  const std::vector<int8_t> counts{-9, -1, 0, 1, 3, 6, 7, 8, 9, 127, -128};
  const std::vector<int8_t> divisors{-128, -7, -1, 1, 2, 5, 127};
  struct Case {
    const char* name;
    Binary f;
    const std::vector<int8_t>* b;
  };
  const Case cases[] = {{"left_shift", &glia_bitwise_left_shift, &counts},
                        {"right_shift", &glia_bitwise_right_shift, &counts},
                        {"bitwise_and", &glia_bitwise_and, &counts},
                        {"bitwise_or", &glia_bitwise_or, &counts},
                        {"bitwise_xor", &glia_bitwise_xor, &counts},
                        {"fmax", &glia_fmax, &counts},
                        {"fmin", &glia_fmin, &counts},
                        {"heaviside", &glia_heaviside, &counts},
                        {"fmod", &glia_fmod, &divisors},
                        {"remainder", &glia_remainder, &divisors}};
  for (glia_dtype d : {GLIA_INT8, GLIA_INT64, GLIA_UINT8}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + " " + std::to_string(d));
      const int64_t k = static_cast<int64_t>(c.b->size());
      glia_tensor* out[2] = {};
      for (int on = 0; on < 2; ++on) {
        const glia_device& dev = on ? kCuda : kCpu;
        glia_tensor* x8 = tensor(a, {256, 1}, GLIA_INT8, dev);
        glia_tensor* y8 = tensor(*c.b, {k}, GLIA_INT8, dev);
        glia_tensor *x = made([&](glia_tensor**o) { return glia_tensor_to(x8, &dev, &d, o); }),
                    *y = made([&](glia_tensor**o) { return glia_tensor_to(y8, &dev, &d, o); });
        out[on] = made([&](glia_tensor** o) { return c.f(x, y, o); });
      }
      EXPECT_EQ(bytes(out[0]), bytes(out[1]));
    }
  }
  glia_tensor* out[2] = {};
  for (int on = 0; on < 2; ++on) {
    glia_tensor* x = tensor(a, {256}, GLIA_INT8, on ? kCuda : kCpu);
    out[on] = made([&](glia_tensor** o) { return glia_bitwise_not(x, o); });
  }
  EXPECT_EQ(bytes(out[0]), bytes(out[1]));
}

// Every float16 and bfloat16 pattern stepped towards +-inf, 0 and 1: one unit in their own last place.
TEST_F(CudaSpecial, SixteenBitNextafterGivesTheCpusBits) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  for (glia_dtype d : {GLIA_FLOAT16, GLIA_BFLOAT16}) {
    SCOPED_TRACE(d);
    const std::vector<double> towards{INFINITY, -INFINITY, 0.0, 1.0};
    glia_tensor* out[2] = {};
    for (int on = 0; on < 2; ++on) {
      const glia_device& dev = on ? kCuda : kCpu;
      glia_tensor* x = tensor(all, {65536, 1}, d, dev);
      glia_tensor* t64 = tensor(towards, {4}, GLIA_FLOAT64, dev);
      glia_tensor* t = made([&](glia_tensor** o) { return glia_tensor_to(t64, &dev, &d, o); });
      out[on] = made([&](glia_tensor** o) { return glia_nextafter(x, t, o); });
    }
    EXPECT_EQ(bytes(out[0]), bytes(out[1]));
  }
}

TEST_F(CudaSpecial, FrexpGivesTheCpusBits) {
  std::vector<double> v{0.0, -0.0, 1.0, -1.5, 3e-310, -7e300, INFINITY, NAN, 0.75, 1e-5};
  for (int i = 0; i < 1000; ++i) v.push_back(std::ldexp(1.0 + i / 1000.0, (i % 200) - 100) * (i % 3 ? 1 : -1));
  const int64_t n = static_cast<int64_t>(v.size());
  for (glia_dtype d : {GLIA_FLOAT64, GLIA_FLOAT32, GLIA_BFLOAT16}) {
    SCOPED_TRACE(d);
    glia_tensor *m[2] = {}, *e[2] = {};
    for (int on = 0; on < 2; ++on) {
      const glia_device& dev = on ? kCuda : kCpu;
      glia_tensor* x64 = tensor(v, {n}, GLIA_FLOAT64, dev);
      glia_tensor* x = made([&](glia_tensor** o) { return glia_tensor_to(x64, &dev, &d, o); });
      glia_error* err = glia_frexp(x, &m[on], &e[on]);
      ASSERT_EQ(err, nullptr) << glia_error_message(err);
      owned_.push_back(m[on]);
      owned_.push_back(e[on]);
    }
    EXPECT_EQ(bytes(m[0]), bytes(m[1]));
    EXPECT_EQ(bytes(e[0]), bytes(e[1]));
  }
}

// float64 over inputs that reach every branch (reflection, recurrence, asymptotic series; power series and
// Hankel's expansion; the incomplete gamma's series and continued fraction): the CPU's values to ~1e-12.
TEST_F(CudaSpecial, SpecialFunctionsAgreeWithTheCpu) {
  std::vector<double> v;
  for (int i = 0; i < 400; ++i) v.push_back(-20.0 + 0.1234567 * i);
  const int64_t n = static_cast<int64_t>(v.size());
  std::vector<double> pos;
  for (double x : v) pos.push_back(std::fabs(x) + 0.01);
  std::vector<double> unit;
  for (int i = 0; i < n; ++i) unit.push_back(-0.999 + 1.998 * i / (n - 1));
  struct U {
    const char* name;
    Unary f;
    const std::vector<double>* in;
  };
  // lgamma on x > 0: libdevice documents larger errors than 4 ulp for x in (-23.0001, -2.2637).
  const U unary[] = {
      {"lgamma", &glia_lgamma, &pos}, {"digamma", &glia_digamma, &v},       {"erfinv", &glia_erfinv, &unit},
      {"i0", &glia_i0, &v},           {"special_i1", &glia_special_i1, &v}, {"sinc", &glia_sinc, &v},
      {"mish", &glia_mish, &v},       {"logsigmoid", &glia_logsigmoid, &v}, {"hardsigmoid", &glia_hardsigmoid, &v}};
  auto close = [](const std::vector<double>& a, const std::vector<double>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i]) || std::isinf(a[i])) {
        EXPECT_EQ(std::isnan(a[i]), std::isnan(b[i])) << what << " at " << i;
        if (std::isinf(a[i])) EXPECT_EQ(a[i], b[i]) << what << " at " << i;
        continue;
      }
      EXPECT_NEAR(a[i], b[i], 1e-11 * std::max(1.0, std::fabs(a[i]))) << what << " at " << i;
    }
  };
  for (const U& u : unary) {
    std::vector<double> r[2];
    for (int on = 0; on < 2; ++on) {
      glia_tensor* x = tensor(*u.in, {n}, GLIA_FLOAT64, on ? kCuda : kCpu);
      r[on] = doubles(made([&](glia_tensor** o) { return u.f(x, o); }));
    }
    close(r[0], r[1], u.name);
  }
  for (int64_t order : {2, 3, 5}) {
    std::vector<double> r[2];
    for (int on = 0; on < 2; ++on) {
      glia_tensor* x = tensor(pos, {n}, GLIA_FLOAT64, on ? kCuda : kCpu);
      r[on] = doubles(made([&](glia_tensor** o) { return glia_polygamma(order, x, o); }));
    }
    close(r[0], r[1], "polygamma");
  }
  const Binary binary[] = {&glia_igamma, &glia_igammac, &glia_logaddexp, &glia_atan2, &glia_hypot};
  for (Binary f : binary) {
    std::vector<double> r[2];
    for (int on = 0; on < 2; ++on) {
      const glia_device& dev = on ? kCuda : kCpu;
      glia_tensor* a = tensor(std::vector<double>{0.5, 2.0, 7.5, 30.0}, {4, 1}, GLIA_FLOAT64, dev);
      glia_tensor* x = tensor(pos, {n}, GLIA_FLOAT64, dev);
      r[on] = doubles(made([&](glia_tensor** o) { return f(a, x, o); }));
    }
    close(r[0], r[1], "binary");
  }
}

}  // namespace
