// Regression tests for the adversarial probe's findings about modules, callbacks,
// optimizers, the allocator and files (issue 24: items 2, 4, 5, 6, 7, 9, 10), and
// for autograd through dtype conversion (issue 20's first defect). The size,
// stride and integer-arithmetic findings live in extreme_values_test.cpp.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

const glia_device kCpu = {GLIA_CPU, 0};

std::vector<double> randn_values(size_t n, double scale) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.7 * static_cast<double>(i) + 0.3);
  return v;
}

// forward with these inputs (NULL entries allowed); returns the error (caller frees) and releases outputs.
glia_error* forward(glia_module* m, std::vector<const glia_tensor*> inputs, std::vector<glia_tensor*>* outs = nullptr) {
  glia_tensor* o[GLIA_MODULE_MAX_OUTPUTS] = {};
  int64_t n = 0;
  glia_error* e =
      glia_module_forward(m, inputs.data(), static_cast<int64_t>(inputs.size()), o, GLIA_MODULE_MAX_OUTPUTS, &n);
  for (int64_t i = 0; i < n; ++i) {
    if (outs)
      outs->push_back(o[i]);
    else
      glia_error_free(glia_tensor_release(o[i]));
  }
  return e;
}

// ---- item 2: NULL input entries of built-in modules --------------------------------------

TEST(ProbeNullInputs, BuiltinModulesRefuseANullInput) {
  struct Case {
    const char* name;
    glia_error* (*make)(glia_module**);
    size_t n_inputs;
  };
  const Case cases[] = {
      {"Linear", [](glia_module** m) { return glia_nn_linear(3, 2, 1, nullptr, m); }, 1},
      {"Bilinear", [](glia_module** m) { return glia_nn_bilinear(3, 3, 2, 1, nullptr, m); }, 2},
      {"Conv2d", [](glia_module** m) { return glia_nn_conv2d(1, 2, 3, 3, nullptr, nullptr, m); }, 1},
      {"MaxPool2d",
       [](glia_module** m) {
         glia_max_pool2d_options o;
         glia_max_pool2d_options_init(&o);
         o.kernel_size[0] = o.kernel_size[1] = 2;
         return glia_nn_max_pool2d(&o, nullptr, m);
       },
       1},
      {"ReLU", [](glia_module** m) { return glia_nn_relu(nullptr, m); }, 1},
      {"Softmax", [](glia_module** m) { return glia_nn_softmax(1, nullptr, m); }, 1},
      {"LogSoftmax", [](glia_module** m) { return glia_nn_log_softmax(1, nullptr, m); }, 1},
      {"Dropout", [](glia_module** m) { return glia_nn_dropout(0.5, nullptr, m); }, 1},
      {"Flatten", [](glia_module** m) { return glia_nn_flatten(1, -1, nullptr, m); }, 1},
      {"Embedding", [](glia_module** m) { return glia_nn_embedding(4, 2, nullptr, nullptr, 2.0, nullptr, m); }, 1},
  };
  Handles h;
  glia_tensor* x = make(h, randn_values(3, 1.0), {1, 3}, GLIA_FLOAT32);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ModuleHandle m;
    GLIA_OK_(c.make(m.out()));
    for (size_t null_at = 0; null_at < c.n_inputs; ++null_at) {
      std::vector<const glia_tensor*> in(c.n_inputs, x);
      in[null_at] = nullptr;
      std::string msg = std::string(c.name) + ".forward: input " + std::to_string(null_at + 1) + " of " +
                        std::to_string(c.n_inputs) + " is None, expected a Tensor";
      EXPECT_GLIA_MSG(forward(m, in), GLIA_ERR_INVALID_ARGUMENT, msg);
    }
    // In a Sequential the child reports it.
    glia_module* one[] = {m.get()};
    ModuleHandle seq;
    GLIA_OK_(glia_nn_sequential(one, 1, seq.out()));
    if (c.n_inputs == 1) EXPECT_GLIA_MSG(forward(seq, {nullptr}), GLIA_ERR_INVALID_ARGUMENT, "is None");
  }
}

TEST(ProbeNullInputs, IdentityPassesNoneThrough) {
  ModuleHandle id;
  GLIA_OK_(glia_nn_identity(nullptr, id.out()));
  std::vector<glia_tensor*> outs;
  GLIA_OK_(forward(id, {nullptr}, &outs));
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0], nullptr);  // torch: nn.Identity()(None) is None
}

glia_error* replace_with_null(void*, glia_module*, const glia_tensor* const*, int64_t n_inputs,
                              glia_tensor** replacement, int64_t, int64_t* out_n) {
  for (int64_t i = 0; i < n_inputs; ++i) replacement[i] = nullptr;
  *out_n = n_inputs;
  return nullptr;
}

TEST(ProbeNullInputs, PreHookReplacingTheInputWithNullIsAnError) {
  Handles h;
  glia_tensor* x = make(h, randn_values(3, 1.0), {1, 3}, GLIA_FLOAT32);
  ModuleHandle lin;
  GLIA_OK_(glia_nn_linear(3, 2, 1, nullptr, lin.out()));
  uint64_t id = 0;
  GLIA_OK_(glia_module_add_forward_pre_hook(lin, replace_with_null, nullptr, nullptr, 0, &id));
  EXPECT_GLIA_MSG(forward(lin, {x}), GLIA_ERR_INVALID_ARGUMENT, "Linear.forward: input 1 of 1 is None");
  GLIA_OK_(glia_module_remove_hook(lin, id));
  GLIA_OK_(forward(lin, {x}));
}

// ---- item 4: no cycles in a module tree -------------------------------------------------

TEST(ProbeModuleCycles, AModuleCannotBeItsOwnChildOrDescendant) {
  ModuleHandle a, b, c;
  GLIA_OK_(glia_nn_sequential(nullptr, 0, a.out()));
  GLIA_OK_(glia_nn_sequential(nullptr, 0, b.out()));
  GLIA_OK_(glia_nn_linear(2, 2, 1, nullptr, c.out()));
  EXPECT_GLIA_MSG(glia_module_add_module(a, "me", a), GLIA_ERR_INVALID_ARGUMENT,
                  "cannot add module 'me' to Sequential: the module itself and a module tree can't contain a cycle");
  GLIA_OK_(glia_module_add_module(a, "b", b));
  GLIA_OK_(glia_module_add_module(b, "c", c));
  EXPECT_GLIA_MSG(glia_module_add_module(c, "up", a), GLIA_ERR_INVALID_ARGUMENT, "is an ancestor of it");
  EXPECT_GLIA_MSG(glia_module_add_module(b, "b_again", a), GLIA_ERR_INVALID_ARGUMENT, "is an ancestor of it");
  EXPECT_GLIA_ERR(glia_nn_sequential_append(b, a), GLIA_ERR_INVALID_ARGUMENT);
  // The refused registrations changed nothing; walks of the tree terminate.
  EXPECT_EQ(state_dict_keys(a), (std::vector<std::string>{"b.c.weight", "b.c.bias"}));
  EXPECT_EQ(module_repr(a),
            "Sequential(\n  (b): Sequential(\n    (c): Linear(in_features=2, out_features=2, bias=True)\n  )\n)");
  GLIA_OK_(glia_module_train(a, 0));
  // A shared (diamond-shaped) child is not a cycle.
  GLIA_OK_(glia_module_add_module(a, "c_too", c));
}

// ---- item 9: callbacks may drop the caller's last reference -------------------------------

struct ReprState {
  glia_module* self_handle = nullptr;  // released by the callback
  int calls = 0;
};

glia_error* repr_releasing_self(void* ud, glia_module*, char* buffer, size_t capacity, size_t* out_length) {
  auto* s = static_cast<ReprState*>(ud);
  if (s->calls++ == 0) glia_error_free(glia_module_release(s->self_handle));
  const char text[] = "size=3";
  std::snprintf(buffer, capacity, "%s", text);
  *out_length = sizeof(text) - 1;
  return nullptr;
}

TEST(ProbeCallbacks, ToStringSurvivesExtraReprReleasingTheModule) {
  ReprState state;
  glia_module_def def;
  glia_module_def_init(&def);
  def.extra_repr = repr_releasing_self;
  def.user_data = &state;
  glia_module* m = nullptr;
  GLIA_OK_(glia_module_create("Host", &def, &m));
  state.self_handle = m;
  char buf[64];
  size_t len = 0;
  GLIA_OK_(glia_module_to_string(m, buf, sizeof(buf), &len));
  EXPECT_STREQ(buf, "Host(size=3)");
  // The callback dropped the only reference: the handle is dead now.
  EXPECT_GLIA_ERR(glia_module_to_string(m, buf, sizeof(buf), &len), GLIA_ERR_INVALID_HANDLE);
}

struct RemoveChildState {
  glia_module* parent = nullptr;
};

glia_error* repr_removing_child(void* ud, glia_module*, char* buffer, size_t capacity, size_t* out_length) {
  auto* s = static_cast<RemoveChildState*>(ud);
  glia_error_free(glia_module_remove(s->parent, "kid"));
  std::snprintf(buffer, capacity, "x");
  *out_length = 1;
  return nullptr;
}

TEST(ProbeCallbacks, ToStringSurvivesExtraReprEditingTheTree) {
  RemoveChildState state;
  glia_module_def def;
  glia_module_def_init(&def);
  def.extra_repr = repr_removing_child;
  def.user_data = &state;
  ModuleHandle parent, kid;
  GLIA_OK_(glia_nn_sequential(nullptr, 0, parent.out()));
  GLIA_OK_(glia_module_create("Kid", &def, kid.out()));
  state.parent = parent;
  GLIA_OK_(glia_module_add_module(parent, "kid", kid));
  GLIA_OK_(glia_module_add_module(parent, "other", kid));
  glia_error_free(glia_module_release(kid.release()));  // the parent holds the only references now (twice)
  // One call: the walk renders the children as they were when it reached the parent.
  char buf[256];
  size_t len = 0;
  GLIA_OK_(glia_module_to_string(parent, buf, sizeof(buf), &len));
  EXPECT_STREQ(buf, "Sequential(\n  (kid): Kid(x)\n  (other): Kid(x)\n)");
  EXPECT_EQ(module_repr(parent), "Sequential(\n  (other): Kid(x)\n)");
}

// ---- item 10: load_state_dict is all-or-nothing when set_extra_state fails ---------------

glia_error* get_extra(void*, glia_module*, glia_tensor** out) {
  double v = 7;
  int64_t shape[] = {1};
  return glia_tensor_from_data(&v, sizeof v, shape, 1, GLIA_FLOAT64, out);
}
glia_error* set_extra_fails(void*, glia_module*, const glia_tensor*) {
  return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "extra state refused");
}

TEST(ProbeLoadStateDict, FailingSetExtraStateRestoresParameters) {
  Handles h;
  glia_module_def def;
  glia_module_def_init(&def);
  def.get_extra_state = get_extra;
  def.set_extra_state = set_extra_fails;
  ModuleHandle root, host, lin;
  GLIA_OK_(glia_nn_sequential(nullptr, 0, root.out()));
  GLIA_OK_(glia_nn_linear(2, 2, 1, nullptr, lin.out()));
  GLIA_OK_(glia_module_create("Host", &def, host.out()));
  glia_tensor* w = make(h, {1, 2, 3, 4}, {2, 2}, GLIA_FLOAT32);
  GLIA_OK_(glia_module_register_parameter(host, "w", w));
  GLIA_OK_(glia_module_add_module(root, "0", lin));
  GLIA_OK_(glia_module_add_module(root, "1", host));
  glia_tensor* lin_w = parameter(h, root, "0.weight");
  const std::vector<double> lin_before = values(lin_w);

  DictHandle sd;
  GLIA_OK_(glia_module_state_dict(root, sd.out()));
  EXPECT_EQ(dict_keys(sd), (std::vector<std::string>{"0.weight", "0.bias", "1.w", "1._extra_state"}));
  DictHandle fresh;
  GLIA_OK_(glia_tensor_dict_create(fresh.out()));
  GLIA_OK_(glia_tensor_dict_set(fresh, "0.weight", make(h, {9, 9, 9, 9}, {2, 2}, GLIA_FLOAT32)));
  GLIA_OK_(glia_tensor_dict_set(fresh, "0.bias", make(h, {9, 9}, {2}, GLIA_FLOAT32)));
  GLIA_OK_(glia_tensor_dict_set(fresh, "1.w", make(h, {5, 6, 7, 8}, {2, 2}, GLIA_FLOAT32)));
  GLIA_OK_(glia_tensor_dict_set(fresh, "1._extra_state", make(h, {1}, {1})));
  EXPECT_GLIA_MSG(glia_module_load_state_dict(root, fresh, 1, 0, nullptr), GLIA_ERR_CALLBACK, "extra state refused");
  EXPECT_EQ(values(w), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(values(lin_w), lin_before);
}

// ---- item 5: an optimizer step that runs out of memory changes nothing ---------------------

// A host allocator that, once armed with N, fails the N-th request and every later one until it is
// disarmed (glia retries a failed allocation after emptying its cache, so a single failure would
// not reach the caller). Only requests that reach the host count: cached blocks do not.
struct FailingAllocator {
  std::atomic<bool> armed{false};
  std::atomic<int64_t> countdown{0};  // requests still granted while armed
};
FailingAllocator g_fail;

void* failing_alloc(void*, size_t size, size_t alignment) {
  if (g_fail.armed && g_fail.countdown.fetch_sub(1) <= 0) return nullptr;
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
void plain_free(void*, void* p, size_t) { std::free(p); }

class ProbeOptimizerOom : public ::testing::Test {
 protected:
  void SetUp() override {
    glia_allocator a;
    glia_allocator_init(&a);
    a.alloc = failing_alloc;
    a.free = plain_free;
    GLIA_OK_(glia_set_allocator(&a));
  }
  void TearDown() override {
    g_fail.armed = false;
    GLIA_OK_(glia_set_allocator(nullptr));
  }
};

// Parameters of several dtypes and layouts (float32, float64, a non-contiguous float32 view and a
// float16 one take the slow path), each with a grad.
struct Problem {
  Handles h;
  std::vector<glia_tensor*> params;
  Problem() {
    const std::vector<std::pair<std::vector<int64_t>, glia_dtype>> specs = {
        {{3, 4}, GLIA_FLOAT32}, {{4}, GLIA_FLOAT64}, {{2, 3}, GLIA_FLOAT16}, {{5}, GLIA_FLOAT32}};
    for (size_t i = 0; i < specs.size(); ++i) {
      size_t n = 1;
      for (int64_t s : specs[i].first) n *= static_cast<size_t>(s);
      glia_tensor* p = make(h, randn_values(n, 1.0 + static_cast<double>(i)), specs[i].first, specs[i].second);
      ok(glia_tensor_set_requires_grad(p, 1), "set_requires_grad");
      glia_tensor* g = make(h, randn_values(n, 0.5), specs[i].first, specs[i].second);
      ok(glia_tensor_set_grad(p, g), "set_grad");
      params.push_back(p);
    }
  }
};

std::vector<std::vector<double>> snapshot(const std::vector<glia_tensor*>& ps) {
  std::vector<std::vector<double>> v;
  for (glia_tensor* p : ps) v.push_back(values(p));
  return v;
}

// Keys and values of the optimizer's state dict.
std::vector<std::pair<std::string, std::vector<double>>> opt_state(glia_optimizer* o) {
  DictHandle d;
  EXPECT_EQ(glia_optimizer_state_dict(o, d.out()), nullptr);
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const std::string& k : dict_keys(d)) {
    glia_tensor* t = nullptr;
    EXPECT_EQ(glia_tensor_dict_get(d, k.c_str(), &t), nullptr);
    out.emplace_back(k, t ? values(t) : std::vector<double>{});
    glia_error_free(glia_tensor_release(t));
  }
  return out;
}

using MakeOpt = glia_error* (*)(std::vector<glia_tensor*>&, glia_optimizer**);

void check_all_or_nothing(const char* name, MakeOpt make_opt) {
  SCOPED_TRACE(name);
  Problem prob, ref;
  OptHandle opt, ref_opt;
  GLIA_OK_(make_opt(prob.params, opt.out()));
  GLIA_OK_(make_opt(ref.params, ref_opt.out()));
  int failed_steps = 0;
  for (int round = 0; round < 2; ++round) {  // the first step creates the state, the second uses it
    GLIA_OK_(glia_optimizer_step(ref_opt));
    for (int64_t n = 0;; ++n) {
      const auto params_before = snapshot(prob.params);
      const auto state_before = opt_state(opt);
      glia_empty_cache();
      g_fail.countdown = n;
      g_fail.armed = true;
      glia_error* e = glia_optimizer_step(opt);
      g_fail.armed = false;
      if (!e) break;
      ++failed_steps;
      EXPECT_EQ(glia_error_code(e), GLIA_ERR_OUT_OF_MEMORY) << glia_error_message(e);
      glia_error_free(e);
      EXPECT_EQ(snapshot(prob.params), params_before) << "a failed step (allocation " << n << ") changed parameters";
      EXPECT_EQ(opt_state(opt), state_before) << "a failed step (allocation " << n << ") changed the state";
      ASSERT_LT(n, 1000);
    }
    EXPECT_EQ(snapshot(prob.params), snapshot(ref.params)) << "round " << round;
    EXPECT_EQ(opt_state(opt), opt_state(ref_opt)) << "round " << round;
  }
  EXPECT_GT(failed_steps, 2);  // the injection reached the step's allocations
}

TEST_F(ProbeOptimizerOom, EveryOptimizerStepIsAllOrNothing) {
  check_all_or_nothing("SGD momentum", [](std::vector<glia_tensor*>& p, glia_optimizer** o) {
    glia_sgd_options s;
    glia_sgd_options_init(&s);
    s.lr = 0.1;
    s.momentum = 0.9;
    s.weight_decay = 0.01;
    return glia_optim_sgd(p.data(), static_cast<int64_t>(p.size()), &s, o);
  });
  check_all_or_nothing("Adam amsgrad", [](std::vector<glia_tensor*>& p, glia_optimizer** o) {
    glia_adam_options a;
    glia_adam_options_init(&a);
    a.amsgrad = 1;
    return glia_optim_adam(p.data(), static_cast<int64_t>(p.size()), &a, o);
  });
  check_all_or_nothing("AdamW", [](std::vector<glia_tensor*>& p, glia_optimizer** o) {
    return glia_optim_adamw(p.data(), static_cast<int64_t>(p.size()), nullptr, o);
  });
  check_all_or_nothing("RMSprop centered momentum", [](std::vector<glia_tensor*>& p, glia_optimizer** o) {
    glia_rmsprop_options r;
    glia_rmsprop_options_init(&r);
    r.centered = 1;
    r.momentum = 0.5;
    return glia_optim_rmsprop(p.data(), static_cast<int64_t>(p.size()), &r, o);
  });
}

// ---- item 6: host allocator hooks may call back into glia ------------------------------------

std::atomic<int> g_reentrant_calls{0};
void* stats_alloc(void*, size_t size, size_t alignment) {
  glia_memory_stats st;
  st.struct_size = sizeof st;
  glia_error_free(glia_memory_stats_get(&st));
  ++g_reentrant_calls;
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
void stats_free(void*, void* p, size_t) {
  glia_memory_stats st;
  st.struct_size = sizeof st;
  glia_error_free(glia_memory_stats_get(&st));
  ++g_reentrant_calls;
  std::free(p);
}

TEST(ProbeAllocator, HooksThatCallBackIntoGliaDoNotDeadlock) {
  glia_allocator a;
  glia_allocator_init(&a);
  a.alloc = stats_alloc;
  a.free = stats_free;
  GLIA_OK_(glia_set_allocator(&a));
  {
    Handles h;
    for (int i = 0; i < 4; ++i) make(h, randn_values(100, 1.0), {100}, GLIA_FLOAT32);
  }                    // the blocks go to the cache
  glia_empty_cache();  // frees them through the hook, which reads the statistics
  GLIA_OK_(glia_set_allocator(nullptr));
  EXPECT_GE(g_reentrant_calls.load(), 2);
}

// ---- item 7: a FIFO is refused without blocking ----------------------------------------------

TEST(ProbeFiles, LoadingFromAFifoWithoutAWriterFailsAtOnce) {
  char dir[] = "/tmp/glia_fifo_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/pipe";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  auto t0 = std::chrono::steady_clock::now();
  for (glia_format f : {GLIA_FORMAT_AUTO, GLIA_FORMAT_SAFETENSORS, GLIA_FORMAT_TORCH}) {
    glia_tensor_dict* d = nullptr;
    EXPECT_GLIA_MSG(glia_tensor_dict_load(path.c_str(), f, &d), GLIA_ERR_IO, "not a regular file");
    EXPECT_EQ(d, nullptr);
  }
  ModuleHandle lin;
  GLIA_OK_(glia_nn_linear(2, 2, 1, nullptr, lin.out()));
  EXPECT_GLIA_MSG(glia_module_load(lin, path.c_str(), 1, nullptr), GLIA_ERR_IO, "not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  unlink(path.c_str());
  rmdir(dir);
}

// ---- issue 20: autograd through dtype conversion and contiguous() --------------------------

TEST(ProbeAutograd, DtypeConversionRecordsToCopyBackward) {
  Handles h;
  glia_tensor* x = make(h, {1.5, -2.0, 3.0}, {3}, GLIA_FLOAT32);
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_tensor_to(x, &kCpu, ptr_to(GLIA_FLOAT64), &y));
  h.add(y);
  EXPECT_EQ(grad_fn_name(y), "ToCopyBackward0");
  glia_tensor* sq = nullptr;
  GLIA_OK_(glia_mul(y, y, &sq));
  h.add(sq);
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(sq, nullptr, 0, 0, &s));
  h.add(s);
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  glia_tensor* g = grad_of(h, x);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(dtype(g), GLIA_FLOAT32);  // the gradient comes back in x's dtype
  EXPECT_EQ(values(g), (std::vector<double>{3.0, -4.0, 6.0}));

  // Half and back: still differentiable; an integer result is not.
  glia_tensor* half = nullptr;
  GLIA_OK_(glia_tensor_to(x, &kCpu, ptr_to(GLIA_FLOAT16), &half));
  h.add(half);
  EXPECT_EQ(grad_fn_name(half), "ToCopyBackward0");
  glia_tensor* as_long = nullptr;
  GLIA_OK_(glia_tensor_to(x, &kCpu, ptr_to(GLIA_INT64), &as_long));
  h.add(as_long);
  int32_t rg = 1;
  GLIA_OK_(glia_tensor_requires_grad(as_long, &rg));
  EXPECT_EQ(rg, 0);
  // Same dtype: the tensor itself.
  glia_tensor* same = nullptr;
  GLIA_OK_(glia_tensor_to(x, &kCpu, ptr_to(GLIA_FLOAT32), &same));
  h.add(same);
  EXPECT_EQ(grad_fn_name(same), "");
}

TEST(ProbeAutograd, ContiguousOfAViewRecordsCloneBackward) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4, 5, 6}, {2, 3}, GLIA_FLOAT64);
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_transpose(x, 0, 1, &t));
  h.add(t);
  glia_tensor* c = nullptr;
  GLIA_OK_(glia_tensor_contiguous(t, &c));
  h.add(c);
  EXPECT_EQ(grad_fn_name(c), "CloneBackward0");
  glia_tensor* w = make(h, {1, 10, 100, 1000, 10000, 100000}, {3, 2});
  glia_tensor* p = nullptr;
  GLIA_OK_(glia_mul(c, w, &p));
  h.add(p);
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(p, nullptr, 0, 0, &s));
  h.add(s);
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  // d/dx of sum(x^T * w) = w^T.
  EXPECT_EQ(values(grad_of(h, x)), (std::vector<double>{1, 100, 10000, 10, 1000, 100000}));
}

}  // namespace
