// torch's lazy modules through the C API (glia_nn_lazy_*) against torch 1.13
// (tests/golden/gen_lazy.py -> golden/modules/lazy.json): type names and reprs
// before and after the first forward, state-dict entries (placeholders first),
// outputs after loading a checkpoint, loading before any forward; first-forward
// errors; seeded initialisation equal to the ordinary class's; handles kept
// across materialisation; all-or-nothing loading; the lazy queries.
#include <gtest/gtest.h>

#include "layers_support.h"

using namespace glia_test;

namespace {

template <class T>
T get(const json& a, const char* key, T dflt) {
  return a.contains(key) && !a[key].is_null() ? a[key].get<T>() : dflt;
}

// kernel_size (an int or a list) as n entries.
std::vector<int64_t> kernel(const json& a, int n) {
  const json& k = a["kernel_size"];
  if (k.is_array()) return k.get<std::vector<int64_t>>();
  return std::vector<int64_t>(static_cast<size_t>(n), k.get<int64_t>());
}

// An int or a list as element i.
int64_t nth(const json& a, const char* key, int i, int64_t dflt) {
  if (!a.contains(key)) return dflt;
  const json& v = a[key];
  return v.is_array() ? v[static_cast<size_t>(i)].get<int64_t>() : v.get<int64_t>();
}

glia_error* build(const std::string& m, const json& a, const glia_factory_options* f, glia_module** out) {
  const int32_t bias = get<bool>(a, "bias", true) ? 1 : 0;
  if (m == "LazyLinear") return glia_nn_lazy_linear(a["out_features"].get<int64_t>(), bias, f, out);
  if (m == "LazyConv2d") {
    glia_nn_conv2d_options o;
    glia_nn_conv2d_options_init(&o);
    for (int i = 0; i < 2; ++i) {
      o.stride[i] = nth(a, "stride", i, 1);
      o.padding[i] = nth(a, "padding", i, 0);
      o.dilation[i] = nth(a, "dilation", i, 1);
    }
    o.groups = get<int64_t>(a, "groups", 1);
    o.bias = bias;
    auto k = kernel(a, 2);
    return glia_nn_lazy_conv2d(a["out_channels"].get<int64_t>(), k[0], k[1], &o, f, out);
  }
  if (m == "LazyConvTranspose2d") {
    glia_nn_conv_transpose2d_options o;
    glia_nn_conv_transpose2d_options_init(&o);
    for (int i = 0; i < 2; ++i) {
      o.stride[i] = nth(a, "stride", i, 1);
      o.padding[i] = nth(a, "padding", i, 0);
      o.output_padding[i] = nth(a, "output_padding", i, 0);
      o.dilation[i] = nth(a, "dilation", i, 1);
    }
    o.groups = get<int64_t>(a, "groups", 1);
    o.bias = bias;
    auto k = kernel(a, 2);
    return glia_nn_lazy_conv_transpose2d(a["out_channels"].get<int64_t>(), k[0], k[1], &o, f, out);
  }
  if (m == "LazyConv1d" || m == "LazyConv3d") {
    const int nd = m == "LazyConv1d" ? 1 : 3;
    glia_nn_convnd_options o;
    glia_nn_convnd_options_init(&o);
    for (int i = 0; i < nd; ++i) {
      o.stride[i] = nth(a, "stride", i, 1);
      o.padding[i] = nth(a, "padding", i, 0);
      o.dilation[i] = nth(a, "dilation", i, 1);
    }
    o.groups = get<int64_t>(a, "groups", 1);
    o.bias = bias;
    auto k = kernel(a, nd);
    const int64_t oc = a["out_channels"].get<int64_t>();
    return nd == 1 ? glia_nn_lazy_conv1d(oc, k[0], &o, f, out) : glia_nn_lazy_conv3d(oc, k[0], k[1], k[2], &o, f, out);
  }
  if (m == "LazyConvTranspose1d" || m == "LazyConvTranspose3d") {
    const int nd = m == "LazyConvTranspose1d" ? 1 : 3;
    glia_nn_conv_transposend_options o;
    glia_nn_conv_transposend_options_init(&o);
    for (int i = 0; i < nd; ++i) {
      o.stride[i] = nth(a, "stride", i, 1);
      o.padding[i] = nth(a, "padding", i, 0);
      o.output_padding[i] = nth(a, "output_padding", i, 0);
      o.dilation[i] = nth(a, "dilation", i, 1);
    }
    o.groups = get<int64_t>(a, "groups", 1);
    o.bias = bias;
    auto k = kernel(a, nd);
    const int64_t oc = a["out_channels"].get<int64_t>();
    return nd == 1 ? glia_nn_lazy_conv_transpose1d(oc, k[0], &o, f, out)
                   : glia_nn_lazy_conv_transpose3d(oc, k[0], k[1], k[2], &o, f, out);
  }
  if (m.rfind("LazyBatchNorm", 0) == 0) {
    glia_batch_norm_options o;
    glia_batch_norm_options_init(&o);
    o.eps = get<double>(a, "eps", 1e-5);
    if (a.contains("momentum") && a["momentum"].is_null())
      o.momentum_none = 1;
    else
      o.momentum = get<double>(a, "momentum", 0.1);
    o.affine = get<bool>(a, "affine", true);
    o.track_running_stats = get<bool>(a, "track_running_stats", true);
    if (m == "LazyBatchNorm1d") return glia_nn_lazy_batch_norm1d(&o, f, out);
    if (m == "LazyBatchNorm2d") return glia_nn_lazy_batch_norm2d(&o, f, out);
    return glia_nn_lazy_batch_norm3d(&o, f, out);
  }
  glia_instance_norm_options o;
  glia_instance_norm_options_init(&o);
  o.eps = get<double>(a, "eps", 1e-5);
  o.momentum = get<double>(a, "momentum", 0.1);
  o.affine = get<bool>(a, "affine", true);  // the lazy defaults (torch 1.13's _LazyNormBase)
  o.track_running_stats = get<bool>(a, "track_running_stats", true);
  if (m == "LazyInstanceNorm1d") return glia_nn_lazy_instance_norm1d(&o, f, out);
  if (m == "LazyInstanceNorm2d") return glia_nn_lazy_instance_norm2d(&o, f, out);
  return glia_nn_lazy_instance_norm3d(&o, f, out);
}

std::string type_name(const glia_module* m) {
  size_t n = 0;
  ok(glia_module_type_name(m, nullptr, 0, &n), "type_name");
  std::string s(n + 1, '\0');
  ok(glia_module_type_name(m, s.data(), s.size(), &n), "type_name");
  s.resize(n);
  return s;
}

int32_t uninitialized(glia_module* m, const std::string& target) {
  int32_t v = -1;
  ok(glia_module_is_uninitialized(m, target.c_str(), &v), "is_uninitialized");
  return v;
}

int32_t has_uninitialized(glia_module* m) {
  int32_t v = -1;
  ok(glia_module_has_uninitialized_params(m, &v), "has_uninitialized_params");
  return v;
}

// The state dict's [key, shape or null] entries, null for placeholders (which are [0]).
void expect_entries(glia_module* m, const json& want, const std::string& what) {
  SCOPED_TRACE(what);
  DictHandle d;
  GLIA_OK_(glia_module_state_dict(m, d.out()));
  std::vector<std::string> keys = dict_keys(d);
  ASSERT_EQ(keys.size(), want.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(keys[i], want[i][0].get<std::string>());
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_tensor_dict_get(d, keys[i].c_str(), &t));
    Handles h;
    h.add(t);
    if (want[i][1].is_null()) {
      EXPECT_EQ(shape(t), (std::vector<int64_t>{0})) << keys[i];
      EXPECT_EQ(uninitialized(m, keys[i]), 1) << keys[i];
    } else {
      EXPECT_EQ(shape(t), want[i][1].get<std::vector<int64_t>>()) << keys[i];
      EXPECT_EQ(uninitialized(m, keys[i]), 0) << keys[i];
    }
  }
}

glia_tensor_dict* state_from_json(Handles& h, const json& state) {
  glia_tensor_dict* d = nullptr;
  ok(glia_tensor_dict_create(&d), "dict");
  for (auto it = state.begin(); it != state.end(); ++it) {
    const json& e = it.value();
    glia_tensor* t = make(h, decode_all(e["values"]), e["shape"].get<std::vector<int64_t>>(), dtype_named(e["dtype"]));
    ok(glia_tensor_dict_set(d, it.key().c_str(), t), "dict set");
  }
  return d;
}

glia_factory_options factory_of(const std::string& dtype) {
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = dtype_named(dtype);
  return f;
}

}  // namespace

TEST(LazyModules, MatchTorchBeforeAfterForwardAndLoading) {
  json fx = load_json("golden/modules/lazy.json");
  ASSERT_GE(fx["cases"].size(), 17u);
  for (const json& c : fx["cases"]) {
    const std::string name = c["module"];
    SCOPED_TRACE(name + " " + c["args"].dump());
    glia_factory_options f = factory_of(c["dtype"]);
    const glia_dtype dt = f.dtype;
    Handles h;
    glia_tensor* x = make(h, decode_all(c["input"]["values"]), c["input"]["shape"].get<std::vector<int64_t>>(), dt);

    ModuleHandle m;
    GLIA_OK_(build(name, c["args"], &f, m.out()));
    EXPECT_EQ(type_name(m), c["before"]["type"].get<std::string>());
    EXPECT_EQ(module_repr(m), c["before"]["repr"].get<std::string>());
    expect_entries(m, c["before"]["entries"], "before");
    call(h, m, {x});
    EXPECT_EQ(type_name(m), c["forward"]["type"].get<std::string>());
    EXPECT_EQ(module_repr(m), c["forward"]["repr"].get<std::string>());
    expect_entries(m, c["forward"]["entries"], "after forward");
    EXPECT_EQ(has_uninitialized(m), 0);
    for (const auto& e : c["forward"]["entries"]) {
      const std::string key = e[0];
      if (key == "weight" || key == "bias") EXPECT_EQ(dtype(parameter(h, m, key)), dt) << key;
    }

    DictHandle sd(state_from_json(h, c["loaded"]["state"]));
    GLIA_OK_(glia_module_load_state_dict(m, sd, 1, 0, nullptr));
    glia_tensor* y = call(h, m, {x});
    EXPECT_EQ(shape(y), c["loaded"]["out_shape"].get<std::vector<int64_t>>());
    expect_values(values(y), decode_all(c["loaded"]["out"]), default_tolerance(dt), "out");
    for (auto it = c["loaded"]["buffers"].begin(); it != c["loaded"]["buffers"].end(); ++it)
      expect_values(values(buffer(h, m, it.key())), decode_all(it.value()["values"]), default_tolerance(dt), it.key());

    ModuleHandle m2;
    GLIA_OK_(build(name, c["args"], &f, m2.out()));
    GLIA_OK_(glia_module_load_state_dict(m2, sd, 1, 0, nullptr));
    EXPECT_EQ(type_name(m2), c["load_first"]["type"].get<std::string>());
    EXPECT_EQ(module_repr(m2), c["load_first"]["repr"].get<std::string>());
    EXPECT_EQ(has_uninitialized(m2), 0);
    glia_tensor* y2 = call(h, m2, {x});
    EXPECT_EQ(type_name(m2), c["load_first"]["type_after"].get<std::string>());
    EXPECT_EQ(module_repr(m2), c["load_first"]["repr_after"].get<std::string>());
    expect_values(values(y2), decode_all(c["load_first"]["out"]), default_tolerance(dt), "load_first out");
  }
}

TEST(LazyModules, FirstForwardErrorsAreTorchsAndLeaveTheModuleLazy) {
  json fx = load_json("golden/modules/lazy.json");
  ASSERT_GE(fx["errors"].size(), 3u);
  for (const json& e : fx["errors"]) {
    const std::string name = e["module"];
    SCOPED_TRACE(name);
    ModuleHandle m;
    GLIA_OK_(build(name, e["args"], nullptr, m.out()));
    Handles h;
    std::vector<int64_t> s = e["input_shape"].get<std::vector<int64_t>>();
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    glia_tensor* x = make(h, std::vector<double>(static_cast<size_t>(n), 0.0), s, GLIA_FLOAT32);
    glia_tensor* outs[1] = {nullptr};
    int64_t n_out = 0;
    enum glia_error_code code = GLIA_OK;
    std::string msg = error_text(glia_module_forward(m, &x, 1, outs, 1, &n_out), &code);
    EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(msg.find(e["message"].get<std::string>()), std::string::npos) << msg;
    EXPECT_EQ(has_uninitialized(m), 1);
    EXPECT_EQ(type_name(m), name);
  }
}

TEST(LazyModules, SeededInitialisationEqualsTheOrdinaryClass) {
  Handles h;
  glia_tensor* x2 = make(h, std::vector<double>(2 * 5, 0.5), {2, 5}, GLIA_FLOAT32);
  glia_tensor* x4 = make(h, std::vector<double>(1 * 6 * 4 * 4, 0.25), {1, 6, 4, 4}, GLIA_FLOAT32);
  glia_manual_seed(21);
  ModuleHandle lazy, lazy_conv;
  GLIA_OK_(glia_nn_lazy_linear(3, 1, nullptr, lazy.out()));
  GLIA_OK_(glia_nn_lazy_conv_transpose2d(4, 3, 2, nullptr, nullptr, lazy_conv.out()));  // draws nothing yet
  call(h, lazy, {x2});
  call(h, lazy_conv, {x4});
  glia_manual_seed(21);
  ModuleHandle plain, plain_conv;
  GLIA_OK_(glia_nn_linear(5, 3, 1, nullptr, plain.out()));
  GLIA_OK_(glia_nn_conv_transpose2d(6, 4, 3, 2, nullptr, nullptr, plain_conv.out()));
  for (const char* p : {"weight", "bias"}) {
    EXPECT_EQ(values(parameter(h, lazy, p)), values(parameter(h, plain, p))) << p;
    EXPECT_EQ(values(parameter(h, lazy_conv, p)), values(parameter(h, plain_conv, p))) << p;
    EXPECT_EQ(shape(parameter(h, lazy_conv, p)), shape(parameter(h, plain_conv, p))) << p;
  }
}

TEST(LazyModules, HandlesTakenBeforeTheForwardSeeTheMaterialisedTensor) {
  Handles h;
  ModuleHandle m;
  glia_factory_options f = factory_of("float64");
  GLIA_OK_(glia_nn_lazy_linear(2, 1, &f, m.out()));
  glia_tensor* w = parameter(h, m, "weight");
  EXPECT_EQ(shape(w), (std::vector<int64_t>{0}));
  EXPECT_EQ(dtype(w), GLIA_FLOAT64);
  int32_t rg = 0;
  GLIA_OK_(glia_tensor_requires_grad(w, &rg));
  EXPECT_EQ(rg, 1);
  call(h, m, {make(h, {1, 2, 3, 4, 5, 6}, {2, 3})});  // float64, as the factory
  EXPECT_EQ(shape(w), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(w), values(parameter(h, m, "weight")));
  GLIA_OK_(glia_tensor_requires_grad(w, &rg));
  EXPECT_EQ(rg, 1);
}

TEST(LazyModules, InsideSequentialAndAfterTo) {
  Handles h;
  ModuleHandle lin, bn, seq;
  GLIA_OK_(glia_nn_lazy_linear(4, 1, nullptr, lin.out()));
  GLIA_OK_(glia_nn_lazy_batch_norm1d(nullptr, nullptr, bn.out()));
  glia_module* kids[2] = {lin.get(), bn.get()};
  GLIA_OK_(glia_nn_sequential(kids, 2, seq.out()));
  glia_dtype f64 = GLIA_FLOAT64;
  GLIA_OK_(glia_module_to(seq, nullptr, &f64));  // placeholders take the dtype (torch's .to on them)
  EXPECT_EQ(dtype(parameter(h, seq, "0.weight")), GLIA_FLOAT64);
  EXPECT_EQ(uninitialized(seq, "0.weight"), 1);
  EXPECT_EQ(uninitialized(seq, "1.running_mean"), 1);
  EXPECT_EQ(uninitialized(seq, "1.num_batches_tracked"), 0);
  call(h, seq, {make(h, std::vector<double>(3 * 7, 1.0), {3, 7})});
  EXPECT_EQ(type_name(lin), "Linear");
  EXPECT_EQ(type_name(bn), "BatchNorm1d");
  EXPECT_EQ(shape(parameter(h, seq, "0.weight")), (std::vector<int64_t>{4, 7}));
  EXPECT_EQ(dtype(parameter(h, seq, "0.weight")), GLIA_FLOAT64);
  EXPECT_EQ(shape(buffer(h, seq, "1.running_var")), (std::vector<int64_t>{4}));
  EXPECT_EQ(values(buffer(h, seq, "1.num_batches_tracked")), (std::vector<double>{1}));
}

TEST(LazyModules, LoadingIsAllOrNothingAndPlaceholdersLoadAsPlaceholders) {
  Handles h;
  ModuleHandle lazy, lin, seq, src_lazy;
  GLIA_OK_(glia_nn_lazy_linear(2, 1, nullptr, lazy.out()));
  GLIA_OK_(glia_nn_linear(3, 2, 1, nullptr, lin.out()));
  glia_module* kids[2] = {lazy.get(), lin.get()};
  GLIA_OK_(glia_nn_sequential(kids, 2, seq.out()));
  DictHandle d;
  GLIA_OK_(glia_tensor_dict_create(d.out()));
  GLIA_OK_(glia_tensor_dict_set(d, "0.weight", make(h, {1, 2, 3, 4, 5, 6}, {2, 3}, GLIA_FLOAT32)));
  GLIA_OK_(glia_tensor_dict_set(d, "0.bias", make(h, {1, 2}, {2}, GLIA_FLOAT32)));
  GLIA_OK_(glia_tensor_dict_set(d, "1.weight", make(h, {1, 2}, {1, 2}, GLIA_FLOAT32)));  // wrong shape
  GLIA_OK_(glia_tensor_dict_set(d, "1.bias", make(h, {1, 2}, {2}, GLIA_FLOAT32)));
  enum glia_error_code code = GLIA_OK;
  std::string msg = error_text(glia_module_load_state_dict(seq, d, 1, 0, nullptr), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("size mismatch for 1.weight"), std::string::npos) << msg;
  EXPECT_EQ(has_uninitialized(lazy), 1);  // nothing was materialised
  EXPECT_EQ(shape(parameter(h, lazy, "weight")), (std::vector<int64_t>{0}));

  // A lazy module's state dict (placeholders) loads into a lazy module and leaves it lazy.
  GLIA_OK_(glia_nn_lazy_linear(2, 1, nullptr, src_lazy.out()));
  DictHandle placeholders;
  GLIA_OK_(glia_module_state_dict(src_lazy, placeholders.out()));
  GLIA_OK_(glia_module_load_state_dict(lazy, placeholders, 1, 0, nullptr));
  EXPECT_EQ(has_uninitialized(lazy), 1);
  // ... and not into an ordinary module (its shapes differ).
  msg = error_text(glia_module_load_state_dict(lin, placeholders, 1, 0, nullptr), &code);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("size mismatch for weight: copying a param with shape [0] from checkpoint"), std::string::npos)
      << msg;
}

TEST(LazyModules, InitializeParametersAndQueries) {
  Handles h;
  ModuleHandle m, plain;
  GLIA_OK_(glia_nn_lazy_conv1d(4, 3, nullptr, nullptr, m.out()));
  EXPECT_EQ(has_uninitialized(m), 1);
  const glia_tensor* x = make(h, std::vector<double>(2 * 5 * 8, 1.0), {2, 5, 8}, GLIA_FLOAT32);
  GLIA_OK_(glia_module_initialize_parameters(m, &x, 1));
  EXPECT_EQ(has_uninitialized(m), 0);
  EXPECT_EQ(shape(parameter(h, m, "weight")), (std::vector<int64_t>{4, 5, 3}));
  EXPECT_EQ(type_name(m), "LazyConv1d");  // renamed by the next forward, as in torch
  EXPECT_EQ(module_repr(m), "LazyConv1d(5, 4, kernel_size=(3,), stride=(1,))");
  call(h, m, {x});
  EXPECT_EQ(type_name(m), "Conv1d");

  GLIA_OK_(glia_nn_linear(2, 3, 1, nullptr, plain.out()));
  EXPECT_EQ(has_uninitialized(plain), 0);
  EXPECT_EQ(uninitialized(plain, "weight"), 0);
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_module_initialize_parameters(plain, &x, 1), &code),
            "initialize_parameters is not implemented for Linear");
  EXPECT_EQ(code, GLIA_ERR_UNSUPPORTED);
  int32_t v = 0;
  EXPECT_EQ(error_text(glia_module_is_uninitialized(plain, "nope", &v), &code),
            "Linear has no parameter or buffer `nope`");
  EXPECT_EQ(code, GLIA_ERR_NOT_FOUND);
  EXPECT_GLIA_ERR(glia_module_is_uninitialized(plain, nullptr, &v), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_module_has_uninitialized_params(plain, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_module_has_uninitialized_params(nullptr, &v), GLIA_ERR_INVALID_HANDLE);
}

TEST(LazyModules, ConstructorErrorsNameTheLazyFunction) {
  glia_nn_convnd_options o;
  glia_nn_convnd_options_init(&o);
  o.groups = 0;
  glia_module* m = nullptr;
  enum glia_error_code code = GLIA_OK;
  EXPECT_EQ(error_text(glia_nn_lazy_conv1d(4, 3, &o, nullptr, &m), &code), "groups must be a positive integer");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  EXPECT_GLIA_ERR(glia_nn_lazy_linear(-1, 1, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_lazy_linear(3, 1, nullptr, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = GLIA_INT64;
  EXPECT_GLIA_ERR(glia_nn_lazy_batch_norm2d(nullptr, &f, &m), GLIA_ERR_DTYPE);
  EXPECT_EQ(m, nullptr);
  // NULL options: torch 1.13's lazy instance-norm defaults (affine, tracked).
  ModuleHandle in;
  GLIA_OK_(glia_nn_lazy_instance_norm2d(nullptr, nullptr, in.out()));
  EXPECT_EQ(module_repr(in), "LazyInstanceNorm2d(0, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
}
