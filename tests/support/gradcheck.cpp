#include "support/gradcheck.h"

#include <cmath>
#include <random>
#include <sstream>

#include "autograd/engine.h"
#include "autograd/functions.h"
#include "autograd/grad_mode.h"

namespace glia_test {

using glia::DType;
using glia::Tensor;
using glia::TensorList;

namespace {

// Address of the element at row-major position i of a float64 tensor of any strides.
double* element(const Tensor& t, int64_t i) {
  double* p = t.data_ptr<double>();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    int64_t s = t.shape()[d];
    p += (i % s) * t.strides()[d];
    i /= s;
  }
  return p;
}

Tensor random_like(glia::IntSpan shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Tensor t = glia::empty(shape, DType::Float64, glia::Device{});
  for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr<double>()[i] = u(rng);
  return t;
}

// sum(y * v) in double, without autograd.
double contract(const Tensor& y, const Tensor& v) {
  Tensor y64 = glia::to_dtype(y, DType::Float64);
  double s = 0;
  for (int64_t i = 0; i < y64.numel(); ++i) s += *element(y64, i) * v.data_ptr<double>()[i];
  return s;
}

bool close(double a, double n, const GradcheckOptions& opt) {
  return std::fabs(a - n) <= opt.atol + opt.rtol * std::fabs(n);
}

}  // namespace

::testing::AssertionResult gradcheck(const GradFn& f, const TensorList& inputs, GradcheckOptions opt) {
  std::vector<size_t> checked;
  TensorList diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    if (inputs[i].dtype() != DType::Float64)
      return ::testing::AssertionFailure() << "gradcheck: input " << i << " is not float64";
    checked.push_back(i);
    diff.push_back(inputs[i]);
  }
  if (diff.empty()) return ::testing::AssertionFailure() << "gradcheck: no input requires grad";

  Tensor y = f(inputs);
  Tensor v = random_like(y.shape(), 0x5eed + static_cast<uint64_t>(y.numel()));
  TensorList analytic(diff.size());
  if (y.requires_grad()) {
    try {
      analytic = glia::grad({y}, diff, {to_dtype(v, y.dtype())}, true, false, true);
    } catch (const glia::Error& e) {
      return ::testing::AssertionFailure() << "gradcheck: glia::grad failed: " << e.what();
    }
    // backward() must give the same gradients in .grad; the leaves' own .grad is restored afterwards.
    TensorList saved(diff.size());
    bool all_leaves = true;
    for (size_t k = 0; k < diff.size(); ++k) all_leaves = all_leaves && glia::is_leaf(diff[k]);
    if (all_leaves) {
      for (size_t k = 0; k < diff.size(); ++k) std::swap(saved[k], glia::autograd_meta(diff[k]).grad);
      try {
        glia::backward({y}, {to_dtype(v, y.dtype())}, false, false);
      } catch (const glia::Error& e) {
        return ::testing::AssertionFailure() << "gradcheck: glia::backward failed: " << e.what();
      }
      for (size_t k = 0; k < diff.size(); ++k) {
        Tensor g = glia::autograd_meta(diff[k]).grad;
        std::swap(saved[k], glia::autograd_meta(diff[k]).grad);
        const Tensor& a = analytic[k];
        if (g.defined() != a.defined())
          return ::testing::AssertionFailure()
                 << "gradcheck: input " << checked[k] << ": backward " << (g.defined() ? "gave" : "did not give")
                 << " a gradient, grad() disagrees";
        if (!g.defined()) continue;
        if (g.shape() != diff[k].shape())
          return ::testing::AssertionFailure() << "gradcheck: input " << checked[k] << ": .grad has shape " << g.shape()
                                               << ", input " << diff[k].shape();
        for (int64_t j = 0; j < g.numel(); ++j)
          if (*element(g, j) != *element(a, j))
            return ::testing::AssertionFailure()
                   << "gradcheck: input " << checked[k] << ", element " << j << ": backward gives " << *element(g, j)
                   << ", grad() gives " << *element(a, j);
      }
    }
  }

  for (size_t k = 0; k < diff.size(); ++k) {
    const Tensor& x = diff[k];
    Tensor a = analytic[k];
    if (a.defined()) {
      if (a.shape() != x.shape())
        return ::testing::AssertionFailure()
               << "gradcheck: input " << checked[k] << ": gradient has shape " << a.shape() << ", input " << x.shape();
      if (a.dtype() != DType::Float64)
        return ::testing::AssertionFailure()
               << "gradcheck: input " << checked[k] << ": gradient is " << glia::dtype_name(a.dtype());
    }
    for (int64_t j = 0; j < x.numel(); ++j) {
      double* p = element(x, j);
      const double orig = *p;
      *p = orig + opt.eps;
      double hi = contract(f(inputs), v);
      *p = orig - opt.eps;
      double lo = contract(f(inputs), v);
      *p = orig;
      double numeric = (hi - lo) / (2 * opt.eps);
      double an = a.defined() ? *element(a, j) : 0.0;
      if (!close(an, numeric, opt))
        return ::testing::AssertionFailure() << "gradcheck: input " << checked[k] << ", element " << j << ": analytic "
                                             << an << " vs numeric " << numeric;
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult gradgradcheck(const GradFn& f, const TensorList& inputs, GradcheckOptions opt) {
  GradFn first = [&f](const TensorList& xs) {
    TensorList diff;
    for (const Tensor& x : xs)
      if (x.defined() && x.requires_grad()) diff.push_back(x);
    Tensor y = f(xs);
    Tensor total = glia::zeros({}, DType::Float64, glia::Device{});
    if (!y.requires_grad()) return total;
    Tensor v = random_like(y.shape(), 0xface + static_cast<uint64_t>(y.numel()));
    TensorList gs = glia::grad({y}, diff, {v}, true, true, true);
    for (size_t k = 0; k < gs.size(); ++k) {
      if (!gs[k].defined()) continue;
      Tensor u = random_like(gs[k].shape(), 0xbeef + k);
      total = glia::add(total, glia::sum(glia::mul(gs[k], u)));
    }
    return total;
  };
  return gradcheck(first, inputs, opt);
}

Tensor leaf(const std::vector<int64_t>& shape, std::initializer_list<double> values, bool requires_grad) {
  Tensor t = glia::empty(shape, DType::Float64, glia::Device{});
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "leaf: value count";
  int64_t i = 0;
  for (double v : values)
    if (i < t.numel()) t.data_ptr<double>()[i++] = v;
  if (requires_grad) glia::set_requires_grad(t, true);
  return t;
}

Tensor random_leaf(const std::vector<int64_t>& shape, uint64_t seed, bool requires_grad) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  std::bernoulli_distribution sign(0.5);
  Tensor t = glia::empty(shape, DType::Float64, glia::Device{});
  for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr<double>()[i] = sign(rng) ? u(rng) : -u(rng);
  if (requires_grad) glia::set_requires_grad(t, true);
  return t;
}

}  // namespace glia_test
