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
// nbytes contiguous bytes between any two devices (CPU included); blocking.
void copy_bytes(Device dst_device, void* dst, Device src_device, const void* src, size_t nbytes);
void device_synchronize(Device device);
// Memory statistics of one device: the CPU allocator's, or the backend's (Unsupported when it keeps none).
// `what` names the caller in errors.
MemoryStats device_memory_stats(Device device, const char* what);
void device_reset_peak_memory_stats(Device device, const char* what);
void device_empty_cache(Device device, const char* what);

}  // namespace glia
