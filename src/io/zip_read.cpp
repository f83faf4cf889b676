// ZipReader: libzip over the ByteSource's bytes (zip_source_buffer, no copy of
// the archive). libzip parses the central directory (zip64 included) and, with
// ZIP_CHECKCONS, checks each local header against it; it checks the CRC when an
// entry is read to its end.
//
// Note [Stored zip entries]: libzip (1.7) does not say where an entry's data
// starts, so the reader walks the central directory a second time itself (end
// record, zip64 end record and locator, each entry's zip64 extra field) and
// cross-checks every entry's name, sizes and method with libzip's. It then reads
// each entry's local header (signature, method, name, CRC and sizes, or zeros
// with a data descriptor; zip64 extra fields included) to find where the data
// starts, and checks that the data lies inside the file, before the central
// directory, without overlapping another entry (so two storages never share
// bytes). A stored entry's storage is then its bytes in the source, CRC-32
// checked there, viewed where aligned (Note [Zero-copy loading]: torch aligns
// them to 64 bytes) and copied otherwise; deflated entries go through libzip.
// Every disagreement is a Format error naming the entry.
#include <zip.h>
#include <zlib.h>

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
  // Per entry, from the central directory and the local header (Note [Stored zip entries]).
  struct Where {
    uint64_t header = 0, data = 0;
    uint32_t crc = 0;
  };
  std::vector<Where> where;

  ~Impl() {
    if (archive) zip_discard(archive);
  }

  // Opens entry i, reads exactly n bytes into dst (in chunks), and checks that
  // nothing follows them and that the CRC matches (libzip does, at the end).
  void read_into(size_t i, void* dst, uint64_t n) const {
    check_empty(i);
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

  // Opens the archive with libzip and lists its entries; false (with libzip's
  // reason) when libzip refuses it. Error(Format) for an unreadable entry.
  bool open(int flags, std::string& reason) {
    if (archive) zip_discard(archive);
    archive = nullptr;
    names.clear();
    stats.clear();
    index.clear();
    const ByteSource& s = *src;
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* zs = zip_source_buffer_create(s.data(), s.size(), 0, &error);
    if (zs) {
      archive = zip_open_from_source(zs, flags, &error);
      if (!archive) zip_source_free(zs);
    }
    reason = archive ? "" : zip_error_strerror(&error);
    zip_error_fini(&error);
    if (!archive) return false;
    zip_int64_t n = zip_get_num_entries(archive, 0);
    GLIA_CHECK(n >= 0, Format, "not a zip archive: ", s.name());
    for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(n); ++i) {
      const char* name = zip_get_name(archive, i, ZIP_FL_ENC_RAW);
      zip_stat_t st;
      zip_stat_init(&st);
      GLIA_CHECK(name && zip_stat_index(archive, i, ZIP_FL_ENC_RAW, &st) == 0, Format, "zip entry ", i, " of ",
                 s.name(), " is unreadable: ", zip_error_strerror(zip_get_error(archive)));
      constexpr zip_uint64_t kNeeded = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
      GLIA_CHECK((st.valid & kNeeded) == kNeeded, Format, "zip entry \"", name, "\" of ", s.name(),
                 " has no sizes or method");
      names.emplace_back(name);
      stats.push_back(st);
      index.emplace(names.back(), names.size() - 1);  // the first of duplicate names wins
    }
    return true;
  }
  // Note [Stored zip entries]. Fills `where` after libzip has listed the entries.
  void locate();
  // The data of stored entry i in the source, its CRC checked.
  Ref<Storage> view_stored(size_t i, size_t alignment) const;

  // libzip reads an empty entry without checking its CRC; an empty entry's is 0.
  void check_empty(size_t i) const {
    GLIA_CHECK(stats[i].size != 0 || where[i].crc == 0, Format, "zip entry \"", names[i], "\" of ", src->name(),
               " is corrupt: it is empty, its CRC-32 is declared ", where[i].crc, ", not 0");
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

namespace {

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) { return static_cast<uint32_t>(le16(p)) | static_cast<uint32_t>(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t* p) { return static_cast<uint64_t>(le32(p)) | static_cast<uint64_t>(le32(p + 4)) << 32; }

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr uint32_t kMax32 = 0xffffffff;
constexpr uint16_t kZip64Extra = 0x0001, kEncryptedFlag = 0x0001, kDataDescriptorFlag = 0x0008;

// The zip64 extra field (id 1) in [p, p + n): its 8-byte values in order, or
// nullptr and 0 when there is none. Error text in `bad` when the fields overrun.
const uint8_t* find_zip64(const uint8_t* p, size_t n, size_t& len, const char*& bad) {
  len = 0;
  size_t k = 0;
  while (k + 4 <= n) {
    uint16_t id = le16(p + k), size = le16(p + k + 2);
    if (size > n - k - 4) {
      bad = "its extra fields overrun their length";
      return nullptr;
    }
    if (id == kZip64Extra) {
      len = size;
      return p + k + 4;
    }
    k += 4 + size;
  }
  return nullptr;
}

}  // namespace

void ZipReader::Impl::locate() {
  const uint8_t* d = src->data();
  const uint64_t n = src->size();
  const std::string& file = src->name();
  // The end record: the last "PK\5\6" whose comment reaches the end of the file exactly.
  uint64_t end = n;
  for (uint64_t k = n - 22 + 1; k-- > 0 && n - k <= 22 + 0xffff;) {
    if (le32(d + k) == kEndSig && le16(d + k + 20) == n - k - 22) {
      end = k;
      break;
    }
  }
  GLIA_CHECK(end < n, Format, "not a zip archive: ", file, ": no end of central directory record");
  uint64_t count = le16(d + end + 10), cd_size = le32(d + end + 12), cd_offset = le32(d + end + 16);
  if (end >= 20 && le32(d + end - 20) == kLocator64Sig) {
    uint64_t at = le64(d + end - 20 + 8);
    GLIA_CHECK(at <= end - 20 && end - 20 - at >= 56 && le32(d + at) == kEnd64Sig, Format, "not a zip archive: ", file,
               ": its zip64 locator points to byte ", at, ", where no zip64 end record is");
    count = le64(d + at + 32);
    cd_size = le64(d + at + 40);
    cd_offset = le64(d + at + 48);
    end = at;
  }
  GLIA_CHECK(cd_offset <= end && cd_size <= end - cd_offset, Format, "not a zip archive: ", file,
             ": its central directory [", cd_offset, ", +", cd_size, ") is not before its end record at byte ", end);
  GLIA_CHECK(count == names.size(), Format, "not a zip archive: ", file, ": its end record counts ", count,
             " entries, libzip lists ", names.size());
  where.resize(names.size());
  uint64_t pos = cd_offset;
  const uint64_t cd_end = cd_offset + cd_size;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const zip_stat_t& st = stats[i];
    GLIA_CHECK(cd_end - pos >= 46 && le32(d + pos) == kCentralSig, Format, "zip entry \"", name, "\" of ", file,
               ": no central directory header at byte ", pos);
    const uint8_t* c = d + pos;
    uint16_t flags = le16(c + 8), method = le16(c + 10), name_len = le16(c + 28), extra_len = le16(c + 30),
             comment_len = le16(c + 32);
    uint64_t comp = le32(c + 20), size = le32(c + 24), header = le32(c + 42);
    GLIA_CHECK(cd_end - pos - 46 >= uint64_t{name_len} + extra_len + comment_len, Format, "zip entry \"", name,
               "\" of ", file, ": its central directory header at byte ", pos, " overruns the central directory");
    GLIA_CHECK(std::string_view(reinterpret_cast<const char*>(c + 46), name_len) == name, Format, "zip entry \"", name,
               "\" of ", file, ": the central directory names it \"",
               std::string_view(reinterpret_cast<const char*>(c + 46), name_len), "\"");
    const char* bad = nullptr;
    size_t z64_len = 0;
    const uint8_t* z64 = find_zip64(c + 46 + name_len, extra_len, z64_len, bad);
    GLIA_CHECK(!bad, Format, "zip entry \"", name, "\" of ", file, ": in the central directory, ", bad);
    size_t used = 0;
    for (uint64_t* v : {&size, &comp, &header}) {
      if (*v != kMax32) continue;
      GLIA_CHECK(used + 8 <= z64_len, Format, "zip entry \"", name, "\" of ", file,
                 ": a size or offset is 0xffffffff without its zip64 extra field");
      *v = le64(z64 + used);
      used += 8;
    }
    GLIA_CHECK(method == st.comp_method && size == st.size && comp == st.comp_size, Format, "zip entry \"", name,
               "\" of ", file, ": the central directory declares method ", method, ", ", size, " bytes, ", comp,
               " compressed, libzip reads method ", st.comp_method, ", ", st.size, ", ", st.comp_size);
    where[i].header = header;
    where[i].crc = le32(c + 16);
    pos += 46 + uint64_t{name_len} + extra_len + comment_len;

    // The local header.
    GLIA_CHECK(header <= cd_offset && cd_offset - header >= 30 && le32(d + header) == kLocalSig, Format, "zip entry \"",
               name, "\" of ", file, ": no local header at byte ", header, " (the central directory starts at byte ",
               cd_offset, ")");
    const uint8_t* l = d + header;
    uint16_t l_flags = le16(l + 6), l_method = le16(l + 8), l_name = le16(l + 26), l_extra = le16(l + 28);
    uint64_t l_crc = le32(l + 14), l_comp = le32(l + 18), l_size = le32(l + 22);
    uint64_t data = header + 30 + l_name + l_extra;
    GLIA_CHECK(data <= cd_offset && comp <= cd_offset - data, Format, "zip entry \"", name, "\" of ", file,
               ": its data [", data, ", +", comp, ") runs past the central directory at byte ", cd_offset);
    GLIA_CHECK(std::string_view(reinterpret_cast<const char*>(l + 30), l_name) == name, Format, "zip entry \"", name,
               "\" of ", file, ": its local header at byte ", header, " names \"",
               std::string_view(reinterpret_cast<const char*>(l + 30), l_name), "\"");
    GLIA_CHECK(l_method == method, Format, "zip entry \"", name, "\" of ", file, ": its local header declares method ",
               l_method, ", the central directory ", method);
    size_t l64_len = 0;
    const uint8_t* l64 = find_zip64(l + 30 + l_name, l_extra, l64_len, bad);
    GLIA_CHECK(!bad, Format, "zip entry \"", name, "\" of ", file, ": in the local header, ", bad);
    // A local zip64 extra field holds both sizes, uncompressed first.
    if (l_size == kMax32 && l64_len >= 8) l_size = le64(l64);
    if (l_comp == kMax32 && l64_len >= 16) l_comp = le64(l64 + 8);
    // With a data descriptor (torch sets the flag), the local CRC and sizes may be zeros.
    bool zeros_ok = l_flags & kDataDescriptorFlag;
    auto agrees = [&](uint64_t local, uint64_t central) { return local == central || (zeros_ok && local == 0); };
    GLIA_CHECK(agrees(l_crc, where[i].crc) && agrees(l_size, size) && agrees(l_comp, comp), Format, "zip entry \"",
               name, "\" of ", file, ": its local header declares CRC ", l_crc, ", ", l_size, " bytes, ", l_comp,
               " compressed; the central directory ", where[i].crc, ", ", size, ", ", comp);
    // A stored entry's bytes are its data: an encrypted one (which libzip refuses to
    // read) would be viewed as ciphertext.
    GLIA_CHECK(!((flags | l_flags) & kEncryptedFlag), Format, "zip entry \"", name, "\" of ", file, " is encrypted");
    where[i].data = data;
  }
  // Entries in file order must not overlap: no two storages share bytes.
  std::vector<size_t> order(names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return where[a].header < where[b].header; });
  for (size_t k = 1; k < order.size(); ++k) {
    size_t a = order[k - 1], b = order[k];
    GLIA_CHECK(where[a].data + stats[a].comp_size <= where[b].header, Format, "zip entries \"", names[a], "\" and \"",
               names[b], "\" of ", file, " overlap (data up to byte ", where[a].data + stats[a].comp_size,
               ", next local header at byte ", where[b].header, ")");
  }
}

Ref<Storage> ZipReader::Impl::view_stored(size_t i, size_t alignment) const {
  const uint64_t nbytes = stats[i].size, at = where[i].data;
  // zlib's crc32 takes 32-bit lengths: in chunks.
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < nbytes;) {
    uInt chunk = static_cast<uInt>(std::min<uint64_t>(nbytes - done, uint64_t{1} << 30));
    crc = crc32(crc, src->data() + at + done, chunk);
    done += chunk;
  }
  GLIA_CHECK(crc == where[i].crc, Format, "zip entry \"", names[i], "\" of ", src->name(), " is corrupt: its ", nbytes,
             " stored bytes have CRC-32 ", crc, ", the central directory declares ", where[i].crc);
  return src->storage(at, nbytes, alignment);
}

ZipReader::ZipReader(Ref<ByteSource> src) : impl_(new Impl) {
  try {
    impl_->src = std::move(src);
    const ByteSource& s = *impl_->src;
    // libzip opens an empty buffer as an empty archive; a file has at least its end record.
    GLIA_CHECK(s.size() >= 22, Format, "not a zip archive: ", s.name(), " (", s.size(),
               " bytes, smaller than a zip end record)");
    std::string reason;
    if (!impl_->open(ZIP_RDONLY | ZIP_CHECKCONS, reason)) {
      // libzip's reasons ("Zip archive inconsistent", "Premature end of file") do not
      // name the entry: when the archive opens without ZIP_CHECKCONS and this reader's
      // own walk of it (locate) finds what is wrong, that is the message.
      std::string first = reason;
      if (impl_->open(ZIP_RDONLY, reason)) impl_->locate();
      fail(Code::Format, "not a zip archive: ", s.name(), ": ", first);
    }
    GLIA_CHECK(impl_->archive, Format, "not a zip archive: ", s.name(), ": ", reason);
    impl_->locate();
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

Ref<Storage> ZipReader::read_storage(size_t i, uint64_t nbytes, size_t alignment) const {
  GLIA_CHECK(impl_->stats.at(i).size == nbytes, Format, "zip entry \"", impl_->names[i], "\" of ", impl_->src->name(),
             " holds ", impl_->stats[i].size, " bytes, expected ", nbytes);
  impl_->check_size(i, nbytes);
  if (impl_->stats[i].comp_method == ZIP_CM_STORE) return impl_->view_stored(i, alignment);
  Ref<Storage> s = Storage::allocate(static_cast<size_t>(nbytes));
  if (nbytes) impl_->read_into(i, s->data(), nbytes);
  impl_->check_empty(i);
  return s;
}

}  // namespace glia::io
