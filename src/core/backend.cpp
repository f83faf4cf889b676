#include "core/backend.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

#include "core/allocator.h"
#include "core/dispatch.h"
#include "core/error.h"
#include "core/log.h"
#include "core/math_flags.h"

namespace glia {

namespace {

struct Slot {
  std::atomic<const glia_backend*> table{nullptr};
  glia_kernel_fn kernels[kKernelCount] = {};
  std::string status;  // why it is not loaded (or "" when it is)
  bool tried = false;  // CUDA: the quiet first-use load has been attempted
};
std::mutex g_mu;
Slot g_slots[kDeviceTypeCount];

std::string self_dir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&backend_load), &info) && info.dli_fname) {
    std::string p = info.dli_fname;
    size_t slash = p.rfind('/');
    if (slash != std::string::npos) return p.substr(0, slash + 1);
  }
  return "";
}

// ---- the services the core offers a backend

void svc_log(enum glia_log_level level, const char* message) {
  log(static_cast<LogLevel>(level), message ? message : "");
}

glia_error* svc_error_new(enum glia_error_code code, const char* message) { return glia_error_new(code, message); }

const char* svc_kernel_name(uint32_t id) { return kernel_name(id); }

// A CPU view of a kernel argument: the memory is the caller's, nothing is freed.
Tensor host_view(const glia_kernel_tensor& t) {
  GLIA_CHECK(t.ndim >= 0 && t.ndim <= 64, InvalidArgument, "cpu_kernel: ndim ", t.ndim, " out of range");
  GLIA_CHECK(dtype_valid(t.dtype), DType, "cpu_kernel: unknown dtype ", static_cast<int>(t.dtype));
  IntSpan sizes(t.sizes, static_cast<size_t>(t.ndim)), strides(t.strides, static_cast<size_t>(t.ndim));
  int64_t extent = 1;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (sizes[i] == 0) extent = 0;
    if (extent && sizes[i] > 0) extent += (sizes[i] - 1) * strides[i];
  }
  const size_t nbytes = static_cast<size_t>(extent) * itemsize(static_cast<DType>(t.dtype));
  Ref<Storage> s = Storage::wrap(t.data, nbytes, Device{}, nullptr, nullptr);
  return Tensor(make_ref<TensorImpl>(std::move(s), 0, sizes, strides, static_cast<DType>(t.dtype)));
}

glia_error* svc_cpu_kernel(const glia_kernel_call* call) {
  try {
    GLIA_CHECK(call && call->struct_size >= sizeof(glia_kernel_call), InvalidArgument,
               "cpu_kernel: call is NULL or its struct_size is too small");
    GLIA_CHECK(call->kernel < kKernelCount, InvalidArgument, "cpu_kernel: unknown kernel id ", call->kernel);
    const int32_t n = call->n_inputs + call->n_outputs;
    GLIA_CHECK(call->n_inputs >= 0 && call->n_outputs >= 0 && n <= 16 && call->n_attrs >= 0, InvalidArgument,
               "cpu_kernel: bad argument counts");
    Tensor ts[16];
    const Tensor* ptrs[16];
    for (int32_t i = 0; i < n; ++i) {
      ts[i] = host_view(i < call->n_inputs ? call->inputs[i] : call->outputs[i - call->n_inputs]);
      ptrs[i] = &ts[i];
    }
    const KernelArgs k{ptrs, ptrs + call->n_inputs, call->attrs, call->n_inputs, call->n_outputs, call->n_attrs};
    kCpuKernels[call->kernel](k);
    return nullptr;
  } catch (const Error& e) {
    return glia_error_new(static_cast<enum glia_error_code>(e.code()), e.message().c_str());
  } catch (const std::bad_alloc&) {
    return glia_error_new(GLIA_ERR_OUT_OF_MEMORY, "cpu_kernel: out of memory");
  } catch (...) {
    return glia_error_new(GLIA_ERR_INTERNAL, "cpu_kernel: unknown exception");
  }
}

// Host memory through the core's allocator (and so the embedder's hooks): the
// block's bookkeeping sits in a header in front of the pointer handed out.
void* svc_host_alloc(size_t nbytes) {
  try {
    CpuBlock b = cpu_allocate(nbytes + kAlignment);
    auto* keep = new (std::nothrow) CpuBlock(std::move(b));
    if (!keep) {
      cpu_deallocate(b);
      return nullptr;
    }
    std::memcpy(keep->ptr, &keep, sizeof keep);
    return static_cast<char*>(keep->ptr) + kAlignment;
  } catch (...) {
    return nullptr;
  }
}

void svc_host_free(void* ptr, size_t) {
  if (!ptr) return;
  CpuBlock* keep;
  std::memcpy(&keep, static_cast<char*>(ptr) - kAlignment, sizeof keep);
  cpu_deallocate(*keep);
  delete keep;
}

const glia_backend_services kServices{sizeof(glia_backend_services),
                                      GLIA_BACKEND_ABI_VERSION,
                                      &svc_log,
                                      &svc_error_new,
                                      &svc_kernel_name,
                                      &svc_cpu_kernel,
                                      &svc_host_alloc,
                                      &svc_host_free,
                                      &math_flags};

// The fields the core calls; a table without them is refused at load. The fields appended since the
// first version 2 table (stream_query onwards) are optional: GLIA_BACKEND_HAS.
bool table_complete(const glia_backend* t) {
  return t->struct_size >= offsetof(glia_backend, stream_query) && t->name && t->device_count &&
         t->unavailable_reason && t->alloc && t->free && t->copy && t->synchronize && t->current_stream && t->kernel;
}

void load_locked(const std::string& name) {
  if (name == "cuda" && g_slots[static_cast<int>(DeviceType::CUDA)].table.load()) return;
  std::string err;
  void* h = nullptr;
  if (name == "cuda") {
    for (const std::string& cand : {self_dir() + "libglia_cuda.so.0", std::string("libglia_cuda.so.0")}) {
      h = dlopen(cand.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h) break;
      const char* e = dlerror();
      if (!err.empty()) err += "; ";
      err += e ? e : cand;
    }
  } else {
    GLIA_CHECK(name.find('/') != std::string::npos, Unsupported, "backend_load: unknown backend \"", name,
               "\" (expected \"cuda\" or a path to a backend library)");
    h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      err = e ? e : name;
    }
  }
  if (!h) {
    if (name == "cuda") g_slots[static_cast<int>(DeviceType::CUDA)].status = "cannot load libglia_cuda.so.0: " + err;
    fail(Code::NotFound, "backend_load: cannot load backend \"", name, "\": ", err);
  }
  // Note [Backend ABI]: from here on the library stays loaded, also when it is refused.
  auto entry = reinterpret_cast<glia_backend_entry_fn>(dlsym(h, "glia_backend_v2"));
  GLIA_CHECK(entry, Unsupported, "backend_load: \"", name,
             "\" is not a glia backend of ABI version 2 (no symbol glia_backend_v2)");
  const glia_backend* t = entry(&kServices);
  GLIA_CHECK(t && t->abi_version == GLIA_BACKEND_ABI_VERSION && table_complete(t), Unsupported, "backend_load: \"",
             name, "\" is not a glia backend of ABI version ", GLIA_BACKEND_ABI_VERSION,
             t ? " (its table is of another version or incomplete)" : " (its entry point returned NULL)");
  const int type = static_cast<int>(t->device_type);
  GLIA_CHECK(type > 0 && type < kDeviceTypeCount, Unsupported, "backend_load: \"", name, "\" names device type ", type,
             ", which is not a backend slot (1 cuda, 2 privateuse1)");
  Slot& s = g_slots[type];
  const glia_backend* old = s.table.load();
  if (old == t) return;  // loaded twice (by name and by path)
  GLIA_CHECK(!old, State, "backend_load: the ", type == 1 ? "cuda" : "privateuse1", " slot is taken by backend \"",
             old ? old->name : "", "\"; cannot load \"", t->name, "\"");
  for (uint32_t i = 0; i < kKernelCount; ++i) s.kernels[i] = t->kernel(i);
  s.status.clear();
  s.table.store(t, std::memory_order_release);
  log(LogLevel::Info, std::string("loaded backend ") + t->name);
}

Slot& slot(DeviceType t) { return g_slots[static_cast<int>(t)]; }

}  // namespace

void backend_load(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mu);
  load_locked(name);
}

const glia_backend* backend_for(DeviceType t) {
  const int i = static_cast<int>(t);
  if (i <= 0 || i >= kDeviceTypeCount) return nullptr;
  if (const glia_backend* b = g_slots[i].table.load(std::memory_order_acquire)) return b;
  if (t == DeviceType::CUDA) {
    std::lock_guard<std::mutex> lock(g_mu);
    Slot& s = slot(t);
    if (!s.table.load() && !s.tried) {
      s.tried = true;
      try {
        load_locked("cuda");
      } catch (const Error& e) {
        if (s.status.empty()) s.status = e.message();
        log(LogLevel::Debug, e.message());
      }
    }
    return s.table.load();
  }
  return nullptr;
}

const glia_backend& backend_of(Device device, const char* what) {
  const glia_backend* b = backend_for(device.type);
  if (!b) {
    std::string why = backend_status(device.type);
    fail(Code::Device, what, ": device ", device, " is not available (", why, ")");
  }
  const int32_t n = b->device_count();
  if (n == 0) {
    const char* why = b->unavailable_reason();
    fail(Code::Device, what, ": device ", device, " is not available (", why ? why : "the backend reports no devices",
         ")");
  }
  GLIA_CHECK(device.index >= 0 && device.index < n, Device, what, ": device ", device, " is not available (the ",
             b->name, " backend has ", n, n == 1 ? " device)" : " devices)");
  return *b;
}

int32_t backend_device_count(DeviceType t) {
  if (t == DeviceType::CPU) return 1;
  const glia_backend* b = backend_for(t);
  return b ? b->device_count() : 0;
}

std::string backend_status(DeviceType t) {
  if (t == DeviceType::CPU) return "";
  const glia_backend* b = backend_for(t);
  if (b) {
    const char* why = b->device_count() > 0 ? nullptr : b->unavailable_reason();
    return why ? why : (b->device_count() > 0 ? "" : "the backend reports no devices");
  }
  std::lock_guard<std::mutex> lock(g_mu);
  const Slot& s = slot(t);
  if (!s.status.empty()) return s.status;
  return t == DeviceType::CUDA ? "the CUDA backend is not loaded"
                               : "no backend is loaded for device type privateuse1 (glia_backend_load)";
}

int32_t cuda_device_count() { return backend_device_count(DeviceType::CUDA); }

void backends_unload() {
  for (int i = 1; i < kDeviceTypeCount; ++i) {
    const glia_backend* b = g_slots[i].table.load();
    if (!b || !b->empty_cache) continue;
    for (int32_t d = 0, n = b->device_count(); d < n; ++d) b->empty_cache(d);
  }
}

glia_kernel_fn backend_kernel(DeviceType t, uint32_t id) {
  const int i = static_cast<int>(t);
  if (i <= 0 || i >= kDeviceTypeCount || id >= kKernelCount) return nullptr;
  return g_slots[i].table.load(std::memory_order_acquire) ? g_slots[i].kernels[id] : nullptr;
}

void throw_backend_error(glia_error* e) {
  if (!e) return;
  const auto code = static_cast<Code>(glia_error_code(e));
  // Freed however this ends (copying the message may itself run out of memory).
  struct Free {
    glia_error* e;
    ~Free() { glia_error_free(e); }
  } owned{e};
  throw Error(code == Code::Ok ? Code::Internal : code, std::string(glia_error_message(e)));
}

void* device_alloc(Device device, size_t nbytes) {
  const glia_backend& b = backend_of(device, "empty");
  void* p = nullptr;
  throw_backend_error(b.alloc(device.index, nbytes, &p));
  GLIA_CHECK(p || nbytes == 0, Internal, "backend ", b.name, " returned NULL for ", nbytes, " bytes");
  return p;
}

MemoryStats device_memory_stats(Device device, const char* what) {
  if (device.is_cpu()) return memory_stats();
  const glia_backend& b = backend_of(device, what);
  GLIA_CHECK(b.memory_stats, Unsupported, what, ": the ", b.name, " backend keeps no memory statistics");
  glia_backend_memory_stats s{};
  s.struct_size = sizeof s;
  throw_backend_error(b.memory_stats(device.index, &s));
  return MemoryStats{s.bytes_in_use, s.peak_bytes_in_use, s.bytes_cached, s.allocations};
}

void device_reset_peak_memory_stats(Device device, const char* what) {
  if (device.is_cpu()) return reset_peak_memory_stats();
  const glia_backend& b = backend_of(device, what);
  if (b.reset_peak_memory_stats) b.reset_peak_memory_stats(device.index);
}

void device_empty_cache(Device device, const char* what) {
  if (device.is_cpu()) return empty_cache();
  const glia_backend& b = backend_of(device, what);
  if (b.empty_cache) b.empty_cache(device.index);
}

void device_free(Device device, void* ptr, size_t nbytes) {
  if (const glia_backend* b = backend_for(device.type)) b->free(device.index, ptr, nbytes);
}

BackendEvent::BackendEvent(const glia_backend& b, int32_t device, void* stream) : b_(b) {
  throw_backend_error(b.event_create(device, &e_));
  if (glia_error* err = b.event_record(e_, stream)) {
    glia_error_free(b.event_destroy(e_));
    throw_backend_error(err);
  }
}

BackendEvent::~BackendEvent() { glia_error_free(b_.event_destroy(e_)); }

bool backend_has_events(const glia_backend& b) {
  return b.event_create && b.event_record && b.stream_wait_event && b.event_destroy;
}

void copy_bytes(Device dst_device, void* dst, Device src_device, const void* src, size_t nbytes, bool non_blocking) {
  if (nbytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cpu()) {
    std::memmove(dst, src, nbytes);
    return;
  }
  if (!dst_device.is_cpu() && !src_device.is_cpu() && dst_device.type != src_device.type) {
    // Two backends: through the host.
    CpuBlock tmp = cpu_allocate(nbytes);
    try {
      copy_bytes(Device{}, tmp.ptr, src_device, src, nbytes);
      copy_bytes(dst_device, dst, Device{}, tmp.ptr, nbytes);
    } catch (...) {
      cpu_deallocate(tmp);
      throw;
    }
    cpu_deallocate(tmp);
    return;
  }
  const Device dev = dst_device.is_cpu() ? src_device : dst_device;
  const glia_backend& b = backend_of(dev, "copy");
  const glia_copy_kind kind = src_device.is_cpu()   ? GLIA_COPY_HOST_TO_DEVICE
                              : dst_device.is_cpu() ? GLIA_COPY_DEVICE_TO_HOST
                                                    : GLIA_COPY_DEVICE_TO_DEVICE;
  if (kind != GLIA_COPY_DEVICE_TO_DEVICE || dst_device.index == src_device.index || !backend_has_events(b)) {
    throw_backend_error(b.copy(kind, dst_device.index, dst, src_device.index, src, nbytes, nullptr, non_blocking));
    return;
  }
  // Between two devices (torch's copy_kernel_cuda): the copy runs on the source's current stream once
  // the work queued on the destination's current stream (which may still read or write dst) is done,
  // and the destination's stream waits for the copy before its later work.
  backend_of(src_device, "copy");
  void* dst_stream = b.current_stream(dst_device.index);
  void* src_stream = b.current_stream(src_device.index);
  {
    BackendEvent before(b, dst_device.index, dst_stream);
    throw_backend_error(b.stream_wait_event(src_stream, before.handle()));
  }
  throw_backend_error(b.copy(kind, dst_device.index, dst, src_device.index, src, nbytes, src_stream, non_blocking));
  if (non_blocking) {
    BackendEvent after(b, src_device.index, src_stream);
    throw_backend_error(b.stream_wait_event(dst_stream, after.handle()));
  }
}

void device_synchronize(Device device) {
  if (device.is_cpu()) return;
  const glia_backend& b = backend_of(device, "synchronize");
  throw_backend_error(b.synchronize(device.index));
}

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::CUDA:
      return "cuda";
    case DeviceType::PrivateUse1: {
      const glia_backend* b = g_slots[static_cast<int>(t)].table.load(std::memory_order_acquire);
      return b ? b->name : "privateuseone";
    }
  }
  return "unknown";
}

// ---- kernel dispatch for non-CPU devices (core/dispatch.h)

const char* kernel_name(uint32_t id) {
  static const char* const kNames[] = {
#define GLIA_KERNEL(name, ...) #name,
#include "core/kernels.def"
#undef GLIA_KERNEL
  };
  return id < kKernelCount ? kNames[id] : nullptr;
}

void fail_devices(const char* op, Device a, Device b) {
  fail(Code::Device, op, ": Expected all tensors to be on the same device, but found at least two devices, ", a,
       " and ", b, "!");
}

void run_kernel_external(KernelId id, Device device, const KernelArgs& k) {
  const uint32_t kid = static_cast<uint32_t>(id);
  const glia_backend& b = backend_of(device, kernel_name(kid));
  glia_kernel_fn fn = backend_kernel(device.type, kid);
  GLIA_CHECK(fn, Unsupported, "'", kernel_name(kid), "' is not implemented for device ", device, " (the ", b.name,
             " backend has no kernel for it)");
  const int32_t n = k.n_in + k.n_out;
  GLIA_CHECK(n <= 16, Internal, kernel_name(kid), ": more than 16 tensor arguments");
  glia_kernel_tensor ts[16];
  for (int32_t i = 0; i < n; ++i) {
    const Tensor& t = i < k.n_in ? k.input(i) : k.output(i - k.n_in);
    GLIA_CHECK(t.device() == device, Internal, kernel_name(kid), ": argument ", i, " is on ", t.device(),
               ", the kernel runs on ", device);
    ts[i] = glia_kernel_tensor{t.numel() ? t.impl()->data() : nullptr,
                               t.shape().data(),
                               t.strides().data(),
                               static_cast<int32_t>(t.dim()),
                               static_cast<glia_dtype>(t.dtype()),
                               device.index,
                               0};
  }
  const glia_kernel_call call{sizeof(glia_kernel_call),      kid, k.n_in, k.n_out, k.n_attrs, ts, ts + k.n_in, k.attrs,
                              b.current_stream(device.index)};
  throw_backend_error(fn(&call));
}

}  // namespace glia
