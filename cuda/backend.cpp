// Entry point of libglia_cuda.so: the backend table of the backend ABI v2
// (include/glia/glia_backend.h) over the CUDA runtime.
//
// Devices, memory (the caching allocator of caching_allocator.h, Note [Caching allocator]), pinned host
// memory, copies, streams (with priorities) and events (with timing), and the kernels of the first tranche
// (docs/cuda.md lists them): elementwise (elementwise.cu, copy.cu), reductions (reduce.cu), softmax
// (softmax.cu) and the matrix products through cuBLAS (blas.cpp). kernel() returns NULL for the other ids, so such an
// op on a CUDA tensor is a GLIA_ERR_UNSUPPORTED naming the op and the device.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "caching_allocator.h"
#include "common.h"
#include "cudnn_check.h"
#include "glia/glia_backend.h"
#include "special_kernels.h"

namespace {

const glia_backend_services* g_svc = nullptr;
std::string g_reason;  // why no device is usable (set by device_count)

}  // namespace

namespace glia::cuda {
const glia_backend_services& services() { return *g_svc; }
uint32_t math_flags() {
  if (g_svc->struct_size >= offsetof(glia_backend_services, math_flags) + sizeof(g_svc->math_flags) &&
      g_svc->math_flags)
    return g_svc->math_flags();
  return GLIA_BACKEND_MATH_TF32_CUDNN;  // the defaults of a core that has no switches
}
glia_error* make_error(enum glia_error_code code, const std::string& message) {
  return g_svc->error_new(code, message.c_str());
}
}  // namespace glia::cuda

namespace {

using glia::cuda::CudaStream;

std::string cuda_message(cudaError_t st, const char* call, const std::string& detail) {
  cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  return std::string("cuda: ") + call + (detail.empty() ? "" : " (" + detail + ")") +
         " failed: " + cudaGetErrorString(st) + " (" + cudaGetErrorName(st) + ")";
}

}  // namespace

glia_error* glia::cuda::cuda_error(cudaError_t st, const char* call, const std::string& detail) {
  const auto code = st == cudaErrorMemoryAllocation ? GLIA_ERR_OUT_OF_MEMORY : GLIA_ERR_DEVICE;
  return g_svc->error_new(code, cuda_message(st, call, detail).c_str());
}

namespace {

using glia::cuda::cuda_error;

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
    if (c == 0) {
      g_reason = "no CUDA device";
      return 0;
    }
    // cuDNN's sub-libraries are loaded and checked now, so a missing one is reported here (Note [cuDNN in
    // the CUDA backend] in conv.cpp), not at the first convolution.
    const std::string dnn = glia::cuda::cudnn_check();
    if (!dnn.empty()) {
      g_reason = dnn;
      return 0;
    }
    return static_cast<int32_t>(c);
  }();
  return n;
}

const char* unavailable_reason() { return device_count() > 0 ? nullptr : g_reason.c_str(); }

glia_error* host_alloc_pinned(size_t nbytes, void** out) {
  GLIA_CUDA_TRY(cudaMallocHost(out, nbytes ? nbytes : 1), std::to_string(nbytes) + " bytes");
  return nullptr;
}
void host_free_pinned(void* p) { cudaFreeHost(p); }

// Streams and events are the backend's own handles, which know their device: CUDA's legacy default
// stream is 0 on every device, so a bare cudaStream_t could not say which device's default stream it
// is (event_record and stream_wait_event take no device). glia_backend.stream_native unwraps them.
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

// The caching allocator's device: the CUDA runtime. Its streams are this file's CudaStream handles.
class RuntimeDevice final : public glia::cuda::DeviceInterface {
 public:
  using Status = glia::cuda::Status;

  Status malloc(int32_t device, size_t nbytes, void** out, std::string* message) override {
    cudaError_t st = cudaSetDevice(device);
    if (st == cudaSuccess) st = cudaMalloc(out, nbytes);
    if (st == cudaSuccess) return Status::kOk;
    *message = cuda_message(st, "cudaMalloc", std::to_string(nbytes) + " bytes on device " + std::to_string(device));
    return st == cudaErrorMemoryAllocation ? Status::kOutOfMemory : Status::kDeviceError;
  }
  void free(int32_t device, void* ptr) override {
    cudaError_t st = cudaSetDevice(device);
    if (st == cudaSuccess) st = cudaFree(ptr);
    if (st != cudaSuccess) warn(cuda_message(st, "cudaFree", "device " + std::to_string(device)));
  }
  bool mem_info(int32_t device, size_t* free_bytes, size_t* total_bytes) override {
    if (cudaSetDevice(device) == cudaSuccess && cudaMemGetInfo(free_bytes, total_bytes) == cudaSuccess) return true;
    cudaGetLastError();
    return false;
  }
  Status event_create(int32_t device, void** out, std::string* message) override {
    cudaEvent_t e = nullptr;
    cudaError_t st = cudaSetDevice(device);
    if (st == cudaSuccess) st = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    *out = e;
    return check(st, "cudaEventCreateWithFlags", message);
  }
  Status event_record(void* event, void* stream, std::string* message) override {
    const auto* w = static_cast<const CudaStream*>(stream);
    cudaError_t st = cudaSetDevice(w->device);
    if (st == cudaSuccess) st = cudaEventRecord(static_cast<cudaEvent_t>(event), w->stream);
    return check(st, "cudaEventRecord", message);
  }
  Status event_query(void* event, bool* complete, std::string* message) override {
    const cudaError_t st = cudaEventQuery(static_cast<cudaEvent_t>(event));
    *complete = st != cudaErrorNotReady;
    if (st == cudaErrorNotReady) {
      cudaGetLastError();
      return Status::kOk;
    }
    return check(st, "cudaEventQuery", message);
  }
  Status event_synchronize(void* event, std::string* message) override {
    return check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize", message);
  }
  void event_destroy(void* event) override { cudaEventDestroy(static_cast<cudaEvent_t>(event)); }
  Status synchronize(int32_t device, std::string* message) override {
    cudaError_t st = cudaSetDevice(device);
    if (st == cudaSuccess) st = cudaDeviceSynchronize();
    return check(st, "cudaDeviceSynchronize", message);
  }
  void warn(const std::string& message) override { g_svc->log(GLIA_LOG_WARNING, message.c_str()); }

 private:
  static Status check(cudaError_t st, const char* call, std::string* message) {
    if (st == cudaSuccess) return Status::kOk;
    *message = cuda_message(st, call, "");
    return Status::kDeviceError;
  }
};

// Created at the first allocation and never destroyed: at exit the CUDA runtime may already be gone.
glia::cuda::CachingAllocator& allocator() {
  static glia::cuda::CachingAllocator* a =
      new glia::cuda::CachingAllocator(new RuntimeDevice, device_count(),
                                       glia::cuda::caching_enabled_by_env(std::getenv("GLIA_NO_CUDA_MEMORY_CACHING")));
  return *a;
}

glia_error* device_error(int32_t device) {
  return g_svc->error_new(GLIA_ERR_DEVICE, ("cuda: device index " + std::to_string(device) + " out of range (" +
                                            std::to_string(device_count()) + " devices)")
                                               .c_str());
}

bool valid_device(int32_t device) { return device >= 0 && device < device_count(); }

// New blocks are ordered on the device's current stream (Note [Caching allocator]).
glia_error* alloc(int32_t device, size_t nbytes, void** out) {
  *out = nullptr;
  if (!valid_device(device)) return device_error(device);
  std::string why;
  glia::cuda::Status st;
  try {
    st = allocator().malloc(device, nbytes, stream_of(nullptr, device), out, &why);
  } catch (const std::bad_alloc&) {
    return g_svc->error_new(GLIA_ERR_OUT_OF_MEMORY, "cuda: caching allocator: out of host memory");
  }
  if (st == glia::cuda::Status::kOk) return nullptr;
  return g_svc->error_new(st == glia::cuda::Status::kOutOfMemory ? GLIA_ERR_OUT_OF_MEMORY : GLIA_ERR_DEVICE,
                          why.c_str());
}

void free_(int32_t device, void* ptr, size_t) {
  if (!ptr || !valid_device(device)) return;
  try {
    if (!allocator().free(device, ptr))
      g_svc->log(GLIA_LOG_ERROR, "cuda: free of a pointer the caching allocator did not hand out");
  } catch (const std::exception& e) {
    g_svc->log(GLIA_LOG_ERROR, (std::string("cuda: caching allocator: free failed: ") + e.what()).c_str());
  }
}

// A block used by work queued on a stream other than its own (a non-blocking copy) is reused only after that
// work; pointers the allocator did not hand out (imported memory) are the owner's business.
void record_stream(int32_t device, const void* ptr, void* stream) {
  try {
    allocator().record_stream(device, const_cast<void*>(ptr), stream);
  } catch (const std::bad_alloc&) {
    cudaSetDevice(device);
    cudaStreamSynchronize(static_cast<CudaStream*>(stream)->stream);  // no record: make the block safe now
  }
}

// Statistics as torch.cuda.memory_stats: bytes_in_use is allocated_bytes (in rounded block sizes), bytes_cached
// what is reserved but not allocated, allocations the number of mallocs.
glia_error* memory_stats(int32_t device, glia_backend_memory_stats* out) {
  if (!valid_device(device)) return device_error(device);
  const glia::cuda::DeviceStats s = allocator().stats(device);
  out->bytes_in_use = static_cast<uint64_t>(s.allocated_bytes.current);
  out->peak_bytes_in_use = static_cast<uint64_t>(s.allocated_bytes.peak);
  out->bytes_cached = static_cast<uint64_t>(s.reserved_bytes.current - s.allocated_bytes.current);
  out->allocations = static_cast<uint64_t>(s.allocation.allocated);
  return nullptr;
}

void reset_peak(int32_t device) {
  if (valid_device(device)) allocator().reset_peak_stats(device);
}

void empty_cache(int32_t device) {
  if (!valid_device(device)) return;
  std::string why;
  if (allocator().empty_cache(device, &why) != glia::cuda::Status::kOk)
    g_svc->log(GLIA_LOG_ERROR, ("cuda: empty_cache failed: " + why).c_str());
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
  // A copy between two devices waits: its stream belongs to the source device, and the destination's blocks
  // cannot be protected by an event of another device.
  if (!non_blocking || (kind == GLIA_COPY_DEVICE_TO_DEVICE && dst_device != src_device)) {
    GLIA_CUDA_TRY(cudaStreamSynchronize(s), "after a copy");
    return nullptr;
  }
  CudaStream* cs = stream_of(stream, dev);
  if (kind != GLIA_COPY_HOST_TO_DEVICE) record_stream(src_device, src, cs);
  if (kind != GLIA_COPY_DEVICE_TO_HOST) record_stream(dst_device, dst, cs);
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
  auto* w = new (std::nothrow) CudaStream{s, device, nullptr, nullptr, nullptr};
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
  glia::cuda::blas_release(w);
  glia::cuda::dnn_release(w);
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

glia_kernel_fn kernel(uint32_t id) { return glia::cuda::kernel_for(id); }

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
                          &event_elapsed_time,
                          glia::cuda::nccl_collectives()};

}  // namespace

extern "C" __attribute__((visibility("default"))) const glia_backend* glia_backend_v2(
    const glia_backend_services* services) {
  // A core without the fields appended since (math_flags) is fine: math_flags() then gives its defaults.
  if (!services || services->struct_size < offsetof(glia_backend_services, math_flags) ||
      services->abi_version != GLIA_BACKEND_ABI_VERSION)
    return nullptr;
  g_svc = services;
  for (int32_t d = 0; d < 64; ++d) g_default_streams[d].device = d;
  return &kTable;
}

namespace glia::cuda {

glia_error* device_alloc(int32_t device, size_t nbytes, void** out) { return alloc(device, nbytes, out); }
glia_error* device_try_alloc(int32_t device, size_t nbytes, void** out, bool* out_of_memory) {
  *out = nullptr;
  *out_of_memory = false;
  if (!valid_device(device)) return device_error(device);
  std::string why;
  glia::cuda::Status st;
  try {
    st = allocator().malloc(device, nbytes, stream_of(nullptr, device), out, &why);
  } catch (const std::bad_alloc&) {
    return g_svc->error_new(GLIA_ERR_OUT_OF_MEMORY, "cuda: caching allocator: out of host memory");
  }
  if (st == glia::cuda::Status::kOk) return nullptr;
  if (st == glia::cuda::Status::kOutOfMemory) {
    *out_of_memory = true;
    return nullptr;
  }
  return g_svc->error_new(GLIA_ERR_DEVICE, why.c_str());
}
void device_free(int32_t device, void* ptr) { free_(device, ptr, 0); }

CudaStream* call_stream(const glia_kernel_call* call, int32_t device) {
  if (call->struct_size >= offsetof(glia_kernel_call, stream) + sizeof(call->stream) && call->stream)
    return static_cast<CudaStream*>(call->stream);
  return stream_of(nullptr, device);
}

// h-cupool's kernel families, declared here rather than in common.h so that adding them recompiles no other
// kernel file: 3-D, adaptive max and fractional pooling, max_unpool (pool3d.cu); upsample, im2col_nd and
// col2im_nd (resample.cu); grid_sampler (grid.cu); embedding_bag (bag.cu).
glia_kernel_fn pool3d_kernel(Kid id);
glia_kernel_fn resample_kernel(Kid id);
glia_kernel_fn grid_kernel(Kid id);
glia_kernel_fn bag_kernel(Kid id);

glia_kernel_fn kernel_for(uint32_t id) {
  if (id >= static_cast<uint32_t>(Kid::kCount)) return nullptr;
  const Kid k = static_cast<Kid>(id);
  if (k == Kid::copy) return copy_kernel();
  if (glia_kernel_fn f = elementwise_kernel(k)) return f;
  if (glia_kernel_fn f = reduce_kernel(k)) return f;
  if (glia_kernel_fn f = softmax_kernel_for(k)) return f;
  if (glia_kernel_fn f = pool_kernel(k)) return f;
  if (glia_kernel_fn f = norm_kernel(k)) return f;
  if (glia_kernel_fn f = loss_kernel(k)) return f;
  if (glia_kernel_fn f = optim_kernel(k)) return f;
  if (glia_kernel_fn f = index_kernel(k)) return f;
  if (glia_kernel_fn f = reduce_extra_kernel(k)) return f;
  if (glia_kernel_fn f = conv_kernel(k)) return f;
  if (glia_kernel_fn f = sort_kernel(k)) return f;
  if (glia_kernel_fn f = search_kernel(k)) return f;
  if (glia_kernel_fn f = layout_extra_kernel(k)) return f;
  // 3-D, adaptive max and fractional pooling, resampling, grid sampling, fold/unfold, embedding bags (h-cupool)
  if (glia_kernel_fn f = pool3d_kernel(k)) return f;
  if (glia_kernel_fn f = resample_kernel(k)) return f;
  if (glia_kernel_fn f = grid_kernel(k)) return f;
  if (glia_kernel_fn f = bag_kernel(k)) return f;
  if (glia_kernel_fn f = special_kernel(k)) return f;  // h-cuspecial
  if (glia_kernel_fn f = elementwise_extra_kernel(k)) return f;
  if (glia_kernel_fn f = binary_extra_kernel(k)) return f;
  if (glia_kernel_fn f = activation_extra_kernel(k)) return f;
  return blas_kernel(k);
}

}  // namespace glia::cuda
