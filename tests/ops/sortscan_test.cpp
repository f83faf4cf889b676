// all/any/count_nonzero/aminmax/nansum/nanmean/var_mean/std_mean, the scans and
// sorting against tests/golden/gen_sortscan.py's fixture (ops/sortscan.json),
// plus shapes above the parallel grain (threads must not change results),
// sortedness of long rows, and torch's node names.
#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/engine.h"
#include "autograd/functions.h"
#include "core/parallel.h"
#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {

int32_t kd(const Call& c) { return c.flag("keepdim", false) ? 1 : 0; }

}  // namespace

#define GLIA_SORTSCAN_DIMS_ADAPTER(op)                                                   \
  GLIA_ADAPTER(op) {                                                                     \
    std::vector<int64_t> d = c.ints("dims");                                             \
    return glia_##op(c.in[0], d.data(), static_cast<int64_t>(d.size()), kd(c), c.out()); \
  }
GLIA_SORTSCAN_DIMS_ADAPTER(all)
GLIA_SORTSCAN_DIMS_ADAPTER(any)
GLIA_SORTSCAN_DIMS_ADAPTER(nansum)
GLIA_SORTSCAN_DIMS_ADAPTER(nanmean)
GLIA_ADAPTER(count_nonzero) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_count_nonzero(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.out());
}
GLIA_ADAPTER(aminmax) {
  int64_t d = c.integer("dim", 0);
  glia_tensor** o = c.out(2);
  return glia_aminmax(c.in[0], c.has("dim") ? &d : nullptr, kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(var_mean) {
  std::vector<int64_t> d = c.ints("dims");
  glia_tensor** o = c.out(2);
  return glia_var_mean(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.num("correction", 1), kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(std_mean) {
  std::vector<int64_t> d = c.ints("dims");
  glia_tensor** o = c.out(2);
  return glia_std_mean(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.num("correction", 1), kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(cumsum) {
  glia_dtype dt = c.has("dtype") ? glia_test::dtype_named(c.str("dtype", "")) : GLIA_FLOAT32;
  return glia_cumsum(c.in[0], c.integer("dim", 0), c.has("dtype") ? &dt : nullptr, c.out());
}
GLIA_ADAPTER(cumprod) {
  glia_dtype dt = c.has("dtype") ? glia_test::dtype_named(c.str("dtype", "")) : GLIA_FLOAT32;
  return glia_cumprod(c.in[0], c.integer("dim", 0), c.has("dtype") ? &dt : nullptr, c.out());
}
GLIA_ADAPTER(cummax) {
  glia_tensor** o = c.out(2);
  return glia_cummax(c.in[0], c.integer("dim", 0), &o[0], &o[1]);
}
GLIA_ADAPTER(cummin) {
  glia_tensor** o = c.out(2);
  return glia_cummin(c.in[0], c.integer("dim", 0), &o[0], &o[1]);
}
GLIA_ADAPTER(logcumsumexp) { return glia_logcumsumexp(c.in[0], c.integer("dim", 0), c.out()); }
GLIA_ADAPTER(sort) {
  glia_tensor** o = c.out(2);
  return glia_sort(c.in[0], c.integer("dim", -1), c.flag("descending", false), c.flag("stable", false), &o[0], &o[1]);
}
GLIA_ADAPTER(argsort) {
  return glia_argsort(c.in[0], c.integer("dim", -1), c.flag("descending", false), c.flag("stable", false), c.out());
}
GLIA_ADAPTER(msort) { return glia_msort(c.in[0], c.out()); }
GLIA_ADAPTER(topk) {
  glia_tensor** o = c.out(2);
  return glia_topk(c.in[0], c.integer("k", 1), c.integer("dim", -1), c.flag("largest", true), c.flag("sorted", true),
                   &o[0], &o[1]);
}
GLIA_ADAPTER(kthvalue) {
  glia_tensor** o = c.out(2);
  return glia_kthvalue(c.in[0], c.integer("k", 1), c.integer("dim", -1), kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(median) { return glia_median(c.in[0], c.out()); }
GLIA_ADAPTER(median_dim) {
  glia_tensor** o = c.out(2);
  return glia_median_dim(c.in[0], c.integer("dim", -1), kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(nanmedian) { return glia_nanmedian(c.in[0], c.out()); }
GLIA_ADAPTER(nanmedian_dim) {
  glia_tensor** o = c.out(2);
  return glia_nanmedian_dim(c.in[0], c.integer("dim", -1), kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(mode) {
  glia_tensor** o = c.out(2);
  return glia_mode(c.in[0], c.integer("dim", -1), kd(c), &o[0], &o[1]);
}

// q (args): a number for a 0-dim q, a list for a 1-D one, of the input's dtype.
glia_error* quantile_adapter(Call& c, bool ignore_nan) {
  glia_dtype dt = GLIA_FLOAT64;
  glia_error* e = glia_tensor_dtype(c.in[0], &dt);
  if (e) return e;
  const json& qa = c.args["q"];
  std::vector<double> qv;
  std::vector<int64_t> shape;
  if (qa.is_array()) {
    for (const json& v : qa) qv.push_back(v.get<double>());
    shape.push_back(static_cast<int64_t>(qv.size()));
  } else {
    qv.push_back(qa.get<double>());
  }
  glia_test::Handles h;
  glia_tensor* q_host = glia_test::make(h, qv, shape, dt);
  glia_device dev{};
  if ((e = glia_tensor_device(c.in[0], &dev))) return e;
  glia_tensor* q = nullptr;  // on the input's device (the harness runs cases on the CPU and on the test device)
  if ((e = glia_tensor_to(q_host, &dev, nullptr, &q))) return e;
  h.add(q);
  int64_t d = c.integer("dim", 0);
  const std::string interp = c.str("interpolation", "linear");
  const char* names[] = {"linear", "lower", "higher", "midpoint", "nearest"};
  int iv = 0;
  for (int k = 0; k < 5; ++k)
    if (interp == names[k]) iv = k;
  auto f = ignore_nan ? glia_nanquantile : glia_quantile;
  return f(c.in[0], q, c.has("dim") ? &d : nullptr, kd(c), static_cast<glia_quantile_interpolation>(iv), c.out());
}
GLIA_ADAPTER(quantile) { return quantile_adapter(c, false); }
GLIA_ADAPTER(nanquantile) { return quantile_adapter(c, true); }

TEST(SortScan, Golden) { run_cases("sortscan.json"); }
TEST(SortScan, Errors) { run_errors("sortscan.json"); }

namespace {

using glia::Tensor;

// Deterministic float32 values in [-2, 2) with many ties (multiples of 1/64).
Tensor values_f32(const std::vector<int64_t>& shape, uint64_t seed) {
  Tensor t = glia::empty(shape, glia::DType::Float32, glia::Device{});
  float* p = t.data_ptr<float>();
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    p[i] = static_cast<float>(static_cast<int64_t>((s >> 33) % 256) - 128) / 64.0f;
  }
  return t;
}

std::vector<double> as_doubles(const Tensor& t) {
  Tensor d = glia::contiguous(glia::to_dtype(t, glia::DType::Float64));
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

const std::vector<std::vector<int64_t>> kShapes = {{7, 9000}, {9000, 7}, {40, 30, 50}, {2, 140000}};

}  // namespace

// Results do not depend on the number of threads (scans, sorts and selections of long rows and of
// many short ones, over inner and outer dims).
TEST(SortScan, LargeParallelMatchesSerial) {
  for (const auto& shape : kShapes) {
    Tensor x = values_f32(shape, static_cast<uint64_t>(shape[0]));
    for (int64_t dim : {int64_t(0), int64_t(-1)}) {
      SCOPED_TRACE("shape [" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + "] dim " +
                   std::to_string(dim));
      auto run = [&] {
        return std::vector<Tensor>{
            glia::cumsum(x, dim),
            glia::cumprod(glia::div_scalar(x, glia::Scalar::from_double(64)), dim),
            glia::logcumsumexp(x, dim),
            glia::cummax(x, dim).second,
            glia::sort(x, dim, false, true).second,
            glia::topk(x, 2, dim).first,
            glia::median_dim(x, dim).first,
            glia::mode(x, dim).first,
            glia::any(glia::compare_scalar(x, glia::Scalar::from_double(1.9), glia::ops::Cmp::Gt),
                      std::vector<int64_t>{dim})};
      };
      int threads = glia::get_num_threads();
      glia::set_num_threads(1);
      auto serial = run();
      glia::set_num_threads(std::max(threads, 4));
      auto par = run();
      glia::set_num_threads(threads);
      for (size_t k = 0; k < serial.size(); ++k) {
        auto a = as_doubles(serial[k]), b = as_doubles(par[k]);
        ASSERT_EQ(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i)
          if (!(std::isnan(a[i]) && std::isnan(b[i]))) ASSERT_EQ(a[i], b[i]) << "result " << k << " element " << i;
      }
    }
  }
}

// A long stable sort: values ascending, and equal values keep their index order; cumsum of a
// float32 row accumulates in double (torch's accumulation type).
TEST(SortScan, LongRowsSortedStableAndAccurate) {
  Tensor x = values_f32({1, 200000}, 3);
  auto [v, i] = glia::sort(x, 1, false, true);
  auto vv = as_doubles(v), iv = as_doubles(i), xv = as_doubles(x);
  for (size_t k = 1; k < vv.size(); ++k) {
    ASSERT_LE(vv[k - 1], vv[k]);
    if (vv[k - 1] == vv[k]) ASSERT_LT(iv[k - 1], iv[k]);
    ASSERT_EQ(xv[static_cast<size_t>(iv[k])], vv[k]);
  }
  Tensor ones = glia::full(std::vector<int64_t>{1, 20000000 / 1000}, 0.1, glia::DType::Float32, glia::Device{});
  auto cs = as_doubles(glia::cumsum(ones, 1));
  EXPECT_NEAR(cs.back(), 20000 * static_cast<double>(0.1f), 1e-3);
}

TEST(SortScan, NodeNamesAreTorchs) {
  Tensor x = glia::to_dtype(values_f32({3, 4}, 9), glia::DType::Float64);
  glia::set_requires_grad(x, true);
  std::vector<std::pair<Tensor, std::string>> cases = {
      {glia::cumsum(x, 1), "CumsumBackward0"},
      {glia::cumprod(x, 1), "CumprodBackward0"},
      {glia::cummax(x, 1).first, "CummaxBackward0"},
      {glia::cummin(x, 0).first, "CumminBackward0"},
      {glia::logcumsumexp(x, 1), "LogcumsumexpBackward0"},
      {glia::sort(x, 1).first, "SortBackward0"},
      {glia::msort(x), "SortBackward0"},
      {glia::topk(x, 2).first, "TopkBackward0"},
      {glia::kthvalue(x, 2).first, "KthvalueBackward0"},
      {glia::median(x), "MedianBackward0"},
      {glia::median_dim(x, 1).first, "MedianBackward1"},
      {glia::median(x, true), "NanmedianBackward0"},
      {glia::median_dim(x, 1, false, true).first, "NanmedianBackward1"},
      {glia::mode(x, 1).first, "ModeBackward0"},
      {glia::nansum(x), "NansumBackward0"},
      {glia::nanmean(x), "DivBackward0"},
      {glia::var_mean(x).first, "VarMeanBackward0"},
      {glia::std_mean(x).second, "StdMeanBackward0"},
  };
  for (auto& [t, name] : cases) {
    ASSERT_TRUE(glia::grad_fn(t)) << name;
    EXPECT_EQ(std::string(glia::grad_fn(t)->name()), name);
  }
  EXPECT_FALSE(glia::argsort(x).requires_grad());
  EXPECT_FALSE(glia::all(x).requires_grad());
}

TEST(SortScan, AminmaxBackwardIsTorchsError) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4}, {2, 2});
  ASSERT_EQ(glia_tensor_set_requires_grad(x, 1), nullptr);
  glia_tensor *lo = nullptr, *hi = nullptr;
  ASSERT_EQ(glia_aminmax(x, nullptr, 0, &lo, &hi), nullptr);
  h.add(lo);
  h.add(hi);
  glia_error* e = glia_tensor_backward(lo, nullptr, 0);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(glia_error_message(e)).find("derivative for aten::aminmax is not implemented"),
            std::string::npos);
  glia_error_free(e);
}

TEST(SortScan, ValuesAndIndicesBothOrNone) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4}, {2, 2});
  glia_tensor* v = nullptr;
  glia_error* e = glia_sort(x, 0, 0, 0, &v, nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(v, nullptr);
  glia_error_free(e);
}
