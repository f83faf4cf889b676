// The Module core through the C API, with host modules only (glia_module_create):
// calling and hooks, the tree, state dicts, to/zero_grad. Goldens:
// tests/golden/gen_module_core.py -> golden/modules/core.json.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

const json& G() {
  static json g = load_json("golden/modules/core.json");
  return g;
}

// ---- host modules used by the tests ------------------------------------------------

struct HostInfo {
  int in = 0, out = 0;
  int* freed = nullptr;
  bool fail = false;  // forward returns an error
};

void free_info(void* p) {
  auto* i = static_cast<HostInfo*>(p);
  if (i->freed) ++*i->freed;
  delete i;
}

// Affine: tanh(linear(x, weight, bias)); Act: tanh(x); Seq-like parents call their children.
glia_error* affine_forward(void* ud, glia_module* self, const glia_tensor* const* in, int64_t, glia_tensor** out,
                           int64_t, int64_t* n_out) {
  auto* info = static_cast<HostInfo*>(ud);
  if (info->fail) {
    glia_tensor* none = nullptr;
    return glia_module_get_parameter(self, "no_such_thing", &none);
  }
  glia_tensor *w = nullptr, *b = nullptr, *lin = nullptr;
  glia_error* e = glia_module_get_parameter(self, "weight", &w);
  if (!e) e = glia_module_get_parameter(self, "bias", &b);
  if (!e) e = glia_linear(in[0], w, b, &lin);
  if (!e) e = glia_tanh(lin, &out[0]);
  glia_error_free(glia_tensor_release(w));
  glia_error_free(glia_tensor_release(b));
  glia_error_free(glia_tensor_release(lin));
  if (!e) *n_out = 1;
  return e;
}

glia_error* affine_repr(void* ud, glia_module*, char* buf, size_t cap, size_t* len) {
  auto* info = static_cast<HostInfo*>(ud);
  int n = std::snprintf(buf, cap, "in_features=%d, out_features=%d", info->in, info->out);
  *len = static_cast<size_t>(n);
  return nullptr;
}

glia_error* act_forward(void*, glia_module*, const glia_tensor* const* in, int64_t, glia_tensor** out, int64_t,
                        int64_t* n_out) {
  *n_out = 1;
  return glia_tanh(in[0], &out[0]);
}

glia_error* block_repr(void*, glia_module*, char* buf, size_t cap, size_t* len) {
  const char* s = "depth=1\nwidth=2";
  std::snprintf(buf, cap, "%s", s);
  *len = std::strlen(s);
  return nullptr;
}

// Calls the children in registration order.
glia_error* chain_forward(void*, glia_module* self, const glia_tensor* const* in, int64_t, glia_tensor** out, int64_t,
                          int64_t* n_out) {
  glia_module* kids[8];
  int64_t n = 0;
  glia_error* e = glia_module_named_children(self, kids, nullptr, 8, &n);
  if (e) return e;
  glia_tensor* cur = nullptr;
  ok(glia_tensor_retain(const_cast<glia_tensor*>(in[0])), "retain");
  cur = const_cast<glia_tensor*>(in[0]);
  for (int64_t i = 0; i < n && !e; ++i) {
    glia_tensor* next = nullptr;
    int64_t k = 0;
    e = glia_module_forward(kids[i], &cur, 1, &next, 1, &k);
    glia_error_free(glia_tensor_release(cur));
    cur = next;
  }
  for (int64_t i = 0; i < n; ++i) glia_error_free(glia_module_release(kids[i]));
  if (e) return e;
  out[0] = cur;
  *n_out = 1;
  return nullptr;
}

struct Mods {
  std::vector<glia_module*> ms;
  glia_module* add(glia_module* m) {
    ms.push_back(m);
    return m;
  }
  ~Mods() {
    for (auto it = ms.rbegin(); it != ms.rend(); ++it) glia_error_free(glia_module_release(*it));
  }
};

glia_module* host(Mods& mods, const char* name, glia_module_forward_fn fwd, glia_module_extra_repr_fn repr = nullptr,
                  HostInfo* info = nullptr) {
  glia_module_def def;
  glia_module_def_init(&def);
  def.forward = fwd;
  def.extra_repr = repr;
  def.user_data = info;
  def.free_user_data = info ? free_info : nullptr;
  glia_module* m = nullptr;
  ok(glia_module_create(name, &def, &m), "glia_module_create");
  return mods.add(m);
}

// An Affine(in, out) host module with the given parameters (golden or fresh).
glia_module* affine(Mods& mods, Handles& h, int in, int out, glia_tensor* w = nullptr, glia_tensor* b = nullptr,
                    int* freed = nullptr) {
  auto* info = new HostInfo{in, out, freed};
  glia_module* m = host(mods, "Affine", affine_forward, affine_repr, info);
  if (!w) w = make(h, std::vector<double>(static_cast<size_t>(in * out), 0.1), {out, in});
  if (!b) b = make(h, std::vector<double>(static_cast<size_t>(out), 0.2), {out});
  ok(glia_module_register_parameter(m, "weight", w), "weight");
  ok(glia_module_register_parameter(m, "bias", b), "bias");
  return m;
}

glia_tensor* call1(Handles& h, glia_module* m, glia_tensor* x) {
  glia_tensor* y = nullptr;
  int64_t n = 0;
  ok(glia_module_forward(m, &x, 1, &y, 1, &n), "forward");
  return h.add(y);
}

// sum(y * w).backward()
void backward_weighted(Handles& h, glia_tensor* y, glia_tensor* w) {
  glia_tensor *p = nullptr, *s = nullptr;
  ok(glia_mul(y, w, &p), "mul");
  h.add(p);
  ok(glia_sum(p, nullptr, 0, 0, &s), "sum");
  h.add(s);
  ok(glia_tensor_backward(s, nullptr, 0), "backward");
}

glia_tensor* input_x(Handles& h) {
  glia_tensor* x = tensor_from_json(h, G()["x"]);
  ok(glia_tensor_set_requires_grad(x, 1), "requires_grad");
  return x;
}

// ---- hooks (C callbacks) -----------------------------------------------------------

glia_error* pre_double(void*, glia_module*, const glia_tensor* const* in, int64_t, glia_tensor** rep, int64_t,
                       int64_t* n) {
  *n = 1;
  return glia_mul_scalar(in[0], glia_scalar_float(2.0), &rep[0]);
}

glia_error* fwd_plus_one(void*, glia_module*, const glia_tensor* const*, int64_t, const glia_tensor* const* outs,
                         int64_t, glia_tensor** rep, int64_t, int64_t* n) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = GLIA_FLOAT64;
  glia_tensor* one = nullptr;
  glia_error* e = glia_tensor_full(nullptr, 0, 1.0, &o, &one);
  if (!e) e = glia_add(outs[0], one, 1.0, &rep[0]);
  glia_error_free(glia_tensor_release(one));
  *n = 1;
  return e;
}

glia_error* bwd_pre_triple(void*, glia_module*, const glia_tensor* const* go, int64_t, glia_tensor** rep, int64_t,
                           int64_t* n) {
  *n = 1;
  return glia_mul_scalar(go[0], glia_scalar_float(3.0), &rep[0]);
}

struct Seen {
  std::vector<glia_tensor*> gi, go;
  int calls = 0;
  ~Seen() {
    for (auto* t : gi) glia_error_free(glia_tensor_release(t));
    for (auto* t : go) glia_error_free(glia_tensor_release(t));
  }
};

glia_error* bwd_record(void* ud, glia_module*, const glia_tensor* const* gi, int64_t n_gi, const glia_tensor* const* go,
                       int64_t n_go, glia_tensor**, int64_t, int64_t*) {
  auto* s = static_cast<Seen*>(ud);
  ++s->calls;
  for (int64_t i = 0; i < n_gi; ++i) {
    if (gi[i]) ok(glia_tensor_retain(const_cast<glia_tensor*>(gi[i])), "retain");
    s->gi.push_back(const_cast<glia_tensor*>(gi[i]));
  }
  for (int64_t i = 0; i < n_go; ++i) {
    if (go[i]) ok(glia_tensor_retain(const_cast<glia_tensor*>(go[i])), "retain");
    s->go.push_back(const_cast<glia_tensor*>(go[i]));
  }
  return nullptr;
}

glia_error* bwd_42(void*, glia_module*, const glia_tensor* const* gi, int64_t, const glia_tensor* const*, int64_t,
                   glia_tensor** rep, int64_t, int64_t* n) {
  glia_tensor* t = nullptr;
  glia_error* e = glia_mul_scalar(gi[0], glia_scalar_float(0.0), &t);
  if (e) return e;
  e = glia_add_scalar_(t, glia_scalar_float(42.0), 1.0);
  if (e) {
    glia_error_free(glia_tensor_release(t));
    return e;
  }
  rep[0] = t;
  *n = 1;
  return nullptr;
}

glia_error* bwd_two(void*, glia_module*, const glia_tensor* const* gi, int64_t, const glia_tensor* const*, int64_t,
                    glia_tensor** rep, int64_t, int64_t* n) {
  rep[0] = nullptr;
  rep[1] = nullptr;
  (void)gi;
  *n = 2;
  return nullptr;
}

// Appends its tag (user_data is a tag string owned by a Log) to the log.
std::vector<std::string> g_log;
glia_error* log_pre(void* ud, glia_module*, const glia_tensor* const*, int64_t, glia_tensor**, int64_t, int64_t*) {
  g_log.push_back(static_cast<const char*>(ud));
  return nullptr;
}
glia_error* log_fwd(void* ud, glia_module*, const glia_tensor* const*, int64_t, const glia_tensor* const*,
                    int64_t n_outs, glia_tensor**, int64_t, int64_t*) {
  g_log.push_back(std::string(static_cast<const char*>(ud)) + ":" + std::to_string(n_outs));
  return nullptr;
}
int g_freed = 0;
void count_free(void*) { ++g_freed; }

TEST(ModuleCore, HostForwardAndGradsMatchTorch) {
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3, tensor_from_json(h, G()["weight"]), tensor_from_json(h, G()["bias"]));
  glia_tensor* x = input_x(h);
  glia_tensor* y = call1(h, fc, x);
  EXPECT_EQ(grad_fn_name(y), "TanhBackward0");  // no hooks: no wrapping
  backward_weighted(h, y, tensor_from_json(h, G()["w"]));
  const json& want = G()["plain"];
  expect_tensor(y, want["y"], -1, "y");
  expect_tensor(grad_of(h, x), want["x_grad"], -1, "x.grad");
  glia_tensor *w = nullptr, *b = nullptr;
  ok(glia_module_get_parameter(fc, "weight", &w), "weight");
  ok(glia_module_get_parameter(fc, "bias", &b), "bias");
  h.add(w);
  h.add(b);
  expect_tensor(grad_of(h, w), want["weight_grad"], -1, "weight.grad");
  expect_tensor(grad_of(h, b), want["bias_grad"], -1, "bias.grad");
}

TEST(ModuleCore, HookReplacementMatchesTorch) {
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3, tensor_from_json(h, G()["weight"]), tensor_from_json(h, G()["bias"]));
  Seen seen;
  uint64_t ids[4];
  GLIA_OK_(glia_module_add_forward_pre_hook(fc, pre_double, nullptr, nullptr, 0, &ids[0]));
  GLIA_OK_(glia_module_add_forward_hook(fc, fwd_plus_one, nullptr, nullptr, 0, &ids[1]));
  GLIA_OK_(glia_module_add_backward_pre_hook(fc, bwd_pre_triple, nullptr, nullptr, 0, &ids[2]));
  GLIA_OK_(glia_module_add_backward_hook(fc, bwd_record, &seen, nullptr, 0, &ids[3]));
  glia_tensor* x = input_x(h);
  glia_tensor* y = call1(h, fc, x);
  EXPECT_EQ(grad_fn_name(y), "BackwardHookFunctionBackward");
  backward_weighted(h, y, tensor_from_json(h, G()["w"]));
  const json& want = G()["hooked"];
  expect_tensor(y, want["y"], -1, "y");
  expect_tensor(grad_of(h, x), want["x_grad"], -1, "x.grad");
  glia_tensor* w = nullptr;
  ok(glia_module_get_parameter(fc, "weight", &w), "weight");
  h.add(w);
  expect_tensor(grad_of(h, w), want["weight_grad"], -1, "weight.grad");
  ASSERT_EQ(seen.calls, 1);
  ASSERT_EQ(seen.gi.size(), 1u);
  ASSERT_EQ(seen.go.size(), 1u);
  expect_tensor(seen.gi[0], want["grad_input"], -1, "grad_input");
  expect_tensor(seen.go[0], want["grad_output"], -1, "grad_output (after the pre-hook)");
  // Removed hooks no longer run: the plain result comes back.
  for (uint64_t id : ids) GLIA_OK_(glia_module_remove_hook(fc, id));
  EXPECT_GLIA_ERR(glia_module_remove_hook(fc, ids[0]), GLIA_ERR_NOT_FOUND);
  glia_tensor* y2 = call1(h, fc, x);
  expect_tensor(y2, G()["plain"]["y"], -1, "y without hooks");
}

TEST(ModuleCore, FullBackwardHookReplacesGradInput) {  // the torch modules note example
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3, tensor_from_json(h, G()["weight"]), tensor_from_json(h, G()["bias"]));
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_backward_hook(fc, bwd_42, nullptr, nullptr, 0, &id));
  glia_tensor* x = input_x(h);
  glia_tensor* y = call1(h, fc, x);
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &s));
  h.add(s);
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  expect_tensor(grad_of(h, x), G()["forty_two"], 0, "x.grad");
}

TEST(ModuleCore, BackwardHookWrongCountIsAnError) {
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3);
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_backward_hook(fc, bwd_two, nullptr, nullptr, 0, &id));
  glia_tensor* y = call1(h, fc, input_x(h));
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &s));
  h.add(s);
  ErrorInfo e = take(glia_tensor_backward(s, nullptr, 0));
  EXPECT_NE(e.code, GLIA_OK);
  EXPECT_NE(e.message.find("Backward hook returned an invalid number of grad_input, got 2, but expected 1"),
            std::string::npos)
      << e.message;
}

TEST(ModuleCore, BackwardHookWithoutInputGradGetsNullGradInput) {
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3);
  Seen seen;
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_backward_hook(fc, bwd_record, &seen, nullptr, 0, &id));
  glia_tensor* x = tensor_from_json(h, G()["x"]);  // needs no grad; the parameters do
  glia_tensor* y = call1(h, fc, x);
  EXPECT_EQ(grad_fn_name(y), "BackwardHookFunctionBackward");
  backward_weighted(h, y, tensor_from_json(h, G()["w"]));
  ASSERT_EQ(seen.calls, 1);
  ASSERT_EQ(seen.gi.size(), 1u);
  EXPECT_EQ(seen.gi[0], nullptr);
  ASSERT_EQ(seen.go.size(), 1u);
  expect_tensor(seen.go[0], G()["w"], 0, "grad_output");
}

TEST(ModuleCore, HookOrderPrependAndRemoval) {
  Handles h;
  Mods mods;
  glia_module* m = host(mods, "Act", act_forward);
  uint64_t a = 0, b = 0, c = 0, d = 0;
  GLIA_OK_(glia_module_add_forward_pre_hook(m, log_pre, (void*)"preA", nullptr, 0, &a));
  GLIA_OK_(glia_module_add_forward_pre_hook(m, log_pre, (void*)"preB", nullptr, GLIA_HOOK_PREPEND, &b));
  GLIA_OK_(glia_module_add_forward_hook(m, log_fwd, (void*)"fwdC", nullptr, 0, &c));
  GLIA_OK_(glia_module_add_forward_hook(m, log_fwd, (void*)"fwdD", nullptr, GLIA_HOOK_PREPEND, &d));
  EXPECT_NE(a, b);
  g_log.clear();
  call1(h, m, input_x(h));
  EXPECT_EQ(g_log, (std::vector<std::string>{"preB", "preA", "fwdD:1", "fwdC:1"}));
  GLIA_OK_(glia_module_remove_hook(m, b));  // remove_hook finds any kind
  GLIA_OK_(glia_module_remove_hook(m, c));
  g_log.clear();
  call1(h, m, input_x(h));
  EXPECT_EQ(g_log, (std::vector<std::string>{"preA", "fwdD:1"}));
  // Flags: ALWAYS_CALL is for forward hooks only.
  uint64_t id = 0;
  EXPECT_GLIA_ERR(glia_module_add_forward_pre_hook(m, log_pre, nullptr, nullptr, GLIA_HOOK_ALWAYS_CALL, &id),
                  GLIA_ERR_INVALID_ARGUMENT);
}

TEST(ModuleCore, AlwaysCallHooksRunWhenForwardFails) {
  Handles h;
  Mods mods;
  auto* info = new HostInfo{4, 3, nullptr, true};
  glia_module* m = host(mods, "Broken", affine_forward, nullptr, info);
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_forward_hook(m, log_fwd, (void*)"plain", nullptr, 0, &id));
  GLIA_OK_(glia_module_add_forward_hook(m, log_fwd, (void*)"always", nullptr, GLIA_HOOK_ALWAYS_CALL, &id));
  g_log.clear();
  glia_tensor* x = input_x(h);
  glia_tensor* y = nullptr;
  int64_t n = 0;
  ErrorInfo e = take(glia_module_forward(m, &x, 1, &y, 1, &n));
  EXPECT_EQ(e.code, GLIA_ERR_CALLBACK);
  EXPECT_NE(e.message.find("Broken: forward callback failed: "), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("Broken has no attribute `no_such_thing`"), std::string::npos) << e.message;
  EXPECT_EQ(g_log, (std::vector<std::string>{"always:0"}));
}

TEST(ModuleCore, FreeUserDataExactlyOnce) {
  Handles h;
  g_freed = 0;
  int module_freed = 0;
  {
    Mods mods;
    glia_module* m = affine(mods, h, 4, 3, nullptr, nullptr, &module_freed);
    uint64_t id1 = 0, id2 = 0, id3 = 0;
    GLIA_OK_(glia_module_add_forward_pre_hook(m, log_pre, (void*)"x", count_free, 0, &id1));
    GLIA_OK_(glia_module_add_backward_hook(m, bwd_record, nullptr, count_free, 0, &id2));
    GLIA_OK_(glia_module_add_forward_hook(m, log_fwd, (void*)"y", count_free, 0, &id3));
    GLIA_OK_(glia_module_remove_hook(m, id1));
    EXPECT_EQ(g_freed, 1);
    EXPECT_GLIA_ERR(glia_module_remove_hook(m, id1), GLIA_ERR_NOT_FOUND);
    EXPECT_EQ(g_freed, 1);
    // A failed registration frees at once.
    EXPECT_GLIA_ERR(glia_module_add_backward_hook(m, bwd_record, nullptr, count_free, 1u << 7, &id1),
                    GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g_freed, 2);
    EXPECT_GLIA_ERR(glia_module_add_forward_hook(nullptr, log_fwd, nullptr, count_free, 0, &id1),
                    GLIA_ERR_INVALID_HANDLE);
    EXPECT_EQ(g_freed, 3);
    EXPECT_EQ(module_freed, 0);
  }
  // Releasing the module frees its two remaining hooks and its own user_data.
  EXPECT_EQ(g_freed, 5);
  EXPECT_EQ(module_freed, 1);
  // glia_module_create frees user_data when it fails.
  glia_module_def def;
  glia_module_def_init(&def);
  def.forward = act_forward;
  def.user_data = nullptr;
  def.free_user_data = count_free;
  glia_module* m = nullptr;
  EXPECT_GLIA_ERR(glia_module_create("", &def, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(g_freed, 6);
  EXPECT_EQ(m, nullptr);
}

TEST(ModuleCore, HooksOnASharedSubmodule) {
  Handles h;
  Mods mods;
  glia_module* shared = host(mods, "Act", act_forward);
  glia_module* p1 = host(mods, "P", chain_forward);
  glia_module* p2 = host(mods, "P", chain_forward);
  GLIA_OK_(glia_module_add_module(p1, "act", shared));
  GLIA_OK_(glia_module_add_module(p2, "act", shared));
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_forward_hook(shared, log_fwd, (void*)"shared", nullptr, 0, &id));
  Seen seen;
  GLIA_OK_(glia_module_add_backward_hook(shared, bwd_record, &seen, nullptr, 0, &id));
  g_log.clear();
  glia_tensor* x = input_x(h);
  glia_tensor* y1 = call1(h, p1, x);
  glia_tensor* y2 = call1(h, p2, y1);
  EXPECT_EQ(g_log.size(), 2u);
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(y2, nullptr, 0, 0, &s));
  h.add(s);
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  EXPECT_EQ(seen.calls, 2);  // once per call of the shared module
}

glia_error* nan_grad_output_check(void* ud, glia_module*, const glia_tensor* const* go, int64_t n, glia_tensor** rep,
                                  int64_t, int64_t* n_rep) {
  *static_cast<int64_t*>(ud) = n;
  rep[0] = nullptr;  // replace grad_output with None: nothing flows back
  *n_rep = 1;
  (void)go;
  return nullptr;
}

TEST(ModuleCore, BackwardPreHookCanDropGradOutput) {
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3);
  int64_t seen_n = -1;
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_backward_pre_hook(fc, nan_grad_output_check, &seen_n, nullptr, 0, &id));
  glia_tensor* x = input_x(h);
  glia_tensor* y = call1(h, fc, x);
  backward_weighted(h, y, tensor_from_json(h, G()["w"]));
  EXPECT_EQ(seen_n, 1);
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(x, &g));
  EXPECT_EQ(g, nullptr);
  glia_error_free(glia_tensor_release(g));
}

// ---- the tree ------------------------------------------------------------------------

struct Net {
  Mods mods;
  Handles h;
  glia_module *net, *fc, *act, *block, *inner;
  Net() {
    net = host(mods, "Net", chain_forward);
    fc = affine(mods, h, 4, 3);
    act = host(mods, "Act", act_forward);
    block = host(mods, "Block", chain_forward, block_repr);
    inner = affine(mods, h, 3, 2);
    ok(glia_module_add_module(net, "fc", fc), "fc");
    ok(glia_module_add_module(net, "act", act), "act");
    ok(glia_module_add_module(block, "inner", inner), "inner");
    ok(glia_module_add_module(net, "block", block), "block");
    ok(glia_module_register_buffer(net, "steps", make(h, {0, 0}, {2}), 1), "steps");
  }
};

TEST(ModuleCore, ReprAndStateDictKeysMatchTorch) {
  Net n;
  EXPECT_EQ(module_repr(n.net), G()["repr"].get<std::string>());
  glia_tensor_dict* sd = nullptr;
  GLIA_OK_(glia_module_state_dict(n.net, &sd));
  EXPECT_EQ(dict_keys(sd), G()["state_keys"].get<std::vector<std::string>>());
  glia_error_free(glia_tensor_dict_release(sd));
}

TEST(ModuleCore, NamedModulesChildrenAndApply) {
  Net n;
  int64_t count = 0;
  GLIA_OK_(glia_module_named_modules(n.net, "root", 1, nullptr, nullptr, 0, &count));
  ASSERT_EQ(count, 5);
  std::vector<glia_module*> ms(5);
  std::vector<char*> names(5);
  EXPECT_GLIA_ERR(glia_module_named_modules(n.net, "root", 1, ms.data(), names.data(), 4, &count),
                  GLIA_ERR_INVALID_ARGUMENT);
  GLIA_OK_(glia_module_named_modules(n.net, "root", 1, ms.data(), names.data(), 5, &count));
  std::vector<std::string> got;
  for (int i = 0; i < 5; ++i) {
    got.emplace_back(names[static_cast<size_t>(i)]);
    glia_string_free(names[static_cast<size_t>(i)]);
  }
  EXPECT_EQ(got, G()["named_modules"].get<std::vector<std::string>>());
  EXPECT_EQ(ms[1], n.fc);  // the same handle
  for (auto* m : ms) glia_error_free(glia_module_release(m));
  GLIA_OK_(glia_module_named_children(n.net, nullptr, nullptr, 0, &count));
  EXPECT_EQ(count, 3);

  // apply: children first, each module once.
  std::vector<std::string> order;
  auto fn = [](void* ud, glia_module* m) -> glia_error* {
    char buf[64];
    size_t len = 0;
    glia_error* e = glia_module_type_name(m, buf, sizeof buf, &len);
    static_cast<std::vector<std::string>*>(ud)->emplace_back(buf, len);
    return e;
  };
  GLIA_OK_(glia_module_apply(n.net, fn, &order));
  EXPECT_EQ(order, (std::vector<std::string>{"Affine", "Act", "Affine", "Block", "Net"}));
}

TEST(ModuleCore, SharedParameterAppearsOnce) {
  Handles h;
  Mods mods;
  glia_module* root = host(mods, "Root", chain_forward);
  glia_module* a = host(mods, "A", act_forward);
  glia_module* b = host(mods, "B", act_forward);
  glia_tensor* w = make(h, {1, 2}, {2});
  GLIA_OK_(glia_module_register_parameter(a, "w", w));
  GLIA_OK_(glia_module_register_parameter(b, "w", w));
  GLIA_OK_(glia_module_add_module(root, "a", a));
  GLIA_OK_(glia_module_add_module(root, "b", b));
  glia_tensor_dict* d = nullptr;
  GLIA_OK_(glia_module_named_parameters(root, "p", 1, 1, &d));
  EXPECT_EQ(dict_keys(d), (std::vector<std::string>{"p.a.w"}));
  glia_error_free(glia_tensor_dict_release(d));
  GLIA_OK_(glia_module_named_parameters(root, nullptr, 1, 0, &d));
  EXPECT_EQ(dict_keys(d), (std::vector<std::string>{"a.w", "b.w"}));
  glia_error_free(glia_tensor_dict_release(d));
}

TEST(ModuleCore, RegistrationAndLookupErrors) {
  Net n;
  glia_tensor* t = make(n.h, {1}, {1});
  EXPECT_GLIA_MSG(glia_module_register_parameter(n.net, "a.b", t), GLIA_ERR_INVALID_ARGUMENT,
                  "parameter name can't contain \".\"");
  EXPECT_GLIA_MSG(glia_module_register_parameter(n.net, "", t), GLIA_ERR_INVALID_ARGUMENT,
                  "parameter name can't be empty string \"\"");
  EXPECT_GLIA_MSG(glia_module_register_parameter(n.net, "fc", t), GLIA_ERR_INVALID_ARGUMENT,
                  "attribute 'fc' already exists");
  EXPECT_GLIA_MSG(glia_module_register_buffer(n.net, "x.y", t, 1), GLIA_ERR_INVALID_ARGUMENT,
                  "buffer name can't contain \".\"");
  EXPECT_GLIA_MSG(glia_module_add_module(n.net, "steps", n.act), GLIA_ERR_INVALID_ARGUMENT,
                  "attribute 'steps' already exists");
  glia_module* m = nullptr;
  glia_tensor* p = nullptr;
  const json& g = G()["get_errors"];
  EXPECT_GLIA_MSG(glia_module_get_submodule(n.net, "block.nope", &m), GLIA_ERR_NOT_FOUND,
                  g["block.nope"].get<std::string>());
  EXPECT_GLIA_MSG(glia_module_get_submodule(n.net, "fc.weight", &m), GLIA_ERR_NOT_FOUND,
                  g["fc.weight"].get<std::string>());
  EXPECT_GLIA_MSG(glia_module_get_parameter(n.net, "fc.nope", &p), GLIA_ERR_NOT_FOUND,
                  g["param:fc.nope"].get<std::string>());
  EXPECT_GLIA_MSG(glia_module_get_parameter(n.net, "block", &p), GLIA_ERR_NOT_FOUND, g["param:fc"].get<std::string>());
  EXPECT_GLIA_MSG(glia_module_get_buffer(n.net, "fc.weight", &p), GLIA_ERR_NOT_FOUND,
                  g["buffer:fc.weight"].get<std::string>());
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(p, nullptr);
}

// ---- state dicts -----------------------------------------------------------------------

glia_tensor_dict* state_of(glia_module* m) {
  glia_tensor_dict* d = nullptr;
  ok(glia_module_state_dict(m, &d), "state_dict");
  return d;
}

// Values of every state-dict entry, cloned.
std::vector<std::vector<double>> snapshot(glia_module* m) {
  glia_tensor_dict* d = state_of(m);
  int64_t n = 0;
  ok(glia_tensor_dict_size(d, &n), "size");
  std::vector<std::vector<double>> out;
  for (int64_t i = 0; i < n; ++i) {
    glia_tensor* t = nullptr;
    ok(glia_tensor_dict_value_at(d, i, &t), "value_at");
    out.push_back(values(t));
    glia_error_free(glia_tensor_release(t));
  }
  glia_error_free(glia_tensor_dict_release(d));
  return out;
}

// A state dict for Net with every value set to v (float64) or its dtype.
glia_tensor_dict* filled_state(Net& src, double v, glia_dtype dt = GLIA_FLOAT64) {
  glia_tensor_dict* sd = state_of(src.net);
  glia_tensor_dict* out = nullptr;
  ok(glia_tensor_dict_create(&out), "create");
  for (const std::string& k : dict_keys(sd)) {
    glia_tensor* t = nullptr;
    ok(glia_tensor_dict_get(sd, k.c_str(), &t), "get");
    std::vector<int64_t> s = shape(t);
    glia_tensor_options o;
    glia_tensor_options_init(&o);
    o.dtype = dt;
    glia_tensor* f = nullptr;
    ok(glia_tensor_full(s.data(), static_cast<int64_t>(s.size()), v, &o, &f), "full");
    ok(glia_tensor_dict_set(out, k.c_str(), f), "set");
    glia_error_free(glia_tensor_release(f));
    glia_error_free(glia_tensor_release(t));
  }
  glia_error_free(glia_tensor_dict_release(sd));
  return out;
}

std::vector<std::string> report_keys(glia_load_report* r, glia_report_keys which) {
  int64_t n = 0;
  ok(glia_load_report_count(r, which, &n), "count");
  std::vector<std::string> keys;
  for (int64_t i = 0; i < n; ++i) {
    char buf[256];
    size_t len = 0;
    ok(glia_load_report_key(r, which, i, buf, sizeof buf, &len), "key");
    keys.emplace_back(buf, len);
  }
  return keys;
}

glia_tensor_dict* bad_state(Net& n) {
  glia_tensor_dict* d = filled_state(n, 7.0);
  ok(glia_tensor_dict_remove(d, "fc.bias"), "remove");
  ok(glia_tensor_dict_set(d, "fc.extra", make(n.h, {0}, {1})), "set");
  ok(glia_tensor_dict_set(d, "other.w", make(n.h, {0}, {1})), "set");
  return d;
}

TEST(ModuleCore, LoadStateDictStrictAndNonStrict) {
  Net n;
  auto before = snapshot(n.net);
  glia_tensor_dict* bad = bad_state(n);
  ErrorInfo e = take(glia_module_load_state_dict(n.net, bad, 1, 0, nullptr));
  EXPECT_EQ(e.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(e.message, G()["strict_error"].get<std::string>());
  EXPECT_EQ(snapshot(n.net), before);  // all-or-nothing

  glia_load_report* r = nullptr;
  GLIA_OK_(glia_module_load_state_dict(n.net, bad, 0, 0, &r));
  EXPECT_EQ(report_keys(r, GLIA_KEYS_MISSING), G()["nonstrict"]["missing"].get<std::vector<std::string>>());
  EXPECT_EQ(report_keys(r, GLIA_KEYS_UNEXPECTED), G()["nonstrict"]["unexpected"].get<std::vector<std::string>>());
  glia_error_free(glia_load_report_release(r));
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_module_get_parameter(n.net, "fc.weight", &w));
  n.h.add(w);
  EXPECT_EQ(values(w), std::vector<double>(12, 7.0));
  glia_tensor* b = nullptr;
  GLIA_OK_(glia_module_get_parameter(n.net, "fc.bias", &b));
  n.h.add(b);
  EXPECT_EQ(values(b), std::vector<double>(3, 0.2));  // missing: untouched
  glia_error_free(glia_tensor_dict_release(bad));
}

TEST(ModuleCore, LoadStateDictSizeMismatchChangesNothing) {
  Net n;
  auto before = snapshot(n.net);
  glia_tensor_dict* d = filled_state(n, 5.0);
  GLIA_OK_(glia_tensor_dict_set(d, "fc.weight", make(n.h, std::vector<double>(15, 1.0), {3, 5})));
  ErrorInfo e = take(glia_module_load_state_dict(n.net, d, 1, 0, nullptr));
  EXPECT_EQ(e.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(e.message, G()["size_error"].get<std::string>());
  EXPECT_EQ(snapshot(n.net), before);
  // Non-strict loading still refuses a size mismatch.
  EXPECT_GLIA_ERR(glia_module_load_state_dict(n.net, d, 0, 0, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(snapshot(n.net), before);
  glia_error_free(glia_tensor_dict_release(d));

  glia_tensor_dict* bad = bad_state(n);
  GLIA_OK_(glia_tensor_dict_set(bad, "fc.weight", make(n.h, std::vector<double>(15, 1.0), {3, 5})));
  e = take(glia_module_load_state_dict(n.net, bad, 1, 0, nullptr));
  EXPECT_EQ(e.message, G()["size_and_strict_error"].get<std::string>());
  glia_error_free(glia_tensor_dict_release(bad));
}

TEST(ModuleCore, LoadStateDictConvertsDtypeAndAssignAdopts) {
  Net n;
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_module_get_parameter(n.net, "fc.weight", &w));
  n.h.add(w);
  glia_tensor_dict* d = filled_state(n, 1.5, GLIA_FLOAT32);
  GLIA_OK_(glia_module_load_state_dict(n.net, d, 1, 0, nullptr));
  EXPECT_EQ(dtype(w), GLIA_FLOAT64);  // copy_ keeps the module's dtype
  EXPECT_EQ(values(w), std::vector<double>(12, 1.5));

  // assign: the module takes the checkpoint's tensors (and dtype); parameters keep requires_grad.
  GLIA_OK_(glia_module_load_state_dict(n.net, d, 1, 1, nullptr));
  glia_tensor* w2 = nullptr;
  GLIA_OK_(glia_module_get_parameter(n.net, "fc.weight", &w2));
  n.h.add(w2);
  EXPECT_NE(w2, w);
  EXPECT_EQ(dtype(w2), GLIA_FLOAT32);
  int32_t rg = 0;
  GLIA_OK_(glia_tensor_requires_grad(w2, &rg));
  EXPECT_EQ(rg, 1);
  glia_tensor* steps = nullptr;
  glia_tensor* ck = nullptr;
  GLIA_OK_(glia_module_get_buffer(n.net, "steps", &steps));
  GLIA_OK_(glia_tensor_dict_get(d, "steps", &ck));
  n.h.add(steps);
  n.h.add(ck);
  EXPECT_EQ(steps, ck);  // a buffer is the checkpoint tensor itself
  glia_error_free(glia_tensor_dict_release(d));
}

glia_error* clear_missing(void*, glia_module*, glia_load_report* r) {
  int64_t n = 0;
  glia_error* e = glia_load_report_count(r, GLIA_KEYS_MISSING, &n);
  while (!e && n > 0) {
    char buf[256];
    size_t len = 0;
    e = glia_load_report_key(r, GLIA_KEYS_MISSING, 0, buf, sizeof buf, &len);
    if (!e) e = glia_load_report_remove(r, GLIA_KEYS_MISSING, buf);
    if (!e) e = glia_load_report_count(r, GLIA_KEYS_MISSING, &n);
  }
  return e;
}

TEST(ModuleCore, LoadStateDictPostHooks) {
  Net n;
  glia_tensor_dict* d = filled_state(n, 3.0);
  GLIA_OK_(glia_tensor_dict_remove(d, "fc.bias"));
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_load_state_dict_post_hook(n.fc, clear_missing, nullptr, nullptr, &id));
  glia_load_report* r = nullptr;
  GLIA_OK_(glia_module_load_state_dict(n.net, d, 1, 0, &r));  // the hook handled the missing key
  EXPECT_TRUE(report_keys(r, GLIA_KEYS_MISSING).empty());
  glia_error_free(glia_load_report_release(r));
  GLIA_OK_(glia_module_remove_hook(n.fc, id));

  // A hook that leaves the strict check failing: everything is rolled back.
  auto before = snapshot(n.net);
  glia_tensor_dict* d2 = filled_state(n, 9.0);
  GLIA_OK_(glia_tensor_dict_remove(d2, "fc.bias"));
  GLIA_OK_(glia_module_add_load_state_dict_post_hook(
      n.net, [](void*, glia_module*, glia_load_report*) -> glia_error* { return nullptr; }, nullptr, nullptr, &id));
  EXPECT_GLIA_ERR(glia_module_load_state_dict(n.net, d2, 1, 0, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(snapshot(n.net), before);
  glia_error_free(glia_tensor_dict_release(d));
  glia_error_free(glia_tensor_dict_release(d2));
}

// ---- to / zero_grad ----------------------------------------------------------------------

TEST(ModuleCore, ToKeepsParameterIdentity) {
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3, make(h, std::vector<double>(12, 0.5), {3, 4}, GLIA_FLOAT32),
                           make(h, {1, 2, 3}, {3}, GLIA_FLOAT32));
  glia_tensor* idx = make(h, {1, 2}, {2}, GLIA_INT64);
  GLIA_OK_(glia_module_register_buffer(fc, "idx", idx, 1));
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_module_get_parameter(fc, "weight", &w));
  h.add(w);
  // A grad to convert too.
  glia_tensor* y = call1(h, fc, make(h, std::vector<double>(8, 1.0), {2, 4}, GLIA_FLOAT32));
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(y, nullptr, 0, 0, &s));
  h.add(s);
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  glia_dtype f64 = GLIA_FLOAT64;
  GLIA_OK_(glia_module_to(fc, nullptr, &f64));
  EXPECT_EQ(dtype(w), GLIA_FLOAT64);  // the same handle sees the new data
  EXPECT_EQ(values(w), std::vector<double>(12, 0.5));
  EXPECT_EQ(dtype(grad_of(h, w)), GLIA_FLOAT64);
  glia_tensor* idx2 = nullptr;
  GLIA_OK_(glia_module_get_buffer(fc, "idx", &idx2));
  h.add(idx2);
  EXPECT_EQ(dtype(idx2), GLIA_INT64);  // integer buffers keep their dtype
  glia_dtype i64 = GLIA_INT64;
  ErrorInfo e = take(glia_module_to(fc, nullptr, &i64));
  EXPECT_EQ(e.code, GLIA_ERR_DTYPE);
  EXPECT_NE(e.message.find("nn.Module.to only accepts floating point or complex dtypes"), std::string::npos);
  glia_device cuda{GLIA_CUDA, 63};  // never available, GPU or not: nothing moves
  EXPECT_GLIA_ERR(glia_module_to(fc, &cuda, &f64), GLIA_ERR_DEVICE);
  EXPECT_EQ(dtype(w), GLIA_FLOAT64);
}

TEST(ModuleCore, ZeroGradBothModes) {
  Handles h;
  Mods mods;
  glia_module* fc = affine(mods, h, 4, 3);
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_module_get_parameter(fc, "weight", &w));
  h.add(w);
  auto run = [&] {
    glia_tensor* y = call1(h, fc, make(h, std::vector<double>(8, 1.0), {2, 4}));
    glia_tensor* s = nullptr;
    ok(glia_sum(y, nullptr, 0, 0, &s), "sum");
    h.add(s);
    ok(glia_tensor_backward(s, nullptr, 0), "backward");
  };
  run();
  glia_tensor* g = grad_of(h, w);
  ASSERT_NE(g, nullptr);
  GLIA_OK_(glia_module_zero_grad(fc, 0));
  EXPECT_EQ(values(g), std::vector<double>(12, 0.0));  // zeroed in place
  EXPECT_EQ(grad_of(h, w), g);
  GLIA_OK_(glia_module_zero_grad(fc, 1));
  EXPECT_EQ(grad_of(h, w), nullptr);
  run();
  EXPECT_NE(grad_of(h, w), nullptr);
  GLIA_OK_(glia_module_requires_grad(fc, 0));
  int32_t rg = 1;
  GLIA_OK_(glia_tensor_requires_grad(w, &rg));
  EXPECT_EQ(rg, 0);
}

}  // namespace
