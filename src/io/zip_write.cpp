// Zip archives as torch's PyTorchStreamWriter (miniz) writes them, byte for byte:
// stored entries, a data descriptor after each non-empty entry, the data of each
// entry at a multiple of 64 bytes in the file, zip64 records where miniz writes them.
//
// Note [Torch zip layout] (measured on files torch 1.13's torch.save wrote, and
// on one of 4 GiB + 5 bytes; tests/io/zip_write_test.cpp compares against them):
// - Local header: version needed 0, flags 0x0808 (data descriptor, UTF-8 name;
//   0x0800 for an empty entry, which has no descriptor), method 0, DOS time and
//   date 0 (deterministic), CRC and sizes 0 (they follow in the descriptor).
// - Its extra field: a zip64 field (0x0001) when the entry's size or the header's
//   offset is >= 0xFFFFFFFF, holding [size, 0] and/or [offset]; then torch's
//   "FB" field whose 'Z' bytes pad the data start to a multiple of 64.
// - Descriptor: PK\7\8, CRC, then sizes as 32 bits, or 64 bits when the local
//   header carries a zip64 field.
// - Central directory: no "FB" field; sizes and offset clamped to 0xFFFFFFFF, with
//   the zip64 field of the local header, the compressed size filled in. Always a zip64 end record (made by
//   0x031e, needs 45) and locator, then the end record with the entry count
//   clamped to 0xFFFF and sizes/offsets to 0xFFFFFFFF.
#include <zlib.h>

#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/error.h"
#include "io/zip.h"

namespace glia::io {

// Test hooks: zip_write_test.cpp lowers these to reach the zip64 records with
// small archives. Values at or above zip64_limit go to zip64 fields (miniz
// compares with >= MZ_UINT32_MAX); entry counts are clamped at entries_limit.
namespace zip_write_testing {
uint64_t zip64_limit = 0xFFFFFFFFu;
uint64_t entries_limit = 0xFFFFu;
}  // namespace zip_write_testing

namespace {

using zip_write_testing::entries_limit;
using zip_write_testing::zip64_limit;

constexpr uint64_t kAlignment = 64;  // torch's kFieldAlignment
constexpr uint16_t kFlagsDescriptor = 0x0808;
constexpr uint16_t kFlagsEmpty = 0x0800;

struct Bytes {
  std::string b;
  void u16(uint64_t v) {
    for (int i = 0; i < 2; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u32(uint64_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void str(std::string_view s) { b.append(s); }
};

uint32_t clamp32(uint64_t v) { return v >= zip64_limit ? 0xFFFFFFFFu : static_cast<uint32_t>(v); }

struct Entry {
  std::string name;
  uint64_t offset = 0;  // of the local header
  uint64_t size = 0;
  uint32_t crc = 0;
};

// The zip64 extra field (header id 1) miniz writes, or nothing when neither the
// size nor the offset needs one. In the local header the compressed size is 0
// (miniz writes the header before the data; the descriptor has the size).
std::string zip64_extra(const Entry& e, bool local) {
  bool big_size = e.size >= zip64_limit, big_offset = e.offset >= zip64_limit;
  Bytes x;
  if (!big_size && !big_offset) return x.b;
  x.u16(1);
  x.u16((big_size ? 16 : 0) + (big_offset ? 8 : 0));
  if (big_size) {
    x.u64(e.size);              // uncompressed
    x.u64(local ? 0 : e.size);  // compressed (stored)
  }
  if (big_offset) x.u64(e.offset);
  return x.b;
}

}  // namespace

struct ZipWriter::Impl {
  Sink& out;
  uint64_t cursor = 0;  // bytes of this archive written so far
  std::vector<Entry> entries;
  std::unordered_set<std::string> names;
  bool finished = false;

  explicit Impl(Sink& o) : out(o) {}
  void write(const void* p, size_t n) {
    out.write(p, n);
    cursor += n;
  }
  void write(const std::string& s) { write(s.data(), s.size()); }
};

ZipWriter::ZipWriter(Sink& out) : impl_(new Impl(out)) {}
ZipWriter::~ZipWriter() { delete impl_; }

void ZipWriter::add(std::string_view name, const void* data, size_t n) {
  Impl& z = *impl_;
  GLIA_CHECK(!z.finished, Internal, "zip write: add(\"", name, "\") after finish()");
  GLIA_CHECK(!name.empty() && name.size() <= 0xFFFF, InvalidArgument, "zip write: entry name of ", name.size(),
             " bytes (1 to 65535 allowed)");
  GLIA_CHECK(data || n == 0, InvalidArgument, "zip write: entry \"", name, "\" has ", n, " bytes but no data");
  GLIA_CHECK(z.names.insert(std::string(name)).second, InvalidArgument, "zip write: duplicate entry \"", name, "\"");

  Entry e;
  e.name = std::string(name);
  e.offset = z.cursor;
  e.size = n;
  e.crc = static_cast<uint32_t>(crc32_z(0, static_cast<const Bytef*>(data), n));
  std::string zip64 = zip64_extra(e, true);

  // torch's getPadding(): the "FB" field's 'Z' bytes bring the data start to a
  // multiple of 64; the field is there even when it pads nothing.
  uint64_t start = e.offset + 30 + name.size() + zip64.size() + 4;
  uint64_t pad = (kAlignment - start % kAlignment) % kAlignment;
  Bytes h;
  h.str("PK\x03\x04");
  h.u16(0);  // version needed (miniz writes 0)
  h.u16(n ? kFlagsDescriptor : kFlagsEmpty);
  h.u16(0);  // stored
  h.u16(0);  // DOS time
  h.u16(0);  // DOS date
  h.u32(0);  // CRC: in the descriptor
  h.u32(0);  // compressed size: in the descriptor
  h.u32(0);  // uncompressed size: in the descriptor
  h.u16(name.size());
  h.u16(zip64.size() + 4 + pad);
  h.str(name);
  h.str(zip64);
  h.str("FB");
  h.u16(pad);
  h.b.append(pad, 'Z');
  z.write(h.b);
  if (n) z.write(data, n);

  if (n) {
    Bytes d;
    d.str("PK\x07\x08");
    d.u32(e.crc);
    if (zip64.empty()) {
      d.u32(n);
      d.u32(n);
    } else {
      d.u64(n);
      d.u64(n);
    }
    z.write(d.b);
  }
  z.entries.push_back(std::move(e));
}

void ZipWriter::finish() {
  Impl& z = *impl_;
  GLIA_CHECK(!z.finished, Internal, "zip write: finish() called twice");
  z.finished = true;
  uint64_t cd_offset = z.cursor;
  for (const Entry& e : z.entries) {
    std::string zip64 = zip64_extra(e, false);
    Bytes c;
    c.str("PK\x01\x02");
    c.u16(0);  // version made by
    c.u16(0);  // version needed
    c.u16(e.size ? kFlagsDescriptor : kFlagsEmpty);
    c.u16(0);  // stored
    c.u16(0);  // DOS time
    c.u16(0);  // DOS date
    c.u32(e.crc);
    c.u32(clamp32(e.size));
    c.u32(clamp32(e.size));
    c.u16(e.name.size());
    c.u16(zip64.size());
    c.u16(0);  // comment
    c.u16(0);  // disk
    c.u16(0);  // internal attributes
    c.u32(0);  // external attributes
    c.u32(clamp32(e.offset));
    c.str(e.name);
    c.str(zip64);
    z.write(c.b);
  }
  uint64_t cd_size = z.cursor - cd_offset;
  uint64_t zip64_eocd_offset = z.cursor;
  uint64_t count = z.entries.size();

  Bytes t;
  t.str("PK\x06\x06");
  t.u64(44);      // size of the rest of this record
  t.u16(0x031e);  // made by: Unix, 3.0
  t.u16(45);      // needs 4.5 (zip64)
  t.u32(0);       // this disk
  t.u32(0);       // disk with the central directory
  t.u64(count);
  t.u64(count);
  t.u64(cd_size);
  t.u64(cd_offset);

  t.str("PK\x06\x07");
  t.u32(0);
  t.u64(zip64_eocd_offset);
  t.u32(1);  // disks

  t.str("PK\x05\x06");
  t.u16(0);
  t.u16(0);
  t.u16(count >= entries_limit ? 0xFFFF : count);
  t.u16(count >= entries_limit ? 0xFFFF : count);
  t.u32(clamp32(cd_size));
  t.u32(clamp32(cd_offset));
  t.u16(0);  // comment
  z.write(t.b);
}

}  // namespace glia::io
