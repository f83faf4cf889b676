// Scalar operands, math, pow, clamp, maximum/minimum, where, comparisons and
// logic against tests/golden/gen_elementwise.py's fixtures, plus what the
// fixtures cannot hold (parallel-size inputs, fast paths vs. strided paths).
#include "ops/elementwise.h"

#include <cmath>

#include "autograd/functions.h"
#include "ops/cpu/loops.h"
#include "ops/golden_support.h"
#include "ops/shape.h"

using namespace glia_ops_test;

namespace {
const char* mode_arg(Call& c, std::string& storage) {
  storage = c.str("rounding_mode", "");
  return storage.empty() ? nullptr : storage.c_str();
}
// An optional scalar argument: NULL when absent.
const glia_scalar* opt_scalar(Call& c, const char* key, glia_scalar& storage) {
  if (!c.has(key)) return nullptr;
  storage = c.scalar(key);
  return &storage;
}
}  // namespace

GLIA_ADAPTER(add_scalar) { return glia_add_scalar(c.in[0], c.scalar("s"), c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(sub_scalar) { return glia_sub_scalar(c.in[0], c.scalar("s"), c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(rsub_scalar) { return glia_rsub_scalar(c.in[0], c.scalar("s"), c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(mul_scalar) { return glia_mul_scalar(c.in[0], c.scalar("s"), c.out()); }
GLIA_ADAPTER(div_scalar) {
  std::string m;
  return glia_div_scalar(c.in[0], c.scalar("s"), mode_arg(c, m), c.out());
}
GLIA_ADAPTER(abs) { return glia_abs(c.in[0], c.out()); }
GLIA_ADAPTER(sign) { return glia_sign(c.in[0], c.out()); }
GLIA_ADAPTER(exp) { return glia_exp(c.in[0], c.out()); }
GLIA_ADAPTER(log) { return glia_log(c.in[0], c.out()); }
GLIA_ADAPTER(log1p) { return glia_log1p(c.in[0], c.out()); }
GLIA_ADAPTER(expm1) { return glia_expm1(c.in[0], c.out()); }
GLIA_ADAPTER(sqrt) { return glia_sqrt(c.in[0], c.out()); }
GLIA_ADAPTER(rsqrt) { return glia_rsqrt(c.in[0], c.out()); }
GLIA_ADAPTER(pow) { return glia_pow(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(pow_scalar) { return glia_pow_scalar(c.in[0], c.scalar("exponent"), c.out()); }
GLIA_ADAPTER(scalar_pow) { return glia_scalar_pow(c.scalar("base"), c.in[0], c.out()); }
GLIA_ADAPTER(clamp) {
  glia_scalar lo, hi;
  return glia_clamp(c.in[0], opt_scalar(c, "min", lo), opt_scalar(c, "max", hi), c.out());
}
GLIA_ADAPTER(clamp_tensor) { return glia_clamp_tensor(c.in[0], c.in[1], c.in[2], c.out()); }
GLIA_ADAPTER(maximum) { return glia_maximum(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(minimum) { return glia_minimum(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(where) { return glia_where(c.in[0], c.in[1], c.in[2], c.out()); }
GLIA_ADAPTER(eq) { return glia_eq(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(ne) { return glia_ne(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(lt) { return glia_lt(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(le) { return glia_le(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(gt) { return glia_gt(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(ge) { return glia_ge(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(eq_scalar) { return glia_eq_scalar(c.in[0], c.scalar("s"), c.out()); }
GLIA_ADAPTER(ne_scalar) { return glia_ne_scalar(c.in[0], c.scalar("s"), c.out()); }
GLIA_ADAPTER(lt_scalar) { return glia_lt_scalar(c.in[0], c.scalar("s"), c.out()); }
GLIA_ADAPTER(le_scalar) { return glia_le_scalar(c.in[0], c.scalar("s"), c.out()); }
GLIA_ADAPTER(gt_scalar) { return glia_gt_scalar(c.in[0], c.scalar("s"), c.out()); }
GLIA_ADAPTER(ge_scalar) { return glia_ge_scalar(c.in[0], c.scalar("s"), c.out()); }
GLIA_ADAPTER(logical_and) { return glia_logical_and(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(logical_or) { return glia_logical_or(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(logical_xor) { return glia_logical_xor(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(logical_not) { return glia_logical_not(c.in[0], c.out()); }

TEST(Elementwise, Golden) { run_cases("elementwise.json"); }
TEST(Elementwise, Errors) { run_errors("elementwise.json"); }

namespace {

using glia::DType;
using glia::Tensor;

// Elements of t as doubles (row-major).
std::vector<double> vals(const Tensor& t) {
  Tensor c = glia::contiguous(glia::to_dtype(t, DType::Float64));
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void expect_same(const Tensor& a, const Tensor& b, double tol = 0) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  std::vector<double> x = vals(a), y = vals(b);
  int bad = 0;
  for (size_t i = 0; i < x.size() && bad < 5; ++i) {
    bool same = (std::isnan(x[i]) && std::isnan(y[i])) || std::fabs(x[i] - y[i]) <= tol * (1 + std::fabs(y[i]));
    if (!same) {
      ++bad;
      ADD_FAILURE() << "element " << i << ": " << x[i] << " vs " << y[i];
    }
  }
}

// A transposed (non-contiguous) copy of t's values: same values, strided path.
Tensor strided(const Tensor& t) {
  Tensor tt = glia::contiguous(glia::ops::transpose(t, 0, 1));
  return glia::ops::transpose(tt, 0, 1);
}

}  // namespace

// Above the parallel grain (kGrain = 32768): the contiguous fast paths, the
// scalar-broadcast path and the strided Loop<N> path agree, for every kernel.
TEST(Elementwise, ParallelFastPathsMatchStridedPath) {
  Tensor x = glia::randn(glia::Dims{300, 130}, DType::Float32, glia::Device{});
  Tensor y = glia::randn(glia::Dims{300, 130}, DType::Float32, glia::Device{});
  Tensor xs = strided(x), ys = strided(y);
  ASSERT_FALSE(xs.is_contiguous());
  namespace o = glia::ops;
  expect_same(o::abs(x), o::abs(xs));
  expect_same(o::exp(x), o::exp(xs));
  expect_same(o::sigmoid(x), o::sigmoid(xs));
  expect_same(o::relu(x), o::relu(xs));
  expect_same(o::gelu(x, false), o::gelu(xs, false));
  expect_same(o::add(x, y, 2.0), o::add(xs, ys, 2.0));
  expect_same(o::mul(x, y), o::mul(xs, ys));
  expect_same(o::maximum(x, y), o::maximum(xs, ys));
  expect_same(o::compare(x, y, o::Cmp::Lt), o::compare(xs, ys, o::Cmp::Lt));
  expect_same(o::clamp(x, o::wrapped_scalar(-0.5, false), o::wrapped_scalar(0.5, false)),
              o::clamp(xs, o::wrapped_scalar(-0.5, false), o::wrapped_scalar(0.5, false)));
  expect_same(o::where(o::compare(x, y, o::Cmp::Gt), x, y), o::where(o::compare(xs, ys, o::Cmp::Gt), xs, ys));
  // Scalar broadcast (stride-0 operand) on either side vs. a materialised copy.
  Tensor s = glia::full(glia::Dims{}, 1.5, DType::Float32, glia::Device{});
  Tensor sfull = glia::full(glia::Dims{300, 130}, 1.5, DType::Float32, glia::Device{});
  expect_same(o::sub(x, s, 1.0), o::sub(x, sfull, 1.0));
  expect_same(o::sub(s, x, 1.0), o::sub(sfull, x, 1.0));
  expect_same(o::pow(x, o::wrapped_scalar(2, true)), o::mul(x, x));
  // where with a broadcast-scalar branch (the backward rules' where(mask, g, 0)).
  Tensor zero = glia::zeros(glia::Dims{}, DType::Float32, glia::Device{});
  Tensor zfull = glia::zeros(glia::Dims{300, 130}, DType::Float32, glia::Device{});
  Tensor m = o::compare(x, y, o::Cmp::Gt);
  expect_same(o::where(m, x, zero), o::where(m, x, zfull));
  expect_same(o::where(m, zero, xs), o::where(m, zfull, x));
  // In place, large.
  Tensor z = glia::clone(x);
  o::add_(z, y, 1.0);
  expect_same(z, o::add(x, y, 1.0));
  Tensor zs = glia::clone(xs);
  o::relu_(zs);
  expect_same(zs, o::relu(x));
}

// Every float dtype through the half/bfloat16 path agrees with float32 after rounding.
TEST(Elementwise, HalfComputesInFloat) {
  Tensor x = glia::randn(glia::Dims{64}, DType::Float32, glia::Device{});
  Tensor h = glia::to_dtype(x, DType::Float16);
  Tensor want = glia::to_dtype(glia::ops::exp(glia::to_dtype(h, DType::Float32)), DType::Float16);
  expect_same(glia::ops::exp(h), want);
}

// Comparisons and logic record no graph even when an input requires grad.
TEST(Elementwise, ComparisonsAreNotDifferentiable) {
  Tensor x = glia::randn(glia::Dims{3}, DType::Float64, glia::Device{});
  glia::set_requires_grad(x, true);
  Tensor r = glia::compare(x, x, glia::ops::Cmp::Eq);
  EXPECT_EQ(r.dtype(), DType::Bool);
  EXPECT_FALSE(r.requires_grad());
  EXPECT_FALSE(glia::logical_not(x).requires_grad());
}

// grad_fn names are torch's.
TEST(Elementwise, GradFnNames) {
  Tensor x = glia::randn(glia::Dims{3}, DType::Float64, glia::Device{});
  glia::set_requires_grad(x, true);
  auto name = [](const Tensor& t) { return std::string(glia::grad_fn(t)->name()); };
  using glia::Scalar;
  EXPECT_EQ(name(glia::add_scalar(x, Scalar::from_int(2))), "AddBackward0");
  EXPECT_EQ(name(glia::rsub_scalar(x, Scalar::from_int(2))), "RsubBackward1");
  EXPECT_EQ(name(glia::mul_scalar(x, Scalar::from_int(2))), "MulBackward0");
  EXPECT_EQ(name(glia::abs(x)), "AbsBackward0");
  EXPECT_EQ(name(glia::sign(x)), "SignBackward0");
  EXPECT_EQ(name(glia::exp(x)), "ExpBackward0");
  EXPECT_EQ(name(glia::log1p(x)), "Log1PBackward0");
  EXPECT_EQ(name(glia::expm1(x)), "Expm1Backward0");
  EXPECT_EQ(name(glia::rsqrt(x)), "RsqrtBackward0");
  EXPECT_EQ(name(glia::pow(x, x)), "PowBackward1");
  EXPECT_EQ(name(glia::pow_scalar(x, Scalar::from_int(2))), "PowBackward0");
  EXPECT_EQ(name(glia::scalar_pow(Scalar::from_int(2), x)), "PowBackward2");
  EXPECT_EQ(name(glia::clamp(x, Scalar::from_double(0.1), std::nullopt)), "ClampBackward1");
  EXPECT_EQ(name(glia::clamp_tensor(x, x, Tensor())), "ClampBackward0");
  EXPECT_EQ(name(glia::maximum(x, x)), "MaximumBackward0");
  EXPECT_EQ(name(glia::minimum(x, x)), "MinimumBackward0");
  EXPECT_EQ(name(glia::where(glia::compare(x, x, glia::ops::Cmp::Gt), x, x)), "WhereBackward0");
}
