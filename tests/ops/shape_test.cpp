// Views (view, reshape, flatten, unflatten, squeeze, unsqueeze, permute,
// transpose, expand, narrow, slice, select) against tests/golden/gen_shape.py's
// fixtures, plus the view semantics torch guarantees (storage sharing).
#include "ops/shape.h"

#include "autograd/functions.h"
#include "ops/golden_support.h"
#include "ops/index.h"
#include "ops/reduce.h"

using namespace glia_ops_test;

namespace {
glia_error* with_shape(Call& c, glia_error* (*f)(const glia_tensor*, const int64_t*, int64_t, glia_tensor**)) {
  std::vector<int64_t> s = c.ints("shape");
  return f(c.in[0], s.data(), static_cast<int64_t>(s.size()), c.out());
}
}  // namespace

GLIA_ADAPTER(view) { return with_shape(c, glia_view); }
GLIA_ADAPTER(reshape) { return with_shape(c, glia_reshape); }
GLIA_ADAPTER(expand) { return with_shape(c, glia_expand); }
GLIA_ADAPTER(flatten) { return glia_flatten(c.in[0], c.integer("start_dim", 0), c.integer("end_dim", -1), c.out()); }
GLIA_ADAPTER(unflatten) {
  std::vector<int64_t> s = c.ints("sizes");
  return glia_unflatten(c.in[0], c.integer("dim", 0), s.data(), static_cast<int64_t>(s.size()), c.out());
}
GLIA_ADAPTER(squeeze) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_squeeze(c.in[0], d.empty() ? nullptr : d.data(), static_cast<int64_t>(d.size()), c.out());
}
GLIA_ADAPTER(unsqueeze) { return glia_unsqueeze(c.in[0], c.integer("dim", 0), c.out()); }
GLIA_ADAPTER(permute) {
  std::vector<int64_t> d = c.ints("dims");
  return glia_permute(c.in[0], d.data(), static_cast<int64_t>(d.size()), c.out());
}
GLIA_ADAPTER(transpose) { return glia_transpose(c.in[0], c.integer("dim0", 0), c.integer("dim1", 1), c.out()); }
GLIA_ADAPTER(narrow) {
  return glia_narrow(c.in[0], c.integer("dim", 0), c.integer("start", 0), c.integer("length", 0), c.out());
}
GLIA_ADAPTER(slice) {
  return glia_slice(c.in[0], c.integer("dim", 0), c.integer("start", 0), c.integer("end", INT64_MAX),
                    c.integer("step", 1), c.out());
}
GLIA_ADAPTER(select) { return glia_select(c.in[0], c.integer("dim", 0), c.integer("index", 0), c.out()); }

TEST(Shape, Golden) { run_cases("shape.json"); }
TEST(Shape, Errors) { run_errors("shape.json"); }

namespace {

using glia::Tensor;

Tensor arange_t(int64_t n, glia::DType dt = glia::DType::Float64) {
  return glia::arange(0, static_cast<double>(n), 1, dt, glia::Device{});
}

bool shares(const Tensor& a, const Tensor& b) { return a.impl()->storage() == b.impl()->storage(); }

}  // namespace

TEST(Shape, ReshapeIsAViewWhenStridesAllow) {
  Tensor x = glia::ops::reshape(arange_t(24), glia::Dims{2, 3, 4});
  Tensor r = glia::reshape(x, glia::Dims{6, 4});
  EXPECT_TRUE(shares(r, x));
  // A transpose that keeps the merged dims together is still a view.
  Tensor t = glia::transpose(x, 0, 1);  // [3, 2, 4]
  Tensor v = glia::reshape(t, glia::Dims{3, 2, 2, 2});
  EXPECT_TRUE(shares(v, x));
  // Merging the transposed dims needs a copy.
  Tensor c = glia::reshape(t, glia::Dims{6, 4});
  EXPECT_FALSE(shares(c, x));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(glia::item_double(glia::ops::select(glia::ops::select(c, 0, 1), 0, 0)), 12.0);  // t[0][1][0] = x[1][0][0]
  // flatten of a contiguous tensor shares; flatten of a 1-D tensor is the tensor's storage too.
  EXPECT_TRUE(shares(glia::flatten(x), x));
}

TEST(Shape, ViewOfAViewWritesThrough) {
  Tensor x = glia::ops::reshape(arange_t(12), glia::Dims{3, 4});
  Tensor v = glia::view(glia::view(x, glia::Dims{2, 6}), glia::Dims{12});
  Tensor s = glia::slice(glia::narrow(v, 0, 2, 8), 0, 1, 8, 3);  // elements 3, 6, 9
  ASSERT_EQ(s.numel(), 3);
  glia::fill(s, -1.0);
  EXPECT_EQ(glia::item_double(glia::ops::select(glia::ops::select(x, 0, 0), 0, 3)), -1.0);
  EXPECT_EQ(glia::item_double(glia::ops::select(glia::ops::select(x, 0, 1), 0, 2)), -1.0);
  EXPECT_EQ(glia::item_double(glia::ops::select(glia::ops::select(x, 0, 2), 0, 1)), -1.0);
  EXPECT_EQ(glia::item_double(glia::ops::select(glia::ops::select(x, 0, 2), 0, 2)), 10.0);
  // select / unsqueeze / expand / permute are views as well.
  EXPECT_TRUE(shares(glia::select(x, 1, 2), x));
  EXPECT_TRUE(shares(glia::expand(glia::unsqueeze(x, 0), glia::Dims{2, 3, 4}), x));
  EXPECT_TRUE(shares(glia::permute(x, glia::Dims{1, 0}), x));
  EXPECT_TRUE(shares(glia::unflatten(x, 1, glia::Dims{2, 2}), x));
}

TEST(Shape, GradFnNames) {
  Tensor x = glia::ops::reshape(arange_t(6), glia::Dims{2, 3});
  glia::set_requires_grad(x, true);
  EXPECT_STREQ(glia::grad_fn(glia::view(x, glia::Dims{6}))->name(), "ViewBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::narrow(x, 1, 0, 2))->name(), "SliceBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::select(x, 1, 0))->name(), "SelectBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::permute(x, glia::Dims{1, 0}))->name(), "PermuteBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::expand(x, glia::Dims{2, 2, 3}))->name(), "ExpandBackward0");
}
