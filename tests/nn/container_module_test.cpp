// Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against torch 1.13
// (tests/golden/gen_containers.py): repr of nested containers, state-dict keys and
// order, slices, insert/append/set, forward/backward through a Sequential, errors,
// and the state-dict order of the PyTorch modules note's StatefulModule.

#include <climits>

#include "support/fixture.h"

namespace glia_test {
namespace {

const json& fixture() {
  static const json j = load_json("golden/modules/containers.json");
  return j;
}

glia_module* layer_norm(int64_t n, glia_dtype dt = GLIA_FLOAT32) {
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = dt;
  glia_module* m = nullptr;
  ok(glia_nn_layer_norm(&n, 1, 1e-5, 1, 1, &f, &m), "layer_norm");
  return m;
}
glia_module* group_norm(int64_t g, int64_t c, glia_dtype dt = GLIA_FLOAT32) {
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = dt;
  glia_module* m = nullptr;
  ok(glia_nn_group_norm(g, c, 1e-5, 1, &f, &m), "group_norm");
  return m;
}
glia_module* batch_norm1d(int64_t n, int32_t affine, glia_dtype dt = GLIA_FLOAT32) {
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = dt;
  glia_batch_norm_options o;
  glia_batch_norm_options_init(&o);
  o.affine = affine;
  glia_module* m = nullptr;
  ok(glia_nn_batch_norm1d(n, &o, &f, &m), "bn");
  return m;
}

// The fixture's nested Sequential, built through the C API.
glia_module* nested(Handles& h) {
  ModuleHandle ln4(layer_norm(4)), gn(group_norm(2, 4)), bn(batch_norm1d(4, 1)), bn_na(batch_norm1d(4, 0));
  ModuleHandle mse, ln22;
  ok(glia_nn_mse_loss(GLIA_REDUCTION_MEAN, nullptr, mse.out()), "mse");
  int64_t s22[] = {2, 2};
  ok(glia_nn_layer_norm(s22, 2, 1e-5, 1, 1, nullptr, ln22.out()), "ln22");
  ModuleHandle list, dict, inner, plist, pdict, seq;
  glia_module* lm[] = {gn, bn};
  ok(glia_nn_module_list(lm, 2, list.out()), "module_list");
  const char* dk[] = {"b", "a"};
  glia_module* dm[] = {mse, ln22};
  ok(glia_nn_module_dict(dk, dm, 2, dict.out()), "module_dict");
  glia_module* im[] = {bn_na};
  ok(glia_nn_sequential(im, 1, inner.out()), "inner");
  glia_tensor* ps[] = {make(h, std::vector<double>(6, 0.0), {2, 3}, GLIA_FLOAT32), make(h, {0, 0, 0}, {3})};
  ok(glia_nn_parameter_list(ps, 2, plist.out()), "parameter_list");
  const char* pk[] = {"foo", "bar", "baz"};
  glia_tensor* pv[] = {make(h, {0, 0}, {2}, GLIA_FLOAT32), make(h, {0, 0, 0}, {3}), make(h, {0}, {}, GLIA_FLOAT32)};
  ok(glia_nn_parameter_dict(pk, pv, 3, pdict.out()), "parameter_dict");
  glia_module* all[] = {ln4, list, dict, inner, plist, pdict};
  ok(glia_nn_sequential(all, 6, seq.out()), "sequential");
  return seq.release();
}

int64_t slice_arg(const json& v, int64_t open) { return v.is_null() ? open : v.get<int64_t>(); }

TEST(ContainerModules, NestedReprAndStateDict) {
  Handles h;
  ModuleHandle s(nested(h));
  EXPECT_EQ(module_repr(s), fixture()["nested_repr"].get<std::string>());
  EXPECT_EQ(state_dict_keys(s), fixture()["nested_keys"].get<std::vector<std::string>>());
  glia_tensor_dict* d = nullptr;
  ok(glia_module_named_parameters(s, nullptr, 1, 1, &d), "named_parameters");
  EXPECT_EQ(dict_keys(d), fixture()["nested_params"].get<std::vector<std::string>>());
  glia_error_free(glia_tensor_dict_release(d));
  int64_t n = 0;
  ok(glia_nn_container_len(s, &n), "len");
  EXPECT_EQ(n, 6);
  for (const json& c : fixture()["slices"]) {
    int64_t step = slice_arg(c["step"], 1);
    ModuleHandle t;
    ok(glia_nn_sequential_slice(s, slice_arg(c["start"], step > 0 ? INT64_MIN : INT64_MAX),
                                slice_arg(c["stop"], step > 0 ? INT64_MAX : INT64_MIN), step, t.out()),
       "slice");
    EXPECT_EQ(module_repr(t), c["repr"].get<std::string>()) << c.dump();
    // torch keeps the original keys: each is a child of the slice, and there are no others.
    auto keys = c["keys"].get<std::vector<std::string>>();
    int64_t len = 0;
    ok(glia_nn_container_len(t, &len), "len");
    EXPECT_EQ(len, static_cast<int64_t>(keys.size())) << c.dump();
    for (const auto& k : keys) {
      ModuleHandle child;
      EXPECT_EQ(error_text(glia_module_get_submodule(t, k.c_str(), child.out())), "") << k;
    }
  }
  // Index access shares the child: seq[-1] is seq[5].
  ModuleHandle last, fifth;
  ok(glia_nn_sequential_get(s, -1, last.out()), "get");
  ok(glia_nn_sequential_get(s, 5, fifth.out()), "get");
  EXPECT_EQ(module_repr(last), module_repr(fifth));
  glia_module* none = nullptr;
  EXPECT_EQ(error_text(glia_nn_sequential_get(s, 6, &none)), fixture()["index_error"].get<std::string>());
  EXPECT_GLIA_ERR(glia_nn_sequential_get(s, -7, &none), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_sequential_slice(s, 0, 1, 0, &none), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error_text(glia_nn_module_list_append(s, last)),
            "glia_nn_module_list_append: argument 'list' is a Sequential, expected a ModuleList");
  EXPECT_EQ(none, nullptr);
}

TEST(ContainerModules, EditingMatchesTorch) {
  // ModuleList slices renumber; insert shifts the tail.
  ModuleHandle ml;
  ok(glia_nn_module_list(nullptr, 0, ml.out()), "module_list");
  for (int i = 0; i < 5; ++i) {
    ModuleHandle l(layer_norm(i + 1));
    ok(glia_nn_module_list_append(ml, l), "append");
  }
  for (const json& c : fixture()["list_slices"]) {
    int64_t step = slice_arg(c["step"], 1);
    ModuleHandle t;
    ok(glia_nn_module_list_slice(ml, slice_arg(c["start"], step > 0 ? INT64_MIN : INT64_MAX),
                                 slice_arg(c["stop"], step > 0 ? INT64_MAX : INT64_MIN), step, t.out()),
       "slice");
    EXPECT_EQ(module_repr(t), c["repr"].get<std::string>());
  }
  ModuleHandle ins, l1(layer_norm(1)), l2(layer_norm(2)), l9(layer_norm(9)), l8(layer_norm(8));
  glia_module* two[] = {l1, l2};
  ok(glia_nn_module_list(two, 2, ins.out()), "list");
  ok(glia_nn_module_list_insert(ins, 1, l9), "insert");
  ok(glia_nn_module_list_insert(ins, 0, l8), "insert");
  EXPECT_EQ(module_repr(ins), fixture()["insert_repr"].get<std::string>());
  ModuleHandle three, a(layer_norm(3)), b(layer_norm(3)), c(layer_norm(3));
  ok(glia_nn_module_list(nullptr, 0, three.out()), "list");
  glia_module* abc[] = {a, b, c};
  ok(glia_nn_module_list_extend(three, abc, 3), "extend");
  // torch 1.13 prints every child (no "(0-2): 3 x" compression).
  EXPECT_EQ(module_repr(three), fixture()["module_list_repr"].get<std::string>());
  int64_t n_out = 0;
  EXPECT_EQ(error_text(glia_module_forward(three, nullptr, 0, nullptr, 0, &n_out)),
            "Module [ModuleList] is missing the required \"forward\" function");

  ModuleHandle sq, s1(layer_norm(1)), s2(layer_norm(2)), s7(layer_norm(7)), s6(layer_norm(6)), g(group_norm(1, 1));
  glia_module* ss[] = {s1, s2};
  ok(glia_nn_sequential(ss, 2, sq.out()), "seq");
  ok(glia_nn_sequential_insert(sq, -1, s7), "insert");
  ok(glia_nn_sequential_append(sq, s6), "append");
  ok(glia_nn_sequential_set(sq, 0, g), "set");
  EXPECT_EQ(module_repr(sq), fixture()["sequential_edit_repr"].get<std::string>());
  ModuleHandle empty;
  ok(glia_nn_sequential(nullptr, 0, empty.out()), "seq");
  EXPECT_EQ(error_text(glia_nn_sequential_insert(empty, 2, s1)), fixture()["insert_error"].get<std::string>());

  // ModuleDict keeps insertion order; set on an existing key keeps its place.
  ModuleHandle md;
  ok(glia_nn_module_dict(nullptr, nullptr, 0, md.out()), "dict");
  ok(glia_nn_module_dict_set(md, "z", s1), "set");
  ok(glia_nn_module_dict_set(md, "a", s2), "set");
  ok(glia_nn_module_dict_set(md, "z", s7), "set");
  char buf[16];
  size_t len = 0;
  ok(glia_nn_dict_key_at(md, 0, buf, sizeof buf, &len), "key_at");
  EXPECT_EQ(std::string(buf, len), "z");
  ModuleHandle got;
  ok(glia_nn_module_dict_get(md, "z", got.out()), "get");
  EXPECT_EQ(module_repr(got), module_repr(s7));
  glia_module* none = nullptr;
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_nn_module_dict_get(md, "q", &none), &code), "'q'");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);

  std::vector<std::string> empties;
  ModuleHandle e1, e2, e3, e4, e5;
  ok(glia_nn_sequential(nullptr, 0, e1.out()), "e");
  ok(glia_nn_module_list(nullptr, 0, e2.out()), "e");
  ok(glia_nn_module_dict(nullptr, nullptr, 0, e3.out()), "e");
  ok(glia_nn_parameter_list(nullptr, 0, e4.out()), "e");
  ok(glia_nn_parameter_dict(nullptr, nullptr, 0, e5.out()), "e");
  for (glia_module* m : {e1.get(), e2.get(), e3.get(), e4.get(), e5.get()}) empties.push_back(module_repr(m));
  EXPECT_EQ(empties, fixture()["empty"].get<std::vector<std::string>>());
}

TEST(ContainerModules, ParameterContainers) {
  Handles h;
  glia_tensor* p0 = make(h, {1, 2}, {2}, GLIA_FLOAT32);
  ModuleHandle pl;
  ok(glia_nn_parameter_list(&p0, 1, pl.out()), "plist");
  int32_t rg = 0;
  ok(glia_tensor_requires_grad(p0, &rg), "requires_grad");
  EXPECT_EQ(rg, 1);  // made a parameter, as nn.Parameter does
  ok(glia_nn_parameter_list_append(pl, make(h, {3}, {1})), "append");
  glia_tensor* got = nullptr;
  ok(glia_nn_parameter_list_get(pl, -2, &got), "get");
  EXPECT_EQ(values(h.add(got)), (std::vector<double>{1, 2}));
  EXPECT_EQ(state_dict_keys(pl), (std::vector<std::string>{"0", "1"}));
  int64_t n_out = 0;
  EXPECT_EQ(error_text(glia_module_forward(pl, nullptr, 0, nullptr, 0, &n_out)),
            fixture()["parameter_list_call"].get<std::string>());
  // ParameterDict: sorted at construction, insertion order afterwards.
  const char* keys[] = {"m", "c"};
  glia_tensor* vals[] = {make(h, {1}, {1}), make(h, {2}, {1})};
  ModuleHandle pd;
  ok(glia_nn_parameter_dict(keys, vals, 2, pd.out()), "pdict");
  ok(glia_nn_parameter_dict_set(pd, "a", make(h, {3}, {1})), "set");
  EXPECT_EQ(state_dict_keys(pd), (std::vector<std::string>{"c", "m", "a"}));
  ok(glia_nn_parameter_dict_get(pd, "m", &got), "get");
  EXPECT_EQ(values(h.add(got)), std::vector<double>{1});
  int64_t n = 0;
  ok(glia_nn_container_len(pd, &n), "len");
  EXPECT_EQ(n, 3);
  ModuleHandle ln(layer_norm(2));
  EXPECT_GLIA_ERR(glia_nn_container_len(ln, &n), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_parameter_dict_get(pd, "zz", &got), GLIA_ERR_NOT_FOUND);
}

TEST(ContainerModules, SequentialForwardBackward) {
  const json& f = fixture()["forward"];
  Handles h;
  ModuleHandle a(layer_norm(4, GLIA_FLOAT64)), b(batch_norm1d(4, 1, GLIA_FLOAT64)), c(group_norm(2, 4, GLIA_FLOAT64));
  glia_module* ms[] = {a, b, c};
  ModuleHandle s;
  ok(glia_nn_sequential(ms, 3, s.out()), "seq");
  for (auto& [name, t] : f["params"].items()) assign(h, parameter(h, s, name), t);
  glia_tensor* x = tensor_from_json(h, f["x"]);
  ok(glia_tensor_set_requires_grad(x, 1), "requires_grad");
  glia_tensor* y = call(h, s, {x});
  expect_tensor(y, f["out"], 1e-10, "out");
  ok(glia_tensor_backward(y, tensor_from_json(h, f["w"]), 0), "backward");
  expect_tensor(grad_of(h, x), f["grad_x"], 1e-10, "grad_x");
  for (auto& [name, g] : f["grads"].items()) expect_tensor(grad_of(h, parameter(h, s, name)), g, 1e-10, name);
  for (auto& [name, v] : f["buffers"].items()) expect_tensor(buffer(h, s, name), v, 1e-10, name);
  // Empty Sequential returns its input; two inputs is torch's TypeError.
  ModuleHandle e;
  ok(glia_nn_sequential(nullptr, 0, e.out()), "seq");
  EXPECT_EQ(values(call(h, e, {x})), values(x));
  const glia_tensor* two[] = {x, x};
  glia_tensor* out = nullptr;
  int64_t n = 0;
  EXPECT_EQ(error_text(glia_module_forward(e, two, 2, &out, 1, &n)),
            "Sequential.forward() takes 2 positional arguments but 3 were given");
}

// The PyTorch modules note's StatefulModule: state_dict keys and order.
TEST(ContainerModules, StatefulModuleStateDictOrder) {
  Handles h;
  glia_module_def def;
  glia_module_def_init(&def);
  ModuleHandle root, linear, plist, pdict;
  GLIA_OK_(glia_module_create("StatefulModule", &def, root.out()));
  GLIA_OK_(glia_module_register_parameter(root, "param1", make(h, {1, 2}, {2}, GLIA_FLOAT32)));
  GLIA_OK_(glia_module_register_parameter(root, "param2", make(h, {1, 2, 3}, {3}, GLIA_FLOAT32)));
  GLIA_OK_(glia_module_register_parameter(root, "param3", nullptr));
  glia_tensor* pl[] = {make(h, std::vector<double>(10, 0.0), {10}), make(h, std::vector<double>(10, 0.0), {10}),
                       make(h, std::vector<double>(10, 0.0), {10})};
  GLIA_OK_(glia_nn_parameter_list(pl, 3, plist.out()));
  const char* keys[] = {"foo", "bar"};
  glia_tensor* pv[] = {make(h, {0, 0, 0}, {3}), make(h, {0, 0, 0, 0}, {4})};
  GLIA_OK_(glia_nn_parameter_dict(keys, pv, 2, pdict.out()));
  GLIA_OK_(glia_module_add_module(root, "param_list", plist));
  GLIA_OK_(glia_module_add_module(root, "param_dict", pdict));
  GLIA_OK_(glia_module_register_buffer(root, "buffer1", make(h, {0, 0, 0, 0}, {4}), 1));
  GLIA_OK_(glia_module_register_buffer(root, "buffer2", make(h, {0, 0, 0, 0, 0}, {5}), 0));
  GLIA_OK_(glia_module_register_buffer(root, "buffer3", nullptr, 1));
  GLIA_OK_(glia_nn_linear(2, 3, 1, nullptr, linear.out()));
  GLIA_OK_(glia_module_add_module(root, "linear", linear));
  EXPECT_EQ(state_dict_keys(root), fixture()["stateful_keys"].get<std::vector<std::string>>());
  EXPECT_EQ(state_dict_keys(root),
            (std::vector<std::string>{"param1", "param2", "buffer1", "param_list.0", "param_list.1", "param_list.2",
                                      "param_dict.bar", "param_dict.foo", "linear.weight", "linear.bias"}));
}

}  // namespace
}  // namespace glia_test
