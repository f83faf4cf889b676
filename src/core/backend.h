// Run-time loading of backend libraries (libglia_cuda.so.0), so that the core
// needs no CUDA to load. Note [Backend ABI]: a backend exports
// `glia_backend_v1` returning a BackendV1 table whose abi_version must match.
#pragma once

#include <cstdint>
#include <string>

namespace glia {

constexpr uint32_t kBackendAbiVersion = 1;

struct BackendV1 {
  uint32_t abi_version;
  const char* name;
  int32_t (*device_count)(void);
};

// Loads the named backend ("cuda" or a path). Throws Error(NotFound/Unsupported).
void backend_load(const std::string& name);
// Device count of the CUDA backend, loading it on first use; 0 when it cannot load.
int32_t cuda_device_count();
// dlclose()s every backend (glia_shutdown).
void backends_unload();

}  // namespace glia
