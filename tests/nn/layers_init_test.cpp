// Default initialisation of the built-in layers (statistics of torch's
// schemes), skip_init, factory dtypes, Dropout's train/eval behaviour, the
// options structs and argument errors of the glia_nn_* constructors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "layers_support.h"

using namespace glia_test;

namespace {

// Uniform(-bound, bound) samples: inside the bound, reaching close to it,
// mean ~ 0 and std ~ bound / sqrt(3). Tolerances are >= 5 standard errors.
void expect_uniform(const std::vector<double>& v, double bound, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_GT(v.size(), 100u);
  Stats s = stats(v);
  const double n = static_cast<double>(v.size());
  EXPECT_GE(s.min, -bound * (1 + 1e-6));
  EXPECT_LE(s.max, bound * (1 + 1e-6));
  EXPECT_LT(s.min, -bound * (1 - 20 / n));
  EXPECT_GT(s.max, bound * (1 - 20 / n));
  EXPECT_LT(std::abs(s.mean), 6 * bound / std::sqrt(3 * n));
  EXPECT_NEAR(s.std, bound / std::sqrt(3.0), bound / std::sqrt(3.0) * 5 * std::sqrt(0.2 / n));
}

}  // namespace

TEST(LayersInit, LinearKaimingUniform) {
  glia_manual_seed(11);
  Handles h;
  ModuleHandle big;
  GLIA_OK_(glia_nn_linear(256, 512, 1, nullptr, big.out()));
  expect_uniform(values(parameter(h, big, "weight")), 1.0 / 16, "weight");
  // Biases over 20 constructions: uniform in +-1/sqrt(in_features).
  std::vector<double> biases;
  for (int i = 0; i < 20; ++i) {
    ModuleHandle m;
    GLIA_OK_(glia_nn_linear(100, 64, 1, nullptr, m.out()));
    auto b = values(parameter(h, m, "bias"));
    biases.insert(biases.end(), b.begin(), b.end());
  }
  expect_uniform(biases, 0.1, "bias");
}

TEST(LayersInit, BilinearUniformInOneOverSqrtIn1) {
  glia_manual_seed(12);
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_bilinear(64, 8, 16, 1, nullptr, m.out()));
  EXPECT_EQ(shape(parameter(h, m, "weight")), (std::vector<int64_t>{16, 64, 8}));
  expect_uniform(values(parameter(h, m, "weight")), 1.0 / 8, "weight");
  std::vector<double> biases;
  for (int i = 0; i < 40; ++i) {
    ModuleHandle k;
    GLIA_OK_(glia_nn_bilinear(25, 3, 32, 1, nullptr, k.out()));
    auto b = values(parameter(h, k, "bias"));
    biases.insert(biases.end(), b.begin(), b.end());
  }
  expect_uniform(biases, 0.2, "bias");
}

TEST(LayersInit, ConvAndTransposedConvUseFanInOfTheWeight) {
  glia_manual_seed(13);
  Handles h;
  ModuleHandle c;
  GLIA_OK_(glia_nn_conv2d(16, 32, 3, 3, nullptr, nullptr, c.out()));
  EXPECT_EQ(shape(parameter(h, c, "weight")), (std::vector<int64_t>{32, 16, 3, 3}));
  expect_uniform(values(parameter(h, c, "weight")), 1.0 / 12, "conv weight");  // fan_in 16 * 9
  // ConvTranspose2d's weight is [in, out / groups, kH, kW]: fan_in = 32 * 9 here.
  ModuleHandle t;
  GLIA_OK_(glia_nn_conv_transpose2d(8, 32, 3, 3, nullptr, nullptr, t.out()));
  EXPECT_EQ(shape(parameter(h, t, "weight")), (std::vector<int64_t>{8, 32, 3, 3}));
  expect_uniform(values(parameter(h, t, "weight")), 1.0 / std::sqrt(288.0), "conv_transpose weight");
  std::vector<double> biases;
  glia_nn_conv2d_options o;
  glia_nn_conv2d_options_init(&o);
  o.groups = 2;
  for (int i = 0; i < 20; ++i) {
    ModuleHandle k;
    GLIA_OK_(glia_nn_conv2d(8, 64, 5, 5, &o, nullptr, k.out()));  // fan_in 4 * 25
    auto b = values(parameter(h, k, "bias"));
    biases.insert(biases.end(), b.begin(), b.end());
  }
  expect_uniform(biases, 0.1, "conv bias");
}

TEST(LayersInit, EmbeddingNormalWithPaddingRowZeroed) {
  glia_manual_seed(14);
  Handles h;
  ModuleHandle m;
  int64_t pad = -2;
  GLIA_OK_(glia_nn_embedding(1000, 64, &pad, nullptr, 2.0, nullptr, m.out()));
  std::vector<double> w = values(parameter(h, m, "weight"));
  std::vector<double> rest;
  for (int64_t r = 0; r < 1000; ++r)
    for (int64_t c = 0; c < 64; ++c) {
      double v = w[static_cast<size_t>(r * 64 + c)];
      if (r == 998)
        EXPECT_EQ(v, 0.0);
      else
        rest.push_back(v);
    }
  Stats s = stats(rest);
  EXPECT_LT(std::abs(s.mean), 6 / std::sqrt(63936.0));
  EXPECT_NEAR(s.std, 1.0, 0.02);
  EXPECT_GT(s.max, 3.5);  // a normal, not a bounded uniform
  EXPECT_LT(s.min, -3.5);
  EXPECT_EQ(module_repr(m.get()), "Embedding(1000, 64, padding_idx=998)");
}

TEST(LayersInit, SkipInitRunsNoInitialiser) {
  // A skip_init construction draws nothing from the generator: the module built
  // after it gets the same values as one built right after seeding.
  glia_factory_options skip;
  glia_factory_options_init(&skip);
  skip.skip_init = 1;
  Handles h;
  glia_manual_seed(99);
  ModuleHandle reference;
  GLIA_OK_(glia_nn_linear(5, 4, 1, nullptr, reference.out()));
  const char* kinds[] = {"Linear", "Bilinear", "Conv2d", "ConvTranspose2d", "Embedding"};
  for (const char* kind : kinds) {
    SCOPED_TRACE(kind);
    glia_manual_seed(99);
    ModuleHandle skipped;
    json args;
    std::vector<int64_t> wshape;
    if (std::string(kind) == "Linear") {
      args = {{"in_features", 7}, {"out_features", 3}};
      wshape = {3, 7};
    } else if (std::string(kind) == "Bilinear") {
      args = {{"in1_features", 2}, {"in2_features", 3}, {"out_features", 4}};
      wshape = {4, 2, 3};
    } else if (std::string(kind) == "Conv2d") {
      args = {{"in_channels", 2}, {"out_channels", 3}, {"kernel_size", {3, 3}}};
      wshape = {3, 2, 3, 3};
    } else if (std::string(kind) == "ConvTranspose2d") {
      args = {{"in_channels", 2}, {"out_channels", 3}, {"kernel_size", {3, 3}}};
      wshape = {2, 3, 3, 3};
    } else {
      args = {{"num_embeddings", 6}, {"embedding_dim", 2}};
      wshape = {6, 2};
    }
    GLIA_OK_(build_layer(kind, args, &skip, skipped.out()));
    glia_tensor* w = parameter(h, skipped, "weight");
    EXPECT_EQ(shape(w), wshape);
    int32_t rg = 0;
    GLIA_OK_(glia_tensor_requires_grad(w, &rg));
    EXPECT_EQ(rg, 1);
    ModuleHandle after;
    GLIA_OK_(glia_nn_linear(5, 4, 1, nullptr, after.out()));
    EXPECT_EQ(values(parameter(h, after, "weight")), values(parameter(h, reference, "weight")));
    EXPECT_EQ(values(parameter(h, after, "bias")), values(parameter(h, reference, "bias")));
  }
  // Without skip_init the construction does draw.
  glia_manual_seed(99);
  ModuleHandle drawn, after;
  GLIA_OK_(glia_nn_linear(7, 3, 1, nullptr, drawn.out()));
  GLIA_OK_(glia_nn_linear(5, 4, 1, nullptr, after.out()));
  EXPECT_NE(values(parameter(h, after, "weight")), values(parameter(h, reference, "weight")));
}

TEST(LayersInit, Float64FactoryGivesFloat64Parameters) {
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = GLIA_FLOAT64;
  Handles h;
  ModuleHandle lin, bil, conv, convt, emb;
  GLIA_OK_(glia_nn_linear(3, 2, 1, &f, lin.out()));
  GLIA_OK_(glia_nn_bilinear(3, 2, 2, 1, &f, bil.out()));
  GLIA_OK_(glia_nn_conv2d(2, 2, 3, 3, nullptr, &f, conv.out()));
  GLIA_OK_(glia_nn_conv_transpose2d(2, 2, 3, 3, nullptr, &f, convt.out()));
  GLIA_OK_(glia_nn_embedding(5, 2, nullptr, nullptr, 2.0, &f, emb.out()));
  for (const ModuleHandle* m : {&lin, &bil, &conv, &convt}) {
    EXPECT_EQ(dtype(parameter(h, *m, "weight")), GLIA_FLOAT64);
    EXPECT_EQ(dtype(parameter(h, *m, "bias")), GLIA_FLOAT64);
  }
  EXPECT_EQ(dtype(parameter(h, emb, "weight")), GLIA_FLOAT64);
  ModuleHandle def;
  GLIA_OK_(glia_nn_linear(3, 2, 1, nullptr, def.out()));
  EXPECT_EQ(dtype(parameter(h, def, "weight")), GLIA_FLOAT32);
  // Integer factory dtypes are refused, for parameterless modules too.
  f.dtype = GLIA_INT64;
  glia_module* m = nullptr;
  EXPECT_GLIA_ERR(glia_nn_linear(3, 2, 1, &f, &m), GLIA_ERR_DTYPE);
  EXPECT_GLIA_ERR(glia_nn_relu(&f, &m), GLIA_ERR_DTYPE);
  EXPECT_EQ(m, nullptr);
}

TEST(LayersDropout, TrainingZeroesAndScalesEvalIsIdentity) {
  glia_manual_seed(5);
  Handles h;
  ModuleHandle m;
  GLIA_OK_(glia_nn_dropout(0.3, nullptr, m.out()));
  int32_t training = 0;
  GLIA_OK_(glia_module_is_training(m.get(), &training));
  EXPECT_EQ(training, 1);
  const int64_t n = 20000;
  glia_tensor* x = make(h, std::vector<double>(n, 2.0), {n}, GLIA_FLOAT32);
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* y = call(h, m, {x});
  std::vector<double> v = values(y);
  int64_t zeros = 0;
  for (double e : v) {
    if (e == 0)
      ++zeros;
    else
      EXPECT_NEAR(e, 2.0 / 0.7, 1e-6);
  }
  EXPECT_NEAR(static_cast<double>(zeros) / n, 0.3, 0.02);  // ~6 standard errors
  // d sum(y) / dx is the mask scaled by 1 / (1 - p).
  glia_tensor* ones = make(h, std::vector<double>(n, 1.0), {n}, GLIA_FLOAT32);
  GLIA_OK_(glia_tensor_backward(y, ones, 0));
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(x, &g));
  h.add(g);
  std::vector<double> gv = values(g);
  for (int64_t i = 0; i < n; i += 997) EXPECT_NEAR(gv[static_cast<size_t>(i)], v[static_cast<size_t>(i)] / 2, 1e-6);

  GLIA_OK_(glia_module_train(m.get(), 0));
  EXPECT_EQ(values(call(h, m, {x})), std::vector<double>(n, 2.0));
  GLIA_OK_(glia_module_train(m.get(), 1));
  std::vector<double> again = values(call(h, m, {x}));
  EXPECT_NE(again, v);  // a fresh mask
  EXPECT_GT(std::count(again.begin(), again.end(), 0.0), n / 5);

  ModuleHandle all;
  GLIA_OK_(glia_nn_dropout(1.0, nullptr, all.out()));
  EXPECT_EQ(values(call(h, all, {x})), std::vector<double>(n, 0.0));
}

TEST(LayersRepr, DefaultsAndPythonFloats) {
  // Reads *pm after the constructor ran (argument order is unspecified).
  auto repr_of = [](glia_error* e, glia_module*& pm) {
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    std::string s = pm ? module_repr(pm) : "";
    (void)glia_module_release(pm);
    pm = nullptr;
    return s;
  };
  glia_module* m = nullptr;
  EXPECT_EQ(repr_of(glia_nn_leaky_relu(1e-5, nullptr, &m), m), "LeakyReLU(negative_slope=1e-05)");
  EXPECT_EQ(repr_of(glia_nn_elu(2.5e16, nullptr, &m), m), "ELU(alpha=2.5e+16)");
  EXPECT_EQ(repr_of(glia_nn_elu(123456.0, nullptr, &m), m), "ELU(alpha=123456.0)");
  EXPECT_EQ(repr_of(glia_nn_dropout(0.1, nullptr, &m), m), "Dropout(p=0.1, inplace=False)");
  EXPECT_EQ(repr_of(glia_nn_gelu(nullptr, nullptr, &m), m), "GELU(approximate='none')");
  EXPECT_EQ(repr_of(glia_nn_conv2d(1, 6, 5, 5, nullptr, nullptr, &m), m),
            "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))");
  m = nullptr;
  glia_max_pool2d_options mp;
  glia_max_pool2d_options_init(&mp);
  mp.kernel_size[0] = mp.kernel_size[1] = 2;
  EXPECT_EQ(repr_of(glia_nn_max_pool2d(&mp, nullptr, &m), m),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr_of(glia_nn_adaptive_avg_pool2d(-1, -1, nullptr, &m), m), "AdaptiveAvgPool2d(output_size=None)");
  m = nullptr;
  double mn = 0.5;
  EXPECT_EQ(repr_of(glia_nn_embedding(4, 2, nullptr, &mn, 3.0, nullptr, &m), m),
            "Embedding(4, 2, max_norm=0.5, norm_type=3.0)");
}

TEST(LayersArgs, OptionsStructsAndNullArguments) {
  Handles h;
  glia_module* m = nullptr;
  // NULL out names the argument.
  glia_error* e = glia_nn_linear(2, 2, 1, nullptr, nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(glia_error_message(e)).find("glia_nn_linear: argument 'out' is NULL"), std::string::npos);
  glia_error_free(e);
  EXPECT_GLIA_ERR(glia_nn_max_pool2d(nullptr, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_avg_pool2d(nullptr, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_unflatten(1, nullptr, 2, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_normalize(nullptr, 1, nullptr, 1, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_nn_gelu("exact", nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  double nan = std::nan("");
  EXPECT_GLIA_ERR(glia_nn_embedding(4, 2, nullptr, &nan, 2.0, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  glia_nn_conv2d_options o;
  glia_nn_conv2d_options_init(&o);
  o.padding_mode = static_cast<glia_pad_mode>(7);
  EXPECT_GLIA_ERR(glia_nn_conv2d(1, 1, 3, 3, &o, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  glia_nn_conv2d_options_init(&o);
  o.padding_kind = static_cast<glia_padding_kind>(5);
  EXPECT_GLIA_ERR(glia_nn_conv2d(1, 1, 3, 3, &o, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  o.struct_size = 0;
  EXPECT_GLIA_ERR(glia_nn_conv2d(1, 1, 3, 3, &o, nullptr, &m), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);

  // An older, shorter options struct: fields past struct_size keep torch's defaults.
  glia_nn_conv2d_options_init(&o);
  o.stride[0] = o.stride[1] = 2;
  o.groups = 3;  // not covered below: ignored
  o.bias = 0;    // ignored
  o.struct_size = offsetof(glia_nn_conv2d_options, padding);
  ModuleHandle c;
  GLIA_OK_(glia_nn_conv2d(3, 3, 3, 3, &o, nullptr, c.out()));
  EXPECT_EQ(module_repr(c.get()), "Conv2d(3, 3, kernel_size=(3, 3), stride=(2, 2))");
  EXPECT_EQ(state_dict_keys(c.get()), (std::vector<std::string>{"weight", "bias"}));

  // Modules check their input count (torch's TypeError text).
  ModuleHandle lin;
  GLIA_OK_(glia_nn_linear(2, 2, 1, nullptr, lin.out()));
  glia_tensor* x = make(h, {1, 2}, {1, 2}, GLIA_FLOAT32);
  const glia_tensor* two[] = {x, x};
  glia_tensor* y = nullptr;
  int64_t n = 0;
  EXPECT_GLIA_ERR(glia_module_forward(lin.get(), two, 2, &y, 1, &n), GLIA_ERR_INVALID_ARGUMENT);
}

TEST(LayersBilinear, DoubleBackwardFlowsThroughTheComposition) {
  // d/dx1 of sum(bilinear) is W x2 (per output), itself differentiable w.r.t. x2.
  Handles h;
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = GLIA_FLOAT64;
  ModuleHandle m;
  GLIA_OK_(glia_nn_bilinear(2, 2, 1, 0, &f, m.out()));
  glia_grad_mode_set(0);
  glia_tensor* w = parameter(h, m, "weight");
  GLIA_OK_(glia_copy_(w, make(h, {1, 2, 3, 4}, {1, 2, 2})));
  glia_grad_mode_set(1);
  glia_tensor* x1 = make(h, {0.5, -1}, {1, 2});
  glia_tensor* x2 = make(h, {2, 3}, {1, 2});
  GLIA_OK_(glia_tensor_set_requires_grad(x1, 1));
  GLIA_OK_(glia_tensor_set_requires_grad(x2, 1));
  const glia_tensor* in[] = {x1, x2};
  glia_tensor* y = nullptr;
  int64_t n = 0;
  GLIA_OK_(glia_module_forward(m.get(), in, 2, &y, 1, &n));
  h.add(y);
  // y = x1 W x2 = 0.5*(1*2 + 2*3) - (3*2 + 4*3) = 4 - 18 = -14.
  EXPECT_EQ(values(y), (std::vector<double>{-14}));
  glia_tensor* g1 = nullptr;
  glia_tensor* outs[] = {y};
  glia_tensor* wrt[] = {x1};
  GLIA_OK_(glia_autograd_grad(outs, 1, wrt, 1, nullptr, 1, 1, 0, &g1));
  h.add(g1);
  EXPECT_EQ(values(g1), (std::vector<double>{8, 18}));  // W x2
  // sum(g1 * [1, 1]) = (1 + 3) x2_0 + (2 + 4) x2_1: its gradient w.r.t. x2 is [4, 6].
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(g1, nullptr, 0, 0, &s));
  h.add(s);
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  glia_tensor* g2 = nullptr;
  GLIA_OK_(glia_tensor_grad(x2, &g2));
  h.add(g2);
  EXPECT_EQ(values(g2), (std::vector<double>{4, 6}));
}
