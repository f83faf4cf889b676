// Note [Handle registry]
// A C handle is not a pointer but a 64-bit token (generation << 32 | slot).
// Slots live in chunks that are never moved or freed while the library is
// loaded, so validating a token reads only registry memory: a NULL, foreign,
// released or double-released handle is detected without touching freed
// objects (clean under ASan) and reported as GLIA_ERR_INVALID_HANDLE.
// A slot holds one strong reference to its object plus the handle's own
// reference count (glia_*_retain / _release). An object remembers its live
// slot (RefCounted::handle_slot) so that asking twice for the same object
// returns the same handle, as `is` identity in bindings expects.
#pragma once

#include <cstdint>

#include "core/error.h"
#include "core/refcount.h"

namespace glia::capi {

enum class HandleType : uint8_t {
  Tensor = 1,
  Module = 2,
  Optimizer = 3,
  TensorDict = 4,
  LoadReport = 5,
  ProcessGroup = 6,
  Scheduler = 7,
  Stream = 8,
  Event = 9,
  Value = 10,
  Store = 11,
  Work = 12,
};

const char* handle_type_name(HandleType t);

// The object behind `h`, or throws Error(InvalidHandle) naming `arg`.
RefCounted* handle_lookup(const void* h, HandleType type, const char* fn, const char* arg);
// A handle for `obj` (new handle reference; the slot takes its own object reference).
void* handle_for(RefCounted* obj, HandleType type);
// Handle reference counting; both throw Error(InvalidHandle) for a bad handle.
void handle_retain(const void* h, HandleType type, const char* fn);
void handle_release(const void* h, HandleType type, const char* fn);
// Number of live handle slots (for leak tests; scans the registry).
uint64_t live_handles();

template <class T>
T* lookup(const void* h, HandleType type, const char* fn, const char* arg) {
  return static_cast<T*>(handle_lookup(h, type, fn, arg));
}

}  // namespace glia::capi
