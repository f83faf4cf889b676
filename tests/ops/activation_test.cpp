// Activations against tests/golden/gen_elementwise.py's fixtures (activation.json).
#include "autograd/engine.h"
#include "autograd/functions.h"
#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(relu) { return glia_relu(c.in[0], c.out()); }
GLIA_ADAPTER(leaky_relu) { return glia_leaky_relu(c.in[0], c.num("negative_slope", 0.01), c.out()); }
GLIA_ADAPTER(elu) {
  return glia_elu(c.in[0], c.num("alpha", 1.0), c.num("scale", 1.0), c.num("input_scale", 1.0), c.out());
}
GLIA_ADAPTER(gelu) {
  std::string mode = c.str("approximate", "none");
  return glia_gelu(c.in[0], mode.c_str(), c.out());
}
GLIA_ADAPTER(silu) { return glia_silu(c.in[0], c.out()); }
GLIA_ADAPTER(hardswish) { return glia_hardswish(c.in[0], c.out()); }
GLIA_ADAPTER(sigmoid) { return glia_sigmoid(c.in[0], c.out()); }
GLIA_ADAPTER(tanh) { return glia_tanh(c.in[0], c.out()); }
GLIA_ADAPTER(softplus) { return glia_softplus(c.in[0], c.num("beta", 1.0), c.num("threshold", 20.0), c.out()); }
GLIA_ADAPTER(hardtanh) { return glia_hardtanh(c.in[0], c.num("min_val", -1.0), c.num("max_val", 1.0), c.out()); }

TEST(Activation, Golden) { run_cases("activation.json"); }
TEST(Activation, Errors) { run_errors("activation.json"); }

TEST(Activation, GeluNullApproximateIsNone) {
  Handles h;
  glia_tensor* x = make(h, {-1.0, 0.5, 2.0}, {3});
  glia_tensor *a = nullptr, *b = nullptr;
  GLIA_OK_(glia_gelu(x, nullptr, &a));
  h.add(a);
  GLIA_OK_(glia_gelu(x, "none", &b));
  h.add(b);
  EXPECT_EQ(values(a), values(b));
}

TEST(Activation, GradFnNames) {
  using glia::Tensor;
  Tensor x = glia::randn(glia::Dims{3}, glia::DType::Float64, glia::Device{});
  glia::set_requires_grad(x, true);
  auto name = [](const Tensor& t) { return std::string(glia::grad_fn(t)->name()); };
  EXPECT_EQ(name(glia::relu(x)), "ReluBackward0");
  EXPECT_EQ(name(glia::leaky_relu(x)), "LeakyReluBackward0");
  EXPECT_EQ(name(glia::elu(x)), "EluBackward0");
  EXPECT_EQ(name(glia::gelu(x)), "GeluBackward0");
  EXPECT_EQ(name(glia::silu(x)), "SiluBackward0");
  EXPECT_EQ(name(glia::sigmoid(x)), "SigmoidBackward0");
  EXPECT_EQ(name(glia::tanh(x)), "TanhBackward0");
  EXPECT_EQ(name(glia::softplus(x)), "SoftplusBackward0");
  EXPECT_EQ(name(glia::hardtanh(x)), "HardtanhBackward0");
}

// The fused first-order kernels (no create_graph) and the differentiable
// composite rules (create_graph) give the same gradients.
TEST(Activation, FusedBackwardMatchesComposite) {
  using glia::Tensor;
  Tensor x = glia::randn(glia::Dims{50}, glia::DType::Float64, glia::Device{});
  glia::set_requires_grad(x, true);
  std::vector<std::function<Tensor(const Tensor&)>> fs = {
      [](const Tensor& t) { return glia::relu(t); },       [](const Tensor& t) { return glia::sigmoid(t); },
      [](const Tensor& t) { return glia::tanh(t); },       [](const Tensor& t) { return glia::gelu(t, false); },
      [](const Tensor& t) { return glia::gelu(t, true); }, [](const Tensor& t) { return glia::silu(t); },
  };
  for (size_t k = 0; k < fs.size(); ++k) {
    SCOPED_TRACE(k);
    Tensor y1 = glia::sum(fs[k](x));
    Tensor g1 = glia::grad({y1}, {x}, {}, false, false, false)[0];
    Tensor y2 = glia::sum(fs[k](x));
    Tensor g2 = glia::grad({y2}, {x}, {}, false, true, false)[0];
    Tensor c1 = glia::contiguous(g1), c2 = glia::contiguous(glia::detach(g2));
    for (int64_t i = 0; i < 50; ++i) EXPECT_NEAR(c1.data_ptr<double>()[i], c2.data_ptr<double>()[i], 1e-12);
  }
}
