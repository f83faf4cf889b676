// The safetensors reader and writer from the inside: exact bytes of the writer,
// round trips of every dtype bit for bit, header order, layout and alignment,
// and zero-copy loading of a 100 MB file (the tensors view the mapping).
#include "io/safetensors.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "io/checkpoint.h"
#include "support/test_support.h"

namespace {

using glia::DType;
using glia::Tensor;
namespace io = glia::io;
namespace nn = glia::nn;

template <class T>
Tensor tensor_of(std::vector<int64_t> shape, DType dtype, const std::vector<T>& values) {
  Tensor t = glia::empty(shape, dtype, glia::Device{});
  EXPECT_EQ(static_cast<size_t>(t.numel()) * glia::itemsize(dtype), values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.data(), values.data(), values.size() * sizeof(T));
  return t;
}

std::string bytes_of(const Tensor& t) {
  Tensor c = glia::contiguous(t);
  return std::string(static_cast<const char*>(c.data()), static_cast<size_t>(c.numel()) * glia::itemsize(c.dtype()));
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(n >> (8 * i));
  return s;
}

// A file: length, header, data.
std::string file_of(const std::string& header, const std::string& data) { return le64(header.size()) + header + data; }

std::string f32_bytes(std::initializer_list<float> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(float));
}

glia::Ref<nn::TensorDict> read(const std::string& bytes) {
  return io::read_safetensors(io::ByteSource::copy_of(bytes.data(), bytes.size()));
}

std::string write(const nn::TensorDict& d) {
  io::StringSink sink;
  io::write_safetensors(d, sink);
  return sink.bytes;
}

std::vector<std::string> keys(const nn::TensorDict& d) {
  std::vector<std::string> k;
  for (size_t i = 0; i < d.size(); ++i) k.push_back(d.key_at(i));
  return k;
}

// A directory under $TMPDIR removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "glia-safetensors-XXXXXX").string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(SafetensorsWrite, BytesOfTheFormatsOwnExample) {
  // The format's own example (the reference's test_serialization): "attn.0", F32
  // [1, 2, 3], 0..5. The JSON is byte for byte the reference writer's; glia pads it
  // with spaces to put the data at byte 128 (the reference pads to 8, byte 72).
  nn::TensorDict d;
  d.set("attn.0", tensor_of<float>({1, 2, 3}, DType::Float32, {0, 1, 2, 3, 4, 5}));
  std::string json = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  std::string expected = file_of(json + std::string(128 - 8 - json.size(), ' '), f32_bytes({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(write(d), expected);
}

TEST(SafetensorsWrite, EmptyDictAndMetadataFirst) {
  nn::TensorDict empty;
  EXPECT_EQ(write(empty), le64(56) + "{}" + std::string(54, ' '));
  EXPECT_EQ(read(write(empty))->size(), 0u);

  nn::TensorDict d;
  d.metadata = {{"framework", "pt"}, {"format", "glia"}};
  d.set("b", tensor_of<uint8_t>({2}, DType::UInt8, {7, 9}));
  std::string json =
      R"({"__metadata__":{"framework":"pt","format":"glia"},"b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  EXPECT_EQ(write(d), file_of(json + std::string(128 - 8 - json.size(), ' '), "\x07\x09"));
}

TEST(SafetensorsWrite, EscapesNamesAsJson) {
  nn::TensorDict d;
  d.set("q\"\\\n\x01\xc3\xa9", tensor_of<uint8_t>({}, DType::UInt8, {1}));
  std::string out = write(d);
  EXPECT_NE(out.find(R"("q\"\\\n\u0001)"
                     "\xc3\xa9\""),
            std::string::npos)
      << out;
  EXPECT_EQ(keys(*read(out)), keys(d));
}

TEST(SafetensorsWrite, DataSortedByElementSizeHeaderInDictOrder) {
  // Every tensor lands at a multiple of its element size, whatever the dict order.
  nn::TensorDict d;
  d.set("mask", tensor_of<uint8_t>({3}, DType::Bool, {1, 0, 1}));
  d.set("w", tensor_of<float>({2}, DType::Float32, {1.5f, -2}));
  d.set("h", tensor_of<uint16_t>({1}, DType::Float16, {0x3c00}));
  d.set("step", tensor_of<int64_t>({}, DType::Int64, {42}));
  std::string out = write(d);
  uint64_t n = 0;
  std::memcpy(&n, out.data(), 8);
  EXPECT_EQ((8 + n) % 64, 0u);
  std::string header = out.substr(8, n);
  EXPECT_NE(header.find(R"("mask":{"dtype":"BOOL","shape":[3],"data_offsets":[18,21]})"), std::string::npos) << header;
  EXPECT_NE(header.find(R"("w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]})"), std::string::npos);
  EXPECT_NE(header.find(R"("h":{"dtype":"F16","shape":[1],"data_offsets":[16,18]})"), std::string::npos);
  EXPECT_NE(header.find(R"("step":{"dtype":"I64","shape":[],"data_offsets":[0,8]})"), std::string::npos);
  EXPECT_LT(header.find("\"mask\""), header.find("\"w\""));
  EXPECT_LT(header.find("\"h\""), header.find("\"step\""));
  EXPECT_EQ(out.size(), 8 + n + 21);

  auto src = io::ByteSource::copy_of(out.data(), out.size());
  auto back = io::read_safetensors(src);
  EXPECT_EQ(keys(*back), (std::vector<std::string>{"mask", "w", "h", "step"}));
  for (size_t i = 0; i < back->size(); ++i) {
    const Tensor& t = back->value_at(i);
    auto p = static_cast<const uint8_t*>(t.data());
    EXPECT_TRUE(p >= src->data() && p < src->data() + src->size()) << back->key_at(i) << " was copied";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % glia::itemsize(t.dtype()), 0u);
    EXPECT_EQ(bytes_of(t), bytes_of(*d.find(back->key_at(i))));
  }
}

TEST(SafetensorsWrite, StridedViewsAreWrittenContiguousAndSharingIsNotKept) {
  Tensor base = tensor_of<int32_t>({2, 3}, DType::Int32, {1, 2, 3, 4, 5, 6});
  Tensor t = glia::make_view(base, std::vector<int64_t>{3, 2}, std::vector<int64_t>{1, 3}, 0);  // base.T
  Tensor row = glia::make_view(base, std::vector<int64_t>{3}, std::vector<int64_t>{1}, 3);
  nn::TensorDict d;
  d.set("t", t);
  d.set("row", row);
  auto back = read(write(d));
  EXPECT_EQ(bytes_of(*back->find("t")), bytes_of(glia::contiguous(t)));
  EXPECT_EQ(back->find("t")->shape(), t.shape());
  EXPECT_EQ(bytes_of(*back->find("row")), bytes_of(row));
  EXPECT_NE(back->find("t")->impl()->storage().get(), back->find("row")->impl()->storage().get());
}

TEST(SafetensorsWrite, RejectsWhatAHeaderCannotHold) {
  auto code_and_message = [](const nn::TensorDict& d) {
    try {
      write(d);
    } catch (const glia::Error& e) {
      return std::make_pair(e.code(), e.message());
    }
    return std::make_pair(glia::Code::Ok, std::string());
  };
  nn::TensorDict reserved;
  reserved.set("__metadata__", tensor_of<uint8_t>({1}, DType::UInt8, {1}));
  auto [c1, m1] = code_and_message(reserved);
  EXPECT_EQ(c1, glia::Code::InvalidArgument);
  EXPECT_NE(m1.find("cannot be named \"__metadata__\""), std::string::npos) << m1;

  nn::TensorDict bad_utf8;
  bad_utf8.set("w\xff", tensor_of<uint8_t>({1}, DType::UInt8, {1}));
  auto [c2, m2] = code_and_message(bad_utf8);
  EXPECT_EQ(c2, glia::Code::InvalidArgument);
  EXPECT_NE(m2.find("tensor name \"w\xff\" is not valid UTF-8 (byte 1)"), std::string::npos) << m2;

  nn::TensorDict bad_meta;
  bad_meta.metadata = {{"k", "\xc0\x80"}};  // overlong NUL
  auto [c3, m3] = code_and_message(bad_meta);
  EXPECT_EQ(c3, glia::Code::InvalidArgument);
  EXPECT_NE(m3.find("metadata value"), std::string::npos) << m3;
}

TEST(SafetensorsRoundTrip, EveryDTypeBitForBit) {
  nn::TensorDict d;
  // NaNs with payloads and both signs, -0.0, infinities, subnormals.
  d.set("f64", tensor_of<uint64_t>({5}, DType::Float64,
                                   {0x7ff8000000000001ull, 0xfff0000000000badull, 0x8000000000000000ull,
                                    0x7ff0000000000000ull, 0x0000000000000001ull}));
  d.set("f32", tensor_of<uint32_t>({2, 3}, DType::Float32,
                                   {0x7fc00123u, 0xff800001u, 0x80000000u, 0xff800000u, 0x00000001u, 0x3f800000u}));
  d.set("f16", tensor_of<uint16_t>({4}, DType::Float16, {0x7e01, 0xfc01, 0x8000, 0x0001}));
  d.set("bf16", tensor_of<uint16_t>({2, 2}, DType::BFloat16, {0x7fc1, 0xff81, 0x8000, 0x0001}));
  d.set("i64", tensor_of<int64_t>({3}, DType::Int64, {std::numeric_limits<int64_t>::min(), -1, INT64_MAX}));
  d.set("i32", tensor_of<int32_t>({3}, DType::Int32, {INT32_MIN, 0, INT32_MAX}));
  d.set("u8", tensor_of<uint8_t>({3}, DType::UInt8, {0, 128, 255}));
  d.set("i16", tensor_of<int16_t>({4}, DType::Int16, {INT16_MIN, -1, 0, INT16_MAX}));
  d.set("i8", tensor_of<int8_t>({2, 2}, DType::Int8, {INT8_MIN, -1, 0, INT8_MAX}));
  d.set("bool", tensor_of<uint8_t>({2}, DType::Bool, {1, 0}));
  d.set("scalar", tensor_of<double>({}, DType::Float64, {-0.0}));
  d.set("empty", tensor_of<float>({0, 3}, DType::Float32, {}));
  d.set("empty_bool", tensor_of<uint8_t>({4, 0}, DType::Bool, {}));
  d.metadata = {{"format", "pt"}, {"note", "caf\xc3\xa9 \"quoted\"\n"}, {"empty", ""}};

  std::string bytes = write(d);
  auto back = read(bytes);
  ASSERT_EQ(keys(*back), keys(d));
  for (size_t i = 0; i < d.size(); ++i) {
    SCOPED_TRACE(d.key_at(i));
    const Tensor &a = d.value_at(i), &b = back->value_at(i);
    EXPECT_EQ(b.dtype(), a.dtype());
    EXPECT_EQ(b.shape(), a.shape());
    EXPECT_TRUE(b.is_contiguous());
    EXPECT_EQ(bytes_of(b), bytes_of(a));
  }
  EXPECT_EQ(back->metadata, d.metadata);
  EXPECT_EQ(write(*back), bytes);  // and back again to the same bytes
}

TEST(SafetensorsRead, OrderIsTheHeaderOrder) {
  // Header order b, a; data order a, b.
  std::string json = R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]},)"
                     R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  auto d = read(file_of(json, "\x01\x02\x03"));
  EXPECT_EQ(keys(*d), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(bytes_of(*d->find("a")), "\x01\x02");
  EXPECT_EQ(bytes_of(*d->find("b")), "\x03");
}

TEST(SafetensorsRead, WhatTheReferenceAccepts) {
  // The reference writer's own output: header padded to 8 with spaces, data at 72.
  std::string json = R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})";
  auto d = read(file_of(json + "       ", f32_bytes({0, 1, 2, 3, 4, 5})));
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ(d->value_at(0).shape(), (glia::Dims{1, 1, 2, 3}));
  EXPECT_EQ(bytes_of(d->value_at(0)), f32_bytes({0, 1, 2, 3, 4, 5}));

  // Unknown fields of an entry are skipped (serde without deny_unknown_fields),
  // whatever they hold; "__metadata__": null is no metadata; leading whitespace.
  std::string lenient = R"( {"__metadata__":null,"x":{"extra":{"deep":[1,[2,{"a":null}]]},"dtype":"I32",)"
                        R"("note":"hi","shape":[1],"data_offsets":[0,4],"n":-1.5}})";
  auto l = read(file_of(lenient, std::string("\x05\x00\x00\x00", 4)));
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ(l->value_at(0).data_ptr<int32_t>()[0], 5);
  EXPECT_TRUE(l->metadata.empty());
}

TEST(SafetensorsRead, Int8AndInt16AsTheFormatNamesThem) {
  // I16 [3] then I8 [2], little-endian, as the reference writes them (largest itemsize first).
  std::string json = R"({"s":{"dtype":"I16","shape":[3],"data_offsets":[0,6]},)"
                     R"("c":{"dtype":"I8","shape":[2],"data_offsets":[6,8]}})";
  auto d = read(file_of(json, std::string("\x00\x80\xff\xff\xff\x7f\x80\x7f", 8)));
  const Tensor &s = *d->find("s"), &c = *d->find("c");
  EXPECT_EQ(s.dtype(), DType::Int16);
  EXPECT_EQ(c.dtype(), DType::Int8);
  EXPECT_EQ(s.data_ptr<int16_t>()[0], INT16_MIN);
  EXPECT_EQ(s.data_ptr<int16_t>()[1], -1);
  EXPECT_EQ(s.data_ptr<int16_t>()[2], INT16_MAX);
  EXPECT_EQ(c.data_ptr<int8_t>()[0], INT8_MIN);
  EXPECT_EQ(c.data_ptr<int8_t>()[1], INT8_MAX);
  // And written back under the same names.
  std::string header = write(*d).substr(8, 200);
  EXPECT_NE(header.find(R"("s":{"dtype":"I16","shape":[3],"data_offsets":[0,6]})"), std::string::npos) << header;
  EXPECT_NE(header.find(R"("c":{"dtype":"I8","shape":[2],"data_offsets":[6,8]})"), std::string::npos) << header;
}

TEST(SafetensorsRead, MisalignedTensorIsCopiedWithTheRightValues) {
  // U8 [1] then F32 [1] at offset 1: not viewable as float, so copied.
  std::string json = R"({"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                     R"("f":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}})";
  json.append((64 - (8 + json.size()) % 64) % 64, ' ');  // the data buffer at a multiple of 64
  std::string bytes = file_of(json, "\x07" + f32_bytes({2.5f}));
  auto src = io::ByteSource::copy_of(bytes.data(), bytes.size());
  auto d = io::read_safetensors(src);
  const Tensor& f = *d->find("f");
  EXPECT_EQ(f.data_ptr<float>()[0], 2.5f);
  auto p = static_cast<const uint8_t*>(f.data());
  EXPECT_FALSE(p >= src->data() && p < src->data() + src->size());
  auto q = static_cast<const uint8_t*>(d->find("u")->data());
  EXPECT_TRUE(q >= src->data() && q < src->data() + src->size());
}

TEST(SafetensorsRead, ZeroCopyOf100MBFileAndWritesNeverReachTheFile) {
  TempDir dir;
  std::string path = dir.path + "/model.safetensors";
  nn::TensorDict d;
  // ResNet-ish: a few large and many small tensors, mixed dtypes; 100 MB in all.
  int64_t total = 0;
  for (int i = 0; total < (100 << 20); ++i) {
    int64_t rows = (i % 3 == 0) ? 1024 : 64;
    Tensor t =
        glia::full(std::vector<int64_t>{rows, 1024}, static_cast<double>(i % 100), DType::Float32, glia::Device{});
    d.set("layer" + std::to_string(i) + ".weight", t);
    d.set("layer" + std::to_string(i) + ".num_batches_tracked", tensor_of<int64_t>({}, DType::Int64, {i}));
    d.set("layer" + std::to_string(i) + ".half",
          glia::full(std::vector<int64_t>{7}, 1.0, DType::Float16, glia::Device{}));
    total += rows * 1024 * 4 + 8 + 14;
  }
  io::save_file(d, path, io::Format::Safetensors);
  std::string before = glia_test::read_file(path);
  ASSERT_GE(before.size(), size_t(100) << 20);

  auto src = io::ByteSource::map_file(path);
  auto back = io::load(src, io::Format::Auto);
  ASSERT_EQ(back->size(), d.size());
  for (size_t i = 0; i < back->size(); ++i) {
    const Tensor& t = back->value_at(i);
    auto p = static_cast<const uint8_t*>(t.data());
    ASSERT_TRUE(p >= src->data() && p + t.numel() * glia::itemsize(t.dtype()) <= src->data() + src->size())
        << back->key_at(i) << " does not view the mapping";
  }
  EXPECT_EQ(bytes_of(*back->find("layer5.weight")), bytes_of(*d.find("layer5.weight")));

  // Copy-on-write: the tensor changes, the file does not.
  Tensor w = *back->find("layer0.weight");
  glia::fill(w, 3.25);
  EXPECT_EQ(w.data_ptr<float>()[12345], 3.25f);
  back.reset();
  src.reset();
  EXPECT_EQ(glia_test::read_file(path), before);
}

TEST(SafetensorsRead, TheSourceOutlivesItsReaders) {
  // Tensors keep the mapping alive after the dict and the source are gone.
  nn::TensorDict d;
  d.set("x", tensor_of<float>({3}, DType::Float32, {1, 2, 3}));
  std::string bytes = write(d);
  Tensor x;
  {
    auto src = io::ByteSource::copy_of(bytes.data(), bytes.size());
    x = *io::read_safetensors(src)->find("x");
  }
  EXPECT_EQ(x.data_ptr<float>()[2], 3.0f);
}

}  // namespace
