#include "io/byte_source.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/alloc_fault.h"
#include "core/error.h"

namespace glia::io {

namespace {

std::string os_error(int err) { return std::strerror(err); }

// Storage deleter: drops the reference the storage holds on its source.
void unref_source(void* context, void*) { static_cast<ByteSource*>(context)->unref(); }

}  // namespace

Ref<ByteSource> ByteSource::map_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer (or a device) must not block; fstat then refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  GLIA_CHECK(fd >= 0, IO, "cannot open \"", path, "\": ", os_error(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    fail(Code::IO, "cannot stat \"", path, "\": ", os_error(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(Code::IO, "cannot read \"", path, "\": not a regular file");
  }
  Ref<ByteSource> src = Ref<ByteSource>::adopt(new ByteSource());
  src->name_ = path;
  src->kind_ = Kind::Mapped;
  src->size_ = static_cast<size_t>(st.st_size);
  if (src->size_ > 0) {
    // Private and writable: tensors that view the file may be written (copy-on-write).
    void* p = ::mmap(nullptr, src->size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      src->size_ = 0;
      fail(Code::IO, "cannot map \"", path, "\": ", os_error(err));
    }
    src->data_ = static_cast<uint8_t*>(p);
  }
  ::close(fd);
  return src;
}

Ref<ByteSource> ByteSource::copy_of(const void* data, size_t size) {
  Ref<ByteSource> src = Ref<ByteSource>::adopt(new ByteSource());
  src->name_ = "<memory>";
  src->kind_ = Kind::Heap;
  if (size > 0) {
    void* p = fault::alloc_fails() ? nullptr : std::aligned_alloc(64, (size + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    std::memcpy(p, data, size);
    src->data_ = static_cast<uint8_t*>(p);
    src->size_ = size;
  }
  return src;
}

Ref<ByteSource> ByteSource::borrow(const void* data, size_t size) {
  Ref<ByteSource> src = Ref<ByteSource>::adopt(new ByteSource());
  src->name_ = "<memory>";
  src->kind_ = Kind::Borrowed;
  src->data_ = const_cast<uint8_t*>(static_cast<const uint8_t*>(data));
  src->size_ = size;
  return src;
}

ByteSource::~ByteSource() {
  if (!data_) return;
  if (kind_ == Kind::Mapped) ::munmap(data_, size_);
  if (kind_ == Kind::Heap) std::free(data_);
}

bool ByteSource::can_view(uint64_t offset, size_t alignment) const {
  if (kind_ == Kind::Borrowed) return false;
  uintptr_t address = reinterpret_cast<uintptr_t>(data_) + offset;
  return alignment == 0 || address % alignment == 0;
}

Ref<Storage> ByteSource::storage(uint64_t offset, uint64_t nbytes, size_t alignment) {
  GLIA_CHECK(offset <= size_ && nbytes <= size_ - offset, Internal, "byte range [", offset, ", ", offset + nbytes,
             ") is outside ", name_, " (", size_, " bytes)");
  if (nbytes > 0 && can_view(offset, alignment)) {
    ref();  // released by the storage's deleter
    return Storage::wrap(data_ + offset, nbytes, Device{}, unref_source, this);
  }
  Ref<Storage> s = Storage::allocate(nbytes);
  if (nbytes > 0) std::memcpy(s->data(), data_ + offset, nbytes);
  return s;
}

// ---- AtomicFile ----------------------------------------------------------------

FileOps& file_ops() {
  static FileOps ops{::write, ::fsync, ::close, ::rename};
  return ops;
}

namespace {

constexpr size_t kBufferBytes = 1 << 20;

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  GLIA_CHECK(!path_.empty(), InvalidArgument, "path must not be empty");
  std::string dir = dir_of(path_);
  size_t slash = path_.rfind('/');
  GLIA_CHECK(slash != path_.size() - 1, InvalidArgument, "path \"", path_, "\" names a directory");
  temp_path_ =
      (slash == std::string::npos ? std::string() : path_.substr(0, slash + 1)) + "." + base_of(path_) + ".tmp-XXXXXX";
  fd_ = ::mkostemp(temp_path_.data(), O_CLOEXEC);
  GLIA_CHECK(fd_ >= 0, IO, "cannot create a file in \"", dir, "\" to write \"", path_, "\": ", os_error(errno));
  // mkstemp creates 0600; give the file the permissions a plain open() would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd_, 0666 & ~mask);
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicFile::flush_buffer() {
  const char* p = buffer_.data();
  size_t left = buffer_.size();
  while (left > 0) {
    ssize_t n = file_ops().write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    GLIA_CHECK(n > 0, IO, "cannot write \"", path_, "\": ", os_error(n < 0 ? errno : ENOSPC));
    p += n;
    left -= static_cast<size_t>(n);
  }
  buffer_.clear();
}

void AtomicFile::write(const void* data, size_t n) {
  GLIA_CHECK(!committed_, Internal, "AtomicFile::write after commit");
  const char* p = static_cast<const char*>(data);
  written_ += n;
  if (buffer_.size() + n <= kBufferBytes) {
    buffer_.append(p, n);
    return;
  }
  flush_buffer();
  if (n < kBufferBytes) {
    buffer_.append(p, n);
    return;
  }
  while (n > 0) {  // large writes go straight to the file
    ssize_t k = file_ops().write(fd_, p, n);
    if (k < 0 && errno == EINTR) continue;
    GLIA_CHECK(k > 0, IO, "cannot write \"", path_, "\": ", os_error(k < 0 ? errno : ENOSPC));
    p += k;
    n -= static_cast<size_t>(k);
  }
}

void AtomicFile::commit() {
  GLIA_CHECK(!committed_, Internal, "AtomicFile::commit twice");
  // Everything that can fail for want of memory happens before the rename: once the
  // file is replaced, the save has succeeded.
  const std::string dir = dir_of(path_);
  flush_buffer();
  GLIA_CHECK(file_ops().fsync(fd_) == 0, IO, "cannot sync \"", path_, "\": ", os_error(errno));
  int rc = file_ops().close(fd_);
  fd_ = -1;
  GLIA_CHECK(rc == 0, IO, "cannot close \"", path_, "\": ", os_error(errno));
  GLIA_CHECK(file_ops().rename(temp_path_.c_str(), path_.c_str()) == 0, IO, "cannot replace \"", path_,
             "\": ", os_error(errno));
  committed_ = true;
  // The rename is durable once the directory is synced; a failure here loses nothing.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace glia::io
