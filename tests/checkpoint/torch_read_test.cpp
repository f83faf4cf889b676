// Reading PyTorch checkpoints through the C ABI: files torch 1.13 wrote
// (tests/golden/checkpoints/gen_torch_files.py), compared bit for bit, and
// hostile archives that must fail with the right code.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

const json& expected() {
  static const json j = load_json("golden/checkpoints/torch/expected.json");
  return j;
}

std::string path_of(const std::string& name) { return data_path("golden/checkpoints/torch/" + name); }

struct Dict {
  glia_tensor_dict* d = nullptr;
  ~Dict() { glia_tensor_dict_release(d); }
};

std::string hex(const std::vector<uint8_t>& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

size_t itemsize_of(glia_dtype d) {
  switch (d) {
    case GLIA_FLOAT64:
    case GLIA_INT64:
      return 8;
    case GLIA_FLOAT32:
    case GLIA_INT32:
      return 4;
    case GLIA_FLOAT16:
    case GLIA_BFLOAT16:
    case GLIA_INT16:
      return 2;
    default:
      return 1;
  }
}

std::vector<int64_t> ints(const json& j) { return j.get<std::vector<int64_t>>(); }

// Every entry of `name` against expected.json: keys, dtype, geometry, bytes, sharing.
void check_file(const std::string& name, glia_tensor_dict* dict) {
  SCOPED_TRACE(name);
  const json& want = expected()["files"][name]["entries"];
  int64_t n = 0;
  GLIA_OK_(glia_tensor_dict_size(dict, &n));
  EXPECT_EQ(n, static_cast<int64_t>(want.size()));
  std::map<int, uintptr_t> bases;  // storage id -> storage data address
  std::map<uintptr_t, int> ids;
  Handles h;
  for (auto& [key, e] : want.items()) {
    SCOPED_TRACE(key);
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_tensor_dict_get(dict, key.c_str(), &t));
    h.add(t);
    glia_dtype dt = dtype(t);
    EXPECT_EQ(dt, dtype_named(e["dtype"].get<std::string>()));
    EXPECT_EQ(shape(t), ints(e["shape"]));
    int64_t ndim = 0, offset = -1;
    GLIA_OK_(glia_tensor_ndim(t, &ndim));
    std::vector<int64_t> strides(static_cast<size_t>(ndim));
    GLIA_OK_(glia_tensor_strides(t, ndim, strides.data()));
    EXPECT_EQ(strides, ints(e["strides"]));
    GLIA_OK_(glia_tensor_storage_offset(t, &offset));
    EXPECT_EQ(offset, e["offset"].get<int64_t>());
    int32_t rg = -1;
    GLIA_OK_(glia_tensor_requires_grad(t, &rg));
    EXPECT_EQ(rg != 0, e["requires_grad"].get<bool>());
    int64_t numel = 0;
    GLIA_OK_(glia_tensor_numel(t, &numel));
    std::vector<uint8_t> bytes(static_cast<size_t>(numel) * itemsize_of(dt));
    GLIA_OK_(glia_tensor_copy_to_host(t, bytes.data(), bytes.size()));
    EXPECT_EQ(hex(bytes), e["hex"].get<std::string>());
    if (e["storage"].is_null()) continue;
    void* data = nullptr;
    GLIA_OK_(glia_tensor_data(t, &data));
    uintptr_t base = reinterpret_cast<uintptr_t>(data) - static_cast<uintptr_t>(offset) * itemsize_of(dt);
    int id = e["storage"].get<int>();
    if (auto it = bases.find(id); it != bases.end())
      EXPECT_EQ(it->second, base) << "shares storage " << id << " in torch";
    else
      bases[id] = base;
    if (auto it = ids.find(base); it != ids.end())
      EXPECT_EQ(it->second, id) << "shares a storage that torch does not share";
    else
      ids[base] = id;
  }
}

class TorchFile : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchFile, MatchesTorchBitForBit) {
  Dict d;
  GLIA_OK_(glia_tensor_dict_load(path_of(GetParam()).c_str(), GLIA_FORMAT_AUTO, &d.d));
  check_file(GetParam(), d.d);
}

TEST_P(TorchFile, LoadsFromABufferAsTorchFormat) {
  std::string bytes = read_file(path_of(GetParam()));
  Dict d;
  GLIA_OK_(glia_tensor_dict_load_buffer(bytes.data(), bytes.size(), GLIA_FORMAT_TORCH, &d.d));
  bytes.assign(bytes.size(), '\0');  // the dict must not depend on the caller's bytes
  check_file(GetParam(), d.d);
}

std::vector<std::string> file_names() {
  std::vector<std::string> names;
  for (auto& [name, _] : expected()["files"].items()) names.push_back(name);
  return names;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param.substr(0, info.param.size() - 3);
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Golden, TorchFile, ::testing::ValuesIn(file_names()), test_name);

TEST(TorchRead, KeysKeepThePickleOrder) {
  Dict d;
  GLIA_OK_(glia_tensor_dict_load(path_of("module_zip.pt").c_str(), GLIA_FORMAT_AUTO, &d.d));
  const char* want[] = {
      "0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var", "1.num_batches_tracked",
      "4.weight", "4.bias"};
  int64_t n = 0;
  GLIA_OK_(glia_tensor_dict_size(d.d, &n));
  ASSERT_EQ(n, 9);
  for (int64_t i = 0; i < n; ++i) {
    char key[64];
    size_t len = 0;
    GLIA_OK_(glia_tensor_dict_key_at(d.d, i, key, sizeof key, &len));
    EXPECT_STREQ(key, want[i]);
  }
}

TEST(TorchRead, CheckpointNumbersAreZeroDimTensors) {
  Dict d;
  GLIA_OK_(glia_tensor_dict_load(path_of("checkpoint_zip.pt").c_str(), GLIA_FORMAT_AUTO, &d.d));
  Handles h;
  glia_tensor* epoch = nullptr;
  GLIA_OK_(glia_tensor_dict_get(d.d, "epoch", &epoch));
  h.add(epoch);
  int64_t v = 0;
  GLIA_OK_(glia_tensor_item_int64(epoch, &v));
  EXPECT_EQ(v, 3);
  EXPECT_EQ(dtype(epoch), GLIA_INT64);
  int32_t has = 1;
  GLIA_OK_(glia_tensor_dict_contains(d.d, "name", &has));  // a str: skipped
  EXPECT_EQ(has, 0);
  GLIA_OK_(glia_tensor_dict_contains(d.d, "nothing", &has));  // None: skipped
  EXPECT_EQ(has, 0);
}

TEST(TorchRead, DeflatedZerosNearTheRatioLimitLoad) {
  Dict d;
  GLIA_OK_(glia_tensor_dict_load(path_of("hostile/deflated_zeros.pt").c_str(), GLIA_FORMAT_AUTO, &d.d));
  Handles h;
  glia_tensor* w = nullptr;
  GLIA_OK_(glia_tensor_dict_get(d.d, "w", &w));
  h.add(w);
  EXPECT_EQ(shape(w), std::vector<int64_t>{10 << 18});
  std::vector<float> got(10 << 18, 1.0f);
  GLIA_OK_(glia_tensor_copy_to_host(w, got.data(), got.size() * 4));
  for (float x : got) ASSERT_EQ(x, 0.0f);
}

class HostileFile : public ::testing::TestWithParam<json> {};

// The file the hostile corpus's payloads would create in the working directory
// (MARKER in gen_torch_files.py) if anything ran them.
constexpr const char* kMarker = "glia-hostile-ran";

// The error of a load: its code and message ("" and 0 when it succeeded).
std::pair<enum glia_error_code, std::string> error_of(glia_error* e) {
  if (!e) return {GLIA_OK, ""};
  std::pair<enum glia_error_code, std::string> r{glia_error_code(e), glia_error_message(e)};
  glia_error_free(e);
  return r;
}

// Refused through both load paths (flattened dict and value tree) with the same
// code, a message that names what is wrong ("message") and where ("at": the
// opcode and its byte), and nothing run.
TEST_P(HostileFile, IsRefused) {
  const json& c = GetParam();
  std::remove(kMarker);
  const std::string path = path_of(c["file"].get<std::string>());
  Dict d;
  auto [code, msg] = error_of(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &d.d));
  EXPECT_EQ(code, code_named(c["code"].get<std::string>())) << msg;
  EXPECT_NE(msg.find(c["message"].get<std::string>()), std::string::npos) << msg;
  if (c.contains("at")) EXPECT_NE(msg.find(c["at"].get<std::string>()), std::string::npos) << msg;
  EXPECT_EQ(d.d, nullptr);
  if (c.value("dict_only", false)) return;  // refused as a dict only (a list at the top)
  glia_value* v = nullptr;
  auto [vcode, vmsg] = error_of(glia_value_load(path.c_str(), GLIA_FORMAT_AUTO, &v));
  EXPECT_EQ(vcode, code);
  EXPECT_EQ(vmsg, msg);
  EXPECT_EQ(v, nullptr);
  std::string bytes = read_file(path);  // and from memory, as a torch file
  auto [bcode, bmsg] = error_of(glia_value_load_buffer(bytes.data(), bytes.size(), GLIA_FORMAT_TORCH, &v));
  EXPECT_EQ(bcode, code) << bmsg;
  EXPECT_NE(bmsg.find(c["message"].get<std::string>()), std::string::npos) << bmsg;
  EXPECT_EQ(v, nullptr);
  EXPECT_FALSE(std::ifstream(kMarker).good()) << "a payload ran";
}

std::vector<json> hostile_cases() {
  std::vector<json> v;
  for (const json& c : expected()["hostile"]) v.push_back(c);
  return v;
}

std::string hostile_name(const ::testing::TestParamInfo<json>& info) {
  std::string s = info.param["file"].get<std::string>();
  s = s.substr(s.find('/') + 1);
  s = s.substr(0, s.size() - 3);
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileFile, ::testing::ValuesIn(hostile_cases()), hostile_name);

TEST(TorchRead, TruncatedFilesAreFormatErrors) {
  for (const char* name : {"module_zip.pt", "module_legacy.pt"}) {
    std::string bytes = read_file(path_of(name));
    for (size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 9, bytes.size() - 1}) {
      SCOPED_TRACE(std::string(name) + " cut at " + std::to_string(cut));
      Dict d;
      EXPECT_GLIA_ERR(glia_tensor_dict_load_buffer(bytes.data(), cut, GLIA_FORMAT_TORCH, &d.d), GLIA_ERR_FORMAT);
    }
  }
}

}  // namespace

// Mutated golden files: any outcome but a crash, a hang or a sanitizer report
// (this test's failures show under the ASan+UBSan build). Loads that succeed
// must give a dict whose tensors can all be read.
TEST(TorchRead, MutatedFilesLoadOrFailCleanly) {
  uint64_t state = 0x9e3779b97f4a7c15u;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int loaded = 0, refused = 0;
  for (const char* name : {"module_zip.pt", "module_legacy.pt", "views_zip.pt", "views_legacy.pt"}) {
    std::string orig = read_file(path_of(name));
    for (int round = 0; round < 400; ++round) {
      std::string bytes = orig;
      int flips = 1 + static_cast<int>(next() % 4);
      for (int f = 0; f < flips; ++f) bytes[next() % bytes.size()] = static_cast<char>(next());
      Dict d;
      glia_error* e = glia_tensor_dict_load_buffer(bytes.data(), bytes.size(), GLIA_FORMAT_TORCH, &d.d);
      if (e) {
        EXPECT_NE(glia_error_code(e), GLIA_ERR_INTERNAL) << glia_error_message(e);
        glia_error_free(e);
        ++refused;
        continue;
      }
      ++loaded;
      int64_t n = 0;
      GLIA_OK_(glia_tensor_dict_size(d.d, &n));
      for (int64_t i = 0; i < n; ++i) {
        glia_tensor* t = nullptr;
        GLIA_OK_(glia_tensor_dict_value_at(d.d, i, &t));
        int64_t numel = 0;
        glia_dtype dt = dtype(t);
        ok(glia_tensor_numel(t, &numel), "numel");
        std::vector<uint8_t> buf(static_cast<size_t>(numel) * itemsize_of(dt));
        ok(glia_tensor_copy_to_host(t, buf.data(), buf.size()), "copy_to_host");
        glia_tensor_release(t);
      }
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(loaded, 0);  // flips in tensor bytes still load
}
