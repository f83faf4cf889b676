// The autograd engine through the C++ internals: finite-difference checks of
// every op's backward rule (first and second order), and torch's semantics of
// backward()/grad(): retain_graph, create_graph, allow_unused, hooks,
// retain_grad, in-place ops and version counters, no_grad, accumulation.
#include "autograd/engine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "support/gradcheck.h"

namespace {

using glia::Code;
using glia::DType;
using glia::Tensor;
using glia::TensorList;
using glia_test::gradcheck;
using glia_test::gradgradcheck;
using glia_test::leaf;
using glia_test::random_leaf;

std::vector<double> values(const Tensor& t) {
  Tensor c = glia::contiguous(glia::to_dtype(t, DType::Float64));
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

Tensor grad_of(const Tensor& t) {
  glia::AutogradMeta* m = glia::autograd_meta_if(t);
  return m ? m->grad : Tensor();
}

// A transposed (non-contiguous) float64 leaf of shape [cols, rows].
Tensor transposed_leaf(int64_t rows, int64_t cols, uint64_t seed) {
  Tensor base = random_leaf({rows, cols}, seed, false);
  Tensor t = glia::make_view(base, glia::Dims{cols, rows}, glia::Dims{1, cols}, 0);
  glia::set_requires_grad(t, true);
  return t;
}

// Runs f and expects a glia::Error with `code` whose message contains `text`.
template <class F>
void expect_error(F f, Code code, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << text;
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

const char* kSecondTime = "Trying to backward through the graph a second time";
const char* kInplace = "one of the variables needed for gradient computation has been modified by an inplace operation";

// ------------------------------------------------------------------ gradcheck

struct BinaryCase {
  const char* name;
  std::vector<int64_t> a, b;
};

const BinaryCase kShapes[] = {
    {"same", {2, 3}, {2, 3}},     {"[3,1]+[1,4]", {3, 1}, {1, 4}}, {"[2,3]+[3]", {2, 3}, {3}},
    {"0-dim+matrix", {}, {2, 3}}, {"matrix+0-dim", {2, 3}, {}},    {"[4,1,3]+[2,1]", {4, 1, 3}, {2, 1}},
};

TEST(Gradcheck, BinaryOpsWithBroadcasting) {
  for (const BinaryCase& c : kShapes) {
    SCOPED_TRACE(c.name);
    Tensor a = random_leaf(c.a, 1), b = random_leaf(c.b, 2);
    EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::add(x[0], x[1]); }, {a, b}));
    EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::add(x[0], x[1], 2.5); }, {a, b}));
    EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::sub(x[0], x[1]); }, {a, b}));
    EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::sub(x[0], x[1], -0.5); }, {a, b}));
    EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::mul(x[0], x[1]); }, {a, b}));
    EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::div(x[0], x[1]); }, {a, b}));
  }
}

TEST(Gradcheck, OnlyOneInputRequiresGrad) {
  Tensor a = random_leaf({2, 3}, 3), b = random_leaf({3}, 4, false);
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::mul(x[0], x[1]); }, {a, b}));
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::div(x[1], x[0]); }, {a, b}));
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::sub(x[1], x[0], 3.0); }, {a, b}));
}

TEST(Gradcheck, NonContiguousInputs) {
  Tensor a = transposed_leaf(3, 2, 5), b = transposed_leaf(3, 2, 6);
  ASSERT_FALSE(a.is_contiguous());
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::mul(x[0], x[1]); }, {a, b}));
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::div(x[0], x[1]); }, {a, b}));
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::sum(x[0], std::vector<int64_t>{0}); }, {a}));
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::neg(x[0]); }, {a}));
}

TEST(Gradcheck, NegAndSum) {
  Tensor x = random_leaf({2, 3, 4}, 7);
  EXPECT_TRUE(gradcheck([](const TensorList& t) { return glia::neg(t[0]); }, {x}));
  EXPECT_TRUE(gradcheck([](const TensorList& t) { return glia::sum(t[0]); }, {x}));
  const std::vector<std::vector<int64_t>> dim_sets = {{0}, {1}, {-1}, {0, 2}, {-1, 0}, {0, 1, 2}};
  for (const auto& dims : dim_sets) {
    for (bool keepdim : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "dims " << ::testing::PrintToString(dims) << " keepdim " << keepdim);
      EXPECT_TRUE(gradcheck([&](const TensorList& t) { return glia::sum(t[0], dims, keepdim); }, {x}));
    }
  }
  Tensor s = random_leaf({}, 8);
  EXPECT_TRUE(gradcheck([](const TensorList& t) { return glia::sum(t[0], std::vector<int64_t>{0}, true); }, {s}));
}

TEST(Gradcheck, ZeroSizeInputs) {
  Tensor a = random_leaf({0, 3}, 9), b = random_leaf({3}, 10);
  Tensor y = glia::mul(a, b);
  EXPECT_EQ(y.shape(), glia::Dims({0, 3}));
  TensorList g = glia::grad({glia::sum(y)}, {a, b}, {}, false, false, false);
  EXPECT_EQ(g[0].shape(), glia::Dims({0, 3}));
  EXPECT_EQ(values(g[1]), std::vector<double>({0, 0, 0}));
  EXPECT_TRUE(gradcheck([](const TensorList& x) { return glia::add(x[0], x[1]); }, {a, b}));
}

TEST(Gradcheck, Composite) {
  Tensor a = random_leaf({3, 1}, 11), b = random_leaf({1, 4}, 12), c = random_leaf({4}, 13);
  auto f = [](const TensorList& x) {
    Tensor t = glia::div(glia::mul(x[0], x[1]), glia::add(x[2], x[0], 0.5));
    return glia::sum(glia::sub(glia::neg(t), glia::mul(t, t)), std::vector<int64_t>{1}, true);
  };
  EXPECT_TRUE(gradcheck(f, {a, b, c}));
  EXPECT_TRUE(gradgradcheck(f, {a, b, c}));
}

TEST(Gradcheck, SecondOrderEveryOp) {
  for (const BinaryCase& c : kShapes) {
    SCOPED_TRACE(c.name);
    Tensor a = random_leaf(c.a, 14), b = random_leaf(c.b, 15);
    EXPECT_TRUE(gradgradcheck([](const TensorList& x) { return glia::mul(x[0], x[1]); }, {a, b}));
    EXPECT_TRUE(gradgradcheck([](const TensorList& x) { return glia::div(x[0], x[1]); }, {a, b}));
    EXPECT_TRUE(gradgradcheck([](const TensorList& x) { return glia::mul(glia::add(x[0], x[1], 2.0), x[0]); }, {a, b}));
    EXPECT_TRUE(gradgradcheck([](const TensorList& x) { return glia::mul(glia::sub(x[0], x[1]), x[1]); }, {a, b}));
  }
  Tensor x = random_leaf({2, 3}, 16);
  EXPECT_TRUE(gradgradcheck(
      [](const TensorList& t) {
        Tensor s = glia::sum(t[0], std::vector<int64_t>{1}, true);
        return glia::mul(glia::neg(s), t[0]);
      },
      {x}));
}

// The checker itself must catch a wrong rule: a function whose graph is cut
// (the analytic gradient misses a term) fails with the element named.
TEST(Gradcheck, ReportsAWrongGradient) {
  Tensor x = random_leaf({3}, 17);
  auto cut = [](const TensorList& t) {
    Tensor detached = glia::make_view(t[0], t[0].shape(), t[0].strides(), t[0].offset());
    return glia::mul(t[0], detached);  // x*x, but only one factor is differentiated
  };
  ::testing::AssertionResult r = gradcheck(cut, {x});
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("input 0, element 0: analytic"), std::string::npos) << r.message();
}

// ----------------------------------------------------------------- the engine

TEST(Engine, BackwardOfScalarFillsLeafGrads) {
  Tensor x = leaf({3}, {1, 2, 3}), w = leaf({3}, {4, 5, 6});
  glia::backward({glia::sum(glia::mul(x, w))}, {}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({4, 5, 6}));
  EXPECT_EQ(values(grad_of(w)), std::vector<double>({1, 2, 3}));
  EXPECT_EQ(grad_of(x).dtype(), DType::Float64);
}

TEST(Engine, NonScalarNeedsGradOutput) {
  Tensor x = leaf({2}, {1, 2});
  Tensor y = glia::mul(x, x);
  expect_error([&] { glia::backward({y}, {}, false, false); }, Code::State,
               "grad can be implicitly created only for scalar outputs");
  glia::backward({y}, {leaf({2}, {1, 10}, false)}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({2, 40}));
}

TEST(Engine, GradOutputShapeMismatch) {
  Tensor x = leaf({2}, {1, 2});
  Tensor y = glia::mul(x, x);
  expect_error(
      [&] {
        glia::backward({y}, {leaf({3}, {1, 1, 1}, false)}, false, false);
      },
      Code::Shape, "Mismatch in shape");
}

TEST(Engine, BackwardOnTensorWithoutGraph) {
  Tensor x = leaf({2}, {1, 2}, false);
  expect_error([&] { glia::backward({glia::sum(x)}, {}, false, false); }, Code::State,
               "does not require grad and does not have a grad_fn");
}

TEST(Engine, SecondBackwardNeedsRetainGraph) {
  Tensor x = leaf({2}, {1, 2});
  Tensor y = glia::sum(glia::mul(x, x));
  glia::backward({y}, {}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({2, 4}));
  expect_error([&] { glia::backward({y}, {}, false, false); }, Code::State, kSecondTime);

  Tensor z = leaf({2}, {1, 2});
  Tensor yz = glia::sum(glia::mul(z, z));
  glia::backward({yz}, {}, true, false);
  glia::backward({yz}, {}, true, false);
  EXPECT_EQ(values(grad_of(z)), std::vector<double>({4, 8}));  // accumulated twice
  glia::backward({yz}, {}, false, false);
  EXPECT_EQ(values(grad_of(z)), std::vector<double>({6, 12}));
  expect_error([&] { glia::backward({yz}, {}, false, false); }, Code::State, kSecondTime);
}

TEST(Engine, GradWithoutRetainGraphFreesTheGraph) {
  Tensor x = leaf({2}, {1, 2});
  Tensor y = glia::sum(glia::mul(x, x));
  TensorList g = glia::grad({y}, {x}, {}, false, false, false);
  EXPECT_EQ(values(g[0]), std::vector<double>({2, 4}));
  expect_error([&] { glia::grad({y}, {x}, {}, false, false, false); }, Code::State, kSecondTime);
}

TEST(Engine, CreateGraphGivesSecondDerivative) {
  Tensor x = leaf({3}, {1, -2, 0.5});
  Tensor y = glia::sum(glia::mul(glia::mul(x, x), x));
  TensorList g1 = glia::grad({y}, {x}, {}, false, true, false);
  EXPECT_EQ(values(g1[0]), std::vector<double>({3, 12, 0.75}));  // 3x^2
  ASSERT_TRUE(g1[0].requires_grad());
  TensorList g2 = glia::grad({glia::sum(g1[0])}, {x}, {}, false, false, false);
  EXPECT_EQ(values(g2[0]), std::vector<double>({6, -12, 3}));  // 6x
  EXPECT_FALSE(grad_of(x).defined());
}

TEST(Engine, BackwardWithCreateGraphKeepsGradDifferentiable) {
  Tensor x = leaf({2}, {2, 3});
  glia::backward({glia::sum(glia::mul(glia::mul(x, x), x))}, {}, false, true);
  Tensor g = grad_of(x);
  EXPECT_EQ(values(g), std::vector<double>({12, 27}));
  ASSERT_TRUE(g.requires_grad());
  TensorList g2 = glia::grad({glia::sum(g)}, {x}, {}, false, false, false);
  EXPECT_EQ(values(g2[0]), std::vector<double>({12, 18}));
  // As in torch, x.grad's graph holds x: the reference cycle is broken by clearing the grad.
  glia::autograd_meta(x).grad = Tensor();
}

TEST(Engine, GradAllowUnused) {
  Tensor x = leaf({2}, {1, 2}), unused = leaf({2}, {3, 4});
  Tensor y = glia::sum(glia::mul(x, x));
  expect_error(
      [&] {
        glia::grad({y}, {x, unused}, {}, true, false, false);
      },
      Code::State, "One of the differentiated Tensors appears to not have been used in the graph");
  TensorList g = glia::grad({y}, {x, unused}, {}, false, false, true);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(values(g[0]), std::vector<double>({2, 4}));
  EXPECT_FALSE(g[1].defined());
}

TEST(Engine, GradInputMustRequireGrad) {
  Tensor x = leaf({2}, {1, 2}), c = leaf({2}, {1, 1}, false);
  Tensor y = glia::sum(glia::mul(x, c));
  expect_error([&] { glia::grad({y}, {c}, {}, false, false, false); }, Code::State,
               "One of the differentiated Tensors does not require grad");
}

TEST(Engine, GradDoesNotTouchDotGrad) {
  Tensor x = leaf({2}, {1, 2});
  Tensor h = glia::mul(x, x);
  glia::retain_grad(h);
  TensorList g = glia::grad({glia::sum(h)}, {x}, {}, false, false, false);
  EXPECT_EQ(values(g[0]), std::vector<double>({2, 4}));
  EXPECT_FALSE(grad_of(x).defined());

  glia::autograd_meta(x).grad = leaf({2}, {10, 20}, false);
  glia::grad({glia::sum(glia::mul(x, x))}, {x}, {}, false, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({10, 20}));
}

TEST(Engine, GradWithRespectToNonLeaf) {
  Tensor x = leaf({2}, {1, 2});
  Tensor h = glia::mul(x, x);
  Tensor y = glia::sum(glia::mul(h, x));
  TensorList g = glia::grad({y}, {h, x}, {}, false, false, false);
  EXPECT_EQ(values(g[0]), std::vector<double>({1, 2}));   // dy/dh = x
  EXPECT_EQ(values(g[1]), std::vector<double>({3, 12}));  // d(x^3)/dx
}

TEST(Engine, RetainGradOnNonLeaf) {
  Tensor x = leaf({2}, {1, 2});
  Tensor h = glia::mul(x, x);
  Tensor k = glia::mul(x, x);
  glia::retain_grad(h);
  glia::backward({glia::sum(glia::mul(glia::add(h, k), x))}, {}, false, false);
  EXPECT_EQ(values(grad_of(h)), std::vector<double>({1, 2}));
  EXPECT_FALSE(grad_of(k).defined());
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({6, 24}));  // d(2x^3)
  glia::retain_grad(x);                                         // a no-op on leaves
  Tensor c = leaf({2}, {1, 2}, false);
  expect_error([&] { glia::retain_grad(c); }, Code::State, "can't retain_grad on Tensor that has requires_grad=False");
}

TEST(Engine, HookReplacesLeafGradient) {
  Tensor x = leaf({2}, {1, 2});
  std::vector<std::string> order;
  glia::add_tensor_hook(x, [&](const Tensor& g) {
    order.push_back("first");
    EXPECT_EQ(values(g), std::vector<double>({3, 3}));
    return glia::mul(g, leaf({}, {10}, false));
  });
  glia::add_tensor_hook(x, [&](const Tensor& g) {
    order.push_back("second");
    EXPECT_EQ(values(g), std::vector<double>({30, 30}));  // sees the first hook's result
    return Tensor();                                      // keeps it
  });
  glia::backward({glia::sum(glia::mul(x, leaf({}, {3}, false)))}, {}, false, false);
  EXPECT_EQ(order, std::vector<std::string>({"first", "second"}));
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({30, 30}));
}

TEST(Engine, HookReplacesNonLeafGradient) {
  Tensor x = leaf({2}, {1, 2});
  Tensor h = glia::mul(x, x);
  std::vector<int> order;
  std::vector<double> seen;
  uint64_t id1 = glia::add_tensor_hook(h, [&](const Tensor& g) {
    order.push_back(1);
    return glia::add(g, leaf({2}, {1, 1}, false));
  });
  glia::add_tensor_hook(h, [&](const Tensor& g) {
    order.push_back(2);
    seen.push_back(values(g)[0]);
    return glia::mul(g, g);
  });
  glia::retain_grad(h);
  glia::backward({glia::sum(h)}, {}, true, false);
  EXPECT_EQ(order, std::vector<int>({1, 2}));
  EXPECT_EQ(seen, std::vector<double>({2}));                    // the second hook sees the first one's result
  EXPECT_EQ(values(grad_of(h)), std::vector<double>({4, 4}));   // retain_grad sees the hooked gradient
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({8, 16}));  // 4 * 2x

  EXPECT_TRUE(glia::remove_tensor_hook(h, id1));
  EXPECT_FALSE(glia::remove_tensor_hook(h, id1));
  order.clear();
  glia::autograd_meta(x).grad = Tensor();
  glia::backward({glia::sum(h)}, {}, false, false);
  EXPECT_EQ(order, std::vector<int>({2}));
  EXPECT_EQ(seen, std::vector<double>({2, 1}));
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({2, 4}));
}

TEST(Engine, HookOnTensorWithoutGradFails) {
  Tensor c = leaf({2}, {1, 2}, false);
  expect_error([&] { glia::add_tensor_hook(c, [](const Tensor&) { return Tensor(); }); }, Code::State,
               "cannot register a hook on a tensor that doesn't require gradient");
}

TEST(Engine, InplaceOnSavedTensorFailsBackward) {
  Tensor x = leaf({2}, {1, 2});
  Tensor h = glia::mul(x, leaf({2}, {1, 1}, false));
  Tensor y = glia::mul(h, h);  // saves h
  glia::add_(h, leaf({}, {1}, false));
  expect_error([&] { glia::backward({glia::sum(y)}, {}, false, false); }, Code::State, kInplace);
}

TEST(Engine, InplaceOnSavedInputThroughAView) {
  Tensor base = leaf({2}, {1, 2}, false);
  Tensor w = leaf({2}, {3, 4});
  Tensor y = glia::mul(w, base);  // saves base
  Tensor view = glia::make_view(base, glia::Dims{1}, glia::Dims{1}, 1);
  glia::mul_(view, leaf({}, {2}, false));
  expect_error([&] { glia::backward({glia::sum(y)}, {}, false, false); }, Code::State, kInplace);
}

TEST(Engine, InplaceOnLeafRequiringGradFails) {
  Tensor x = leaf({2}, {1, 2});
  expect_error(
      [&] {
        glia::add_(x, leaf({2}, {1, 1}, false));
      },
      Code::State, "a leaf Variable that requires grad is being used in an in-place operation.");
  expect_error(
      [&] {
        glia::mul_(x, leaf({2}, {1, 1}, false));
      },
      Code::State, "a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_EQ(values(x), std::vector<double>({1, 2}));
  glia::GradModeGuard no_grad(false);
  glia::add_(x, leaf({2}, {1, 1}, false));  // allowed under no_grad, as torch
  EXPECT_EQ(values(x), std::vector<double>({2, 3}));
}

TEST(Engine, InplaceOnNonLeafRebasesHistory) {
  Tensor x = leaf({2}, {1, 2});
  Tensor y = glia::mul(x, leaf({}, {2}, false));
  glia::add_(y, x);
  EXPECT_FALSE(glia::is_leaf(y));
  EXPECT_STREQ(glia::grad_fn(y)->name(), "AddBackward0");
  glia::backward({glia::sum(y)}, {}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({3, 3}));

  Tensor a = leaf({2}, {1, 2});
  Tensor z = glia::add(a, leaf({2}, {0, 0}, false));
  glia::mul_(z, a);  // z = a * a
  glia::backward({glia::sum(z)}, {}, false, false);
  EXPECT_EQ(values(grad_of(a)), std::vector<double>({2, 4}));

  Tensor b = leaf({2}, {3, -1});
  Tensor s = glia::mul(b, leaf({}, {1}, false));
  glia::mul_(s, s);  // s = b^2, aliasing operands
  glia::backward({glia::sum(s)}, {}, false, false);
  EXPECT_EQ(values(grad_of(b)), std::vector<double>({6, -2}));
}

TEST(Engine, InplaceIntoTensorWithoutGradStartsHistory) {
  Tensor x = leaf({2}, {1, 2});
  Tensor acc = leaf({2}, {0, 0}, false);
  glia::add_(acc, x, 2.0);
  EXPECT_TRUE(acc.requires_grad());
  glia::backward({glia::sum(acc)}, {}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({2, 2}));
}

TEST(Engine, NoGradRecordsNothing) {
  Tensor x = leaf({2}, {1, 2});
  {
    glia::GradModeGuard no_grad(false);
    EXPECT_FALSE(glia::grad_mode_enabled());
    Tensor y = glia::sum(glia::mul(glia::add(x, x), glia::neg(x)));
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(glia::is_leaf(y));
    EXPECT_FALSE(glia::grad_fn(y));
    {
      glia::GradModeGuard enable(true);
      EXPECT_TRUE(glia::mul(x, x).requires_grad());
    }
    EXPECT_FALSE(glia::grad_mode_enabled());
  }
  EXPECT_TRUE(glia::grad_mode_enabled());
}

TEST(Engine, RequiresGradPropagation) {
  Tensor x = leaf({2}, {1, 2}), c = leaf({2}, {3, 4}, false);
  EXPECT_FALSE(glia::add(c, c).requires_grad());
  Tensor y = glia::add(c, x);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(glia::is_leaf(y));
  EXPECT_STREQ(glia::grad_fn(y)->name(), "AddBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::sub(c, x))->name(), "SubBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::mul(c, x))->name(), "MulBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::div(c, x))->name(), "DivBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::neg(x))->name(), "NegBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::sum(x))->name(), "SumBackward0");  // torch: sum() 0, sum(dim) 1
  const int64_t dim0[] = {0};
  EXPECT_STREQ(glia::grad_fn(glia::sum(x, dim0, false))->name(), "SumBackward1");
  expect_error([&] { glia::set_requires_grad(y, false); }, Code::State,
               "you can only change requires_grad flags of leaf variables");
  Tensor i = glia::zeros(glia::Dims{2}, DType::Int64, glia::Device{});
  expect_error([&] { glia::set_requires_grad(i, true); }, Code::DType,
               "only Tensors of floating point dtype can require gradients");
  // Rounding division: torch's DivBackward2, zero gradients (flat almost everywhere).
  EXPECT_STREQ(glia::grad_fn(glia::div(x, c, "floor"))->name(), "DivBackward2");
  EXPECT_STREQ(glia::grad_fn(glia::div(c, x, "trunc"))->name(), "DivBackward2");
}

TEST(Engine, RoundingDivisionHasZeroGradientsAndRemainderItsOwn) {
  Tensor x = leaf({3}, {1.5, -2.5, 3.0});
  Tensor y = leaf({3}, {2.0, 2.0, -4.0});
  glia::backward({glia::sum(glia::div(x, y, "floor"))}, {}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({0, 0, 0}));
  EXPECT_EQ(values(grad_of(y)), std::vector<double>({0, 0, 0}));
  // remainder(x, y) = x - floor(x / y) * y: d/dx = 1, d/dy = -floor(x / y) (torch's RemainderBackward0).
  Tensor x2 = leaf({3}, {1.5, -2.5, 3.0});
  Tensor y2 = leaf({3}, {2.0, 2.0, -4.0});
  Tensor r = glia::sub(x2, glia::mul(glia::div(x2, y2, "floor"), y2), 1.0);
  glia::backward({glia::sum(r)}, {}, false, false);
  EXPECT_EQ(values(grad_of(x2)), std::vector<double>({1, 1, 1}));
  EXPECT_EQ(values(grad_of(y2)), std::vector<double>({-0.0, 2, 1}));
}

TEST(Engine, GradientsAccumulateAcrossBackwards) {
  Tensor x = leaf({2}, {1, 2});
  glia::backward({glia::sum(glia::mul(x, x))}, {}, false, false);
  glia::backward({glia::sum(glia::mul(x, leaf({2}, {5, 7}, false)))}, {}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({7, 11}));
}

// sum's backward hands the leaf an expanded (stride-0) view; accumulating into
// it in place must not write the same element several times.
TEST(Engine, AccumulatesIntoGradFromBroadcastBackward) {
  Tensor x = leaf({3}, {1, 2, 3});
  Tensor y = glia::sum(x);
  glia::backward({y}, {}, true, false);
  glia::backward({y}, {}, true, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({2, 2, 2}));
  Tensor m = leaf({2, 2}, {1, 2, 3, 4});
  Tensor s = glia::sum(m, std::vector<int64_t>{1});
  glia::backward({s}, {leaf({2}, {1, 10}, false)}, true, false);
  glia::backward({s}, {leaf({2}, {1, 10}, false)}, true, false);
  EXPECT_EQ(values(grad_of(m)), std::vector<double>({2, 2, 20, 20}));
}

TEST(Engine, DiamondGraphSumsGradients) {
  Tensor x = leaf({2}, {1, 2});
  Tensor a = glia::mul(x, leaf({}, {3}, false));
  Tensor b = glia::mul(x, x);
  Tensor y = glia::sum(glia::add(a, b));  // 3x + x^2
  glia::backward({y}, {}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({5, 7}));

  Tensor z = leaf({}, {2});
  Tensor h = glia::mul(z, z);
  Tensor u = glia::add(glia::mul(h, z), glia::div(h, z));  // z^3 + z
  glia::backward({u}, {}, false, false);
  EXPECT_EQ(values(grad_of(z)), std::vector<double>({13}));
}

TEST(Engine, SeveralRoots) {
  Tensor x = leaf({2}, {1, 2});
  Tensor y1 = glia::sum(glia::mul(x, x));
  Tensor y2 = glia::mul(x, leaf({}, {3}, false));
  glia::backward({y1, y2}, {Tensor(), leaf({2}, {1, 2}, false)}, false, false);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({5, 10}));
}

TEST(Engine, MixedDtypeGradientsMatchInputs) {
  Tensor x = leaf({2}, {1, 2});
  Tensor f = glia::full(glia::Dims{2}, 0.5, DType::Float32, glia::Device{});
  glia::set_requires_grad(f, true);
  Tensor y = glia::sum(glia::mul(x, f));
  EXPECT_EQ(y.dtype(), DType::Float64);
  glia::backward({y}, {}, false, false);
  EXPECT_EQ(grad_of(f).dtype(), DType::Float32);
  EXPECT_EQ(values(grad_of(f)), std::vector<double>({1, 2}));
  EXPECT_EQ(grad_of(x).dtype(), DType::Float64);
  EXPECT_EQ(values(grad_of(x)), std::vector<double>({0.5, 0.5}));
}

}  // namespace
