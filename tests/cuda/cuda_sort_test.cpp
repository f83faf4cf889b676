// The sorting, searching and layout kernels of the CUDA backend (cuda/sort.cu, search.cu, layout_extra.cu)
// through the C API, on cuda:0 against the CPU (skipped without a device): what the small golden cases do not
// reach. Rows long enough for several blocks, one long row (CUB's single radix sort) and many rows (its
// segmented sort), values drawn from a few so that ties are everywhere, NaNs and signed zeros, the 16-bit
// floats and the integers; the outputs must be the CPU's byte for byte (values and indices: the GPU sorts
// stably, ties in index order, as the CPU's kernels order them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCuda{GLIA_CUDA, 0};
constexpr glia_device kCpu{GLIA_CPU, 0};

class CudaSort : public ::testing::Test {
 protected:
  void SetUp() override {
    if (glia_cuda_device_count() == 0) GTEST_SKIP() << "skipped: no CUDA device";
  }
  void TearDown() override {
    for (glia_tensor* t : owned_) glia_tensor_release(t);
  }
  glia_tensor* keep(glia_tensor* t) {
    if (t) owned_.push_back(t);
    return t;
  }
  // n values from a pool of `distinct` (NaN, -0.0, +0.0, infinities among them), as float64 on the host, then
  // the same tensor of dtype d on the CPU (cpu) and on cuda:0 (gpu).
  void make(std::vector<int64_t> shape, glia_dtype d, int distinct, uint32_t seed, glia_tensor** cpu,
            glia_tensor** gpu) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    const bool floating = d == GLIA_FLOAT32 || d == GLIA_FLOAT64 || d == GLIA_FLOAT16 || d == GLIA_BFLOAT16;
    std::vector<double> pool = {0.0, 1.0, -1.0, 2.5, -3.0, 7.0, 100.0, -100.0};
    if (floating) {
      pool.insert(pool.begin(), {std::nan(""), -0.0, std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()});
    }
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> pick(0, std::min<int>(distinct, static_cast<int>(pool.size())) - 1);
    std::uniform_real_distribution<double> any(-50, 50);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = distinct > 0 ? pool[static_cast<size_t>(pick(rng))] : std::round(any(rng) * 8) / 8;
    glia_tensor* h = nullptr;
    GLIA_OK_(glia_tensor_from_data(v.data(), v.size() * sizeof(double), shape.data(),
                                   static_cast<int64_t>(shape.size()), GLIA_FLOAT64, &h));
    keep(h);
    GLIA_OK_(glia_tensor_to(h, &kCpu, &d, cpu));
    keep(*cpu);
    GLIA_OK_(glia_tensor_to(h, &kCuda, &d, gpu));
    keep(*gpu);
  }
  // The bytes of t, on the host, in t's dtype.
  std::vector<uint8_t> bytes(const glia_tensor* t) {
    glia_dtype d;
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_dtype(t, &d), nullptr);
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    glia_tensor* h = nullptr;
    EXPECT_EQ(glia_tensor_to(t, &kCpu, &d, &h), nullptr);
    keep(h);
    std::vector<uint8_t> b(static_cast<size_t>(n) * glia_dtype_size(d));
    if (h) {
      EXPECT_EQ(glia_tensor_copy_to_host(h, b.data(), b.size()), nullptr);
    }
    return b;
  }
  // f on the CPU input and on the GPU input: every output the same bytes.
  void same(const char* what, glia_tensor* cpu, glia_tensor* gpu,
            const std::function<glia_error*(glia_tensor*, glia_tensor**, glia_tensor**)>& f) {
    glia_tensor *c0 = nullptr, *c1 = nullptr, *g0 = nullptr, *g1 = nullptr;
    glia_error* e = f(cpu, &c0, &c1);
    ASSERT_EQ(e, nullptr) << what << " (cpu): " << glia_error_message(e);
    e = f(gpu, &g0, &g1);
    ASSERT_EQ(e, nullptr) << what << " (cuda): " << glia_error_message(e);
    keep(c0), keep(c1), keep(g0), keep(g1);
    EXPECT_TRUE(bytes(c0) == bytes(g0)) << what << ": first output differs";
    if (c1) {
      EXPECT_TRUE(bytes(c1) == bytes(g1)) << what << ": second output differs";
    }
  }
  std::vector<glia_tensor*> owned_;
};

TEST_F(CudaSort, SelectionsAreTheCpusByteForByte) {
  struct Shape {
    std::vector<int64_t> s;
  };
  // One long row (DeviceRadixSort), many rows (DeviceSegmentedRadixSort), short rows, a 3-D tensor sorted
  // along its middle dim.
  const std::vector<Shape> shapes = {{{1, 70001}}, {{300, 1000}}, {{4000, 5}}, {{6, 257, 3}}};
  const glia_dtype dtypes[] = {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_BFLOAT16, GLIA_FLOAT16,
                               GLIA_INT64,   GLIA_INT32,   GLIA_INT8,     GLIA_UINT8};
  uint32_t seed = 1;
  for (const Shape& sh : shapes)
    for (glia_dtype d : dtypes)
      for (int distinct : {3, 12, 0}) {
        SCOPED_TRACE(testing::Message() << "shape " << sh.s.size() << "-D of " << sh.s[0] << " x " << sh.s[1]
                                        << ", dtype " << d << ", distinct " << distinct);
        glia_tensor *c = nullptr, *g = nullptr;
        make(sh.s, d, distinct, seed++, &c, &g);
        ASSERT_TRUE(c && g);
        const int64_t dim = sh.s.size() == 3 ? 1 : -1;
        const int64_t n = sh.s[static_cast<size_t>(sh.s.size() == 3 ? 1 : sh.s.size() - 1)];
        for (int desc : {0, 1})
          same("sort", c, g,
               [&](glia_tensor* x, glia_tensor** a, glia_tensor** b) { return glia_sort(x, dim, desc, 1, a, b); });
        for (int largest : {0, 1})
          same("topk", c, g, [&](glia_tensor* x, glia_tensor** a, glia_tensor** b) {
            return glia_topk(x, std::min<int64_t>(n, 17), dim, largest, 1, a, b);
          });
        same("kthvalue", c, g, [&](glia_tensor* x, glia_tensor** a, glia_tensor** b) {
          return glia_kthvalue(x, (n + 2) / 3, dim, 0, a, b);
        });
        same("median", c, g,
             [&](glia_tensor* x, glia_tensor** a, glia_tensor** b) { return glia_median_dim(x, dim, 1, a, b); });
        same("nanmedian", c, g,
             [&](glia_tensor* x, glia_tensor** a, glia_tensor** b) { return glia_nanmedian_dim(x, dim, 0, a, b); });
        same("mode", c, g,
             [&](glia_tensor* x, glia_tensor** a, glia_tensor** b) { return glia_mode(x, dim, 0, a, b); });
        same("unique_consecutive", c, g, [&](glia_tensor* x, glia_tensor** a, glia_tensor** b) {
          return glia_unique_consecutive(x, nullptr, a, b, nullptr);
        });
        same("flip", c, g, [&](glia_tensor* x, glia_tensor** a, glia_tensor**) {
          const int64_t dims[] = {0, -1};
          return glia_flip(x, dims, 2, a);
        });
        same("tril", c, g, [&](glia_tensor* x, glia_tensor** a, glia_tensor**) {
          glia_tensor* t = nullptr;  // a transposed view: tril reads any strides
          if (glia_error* e = glia_transpose(x, 0, -1, &t)) return e;
          keep(t);
          return glia_tril(t, -1, a);
        });
      }
}

TEST_F(CudaSort, SearchesAndCountsAreTheCpus) {
  for (glia_dtype d : {GLIA_FLOAT32, GLIA_FLOAT64}) {
    glia_tensor *c = nullptr, *g = nullptr;
    make({200000}, d, 0, 99, &c, &g);
    ASSERT_TRUE(c && g);
    same("histc", c, g, [&](glia_tensor* x, glia_tensor** a, glia_tensor**) { return glia_histc(x, 37, -40, 45, a); });
    glia_tensor *sc = nullptr, *sg = nullptr, *ic = nullptr, *ig = nullptr;
    GLIA_OK_(glia_sort(c, 0, 0, 1, &sc, &ic));
    GLIA_OK_(glia_sort(g, 0, 0, 1, &sg, &ig));
    keep(sc), keep(sg), keep(ic), keep(ig);
    glia_tensor *vc = nullptr, *vg = nullptr;
    make({3000}, d, 12, 5, &vc, &vg);
    ASSERT_TRUE(vc && vg);
    for (int right : {0, 1}) {
      glia_tensor *oc = nullptr, *og = nullptr;
      GLIA_OK_(glia_searchsorted(sc, vc, 0, right, nullptr, nullptr, &oc));
      GLIA_OK_(glia_searchsorted(sg, vg, 0, right, nullptr, nullptr, &og));
      keep(oc), keep(og);
      EXPECT_TRUE(bytes(oc) == bytes(og)) << "searchsorted right " << right;
    }
    glia_tensor *mc = nullptr, *mg = nullptr;
    GLIA_OK_(glia_isin(vc, c, 0, 0, &mc));
    GLIA_OK_(glia_isin(vg, g, 0, 0, &mg));
    keep(mc), keep(mg);
    EXPECT_TRUE(bytes(mc) == bytes(mg)) << "isin";
    glia_tensor *uc = nullptr, *ug = nullptr, *uic = nullptr, *uig = nullptr, *ucc = nullptr, *ucg = nullptr;
    GLIA_OK_(glia_unique(vc, 1, nullptr, &uc, &uic, &ucc));
    GLIA_OK_(glia_unique(vg, 1, nullptr, &ug, &uig, &ucg));
    keep(uc), keep(ug), keep(uic), keep(uig), keep(ucc), keep(ucg);
    EXPECT_TRUE(bytes(uc) == bytes(ug)) << "unique";
    EXPECT_TRUE(bytes(uic) == bytes(uig)) << "unique inverse";
    EXPECT_TRUE(bytes(ucc) == bytes(ucg)) << "unique counts";
  }
}

}  // namespace
