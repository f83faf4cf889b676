// Out of memory at every allocation site (the reliability issue; SQLite's OOM
// loop is the model). Each scenario below is a sequence of C-API calls. It
// runs once undisturbed (the reference), then again with allocation N made to
// fail, for N = 1, 2, 3, ... until a run completes without reaching N. An
// allocation is any of (Note [Allocation failure injection] in
// src/core/alloc_fault.h): a CPU tensor block, a scratch buffer, a new handle,
// a checkpoint buffer, a string the C API returns, or any `operator new` in
// the process (replaced below), which covers every std:: container and `new`
// inside the library. Only allocations made inside a library call count: the
// test's own allocations between calls are not injected.
//
// At every N: the call that fails returns GLIA_ERR_OUT_OF_MEMORY (or
// GLIA_ERR_CALLBACK carrying "out of memory" when the allocation failed inside
// a host callback, as the hook and custom-function docs promise), nothing
// crashes, every handle, tensor byte and C++ object the scenario made is gone
// once it released what it holds (live handles, bytes in use and blocks from
// operator new back to the baseline), every host user_data is freed exactly
// once, and the objects a failed call was given are unchanged: a failed
// load_state_dict / load leaves the module's parameters bit-identical, a
// failed optimizer step leaves the parameters as they were and the next step
// gives the reference's values, a failed dict edit leaves the dict as it was,
// a failed save leaves the file that was there. A run where the injected failure was absorbed (the call
// succeeded anyway) must give the reference's results.
//
// Two modes: transient (only allocation N fails) and persistent (N and every
// later one fail, so error paths that allocate fail too). A third loop fails
// the host allocator hooks (glia_set_allocator) from the N-th block on.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "capi/handles.h"
#include "core/alloc_fault.h"
#include "glia/glia.h"

// ---- operator new, counted --------------------------------------------------

namespace {
// Blocks from operator new not yet deleted: a leak check of the library's C++
// objects that the Release build makes too (LeakSanitizer does it in asan).
std::atomic<int64_t> g_live_news{0};
void* counted_malloc(size_t n) noexcept {
  if (glia::fault::alloc_fails()) return nullptr;
  void* p = std::malloc(n ? n : 1);
  if (p) g_live_news.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void* counted_aligned(size_t n, std::align_val_t al) noexcept {
  if (glia::fault::alloc_fails()) return nullptr;
  size_t a = static_cast<size_t>(al);
  if (a < sizeof(void*)) a = sizeof(void*);
  size_t rounded = (n + a - 1) / a * a;
  void* p = std::aligned_alloc(a, rounded ? rounded : a);
  if (p) g_live_news.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void counted_free(void* p) noexcept {
  if (!p) return;
  g_live_news.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(size_t n) {
  void* p = counted_malloc(n);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) {
  void* p = counted_malloc(n);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new(size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new(size_t n, std::align_val_t a) {
  void* p = counted_aligned(n, a);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n, std::align_val_t a) {
  void* p = counted_aligned(n, a);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_aligned(n, a); }
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_aligned(n, a); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, size_t) noexcept { counted_free(p); }
void operator delete[](void* p, size_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }

namespace {

namespace fault = glia::fault;

// ---- the harness --------------------------------------------------------------

// The host allocator loop's hooks: the N-th block and every later one fail while armed.
struct HookState {
  int64_t fail_from = 0;  // 0: never
  int64_t count = 0, failed = 0, live = 0;
};
HookState g_hook;
void* hook_alloc(void*, size_t size, size_t alignment) {
  if (fault::g_alloc_fault.armed.load(std::memory_order_relaxed)) {
    ++g_hook.count;
    if (g_hook.fail_from > 0 && g_hook.count >= g_hook.fail_from) {
      ++g_hook.failed;
      return nullptr;
    }
  }
  void* p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p) ++g_hook.live;
  return p;
}
void hook_free(void*, void* p, size_t) {
  --g_hook.live;
  std::free(p);
}

// One run of a scenario: the calls go through call(), which counts (and fails)
// only the allocations made inside the call.
struct Ctx {
  std::string failed_call, message;
  int32_t code = GLIA_OK;
  template <class F>
  bool call(const char* what, F&& f) {
    fault::arm_alloc_fault();
    glia_error* e = nullptr;
    try {
      e = f();
    } catch (...) {
      fault::disarm_alloc_fault();
      ADD_FAILURE() << what << ": an exception left the C API";
      code = GLIA_ERR_INTERNAL;
      failed_call = what;
      return false;
    }
    fault::disarm_alloc_fault();
    if (!e) return true;
    code = glia_error_code(e);
    message = glia_error_message(e);
    failed_call = what;
    glia_error_free(e);
    return false;
  }
};

// G(call): run one C-API call under injection; a failure ends the scenario.
#define G(...)                                                    \
  do {                                                            \
    if (!ctx.call(#__VA_ARGS__, [&] { return (__VA_ARGS__); })) { \
      return false;                                               \
    }                                                             \
  } while (0)
// GC(check, call): as G, and on failure runs `check` (disarmed) before giving up.
#define GC(check, ...)                                            \
  do {                                                            \
    if (!ctx.call(#__VA_ARGS__, [&] { return (__VA_ARGS__); })) { \
      check();                                                    \
      return false;                                               \
    }                                                             \
  } while (0)

// Undisturbed calls of the test itself (snapshots, checks).
void ok(glia_error* e, const char* what) {
  EXPECT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
  glia_error_free(e);
}
#define OK(...) ok((__VA_ARGS__), #__VA_ARGS__)

std::vector<char> bytes_of(glia_tensor* t) {
  int64_t numel = 0;
  glia_dtype dt = GLIA_FLOAT32;
  OK(glia_tensor_numel(t, &numel));
  OK(glia_tensor_dtype(t, &dt));
  const size_t n = static_cast<size_t>(numel) * glia_dtype_size(dt);
  std::vector<char> v(n);
  if (n) OK(glia_tensor_copy_to_host(t, v.data(), n));
  return v;
}

// Every parameter's bytes, in order.
std::vector<std::vector<char>> param_bytes(glia_module* m) {
  std::vector<std::vector<char>> out;
  glia_tensor_dict* d = nullptr;
  OK(glia_module_named_parameters(m, nullptr, 1, 1, &d));
  int64_t n = 0;
  OK(glia_tensor_dict_size(d, &n));
  for (int64_t i = 0; i < n; ++i) {
    glia_tensor* t = nullptr;
    OK(glia_tensor_dict_value_at(d, i, &t));
    out.push_back(bytes_of(t));
    OK(glia_tensor_release(t));
  }
  OK(glia_tensor_dict_release(d));
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Handles a scenario holds, released in reverse order by release().
struct Held {
  std::vector<glia_tensor*> tensors;
  std::vector<glia_module*> modules;
  std::vector<glia_optimizer*> optimizers;
  std::vector<glia_tensor_dict*> dicts;
  std::vector<glia_value*> values;
  glia_value* v(glia_value* h) {
    if (h) values.push_back(h);
    return h;
  }
  glia_tensor* t(glia_tensor* h) {
    if (h) tensors.push_back(h);
    return h;
  }
  glia_module* m(glia_module* h) {
    if (h) modules.push_back(h);
    return h;
  }
  void release() {
    for (auto it = values.rbegin(); it != values.rend(); ++it) OK(glia_value_release(*it));
    for (auto it = optimizers.rbegin(); it != optimizers.rend(); ++it) OK(glia_optimizer_release(*it));
    for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) OK(glia_tensor_release(*it));
    for (auto it = dicts.rbegin(); it != dicts.rend(); ++it) OK(glia_tensor_dict_release(*it));
    for (auto it = modules.rbegin(); it != modules.rend(); ++it) OK(glia_module_release(*it));
    values.clear();
    optimizers.clear();
    tensors.clear();
    dicts.clear();
    modules.clear();
  }
};

// Per-registration user_data of hooks and custom functions: freed exactly once.
struct Frees {
  int counts[64] = {};
  int used = 0;
  int* next() { return &counts[used++]; }
};
void count_free(void* p) { ++*static_cast<int*>(p); }

class Scenario {
 public:
  virtual ~Scenario() = default;
  // The calls; false at the first one that failed (ctx says which).
  virtual bool run(Ctx& ctx) = 0;
  // Releases everything the scenario holds (called whether run succeeded or not).
  virtual void release() {
    held.release();
    for (int i = 0; i < frees.used; ++i)
      EXPECT_EQ(frees.counts[i], 1) << "user_data " << i << " freed " << frees.counts[i] << " times";
  }
  std::string result;  // what a complete run computed (compared with the reference's)
  const Scenario* ref = nullptr;
  Held held;
  Frees frees;

 protected:
  void add_result(const void* p, size_t n) { result.append(static_cast<const char*>(p), n); }
  void add_result(const std::vector<std::vector<char>>& bs) {
    for (auto& b : bs) add_result(b.data(), b.size());
  }
};

using Factory = std::function<std::unique_ptr<Scenario>()>;

struct LoopResult {
  int64_t points = 0;       // values of N at which an injected failure was reached
  int64_t absorbed = 0;     // of which the scenario still completed
  int64_t allocations = 0;  // allocations counted in an undisturbed run
};

bool acceptable(const Ctx& c) {
  if (c.code == GLIA_ERR_OUT_OF_MEMORY) return true;
  return c.code == GLIA_ERR_CALLBACK && c.message.find("out of memory") != std::string::npos;
}

uint64_t bytes_in_use() {
  glia_memory_stats s;
  std::memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  OK(glia_memory_stats_get(&s));
  return s.bytes_in_use;
}

enum class Mode { Transient, Persistent, HostHooks };

LoopResult oom_loop(const char* name, const Factory& make, Mode mode) {
  LoopResult r;
  const bool verbose = std::getenv("GLIA_OOM_VERBOSE") != nullptr;  // each N and its failed call, on stderr
  const uint64_t handles0 = glia::capi::live_handles();
  const uint64_t bytes0 = bytes_in_use();
  // The reference run (twice: the first also runs one-time initialisations).
  std::unique_ptr<Scenario> ref;
  for (int i = 0; i < 2; ++i) {
    ref = make();
    Ctx c;
    fault::reset_alloc_fault(0, false);
    EXPECT_TRUE(ref->run(c)) << name << ": undisturbed run failed in " << c.failed_call << ": " << c.message;
    r.allocations = fault::g_alloc_fault.count.load();
    ref->release();
  }
  EXPECT_EQ(glia::capi::live_handles(), handles0) << name << ": handles left by the undisturbed run";
  EXPECT_EQ(bytes_in_use(), bytes0) << name << ": tensor bytes left by the undisturbed run";
  // C++ objects: counted between runs, when the test holds nothing of a run.
  glia_empty_cache();
  const int64_t news0 = g_live_news.load();
  char last_call[256] = "";
  auto check_news = [&](int64_t n) {
    EXPECT_EQ(g_live_news.load(), news0) << name << " N=" << n
                                         << ": blocks from operator new leaked (failed call: " << last_call << ")";
  };
  if (::testing::Test::HasFailure()) return r;

  // GLIA_OOM_FROM=N starts the loop at N (to debug one injection point).
  const char* from = std::getenv("GLIA_OOM_FROM");
  for (int64_t n = from ? std::atoll(from) : 1;; ++n) {
    glia_empty_cache();  // each run starts from the allocator's hooks, not from cached blocks
    if (n > 1) check_news(n - 1);
    std::unique_ptr<Scenario> s = make();
    s->ref = ref.get();
    Ctx c;
    if (mode == Mode::HostHooks) {
      fault::reset_alloc_fault(0, false);
      g_hook.fail_from = n;
      g_hook.count = g_hook.failed = 0;
    } else {
      fault::reset_alloc_fault(n, mode == Mode::Persistent);
    }
    if (verbose) std::fprintf(stderr, "%s N=%lld\n", name, static_cast<long long>(n));
    const bool completed = s->run(c);
    if (verbose && !completed) std::fprintf(stderr, "  %s: %s\n", c.failed_call.c_str(), c.message.c_str());
    std::snprintf(last_call, sizeof last_call, "%s", completed ? "none" : c.failed_call.c_str());
    const int64_t failed = mode == Mode::HostHooks ? g_hook.failed : fault::g_alloc_fault.failed.load();
    fault::reset_alloc_fault(0, false);
    g_hook.fail_from = 0;
    if (!completed) {
      EXPECT_GT(failed, 0) << name << " N=" << n << ": " << c.failed_call
                           << " failed without an injected failure: " << c.message;
      EXPECT_TRUE(acceptable(c)) << name << " N=" << n << ": " << c.failed_call << " returned "
                                 << glia_error_code_name(static_cast<enum glia_error_code>(c.code)) << ": "
                                 << c.message;
    } else if (failed > 0) {
      ++r.absorbed;
      EXPECT_TRUE(s->result == ref->result)
          << name << " N=" << n << ": completed after an absorbed failure with other results";
    }
    s->release();
    EXPECT_EQ(glia::capi::live_handles(), handles0)
        << name << " N=" << n << ": handles leaked (failed call: " << c.failed_call << ")";
    glia_empty_cache();
    EXPECT_EQ(bytes_in_use(), bytes0) << name << " N=" << n << ": tensor bytes leaked (failed call: " << c.failed_call
                                      << ")";
    if (failed == 0) break;  // the scenario made fewer than N allocations
    ++r.points;
    if (::testing::Test::HasFailure()) break;  // the first finding is the one to read
  }
  glia_empty_cache();
  if (!::testing::Test::HasFailure()) check_news(r.points + 1);
  return r;
}

// ---- model builders (each call under injection) --------------------------------

bool make_mlp(Ctx& ctx, Held& h, glia_module** out) {
  glia_module* l[3] = {};
  bool ok_ = ctx.call("glia_nn_linear(8, 16)", [&] { return glia_nn_linear(8, 16, 1, nullptr, &l[0]); }) &&
             ctx.call("glia_nn_relu", [&] { return glia_nn_relu(nullptr, &l[1]); }) &&
             ctx.call("glia_nn_linear(16, 4)", [&] { return glia_nn_linear(16, 4, 1, nullptr, &l[2]); }) &&
             ctx.call("glia_nn_sequential", [&] { return glia_nn_sequential(l, 3, out); });
  for (glia_module* m : l) OK(glia_module_release(m));
  if (ok_) h.m(*out);
  return ok_;
}

bool make_lenet(Ctx& ctx, Held& h, glia_module** out) {
  glia_module* l[12] = {};
  glia_nn_conv2d_options c1;
  glia_nn_conv2d_options_init(&c1);
  c1.padding[0] = c1.padding[1] = 2;
  glia_max_pool2d_options mp;
  glia_max_pool2d_options_init(&mp);
  mp.kernel_size[0] = mp.kernel_size[1] = 2;
  bool ok_ = ctx.call("conv1", [&] { return glia_nn_conv2d(1, 6, 5, 5, &c1, nullptr, &l[0]); }) &&
             ctx.call("relu1", [&] { return glia_nn_relu(nullptr, &l[1]); }) &&
             ctx.call("pool1", [&] { return glia_nn_max_pool2d(&mp, nullptr, &l[2]); }) &&
             ctx.call("conv2", [&] { return glia_nn_conv2d(6, 16, 5, 5, nullptr, nullptr, &l[3]); }) &&
             ctx.call("relu2", [&] { return glia_nn_relu(nullptr, &l[4]); }) &&
             ctx.call("pool2", [&] { return glia_nn_max_pool2d(&mp, nullptr, &l[5]); }) &&
             ctx.call("flatten", [&] { return glia_nn_flatten(1, -1, nullptr, &l[6]); }) &&
             ctx.call("fc1", [&] { return glia_nn_linear(400, 120, 1, nullptr, &l[7]); }) &&
             ctx.call("relu3", [&] { return glia_nn_relu(nullptr, &l[8]); }) &&
             ctx.call("fc2", [&] { return glia_nn_linear(120, 84, 1, nullptr, &l[9]); }) &&
             ctx.call("relu4", [&] { return glia_nn_relu(nullptr, &l[10]); }) &&
             ctx.call("fc3", [&] { return glia_nn_linear(84, 10, 1, nullptr, &l[11]); }) &&
             ctx.call("glia_nn_sequential", [&] { return glia_nn_sequential(l, 12, out); });
  for (glia_module* m : l) OK(glia_module_release(m));
  if (ok_) h.m(*out);
  return ok_;
}

// Deterministic data: element i is sin(0.37 i + phase).
std::vector<float> wave(size_t n, float phase) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.37f * static_cast<float>(i) + phase);
  return v;
}

// ---- scenarios ----------------------------------------------------------------

// Forward, loss, backward and two optimizer steps of an MLP (SGD with momentum
// and weight decay) or a LeNet (Adam).
class Train : public Scenario {
 public:
  explicit Train(bool lenet) : lenet_(lenet) {}
  std::vector<std::vector<std::vector<char>>> after_step;  // parameters after each step

  bool run(Ctx& ctx) override {
    glia_manual_seed(7);
    glia_module* model = nullptr;
    if (!(lenet_ ? make_lenet(ctx, held, &model) : make_mlp(ctx, held, &model))) return false;
    const int64_t batch = 2;
    std::vector<float> xs = lenet_ ? wave(batch * 28 * 28, 0.1f) : wave(batch * 8, 0.1f);
    const int64_t xshape_l[] = {batch, 1, 28, 28}, xshape_m[] = {batch, 8};
    glia_tensor* x = nullptr;
    G(glia_tensor_from_data(xs.data(), xs.size() * sizeof(float), lenet_ ? xshape_l : xshape_m, lenet_ ? 4 : 2,
                            GLIA_FLOAT32, &x));
    held.t(x);
    glia_tensor* y = nullptr;
    glia_module* loss_fn = nullptr;
    if (lenet_) {
      const int64_t labels[] = {3, 7}, yshape[] = {batch};
      G(glia_tensor_from_data(labels, sizeof labels, yshape, 1, GLIA_INT64, &y));
      held.t(y);
      G(glia_nn_cross_entropy_loss(nullptr, nullptr, &loss_fn));
    } else {
      std::vector<float> ys = wave(batch * 4, 1.3f);
      const int64_t yshape[] = {batch, 4};
      G(glia_tensor_from_data(ys.data(), ys.size() * sizeof(float), yshape, 2, GLIA_FLOAT32, &y));
      held.t(y);
      G(glia_nn_mse_loss(GLIA_REDUCTION_MEAN, nullptr, &loss_fn));
    }
    held.m(loss_fn);

    glia_tensor_dict* named = nullptr;
    G(glia_module_named_parameters(model, nullptr, 1, 1, &named));
    held.dicts.push_back(named);
    int64_t n_params = 0;
    G(glia_tensor_dict_size(named, &n_params));
    std::vector<glia_tensor*> params(static_cast<size_t>(n_params));
    for (int64_t i = 0; i < n_params; ++i) {
      G(glia_tensor_dict_value_at(named, i, &params[i]));
      held.t(params[i]);
    }
    glia_optimizer* opt = nullptr;
    if (lenet_) {
      glia_adam_options o;
      glia_adam_options_init(&o);
      o.lr = 0.01;
      o.weight_decay = 0.001;
      G(glia_optim_adam(params.data(), n_params, &o, &opt));
    } else {
      glia_sgd_options o;
      glia_sgd_options_init(&o);
      o.lr = 0.1;
      o.momentum = 0.9;
      o.weight_decay = 0.001;
      G(glia_optim_sgd(params.data(), n_params, &o, &opt));
    }
    held.optimizers.push_back(opt);

    for (int step = 0; step < 2; ++step) {
      glia_tensor* out = nullptr;
      int64_t n_out = 0;
      G(glia_module_forward(model, &x, 1, &out, 1, &n_out));
      held.t(out);
      const glia_tensor* li[] = {out, y};
      glia_tensor* loss = nullptr;
      G(glia_module_forward(loss_fn, li, 2, &loss, 1, &n_out));
      held.t(loss);
      G(glia_optimizer_zero_grad(opt, 1));
      G(glia_tensor_backward(loss, nullptr, 0));
      double value = 0;
      G(glia_tensor_item_double(loss, &value));
      add_result(&value, sizeof value);
      auto before = param_bytes(model);
      GC(
          [&] {
            // All-or-nothing (glia_optimizer_step's doc): parameters as they were,
            // and the next step gives what an undisturbed step gives.
            EXPECT_TRUE(param_bytes(model) == before) << "a failed optimizer step changed the parameters";
            OK(glia_optimizer_step(opt));
            if (ref) {
              auto* r = static_cast<const Train*>(ref);
              EXPECT_TRUE(param_bytes(model) == r->after_step[step])
                  << "the step after a failed one differs from an undisturbed step " << step;
            }
          },
          glia_optimizer_step(opt));
      after_step.push_back(param_bytes(model));
    }
    add_result(after_step.back());
    return true;
  }

 private:
  bool lenet_;
};

// state_dict, save, load, load_state_dict and load() into a second model, in one format;
// save_buffer and load_buffer.
class Checkpoint : public Scenario {
 public:
  explicit Checkpoint(glia_format f) : format_(f) {
    // tmpfs where there is one: each save syncs the file, the loop saves hundreds of times.
    std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string tmpl = base + "/glia-oom-XXXXXX";
    dir_ = mkdtemp(tmpl.data());
    path_ = dir_ + (f == GLIA_FORMAT_TORCH ? "/model.pt" : "/model.safetensors");
  }
  ~Checkpoint() override {
    std::remove(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  void release() override {
    Scenario::release();
    // A failed save leaves no temporary file.
    DIR* d = ::opendir(dir_.c_str());
    int entries = 0;
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++entries;
    ::closedir(d);
    EXPECT_LE(entries, 1) << "files left in " << dir_;
  }

  bool run(Ctx& ctx) override {
    glia_manual_seed(1);
    glia_module *a = nullptr, *b = nullptr, *c = nullptr;
    if (!make_mlp(ctx, held, &a)) return false;
    glia_manual_seed(2);
    if (!make_mlp(ctx, held, &b)) return false;
    glia_manual_seed(3);
    if (!make_mlp(ctx, held, &c)) return false;
    // A file from model b, which a failed save must leave intact.
    {
      glia_tensor_dict* bd = nullptr;
      OK(glia_module_state_dict(b, &bd));
      OK(glia_tensor_dict_save(bd, path_.c_str(), format_));
      OK(glia_tensor_dict_release(bd));
    }
    const std::string old_file = read_file(path_);

    glia_tensor_dict* sd = nullptr;
    G(glia_module_state_dict(a, &sd));
    held.dicts.push_back(sd);
    GC([&] { EXPECT_TRUE(read_file(path_) == old_file) << "a failed save changed the file"; },
       glia_tensor_dict_save(sd, path_.c_str(), format_));
    glia_tensor_dict* loaded = nullptr;
    G(glia_tensor_dict_load(path_.c_str(), format_, &loaded));
    held.dicts.push_back(loaded);

    auto b_before = param_bytes(b);
    glia_load_report* report = nullptr;
    GC(
        [&] {
          EXPECT_TRUE(param_bytes(b) == b_before) << "a failed load_state_dict changed the module";
          OK(glia_module_load_state_dict(b, loaded, 1, 0, nullptr));
          EXPECT_TRUE(param_bytes(b) == param_bytes(a)) << "load_state_dict after a failed one";
        },
        glia_module_load_state_dict(b, loaded, 1, 0, &report));
    OK(glia_load_report_release(report));
    EXPECT_TRUE(param_bytes(b) == param_bytes(a));

    auto c_before = param_bytes(c);
    GC([&] { EXPECT_TRUE(param_bytes(c) == c_before) << "a failed glia_module_load changed the module"; },
       glia_module_load(c, path_.c_str(), 1, nullptr));
    EXPECT_TRUE(param_bytes(c) == param_bytes(a));

    void* buf = nullptr;
    size_t size = 0;
    G(glia_tensor_dict_save_buffer(sd, format_, &buf, &size));
    add_result(buf, size);
    glia_tensor_dict* from_buf = nullptr;
    bool loaded_ok = ctx.call("glia_tensor_dict_load_buffer",
                              [&] { return glia_tensor_dict_load_buffer(buf, size, format_, &from_buf); });
    glia_buffer_free(buf);
    if (!loaded_ok) return false;
    held.dicts.push_back(from_buf);
    int64_t n = 0;
    G(glia_tensor_dict_size(from_buf, &n));
    add_result(&n, sizeof n);
    add_result(param_bytes(c));
    add_result(read_file(path_).data(), read_file(path_).size());
    return true;
  }

 private:
  glia_format format_;
  std::string dir_, path_;
};

// Every key and value of a dict, in order.
std::string dict_bytes(glia_tensor_dict* d) {
  std::string out;
  int64_t n = 0;
  OK(glia_tensor_dict_size(d, &n));
  for (int64_t i = 0; i < n; ++i) {
    char key[128];
    size_t len = 0;
    OK(glia_tensor_dict_key_at(d, i, key, sizeof key, &len));
    out.append(key, len).push_back('=');
    glia_tensor* t = nullptr;
    OK(glia_tensor_dict_value_at(d, i, &t));
    std::vector<char> b = bytes_of(t);
    out.append(b.data(), b.size());
    OK(glia_tensor_release(t));
  }
  return out;
}

std::string optimizer_bytes(glia_optimizer* o) {
  glia_tensor_dict* d = nullptr;
  OK(glia_optimizer_state_dict(o, &d));
  std::string s = dict_bytes(d);
  OK(glia_tensor_dict_release(d));
  return s;
}

// An optimizer's checkpoint: Adam on two MLPs, one step each, A's state dict
// through a torch-format buffer into B (all-or-nothing), then a step of each.
class OptimizerCheckpoint : public Scenario {
 public:
  bool run(Ctx& ctx) override {
    glia_module* m[2] = {};
    glia_optimizer* o[2] = {};
    std::vector<float> xs = wave(4 * 8, 0.3f);
    const int64_t shape[] = {4, 8};
    glia_tensor* x = nullptr;
    G(glia_tensor_from_data(xs.data(), xs.size() * sizeof(float), shape, 2, GLIA_FLOAT32, &x));
    held.t(x);
    for (int k = 0; k < 2; ++k) {
      glia_manual_seed(11 + k);
      if (!make_mlp(ctx, held, &m[k])) return false;
      glia_tensor_dict* named = nullptr;
      G(glia_module_named_parameters(m[k], nullptr, 1, 1, &named));
      held.dicts.push_back(named);
      glia_tensor* ps[4] = {};
      for (int64_t i = 0; i < 4; ++i) {
        G(glia_tensor_dict_value_at(named, i, &ps[i]));
        held.t(ps[i]);
      }
      glia_adam_options opt;
      glia_adam_options_init(&opt);
      opt.lr = k == 0 ? 0.01 : 0.05;
      opt.amsgrad = 1;
      G(glia_optim_adam(ps, 4, &opt, &o[k]));
      held.optimizers.push_back(o[k]);
      if (!train_step(ctx, m[k], o[k], x)) return false;
    }
    glia_tensor_dict* sd = nullptr;
    G(glia_optimizer_state_dict(o[0], &sd));
    held.dicts.push_back(sd);
    void* buf = nullptr;
    size_t size = 0;
    G(glia_tensor_dict_save_buffer(sd, GLIA_FORMAT_TORCH, &buf, &size));
    glia_tensor_dict* loaded = nullptr;
    bool ok_ = ctx.call("glia_tensor_dict_load_buffer",
                        [&] { return glia_tensor_dict_load_buffer(buf, size, GLIA_FORMAT_TORCH, &loaded); });
    glia_buffer_free(buf);
    if (!ok_) return false;
    held.dicts.push_back(loaded);
    const std::string before = optimizer_bytes(o[1]);
    GC(
        [&] {
          EXPECT_TRUE(optimizer_bytes(o[1]) == before) << "a failed optimizer load_state_dict changed the optimizer";
          OK(glia_optimizer_load_state_dict(o[1], loaded));
          EXPECT_TRUE(optimizer_bytes(o[1]) == optimizer_bytes(o[0])) << "load_state_dict after a failed one";
        },
        glia_optimizer_load_state_dict(o[1], loaded));
    EXPECT_TRUE(optimizer_bytes(o[1]) == optimizer_bytes(o[0]));
    for (int k = 0; k < 2; ++k)
      if (!train_step(ctx, m[k], o[k], x)) return false;
    for (int k = 0; k < 2; ++k) {
      std::string s = optimizer_bytes(o[k]);
      add_result(s.data(), s.size());
      add_result(param_bytes(m[k]));
    }
    return true;
  }

 private:
  // forward, loss = sum(out^2), backward, step.
  bool train_step(Ctx& ctx, glia_module* m, glia_optimizer* o, glia_tensor* x) {
    glia_tensor* out = nullptr;
    int64_t n_out = 0;
    G(glia_module_forward(m, &x, 1, &out, 1, &n_out));
    held.t(out);
    glia_tensor* sq = nullptr;
    G(glia_mul(out, out, &sq));
    held.t(sq);
    glia_tensor* loss = nullptr;
    G(glia_sum(sq, nullptr, 0, 0, &loss));
    held.t(loss);
    G(glia_optimizer_zero_grad(o, 1));
    G(glia_tensor_backward(loss, nullptr, 0));
    auto before = param_bytes(m);
    GC([&] { EXPECT_TRUE(param_bytes(m) == before) << "a failed optimizer step changed the parameters"; },
       glia_optimizer_step(o));
    return true;
  }
};

int64_t value_size(glia_value* v) {
  int64_t n = -1;
  OK(glia_value_size(v, &n));
  return n;
}

// A training checkpoint as a whole object (glia_value): {"epoch": 3, "model": {name: tensor},
// "optimizer": {"betas": (0.9, 0.999), "name": "run-7"}} built, saved in the torch format to
// memory, read back, and the model's entries loaded into a second model.
class ValueCheckpoint : public Scenario {
 public:
  bool run(Ctx& ctx) override {
    glia_module *m = nullptr, *m2 = nullptr;
    glia_manual_seed(21);
    if (!make_mlp(ctx, held, &m)) return false;
    glia_manual_seed(22);
    if (!make_mlp(ctx, held, &m2)) return false;
    glia_tensor_dict* sd = nullptr;
    G(glia_module_state_dict(m, &sd));
    held.dicts.push_back(sd);
    glia_value *root = nullptr, *model = nullptr, *opt = nullptr, *betas = nullptr, *epoch = nullptr, *name = nullptr;
    G(glia_value_new_dict(0, &root));
    held.v(root);
    G(glia_value_new_dict(1, &model));
    held.v(model);
    int64_t n = 0;
    G(glia_tensor_dict_size(sd, &n));
    for (int64_t i = 0; i < n; ++i) {
      char key[64];
      size_t len = 0;
      G(glia_tensor_dict_key_at(sd, i, key, sizeof key, &len));
      glia_tensor* t = nullptr;
      G(glia_tensor_dict_value_at(sd, i, &t));
      held.t(t);
      glia_value* tv = nullptr;
      G(glia_value_new_tensor(t, &tv));
      held.v(tv);
      GC([&] { EXPECT_EQ(value_size(model), i) << "a failed glia_value_set changed the dict"; },
         glia_value_set(model, key, tv));
    }
    G(glia_value_new_tuple(&betas));
    held.v(betas);
    for (double b : {0.9, 0.999}) {
      glia_value* d = nullptr;
      G(glia_value_new_double(b, &d));
      held.v(d);
      const int64_t before = value_size(betas);
      GC([&] { EXPECT_EQ(value_size(betas), before) << "a failed glia_value_append changed the tuple"; },
         glia_value_append(betas, d));
    }
    G(glia_value_new_dict(0, &opt));
    held.v(opt);
    G(glia_value_set(opt, "betas", betas));
    G(glia_value_new_string("run-7", 5, &name));
    held.v(name);
    G(glia_value_set(opt, "name", name));
    G(glia_value_new_int(3, &epoch));
    held.v(epoch);
    G(glia_value_set(root, "epoch", epoch));
    G(glia_value_set(root, "model", model));
    G(glia_value_set(root, "optimizer", opt));

    void* buf = nullptr;
    size_t size = 0;
    G(glia_value_save_buffer(root, GLIA_FORMAT_TORCH, &buf, &size));
    add_result(buf, size);
    glia_value* back = nullptr;
    bool ok_ =
        ctx.call("glia_value_load_buffer", [&] { return glia_value_load_buffer(buf, size, GLIA_FORMAT_TORCH, &back); });
    glia_buffer_free(buf);
    if (!ok_) return false;
    held.v(back);
    glia_value *e = nullptr, *mv = nullptr, *ov = nullptr, *bv = nullptr, *b1 = nullptr;
    G(glia_value_get(back, "epoch", &e));
    held.v(e);
    int64_t ep = 0;
    G(glia_value_as_int(e, &ep));
    add_result(&ep, sizeof ep);
    G(glia_value_get(back, "optimizer", &ov));
    held.v(ov);
    G(glia_value_get(ov, "betas", &bv));
    held.v(bv);
    G(glia_value_item(bv, 1, &b1));
    held.v(b1);
    double beta = 0;
    G(glia_value_as_double(b1, &beta));
    add_result(&beta, sizeof beta);
    G(glia_value_get(back, "model", &mv));
    held.v(mv);
    glia_tensor_dict* md = nullptr;
    G(glia_value_to_tensor_dict(mv, &md));
    held.dicts.push_back(md);
    auto before = param_bytes(m2);
    GC([&] { EXPECT_TRUE(param_bytes(m2) == before) << "a failed load_state_dict changed the module"; },
       glia_module_load_state_dict(m2, md, 1, 0, nullptr));
    EXPECT_TRUE(param_bytes(m2) == param_bytes(m));
    add_result(param_bytes(m2));
    return true;
  }
};

// Hooks: a forward pre-hook, a forward hook replacing the output (ops inside
// the callback), backward and backward pre-hooks, a tensor hook scaling a
// gradient, state-dict and load-state-dict post hooks; forward, backward,
// state_dict, load_state_dict, removal.
glia_error* pre_hook(void*, glia_module*, const glia_tensor* const*, int64_t, glia_tensor**, int64_t, int64_t* n) {
  *n = -1;
  return nullptr;
}
glia_error* fwd_hook(void*, glia_module*, const glia_tensor* const*, int64_t, const glia_tensor* const* outs, int64_t,
                     glia_tensor** repl, int64_t, int64_t* n) {
  glia_scalar s;
  std::memset(&s, 0, sizeof s);
  s.type = GLIA_SCALAR_FLOAT;
  s.f = 2.0;
  glia_error* e = glia_mul_scalar(outs[0], s, &repl[0]);
  if (e) return e;
  *n = 1;
  return nullptr;
}
glia_error* bwd_hook(void*, glia_module*, const glia_tensor* const*, int64_t, const glia_tensor* const*, int64_t,
                     glia_tensor**, int64_t, int64_t* n) {
  *n = -1;
  return nullptr;
}
glia_error* grad_hook(void*, const glia_tensor* grad, glia_tensor** repl) {
  glia_scalar s;
  std::memset(&s, 0, sizeof s);
  s.type = GLIA_SCALAR_FLOAT;
  s.f = 0.5;
  return glia_mul_scalar(grad, s, repl);
}
glia_error* bwd_pre_hook(void*, glia_module*, const glia_tensor* const*, int64_t, glia_tensor**, int64_t, int64_t* n) {
  *n = -1;
  return nullptr;
}
glia_error* load_post_hook(void*, glia_module*, glia_load_report* r) {
  int64_t n = 0;
  return glia_load_report_count(r, GLIA_KEYS_MISSING, &n);
}
glia_error* sd_hook(void*, glia_module*, glia_tensor_dict* d, const char*) {
  int64_t n = 0;
  return glia_tensor_dict_size(d, &n);
}

class Hooks : public Scenario {
 public:
  bool run(Ctx& ctx) override {
    glia_manual_seed(5);
    glia_module* m = nullptr;
    if (!make_mlp(ctx, held, &m)) return false;
    uint64_t ids[6] = {};
    int* f = frees.next();
    G(glia_module_add_forward_pre_hook(m, pre_hook, f, count_free, 0, &ids[0]));
    f = frees.next();
    G(glia_module_add_forward_hook(m, fwd_hook, f, count_free, 0, &ids[1]));
    f = frees.next();
    G(glia_module_add_backward_hook(m, bwd_hook, f, count_free, 0, &ids[2]));
    f = frees.next();
    G(glia_module_add_state_dict_hook(m, sd_hook, f, count_free, &ids[3]));
    f = frees.next();
    G(glia_module_add_backward_pre_hook(m, bwd_pre_hook, f, count_free, 0, &ids[4]));
    f = frees.next();
    G(glia_module_add_load_state_dict_post_hook(m, load_post_hook, f, count_free, &ids[5]));
    glia_tensor* w = nullptr;
    G(glia_module_get_parameter(m, "0.weight", &w));
    held.t(w);
    uint64_t tid = 0;
    f = frees.next();
    G(glia_tensor_register_hook(w, grad_hook, f, count_free, &tid));

    std::vector<float> xs = wave(3 * 8, 0.5f);
    const int64_t shape[] = {3, 8};
    glia_tensor* x = nullptr;
    G(glia_tensor_from_data(xs.data(), xs.size() * sizeof(float), shape, 2, GLIA_FLOAT32, &x));
    held.t(x);
    G(glia_tensor_set_requires_grad(x, 1));
    glia_tensor* out = nullptr;
    int64_t n_out = 0;
    G(glia_module_forward(m, &x, 1, &out, 1, &n_out));
    held.t(out);
    glia_tensor* s = nullptr;
    G(glia_sum(out, nullptr, 0, 0, &s));
    held.t(s);
    G(glia_tensor_backward(s, nullptr, 0));
    glia_tensor* g = nullptr;
    G(glia_tensor_grad(w, &g));
    held.t(g);
    add_result(bytes_of(g).data(), bytes_of(g).size());
    glia_tensor* gx = nullptr;
    G(glia_tensor_grad(x, &gx));
    held.t(gx);
    add_result(bytes_of(gx).data(), bytes_of(gx).size());
    glia_tensor_dict* sd = nullptr;
    G(glia_module_state_dict(m, &sd));
    held.dicts.push_back(sd);
    auto params = param_bytes(m);
    GC(
        [&] {
          EXPECT_TRUE(param_bytes(m) == params) << "a failed load_state_dict (with a post hook) changed the module";
        },
        glia_module_load_state_dict(m, sd, 1, 0, nullptr));
    G(glia_tensor_remove_hook(w, tid));
    for (uint64_t id : ids) G(glia_module_remove_hook(m, id));
    return true;
  }
};

// A custom autograd function (y = x^3, backward 3 x^2 g with glia's ops), applied, summed, backward.
glia_error* cube_fwd(void*, glia_autograd_ctx* ctx, const glia_tensor* const* in, int64_t, glia_tensor** out, int64_t) {
  glia_error* e = glia_autograd_ctx_save_for_backward(ctx, in, 1);
  if (e) return e;
  glia_tensor* sq = nullptr;
  if ((e = glia_mul(in[0], in[0], &sq))) return e;
  e = glia_mul(sq, in[0], &out[0]);
  glia_error_free(glia_tensor_release(sq));
  return e;
}
glia_error* cube_bwd(void*, glia_autograd_ctx* ctx, const glia_tensor* const* go, int64_t, glia_tensor** gi, int64_t) {
  glia_tensor* x = nullptr;
  int64_t n = 0;
  glia_error* e = glia_autograd_ctx_saved_tensors(ctx, &x, 1, &n);
  if (e) return e;
  glia_tensor *sq = nullptr, *t = nullptr;
  glia_scalar three;
  std::memset(&three, 0, sizeof three);
  three.type = GLIA_SCALAR_FLOAT;
  three.f = 3.0;
  if (!(e = glia_mul(x, x, &sq)) && !(e = glia_mul_scalar(sq, three, &t))) e = glia_mul(t, go[0], &gi[0]);
  glia_error_free(glia_tensor_release(t));
  glia_error_free(glia_tensor_release(sq));
  glia_error_free(glia_tensor_release(x));
  return e;
}

class Function : public Scenario {
 public:
  bool run(Ctx& ctx) override {
    std::vector<double> xs = {0.5, -1.25, 2.0, 0.75, -0.1, 1.5};
    const int64_t shape[] = {2, 3};
    glia_tensor* x = nullptr;
    G(glia_tensor_from_data(xs.data(), xs.size() * sizeof(double), shape, 2, GLIA_FLOAT64, &x));
    held.t(x);
    G(glia_tensor_set_requires_grad(x, 1));
    glia_autograd_function_def def;
    glia_autograd_function_def_init(&def);
    def.name = "Cube";
    def.forward = cube_fwd;
    def.backward = cube_bwd;
    for (int k = 0; k < 2; ++k) {
      def.user_data = frees.next();
      def.free_user_data = count_free;
      glia_tensor* y = nullptr;
      G(glia_autograd_function_apply(&def, &x, 1, &y, 1));
      held.t(y);
      glia_tensor* s = nullptr;
      G(glia_sum(y, nullptr, 0, 0, &s));
      held.t(s);
      G(glia_tensor_backward(s, nullptr, 0));
    }
    glia_tensor* g = nullptr;
    G(glia_tensor_grad(x, &g));
    held.t(g);
    add_result(bytes_of(g).data(), bytes_of(g).size());
    return true;
  }
};

// Tensor dict editing: set (new and replacing), metadata, get, remove, keys; then a round trip.
class DictEdit : public Scenario {
 public:
  bool run(Ctx& ctx) override {
    glia_tensor_dict* d = nullptr;
    G(glia_tensor_dict_create(&d));
    held.dicts.push_back(d);
    const char* keys[] = {"encoder.layer.0.weight", "encoder.layer.0.bias", "head.weight", "steps",
                          "encoder.layer.0.weight"};
    for (int i = 0; i < 5; ++i) {
      std::vector<float> v = wave(static_cast<size_t>(3 + i), static_cast<float>(i));
      const int64_t shape[] = {3 + i};
      glia_tensor* t = nullptr;
      G(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape, 1, GLIA_FLOAT32, &t));
      held.t(t);
      int64_t size_before = 0;
      OK(glia_tensor_dict_size(d, &size_before));
      glia_tensor* old = nullptr;
      int32_t had = 0;
      OK(glia_tensor_dict_contains(d, keys[i], &had));
      if (had) OK(glia_tensor_dict_get(d, keys[i], &old));
      GC(
          [&] {
            int64_t size_after = 0;
            int32_t has = 0;
            OK(glia_tensor_dict_size(d, &size_after));
            OK(glia_tensor_dict_contains(d, keys[i], &has));
            EXPECT_EQ(size_after, size_before) << "a failed set changed the dict's size";
            EXPECT_EQ(has, had) << "a failed set changed the dict's keys";
            if (had) {
              glia_tensor* now = nullptr;
              OK(glia_tensor_dict_get(d, keys[i], &now));
              EXPECT_TRUE(bytes_of(now) == bytes_of(old)) << "a failed set replaced the value";
              OK(glia_tensor_release(now));
            }
            OK(glia_tensor_release(old));
          },
          glia_tensor_dict_set(d, keys[i], t));
      OK(glia_tensor_release(old));
    }
    GC(
        [&] {
          int64_t n = 0;
          OK(glia_tensor_dict_metadata_count(d, &n));
          EXPECT_EQ(n, 0) << "a failed set_metadata added an entry";
        },
        glia_tensor_dict_set_metadata(d, "format", "pt"));
    G(glia_tensor_dict_set_metadata(d, "source", "oom_test"));
    GC(
        [&] {
          int32_t has = 0;
          OK(glia_tensor_dict_contains(d, "head.weight", &has));
          EXPECT_EQ(has, 1) << "a failed remove removed the key";
        },
        glia_tensor_dict_remove(d, "head.weight"));
    int64_t n = 0;
    G(glia_tensor_dict_size(d, &n));
    for (int64_t i = 0; i < n; ++i) {
      char key[64];
      size_t len = 0;
      G(glia_tensor_dict_key_at(d, i, key, sizeof key, &len));
      add_result(key, len);
      glia_tensor* v = nullptr;
      G(glia_tensor_dict_value_at(d, i, &v));
      held.t(v);
    }
    char meta[32];
    size_t len = 0;
    G(glia_tensor_dict_get_metadata(d, "source", meta, sizeof meta, &len));
    add_result(meta, len);
    void* buf = nullptr;
    size_t size = 0;
    G(glia_tensor_dict_save_buffer(d, GLIA_FORMAT_SAFETENSORS, &buf, &size));
    add_result(buf, size);
    glia_tensor_dict* back = nullptr;
    bool loaded = ctx.call("glia_tensor_dict_load_buffer",
                           [&] { return glia_tensor_dict_load_buffer(buf, size, GLIA_FORMAT_SAFETENSORS, &back); });
    glia_buffer_free(buf);
    if (!loaded) return false;
    held.dicts.push_back(back);
    G(glia_tensor_dict_metadata_count(back, &n));
    add_result(&n, sizeof n);
    return true;
  }
};

// Printing: reprs of a small, a summarised, an integer and a graph tensor, and of a LeNet.
class Print : public Scenario {
 public:
  bool run(Ctx& ctx) override {
    std::vector<float> small = wave(12, 0.0f);
    const int64_t s_shape[] = {3, 4};
    std::vector<double> big(2000);
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i) * 0.25 - 100.0;
    const int64_t b_shape[] = {40, 50};
    std::vector<int64_t> ints = {1, -20, 300, 4000};
    const int64_t i_shape[] = {4};
    glia_tensor *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
    G(glia_tensor_from_data(small.data(), small.size() * sizeof(float), s_shape, 2, GLIA_FLOAT32, &a));
    held.t(a);
    G(glia_tensor_from_data(big.data(), big.size() * sizeof(double), b_shape, 2, GLIA_FLOAT64, &b));
    held.t(b);
    G(glia_tensor_from_data(ints.data(), ints.size() * sizeof(int64_t), i_shape, 1, GLIA_INT64, &c));
    held.t(c);
    G(glia_tensor_set_requires_grad(a, 1));
    G(glia_exp(a, &d));
    held.t(d);
    for (glia_tensor* t : {a, b, c, d}) {
      size_t len = 0;
      G(glia_tensor_to_string(t, nullptr, 0, &len));
      std::vector<char> text(len + 1);
      G(glia_tensor_to_string(t, text.data(), text.size(), &len));
      add_result(text.data(), len);
    }
    glia_module* m = nullptr;
    if (!make_lenet(ctx, held, &m)) return false;
    size_t len = 0;
    G(glia_module_to_string(m, nullptr, 0, &len));
    std::vector<char> text(len + 1);
    G(glia_module_to_string(m, text.data(), text.size(), &len));
    add_result(text.data(), len);
    return true;
  }
};

struct Case {
  const char* name;
  Factory make;
};
// The name, in test listings (a stable ctest name).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
std::vector<Case> cases() {
  return {
      {"mlp_sgd", [] { return std::make_unique<Train>(false); }},
      {"lenet_adam", [] { return std::make_unique<Train>(true); }},
      {"checkpoint_torch", [] { return std::make_unique<Checkpoint>(GLIA_FORMAT_TORCH); }},
      {"checkpoint_safetensors", [] { return std::make_unique<Checkpoint>(GLIA_FORMAT_SAFETENSORS); }},
      {"optimizer_checkpoint", [] { return std::make_unique<OptimizerCheckpoint>(); }},
      {"value_checkpoint", [] { return std::make_unique<ValueCheckpoint>(); }},
      {"hooks", [] { return std::make_unique<Hooks>(); }},
      {"custom_function", [] { return std::make_unique<Function>(); }},
      {"tensor_dict", [] { return std::make_unique<DictEdit>(); }},
      {"printing", [] { return std::make_unique<Print>(); }},
  };
}

class OomLoop : public ::testing::TestWithParam<Case> {
 protected:
  // One thread: the allocation sequence is then the same in every run.
  void SetUp() override {
    threads_ = glia_get_num_threads();
    OK(glia_set_num_threads(1));
  }
  void TearDown() override { OK(glia_set_num_threads(threads_)); }
  int32_t threads_ = 0;
};

void report(const char* mode, const char* name, const LoopResult& r) {
  std::printf("[ oom      ] %-10s %-24s %6lld allocations, %6lld injection points, %4lld absorbed\n", mode, name,
              static_cast<long long>(r.allocations), static_cast<long long>(r.points),
              static_cast<long long>(r.absorbed));
}

TEST_P(OomLoop, Transient) {
  LoopResult r = oom_loop(GetParam().name, GetParam().make, Mode::Transient);
  report("transient", GetParam().name, r);
  EXPECT_GT(r.points, 0);
}

TEST_P(OomLoop, Persistent) {
  LoopResult r = oom_loop(GetParam().name, GetParam().make, Mode::Persistent);
  report("persistent", GetParam().name, r);
  EXPECT_GT(r.points, 0);
}

TEST_P(OomLoop, HostAllocator) {
  glia_allocator a;
  glia_allocator_init(&a);
  a.alloc = hook_alloc;
  a.free = hook_free;
  OK(glia_set_allocator(&a));
  LoopResult r = oom_loop(GetParam().name, GetParam().make, Mode::HostHooks);
  OK(glia_set_allocator(nullptr));
  EXPECT_EQ(g_hook.live, 0) << "blocks of the host allocator never freed";
  report("host hooks", GetParam().name, r);
  EXPECT_GT(r.points, 0);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, OomLoop, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
