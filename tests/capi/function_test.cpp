// Custom autograd functions (glia_autograd_function_apply): gradients through
// host callbacks, saved inputs and outputs, double backward, several inputs
// and outputs, user_data lifetime, and errors from the callbacks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

struct Handles {
  std::vector<glia_tensor*> hs;
  glia_tensor* add(glia_tensor* t) {
    if (t) hs.push_back(t);
    return t;
  }
  ~Handles() {
    for (auto it = hs.rbegin(); it != hs.rend(); ++it) glia_error_free(glia_tensor_release(*it));
  }
};

glia_tensor* vec(Handles& h, std::vector<double> v) {
  glia_tensor* t = nullptr;
  int64_t n = static_cast<int64_t>(v.size());
  EXPECT_EQ(glia_tensor_from_data(v.data(), v.size() * sizeof(double), &n, 1, GLIA_FLOAT64, &t), nullptr);
  return h.add(t);
}

std::vector<double> host(glia_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
  std::vector<double> v(static_cast<size_t>(n));
  glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(double));
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

glia_tensor* grad_of(Handles& h, glia_tensor* t) {
  glia_tensor* g = nullptr;
  EXPECT_EQ(glia_tensor_grad(t, &g), nullptr);
  return h.add(g);
}

// What the callbacks record; user_data of every test.
struct State {
  int forwards = 0, backwards = 0, frees = 0;
  bool fail_forward = false, fail_backward = false, leave_null = false, wrong_shape = false;
  bool save_output = false;
  int32_t needs[2] = {-1, -1};
  // What backward saw of ctx.saved_tensors: requires_grad and the grad_fn's name.
  int32_t saved_requires_grad[2] = {-1, -1};
  std::string saved_grad_fn[2];
};

void free_state(void* p) { ++static_cast<State*>(p)->frees; }

// Cube: y = x^3. Saves x, or y and x (save_output): backward 3 x^2 g, computed with glia's ops so that
// it is differentiable itself.
glia_error* cube_forward(void* ud, glia_autograd_ctx* ctx, const glia_tensor* const* in, int64_t, glia_tensor** out,
                         int64_t) {
  State* s = static_cast<State*>(ud);
  ++s->forwards;
  if (s->fail_forward) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "cube: bad input");
  if (s->leave_null) return nullptr;
  glia_error* e = glia_autograd_ctx_needs_input_grad(ctx, 0, &s->needs[0]);
  if (e) return e;
  glia_tensor* x2 = nullptr;
  if ((e = glia_mul(in[0], in[0], &x2))) return e;
  e = glia_mul(x2, in[0], &out[0]);
  glia_error_free(glia_tensor_release(x2));
  if (e) return e;
  const glia_tensor* save[2] = {in[0], out[0]};
  return glia_autograd_ctx_save_for_backward(ctx, save, s->save_output ? 2 : 1);
}

glia_error* cube_backward(void* ud, glia_autograd_ctx* ctx, const glia_tensor* const* g, int64_t, glia_tensor** gin,
                          int64_t) {
  State* s = static_cast<State*>(ud);
  ++s->backwards;
  if (s->fail_backward) return glia_error_new(GLIA_ERR_STATE, "cube backward exploded");
  glia_tensor* saved[2] = {nullptr, nullptr};
  int64_t n = 0;
  glia_error* e = glia_autograd_ctx_saved_tensors(ctx, nullptr, 0, &n);
  if (e) return e;
  if ((e = glia_autograd_ctx_saved_tensors(ctx, saved, 2, &n))) return e;
  for (int64_t i = 0; i < n && !e; ++i) {
    char buf[64];
    size_t len = 0;
    e = glia_tensor_requires_grad(saved[i], &s->saved_requires_grad[i]);
    if (!e) e = glia_tensor_grad_fn_name(saved[i], buf, sizeof buf, &len);
    if (!e) s->saved_grad_fn[i].assign(buf, len);
  }
  glia_tensor *x2 = nullptr, *t = nullptr;
  if (!e && n == 2) {
    e = glia_div(saved[1], saved[0], nullptr, &x2);  // y / x = x^2, through the saved output
  } else if (!e) {
    e = glia_mul(saved[0], saved[0], &x2);
  }
  if (!e) e = glia_mul(x2, g[0], &t);
  glia_tensor* three = nullptr;
  if (!e) e = glia_tensor_full(nullptr, 0, 3.0, nullptr, &three);
  if (!e && s->wrong_shape) {
    const int64_t shape[2] = {5, 7};
    e = glia_tensor_ones(shape, 2, nullptr, &gin[0]);
  } else if (!e) {
    e = glia_mul(t, three, &gin[0]);
  }
  for (glia_tensor* h : {saved[0], saved[1], x2, t, three}) glia_error_free(glia_tensor_release(h));
  return e;
}

glia_tensor* apply_cube(State& s, glia_tensor* x, glia_error** err) {
  glia_autograd_function_def def;
  glia_autograd_function_def_init(&def);
  def.name = "Cube";
  def.forward = cube_forward;
  def.backward = cube_backward;
  def.user_data = &s;
  def.free_user_data = free_state;
  const glia_tensor* in[1] = {x};
  glia_tensor* out = nullptr;
  *err = glia_autograd_function_apply(&def, in, 1, &out, 1);
  return out;
}

TEST(CustomFunction, GradientThroughCallbacks) {
  for (bool save_output : {false, true}) {
    SCOPED_TRACE(save_output ? "saves its output" : "saves its input");
    State s;
    s.save_output = save_output;
    {
      Handles h;
      glia_tensor* x = vec(h, {1.5, -2.0, 0.5});
      GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
      glia_error* e = nullptr;
      glia_tensor* y = h.add(apply_cube(s, x, &e));
      GLIA_OK_(e);
      EXPECT_EQ(host(y), std::vector<double>({3.375, -8.0, 0.125}));
      EXPECT_EQ(s.needs[0], 1);
      char name[64];
      size_t len = 0;
      GLIA_OK_(glia_tensor_grad_fn_name(y, name, sizeof name, &len));
      EXPECT_STREQ(name, "CubeBackward");
      glia_tensor* total = nullptr;
      GLIA_OK_(glia_sum(y, nullptr, 0, 0, &total));
      h.add(total);
      GLIA_OK_(glia_tensor_backward(total, nullptr, 0));
      EXPECT_EQ(host(grad_of(h, x)), std::vector<double>({6.75, 12.0, 0.75}));
      EXPECT_EQ(s.forwards, 1);
      EXPECT_EQ(s.backwards, 1);
      EXPECT_EQ(s.frees, 0);  // the graph is alive while y is
    }
    EXPECT_EQ(s.frees, 1);
  }
}

TEST(CustomFunction, SecondDerivativeThroughTheBackwardCallback) {
  for (bool save_output : {false, true}) {
    SCOPED_TRACE(save_output ? "saves its output" : "saves its input");
    State s;
    s.save_output = save_output;
    {
      Handles h;
      glia_tensor* x = vec(h, {1.5, -2.0});
      GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
      glia_error* e = nullptr;
      glia_tensor* y = h.add(apply_cube(s, x, &e));
      GLIA_OK_(e);
      glia_tensor* total = nullptr;
      GLIA_OK_(glia_sum(y, nullptr, 0, 0, &total));
      h.add(total);
      glia_tensor* g = nullptr;
      GLIA_OK_(glia_autograd_grad(&total, 1, &x, 1, nullptr, 0, 1, 0, &g));
      h.add(g);
      EXPECT_EQ(host(g), std::vector<double>({6.75, 12.0}));  // 3 x^2
      glia_tensor* gs = nullptr;
      GLIA_OK_(glia_sum(g, nullptr, 0, 0, &gs));
      h.add(gs);
      glia_tensor* gg = nullptr;
      GLIA_OK_(glia_autograd_grad(&gs, 1, &x, 1, nullptr, 0, 0, 0, &gg));
      h.add(gg);
      std::vector<double> v = host(gg);  // 6 x
      ASSERT_EQ(v.size(), 2u);
      EXPECT_NEAR(v[0], 9.0, 1e-12);
      EXPECT_NEAR(v[1], -12.0, 1e-12);
    }
    EXPECT_EQ(s.frees, 1);
  }
}

TEST(CustomFunction, GraphNeverBackpropagatedIsFreed) {
  // The node saves its own output: that must not keep the graph alive (no cycle).
  State s;
  s.save_output = true;
  {
    Handles h;
    glia_tensor* x = vec(h, {1, 2});
    GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
    glia_error* e = nullptr;
    h.add(apply_cube(s, x, &e));
    GLIA_OK_(e);
  }
  EXPECT_EQ(s.frees, 1);
}

TEST(CustomFunction, NoGraphWithoutRequiresGrad) {
  State s;
  Handles h;
  glia_tensor* x = vec(h, {2});
  glia_error* e = nullptr;
  glia_tensor* y = h.add(apply_cube(s, x, &e));
  GLIA_OK_(e);
  EXPECT_EQ(host(y), std::vector<double>({8}));
  EXPECT_EQ(s.needs[0], 0);
  EXPECT_EQ(s.frees, 1);  // no node keeps user_data
  int32_t rg = 1;
  GLIA_OK_(glia_tensor_requires_grad(y, &rg));
  EXPECT_EQ(rg, 0);
}

TEST(CustomFunction, CallbackErrorsSurfaceAsCallbackErrors) {
  State s3, s4;  // outlive the graphs below, which hold their user_data until h releases them
  Handles h;
  glia_tensor* x = vec(h, {1, 2});
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  {
    State s;
    s.fail_forward = true;
    glia_error* e = nullptr;
    glia_tensor* y = apply_cube(s, x, &e);
    EXPECT_EQ(y, nullptr);
    glia_test::ErrorInfo info = glia_test::take(e);
    EXPECT_EQ(info.code, GLIA_ERR_CALLBACK);
    EXPECT_EQ(info.message, "Cube: forward callback failed: cube: bad input");
    EXPECT_EQ(s.frees, 1);
  }
  {
    State s;
    s.leave_null = true;
    glia_error* e = nullptr;
    EXPECT_EQ(apply_cube(s, x, &e), nullptr);
    glia_test::ErrorInfo info = glia_test::take(e);
    EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(info.message, "Cube: forward left outputs[0] NULL");
    EXPECT_EQ(s.frees, 1);
  }
  {
    State& s = s3;
    s.fail_backward = true;
    glia_error* e = nullptr;
    glia_tensor* y = h.add(apply_cube(s, x, &e));
    GLIA_OK_(e);
    glia_tensor* total = nullptr;
    GLIA_OK_(glia_sum(y, nullptr, 0, 0, &total));
    h.add(total);
    glia_test::ErrorInfo info = glia_test::take(glia_tensor_backward(total, nullptr, 0));
    EXPECT_EQ(info.code, GLIA_ERR_CALLBACK);
    EXPECT_EQ(info.message, "CubeBackward: backward callback failed: cube backward exploded");
  }
  {
    State& s = s4;
    s.wrong_shape = true;
    glia_error* e = nullptr;
    glia_tensor* y = h.add(apply_cube(s, x, &e));
    GLIA_OK_(e);
    glia_tensor* total = nullptr;
    GLIA_OK_(glia_sum(y, nullptr, 0, 0, &total));
    h.add(total);
    glia_test::ErrorInfo info = glia_test::take(glia_tensor_backward(total, nullptr, 0));
    EXPECT_EQ(info.code, GLIA_ERR_SHAPE);
    EXPECT_EQ(info.message,
              "Function CubeBackward returned an invalid gradient at index 0 - got [5, 7] but expected shape "
              "compatible with [2]");
  }
}

TEST(CustomFunction, SavedTensorModifiedInPlace) {
  State s;
  Handles h;
  glia_tensor* leaf = vec(h, {1, 2});
  GLIA_OK_(glia_tensor_set_requires_grad(leaf, 1));
  glia_tensor* x = nullptr;
  GLIA_OK_(glia_mul(leaf, vec(h, {1, 1}), &x));  // a non-leaf, so it may be modified in place
  h.add(x);
  glia_error* e = nullptr;
  glia_tensor* y = h.add(apply_cube(s, x, &e));
  GLIA_OK_(e);
  GLIA_OK_(glia_add_(x, vec(h, {1, 1}), 1.0));
  glia_tensor* total = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &total));
  h.add(total);
  glia_test::ErrorInfo info = glia_test::take(glia_tensor_backward(total, nullptr, 0));
  EXPECT_EQ(info.code, GLIA_ERR_CALLBACK);
  EXPECT_NE(info.message.find("one of the variables needed for gradient computation has been modified by an "
                              "inplace operation"),
            std::string::npos)
      << info.message;
}

// As torch's ctx.saved_tensors, even in a backward without create_graph: a saved non-leaf input
// comes back with its grad_fn, a saved output with the function's node (Note [Saving inputs]).
TEST(CustomFunction, SavedTensorsKeepTheirHistory) {
  State s;
  s.save_output = true;
  Handles h;
  glia_tensor* leaf = vec(h, {1, 2});
  GLIA_OK_(glia_tensor_set_requires_grad(leaf, 1));
  glia_tensor* x = nullptr;
  GLIA_OK_(glia_exp(leaf, &x));
  h.add(x);
  glia_error* e = nullptr;
  glia_tensor* y = h.add(apply_cube(s, x, &e));
  GLIA_OK_(e);
  glia_tensor* total = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &total));
  h.add(total);
  GLIA_OK_(glia_tensor_backward(total, nullptr, 0));
  EXPECT_EQ(s.saved_requires_grad[0], 1);
  EXPECT_EQ(s.saved_grad_fn[0], "ExpBackward0");
  EXPECT_EQ(s.saved_requires_grad[1], 1);
  EXPECT_EQ(s.saved_grad_fn[1], "CubeBackward");
  std::vector<double> g = host(grad_of(h, leaf));  // 3 e^(3 leaf)
  ASSERT_EQ(g.size(), 2u);
  EXPECT_NEAR(g[0], 3 * std::exp(3.0), 1e-9 * g[0]);
  EXPECT_NEAR(g[1], 3 * std::exp(6.0), 1e-9 * g[1]);
}

// Two inputs, two outputs: (a + b, a * b).
glia_error* pair_forward(void* ud, glia_autograd_ctx* ctx, const glia_tensor* const* in, int64_t, glia_tensor** out,
                         int64_t) {
  State* s = static_cast<State*>(ud);
  glia_error* e = glia_autograd_ctx_needs_input_grad(ctx, 0, &s->needs[0]);
  if (!e) e = glia_autograd_ctx_needs_input_grad(ctx, 1, &s->needs[1]);
  if (!e) e = glia_add(in[0], in[1], 1.0, &out[0]);
  if (!e) e = glia_mul(in[0], in[1], &out[1]);
  if (!e) e = glia_autograd_ctx_save_for_backward(ctx, in, 2);
  return e;
}

glia_error* pair_backward(void*, glia_autograd_ctx* ctx, const glia_tensor* const* g, int64_t n_out, glia_tensor** gin,
                          int64_t n_in) {
  if (n_out != 2 || n_in != 2) return glia_error_new(GLIA_ERR_INTERNAL, "wrong counts");
  glia_tensor* ab[2] = {nullptr, nullptr};
  int64_t n = 0;
  glia_error* e = glia_autograd_ctx_saved_tensors(ctx, ab, 2, &n);
  glia_tensor *t0 = nullptr, *t1 = nullptr;
  if (!e) e = glia_mul(g[1], ab[1], &t0);  // d(ab)/da = b
  if (!e) e = glia_add(g[0], t0, 1.0, &gin[0]);
  if (!e) e = glia_mul(g[1], ab[0], &t1);
  if (!e) e = glia_add(g[0], t1, 1.0, &gin[1]);
  for (glia_tensor* h : {ab[0], ab[1], t0, t1}) glia_error_free(glia_tensor_release(h));
  return e;
}

TEST(CustomFunction, SeveralInputsAndOutputs) {
  State s;
  Handles h;
  glia_tensor* a = vec(h, {1, 2});
  glia_tensor* b = vec(h, {3, 5});
  GLIA_OK_(glia_tensor_set_requires_grad(a, 1));
  glia_autograd_function_def def;
  glia_autograd_function_def_init(&def);
  def.name = "Pair";
  def.forward = pair_forward;
  def.backward = pair_backward;
  def.user_data = &s;
  const glia_tensor* in[2] = {a, b};
  glia_tensor* out[2] = {nullptr, nullptr};
  GLIA_OK_(glia_autograd_function_apply(&def, in, 2, out, 2));
  h.add(out[0]);
  h.add(out[1]);
  EXPECT_EQ(s.needs[0], 1);
  EXPECT_EQ(s.needs[1], 0);
  EXPECT_EQ(host(out[0]), std::vector<double>({4, 7}));
  EXPECT_EQ(host(out[1]), std::vector<double>({3, 10}));
  // Only the product takes part: the sum's gradient arrives as zeros.
  glia_tensor* total = nullptr;
  GLIA_OK_(glia_sum(out[1], nullptr, 0, 0, &total));
  h.add(total);
  GLIA_OK_(glia_tensor_backward(total, nullptr, 0));
  EXPECT_EQ(host(grad_of(h, a)), std::vector<double>({3, 5}));
  glia_tensor* gb = nullptr;
  GLIA_OK_(glia_tensor_grad(b, &gb));
  EXPECT_EQ(gb, nullptr);
}

TEST(CustomFunction, ArgumentChecks) {
  Handles h;
  glia_tensor* x = vec(h, {1});
  glia_tensor* out = nullptr;
  const glia_tensor* in[1] = {x};
  glia_test::ErrorInfo info = glia_test::take(glia_autograd_function_apply(nullptr, in, 1, &out, 1));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(info.message, "glia_autograd_function_apply: argument 'def' is NULL");

  State s;
  glia_autograd_function_def def;
  glia_autograd_function_def_init(&def);
  def.forward = cube_forward;
  def.user_data = &s;
  def.free_user_data = free_state;
  info = glia_test::take(glia_autograd_function_apply(&def, in, 1, &out, 1));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(info.message, "glia_autograd_function_apply: def->backward is NULL");
  EXPECT_EQ(s.frees, 1);  // freed even though the call failed
  def.backward = cube_backward;
  def.free_user_data = nullptr;
  info = glia_test::take(glia_autograd_function_apply(&def, in, 1, &out, 0));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  info = glia_test::take(glia_autograd_function_apply(&def, nullptr, 1, &out, 1));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  def.struct_size = 8;
  info = glia_test::take(glia_autograd_function_apply(&def, in, 1, &out, 1));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("struct_size"), std::string::npos) << info.message;

  // The ctx functions refuse to work outside their callbacks.
  EXPECT_EQ(glia_test::take(glia_autograd_ctx_save_for_backward(nullptr, in, 1)).code, GLIA_ERR_INVALID_ARGUMENT);
  int32_t flag = 0;
  EXPECT_EQ(glia_test::take(glia_autograd_ctx_needs_input_grad(nullptr, 0, &flag)).code, GLIA_ERR_INVALID_ARGUMENT);
}

}  // namespace
