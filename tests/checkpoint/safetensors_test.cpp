// safetensors through the C ABI: glia_tensor_dict_save/load(_buffer), atomic
// saves, glia_module_save/load, format detection by content, and a corpus of
// hostile files that must each fail with GLIA_ERR_FORMAT and say why.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "glia/glia.h"
#include "support/test_support.h"

namespace {

namespace fs = std::filesystem;

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(n >> (8 * i));
  return s;
}

std::string file_of(const std::string& header, const std::string& data = {}) {
  return le64(header.size()) + header + data;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "glia-st-capi-XXXXXX").string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

// RAII for C handles.
struct Dict {
  glia_tensor_dict* d = nullptr;
  ~Dict() { glia_error_free(glia_tensor_dict_release(d)); }
};
struct T {
  glia_tensor* t = nullptr;
  ~T() { glia_error_free(glia_tensor_release(t)); }
};
struct M {
  glia_module* m = nullptr;
  ~M() { glia_error_free(glia_module_release(m)); }
};

std::string key_at(glia_tensor_dict* d, int64_t i) {
  char buf[256];
  size_t len = 0;
  glia_error* e = glia_tensor_dict_key_at(d, i, buf, sizeof buf, &len);
  EXPECT_EQ(e, nullptr);
  glia_error_free(e);
  return std::string(buf, len);
}

std::string tensor_bytes(glia_tensor* t) {
  int64_t numel = 0;
  glia_dtype dt;
  EXPECT_EQ(glia_tensor_numel(t, &numel), nullptr);
  EXPECT_EQ(glia_tensor_dtype(t, &dt), nullptr);
  std::string b(static_cast<size_t>(numel) * glia_dtype_size(dt), '\0');
  glia_error* e = glia_tensor_copy_to_host(t, b.data(), b.size());
  EXPECT_EQ(e, nullptr);
  glia_error_free(e);
  return b;
}

// Every entry: key, dtype, shape, bytes.
std::string describe(glia_tensor_dict* d) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_dict_size(d, &n), nullptr);
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    T t;
    EXPECT_EQ(glia_tensor_dict_value_at(d, i, &t.t), nullptr);
    glia_dtype dt;
    int64_t ndim = 0, shape[8];
    EXPECT_EQ(glia_tensor_dtype(t.t, &dt), nullptr);
    EXPECT_EQ(glia_tensor_ndim(t.t, &ndim), nullptr);
    EXPECT_EQ(glia_tensor_shape(t.t, 8, shape), nullptr);
    out += key_at(d, i) + " " + std::to_string(dt) + " [";
    for (int64_t k = 0; k < ndim; ++k) out += std::to_string(shape[k]) + ",";
    out += "] " + tensor_bytes(t.t) + "\n";
  }
  return out;
}

void add(glia_tensor_dict* d, const char* key, const void* data, size_t nbytes, std::vector<int64_t> shape,
         glia_dtype dtype) {
  T t;
  GLIA_OK_(glia_tensor_from_data(data, nbytes, shape.data(), static_cast<int64_t>(shape.size()), dtype, &t.t));
  GLIA_OK_(glia_tensor_dict_set(d, key, t.t));
}

// A dict with every dtype and the edge cases.
void fill_dict(glia_tensor_dict* d) {
  const uint32_t f32[] = {0x7fc00123u, 0x80000000u, 0x3f800000u, 0xff800000u};
  const uint64_t f64[] = {0xfff8000000000badull, 0x0000000000000001ull};
  const uint16_t f16[] = {0x7e01, 0x8000, 0x3c00};
  const uint16_t bf16[] = {0xffc1, 0x0001};
  const int64_t i64[] = {INT64_MIN, 7};
  const int32_t i32[] = {-5, INT32_MAX, 0};
  const uint8_t u8[] = {255, 0, 17};
  const int8_t i8[] = {-128, 127, -1};
  const int16_t i16[] = {-32768, 32767, -2, 300};
  const uint8_t b[] = {1, 0, 0, 1};
  add(d, "fc.weight", f32, sizeof f32, {2, 2}, GLIA_FLOAT32);
  add(d, "f64", f64, sizeof f64, {2}, GLIA_FLOAT64);
  add(d, "f16", f16, sizeof f16, {3}, GLIA_FLOAT16);
  add(d, "bf16", bf16, sizeof bf16, {1, 2}, GLIA_BFLOAT16);
  add(d, "i64", i64, sizeof i64, {2}, GLIA_INT64);
  add(d, "i32", i32, sizeof i32, {3}, GLIA_INT32);
  add(d, "u8", u8, sizeof u8, {3}, GLIA_UINT8);
  add(d, "i8", i8, sizeof i8, {3}, GLIA_INT8);
  add(d, "i16", i16, sizeof i16, {2, 2}, GLIA_INT16);
  add(d, "mask", b, sizeof b, {2, 2}, GLIA_BOOL);
  add(d, "scalar", i64, sizeof(int64_t), {}, GLIA_INT64);
  add(d, "empty", nullptr, 0, {0, 3}, GLIA_FLOAT32);
  GLIA_OK_(glia_tensor_dict_set_metadata(d, "format", "pt"));
  GLIA_OK_(glia_tensor_dict_set_metadata(d, "epoch", "12"));
}

glia_error* load_bytes(const std::string& bytes, Dict& out) {
  return glia_tensor_dict_load_buffer(bytes.data(), bytes.size(), GLIA_FORMAT_SAFETENSORS, &out.d);
}

TEST(SafetensorsCApi, FileAndBufferRoundTripEveryDType) {
  TempDir dir;
  std::string path = dir.path + "/all.safetensors";
  Dict d;
  GLIA_OK_(glia_tensor_dict_create(&d.d));
  fill_dict(d.d);
  GLIA_OK_(glia_tensor_dict_save(d.d, path.c_str(), GLIA_FORMAT_SAFETENSORS));

  Dict file, auto_file, buf;
  GLIA_OK_(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_SAFETENSORS, &file.d));
  GLIA_OK_(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &auto_file.d));
  EXPECT_EQ(describe(file.d), describe(d.d));
  EXPECT_EQ(describe(auto_file.d), describe(d.d));

  void* data = nullptr;
  size_t size = 0;
  GLIA_OK_(glia_tensor_dict_save_buffer(d.d, GLIA_FORMAT_AUTO, &data, &size));
  std::string saved(static_cast<const char*>(data), size);
  glia_buffer_free(data);
  EXPECT_EQ(saved, glia_test::read_file(path));  // exactly the file's bytes
  GLIA_OK_(glia_tensor_dict_load_buffer(saved.data(), saved.size(), GLIA_FORMAT_AUTO, &buf.d));
  EXPECT_EQ(describe(buf.d), describe(d.d));

  char value[32];
  size_t len = 0;
  GLIA_OK_(glia_tensor_dict_get_metadata(file.d, "epoch", value, sizeof value, &len));
  EXPECT_EQ(std::string(value, len), "12");
  int64_t count = 0;
  GLIA_OK_(glia_tensor_dict_metadata_count(file.d, &count));
  EXPECT_EQ(count, 2);
  GLIA_OK_(glia_tensor_dict_metadata_key_at(file.d, 0, value, sizeof value, &len));
  EXPECT_EQ(std::string(value, len), "format");
}

TEST(SafetensorsCApi, FormatByContentNotByName) {
  TempDir dir;
  std::string path = dir.path + "/x.pt";
  Dict d;
  GLIA_OK_(glia_tensor_dict_create(&d.d));
  fill_dict(d.d);
  GLIA_OK_(glia_tensor_dict_save(d.d, path.c_str(), GLIA_FORMAT_AUTO));  // AUTO saves safetensors
  EXPECT_EQ(glia_test::read_file(path)[8], '{');
  Dict back;
  GLIA_OK_(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &back.d));
  EXPECT_EQ(describe(back.d), describe(d.d));
}

TEST(SafetensorsCApi, LoadedTensorsAreWritableWithoutTouchingTheFile) {
  TempDir dir;
  std::string path = dir.path + "/w.safetensors";
  Dict d;
  GLIA_OK_(glia_tensor_dict_create(&d.d));
  fill_dict(d.d);
  GLIA_OK_(glia_tensor_dict_save(d.d, path.c_str(), GLIA_FORMAT_SAFETENSORS));
  std::string before = glia_test::read_file(path);
  {
    Dict back;
    GLIA_OK_(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &back.d));
    T w;
    GLIA_OK_(glia_tensor_dict_get(back.d, "fc.weight", &w.t));
    void* p = nullptr;
    GLIA_OK_(glia_tensor_data(w.t, &p));
    static_cast<float*>(p)[0] = 42.0f;
    EXPECT_EQ(tensor_bytes(w.t).substr(0, 4), std::string("\x00\x00\x28\x42", 4));
  }
  EXPECT_EQ(glia_test::read_file(path), before);
}

TEST(SafetensorsCApi, FailedSaveLeavesThePreviousFileAndNoTempFiles) {
  TempDir dir;
  std::string path = dir.path + "/model.safetensors";
  Dict good;
  GLIA_OK_(glia_tensor_dict_create(&good.d));
  fill_dict(good.d);
  GLIA_OK_(glia_tensor_dict_save(good.d, path.c_str(), GLIA_FORMAT_SAFETENSORS));
  std::string before = glia_test::read_file(path);

  // Fails while writing (after the temp file exists): a name the format reserves.
  Dict bad;
  GLIA_OK_(glia_tensor_dict_create(&bad.d));
  const float one = 1;
  add(bad.d, "__metadata__", &one, sizeof one, {1}, GLIA_FLOAT32);
  EXPECT_GLIA_MSG(glia_tensor_dict_save(bad.d, path.c_str(), GLIA_FORMAT_SAFETENSORS), GLIA_ERR_INVALID_ARGUMENT,
                  "__metadata__");
  EXPECT_EQ(glia_test::read_file(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});

  // Fails at the rename: the path is a directory.
  fs::create_directory(dir.path + "/sub");
  EXPECT_GLIA_MSG(glia_tensor_dict_save(good.d, (dir.path + "/sub").c_str(), GLIA_FORMAT_SAFETENSORS), GLIA_ERR_IO,
                  "cannot replace");
  EXPECT_TRUE(fs::is_directory(dir.path + "/sub"));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.safetensors", "sub"}));

  // Fails at the start: the directory does not exist.
  EXPECT_GLIA_MSG(glia_tensor_dict_save(good.d, (dir.path + "/nope/m.safetensors").c_str(), GLIA_FORMAT_SAFETENSORS),
                  GLIA_ERR_IO, "No such file or directory");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.safetensors", "sub"}));

  Dict back;
  GLIA_OK_(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &back.d));
  EXPECT_EQ(describe(back.d), describe(good.d));
}

// Sequential(Linear(4, 3), ReLU, Linear(3, out)).
void make_mlp(int64_t out, M& m) {
  M a, r, b;
  GLIA_OK_(glia_nn_linear(4, 3, 1, nullptr, &a.m));
  GLIA_OK_(glia_nn_relu(nullptr, &r.m));
  GLIA_OK_(glia_nn_linear(3, out, 1, nullptr, &b.m));
  glia_module* children[] = {a.m, r.m, b.m};
  GLIA_OK_(glia_nn_sequential(children, 3, &m.m));
}

std::string state_of(glia_module* m) {
  Dict sd;
  EXPECT_EQ(glia_module_state_dict(m, &sd.d), nullptr);
  return describe(sd.d);
}

TEST(SafetensorsCApi, ModuleSaveAndLoad) {
  TempDir dir;
  std::string path = dir.path + "/mlp.safetensors";
  M src, dst;
  make_mlp(2, src);
  make_mlp(2, dst);
  ASSERT_NE(state_of(src.m), state_of(dst.m));  // different random inits
  GLIA_OK_(glia_module_save(src.m, path.c_str()));
  glia_load_report* report = nullptr;
  GLIA_OK_(glia_module_load(dst.m, path.c_str(), 1, &report));
  int64_t missing = -1, unexpected = -1;
  GLIA_OK_(glia_load_report_count(report, GLIA_KEYS_MISSING, &missing));
  GLIA_OK_(glia_load_report_count(report, GLIA_KEYS_UNEXPECTED, &unexpected));
  glia_error_free(glia_load_report_release(report));
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(unexpected, 0);
  EXPECT_EQ(state_of(dst.m), state_of(src.m));
  Dict file;
  GLIA_OK_(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &file.d));
  EXPECT_EQ(key_at(file.d, 0), "0.weight");
  EXPECT_EQ(key_at(file.d, 3), "2.bias");

  // A module of another shape: size mismatch, nothing changes.
  M other;
  make_mlp(5, other);
  std::string before = state_of(other.m);
  EXPECT_GLIA_MSG(glia_module_load(other.m, path.c_str(), 1, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  "size mismatch for 2.weight");
  EXPECT_EQ(state_of(other.m), before);

  // A broken file: Format error, nothing changes.
  std::string broken = glia_test::read_file(path);
  broken.resize(broken.size() - 1);
  write_file(path, broken);
  before = state_of(dst.m);
  EXPECT_GLIA_MSG(glia_module_load(dst.m, path.c_str(), 1, nullptr), GLIA_ERR_FORMAT,
                  "run past the end of the data buffer");
  EXPECT_EQ(state_of(dst.m), before);
}

// ---- hostile files ----------------------------------------------------------

struct Hostile {
  const char* name;
  std::string bytes;
  const char* message;  // part of the error message
};

const std::string kF32x2 = std::string(8, '\0');
std::string entry(const std::string& name, const std::string& body) { return "\"" + name + "\":" + body; }
const char* kOk = R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})";

std::vector<Hostile> hostile_corpus() {
  std::string deep(100000, '[');
  std::string deep_object = R"({"x":{"junk":)";  // unterminated: the limit stops it first
  for (int i = 0; i < 100000; ++i) deep_object += R"({"a":)";
  std::string ones65 = "1";
  for (int i = 1; i < 65; ++i) ones65 += ",1";
  std::string deep_field = std::string(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"junk":)") +
                           std::string(100000, '[') + std::string(100000, ']') + "}}";
  return {
      {"empty file", "", "fewer than the 8"},
      {"7 bytes", std::string(7, '\0'), "has 7 bytes, fewer than the 8"},
      {"header cut", le64(100) + "{\"a\":", "runs past the end of the file"},
      {"header length past the end", le64(1000) + "{}", "header length 1000 runs past the end"},
      {"header length 2^63", le64(1ull << 63) + "{}", "is larger than the limit"},
      {"header length 2^64-1", le64(~0ull) + "{}", "is larger than the limit"},
      {"offsets past the end",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[2],"data_offsets":[8,16]})") + "}", kF32x2),
       "tensor \"w\": data_offsets [8, 16] run past the end of the data buffer (8 bytes)"},
      {"offsets reversed",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[0],"data_offsets":[8,0]})") + "}", kF32x2),
       "data_offsets [8, 0] end before they begin"},
      {"overlap",
       file_of("{" + entry("a", kOk) + "," + entry("b", R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})") + "}",
               kF32x2),
       "tensor \"b\": data_offsets [4, 8] overlap those of tensor \"a\" [0, 8]"},
      {"hole",
       file_of("{" + entry("a", R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})") + "," +
                   entry("b", R"({"dtype":"F32","shape":[1],"data_offsets":[8,12]})") + "}",
               std::string(12, '\0')),
       "bytes [4, 8) of the data buffer belong to no tensor"},
      {"trailing bytes", file_of("{" + entry("a", kOk) + "}", kF32x2 + "xx"), "(2 trailing bytes)"},
      {"no tensor but data", file_of("{}", "x"), "the data buffer has 1 bytes, but the tensors cover only 0"},
      {"unknown dtype", file_of("{" + entry("w", R"({"dtype":"F31","shape":[2],"data_offsets":[0,8]})") + "}", kF32x2),
       "tensor \"w\": unknown dtype \"F31\""},
      {"I16 shape vs bytes",
       file_of("{" + entry("w", R"({"dtype":"I16","shape":[3],"data_offsets":[0,8]})") + "}", kF32x2),
       "tensor \"w\": data_offsets [0, 8] hold 8 bytes, but dtype I16 and shape [3] need 6"},
      // A dtype glia has not is checked as any other first: a broken file stays a format error.
      {"U16 shape vs bytes",
       file_of("{" + entry("u", R"({"dtype":"U16","shape":[3],"data_offsets":[0,8]})") + "}", kF32x2),
       "tensor \"u\": data_offsets [0, 8] hold 8 bytes, but dtype U16 and shape [3] need 6"},
      {"F8_E4M3 past the end",
       file_of("{" + entry("q", R"({"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]})") + "}", kF32x2),
       "tensor \"q\": data_offsets [0, 16] run past the end of the data buffer (8 bytes)"},
      {"F4 half a byte", file_of("{" + entry("h", R"({"dtype":"F4","shape":[3],"data_offsets":[0,8]})") + "}", kF32x2),
       "tensor \"h\": dtype F4 and shape [3] do not fill a whole number of bytes"},
      {"dtype not a string", file_of("{" + entry("w", R"({"dtype":4,"shape":[2],"data_offsets":[0,8]})") + "}", kF32x2),
       "dtype must be a string, got a number 4"},
      {"element count overflow",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,8]})") + "}",
               kF32x2),
       "has more elements than fit in 64 bits"},
      {"byte count overflow",
       file_of("{" + entry("w", R"({"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8]})") + "}", kF32x2),
       "need more bytes than fit in 64 bits"},
      {"dimension past int64", file_of("{" + entry("w", R"({"dtype":"U8","shape":[9223372036854775808]})") + "}"),
       "larger than 2^63 - 1"},
      {"negative dim", file_of("{" + entry("w", R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})") + "}", kF32x2),
       "shape must hold non-negative integers, got -2"},
      {"float dim", file_of("{" + entry("w", R"({"dtype":"F32","shape":[2.0],"data_offsets":[0,8]})") + "}", kF32x2),
       "shape must hold non-negative integers, got 2.0"},
      {"65 dims", file_of("{" + entry("w", R"({"dtype":"U8","shape":[)" + ones65 + "]}") + "}"),
       "shape has more than 64 dimensions"},
      {"shape vs bytes",
       file_of("{" + entry("fc.weight", R"({"dtype":"F32","shape":[2,4],"data_offsets":[0,24]})") + "}",
               std::string(24, '\0')),
       "tensor \"fc.weight\": data_offsets [0, 24] hold 24 bytes, but dtype F32 and shape [2, 4] need 32"},
      {"offsets arity 1", file_of("{" + entry("w", R"({"dtype":"F32","shape":[2],"data_offsets":[8]})") + "}", kF32x2),
       "data_offsets must be [begin, end], got 1 number"},
      {"offsets arity 3",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[2],"data_offsets":[0,8,8]})") + "}", kF32x2),
       "got more than 2 numbers"},
      {"offsets float",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[2],"data_offsets":[0,8.5]})") + "}", kF32x2),
       "data_offsets must hold non-negative integers, got 8.5"},
      {"offsets negative",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[2],"data_offsets":[-8,0]})") + "}", kF32x2),
       "data_offsets must hold non-negative integers, got -8"},
      {"offsets string",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[2],"data_offsets":["0","8"]})") + "}", kF32x2),
       "data_offsets must hold non-negative integers, got a string \"0\""},
      {"offsets past 2^64",
       file_of("{" + entry("w", R"({"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551616]})") + "}",
               kF32x2),
       "data_offsets must hold non-negative integers, got 18446744073709551616"},
      {"missing data_offsets", file_of("{" + entry("w", R"({"dtype":"F32","shape":[2]})") + "}", kF32x2),
       "tensor \"w\": entry has no \"data_offsets\""},
      {"missing dtype", file_of("{" + entry("w", R"({"shape":[2],"data_offsets":[0,8]})") + "}", kF32x2),
       "entry has no \"dtype\""},
      {"entry not an object", file_of("{" + entry("w", "[1,2]") + "}"),
       "tensor \"w\": entry must be an object {\"dtype\", \"shape\", \"data_offsets\"}, got an array"},
      {"duplicate tensor", file_of("{" + entry("a", kOk) + "," + entry("a", kOk) + "}", kF32x2),
       "key \"a\" appears twice"},
      {"duplicate field",
       file_of("{" + entry("a", R"({"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]})") + "}", kF32x2),
       "field \"dtype\" appears twice"},
      {"duplicate __metadata__", file_of(R"({"__metadata__":{},"__metadata__":{},)" + entry("a", kOk) + "}", kF32x2),
       "appears twice"},
      {"duplicate metadata key", file_of(R"({"__metadata__":{"k":"1","k":"2"}})"),
       "__metadata__ key \"k\" appears twice"},
      {"metadata value not a string", file_of(R"({"__metadata__":{"epoch":12}})"),
       "__metadata__ value of key \"epoch\" must be a string, got a number 12"},
      {"metadata value an object", file_of(R"({"__metadata__":{"a":{"b":"c"}}})"),
       "value of key \"a\" must be a string, got an object"},
      {"metadata not an object", file_of(R"({"__metadata__":["a"]})"),
       "__metadata__ must be an object of strings, got an array"},
      {"invalid UTF-8 in a key", file_of("{" + entry("w\xff", kOk) + "}", kF32x2),
       "the header is not valid UTF-8 (byte 3 of the header)"},
      {"overlong UTF-8 in metadata", file_of("{\"__metadata__\":{\"k\":\"\xc0\xaf\"}}"), "not valid UTF-8"},
      {"UTF-8 surrogate", file_of("{\"__metadata__\":{\"k\":\"\xed\xa0\x80\"}}"), "not valid UTF-8"},
      {"escaped lone surrogate", file_of(R"({"__metadata__":{"k":"\ud800"}})"), "not valid JSON"},
      {"NUL in a name", file_of("{" + entry("a\\u0000b", kOk) + "}", kF32x2), "contains a NUL character"},
      {"invalid JSON", file_of(R"({"w":{"dtype":"F32",)"), "not valid JSON"},
      {"JSON then garbage", file_of(R"({}x)"), "not valid JSON"},
      {"NUL padding", file_of(std::string("{}\0\0", 4)), "not valid JSON (a NUL byte at byte 2"},
      {"header a string", file_of(R"("abc")"), "the header must be a JSON object, got a string \"abc\""},
      {"header an array", file_of("[1]"), "the header must be a JSON object, got an array"},
      {"header empty", file_of(""), "not valid JSON"},
      {"array bomb", file_of(deep), "the header must be a JSON object, got an array"},
      {"object bomb", file_of(deep_object), "nests deeper than 1000 levels"},
      {"depth bomb in an unknown field", file_of(deep_field, kF32x2), "nests deeper than 1000 levels"},
      {"invalid BOOL byte",
       file_of("{" + entry("m", R"({"dtype":"BOOL","shape":[3],"data_offsets":[0,3]})") + "}",
               std::string("\1\0\2", 3)),
       "tensor \"m\": BOOL element 2 is byte 2, expected 0 or 1"},
  };
}

TEST(SafetensorsHostile, EveryCaseIsAFormatErrorThatSaysWhy) {
  for (const Hostile& h : hostile_corpus()) {
    SCOPED_TRACE(h.name);
    Dict d;
    EXPECT_GLIA_MSG(load_bytes(h.bytes, d), GLIA_ERR_FORMAT, h.message);
    EXPECT_EQ(d.d, nullptr);
  }
}

// Well-formed files with a dtype the format defines but glia and torch 1.13 have not: GLIA_ERR_UNSUPPORTED
// naming the tensor and the dtype, nothing returned.
TEST(SafetensorsForeignDTypes, UnsupportedNamingTensorAndDType) {
  struct Foreign {
    const char* dtype;
    int64_t numel;  // 8 bytes' worth
  };
  const Foreign kForeign[] = {{"U16", 4},     {"U32", 2}, {"U64", 1}, {"F8_E4M3", 8}, {"F8_E5M2", 8},
                              {"F8_E8M0", 8}, {"F4", 16}, {"C64", 1}, {"F6_E2M3", 8}, {"F6_E3M2", 8}};
  for (const Foreign& f : kForeign) {
    SCOPED_TRACE(f.dtype);
    const int64_t bytes = std::string(f.dtype).rfind("F6", 0) == 0 ? 6 : 8;
    const std::string body = std::string(R"({"dtype":")") + f.dtype + R"(","shape":[)" + std::to_string(f.numel) +
                             R"(],"data_offsets":[8,)" + std::to_string(8 + bytes) + "]}";
    // A supported tensor first: the message names the foreign one.
    const std::string file =
        file_of("{" + entry("ok", kOk) + "," + entry("layer.q", body) + "}", kF32x2 + std::string(bytes, '\0'));
    Dict d;
    EXPECT_GLIA_MSG(load_bytes(file, d), GLIA_ERR_UNSUPPORTED,
                    std::string("safetensors: tensor \"layer.q\": dtype ") + f.dtype + " is not supported by glia");
    EXPECT_EQ(d.d, nullptr);
  }
}

TEST(SafetensorsHostile, SameErrorsFromAFileAsFromMemory) {
  TempDir dir;
  for (const Hostile& h : hostile_corpus()) {
    SCOPED_TRACE(h.name);
    std::string path = dir.path + "/h.safetensors";
    write_file(path, h.bytes);
    Dict d;
    EXPECT_GLIA_MSG(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_SAFETENSORS, &d.d), GLIA_ERR_FORMAT, h.message);
  }
}

TEST(SafetensorsHostile, AutoDetectionRefusesWhatIsNotACheckpoint) {
  const std::string junk = "hello, world";
  Dict d;
  EXPECT_GLIA_MSG(glia_tensor_dict_load_buffer(junk.data(), junk.size(), GLIA_FORMAT_AUTO, &d.d), GLIA_ERR_FORMAT,
                  "neither a safetensors file nor a PyTorch checkpoint");
}

}  // namespace
