#include "core/storage.h"

#include "core/backend.h"

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

Storage::~Storage() {
  if (block_.ptr) cpu_deallocate(block_);
  if (device_owned_) device_free(device_, data_, nbytes_);
  if (deleter_) deleter_(deleter_context_, data_);
}

}  // namespace glia
