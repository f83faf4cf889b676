// ZipReader: libzip over the ByteSource's bytes (zip_source_buffer, no copy of
// the archive). libzip parses the central directory (zip64 included) and, with
// ZIP_CHECKCONS, checks each local header against it; it checks the CRC when an
// entry is read to its end.
//
// read_storage copies every entry, stored ones included: libzip 1.7 does not
// expose where an entry's data starts in the archive, so a stored entry cannot be
// viewed without parsing the headers a second time here. A .pt file's tensors
// are therefore copied once on load (safetensors files are the zero-copy path).
#include <zip.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "io/zip.h"

namespace glia::io {

struct ZipReader::Impl {
  Ref<ByteSource> src;
  zip_t* archive = nullptr;
  std::vector<std::string> names;
  std::vector<zip_stat_t> stats;
  std::unordered_map<std::string, size_t> index;

  ~Impl() {
    if (archive) zip_discard(archive);
  }

  // Opens entry i, reads exactly n bytes into dst (in chunks), and checks that
  // nothing follows them and that the CRC matches (libzip does, at the end).
  void read_into(size_t i, void* dst, uint64_t n) const {
    zip_file_t* f = zip_fopen_index(archive, i, 0);
    GLIA_CHECK(f, Format, "zip entry \"", names[i], "\" of ", src->name(),
               " cannot be read: ", zip_error_strerror(zip_get_error(archive)));
    auto* out = static_cast<uint8_t*>(dst);
    uint64_t done = 0;
    std::string error;
    while (done < n) {
      uint64_t chunk = std::min<uint64_t>(n - done, uint64_t{1} << 24);
      zip_int64_t got = zip_fread(f, out + done, chunk);
      if (got < 0) {
        error = zip_file_strerror(f);
        break;
      }
      if (got == 0) break;
      done += static_cast<uint64_t>(got);
    }
    uint8_t extra = 0;
    zip_int64_t more = error.empty() && done == n ? zip_fread(f, &extra, 1) : 0;  // reaching the end checks the CRC
    if (more < 0) error = zip_file_strerror(f);
    zip_fclose(f);
    GLIA_CHECK(error.empty(), Format, "zip entry \"", names[i], "\" of ", src->name(), " is corrupt: ", error);
    GLIA_CHECK(done == n && more == 0, Format, "zip entry \"", names[i], "\" of ", src->name(), " holds ",
               more > 0 ? "more than" : "only", " ", more > 0 ? n : done, " bytes, its header declares ", n);
  }

  // Refuses entries whose declared size the archive cannot back (zip bombs,
  // lying headers) before anything is allocated for them.
  void check_size(size_t i, uint64_t max_bytes) const {
    const zip_stat_t& st = stats[i];
    GLIA_CHECK(st.size <= max_bytes, Format, "zip entry \"", names[i], "\" of ", src->name(), " declares ", st.size,
               " bytes, more than the ", max_bytes, " allowed");
    GLIA_CHECK(st.comp_size <= src->size(), Format, "zip entry \"", names[i], "\" of ", src->name(), " declares ",
               st.comp_size, " compressed bytes in a file of ", src->size());
    if (st.comp_method == ZIP_CM_STORE) {
      GLIA_CHECK(st.size == st.comp_size, Format, "stored zip entry \"", names[i], "\" of ", src->name(), " declares ",
                 st.size, " bytes but ", st.comp_size, " stored");
    } else {
      GLIA_CHECK(st.size / kMaxRatio <= st.comp_size, Format, "zip entry \"", names[i], "\" of ", src->name(),
                 " would expand ", st.comp_size, " compressed bytes to ", st.size, " (more than ", kMaxRatio,
                 ":1, a zip bomb)");
    }
  }
};

ZipReader::ZipReader(Ref<ByteSource> src) : impl_(new Impl) {
  try {
    impl_->src = std::move(src);
    const ByteSource& s = *impl_->src;
    // libzip opens an empty buffer as an empty archive; a file has at least its end record.
    GLIA_CHECK(s.size() >= 22, Format, "not a zip archive: ", s.name(), " (", s.size(),
               " bytes, smaller than a zip end record)");
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* zs = zip_source_buffer_create(s.data(), s.size(), 0, &error);
    if (zs) {
      impl_->archive = zip_open_from_source(zs, ZIP_RDONLY | ZIP_CHECKCONS, &error);
      if (!impl_->archive) zip_source_free(zs);
    }
    std::string reason = impl_->archive ? "" : zip_error_strerror(&error);
    zip_error_fini(&error);
    GLIA_CHECK(impl_->archive, Format, "not a zip archive: ", s.name(), ": ", reason);
    zip_int64_t n = zip_get_num_entries(impl_->archive, 0);
    GLIA_CHECK(n >= 0, Format, "not a zip archive: ", s.name());
    for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(n); ++i) {
      const char* name = zip_get_name(impl_->archive, i, ZIP_FL_ENC_RAW);
      zip_stat_t st;
      zip_stat_init(&st);
      GLIA_CHECK(name && zip_stat_index(impl_->archive, i, ZIP_FL_ENC_RAW, &st) == 0, Format, "zip entry ", i, " of ",
                 s.name(), " is unreadable: ", zip_error_strerror(zip_get_error(impl_->archive)));
      constexpr zip_uint64_t kNeeded = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
      GLIA_CHECK((st.valid & kNeeded) == kNeeded, Format, "zip entry \"", name, "\" of ", s.name(),
                 " has no sizes or method");
      impl_->names.emplace_back(name);
      impl_->stats.push_back(st);
      impl_->index.emplace(impl_->names.back(), impl_->names.size() - 1);  // the first of duplicate names wins
    }
  } catch (...) {
    delete impl_;
    throw;
  }
}

ZipReader::~ZipReader() { delete impl_; }

size_t ZipReader::size() const { return impl_->names.size(); }
const std::string& ZipReader::name(size_t i) const { return impl_->names.at(i); }

std::optional<size_t> ZipReader::find(std::string_view name) const {
  auto it = impl_->index.find(std::string(name));
  if (it == impl_->index.end()) return std::nullopt;
  return it->second;
}

uint64_t ZipReader::uncompressed_size(size_t i) const { return impl_->stats.at(i).size; }

std::string ZipReader::read(size_t i, uint64_t max_bytes) const {
  impl_->check_size(i, max_bytes);
  std::string out(static_cast<size_t>(impl_->stats[i].size), '\0');
  impl_->read_into(i, out.data(), out.size());
  return out;
}

Ref<Storage> ZipReader::read_storage(size_t i, uint64_t nbytes, size_t) const {
  GLIA_CHECK(impl_->stats.at(i).size == nbytes, Format, "zip entry \"", impl_->names[i], "\" of ", impl_->src->name(),
             " holds ", impl_->stats[i].size, " bytes, expected ", nbytes);
  impl_->check_size(i, nbytes);
  Ref<Storage> s = Storage::allocate(static_cast<size_t>(nbytes));
  if (nbytes) impl_->read_into(i, s->data(), nbytes);
  return s;
}

}  // namespace glia::io
