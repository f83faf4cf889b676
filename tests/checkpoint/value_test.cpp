// glia_value: a checkpoint's whole object, as torch.load(weights_only=True)
// returns it. Files torch 1.13 wrote with top-level objects of every shape
// (tests/golden/checkpoints/gen_torch_files.py, "values" in expected.json),
// in the zip and the legacy layout, compared value by value: kinds, numbers,
// strings, tensors bit for bit, storage sharing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

// GLIA_OK_ for functions that return a value: records the failure and goes on.
#define VALUE_OK(call)                                                                               \
  do {                                                                                               \
    glia_error* value_e_ = (call);                                                                   \
    EXPECT_EQ(value_e_, nullptr) << #call << ": " << (value_e_ ? glia_error_message(value_e_) : ""); \
    glia_error_free(value_e_);                                                                       \
  } while (0)

const json& expected() {
  static const json j = load_json("golden/checkpoints/torch/expected.json");
  return j;
}

std::string path_of(const std::string& name) { return data_path("golden/checkpoints/torch/" + name); }

// A file's expected object: its own, or that of the file it names (the same
// object saved with another protocol, layout or byte order).
const json& want_of(const std::string& name) {
  const json& w = expected()["values"][name];
  return w.is_string() ? expected()["values"][w.get<std::string>()] : w;
}

// Owns value handles.
struct Values {
  std::vector<glia_value*> vs;
  glia_value* add(glia_value* v) {
    if (v) vs.push_back(v);
    return v;
  }
  ~Values() {
    for (auto it = vs.rbegin(); it != vs.rend(); ++it) EXPECT_EQ(glia_value_release(*it), nullptr);
  }
};

std::string hex_of(const std::string& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

std::string string_of(glia_value* v) {
  size_t len = 0;
  VALUE_OK(glia_value_as_string(v, nullptr, 0, &len));  // sizing call
  std::vector<char> buf(len + 1);
  VALUE_OK(glia_value_as_string(v, buf.data(), buf.size(), &len));
  return std::string(buf.data(), len);
}

glia_value_kind kind_named(const std::string& k) {
  static const std::map<std::string, glia_value_kind> kinds = {
      {"none", GLIA_VALUE_NONE},       {"bool", GLIA_VALUE_BOOL},   {"int", GLIA_VALUE_INT},
      {"big_int", GLIA_VALUE_BIG_INT}, {"float", GLIA_VALUE_FLOAT}, {"str", GLIA_VALUE_STR},
      {"bytes", GLIA_VALUE_BYTES},     {"tuple", GLIA_VALUE_TUPLE}, {"list", GLIA_VALUE_LIST},
      {"dict", GLIA_VALUE_DICT},       {"set", GLIA_VALUE_SET},     {"tensor", GLIA_VALUE_TENSOR},
      {"device", GLIA_VALUE_DEVICE},   {"dtype", GLIA_VALUE_DTYPE}};
  return kinds.at(k);
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

// Storage ids of the file -> base addresses seen, both ways (sharing as torch's).
struct Sharing {
  std::map<int, uintptr_t> bases;
  std::map<uintptr_t, int> ids;
};

// A one-line form of a described value, to compare sets whatever their order.
std::string describe(glia_value* v, Values& vals);

void expect_value(glia_value* v, const json& want, Values& vals, Sharing& sh, const std::string& where) {
  SCOPED_TRACE(where);
  glia_value_kind kind;
  GLIA_OK_(glia_value_get_kind(v, &kind));
  const std::string k = want["kind"].get<std::string>();
  ASSERT_EQ(kind, kind_named(k)) << "kind " << k;
  if (k == "none") return;
  if (k == "bool") {
    int32_t b = -1;
    GLIA_OK_(glia_value_as_bool(v, &b));
    EXPECT_EQ(b != 0, want["value"].get<bool>());
  } else if (k == "int") {
    int64_t i = 0;
    GLIA_OK_(glia_value_as_int(v, &i));
    EXPECT_EQ(i, want["value"].get<int64_t>());
  } else if (k == "float") {
    double d = 0;
    GLIA_OK_(glia_value_as_double(v, &d));
    EXPECT_EQ(d, std::strtod(want["value"].get<std::string>().c_str(), nullptr));
  } else if (k == "str" || k == "device" || k == "dtype") {
    EXPECT_EQ(string_of(v), want["value"].get<std::string>());
  } else if (k == "bytes" || k == "big_int") {
    EXPECT_EQ(hex_of(string_of(v)), want["hex"].get<std::string>());
  } else if (k == "tensor") {
    Handles h;
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_value_as_tensor(v, &t));
    h.add(t);
    glia_dtype dt = dtype(t);
    EXPECT_EQ(dt, dtype_named(want["dtype"].get<std::string>()));
    EXPECT_EQ(shape(t), want["shape"].get<std::vector<int64_t>>());
    int64_t ndim = 0, offset = -1, numel = 0;
    GLIA_OK_(glia_tensor_ndim(t, &ndim));
    std::vector<int64_t> strides(static_cast<size_t>(ndim));
    GLIA_OK_(glia_tensor_strides(t, ndim, strides.data()));
    EXPECT_EQ(strides, want["strides"].get<std::vector<int64_t>>());
    GLIA_OK_(glia_tensor_storage_offset(t, &offset));
    EXPECT_EQ(offset, want["offset"].get<int64_t>());
    int32_t rg = -1;
    GLIA_OK_(glia_tensor_requires_grad(t, &rg));
    EXPECT_EQ(rg != 0, want["requires_grad"].get<bool>());
    GLIA_OK_(glia_tensor_numel(t, &numel));
    std::string bytes(static_cast<size_t>(numel) * itemsize_of(dt), '\0');
    GLIA_OK_(glia_tensor_copy_to_host(t, bytes.data(), bytes.size()));
    EXPECT_EQ(hex_of(bytes), want["hex"].get<std::string>());
    if (!want["storage"].is_null()) {
      void* data = nullptr;
      GLIA_OK_(glia_tensor_data(t, &data));
      uintptr_t base = reinterpret_cast<uintptr_t>(data) - static_cast<uintptr_t>(offset) * itemsize_of(dt);
      int id = want["storage"].get<int>();
      auto [it, fresh] = sh.bases.emplace(id, base);
      EXPECT_EQ(it->second, base) << "shares storage " << id << " in torch";
      auto [jt, fresh2] = sh.ids.emplace(base, id);
      EXPECT_EQ(jt->second, id) << "shares a storage torch does not share";
    }
  } else {
    int64_t n = -1;
    GLIA_OK_(glia_value_size(v, &n));
    const json& items = want["items"];
    ASSERT_EQ(n, static_cast<int64_t>(items.size()));
    if (k == "set") {  // any order: compare the one-line forms
      std::vector<std::string> got, exp;
      for (int64_t i = 0; i < n; ++i) {
        glia_value* c = nullptr;
        GLIA_OK_(glia_value_item(v, i, &c));
        got.push_back(describe(vals.add(c), vals));
      }
      for (const json& it : items) exp.push_back(it.dump());
      std::sort(got.begin(), got.end());
      std::sort(exp.begin(), exp.end());
      EXPECT_EQ(got, exp);
      return;
    }
    if (k == "dict" && want.contains("ordered")) {  // collections.OrderedDict or dict
      int32_t ordered = -1;
      GLIA_OK_(glia_value_dict_is_ordered(v, &ordered));
      EXPECT_EQ(ordered != 0, want["ordered"].get<bool>());
    }
    for (int64_t i = 0; i < n; ++i) {
      glia_value* c = nullptr;
      GLIA_OK_(glia_value_item(v, i, &c));
      vals.add(c);
      if (k == "dict") {
        glia_value* key = nullptr;
        GLIA_OK_(glia_value_key_at(v, i, &key));
        vals.add(key);
        expect_value(key, items[static_cast<size_t>(i)][0], vals, sh, where + " key " + std::to_string(i));
        expect_value(c, items[static_cast<size_t>(i)][1], vals, sh, where + "[" + std::to_string(i) + "]");
      } else {
        expect_value(c, items[static_cast<size_t>(i)], vals, sh, where + "[" + std::to_string(i) + "]");
      }
    }
  }
}

// Scalars of a set, in the generator's JSON form.
std::string describe(glia_value* v, Values& vals) {
  glia_value_kind kind;
  VALUE_OK(glia_value_get_kind(v, &kind));
  json j;
  switch (kind) {
    case GLIA_VALUE_INT: {
      int64_t i = 0;
      VALUE_OK(glia_value_as_int(v, &i));
      j = {{"kind", "int"}, {"value", i}};
      break;
    }
    case GLIA_VALUE_STR:
      j = {{"kind", "str"}, {"value", string_of(v)}};
      break;
    default:
      j = {{"kind", "unexpected in a set"}, {"code", static_cast<int>(kind)}};
  }
  (void)vals;
  return j.dump();
}

std::vector<std::string> value_files() {
  std::vector<std::string> names;
  for (auto& [name, _] : expected()["values"].items()) names.push_back(name);
  return names;
}

std::string value_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param.substr(0, info.param.size() - 3);
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class ValueFile : public ::testing::TestWithParam<std::string> {};

TEST_P(ValueFile, MatchesTorchLoad) {
  Values vals;
  glia_value* root = nullptr;
  GLIA_OK_(glia_value_load(path_of(GetParam()).c_str(), GLIA_FORMAT_AUTO, &root));
  vals.add(root);
  Sharing sh;
  expect_value(root, want_of(GetParam()), vals, sh, GetParam());
}

TEST_P(ValueFile, LoadsFromABuffer) {
  std::string bytes = read_file(path_of(GetParam()));
  Values vals;
  glia_value* root = nullptr;
  GLIA_OK_(glia_value_load_buffer(bytes.data(), bytes.size(), GLIA_FORMAT_TORCH, &root));
  vals.add(root);
  bytes.assign(bytes.size(), '\0');  // the value must not depend on the caller's bytes
  Sharing sh;
  expect_value(root, want_of(GetParam()), vals, sh, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Golden, ValueFile, ::testing::ValuesIn(value_files()), value_test_name);

TEST(Value, TheTutorialCheckpointByKey) {
  Values vals;
  glia_value* root = nullptr;
  GLIA_OK_(glia_value_load(path_of("value_tutorial_zip.pt").c_str(), GLIA_FORMAT_AUTO, &root));
  vals.add(root);
  glia_value* epoch = nullptr;
  GLIA_OK_(glia_value_get(root, "epoch", &epoch));
  vals.add(epoch);
  int64_t e = 0;
  GLIA_OK_(glia_value_as_int(epoch, &e));
  EXPECT_EQ(e, 5);
  glia_value* model = nullptr;
  GLIA_OK_(glia_value_get(root, "model_state_dict", &model));
  vals.add(model);
  // The model's state dict flattens to the module's keys, ready for glia_module_load_state_dict.
  glia_tensor_dict* d = nullptr;
  GLIA_OK_(glia_value_to_tensor_dict(model, &d));
  int64_t n = 0;
  GLIA_OK_(glia_tensor_dict_size(d, &n));
  EXPECT_EQ(n, 4);
  int32_t has = 0;
  GLIA_OK_(glia_tensor_dict_contains(d, "2.bias", &has));
  EXPECT_EQ(has, 1);
  GLIA_OK_(glia_tensor_dict_release(d));
  // The whole checkpoint flattens as glia_tensor_dict_load flattens it.
  glia_tensor_dict* whole = nullptr;
  glia_tensor_dict* direct = nullptr;
  GLIA_OK_(glia_value_to_tensor_dict(root, &whole));
  GLIA_OK_(glia_tensor_dict_load(path_of("value_tutorial_zip.pt").c_str(), GLIA_FORMAT_AUTO, &direct));
  int64_t a = 0, b = 0;
  GLIA_OK_(glia_tensor_dict_size(whole, &a));
  GLIA_OK_(glia_tensor_dict_size(direct, &b));
  EXPECT_EQ(a, b);
  EXPECT_GT(a, 4);
  for (int64_t i = 0; i < a; ++i) {
    char k1[128], k2[128];
    size_t l1 = 0, l2 = 0;
    GLIA_OK_(glia_tensor_dict_key_at(whole, i, k1, sizeof k1, &l1));
    GLIA_OK_(glia_tensor_dict_key_at(direct, i, k2, sizeof k2, &l2));
    EXPECT_STREQ(k1, k2);
  }
  GLIA_OK_(glia_tensor_dict_release(whole));
  GLIA_OK_(glia_tensor_dict_release(direct));
}

TEST(Value, TheSameChildIsTheSameHandle) {
  Values vals;
  glia_value* root = nullptr;
  GLIA_OK_(glia_value_load(path_of("value_tensor_list_zip.pt").c_str(), GLIA_FORMAT_AUTO, &root));
  vals.add(root);
  glia_value *a = nullptr, *b = nullptr;
  GLIA_OK_(glia_value_item(root, 0, &a));
  GLIA_OK_(glia_value_item(root, 0, &b));
  EXPECT_EQ(a, b);
  GLIA_OK_(glia_value_release(a));
  GLIA_OK_(glia_value_release(b));
}

TEST(Value, SafetensorsIsADictOfTensors) {
  // Written here, read back as a value: str keys, tensor values, header order.
  Handles h;
  glia_tensor_dict* d = nullptr;
  GLIA_OK_(glia_tensor_dict_load(path_of("module_zip.pt").c_str(), GLIA_FORMAT_AUTO, &d));
  void* buf = nullptr;
  size_t size = 0;
  GLIA_OK_(glia_tensor_dict_save_buffer(d, GLIA_FORMAT_SAFETENSORS, &buf, &size));
  Values vals;
  glia_value* root = nullptr;
  GLIA_OK_(glia_value_load_buffer(buf, size, GLIA_FORMAT_AUTO, &root));
  vals.add(root);
  glia_buffer_free(buf);
  int64_t n = 0, m = 0;
  GLIA_OK_(glia_value_size(root, &n));
  GLIA_OK_(glia_tensor_dict_size(d, &m));
  EXPECT_EQ(n, m);
  glia_value* key = nullptr;
  GLIA_OK_(glia_value_key_at(root, 0, &key));
  vals.add(key);
  EXPECT_EQ(string_of(key), "0.weight");
  GLIA_OK_(glia_tensor_dict_release(d));
}

TEST(Value, WrongKindsAndIndicesAreClearErrors) {
  Values vals;
  glia_value* root = nullptr;
  GLIA_OK_(glia_value_load(path_of("value_tensor_list_zip.pt").c_str(), GLIA_FORMAT_AUTO, &root));
  vals.add(root);
  glia_value* out = nullptr;
  EXPECT_GLIA_MSG(glia_value_get(root, "w", &out), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_get: argument 'dict' has type 'list', expected a dict");
  EXPECT_GLIA_MSG(glia_value_item(root, 3, &out), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_item: index 3 is out of range for a list of size 3");
  EXPECT_GLIA_MSG(glia_value_item(root, -1, &out), GLIA_ERR_INVALID_ARGUMENT, "index -1 is out of range");
  int64_t i = 0;
  EXPECT_GLIA_MSG(glia_value_as_int(root, &i), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_as_int: argument 'value' has type 'list', expected an int");
  glia_tensor_dict* d = nullptr;
  EXPECT_GLIA_MSG(glia_value_to_tensor_dict(root, &d), GLIA_ERR_FORMAT,
                  "the top-level object is a list, expected a dict");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(d, nullptr);
  glia_value* leaves = nullptr;
  GLIA_OK_(glia_value_load(path_of("value_leaves_zip.pt").c_str(), GLIA_FORMAT_AUTO, &leaves));
  vals.add(leaves);
  glia_value* big = nullptr;
  GLIA_OK_(glia_value_item(leaves, 4, &big));
  vals.add(big);
  EXPECT_GLIA_MSG(glia_value_as_int(big, &i), GLIA_ERR_INVALID_ARGUMENT, "does not fit in int64");
  EXPECT_GLIA_MSG(glia_value_get(nullptr, "x", &out), GLIA_ERR_INVALID_HANDLE,
                  "argument 'dict' is NULL, expected a glia_value");
}

TEST(Value, AWholePickledModuleIsRefused) {
  // torch.save(model) pickles the class: refused, naming the global; nothing runs.
  glia_value* out = nullptr;
  EXPECT_GLIA_MSG(glia_value_load(path_of("hostile/os_system.pt").c_str(), GLIA_FORMAT_AUTO, &out), GLIA_ERR_FORMAT,
                  "global \"posix.system\" is not allowed");
  EXPECT_EQ(out, nullptr);
  for (const char* name : {"hostile/whole_module_zip.pt", "hostile/whole_module_legacy.pt"}) {
    EXPECT_GLIA_MSG(glia_value_load(path_of(name).c_str(), GLIA_FORMAT_AUTO, &out), GLIA_ERR_FORMAT,
                    "global \"torch.nn.modules.container.Sequential\" is not allowed (only the globals of a state "
                    "dict are; no code runs): a whole pickled module or object; save its state_dict() instead");
    EXPECT_EQ(out, nullptr);
  }
}

}  // namespace

// glia -> glia: every torch-written value file, saved by glia (torch format) and
// read back, is still what torch.load gives (kinds, numbers, strings, tensors bit
// for bit, storage sharing); dicts stay dicts or OrderedDicts.
void expect_same_dict_kinds(glia_value* a, glia_value* b, Values& vals) {
  glia_value_kind ka, kb;
  GLIA_OK_(glia_value_get_kind(a, &ka));
  GLIA_OK_(glia_value_get_kind(b, &kb));
  ASSERT_EQ(ka, kb);
  if (ka != GLIA_VALUE_DICT && ka != GLIA_VALUE_LIST && ka != GLIA_VALUE_TUPLE && ka != GLIA_VALUE_SET) return;
  if (ka == GLIA_VALUE_DICT) {
    int32_t oa = -1, ob = -2;
    GLIA_OK_(glia_value_dict_is_ordered(a, &oa));
    GLIA_OK_(glia_value_dict_is_ordered(b, &ob));
    EXPECT_EQ(oa, ob);
  }
  int64_t n = 0;
  GLIA_OK_(glia_value_size(a, &n));
  for (int64_t i = 0; i < n; ++i) {
    glia_value *ca = nullptr, *cb = nullptr;
    GLIA_OK_(glia_value_item(a, i, &ca));
    GLIA_OK_(glia_value_item(b, i, &cb));
    vals.add(ca);
    vals.add(cb);
    expect_same_dict_kinds(ca, cb, vals);
  }
}

TEST_P(ValueFile, RoundTripsThroughGlia) {
  Values vals;
  glia_value* root = nullptr;
  GLIA_OK_(glia_value_load(path_of(GetParam()).c_str(), GLIA_FORMAT_AUTO, &root));
  vals.add(root);
  void* buf = nullptr;
  size_t size = 0;
  GLIA_OK_(glia_value_save_buffer(root, GLIA_FORMAT_TORCH, &buf, &size));
  glia_value* back = nullptr;
  GLIA_OK_(glia_value_load_buffer(buf, size, GLIA_FORMAT_AUTO, &back));
  glia_buffer_free(buf);
  vals.add(back);
  Sharing sh;
  expect_value(back, want_of(GetParam()), vals, sh, GetParam());
  expect_same_dict_kinds(root, back, vals);
}

// torch -> glia -> file: a torch 1.13 zip file (protocol 2) of objects the value
// tree holds whole comes back byte for byte when glia saves what it read (under
// the same file name: the zip's folder is the stem). Files with what the tree
// does not keep (torch.Size, a state dict's _metadata, Parameters, other pickle
// protocols, CUDA locations) differ in those places only.
TEST(Value, TorchsZipFilesRewriteByteForByte) {
  for (const char* name : {"dtypes_zip.pt", "views_zip.pt", "zero_dim_zip.pt", "value_bare_tensor_zip.pt",
                           "value_nested_zip.pt", "value_tensor_list_zip.pt", "value_tensor_tuple_zip.pt"}) {
    SCOPED_TRACE(name);
    Values vals;
    glia_value* root = nullptr;
    GLIA_OK_(glia_value_load(path_of(name).c_str(), GLIA_FORMAT_AUTO, &root));
    vals.add(root);
    std::string out = ::testing::TempDir() + name;
    GLIA_OK_(glia_value_save(root, out.c_str(), GLIA_FORMAT_TORCH));
    EXPECT_TRUE(read_file(out) == read_file(path_of(name)));
    std::remove(out.c_str());
  }
}
