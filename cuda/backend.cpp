// Entry point of libglia_cuda.so: the table the core reads after dlopen.
#include "core/backend.h"

#include <cuda_runtime_api.h>

namespace {
int32_t device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}
const glia::BackendV1 kTable{glia::kBackendAbiVersion, "cuda", &device_count};
}  // namespace

extern "C" __attribute__((visibility("default"))) const glia::BackendV1* glia_backend_v1() { return &kTable; }
