// In-place ops against tests/golden/gen_elementwise.py's fixtures (inplace.json):
// each adapter clones its first input (glia_tensor_clone is differentiable),
// runs the in-place op on the clone and returns it. Plus the autograd rules
// of in-place ops: version counters, the leaf rule, modified saved tensors.
#include "autograd/engine.h"
#include "autograd/functions.h"
#include "capi/api.h"
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
const glia_scalar* opt_scalar(Call& c, const char* key, glia_scalar& storage) {
  if (!c.has(key)) return nullptr;
  storage = c.scalar(key);
  return &storage;
}
glia_scalar value_arg(Call& c) { return c.has("value") ? c.scalar("value") : glia_scalar_int(1); }
}  // namespace

GLIA_ADAPTER(add_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_add_(s, c.in[1], c.num("alpha", 1.0)); });
}
GLIA_ADAPTER(sub_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_sub_(s, c.in[1], c.num("alpha", 1.0)); });
}
GLIA_ADAPTER(mul_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_mul_(s, c.in[1]); });
}
GLIA_ADAPTER(div_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_div_(s, c.in[1]); });
}
GLIA_ADAPTER(add_scalar_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_add_scalar_(s, c.scalar("s"), c.num("alpha", 1.0)); });
}
GLIA_ADAPTER(mul_scalar_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_mul_scalar_(s, c.scalar("s")); });
}
GLIA_ADAPTER(addcmul_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_addcmul_(s, c.in[1], c.in[2], value_arg(c)); });
}
GLIA_ADAPTER(addcdiv_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_addcdiv_(s, c.in[1], c.in[2], value_arg(c)); });
}
GLIA_ADAPTER(zero_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_zero_(s); });
}
GLIA_ADAPTER(fill_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_fill_(s, c.scalar("value")); });
}
GLIA_ADAPTER(copy_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_copy_(s, c.in[1]); });
}
GLIA_ADAPTER(clamp_) {
  glia_scalar lo, hi;
  const glia_scalar* l = opt_scalar(c, "min", lo);
  const glia_scalar* u = opt_scalar(c, "max", hi);
  return on_clone(c, [&](glia_tensor* s) { return glia_clamp_(s, l, u); });
}
GLIA_ADAPTER(relu_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_relu_(s); });
}

TEST(Inplace, Golden) { run_cases("inplace.json"); }
TEST(Inplace, Errors) { run_errors("inplace.json"); }

namespace {

int64_t version_of(glia_tensor* t) {
  return static_cast<int64_t>(glia::capi::tensor_arg(t, "test", "t").impl()->storage()->version.load());
}

// Each in-place entry point on x (float64 [3]); nullptr on success.
std::vector<std::pair<const char*, std::function<glia_error*(glia_tensor*, glia_tensor*)>>> inplace_calls() {
  return {
      {"add_", [](glia_tensor* s, glia_tensor* o) { return glia_add_(s, o, 1.0); }},
      {"sub_", [](glia_tensor* s, glia_tensor* o) { return glia_sub_(s, o, 1.0); }},
      {"mul_", [](glia_tensor* s, glia_tensor* o) { return glia_mul_(s, o); }},
      {"div_", [](glia_tensor* s, glia_tensor* o) { return glia_div_(s, o); }},
      {"add_scalar_", [](glia_tensor* s, glia_tensor*) { return glia_add_scalar_(s, glia_scalar_int(1), 1.0); }},
      {"mul_scalar_", [](glia_tensor* s, glia_tensor*) { return glia_mul_scalar_(s, glia_scalar_float(2)); }},
      {"addcmul_", [](glia_tensor* s, glia_tensor* o) { return glia_addcmul_(s, o, o, glia_scalar_int(1)); }},
      {"addcdiv_", [](glia_tensor* s, glia_tensor* o) { return glia_addcdiv_(s, o, o, glia_scalar_int(1)); }},
      {"zero_", [](glia_tensor* s, glia_tensor*) { return glia_zero_(s); }},
      {"fill_", [](glia_tensor* s, glia_tensor*) { return glia_fill_(s, glia_scalar_float(2)); }},
      {"copy_", [](glia_tensor* s, glia_tensor* o) { return glia_copy_(s, o); }},
      {"clamp_",
       [](glia_tensor* s, glia_tensor*) {
         glia_scalar lo = glia_scalar_float(0);
         return glia_clamp_(s, &lo, nullptr);
       }},
      {"relu_", [](glia_tensor* s, glia_tensor*) { return glia_relu_(s); }},
  };
}

}  // namespace

// Every in-place op bumps the version counter and refuses a leaf that requires grad.
TEST(Inplace, VersionCounterAndLeafRule) {
  for (auto& [name, call] : inplace_calls()) {
    SCOPED_TRACE(name);
    Handles h;
    glia_tensor* x = make(h, {1.0, 2.0, 3.0}, {3});
    glia_tensor* o = make(h, {0.5, 1.5, 2.5}, {3});
    int64_t v0 = version_of(x);
    GLIA_OK_(call(x, o));
    EXPECT_EQ(version_of(x), v0 + 1);
    GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
    glia_error* e = call(x, o);
    ASSERT_NE(e, nullptr);
    glia_test::ErrorInfo info = glia_test::take(e);
    EXPECT_EQ(info.code, GLIA_ERR_STATE);
    EXPECT_NE(info.message.find("a leaf Variable that requires grad is being used in an in-place operation."),
              std::string::npos)
        << info.message;
  }
}

// y = x.exp(); y.add_(1); backward needs the original y: torch's error.
TEST(Inplace, ModifiedSavedTensorFailsBackward) {
  Handles h;
  glia_tensor* x = make(h, {0.5, -1.0}, {2});
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_exp(x, &y));
  h.add(y);
  GLIA_OK_(glia_add_scalar_(y, glia_scalar_int(1), 1.0));
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &s));
  h.add(s);
  glia_error* e = glia_tensor_backward(s, nullptr, 0);
  ASSERT_NE(e, nullptr);
  glia_test::ErrorInfo info = glia_test::take(e);
  EXPECT_EQ(info.code, GLIA_ERR_STATE);
  EXPECT_NE(info.message.find("one of the variables needed for gradient computation has been modified by an "
                              "inplace operation"),
            std::string::npos)
      << info.message;
}

// The same with an input saved by its consumer: z = x * w; w.mul_(2) -> backward fails.
TEST(Inplace, ModifiedSavedInputFailsBackward) {
  Handles h;
  glia_tensor* x = make(h, {0.5, -1.0}, {2});
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_sigmoid(x, &w));
  h.add(w);
  glia_tensor* z = nullptr;
  GLIA_OK_(glia_mul(x, w, &z));
  h.add(z);
  GLIA_OK_(glia_relu_(w));
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(z, nullptr, 0, 0, &s));
  h.add(s);
  glia_error* e = glia_tensor_backward(s, nullptr, 0);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(glia_test::take(e).message.find("modified by an inplace operation"), std::string::npos);
}

// In-place ops rebase history: grads flow through the in-place nodes (torch's values).
TEST(Inplace, HistoryIsRebased) {
  using glia::Tensor;
  Tensor x = glia_test::leaf({3}, {1.0, -1.5, 3.0});
  Tensor y = glia::mul(x, x);                                     // x^2
  glia::add_scalar_(y, glia::Scalar::from_int(1));                // x^2 + 1
  glia::clamp_(y, std::nullopt, glia::Scalar::from_double(5.0));  // min(x^2 + 1, 5)
  glia::addcmul_(y, x, x, glia::Scalar::from_double(0.5));        // + 0.5 x^2
  EXPECT_STREQ(glia::grad_fn(y)->name(), "AddcmulBackward0");
  glia::backward({glia::sum(y)}, {}, false, false);
  // d/dx = 2x [x^2 + 1 <= 5] + x
  Tensor g = glia::contiguous(glia::autograd_meta(x).grad);
  EXPECT_DOUBLE_EQ(g.data_ptr<double>()[0], 3.0);
  EXPECT_DOUBLE_EQ(g.data_ptr<double>()[1], -4.5);
  EXPECT_DOUBLE_EQ(g.data_ptr<double>()[2], 3.0);
}

// relu_ saves its own output (a detached alias, so no node -> output -> node
// cycle): backward uses it, and a later in-place change of it is detected as in torch.
TEST(Inplace, ReluInplaceSavedOutput) {
  using glia::Tensor;
  Tensor x = glia_test::leaf({2}, {1.5, -1.0});
  Tensor y = glia::clone_with_grad(x);
  glia::relu_(y);
  glia::backward({glia::sum(glia::mul(y, y))}, {}, false, false);
  Tensor g = glia::contiguous(glia::autograd_meta(x).grad);
  EXPECT_DOUBLE_EQ(g.data_ptr<double>()[0], 3.0);
  EXPECT_DOUBLE_EQ(g.data_ptr<double>()[1], 0.0);

  Tensor z = glia::clone_with_grad(x);
  glia::relu_(z);
  glia::mul_scalar_(z, glia::Scalar::from_int(2));
  try {
    glia::backward({glia::sum(z)}, {}, false, false);
    ADD_FAILURE() << "backward through a modified saved output succeeded";
  } catch (const glia::Error& e) {
    EXPECT_NE(std::string(e.what()).find("which is output of ReluBackward0"), std::string::npos) << e.what();
  }
}
