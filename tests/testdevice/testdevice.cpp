// libglia_testdevice.so: a device backend in host memory, for CI machines
// without a GPU (built with the tests, never installed). It implements the
// backend ABI v2 (include/glia/glia_backend.h) and loads through the same
// dlopen path as libglia_cuda.so, in the PrivateUse1 slot, as "testdevice".
//
// Note [Test device memory]: every allocation is its own mmap()ed mapping,
// PROT_NONE except while one of the device's own kernels or copies runs. So
// host code that reads device memory without a kernel or a copy (a missing
// dispatch, a forgotten copy to the host) crashes a test instead of passing
// silently, as it would on a GPU. Its kernels run the core's CPU kernels
// (services->cpu_kernel) on the unprotected memory, one kernel at a time.
//
// The slack between the end of a buffer and the end of its last page holds
// guard bytes, checked when the buffer is freed: a kernel that writes past the
// end of its output aborts the test.
//
// Note [Test device streams]: work runs at once, in the calling thread, but
// streams and events are real objects with identities, and the device checks
// how the core uses them: every kernel and copy must name a stream of its own
// device (the calling thread's current stream, kept per thread as CUDA's is),
// an event is recorded only on a stream of its device, and a non-blocking copy
// must have pinned memory (host_alloc_pinned, mmap()ed here) on its host side.
// A violation fails the call with GLIA_ERR_INTERNAL. Each stream counts the
// kernels, copies, event records and waits queued on it.
//
// Fault injection and inspection for tests, through exported functions (dlsym):
//   glia_testdevice_fail_alloc_after(n): the n-th allocation from now fails
//     with GLIA_ERR_OUT_OF_MEMORY (n < 0: never);
//   glia_testdevice_set_sticky_error(on): every call fails with
//     GLIA_ERR_DEVICE until cleared, as a CUDA context does after a fault;
//   glia_testdevice_live_allocations(device): allocations not yet freed;
//   glia_testdevice_stream_count(stream, what): a stream's (its native handle,
//     glia_stream_native) "kernels", "copies", "non_blocking_copies",
//     "records", "waits", "id" (0 for a default stream), "device" or
//     "priority"; -1 for an unknown stream or name;
//   glia_testdevice_set_pending(on): queries of streams and recorded events
//     answer "not complete" while on;
//   glia_testdevice_live_events(), glia_testdevice_live_pinned(): events and
//     pinned blocks not yet destroyed or freed.
// GLIA_TESTDEVICE_MINIMAL=1 makes the table a backend built before the fields
// appended to ABI version 2 (struct_size ends before stream_query) and without
// pinned memory, to test the core's fallbacks.
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "glia/glia_backend.h"

namespace {

const glia_backend_services* g_svc = nullptr;
std::mutex g_mu;

struct Alloc {
  size_t len;     // mapped bytes (page multiple)
  size_t nbytes;  // asked for
  int32_t device;
};
std::map<uintptr_t, Alloc> g_allocs;  // by base address
int64_t g_fail_after = -1;
bool g_sticky = false;
constexpr int kMaxDevices = 8;
constexpr unsigned char kGuard = 0xA5;
struct Stats {
  uint64_t in_use = 0, peak = 0, allocations = 0;
} g_stats[kMaxDevices];

// Note [Test device streams].
struct TdStream {
  int32_t device = 0;
  int64_t id = 0;  // 0: the device's default stream
  int32_t priority = 0;
  int64_t kernels = 0, copies = 0, non_blocking_copies = 0, records = 0, waits = 0;
};
struct TdEvent {
  int32_t device = 0;
  uint32_t flags = 0;
  bool recorded = false;
  int64_t ns = 0;  // the steady clock at the last record
};
TdStream g_default_streams[kMaxDevices];
// Created by stream_create and not yet destroyed. Owned here, so that the streams the core never destroys
// (its pools) are freed at exit instead of being reported by LeakSanitizer.
std::map<const TdStream*, std::unique_ptr<TdStream>> g_streams;
int64_t g_next_stream_id = 1;
thread_local TdStream* t_current[kMaxDevices] = {};  // per thread as CUDA's; nullptr: the default stream
std::map<const TdEvent*, std::unique_ptr<TdEvent>> g_events;
bool g_pending = false;
std::map<uintptr_t, size_t> g_pinned;  // pinned blocks: base -> mapped length

size_t page() {
  static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

glia_error* device_error(enum glia_error_code code, const std::string& m) {
  return g_svc->error_new(code, ("testdevice: " + m).c_str());
}

int32_t device_count() {
  static const int32_t n = [] {
    const char* e = std::getenv("GLIA_TESTDEVICE_COUNT");
    int v = e ? std::atoi(e) : 2;
    return v < 0 ? 0 : v > kMaxDevices ? kMaxDevices : v;
  }();
  return n;
}

const char* unavailable_reason() { return device_count() > 0 ? nullptr : "GLIA_TESTDEVICE_COUNT is 0"; }

glia_error* check_device(int32_t d) {
  if (g_sticky) return device_error(GLIA_ERR_DEVICE, "sticky error (injected): the device must be reset");
  if (d < 0 || d >= device_count())
    return device_error(GLIA_ERR_DEVICE, "device index " + std::to_string(d) + " out of range");
  return nullptr;
}

// `s` when it is a stream of this device (any device index), else null.
TdStream* known_stream(void* s) {
  auto* t = static_cast<TdStream*>(s);
  for (TdStream& d : g_default_streams)
    if (t == &d) return t;
  return g_streams.count(t) ? t : nullptr;
}

TdEvent* known_event(void* e) {
  auto* t = static_cast<TdEvent*>(e);
  return g_events.count(t) ? t : nullptr;
}

TdStream* current_locked(int32_t device) {
  return device >= 0 && device < kMaxDevices ? (t_current[device] ? t_current[device] : &g_default_streams[device])
                                             : nullptr;
}

// Whether [p, p + n) lies in one pinned block.
bool is_pinned(const void* p, size_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = g_pinned.upper_bound(a);
  if (it == g_pinned.begin()) return false;
  --it;
  return a + n <= it->first + it->second;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The allocation holding [p, p + n) on `device`, or null.
const std::pair<const uintptr_t, Alloc>* find(const void* p, size_t n, int32_t device) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin()) return nullptr;
  --it;
  if (a + n > it->first + it->second.nbytes && !(n == 0 && a <= it->first + it->second.len)) return nullptr;
  if (it->second.device != device) return nullptr;
  return &*it;
}

void protect(uintptr_t base, size_t len, int prot) { mprotect(reinterpret_cast<void*>(base), len, prot); }

glia_error* alloc(int32_t device, size_t nbytes, void** out) {
  std::lock_guard<std::mutex> lock(g_mu);
  *out = nullptr;
  if (glia_error* e = check_device(device)) return e;
  if (g_fail_after >= 0 && g_fail_after-- == 0)
    return device_error(GLIA_ERR_OUT_OF_MEMORY,
                        "out of memory (injected) allocating " + std::to_string(nbytes) + " bytes");
  const size_t len = (nbytes + 64 + page() - 1) / page() * page();  // at least 64 guard bytes
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return device_error(GLIA_ERR_OUT_OF_MEMORY, "mmap of " + std::to_string(len) + " bytes failed");
  // Guard bytes: the slack between the end of the buffer and the end of its pages, checked on free.
  std::memset(static_cast<char*>(p) + nbytes, kGuard, len - nbytes);
  mprotect(p, len, PROT_NONE);
  g_allocs[reinterpret_cast<uintptr_t>(p)] = Alloc{len, nbytes, device};
  Stats& s = g_stats[device];
  s.in_use += nbytes;
  if (s.in_use > s.peak) s.peak = s.in_use;
  ++s.allocations;
  *out = p;
  return nullptr;
}

void free_(int32_t device, void* ptr, size_t nbytes) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_allocs.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == g_allocs.end()) {
    // A free of memory this device never handed out: a core bug. Crash loudly.
    std::fprintf(stderr, "testdevice: free of unknown pointer %p\n", ptr);
    std::abort();
  }
  // A kernel or copy that wrote past the end of a buffer: a core or kernel bug. Crash loudly.
  mprotect(ptr, it->second.len, PROT_READ);
  const unsigned char* g = static_cast<const unsigned char*>(ptr);
  for (size_t i = it->second.nbytes; i < it->second.len; ++i)
    if (g[i] != kGuard) {
      std::fprintf(stderr, "testdevice: a write past the end of a %zu-byte buffer at %p (guard byte %zu)\n",
                   it->second.nbytes, ptr, i);
      std::abort();
    }
  munmap(ptr, it->second.len);
  if (it->second.device >= 0 && it->second.device < kMaxDevices) g_stats[it->second.device].in_use -= it->second.nbytes;
  g_allocs.erase(it);
}

glia_error* memory_stats(int32_t device, glia_backend_memory_stats* out) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (device < 0 || device >= device_count()) return device_error(GLIA_ERR_DEVICE, "device index out of range");
  out->bytes_in_use = g_stats[device].in_use;
  out->peak_bytes_in_use = g_stats[device].peak;
  out->bytes_cached = 0;
  out->allocations = g_stats[device].allocations;
  return nullptr;
}

void reset_peak(int32_t device) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (device >= 0 && device < kMaxDevices) g_stats[device].peak = g_stats[device].in_use;
}

void empty_cache(int32_t) {}

glia_error* copy(glia_copy_kind kind, int32_t dst_device, void* dst, int32_t src_device, const void* src, size_t nbytes,
                 void* stream, int32_t non_blocking) {
  std::lock_guard<std::mutex> lock(g_mu);
  // Note [Test device streams]: the copy is queued on a stream of the device that runs it.
  const int32_t dev = kind == GLIA_COPY_HOST_TO_DEVICE ? dst_device : src_device;
  if (glia_error* e = check_device(dev)) return e;
  TdStream* st = stream ? known_stream(stream) : current_locked(dev);
  if (!st || st->device != dev)
    return device_error(GLIA_ERR_INTERNAL, "copy: the stream is not a stream of testdevice:" + std::to_string(dev));
  if (non_blocking && kind == GLIA_COPY_HOST_TO_DEVICE && !is_pinned(src, nbytes))
    return device_error(GLIA_ERR_INTERNAL, "copy: a non-blocking copy from host memory that is not pinned");
  if (non_blocking && kind == GLIA_COPY_DEVICE_TO_HOST && !is_pinned(dst, nbytes))
    return device_error(GLIA_ERR_INTERNAL, "copy: a non-blocking copy to host memory that is not pinned");
  const std::pair<const uintptr_t, Alloc>* d = nullptr;
  const std::pair<const uintptr_t, Alloc>* s = nullptr;
  if (kind != GLIA_COPY_DEVICE_TO_HOST) {
    if (glia_error* e = check_device(dst_device)) return e;
    d = find(dst, nbytes, dst_device);
    if (!d)
      return device_error(GLIA_ERR_INTERNAL,
                          "copy: destination is not memory of testdevice:" + std::to_string(dst_device));
  }
  if (kind != GLIA_COPY_HOST_TO_DEVICE) {
    if (glia_error* e = check_device(src_device)) return e;
    s = find(src, nbytes, src_device);
    if (!s)
      return device_error(GLIA_ERR_INTERNAL, "copy: source is not memory of testdevice:" + std::to_string(src_device));
  }
  if (d) protect(d->first, d->second.len, PROT_READ | PROT_WRITE);
  if (s) protect(s->first, s->second.len, PROT_READ | PROT_WRITE);
  std::memmove(dst, src, nbytes);
  if (d) protect(d->first, d->second.len, PROT_NONE);
  if (s) protect(s->first, s->second.len, PROT_NONE);
  ++st->copies;
  if (non_blocking) ++st->non_blocking_copies;
  return nullptr;
}

glia_error* host_alloc_pinned(size_t nbytes, void** out) {
  std::lock_guard<std::mutex> lock(g_mu);
  *out = nullptr;
  const size_t len = (nbytes + page() - 1) / page() * page() + (nbytes == 0 ? page() : 0);
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return device_error(GLIA_ERR_OUT_OF_MEMORY, "pinned mmap of " + std::to_string(len) + " bytes failed");
  g_pinned[reinterpret_cast<uintptr_t>(p)] = len;
  *out = p;
  return nullptr;
}

void host_free_pinned(void* p) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_pinned.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_pinned.end()) {
    std::fprintf(stderr, "testdevice: host_free_pinned of unknown pointer %p\n", p);
    std::abort();
  }
  munmap(p, it->second);
  g_pinned.erase(it);
}

glia_error* synchronize(int32_t device) {
  std::lock_guard<std::mutex> lock(g_mu);
  return check_device(device);
}

void* current_stream(int32_t device) {
  std::lock_guard<std::mutex> lock(g_mu);
  return current_locked(device);
}

glia_error* set_current_stream(int32_t device, void* stream) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (glia_error* e = check_device(device)) return e;
  TdStream* st = known_stream(stream);
  if (!st || st->device != device)
    return device_error(GLIA_ERR_INTERNAL, "set_current_stream: not a stream of testdevice:" + std::to_string(device));
  t_current[device] = st->id == 0 ? nullptr : st;
  return nullptr;
}

glia_error* stream_create_with_priority(int32_t device, int32_t priority, void** out) {
  std::lock_guard<std::mutex> lock(g_mu);
  *out = nullptr;
  if (glia_error* e = check_device(device)) return e;
  auto owned = std::make_unique<TdStream>();
  TdStream* st = owned.get();
  st->device = device;
  st->id = g_next_stream_id++;
  st->priority = priority < -1 ? -1 : priority > 0 ? 0 : priority;  // two priorities, as older GPUs
  g_streams.emplace(st, std::move(owned));
  *out = st;
  return nullptr;
}

glia_error* stream_create(int32_t device, void** out) { return stream_create_with_priority(device, 0, out); }

glia_error* stream_destroy(int32_t device, void* stream) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdStream* st = known_stream(stream);
  if (!st || st->id == 0 || st->device != device)
    return device_error(GLIA_ERR_INTERNAL,
                        "stream_destroy: not a stream created on testdevice:" + std::to_string(device));
  g_streams.erase(st);
  return nullptr;
}

glia_error* stream_query(void* stream, int32_t* out) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdStream* st = known_stream(stream);
  if (!st) return device_error(GLIA_ERR_INTERNAL, "stream_query: unknown stream");
  if (glia_error* e = check_device(st->device)) return e;
  *out = g_pending ? 0 : 1;
  return nullptr;
}

glia_error* stream_synchronize(void* stream) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdStream* st = known_stream(stream);
  if (!st) return device_error(GLIA_ERR_INTERNAL, "stream_synchronize: unknown stream");
  return check_device(st->device);
}

void* stream_native(void* stream) { return stream; }

glia_error* event_create_with_flags(int32_t device, uint32_t flags, void** out) {
  std::lock_guard<std::mutex> lock(g_mu);
  *out = nullptr;
  if (glia_error* e = check_device(device)) return e;
  auto owned = std::make_unique<TdEvent>();
  TdEvent* ev = owned.get();
  ev->device = device;
  ev->flags = flags;
  g_events.emplace(ev, std::move(owned));
  *out = ev;
  return nullptr;
}

glia_error* event_create(int32_t device, void** out) { return event_create_with_flags(device, 0, out); }

glia_error* event_record(void* event, void* stream) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdEvent* ev = known_event(event);
  TdStream* st = known_stream(stream);
  if (!ev || !st) return device_error(GLIA_ERR_INTERNAL, "event_record: unknown event or stream");
  if (ev->device != st->device)
    return device_error(GLIA_ERR_INTERNAL, "event_record: an event of testdevice:" + std::to_string(ev->device) +
                                               " recorded on a stream of testdevice:" + std::to_string(st->device));
  if (glia_error* e = check_device(st->device)) return e;
  ev->recorded = true;
  ev->ns = now_ns();
  ++st->records;
  return nullptr;
}

glia_error* stream_wait_event(void* stream, void* event) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdEvent* ev = known_event(event);
  TdStream* st = known_stream(stream);
  if (!ev || !st) return device_error(GLIA_ERR_INTERNAL, "stream_wait_event: unknown event or stream");
  if (glia_error* e = check_device(st->device)) return e;
  ++st->waits;
  return nullptr;
}

glia_error* event_synchronize(void* event) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdEvent* ev = known_event(event);
  if (!ev) return device_error(GLIA_ERR_INTERNAL, "event_synchronize: unknown event");
  return check_device(ev->device);
}

glia_error* event_query(void* event, int32_t* out) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdEvent* ev = known_event(event);
  if (!ev) return device_error(GLIA_ERR_INTERNAL, "event_query: unknown event");
  if (glia_error* e = check_device(ev->device)) return e;
  *out = g_pending && ev->recorded ? 0 : 1;
  return nullptr;
}

glia_error* event_elapsed_time(void* start, void* end, float* out) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdEvent* a = known_event(start);
  TdEvent* b = known_event(end);
  if (!a || !b) return device_error(GLIA_ERR_INTERNAL, "event_elapsed_time: unknown event");
  if (!(a->flags & GLIA_BACKEND_EVENT_TIMING) || !(b->flags & GLIA_BACKEND_EVENT_TIMING) || !a->recorded ||
      !b->recorded || a->device != b->device)
    return device_error(GLIA_ERR_INTERNAL, "event_elapsed_time: needs two recorded timing events of one device");
  *out = static_cast<float>(static_cast<double>(b->ns - a->ns) / 1e6);
  return nullptr;
}

glia_error* event_destroy(void* event) {
  std::lock_guard<std::mutex> lock(g_mu);
  TdEvent* ev = known_event(event);
  if (!ev) return device_error(GLIA_ERR_INTERNAL, "event_destroy: unknown event");
  g_events.erase(ev);
  return nullptr;
}

glia_error* manual_seed(int32_t, uint64_t) { return nullptr; }

size_t dtype_size(glia_dtype d) {
  static const size_t kSize[] = {4, 8, 2, 2, 8, 4, 1, 1, 1, 2};  // glia_dtype order
  return d >= 0 && d <= GLIA_INT16 ? kSize[d] : 0;
}

size_t span_bytes(const glia_kernel_tensor& t) {
  size_t extent = 1;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.sizes[i] == 0) return 0;
    extent += static_cast<size_t>((t.sizes[i] - 1) * t.strides[i]);
  }
  return extent * dtype_size(t.dtype);
}

// Every kernel: the core's CPU kernel on the unprotected memory of its arguments.
glia_error* run_kernel(const glia_kernel_call* call) {
  std::lock_guard<std::mutex> lock(g_mu);
  const char* name = g_svc->kernel_name(call->kernel);
  std::set<uintptr_t> touched;
  const int32_t n = call->n_inputs + call->n_outputs;
  int32_t device = -1;
  for (int32_t i = 0; i < n; ++i) {
    const glia_kernel_tensor& t = i < call->n_inputs ? call->inputs[i] : call->outputs[i - call->n_inputs];
    if (device < 0) device = t.device_index;
    if (t.device_index != device)
      return device_error(GLIA_ERR_INTERNAL, std::string(name ? name : "?") +
                                                 ": tensors on testdevice:" + std::to_string(device) +
                                                 " and testdevice:" + std::to_string(t.device_index));
    if (glia_error* e = check_device(t.device_index)) return e;
    const size_t bytes = span_bytes(t);
    if (!t.data || bytes == 0) continue;
    auto a = find(t.data, bytes, t.device_index);
    if (!a)
      return device_error(GLIA_ERR_INTERNAL,
                          std::string(name ? name : "?") + ": argument " + std::to_string(i) +
                              " is not inside memory of testdevice:" + std::to_string(t.device_index));
    touched.insert(a->first);
  }
  if (device >= 0) {
    if (glia_error* e = check_device(device)) return e;
    // Note [Test device streams]: a kernel runs on a stream of its own device.
    TdStream* st = known_stream(call->stream);
    if (!st || st->device != device)
      return device_error(GLIA_ERR_INTERNAL,
                          std::string(name ? name : "?") +
                              ": the kernel's stream is not a stream of testdevice:" + std::to_string(device));
    ++st->kernels;
  }
  for (uintptr_t b : touched) protect(b, g_allocs[b].len, PROT_READ | PROT_WRITE);
  glia_error* e = g_svc->cpu_kernel(call);
  for (uintptr_t b : touched) protect(b, g_allocs[b].len, PROT_NONE);
  return e;
}

// Every kernel of the core, except those named in GLIA_TESTDEVICE_WITHOUT_KERNELS (comma-separated),
// so that a test can see how the core handles a backend that lacks a kernel.
glia_kernel_fn kernel(uint32_t id) {
  const char* name = g_svc->kernel_name(id);
  if (!name) return nullptr;
  if (const char* skip = std::getenv("GLIA_TESTDEVICE_WITHOUT_KERNELS")) {
    const std::string list = std::string(",") + skip + ",";
    if (list.find(std::string(",") + name + ",") != std::string::npos) return nullptr;
  }
  return &run_kernel;
}

// Note [Test device collectives]: glia_backend.collectives for CI machines without a GPU, so the core's
// device process group (src/distributed/process_group_device.cpp) runs for real: the ranks of a
// communicator are threads of this process (each with its own process group, store and device). A
// collective is a rendezvous: each rank posts its buffers under the collective's sequence number, the
// last to arrive computes the result for everyone (with every buffer unprotected, under g_mu) and wakes
// the others. A rank that never arrives makes the others fail after the communicator's timeout;
// comm_destroy with abort = 1 marks the communicator failed, which the others' comm_error and waits
// report. float16/bfloat16 are refused (the core's NCCL path covers them on a GPU).
struct TdCommShared {
  std::mutex mu;
  std::condition_variable cv;
  int32_t size = 0;
  int32_t joined = 0;
  std::string failed;  // set when a rank aborted
  struct Slot {
    const void* send = nullptr;
    void* recv = nullptr;
  };
  struct Op {
    std::vector<Slot> slots;
    int32_t arrived = 0;
    bool done = false;
    std::string error;
  };
  std::map<int64_t, Op> ops;  // by sequence number
};
struct TdComm {
  std::shared_ptr<TdCommShared> shared;
  int32_t rank = 0, device = 0;
  int64_t timeout_ms = 0;
  int64_t seq = 0;
};
std::mutex g_comm_mu;
std::map<std::string, std::weak_ptr<TdCommShared>> g_comms;  // by unique id
uint64_t g_next_comm_id = 1;
constexpr size_t kCommIdSize = 16;

glia_error* comm_unique_id(void* out) {
  std::lock_guard<std::mutex> lock(g_comm_mu);
  std::memset(out, 0, kCommIdSize);
  const uint64_t v = g_next_comm_id++;
  const uint64_t pid = static_cast<uint64_t>(getpid());
  std::memcpy(out, &v, sizeof v);
  std::memcpy(static_cast<char*>(out) + 8, &pid, sizeof pid);
  return nullptr;
}

glia_error* comm_init(const void* id, int32_t size, int32_t rank, int32_t device, int64_t timeout_ms, void** out) {
  if (glia_error* e = check_device(device)) return e;
  if (size < 1 || rank < 0 || rank >= size) return device_error(GLIA_ERR_INVALID_ARGUMENT, "comm_init: bad rank/size");
  const std::string key(static_cast<const char*>(id), kCommIdSize);
  std::shared_ptr<TdCommShared> sh;
  {
    std::lock_guard<std::mutex> lock(g_comm_mu);
    sh = g_comms[key].lock();
    if (!sh) {
      sh = std::make_shared<TdCommShared>();
      sh->size = size;
      g_comms[key] = sh;
    }
  }
  std::unique_lock<std::mutex> lock(sh->mu);
  if (sh->size != size)
    return device_error(GLIA_ERR_INVALID_ARGUMENT, "comm_init: rank " + std::to_string(rank) + " gave size " +
                                                       std::to_string(size) + ", another rank " +
                                                       std::to_string(sh->size));
  ++sh->joined;
  sh->cv.notify_all();
  if (!sh->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return sh->joined >= size; })) {
    const int32_t joined = sh->joined--;
    return device_error(GLIA_ERR_IO, "comm_init timed out after " + std::to_string(timeout_ms) + " ms: " +
                                         std::to_string(joined) + " of " + std::to_string(size) + " ranks joined");
  }
  *out = new TdComm{sh, rank, device, timeout_ms, 0};
  return nullptr;
}

void comm_destroy(void* comm, int32_t abort) {
  auto* c = static_cast<TdComm*>(comm);
  if (!c) return;
  if (abort) {
    std::lock_guard<std::mutex> lock(c->shared->mu);
    if (c->shared->failed.empty()) c->shared->failed = "rank " + std::to_string(c->rank) + " aborted the communicator";
    c->shared->cv.notify_all();
  }
  delete c;
}

glia_error* comm_error(void* comm) {
  auto* c = static_cast<TdComm*>(comm);
  std::lock_guard<std::mutex> lock(c->shared->mu);
  return c->shared->failed.empty() ? nullptr : device_error(GLIA_ERR_IO, c->shared->failed);
}

template <class T>
void reduce_into(T* acc, const T* v, size_t n, int32_t op) {
  for (size_t i = 0; i < n; ++i) {
    switch (op) {
      case 0:
      case 1:
        acc[i] = static_cast<T>(acc[i] + v[i]);
        break;
      case 2:
        acc[i] = static_cast<T>(acc[i] * v[i]);
        break;
      case 3:
        acc[i] = v[i] < acc[i] ? v[i] : acc[i];
        break;
      default:
        acc[i] = v[i] > acc[i] ? v[i] : acc[i];
        break;
    }
  }
}

template <class T>
void divide(T* acc, size_t n, int32_t by) {
  for (size_t i = 0; i < n; ++i) acc[i] = static_cast<T>(acc[i] / static_cast<T>(by));
}

// op over `srcs` (each n elements) into dst (which may be one of them); "" or why not.
std::string reduce_buffers(std::vector<const void*> srcs, void* dst, size_t n, glia_dtype d, int32_t op) {
  std::vector<char> acc(n * dtype_size(d));
  std::memcpy(acc.data(), srcs[0], acc.size());
  auto run = [&](auto zero) {
    using T = decltype(zero);
    for (size_t r = 1; r < srcs.size(); ++r)
      reduce_into(reinterpret_cast<T*>(acc.data()), static_cast<const T*>(srcs[r]), n, op);
    if (op == 1) divide(reinterpret_cast<T*>(acc.data()), n, static_cast<int32_t>(srcs.size()));
  };
  switch (d) {
    case GLIA_FLOAT32:
      run(float{});
      break;
    case GLIA_FLOAT64:
      run(double{});
      break;
    case GLIA_INT64:
      run(int64_t{});
      break;
    case GLIA_INT32:
      run(int32_t{});
      break;
    case GLIA_UINT8:
      run(uint8_t{});
      break;
    case GLIA_INT8:
      run(int8_t{});
      break;
    default:
      return "dtype " + std::to_string(d) +
             " is not supported by the test device (float32, float64, int64, int32, "
             "uint8, int8)";
  }
  std::memcpy(dst, acc.data(), acc.size());
  return "";
}

// Unprotects the allocations behind `ptrs` (each `bytes` long, on any device: ranks may sit on different ones)
// while `f` runs (under g_mu); "" or why not.
template <class F>
std::string with_memory(const std::vector<std::pair<const void*, size_t>>& ptrs, F f) {
  std::lock_guard<std::mutex> lock(g_mu);
  std::set<uintptr_t> touched;
  for (const auto& [p, bytes] : ptrs) {
    if (!p || bytes == 0) continue;
    const std::pair<const uintptr_t, Alloc>* a = nullptr;
    for (int32_t d = 0; d < device_count() && !a; ++d) a = find(p, bytes, d);
    if (!a) return "a buffer is not test device memory";
    touched.insert(a->first);
  }
  for (uintptr_t b : touched) protect(b, g_allocs[b].len, PROT_READ | PROT_WRITE);
  std::string e = f();
  for (uintptr_t b : touched) protect(b, g_allocs[b].len, PROT_NONE);
  return e;
}

// One collective: post this rank's buffers (send_bytes and recv_bytes long); the last rank runs
// `compute(slots)` for everyone, with every rank's buffers unprotected.
template <class F>
glia_error* collective(void* comm, const char* what, const void* send, size_t send_bytes, void* recv, size_t recv_bytes,
                       void* stream, F compute) {
  auto* c = static_cast<TdComm*>(comm);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    TdStream* st = known_stream(stream);
    if (!st || st->device != c->device)
      return device_error(GLIA_ERR_INTERNAL,
                          std::string("collectives: ") + what +
                              ": the stream is not a stream of testdevice:" + std::to_string(c->device));
    ++st->kernels;
  }
  TdCommShared& sh = *c->shared;
  std::unique_lock<std::mutex> lock(sh.mu);
  if (!sh.failed.empty()) return device_error(GLIA_ERR_IO, sh.failed);
  const int64_t seq = c->seq++;
  TdCommShared::Op& op = sh.ops[seq];
  if (op.slots.empty()) op.slots.resize(static_cast<size_t>(sh.size));
  op.slots[static_cast<size_t>(c->rank)] = {send, recv};
  if (++op.arrived == sh.size) {
    std::vector<std::pair<const void*, size_t>> ptrs;
    for (const auto& sl : op.slots) {
      ptrs.push_back({sl.send, send_bytes});
      ptrs.push_back({sl.recv, recv_bytes});
    }
    op.error = with_memory(ptrs, [&] { return compute(op.slots); });
    op.done = true;
    sh.cv.notify_all();
  } else if (!sh.cv.wait_for(lock, std::chrono::milliseconds(c->timeout_ms),
                             [&] { return op.done || !sh.failed.empty(); })) {
    std::string missing;
    for (size_t r = 0; r < op.slots.size(); ++r)
      if (!op.slots[r].send && !op.slots[r].recv) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    return device_error(GLIA_ERR_IO, std::string("collectives: ") + what + " timed out after " +
                                         std::to_string(c->timeout_ms) + " ms waiting for rank(s) " + missing);
  }
  if (!op.done) return device_error(GLIA_ERR_IO, sh.failed);
  const std::string err = op.error;
  if (--op.arrived == 0) sh.ops.erase(seq);
  if (!err.empty()) return device_error(GLIA_ERR_UNSUPPORTED, std::string("collectives: ") + what + ": " + err);
  return nullptr;
}

// op over every rank's send, "" or why not.
std::string reduce_sends(const std::vector<TdCommShared::Slot>& slots, void* dst, size_t n, glia_dtype d, int32_t op) {
  std::vector<const void*> srcs;
  for (const auto& sl : slots) srcs.push_back(sl.send);
  return reduce_buffers(srcs, dst, n, d, op);
}

glia_error* coll_all_reduce(void* comm, const void* send, void* recv, size_t n, glia_dtype d, int32_t op,
                            void* stream) {
  const size_t bytes = n * dtype_size(d);
  return collective(comm, "all_reduce", send, bytes, recv, bytes, stream, [&](std::vector<TdCommShared::Slot>& slots) {
    std::vector<char> result(bytes);
    if (std::string e = reduce_sends(slots, result.data(), n, d, op); !e.empty()) return e;
    for (auto& sl : slots) std::memcpy(sl.recv, result.data(), bytes);
    return std::string();
  });
}

glia_error* coll_broadcast(void* comm, const void* send, void* recv, size_t n, glia_dtype d, int32_t root,
                           void* stream) {
  const size_t bytes = n * dtype_size(d);
  return collective(comm, "broadcast", send, bytes, recv, bytes, stream, [&](std::vector<TdCommShared::Slot>& slots) {
    std::vector<char> v(bytes);
    std::memcpy(v.data(), slots[static_cast<size_t>(root)].send, bytes);
    for (auto& sl : slots) std::memcpy(sl.recv, v.data(), bytes);
    return std::string();
  });
}

glia_error* coll_reduce(void* comm, const void* send, void* recv, size_t n, glia_dtype d, int32_t op, int32_t root,
                        void* stream) {
  const size_t bytes = n * dtype_size(d);
  return collective(comm, "reduce", send, bytes, recv, bytes, stream, [&](std::vector<TdCommShared::Slot>& slots) {
    return reduce_sends(slots, slots[static_cast<size_t>(root)].recv, n, d, op);
  });
}

glia_error* coll_all_gather(void* comm, const void* send, void* recv, size_t n, glia_dtype d, void* stream) {
  const size_t bytes = n * dtype_size(d);
  const size_t all_bytes = bytes * static_cast<size_t>(static_cast<TdComm*>(comm)->shared->size);
  return collective(comm, "all_gather", send, bytes, recv, all_bytes, stream,
                    [&](std::vector<TdCommShared::Slot>& slots) {
                      std::vector<char> all(bytes * slots.size());
                      for (size_t r = 0; r < slots.size(); ++r)
                        std::memcpy(all.data() + r * bytes, slots[r].send, bytes);
                      for (auto& sl : slots) std::memcpy(sl.recv, all.data(), all.size());
                      return std::string();
                    });
}

glia_error* coll_reduce_scatter(void* comm, const void* send, void* recv, size_t n, glia_dtype d, int32_t op,
                                void* stream) {
  const size_t bytes = n * dtype_size(d);
  const size_t all_bytes = bytes * static_cast<size_t>(static_cast<TdComm*>(comm)->shared->size);
  return collective(comm, "reduce_scatter", send, all_bytes, recv, bytes, stream,
                    [&](std::vector<TdCommShared::Slot>& slots) {
                      for (size_t r = 0; r < slots.size(); ++r) {
                        std::vector<const void*> srcs;
                        for (const auto& sl : slots) srcs.push_back(static_cast<const char*>(sl.send) + r * bytes);
                        if (std::string e = reduce_buffers(srcs, slots[r].recv, n, d, op); !e.empty()) return e;
                      }
                      return std::string();
                    });
}

const glia_backend_collectives g_collectives{sizeof(glia_backend_collectives),
                                             "TestDevice",
                                             kCommIdSize,
                                             &comm_unique_id,
                                             &comm_init,
                                             &comm_destroy,
                                             &comm_error,
                                             &coll_all_reduce,
                                             &coll_broadcast,
                                             &coll_reduce,
                                             &coll_all_gather,
                                             &coll_reduce_scatter};

glia_backend g_table{sizeof(glia_backend),
                     GLIA_BACKEND_ABI_VERSION,
                     "testdevice",
                     GLIA_PRIVATEUSE1,
                     &device_count,
                     &unavailable_reason,
                     &alloc,
                     &free_,
                     &memory_stats,
                     &reset_peak,
                     &empty_cache,
                     &host_alloc_pinned,
                     &host_free_pinned,
                     &copy,
                     &synchronize,
                     &current_stream,
                     &set_current_stream,
                     &stream_create,
                     &stream_destroy,
                     &event_create,
                     &event_record,
                     &stream_wait_event,
                     &event_synchronize,
                     &event_destroy,
                     &manual_seed,
                     &kernel,
                     &stream_query,
                     &stream_synchronize,
                     &stream_create_with_priority,
                     &stream_native,
                     &event_query,
                     &event_create_with_flags,
                     &event_elapsed_time,
                     &g_collectives};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) const glia_backend* glia_backend_v2(const glia_backend_services* services) {
  if (!services || services->struct_size < sizeof(glia_backend_services) ||
      services->abi_version != GLIA_BACKEND_ABI_VERSION)
    return nullptr;
  g_svc = services;
  for (int32_t d = 0; d < kMaxDevices; ++d) g_default_streams[d].device = d;
  if (const char* m = std::getenv("GLIA_TESTDEVICE_MINIMAL"); m && std::strcmp(m, "1") == 0) {
    g_table.struct_size = offsetof(glia_backend, stream_query);
    g_table.host_alloc_pinned = nullptr;
    g_table.host_free_pinned = nullptr;
  }
  return &g_table;
}

__attribute__((visibility("default"))) void glia_testdevice_fail_alloc_after(int64_t n) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_fail_after = n;
}

__attribute__((visibility("default"))) void glia_testdevice_set_sticky_error(int on) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_sticky = on != 0;
}

__attribute__((visibility("default"))) int64_t glia_testdevice_live_allocations(int32_t device) {
  std::lock_guard<std::mutex> lock(g_mu);
  int64_t n = 0;
  for (const auto& [base, a] : g_allocs) n += a.device == device;
  return n;
}

__attribute__((visibility("default"))) int64_t glia_testdevice_stream_count(const void* stream, const char* what) {
  std::lock_guard<std::mutex> lock(g_mu);
  const TdStream* st = known_stream(const_cast<void*>(stream));
  if (!st || !what) return -1;
  const std::string w = what;
  if (w == "kernels") return st->kernels;
  if (w == "copies") return st->copies;
  if (w == "non_blocking_copies") return st->non_blocking_copies;
  if (w == "records") return st->records;
  if (w == "waits") return st->waits;
  if (w == "id") return st->id;
  if (w == "device") return st->device;
  if (w == "priority") return st->priority;
  return -1;
}

__attribute__((visibility("default"))) void glia_testdevice_set_pending(int on) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_pending = on != 0;
}

__attribute__((visibility("default"))) int64_t glia_testdevice_live_events(void) {
  std::lock_guard<std::mutex> lock(g_mu);
  return static_cast<int64_t>(g_events.size());
}

__attribute__((visibility("default"))) int64_t glia_testdevice_live_pinned(void) {
  std::lock_guard<std::mutex> lock(g_mu);
  return static_cast<int64_t>(g_pinned.size());
}

}  // extern "C"
