// index_select, gather, scatter, scatter_add, masked_select, cat, stack, split,
// split_with_sizes, chunk and pad against tests/golden/gen_shape.py's fixtures,
// plus large (parallel) cases checked against elementwise references.
#include "ops/index.h"

#include "autograd/functions.h"
#include "capi/api.h"
#include "ops/cpu/loops.h"
#include "ops/golden_support.h"
#include "ops/reduce.h"
#include "ops/shape.h"

using namespace glia_ops_test;

namespace {

// Runs a multi-output op: asks for the count, then fills that many slots.
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

glia_pad_mode mode_named(const std::string& m) {
  if (m == "reflect") return GLIA_PAD_REFLECT;
  if (m == "replicate") return GLIA_PAD_REPLICATE;
  if (m == "circular") return GLIA_PAD_CIRCULAR;
  return GLIA_PAD_CONSTANT;
}

}  // namespace

GLIA_ADAPTER(index_select) { return glia_index_select(c.in[0], c.integer("dim", 0), c.in[1], c.out()); }
GLIA_ADAPTER(gather) { return glia_gather(c.in[0], c.integer("dim", 0), c.in[1], c.out()); }
GLIA_ADAPTER(scatter) { return glia_scatter(c.in[0], c.integer("dim", 0), c.in[1], c.in[2], c.out()); }
GLIA_ADAPTER(scatter_add) { return glia_scatter_add(c.in[0], c.integer("dim", 0), c.in[1], c.in[2], c.out()); }
GLIA_ADAPTER(scatter_value) {
  return glia_scatter_value(c.in[0], c.integer("dim", 0), c.in[1], c.scalar("value"), c.out());
}
GLIA_ADAPTER(masked_select) { return glia_masked_select(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(cat) { return glia_cat(c.in.data(), static_cast<int64_t>(c.in.size()), c.integer("dim", 0), c.out()); }
GLIA_ADAPTER(stack) { return glia_stack(c.in.data(), static_cast<int64_t>(c.in.size()), c.integer("dim", 0), c.out()); }
GLIA_ADAPTER(split) {
  return multi(c, [&](glia_tensor** o, int64_t cap, int64_t* n) {
    return glia_split(c.in[0], c.integer("split_size", 1), c.integer("dim", 0), o, cap, n);
  });
}
GLIA_ADAPTER(split_with_sizes) {
  std::vector<int64_t> s = c.ints("sizes");
  return multi(c, [&](glia_tensor** o, int64_t cap, int64_t* n) {
    return glia_split_with_sizes(c.in[0], s.data(), static_cast<int64_t>(s.size()), c.integer("dim", 0), o, cap, n);
  });
}
GLIA_ADAPTER(chunk) {
  return multi(c, [&](glia_tensor** o, int64_t cap, int64_t* n) {
    return glia_chunk(c.in[0], c.integer("chunks", 1), c.integer("dim", 0), o, cap, n);
  });
}
GLIA_ADAPTER(pad) {
  std::vector<int64_t> p = c.ints("pad");
  return glia_pad(c.in[0], p.data(), static_cast<int64_t>(p.size()), mode_named(c.str("mode", "constant")),
                  c.num("value", 0.0), c.out());
}

TEST(Index, Golden) { run_cases("index.json"); }
TEST(Index, Errors) { run_errors("index.json"); }
TEST(Pad, Golden) { run_cases("pad.json"); }
TEST(Pad, Errors) { run_errors("pad.json"); }

namespace {

using glia::Dims;
using glia::DType;
using glia::Tensor;
namespace ops = glia::ops;

// Deterministic values i * 7 mod 101 (exact in float32).
Tensor pattern(Dims shape, DType dt = DType::Float32) {
  int64_t n = glia::checked_numel(shape);
  Tensor t = glia::empty(Dims{n}, DType::Float64, glia::Device{});
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>((i * 7) % 101);
  return glia::to_dtype(ops::reshape(t, shape), dt);
}

double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  Tensor v = t;
  for (int64_t i : idx) v = ops::select(v, 0, i);
  return glia::item_double(v);
}

}  // namespace

TEST(Index, LargeCatMatchesInputs) {
  Tensor a = pattern({300, 70}), b = glia::transpose(pattern({50, 300}), 0, 1);
  Tensor out = ops::cat({a, b}, 1);
  ASSERT_EQ(out.shape(), (Dims{300, 120}));
  for (int64_t i : {0, 1, 150, 299})
    for (int64_t j : {0, 69, 70, 119}) EXPECT_EQ(at(out, {i, j}), j < 70 ? at(a, {i, j}) : at(b, {i, j - 70}));
}

TEST(Index, LargeIndexSelectGatherScatter) {
  Tensor x = pattern({400, 100});
  Tensor idx = glia::empty(Dims{400}, DType::Int64, glia::Device{});
  for (int64_t i = 0; i < 400; ++i) idx.data_ptr<int64_t>()[i] = (i * 13) % 400;
  Tensor sel = ops::index_select(x, 0, idx);
  Tensor idx1 = glia::empty(Dims{100}, DType::Int64, glia::Device{});
  for (int64_t i = 0; i < 100; ++i) idx1.data_ptr<int64_t>()[i] = (i * 13) % 100;
  Tensor sel1 = ops::index_select(x, 1, idx1);
  Tensor gidx = ops::expand(ops::unsqueeze(idx, 1), Dims{400, 100});
  Tensor gat = ops::gather(x, 0, glia::contiguous(gidx));
  for (int64_t i : {0, 1, 7, 399})
    for (int64_t j : {0, 50, 99}) {
      int64_t k = (i * 13) % 400;
      EXPECT_EQ(at(sel, {i, j}), at(x, {k, j}));
      EXPECT_EQ(at(gat, {i, j}), at(x, {k, j}));
      EXPECT_EQ(at(sel1, {i, j}), at(x, {i, (j * 13) % 100}));
    }
  // scatter_add of ones counts how often each row is hit: 13 is coprime to 400, so once.
  Tensor counts = ops::scatter(glia::zeros(Dims{400, 100}, DType::Float32, glia::Device{}), 0, glia::contiguous(gidx),
                               glia::ones(Dims{400, 100}, DType::Float32, glia::Device{}), true);
  EXPECT_EQ(glia::item_double(ops::sum(counts, {}, false)), 40000.0);
  EXPECT_EQ(at(counts, {5, 3}), 1.0);
}

TEST(Index, LargePadAndMaskedSelect) {
  Tensor x = pattern({4, 90, 100});
  Tensor p = ops::pad(x, Dims{2, 3, 1, 1}, glia::PadMode::Reflect, 0.0);
  ASSERT_EQ(p.shape(), (Dims{4, 92, 105}));
  EXPECT_EQ(at(p, {1, 0, 0}), at(x, {1, 1, 2}));
  EXPECT_EQ(at(p, {3, 91, 104}), at(x, {3, 88, 96}));
  EXPECT_EQ(at(p, {2, 40, 50}), at(x, {2, 39, 48}));
  Tensor c = ops::pad(x, Dims{2, 3, 1, 1}, glia::PadMode::Constant, 7.5);
  EXPECT_EQ(at(c, {0, 0, 5}), 7.5);
  EXPECT_EQ(at(c, {0, 5, 5}), at(x, {0, 4, 3}));
  Tensor g = ops::pad_backward(glia::ones(p.shape(), DType::Float32, glia::Device{}), x.shape(), Dims{2, 3, 1, 1},
                               glia::PadMode::Reflect);
  EXPECT_EQ(glia::item_double(ops::sum(g, {}, false)), static_cast<double>(p.numel()));
  Tensor mask = glia::empty(x.shape(), DType::Bool, glia::Device{});
  for (int64_t i = 0; i < mask.numel(); ++i) mask.data_ptr<bool>()[i] = i % 3 == 0;
  Tensor m = ops::masked_select(x, mask);
  ASSERT_EQ(m.numel(), (x.numel() + 2) / 3);
  // Element 11000 lies in the second parallel chunk (flat index 33000 > kGrain).
  EXPECT_EQ(glia::item_double(ops::select(m, 0, 11000)),
            glia::item_double(ops::select(ops::reshape(x, Dims{-1}), 0, 33000)));
  EXPECT_EQ(glia::item_double(ops::select(m, 0, 1000)),
            glia::item_double(ops::select(ops::reshape(x, Dims{-1}), 0, 3000)));
}

TEST(Index, SplitQueriesCountAndChecksCapacity) {
  Handles h;
  glia_tensor* x = make(h, {0, 1, 2, 3, 4}, {5});
  int64_t n = -1;
  GLIA_OK_(glia_chunk(x, 2, 0, nullptr, 0, &n));
  EXPECT_EQ(n, 2);
  glia_tensor* outs[1] = {nullptr};
  glia_error* e = glia_split(x, 2, 0, outs, 1, &n);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  glia_error_free(e);
  EXPECT_EQ(outs[0], nullptr);
  glia_tensor* three[3] = {};
  GLIA_OK_(glia_split(x, 2, 0, three, 3, &n));
  EXPECT_EQ(n, 3);
  for (glia_tensor* t : three) h.add(t);
  EXPECT_EQ(values(three[2]), std::vector<double>{4});
}

TEST(Index, GradFnNames) {
  Tensor x = pattern({3, 4}, DType::Float64);
  glia::set_requires_grad(x, true);
  Tensor i = glia::zeros(Dims{2}, DType::Int64, glia::Device{});
  EXPECT_STREQ(glia::grad_fn(glia::index_select(x, 0, i))->name(), "IndexSelectBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::cat({x, x}, 0))->name(), "CatBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::stack({x, x}, 0))->name(), "StackBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::split(x, 2, 1)[0])->name(), "SplitBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::pad(x, Dims{1, 1}))->name(), "ConstantPadNdBackward0");
  EXPECT_STREQ(glia::grad_fn(glia::pad(x, Dims{1, 1}, glia::PadMode::Reflect))->name(), "ReflectionPad1DBackward0");
}

TEST(Index, CApiArgumentChecks) {
  Handles h;
  glia_tensor* x = make(h, {0, 1, 2, 3, 4, 5}, {1, 2, 3});
  glia_tensor* out = nullptr;
  EXPECT_GLIA_ERR(glia_pad(x, nullptr, 2, GLIA_PAD_CONSTANT, 0.0, &out), GLIA_ERR_INVALID_ARGUMENT);
  int64_t p[2] = {1, 1};
  EXPECT_GLIA_ERR(glia_pad(x, p, 2, static_cast<glia_pad_mode>(7), 0.0, &out), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_pad(x, p, 2, GLIA_PAD_REFLECT, 0.0, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_cat(nullptr, 2, 0, &out), GLIA_ERR_INVALID_ARGUMENT);
  glia_tensor* ts[2] = {x, nullptr};
  EXPECT_GLIA_ERR(glia_cat(ts, 2, 0, &out), GLIA_ERR_INVALID_HANDLE);
  EXPECT_GLIA_ERR(glia_stack(ts, -1, 0, &out), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_split_with_sizes(x, nullptr, 2, 2, nullptr, 0, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  int64_t n = 0;
  EXPECT_GLIA_ERR(glia_chunk(x, 2, 2, nullptr, 3, &n), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_index_select(x, 0, nullptr, &out), GLIA_ERR_INVALID_HANDLE);
  EXPECT_EQ(out, nullptr);
  // Reflect padding of a float64 [1, 2, 3]: the first row [0, 1, 2] becomes [1, 0, 1, 2, 1].
  GLIA_OK_(glia_pad(x, p, 2, GLIA_PAD_REFLECT, 0.0, &out));
  h.add(out);
  EXPECT_EQ(values(out), (std::vector<double>{1, 0, 1, 2, 1, 4, 3, 4, 5, 4}));
}

TEST(Index, SplitGradientsFillMissingWithZeros) {
  Tensor x = pattern({5, 2}, DType::Float64);
  glia::set_requires_grad(x, true);
  std::vector<Tensor> parts = glia::chunk(x, 3, 0);  // sizes 2, 2, 1
  ASSERT_EQ(parts.size(), 3u);
  Tensor s = glia::sum(parts[1]);  // only the middle chunk takes part
  Handles h;
  glia_tensor* hs = h.add(glia::capi::tensor_handle(s));
  GLIA_OK_(glia_tensor_backward(hs, nullptr, 0));
  Tensor g = glia::autograd_meta(x).grad;
  ASSERT_TRUE(g.defined());
  EXPECT_EQ(glia::item_double(glia::sum(g)), 4.0);
  EXPECT_EQ(at(g, {0, 0}), 0.0);
  EXPECT_EQ(at(g, {2, 1}), 1.0);
  EXPECT_EQ(at(g, {4, 0}), 0.0);
}

TEST(Index, LargeScatterAddAlongInnerAndOuterDims) {
  // Row sums through scatter_add along dim 1 (every index 0) and column sums along dim 0.
  Tensor x = pattern({600, 80}, DType::Float64);
  Tensor zeros_idx = glia::zeros(Dims{600, 80}, DType::Int64, glia::Device{});
  Tensor rows = ops::scatter(glia::zeros(Dims{600, 1}, DType::Float64, glia::Device{}), 1, zeros_idx, x, true);
  Tensor cols = ops::scatter(glia::zeros(Dims{1, 80}, DType::Float64, glia::Device{}), 0, zeros_idx, x, true);
  Tensor want_rows = ops::sum(x, Dims{1}, true), want_cols = ops::sum(x, Dims{0}, true);
  for (int64_t i : {0, 1, 299, 599}) EXPECT_EQ(at(rows, {i, 0}), at(want_rows, {i, 0}));
  for (int64_t j : {0, 1, 40, 79}) EXPECT_EQ(at(cols, {0, j}), at(want_cols, {0, j}));
  // index_add_ (index_select's backward) along dim 0 with repeated rows.
  Tensor idx = glia::empty(Dims{600}, DType::Int64, glia::Device{});
  for (int64_t i = 0; i < 600; ++i) idx.data_ptr<int64_t>()[i] = i % 7;
  Tensor acc = glia::zeros(Dims{7, 80}, DType::Float64, glia::Device{});
  ops::index_add_(acc, 0, idx, x);
  double want = 0;
  for (int64_t i = 3; i < 600; i += 7) want += at(x, {i, 5});
  EXPECT_EQ(at(acc, {3, 5}), want);
}

TEST(Index, ScatterGradientToLargerSrc) {
  // src [2, 3] with index [2, 1]: only src[:, :1] is used; its gradient is zero elsewhere.
  Tensor self = pattern({2, 3}, DType::Float64), src = pattern({2, 3}, DType::Float64);
  glia::set_requires_grad(src, true);
  Tensor idx = glia::zeros(Dims{2, 1}, DType::Int64, glia::Device{});
  Tensor out = glia::scatter(self, 1, idx, src);
  Handles h;
  glia_tensor* s = h.add(glia::capi::tensor_handle(glia::sum(out)));
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  Tensor g = glia::autograd_meta(src).grad;
  ASSERT_TRUE(g.defined());
  ASSERT_EQ(g.shape(), (Dims{2, 3}));
  EXPECT_EQ(at(g, {0, 0}), 1.0);
  EXPECT_EQ(at(g, {1, 0}), 1.0);
  EXPECT_EQ(at(g, {0, 2}), 0.0);
  EXPECT_EQ(glia::item_double(glia::sum(g)), 2.0);
}
