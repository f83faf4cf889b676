// glia_value_new_* / _append / _set / _set_item / _save / _save_buffer: values
// built in C, saved and read back (glia -> glia for every kind); the fixed rules
// (no cycles, no change after being put into another value); formats. What torch
// makes of glia's files is checked by tests/io/torch_write_test.cpp (sha256 of
// files torch 1.13 loaded, compared and re-saved byte for byte).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

// GLIA_OK_ for helpers that return a value: records the failure and goes on.
#define VOK(call)                                                                              \
  do {                                                                                         \
    glia_error* vok_e_ = (call);                                                               \
    EXPECT_EQ(vok_e_, nullptr) << #call << ": " << (vok_e_ ? glia_error_message(vok_e_) : ""); \
    glia_error_free(vok_e_);                                                                   \
  } while (0)

// Owns value handles (released in reverse order).
struct Vals {
  std::vector<glia_value*> vs;
  glia_value* add(glia_value* v) {
    if (v) vs.push_back(v);
    return v;
  }
  ~Vals() {
    for (auto it = vs.rbegin(); it != vs.rend(); ++it) EXPECT_EQ(glia_value_release(*it), nullptr);
  }
};

glia_value_kind kind_of(const glia_value* v) {
  glia_value_kind k = GLIA_VALUE_NONE;
  VOK(glia_value_get_kind(v, &k));
  return k;
}

std::string str_of(const glia_value* v) {
  size_t len = 0;
  VOK(glia_value_as_string(v, nullptr, 0, &len));
  std::string s(len + 1, '\0');
  VOK(glia_value_as_string(v, s.data(), s.size(), &len));
  s.resize(len);
  return s;
}

glia_value* item(Vals& vals, const glia_value* v, int64_t i) {
  glia_value* c = nullptr;
  VOK(glia_value_item(v, i, &c));
  return vals.add(c);
}

glia_value* key_at(Vals& vals, const glia_value* v, int64_t i) {
  glia_value* c = nullptr;
  VOK(glia_value_key_at(v, i, &c));
  return vals.add(c);
}

int64_t size_of(const glia_value* v) {
  int64_t n = -1;
  VOK(glia_value_size(v, &n));
  return n;
}

glia_value* round_trip(Vals& vals, const glia_value* v, glia_format format = GLIA_FORMAT_TORCH) {
  void* buf = nullptr;
  size_t size = 0;
  VOK(glia_value_save_buffer(v, format, &buf, &size));
  glia_value* back = nullptr;
  VOK(glia_value_load_buffer(buf, size, GLIA_FORMAT_AUTO, &back));
  glia_buffer_free(buf);
  return vals.add(back);
}

TEST(ValueWrite, EveryKindRoundTrips) {
  Handles h;
  Vals vals;
  glia_tensor* t = make(h, {1.5, -2.0, 3.25, 0.0, -0.5, 8.0}, {2, 3}, GLIA_FLOAT32);
  glia_value *root = nullptr, *v = nullptr;
  GLIA_OK_(glia_value_new_tuple(&root));
  vals.add(root);
  auto add = [&](glia_error* e) {
    GLIA_OK_(e);
    vals.add(v);
    GLIA_OK_(glia_value_append(root, v));
  };
  add(glia_value_new_none(&v));
  add(glia_value_new_bool(7, &v));
  add(glia_value_new_int(INT64_MIN, &v));
  add(glia_value_new_int(300, &v));
  add(glia_value_new_double(-0.0, &v));
  add(glia_value_new_double(NAN, &v));
  add(glia_value_new_string("h\xc3\xa9\0llo", 7, &v));
  add(glia_value_new_bytes("\0\xff\x80z", 4, &v));
  add(glia_value_new_bytes(nullptr, 0, &v));
  add(glia_value_new_tensor(t, &v));
  add(glia_value_new_device("cuda:1", &v));
  add(glia_value_new_device("cpu", &v));
  add(glia_value_new_dtype("int8", &v));
  add(glia_value_new_list(&v));
  add(glia_value_new_dict(1, &v));
  add(glia_value_new_dict(0, &v));
  add(glia_value_new_tuple(&v));

  glia_value* back = round_trip(vals, root);
  ASSERT_EQ(kind_of(back), GLIA_VALUE_TUPLE);
  ASSERT_EQ(size_of(back), 17);
  const glia_value_kind kinds[] = {
      GLIA_VALUE_NONE,  GLIA_VALUE_BOOL,  GLIA_VALUE_INT,   GLIA_VALUE_INT,    GLIA_VALUE_FLOAT,  GLIA_VALUE_FLOAT,
      GLIA_VALUE_STR,   GLIA_VALUE_BYTES, GLIA_VALUE_BYTES, GLIA_VALUE_TENSOR, GLIA_VALUE_DEVICE, GLIA_VALUE_DEVICE,
      GLIA_VALUE_DTYPE, GLIA_VALUE_LIST,  GLIA_VALUE_DICT,  GLIA_VALUE_DICT,   GLIA_VALUE_TUPLE};
  for (int64_t i = 0; i < 17; ++i) EXPECT_EQ(kind_of(item(vals, back, i)), kinds[i]) << i;
  int32_t b = -1;
  GLIA_OK_(glia_value_as_bool(item(vals, back, 1), &b));
  EXPECT_EQ(b, 1);
  int64_t i = 0;
  GLIA_OK_(glia_value_as_int(item(vals, back, 2), &i));
  EXPECT_EQ(i, INT64_MIN);
  GLIA_OK_(glia_value_as_int(item(vals, back, 3), &i));
  EXPECT_EQ(i, 300);
  double d = 1;
  GLIA_OK_(glia_value_as_double(item(vals, back, 4), &d));
  EXPECT_TRUE(d == 0 && std::signbit(d));
  GLIA_OK_(glia_value_as_double(item(vals, back, 5), &d));
  EXPECT_TRUE(std::isnan(d));
  EXPECT_EQ(str_of(item(vals, back, 6)), std::string("h\xc3\xa9\0llo", 7));
  EXPECT_EQ(str_of(item(vals, back, 7)), std::string("\0\xff\x80z", 4));
  EXPECT_EQ(str_of(item(vals, back, 8)), "");
  glia_tensor* bt = nullptr;
  GLIA_OK_(glia_value_as_tensor(item(vals, back, 9), &bt));
  h.add(bt);
  EXPECT_EQ(values(bt), (std::vector<double>{1.5, -2.0, 3.25, 0.0, -0.5, 8.0}));
  EXPECT_EQ(shape(bt), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(dtype(bt), GLIA_FLOAT32);
  EXPECT_EQ(str_of(item(vals, back, 10)), "cuda:1");
  EXPECT_EQ(str_of(item(vals, back, 11)), "cpu");
  EXPECT_EQ(str_of(item(vals, back, 12)), "int8");
  EXPECT_EQ(size_of(item(vals, back, 13)), 0);
  int32_t ordered = -1;
  GLIA_OK_(glia_value_dict_is_ordered(item(vals, back, 14), &ordered));
  EXPECT_EQ(ordered, 1);
  GLIA_OK_(glia_value_dict_is_ordered(item(vals, back, 15), &ordered));
  EXPECT_EQ(ordered, 0);
  EXPECT_EQ(size_of(item(vals, back, 16)), 0);
}

// The tutorial checkpoint built in C, saved to a path, read back by key; its
// model_state_dict flattens into the dict a module loads.
TEST(ValueWrite, TheTutorialCheckpointToAFile) {
  Handles h;
  Vals vals;
  glia_tensor* w = make(h, {1, 2, 3, 4, 5, 6}, {2, 3}, GLIA_FLOAT32);
  glia_tensor* bias = make(h, {0.5, -0.5}, {2}, GLIA_FLOAT32);
  glia_value *root, *epoch, *model, *optim, *state, *groups, *loss, *tw, *tb, *lr;
  GLIA_OK_(glia_value_new_dict(0, &root));
  GLIA_OK_(glia_value_new_int(5, &epoch));
  GLIA_OK_(glia_value_new_dict(1, &model));
  GLIA_OK_(glia_value_new_dict(0, &optim));
  GLIA_OK_(glia_value_new_dict(0, &state));
  GLIA_OK_(glia_value_new_list(&groups));
  GLIA_OK_(glia_value_new_double(0.3, &loss));
  GLIA_OK_(glia_value_new_tensor(w, &tw));
  GLIA_OK_(glia_value_new_tensor(bias, &tb));
  GLIA_OK_(glia_value_new_double(0.001, &lr));
  for (glia_value* v : {root, epoch, model, optim, state, groups, loss, tw, tb, lr}) vals.add(v);
  GLIA_OK_(glia_value_set(model, "fc.weight", tw));
  GLIA_OK_(glia_value_set(model, "fc.bias", tb));
  glia_value* group = nullptr;
  GLIA_OK_(glia_value_new_dict(0, &group));
  vals.add(group);
  GLIA_OK_(glia_value_set(group, "lr", lr));
  GLIA_OK_(glia_value_append(groups, group));
  GLIA_OK_(glia_value_set(optim, "state", state));
  GLIA_OK_(glia_value_set(optim, "param_groups", groups));
  GLIA_OK_(glia_value_set(root, "epoch", epoch));
  GLIA_OK_(glia_value_set(root, "model_state_dict", model));
  GLIA_OK_(glia_value_set(root, "optimizer_state_dict", optim));
  GLIA_OK_(glia_value_set(root, "loss", loss));

  std::string path = ::testing::TempDir() + "glia_value_tutorial.pt";
  GLIA_OK_(glia_value_save(root, path.c_str(), GLIA_FORMAT_AUTO));  // not a flat dict: the torch format
  glia_value* back = nullptr;
  GLIA_OK_(glia_value_load(path.c_str(), GLIA_FORMAT_TORCH, &back));
  vals.add(back);
  std::remove(path.c_str());
  ASSERT_EQ(size_of(back), 4);
  EXPECT_EQ(str_of(key_at(vals, back, 2)), "optimizer_state_dict");
  glia_value* e = nullptr;
  GLIA_OK_(glia_value_get(back, "epoch", &e));
  int64_t i = 0;
  GLIA_OK_(glia_value_as_int(vals.add(e), &i));
  EXPECT_EQ(i, 5);
  glia_value* l = nullptr;
  GLIA_OK_(glia_value_get(back, "loss", &l));
  double d = 0;
  GLIA_OK_(glia_value_as_double(vals.add(l), &d));
  EXPECT_EQ(d, 0.3);
  glia_value* m = nullptr;
  GLIA_OK_(glia_value_get(back, "model_state_dict", &m));
  vals.add(m);
  int32_t ordered = 0;
  GLIA_OK_(glia_value_dict_is_ordered(m, &ordered));
  EXPECT_EQ(ordered, 1);
  glia_tensor_dict* sd = nullptr;
  GLIA_OK_(glia_value_to_tensor_dict(m, &sd));
  EXPECT_EQ(dict_keys(sd), (std::vector<std::string>{"fc.weight", "fc.bias"}));
  GLIA_OK_(glia_tensor_dict_release(sd));
  glia_value *o = nullptr, *g = nullptr, *g0 = nullptr, *lr_back = nullptr;
  GLIA_OK_(glia_value_get(back, "optimizer_state_dict", &o));
  GLIA_OK_(glia_value_get(vals.add(o), "param_groups", &g));
  GLIA_OK_(glia_value_item(vals.add(g), 0, &g0));
  GLIA_OK_(glia_value_get(vals.add(g0), "lr", &lr_back));
  GLIA_OK_(glia_value_as_double(vals.add(lr_back), &d));
  EXPECT_EQ(d, 0.001);
}

// An OrderedDict of str -> tensor saves the bytes glia_tensor_dict_save writes;
// with AUTO or SAFETENSORS it is a safetensors file.
TEST(ValueWrite, AFlatDictIsTheTensorDictsFile) {
  Handles h;
  Vals vals;
  glia_tensor* a = make(h, {1, 2, 3}, {3}, GLIA_FLOAT32);
  glia_tensor* b = make(h, {7}, {1}, GLIA_INT64);
  glia_tensor_dict* d = nullptr;
  GLIA_OK_(glia_tensor_dict_create(&d));
  GLIA_OK_(glia_tensor_dict_set(d, "a", a));
  GLIA_OK_(glia_tensor_dict_set(d, "b", b));
  glia_value *root = nullptr, *va = nullptr, *vb = nullptr;
  GLIA_OK_(glia_value_new_dict(1, &root));
  GLIA_OK_(glia_value_new_tensor(a, &va));
  GLIA_OK_(glia_value_new_tensor(b, &vb));
  for (glia_value* v : {root, va, vb}) vals.add(v);
  GLIA_OK_(glia_value_set(root, "a", va));
  GLIA_OK_(glia_value_set(root, "b", vb));
  for (glia_format f : {GLIA_FORMAT_TORCH, GLIA_FORMAT_SAFETENSORS}) {
    void *p1 = nullptr, *p2 = nullptr;
    size_t n1 = 0, n2 = 0;
    GLIA_OK_(glia_value_save_buffer(root, f, &p1, &n1));
    GLIA_OK_(glia_tensor_dict_save_buffer(d, f, &p2, &n2));
    EXPECT_EQ(std::string(static_cast<char*>(p1), n1), std::string(static_cast<char*>(p2), n2)) << f;
    glia_buffer_free(p1);
    glia_buffer_free(p2);
  }
  void* p = nullptr;
  size_t n = 0;
  GLIA_OK_(glia_value_save_buffer(root, GLIA_FORMAT_AUTO, &p, &n));
  ASSERT_GT(n, 9u);
  EXPECT_EQ(static_cast<char*>(p)[8], '{');  // safetensors: a header length, then the JSON
  glia_buffer_free(p);
  GLIA_OK_(glia_tensor_dict_release(d));
}

TEST(ValueWrite, SafetensorsOnlyForAFlatDictOfTensors) {
  Handles h;
  Vals vals;
  glia_value *root = nullptr, *list = nullptr, *k = nullptr, *x = nullptr;
  GLIA_OK_(glia_value_new_dict(0, &root));
  GLIA_OK_(glia_value_new_list(&list));
  GLIA_OK_(glia_value_new_int(3, &k));
  GLIA_OK_(glia_value_new_tensor(make(h, {1}, {1}), &x));
  for (glia_value* v : {root, list, k, x}) vals.add(v);
  void* p = nullptr;
  size_t n = 0;
  EXPECT_GLIA_MSG(glia_value_save_buffer(list, GLIA_FORMAT_SAFETENSORS, &p, &n), GLIA_ERR_INVALID_ARGUMENT,
                  "a safetensors file holds a flat dict of str -> tensor, but the value is a list, not a dict");
  GLIA_OK_(glia_value_set(root, "x", x));
  GLIA_OK_(glia_value_set(root, "n", k));
  EXPECT_GLIA_MSG(glia_value_save_buffer(root, GLIA_FORMAT_SAFETENSORS, &p, &n), GLIA_ERR_INVALID_ARGUMENT,
                  "the value of key \"n\" is a int, not a tensor");
  EXPECT_EQ(p, nullptr);
  std::string path = ::testing::TempDir() + "glia_value_refused.safetensors";
  EXPECT_GLIA_MSG(glia_value_save(root, path.c_str(), GLIA_FORMAT_SAFETENSORS), GLIA_ERR_INVALID_ARGUMENT,
                  "(save it in the torch format, GLIA_FORMAT_TORCH)");
  EXPECT_EQ(std::fopen(path.c_str(), "rb"), nullptr);  // nothing written
  EXPECT_GLIA_MSG(glia_value_save_buffer(root, static_cast<glia_format>(7), &p, &n), GLIA_ERR_INVALID_ARGUMENT,
                  "argument 'format' is 7");
}

// Sharing: one value in two places is one object in the file; one tensor in two
// values is one tensor; a view shares its base's storage.
TEST(ValueWrite, SharingSurvives) {
  Handles h;
  Vals vals;
  glia_tensor* base = make(h, {1, 2, 3, 4}, {4}, GLIA_FLOAT32);
  glia_tensor* view = nullptr;
  int64_t start = 1, len = 2;
  GLIA_OK_(glia_narrow(base, 0, start, len, &view));
  h.add(view);
  glia_value *list = nullptr, *s = nullptr, *t1 = nullptr, *t2 = nullptr, *tv = nullptr;
  GLIA_OK_(glia_value_new_list(&list));
  GLIA_OK_(glia_value_new_string("x", 1, &s));
  GLIA_OK_(glia_value_new_tensor(base, &t1));
  GLIA_OK_(glia_value_new_tensor(base, &t2));
  GLIA_OK_(glia_value_new_tensor(view, &tv));
  for (glia_value* v : {list, s, t1, t2, tv}) vals.add(v);
  for (glia_value* v : {s, s, t1, t2, tv}) GLIA_OK_(glia_value_append(list, v));
  glia_value* back = round_trip(vals, list);
  EXPECT_EQ(item(vals, back, 0), item(vals, back, 1));  // one str object
  EXPECT_EQ(item(vals, back, 2), item(vals, back, 3));  // one tensor
  glia_tensor *b0 = nullptr, *b4 = nullptr;
  GLIA_OK_(glia_value_as_tensor(item(vals, back, 2), &b0));
  GLIA_OK_(glia_value_as_tensor(item(vals, back, 4), &b4));
  h.add(b0);
  h.add(b4);
  void *d0 = nullptr, *d4 = nullptr;
  GLIA_OK_(glia_tensor_data(b0, &d0));
  GLIA_OK_(glia_tensor_data(b4, &d4));
  EXPECT_EQ(static_cast<char*>(d4) - static_cast<char*>(d0), 4);  // the view at offset 1 of the same storage
  EXPECT_EQ(values(b4), (std::vector<double>{2, 3}));
}

// A value inside another, or read from a file, is fixed: no cycles can be made.
TEST(ValueWrite, ContainersAreFixedOnceInsideAnother) {
  Vals vals;
  glia_value *outer = nullptr, *inner = nullptr, *x = nullptr;
  GLIA_OK_(glia_value_new_list(&outer));
  GLIA_OK_(glia_value_new_list(&inner));
  GLIA_OK_(glia_value_new_int(1, &x));
  for (glia_value* v : {outer, inner, x}) vals.add(v);
  EXPECT_GLIA_MSG(glia_value_append(outer, outer), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_append: argument 'item' is the container itself (a value cannot contain itself)");
  GLIA_OK_(glia_value_append(outer, inner));
  EXPECT_GLIA_MSG(glia_value_append(inner, outer), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_append: argument 'container' can no longer be changed: it was read from a file or is "
                  "already inside another value (build containers from the inside out)");
  EXPECT_EQ(size_of(inner), 0);
  EXPECT_EQ(size_of(outer), 1);
  GLIA_OK_(glia_value_append(outer, inner));  // the same value twice is fine (shared)
  EXPECT_GLIA_MSG(glia_value_append(x, inner), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_append: argument 'container' has type 'int', expected a list or tuple");
  EXPECT_GLIA_MSG(glia_value_set(outer, "k", x), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_set: argument 'dict' has type 'list', expected a dict");
  glia_value* loaded = round_trip(vals, outer);
  EXPECT_GLIA_MSG(glia_value_append(loaded, x), GLIA_ERR_INVALID_ARGUMENT, "can no longer be changed");
  EXPECT_GLIA_MSG(glia_value_append(nullptr, x), GLIA_ERR_INVALID_HANDLE, "argument 'container' is NULL");
  glia_value* out = nullptr;
  EXPECT_GLIA_MSG(glia_value_new_string("\xff", 1, &out), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_new_string: argument 'data' is not valid UTF-8 (at byte 0)");
  EXPECT_GLIA_MSG(glia_value_new_device("gpu 0", &out), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_new_device: argument 'name' is \"gpu 0\", expected a torch.device string");
  EXPECT_GLIA_MSG(glia_value_new_dtype("float31", &out), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_new_dtype: argument 'name' is \"float31\", expected the name of a torch dtype");
  EXPECT_GLIA_MSG(glia_value_new_none(nullptr), GLIA_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  EXPECT_EQ(out, nullptr);
}

// Keys compare as Python's ==: setting a key again replaces the value in place.
TEST(ValueWrite, DictKeysAsPython) {
  Vals vals;
  glia_value *d = nullptr, *one = nullptr, *one_f = nullptr, *tru = nullptr, *a = nullptr, *b = nullptr, *c = nullptr,
             *lst = nullptr, *s = nullptr;
  GLIA_OK_(glia_value_new_dict(0, &d));
  GLIA_OK_(glia_value_new_int(1, &one));
  GLIA_OK_(glia_value_new_double(1.0, &one_f));
  GLIA_OK_(glia_value_new_bool(1, &tru));
  GLIA_OK_(glia_value_new_string("a", 1, &a));
  GLIA_OK_(glia_value_new_string("b", 1, &b));
  GLIA_OK_(glia_value_new_string("c", 1, &c));
  GLIA_OK_(glia_value_new_list(&lst));
  GLIA_OK_(glia_value_new_string("k", 1, &s));
  for (glia_value* v : {d, one, one_f, tru, a, b, c, lst, s}) vals.add(v);
  GLIA_OK_(glia_value_set(d, "k", a));
  GLIA_OK_(glia_value_set_item(d, one, a));
  GLIA_OK_(glia_value_set_item(d, one_f, b));  // 1.0 == 1: replaces
  GLIA_OK_(glia_value_set_item(d, tru, c));    // True == 1: replaces
  GLIA_OK_(glia_value_set_item(d, s, b));      // "k" again
  EXPECT_GLIA_MSG(glia_value_set_item(d, lst, a), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_value_set_item: argument 'key' has type 'list', which cannot be a dict key");
  glia_value* back = round_trip(vals, d);
  ASSERT_EQ(size_of(back), 2);
  EXPECT_EQ(str_of(key_at(vals, back, 0)), "k");
  EXPECT_EQ(str_of(item(vals, back, 0)), "b");
  EXPECT_EQ(kind_of(key_at(vals, back, 1)), GLIA_VALUE_INT);  // the first key stays
  EXPECT_EQ(str_of(item(vals, back, 1)), "c");
}

}  // namespace
