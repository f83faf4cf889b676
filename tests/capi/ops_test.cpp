// The operators through the shared library: argument checking (NULL and dead
// handles, NULL outputs), in-place rules. The golden values of every op are
// checked by tests/ops/ (the op registry walk).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

using nlohmann::json;

const glia_device kCpu = {GLIA_CPU, 0};

// Owns the tensor handles of one test case.
struct Handles {
  std::vector<glia_tensor*> hs;
  glia_tensor* add(glia_tensor* t) {
    hs.push_back(t);
    return t;
  }
  ~Handles() {
    for (auto it = hs.rbegin(); it != hs.rend(); ++it) glia_error_free(glia_tensor_release(*it));
  }
};

glia_tensor* from_doubles(Handles& h, const std::vector<double>& v, const std::vector<int64_t>& shape) {
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(double), shape.data(),
                                        static_cast<int64_t>(shape.size()), GLIA_FLOAT64, &t);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return h.add(t);
}

std::vector<int64_t> shape_of(const glia_tensor* t) {
  int64_t nd = 0;
  EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
  std::vector<int64_t> v(static_cast<size_t>(nd));
  EXPECT_EQ(glia_tensor_shape(t, nd, v.data()), nullptr);
  return v;
}

glia_dtype dtype_of(const glia_tensor* t) {
  glia_dtype d = GLIA_FLOAT32;
  EXPECT_EQ(glia_tensor_dtype(t, &d), nullptr);
  return d;
}

// The elements as doubles (row-major), whatever the dtype.
std::vector<double> host(Handles& h, glia_tensor* t) {
  glia_tensor* f64 = nullptr;
  glia_error* e = glia_tensor_to(t, &kCpu, ptr_to(GLIA_FLOAT64), &f64);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  h.add(f64);
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(f64, &n), nullptr);
  std::vector<double> v(static_cast<size_t>(n));
  e = glia_tensor_copy_to_host(f64, v.data(), v.size() * sizeof(double));
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

// ------------------------------------------------------------------ the rest

glia_tensor* vec(Handles& h, std::vector<double> v) { return from_doubles(h, v, {static_cast<int64_t>(v.size())}); }

glia_tensor* typed(Handles& h, std::vector<double> v, glia_dtype d) {
  glia_tensor* t = nullptr;
  EXPECT_EQ(glia_tensor_to(vec(h, v), &kCpu, &d, &t), nullptr);
  return h.add(t);
}

TEST(Ops, ShapeMismatchMessage) {
  Handles h;
  const int64_t s23[] = {2, 3}, s24[] = {2, 4};
  glia_tensor *a = nullptr, *b = nullptr, *out = nullptr;
  GLIA_OK_(glia_tensor_zeros(s23, 2, nullptr, &a));
  h.add(a);
  GLIA_OK_(glia_tensor_zeros(s24, 2, nullptr, &b));
  h.add(b);
  glia_test::ErrorInfo info = glia_test::take(glia_add(a, b, 1.0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_SHAPE);
  EXPECT_NE(
      info.message.find("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
      std::string::npos)
      << info.message;
  EXPECT_EQ(out, nullptr);
}

TEST(Ops, InvalidHandlesAndArguments) {
  Handles h;
  glia_tensor* a = vec(h, {1, 2});
  glia_tensor* out = nullptr;
  glia_test::ErrorInfo info = glia_test::take(glia_add(nullptr, a, 1.0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_add: argument 'a' is NULL"), std::string::npos) << info.message;
  info = glia_test::take(glia_mul(a, nullptr, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_mul: argument 'b'"), std::string::npos) << info.message;
  info = glia_test::take(glia_sub(a, a, 1.0, nullptr));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("glia_sub: argument 'out' is NULL"), std::string::npos) << info.message;
  info = glia_test::take(glia_neg(a, nullptr));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("glia_neg: argument 'out'"), std::string::npos) << info.message;
  info = glia_test::take(glia_sum(a, nullptr, 1, 0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("glia_sum: argument 'dims' is NULL"), std::string::npos) << info.message;
  info = glia_test::take(glia_sum(a, nullptr, -1, 0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("'n_dims'"), std::string::npos) << info.message;
  info = glia_test::take(glia_add_(nullptr, a, 1.0));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_add_: argument 'self'"), std::string::npos) << info.message;
  info = glia_test::take(glia_mul_(a, nullptr));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_mul_: argument 'other'"), std::string::npos) << info.message;
  EXPECT_EQ(out, nullptr);

  glia_tensor* dead = nullptr;
  GLIA_OK_(glia_tensor_zeros(nullptr, 0, nullptr, &dead));
  GLIA_OK_(glia_tensor_release(dead));
  info = glia_test::take(glia_div(a, dead, nullptr, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_div: argument 'b' is not a live glia_"), std::string::npos) << info.message;
  EXPECT_EQ(out, nullptr);
}

TEST(Ops, InplaceAddAndMul) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2, 3});
  GLIA_OK_(glia_add_(x, vec(h, {10, 20, 30}), 0.5));
  EXPECT_EQ(host(h, x), std::vector<double>({6, 12, 18}));
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_tensor_full(nullptr, 0, 2.0, nullptr, &s));
  h.add(s);
  GLIA_OK_(glia_mul_(x, s));  // float32 0-dim into float64: fine
  EXPECT_EQ(host(h, x), std::vector<double>({12, 24, 36}));
  EXPECT_EQ(dtype_of(x), GLIA_FLOAT64);

  // Broadcasting may not grow self; a float result may not go into an integer tensor.
  const int64_t s23[] = {2, 3};
  glia_tensor* big = nullptr;
  GLIA_OK_(glia_tensor_ones(s23, 2, nullptr, &big));
  h.add(big);
  glia_test::ErrorInfo info = glia_test::take(glia_add_(x, big, 1.0));
  EXPECT_EQ(info.code, GLIA_ERR_SHAPE);
  EXPECT_NE(info.message.find("output with shape [3] doesn't match the broadcast shape [2, 3]"), std::string::npos)
      << info.message;
  glia_tensor* ints = typed(h, {1, 2, 3}, GLIA_INT64);
  info = glia_test::take(glia_mul_(ints, x));
  EXPECT_EQ(info.code, GLIA_ERR_DTYPE);
  EXPECT_NE(info.message.find("can't be cast to the desired output type"), std::string::npos) << info.message;
  EXPECT_EQ(host(h, ints), std::vector<double>({1, 2, 3}));
  GLIA_OK_(glia_add_(ints, typed(h, {1, 1, 1}, GLIA_UINT8), 2.0));
  EXPECT_EQ(host(h, ints), std::vector<double>({3, 4, 5}));
  EXPECT_EQ(dtype_of(ints), GLIA_INT64);

  glia_tensor* mask = typed(h, {1, 0, 1}, GLIA_BOOL);
  info = glia_test::take(glia_add_(mask, ints, 1.0));
  EXPECT_EQ(info.code, GLIA_ERR_DTYPE);
}

TEST(Ops, OutputsAreIndependentOfInputs) {
  Handles h;
  glia_tensor* a = vec(h, {1, 2});
  glia_tensor* out = nullptr;
  GLIA_OK_(glia_add(a, vec(h, {0, 0}), 1.0, &out));
  h.add(out);
  GLIA_OK_(glia_add_(a, vec(h, {5, 5}), 1.0));
  EXPECT_EQ(host(h, out), std::vector<double>({1, 2}));
}

}  // namespace
