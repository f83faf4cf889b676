#include "core/storage.h"

#include <cstdint>

#include "core/backend.h"
#include "core/error.h"

namespace glia {

Ref<Storage> Storage::allocate(size_t nbytes) {
  CpuBlock block = cpu_allocate(nbytes);
  Storage* s = new (std::nothrow) Storage();
  if (!s) {
    cpu_deallocate(block);
    throw std::bad_alloc();
  }
  s->data_ = block.ptr;
  s->nbytes_ = nbytes;
  s->block_ = std::move(block);
  return Ref<Storage>::adopt(s);
}

Ref<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.is_cpu()) return allocate(nbytes);
  void* p = device_alloc(device, nbytes);
  Storage* s = new (std::nothrow) Storage();
  if (!s) {
    device_free(device, p, nbytes);
    throw std::bad_alloc();
  }
  s->data_ = p;
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->device_owned_ = true;
  return Ref<Storage>::adopt(s);
}

Ref<Storage> Storage::wrap(void* data, size_t nbytes, Device device, BlobDeleter deleter, void* context) {
  Storage* s = new (std::nothrow) Storage();
  if (!s) {
    if (deleter) deleter(context, data);
    throw std::bad_alloc();
  }
  s->data_ = data;
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->deleter_ = deleter;
  s->deleter_context_ = context;
  return Ref<Storage>::adopt(s);
}

namespace {
void free_pinned(void* backend, void* data) { static_cast<const glia_backend*>(backend)->host_free_pinned(data); }
}  // namespace

Ref<Storage> Storage::allocate_pinned(size_t nbytes, DeviceType backend) {
  const glia_backend* b = backend_for(backend);
  if (!b || !b->host_alloc_pinned || !b->host_free_pinned) return allocate(nbytes);
  void* p = nullptr;
  throw_backend_error(b->host_alloc_pinned(nbytes, &p));
  GLIA_CHECK(p, Internal, "backend ", b->name, " returned NULL for ", nbytes, " bytes of pinned memory");
  if (reinterpret_cast<uintptr_t>(p) % kAlignment != 0) {
    b->host_free_pinned(p);
    fail(Code::Internal, "backend ", b->name, " returned pinned memory aligned to less than ", kAlignment, " bytes");
  }
  Ref<Storage> s = wrap(p, nbytes, Device{}, &free_pinned, const_cast<glia_backend*>(b));
  s->pinned_ = true;
  return s;
}

Storage::~Storage() {
  if (block_.ptr) cpu_deallocate(block_);
  if (device_owned_) device_free(device_, data_, nbytes_);
  if (deleter_) deleter_(deleter_context_, data_);
}

}  // namespace glia
