// Zip archives as torch.save writes them: reading any archive (stored or deflated
// entries, zip64) through libzip over a ByteSource, and writing stored entries
// with 64-byte aligned data, as torch's PyTorchStreamWriter does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.h"

namespace glia::io {

class ZipReader {
 public:
  // Errors: Format ("not a zip archive: ..." with libzip's reason, or what this
  // reader's own walk of the central directory and local headers found, naming the
  // entry: Note [Stored zip entries] in zip_read.cpp).
  explicit ZipReader(Ref<ByteSource> src);
  ~ZipReader();
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  size_t size() const;
  const std::string& name(size_t i) const;
  std::optional<size_t> find(std::string_view name) const;
  // The size the central directory declares.
  uint64_t uncompressed_size(size_t i) const;
  // Entry i whole. Error(Format) when it is larger than max_bytes, when a deflated
  // entry would expand by more than kMaxRatio (zip bombs), or when its bytes do not
  // match the declared size or CRC.
  std::string read(size_t i, uint64_t max_bytes) const;
  // Entry i as a storage of exactly `nbytes` (Error(Format) when the entry's size
  // differs). A stored entry is its bytes in the source, CRC-checked there, viewed
  // where data() + offset is a multiple of `alignment` (Note [Zero-copy loading])
  // and copied otherwise; a deflated one is inflated in chunks into a new buffer.
  // Error(Format) when the CRC or any size disagrees (Note [Stored zip entries]).
  Ref<Storage> read_storage(size_t i, uint64_t nbytes, size_t alignment) const;

  static constexpr uint64_t kMaxRatio = 1100;  // deflate cannot exceed about 1032:1

 private:
  struct Impl;
  Impl* impl_;
};

class ZipWriter {
 public:
  explicit ZipWriter(Sink& out);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  // One stored entry, its data starting at a multiple of 64 bytes in the file.
  void add(std::string_view name, const void* data, size_t n);
  // Central directory (zip64 records when needed). No add() after this.
  void finish();

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace glia::io
