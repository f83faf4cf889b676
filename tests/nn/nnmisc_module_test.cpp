// The modules of issue 21's norms, dropouts and distances against torch.nn
// (tests/golden/gen_nnmisc.py -> golden/modules/nnmisc.json): forward, input
// and parameter gradients, buffers after the calls (running statistics), repr
// and state-dict keys at float64 and float32; constructor and forward errors;
// the dropout modules in training (channel masks, inplace).
#include <gtest/gtest.h>

#include <cmath>

#include "layers_support.h"

using namespace glia_test;

namespace {

template <class T>
T get(const json& a, const char* key, T dflt) {
  return a.contains(key) && !a[key].is_null() ? a[key].get<T>() : dflt;
}

glia_error* build(const std::string& m, const json& a, const glia_factory_options* f, glia_module** out) {
  const int32_t inplace = get<bool>(a, "inplace", false) ? 1 : 0;
  const double p = get<double>(a, "p", 0.5);
  if (m == "BatchNorm3d") {
    glia_batch_norm_options o;
    glia_batch_norm_options_init(&o);
    o.eps = get<double>(a, "eps", 1e-5);
    if (a.contains("momentum") && a["momentum"].is_null())
      o.momentum_none = 1;
    else
      o.momentum = get<double>(a, "momentum", 0.1);
    o.affine = get<bool>(a, "affine", true);
    o.track_running_stats = get<bool>(a, "track_running_stats", true);
    return glia_nn_batch_norm3d(a["num_features"].get<int64_t>(), &o, f, out);
  }
  if (m.rfind("InstanceNorm", 0) == 0) {
    glia_instance_norm_options o;
    glia_instance_norm_options_init(&o);
    o.eps = get<double>(a, "eps", 1e-5);
    o.momentum = get<double>(a, "momentum", 0.1);
    o.affine = get<bool>(a, "affine", false);
    o.track_running_stats = get<bool>(a, "track_running_stats", false);
    const int64_t nf = a["num_features"].get<int64_t>();
    if (m == "InstanceNorm1d") return glia_nn_instance_norm1d(nf, &o, f, out);
    if (m == "InstanceNorm2d") return glia_nn_instance_norm2d(nf, &o, f, out);
    return glia_nn_instance_norm3d(nf, &o, f, out);
  }
  if (m == "LocalResponseNorm")
    return glia_nn_local_response_norm(a["size"].get<int64_t>(), get<double>(a, "alpha", 1e-4),
                                       get<double>(a, "beta", 0.75), get<double>(a, "k", 1.0), f, out);
  if (m == "CosineSimilarity")
    return glia_nn_cosine_similarity(get<int64_t>(a, "dim", 1), get<double>(a, "eps", 1e-8), f, out);
  if (m == "PairwiseDistance")
    return glia_nn_pairwise_distance(get<double>(a, "p", 2.0), get<double>(a, "eps", 1e-6),
                                     get<bool>(a, "keepdim", false) ? 1 : 0, f, out);
  if (m == "Softsign") return glia_nn_softsign(f, out);
  if (m == "Dropout1d") return glia_nn_dropout1d(p, inplace, f, out);
  if (m == "Dropout2d") return glia_nn_dropout2d(p, inplace, f, out);
  if (m == "Dropout3d") return glia_nn_dropout3d(p, inplace, f, out);
  if (m == "AlphaDropout") return glia_nn_alpha_dropout(p, inplace, f, out);
  if (m == "FeatureAlphaDropout") return glia_nn_feature_alpha_dropout(p, inplace, f, out);
  ADD_FAILURE() << "unknown module " << m;
  return nullptr;
}

void run_case(const json& c) {
  const std::string name = c["name"];
  SCOPED_TRACE(name);
  Handles h;
  glia_factory_options fo;
  glia_factory_options_init(&fo);
  fo.dtype = dtype_named(c["dtype"]);
  ModuleHandle m;
  GLIA_OK_(build(c["module"], c["args"], &fo, m.out()));
  EXPECT_EQ(module_repr(m.get()), c["repr"].get<std::string>());
  EXPECT_EQ(state_dict_keys(m.get()), c["keys"].get<std::vector<std::string>>());
  glia_grad_mode_set(0);
  for (const json& p : c["params"]) {
    glia_tensor* dst = parameter(h, m.get(), p["name"]);
    EXPECT_EQ(shape(dst), p["value"]["shape"].get<std::vector<int64_t>>()) << p["name"];
    GLIA_OK_(glia_copy_(dst, tensor_from_json(h, p["value"])));
  }
  glia_grad_mode_set(1);
  GLIA_OK_(glia_module_train(m.get(), c["train"].get<bool>() ? 1 : 0));
  const double tol = c["tol"];
  const bool inplace = get<bool>(c["args"], "inplace", false);
  std::vector<glia_tensor*> xs;
  std::vector<const glia_tensor*> args;
  for (const json& x : c["inputs"]) {
    glia_tensor* t = tensor_from_json(h, x);
    GLIA_OK_(glia_tensor_set_requires_grad(t, 1));
    xs.push_back(t);
    if (inplace) {  // a leaf that requires grad cannot be written in place: the module gets a clone
      glia_tensor* k = nullptr;
      GLIA_OK_(glia_tensor_clone(t, &k));
      h.add(k);
      t = k;
    }
    args.push_back(t);
  }
  glia_tensor* y = nullptr;
  int64_t n = 0;
  for (int64_t k = 0; k < c["calls"].get<int64_t>(); ++k) {
    GLIA_OK_(glia_module_forward(m.get(), args.data(), static_cast<int64_t>(args.size()), &y, 1, &n));
    h.add(y);
    ASSERT_EQ(n, 1);
  }
  for (const json& b : c["buffers"])
    expect_tensor(buffer(h, m.get(), b["name"]), b["value"], tol, name + " buffer " + b["name"].get<std::string>());
  expect_tensor(y, c["out"], tol, name + " out");
  if (inplace) EXPECT_EQ(values(const_cast<glia_tensor*>(args[0])), values(y)) << "the input was not overwritten";
  GLIA_OK_(glia_tensor_backward(y, tensor_from_json(h, c["w"]), 0));
  for (size_t i = 0; i < xs.size(); ++i) {
    glia_tensor* g = grad_of(h, xs[i]);
    ASSERT_NE(g, nullptr);
    expect_tensor(g, c["grads"]["input" + std::to_string(i)], tol, name + " grad input");
  }
  for (const json& p : c["params"]) {
    glia_tensor* g = grad_of(h, parameter(h, m.get(), p["name"]));
    ASSERT_NE(g, nullptr);
    expect_tensor(g, c["grads"][p["name"].get<std::string>()], tol, name + " grad " + p["name"].get<std::string>());
  }
}

}  // namespace

TEST(NnMiscModules, ForwardBackwardBuffersReprKeys) {
  json f = load_json("golden/modules/nnmisc.json");
  ASSERT_GE(f["cases"].size(), 40u);
  for (const json& c : f["cases"]) run_case(c);
}

TEST(NnMiscModules, ConstructorErrors) {
  json f = load_json("golden/modules/nnmisc.json");
  ASSERT_EQ(f["errors"].size(), 10u);
  for (const json& e : f["errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    glia_module* m = nullptr;
    glia_error* err = build(e["module"], e["args"], nullptr, &m);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(glia_error_code(err), GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(glia_error_message(err)).find(e["message"].get<std::string>()), std::string::npos)
        << glia_error_message(err);
    glia_error_free(err);
  }
}

TEST(NnMiscModules, ForwardErrors) {
  json f = load_json("golden/modules/nnmisc.json");
  ASSERT_EQ(f["forward_errors"].size(), 7u);
  for (const json& e : f["forward_errors"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    Handles h;
    ModuleHandle m;
    GLIA_OK_(build(e["module"], e["args"], nullptr, m.out()));
    std::vector<const glia_tensor*> xs;
    for (const json& x : e["inputs"]) xs.push_back(tensor_from_json(h, x));
    glia_tensor* y = nullptr;
    int64_t n = 0;
    glia_error* err = glia_module_forward(m.get(), xs.data(), static_cast<int64_t>(xs.size()), &y, 1, &n);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(y, nullptr);
    EXPECT_EQ(glia_error_code(err), GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(glia_error_message(err)).find(e["message"].get<std::string>()), std::string::npos)
        << glia_error_message(err);
    glia_error_free(err);
  }
}

// Dropout2d in training drops whole channels; with inplace the input is
// overwritten and returned; back in eval the module is the identity.
TEST(NnMiscModules, Dropout2dTrainingInplaceAndEval) {
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_dropout2d(0.5, 1, nullptr, m.out()));
  EXPECT_EQ(module_repr(m.get()), "Dropout2d(p=0.5, inplace=True)");
  const int64_t channels = 2000;
  std::vector<double> xv(static_cast<size_t>(channels * 4), 3.0);
  glia_tensor* x = make(h, xv, {4, channels / 4, 2, 2});
  GLIA_OK_(glia_module_train(m.get(), 1));
  glia_tensor* y = call(h, m.get(), {x});
  std::vector<double> yv = values(y), after = values(x);
  EXPECT_EQ(yv, after) << "the input was not overwritten";
  int64_t dropped = 0;
  for (int64_t c = 0; c < channels; ++c) {
    const double v = yv[c * 4];
    EXPECT_TRUE(v == 0.0 || v == 6.0) << v;
    for (int j = 1; j < 4; ++j) EXPECT_EQ(yv[c * 4 + j], v);
    dropped += v == 0.0;
  }
  EXPECT_NEAR(static_cast<double>(dropped) / channels, 0.5, 5 * std::sqrt(0.25 / channels));
  GLIA_OK_(glia_module_train(m.get(), 0));
  glia_tensor* z = call(h, m.get(), {x});
  EXPECT_EQ(values(z), after);
}

// Instance norm's running statistics are the batch mean of the per-sample updates; num_batches_tracked is not
// incremented (torch's _InstanceNorm).
TEST(NnMiscModules, InstanceNormKeepsNumBatchesTracked) {
  Handles h;
  glia_instance_norm_options o;
  glia_instance_norm_options_init(&o);
  EXPECT_EQ(o.affine, 0);
  EXPECT_EQ(o.track_running_stats, 0);
  o.track_running_stats = 1;
  ModuleHandle m;
  GLIA_OK_(glia_nn_instance_norm1d(2, &o, nullptr, m.out()));
  EXPECT_EQ(module_repr(m.get()), "InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=False, track_running_stats=True)");
  glia_tensor* x = make(h, {1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, GLIA_FLOAT32);
  GLIA_OK_(glia_module_train(m.get(), 1));
  call(h, m.get(), {x});
  EXPECT_EQ(values(buffer(h, m.get(), "num_batches_tracked")), std::vector<double>{0.0});
}
