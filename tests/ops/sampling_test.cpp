// Random sampling (issue 20) against tests/golden/gen_sampling.py's fixtures (the draw-independent cases and
// torch's errors), plus what the fixtures cannot hold: the distributions' moments and supports, seeded
// reproducibility, independence of explicit seeds from the thread's generator, and the zero-gradient nodes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {

// The adapters pass a fixed seed, so that a case gives the same values on the CPU and on a device.
constexpr uint64_t kSeed = 20;

template <class F>
glia_error* on_clone(Call& c, F op) {
  glia_tensor* self = nullptr;
  if (glia_error* e = glia_tensor_clone(c.in[0], &self)) return e;
  if (glia_error* e = op(self)) {
    glia_error_free(glia_tensor_release(self));
    return e;
  }
  *c.out() = self;
  return nullptr;
}

}  // namespace

GLIA_ADAPTER(bernoulli) { return glia_bernoulli(c.in[0], &kSeed, c.out()); }
GLIA_ADAPTER(bernoulli_scalar) { return glia_bernoulli_scalar(c.in[0], c.num("p", 0.5), &kSeed, c.out()); }
GLIA_ADAPTER(bernoulli_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_bernoulli_(s, c.in[1], &kSeed); });
}
GLIA_ADAPTER(bernoulli_scalar_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_bernoulli_scalar_(s, c.num("p", 0.5), &kSeed); });
}
GLIA_ADAPTER(multinomial) {
  return glia_multinomial(c.in[0], c.integer("num_samples", 1), c.flag("replacement", false), &kSeed, c.out());
}
GLIA_ADAPTER(normal) { return glia_normal(c.in[0], c.in[1], &kSeed, c.out()); }
GLIA_ADAPTER(normal_tensor_scalar) { return glia_normal_tensor_scalar(c.in[0], c.num("std", 1.0), &kSeed, c.out()); }
GLIA_ADAPTER(normal_scalar_tensor) { return glia_normal_scalar_tensor(c.num("mean", 0.0), c.in[0], &kSeed, c.out()); }
GLIA_ADAPTER(poisson) { return glia_poisson(c.in[0], &kSeed, c.out()); }
GLIA_ADAPTER(uniform_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_uniform_(s, c.num("from", 0.0), c.num("to", 1.0), &kSeed); });
}
GLIA_ADAPTER(normal_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_normal_(s, c.num("mean", 0.0), c.num("std", 1.0), &kSeed); });
}
GLIA_ADAPTER(cauchy_) {
  return on_clone(c,
                  [&](glia_tensor* s) { return glia_cauchy_(s, c.num("median", 0.0), c.num("sigma", 1.0), &kSeed); });
}
GLIA_ADAPTER(exponential_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_exponential_(s, c.num("lambd", 1.0), &kSeed); });
}
GLIA_ADAPTER(geometric_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_geometric_(s, c.num("p", 0.5), &kSeed); });
}
GLIA_ADAPTER(log_normal_) {
  return on_clone(c,
                  [&](glia_tensor* s) { return glia_log_normal_(s, c.num("mean", 1.0), c.num("std", 2.0), &kSeed); });
}
GLIA_ADAPTER(random_) {
  int64_t from = 0, to = 0;
  const bool has_from = c.args.contains("from"), has_to = c.has("to");
  if (has_from) from = c.integer("from", 0);
  if (has_to) to = c.integer("to", 0);
  return on_clone(
      c, [&](glia_tensor* s) { return glia_random_(s, has_from ? &from : nullptr, has_to ? &to : nullptr, &kSeed); });
}

TEST(Sampling, Golden) { run_cases("sampling.json"); }
TEST(Sampling, Errors) { run_errors("sampling.json"); }

namespace {

constexpr int64_t kN = 200000;

struct Moments {
  double mean = 0, var = 0;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

// The sample mean is within 6 standard errors of `mean`, the sample variance within 6 of its standard
// error (estimated from the fourth moment) of `var`.
void expect_moments(const std::vector<double>& v, double mean, double var, const char* what) {
  SCOPED_TRACE(what);
  Moments m = moments(v);
  const double n = static_cast<double>(v.size());
  EXPECT_NEAR(m.mean, mean, 6 * std::sqrt(var / n));
  double m4 = 0;
  for (double x : v) m4 += std::pow(x - mean, 4);
  m4 /= n;
  EXPECT_NEAR(m.var, var, 6 * std::sqrt(std::max(m4 - var * var, 0.0) / n) + 1e-12);
}

glia_tensor* zeros(Handles& h, std::vector<int64_t> shape, glia_dtype dt = GLIA_FLOAT64) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = dt;
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_zeros(shape.data(), static_cast<int64_t>(shape.size()), &o, &t);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return h.add(t);
}

using Fill = std::function<glia_error*(glia_tensor*, const uint64_t*)>;

std::vector<double> fill(Handles& h, const Fill& f, const uint64_t* seed, glia_dtype dt = GLIA_FLOAT64,
                         int64_t n = kN) {
  glia_tensor* t = zeros(h, {n}, dt);
  glia_error* e = f(t, seed);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return values(t);
}

std::string grad_fn(const glia_tensor* t) {
  char buf[64] = {0};
  size_t len = 0;
  glia_error_free(glia_tensor_grad_fn_name(t, buf, sizeof buf, &len));
  return buf;
}

}  // namespace

TEST(Sampling, FillMoments) {
  Handles h;
  const uint64_t seed = 7;
  const double pi = M_PI;
  expect_moments(fill(
                     h, [](glia_tensor* t, const uint64_t* s) { return glia_uniform_(t, -1.0, 3.0, s); }, &seed),
                 1.0, 16.0 / 12.0, "uniform_");
  expect_moments(fill(
                     h, [](glia_tensor* t, const uint64_t* s) { return glia_normal_(t, 2.0, 0.5, s); }, &seed),
                 2.0, 0.25, "normal_");
  expect_moments(fill(
                     h, [](glia_tensor* t, const uint64_t* s) { return glia_exponential_(t, 4.0, s); }, &seed),
                 0.25, 1.0 / 16.0, "exponential_");
  expect_moments(fill(
                     h, [](glia_tensor* t, const uint64_t* s) { return glia_geometric_(t, 0.25, s); }, &seed),
                 4.0, 0.75 / 0.0625, "geometric_");
  {
    // log_normal_: the log is N(mean, std^2)
    std::vector<double> v = fill(
        h, [](glia_tensor* t, const uint64_t* s) { return glia_log_normal_(t, 0.5, 0.25, s); }, &seed);
    for (double& x : v) x = std::log(x);
    expect_moments(v, 0.5, 0.0625, "log_normal_");
  }
  {
    // cauchy_: no moments; the quartiles are median -+ sigma, and atan((x - m) / s) / pi + 1/2 is U(0, 1)
    std::vector<double> v = fill(
        h, [](glia_tensor* t, const uint64_t* s) { return glia_cauchy_(t, 1.0, 2.0, s); }, &seed);
    for (double& x : v) x = std::atan((x - 1.0) / 2.0) / pi + 0.5;
    expect_moments(v, 0.5, 1.0 / 12.0, "cauchy_");
  }
  expect_moments(fill(
                     h, [](glia_tensor* t, const uint64_t* s) { return glia_bernoulli_scalar_(t, 0.3, s); }, &seed),
                 0.3, 0.21, "bernoulli_scalar_");
  {
    const int64_t from = -3, to = 5;  // uniform on {-3, ..., 4}: mean 0.5, variance (8^2 - 1) / 12
    std::vector<double> v = fill(
        h, [&](glia_tensor* t, const uint64_t* s) { return glia_random_(t, &from, &to, s); }, &seed, GLIA_INT64);
    expect_moments(v, 0.5, 63.0 / 12.0, "random_");
    EXPECT_EQ(*std::min_element(v.begin(), v.end()), -3);
    EXPECT_EQ(*std::max_element(v.begin(), v.end()), 4);
  }
}

TEST(Sampling, FloatDtypesAndSupports) {
  Handles h;
  const uint64_t seed = 11;
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT16, GLIA_BFLOAT16}) {
    std::vector<double> u = fill(
        h, [](glia_tensor* t, const uint64_t* s) { return glia_uniform_(t, 2.0, 3.0, s); }, &seed, dt, 20000);
    for (double x : u) ASSERT_TRUE(x >= 2.0 && x < 3.0) << x << " dtype " << dt;
    std::vector<double> ex = fill(
        h, [](glia_tensor* t, const uint64_t* s) { return glia_exponential_(t, 1.0, s); }, &seed, dt, 20000);
    for (double x : ex) ASSERT_TRUE(x >= 0 && std::isfinite(x)) << x;
  }
  // geometric_: whole numbers >= 1; in an integer dtype too
  for (double x : fill(
           h, [](glia_tensor*t, const uint64_t*s) { return glia_geometric_(t, 0.5, s); }, &seed, GLIA_INT32, 20000))
    ASSERT_TRUE(x >= 1 && x == std::floor(x)) << x;
  // random_(): [0, max] for integers, [0, 2^24] for float32, {0, 1} for bool
  struct Range {
    glia_dtype dt;
    double hi;
  } ranges[] = {{GLIA_INT8, 127}, {GLIA_UINT8, 255}, {GLIA_BOOL, 1}, {GLIA_FLOAT32, 16777216.0}};
  for (const Range& r : ranges) {
    std::vector<double> v = fill(
        h, [](glia_tensor* t, const uint64_t* s) { return glia_random_(t, nullptr, nullptr, s); }, &seed, r.dt, 20000);
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    EXPECT_GE(*lo, 0) << r.dt;
    EXPECT_LE(*lo, r.hi * 0.01) << r.dt;
    EXPECT_LE(*hi, r.hi) << r.dt;
    EXPECT_GT(*hi, r.hi * 0.99) << r.dt;
  }
  // random_(to) on int64 and random_(from, None)
  const int64_t to = 3, from = 120;
  for (double x : fill(
           h, [&](glia_tensor*t, const uint64_t*s) { return glia_random_(t, nullptr, &to, s); }, &seed, GLIA_INT64,
           1000))
    ASSERT_TRUE(x >= 0 && x < 3) << x;
  std::set<double> seen;
  for (double x : fill(
           h, [&](glia_tensor*t, const uint64_t*s) { return glia_random_(t, &from, nullptr, s); }, &seed, GLIA_INT8,
           1000))
    seen.insert(x);
  EXPECT_EQ(seen, (std::set<double>{120, 121, 122, 123, 124, 125, 126, 127}));
}

TEST(Sampling, BernoulliPoissonNormalMoments) {
  Handles h;
  const uint64_t seed = 3;
  const int64_t n = 100000;
  // bernoulli(p) with p 0.2 and 0.7 in alternate elements
  std::vector<double> pv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pv[i] = i % 2 ? 0.7 : 0.2;
  glia_tensor* p = make(h, pv, {n});
  glia_tensor* b = nullptr;
  GLIA_OK_(glia_bernoulli(p, &seed, &b));
  h.add(b);
  std::vector<double> bv = values(b), even, odd;
  for (int64_t i = 0; i < n; ++i) (i % 2 ? odd : even).push_back(bv[i]);
  expect_moments(even, 0.2, 0.16, "bernoulli p 0.2");
  expect_moments(odd, 0.7, 0.21, "bernoulli p 0.7");
  // poisson: both algorithms (rate < 10 and >= 10); mean = variance = rate
  for (double rate : {0.5, 3.0, 25.0, 400.0}) {
    glia_tensor* r = make(h, std::vector<double>(static_cast<size_t>(n), rate), {n});
    glia_tensor* y = nullptr;
    GLIA_OK_(glia_poisson(r, &seed, &y));
    h.add(y);
    std::vector<double> v = values(y);
    for (double x : v) ASSERT_TRUE(x >= 0 && x == std::floor(x)) << x;
    expect_moments(v, rate, rate, ("poisson " + std::to_string(rate)).c_str());
  }
  // normal(mean tensor, std tensor), normal(mean, std float), normal(float, std tensor), normal(float, float, size)
  glia_tensor* mean = make(h, std::vector<double>(static_cast<size_t>(n), -1.5), {n});
  glia_tensor* std = make(h, std::vector<double>(static_cast<size_t>(n), 2.0), {n});
  glia_tensor *y1 = nullptr, *y2 = nullptr, *y3 = nullptr, *y4 = nullptr;
  GLIA_OK_(glia_normal(mean, std, &seed, &y1));
  GLIA_OK_(glia_normal_tensor_scalar(mean, 2.0, &seed, &y2));
  GLIA_OK_(glia_normal_scalar_tensor(-1.5, std, &seed, &y3));
  GLIA_OK_(glia_normal_scalar(-1.5, 2.0, &n, 1, nullptr, &seed, &y4));
  for (glia_tensor* y : {y1, y2, y3, y4}) {
    h.add(y);
    expect_moments(values(y), -1.5, 4.0, "normal");
  }
  EXPECT_EQ(dtype(y4), GLIA_FLOAT32);
}

TEST(Sampling, MultinomialFrequencies) {
  Handles h;
  const uint64_t seed = 5;
  const std::vector<double> probs = {0.1, 0.0, 0.6, 0.3};
  glia_tensor* p = make(h, probs, {4});
  // with replacement: frequencies within 6 standard errors; category 1 never
  const int64_t n = 100000;
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_multinomial(p, n, 1, &seed, &y));
  h.add(y);
  EXPECT_EQ(dtype(y), GLIA_INT64);
  std::vector<double> v = values(y), count(4, 0.0);
  for (double x : v) count[static_cast<size_t>(x)] += 1;
  for (size_t c = 0; c < 4; ++c)
    EXPECT_NEAR(count[c] / n, probs[c], 6 * std::sqrt(probs[c] * (1 - probs[c]) / n) + 1e-12) << c;
  // without replacement: distinct indices per row; the first pick follows probs; zero-probability last
  std::vector<double> rows;
  const int64_t r = 20000;
  for (int64_t i = 0; i < r; ++i) rows.insert(rows.end(), probs.begin(), probs.end());
  glia_tensor* p2 = make(h, rows, {r, 4});
  glia_tensor* z = nullptr;
  GLIA_OK_(glia_multinomial(p2, 4, 0, &seed, &z));
  h.add(z);
  EXPECT_EQ(shape(z), (std::vector<int64_t>{r, 4}));
  std::vector<double> zv = values(z), first(4, 0.0);
  for (int64_t i = 0; i < r; ++i) {
    std::set<double> s(zv.begin() + i * 4, zv.begin() + i * 4 + 4);
    ASSERT_EQ(s.size(), 4u) << i;
    ASSERT_EQ(zv[i * 4 + 3], 1.0) << i;  // the zero-probability category comes last
    first[static_cast<size_t>(zv[i * 4])] += 1;
  }
  for (size_t c = 0; c < 4; ++c)
    EXPECT_NEAR(first[c] / r, probs[c], 6 * std::sqrt(probs[c] * (1 - probs[c]) / r) + 1e-12) << c;
}

// The same seed gives the same values; an explicit seed leaves the thread's generator alone; glia_manual_seed
// makes the NULL-seed draws reproducible; different seeds give different streams.
TEST(Sampling, SeedsAndGenerators) {
  Handles h;
  auto draw = [&](const uint64_t* seed) {
    return fill(
        h, [](glia_tensor* t, const uint64_t* s) { return glia_normal_(t, 0.0, 1.0, s); }, seed, GLIA_FLOAT64, 64);
  };
  const uint64_t a = 1, b = 2;
  EXPECT_EQ(draw(&a), draw(&a));
  EXPECT_NE(draw(&a), draw(&b));
  glia_manual_seed(99);
  std::vector<double> first = draw(nullptr), second = draw(nullptr);
  EXPECT_NE(first, second);
  glia_manual_seed(99);
  EXPECT_EQ(draw(nullptr), first);
  (void)draw(&a);  // does not advance the thread's generator
  EXPECT_EQ(draw(nullptr), second);
}

// Errors change nothing: a bad probability in bernoulli_ leaves self as it was.
TEST(Sampling, ErrorsLeaveSelfUnchanged) {
  Handles h;
  glia_tensor* self = make(h, {1.0, 2.0, 3.0}, {3});
  glia_tensor* p = make(h, {0.5, 1.5, 0.5}, {3});
  const uint64_t seed = 1;
  EXPECT_GLIA_MSG(glia_bernoulli_(self, p, &seed), GLIA_ERR_INVALID_ARGUMENT, "Expected p_in >= 0 && p_in <= 1");
  EXPECT_EQ(values(self), (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_GLIA_ERR(glia_uniform_(self, 2.0, 1.0, &seed), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(values(self), (std::vector<double>{1.0, 2.0, 3.0}));
}

// torch's nodes: the samples' parameters get zero gradients; the fills of a leaf that requires grad fail.
TEST(Sampling, ZeroGradientNodes) {
  Handles h;
  const uint64_t seed = 4;
  glia_tensor* mean = make(h, {0.5, -1.0}, {2});
  glia_tensor* std = make(h, {1.0, 2.0}, {2});
  GLIA_OK_(glia_tensor_set_requires_grad(mean, 1));
  GLIA_OK_(glia_tensor_set_requires_grad(std, 1));
  glia_tensor *y1 = nullptr, *y2 = nullptr, *y3 = nullptr, *pb = nullptr, *pp = nullptr;
  GLIA_OK_(glia_normal(mean, std, &seed, &y1));
  GLIA_OK_(glia_normal_tensor_scalar(mean, 1.0, &seed, &y2));
  GLIA_OK_(glia_normal_scalar_tensor(0.0, std, &seed, &y3));
  glia_tensor* half = make(h, {0.25, 0.75}, {2});
  GLIA_OK_(glia_tensor_set_requires_grad(half, 1));
  GLIA_OK_(glia_bernoulli(half, &seed, &pb));
  GLIA_OK_(glia_poisson(half, &seed, &pp));
  for (glia_tensor* y : {y1, y2, y3, pb, pp}) h.add(y);
  EXPECT_EQ(grad_fn(y1), "NormalBackward3");
  EXPECT_EQ(grad_fn(y2), "NormalBackward1");
  EXPECT_EQ(grad_fn(y3), "NormalBackward2");
  EXPECT_EQ(grad_fn(pb), "BernoulliBackward0");
  EXPECT_EQ(grad_fn(pp), "PoissonBackward0");
  glia_tensor* ones = make(h, {1.0, 1.0}, {2});
  GLIA_OK_(glia_tensor_backward(y1, ones, 0));
  glia_tensor *gm = nullptr, *gs = nullptr;
  GLIA_OK_(glia_tensor_grad(mean, &gm));
  GLIA_OK_(glia_tensor_grad(std, &gs));
  h.add(gm);
  h.add(gs);
  EXPECT_EQ(values(gm), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(values(gs), (std::vector<double>{0.0, 0.0}));
  EXPECT_GLIA_MSG(glia_uniform_(mean, 0.0, 1.0, &seed), GLIA_ERR_STATE,
                  "a leaf Variable that requires grad is being used in an in-place operation.");
  // a fill of a non-leaf: torch's node, and the gradient through it is zero
  glia_tensor* c = nullptr;
  GLIA_OK_(glia_tensor_clone(mean, &c));
  h.add(c);
  const int64_t from = 1, to = 4;
  struct Named {
    std::function<glia_error*(glia_tensor*)> f;
    const char* name;
  } fills[] = {
      {[&](glia_tensor* t) { return glia_uniform_(t, 0.0, 1.0, &seed); }, "UniformBackward0"},
      {[&](glia_tensor* t) { return glia_normal_(t, 0.0, 1.0, &seed); }, "NormalBackward0"},
      {[&](glia_tensor* t) { return glia_cauchy_(t, 0.0, 1.0, &seed); }, "CauchyBackward0"},
      {[&](glia_tensor* t) { return glia_exponential_(t, 1.0, &seed); }, "ExponentialBackward0"},
      {[&](glia_tensor* t) { return glia_geometric_(t, 0.5, &seed); }, "GeometricBackward0"},
      {[&](glia_tensor* t) { return glia_log_normal_(t, 0.0, 1.0, &seed); }, "LogNormalBackward0"},
      {[&](glia_tensor* t) { return glia_random_(t, &from, &to, &seed); }, "RandomBackward0"},
      {[&](glia_tensor* t) { return glia_random_(t, nullptr, &to, &seed); }, "RandomBackward1"},
      {[&](glia_tensor* t) { return glia_random_(t, nullptr, nullptr, &seed); }, "RandomBackward2"},
      {[&](glia_tensor* t) { return glia_bernoulli_(t, half, &seed); }, "BernoulliBackward1"},
      {[&](glia_tensor* t) { return glia_bernoulli_scalar_(t, 0.5, &seed); }, "BernoulliBackward2"},
  };
  for (const Named& f : fills) {
    GLIA_OK_(f.f(c));
    EXPECT_EQ(grad_fn(c), f.name);
  }
}
