#include <cstddef>
#include <cstring>

#include "capi/api.h"
#include "core/allocator.h"
#include "core/backend.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/random.h"
#include "core/scratch.h"

using namespace glia;

namespace {
void raise_host_error(void* e) {
  auto* err = static_cast<glia_error*>(e);
  std::string msg = std::string("host parallel_for failed: ") + glia_error_message(err);
  glia_error_free(err);
  throw Error(Code::Callback, msg);
}
}  // namespace

extern "C" {

uint32_t glia_version(void) { return GLIA_VERSION_NUMBER; }

const char* glia_version_string(void) {
#define GLIA_STR2(x) #x
#define GLIA_STR(x) GLIA_STR2(x)
  return GLIA_STR(GLIA_VERSION_MAJOR) "." GLIA_STR(GLIA_VERSION_MINOR) "." GLIA_STR(GLIA_VERSION_PATCH);
}

glia_error* glia_set_num_threads(int32_t n) {
  return capi::guard([&] { set_num_threads(n); });
}

int32_t glia_get_num_threads(void) { return get_num_threads(); }

glia_error* glia_set_parallel_for(glia_parallel_for_fn fn, void* user_data, void (*free_user_data)(void*)) {
  return capi::guard([&] {
    try {
      set_host_parallel_for(reinterpret_cast<HostParallelForFn>(fn), user_data, free_user_data, &raise_host_error);
    } catch (...) {
      // set_host_parallel_for takes ownership only on success.
      if (free_user_data) free_user_data(user_data);
      throw;
    }
  });
}

void glia_shutdown(void) {
  shutdown_threads();
  release_thread_scratch();
  empty_cache();
  backends_unload();
}

void glia_manual_seed(uint64_t seed) { manual_seed(seed); }

void glia_allocator_init(glia_allocator* a) {
  if (!a) return;
  *a = glia_allocator{};
  a->struct_size = sizeof(glia_allocator);
}

glia_error* glia_set_allocator(const glia_allocator* a) {
  return capi::guard([&] {
    if (!a) {
      set_host_allocator(nullptr);
      return;
    }
    bool ok =
        a->struct_size >= offsetof(glia_allocator, free_user_data) + sizeof(a->free_user_data) && a->alloc && a->free;
    if (!ok) {
      if (a->struct_size >= sizeof(glia_allocator) && a->free_user_data) a->free_user_data(a->user_data);
      GLIA_CHECK(a->struct_size >= sizeof(glia_allocator), InvalidArgument, "glia_set_allocator: struct_size is ",
                 a->struct_size, ", expected at least ", sizeof(glia_allocator), " (use glia_allocator_init)");
      fail(Code::InvalidArgument, "glia_set_allocator: alloc and free must both be set");
    }
    Ref<HostAllocator> h = make_ref<HostAllocator>();
    h->alloc_fn = a->alloc;
    h->free_fn = a->free;
    h->user_data = a->user_data;
    h->free_user_data = a->free_user_data;
    set_host_allocator(std::move(h));
  });
}

namespace {

void write_stats(glia_memory_stats* out, const char* fn, Device device) {
  capi::check_out(out, fn, "out_stats");
  GLIA_CHECK(out->struct_size >= offsetof(glia_memory_stats, bytes_in_use) + sizeof(uint64_t), InvalidArgument, fn,
             ": struct_size ", out->struct_size, " is too small");
  MemoryStats s = device_memory_stats(device, fn);
  glia_memory_stats full{sizeof(glia_memory_stats), s.bytes_in_use, s.peak_bytes_in_use, s.bytes_cached, s.allocations};
  size_t n = out->struct_size < sizeof(full) ? out->struct_size : sizeof(full);
  size_t keep = out->struct_size;
  std::memcpy(static_cast<void*>(out), &full, n);
  out->struct_size = keep;
}

}  // namespace

glia_error* glia_memory_stats_get(glia_memory_stats* out) {
  return capi::guard([&] { write_stats(out, "glia_memory_stats_get", Device{}); });
}

glia_error* glia_device_memory_stats_get(glia_device device, glia_memory_stats* out) {
  const char* fn = "glia_device_memory_stats_get";
  return capi::guard([&] { write_stats(out, fn, capi::device_arg(device, fn)); });
}

glia_error* glia_device_reset_peak_memory_stats(glia_device device) {
  const char* fn = "glia_device_reset_peak_memory_stats";
  return capi::guard([&] { device_reset_peak_memory_stats(capi::device_arg(device, fn), fn); });
}

glia_error* glia_device_empty_cache(glia_device device) {
  const char* fn = "glia_device_empty_cache";
  return capi::guard([&] { device_empty_cache(capi::device_arg(device, fn), fn); });
}

void glia_reset_peak_memory_stats(void) { reset_peak_memory_stats(); }

void glia_empty_cache(void) { empty_cache(); }

glia_error* glia_set_log_callback(glia_log_fn fn, enum glia_log_level min_level, void* user_data,
                                  void (*free_user_data)(void*)) {
  return capi::guard([&] {
    if (min_level < GLIA_LOG_DEBUG || min_level > GLIA_LOG_ERROR) {
      if (free_user_data) free_user_data(user_data);
      fail(Code::InvalidArgument, "glia_set_log_callback: invalid level ", static_cast<int>(min_level));
    }
    set_log_callback(reinterpret_cast<LogFn>(fn), static_cast<LogLevel>(min_level), user_data, free_user_data);
  });
}

glia_error* glia_backend_load(const char* name) {
  return capi::guard([&] {
    capi::check_out(name, "glia_backend_load", "name");
    backend_load(name);
  });
}

glia_error* glia_backend_status(glia_device_type type, int32_t* out_device_count, char* buffer, size_t capacity,
                                size_t* out_length) {
  return capi::guard([&] {
    const char* fn = "glia_backend_status";
    GLIA_CHECK(type == GLIA_CPU || type == GLIA_CUDA || type == GLIA_PRIVATEUSE1, InvalidArgument, fn,
               ": unknown device type ", static_cast<int>(type));
    const DeviceType t = static_cast<DeviceType>(type);
    capi::check_string_out(buffer, capacity, out_length, fn);
    std::string why = backend_status(t);
    if (out_device_count) *out_device_count = backend_device_count(t);
    capi::write_string(why, buffer, capacity, out_length);
  });
}

glia_error* glia_device_synchronize(glia_device device) {
  return capi::guard([&] { device_synchronize(capi::device_arg(device, "glia_device_synchronize")); });
}

int32_t glia_cuda_is_available(void) { return cuda_device_count() > 0 ? 1 : 0; }

int32_t glia_cuda_device_count(void) { return cuda_device_count(); }

size_t glia_dtype_size(glia_dtype dtype) {
  return dtype_valid(static_cast<int>(dtype)) ? itemsize(static_cast<DType>(dtype)) : 0;
}

const char* glia_dtype_name(glia_dtype dtype) {
  return dtype_valid(static_cast<int>(dtype)) ? glia::dtype_name(static_cast<DType>(dtype)) : nullptr;
}

}  // extern "C"
