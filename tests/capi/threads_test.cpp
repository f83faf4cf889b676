// The thread rules of docs/c-api.md ("Threads") exercised at once from several
// threads: the handle registry (create, retain, release, lookup of shared and
// private handles), the allocator and its statistics, the thread pool (large
// kernels from several callers), per-thread grad mode, and concurrent
// inference through one module. Meant for the tsan preset
// (scripts/tsan.sh), where a data race is a failure; in the other builds it
// checks the results.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "glia/glia.h"
#include "support/test_support.h"

namespace {

constexpr int kThreads = 4;

float sum_of(glia_tensor* t) {
  glia_tensor* s = nullptr;
  EXPECT_EQ(glia_sum(t, nullptr, 0, 0, &s), nullptr);
  double v = 0;
  EXPECT_EQ(glia_tensor_item_double(s, &v), nullptr);
  glia_tensor_release(s);
  return static_cast<float>(v);
}

// Runs body(thread_index) on kThreads threads started together.
template <class F>
void run_threads(F body) {
  std::atomic<int> go{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < kThreads; ++i)
    ts.emplace_back([&, i] {
      go.fetch_add(1);
      while (go.load() < kThreads) std::this_thread::yield();
      body(i);
    });
  for (auto& t : ts) t.join();
}

TEST(Threads, HandlesOfOneSharedTensorAreRetainedAndReleasedConcurrently) {
  const int64_t shape[] = {64};
  glia_tensor* shared = nullptr;
  GLIA_OK_(glia_tensor_ones(shape, 1, nullptr, &shared));
  run_threads([&](int) {
    for (int k = 0; k < 500; ++k) {
      EXPECT_EQ(glia_tensor_retain(shared), nullptr);
      int64_t n = 0;
      EXPECT_EQ(glia_tensor_numel(shared, &n), nullptr);
      EXPECT_EQ(n, 64);
      glia_tensor* v = nullptr;  // a view: a new handle sharing the storage
      EXPECT_EQ(glia_view(shared, shape, 1, &v), nullptr);
      EXPECT_EQ(glia_tensor_release(v), nullptr);
      EXPECT_EQ(glia_tensor_release(shared), nullptr);
    }
  });
  EXPECT_FLOAT_EQ(sum_of(shared), 64.0f);
  GLIA_OK_(glia_tensor_release(shared));
}

TEST(Threads, AllocationsAndLargeKernelsFromSeveralThreadsGiveEachItsOwnResult) {
  glia_memory_stats before{};
  before.struct_size = sizeof before;
  GLIA_OK_(glia_memory_stats_get(&before));
  run_threads([&](int i) {
    // 1 << 18 elements: above the kernels' grain, so the pool splits them while other threads do the same.
    const int64_t shape[] = {1 << 18};
    for (int k = 0; k < 20; ++k) {
      glia_tensor_options o;
      glia_tensor_options_init(&o);
      glia_tensor *a = nullptr, *b = nullptr, *c = nullptr;
      EXPECT_EQ(glia_tensor_full(shape, 1, i + 1.0, &o, &a), nullptr);
      EXPECT_EQ(glia_tensor_full(shape, 1, k, &o, &b), nullptr);
      EXPECT_EQ(glia_add(a, b, 1.0, &c), nullptr);
      EXPECT_FLOAT_EQ(sum_of(c), static_cast<float>((i + 1.0 + k) * (1 << 18)));
      glia_memory_stats s{};
      s.struct_size = sizeof s;
      EXPECT_EQ(glia_memory_stats_get(&s), nullptr);
      EXPECT_GE(s.peak_bytes_in_use, s.bytes_in_use);
      glia_tensor_release(c);
      glia_tensor_release(b);
      glia_tensor_release(a);
    }
  });
  glia_memory_stats after{};
  after.struct_size = sizeof after;
  GLIA_OK_(glia_memory_stats_get(&after));
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);  // every thread's buffers came back
}

TEST(Threads, GradModeIsPerThreadAndInferenceSharesOneModule) {
  glia_module* lin = nullptr;
  GLIA_OK_(glia_nn_linear(8, 3, 1, nullptr, &lin));
  const int64_t shape[] = {4, 8};
  glia_tensor* x = nullptr;
  GLIA_OK_(glia_tensor_ones(shape, 2, nullptr, &x));
  glia_tensor* ref = nullptr;
  int64_t n_out = 0;
  GLIA_OK_(glia_module_forward(lin, &x, 1, &ref, 1, &n_out));
  const float expected = sum_of(ref);
  run_threads([&](int i) {
    glia_grad_mode_set(0);
    for (int k = 0; k < 100; ++k) {
      glia_tensor* y = nullptr;
      int64_t n = 0;
      EXPECT_EQ(glia_module_forward(lin, &x, 1, &y, 1, &n), nullptr);
      int32_t rg = 1;
      EXPECT_EQ(glia_tensor_requires_grad(y, &rg), nullptr);
      EXPECT_EQ(rg, 0);  // grad mode is off on this thread only
      EXPECT_FLOAT_EQ(sum_of(y), expected);
      glia_tensor_release(y);
    }
  });
  EXPECT_EQ(glia_grad_mode_enabled(), 1);  // the main thread's grad mode is untouched
  glia_tensor_release(ref);
  glia_tensor_release(x);
  glia_module_release(lin);
}

}  // namespace
