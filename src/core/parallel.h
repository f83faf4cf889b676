// glia's thread pool and the seam for a host job system (glia_set_parallel_for).
// Note [Parallel regions]: parallel_for splits [begin, end) into
// min(get_num_threads(), (end - begin) / grain) balanced contiguous chunks, so
// each has at least `grain` elements; with a single chunk, or when already
// inside a parallel region, it runs serially on the caller. The calling
// thread always takes part. Chunk bounds depend only on the arguments
// and get_num_threads(); while another thread's call holds the pool, a call
// runs the same chunks one after another on its own thread. An exception
// thrown by any chunk is rethrown on the caller after all chunks have finished.
#pragma once

#include <cstdint>
#include <type_traits>

namespace glia {

// Type-erased reference to a callable taking (begin, end); never owns it.
class RangeFn {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, RangeFn>) RangeFn(F& f)
      : obj_(&f), call_([](void* o, int64_t b, int64_t e) { (*static_cast<F*>(o))(b, e); }) {}
  void operator()(int64_t b, int64_t e) const { call_(obj_, b, e); }

 private:
  void* obj_;
  void (*call_)(void*, int64_t, int64_t);
};

int get_num_threads();
// Throws Error(InvalidArgument) outside [1, 1024], Error(State) inside a parallel region.
void set_num_threads(int n);
bool in_parallel_region();

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, RangeFn fn);

template <class F>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain, F&& f) {
  if (end <= begin) return;
  if (end - begin <= grain || in_parallel_region() || get_num_threads() == 1) {
    f(begin, end);
    return;
  }
  std::remove_reference_t<F>& ref = f;
  parallel_for_impl(begin, end, grain, RangeFn(ref));
}

// Host job system (see glia_set_parallel_for); fn == nullptr restores the pool.
// The previous registration's free_user_data runs before this returns, and so
// does free_user_data(user_data) when fn is null. Throws Error(State) inside a
// parallel region, leaving user_data to the caller.
using HostTaskFn = void (*)(void* task_context, int64_t task_index);
// Returns an opaque error pointer from the host (a glia_error*), null for success.
using HostParallelForFn = void* (*)(void* user_data, int64_t n_tasks, HostTaskFn task, void* task_context);
// Converts a host error (glia_error*) into a thrown glia::Error; set by src/capi/.
using HostErrorRaiser = void (*)(void* host_error);
void set_host_parallel_for(HostParallelForFn fn, void* user_data, void (*free_user_data)(void*), HostErrorRaiser raise);

// Joins the pool's workers and ends a host registration (calling its free_user_data).
// Does nothing inside a parallel region, where joining would deadlock.
void shutdown_threads();

}  // namespace glia
