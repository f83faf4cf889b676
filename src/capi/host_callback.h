// Host callbacks held by the engine: (fn, user_data, free_user_data) owned together, and the
// conversion of a callback's returned error into an exception.
#pragma once

#include <memory>
#include <string>

#include "capi/api.h"

namespace glia::capi {

// A host callback with its user_data, freed with it (post-accumulate-grad hooks, backward
// callbacks, DDP communication hooks).
template <class Fn>
struct HostCallback {
  Fn fn;
  void* user_data;
  void (*free_user_data)(void*);
  ~HostCallback() {
    if (free_user_data) free_user_data(user_data);
  }
};

// Takes ownership of (fn, user_data, free_user_data) at once; when even that
// allocation fails, frees user_data right away and returns null (the caller
// then returns out of memory, as the registration functions promise).
template <class Owner, class Fn>
std::shared_ptr<Owner> own(Fn fn, void* user_data, void (*free_user_data)(void*)) {
  std::shared_ptr<Owner> owner;
  try {
    owner = std::make_shared<Owner>();
  } catch (...) {
    if (free_user_data) free_user_data(user_data);
    return nullptr;
  }
  owner->fn = fn;
  owner->user_data = user_data;
  owner->free_user_data = free_user_data;
  return owner;
}

// Runs a host callback's result: an error becomes Error(Callback) with `what` and its message.
inline void callback_result(glia_error* e, const char* what) {
  if (!e) return;
  // Freed however this ends (building the message may itself run out of memory).
  struct Free {
    glia_error* e;
    ~Free() { glia_error_free(e); }
  } owned{e};
  throw Error(Code::Callback, std::string(what) + " failed: " + glia_error_message(e));
}

}  // namespace glia::capi
