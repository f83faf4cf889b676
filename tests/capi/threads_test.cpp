// The thread rules of docs/c-api.md ("Threads") exercised at once from several
// threads: the handle registry (create, retain, release, lookup of shared and
// private handles, release on another thread), the allocator, its statistics
// and host hooks, the thread pool (large kernels from several callers),
// per-thread grad mode and generators, autograd on separate graphs, inference
// on one shared module, training of one model per thread, concurrent
// checkpoint loads, hooks changed while other threads run forward, the
// job-system registration refused while a kernel uses it, and glia_shutdown
// after the threads are joined. docs/testing.md maps each line of the contract
// to these tests. They run in the tsan stage of scripts/test.sh (ctest preset
// tsan), where a data race fails the run; in every build they check results:
// what several threads compute equals, bit for bit, what one thread computes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
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

// Runs body(thread_index) on n threads started together.
template <class F>
void run_threads(F body, int n = kThreads) {
  std::atomic<int> go{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i, n] {
      go.fetch_add(1);
      while (go.load() < n) std::this_thread::yield();
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

// ---- helpers for the tests below ------------------------------------------------------------

constexpr int kEight = 8;

// The float32 values of a tensor (copied to the host).
std::vector<float> values_of(const glia_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
  std::vector<float> v(static_cast<size_t>(n));
  EXPECT_EQ(glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float)), nullptr);
  return v;
}

// Bit-for-bit equality of two float vectors (NaNs included), with the first difference in the message.
::testing::AssertionResult same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size();
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0)
      return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << b[i];
  return ::testing::AssertionSuccess();
}

// Every parameter and buffer of a module, in state-dict order, as float values (integer buffers
// such as num_batches_tracked are left out).
std::vector<std::vector<float>> state_of(glia_module* m) {
  std::vector<std::vector<float>> out;
  glia_tensor_dict* d = nullptr;
  EXPECT_EQ(glia_module_state_dict(m, &d), nullptr);
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_dict_size(d, &n), nullptr);
  for (int64_t i = 0; i < n; ++i) {
    glia_tensor* t = nullptr;
    EXPECT_EQ(glia_tensor_dict_value_at(d, i, &t), nullptr);
    glia_dtype dt = GLIA_FLOAT32;
    EXPECT_EQ(glia_tensor_dtype(t, &dt), nullptr);
    if (dt == GLIA_FLOAT32) out.push_back(values_of(t));
    glia_tensor_release(t);
  }
  glia_tensor_dict_release(d);
  return out;
}

// A deterministic input: values spread over [-2, 2) with a per-`salt` offset.
glia_tensor* input_tensor(const std::vector<int64_t>& shape, int salt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = std::fmod(0.37f * static_cast<float>(i) + 0.11f * salt, 4.0f) - 2.0f;
  glia_tensor* t = nullptr;
  EXPECT_EQ(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(), static_cast<int64_t>(shape.size()),
                                  GLIA_FLOAT32, &t),
            nullptr);
  return t;
}

// Linear(32, 64) -> BatchNorm1d(64) -> ReLU -> Dropout(0.5) -> Linear(64, 10): BatchNorm and
// Dropout behave differently in training and eval, so shared inference proves eval mode holds.
glia_module* make_mlp() {
  glia_module* parts[5] = {};
  EXPECT_EQ(glia_nn_linear(32, 64, 1, nullptr, &parts[0]), nullptr);
  EXPECT_EQ(glia_nn_batch_norm1d(64, nullptr, nullptr, &parts[1]), nullptr);
  EXPECT_EQ(glia_nn_relu(nullptr, &parts[2]), nullptr);
  EXPECT_EQ(glia_nn_dropout(0.5, nullptr, &parts[3]), nullptr);
  EXPECT_EQ(glia_nn_linear(64, 10, 1, nullptr, &parts[4]), nullptr);
  glia_module* seq = nullptr;
  EXPECT_EQ(glia_nn_sequential(parts, 5, &seq), nullptr);
  for (glia_module* p : parts) glia_module_release(p);
  return seq;
}

// A second module with the same architecture and state as `m` (load_state_dict of m's state dict).
glia_module* clone_mlp(glia_module* m) {
  glia_module* c = make_mlp();
  glia_tensor_dict* d = nullptr;
  EXPECT_EQ(glia_module_state_dict(m, &d), nullptr);
  EXPECT_EQ(glia_module_load_state_dict(c, d, 1, 0, nullptr), nullptr);
  glia_tensor_dict_release(d);
  return c;
}

glia_tensor* forward1(glia_module* m, glia_tensor* x) {
  glia_tensor* y = nullptr;
  int64_t n = 0;
  glia_error* e = glia_module_forward(m, &x, 1, &y, 1, &n);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return y;
}

// ---- "Release functions may run on any thread, concurrently with other calls on other handles" ----

TEST(Threads, HandlesMadeOnOneThreadAreReleasedOnAnotherWhileOthersWork) {
  glia_memory_stats before{};
  before.struct_size = sizeof before;
  GLIA_OK_(glia_memory_stats_get(&before));
  // One producer per consumer: the producer makes tensors, the consumer (a "finalizer" thread)
  // checks and releases them while the other pairs do the same with their own handles.
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<glia_tensor*>> queues(kThreads / 2);
  std::vector<int> produced_done(kThreads / 2, 0);
  std::atomic<int> checked{0};
  run_threads([&](int i) {
    const int pair = i / 2;
    if (i % 2 == 0) {
      for (int k = 0; k < 200; ++k) {
        const int64_t shape[] = {16 + k % 7};
        glia_tensor* t = nullptr;
        EXPECT_EQ(glia_tensor_full(shape, 1, pair * 1000.0 + k, nullptr, &t), nullptr);
        std::lock_guard<std::mutex> lock(mu);
        queues[pair].push_back(t);
        cv.notify_all();
      }
      std::lock_guard<std::mutex> lock(mu);
      produced_done[pair] = 1;
      cv.notify_all();
    } else {
      for (int k = 0;; ++k) {
        glia_tensor* t = nullptr;
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return !queues[pair].empty() || produced_done[pair]; });
          if (queues[pair].empty()) break;
          t = queues[pair].front();
          queues[pair].erase(queues[pair].begin());
        }
        EXPECT_FLOAT_EQ(sum_of(t), static_cast<float>((pair * 1000.0 + k) * (16 + k % 7)));
        EXPECT_EQ(glia_tensor_release(t), nullptr);
        checked.fetch_add(1);
      }
    }
  });
  EXPECT_EQ(checked.load(), 200 * (kThreads / 2));
  glia_memory_stats after{};
  after.struct_size = sizeof after;
  GLIA_OK_(glia_memory_stats_get(&after));
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
}

// ---- the allocator: host hooks called from every thread ----------------------------------------

struct CountingAllocator {
  std::atomic<int64_t> allocs{0}, frees{0}, live_bytes{0};
  std::atomic<int> freed_user_data{0};
};

void* counting_alloc(void* user, size_t size, size_t alignment) {
  auto* c = static_cast<CountingAllocator*>(user);
  c->allocs.fetch_add(1);
  c->live_bytes.fetch_add(static_cast<int64_t>(size));
  return std::aligned_alloc(alignment, size);
}
void counting_free(void* user, void* p, size_t size) {
  auto* c = static_cast<CountingAllocator*>(user);
  c->frees.fetch_add(1);
  c->live_bytes.fetch_sub(static_cast<int64_t>(size));
  std::free(p);
}
void counting_done(void* user) { static_cast<CountingAllocator*>(user)->freed_user_data.fetch_add(1); }

TEST(Threads, HostAllocatorHooksServeEveryThreadAndBalance) {
  CountingAllocator c;
  glia_allocator a;
  glia_allocator_init(&a);
  a.alloc = counting_alloc;
  a.free = counting_free;
  a.user_data = &c;
  a.free_user_data = counting_done;
  GLIA_OK_(glia_set_allocator(&a));
  run_threads(
      [&](int i) {
        for (int k = 0; k < 50; ++k) {
          // Sizes differ per thread and step, so blocks move between the cache's bins and the hooks.
          const int64_t shape[] = {(i + 1) * 1000 + k * 37};
          glia_tensor *x = nullptr, *y = nullptr;
          EXPECT_EQ(glia_tensor_full(shape, 1, 2.0, nullptr, &x), nullptr);
          EXPECT_EQ(glia_add(x, x, 1.0, &y), nullptr);
          EXPECT_FLOAT_EQ(sum_of(y), 4.0f * static_cast<float>(shape[0]));
          glia_tensor_release(y);
          glia_tensor_release(x);
          if (k % 10 == 9) glia_empty_cache();  // detaches and frees cached blocks while others allocate
        }
      },
      kEight);
  GLIA_OK_(glia_set_allocator(nullptr));  // empties the cache: every block goes back through `free`
  EXPECT_GT(c.allocs.load(), 0);
  EXPECT_EQ(c.allocs.load(), c.frees.load());
  EXPECT_EQ(c.live_bytes.load(), 0);
  EXPECT_EQ(c.freed_user_data.load(), 1);  // free_user_data ran once, after the last block came back
}

// ---- "Grad mode and the random generators are per thread" --------------------------------------

TEST(Threads, ManualSeedReseedsEveryThreadsGeneratorAtItsNextDraw) {
  const int64_t shape[] = {257};
  glia_manual_seed(1234);
  glia_tensor* ref = nullptr;
  GLIA_OK_(glia_tensor_rand(shape, 1, nullptr, &ref));
  const std::vector<float> expected = values_of(ref);
  glia_tensor_release(ref);
  glia_manual_seed(1234);
  // Every thread, new or old, starts the same sequence after the seed; draws on one thread do
  // not advance another's.
  run_threads(
      [&](int) {
        for (int k = 0; k < 2; ++k) {
          glia_tensor* r = nullptr;
          EXPECT_EQ(glia_tensor_rand(shape, 1, nullptr, &r), nullptr);
          if (k == 0) EXPECT_TRUE(same_bits(values_of(r), expected));
          if (k == 1) EXPECT_FALSE(same_bits(values_of(r), expected));  // the sequence goes on
          glia_tensor_release(r);
        }
      },
      kEight);
  glia_tensor* mine = nullptr;
  GLIA_OK_(glia_tensor_rand(shape, 1, nullptr, &mine));  // the main thread's first draw since the seed
  EXPECT_TRUE(same_bits(values_of(mine), expected));
  glia_tensor_release(mine);
}

// ---- autograd: separate graphs on several threads ------------------------------------------------

// d/dw and d/dx of sum(tanh(x * w + b)^2), on the calling thread's own graph.
void grads_of_small_graph(int salt, std::vector<float>* gw, std::vector<float>* gx, std::vector<float>* gx2) {
  glia_tensor* x = input_tensor({64, 48}, salt);
  glia_tensor* w = input_tensor({64, 48}, salt + 100);
  glia_tensor* b = input_tensor({48}, salt + 200);
  EXPECT_EQ(glia_tensor_set_requires_grad(x, 1), nullptr);
  EXPECT_EQ(glia_tensor_set_requires_grad(w, 1), nullptr);
  glia_tensor *xw = nullptr, *z = nullptr, *t = nullptr, *t2 = nullptr, *loss = nullptr;
  EXPECT_EQ(glia_mul(x, w, &xw), nullptr);
  EXPECT_EQ(glia_add(xw, b, 1.0, &z), nullptr);
  EXPECT_EQ(glia_tanh(z, &t), nullptr);
  EXPECT_EQ(glia_mul(t, t, &t2), nullptr);
  EXPECT_EQ(glia_sum(t2, nullptr, 0, 0, &loss), nullptr);
  // torch.autograd.grad first (leaves' .grad untouched), then backward into .grad.
  glia_tensor* g[1] = {};
  EXPECT_EQ(glia_autograd_grad(&loss, 1, &x, 1, nullptr, 1, 0, 0, g), nullptr);
  *gx2 = values_of(g[0]);
  glia_tensor_release(g[0]);
  EXPECT_EQ(glia_tensor_backward(loss, nullptr, 0), nullptr);
  glia_tensor *dw = nullptr, *dx = nullptr;
  EXPECT_EQ(glia_tensor_grad(w, &dw), nullptr);
  EXPECT_EQ(glia_tensor_grad(x, &dx), nullptr);
  *gw = values_of(dw);
  *gx = values_of(dx);
  for (glia_tensor* h : {dw, dx, loss, t2, t, z, xw, b, w, x}) glia_tensor_release(h);
}

TEST(Threads, SeparateAutogradGraphsOnEightThreadsGiveTheSingleThreadGradients) {
  std::vector<std::vector<float>> gw(kEight), gx(kEight), gx2(kEight);
  for (int i = 0; i < kEight; ++i) grads_of_small_graph(i, &gw[i], &gx[i], &gx2[i]);
  std::atomic<int> compared{0};
  run_threads(
      [&](int i) {
        for (int k = 0; k < 10; ++k) {
          std::vector<float> w, x, x2;
          grads_of_small_graph(i, &w, &x, &x2);
          EXPECT_TRUE(same_bits(w, gw[i]));
          EXPECT_TRUE(same_bits(x, gx[i]));
          EXPECT_TRUE(same_bits(x2, gx2[i]));
          compared.fetch_add(1);
        }
      },
      kEight);
  EXPECT_EQ(compared.load(), kEight * 10);
  EXPECT_TRUE(same_bits(gx[0], gx2[0]));  // the two autograd entry points agree
}

// ---- "One module may run forward from several threads at once while grad mode is off" -----------

TEST(Threads, EightThreadsInferOnOneEvalModuleUnderNoGradBitForBit) {
  glia_module* m = make_mlp();
  // Running statistics that are not the initial ones, so eval mode's normalisation shows.
  glia_tensor* warm = input_tensor({16, 32}, 99);
  glia_tensor_release(forward1(m, warm));
  glia_tensor_release(warm);
  GLIA_OK_(glia_module_train(m, 0));
  const std::vector<std::vector<float>> state_before = state_of(m);
  std::vector<glia_tensor*> xs(kEight);
  std::vector<std::vector<float>> expected(kEight);
  glia_grad_mode_set(0);
  for (int i = 0; i < kEight; ++i) {
    xs[i] = input_tensor({64, 32}, i);
    glia_tensor* y = forward1(m, xs[i]);
    expected[i] = values_of(y);
    glia_tensor_release(y);
  }
  glia_grad_mode_set(1);
  run_threads(
      [&](int i) {
        glia_grad_mode_set(0);
        for (int k = 0; k < 20; ++k) {
          // Each thread feeds its own input and a neighbour's: both must match the serial outputs.
          const int j = (i + k) % kEight;
          glia_tensor* y = forward1(m, xs[j]);
          int32_t rg = 1;
          EXPECT_EQ(glia_tensor_requires_grad(y, &rg), nullptr);
          EXPECT_EQ(rg, 0);
          EXPECT_TRUE(same_bits(values_of(y), expected[j])) << "thread " << i << ", input " << j;
          glia_tensor_release(y);
        }
      },
      kEight);
  // Inference changed nothing: running statistics and parameters are as they were.
  const std::vector<std::vector<float>> state_after = state_of(m);
  ASSERT_EQ(state_after.size(), state_before.size());
  for (size_t k = 0; k < state_after.size(); ++k) EXPECT_TRUE(same_bits(state_after[k], state_before[k]));
  for (glia_tensor* x : xs) glia_tensor_release(x);
  glia_module_release(m);
}

// ---- "Any number of threads may use distinct handles concurrently": training -------------------

// Ten steps of SGD with momentum on MSE: zero_grad, forward, loss, backward, step.
void train_steps(glia_module* m, glia_tensor* x, glia_tensor* target) {
  glia_tensor_dict* params = nullptr;
  EXPECT_EQ(glia_module_named_parameters(m, nullptr, 1, 1, &params), nullptr);
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_dict_size(params, &n), nullptr);
  std::vector<glia_tensor*> ps(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) EXPECT_EQ(glia_tensor_dict_value_at(params, k, &ps[k]), nullptr);
  glia_sgd_options o;
  glia_sgd_options_init(&o);
  o.lr = 0.05;
  o.momentum = 0.9;
  glia_optimizer* opt = nullptr;
  EXPECT_EQ(glia_optim_sgd(ps.data(), n, &o, &opt), nullptr);
  for (int step = 0; step < 10; ++step) {
    EXPECT_EQ(glia_optimizer_zero_grad(opt, 1), nullptr);
    glia_tensor* y = forward1(m, x);
    glia_tensor* loss = nullptr;
    EXPECT_EQ(glia_mse_loss(y, target, GLIA_REDUCTION_MEAN, &loss), nullptr);
    EXPECT_EQ(glia_tensor_backward(loss, nullptr, 0), nullptr);
    EXPECT_EQ(glia_optimizer_step(opt), nullptr);
    glia_tensor_release(loss);
    glia_tensor_release(y);
  }
  glia_optimizer_release(opt);
  for (glia_tensor* p : ps) glia_tensor_release(p);
  glia_tensor_dict_release(params);
}

TEST(Threads, EightThreadsTrainTheirOwnModelsAsIfAlone) {
  // Model i and its twin start equal; the twins train one after the other on this thread, the
  // models on eight threads at once (training mode: BatchNorm updates running stats, Dropout
  // draws masks from each thread's generator, reseeded to the same sequence below).
  std::vector<glia_module*> models(kEight), twins(kEight);
  std::vector<glia_tensor*> xs(kEight), ts(kEight);
  for (int i = 0; i < kEight; ++i) {
    models[i] = make_mlp();
    twins[i] = clone_mlp(models[i]);
    xs[i] = input_tensor({32, 32}, i);
    ts[i] = input_tensor({32, 10}, i + 50);
  }
  const std::vector<std::vector<float>> initial = state_of(models[0]);
  std::vector<std::vector<std::vector<float>>> expected(kEight);
  for (int i = 0; i < kEight; ++i) {
    glia_manual_seed(77);
    train_steps(twins[i], xs[i], ts[i]);
    expected[i] = state_of(twins[i]);
  }
  glia_manual_seed(77);  // each thread's first draw restarts the same sequence
  run_threads([&](int i) { train_steps(models[i], xs[i], ts[i]); }, kEight);
  for (int i = 0; i < kEight; ++i) {
    const std::vector<std::vector<float>> got = state_of(models[i]);
    ASSERT_EQ(got.size(), expected[i].size());
    for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same_bits(got[k], expected[i][k])) << "model " << i;
  }
  // Training moved the first layer's weight: the models compared are not two untouched ones.
  EXPECT_FALSE(same_bits(state_of(models[0])[0], initial[0]));
  for (int i = 0; i < kEight; ++i) {
    glia_module_release(models[i]);
    glia_module_release(twins[i]);
    glia_tensor_release(xs[i]);
    glia_tensor_release(ts[i]);
  }
}

// ---- concurrent checkpoint loads of one file ---------------------------------------------------

TEST(Threads, EightThreadsLoadOneCheckpointFileInBothFormats) {
  glia_module* m = make_mlp();
  glia_tensor* warm = input_tensor({16, 32}, 5);  // running stats that differ from a fresh module's
  glia_tensor_release(forward1(m, warm));
  glia_tensor_release(warm);
  const std::vector<std::vector<float>> expected = state_of(m);
  const std::string base = ::testing::TempDir() + "glia_threads_" + std::to_string(getpid());
  const std::string st = base + ".safetensors", pt = base + ".pt";
  GLIA_OK_(glia_module_save(m, st.c_str()));
  glia_tensor_dict* d = nullptr;
  GLIA_OK_(glia_module_state_dict(m, &d));
  GLIA_OK_(glia_tensor_dict_save(d, pt.c_str(), GLIA_FORMAT_TORCH));
  glia_tensor_dict_release(d);
  std::atomic<int> loads{0};
  run_threads(
      [&](int i) {
        for (int k = 0; k < 4; ++k) {
          const std::string& path = (i + k) % 2 ? pt : st;
          glia_module* mine = make_mlp();  // its own random init, replaced by the load
          glia_error* e = glia_module_load(mine, path.c_str(), 1, nullptr);
          EXPECT_EQ(e, nullptr) << glia_error_message(e);
          glia_error_free(e);
          const std::vector<std::vector<float>> got = state_of(mine);
          EXPECT_EQ(got.size(), expected.size());
          for (size_t j = 0; j < got.size() && j < expected.size(); ++j)
            EXPECT_TRUE(same_bits(got[j], expected[j])) << path << ", entry " << j;
          glia_module_release(mine);
          // The dict path too: its tensors may view the mapping that other threads' loads share.
          glia_tensor_dict* dict = nullptr;
          EXPECT_EQ(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &dict), nullptr);
          glia_tensor* w = nullptr;
          EXPECT_EQ(glia_tensor_dict_get(dict, "0.weight", &w), nullptr);
          EXPECT_TRUE(same_bits(values_of(w), expected[0]));
          glia_tensor_release(w);
          glia_tensor_dict_release(dict);
          loads.fetch_add(1);
        }
      },
      kEight);
  EXPECT_EQ(loads.load(), kEight * 4);
  std::remove(st.c_str());
  std::remove(pt.c_str());
  glia_module_release(m);
}

// ---- hooks added and removed while other threads run forward -----------------------------------

struct HookCounters {
  std::atomic<int> calls{0};
  std::atomic<int> freed{0};
};

// A forward hook that doubles the output (out + out).
glia_error* doubling_hook(void* user, glia_module*, const glia_tensor* const*, int64_t,
                          const glia_tensor* const* outputs, int64_t n_outputs, glia_tensor** replacement,
                          int64_t capacity, int64_t* out_count) {
  static_cast<HookCounters*>(user)->calls.fetch_add(1);
  if (n_outputs != 1 || capacity < 1) return nullptr;
  glia_error* e = glia_add(outputs[0], outputs[0], 1.0, &replacement[0]);
  if (!e) *out_count = 1;
  return e;
}
void hook_freed(void* user) { static_cast<HookCounters*>(user)->freed.fetch_add(1); }

TEST(Threads, HooksAddedAndRemovedWhileOtherThreadsRunForwardApplyToWholeCalls) {
  glia_module* m = nullptr;
  GLIA_OK_(glia_nn_linear(16, 8, 1, nullptr, &m));
  GLIA_OK_(glia_module_train(m, 0));
  glia_tensor* x = input_tensor({32, 16}, 3);
  glia_grad_mode_set(0);
  glia_tensor* y = forward1(m, x);
  glia_tensor* y2 = nullptr;
  GLIA_OK_(glia_add(y, y, 1.0, &y2));
  glia_grad_mode_set(1);
  const std::vector<float> plain = values_of(y), doubled = values_of(y2);
  glia_tensor_release(y2);
  glia_tensor_release(y);

  constexpr int kRegistrations = 20;
  HookCounters counters;
  std::atomic<bool> done{false};
  std::atomic<int> n_plain{0}, n_doubled{0}, n_other{0};
  run_threads(
      [&](int i) {
        if (i == 0) {
          // The registrar: adds the hook, waits until some forward ran through it, removes it.
          for (int r = 0; r < kRegistrations; ++r) {
            uint64_t id = 0;
            const int before = counters.calls.load();
            EXPECT_EQ(glia_module_add_forward_hook(m, doubling_hook, &counters, hook_freed, 0, &id), nullptr);
            for (int spin = 0; counters.calls.load() == before && spin < 2000000; ++spin) std::this_thread::yield();
            EXPECT_EQ(glia_module_remove_hook(m, id), nullptr);
          }
          done.store(true);
          return;
        }
        glia_grad_mode_set(0);
        while (!done.load()) {
          glia_tensor* out = forward1(m, x);
          const std::vector<float> v = values_of(out);
          if (same_bits(v, plain))
            n_plain.fetch_add(1);
          else if (same_bits(v, doubled))
            n_doubled.fetch_add(1);
          else
            n_other.fetch_add(1);
          glia_tensor_release(out);
        }
      },
      kThreads);
  EXPECT_EQ(n_other.load(), 0);  // every call ran with the hook or without it, never half of it
  EXPECT_GT(n_doubled.load(), 0);
  EXPECT_GE(counters.calls.load(), kRegistrations);
  EXPECT_EQ(counters.freed.load(), kRegistrations);  // each removed hook's free_user_data ran once
  glia_tensor* after = forward1(m, x);
  EXPECT_TRUE(same_bits(values_of(after), plain));  // no hook left behind
  glia_tensor_release(after);
  glia_tensor_release(x);
  glia_module_release(m);
}

// ---- "glia_set_parallel_for must not be called while kernels run": detected ---------------------

// A host job system that runs the tasks on the calling thread; its first call waits for `release`.
struct BlockingJobs {
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, release = false;
  std::atomic<int> calls{0}, freed{0};
};

glia_error* blocking_jobs(void* user, int64_t n_tasks, glia_parallel_task_fn task, void* ctx) {
  auto* j = static_cast<BlockingJobs*>(user);
  if (j->calls.fetch_add(1) == 0) {
    std::unique_lock<std::mutex> lock(j->mu);
    j->entered = true;
    j->cv.notify_all();
    j->cv.wait(lock, [&] { return j->release; });
  }
  for (int64_t i = 0; i < n_tasks; ++i) task(ctx, i);
  return nullptr;
}
void jobs_freed(void* user) { static_cast<BlockingJobs*>(user)->freed.fetch_add(1); }

TEST(Threads, SetParallelForWhileAKernelRunsInTheJobSystemIsAStateError) {
  const int32_t threads_before = glia_get_num_threads();
  GLIA_OK_(glia_set_num_threads(4));  // kernels split into tasks even on a one-core machine
  const int64_t shape[] = {1 << 20};
  glia_tensor* a = nullptr;
  GLIA_OK_(glia_tensor_full(shape, 1, 1.5, nullptr, &a));
  BlockingJobs jobs;  // its first call, the worker's add below, waits
  GLIA_OK_(glia_set_parallel_for(blocking_jobs, &jobs, jobs_freed));
  glia_tensor* sum = nullptr;
  std::thread worker([&] { EXPECT_EQ(glia_add(a, a, 1.0, &sum), nullptr); });
  {
    std::unique_lock<std::mutex> lock(jobs.mu);
    jobs.cv.wait(lock, [&] { return jobs.entered; });
  }
  // The worker's kernel is inside the job system: replacing or ending the registration now would
  // free what it uses. Both are refused, the new registration's user_data is freed at once, and
  // the registration in place is kept.
  BlockingJobs other;
  EXPECT_GLIA_MSG(glia_set_parallel_for(blocking_jobs, &other, jobs_freed), GLIA_ERR_STATE,
                  "glia_set_parallel_for: 1 glia kernel(s) are running in the registered job system");
  EXPECT_EQ(other.freed.load(), 1);
  EXPECT_GLIA_ERR(glia_set_parallel_for(nullptr, nullptr, nullptr), GLIA_ERR_STATE);
  EXPECT_EQ(jobs.freed.load(), 0);
  {
    std::lock_guard<std::mutex> lock(jobs.mu);
    jobs.release = true;
  }
  jobs.cv.notify_all();
  worker.join();
  ASSERT_NE(sum, nullptr);
  EXPECT_FLOAT_EQ(sum_of(sum), 3.0f * (1 << 20));
  // Once no kernel is inside it, the registration ends normally.
  GLIA_OK_(glia_set_parallel_for(nullptr, nullptr, nullptr));
  EXPECT_EQ(jobs.freed.load(), 1);
  EXPECT_EQ(other.calls.load(), 0);
  glia_tensor_release(sum);
  glia_tensor_release(a);
  GLIA_OK_(glia_set_num_threads(threads_before));
}

// ---- glia_set_num_threads while other threads run kernels ----------------------------------------

TEST(Threads, SetNumThreadsWhileOtherThreadsRunKernelsKeepsEachKernelsSplit) {
  const int32_t threads_before = glia_get_num_threads();
  const int64_t shape[] = {1 << 18};
  std::atomic<bool> done{false};
  std::atomic<int> kernels{0};
  run_threads([&](int i) {
    if (i == 0) {
      // Resizes the pool (workers joined and started again) while the others' kernels run.
      for (int k = 0; k < 40; ++k) EXPECT_EQ(glia_set_num_threads(1 + k % 4), nullptr);
      done.store(true);
      return;
    }
    for (int k = 0; !done.load() || k < 5; ++k) {
      glia_tensor *a = nullptr, *c = nullptr;
      EXPECT_EQ(glia_tensor_full(shape, 1, i + 0.25, nullptr, &a), nullptr);
      EXPECT_EQ(glia_add(a, a, 1.0, &c), nullptr);
      EXPECT_FLOAT_EQ(sum_of(c), static_cast<float>((2 * i + 0.5) * (1 << 18)));
      glia_tensor_release(c);
      glia_tensor_release(a);
      kernels.fetch_add(1);
    }
  });
  EXPECT_GE(kernels.load(), 5 * (kThreads - 1));
  GLIA_OK_(glia_set_num_threads(threads_before));
}

// ---- glia_shutdown after every thread has joined, then glia again -------------------------------

TEST(Threads, ShutdownAfterTheThreadsJoinedThenEverythingWorksAgain) {
  const int32_t threads_before = glia_get_num_threads();
  GLIA_OK_(glia_set_num_threads(4));  // the pool has workers to join
  const int64_t shape[] = {1 << 18};
  glia_tensor* kept = nullptr;  // made before the shutdown, used after it
  GLIA_OK_(glia_tensor_full(shape, 1, 0.5, nullptr, &kept));
  auto round = [&](double base) {
    run_threads([&](int i) {
      for (int k = 0; k < 5; ++k) {
        glia_tensor *a = nullptr, *c = nullptr;
        EXPECT_EQ(glia_tensor_full(shape, 1, base + i, nullptr, &a), nullptr);
        EXPECT_EQ(glia_add(a, kept, 2.0, &c), nullptr);  // above the grain: split over the pool
        EXPECT_FLOAT_EQ(sum_of(c), static_cast<float>((base + i + 1.0) * (1 << 18)));
        glia_tensor_release(c);
        glia_tensor_release(a);
      }
    });
  };
  round(1.0);
  BlockingJobs jobs;  // a job-system registration, ended by the shutdown
  jobs.release = true;
  jobs.calls = 1;  // never blocks
  GLIA_OK_(glia_set_parallel_for(blocking_jobs, &jobs, jobs_freed));
  glia_shutdown();
  EXPECT_EQ(jobs.freed.load(), 1);
  glia_memory_stats s{};
  s.struct_size = sizeof s;
  GLIA_OK_(glia_memory_stats_get(&s));
  EXPECT_EQ(s.bytes_cached, 0u);  // cached blocks went back to the allocator
  // Handles made before stay valid; kernels start the pool again (not the ended job system).
  round(10.0);
  EXPECT_EQ(jobs.calls.load(), 1);
  EXPECT_FLOAT_EQ(sum_of(kept), 0.5f * (1 << 18));
  glia_shutdown();  // twice in a row is fine
  round(20.0);
  glia_tensor_release(kept);
  GLIA_OK_(glia_set_num_threads(threads_before));
}

}  // namespace
