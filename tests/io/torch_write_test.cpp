// write_torch: files that torch.load(weights_only=True) reads back.
//
// The fixture dicts below are written to tests/golden/checkpoints/glia_written/ by
// tests/golden/checkpoints/verify_glia_written.py (it runs this binary with
// GLIA_WRITE_TORCH_FIXTURES=<dir>), which loads each file with torch 1.13, checks
// keys, dtypes, shapes, strides, offsets, storage sharing and bytes, checks that
// torch.save of what it loaded writes the very same bytes, and records the files'
// sha256 in glia_written.json. Here, writing the same dicts today must give those
// bytes: a change to the writer fails until the script is run again with torch.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <zlib.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "io/byte_source.h"
#include "io/checkpoint.h"
#include "io/torch_format.h"
#include "nn/tensor_dict.h"
#include "support/test_support.h"
#include "zip_strict.h"

namespace {

using namespace glia;
using glia_test::parse_zip_strict;
using glia_test::ZipEntryInfo;
using json = nlohmann::json;

// ---- SHA-256 (FIPS 180-4), for the recorded digests ----
std::string sha256_hex(const std::string& data) {
  static const uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = data;
  uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back(0);
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t off = 0; off < m.size(); off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const uint8_t*>(m.data() + off + 4 * i);
      w[i] = (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    }
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (uint32_t v : h)
    for (int i = 28; i >= 0; i -= 4) out.push_back(hex[(v >> i) & 0xf]);
  return out;
}

std::string to_hex(const void* data, size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    uint8_t b = static_cast<const uint8_t*>(data)[i];
    out.push_back(hex[b >> 4]);
    out.push_back(hex[b & 0xf]);
  }
  return out;
}

// ---- The fixture dicts ----

// A tensor of `shape` whose elements have the given bit patterns (row-major).
Tensor from_bits(const Dims& shape, DType dt, const std::vector<uint64_t>& bits) {
  Tensor t = empty(shape, dt, Device{});
  EXPECT_EQ(static_cast<size_t>(t.numel()), bits.size());
  size_t item = itemsize(dt);
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(static_cast<char*>(t.data()) + i * item, &bits[i], item);
  return t;
}

// Float32 values exactly representable, a function of (tensor k, element i), that the
// script recomputes.
Tensor formula_f32(const Dims& shape, int k) {
  Tensor t = empty(shape, DType::Float32, Device{});
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data_ptr<float>()[i] = static_cast<float>((i * 7 + k * 3) % 23 - 11) / 16.0f;
  return t;
}

Ref<nn::TensorDict> dict_dtypes() {
  auto d = make_ref<nn::TensorDict>();
  d->set("f32", from_bits({2, 5}, DType::Float32,
                          {0x00000000, 0x80000000, 0x3fc00000, 0xc0100000, 0x7fc00000, 0xff800000, 0x7f800000,
                           0x00000001, 0x7f7fffff, 0x7fa00001}));
  d->set("f64", from_bits({7}, DType::Float64,
                          {0, 0x8000000000000000, 0x3ff8000000000000, 0x7ff8000000000000, 0xfff0000000000000,
                           0x0000000000000001, 0x7ff4000000000001}));
  d->set("f16", from_bits({2, 4}, DType::Float16, {0x0000, 0x8000, 0x3c00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff}));
  d->set("bf16", from_bits({2, 3}, DType::BFloat16, {0x0000, 0x8000, 0x3fc0, 0x7f80, 0x7fc0, 0xff7f}));
  d->set("i64", from_bits({5}, DType::Int64, {0, ~uint64_t{0}, 0x8000000000000000, 0x7fffffffffffffff, 123456789012}));
  d->set("i32", from_bits({5}, DType::Int32, {0, 0xffffffff, 0x80000000, 0x7fffffff, 7}));
  d->set("u8", from_bits({5}, DType::UInt8, {0, 1, 127, 128, 255}));
  d->set("bool", from_bits({3}, DType::Bool, {1, 0, 1}));
  d->set("scalar", from_bits({}, DType::Float64, {0x400a000000000000}));  // 3.25, 0-dim
  d->set("empty", empty(Dims{0, 3}, DType::Float32, Device{}));
  d->set("empty_i64", empty(Dims{0}, DType::Int64, Device{}));
  return d;
}

Ref<nn::TensorDict> dict_views() {
  auto d = make_ref<nn::TensorDict>();
  Tensor base = empty(Dims{4, 6}, DType::Float32, Device{});
  for (int i = 0; i < 24; ++i) base.data_ptr<float>()[i] = static_cast<float>(i) * 0.5f - 3.0f;
  d->set("base", base);
  d->set("t", make_view(base, Dims{6, 4}, Dims{1, 6}, 0));
  d->set("slice", make_view(base, Dims{3}, Dims{2}, 5));
  d->set("block", make_view(base, Dims{2, 3}, Dims{6, 2}, 7));
  d->set("expand", make_view(base, Dims{3, 4}, Dims{0, 1}, 8));
  d->set("scalar_view", make_view(base, Dims{}, Dims{}, 23));
  Tensor idx = empty(Dims{10}, DType::Int64, Device{});
  for (int i = 0; i < 10; ++i) idx.data_ptr<int64_t>()[i] = 1000 - 37 * i;
  d->set("idx_tail", make_view(idx, Dims{4}, Dims{1}, 6));  // the storage appears first through a view
  d->set("idx", idx);
  Tensor bytes = empty(Dims{8}, DType::UInt8, Device{});
  for (int i = 0; i < 8; ++i) bytes.data_ptr<uint8_t>()[i] = static_cast<uint8_t>(200 + i);
  d->set("part", make_view(bytes, Dims{2}, Dims{1}, 3));  // the whole 8-byte storage is written
  return d;
}

Ref<nn::TensorDict> dict_model() {
  auto d = make_ref<nn::TensorDict>();
  int k = 0;
  d->set("conv1.weight", formula_f32({4, 3, 3, 3}, k++));
  d->set("conv1.bias", formula_f32({4}, k++));
  d->set("bn1.weight", formula_f32({4}, k++));
  d->set("bn1.bias", formula_f32({4}, k++));
  d->set("bn1.running_mean", formula_f32({4}, k++));
  Tensor var = empty(Dims{4}, DType::Float32, Device{});
  for (int i = 0; i < 4; ++i) var.data_ptr<float>()[i] = static_cast<float>(i + 1) / 4.0f;
  d->set("bn1.running_var", var);
  d->set("bn1.num_batches_tracked", from_bits({}, DType::Int64, {7}));
  d->set("fc.weight", formula_f32({10, 16}, k++));
  d->set("fc.bias", formula_f32({10}, k++));
  return d;
}

// 12 storages (torch writes "data/10" before "data/2"), one tensor under two keys.
Ref<nn::TensorDict> dict_many() {
  auto d = make_ref<nn::TensorDict>();
  const DType dts[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16,
                       DType::Int64,   DType::Int32,   DType::UInt8,   DType::Bool};
  for (int i = 0; i < 12; ++i) {
    DType dt = dts[i % 8];
    d->set("w" + std::to_string(i), from_bits({1}, dt, {dt == DType::Bool ? 1u : static_cast<uint64_t>(i + 1)}));
  }
  d->set("tied", *d->find("w0"));
  return d;
}

// int8 (torch.CharStorage) and int16 (torch.ShortStorage): extremes, a transposed view, a 0-dim one.
Ref<nn::TensorDict> dict_int_dtypes() {
  auto d = make_ref<nn::TensorDict>();
  d->set("i8", from_bits({5}, DType::Int8, {0x80, 0xff, 0x00, 0x01, 0x7f}));
  d->set("i16", from_bits({5}, DType::Int16, {0x8000, 0xffff, 0x0000, 0x0001, 0x7fff}));
  Tensor base = empty(Dims{2, 3}, DType::Int16, Device{});
  for (int i = 0; i < 6; ++i) base.data_ptr<int16_t>()[i] = static_cast<int16_t>(1000 * i - 2500);
  d->set("i16_base", base);
  d->set("i16_t", make_view(base, Dims{3, 2}, Dims{1, 3}, 0));
  d->set("i8_scalar", from_bits({}, DType::Int8, {0x9c}));  // -100
  return d;
}

Ref<nn::TensorDict> dict_single() {
  auto d = make_ref<nn::TensorDict>();
  d->set("x", from_bits({1}, DType::Float32, {0x3f800000}));
  return d;
}

struct Fixture {
  const char* name;
  Ref<nn::TensorDict> (*make)();
};
const Fixture kFixtures[] = {{"dtypes", dict_dtypes},        {"views", dict_views},
                             {"model", dict_model},          {"many", dict_many},
                             {"single", dict_single},        {"empty_dict", [] {
                                                                                  return make_ref<nn::TensorDict>(); }},
                             {"int_dtypes", dict_int_dtypes}};

// ---- value fixtures: any top-level object (write_torch_value) ----
// The script builds the same Python objects (VALUE_FIXTURES in
// verify_glia_written.py), compares what torch.load gives with them, and
// requires torch.save of the loaded object to write glia's bytes.

Ref<io::Value> val(io::Value::Kind k) {
  auto v = make_ref<io::Value>();
  v->kind = k;
  return v;
}
Ref<io::Value> v_int(int64_t i) {
  auto v = val(io::Value::Kind::Int);
  v->i = i;
  return v;
}
Ref<io::Value> v_bool(bool b) {
  auto v = val(io::Value::Kind::Bool);
  v->i = b;
  return v;
}
Ref<io::Value> v_float(double f) {
  auto v = val(io::Value::Kind::Float);
  v->f = f;
  return v;
}
Ref<io::Value> v_str(io::Value::Kind k, const std::string& s) {
  auto v = val(k);
  v->s = s;
  return v;
}
Ref<io::Value> v_tensor(const Tensor& t) {
  auto v = val(io::Value::Kind::Tensor);
  v->tensor = t;
  return v;
}
Ref<io::Value> v_seq(io::Value::Kind k, std::vector<Ref<io::Value>> items) {
  auto v = val(k);
  v->items = std::move(items);
  return v;
}
// A dict of str keys (ordered: an OrderedDict).
Ref<io::Value> v_dict(bool ordered, std::vector<std::pair<Ref<io::Value>, Ref<io::Value>>> entries) {
  auto v = val(io::Value::Kind::Dict);
  v->ordered = ordered;
  for (auto& [k, x] : entries) {
    v->items.push_back(k);
    v->items.push_back(x);
  }
  return v;
}
Ref<io::Value> key(const std::string& s) { return v_str(io::Value::Kind::Str, s); }

Ref<io::Value> value_tensor() { return v_tensor(formula_f32({2, 3}, 0)); }

Ref<io::Value> value_list() {
  Tensor a = formula_f32({4}, 1);
  Tensor b = from_bits({2}, DType::Int64, {5, ~uint64_t{0}});
  Tensor tail = make_view(a, Dims{2}, Dims{1}, 2);  // a[2:]
  auto va = v_tensor(a);
  return v_seq(io::Value::Kind::List, {va, v_tensor(b), v_tensor(tail), va});
}

// The tutorial checkpoint: {"epoch": 5, "model_state_dict": OrderedDict, "optimizer_state_dict": {...}, "loss": 0.3}
Ref<io::Value> value_tutorial() {
  Tensor w = formula_f32({2, 3}, 2), b = formula_f32({2}, 3);
  auto model = v_dict(true, {{key("fc.weight"), v_tensor(w)}, {key("fc.bias"), v_tensor(b)}});
  auto state0 = v_dict(false, {{key("step"), v_tensor(from_bits({}, DType::Float32, {0x40400000}))},
                               {key("exp_avg"), v_tensor(formula_f32({2, 3}, 4))},
                               {key("exp_avg_sq"), v_tensor(formula_f32({2, 3}, 5))}});
  auto state = v_dict(false, {});
  state->items = {v_int(0), state0};
  auto group = v_dict(false, {{key("lr"), v_float(0.001)},
                              {key("betas"), v_seq(io::Value::Kind::Tuple, {v_float(0.9), v_float(0.999)})},
                              {key("eps"), v_float(1e-08)},
                              {key("weight_decay"), v_int(0)},
                              {key("amsgrad"), v_bool(false)},
                              {key("maximize"), v_bool(false)},
                              {key("foreach"), val(io::Value::Kind::None)},
                              {key("capturable"), v_bool(false)},
                              {key("params"), v_seq(io::Value::Kind::List, {v_int(0), v_int(1)})}});
  auto optim = v_dict(false, {{key("state"), state}, {key("param_groups"), v_seq(io::Value::Kind::List, {group})}});
  return v_dict(false, {{key("epoch"), v_int(5)},
                        {key("model_state_dict"), model},
                        {key("optimizer_state_dict"), optim},
                        {key("loss"), v_float(0.3)}});
}

// Every leaf kind and the opcodes for them.
Ref<io::Value> value_leaves() {
  using K = io::Value::Kind;
  std::vector<Ref<io::Value>> ints;
  for (int64_t i :
       {int64_t{0}, int64_t{255}, int64_t{256}, int64_t{65535}, int64_t{65536}, int64_t{-1}, int64_t{2147483647},
        int64_t{-2147483648LL}, int64_t{2147483648LL}, int64_t{-2147483649LL}, INT64_MAX, INT64_MIN})
    ints.push_back(v_int(i));
  auto shared = key("shared str");
  auto grad = v_tensor(formula_f32({3}, 6));
  grad->tensor.impl()->requires_grad = true;
  auto tuple_key = v_seq(K::Tuple, {v_int(1), key("a")});
  auto mixed = v_dict(false, {});
  mixed->items = {v_int(3), key("int key"), tuple_key, key("tuple key"), val(K::None), key("None key")};
  return v_seq(
      K::Tuple,
      {val(K::None),
       v_bool(true),
       v_bool(false),
       v_seq(K::List, ints),
       v_str(K::BigInt, std::string("\0\0\0\0\0\0\0\0\x40", 9)),                  // 2**70
       v_str(K::BigInt, std::string("\xff\xff\xff\xff\xff\xff\xff\x7f\xff", 9)),  // -2**63 - 2**71 ... see script
       v_float(0.3),
       v_float(-0.0),
       v_float(INFINITY),
       v_float(-1.5e300),
       key("h\xc3\xa9llo \xe2\x9c\x93"),
       v_str(K::Bytes, ""),
       v_str(K::Bytes, std::string("\0\xff abc\x80", 7)),
       v_seq(K::Tuple, {}),
       v_seq(K::Tuple, {v_int(1)}),
       v_seq(K::Tuple, {v_int(1), v_int(2)}),
       v_seq(K::Tuple, {v_int(1), v_int(2), v_int(3)}),
       v_seq(K::Tuple, {v_int(1), v_int(2), v_int(3), v_int(4)}),
       v_seq(K::List, {}),
       v_seq(K::List, {shared}),
       shared,
       v_dict(true, {}),
       v_dict(false, {}),
       v_dict(false, {{key("one"), v_int(1)}}),
       mixed,
       v_str(K::DType, "float32"),
       v_str(K::DType, "int64"),
       grad,
       v_str(K::Device, "cuda:1"),
       v_str(K::Device, "cpu"),
       v_seq(K::Set, {v_int(5)})});
}

// Batches of 1000: a list of 1001 ints, a dict of exactly 1000 entries (its trailing
// empty batch), an OrderedDict of 1001.
Ref<io::Value> value_batches() {
  using K = io::Value::Kind;
  std::vector<Ref<io::Value>> items;
  for (int i = 0; i < 1001; ++i) items.push_back(v_int(i));
  auto d = v_dict(false, {}), od = v_dict(true, {});
  for (int i = 0; i < 1001; ++i) {
    if (i < 1000) d->items.insert(d->items.end(), {key("k" + std::to_string(i)), v_int(i)});
    od->items.insert(od->items.end(), {key("k" + std::to_string(i)), v_int(i)});
  }
  return v_seq(K::List, {v_seq(K::List, items), d, od});
}

struct ValueFixture {
  const char* name;
  Ref<io::Value> (*make)();
};
const ValueFixture kValueFixtures[] = {{"value_tensor", value_tensor},
                                       {"value_list", value_list},
                                       {"value_tutorial", value_tutorial},
                                       {"value_leaves", value_leaves},
                                       {"value_batches", value_batches}};

std::string write_value_bytes(const io::Value& v, const std::string& archive) {
  io::StringSink sink;
  io::write_torch_value(v, sink, archive);
  return sink.bytes;
}

std::string write_bytes(const nn::TensorDict& d, const std::string& archive) {
  io::StringSink sink;
  io::write_torch(d, sink, archive);
  return sink.bytes;
}

// What the script checks each loaded tensor against.
json manifest_of(const nn::TensorDict& d) {
  json tensors = json::array();
  std::vector<const Storage*> storages;
  for (size_t i = 0; i < d.size(); ++i) {
    const Tensor& t = d.value_at(i);
    const Storage* s = t.impl()->storage().get();
    size_t group = std::find(storages.begin(), storages.end(), s) - storages.begin();
    if (group == storages.size()) storages.push_back(s);
    Tensor c = contiguous(t);
    tensors.push_back({{"key", d.key_at(i)},
                       {"dtype", dtype_name(t.dtype())},
                       {"shape", std::vector<int64_t>(t.shape().begin(), t.shape().end())},
                       {"stride", std::vector<int64_t>(t.strides().begin(), t.strides().end())},
                       {"offset", t.offset()},
                       {"storage", group},
                       {"storage_numel", s->nbytes() / itemsize(t.dtype())},
                       {"storage_hex", to_hex(s->data(), s->nbytes())},
                       {"hex", to_hex(c.data(), static_cast<size_t>(c.numel()) * itemsize(c.dtype()))}});
  }
  return tensors;
}

json recorded() {
  return json::parse(glia_test::read_file(glia_test::data_path("golden/checkpoints/glia_written.json")));
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

// With GLIA_WRITE_TORCH_FIXTURES=<dir> (the script sets it) this writes the files
// and their manifest there; otherwise it checks today's bytes against the record.
TEST(TorchWriteFixtures, BytesMatchWhatTorchVerified) {
  if (const char* dir = std::getenv("GLIA_WRITE_TORCH_FIXTURES")) {
    json manifest;
    for (const Fixture& f : kFixtures) {
      auto d = f.make();
      std::string bytes = write_bytes(*d, f.name);
      std::ofstream(std::string(dir) + "/" + f.name + ".pt", std::ios::binary) << bytes;
      manifest[f.name] = manifest_of(*d);
    }
    std::ofstream(std::string(dir) + "/manifest.json") << manifest.dump(1);
    std::printf("wrote %zu fixtures to %s\n", std::size(kFixtures), dir);
    return;
  }
  json rec = recorded();
  ASSERT_NE(rec.value("verified", std::string()).find("verified by torch"), std::string::npos) << rec.dump();
  ASSERT_EQ(rec["files"].size(), std::size(kFixtures));
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.name);
    std::string bytes = write_bytes(*f.make(), f.name);
    const json& r = rec["files"][std::string(f.name) + ".pt"];
    EXPECT_EQ(sha256_hex(bytes), r["sha256"].get<std::string>())
        << "the writer changed: run tests/golden/checkpoints/verify_glia_written.py with torch";
    EXPECT_EQ(bytes.size(), r["bytes"].get<size_t>());
    EXPECT_TRUE(r["byte_identical_to_torch_save"].get<bool>());
    std::string committed =
        glia_test::read_file(glia_test::data_path(std::string("golden/checkpoints/glia_written/") + f.name + ".pt"));
    EXPECT_TRUE(committed == bytes) << "committed file differs from today's bytes";
  }
}

// The value fixtures: written with GLIA_WRITE_TORCH_FIXTURES (the script loads them
// with torch and compares), else today's bytes against the record.
TEST(TorchWriteFixtures, ValueBytesMatchWhatTorchVerified) {
  if (const char* dir = std::getenv("GLIA_WRITE_TORCH_FIXTURES")) {
    for (const ValueFixture& f : kValueFixtures)
      std::ofstream(std::string(dir) + "/" + f.name + ".pt", std::ios::binary) << write_value_bytes(*f.make(), f.name);
    return;
  }
  json rec = recorded();
  ASSERT_TRUE(rec.contains("value_files")) << "run tests/golden/checkpoints/verify_glia_written.py with torch";
  ASSERT_EQ(rec["value_files"].size(), std::size(kValueFixtures));
  for (const ValueFixture& f : kValueFixtures) {
    SCOPED_TRACE(f.name);
    std::string bytes = write_value_bytes(*f.make(), f.name);
    const json& r = rec["value_files"][std::string(f.name) + ".pt"];
    EXPECT_EQ(sha256_hex(bytes), r["sha256"].get<std::string>())
        << "the writer changed: run tests/golden/checkpoints/verify_glia_written.py with torch";
    EXPECT_TRUE(r["byte_identical_to_torch_save"].get<bool>());
    EXPECT_TRUE(r["equal_to_definition"].get<bool>());
    std::string committed =
        glia_test::read_file(glia_test::data_path(std::string("golden/checkpoints/glia_written/") + f.name + ".pt"));
    EXPECT_TRUE(committed == bytes) << "committed file differs from today's bytes";
  }
}

// An OrderedDict of str -> tensor pickles as write_torch pickles the dict: the same bytes.
TEST(TorchWrite, OrderedDictValueIsTheDictsBytes) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.name);
    auto d = f.make();
    auto v = v_dict(true, {});
    for (size_t i = 0; i < d->size(); ++i)
      v->items.insert(v->items.end(), {key(d->key_at(i)), v_tensor(d->value_at(i))});
    EXPECT_TRUE(write_value_bytes(*v, f.name) == write_bytes(*d, f.name));
  }
}

// glia -> .pt -> glia for every value fixture: the same tree (kinds, numbers,
// strings, tensors bit for bit, dict kinds, sharing of values and storages).
void expect_same_value(const io::Value& a, const io::Value& b, const std::string& where) {
  ASSERT_EQ(static_cast<int>(a.kind), static_cast<int>(b.kind)) << where;
  EXPECT_EQ(a.i, b.i) << where;
  if (a.kind == io::Value::Kind::Float) {
    EXPECT_EQ(std::memcmp(&a.f, &b.f, sizeof a.f), 0) << where;
  }
  EXPECT_EQ(a.s, b.s) << where;
  EXPECT_EQ(a.ordered, b.ordered) << where;
  ASSERT_EQ(a.items.size(), b.items.size()) << where;
  for (size_t i = 0; i < a.items.size(); ++i)
    expect_same_value(*a.items[i], *b.items[i], where + "/" + std::to_string(i));
  if (a.kind == io::Value::Kind::Tensor) {
    EXPECT_EQ(a.tensor.dtype(), b.tensor.dtype()) << where;
    EXPECT_EQ(a.tensor.shape(), b.tensor.shape()) << where;
    EXPECT_EQ(a.tensor.strides(), b.tensor.strides()) << where;
    EXPECT_EQ(a.tensor.offset(), b.tensor.offset()) << where;
    EXPECT_EQ(a.tensor.requires_grad(), b.tensor.requires_grad()) << where;
    Tensor ca = contiguous(a.tensor), cb = contiguous(b.tensor);
    EXPECT_EQ(to_hex(ca.data(), ca.numel() * itemsize(ca.dtype())),
              to_hex(cb.data(), cb.numel() * itemsize(cb.dtype())))
        << where;
  }
}

TEST(TorchWrite, ValuesRoundTrip) {
  for (const ValueFixture& f : kValueFixtures) {
    SCOPED_TRACE(f.name);
    auto v = f.make();
    Ref<io::Value> back = io::read_torch_value(
        io::ByteSource::copy_of(write_value_bytes(*v, f.name).data(), write_value_bytes(*v, f.name).size()));
    expect_same_value(*v, *back, f.name);
  }
  // Sharing: the list's first and last items are one tensor, the third views its storage.
  auto v = value_list();
  std::string bytes = write_value_bytes(*v, "l");
  Ref<io::Value> back = io::read_torch_value(io::ByteSource::copy_of(bytes.data(), bytes.size()));
  EXPECT_EQ(back->items[0].get(), back->items[3].get());
  EXPECT_EQ(back->items[0]->tensor.impl()->storage(), back->items[2]->tensor.impl()->storage());
  EXPECT_NE(back->items[0]->tensor.impl()->storage(), back->items[1]->tensor.impl()->storage());
}

// Bad values: an error naming where, nothing written.
TEST(TorchWrite, BadValuesAreRefused) {
  using K = io::Value::Kind;
  auto expect_invalid = [](const io::Value& v, const std::string& what) {
    try {
      write_value_bytes(v, "bad");
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::InvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_invalid(*v_seq(K::List, {v_str(K::Str, "\xff")}), "the str at \"0\" is not valid UTF-8");
  expect_invalid(*v_dict(false, {{key("d"), v_str(K::Device, "cuda:x")}}), "device \"cuda:x\" at \"d\" is not");
  expect_invalid(*v_str(K::DType, "float32\nos"), "is not a torch dtype name");
  auto deep = val(K::List);
  for (int i = 0; i < 1001; ++i) deep = v_seq(K::List, {deep});
  expect_invalid(*deep, "containers nested deeper than 1000");
}

// The committed files, read as zips by hand: the records torch writes, in its order,
// data 64-byte aligned, CRCs right (parse_zip_strict checks those), storages whole.
TEST(TorchWrite, CommittedFilesHaveTorchsRecords) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.name);
    std::string bytes =
        glia_test::read_file(glia_test::data_path(std::string("golden/checkpoints/glia_written/") + f.name + ".pt"));
    std::vector<ZipEntryInfo> entries = parse_zip_strict(bytes);
    auto d = f.make();
    json m = manifest_of(*d);
    std::vector<std::string> keys;  // storage keys "0".."n-1", sorted as strings
    std::vector<uint64_t> sizes;
    size_t groups = 0;
    for (const json& t : m) groups = std::max<size_t>(groups, t["storage"].get<size_t>() + 1);
    for (size_t g = 0; g < groups; ++g) keys.push_back(std::to_string(g));
    std::sort(keys.begin(), keys.end());
    std::vector<std::string> want = {std::string(f.name) + "/data.pkl"};
    for (const std::string& k : keys) want.push_back(std::string(f.name) + "/data/" + k);
    want.push_back(std::string(f.name) + "/version");
    std::vector<std::string> got;
    for (const ZipEntryInfo& e : entries) got.push_back(e.name);
    EXPECT_EQ(got, want);
    ASSERT_EQ(entries.size(), want.size());
    EXPECT_EQ(bytes.substr(entries.back().data_offset, entries.back().size), "3\n");
    for (const json& t : m) {
      std::string key = std::to_string(t["storage"].get<size_t>());
      auto it = std::find(got.begin(), got.end(), std::string(f.name) + "/data/" + key);
      ASSERT_NE(it, got.end());
      const ZipEntryInfo& e = entries[it - got.begin()];
      EXPECT_EQ(to_hex(bytes.data() + e.data_offset, e.size), t["storage_hex"].get<std::string>()) << t["key"];
    }
  }
}

// torch 1.13's pickle of OrderedDict(x=tensor([1.])), byte for byte (pickletools-checked).
TEST(TorchWrite, PickleOfOneTensorIsTorchs) {
  std::string bytes = write_bytes(*dict_single(), "one");
  std::vector<ZipEntryInfo> entries = parse_zip_strict(bytes);
  ASSERT_EQ(entries.size(), 3u);
  ASSERT_EQ(entries[0].name, "one/data.pkl");
  EXPECT_EQ(to_hex(bytes.data() + entries[0].data_offset, entries[0].size),
            "800263636f6c6c656374696f6e730a4f726465726564446963740a710029527101580100000078710263746f7263682e5f7574696c"
            "730a5f72656275696c645f74656e736f725f76320a71032828580700000073746f72616765710463746f7263680a466c6f617453"
            "746f726167650a71055801000000307106580300000063707571074b01747108514b004b018571094b0185710a8968002952710b"
            "74710c52710d732e");
}

// 65540 one-element tensors: SETITEMS in batches of 1000, LONG_BINPUT/LONG_BINGET
// past memo 255, more than 65535 zip entries (the end record's count clamped,
// zip64 end record). torch 1.13's torch.save of the same dict to "many.pt"
// (recorded in glia_written.json) has this sha256.
TEST(TorchWrite, MoreThan65535EntriesIsTorchsFile) {
  auto d = make_ref<nn::TensorDict>();
  for (int i = 0; i < 65540; ++i) d->set("t" + std::to_string(i), from_bits({1}, DType::Int32, {uint64_t(i)}));
  std::string bytes = write_bytes(*d, "many");
  const json rec = recorded();
  const json& r = rec["torch_references"]["many_entries"];
  EXPECT_EQ(bytes.size(), r["bytes"].get<size_t>());
  EXPECT_EQ(sha256_hex(bytes), r["sha256"].get<std::string>());
  // The end record: 0xFFFF entries, the real count in the zip64 end record.
  std::string tail = bytes.substr(bytes.size() - 22);
  EXPECT_EQ(to_hex(tail.data() + 8, 4), "ffffffff");
  EXPECT_EQ(parse_zip_strict(bytes).size(), 65542u);
  // Read back through the zip64 end record: every storage views the source.
  auto src = io::ByteSource::copy_of(bytes.data(), bytes.size());
  auto back = io::read_torch(src);
  ASSERT_EQ(back->size(), 65540u);
  const Tensor& last = *back->find("t65539");
  EXPECT_EQ(last.data_ptr<int32_t>()[0], 65539);
  auto p = static_cast<const uint8_t*>(last.data());
  EXPECT_TRUE(p >= src->data() && p + 4 <= src->data() + src->size());
}

// A storage of 4 GiB + 5 bytes, as torch.save wrote one (zip64 extra fields in the
// local and central headers, 64-bit data descriptors, offsets past 4 GiB for the
// entries after it). The bytes come from zero pages of an anonymous mapping, so
// this needs no 4 GiB of memory; the sink keeps all but the big entry's data,
// which must equal torch's file with that data cut out (committed skeleton).
TEST(TorchWrite, StorageOver4GiBIsTorchsFile) {
  const json rec = recorded();
  const json& r = rec["torch_references"]["zip64_storage"];
  const uint64_t n = r["data_bytes"].get<uint64_t>();
  void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  madvise(p, n, MADV_HUGEPAGE);  // reads map the huge zero page where THP allows: fewer faults
  static_cast<uint8_t*>(p)[n - 1] = 7;
  Tensor big = from_blob(
      p, Dims{static_cast<int64_t>(n)}, Dims{1}, DType::UInt8, Device{},
      [](void* ctx, void* data) { munmap(data, *static_cast<const uint64_t*>(ctx)); }, const_cast<uint64_t*>(&n));
  auto d = make_ref<nn::TensorDict>();
  d->set("big", big);
  d->set("small", from_bits(Dims{3}, DType::Int32, {0, 1, 2}));

  struct SkeletonSink final : io::Sink {
    std::string bytes;
    uint64_t total = 0, skipped_at = 0, skipped = 0;
    void write(const void* data, size_t k) override {
      if (k >= (uint64_t{1} << 31)) {
        skipped_at = total, skipped = k;  // its CRC is in the skeleton (descriptor, central header)
      } else {
        bytes.append(static_cast<const char*>(data), k);
      }
      total += k;
    }
    uint64_t tell() const override { return total; }
  } sink;
  io::write_torch(*d, sink, "big");
  d.reset();
  big = Tensor();
  EXPECT_EQ(sink.skipped, n);
  EXPECT_EQ(sink.skipped_at, r["data_offset"].get<uint64_t>());
  std::string want =
      glia_test::read_file(glia_test::data_path("golden/checkpoints/" + r["skeleton"].get<std::string>()));
  EXPECT_EQ(sha256_hex(want), r["skeleton_sha256"].get<std::string>());
  EXPECT_EQ(to_hex(sink.bytes.data(), sink.bytes.size()), to_hex(want.data(), want.size()));
}

TEST(TorchWrite, RefusesWhatTorchCannotRead) {
  auto expect_error = [](const nn::TensorDict& d, Code code, const std::string& text) {
    try {
      write_bytes(d, "archive");
      ADD_FAILURE() << "no error, expected " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  {  // views of one storage as two dtypes (torch.save refuses them too)
    auto d = make_ref<nn::TensorDict>();
    Tensor a = zeros(Dims{4}, DType::Int32, Device{});
    d->set("a", a);
    d->set("b", Tensor(make_ref<TensorImpl>(a.impl()->storage(), 0, Dims{4}, Dims{1}, DType::Float32)));
    expect_error(*d, Code::InvalidArgument, "tensor \"b\" (float32) shares its storage with a int32 tensor");
  }
  {  // a view past the end of its storage (make_view refuses one: built here around it)
    auto d = make_ref<nn::TensorDict>();
    d->set("over", Tensor(make_ref<TensorImpl>(zeros(Dims{4}, DType::Float32, Device{}).impl()->storage(), 0,
                                               Dims{2, 3}, Dims{2, 1}, DType::Float32)));
    expect_error(*d, Code::Internal,
                 "tensor \"over\" (offset 0, shape [2, 3], strides [2, 1]) reaches past its storage");
  }
  {  // keys Python cannot decode
    auto d = make_ref<nn::TensorDict>();
    d->set("bad\xff", zeros(Dims{1}, DType::Float32, Device{}));
    expect_error(*d, Code::InvalidArgument, "is not valid UTF-8");
  }
  {  // a tensor on a device that cannot be reached (no backend here; never dereferenced): its
     // device-to-host copy fails (device tensors are written from host copies: see
     // tests/testdevice/training_device_test.cpp)
    auto d = make_ref<nn::TensorDict>();
    static float fake[4];
    Ref<Storage> s = Storage::wrap(fake, sizeof fake, Device{DeviceType::PrivateUse1, 0}, nullptr, nullptr);
    d->set("dev", Tensor(make_ref<TensorImpl>(s, 0, Dims{4}, Dims{1}, DType::Float32)));
    expect_error(*d, Code::Device, "is not available");
  }
  {
    auto d = dict_single();
    io::StringSink sink;
    EXPECT_THROW(io::write_torch(*d, sink, ""), Error);
  }
}

// save_file names the folder inside the zip after the file's stem, as torch.save does.
TEST(TorchWrite, SaveFileUsesTheStem) {
  std::string dir = ::testing::TempDir();
  std::string path = dir + "/resnet-tiny.ckpt.pt";
  io::save_file(*dict_model(), path, io::Format::Torch);
  std::string bytes = glia_test::read_file(path);
  EXPECT_EQ(bytes, write_bytes(*dict_model(), "resnet-tiny.ckpt"));
  std::remove(path.c_str());
}

// glia -> .pt -> glia (needs read_torch): dtypes, bits, views sharing one storage
// with their offsets and strides, the storage's whole bytes.
TEST(TorchWrite, RoundTripThroughReadTorch) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.name);
    auto d = f.make();
    std::string bytes = write_bytes(*d, f.name);
    Ref<nn::TensorDict> back = io::read_torch(io::ByteSource::copy_of(bytes.data(), bytes.size()));
    ASSERT_EQ(back->size(), d->size());
    json want = manifest_of(*d), got = manifest_of(*back);
    for (size_t i = 0; i < d->size(); ++i) {
      SCOPED_TRACE(d->key_at(i));
      EXPECT_EQ(got[i], want[i]);  // key, dtype, shape, strides, offset, storage group, bytes
      for (size_t j = 0; j < d->size(); ++j) {
        bool shared = d->value_at(i).impl()->storage() == d->value_at(j).impl()->storage();
        EXPECT_EQ(back->value_at(i).impl()->storage() == back->value_at(j).impl()->storage(), shared)
            << d->key_at(i) << " vs " << d->key_at(j);
      }
    }
  }
}

}  // namespace
