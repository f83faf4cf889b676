// Entry point of libglia_cuda.so: the backend table of the backend ABI v2
// (include/glia/glia_backend.h) over the CUDA runtime.
//
// Today: devices, memory (plain cudaMalloc, no caching yet), pinned host
// memory, copies, streams (with priorities) and events (with timing). The kernels, the caching allocator, cuBLAS and
// cuDNN arrive with the CUDA-backend issue; until then kernel() returns NULL for every id, so any op on a CUDA tensor
// other than a copy is a GLIA_ERR_UNSUPPORTED naming the op, and tensors can move to a GPU and back.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <new>
#include <string>

#include "glia/glia_backend.h"

namespace {

const glia_backend_services* g_svc = nullptr;
std::string g_reason;  // why no device is usable (set by device_count)

glia_error* cuda_error(cudaError_t st, const char* call, const std::string& detail) {
  cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  std::string m = std::string("cuda: ") + call + (detail.empty() ? "" : " (" + detail + ")") +
                  " failed: " + cudaGetErrorString(st) + " (" + cudaGetErrorName(st) + ")";
  const auto code = st == cudaErrorMemoryAllocation ? GLIA_ERR_OUT_OF_MEMORY : GLIA_ERR_DEVICE;
  return g_svc->error_new(code, m.c_str());
}

#define GLIA_CUDA_TRY(expr, detail)                                \
  do {                                                             \
    cudaError_t st_ = (expr);                                      \
    if (st_ != cudaSuccess) return cuda_error(st_, #expr, detail); \
  } while (0)

int32_t device_count() {
  static const int32_t n = [] {
    int c = 0;
    cudaError_t st = cudaGetDeviceCount(&c);
    if (st != cudaSuccess) {
      int rt = 0;
      cudaRuntimeGetVersion(&rt);
      const std::string runtime = "CUDA runtime " + std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
      // The runtime reports a missing driver as an insufficient one: tell them apart.
      void* drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
      if (!drv) drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (st == cudaErrorNoDevice)
        g_reason = "no CUDA device";
      else if (!drv)
        g_reason = "no CUDA driver (libcuda.so.1 cannot be loaded)";
      else if (st == cudaErrorInsufficientDriver)
        g_reason = "the CUDA driver is older than the " + runtime;
      else
        g_reason = std::string("the CUDA driver fails: ") + cudaGetErrorString(st) + " (" + cudaGetErrorName(st) + ")";
      if (drv) dlclose(drv);
      cudaGetLastError();
      return 0;
    }
    if (c == 0) g_reason = "no CUDA device";
    return static_cast<int32_t>(c);
  }();
  return n;
}

const char* unavailable_reason() { return device_count() > 0 ? nullptr : g_reason.c_str(); }

struct Stats {
  std::atomic<uint64_t> in_use{0}, peak{0}, allocations{0};
};
Stats g_stats[64];

glia_error* alloc(int32_t device, size_t nbytes, void** out) {
  *out = nullptr;
  if (device < 0 || device >= 64) return g_svc->error_new(GLIA_ERR_DEVICE, "cuda: device index out of range");
  GLIA_CUDA_TRY(cudaSetDevice(device), "device " + std::to_string(device));
  GLIA_CUDA_TRY(cudaMalloc(out, nbytes ? nbytes : 1),
                std::to_string(nbytes) + " bytes on device " + std::to_string(device));
  Stats& s = g_stats[device];
  const uint64_t now = s.in_use += nbytes;
  uint64_t peak = s.peak.load();
  while (now > peak && !s.peak.compare_exchange_weak(peak, now)) {
  }
  ++s.allocations;
  return nullptr;
}

void free_(int32_t device, void* ptr, size_t nbytes) {
  if (!ptr) return;
  cudaSetDevice(device);
  cudaFree(ptr);
  if (device >= 0 && device < 64) g_stats[device].in_use -= nbytes;
}

glia_error* memory_stats(int32_t device, glia_backend_memory_stats* out) {
  if (device < 0 || device >= 64) return g_svc->error_new(GLIA_ERR_DEVICE, "cuda: device index out of range");
  out->bytes_in_use = g_stats[device].in_use;
  out->peak_bytes_in_use = g_stats[device].peak;
  out->bytes_cached = 0;
  out->allocations = g_stats[device].allocations;
  return nullptr;
}

void reset_peak(int32_t device) {
  if (device >= 0 && device < 64) g_stats[device].peak = g_stats[device].in_use.load();
}

void empty_cache(int32_t) {}

glia_error* host_alloc_pinned(size_t nbytes, void** out) {
  GLIA_CUDA_TRY(cudaMallocHost(out, nbytes ? nbytes : 1), std::to_string(nbytes) + " bytes");
  return nullptr;
}
void host_free_pinned(void* p) { cudaFreeHost(p); }

// Streams and events are the backend's own handles, which know their device: CUDA's legacy default
// stream is 0 on every device, so a bare cudaStream_t could not say which device's default stream it
// is (event_record and stream_wait_event take no device). glia_backend.stream_native unwraps them.
struct CudaStream {
  cudaStream_t stream;  // nullptr: the legacy default stream of `device`
  int32_t device;
};
struct CudaEvent {
  cudaEvent_t event;
  int32_t device;
};

CudaStream g_default_streams[64] = {};       // the default stream of each device (device set by the entry point)
thread_local CudaStream* t_stream[64] = {};  // the current stream per device (nullptr: the default stream)

CudaStream* stream_of(void* stream, int32_t device) {
  if (stream) return static_cast<CudaStream*>(stream);
  return t_stream[device] ? t_stream[device] : &g_default_streams[device];
}

void* current_stream(int32_t device) { return device >= 0 && device < 64 ? stream_of(nullptr, device) : nullptr; }

glia_error* set_current_stream(int32_t device, void* stream) {
  if (device < 0 || device >= 64) return g_svc->error_new(GLIA_ERR_DEVICE, "cuda: device index out of range");
  auto* s = static_cast<CudaStream*>(stream);
  t_stream[device] = s == &g_default_streams[device] ? nullptr : s;
  return nullptr;
}

glia_error* copy(glia_copy_kind kind, int32_t dst_device, void* dst, int32_t src_device, const void* src, size_t nbytes,
                 void* stream, int32_t non_blocking) {
  const int32_t dev = kind == GLIA_COPY_HOST_TO_DEVICE ? dst_device : src_device;
  if (dev < 0 || dev >= 64) return g_svc->error_new(GLIA_ERR_DEVICE, "cuda: device index out of range");
  GLIA_CUDA_TRY(cudaSetDevice(dev), "device " + std::to_string(dev));
  cudaStream_t s = stream_of(stream, dev)->stream;
  const cudaMemcpyKind k = kind == GLIA_COPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
                           : kind == GLIA_COPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                                              : cudaMemcpyDeviceToDevice;
  if (kind == GLIA_COPY_DEVICE_TO_DEVICE && dst_device != src_device) {
    GLIA_CUDA_TRY(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, nbytes, s), std::to_string(nbytes) + " bytes");
  } else {
    GLIA_CUDA_TRY(cudaMemcpyAsync(dst, src, nbytes, k, s), std::to_string(nbytes) + " bytes");
  }
  if (!non_blocking) GLIA_CUDA_TRY(cudaStreamSynchronize(s), "after a copy");
  return nullptr;
}

glia_error* synchronize(int32_t device) {
  GLIA_CUDA_TRY(cudaSetDevice(device), "device " + std::to_string(device));
  GLIA_CUDA_TRY(cudaDeviceSynchronize(), "device " + std::to_string(device));
  return nullptr;
}

glia_error* stream_create_with_priority(int32_t device, int32_t priority, void** out) {
  *out = nullptr;
  GLIA_CUDA_TRY(cudaSetDevice(device), "device " + std::to_string(device));
  int least = 0, greatest = 0;
  GLIA_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest), "device " + std::to_string(device));
  const int p = priority > least ? least : priority < greatest ? greatest : priority;
  cudaStream_t s = nullptr;
  // Non-blocking: no implicit ordering with the legacy default stream (torch's pool streams).
  GLIA_CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, p), "device " + std::to_string(device));
  auto* w = new (std::nothrow) CudaStream{s, device};
  if (!w) {
    cudaStreamDestroy(s);
    return g_svc->error_new(GLIA_ERR_OUT_OF_MEMORY, "cuda: out of memory");
  }
  *out = w;
  return nullptr;
}
glia_error* stream_create(int32_t device, void** out) { return stream_create_with_priority(device, 0, out); }
glia_error* stream_destroy(int32_t, void* stream) {
  auto* w = static_cast<CudaStream*>(stream);
  if (!w || !w->stream) return nullptr;  // a default stream is never destroyed
  GLIA_CUDA_TRY(cudaStreamDestroy(w->stream), "");
  delete w;
  return nullptr;
}
glia_error* stream_query(void* stream, int32_t* out) {
  auto* w = static_cast<CudaStream*>(stream);
  GLIA_CUDA_TRY(cudaSetDevice(w->device), "device " + std::to_string(w->device));
  const cudaError_t st = cudaStreamQuery(w->stream);
  if (st == cudaErrorNotReady) {
    cudaGetLastError();
    *out = 0;
    return nullptr;
  }
  GLIA_CUDA_TRY(st, "cudaStreamQuery");
  *out = 1;
  return nullptr;
}
glia_error* stream_synchronize(void* stream) {
  auto* w = static_cast<CudaStream*>(stream);
  GLIA_CUDA_TRY(cudaSetDevice(w->device), "device " + std::to_string(w->device));
  GLIA_CUDA_TRY(cudaStreamSynchronize(w->stream), "");
  return nullptr;
}
void* stream_native(void* stream) { return static_cast<CudaStream*>(stream)->stream; }

glia_error* event_create_with_flags(int32_t device, uint32_t flags, void** out) {
  *out = nullptr;
  GLIA_CUDA_TRY(cudaSetDevice(device), "device " + std::to_string(device));
  unsigned int f = (flags & GLIA_BACKEND_EVENT_TIMING) ? cudaEventDefault : cudaEventDisableTiming;
  if (flags & GLIA_BACKEND_EVENT_BLOCKING) f |= cudaEventBlockingSync;
  cudaEvent_t e = nullptr;
  GLIA_CUDA_TRY(cudaEventCreateWithFlags(&e, f), "");
  auto* w = new (std::nothrow) CudaEvent{e, device};
  if (!w) {
    cudaEventDestroy(e);
    return g_svc->error_new(GLIA_ERR_OUT_OF_MEMORY, "cuda: out of memory");
  }
  *out = w;
  return nullptr;
}
glia_error* event_create(int32_t device, void** out) { return event_create_with_flags(device, 0, out); }
glia_error* event_record(void* event, void* stream) {
  auto* e = static_cast<CudaEvent*>(event);
  GLIA_CUDA_TRY(cudaSetDevice(e->device), "device " + std::to_string(e->device));
  GLIA_CUDA_TRY(cudaEventRecord(e->event, static_cast<CudaStream*>(stream)->stream), "");
  return nullptr;
}
glia_error* stream_wait_event(void* stream, void* event) {
  auto* w = static_cast<CudaStream*>(stream);
  GLIA_CUDA_TRY(cudaSetDevice(w->device), "device " + std::to_string(w->device));
  GLIA_CUDA_TRY(cudaStreamWaitEvent(w->stream, static_cast<CudaEvent*>(event)->event, 0), "");
  return nullptr;
}
glia_error* event_synchronize(void* event) {
  GLIA_CUDA_TRY(cudaEventSynchronize(static_cast<CudaEvent*>(event)->event), "");
  return nullptr;
}
glia_error* event_query(void* event, int32_t* out) {
  const cudaError_t st = cudaEventQuery(static_cast<CudaEvent*>(event)->event);
  if (st == cudaErrorNotReady) {
    cudaGetLastError();
    *out = 0;
    return nullptr;
  }
  GLIA_CUDA_TRY(st, "cudaEventQuery");
  *out = 1;
  return nullptr;
}
glia_error* event_elapsed_time(void* start, void* end, float* out) {
  GLIA_CUDA_TRY(cudaEventElapsedTime(out, static_cast<CudaEvent*>(start)->event, static_cast<CudaEvent*>(end)->event),
                "");
  return nullptr;
}
glia_error* event_destroy(void* event) {
  auto* e = static_cast<CudaEvent*>(event);
  const cudaError_t st = cudaEventDestroy(e->event);
  delete e;
  GLIA_CUDA_TRY(st, "");
  return nullptr;
}

uint64_t g_seed = 0;
glia_error* manual_seed(int32_t, uint64_t seed) {
  g_seed = seed;
  return nullptr;
}

glia_kernel_fn kernel(uint32_t) { return nullptr; }  // kernels: the CUDA-backend issue

const glia_backend kTable{sizeof(glia_backend),
                          GLIA_BACKEND_ABI_VERSION,
                          "cuda",
                          GLIA_CUDA,
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
                          &event_elapsed_time};

}  // namespace

extern "C" __attribute__((visibility("default"))) const glia_backend* glia_backend_v2(
    const glia_backend_services* services) {
  if (!services || services->struct_size < sizeof(glia_backend_services) ||
      services->abi_version != GLIA_BACKEND_ABI_VERSION)
    return nullptr;
  g_svc = services;
  for (int32_t d = 0; d < 64; ++d) g_default_streams[d].device = d;
  return &kTable;
}
