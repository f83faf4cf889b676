// Device backends loaded at run time (libglia_cuda.so.0, the test device, an
// out-of-tree plugin), so that the core needs no CUDA to load.
//
// Note [Backend ABI]: the core and a backend meet through the C structs of
// include/glia/glia_backend.h (version GLIA_BACKEND_ABI_VERSION, struct_size
// first, fields appended only), never through C++ symbols. One slot per
// device type; a backend loaded by path takes the slot its table names. A
// backend is never dlclose()d while the core is loaded: tensors, kernels and
// the caches hold its code and memory, and unloading CUDA runtimes is not
// reliable anyway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/allocator.h"
#include "core/device.h"
#include "glia/glia_backend.h"

// Whether backend table `b` has the field `f`, one appended to the ABI after a backend may have been
// built (its struct_size covers it), set to a function.
#define GLIA_BACKEND_HAS(b, f) ((b).struct_size >= offsetof(glia_backend, f) + sizeof((b).f) && (b).f != nullptr)

namespace glia {

// Loads the named backend ("cuda" or a path). Throws Error(NotFound/Unsupported).
void backend_load(const std::string& name);
// The backend of device type t, or nullptr (CUDA is tried once on first use, quietly).
const glia_backend* backend_for(DeviceType t);
// The backend of `device`, checking that it is loaded and that the index is in range.
// `what` names the caller in the message.
const glia_backend& backend_of(Device device, const char* what);
// Number of devices of type t (0 when no backend); why t is unavailable ("" when it is).
int32_t backend_device_count(DeviceType t);
std::string backend_status(DeviceType t);
// Device count of the CUDA backend, loading it on first use; 0 when it cannot load.
int32_t cuda_device_count();
// Empties the backends' caches (glia_shutdown); the libraries stay loaded (Note [Backend ABI]).
void backends_unload();

// The kernel of backend slot t for kernel id `id` (nullptr when unsupported), read at load.
glia_kernel_fn backend_kernel(DeviceType t, uint32_t id);

// Throws the error a backend returned (and frees it); does nothing for nullptr.
void throw_backend_error(glia_error* e);

// Device memory and copies (device pointers are never dereferenced here).
void* device_alloc(Device device, size_t nbytes);
void device_free(Device device, void* ptr, size_t nbytes);
// nbytes contiguous bytes between any two devices (CPU included), ordered on the current streams of
// the devices involved. Blocking unless `non_blocking`, which the caller may ask for only when the
// host side (if any) is pinned memory (Note [Non-blocking copies] in core/tensor.cpp). Between two
// devices of one backend the copy runs on the source's current stream after the work queued on the
// destination's, and the destination's stream waits for it (torch's copy between GPUs).
void copy_bytes(Device dst_device, void* dst, Device src_device, const void* src, size_t nbytes,
                bool non_blocking = false);
void device_synchronize(Device device);

// Whether the backend has the event functions the core uses to order streams.
bool backend_has_events(const glia_backend& b);
// An event of the backend recorded on `stream` of `device`, destroyed with the object (to order one
// stream after another: copies between devices, stream_wait_stream).
class BackendEvent {
 public:
  BackendEvent(const glia_backend& b, int32_t device, void* stream);
  ~BackendEvent();
  BackendEvent(const BackendEvent&) = delete;
  BackendEvent& operator=(const BackendEvent&) = delete;
  void* handle() const { return e_; }

 private:
  const glia_backend& b_;
  void* e_ = nullptr;
};
// Memory statistics of one device: the CPU allocator's, or the backend's (Unsupported when it keeps none).
// `what` names the caller in errors.
MemoryStats device_memory_stats(Device device, const char* what);
void device_reset_peak_memory_stats(Device device, const char* what);
void device_empty_cache(Device device, const char* what);

}  // namespace glia
