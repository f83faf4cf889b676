// Finite-difference checks of glia's autograd (torch.autograd.gradcheck and
// gradgradcheck) for tests that use the C++ internals.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "autograd/node.h"

namespace glia_test {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
};

using GradFn = std::function<glia::Tensor(const glia::TensorList&)>;

// Checks the gradients of f at `inputs` (float64; those with requires_grad are
// checked, which may be non-contiguous but must not overlap in memory). f's
// output may have any shape: the checked quantity is sum(f(x) * v) for a fixed
// random v. Analytic gradients come both from glia::grad and from
// glia::backward (into .grad, restored afterwards) and must agree with central
// differences; a failure names the input, the element and both values.
::testing::AssertionResult gradcheck(const GradFn& f, const glia::TensorList& inputs, GradcheckOptions opt = {});

// Second derivatives: gradcheck of x -> sum_i <grad_i(x), u_i>, where grad_i
// is glia::grad of sum(f(x) * v) with create_graph, for fixed random v and u_i.
::testing::AssertionResult gradgradcheck(const GradFn& f, const glia::TensorList& inputs, GradcheckOptions opt = {});

// A float64 leaf with the given values (row-major) that requires grad.
glia::Tensor leaf(const std::vector<int64_t>& shape, std::initializer_list<double> values, bool requires_grad = true);
// A float64 leaf with deterministic values in [-2, 2] away from zero (seeded by `seed`).
glia::Tensor random_leaf(const std::vector<int64_t>& shape, uint64_t seed, bool requires_grad = true);

}  // namespace glia_test
