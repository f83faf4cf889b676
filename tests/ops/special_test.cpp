// Elementwise and special functions against tests/golden/gen_special.py's
// fixtures (special.json), and the gradients torch refuses.
#include <string>

#include "ops/golden_support.h"

using namespace glia_ops_test;

#define BINARY_ADAPTER(op) \
  GLIA_ADAPTER(op) { return glia_##op(c.in[0], c.in[1], c.out()); }
BINARY_ADAPTER(logaddexp)
BINARY_ADAPTER(logaddexp2)
BINARY_ADAPTER(heaviside)
BINARY_ADAPTER(nextafter)
BINARY_ADAPTER(igamma)
BINARY_ADAPTER(igammac)
BINARY_ADAPTER(ldexp)
BINARY_ADAPTER(float_power)
#undef BINARY_ADAPTER
GLIA_ADAPTER(dist) { return glia_dist(c.in[0], c.in[1], c.num("p", 2.0), c.out()); }
GLIA_ADAPTER(frexp) {
  glia_tensor** outs = c.out(2);
  return glia_frexp(c.in[0], &outs[0], &outs[1]);
}
GLIA_ADAPTER(polygamma) { return glia_polygamma(c.integer("n", 0), c.in[0], c.out()); }
GLIA_ADAPTER(mvlgamma) { return glia_mvlgamma(c.in[0], c.integer("p", 1), c.out()); }
GLIA_ADAPTER(i0) { return glia_i0(c.in[0], c.out()); }
GLIA_ADAPTER(special_i1) { return glia_special_i1(c.in[0], c.out()); }
GLIA_ADAPTER(sinc) { return glia_sinc(c.in[0], c.out()); }
GLIA_ADAPTER(renorm) {
  return glia_renorm(c.in[0], c.num("p", 2.0), c.integer("dim", 0), c.num("maxnorm", 1.0), c.out());
}

TEST(Special, Golden) { run_cases("special.json"); }
TEST(Special, Errors) { run_errors("special.json"); }

namespace {

using glia_test::Handles;
using glia_test::make;
using glia_test::ok;
using glia_test::values;

// Backward through igamma / igammac with `a` requiring grad: torch's NotImplementedError text.
void expect_no_gradient_for_a(glia_error* (*fn)(const glia_tensor*, const glia_tensor*, glia_tensor**),
                              const char* name) {
  Handles h;
  glia_tensor* a = make(h, {0.5, 2.0}, {2});
  glia_tensor* x = make(h, {1.0, 3.0}, {2});
  ok(glia_tensor_set_requires_grad(a, 1), "requires_grad");
  glia_tensor *out = nullptr, *total = nullptr;
  ok(fn(a, x, &out), name);
  h.add(out);
  ok(glia_sum(out, nullptr, 0, 0, &total), "sum");
  h.add(total);
  glia_error* e = glia_tensor_backward(total, nullptr, 0);
  ASSERT_NE(e, nullptr) << name;
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(glia_error_message(e))
                .find(std::string("the derivative for '") + name + ": input' is not implemented."),
            std::string::npos)
      << glia_error_message(e);
  glia_error_free(e);
}

TEST(Special, IgammaHasNoGradientForItsFirstArgument) {
  expect_no_gradient_for_a(glia_igamma, "igamma");
  expect_no_gradient_for_a(glia_igammac, "igammac");
}

// heaviside and nextafter record no graph: their results do not require grad.
TEST(Special, HeavisideAndNextafterAreNotDifferentiable) {
  Handles h;
  glia_tensor* a = make(h, {-1.0, 0.0, 2.0}, {3});
  glia_tensor* b = make(h, {0.5, 0.5, 0.5}, {3});
  ok(glia_tensor_set_requires_grad(a, 1), "requires_grad");
  for (auto fn : {glia_heaviside, glia_nextafter}) {
    glia_tensor* out = nullptr;
    ok(fn(a, b, &out), "op");
    h.add(out);
    int32_t rg = 1;
    ok(glia_tensor_requires_grad(out, &rg), "requires_grad");
    EXPECT_EQ(rg, 0);
  }
  glia_tensor* out = nullptr;
  ok(glia_heaviside(a, b, &out), "heaviside");
  h.add(out);
  EXPECT_EQ(values(out), (std::vector<double>{0.0, 0.5, 1.0}));
}

}  // namespace
