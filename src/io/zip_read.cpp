// STUB (framework): the unpickler helper (who owns reading torch files) replaces this file.
#include "core/error.h"
#include "io/zip.h"

namespace glia::io {

struct ZipReader::Impl {};
ZipReader::ZipReader(Ref<ByteSource>) : impl_(nullptr) { fail(Code::Unsupported, "zip read: not yet"); }
ZipReader::~ZipReader() { delete impl_; }
size_t ZipReader::size() const { return 0; }
const std::string& ZipReader::name(size_t) const { fail(Code::Unsupported, "zip read: not yet"); }
std::optional<size_t> ZipReader::find(std::string_view) const { return std::nullopt; }
uint64_t ZipReader::uncompressed_size(size_t) const { return 0; }
std::string ZipReader::read(size_t, uint64_t) const { fail(Code::Unsupported, "zip read: not yet"); }
Ref<Storage> ZipReader::read_storage(size_t, uint64_t, size_t) const { fail(Code::Unsupported, "zip read: not yet"); }

}  // namespace glia::io
