// ZipReader over archives torch and Python's zipfile wrote
// (tests/golden/checkpoints/gen_torch_files.py).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "io/byte_source.h"
#include "io/zip.h"
#include "support/test_support.h"

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

}  // namespace
