// ZipReader over archives torch and Python's zipfile wrote
// (tests/golden/checkpoints/gen_torch_files.py).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/error.h"
#include "core/tensor.h"
#include "io/byte_source.h"
#include "io/checkpoint.h"
#include "io/torch_format.h"
#include "io/zip.h"
#include "support/test_support.h"
#include "zip_strict.h"

using namespace glia;
using namespace glia::io;

namespace {

Ref<ByteSource> file(const std::string& name) {
  return ByteSource::map_file(glia_test::data_path("golden/checkpoints/torch/" + name));
}

template <class F>
std::string error_of(F&& f, Code code = Code::Format) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.message();
    return e.message();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(ZipReader, ListsAndReadsTorchArchives) {
  ZipReader z(file("dtypes_zip.pt"));
  auto pkl = z.find("dtypes_zip/data.pkl");
  ASSERT_TRUE(pkl);
  EXPECT_EQ(z.name(*pkl), "dtypes_zip/data.pkl");
  std::string p = z.read(*pkl, 1 << 20);
  EXPECT_EQ(p.size(), z.uncompressed_size(*pkl));
  EXPECT_EQ(static_cast<uint8_t>(p[0]), 0x80);
  EXPECT_EQ(p.back(), '.');
  EXPECT_FALSE(z.find("dtypes_zip/nope"));
  EXPECT_FALSE(z.find("dtypes_zip/byteorder"));  // torch 1.13 writes none
  ZipReader big(file("dtypes_big.pt"));
  auto bo = big.find("dtypes_big/byteorder");
  ASSERT_TRUE(bo);
  EXPECT_EQ(big.read(*bo, 16), "big");
  // float32 storage "0": 10 elements.
  auto d0 = z.find("dtypes_zip/data/0");
  ASSERT_TRUE(d0);
  Ref<Storage> s = z.read_storage(*d0, z.uncompressed_size(*d0), 4);
  EXPECT_EQ(s->nbytes(), z.uncompressed_size(*d0));
  EXPECT_NE(error_of([&] { z.read_storage(*d0, z.uncompressed_size(*d0) + 4, 4); }).find("expected"),
            std::string::npos);
  EXPECT_NE(error_of([&] { z.read(*pkl, 10); }).find("more than the 10 allowed"), std::string::npos);
}

TEST(ZipReader, RefusesWhatIsNotAZip) {
  std::string junk = "PK\x03\x04 this is not a zip archive at all";
  auto msg = error_of([&] { ZipReader z(ByteSource::copy_of(junk.data(), junk.size())); });
  EXPECT_NE(msg.find("not a zip archive"), std::string::npos) << msg;
  auto empty = error_of([&] { ZipReader z(ByteSource::copy_of("", 0)); });
  EXPECT_NE(empty.find("not a zip archive"), std::string::npos) << empty;
}

TEST(ZipReader, RefusesZipBombsBeforeAllocating) {
  ZipReader z(file("hostile/zip_bomb.pt"));
  auto i = z.find("archive/data/0");
  ASSERT_TRUE(i);
  EXPECT_EQ(z.uncompressed_size(*i), uint64_t{1} << 31);
  auto msg = error_of([&] { z.read_storage(*i, uint64_t{1} << 31, 4); });
  EXPECT_NE(msg.find("(more than 1100:1, a zip bomb)"), std::string::npos) << msg;
}

TEST(ZipReader, ReadsAHighRatioEntryThatIsReal) {
  ZipReader z(file("hostile/deflated_zeros.pt"));
  auto i = z.find("archive/data/0");
  ASSERT_TRUE(i);
  Ref<Storage> s = z.read_storage(*i, 10 << 20, 4);
  const auto* p = static_cast<const uint8_t*>(s->data());
  for (size_t k = 0; k < s->nbytes(); ++k) ASSERT_EQ(p[k], 0);
}

TEST(ZipReader, ChecksTheCrc) {
  ZipReader z(file("hostile/bad_crc.pt"));
  auto i = z.find("archive/data/0");
  ASSERT_TRUE(i);
  auto msg = error_of([&] { z.read_storage(*i, 24, 4); });
  EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
}

// Note [Stored zip entries]: torch aligns stored entries to 64 bytes, so every
// storage of its zip files views the mapping.
bool inside(const Tensor& t, const ByteSource& src) {
  auto p = static_cast<const uint8_t*>(t.data());
  return p >= src.data() && p + t.numel() * glia::itemsize(t.dtype()) <= src.data() + src.size();
}

TEST(ZipReader, StoredEntriesViewTheMapping) {
  // (checkpoint_zip.pt's Python numbers become new 0-dim tensors; dtypes_big.pt was
  // rewritten by Python's zipfile, which does not align entries: both have copies.)
  for (const char* name : {"dtypes_zip.pt", "int_dtypes_zip.pt", "module_zip.pt", "params_zip.pt", "views_zip.pt"}) {
    auto src = file(name);
    auto d = io::load(src, io::Format::Auto);
    ASSERT_GT(d->size(), 0u) << name;
    for (size_t i = 0; i < d->size(); ++i) {
      const Tensor& t = d->value_at(i);
      if (t.numel() == 0) continue;
      EXPECT_TRUE(inside(t, *src)) << name << ": " << d->key_at(i) << " was copied";
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % glia::itemsize(t.dtype()), 0u);
    }
  }
}

TEST(ZipReader, ViewsOutliveTheSourceAndWritesNeverReachTheFile) {
  std::string path = glia_test::data_path("golden/checkpoints/torch/dtypes_zip.pt");
  std::string before = glia_test::read_file(path);
  Tensor t;
  {
    auto src = ByteSource::map_file(path);
    auto d = io::load(src, io::Format::Auto);
    size_t k = 0;
    while (k < d->size() && d->value_at(k).dtype() != DType::Float32) ++k;
    ASSERT_LT(k, d->size());
    t = d->value_at(k);
    ASSERT_TRUE(inside(t, *src));
  }
  // The dict and the source are gone; the tensor still reads and writes its pages.
  float first = t.data_ptr<float>()[0];
  t.data_ptr<float>()[0] = first + 1.0f;
  EXPECT_EQ(t.data_ptr<float>()[0], first + 1.0f);
  EXPECT_EQ(glia_test::read_file(path), before);
  auto again = io::load(ByteSource::map_file(path), io::Format::Auto);
  bool found = false;
  for (size_t i = 0; i < again->size(); ++i)
    if (again->value_at(i).dtype() == DType::Float32 && !found) {
      found = true;
      EXPECT_EQ(again->value_at(i).data_ptr<float>()[0], first);
    }
  EXPECT_TRUE(found);
}

TEST(ZipReader, BufferSourcesViewTheirAlignedCopyAndBorrowedOnesCopy) {
  std::string bytes = glia_test::read_file(glia_test::data_path("golden/checkpoints/torch/module_zip.pt"));
  auto heap = ByteSource::copy_of(bytes.data(), bytes.size());
  auto d = io::load(heap, io::Format::Auto);
  for (size_t i = 0; i < d->size(); ++i) EXPECT_TRUE(inside(d->value_at(i), *heap)) << d->key_at(i);
  auto borrowed = ByteSource::borrow(bytes.data(), bytes.size());
  auto c = io::load(borrowed, io::Format::Auto);
  ASSERT_EQ(c->size(), d->size());
  for (size_t i = 0; i < c->size(); ++i) {
    EXPECT_FALSE(inside(c->value_at(i), *borrowed)) << c->key_at(i);
    const Tensor& a = c->value_at(i);
    EXPECT_EQ(std::memcmp(a.data(), d->value_at(i).data(), a.numel() * glia::itemsize(a.dtype())), 0);
  }
}

// Hostile archives made from a golden file: the local header disagrees with the
// central directory.
struct Golden {
  std::string bytes = glia_test::read_file(glia_test::data_path("golden/checkpoints/torch/dtypes_zip.pt"));
  std::vector<glia_test::ZipEntryInfo> entries = glia_test::parse_zip_strict(bytes);
  const glia_test::ZipEntryInfo& entry(const std::string& name) const {
    for (const auto& e : entries)
      if (e.name == name) return e;
    throw std::runtime_error("no entry " + name);
  }
  // Where the central directory header of `name` starts.
  size_t central(const std::string& name) const {
    for (size_t k = bytes.find("PK\x01\x02"); k != std::string::npos; k = bytes.find("PK\x01\x02", k + 1))
      if (bytes.compare(k + 46, name.size(), name) == 0) return k;
    throw std::runtime_error("no central header for " + name);
  }
  void put16(size_t at, uint16_t v) {
    bytes[at] = static_cast<char>(v & 0xff);
    bytes[at + 1] = static_cast<char>(v >> 8);
  }
  void put32(size_t at, uint32_t v) {
    put16(at, static_cast<uint16_t>(v & 0xffff));
    put16(at + 2, static_cast<uint16_t>(v >> 16));
  }
  std::string load_error() const {
    return error_of([&] { io::load(ByteSource::copy_of(bytes.data(), bytes.size()), io::Format::Auto); });
  }
};

TEST(ZipReader, RefusesLocalHeadersThatDisagreeWithTheCentralDirectory) {
  const std::string entry = "dtypes_zip/data/0";
  {
    Golden g;
    EXPECT_NO_THROW(io::load(ByteSource::copy_of(g.bytes.data(), g.bytes.size()), io::Format::Auto));
  }
  {  // Another name in the local header (same length).
    Golden g;
    g.bytes[g.entry(entry).header_offset + 30 + entry.size() - 1] = '9';
    auto msg = g.load_error();
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory>: its local header at byte 893 names "
                       "\"dtypes_zip/data/9\""),
              std::string::npos)
        << msg;
  }
  {  // Deflated in the local header, stored in the central directory.
    Golden g;
    g.put16(g.entry(entry).header_offset + 8, 8);
    auto msg = g.load_error();
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory>: its local header declares method 8, the "
                       "central directory 0"),
              std::string::npos)
        << msg;
  }
  {  // The central directory's local header offset past the end of the file.
    Golden g;
    g.put32(g.central(entry) + 42, static_cast<uint32_t>(g.bytes.size() + 100));
    auto msg = g.load_error();
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory>: no local header at byte " +
                       std::to_string(g.bytes.size() + 100)),
              std::string::npos)
        << msg;
  }
  {  // A local extra length that pushes the data past the end of the file.
    Golden g;
    g.put16(g.entry(entry).header_offset + 28, 0xffff);
    auto msg = g.load_error();
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory>: its data [66475, +40) runs past the central "
                       "directory"),
              std::string::npos)
        << msg;
  }
  {  // A CRC in the local header that is neither the central directory's nor zero.
    Golden g;
    g.put32(g.entry(entry).header_offset + 14, 12345);
    auto msg = g.load_error();
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory>: its local header declares CRC 12345"),
              std::string::npos)
        << msg;
  }
  {  // Encrypted (flag bit 0 in both headers): its bytes would be ciphertext.
    Golden g;
    g.put16(g.entry(entry).header_offset + 6, 0x0809);
    g.put16(g.central(entry) + 8, 0x0809);
    auto msg = g.load_error();
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory> is encrypted"), std::string::npos) << msg;
  }
  {  // An empty entry whose CRC is not 0 (a fuzzer's find: libzip reads it without a word).
    Golden g;
    size_t c = g.central(entry);
    g.put32(c + 20, 0);
    g.put32(c + 24, 0);
    ZipReader z(ByteSource::copy_of(g.bytes.data(), g.bytes.size()));
    auto i = z.find(entry);
    ASSERT_TRUE(i);
    auto msg = error_of([&] { z.read(*i, 100); });
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory> is corrupt: it is empty, its CRC-32 is declared"),
              std::string::npos)
        << msg;
    auto storage_msg = error_of([&] { z.read_storage(*i, 0, 4); });
    EXPECT_NE(storage_msg.find("is corrupt"), std::string::npos) << storage_msg;
  }
  {  // A stored entry whose bytes do not match its CRC: refused when viewed.
    Golden g;
    g.bytes[g.entry(entry).data_offset + 3] ^= 0x40;
    auto msg = g.load_error();
    EXPECT_NE(msg.find("zip entry \"dtypes_zip/data/0\" of <memory> is corrupt: its 40 stored bytes have CRC-32"),
              std::string::npos)
        << msg;
    // The same from a file: the mapping is checked, not a copy.
    std::string path = ::testing::TempDir() + "/glia_zip_bad_crc.pt";
    {
      FILE* f = std::fopen(path.c_str(), "wb");
      ASSERT_NE(f, nullptr);
      std::fwrite(g.bytes.data(), 1, g.bytes.size(), f);
      std::fclose(f);
    }
    auto file_msg = error_of([&] { io::load_file(path, io::Format::Auto); });
    EXPECT_NE(file_msg.find("is corrupt"), std::string::npos) << file_msg;
    std::remove(path.c_str());
  }
}

}  // namespace
