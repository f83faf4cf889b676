// STUB (framework): the torch-writer helper replaces this file.
#include "core/error.h"
#include "io/zip.h"

namespace glia::io {

struct ZipWriter::Impl {};
ZipWriter::ZipWriter(Sink&) : impl_(nullptr) { fail(Code::Unsupported, "zip write: not yet"); }
ZipWriter::~ZipWriter() { delete impl_; }
void ZipWriter::add(std::string_view, const void*, size_t) { fail(Code::Unsupported, "zip write: not yet"); }
void ZipWriter::finish() { fail(Code::Unsupported, "zip write: not yet"); }

}  // namespace glia::io
