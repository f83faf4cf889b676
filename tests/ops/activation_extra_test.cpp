// The activations of issue 21 against tests/golden/gen_activation_extra.py's
// fixtures (activation_extra.json), and the autograd rules of the in-place
// activations (torch's node names, saved results, version counters) and of
// rrelu in training (glia's generator).
#include "autograd/engine.h"
#include "autograd/functions.h"
#include "capi/api.h"
#include "core/random.h"
#include "ops/golden_support.h"
#include "support/gradcheck.h"

using namespace glia_ops_test;

namespace {
// Runs op on a clone of c.in[0]; the clone is the output (released on failure).
template <class F>
glia_error* on_clone(Call& c, F op) {
  glia_tensor* self = nullptr;
  if (glia_error* e = glia_tensor_clone(c.in[0], &self)) return e;
  if (glia_error* e = op(self)) {
    glia_error_free(glia_tensor_release(self));
    return e;
  }
  *c.out() = self;
  return nullptr;
}
constexpr double kLower = 1.0 / 8.0, kUpper = 1.0 / 3.0;
}  // namespace

GLIA_ADAPTER(prelu) { return glia_prelu(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(rrelu) { return glia_rrelu(c.in[0], c.num("lower", kLower), c.num("upper", kUpper), 0, c.out()); }
GLIA_ADAPTER(glu) { return glia_glu(c.in[0], c.integer("dim", -1), c.out()); }
GLIA_ADAPTER(celu) { return glia_celu(c.in[0], c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(selu) { return glia_selu(c.in[0], c.out()); }
GLIA_ADAPTER(softmin) { return glia_softmin(c.in[0], c.integer("dim", 0), c.out()); }
GLIA_ADAPTER(softshrink) { return glia_softshrink(c.in[0], c.num("lambd", 0.5), c.out()); }
GLIA_ADAPTER(hardshrink) { return glia_hardshrink(c.in[0], c.num("lambd", 0.5), c.out()); }
GLIA_ADAPTER(tanhshrink) { return glia_tanhshrink(c.in[0], c.out()); }
GLIA_ADAPTER(threshold) { return glia_threshold(c.in[0], c.num("threshold", 0), c.num("value", 0), c.out()); }
GLIA_ADAPTER(relu6) { return glia_relu6(c.in[0], c.out()); }
GLIA_ADAPTER(hardsigmoid) { return glia_hardsigmoid(c.in[0], c.out()); }
GLIA_ADAPTER(mish) { return glia_mish(c.in[0], c.out()); }
GLIA_ADAPTER(logsigmoid) { return glia_logsigmoid(c.in[0], c.out()); }
GLIA_ADAPTER(leaky_relu_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_leaky_relu_(s, c.num("negative_slope", 0.01)); });
}
GLIA_ADAPTER(elu_) {
  return on_clone(c, [&](glia_tensor* s) {
    return glia_elu_(s, c.num("alpha", 1.0), c.num("scale", 1.0), c.num("input_scale", 1.0));
  });
}
GLIA_ADAPTER(celu_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_celu_(s, c.num("alpha", 1.0)); });
}
GLIA_ADAPTER(selu_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_selu_(s); });
}
GLIA_ADAPTER(hardtanh_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_hardtanh_(s, c.num("min_val", -1.0), c.num("max_val", 1.0)); });
}
GLIA_ADAPTER(threshold_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_threshold_(s, c.num("threshold", 0), c.num("value", 0)); });
}
GLIA_ADAPTER(rrelu_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_rrelu_(s, c.num("lower", kLower), c.num("upper", kUpper), 0); });
}
GLIA_ADAPTER(hardsigmoid_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_hardsigmoid_(s); });
}
GLIA_ADAPTER(hardswish_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_hardswish_(s); });
}
GLIA_ADAPTER(mish_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_mish_(s); });
}
GLIA_ADAPTER(silu_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_silu_(s); });
}

TEST(ActivationExtra, Golden) { run_cases("activation_extra.json"); }
TEST(ActivationExtra, Errors) { run_errors("activation_extra.json"); }

namespace {
using glia::Tensor;
std::string node_name(const Tensor& t) { return glia::grad_fn(t)->name(); }
double at(const Tensor& t, int64_t i) { return glia::contiguous(t).data_ptr<double>()[i]; }
}  // namespace

TEST(ActivationExtra, GradFnNames) {
  Tensor x = glia::randn(glia::Dims{2, 4}, glia::DType::Float64, glia::Device{});
  glia::set_requires_grad(x, true);
  Tensor w = glia_test::leaf({4}, {0.1, 0.2, 0.3, 0.4});
  EXPECT_EQ(node_name(glia::prelu(x, w)), "PreluBackward0");
  EXPECT_EQ(node_name(glia::rrelu(x, kLower, kUpper, true)), "RreluWithNoiseBackward0");
  EXPECT_EQ(node_name(glia::rrelu(x, kLower, kUpper, false)), "RreluWithNoiseBackward0");
  EXPECT_EQ(node_name(glia::glu(x, 1)), "GluBackward0");
  EXPECT_EQ(node_name(glia::celu(x)), "CeluBackward0");
  EXPECT_EQ(node_name(glia::selu(x)), "EluBackward0");
  EXPECT_EQ(node_name(glia::softmin(x, 1)), "SoftmaxBackward0");
  EXPECT_EQ(node_name(glia::softshrink(x)), "SoftshrinkBackward0");
  EXPECT_EQ(node_name(glia::hardshrink(x)), "HardshrinkBackward0");
  EXPECT_EQ(node_name(glia::tanhshrink(x)), "SubBackward0");
  EXPECT_EQ(node_name(glia::threshold(x, 0.1, 2.0)), "ThresholdBackward0");
  EXPECT_EQ(node_name(glia::relu6(x)), "HardtanhBackward0");
  EXPECT_EQ(node_name(glia::hardsigmoid(x)), "HardsigmoidBackward0");
  EXPECT_EQ(node_name(glia::mish(x)), "MishBackward0");
  EXPECT_EQ(node_name(glia::log_sigmoid(x)), "LogSigmoidBackward0");
  // The in-place forms (torch 1.13's names: *Backward1 where torch saves the result).
  std::vector<std::pair<std::string, std::function<void(const Tensor&)>>> inplace = {
      {"LeakyReluBackward1", [](const Tensor& t) { glia::leaky_relu_(t, 0.1); }},
      {"EluBackward1", [](const Tensor& t) { glia::elu_(t); }},
      {"CeluBackward1", [](const Tensor& t) { glia::celu_(t); }},
      {"EluBackward1", [](const Tensor& t) { glia::selu_(t); }},
      {"HardtanhBackward0", [](const Tensor& t) { glia::hardtanh_(t); }},
      {"ThresholdBackward1", [](const Tensor& t) { glia::threshold_(t, 0.1, 2.0); }},
      {"RreluWithNoiseBackward1", [](const Tensor& t) { glia::rrelu_(t, kLower, kUpper, true); }},
      {"RreluWithNoiseBackward1", [](const Tensor& t) { glia::rrelu_(t, kLower, kUpper, false); }},
      {"HardsigmoidBackward0", [](const Tensor& t) { glia::hardsigmoid_(t); }},
      {"HardswishBackward0", [](const Tensor& t) { glia::hardswish_(t); }},
      {"MishBackward0", [](const Tensor& t) { glia::mish_(t); }},
      {"SiluBackward0", [](const Tensor& t) { glia::silu_(t); }},
  };
  for (auto& [name, f] : inplace) {
    SCOPED_TRACE(name);
    Tensor y = glia::clone_with_grad(x);
    f(y);
    EXPECT_EQ(node_name(y), name);
  }
}

// Every in-place activation bumps the version counter once, refuses a leaf that requires grad
// (torch's message) and leaves it unchanged.
TEST(ActivationExtra, InplaceVersionCounterAndLeafRule) {
  std::vector<std::pair<const char*, std::function<glia_error*(glia_tensor*)>>> calls = {
      {"leaky_relu_", [](glia_tensor* s) { return glia_leaky_relu_(s, 0.1); }},
      {"elu_", [](glia_tensor* s) { return glia_elu_(s, 1.0, 1.0, 1.0); }},
      {"celu_", [](glia_tensor* s) { return glia_celu_(s, 1.0); }},
      {"selu_", [](glia_tensor* s) { return glia_selu_(s); }},
      {"hardtanh_", [](glia_tensor* s) { return glia_hardtanh_(s, -1.0, 1.0); }},
      {"threshold_", [](glia_tensor* s) { return glia_threshold_(s, 0.5, 2.0); }},
      {"rrelu_", [](glia_tensor* s) { return glia_rrelu_(s, kLower, kUpper, 1); }},
      {"hardsigmoid_", [](glia_tensor* s) { return glia_hardsigmoid_(s); }},
      {"hardswish_", [](glia_tensor* s) { return glia_hardswish_(s); }},
      {"mish_", [](glia_tensor* s) { return glia_mish_(s); }},
      {"silu_", [](glia_tensor* s) { return glia_silu_(s); }},
  };
  for (auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    Handles h;
    glia_tensor* x = make(h, {-1.5, 0.25, 2.0}, {3});
    Tensor xt = glia::capi::tensor_arg(x, "test", "x");
    const int64_t v0 = static_cast<int64_t>(xt.impl()->storage()->version.load());
    GLIA_OK_(call(x));
    EXPECT_EQ(static_cast<int64_t>(xt.impl()->storage()->version.load()), v0 + 1);
    std::vector<double> before = values(x);
    GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
    glia_error* e = call(x);
    ASSERT_NE(e, nullptr);
    glia_test::ErrorInfo info = glia_test::take(e);
    EXPECT_EQ(info.code, GLIA_ERR_STATE);
    EXPECT_NE(info.message.find("a leaf Variable that requires grad is being used in an in-place operation. (" +
                                std::string(name) + ")"),
              std::string::npos)
        << info.message;
    EXPECT_EQ(values(x), before);
  }
}

// leaky_relu_ saves its result: a later in-place change of it is caught in backward, naming the node.
TEST(ActivationExtra, InplaceSavedResultModifiedFailsBackward) {
  Tensor x = glia_test::leaf({3}, {1.5, -1.0, 0.5});
  Tensor y = glia::clone_with_grad(x);
  glia::leaky_relu_(y, 0.1);
  glia::mul_scalar_(y, glia::Scalar::from_int(2));
  try {
    glia::backward({glia::sum(y)}, {}, false, false);
    ADD_FAILURE() << "backward through a modified saved result succeeded";
  } catch (const glia::Error& e) {
    EXPECT_NE(std::string(e.what()).find("which is output of LeakyReluBackward1"), std::string::npos) << e.what();
  }
  // mish_ saves a copy of self before the write: the same later change does not matter.
  Tensor z = glia::clone_with_grad(x);
  glia::mish_(z);
  glia::mul_scalar_(z, glia::Scalar::from_int(2));
  glia::backward({glia::sum(z)}, {}, false, false);
  Tensor g = glia::autograd_meta(x).grad;
  ASSERT_TRUE(g.defined());
  // 2 * mish'(x) at x = 1.5, -1.0, 0.5 (torch 1.13: torch.autograd.grad(2 * F.mish(x).sum(), x)).
  const double want[] = {2.176975970015695, 0.11843351175479003, 1.7728487507154544};
  for (int64_t i = 0; i < 3; ++i) EXPECT_NEAR(at(g, i), want[i], 1e-12);
}

// torch refuses the backward of leaky_relu_ / elu_ with a negative slope (the result cannot give the
// input's sign); the forward runs.
TEST(ActivationExtra, InplaceNegativeSlopeBackwardFails) {
  std::vector<std::pair<std::string, std::function<void(const Tensor&)>>> fs = {
      {"In-place leakyReLu backward calculation is triggered with a negative slope which is not supported.",
       [](const Tensor& t) { glia::leaky_relu_(t, -0.2); }},
      {"In-place elu backward calculation is triggered with a negative slope which is not supported.",
       [](const Tensor& t) { glia::elu_(t, -1.0); }},
  };
  for (auto& [msg, f] : fs) {
    Tensor x = glia_test::leaf({2}, {1.5, -1.0});
    Tensor y = glia::clone_with_grad(x);
    f(y);
    try {
      glia::backward({glia::sum(y)}, {}, false, false);
      ADD_FAILURE() << "backward succeeded";
    } catch (const glia::Error& e) {
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
    }
  }
}

// rrelu in training: slopes in [lower, upper] where x <= 0, x elsewhere; the same seed gives the
// same slopes; the gradient is the slope (torch's noise).
TEST(ActivationExtra, RreluTraining) {
  const int64_t n = 2000;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = (i % 2 ? -1.0 : 1.0) * (0.5 + static_cast<double>(i) / n);
  Tensor x = glia::empty(glia::Dims{n}, glia::DType::Float64, glia::Device{});
  std::copy(v.begin(), v.end(), x.data_ptr<double>());
  glia::set_requires_grad(x, true);
  glia::manual_seed(7);
  Tensor y = glia::rrelu(x, 0.1, 0.3, true);
  glia::backward({glia::sum(y)}, {}, false, false);
  Tensor g = glia::contiguous(glia::autograd_meta(x).grad);
  Tensor yc = glia::contiguous(glia::detach(y));
  double lo = 1, hi = 0, mean = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double yi = yc.data_ptr<double>()[i], gi = g.data_ptr<double>()[i];
    if (v[i] > 0) {
      EXPECT_EQ(yi, v[i]);
      EXPECT_EQ(gi, 1.0);
    } else {
      const double slope = yi / v[i];
      EXPECT_NEAR(gi, slope, 1e-12);
      lo = std::min(lo, slope);
      hi = std::max(hi, slope);
      mean += slope / (n / 2);
    }
  }
  EXPECT_GE(lo, 0.1);
  EXPECT_LE(hi, 0.3);
  EXPECT_LT(lo, 0.11);  // 1000 draws spread over the interval
  EXPECT_GT(hi, 0.29);
  EXPECT_NEAR(mean, 0.2, 0.01);
  glia::manual_seed(7);
  Tensor y2 = glia::contiguous(glia::detach(glia::rrelu(x, 0.1, 0.3, true)));
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(y2.data_ptr<double>()[i], yc.data_ptr<double>()[i]);
}

// The fused first-order kernels (no create_graph) and the differentiable rules (create_graph) agree.
TEST(ActivationExtra, FusedBackwardMatchesComposite) {
  Tensor x = glia::mul_scalar(glia::randn(glia::Dims{50}, glia::DType::Float64, glia::Device{}),
                              glia::Scalar::from_double(3.0));
  x = glia::detach(x);
  glia::set_requires_grad(x, true);
  std::vector<std::function<Tensor(const Tensor&)>> fs = {
      [](const Tensor& t) { return glia::hardshrink(t); },  [](const Tensor& t) { return glia::softshrink(t, 1.0); },
      [](const Tensor& t) { return glia::hardsigmoid(t); }, [](const Tensor& t) { return glia::mish(t); },
      [](const Tensor& t) { return glia::log_sigmoid(t); }, [](const Tensor& t) { return glia::threshold(t, 0.3, 2); },
  };
  for (size_t k = 0; k < fs.size(); ++k) {
    SCOPED_TRACE(k);
    Tensor g1 = glia::grad({glia::sum(fs[k](x))}, {x}, {}, false, false, false)[0];
    Tensor g2 = glia::grad({glia::sum(fs[k](x))}, {x}, {}, false, true, false)[0];
    for (int64_t i = 0; i < 50; ++i) EXPECT_NEAR(at(g1, i), at(glia::detach(g2), i), 1e-12);
  }
}
