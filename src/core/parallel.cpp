#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"

namespace glia {

namespace {

constexpr int kMaxThreads = 1024;
// Bridges the gap between back-to-back kernels without a futex round trip,
// yet short enough not to hold a core the host may want.
constexpr auto kSpinTime = std::chrono::microseconds(50);

// Note [Trivially destructible TLS]: a thread_local with a destructor makes
// glibc pin the library (__cxa_thread_atexit), so dlclose() would not unload it.
thread_local bool t_in_parallel = false;

// 0 until first read, so that the value needs no dynamic initialiser.
std::atomic<int> g_num_threads{0};

int default_num_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxThreads));
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() or kSpinTime has passed; returns done().
template <class Done>
bool spin_until(Done done) {
  auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

// One parallel_for call, on the caller's stack. Chunk i is
// [begin + i * base + min(i, rem), ... + base + (i < rem)): n_chunks balanced
// contiguous pieces whose bounds depend only on the arguments, never on timing.
struct Job {
  Job(const RangeFn& f, int64_t b, int64_t size, int64_t n)
      : fn(f), begin(b), base(size / n), rem(size % n), n_chunks(n) {}

  void run_chunk(int64_t i) noexcept {
    if (failed.load(std::memory_order_relaxed)) return;  // the result is lost anyway
    int64_t b = begin + i * base + std::min(i, rem);
    int64_t e = b + base + (i < rem ? 1 : 0);
    try {
      fn(b, e);
    } catch (...) {
      if (!failed.exchange(true, std::memory_order_acq_rel)) error = std::current_exception();
    }
  }
  // Claims and runs chunks until none is left.
  void run_claimed() noexcept {
    for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < n_chunks;
         i = next.fetch_add(1, std::memory_order_relaxed)) {
      run_chunk(i);
    }
  }

  const RangeFn& fn;
  const int64_t begin, base, rem, n_chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> host_done{0};  // tasks the host job system ran
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // written by whoever set `failed`; read by the caller once every chunk has ended
};

void run_on_caller(Job& job) {
  t_in_parallel = true;
  job.run_claimed();
  t_in_parallel = false;
}

void host_task(void* context, int64_t index) noexcept {
  auto* job = static_cast<Job*>(context);
  if (index < 0 || index >= job->n_chunks) return;  // counted as missing below
  // The host may run tasks on the calling thread, inside or outside a region.
  bool outer = t_in_parallel;
  t_in_parallel = true;
  job->run_chunk(index);
  t_in_parallel = outer;
  job->host_done.fetch_add(1, std::memory_order_release);
}

struct HostRegistration {
  HostParallelForFn fn = nullptr;
  void* user_data = nullptr;
  void (*free_user_data)(void*) = nullptr;
  HostErrorRaiser raise = nullptr;
};

// Note [Pool protocol]: one job at a time holds the workers (`dispatch`). It is
// published by storing job_ and bumping gen_; workers spin on gen_, then sleep
// on work_cv_. A worker announces itself in attached_ before it reads job_,
// and the caller clears job_ (once it has claimed the last chunk) before it
// waits for attached_ to reach 0. With sequentially consistent accesses on
// both sides, a worker either is counted or reads null, so no worker touches
// the job after the caller returns. sleepers_ / gen_ and caller_waiting_ /
// attached_ pair up the same way, so that no wakeup is lost and an awake pool
// needs no lock at all.
class Runtime {
 public:
  ~Runtime() {
    {
      std::lock_guard<std::mutex> lock(dispatch);
      stop_workers();
    }
    // The library is being unloaded or the process exits: the registration ends.
    if (host.free_user_data) host.free_user_data(host.user_data);
  }

  void run(Job& job) {
    std::unique_lock<std::mutex> owner(dispatch, std::try_to_lock);
    if (!owner.owns_lock() || host_active.load(std::memory_order_relaxed)) {
      // Another thread's job holds the workers: run the same chunks here.
      run_on_caller(job);
      return;
    }
    start_workers(static_cast<size_t>(get_num_threads() - 1));
    job_.store(&job);
    gen_.fetch_add(1);
    if (int sleeping = sleepers_.load()) {
      { std::lock_guard<std::mutex> lock(mu_); }  // a sleeper past its check is now waiting
      for (int64_t i = std::min<int64_t>(sleeping, job.n_chunks - 1); i > 0; --i) work_cv_.notify_one();
    }
    run_on_caller(job);
    job_.store(nullptr);
    if (!spin_until([&] { return attached_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(mu_);
      caller_waiting_.store(true);
      done_cv_.wait(lock, [&] { return attached_.load() == 0; });
      caller_waiting_.store(false);
    }
  }

  // Requires `dispatch`. The pool starts again at the next job.
  void stop_workers() {
    if (workers_.empty()) return;
    stop_.store(true);
    gen_.fetch_add(1);
    { std::lock_guard<std::mutex> lock(mu_); }
    work_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
    stop_.store(false);
  }

  size_t num_workers() const { return workers_.size(); }

  std::mutex dispatch;  // held by the job that owns the workers and by whoever resizes them
  std::mutex host_mu;
  HostRegistration host;   // guarded by host_mu; written with `dispatch` held too
  int64_t host_calls = 0;  // guarded by host_mu: kernels inside the host's job system now (Note [Host calls in flight])
  std::atomic<bool> host_active{false};

 private:
  void start_workers(size_t n) {
    if (workers_.size() > n) stop_workers();
    while (workers_.size() < n) workers_.emplace_back(&Runtime::worker_loop, this, gen_.load());
  }

  void worker_loop(uint64_t seen) {
    t_in_parallel = true;  // a worker only ever runs chunks
    for (;;) {
      if (!spin_until([&] { return gen_.load(std::memory_order_acquire) != seen; })) {
        std::unique_lock<std::mutex> lock(mu_);
        sleepers_.fetch_add(1);
        work_cv_.wait(lock, [&] { return gen_.load() != seen; });
        sleepers_.fetch_sub(1);
      }
      // Read the generation before the stop flag: stop_workers sets stop_ before
      // bumping gen_, so a generation that includes its bump also shows stop_.
      seen = gen_.load();
      if (stop_.load()) return;
      attached_.fetch_add(1);
      if (Job* job = job_.load()) job->run_claimed();
      if (attached_.fetch_sub(1) == 1 && caller_waiting_.load()) {
        std::lock_guard<std::mutex> lock(mu_);  // the caller is inside wait() once this is held
        done_cv_.notify_one();
      }
    }
  }

  std::mutex mu_;  // only for sleeping and waking
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::atomic<uint64_t> gen_{0};
  std::atomic<Job*> job_{nullptr};
  std::atomic<int> attached_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> caller_waiting_{false};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

Runtime& runtime() {
  // Destroyed at exit or dlclose: joins workers left running without glia_shutdown.
  static Runtime r;
  return r;
}

// Note [Host calls in flight]: a kernel calls the host's job system with a copy of the
// registration, so replacing or ending the registration (whose free_user_data releases what
// the job system's user_data points to) while another thread's kernel is inside it would free
// memory in use. glia_set_parallel_for counts those calls and refuses with GLIA_ERR_STATE while
// any is in flight (docs/c-api.md, Threads): two uncontended lock operations per host kernel,
// next to the host's own scheduling.
//
// Runs `job` on the host job system; false when no host is registered after all.
bool run_on_host(Runtime& r, Job& job) {
  HostRegistration h;
  {
    std::lock_guard<std::mutex> lock(r.host_mu);
    h = r.host;
    if (h.fn) ++r.host_calls;
  }
  if (!h.fn) return false;
  struct InFlight {
    Runtime& r;
    ~InFlight() {
      std::lock_guard<std::mutex> lock(r.host_mu);
      --r.host_calls;
    }
  } in_flight{r};
  if (void* host_error = h.fn(h.user_data, job.n_chunks, &host_task, &job)) {
    h.raise(host_error);
    fail(Code::Callback, "host parallel_for failed and its error raiser returned");
  }
  int64_t done = job.host_done.load(std::memory_order_acquire);
  GLIA_CHECK(done == job.n_chunks, Callback, "host parallel_for returned after running ", done, " of ", job.n_chunks,
             " tasks");
  return true;
}

}  // namespace

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n != 0) return n;
  int unset = 0;
  g_num_threads.compare_exchange_strong(unset, default_num_threads(), std::memory_order_relaxed);
  return g_num_threads.load(std::memory_order_relaxed);
}

void set_num_threads(int n) {
  GLIA_CHECK(n >= 1 && n <= kMaxThreads, InvalidArgument, "glia_set_num_threads: n must be in [1, ", kMaxThreads,
             "], got ", n);
  GLIA_CHECK(!t_in_parallel, State, "glia_set_num_threads: called inside a parallel region");
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.dispatch);
  g_num_threads.store(n, std::memory_order_relaxed);
  if (r.num_workers() != static_cast<size_t>(n - 1)) r.stop_workers();
}

bool in_parallel_region() { return t_in_parallel; }

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, RangeFn fn) {
  if (end <= begin) return;
  // Every chunk gets at least `grain` elements (Note [Parallel regions]).
  int64_t n_chunks = std::min<int64_t>(get_num_threads(), (end - begin) / std::max<int64_t>(grain, 1));
  if (n_chunks <= 1 || t_in_parallel) {
    fn(begin, end);
    return;
  }
  Job job(fn, begin, end - begin, n_chunks);
  Runtime& r = runtime();
  if (!r.host_active.load(std::memory_order_acquire) || !run_on_host(r, job)) r.run(job);
  if (job.error) std::rethrow_exception(job.error);
}

void set_host_parallel_for(HostParallelForFn fn, void* user_data, void (*free_user_data)(void*),
                           HostErrorRaiser raise) {
  GLIA_CHECK(!t_in_parallel, State, "glia_set_parallel_for: called inside a parallel region");
  GLIA_CHECK(!fn || raise, InvalidArgument, "set_host_parallel_for: a host function needs an error raiser");
  Runtime& r = runtime();
  HostRegistration old;
  {
    std::lock_guard<std::mutex> lock(r.dispatch);
    std::lock_guard<std::mutex> host_lock(r.host_mu);
    GLIA_CHECK(r.host_calls == 0, State, "glia_set_parallel_for: ", r.host_calls,
               " glia kernel(s) are running in the registered job system on other threads; change the "
               "registration when no glia call runs");
    r.stop_workers();  // idle: a pool job holds `dispatch`, and host kernels never reach the workers
    old = r.host;
    r.host = fn ? HostRegistration{fn, user_data, free_user_data, raise} : HostRegistration{};
    r.host_active.store(fn != nullptr, std::memory_order_release);
  }
  // Outside the locks: these may call back into glia.
  if (old.free_user_data) old.free_user_data(old.user_data);
  if (!fn && free_user_data) free_user_data(user_data);  // a null registration ends at once
}

void shutdown_threads() {
  if (t_in_parallel) return;  // joining from a chunk would deadlock; glia_shutdown cannot fail
  Runtime& r = runtime();
  HostRegistration old;
  {
    std::lock_guard<std::mutex> lock(r.dispatch);
    r.stop_workers();
    std::lock_guard<std::mutex> host_lock(r.host_mu);
    old = r.host;
    r.host = HostRegistration{};
    r.host_active.store(false, std::memory_order_release);
  }
  if (old.free_user_data) old.free_user_data(old.user_data);
}

}  // namespace glia
