// STUB (framework): the unpickler helper replaces this file.
#include "core/error.h"
#include "io/torch_format.h"

namespace glia::io {

Ref<nn::TensorDict> read_torch(const Ref<ByteSource>&) { fail(Code::Unsupported, "torch read: not yet"); }

}  // namespace glia::io
