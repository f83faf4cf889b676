// The bytes a checkpoint is read from, and the storages that view them.
//
// Note [Zero-copy loading]: a file is mapped once (MAP_PRIVATE, read and write
// protection), and each tensor read from it is a Storage over its byte range that
// keeps the mapping alive. Nothing is copied on load; a tensor written later gets
// private copies of the pages it touches (copy-on-write), so the file never
// changes and nothing faults. A range whose start is not aligned to the dtype's
// size cannot be viewed (the kernels load whole elements): readers copy it
// (ByteSource::storage does) and say so in a comment where it happens.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/refcount.h"
#include "core/storage.h"

namespace glia::io {

class ByteSource : public RefCounted {
 public:
  // The whole file at `path`, mapped. Errors: IO ('cannot open "x": No such file or directory').
  static Ref<ByteSource> map_file(const std::string& path);
  // A private, 64-byte aligned copy of [data, data + size).
  static Ref<ByteSource> copy_of(const void* data, size_t size);
  // The caller's bytes, which must outlive every use (fuzzers, tests). storage()
  // copies from such a source, so tensors never alias memory this object does not own.
  static Ref<ByteSource> borrow(const void* data, size_t size);
  ~ByteSource() override;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Where the bytes came from, for messages: the path, or "<memory>".
  const std::string& name() const { return name_; }

  // A CPU storage of exactly `nbytes` over [offset, offset + nbytes), keeping this
  // source alive, or a copy when the source is borrowed or data() + offset is not a
  // multiple of `alignment`. Error(Internal) when the range is out of bounds (readers
  // check bounds first and report Format errors of their own).
  Ref<Storage> storage(uint64_t offset, uint64_t nbytes, size_t alignment);
  // Whether storage(offset, ...) would view rather than copy.
  bool can_view(uint64_t offset, size_t alignment) const;

 private:
  ByteSource() = default;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string name_;
  enum class Kind { Mapped, Heap, Borrowed } kind_ = Kind::Borrowed;
};

// Where writers put their bytes.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const void* data, size_t n) = 0;
  // Bytes written so far.
  virtual uint64_t tell() const = 0;
};

// A Sink into memory (tests, fuzzers, glia_tensor_dict_save_buffer).
class StringSink final : public Sink {
 public:
  void write(const void* data, size_t n) override { bytes.append(static_cast<const char*>(data), n); }
  uint64_t tell() const override { return bytes.size(); }
  std::string bytes;
};

// Writes `path` atomically: bytes go to a temp file in the same directory
// (".<name>.tmp-XXXXXX"), which replaces `path` only in commit() (flush, fsync,
// rename, fsync of the directory). Destroyed without commit(), it removes the temp
// file and the previous file at `path` stays as it was. Errors: IO naming the path
// and the OS's reason.
class AtomicFile final : public Sink {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile() override;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t n) override;
  uint64_t tell() const override { return written_; }
  void commit();

 private:
  void flush_buffer();
  std::string path_, temp_path_;
  int fd_ = -1;
  uint64_t written_ = 0;
  std::string buffer_;
  bool committed_ = false;
};

// The system calls AtomicFile makes, replaceable by tests to inject I/O failures
// (short writes, ENOSPC, EIO, a failed rename: tests/io/io_failure_test.cpp).
// Internal, not part of the ABI; defaults are the libc functions. Tests set and
// restore it on one thread while no file is being written.
struct FileOps {
  ssize_t (*write)(int fd, const void* data, size_t n);
  int (*fsync)(int fd);
  int (*close)(int fd);
  int (*rename)(const char* from, const char* to);
};
FileOps& file_ops();

}  // namespace glia::io
