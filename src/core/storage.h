// A flat buffer shared by a tensor and all its views.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/allocator.h"
#include "core/device.h"
#include "core/refcount.h"

namespace glia {

using BlobDeleter = void (*)(void* context, void* data);

class Storage : public RefCounted {
 public:
  // A CPU buffer from the caching allocator (uninitialised).
  static Ref<Storage> allocate(size_t nbytes);
  // A buffer in the memory of `device` (through its backend for a non-CPU device).
  static Ref<Storage> allocate(size_t nbytes, Device device);
  // Memory owned elsewhere; deleter(context, data) runs once when the storage dies.
  static Ref<Storage> wrap(void* data, size_t nbytes, Device device, BlobDeleter deleter, void* context);
  // Page-locked host memory from the backend of device type `backend` (glia_backend.host_alloc_pinned),
  // or from the CPU allocator when that backend offers none (pinned() is then false).
  static Ref<Storage> allocate_pinned(size_t nbytes, DeviceType backend);
  ~Storage() override;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // Host memory page-locked by a backend (Note [Non-blocking copies] in core/tensor.cpp).
  bool pinned() const { return pinned_; }

  // Autograd's version counter, shared by every view of the storage: bumped by
  // each in-place write, compared by backward against the value it saved.
  std::atomic<uint32_t> version{0};

 private:
  Storage() = default;
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  CpuBlock block_;             // when allocated here
  bool device_owned_ = false;  // from the device's backend (device_free on death)
  bool pinned_ = false;
  BlobDeleter deleter_ = nullptr;
  void* deleter_context_ = nullptr;
};

}  // namespace glia
