// STUB (framework): the unpickler helper replaces this file.
#include "core/error.h"
#include "io/pickle.h"

namespace glia::io {

Ref<nn::TensorDict> unpickle_state_dict(const uint8_t*, size_t, uint64_t) {
  fail(Code::Unsupported, "unpickler: not yet");
}

}  // namespace glia::io
