// ZipWriter: the layout of torch's PyTorchStreamWriter (Note [Torch zip layout] in
// src/io/zip_write.cpp), read back by a strict parser of its own (no libzip) that
// torch_write_test.cpp shares.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/byte_source.h"
#include "io/zip.h"
#include "zip_strict.h"

namespace glia::io::zip_write_testing {
// Defined in zip_write.cpp: the limits at which zip64 fields and clamped counts start.
extern uint64_t zip64_limit;
extern uint64_t entries_limit;
}  // namespace glia::io::zip_write_testing

namespace glia_test {

namespace {
uint64_t le(const std::string& b, uint64_t at, int n) {
  if (at + n > b.size()) throw std::runtime_error("read past the end at " + std::to_string(at));
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}
void need(bool cond, const std::string& what) {
  if (!cond) throw std::runtime_error(what);
}
}  // namespace

// Reads the archive through its end records and central directory, and checks
// each entry against its local header, data descriptor and CRC. Expects what
// glia's writer (and torch's) write: stored entries, data at multiples of 64, one
// disk, entries back to back, the central directory right after the last one.
// Failures throw std::runtime_error naming the offset.
std::vector<ZipEntryInfo> parse_zip_strict(const std::string& b) {
  need(b.size() >= 22 + 20 + 56, "too short");
  uint64_t eocd = b.size() - 22;
  need(b.compare(eocd, 4, "PK\x05\x06") == 0, "no end record at the end (no comment expected)");
  uint64_t loc = eocd - 20;
  need(b.compare(loc, 4, "PK\x06\x07") == 0, "no zip64 locator");
  uint64_t z64 = le(b, loc + 8, 8);
  need(z64 == loc - 56 && b.compare(z64, 4, "PK\x06\x06") == 0, "zip64 end record not where the locator says");
  need(le(b, z64 + 4, 8) == 44, "zip64 end record size");
  uint64_t count = le(b, z64 + 24, 8), cd_size = le(b, z64 + 40, 8), cd_off = le(b, z64 + 48, 8);
  need(le(b, z64 + 32, 8) == count, "entry counts differ");
  need(cd_off + cd_size == z64, "central directory does not end at the zip64 end record");
  // The end record has the values, or all ones ("see the zip64 end record").
  need(le(b, eocd + 8, 2) == count || le(b, eocd + 8, 2) == 0xFFFF, "end record count");
  need(le(b, eocd + 12, 4) == cd_size || le(b, eocd + 12, 4) == 0xFFFFFFFF, "end record size");
  need(le(b, eocd + 16, 4) == cd_off || le(b, eocd + 16, 4) == 0xFFFFFFFF, "end record offset");

  std::vector<ZipEntryInfo> out;
  uint64_t p = cd_off, expected_local = 0;
  for (uint64_t i = 0; i < count; ++i) {
    need(b.compare(p, 4, "PK\x01\x02") == 0, "central header " + std::to_string(i) + " at " + std::to_string(p));
    ZipEntryInfo e;
    e.flags = static_cast<uint16_t>(le(b, p + 8, 2));
    need(le(b, p + 10, 2) == 0, "not stored");
    e.crc = static_cast<uint32_t>(le(b, p + 16, 4));
    uint64_t csize = le(b, p + 20, 4), usize = le(b, p + 24, 4);
    uint64_t nl = le(b, p + 28, 2), xl = le(b, p + 30, 2), cl = le(b, p + 32, 2);
    e.header_offset = le(b, p + 42, 4);
    e.name = b.substr(p + 46, nl);
    // zip64 extra: the fields that are 0xFFFFFFFF, in order.
    uint64_t x = p + 46 + nl, xend = x + xl;
    while (x < xend) {
      uint64_t id = le(b, x, 2), len = le(b, x + 2, 2), q = x + 4;
      if (id == 1) {
        if (usize == 0xFFFFFFFF) usize = le(b, q, 8), q += 8;
        if (csize == 0xFFFFFFFF) csize = le(b, q, 8), q += 8;
        if (e.header_offset == 0xFFFFFFFF) e.header_offset = le(b, q, 8), q += 8;
        need(q == x + 4 + len, "zip64 extra of " + e.name + " has extra bytes");
      }
      x += 4 + len;
    }
    need(csize == usize, "stored entry with two sizes");
    e.size = usize;
    p = xend + cl;

    uint64_t h = e.header_offset;
    need(h == expected_local, "entry " + e.name + " not right after the previous one");
    need(b.compare(h, 4, "PK\x03\x04") == 0, "local header of " + e.name);
    need(le(b, h + 6, 2) == e.flags, "flags differ for " + e.name);
    need(b.substr(h + 30, le(b, h + 26, 2)) == e.name, "local name of " + e.name);
    e.data_offset = h + 30 + le(b, h + 26, 2) + le(b, h + 28, 2);
    need(e.data_offset % 64 == 0, e.name + " data at " + std::to_string(e.data_offset) + ", not a multiple of 64");
    need(e.data_offset + e.size <= cd_off, "data of " + e.name + " past the central directory");
    uint32_t crc = static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(b.data() + e.data_offset), e.size));
    need(crc == e.crc, "CRC of " + e.name);
    uint64_t end = e.data_offset + e.size;
    if (e.flags & 8) {
      need(b.compare(end, 4, "PK\x07\x08") == 0, "data descriptor of " + e.name);
      need(le(b, end + 4, 4) == crc, "descriptor CRC of " + e.name);
      bool wide = e.size >= 0xFFFFFFFF || h >= 0xFFFFFFFF || xl > 0;
      int w = wide ? 8 : 4;
      need(le(b, end + 8, w) == e.size && le(b, end + 8 + w, w) == e.size, "descriptor sizes of " + e.name);
      end += 8 + 2 * w;
    } else {
      need(e.size == 0, "entry without descriptor has data: " + e.name);
    }
    expected_local = end;
    out.push_back(std::move(e));
  }
  need(p == z64 && expected_local == cd_off, "central directory size");
  return out;
}

}  // namespace glia_test

namespace {

using namespace glia;
using glia_test::parse_zip_strict;
namespace hooks = glia::io::zip_write_testing;

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += {d[c >> 4], d[c & 15]};
  return out;
}

std::string archive(const std::vector<std::pair<std::string, std::string>>& entries) {
  io::StringSink sink;
  io::ZipWriter zip(sink);
  for (const auto& [name, data] : entries) zip.add(name, data.data(), data.size());
  zip.finish();
  return sink.bytes;
}

// Lowers the zip64 limits for one test.
struct LowLimits {
  LowLimits(uint64_t size, uint64_t entries) {
    hooks::zip64_limit = size;
    hooks::entries_limit = entries;
  }
  ~LowLimits() {
    hooks::zip64_limit = 0xFFFFFFFFu;
    hooks::entries_limit = 0xFFFFu;
  }
};

// Byte for byte the entries of a torch 1.13 file ("my.pt": data.pkl of 451 bytes,
// storages of 48, 8, 0 and 2 bytes, version); offsets and padding as torch wrote them.
TEST(ZipWrite, LayoutIsTorchs) {
  std::string pkl(451, 'p'), s0(48, 'a'), s1(8, 'b'), s3 = "cd";
  std::string z = archive({{"my/data.pkl", pkl},
                           {"my/data/0", s0},
                           {"my/data/1", s1},
                           {"my/data/2", ""},
                           {"my/data/3", s3},
                           {"my/version", "3\n"}});
  ASSERT_EQ(z.size(), 1409u);  // as torch's
  auto e = parse_zip_strict(z);
  ASSERT_EQ(e.size(), 6u);
  const uint64_t headers[] = {0, 531, 640, 728, 832, 914}, data[] = {64, 576, 704, 832, 896, 960};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(e[i].header_offset, headers[i]) << e[i].name;
    EXPECT_EQ(e[i].data_offset, data[i]) << e[i].name;
    EXPECT_EQ(e[i].flags, i == 3 ? 0x0800 : 0x0808) << e[i].name;
  }
  // Local header of data.pkl: version 0, flags, stored, time/date/CRC/sizes 0, then "FB" padding.
  EXPECT_EQ(hex(z.substr(0, 30)), "504b0304000008080000000000000000000000000000000000000b001700");
  EXPECT_EQ(z.substr(30, 11), "my/data.pkl");
  EXPECT_EQ(z.substr(41, 23), std::string("FB\x13\x00", 4) + std::string(19, 'Z'));
  // Its data descriptor: 32-bit sizes.
  EXPECT_EQ(hex(z.substr(515, 16)).substr(0, 8), "504b0708");
  EXPECT_EQ(hex(z.substr(523, 8)), "c3010000c3010000");
  // The empty entry: no descriptor, the next header right after its (aligned) data start.
  EXPECT_EQ(z.substr(728 + 39, 4), std::string("FB\x3d\x00", 4));
  // Central header of version (the last): made by 0, needs 0, no extra, offset 914.
  uint64_t cd = 978 + 4 * 55 + 57;
  EXPECT_EQ(hex(z.substr(cd, 46)),
            "504b0102"
            "0000"
            "0000"
            "0808"
            "0000"
            "0000"
            "0000"
            "d19e6755"
            "02000000"
            "02000000"
            "0a00"
            "0000"
            "0000"
            "0000"
            "0000"
            "00000000"
            "92030000");
  // zip64 end record, locator, end record: torch's, byte for byte.
  EXPECT_EQ(hex(z.substr(1311)),
            "504b06062c000000000000001e032d000000000000000000060000000000000006000000000000004d01000000000000d203000000"
            "000000504b0607000000001f0500000000000001000000504b050600000000060006004d010000d203000000"
            "00");
}

TEST(ZipWrite, EmptyArchive) {
  std::string z = archive({});
  EXPECT_EQ(z.size(), 56u + 20 + 22);
  EXPECT_TRUE(parse_zip_strict(z).empty());
}

TEST(ZipWrite, SameInputSameBytes) {
  std::vector<std::pair<std::string, std::string>> in = {{"a/x", "hello"}, {"a/y", std::string(1000, '\0')}};
  EXPECT_EQ(archive(in), archive(in));
}

TEST(ZipWrite, NamesAsGiven) {
  std::string z = archive({{"ünï/daté", "x"}, {"a b/../c", "y"}});
  auto e = parse_zip_strict(z);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].name, "ünï/daté");
  EXPECT_EQ(e[1].name, "a b/../c");
}

// The zip64 records, reached with small entries by lowering the limits (the real
// 4 GiB case, against torch's own file, is TorchWrite.StorageOver4GiBIsTorchsFile).
TEST(ZipWrite, Zip64RecordsPastTheLimits) {
  LowLimits low(200, 3);
  std::string a(50, 'a'), b(300, 'b'), d(10, 'd');
  std::string z = archive({{"n/a", a}, {"n/b", b}, {"n/c", ""}, {"n/d", d}});
  auto e = parse_zip_strict(z);
  ASSERT_EQ(e.size(), 4u);
  // n/a: small, at 0: no zip64 field, 32-bit descriptor.
  EXPECT_EQ(e[0].header_offset, 0u);
  EXPECT_EQ(z.substr(30 + 3, 2), "FB");
  // n/b at 130: size 300 >= 200: local zip64 field [size, size], 64-bit descriptor.
  uint64_t hb = e[1].header_offset;
  EXPECT_EQ(hb, 130u);
  EXPECT_EQ(hex(z.substr(hb + 28, 2)), "1d00");  // 20 (zip64) + 4 ("FB") + 5 padding
  EXPECT_EQ(hex(z.substr(hb + 33, 20)), "010010002c010000000000000000000000000000");  // [size, 0]
  EXPECT_EQ(z.substr(hb + 53, 4), std::string("FB\x05\x00", 4));
  EXPECT_EQ(e[1].data_offset, 192u);
  EXPECT_EQ(hex(z.substr(492, 24)), "504b0708" + hex(z.substr(496, 4)) + "2c010000000000002c01000000000000");
  // n/c at 516 >= 200: zip64 field [offset] only, no descriptor (empty).
  uint64_t hc = e[2].header_offset;
  EXPECT_EQ(hc, 516u);
  EXPECT_EQ(e[2].flags, 0x0800);
  EXPECT_EQ(hex(z.substr(hc + 33, 12)),
            "0100080004020000"
            "00000000");
  // n/d: offset field and a 64-bit descriptor even though it is small.
  uint64_t hd = e[3].header_offset;
  EXPECT_EQ(hex(z.substr(hd + 33, 4)), "01000800");
  EXPECT_EQ(hex(z.substr(e[3].data_offset + 10 + 8, 16)), "0a000000000000000a00000000000000");
  // Central directory: sizes and offsets clamped to 0xFFFFFFFF where >= the limit,
  // the real values in the zip64 field.
  uint64_t cd = e[3].data_offset + 10 + 24;
  EXPECT_EQ(z.compare(cd, 4, "PK\x01\x02"), 0);
  uint64_t cb = cd + 46 + 3;  // n/a's central header has no extra
  EXPECT_EQ(hex(z.substr(cb + 20, 8)), "ffffffffffffffff");
  EXPECT_EQ(hex(z.substr(cb + 42, 4)), "82000000");
  EXPECT_EQ(hex(z.substr(cb + 46 + 3, 20)), "010010002c010000000000002c01000000000000");
  uint64_t cc = cb + 46 + 3 + 20;
  EXPECT_EQ(hex(z.substr(cc + 42, 4)), "ffffffff");
  EXPECT_EQ(hex(z.substr(cc + 46 + 3, 12)), "010008000402000000000000");
  // End record: 4 entries >= 3 -> 0xFFFF; the central directory's size (240) and
  // offset (674) >= 200 -> 0xFFFFFFFF.
  EXPECT_EQ(cd, 674u);
  std::string end = z.substr(z.size() - 22);
  EXPECT_EQ(hex(end.substr(8, 12)), "ffffffffffffffffffffffff");
  EXPECT_EQ(hex(z.substr(z.size() - 22 - 20 - 56 + 24, 16)), "04000000000000000400000000000000");
  // ZipReader finds each entry's data through these zip64 fields (Note [Stored zip
  // entries]) and views the aligned ones in the source.
  auto src = io::ByteSource::copy_of(z.data(), z.size());
  io::ZipReader r(src);
  ASSERT_EQ(r.size(), 4u);
  const std::string* want[] = {&a, &b, nullptr, &d};
  for (size_t i = 0; i < 4; ++i) {
    std::string expect = want[i] ? *want[i] : "";
    Ref<Storage> st = r.read_storage(i, expect.size(), 1);
    ASSERT_EQ(st->nbytes(), expect.size());
    if (expect.empty()) continue;
    auto p = static_cast<const uint8_t*>(st->data());
    EXPECT_EQ(p, src->data() + e[i].data_offset) << e[i].name;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(p), expect.size()), expect);
  }
}

TEST(ZipWrite, RefusesBadUse) {
  io::StringSink sink;
  io::ZipWriter zip(sink);
  zip.add("a", "x", 1);
  auto code_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return Code::Ok;
  };
  EXPECT_EQ(code_of([&] { zip.add("a", "y", 1); }), Code::InvalidArgument);  // duplicate
  EXPECT_EQ(code_of([&] { zip.add("", "y", 1); }), Code::InvalidArgument);
  EXPECT_EQ(code_of([&] { zip.add(std::string(70000, 'n'), "y", 1); }), Code::InvalidArgument);
  EXPECT_EQ(code_of([&] { zip.add("b", nullptr, 3); }), Code::InvalidArgument);
  zip.finish();
  EXPECT_EQ(code_of([&] { zip.add("c", "y", 1); }), Code::Internal);
  EXPECT_EQ(code_of([&] { zip.finish(); }), Code::Internal);
  EXPECT_EQ(parse_zip_strict(sink.bytes).size(), 1u);
}

}  // namespace
