// Autograd through the C API: backward and grad, retain/create graph, grad
// mode, hooks (their user data lifetime and errors), retain_grad, in-place
// checks, and argument errors with exact codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

const glia_device kCpu = {GLIA_CPU, 0};

// Owns the handles a test creates.
struct Handles {
  std::vector<glia_tensor*> hs;
  glia_tensor* add(glia_tensor* t) {
    hs.push_back(t);
    return t;
  }
  ~Handles() {
    for (auto it = hs.rbegin(); it != hs.rend(); ++it) glia_error_free(glia_tensor_release(*it));
  }
};

glia_tensor* vec(Handles& h, std::vector<double> v, bool requires_grad = false) {
  int64_t n = static_cast<int64_t>(v.size());
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(double), &n, 1, GLIA_FLOAT64, &t);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  if (requires_grad) EXPECT_EQ(glia_tensor_set_requires_grad(t, 1), nullptr);
  return h.add(t);
}

std::vector<double> host(const glia_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
  std::vector<double> v(static_cast<size_t>(n));
  glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(double));
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

// .grad as values; empty when there is none.
std::vector<double> grad_values(const glia_tensor* t) {
  glia_tensor* g = nullptr;
  EXPECT_EQ(glia_tensor_grad(t, &g), nullptr);
  if (!g) return {};
  std::vector<double> v = host(g);
  EXPECT_EQ(glia_tensor_release(g), nullptr);
  return v;
}

glia_tensor* mul(Handles& h, const glia_tensor* a, const glia_tensor* b) {
  glia_tensor* out = nullptr;
  EXPECT_EQ(glia_mul(a, b, &out), nullptr);
  return h.add(out);
}

glia_tensor* sum(Handles& h, const glia_tensor* a) {
  glia_tensor* out = nullptr;
  EXPECT_EQ(glia_sum(a, nullptr, 0, 0, &out), nullptr);
  return h.add(out);
}

std::string grad_fn_name(const glia_tensor* t) {
  char buf[64];
  size_t n = 0;
  EXPECT_EQ(glia_tensor_grad_fn_name(t, buf, sizeof buf, &n), nullptr);
  return std::string(buf, n);
}

void expect_err(glia_error* e, enum glia_error_code code, const std::string& text) {
  ASSERT_NE(e, nullptr) << "expected: " << text;
  glia_test::ErrorInfo info = glia_test::take(e);
  EXPECT_EQ(info.code, code) << info.message;
  EXPECT_NE(info.message.find(text), std::string::npos) << info.message;
}

TEST(CapiAutograd, BackwardAndGradFnNames) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2, 3}, true);
  glia_tensor* w = vec(h, {4, 5, 6});
  glia_tensor *a = nullptr, *d = nullptr, *s = nullptr, *n = nullptr;
  GLIA_OK_(glia_add(x, w, 2.0, &a));
  h.add(a);
  GLIA_OK_(glia_div(a, w, nullptr, &d));
  h.add(d);
  GLIA_OK_(glia_sub(d, x, 1.0, &s));
  h.add(s);
  GLIA_OK_(glia_neg(s, &n));
  h.add(n);
  glia_tensor* loss = sum(h, n);  // -( (x + 2w)/w - x ) = x - x/w - 2
  EXPECT_EQ(grad_fn_name(a), "AddBackward0");
  EXPECT_EQ(grad_fn_name(d), "DivBackward0");
  EXPECT_EQ(grad_fn_name(s), "SubBackward0");
  EXPECT_EQ(grad_fn_name(n), "NegBackward0");
  EXPECT_EQ(grad_fn_name(loss), "SumBackward0");
  EXPECT_EQ(grad_fn_name(x), "");
  int32_t leaf = -1, rg = -1;
  GLIA_OK_(glia_tensor_is_leaf(x, &leaf));
  EXPECT_EQ(leaf, 1);
  GLIA_OK_(glia_tensor_is_leaf(loss, &leaf));
  EXPECT_EQ(leaf, 0);
  GLIA_OK_(glia_tensor_requires_grad(loss, &rg));
  EXPECT_EQ(rg, 1);
  GLIA_OK_(glia_tensor_requires_grad(w, &rg));
  EXPECT_EQ(rg, 0);

  GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
  EXPECT_EQ(grad_values(x), std::vector<double>({1 - 1.0 / 4, 1 - 1.0 / 5, 1 - 1.0 / 6}));
  EXPECT_EQ(grad_values(w), std::vector<double>());
  expect_err(glia_tensor_backward(loss, nullptr, 0), GLIA_ERR_STATE,
             "Trying to backward through the graph a second time");
}

TEST(CapiAutograd, RetainGraphAccumulates) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  glia_tensor* loss = sum(h, mul(h, x, x));
  GLIA_OK_(glia_tensor_backward(loss, nullptr, 1));
  GLIA_OK_(glia_tensor_backward(loss, nullptr, 1));
  EXPECT_EQ(grad_values(x), std::vector<double>({4, 8}));
  GLIA_OK_(glia_tensor_set_grad(x, nullptr));
  EXPECT_EQ(grad_values(x), std::vector<double>());
}

// torch's "can't assign Variable as its own grad", for a leaf and a non-leaf: such a tensor would
// hold itself, a cycle no release frees (the autograd fuzzer's regress-own-grad leaked it).
TEST(CapiAutograd, OwnGradRefused) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  glia_tensor* y = mul(h, x, x);
  for (glia_tensor* t : {x, y}) {
    expect_err(glia_tensor_set_grad(t, t), GLIA_ERR_INVALID_ARGUMENT,
               "glia_tensor_set_grad: can't assign Variable as its own grad");
    EXPECT_EQ(grad_values(t), std::vector<double>());  // unchanged
  }
  GLIA_OK_(glia_tensor_set_grad(y, x));  // another tensor of the same shape is fine
  GLIA_OK_(glia_tensor_set_grad(y, nullptr));
}

TEST(CapiAutograd, BackwardErrors) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  glia_tensor* y = mul(h, x, x);
  expect_err(glia_tensor_backward(y, nullptr, 0), GLIA_ERR_STATE,
             "grad can be implicitly created only for scalar outputs");
  expect_err(glia_tensor_backward(vec(h, {1, 2}), nullptr, 0), GLIA_ERR_STATE, "does not require grad");
  expect_err(glia_tensor_backward(nullptr, nullptr, 0), GLIA_ERR_INVALID_HANDLE,
             "glia_tensor_backward: argument 'tensor' is NULL");
  GLIA_OK_(glia_tensor_backward(y, vec(h, {1, 0.5}), 0));
  EXPECT_EQ(grad_values(x), std::vector<double>({2, 2}));

  glia_tensor* ints = nullptr;
  const int64_t two = 2;
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = GLIA_INT64;
  GLIA_OK_(glia_tensor_zeros(&two, 1, &o, &ints));
  h.add(ints);
  expect_err(glia_tensor_set_requires_grad(ints, 1), GLIA_ERR_DTYPE,
             "only Tensors of floating point dtype can require gradients");
  expect_err(glia_tensor_set_requires_grad(y, 0), GLIA_ERR_STATE,
             "you can only change requires_grad flags of leaf variables");
}

TEST(CapiAutograd, InplaceChecks) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  expect_err(glia_add_(x, vec(h, {1, 1}), 1.0), GLIA_ERR_STATE,
             "a leaf Variable that requires grad is being used in an in-place operation.");
  glia_tensor* y = mul(h, x, vec(h, {2, 2}));
  GLIA_OK_(glia_add_(y, x, 1.0));  // y = 3x
  GLIA_OK_(glia_tensor_backward(sum(h, y), nullptr, 0));
  EXPECT_EQ(grad_values(x), std::vector<double>({3, 3}));

  glia_tensor* z = mul(h, x, vec(h, {1, 1}));
  glia_tensor* zz = mul(h, z, z);
  GLIA_OK_(glia_mul_(z, vec(h, {2, 2})));
  expect_err(glia_tensor_backward(sum(h, zz), nullptr, 0), GLIA_ERR_STATE,
             "one of the variables needed for gradient computation has been modified by an inplace operation");
}

uint64_t bytes_in_use() {
  glia_memory_stats st{};
  st.struct_size = sizeof st;
  glia_error* e = glia_memory_stats_get(&st);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return st.bytes_in_use;
}

// An in-place op on a tensor that a node saved, with an operand computed from that node: the
// tensor's new grad_fn leads to the node, which held the tensor (and so its grad_fn): a cycle that
// no release freed (the autograd fuzzer's regress-inplace-on-saved-*: 64 or 128 bytes left in use).
TEST(CapiAutograd, InplaceOnSavedTensorLeavesNoCycle) {
  const uint64_t before = bytes_in_use();
  {
    Handles h;
    glia_tensor* x = vec(h, {1, 2}, true);
    glia_tensor* w = vec(h, {3, 4}, true);
    glia_tensor* a = nullptr;
    GLIA_OK_(glia_exp(x, &a));  // a non-leaf
    h.add(a);
    glia_tensor* z = mul(h, a, w);   // MulBackward0 saves a and w
    GLIA_OK_(glia_add_(a, z, 1.0));  // a's grad_fn: AddBackward0 -> MulBackward0
    EXPECT_EQ(grad_fn_name(a), "AddBackward0");
    // A tensor that did not require grad when it was saved gets a grad_fn the same way.
    glia_tensor* c = vec(h, {5, 6});
    glia_tensor* k = mul(h, c, x);  // saves c
    GLIA_OK_(glia_add_(c, k, 1.0));
    EXPECT_EQ(grad_fn_name(c), "AddBackward0");
    // The saved tensors were modified: torch's message, not a wrong gradient.
    expect_err(glia_tensor_backward(sum(h, a), nullptr, 0), GLIA_ERR_STATE,
               "one of the variables needed for gradient computation has been modified by an inplace operation");
    EXPECT_GT(bytes_in_use(), before);
  }
  EXPECT_EQ(bytes_in_use(), before);
}

// Without an in-place op the saved non-leaf keeps its history: the gradient flows through it
// twice (x * x saved by the outer mul), and nothing outlives the handles.
TEST(CapiAutograd, SavedNonLeafKeepsItsHistory) {
  const uint64_t before = bytes_in_use();
  {
    Handles h;
    glia_tensor* x = vec(h, {1, -2}, true);
    glia_tensor* xx = mul(h, x, x);
    glia_tensor* y = sum(h, mul(h, xx, xx));  // x^4
    glia_tensor* outs[] = {y};
    glia_tensor* ins[] = {x};
    glia_tensor* g = nullptr;
    GLIA_OK_(glia_autograd_grad(outs, 1, ins, 1, nullptr, 0, 1, 0, &g));
    h.add(g);
    EXPECT_EQ(host(g), std::vector<double>({4, -32}));  // 4x^3
    EXPECT_EQ(grad_fn_name(xx), "MulBackward0");
    GLIA_OK_(glia_tensor_backward(sum(h, g), nullptr, 0));
    EXPECT_EQ(grad_values(x), std::vector<double>({12, 48}));  // 12x^2
  }
  EXPECT_EQ(bytes_in_use(), before);
}

TEST(CapiAutograd, GradAllowUnusedAndCreateGraph) {
  Handles h;
  glia_tensor* x = vec(h, {1, -2}, true);
  glia_tensor* unused = vec(h, {5, 5}, true);
  glia_tensor* y = sum(h, mul(h, mul(h, x, x), x));
  glia_tensor* outs[] = {y};
  glia_tensor* ins[] = {x, unused};
  glia_tensor* grads[2] = {reinterpret_cast<glia_tensor*>(1), reinterpret_cast<glia_tensor*>(1)};
  expect_err(glia_autograd_grad(outs, 1, ins, 2, nullptr, 1, 0, 0, grads), GLIA_ERR_STATE,
             "One of the differentiated Tensors appears to not have been used in the graph");
  EXPECT_EQ(grads[0], reinterpret_cast<glia_tensor*>(1));  // nothing written on failure

  GLIA_OK_(glia_autograd_grad(outs, 1, ins, 2, nullptr, 0, 1, 1, grads));
  h.add(grads[0]);
  EXPECT_EQ(grads[1], nullptr);
  EXPECT_EQ(host(grads[0]), std::vector<double>({3, 12}));
  EXPECT_EQ(grad_values(x), std::vector<double>());  // grad() leaves .grad alone

  glia_tensor* g1 = sum(h, grads[0]);
  glia_tensor* outs2[] = {g1};
  glia_tensor* ins2[] = {x};
  glia_tensor* second = nullptr;
  GLIA_OK_(glia_autograd_grad(outs2, 1, ins2, 1, nullptr, 0, 0, 0, &second));
  h.add(second);
  EXPECT_EQ(host(second), std::vector<double>({6, -12}));

  expect_err(glia_autograd_grad(outs, 1, ins, 2, nullptr, 0, 0, 1, nullptr), GLIA_ERR_INVALID_ARGUMENT,
             "glia_autograd_grad: argument 'out_grads' is NULL");
  expect_err(glia_autograd_grad(nullptr, 1, ins, 2, nullptr, 0, 0, 1, grads), GLIA_ERR_INVALID_ARGUMENT,
             "glia_autograd_grad: argument 'outputs' is NULL");
  expect_err(glia_autograd_grad(outs, -1, ins, 2, nullptr, 0, 0, 1, grads), GLIA_ERR_INVALID_ARGUMENT,
             "argument 'outputs' count is negative");
  glia_tensor* bad[] = {nullptr};
  expect_err(glia_autograd_grad(outs, 1, bad, 1, nullptr, 0, 0, 1, grads), GLIA_ERR_INVALID_HANDLE,
             "glia_autograd_grad: argument 'inputs' is NULL");
  // torch.autograd.grad(y, []): found by tests/fuzz/autograd_fuzzer.cpp (memcpy to a NULL out_grads).
  expect_err(glia_autograd_grad(outs, 1, nullptr, 0, nullptr, 0, 0, 0, nullptr), GLIA_ERR_INVALID_ARGUMENT,
             "grad requires non-empty inputs.");
  expect_err(glia_autograd_grad(outs, 1, ins, 0, nullptr, 0, 0, 0, grads), GLIA_ERR_INVALID_ARGUMENT,
             "grad requires non-empty inputs.");
}

TEST(CapiAutograd, AutogradBackwardSeveralRoots) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  glia_tensor* roots[] = {sum(h, mul(h, x, x)), mul(h, x, vec(h, {3, 3}))};
  glia_tensor* gs[] = {nullptr, vec(h, {1, 2})};
  GLIA_OK_(glia_autograd_backward(roots, 2, gs, 0, 0));
  EXPECT_EQ(grad_values(x), std::vector<double>({5, 10}));
}

TEST(CapiAutograd, GradMode) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  EXPECT_EQ(glia_grad_mode_enabled(), 1);
  glia_grad_mode_set(0);
  EXPECT_EQ(glia_grad_mode_enabled(), 0);
  glia_tensor* y = mul(h, x, x);
  glia_grad_mode_set(1);
  EXPECT_EQ(glia_grad_mode_enabled(), 1);
  int32_t rg = -1, leaf = -1;
  GLIA_OK_(glia_tensor_requires_grad(y, &rg));
  EXPECT_EQ(rg, 0);
  GLIA_OK_(glia_tensor_is_leaf(y, &leaf));
  EXPECT_EQ(leaf, 1);
  EXPECT_EQ(grad_fn_name(y), "");
}

TEST(CapiAutograd, RetainGrad) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  glia_tensor* m = mul(h, x, x);
  glia_tensor* k = mul(h, x, x);
  GLIA_OK_(glia_tensor_retain_grad(m));
  glia_tensor* loss = sum(h, mul(h, m, vec(h, {3, 4})));
  GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
  EXPECT_EQ(grad_values(m), std::vector<double>({3, 4}));
  EXPECT_EQ(grad_values(k), std::vector<double>());
  expect_err(glia_tensor_retain_grad(vec(h, {1})), GLIA_ERR_STATE, "can't retain_grad");
}

// ---------------------------------------------------------------------- hooks

struct HookState {
  int calls = 0;
  int freed = 0;
  double scale = 1;
  bool fail = false;
  std::vector<double> seen;
};

glia_error* scale_hook(void* ud, const glia_tensor* grad, glia_tensor** out) {
  auto* s = static_cast<HookState*>(ud);
  s->calls++;
  std::vector<double> g = host(grad);
  s->seen.insert(s->seen.end(), g.begin(), g.end());
  if (s->fail) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "hook says no");
  if (s->scale == 1) return nullptr;
  for (double& v : g) v *= s->scale;
  int64_t n = static_cast<int64_t>(g.size());
  return glia_tensor_from_data(g.data(), g.size() * sizeof(double), &n, 1, GLIA_FLOAT64, out);
}

void free_state(void* ud) { static_cast<HookState*>(ud)->freed++; }

TEST(CapiHooks, ReplaceLeafGradientAndFreeOnRemoval) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  HookState first, second;
  first.scale = 10;
  uint64_t id1 = 0, id2 = 0;
  GLIA_OK_(glia_tensor_register_hook(x, scale_hook, &first, free_state, &id1));
  GLIA_OK_(glia_tensor_register_hook(x, scale_hook, &second, free_state, &id2));
  EXPECT_NE(id1, id2);
  GLIA_OK_(glia_tensor_backward(sum(h, mul(h, x, vec(h, {1, 3}))), nullptr, 0));
  EXPECT_EQ(first.seen, std::vector<double>({1, 3}));
  EXPECT_EQ(second.seen, std::vector<double>({10, 30}));  // runs after the first, sees its result
  EXPECT_EQ(grad_values(x), std::vector<double>({10, 30}));

  GLIA_OK_(glia_tensor_remove_hook(x, id1));
  EXPECT_EQ(first.freed, 1);
  EXPECT_EQ(second.freed, 0);
  expect_err(glia_tensor_remove_hook(x, id1), GLIA_ERR_NOT_FOUND, "no hook with id");
  EXPECT_EQ(first.freed, 1);

  GLIA_OK_(glia_tensor_backward(sum(h, x), nullptr, 0));
  EXPECT_EQ(first.calls, 1);
  EXPECT_EQ(second.calls, 2);
  EXPECT_EQ(grad_values(x), std::vector<double>({11, 31}));

  for (glia_tensor* t : h.hs) GLIA_OK_(glia_tensor_release(t));  // x and its graph die here
  h.hs.clear();
  EXPECT_EQ(first.freed, 1);
  EXPECT_EQ(second.freed, 1);
}

TEST(CapiHooks, UserDataFreedOnceWhenTensorIsReleased) {
  HookState leaf_state, nonleaf_state;
  {
    Handles h;
    glia_tensor* x = vec(h, {1, 2}, true);
    glia_tensor* y = mul(h, x, x);
    uint64_t id = 0;
    GLIA_OK_(glia_tensor_register_hook(x, scale_hook, &leaf_state, free_state, &id));
    GLIA_OK_(glia_tensor_register_hook(y, scale_hook, &nonleaf_state, free_state, &id));
    nonleaf_state.scale = 2;
    GLIA_OK_(glia_tensor_backward(sum(h, y), nullptr, 0));
    EXPECT_EQ(nonleaf_state.seen, std::vector<double>({1, 1}));
    EXPECT_EQ(leaf_state.seen, std::vector<double>({4, 8}));
    EXPECT_EQ(leaf_state.freed, 0);
    EXPECT_EQ(nonleaf_state.freed, 0);
  }
  EXPECT_EQ(leaf_state.freed, 1);
  EXPECT_EQ(nonleaf_state.freed, 1);
}

TEST(CapiHooks, ErrorBecomesCallbackError) {
  HookState s;
  s.fail = true;
  {
    Handles h;
    glia_tensor* x = vec(h, {1, 2}, true);
    uint64_t id = 0;
    GLIA_OK_(glia_tensor_register_hook(x, scale_hook, &s, free_state, &id));
    expect_err(glia_tensor_backward(sum(h, x), nullptr, 0), GLIA_ERR_CALLBACK, "hook says no");
    EXPECT_EQ(s.calls, 1);
    EXPECT_EQ(grad_values(x), std::vector<double>());
  }
  EXPECT_EQ(s.freed, 1);
}

TEST(CapiHooks, RegisterErrorsFreeUserDataRightAway) {
  Handles h;
  HookState s;
  uint64_t id = 0;
  glia_tensor* c = vec(h, {1, 2});
  expect_err(glia_tensor_register_hook(c, scale_hook, &s, free_state, &id), GLIA_ERR_STATE,
             "cannot register a hook on a tensor that doesn't require gradient");
  EXPECT_EQ(s.freed, 1);
  expect_err(glia_tensor_register_hook(nullptr, scale_hook, &s, free_state, &id), GLIA_ERR_INVALID_HANDLE,
             "glia_tensor_register_hook: argument 'tensor' is NULL");
  EXPECT_EQ(s.freed, 2);
  glia_tensor* x = vec(h, {1, 2}, true);
  expect_err(glia_tensor_register_hook(x, nullptr, &s, free_state, &id), GLIA_ERR_INVALID_ARGUMENT,
             "argument 'fn' is NULL");
  EXPECT_EQ(s.freed, 3);
  expect_err(glia_tensor_register_hook(x, scale_hook, &s, free_state, nullptr), GLIA_ERR_INVALID_ARGUMENT,
             "argument 'out_hook_id' is NULL");
  EXPECT_EQ(s.freed, 4);
  expect_err(glia_tensor_remove_hook(nullptr, 1), GLIA_ERR_INVALID_HANDLE, "glia_tensor_remove_hook");
}

TEST(CapiHooks, HookReturningWrongShape) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  uint64_t id = 0;
  auto wrong = [](void*, const glia_tensor*, glia_tensor** out) -> glia_error* {
    double v = 1;
    int64_t n = 1;
    return glia_tensor_from_data(&v, sizeof v, &n, 1, GLIA_FLOAT64, out);
  };
  GLIA_OK_(glia_tensor_register_hook(x, wrong, nullptr, nullptr, &id));
  expect_err(glia_tensor_backward(sum(h, x), nullptr, 0), GLIA_ERR_SHAPE, "hook returned a gradient of shape");
}

// ---- post-accumulate-grad hooks and backward callbacks (what DistributedDataParallel builds on) ----

struct Events {
  std::vector<std::string> log;
  std::vector<std::vector<double>> grads;  // .grad seen by each post-accumulate hook call
  int freed = 0;
  bool fail = false;
  glia_tensor* watch = nullptr;  // the tensor whose .grad a callback reads
};

glia_error* post_hook(void* ud, glia_tensor* t) {
  auto* ev = static_cast<Events*>(ud);
  ev->log.push_back("post");
  ev->grads.push_back(grad_values(t));
  if (ev->fail) return glia_error_new(GLIA_ERR_IO, "bucket all-reduce failed");
  return nullptr;
}

void free_events(void* ud) { static_cast<Events*>(ud)->freed++; }

TEST(CapiPostAccumulateGradHook, RunsAfterAccumulationWithTheLeaf) {
  Events ev;
  {
    Handles h;
    glia_tensor* x = vec(h, {1, 2}, true);
    HookState scale;
    scale.scale = 10;
    uint64_t hook = 0, post = 0;
    GLIA_OK_(glia_tensor_register_post_accumulate_grad_hook(x, post_hook, &ev, free_events, &post));
    GLIA_OK_(glia_tensor_register_hook(x, scale_hook, &scale, nullptr, &hook));  // registered later, runs first
    GLIA_OK_(glia_tensor_backward(sum(h, mul(h, x, vec(h, {1, 3}))), nullptr, 0));
    ASSERT_EQ(ev.grads.size(), 1u);
    EXPECT_EQ(ev.grads[0], std::vector<double>({10, 30}));  // the tensor hook's result, already in .grad
    GLIA_OK_(glia_tensor_backward(sum(h, mul(h, x, vec(h, {1, 3}))), nullptr, 0));
    ASSERT_EQ(ev.grads.size(), 2u);
    EXPECT_EQ(ev.grads[1], std::vector<double>({20, 60}));  // accumulated
    // autograd.grad accumulates nothing, so no post-accumulate hook runs (as torch).
    glia_tensor* out = nullptr;
    glia_tensor* y = sum(h, mul(h, x, x));
    GLIA_OK_(glia_autograd_grad(&y, 1, &x, 1, nullptr, 0, 0, 0, &out));
    h.add(out);
    EXPECT_EQ(ev.grads.size(), 2u);
    // Removed with glia_tensor_remove_hook; its user data is freed then.
    GLIA_OK_(glia_tensor_remove_hook(x, post));
    EXPECT_EQ(ev.freed, 1);
    GLIA_OK_(glia_tensor_backward(sum(h, x), nullptr, 0));
    EXPECT_EQ(ev.grads.size(), 2u);
  }
  EXPECT_EQ(ev.freed, 1);
}

TEST(CapiPostAccumulateGradHook, FreedWithTheTensor) {
  Events ev;
  {
    Handles h;
    glia_tensor* x = vec(h, {1, 2}, true);
    uint64_t id = 0;
    GLIA_OK_(glia_tensor_register_post_accumulate_grad_hook(x, post_hook, &ev, free_events, &id));
    EXPECT_EQ(ev.freed, 0);
  }
  EXPECT_EQ(ev.freed, 1);
}

TEST(CapiPostAccumulateGradHook, Errors) {
  Handles h;
  Events ev;
  uint64_t id = 0;
  glia_tensor* x = vec(h, {1, 2}, true);
  expect_err(glia_tensor_register_post_accumulate_grad_hook(mul(h, x, x), post_hook, &ev, free_events, &id),
             GLIA_ERR_STATE, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  EXPECT_EQ(ev.freed, 1);
  expect_err(glia_tensor_register_post_accumulate_grad_hook(vec(h, {1}), post_hook, &ev, free_events, &id),
             GLIA_ERR_STATE, "cannot register a hook on a tensor that doesn't require gradient");
  EXPECT_EQ(ev.freed, 2);
  expect_err(glia_tensor_register_post_accumulate_grad_hook(x, nullptr, &ev, free_events, &id),
             GLIA_ERR_INVALID_ARGUMENT, "argument 'fn' is NULL");
  EXPECT_EQ(ev.freed, 3);
  expect_err(glia_tensor_register_post_accumulate_grad_hook(x, post_hook, &ev, free_events, nullptr),
             GLIA_ERR_INVALID_ARGUMENT, "argument 'out_hook_id' is NULL");
  EXPECT_EQ(ev.freed, 4);
  // A failing hook fails the backward with its message.
  ev.fail = true;
  GLIA_OK_(glia_tensor_register_post_accumulate_grad_hook(x, post_hook, &ev, nullptr, &id));
  expect_err(glia_tensor_backward(sum(h, x), nullptr, 0), GLIA_ERR_CALLBACK,
             "post accumulate grad hook failed: bucket all-reduce failed");
}

glia_error* log_callback(void* ud) {
  auto* ev = static_cast<Events*>(ud);
  ev->log.push_back("callback");
  if (ev->watch) ev->grads.push_back(grad_values(ev->watch));
  if (ev->fail) return glia_error_new(GLIA_ERR_IO, "waiting for the buckets failed");
  return nullptr;
}

glia_error* queue_twice(void* ud) {
  auto* ev = static_cast<Events*>(ud);
  ev->log.push_back("outer");
  // A callback may queue another: it runs after this one.
  return glia_autograd_queue_callback(log_callback, ev, free_events);
}

// Queues a callback from a post-accumulate hook.
glia_error* post_hook_queueing(void* ud, glia_tensor* t) {
  auto* ev = static_cast<Events*>(ud);
  ev->log.push_back("post");
  return glia_autograd_queue_callback(log_callback, ev, free_events);
}

TEST(CapiBackwardCallback, RunsAfterTheWholeGraph) {
  Events ev;
  {
    Handles h;
    glia_tensor* x = vec(h, {1, 2}, true);
    glia_tensor* w = vec(h, {3, 4}, true);
    ev.watch = w;
    uint64_t id = 0;
    // Whichever leaf's gradient is accumulated first, the callback queued at x's runs after both.
    GLIA_OK_(glia_tensor_register_post_accumulate_grad_hook(x, post_hook_queueing, &ev, nullptr, &id));
    GLIA_OK_(glia_tensor_register_post_accumulate_grad_hook(w, post_hook, &ev, nullptr, &id));
    GLIA_OK_(glia_tensor_backward(sum(h, mul(h, x, w)), nullptr, 0));
    EXPECT_EQ(ev.log, std::vector<std::string>({"post", "post", "callback"}));
    ASSERT_EQ(ev.grads.size(), 2u);
    EXPECT_EQ(ev.grads.back(), std::vector<double>({1, 2}));  // w's .grad is complete when the callback runs
    EXPECT_EQ(ev.freed, 1);
    // A second backward queues (and runs) it again: a callback belongs to one backward.
    GLIA_OK_(glia_tensor_backward(sum(h, mul(h, x, w)), nullptr, 0));
    EXPECT_EQ(ev.log.size(), 6u);
    EXPECT_EQ(ev.log.back(), "callback");
    EXPECT_EQ(ev.freed, 2);
  }
}

glia_error* scale_hook_queueing(void* ud, const glia_tensor*, glia_tensor**) {
  return glia_autograd_queue_callback(queue_twice, ud, nullptr);
}

TEST(CapiBackwardCallback, CallbacksQueueCallbacksAndFail) {
  Events ev;
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  uint64_t id = 0;
  GLIA_OK_(glia_tensor_register_hook(x, scale_hook_queueing, &ev, nullptr, &id));
  GLIA_OK_(glia_tensor_backward(sum(h, x), nullptr, 0));
  EXPECT_EQ(ev.log, std::vector<std::string>({"outer", "callback"}));
  EXPECT_EQ(ev.freed, 1);
  // A failing callback fails the backward with its message; the gradients were accumulated already.
  ev.fail = true;
  expect_err(glia_tensor_backward(sum(h, x), nullptr, 0), GLIA_ERR_CALLBACK,
             "backward callback failed: waiting for the buckets failed");
  EXPECT_EQ(ev.freed, 2);
  EXPECT_EQ(grad_values(x), std::vector<double>({2, 2}));
}

TEST(CapiBackwardCallback, OnlyDuringBackward) {
  Events ev;
  expect_err(glia_autograd_queue_callback(log_callback, &ev, free_events), GLIA_ERR_STATE,
             "Final callbacks can only be installed during backward pass.");
  EXPECT_EQ(ev.freed, 1);
  expect_err(glia_autograd_queue_callback(nullptr, &ev, free_events), GLIA_ERR_INVALID_ARGUMENT,
             "argument 'fn' is NULL");
  EXPECT_EQ(ev.freed, 2);
  EXPECT_TRUE(ev.log.empty());
}

// A backward that fails drops the callbacks it had queued (their user data is freed, they never run).
TEST(CapiBackwardCallback, DroppedWhenTheBackwardFails) {
  Events ev;
  Handles h;
  glia_tensor* x = vec(h, {1, 2}, true);
  glia_tensor* w = vec(h, {3, 4}, true);
  uint64_t id = 0;
  Events failing;
  failing.fail = true;
  GLIA_OK_(glia_tensor_register_post_accumulate_grad_hook(x, post_hook_queueing, &ev, nullptr, &id));
  GLIA_OK_(glia_tensor_register_post_accumulate_grad_hook(w, post_hook, &failing, nullptr, &id));
  expect_err(glia_tensor_backward(sum(h, mul(h, x, w)), nullptr, 0), GLIA_ERR_CALLBACK, "bucket all-reduce failed");
  EXPECT_EQ(std::count(ev.log.begin(), ev.log.end(), std::string("callback")), 0);
  EXPECT_EQ(ev.freed, std::count(ev.log.begin(), ev.log.end(), std::string("post")));
}

}  // namespace
