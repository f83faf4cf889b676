// Reductions and softmax against tests/golden/gen_reduce.py's fixtures
// (ops/reductions.json, ops/softmax.json), plus shapes above the parallel grain
// checked against serial runs and float64 references.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "autograd/functions.h"
#include "core/parallel.h"
#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
int32_t kd(const Call& c) { return c.flag("keepdim", false) ? 1 : 0; }
}  // namespace

#define GLIA_DIMS_ADAPTER(op)                                                            \
  GLIA_ADAPTER(op) {                                                                     \
    std::vector<int64_t> d = c.ints("dims");                                             \
    return glia_##op(c.in[0], d.data(), static_cast<int64_t>(d.size()), kd(c), c.out()); \
  }
GLIA_DIMS_ADAPTER(mean)
GLIA_DIMS_ADAPTER(prod)
GLIA_DIMS_ADAPTER(amax)
GLIA_DIMS_ADAPTER(amin)
GLIA_DIMS_ADAPTER(logsumexp)
GLIA_ADAPTER(max) {
  glia_tensor** o = c.out(2);
  return glia_max(c.in[0], c.integer("dim", 0), kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(min) {
  glia_tensor** o = c.out(2);
  return glia_min(c.in[0], c.integer("dim", 0), kd(c), &o[0], &o[1]);
}
GLIA_ADAPTER(argmax) {
  int64_t d = c.integer("dim", 0);
  return glia_argmax(c.in[0], c.has("dim") ? &d : nullptr, kd(c), c.out());
}
GLIA_ADAPTER(argmin) {
  int64_t d = c.integer("dim", 0);
  return glia_argmin(c.in[0], c.has("dim") ? &d : nullptr, kd(c), c.out());
}
GLIA_ADAPTER(var) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_var(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.num("correction", 1), kd(c), c.out());
}
GLIA_ADAPTER(std) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_std(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.num("correction", 1), kd(c), c.out());
}
GLIA_ADAPTER(norm) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_norm(c.in[0], c.num("p", 2.0), d.data(), static_cast<int64_t>(d.size()), kd(c), c.out());
}
GLIA_ADAPTER(softmax) { return glia_softmax(c.in[0], c.integer("dim", 0), c.out()); }
GLIA_ADAPTER(log_softmax) { return glia_log_softmax(c.in[0], c.integer("dim", 0), c.out()); }

TEST(Reductions, Golden) { run_cases("reductions.json"); }
TEST(Reductions, Errors) { run_errors("reductions.json"); }
TEST(Softmax, Golden) { run_cases("softmax.json"); }
TEST(Softmax, Errors) { run_errors("softmax.json"); }

namespace {

using glia::Tensor;

// Deterministic float32 values in [-2, 2).
Tensor values_f32(const std::vector<int64_t>& shape, uint64_t seed) {
  Tensor t = glia::empty(shape, glia::DType::Float32, glia::Device{});
  float* p = t.data_ptr<float>();
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    p[i] = static_cast<float>(static_cast<int64_t>((s >> 33) % 4096) - 2048) / 1024.0f;
  }
  return t;
}

std::vector<double> as_doubles(const Tensor& t) {
  Tensor d = glia::contiguous(glia::to_dtype(t, glia::DType::Float64));
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const char* what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  auto g = as_doubles(got), w = as_doubles(want);
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " element " << i;
      continue;
    }
    ASSERT_LE(std::fabs(g[i] - w[i]), tol * (1 + std::fabs(w[i])))
        << what << " element " << i << ": " << g[i] << " vs " << w[i];
  }
}

// Runs f with one thread and with the pool; the results must agree, and f32 must agree with f64.
template <class F>
void check_parallel(const char* what, F f, double tol = 1e-5) {
  for (auto shape :
       {std::vector<int64_t>{300, 170}, std::vector<int64_t>{7, 9000}, std::vector<int64_t>{9000, 7},
        std::vector<int64_t>{2, 140000}, std::vector<int64_t>{40000, 5}, std::vector<int64_t>{40, 30, 50}}) {
    Tensor x = values_f32(shape, static_cast<uint64_t>(shape[0]));
    Tensor x64 = glia::to_dtype(x, glia::DType::Float64);
    int threads = glia::get_num_threads();
    glia::set_num_threads(1);
    auto serial = f(x);
    glia::set_num_threads(std::max(threads, 4));
    auto par = f(x);
    auto ref = f(x64);
    glia::set_num_threads(threads);
    SCOPED_TRACE(std::string(what) + " shape [" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + "]");
    for (size_t k = 0; k < serial.size(); ++k) {
      expect_close(par[k], serial[k], 1e-6, "parallel vs serial");
      expect_close(par[k], ref[k], tol, "float32 vs float64");
    }
  }
}

}  // namespace

TEST(Reductions, LargeParallel) {
  using V = std::vector<Tensor>;
  static const glia::Dims D0{0}, D1{1}, ALL{};
  check_parallel("mean", [](const Tensor& x) {
    return V{glia::mean(x, D0), glia::mean(x, D1), glia::mean(x, ALL), glia::mean(x, D0, true)};
  });
  check_parallel("var/std", [](const Tensor& x) {
    return V{glia::var(x, D0), glia::var(x, D1), glia::std_dev(x, ALL), glia::std_dev(x, D0, 0, true)};
  });
  check_parallel("logsumexp", [](const Tensor& x) { return V{glia::logsumexp(x, D0), glia::logsumexp(x, D1)}; });
  check_parallel("norm", [](const Tensor& x) {
    return V{glia::vector_norm(x, 2, D0), glia::vector_norm(x, 1, D1), glia::vector_norm(x, 3, ALL),
             glia::vector_norm(x, INFINITY, D0)};
  });
  check_parallel("amax", [](const Tensor& x) {
    return V{glia::amax(x, D0), glia::amin(x, D1), glia::max_dim(x, 0).first, glia::min_dim(x, -1).first};
  });
  check_parallel("softmax", [](const Tensor& x) {
    return V{glia::softmax(x, 0), glia::softmax(x, 1), glia::log_softmax(x, 0), glia::log_softmax(x, -1)};
  });
  check_parallel("sum", [](const Tensor& x) { return V{glia::sum(x, D0), glia::sum(x, D1), glia::sum(x, ALL)}; });
}

TEST(Reductions, MaxValuesAndIndicesBothOrNone) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4}, {2, 2});
  glia_tensor* v = nullptr;
  glia_error* e = glia_max(x, 0, 0, &v, nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(v, nullptr);
  glia_error_free(e);
}

TEST(Reductions, NanPropagatesOnEveryPath) {
  // [3, 100] reduced over dim 1 (contiguous lanes) and its transpose over dim 0 (rows into outputs).
  Tensor x = values_f32({3, 100}, 5);
  x.data_ptr<float>()[150] = NAN;
  static const glia::Dims D0{0}, D1{1};
  for (const Tensor& r : {glia::amax(x, D1), glia::amin(x, D1), glia::amax(glia::transpose(x, 0, 1), D0),
                          glia::vector_norm(x, INFINITY, D1), glia::sum(x, D1), glia::max_dim(x, 1).first}) {
    auto v = as_doubles(r);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_FALSE(std::isnan(v[0]));
    EXPECT_TRUE(std::isnan(v[1]));
    EXPECT_FALSE(std::isnan(v[2]));
  }
  EXPECT_EQ(as_doubles(glia::argmax(x, 1))[1], 50.0);
}

TEST(Reductions, IntegerSumsOnEveryPath) {
  Tensor x = glia::empty(std::vector<int64_t>{50, 64}, glia::DType::Int32, glia::Device{});
  int64_t want_rows[50] = {}, want_cols[64] = {};
  for (int64_t i = 0; i < 50; ++i)
    for (int64_t j = 0; j < 64; ++j) {
      int32_t v = static_cast<int32_t>((i * 31 + j * 17) % 23) - 11;
      x.data_ptr<int32_t>()[i * 64 + j] = v;
      want_rows[i] += v;
      want_cols[j] += v;
    }
  static const glia::Dims D0{0}, D1{1};
  auto rows = as_doubles(glia::sum(x, D1)), cols = as_doubles(glia::sum(x, D0));
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(rows[i], static_cast<double>(want_rows[i]));
  for (int64_t j = 0; j < 64; ++j) EXPECT_EQ(cols[j], static_cast<double>(want_cols[j]));
}

TEST(Reductions, LargeBoolAndIntChunkedPaths) {
  // Long runs take the chunked paths (full reduction; tall-narrow columns).
  Tensor b = glia::zeros(std::vector<int64_t>{2, 200000}, glia::DType::Bool, glia::Device{});
  b.data_ptr<bool>()[150000] = true;
  static const glia::Dims D0{0}, D1{1};
  auto any = as_doubles(glia::amax(b, D1));
  EXPECT_EQ(any, (std::vector<double>{1.0, 0.0}));
  Tensor tall = glia::zeros(std::vector<int64_t>{60000, 5}, glia::DType::Bool, glia::Device{});
  tall.data_ptr<bool>()[59999 * 5 + 3] = true;
  EXPECT_EQ(as_doubles(glia::amax(tall, D0)), (std::vector<double>{0, 0, 0, 1, 0}));
  Tensor ints = glia::full(std::vector<int64_t>{60000, 5}, 3.0, glia::DType::Int64, glia::Device{});
  EXPECT_EQ(as_doubles(glia::sum(ints, D0)), (std::vector<double>(5, 180000.0)));
  EXPECT_EQ(as_doubles(glia::sum(ints, glia::Dims{})), (std::vector<double>{900000.0}));
}
