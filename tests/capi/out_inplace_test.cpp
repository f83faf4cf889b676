// glia_tensor_write_out (torch's out= rule), glia_tensor_assign_ (generic in-place write with
// autograd) and glia_tensor_set_geometry_ (metadata in place), with torch 1.13's messages.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

glia_tensor* vec(std::vector<double> v, std::vector<int64_t> shape = {}) {
  glia_tensor* t = nullptr;
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  EXPECT_EQ(glia_tensor_from_data(v.data(), v.size() * sizeof(double), shape.data(), static_cast<int64_t>(shape.size()),
                                  GLIA_FLOAT64, &t),
            nullptr);
  return t;
}

std::vector<double> values(const glia_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
  std::vector<double> v(static_cast<size_t>(n));
  EXPECT_EQ(glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(double)), nullptr);
  return v;
}

std::vector<int64_t> shape(const glia_tensor* t) {
  int64_t nd = 0;
  EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
  std::vector<int64_t> s(static_cast<size_t>(nd));
  EXPECT_EQ(glia_tensor_shape(t, nd, s.data()), nullptr);
  return s;
}

int64_t version(const glia_tensor* t) {
  int64_t v = -1;
  EXPECT_EQ(glia_tensor_version(t, &v), nullptr);
  return v;
}

glia_tensor* zeros_i64(int64_t n) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = GLIA_INT64;
  glia_tensor* t = nullptr;
  EXPECT_EQ(glia_tensor_zeros(&n, 1, &o, &t), nullptr);
  return t;
}

std::string grad_fn(const glia_tensor* t) {
  char buf[128];
  size_t n = 0;
  EXPECT_EQ(glia_tensor_grad_fn_name(t, buf, sizeof buf, &n), nullptr);
  return buf;
}

std::vector<std::string> g_logged;
void record_log(void*, enum glia_log_level level, const char* message) {
  if (level == GLIA_LOG_WARNING) g_logged.push_back(message);
}

TEST(OutWrite, WritesResizesAndWarns) {
  glia_tensor *a = vec({0.0, 1.0}), *r = nullptr;
  GLIA_OK_(glia_exp(a, &r));
  glia_tensor* out = vec({7, 7, 7});
  int64_t v0 = version(out);
  g_logged.clear();
  GLIA_OK_(glia_set_log_callback(record_log, GLIA_LOG_WARNING, nullptr, nullptr));
  int32_t resized = 0;
  GLIA_OK_(glia_tensor_write_out(out, r, &a, 1, "exp", &resized));
  GLIA_OK_(glia_set_log_callback(nullptr, GLIA_LOG_WARNING, nullptr, nullptr));
  EXPECT_EQ(resized, 1);
  EXPECT_EQ(shape(out), (std::vector<int64_t>{2}));
  EXPECT_EQ(values(out), values(r));
  EXPECT_GT(version(out), v0);
  ASSERT_EQ(g_logged.size(), 1u);
  EXPECT_EQ(g_logged[0].rfind("An output with one or more elements was resized since it had shape [3], which does not "
                              "match the required output shape [2]. This behavior is deprecated",
                              0),
            0u)
      << g_logged[0];
  // The same shape: no resize, no warning.
  GLIA_OK_(glia_tensor_write_out(out, a, nullptr, 0, "exp", &resized));
  EXPECT_EQ(resized, 0);
  EXPECT_EQ(values(out), (std::vector<double>{0.0, 1.0}));
  for (auto* t : {a, r, out}) glia_tensor_release(t);
}

TEST(OutWrite, RefusesCastsOverlapAndGradients) {
  glia_tensor *a = vec({0.5, 1.5, 2.5, 3.5}), *out = zeros_i64(4), *lhs = nullptr, *rhs = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_write_out(out, a, nullptr, 0, "add", nullptr), GLIA_ERR_DTYPE,
                  "result type Double can't be cast to the desired output type Long");
  EXPECT_EQ(version(out), 0);
  // out = a[1:], input a[:3]: partial overlap.
  GLIA_OK_(glia_narrow(a, 0, 1, 3, &lhs));
  GLIA_OK_(glia_narrow(a, 0, 0, 3, &rhs));
  EXPECT_GLIA_MSG(glia_tensor_write_out(lhs, rhs, &rhs, 1, "exp", nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                  "single memory location. Please clone() the tensor before performing the operation.");
  EXPECT_EQ(values(a), (std::vector<double>{0.5, 1.5, 2.5, 3.5}));
  // Gradients: an input that requires grad makes the result require grad.
  glia_tensor *w = vec({1, 2, 3, 4}), *y = nullptr, *o2 = vec({0, 0, 0, 0});
  GLIA_OK_(glia_tensor_set_requires_grad(w, 1));
  GLIA_OK_(glia_exp(w, &y));
  EXPECT_GLIA_MSG(glia_tensor_write_out(o2, y, &w, 1, "exp", nullptr), GLIA_ERR_STATE,
                  "exp(): functions with out=... arguments don't support automatic differentiation, but one of the "
                  "arguments requires grad.");
  glia_grad_mode_set(0);
  GLIA_OK_(glia_tensor_write_out(o2, y, &w, 1, "exp", nullptr));  // no_grad: allowed
  glia_grad_mode_set(1);
  for (auto* t : {a, out, lhs, rhs, w, y, o2}) glia_tensor_release(t);
}

TEST(InplaceAssign, RebasesHistoryAndChecksLeaves) {
  glia_tensor *w = vec({0.5, -1.0}), *x = nullptr, *r = nullptr, *xc = nullptr;
  GLIA_OK_(glia_tensor_set_requires_grad(w, 1));
  EXPECT_GLIA_MSG(glia_tensor_assign_(w, w, "exp_"), GLIA_ERR_STATE,
                  "a leaf Variable that requires grad is being used in an in-place operation.");
  GLIA_OK_(glia_mul_scalar(w, glia_scalar_float(2.0), &x));
  GLIA_OK_(glia_tensor_clone(x, &xc));
  GLIA_OK_(glia_exp(xc, &r));
  int64_t v0 = version(x);
  GLIA_OK_(glia_tensor_assign_(x, r, "exp_"));
  EXPECT_EQ(version(x), v0 + 1);
  EXPECT_EQ(grad_fn(x), "ExpBackward0");
  glia_tensor* seed = vec({1.0, 1.0});
  GLIA_OK_(glia_tensor_backward(x, seed, 0));
  glia_tensor_release(seed);
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(w, &g));
  std::vector<double> gv = values(g);
  EXPECT_NEAR(gv[0], 2 * std::exp(1.0), 1e-12);
  EXPECT_NEAR(gv[1], 2 * std::exp(-2.0), 1e-12);
  // Shape and dtype rules.
  glia_tensor *l = zeros_i64(2), *two = vec({1, 2, 3, 4}, {2, 2});
  EXPECT_GLIA_MSG(glia_tensor_assign_(l, xc, "sigmoid_"), GLIA_ERR_DTYPE,
                  "result type Double can't be cast to the desired output type Long");
  EXPECT_GLIA_MSG(glia_tensor_assign_(xc, two, "atan2_"), GLIA_ERR_SHAPE,
                  "output with shape [2] doesn't match the broadcast shape [2, 2]");
  for (auto* t : {w, x, r, xc, g, l, two}) glia_tensor_release(t);
}

TEST(InplaceGeometry, TakesTheViewsShapeAndHistory) {
  glia_tensor *w = vec({1, 2, 3, 4, 5, 6}, {2, 3}), *x = nullptr, *t = nullptr,
              *other = vec({1, 2, 3, 4, 5, 6}, {3, 2});
  GLIA_OK_(glia_tensor_set_requires_grad(w, 1));
  GLIA_OK_(glia_mul_scalar(w, glia_scalar_float(1.0), &x));
  GLIA_OK_(glia_transpose(x, 0, 1, &t));
  GLIA_OK_(glia_tensor_set_geometry_(x, t, "t_"));
  EXPECT_EQ(shape(x), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(x), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_GLIA_MSG(glia_tensor_set_geometry_(x, other, "t_"), GLIA_ERR_INVALID_ARGUMENT,
                  "t_: the new geometry must be a view of self's storage");
  for (auto* h : {w, x, t, other}) glia_tensor_release(h);
}

}  // namespace
