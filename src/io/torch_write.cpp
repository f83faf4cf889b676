// STUB (framework): the zip/torch-writer helper replaces this file.
#include "core/error.h"
#include "io/torch_format.h"

namespace glia::io {

void write_torch(const nn::TensorDict&, Sink&, const std::string&) { fail(Code::Unsupported, "torch write: not yet"); }

}  // namespace glia::io
