// Loads libglia with dlopen(), uses it from two threads, calls glia_shutdown()
// and dlclose()s it, three times. After each dlclose() the library must be
// gone (a thread_local with a destructor or an STB_GNU_UNIQUE symbol would pin
// it) and no thread it started may be left. Exits non-zero on any failure.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "glia/glia.h"

namespace {

int g_failures = 0;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

// The entry points used here, resolved with dlsym().
struct Api {
  decltype(&glia_error_code) error_code;
  decltype(&glia_error_message) error_message;
  decltype(&glia_error_free) error_free;
  decltype(&glia_set_num_threads) set_num_threads;
  decltype(&glia_get_num_threads) get_num_threads;
  decltype(&glia_set_parallel_for) set_parallel_for;
  decltype(&glia_shutdown) shutdown;
  decltype(&glia_tensor_ones) tensor_ones;
  decltype(&glia_tensor_data) tensor_data;
  decltype(&glia_tensor_numel) tensor_numel;
  decltype(&glia_tensor_release) tensor_release;
};

template <class F>
void resolve(void* lib, const char* name, F* out) {
  void* p = dlsym(lib, name);
  if (!p) {
    std::fprintf(stderr, "dlsym(%s) failed: %s\n", name, dlerror());
    std::exit(1);
  }
  *out = reinterpret_cast<F>(p);
}

Api load_api(void* lib) {
  Api a{};
  resolve(lib, "glia_error_code", &a.error_code);
  resolve(lib, "glia_error_message", &a.error_message);
  resolve(lib, "glia_error_free", &a.error_free);
  resolve(lib, "glia_set_num_threads", &a.set_num_threads);
  resolve(lib, "glia_get_num_threads", &a.get_num_threads);
  resolve(lib, "glia_set_parallel_for", &a.set_parallel_for);
  resolve(lib, "glia_shutdown", &a.shutdown);
  resolve(lib, "glia_tensor_ones", &a.tensor_ones);
  resolve(lib, "glia_tensor_data", &a.tensor_data);
  resolve(lib, "glia_tensor_numel", &a.tensor_numel);
  resolve(lib, "glia_tensor_release", &a.tensor_release);
  return a;
}

// Reports and frees an unexpected error; true when `e` is NULL.
bool ok(const Api& api, glia_error* e, const char* what) {
  if (!e) return true;
  std::fprintf(stderr, "%s failed: %s\n", what, api.error_message(e));
  api.error_free(e);
  ++g_failures;
  return false;
}

int thread_count() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Joined threads may linger in /proc for a moment after join() returns.
int settled_thread_count(int expected) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int n = thread_count();
  while (n != expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    n = thread_count();
  }
  return n;
}

bool is_loaded() {
  void* lib = dlopen(GLIA_LIBRARY_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return false;
  dlclose(lib);
  return true;
}

int g_host_frees = 0;

glia_error* serial_parallel_for(void*, int64_t n_tasks, glia_parallel_task_fn task, void* ctx) {
  for (int64_t i = 0; i < n_tasks; ++i) task(ctx, i);
  return nullptr;
}

void count_host_free(void* user_data) {
  CHECK(user_data == &g_host_frees);
  ++g_host_frees;
}

// Creates, checks and releases tensors of ones; runs on two threads at once.
void tensor_worker(const Api& api, int seed) {
  for (int iter = 0; iter < 200; ++iter) {
    int64_t shape[2] = {1 + (seed + iter) % 17, 33};
    glia_tensor* t = nullptr;
    if (!ok(api, api.tensor_ones(shape, 2, nullptr, &t), "glia_tensor_ones")) return;
    int64_t numel = 0;
    void* data = nullptr;
    if (ok(api, api.tensor_numel(t, &numel), "glia_tensor_numel") &&
        ok(api, api.tensor_data(t, &data), "glia_tensor_data")) {
      CHECK(numel == shape[0] * shape[1]);
      const float* f = static_cast<const float*>(data);
      CHECK(std::all_of(f, f + numel, [](float v) { return v == 1.0f; }));
    }
    ok(api, api.tensor_release(t), "glia_tensor_release");
  }
}

void cycle(int round) {
  CHECK(!is_loaded());
  const int threads_before = thread_count();
  void* lib = dlopen(GLIA_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "dlopen(%s) failed: %s\n", GLIA_LIBRARY_PATH, dlerror());
    std::exit(1);
  }
  CHECK(is_loaded());
  Api api = load_api(lib);

  // A fresh load starts from the defaults: nothing survived the last unload.
  int cores = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 1024u));
  CHECK(api.get_num_threads() == cores);
  ok(api, api.set_num_threads(2), "glia_set_num_threads");
  CHECK(api.get_num_threads() == 2);
  glia_error* e = api.set_num_threads(0);
  CHECK(e != nullptr);
  if (e) {
    CHECK(api.error_code(e) == GLIA_ERR_INVALID_ARGUMENT);
    CHECK(std::strcmp(api.error_message(e), "glia_set_num_threads: n must be in [1, 1024], got 0") == 0);
    api.error_free(e);
  }

  std::thread other(tensor_worker, std::cref(api), round);
  tensor_worker(api, round + 7);
  other.join();

  // A host registration ends at glia_shutdown, exactly once.
  g_host_frees = 0;
  ok(api, api.set_parallel_for(&serial_parallel_for, &g_host_frees, &count_host_free), "glia_set_parallel_for");
  CHECK(g_host_frees == 0);
  api.shutdown();
  CHECK(g_host_frees == 1);

  CHECK(dlclose(lib) == 0);
  if (is_loaded()) {
    std::fprintf(stderr, "round %d: libglia is still loaded after dlclose()\n", round);
    ++g_failures;
  }
  int threads_after = settled_thread_count(threads_before);
  if (threads_after != threads_before) {
    std::fprintf(stderr, "round %d: %d threads before dlopen, %d after dlclose\n", round, threads_before,
                 threads_after);
    ++g_failures;
  }
}

}  // namespace

int main() {
  for (int round = 0; round < 3; ++round) cycle(round);
  if (g_failures) {
    std::fprintf(stderr, "dlopen_cycle: %d failure(s)\n", g_failures);
    return 1;
  }
  std::puts("dlopen_cycle: 3 load/use/unload cycles passed");
  return 0;
}
