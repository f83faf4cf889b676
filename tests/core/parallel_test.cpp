#include "core/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.h"

using glia::Code;
using glia::Error;
using glia::parallel_for;

namespace {

using Chunks = std::vector<std::pair<int64_t, int64_t>>;

// Runs parallel_for and returns the chunks it made, sorted.
Chunks chunks_of(int64_t begin, int64_t end, int64_t grain) {
  std::mutex mu;
  Chunks out;
  parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    out.emplace_back(b, e);
  });
  std::sort(out.begin(), out.end());
  return out;
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

class Parallel : public ::testing::Test {
 protected:
  void SetUp() override {
    glia::shutdown_threads();
    saved_threads_ = glia::get_num_threads();
    base_threads_ = baseline_thread_count();
  }
  // The process's threads before glia starts any. ThreadSanitizer starts a background thread of
  // its own at the process's first pthread_create: under TSan that happens first (once per
  // process, waiting until the short-lived thread that triggers it has left /proc).
  static int baseline_thread_count() {
#if defined(__SANITIZE_THREAD__)
    static const bool started = [] {
      const int n = thread_count();
      std::thread([] {}).join();
      settled_thread_count(n + 1);
      return true;
    }();
    (void)started;
#endif
    return thread_count();
  }
  void TearDown() override {
    glia::shutdown_threads();
    glia::set_num_threads(saved_threads_);
  }
  int saved_threads_ = 1;
  int base_threads_ = 0;
};

TEST_F(Parallel, CoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 8}) {
    glia::set_num_threads(threads);
    for (int64_t size : {1, 2, 7, 64, 100, 1000, 1001, 10007}) {
      for (int64_t grain : {1, 3, 64, 1000}) {
        const int64_t begin = -17;
        std::vector<std::atomic<int>> hits(static_cast<size_t>(size));
        parallel_for(begin, begin + size, grain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i - begin)].fetch_add(1);
        });
        for (int64_t i = 0; i < size; ++i) {
          ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
              << "index " << i << " threads " << threads << " size " << size << " grain " << grain;
        }
        Chunks c = chunks_of(begin, begin + size, grain);
        int64_t expected = std::max<int64_t>(1, std::min<int64_t>(threads, size / grain));
        ASSERT_EQ(static_cast<int64_t>(c.size()), expected)
            << "threads " << threads << " size " << size << " grain " << grain;
        for (size_t i = 0; i < c.size(); ++i) {
          EXPECT_EQ(c[i].first, i == 0 ? begin : c[i - 1].second);
          if (c.size() > 1) EXPECT_GE(c[i].second - c[i].first, grain);
        }
        EXPECT_EQ(c.back().second, begin + size);
      }
    }
  }
}

TEST_F(Parallel, ChunksAreBalancedAndContiguous) {
  glia::set_num_threads(4);
  EXPECT_EQ(chunks_of(0, 10, 1), (Chunks{{0, 3}, {3, 6}, {6, 8}, {8, 10}}));
  EXPECT_EQ(chunks_of(0, 10, 3), (Chunks{{0, 4}, {4, 7}, {7, 10}}));
  EXPECT_EQ(chunks_of(100, 108, 2), (Chunks{{100, 102}, {102, 104}, {104, 106}, {106, 108}}));
}

TEST_F(Parallel, EmptyRangeCallsNothing) {
  glia::set_num_threads(4);
  int calls = 0;
  parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });
  parallel_for(5, 3, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST_F(Parallel, RunsSeriallyOnCallerBelowTwoGrains) {
  glia::set_num_threads(4);
  for (int64_t size : {1, 50, 100, 199}) {
    std::vector<std::thread::id> ids;
    Chunks c;
    bool inside = true;
    parallel_for(0, size, 100, [&](int64_t b, int64_t e) {
      ids.push_back(std::this_thread::get_id());
      c.emplace_back(b, e);
      inside = glia::in_parallel_region();
    });
    EXPECT_EQ(c, (Chunks{{0, size}})) << size;
    ASSERT_EQ(ids.size(), 1u);
    EXPECT_EQ(ids[0], std::this_thread::get_id());
    EXPECT_FALSE(inside);
  }
  // Serial runs start no thread.
  EXPECT_EQ(settled_thread_count(base_threads_), base_threads_);
}

TEST_F(Parallel, ChunksRunConcurrentlyAndTheCallerTakesPart) {
  glia::set_num_threads(4);
  std::atomic<int> started{0};
  std::atomic<int> timed_out{0};
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> outside{0};
  parallel_for(0, 4, 1, [&](int64_t, int64_t) {
    if (!glia::in_parallel_region()) outside.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    started.fetch_add(1);
    // Every chunk waits for all four: only four threads at once get past this.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 4) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out.fetch_add(1);
        return;
      }
      std::this_thread::yield();
    }
  });
  EXPECT_EQ(timed_out.load(), 0);
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 1u);
  EXPECT_EQ(outside.load(), 0);
  EXPECT_FALSE(glia::in_parallel_region());
}

TEST_F(Parallel, NestedParallelForRunsSeriallyInsideTheChunk) {
  glia::set_num_threads(4);
  std::atomic<int> bad{0};
  std::atomic<int> inner_calls{0};
  parallel_for(0, 4, 1, [&](int64_t b, int64_t e) {
    auto me = std::this_thread::get_id();
    parallel_for(0, 1000, 1, [&](int64_t ib, int64_t ie) {
      inner_calls.fetch_add(1);
      if (ib != 0 || ie != 1000 || std::this_thread::get_id() != me || !glia::in_parallel_region()) bad.fetch_add(1);
    });
  });
  EXPECT_EQ(inner_calls.load(), 4);
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(Parallel, ExceptionFromAChunkReachesTheCaller) {
  glia::set_num_threads(4);
  // From a worker's chunk, and from the caller's own chunk.
  for (int64_t failing : {2, 0}) {
    try {
      parallel_for(0, 400, 1, [&](int64_t b, int64_t) {
        if (b == failing * 100) glia::fail(Code::Shape, "chunk at ", b, " failed");
      });
      ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::Shape);
      EXPECT_EQ(e.message(), "chunk at " + std::to_string(failing * 100) + " failed");
    }
  }
  try {
    parallel_for(0, 400, 1, [](int64_t b, int64_t) {
      if (b == 300) throw std::out_of_range("index 300 out of range");
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "index 300 out of range");
  }
  // Every chunk throws: exactly one exception comes back.
  EXPECT_THROW(parallel_for(0, 400, 1, [](int64_t, int64_t) { throw std::runtime_error("all"); }), std::runtime_error);
  // The pool still works.
  std::atomic<int64_t> sum{0};
  parallel_for(0, 10000, 1, [&](int64_t b, int64_t e) {
    int64_t s = 0;
    for (int64_t i = b; i < e; ++i) s += i;
    sum.fetch_add(s);
  });
  EXPECT_EQ(sum.load(), 10000 * 9999 / 2);
}

TEST_F(Parallel, SetNumThreadsRejectsOutOfRange) {
  glia::set_num_threads(3);
  for (int n : {0, -1, 1025}) {
    try {
      glia::set_num_threads(n);
      ADD_FAILURE() << "accepted " << n;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::InvalidArgument);
      EXPECT_EQ(e.message(), "glia_set_num_threads: n must be in [1, 1024], got " + std::to_string(n));
    }
  }
  EXPECT_EQ(glia::get_num_threads(), 3);
  glia::set_num_threads(1024);
  EXPECT_EQ(glia::get_num_threads(), 1024);
  glia::set_num_threads(1);
  EXPECT_EQ(glia::get_num_threads(), 1);
}

TEST_F(Parallel, SetNumThreadsInsideAChunkIsAStateError) {
  glia::set_num_threads(2);
  try {
    parallel_for(0, 2, 1, [](int64_t, int64_t) { glia::set_num_threads(3); });
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::State);
    EXPECT_EQ(e.message(), "glia_set_num_threads: called inside a parallel region");
  }
  EXPECT_EQ(glia::get_num_threads(), 2);
}

TEST_F(Parallel, WorkersStartLazilyAndShutdownJoinsThem) {
  glia::set_num_threads(4);
  EXPECT_EQ(settled_thread_count(base_threads_), base_threads_);
  auto run = [] { parallel_for(0, 1000, 1, [](int64_t, int64_t) {}); };
  run();
  EXPECT_EQ(settled_thread_count(base_threads_ + 3), base_threads_ + 3);
  run();  // the same workers serve the next call
  EXPECT_EQ(thread_count(), base_threads_ + 3);
  glia::set_num_threads(2);  // resizing joins the old workers at once
  EXPECT_EQ(settled_thread_count(base_threads_), base_threads_);
  run();
  EXPECT_EQ(settled_thread_count(base_threads_ + 1), base_threads_ + 1);
  glia::set_num_threads(2);  // same size: the workers stay
  EXPECT_EQ(thread_count(), base_threads_ + 1);
  glia::shutdown_threads();
  EXPECT_EQ(settled_thread_count(base_threads_), base_threads_);
  run();  // and the pool starts again
  EXPECT_EQ(settled_thread_count(base_threads_ + 1), base_threads_ + 1);
}

TEST_F(Parallel, ManySmallJobsFromConcurrentCallers) {
  glia::set_num_threads(3);
  std::atomic<int> errors{0};
  auto caller = [&] {
    for (int iter = 0; iter < 2000; ++iter) {
      int64_t size = 1 + iter % 97;
      std::vector<int> hits(static_cast<size_t>(size));
      parallel_for(0, size, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
      });
      if (std::count(hits.begin(), hits.end(), 1) != size) errors.fetch_add(1);
    }
  };
  std::thread other(caller);
  caller();
  other.join();
  EXPECT_EQ(errors.load(), 0);
}

// A host job system that runs every task on a std::thread of its own.
struct FakeHost {
  std::atomic<int> calls{0};
  std::atomic<int> tasks{0};
  int frees = 0;
  bool skip_tasks = false;
  const char* error = nullptr;  // returned instead of running the tasks
};

void* fake_parallel_for(void* user_data, int64_t n_tasks, glia::HostTaskFn task, void* ctx) {
  auto* host = static_cast<FakeHost*>(user_data);
  host->calls.fetch_add(1);
  if (host->error) return const_cast<char*>(host->error);
  if (host->skip_tasks) return nullptr;
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < n_tasks; ++i) {
    threads.emplace_back([=] {
      host->tasks.fetch_add(1);
      task(ctx, i);
    });
  }
  for (std::thread& t : threads) t.join();
  return nullptr;
}

void free_fake_host(void* user_data) { ++static_cast<FakeHost*>(user_data)->frees; }

void raise_fake_error(void* host_error) {
  glia::fail(Code::Callback, "host says: ", static_cast<const char*>(host_error));
}

TEST_F(Parallel, HostJobSystemRunsTheChunks) {
  glia::set_num_threads(4);
  parallel_for(0, 1000, 1, [](int64_t, int64_t) {});  // start the pool: registering must join it
  EXPECT_EQ(settled_thread_count(base_threads_ + 3), base_threads_ + 3);

  FakeHost host;
  glia::set_host_parallel_for(&fake_parallel_for, &host, &free_fake_host, &raise_fake_error);
  EXPECT_EQ(settled_thread_count(base_threads_), base_threads_);
  std::vector<std::atomic<int>> hits(1000);
  std::atomic<int> outside{0};
  std::mutex mu;
  std::set<std::thread::id> ids;
  parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) {
    if (!glia::in_parallel_region()) outside.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
  });
  EXPECT_EQ(host.calls.load(), 1);
  EXPECT_EQ(host.tasks.load(), 4);
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(outside.load(), 0);
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_FALSE(glia::in_parallel_region());

  // Serial cases never reach the host.
  parallel_for(0, 1000, 1000, [](int64_t, int64_t) {});
  parallel_for(0, 1, 1, [](int64_t, int64_t) {});
  EXPECT_EQ(host.calls.load(), 1);

  // A chunk's exception crosses the host's threads.
  try {
    parallel_for(0, 8, 1, [](int64_t b, int64_t) {
      if (b == 6) glia::fail(Code::DType, "bad dtype in chunk");
    });
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::DType);
    EXPECT_EQ(e.message(), "bad dtype in chunk");
  }
  EXPECT_EQ(host.calls.load(), 2);
  EXPECT_EQ(settled_thread_count(base_threads_), base_threads_);  // glia started no thread of its own
  EXPECT_EQ(host.frees, 0);
  glia::shutdown_threads();
  EXPECT_EQ(host.frees, 1);
}

TEST_F(Parallel, HostRegistrationIsFreedExactlyOnce) {
  glia::set_num_threads(2);
  FakeHost first, second, third, unused;
  glia::set_host_parallel_for(&fake_parallel_for, &first, &free_fake_host, &raise_fake_error);
  glia::set_host_parallel_for(&fake_parallel_for, &second, &free_fake_host, &raise_fake_error);
  EXPECT_EQ(first.frees, 1);
  EXPECT_EQ(second.frees, 0);
  parallel_for(0, 10, 1, [](int64_t, int64_t) {});
  EXPECT_EQ(first.calls.load(), 0);
  EXPECT_EQ(second.calls.load(), 1);

  glia::shutdown_threads();
  EXPECT_EQ(second.frees, 1);
  glia::shutdown_threads();
  EXPECT_EQ(second.frees, 1);
  parallel_for(0, 10, 1, [](int64_t, int64_t) {});  // back on the pool
  EXPECT_EQ(second.calls.load(), 1);

  glia::set_host_parallel_for(&fake_parallel_for, &third, &free_fake_host, &raise_fake_error);
  glia::set_host_parallel_for(nullptr, &unused, &free_fake_host, nullptr);  // restores the pool
  EXPECT_EQ(third.frees, 1);
  EXPECT_EQ(unused.frees, 1);  // a null registration ends at once
  parallel_for(0, 10, 1, [](int64_t, int64_t) {});
  EXPECT_EQ(third.calls.load(), 0);
  EXPECT_EQ(settled_thread_count(base_threads_ + 1), base_threads_ + 1);
  EXPECT_EQ(first.frees + second.frees + third.frees + unused.frees, 4);
}

TEST_F(Parallel, HostErrorsSurfaceOnTheCaller) {
  glia::set_num_threads(4);
  FakeHost host;
  host.error = "queue is full";
  glia::set_host_parallel_for(&fake_parallel_for, &host, &free_fake_host, &raise_fake_error);
  try {
    parallel_for(0, 100, 1, [](int64_t, int64_t) {});
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::Callback);
    EXPECT_EQ(e.message(), "host says: queue is full");
  }
  host.error = nullptr;
  host.skip_tasks = true;
  try {
    parallel_for(0, 100, 1, [](int64_t, int64_t) {});
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::Callback);
    EXPECT_EQ(e.message(), "host parallel_for returned after running 0 of 4 tasks");
  }
  host.skip_tasks = false;
  std::atomic<int64_t> covered{0};
  parallel_for(0, 100, 1, [&](int64_t b, int64_t e) { covered.fetch_add(e - b); });
  EXPECT_EQ(covered.load(), 100);
  EXPECT_EQ(host.calls.load(), 3);
  glia::shutdown_threads();
  EXPECT_EQ(host.frees, 1);
}

TEST_F(Parallel, RegistrationInsideAChunkIsRefused) {
  glia::set_num_threads(2);
  FakeHost host;
  try {
    parallel_for(0, 2, 1, [&](int64_t, int64_t) {
      glia::set_host_parallel_for(&fake_parallel_for, &host, &free_fake_host, &raise_fake_error);
    });
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::State);
    EXPECT_EQ(e.message(), "glia_set_parallel_for: called inside a parallel region");
  }
  EXPECT_EQ(host.frees, 0);  // ownership stays with the caller on failure
  parallel_for(0, 2, 1, [](int64_t, int64_t) { glia::shutdown_threads(); });  // ignored inside a chunk
  EXPECT_EQ(settled_thread_count(base_threads_ + 1), base_threads_ + 1);
  EXPECT_EQ(host.calls.load(), 0);
}

}  // namespace
