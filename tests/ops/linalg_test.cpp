// matmul, mm, bmm, addmm, linear against tests/golden/gen_linalg.py's fixtures.
#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(matmul) { return glia_matmul(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(mm) { return glia_mm(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(bmm) { return glia_bmm(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(addmm) { return glia_addmm(c.in[0], c.in[1], c.in[2], c.num("beta", 1.0), c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(linear) { return glia_linear(c.in[0], c.in[1], c.in[2], c.out()); }

TEST(Linalg, Golden) { run_cases("linalg.json"); }
TEST(Linalg, Errors) { run_errors("linalg.json"); }

// ---- strides that BLAS reads in place (transposes, leading dimensions), ones it cannot (copied),
// and the dtype paths, against the same product of contiguous copies.
#include "autograd/functions.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"
#include "ops/shape.h"

namespace {

using glia::Dims;
using glia::DType;
using glia::Tensor;

void expect_same(const Tensor& got, const Tensor& want, double tol) {
  ASSERT_EQ(Dims(got.shape()), Dims(want.shape()));
  Tensor g = glia::contiguous(glia::to_dtype(got, DType::Float64));
  Tensor w = glia::contiguous(glia::to_dtype(want, DType::Float64));
  const double* gp = g.data_ptr<double>();
  const double* wp = w.data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) ASSERT_NEAR(gp[i], wp[i], tol * (1 + std::abs(wp[i]))) << "element " << i;
}

Tensor strided_cols(const Tensor& base, int64_t step) {
  // Every step-th column of a contiguous [r, c] matrix.
  Dims shape{base.size(0), (base.size(1) + step - 1) / step}, strides{base.size(1), step};
  return glia::make_view(base, shape, strides, base.offset());
}

}  // namespace

TEST(Linalg, StridedOperands) {
  for (DType t : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int64}) {
    SCOPED_TRACE(glia::dtype_name(t));
    double tol = t == DType::BFloat16 ? 1e-2 : t == DType::Float32 ? 1e-5 : 1e-12;
    auto rnd = [&](Dims s) {
      Tensor r = glia::randn(s, DType::Float64, glia::Device{});
      if (t == DType::Int64) r = glia::ops::mul(r, glia::full({}, 4.0, DType::Float64, glia::Device{}));
      return glia::to_dtype(r, t);
    };
    Tensor base = rnd({6, 9});
    Tensor a = strided_cols(base, 2);  // [6, 5], strides [9, 2]: copied
    Tensor b = rnd({5, 7});
    expect_same(glia::ops::mm(a, b), glia::ops::mm(glia::contiguous(a), b), tol);
    // Leading dimension larger than the row (a column slice): BLAS reads it in place.
    Tensor lda = glia::make_view(base, Dims{6, 5}, Dims{9, 1}, base.offset() + 2);
    expect_same(glia::ops::mm(lda, b), glia::ops::mm(glia::contiguous(lda), b), tol);
    // Transposed with a leading dimension, and stride-0 (expanded) operands.
    Tensor bt = glia::ops::transpose(rnd({7, 5}), 0, 1);
    expect_same(glia::ops::mm(lda, bt), glia::ops::mm(lda, glia::contiguous(bt)), tol);
    Tensor row = glia::ops::expand(glia::ops::view(rnd({5}), Dims{1, 5}), Dims{4, 5});
    Tensor col = glia::ops::expand(glia::ops::view(rnd({5}), Dims{5, 1}), Dims{5, 3});
    expect_same(glia::ops::mm(row, col), glia::ops::mm(glia::contiguous(row), glia::contiguous(col)), tol);
    // Batched with a stride-0 batch dim and transposed matrices.
    Tensor b3 = glia::ops::expand(glia::ops::view(rnd({7, 5}), Dims{1, 7, 5}), Dims{3, 7, 5});
    Tensor b3t = glia::ops::transpose(b3, 1, 2);
    Tensor a3 = rnd({3, 4, 7});
    expect_same(glia::ops::bmm(a3, b3), glia::ops::bmm(a3, glia::contiguous(b3)), tol);
    expect_same(glia::ops::bmm(glia::ops::transpose(b3t, 1, 2), b3t),
                glia::ops::bmm(glia::contiguous(b3), glia::contiguous(b3t)), tol);
  }
}

// Large products split across the pool agree with one thread.
TEST(Linalg, ParallelMatchesSerial) {
  Tensor a = glia::randn(Dims{130, 90}, DType::Float64, glia::Device{}),
         b = glia::randn(Dims{90, 70}, DType::Float64, glia::Device{});
  Tensor at = glia::ops::transpose(glia::randn(Dims{90, 130}, DType::Float64, glia::Device{}), 0, 1);
  Tensor a3 = glia::randn(Dims{6, 40, 50}, DType::Float64, glia::Device{}),
         b3 = glia::randn(Dims{6, 50, 60}, DType::Float64, glia::Device{});
  ASSERT_EQ(glia_set_num_threads(1), nullptr);
  Tensor r1 = glia::ops::mm(a, b), r2 = glia::ops::mm(at, b), r3 = glia::ops::bmm(a3, b3);
  Tensor r4 = glia::ops::mm(glia::ops::transpose(b, 0, 1), glia::ops::transpose(a, 0, 1));
  ASSERT_EQ(glia_set_num_threads(2), nullptr);
  expect_same(glia::ops::mm(a, b), r1, 1e-12);
  expect_same(glia::ops::mm(at, b), r2, 1e-12);
  expect_same(glia::ops::bmm(a3, b3), r3, 1e-12);
  expect_same(glia::ops::mm(glia::ops::transpose(b, 0, 1), glia::ops::transpose(a, 0, 1)), r4, 1e-12);
}

// Batched products with an empty inner dimension are zeros, for every dtype path: the operands have
// no data (a NULL pointer) and no offset may be applied to it (UB the autograd fuzzer found,
// tests/fuzz/corpus/autograd/regress-bmm-empty; the asan stage's UBSan checks it).
TEST(Linalg, EmptyInnerDimension) {
  for (DType t : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int64}) {
    SCOPED_TRACE(glia::dtype_name(t));
    Tensor a = glia::empty(Dims{3, 2, 0}, t, glia::Device{});
    Tensor b = glia::empty(Dims{3, 0, 4}, t, glia::Device{});
    Tensor out = glia::ops::bmm(a, b);
    expect_same(out, glia::zeros(Dims{3, 2, 4}, t, glia::Device{}), 0);
    expect_same(glia::ops::mm(glia::empty(Dims{2, 0}, t, glia::Device{}), glia::empty(Dims{0, 4}, t, glia::Device{})),
                glia::zeros(Dims{2, 4}, t, glia::Device{}), 0);
  }
}

// A batch of 2^40 products with no output elements is nothing to compute: it returns at once
// (the C-API fuzzer's matmul of two [2^20, 2^20, 0, 0] tensors looped 2^40 times;
// tests/fuzz/corpus/capi/regress-matmul-empty-batch). Without the fix this test runs into ctest's
// timeout.
TEST(Linalg, EmptyProductsOfAHugeBatchReturnAtOnce) {
  for (DType t : {DType::Float32, DType::BFloat16, DType::Int64}) {
    SCOPED_TRACE(glia::dtype_name(t));
    Tensor a = glia::empty(Dims{int64_t{1} << 40, 0, 5}, t, glia::Device{});
    Tensor b = glia::empty(Dims{int64_t{1} << 40, 5, 0}, t, glia::Device{});
    Tensor out = glia::ops::bmm(a, b);
    EXPECT_EQ(out.shape(), (Dims{int64_t{1} << 40, 0, 0}));
    Tensor c = glia::empty(Dims{int64_t{1} << 20, int64_t{1} << 20, 0, 0}, t, glia::Device{});
    EXPECT_EQ(glia::matmul(c, c).shape(), (Dims{int64_t{1} << 20, int64_t{1} << 20, 0, 0}));
  }
}
