// Issue 20's factories (eye, linspace, logspace, *_like, tril_indices) and shape ops (tril, triu,
// diagonal, diag, diag_embed, trace, flip, fliplr, flipud, roll) against tests/golden/gen_shape_ops.py's
// fixtures, plus what goldens cannot show: diagonal is a view, *_like keeps strides, the random
// factories' ranges and seeding.
#include <algorithm>
#include <cmath>

#include "autograd/functions.h"
#include "ops/golden_support.h"
#include "ops/index.h"

using namespace glia_ops_test;

namespace {

// The factories' options from a case: its "dtype" (else `def`) on the case's device.
glia_tensor_options options(const Call& c, const char* def = "float32") {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = dtype_named(c.str("dtype", def));
  if (c.device) o.device = *c.device;
  return o;
}

// The *_like factories: NULL options (the input's dtype and device) unless the case names a dtype.
glia_error* like(Call& c, glia_error* (*f)(const glia_tensor*, const glia_tensor_options*, glia_tensor**)) {
  if (!c.has("dtype")) return f(c.in[0], nullptr, c.out());
  glia_tensor_options o = options(c);
  return f(c.in[0], &o, c.out());
}

}  // namespace

GLIA_ADAPTER(tensor_eye) {
  glia_tensor_options o = options(c);
  return glia_tensor_eye(c.integer("n", 0), c.integer("m", 0), &o, c.out());
}
GLIA_ADAPTER(tensor_linspace) {
  glia_tensor_options o = options(c);
  return glia_tensor_linspace(c.num("start", 0), c.num("end", 0), c.integer("steps", 0), &o, c.out());
}
GLIA_ADAPTER(tensor_logspace) {
  glia_tensor_options o = options(c);
  return glia_tensor_logspace(c.num("start", 0), c.num("end", 0), c.integer("steps", 0), c.num("base", 10.0), &o,
                              c.out());
}
GLIA_ADAPTER(tensor_zeros_like) { return like(c, glia_tensor_zeros_like); }
GLIA_ADAPTER(tensor_ones_like) { return like(c, glia_tensor_ones_like); }
GLIA_ADAPTER(tensor_full_like) {
  const double v = c.num("value", 0);
  if (!c.has("dtype")) return glia_tensor_full_like(c.in[0], v, nullptr, c.out());
  glia_tensor_options o = options(c);
  return glia_tensor_full_like(c.in[0], v, &o, c.out());
}
GLIA_ADAPTER(tensor_tril_indices) {
  glia_tensor_options o = options(c, "int64");
  return glia_tensor_tril_indices(c.integer("row", 0), c.integer("col", 0), c.integer("offset", 0), &o, c.out());
}
GLIA_ADAPTER(tensor_triu_indices) {
  glia_tensor_options o = options(c, "int64");
  return glia_tensor_triu_indices(c.integer("row", 0), c.integer("col", 0), c.integer("offset", 0), &o, c.out());
}

GLIA_ADAPTER(tril) { return glia_tril(c.in[0], c.integer("diagonal", 0), c.out()); }
GLIA_ADAPTER(triu) { return glia_triu(c.in[0], c.integer("diagonal", 0), c.out()); }
GLIA_ADAPTER(diagonal) {
  return glia_diagonal(c.in[0], c.integer("offset", 0), c.integer("dim1", 0), c.integer("dim2", 1), c.out());
}
GLIA_ADAPTER(diag) { return glia_diag(c.in[0], c.integer("diagonal", 0), c.out()); }
GLIA_ADAPTER(diag_embed) {
  return glia_diag_embed(c.in[0], c.integer("offset", 0), c.integer("dim1", -2), c.integer("dim2", -1), c.out());
}
GLIA_ADAPTER(trace) { return glia_trace(c.in[0], c.out()); }
GLIA_ADAPTER(flip) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_flip(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.out());
}
GLIA_ADAPTER(fliplr) { return glia_fliplr(c.in[0], c.out()); }
GLIA_ADAPTER(flipud) { return glia_flipud(c.in[0], c.out()); }
GLIA_ADAPTER(roll) {
  std::vector<int64_t> s = c.ints("shifts"), d = c.ints("dims");
  return glia_roll(c.in[0], s.data(), static_cast<int64_t>(s.size()), d.data(), static_cast<int64_t>(d.size()),
                   c.out());
}

TEST(Factory, Golden) { run_cases("factory.json"); }
TEST(Factory, Errors) { run_errors("factory.json"); }
TEST(Layout, Golden) { run_cases("layout.json"); }
TEST(Layout, Errors) { run_errors("layout.json"); }

namespace {

using glia::Tensor;

Tensor iota(int64_t n, glia::IntSpan shape, glia::DType dt = glia::DType::Float64) {
  return glia::reshape(glia::arange(0, static_cast<double>(n), 1, dt, glia::Device{}), shape);
}

std::vector<int64_t> strides_of(glia_tensor* t) {
  std::vector<int64_t> s(shape(t).size());
  glia_error* e = glia_tensor_strides(t, static_cast<int64_t>(s.size()), s.data());
  EXPECT_EQ(e, nullptr);
  glia_error_free(e);
  return s;
}

}  // namespace

// torch.diagonal is a view: same storage (hence one version counter), writes go through.
TEST(Layout, DiagonalIsAView) {
  Tensor x = iota(12, glia::Dims{3, 4});
  Tensor d = glia::diagonal(x, 1, 0, 1);
  EXPECT_EQ(d.impl()->storage(), x.impl()->storage());
  EXPECT_EQ(d.shape(), (glia::Dims{3}));
  EXPECT_EQ(d.strides(), (glia::Dims{5}));
  EXPECT_EQ(d.offset(), 1);
  glia::fill(d, -1.0);
  EXPECT_EQ(glia::item_double(glia::ops::select(glia::ops::select(x, 0, 1), 0, 2)), -1.0);  // x[1][2]
  EXPECT_EQ(glia::item_double(glia::ops::select(glia::ops::select(x, 0, 1), 0, 1)), 5.0);   // x[1][1] untouched
  // torch.diag copies.
  Tensor c = glia::diag(x, 0);
  EXPECT_NE(c.impl()->storage(), x.impl()->storage());
}

TEST(Layout, GradFnNames) {
  Tensor x = glia::randn(glia::Dims{3, 3}, glia::DType::Float64, glia::Device{});
  glia::set_requires_grad(x, true);
  Tensor v = glia::randn(glia::Dims{3}, glia::DType::Float64, glia::Device{});
  glia::set_requires_grad(v, true);
  auto name = [](const Tensor& t) { return std::string(glia::grad_fn(t)->name()); };
  const int64_t d0[] = {0}, one[] = {1};
  EXPECT_EQ(name(glia::tril(x)), "TrilBackward0");
  EXPECT_EQ(name(glia::triu(x)), "TriuBackward0");
  EXPECT_EQ(name(glia::diagonal(x)), "DiagonalBackward0");
  EXPECT_EQ(name(glia::diag(x)), "DiagBackward0");
  EXPECT_EQ(name(glia::diag(v)), "DiagBackward0");
  EXPECT_EQ(name(glia::diag_embed(v)), "DiagEmbedBackward0");
  EXPECT_EQ(name(glia::trace(x)), "TraceBackward0");
  EXPECT_EQ(name(glia::flip(x, d0)), "FlipBackward0");
  EXPECT_EQ(name(glia::roll(x, one, d0)), "RollBackward0");
}

// memory_format=torch.preserve_format: a dense permuted input keeps its strides, others get contiguous ones.
TEST(Factory, LikeKeepsDenseStrides) {
  Handles h;
  glia_tensor* x = make(h, {1, 2, 3, 4, 5, 6}, {3, 2});
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_transpose(x, 0, 1, &t));
  h.add(t);
  for (auto f : {glia_tensor_zeros_like, glia_tensor_ones_like, glia_tensor_empty_like, glia_tensor_rand_like,
                 glia_tensor_randn_like}) {
    glia_tensor* z = nullptr;
    GLIA_OK_(f(t, nullptr, &z));
    h.add(z);
    EXPECT_EQ(strides_of(z), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(shape(z), (std::vector<int64_t>{2, 3}));
  }
  // A broadcast (overlapping) input: contiguous.
  glia_tensor* e = nullptr;
  const int64_t big[] = {4, 3, 2};
  GLIA_OK_(glia_expand(x, big, 3, &e));
  h.add(e);
  glia_tensor* z = nullptr;
  GLIA_OK_(glia_tensor_full_like(e, 7.0, nullptr, &z));
  h.add(z);
  EXPECT_EQ(strides_of(z), (std::vector<int64_t>{6, 2, 1}));
  EXPECT_EQ(values(z), std::vector<double>(24, 7.0));
}

TEST(Factory, RandomLikes) {
  Handles h;
  glia_tensor* x = make(h, std::vector<double>(2000, 0.0), {40, 50});
  glia_tensor *u = nullptr, *n = nullptr;
  GLIA_OK_(glia_tensor_rand_like(x, nullptr, &u));
  h.add(u);
  GLIA_OK_(glia_tensor_randn_like(x, nullptr, &n));
  h.add(n);
  EXPECT_EQ(dtype(u), dtype(x));
  std::vector<double> uv = values(u), nv = values(n);
  EXPECT_GE(*std::min_element(uv.begin(), uv.end()), 0.0);
  EXPECT_LT(*std::max_element(uv.begin(), uv.end()), 1.0);
  double mean = 0;
  for (double v : nv) mean += v / static_cast<double>(nv.size());
  EXPECT_LT(std::fabs(mean), 0.15);
  // Integer results are refused with torch's messages.
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = GLIA_INT64;
  glia_tensor* bad = nullptr;
  glia_test::ErrorInfo e1 = glia_test::take(glia_tensor_rand_like(x, &o, &bad));
  EXPECT_EQ(e1.code, GLIA_ERR_DTYPE);
  EXPECT_EQ(e1.message, "\"check_uniform_bounds\" not implemented for 'Long'");
  glia_test::ErrorInfo e2 = glia_test::take(glia_tensor_randn_like(x, &o, &bad));
  EXPECT_EQ(e2.message, "\"normal_kernel_cpu\" not implemented for 'Long'");
  EXPECT_EQ(bad, nullptr);
}

TEST(Factory, Randint) {
  Handles h;
  const int64_t shape_[] = {4000};
  glia_manual_seed(7);
  glia_tensor* a = nullptr;
  GLIA_OK_(glia_tensor_randint(-3, 4, shape_, 1, nullptr, &a));
  h.add(a);
  EXPECT_EQ(dtype(a), GLIA_INT64);  // torch's default
  std::vector<double> v = values(a);
  for (int k = -3; k < 4; ++k) EXPECT_GT(std::count(v.begin(), v.end(), static_cast<double>(k)), 400) << k;
  EXPECT_EQ(std::count_if(v.begin(), v.end(), [](double x) { return x < -3 || x > 3; }), 0);
  // The same seed gives the same draws.
  glia_manual_seed(7);
  glia_tensor* b = nullptr;
  GLIA_OK_(glia_tensor_randint(-3, 4, shape_, 1, nullptr, &b));
  h.add(b);
  EXPECT_EQ(values(b), v);
  // Other dtypes, and torch's bound checks.
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = GLIA_UINT8;
  glia_tensor* c = nullptr;
  GLIA_OK_(glia_tensor_randint(250, 256, shape_, 1, &o, &c));
  h.add(c);
  std::vector<double> cv = values(c);
  EXPECT_EQ(*std::min_element(cv.begin(), cv.end()), 250.0);
  EXPECT_EQ(*std::max_element(cv.begin(), cv.end()), 255.0);
  glia_tensor* bad = nullptr;
  glia_test::ErrorInfo e = glia_test::take(glia_tensor_randint(0, 257, shape_, 1, &o, &bad));
  EXPECT_EQ(e.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(e.message, "to - 1 is out of bounds for unsigned char");
  e = glia_test::take(glia_tensor_randint(3, 3, shape_, 1, nullptr, &bad));
  EXPECT_EQ(e.message, "random_ expects 'from' to be less than 'to', but got from=3 >= to=3");
  o.dtype = GLIA_FLOAT32;
  GLIA_OK_(glia_tensor_randint(0, 3, shape_, 1, &o, &c));
  h.add(c);
  EXPECT_EQ(dtype(c), GLIA_FLOAT32);
  EXPECT_EQ(bad, nullptr);
}

namespace {

template <class F>
glia_error* multi(Call& c, F&& f) {
  int64_t n = 0;
  if (glia_error* e = f(nullptr, 0, &n)) return e;
  glia_tensor** outs = c.out(static_cast<size_t>(n));
  int64_t m = 0;
  glia_error* e = f(outs, n, &m);
  if (!e && m != n) ADD_FAILURE() << "count changed between calls";
  return e;
}

}  // namespace

GLIA_ADAPTER(movedim) {
  std::vector<int64_t> s = c.ints("source"), d = c.ints("destination");
  return glia_movedim(c.in[0], s.data(), static_cast<int64_t>(s.size()), d.data(), static_cast<int64_t>(d.size()),
                      c.out());
}
GLIA_ADAPTER(unfold) {
  return glia_unfold(c.in[0], c.integer("dimension", 0), c.integer("size", 1), c.integer("step", 1), c.out());
}
GLIA_ADAPTER(rot90) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_rot90(c.in[0], c.integer("k", 1), d.data(), static_cast<int64_t>(d.size()), c.out());
}
GLIA_ADAPTER(repeat) {
  std::vector<int64_t> r = c.ints("repeats");
  return glia_repeat(c.in[0], r.data(), static_cast<int64_t>(r.size()), c.out());
}
GLIA_ADAPTER(tile) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_tile(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.out());
}
GLIA_ADAPTER(repeat_interleave) {
  const int64_t dim = c.integer("dim", 0);
  return glia_repeat_interleave(c.in[0], c.integer("repeats", 1), c.has("dim") ? &dim : nullptr, c.out());
}
GLIA_ADAPTER(repeat_interleave_tensor) {
  const int64_t dim = c.integer("dim", 0);
  return glia_repeat_interleave_tensor(c.in[0], c.in[1], c.has("dim") ? &dim : nullptr, c.out());
}
GLIA_ADAPTER(tensor_split) {
  return multi(c, [&](glia_tensor** o, int64_t cap, int64_t* n) {
    return glia_tensor_split(c.in[0], c.integer("sections", 1), c.integer("dim", 0), o, cap, n);
  });
}
GLIA_ADAPTER(tensor_split_indices) {
  std::vector<int64_t> i = c.ints("indices");
  return multi(c, [&](glia_tensor** o, int64_t cap, int64_t* n) {
    return glia_tensor_split_indices(c.in[0], i.data(), static_cast<int64_t>(i.size()), c.integer("dim", 0), o, cap, n);
  });
}

// Tensor.unfold is a view, as torch's.
TEST(Layout, UnfoldIsAView) {
  Tensor x = iota(10, glia::Dims{2, 5});
  Tensor u = glia::unfold(x, 1, 3, 2);
  EXPECT_EQ(u.impl()->storage(), x.impl()->storage());
  EXPECT_EQ(u.shape(), (glia::Dims{2, 2, 3}));
  EXPECT_EQ(u.strides(), (glia::Dims{5, 2, 1}));
  Tensor leaf = glia::clone(x);
  glia::set_requires_grad(leaf, true);
  EXPECT_EQ(std::string(glia::grad_fn(glia::unfold(leaf, 1, 3, 2))->name()), "UnfoldBackward0");
  const int64_t dims[] = {0, 1};
  EXPECT_EQ(std::string(glia::grad_fn(glia::rot90(leaf, 1, dims))->name()), "Rot90Backward0");
  const int64_t reps[] = {2, 1};
  EXPECT_EQ(std::string(glia::grad_fn(glia::repeat(leaf, reps))->name()), "RepeatBackward0");
  EXPECT_EQ(std::string(glia::grad_fn(glia::repeat_interleave(leaf, 2, nullptr))->name()), "IndexSelectBackward0");
}

// repeat's output sizes are checked products: 3 * INT64_MAX is an error, not signed-overflow UB
// (the C-API fuzzer's tests/fuzz/corpus/capi/regress-repeat-overflow).
TEST(Layout, RepeatSizeOverflowIsAnError) {
  int64_t shape[] = {3};
  glia_tensor* x = nullptr;
  ASSERT_EQ(glia_tensor_zeros(shape, 1, nullptr, &x), nullptr);
  const int64_t reps[] = {INT64_MAX};
  glia_tensor* out = nullptr;
  glia_error* e = glia_repeat(x, reps, 1, &out);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_SHAPE);
  EXPECT_STREQ(glia_error_message(e),
               "repeat: integer overflow computing 3 * 9223372036854775807 (a size, stride, padding or "
               "other argument is too large)");
  glia_error_free(e);
  EXPECT_EQ(out, nullptr);
  glia_tensor_release(x);
}

GLIA_ADAPTER(take) { return glia_take(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(take_along_dim) {
  const int64_t dim = c.integer("dim", 0);
  return glia_take_along_dim(c.in[0], c.in[1], c.has("dim") ? &dim : nullptr, c.out());
}

// tensor_split's result has `sections` views whatever the size: a count the caller's array cannot
// hold is refused before any view is made, and a count query makes none (the C-API fuzzer hung on
// sections = 2^40, tests/fuzz/corpus/capi/regress-tensor-split-sections).
TEST(Layout, TensorSplitCountBeforeViews) {
  int64_t shape[] = {3};
  glia_tensor* x = nullptr;
  ASSERT_EQ(glia_tensor_zeros(shape, 1, nullptr, &x), nullptr);
  const int64_t huge = int64_t(1) << 40;
  glia_tensor* outs[2] = {nullptr, nullptr};
  int64_t n = -1;
  glia_error* e = glia_tensor_split(x, huge, 0, outs, 2, &n);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(glia_error_message(e),
               "glia_tensor_split: 'outs' has room for 2 tensors but the result has 1099511627776");
  glia_error_free(e);
  EXPECT_EQ(outs[0], nullptr);
  EXPECT_EQ(n, -1);
  ASSERT_EQ(glia_tensor_split(x, huge, 0, nullptr, 0, &n), nullptr);
  EXPECT_EQ(n, huge);
  // The errors of x and dim come first, as for any count.
  e = glia_tensor_split(x, huge, 1, outs, 2, &n);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(glia_error_message(e)).find("Dimension out of range"), std::string::npos)
      << glia_error_message(e);
  glia_error_free(e);
  // Sections that fit are made as before: 5 sections of 3 elements, the last two empty.
  glia_tensor* five[5] = {};
  ASSERT_EQ(glia_tensor_split(x, 5, 0, five, 5, &n), nullptr);
  EXPECT_EQ(n, 5);
  for (glia_tensor* t : five) {
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(glia_tensor_release(t), nullptr);
  }
  EXPECT_EQ(glia_tensor_release(x), nullptr);
}

// A step past the tensor leaves one window; step * stride overflowed int64 (UB the C-API fuzzer
// found, tests/fuzz/corpus/capi/regress-unfold-step). torch's shape, the element stride for the window dim.
TEST(Layout, UnfoldHugeStep) {
  Tensor x = iota(10, glia::Dims{2, 5});
  // Along dim 0 (stride 5): 5 * (2^63 - 1) overflows.
  Tensor u = glia::unfold(x, 0, 1, INT64_MAX);
  EXPECT_EQ(u.shape(), (glia::Dims{1, 5, 1}));
  EXPECT_EQ(u.strides(), (glia::Dims{5, 1, 5}));
  EXPECT_EQ(u.impl()->storage(), x.impl()->storage());
  // Along dim 1 (stride 1) the product fits and is kept, as torch's.
  Tensor v = glia::unfold(x, 1, 3, INT64_MAX);
  EXPECT_EQ(v.shape(), (glia::Dims{2, 1, 3}));
  EXPECT_EQ(v.strides(), (glia::Dims{5, INT64_MAX, 1}));
}

// The diagonal of a [0, 2^63 - 1] tensor (strides [2^63 - 1, 1]): the stride sum overflowed int64
// (UB the C-API fuzzer's one-hour run found, tests/fuzz/corpus/capi/regress-diagonal-stride). The
// view is empty, so any stride fits; glia gives 1.
TEST(Layout, DiagonalOfAnEmptyTensorWithAHugeStride) {
  Tensor x = glia::zeros(glia::Dims{0, INT64_MAX}, glia::DType::Float64, glia::Device{});
  ASSERT_EQ(x.strides(), (glia::Dims{INT64_MAX, 1}));
  Tensor d = glia::diagonal(x, 0, 0, 1);
  EXPECT_EQ(d.shape(), (glia::Dims{0}));
  EXPECT_EQ(d.strides(), (glia::Dims{1}));
}

// cat of tensors without elements whose sizes along `dim` sum past 2^63 - 1: the sum overflowed
// int64 (UB the C-API fuzzer found, tests/fuzz/corpus/capi/regress-cat-size-overflow); the shape
// cannot be represented, so it is an error.
TEST(Layout, CatSizeOverflowIsAShapeError) {
  const int64_t big = int64_t{4629771060592574719};
  Tensor a = glia::zeros(glia::Dims{0, big, 0}, glia::DType::Float32, glia::Device{});
  try {
    glia::cat({a, a}, 1);
    ADD_FAILURE() << "cat of sizes summing past 2^63 succeeded";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), glia::Code::Shape);
    EXPECT_STREQ(e.what(), "cat: integer overflow computing the size of dimension 1 of the result");
  }
  EXPECT_EQ(glia::cat({a, a}, 0).shape(), (glia::Dims{0, big, 0}));
}

// where's dtype error for every condition dtype: its name table had eight entries, so an int8 or
// int16 condition read past its end (ASan, tests/fuzz/corpus/capi/regress-where-cond-dtype).
TEST(Layout, WhereConditionDtypeErrorNamesEveryDtype) {
  Tensor x = glia::zeros(glia::Dims{2}, glia::DType::Float32, glia::Device{});
  for (auto [t, name] : {std::pair{glia::DType::Int8, "Char"}, std::pair{glia::DType::Int16, "Short"},
                         std::pair{glia::DType::Float32, "Float"}}) {
    try {
      glia::where(glia::zeros(glia::Dims{2}, t, glia::Device{}), x, x);
      ADD_FAILURE() << "where with a " << name << " condition succeeded";
    } catch (const glia::Error& e) {
      EXPECT_EQ(e.code(), glia::Code::DType);
      EXPECT_EQ(std::string(e.what()),
                std::string("where expected condition to be a boolean tensor, but got a tensor with dtype ") + name);
    }
  }
}

// glia_split counts its pieces before making views, as glia_tensor_split: a dim of 2^50 entries of
// a tensor without elements is not made into 2^50 views for a caller with room for two
// (tests/fuzz/corpus/capi/regress-split-count).
TEST(Layout, SplitCountBeforeViews) {
  const int64_t big = int64_t(1) << 50;
  int64_t shape[] = {0, big};
  glia_tensor* x = nullptr;
  ASSERT_EQ(glia_tensor_zeros(shape, 2, nullptr, &x), nullptr);
  glia_tensor* outs[2] = {nullptr, nullptr};
  int64_t n = -1;
  glia_error* e = glia_split(x, 1, 1, outs, 2, &n);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(glia_error_message(e), "glia_split: 'outs' has room for 2 tensors but the result has 1125899906842624");
  glia_error_free(e);
  EXPECT_EQ(outs[0], nullptr);
  EXPECT_EQ(n, -1);
  ASSERT_EQ(glia_split(x, 1, 1, nullptr, 0, &n), nullptr);
  EXPECT_EQ(n, big);
  ASSERT_EQ(glia_split(x, big / 2, 1, outs, 2, &n), nullptr);  // two pieces fit
  EXPECT_EQ(n, 2);
  for (glia_tensor* t : outs) EXPECT_EQ(glia_tensor_release(t), nullptr);
  EXPECT_EQ(glia_tensor_release(x), nullptr);
}
