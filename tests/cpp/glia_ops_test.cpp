// Tests of include/glia/glia_ops.hpp, the C++ wrappers that scripts/gen_wrappers.py generates from
// glia.h: a sample of every argument shape (unary, binary, scalars of each kind, optional values,
// int64 lists, enums, strings, tensor lists, several outputs, in-place ops, module constructors),
// checked against the C call they wrap and against values computed here, and errors as glia::Error.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "glia/glia.hpp"

namespace {

namespace ops = glia::ops;
using glia::Tensor;

Tensor f32(std::vector<float> v, glia::Shape shape = {}) { return Tensor::from_vector(v, std::move(shape)); }

// The tensor a raw C call makes (the reference the generated wrapper must reproduce exactly).
template <class F>
Tensor c_call(F&& f) {
  glia_tensor* out = nullptr;
  glia_error* e = f(&out);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return Tensor(out);
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

const std::vector<float> kX = {-1.5f, -0.25f, 0.f, 0.5f, 2.f};

TEST(GeneratedOps, UnaryMatchTheCCallsAndTheMath) {
  const Tensor x = f32(kX);
  struct Case {
    Tensor (*wrapped)(const Tensor&);
    glia_error* (*raw)(const glia_tensor*, glia_tensor**);
    double (*math)(double);
  };
  const Case cases[] = {
      {ops::sinh, glia_sinh, [](double v) { return std::sinh(v); }},
      {ops::cosh, glia_cosh, [](double v) { return std::cosh(v); }},
      {ops::erf, glia_erf, [](double v) { return std::erf(v); }},
      {ops::atan, glia_atan, [](double v) { return std::atan(v); }},
      {ops::expm1, glia_expm1, [](double v) { return std::expm1(v); }},
      {ops::floor, glia_floor, [](double v) { return std::floor(v); }},
  };
  for (const Case& c : cases) {
    const Tensor got = c.wrapped(x);
    const Tensor ref = c_call([&](glia_tensor** o) { return c.raw(x.get(), o); });
    EXPECT_EQ(got.to_vector<float>(), ref.to_vector<float>());
    std::vector<double> want;
    for (float v : kX) want.push_back(c.math(v));
    expect_near_all(got.to_vector<float>(), want);
  }
}

TEST(GeneratedOps, BinaryAndScalarOperands) {
  const Tensor a = f32({1.f, -2.f, 3.f}), b = f32({2.f, 2.f, -4.f});
  expect_near_all(ops::atan2(a, b).to_vector<float>(), {std::atan2(1., 2.), std::atan2(-2., 2.), std::atan2(3., -4.)});
  expect_near_all(ops::hypot(a, b).to_vector<float>(), {std::sqrt(5.), std::sqrt(8.), 5.});
  expect_near_all(ops::logaddexp(a, b).to_vector<float>(),
                  {std::log(std::exp(1.) + std::exp(2.)), std::log(std::exp(-2.) + std::exp(2.)),
                   std::log(std::exp(3.) + std::exp(-4.))});
  // A float Scalar gives float32; an int Scalar keeps an int64 tensor integral (torch's promotion).
  const Tensor e = Tensor::from_vector<int64_t>({0, 1, 3});
  const Tensor pf = ops::scalar_pow(2.0, e), pi = ops::scalar_pow(2, e);
  EXPECT_EQ(pf.dtype(), GLIA_FLOAT32);
  EXPECT_EQ(pf.to_vector<float>(), (std::vector<float>{1.f, 2.f, 8.f}));
  EXPECT_EQ(pi.dtype(), GLIA_INT64);
  EXPECT_EQ(pi.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 8}));
  expect_near_all(ops::hardtanh(f32(kX), -0.5, 1.0).to_vector<float>(), {-0.5, -0.25, 0., 0.5, 1.});
}

TEST(GeneratedOps, ReductionsOverDimLists) {
  const Tensor x = f32({1.f, 2.f, 3.f, 4.f, 6.f, 8.f}, {2, 3});
  expect_near_all(
      ops::logsumexp(x, {1}, false).to_vector<float>(),
      {std::log(std::exp(1.) + std::exp(2.) + std::exp(3.)), std::log(std::exp(4.) + std::exp(6.) + std::exp(8.))});
  const Tensor p = ops::prod(x, {0}, true);
  EXPECT_EQ(p.shape(), (glia::Shape{1, 3}));
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{4.f, 12.f, 24.f}));
  EXPECT_EQ(ops::prod(x, {}, false).item(), 1152.0);  // an empty list reduces every dim
  const auto [var, mean] = ops::var_mean(x, {1}, 1.0, false);
  expect_near_all(var.to_vector<float>(), {1., 4.});
  expect_near_all(mean.to_vector<float>(), {2., 6.});
  expect_near_all(ops::norm(x, 1.0, {0, 1}, false).to_vector<float>(), {24.});
  EXPECT_EQ(ops::flip(x, {1}).to_vector<float>(), (std::vector<float>{3.f, 2.f, 1.f, 8.f, 6.f, 4.f}));
  EXPECT_EQ(ops::roll(x, {1}, {1}).to_vector<float>(), (std::vector<float>{3.f, 1.f, 2.f, 8.f, 4.f, 6.f}));
}

TEST(GeneratedOps, SeveralOutputsAreTuples) {
  const Tensor x = f32({3.f, 1.f, 2.f, 5.f});
  const auto [values, indices] = ops::sort(x, 0, true, false);
  EXPECT_EQ(values.to_vector<float>(), (std::vector<float>{5.f, 3.f, 2.f, 1.f}));
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{3, 0, 2, 1}));
  const auto [top, top_i] = ops::topk(x, 2, 0, false, true);
  EXPECT_EQ(top.to_vector<float>(), (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(top_i.to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  const auto [mn, mx] = ops::aminmax(x, std::nullopt, false);  // optional dim: over all elements
  EXPECT_EQ(mn.item(), 1.0);
  EXPECT_EQ(mx.item(), 5.0);
  const auto [kv, ki] = ops::kthvalue(x, 2, 0, false);
  EXPECT_EQ(kv.item(), 2.0);
  EXPECT_EQ(ki.item<int64_t>(), 2);
}

TEST(GeneratedOps, OptionalValuesEnumsAndStrings) {
  const Tensor x = f32({4.f, 1.f, 3.f, 2.f}, {2, 2});
  EXPECT_EQ(ops::argmin(x, std::nullopt, false).item<int64_t>(), 1);
  EXPECT_EQ(ops::argmin(x, int64_t{1}, false).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  const Tensor c = ops::cumsum(x, 1, GLIA_FLOAT64);
  EXPECT_EQ(c.dtype(), GLIA_FLOAT64);
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{4., 5., 3., 5.}));
  EXPECT_EQ(ops::cumsum(x, 0, std::nullopt).dtype(), GLIA_FLOAT32);
  const Tensor q = Tensor::from_vector<float>({0.5f});
  EXPECT_NEAR(ops::quantile(x, q, std::nullopt, false, GLIA_QUANTILE_LINEAR).item(), 2.5, 1e-6);
  EXPECT_NEAR(ops::quantile(x, q, std::nullopt, false, GLIA_QUANTILE_LOWER).item(), 2.0, 1e-6);
  const Tensor in = f32({0.f, 2.f, 5.f}), target = f32({0.5f, 0.f, 0.f});
  // huber: 0.5 d^2 where |d| <= delta, else delta (|d| - delta / 2); delta = 1.
  EXPECT_NEAR(ops::huber_loss(in, target, GLIA_REDUCTION_SUM, 1.0).item(), 0.125 + 1.5 + 4.5, 1e-6);
  EXPECT_EQ(ops::huber_loss(in, target, GLIA_REDUCTION_NONE, 1.0).shape(), (glia::Shape{3}));
  const Tensor seq = f32({1.f, 3.f, 5.f, 7.f}), vals = f32({3.f, 6.f});
  EXPECT_EQ(ops::searchsorted(seq, vals, false, false, nullptr, Tensor()).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(ops::searchsorted(seq, vals, false, false, "right", Tensor()).to_vector<int64_t>(),
            (std::vector<int64_t>{2, 3}));
}

TEST(GeneratedOps, TensorListsAndFreeFunctions) {
  const Tensor a = f32({1.f, 2.f, 3.f, 4.f}, {2, 2}), b = f32({5.f, 6.f, 7.f, 8.f}, {2, 2});
  EXPECT_EQ(ops::einsum("ij,jk->ik", {a, b}).to_vector<float>(), a.matmul(b).to_vector<float>());
  const Tensor d = ops::block_diag({f32({1.f}, {1, 1}), f32({2.f, 3.f}, {1, 2})});
  EXPECT_EQ(d.shape(), (glia::Shape{2, 3}));
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{1.f, 0.f, 0.f, 0.f, 2.f, 3.f}));
}

TEST(GeneratedOps, InPlaceOpsReturnTheirTarget) {
  Tensor x = f32(kX);
  const Tensor& r = ops::add_scalar_(x, 1.5, 2.0);  // x += 2 * 1.5
  EXPECT_EQ(r.get(), x.get());
  expect_near_all(x.to_vector<float>(), {1.5, 2.75, 3., 3.5, 5.});
  ops::clamp_(x, std::nullopt, 3.0);
  expect_near_all(x.to_vector<float>(), {1.5, 2.75, 3., 3., 3.});
  Tensor y = f32(kX);
  ops::relu_(y);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0.f, 0.f, 0.f, 0.5f, 2.f}));
  ops::nn_init_constant_(y, 7.0);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(5, 7.f));
}

TEST(GeneratedOps, ModuleConstructors) {
  glia::Module m = glia::nn::Hardtanh(-0.5, 0.5, false);
  EXPECT_EQ(m(f32(kX)).to_vector<float>(), (std::vector<float>{-0.5f, -0.25f, 0.f, 0.5f, 0.5f}));
  glia::Module g = glia::nn::GLU(-1);
  const Tensor out = g(f32({1.f, 2.f, 0.f, 0.f}, {1, 4}));
  expect_near_all(out.to_vector<float>(), {0.5, 1.});
}

TEST(GeneratedOps, OptionsStructsStartFromTorchsDefaults) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  const Tensor x = f32(v, {1, 1, 4, 4}), w = Tensor::ones({1, 1, 2, 2});
  // Default-constructed options are glia_conv2d_options_init's (stride 1), also when left out.
  ops::Conv2dOptions defaults;
  EXPECT_EQ(defaults.stride[0], 1);
  EXPECT_EQ(defaults.groups, 1);
  EXPECT_EQ(ops::conv2d(x, w, Tensor()).shape(), (glia::Shape{1, 1, 3, 3}));
  ops::Conv2dOptions strided;
  strided.stride[0] = strided.stride[1] = 2;
  const Tensor y = ops::conv2d(x, w, Tensor(), strided);  // sums of the 2x2 blocks
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{10.f, 18.f, 42.f, 50.f}));
  ops::MaxPool2dOptions pool;
  pool.kernel_size[0] = pool.kernel_size[1] = 2;
  const auto [m, idx] = ops::max_pool2d(x, pool);  // the optional indices are always asked for
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{5.f, 7.f, 13.f, 15.f}));
  ASSERT_TRUE(idx);
  EXPECT_EQ(idx.to_vector<int64_t>(), (std::vector<int64_t>{5, 7, 13, 15}));
  ops::AvgPool2dOptions avg;
  avg.kernel_size[0] = avg.kernel_size[1] = 2;
  EXPECT_EQ(glia::nn::AvgPool2d(avg)(x).to_vector<float>(), (std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f}));
}

TEST(GeneratedOps, FactoriesTakeTensorOptions) {
  const Tensor i = Tensor::from_vector<int64_t>({1, 2, 3});
  const Tensor z = ops::zeros_like(i);  // no options: i's dtype (NULL), not float32
  EXPECT_EQ(z.dtype(), GLIA_INT64);
  EXPECT_EQ(z.to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(ops::ones_like(i, GLIA_FLOAT64).dtype(), GLIA_FLOAT64);
  const Tensor e = ops::eye(2, 3, GLIA_FLOAT64);
  EXPECT_EQ(e.shape(), (glia::Shape{2, 3}));
  EXPECT_EQ(e.to_vector<double>(), (std::vector<double>{1, 0, 0, 0, 1, 0}));
}

TEST(GeneratedOps, ErrorsAreGliaErrorsWithTheCCodeAndMessage) {
  const Tensor a = f32({1.f, 2.f}), b = f32({1.f, 2.f, 3.f});
  glia_tensor* out = nullptr;
  glia_error* e = glia_atan2(a.get(), b.get(), &out);
  ASSERT_NE(e, nullptr);
  const std::string message = glia_error_message(e);
  glia_error_free(e);
  try {
    (void)ops::atan2(a, b);
    FAIL() << "no exception";
  } catch (const glia::Error& err) {
    EXPECT_EQ(err.code(), GLIA_ERR_SHAPE);
    EXPECT_EQ(err.message(), message);
  }
  // An empty Tensor where the C function needs one: GLIA_ERR_INVALID_HANDLE, not a crash.
  try {
    (void)ops::sinh(Tensor());
    FAIL() << "no exception";
  } catch (const glia::Error& err) {
    EXPECT_EQ(err.code(), GLIA_ERR_INVALID_HANDLE);
  }
  try {
    (void)glia::nn::GLU(-1)(f32({1.f, 2.f, 3.f}, {1, 3}));
    FAIL() << "no exception";
  } catch (const glia::Error& err) {
    EXPECT_NE(err.code(), GLIA_OK);
  }
}

}  // namespace
