// The host side of a kernel call that every kernel file shares: make the call's device current and take
// the call's stream, check a launch, hold device scratch memory for the length of the call, and cap a
// grid-stride launch's block count.
#ifndef GLIA_CUDA_KERNEL_CALL_H
#define GLIA_CUDA_KERNEL_CALL_H

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "common.h"

namespace glia::cuda {

// The tensors' device made current, and the stream the call runs on.
inline glia_error* device_stream(const glia_kernel_call* call, int32_t dev, cudaStream_t* s) {
  const cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  *s = call_stream(call, dev)->stream;
  return nullptr;
}

// The status of the launches just queued ("what" names the kernel in the message).
inline glia_error* launched(const char* what) {
  const cudaError_t st = cudaGetLastError();
  return st == cudaSuccess ? nullptr : cuda_error(st, "kernel launch", what);
}

// Device scratch memory of one call (the caching allocator), freed when the call returns: the free is
// ordered on the device's stream, so the kernels queued before it are done with the memory before anyone
// reuses it.
struct Scratch {
  int32_t dev;
  void* p = nullptr;
  explicit Scratch(int32_t d) : dev(d) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (p) device_free(dev, p);
  }
};

// Blocks for a grid-stride loop over `items` (one block an item, at most 65536).
inline unsigned blocks_for(int64_t items) { return static_cast<unsigned>(items < 65536 ? items : 65536); }

}  // namespace glia::cuda

#endif  // GLIA_CUDA_KERNEL_CALL_H
