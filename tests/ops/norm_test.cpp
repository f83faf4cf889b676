// batch_norm, layer_norm and group_norm against tests/golden/gen_nn.py's
// fixtures (ops/norm.json), plus what fixtures cannot show: the cumulative
// running average (torch's momentum=None), running statistics left alone by a
// failing call, the parallel paths, grad_fn names and double backward.
#include <cmath>
#include <cstring>
#include <string>

#include "autograd/engine.h"
#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "core/parallel.h"
#include "ops/golden_support.h"
#include "support/gradcheck.h"

using namespace glia_ops_test;

namespace {

glia_dtype dtype_from_name(const std::string& name) {
  for (int d = GLIA_FLOAT32; d <= GLIA_INT16; ++d)
    if (name == glia_dtype_name(static_cast<glia_dtype>(d))) return static_cast<glia_dtype>(d);
  ADD_FAILURE() << "unknown dtype " << name;
  return GLIA_FLOAT32;
}

std::vector<double> doubles(const json& vs) {
  std::vector<double> out;
  for (const json& v : vs) out.push_back(v.get<double>());
  return out;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
}

}  // namespace

// Running statistics come from the args (not differentiable, updated in place),
// on the input's device; the outputs after y are the running statistics after the call.
GLIA_ADAPTER(batch_norm) {
  glia_dtype sd = c.has("stats_dtype") ? dtype_from_name(c.str("stats_dtype", "")) : dtype(c.in[0]);
  glia_device xd{};
  if (glia_error* e = glia_tensor_device(c.in[0], &xd)) return e;
  Handles local;
  glia_tensor* stats[2] = {nullptr, nullptr};
  const char* keys[2] = {"running_mean", "running_var"};
  size_t n_stats = 0;
  for (int k = 0; k < 2; ++k)
    if (c.has(keys[k])) {
      std::vector<double> v = doubles(c.args[keys[k]]);
      stats[k] = make(local, v, {static_cast<int64_t>(v.size())}, sd);
      if (xd.type != GLIA_CPU) {
        glia_tensor* on_device = nullptr;
        if (glia_error* e = glia_tensor_to(stats[k], &xd, &sd, &on_device)) return e;
        stats[k] = local.add(on_device);
      }
      ++n_stats;
    }
  glia_tensor** outs = c.out(1 + n_stats);
  glia_error* e = glia_batch_norm(c.in[0], stats[0], stats[1], c.in[1], c.in[2], c.flag("training", true),
                                  c.num("momentum", 0.1), c.num("eps", 1e-5), &outs[0]);
  if (e) return e;
  size_t k = 1;
  for (glia_tensor* s : stats)
    if (s) {
      glia_error* r = glia_tensor_retain(s);
      if (r) return r;
      outs[k++] = s;
    }
  return nullptr;
}

GLIA_ADAPTER(layer_norm) {
  std::vector<int64_t> shape = c.ints("normalized_shape");
  return glia_layer_norm(c.in[0], shape.data(), static_cast<int64_t>(shape.size()), c.in[1], c.in[2],
                         c.num("eps", 1e-5), c.out());
}

GLIA_ADAPTER(group_norm) {
  return glia_group_norm(c.in[0], c.integer("num_groups", 1), c.in[1], c.in[2], c.num("eps", 1e-5), c.out());
}

TEST(Norm, Golden) { run_cases("norm.json"); }
TEST(Norm, Errors) { run_errors("norm.json"); }

// nn.BatchNorm2d(momentum=None) is momentum = 1/k at the k-th training call.
TEST(Norm, BatchNormCumulativeAverage) {
  json fx = load_fixture("norm.json");
  const json& cm = fx["cumulative"];
  std::vector<int64_t> shape = cm["shape"].get<std::vector<int64_t>>();
  Handles h;
  glia_tensor* rm = make(h, {0, 0, 0}, {3});
  glia_tensor* rv = make(h, {1, 1, 1}, {3});
  int k = 0;
  for (const json& step : cm["steps"]) {
    ++k;
    glia_tensor* x = make(h, doubles(step["x"]), shape);
    glia_tensor* y = nullptr;
    GLIA_OK_(glia_batch_norm(x, rm, rv, nullptr, nullptr, 1, 1.0 / k, 1e-5, &y));
    h.add(y);
    std::string what = "step " + std::to_string(k);
    expect_near_all(values(y), doubles(step["y"]), 1e-12, what + " y");
    expect_near_all(values(rm), doubles(step["running_mean"]), 1e-12, what + " running_mean");
    expect_near_all(values(rv), doubles(step["running_var"]), 1e-12, what + " running_var");
  }
  glia_tensor* x = make(h, doubles(cm["eval_x"]), shape);
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_batch_norm(x, rm, rv, nullptr, nullptr, 0, 0.1, 1e-5, &y));
  h.add(y);
  expect_near_all(values(y), doubles(cm["eval_y"]), 1e-12, "eval y");
}

TEST(Norm, BatchNormFailureLeavesRunningStats) {
  Handles h;
  glia_tensor* rm = make(h, {0.5, -0.5, 1.0}, {3});
  glia_tensor* rv = make(h, {1.5, 2.0, 0.5}, {3});
  glia_tensor* bad_w = make(h, {1, 1, 1, 1}, {4});
  glia_tensor* x = make(h, {1, 2, 3, 4, 5, 6}, {2, 3});
  glia_tensor* y = nullptr;
  EXPECT_GLIA_ERR(glia_batch_norm(x, rm, rv, bad_w, nullptr, 1, 0.1, 1e-5, &y), GLIA_ERR_SHAPE);
  EXPECT_EQ(y, nullptr);
  glia_tensor* x1 = make(h, {1, 2, 3}, {1, 3});
  EXPECT_GLIA_ERR(glia_batch_norm(x1, rm, rv, nullptr, nullptr, 1, 0.1, 1e-5, &y), GLIA_ERR_INVALID_ARGUMENT);
  glia_tensor* xf = make(h, {1, 2, 3, 4, 5, 6}, {2, 3}, GLIA_FLOAT32);
  EXPECT_GLIA_ERR(glia_batch_norm(xf, rm, rv, nullptr, nullptr, 1, 0.1, 1e-5, &y), GLIA_ERR_DTYPE);
  EXPECT_EQ(values(rm), (std::vector<double>{0.5, -0.5, 1.0}));
  EXPECT_EQ(values(rv), (std::vector<double>{1.5, 2.0, 0.5}));
  // glia's wording of torch's Python check (torch prints torch.Size([1, 3])).
  glia_test::ErrorInfo info = glia_test::take(glia_batch_norm(x1, rm, rv, nullptr, nullptr, 1, 0.1, 1e-5, &y));
  EXPECT_NE(info.message.find("Expected more than 1 value per channel when training, got input size [1, 3]"),
            std::string::npos)
      << info.message;
}

TEST(Norm, BatchNormRunningStatsNotTrackedByAutograd) {
  using namespace glia;
  Tensor x = glia_test::random_leaf({4, 3, 2}, 11);
  Tensor rm = zeros(Dims{3}, DType::Float64, Device{}), rv = ones(Dims{3}, DType::Float64, Device{});
  Tensor y = batch_norm(x, rm, rv, Tensor(), Tensor(), true, 0.1, 1e-5);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(rm.requires_grad());
  EXPECT_FALSE(rv.requires_grad());
  EXPECT_STREQ(grad_fn(y)->name(), "NativeBatchNormBackward0");
  EXPECT_NE(item_double(sum(rm, {}, false)), 0.0);
}

// torch's _batch_norm_impl_index: an empty input skips the checks (a 1-D input, running stats of any
// size, an integer dtype) and gives input.clone() * weight[0] + bias[0]: zero gradients, not NaN.
TEST(Norm, BatchNormEmptyInputAsTorch) {
  using namespace glia;
  Handles h;
  glia_tensor* x1 = make(h, {}, {0});
  glia_tensor* rm = make(h, {0.5, 1.5}, {2});
  glia_tensor* y = nullptr;
  for (int32_t training : {0, 1}) {
    GLIA_OK_(glia_batch_norm(x1, rm, rm, nullptr, nullptr, training, 0.1, 1e-5, &y));
    h.add(y);
    EXPECT_EQ(glia_test::shape(y), (std::vector<int64_t>{0}));
    EXPECT_NE(y, x1);  // a new tensor, as torch's clone
  }
  EXPECT_EQ(values(rm), (std::vector<double>{0.5, 1.5}));  // running stats untouched
  glia_tensor* xi = make(h, {}, {0, 3}, GLIA_INT64);
  GLIA_OK_(glia_batch_norm(xi, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, &y));
  h.add(y);
  EXPECT_EQ(glia_test::shape(y), (std::vector<int64_t>{0, 3}));
  // weight[0] of an empty weight: torch's select() error.
  glia_tensor* w0 = make(h, {}, {0});
  EXPECT_GLIA_ERR(glia_batch_norm(x1, nullptr, nullptr, w0, nullptr, 1, 0.1, 1e-5, &y), GLIA_ERR_INVALID_ARGUMENT);

  Tensor x = glia_test::random_leaf({0, 3}, 5), w = glia_test::random_leaf({3}, 6), b = glia_test::random_leaf({3}, 7);
  Tensor out = batch_norm(x, Tensor(), Tensor(), w, b, true, 0.1, 1e-5);
  EXPECT_STREQ(grad_fn(out)->name(), "AddBackward0");
  EXPECT_STREQ(grad_fn(batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5))->name(),
               "CloneBackward0");
  TensorList g = grad({sum(out, {}, false)}, {x, w, b}, {}, false, false, false);
  ASSERT_EQ(g.size(), 3u);
  ASSERT_EQ(g[0].dim(), 2);
  EXPECT_EQ(g[0].shape()[0], 0);
  EXPECT_EQ(g[0].shape()[1], 3);
  for (int i = 1; i < 3; ++i)
    for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(item_double(select(g[i], 0, c)), 0.0) << i << " " << c;
}

TEST(Norm, GradFnNamesAndNoDoubleBackward) {
  using namespace glia;
  Tensor x = glia_test::random_leaf({2, 4, 3}, 3);
  Tensor w = glia_test::random_leaf({3}, 4);
  Tensor ln = layer_norm(x, Dims{3}, w, Tensor(), 1e-5);
  EXPECT_STREQ(grad_fn(ln)->name(), "NativeLayerNormBackward0");
  Tensor gn = group_norm(x, 2, Tensor(), Tensor(), 1e-5);
  EXPECT_STREQ(grad_fn(gn)->name(), "NativeGroupNormBackward0");
  {
    GradModeGuard g(false);
    Tensor z = layer_norm(x, Dims{3}, w, Tensor(), 1e-5);
    EXPECT_FALSE(z.requires_grad());
  }
  // The fused backward records no graph: differentiating its result again is an error, not a silent zero.
  TensorList g1 = grad({sum(mul(ln, ln), {}, false)}, {x}, {}, false, true, false);
  ASSERT_EQ(g1.size(), 1u);
  EXPECT_THROW(grad({sum(g1[0], {}, false)}, {x}, {}, false, false, false), Error);
}

// The parallel split (channels, rows, groups) gives the serial results bit for bit.
TEST(Norm, ParallelMatchesSerial) {
  using namespace glia;
  if (get_num_threads() < 2) GTEST_SKIP() << "one thread";
  Tensor x = randn(Dims{4, 32, 24, 24}, DType::Float32, Device{});
  Tensor w = randn(Dims{32}, DType::Float32, Device{}), b = randn(Dims{32}, DType::Float32, Device{});
  Tensor wl = randn(Dims{24, 24}, DType::Float32, Device{});
  set_requires_grad(x, true);
  set_requires_grad(w, true);
  set_requires_grad(wl, true);
  Tensor x2 = randn(Dims{256, 200}, DType::Float32, Device{});   // [N, C]: the column-block path
  Tensor x3 = randn(Dims{16000, 40}, DType::Float32, Device{});  // many short rows: row chunks for dgamma
  Tensor w3 = randn(Dims{40}, DType::Float32, Device{});
  set_requires_grad(w3, true);
  Tensor w2 = randn(Dims{200}, DType::Float32, Device{});
  set_requires_grad(x2, true);
  auto run = [&] {
    TensorList r;
    Tensor rm = zeros(Dims{32}, DType::Float32, Device{}), rv = ones(Dims{32}, DType::Float32, Device{});
    Tensor ys[5] = {layer_norm(x3, Dims{40}, w3, w3, 1e-5), batch_norm(x, rm, rv, w, b, true, 0.1, 1e-5),
                    layer_norm(x, Dims{24, 24}, wl, Tensor(), 1e-5), group_norm(x, 8, w, b, 1e-5),
                    batch_norm(x2, Tensor(), Tensor(), w2, Tensor(), true, 0.1, 1e-5)};
    for (const Tensor& y : ys) {
      Tensor wy = randn(y.shape(), DType::Float32, Device{});
      r.push_back(y);
      for (const Tensor& g : grad({sum(mul(y, wy), {}, false)}, {x, w, wl, x2, w3}, {}, false, false, true))
        r.push_back(g);
    }
    r.push_back(rm);
    r.push_back(rv);
    return r;
  };
  glia_manual_seed(5);
  TensorList par = run();
  int n = get_num_threads();
  set_num_threads(1);
  glia_manual_seed(5);
  TensorList ser = run();
  set_num_threads(n);
  ASSERT_EQ(par.size(), ser.size());
  for (size_t i = 0; i < par.size(); ++i) {
    if (!par[i].defined()) {
      EXPECT_FALSE(ser[i].defined());
      continue;
    }
    Tensor a = contiguous(par[i]), s = contiguous(ser[i]);
    ASSERT_EQ(a.numel(), s.numel());
    EXPECT_EQ(std::memcmp(a.data(), s.data(), a.numel() * 4), 0) << "result " << i;
  }
}

// gradcheck on shapes above the parallel threshold would be slow; check the
// analytic gradients of a mid-size group norm with weight and bias here.
TEST(Norm, GroupNormBiasOnlyGradcheck) {
  using namespace glia;
  Tensor x = glia_test::random_leaf({2, 4, 3}, 21);
  Tensor b = glia_test::random_leaf({4}, 22);
  Tensor v = glia_test::random_leaf({2, 4, 3}, 23, false);
  auto f = [&](const TensorList& in) { return mul(group_norm(in[0], 2, Tensor(), in[1], 1e-5), v); };
  EXPECT_TRUE(glia_test::gradcheck(f, {x, b}));
}

// float16 is glia's extension (torch 1.13 has no CPU kernels for it): it must
// agree with float32 compute to float16's precision.
TEST(Norm, Float16MatchesFloat32) {
  using namespace glia;
  Tensor x = to_dtype(randn(Dims{4, 6, 5}, DType::Float32, Device{}), DType::Float16);
  Tensor w = to_dtype(randn(Dims{6}, DType::Float32, Device{}), DType::Float16);
  Tensor b = to_dtype(randn(Dims{6}, DType::Float32, Device{}), DType::Float16);
  Tensor x32 = to_dtype(x, DType::Float32), w32 = to_dtype(w, DType::Float32), b32 = to_dtype(b, DType::Float32);
  std::pair<Tensor, Tensor> pairs[] = {
      {batch_norm(x, Tensor(), Tensor(), w, b, true, 0.1, 1e-5),
       batch_norm(x32, Tensor(), Tensor(), w32, b32, true, 0.1, 1e-5)},
      {batch_norm(x, Tensor(), Tensor(), w32, b32, true, 0.1, 1e-5),  // float32 parameters (mixed)
       batch_norm(x32, Tensor(), Tensor(), w32, b32, true, 0.1, 1e-5)},
      {group_norm(x, 3, w, b, 1e-5), group_norm(x32, 3, w32, b32, 1e-5)},
      {layer_norm(x, Dims{5}, Tensor(), Tensor(), 1e-5), layer_norm(x32, Dims{5}, Tensor(), Tensor(), 1e-5)},
  };
  for (auto& [h, f] : pairs) {
    EXPECT_EQ(h.dtype(), DType::Float16);
    Tensor hc = contiguous(to_dtype(h, DType::Float64)), fc = contiguous(to_dtype(f, DType::Float64));
    const double* ph = hc.data_ptr<double>();
    const double* pf = fc.data_ptr<double>();
    for (int64_t i = 0; i < hc.numel(); ++i) EXPECT_NEAR(ph[i], pf[i], 2e-3 * (1 + std::fabs(pf[i]))) << i;
  }
}

// Running statistics may be strided views (written through their strides) or of another shape with C elements.
TEST(Norm, BatchNormStridedRunningStats) {
  using namespace glia;
  Tensor x = randn(Dims{5, 3, 4}, DType::Float64, Device{});
  Tensor base = zeros(Dims{6}, DType::Float64, Device{});
  Tensor rm = make_view(base, Dims{3}, Dims{2}, 1);  // elements 1, 3, 5
  Tensor rv = ones(Dims{1, 3}, DType::Float64, Device{});
  Tensor rm_ref = zeros(Dims{3}, DType::Float64, Device{}), rv_ref = ones(Dims{3}, DType::Float64, Device{});
  batch_norm(x, rm, rv, Tensor(), Tensor(), true, 0.25, 1e-5);
  batch_norm(x, rm_ref, rv_ref, Tensor(), Tensor(), true, 0.25, 1e-5);
  const double* pb = base.data_ptr<double>();
  const double* pr = rm_ref.data_ptr<double>();
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(pb[2 * c], 0.0);
    EXPECT_EQ(pb[2 * c + 1], pr[c]);
    EXPECT_EQ(rv.data_ptr<double>()[c], rv_ref.data_ptr<double>()[c]);
  }
}

TEST(Norm, CApiArguments) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4}, {2, 2});
  glia_tensor* y = nullptr;
  EXPECT_GLIA_ERR(glia_batch_norm(x, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, nullptr),
                  GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_layer_norm(x, nullptr, 1, nullptr, nullptr, 1e-5, &y), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_group_norm(x, -1, nullptr, nullptr, 1e-5, &y), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_normalize(x, nullptr, 1, nullptr, 1, &y), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(y, nullptr);
}

// Many short rows: dgamma / dbeta are summed in row chunks; check them against
// sum(grad * normalized) and sum(grad) over the rows.
TEST(Norm, LayerNormRowChunksParamGrads) {
  using namespace glia;
  Tensor x = randn(Dims{16000, 40}, DType::Float64, Device{});
  Tensor w = randn(Dims{40}, DType::Float64, Device{}), b = randn(Dims{40}, DType::Float64, Device{});
  set_requires_grad(w, true);
  set_requires_grad(b, true);
  Tensor g = randn(Dims{16000, 40}, DType::Float64, Device{});
  TensorList gr = glia::grad({layer_norm(x, Dims{40}, w, b, 1e-5)}, {w, b}, {g}, false, false, false);
  Tensor xhat = layer_norm(x, Dims{40}, Tensor(), Tensor(), 1e-5);
  Tensor want_w = contiguous(sum(mul(g, xhat), Dims{0}, false)), want_b = contiguous(sum(g, Dims{0}, false));
  Tensor gw = contiguous(gr[0]), gb = contiguous(gr[1]);
  for (int j = 0; j < 40; ++j) {
    EXPECT_NEAR(gw.data_ptr<double>()[j], want_w.data_ptr<double>()[j], 1e-9) << j;
    EXPECT_NEAR(gb.data_ptr<double>()[j], want_b.data_ptr<double>()[j], 1e-9) << j;
  }
}
