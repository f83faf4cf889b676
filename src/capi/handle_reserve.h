// A handle slot taken before a call changes anything (Note [Handle registry]).
#pragma once

#include <cstdint>

#include "capi/handles.h"

namespace glia::capi {

// For calls that must not fail once they have changed an object but return a
// handle to a new object afterwards (load_state_dict's report): the slot is
// taken first, which is where a full registry or no memory fails, and bind()
// then cannot fail. An unused reservation gives its slot back.
class HandleReservation {
 public:
  HandleReservation();  // throws std::bad_alloc
  ~HandleReservation();
  HandleReservation(const HandleReservation&) = delete;
  HandleReservation& operator=(const HandleReservation&) = delete;
  // A new handle for `obj`, which must not have one yet (a new object).
  void* bind(RefCounted* obj, HandleType type) noexcept;

 private:
  uint32_t idx_ = 0;
  bool used_ = false;
};

}  // namespace glia::capi
