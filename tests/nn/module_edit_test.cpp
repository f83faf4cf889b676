// glia_module_remove, glia_module_set_training and the container pop/clear
// functions against torch 1.13 (`del m.x`, `m.training = False`, `del seq[i]`,
// ModuleList.pop, ModuleDict.pop/clear, ParameterDict.pop/clear); the expected
// texts and keys were printed by torch 1.13.
#include "support/fixture.h"

namespace glia_test {
namespace {

glia_module* linear(int64_t in, int64_t out) {
  glia_module* m = nullptr;
  ok(glia_nn_linear(in, out, 1, nullptr, &m), "linear");
  return m;
}
glia_module* relu() {
  glia_module* m = nullptr;
  ok(glia_nn_relu(nullptr, &m), "relu");
  return m;
}
glia_module* tanh_m() {
  glia_module* m = nullptr;
  ok(glia_nn_tanh(nullptr, &m), "tanh");
  return m;
}
glia_module* sigmoid() {
  glia_module* m = nullptr;
  ok(glia_nn_sigmoid(nullptr, &m), "sigmoid");
  return m;
}
std::vector<std::string> param_names(glia_module* m) {
  DictHandle d;
  ok(glia_module_named_parameters(m, nullptr, 1, 1, d.out()), "named_parameters");
  return dict_keys(d);
}
std::vector<std::string> child_names(glia_module* m) {
  int64_t n = 0;
  ok(glia_module_named_children(m, nullptr, nullptr, 0, &n), "named_children");
  std::vector<glia_module*> ms(static_cast<size_t>(n));
  std::vector<char*> names(static_cast<size_t>(n));
  ok(glia_module_named_children(m, ms.data(), names.data(), n, &n), "named_children");
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) {
    out.emplace_back(names[i]);
    glia_string_free(names[i]);
    glia_error_free(glia_module_release(ms[i]));
  }
  return out;
}

TEST(ModuleEdit, RemoveParameterBufferChild) {
  Handles h;
  ModuleHandle lin(linear(2, 3));
  ok(glia_module_register_buffer(lin, "b", make(h, {0}, {1}, GLIA_FLOAT32), 1), "buffer");
  ok(glia_module_register_buffer(lin, "nb", make(h, {0}, {1}, GLIA_FLOAT32), 0), "buffer");
  ok(glia_module_remove(lin, "weight"), "remove");
  // torch: ['bias', 'b'] and ['bias'].
  EXPECT_EQ(state_dict_keys(lin), (std::vector<std::string>{"bias", "b"}));
  EXPECT_EQ(param_names(lin), (std::vector<std::string>{"bias"}));
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_module_remove(lin, "weight"), &code), "'Linear' object has no attribute 'weight'");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  EXPECT_EQ(error_text(glia_module_remove(lin, "foo"), &code), "'Linear' object has no attribute 'foo'");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  EXPECT_EQ(error_text(glia_module_remove(lin, nullptr), &code), "glia_module_remove: argument 'name' is NULL");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  // The name is free for another kind; a removed non-persistent buffer comes back persistent.
  ok(glia_module_register_buffer(lin, "weight", make(h, {1, 2}, {2}, GLIA_FLOAT32), 1), "buffer");
  ok(glia_module_remove(lin, "nb"), "remove");
  ok(glia_module_register_buffer(lin, "nb", make(h, {3}, {1}, GLIA_FLOAT32), 1), "buffer");
  EXPECT_EQ(state_dict_keys(lin), (std::vector<std::string>{"bias", "b", "weight", "nb"}));
  // Forward without the weight fails (torch: AttributeError).
  glia_tensor* x = make(h, {1, 2}, {1, 2}, GLIA_FLOAT32);
  int64_t n_out = 0;
  EXPECT_NE(error_text(glia_module_forward(lin, (const glia_tensor* const*)&x, 1, nullptr, 0, &n_out), &code), "");
  // A child, and a reserved (NULL) entry.
  ModuleHandle seq, r(relu()), t(tanh_m());
  glia_module* two[] = {r, t};
  ok(glia_nn_sequential(two, 2, seq.out()), "seq");
  ok(glia_module_register_parameter(seq, "p", nullptr), "reserve");
  ok(glia_module_remove(seq, "p"), "remove reserved");
  ok(glia_module_remove(seq, "0"), "remove child");  // delattr: no renumbering
  EXPECT_EQ(child_names(seq), (std::vector<std::string>{"1"}));
  EXPECT_EQ(module_repr(seq), "Sequential(\n  (1): Tanh()\n)");
}

TEST(ModuleEdit, SetTrainingIsNotRecursive) {
  ModuleHandle seq, lin(linear(1, 1));
  glia_module* one[] = {lin};
  ok(glia_nn_sequential(one, 1, seq.out()), "seq");
  ok(glia_module_set_training(seq, 0), "set_training");
  int32_t a = -1, b = -1;
  ok(glia_module_is_training(seq, &a), "is_training");
  ok(glia_module_is_training(lin, &b), "is_training");
  EXPECT_EQ(a, 0);  // torch: m.training = False -> False, m[0].training True
  EXPECT_EQ(b, 1);
  ok(glia_module_set_training(lin, 0), "set_training");
  ok(glia_module_set_training(seq, 1), "set_training");
  ok(glia_module_is_training(seq, &a), "is_training");
  ok(glia_module_is_training(lin, &b), "is_training");
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 0);
  enum glia_error_code code = GLIA_OK;
  error_text(glia_module_set_training(nullptr, 0), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_HANDLE);
}

TEST(ModuleEdit, SequentialAndModuleListPopRenumber) {
  ModuleHandle seq, r(relu()), t(tanh_m()), s(sigmoid());
  glia_module* three[] = {r, t, s};
  ok(glia_nn_sequential(three, 3, seq.out()), "seq");
  ok(glia_nn_sequential_pop(seq, 0, nullptr), "del seq[0]");
  // torch 1.13: del s[0] -> keys ['0', '1'].
  EXPECT_EQ(module_repr(seq), "Sequential(\n  (0): Tanh()\n  (1): Sigmoid()\n)");
  ModuleHandle popped;
  ok(glia_nn_sequential_pop(seq, -1, popped.out()), "pop");
  EXPECT_EQ(module_repr(popped), "Sigmoid()");
  EXPECT_EQ(child_names(seq), (std::vector<std::string>{"0"}));
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_nn_sequential_pop(seq, 5, nullptr), &code), "index 5 is out of range");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  // A slice keeps the original keys; popping renumbers them all, as torch does.
  ModuleHandle full, sl;
  ok(glia_nn_sequential(three, 3, full.out()), "seq");
  ok(glia_nn_sequential_slice(full, 1, INT64_MAX, 1, sl.out()), "slice");
  EXPECT_EQ(child_names(sl), (std::vector<std::string>{"1", "2"}));
  ok(glia_nn_sequential_pop(sl, 1, nullptr), "pop");
  EXPECT_EQ(child_names(sl), (std::vector<std::string>{"0"}));

  ModuleHandle ml, got;
  ok(glia_nn_module_list(three, 3, ml.out()), "list");
  ok(glia_nn_module_list_pop(ml, 1, got.out()), "pop");
  EXPECT_EQ(module_repr(got), "Tanh()");  // torch: Tanh() ['0', '1']
  EXPECT_EQ(child_names(ml), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(module_repr(ml), "ModuleList(\n  (0): ReLU()\n  (1): Sigmoid()\n)");
  EXPECT_EQ(error_text(glia_nn_module_list_pop(ml, 5, nullptr), &code), "index 5 is out of range");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error_text(glia_nn_module_list_pop(seq, 0, nullptr), &code),
            "glia_nn_module_list_pop: argument 'list' is a Sequential, expected a ModuleList");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
}

TEST(ModuleEdit, DictPopAndClear) {
  Handles h;
  ModuleHandle md, r(relu()), t(tanh_m());
  const char* keys[] = {"a", "b"};
  glia_module* ms[] = {r, t};
  ok(glia_nn_module_dict(keys, ms, 2, md.out()), "dict");
  ModuleHandle got;
  ok(glia_nn_module_dict_pop(md, "a", got.out()), "pop");
  EXPECT_EQ(module_repr(got), "ReLU()");
  EXPECT_EQ(child_names(md), (std::vector<std::string>{"b"}));
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_nn_module_dict_pop(md, "zz", nullptr), &code), "'zz'");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  ok(glia_nn_dict_clear(md), "clear");
  int64_t n = -1;
  ok(glia_nn_container_len(md, &n), "len");
  EXPECT_EQ(n, 0);

  ModuleHandle pd;
  const char* pk[] = {"a", "b"};
  glia_tensor* ps[] = {make(h, {0}, {1}, GLIA_FLOAT32), make(h, {1}, {1}, GLIA_FLOAT32)};
  ok(glia_nn_parameter_dict(pk, ps, 2, pd.out()), "pdict");
  glia_tensor* p = nullptr;
  ok(glia_nn_parameter_dict_pop(pd, "a", &p), "pop");
  h.add(p);
  EXPECT_EQ(values(p), std::vector<double>{0});
  EXPECT_EQ(state_dict_keys(pd), std::vector<std::string>{"b"});
  EXPECT_EQ(error_text(glia_nn_parameter_dict_pop(pd, "zz", nullptr), &code),
            "'ParameterDict' object has no attribute 'zz'");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  ok(glia_nn_parameter_dict_pop(pd, "b", nullptr), "del pd['b']");
  ok(glia_nn_container_len(pd, &n), "len");
  EXPECT_EQ(n, 0);
  ok(glia_nn_parameter_dict_set(pd, "c", make(h, {2}, {1}, GLIA_FLOAT32)), "set");
  ok(glia_nn_dict_clear(pd), "clear");
  ok(glia_nn_container_len(pd, &n), "len");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(error_text(glia_nn_dict_clear(r), &code),
            "glia_nn_dict_clear: argument 'dict' is a ReLU, expected a ModuleDict or ParameterDict");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace glia_test
