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
// Fault injection for tests, through exported functions (dlsym):
//   glia_testdevice_fail_alloc_after(n): the n-th allocation from now fails
//     with GLIA_ERR_OUT_OF_MEMORY (n < 0: never);
//   glia_testdevice_set_sticky_error(on): every call fails with
//     GLIA_ERR_DEVICE until cleared, as a CUDA context does after a fault;
//   glia_testdevice_live_allocations(device): allocations not yet freed.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

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
int g_stream_tokens[kMaxDevices];  // current_stream(d) = &g_stream_tokens[d]

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
                 void*, int32_t) {
  std::lock_guard<std::mutex> lock(g_mu);
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
  return nullptr;
}

glia_error* synchronize(int32_t device) {
  std::lock_guard<std::mutex> lock(g_mu);
  return check_device(device);
}

void* current_stream(int32_t device) {
  return device >= 0 && device < kMaxDevices ? &g_stream_tokens[device] : nullptr;
}
glia_error* set_current_stream(int32_t, void*) { return nullptr; }
glia_error* stream_create(int32_t device, void** out) {
  *out = current_stream(device);
  return nullptr;
}
glia_error* stream_destroy(int32_t, void*) { return nullptr; }
glia_error* event_create(int32_t device, void** out) {
  *out = current_stream(device);
  return nullptr;
}
glia_error* event_record(void*, void*) { return nullptr; }
glia_error* stream_wait_event(void*, void*) { return nullptr; }
glia_error* event_synchronize(void*) { return nullptr; }
glia_error* event_destroy(void*) { return nullptr; }
glia_error* manual_seed(int32_t, uint64_t) { return nullptr; }

size_t span_bytes(const glia_kernel_tensor& t) {
  size_t extent = 1;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.sizes[i] == 0) return 0;
    extent += static_cast<size_t>((t.sizes[i] - 1) * t.strides[i]);
  }
  static const size_t kSize[] = {4, 8, 2, 2, 8, 4, 1, 1};  // glia_dtype order
  return t.dtype >= 0 && t.dtype <= GLIA_BOOL ? extent * kSize[t.dtype] : 0;
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
  if (device >= 0)
    if (glia_error* e = check_device(device)) return e;
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

const glia_backend kTable{sizeof(glia_backend),
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
                          nullptr,
                          nullptr,
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
                          &kernel};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) const glia_backend* glia_backend_v2(const glia_backend_services* services) {
  if (!services || services->struct_size < sizeof(glia_backend_services) ||
      services->abi_version != GLIA_BACKEND_ABI_VERSION)
    return nullptr;
  g_svc = services;
  return &kTable;
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

}  // extern "C"
