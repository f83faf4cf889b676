// Reductions, softmax and matrix products on the test device
// (libglia_testdevice.so, Note [Test device memory]): every op gives exactly
// the CPU's result (same kernels), for contiguous and permuted inputs, with
// keepdim and several dims; their gradients come back across a copy; and
// torch's same-device rule holds for matrix products.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};
constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};

// One result as the host sees it: device, dtype, shape and bytes.
struct Result {
  glia_device device{};
  glia_dtype dtype{};
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
};

using UnaryOp = std::function<glia_error*(const glia_tensor*, glia_tensor**)>;
using BinaryOp = std::function<glia_error*(const glia_tensor*, const glia_tensor*, glia_tensor**)>;

class ReduceLinalgDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (glia_tensor* t : owned_) glia_tensor_release(t);
    owned_.clear();
  }
  glia_tensor* keep(glia_tensor* t) {
    owned_.push_back(t);
    return t;
  }
  glia_tensor* host(const std::vector<float>& v, std::vector<int64_t> shape) {
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  glia_tensor* to(const glia_tensor* t, glia_device d, glia_dtype dt = GLIA_FLOAT32) {
    glia_tensor* out = nullptr;
    glia_error* e = glia_tensor_to(t, &d, &dt, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  glia_tensor* transposed(const glia_tensor* t, int64_t d0, int64_t d1) {
    glia_tensor* out = nullptr;
    glia_error* e = glia_transpose(t, d0, d1, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  Result result(const glia_tensor* t) {
    Result r;
    int64_t nd = 0, n = 0;
    EXPECT_EQ(glia_tensor_device(t, &r.device), nullptr);
    EXPECT_EQ(glia_tensor_dtype(t, &r.dtype), nullptr);
    EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
    r.shape.resize(static_cast<size_t>(nd));
    EXPECT_EQ(glia_tensor_shape(t, nd, r.shape.data()), nullptr);
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    r.bytes.resize(static_cast<size_t>(n) * glia_dtype_size(r.dtype));
    glia_error* e = glia_tensor_copy_to_host(t, r.bytes.data(), r.bytes.size());
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return r;
  }
  // The device result must equal the CPU result bit for bit, and live on the device.
  void expect_same(const std::string& what, const glia_tensor* cpu, const glia_tensor* dev) {
    Result c = result(cpu), d = result(dev);
    EXPECT_EQ(c.device.type, GLIA_CPU) << what;
    EXPECT_EQ(d.device.type, GLIA_PRIVATEUSE1) << what;
    EXPECT_EQ(d.dtype, c.dtype) << what;
    EXPECT_EQ(d.shape, c.shape) << what;
    EXPECT_EQ(d.bytes, c.bytes) << what;
    EXPECT_FALSE(c.bytes.empty() && !c.shape.empty() && c.shape[0] != 0) << what;
  }
  void check_unary(const std::string& what, const glia_tensor* cpu_in, const glia_tensor* dev_in, const UnaryOp& op) {
    glia_tensor *c = nullptr, *d = nullptr;
    glia_error* e = op(cpu_in, &c);
    ASSERT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
    keep(c);
    e = op(dev_in, &d);
    ASSERT_EQ(e, nullptr) << what << " (device): " << glia_error_message(e);
    keep(d);
    expect_same(what, c, d);
  }
  void check_binary(const std::string& what, const glia_tensor* ca, const glia_tensor* cb, const glia_tensor* da,
                    const glia_tensor* db, const BinaryOp& op) {
    glia_tensor *c = nullptr, *d = nullptr;
    glia_error* e = op(ca, cb, &c);
    ASSERT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
    keep(c);
    e = op(da, db, &d);
    ASSERT_EQ(e, nullptr) << what << " (device): " << glia_error_message(e);
    keep(d);
    expect_same(what, c, d);
  }
  // Values of [n] with a spread of magnitudes, signs and ties (no NaN: NaN != NaN bytes are still equal).
  static std::vector<float> data(size_t n, float scale = 1.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(std::sin(0.7 * i + 0.3) * (1.0 + (i % 5)));
    if (n > 7) v[7] = v[3];  // a tie for max/argmax
    return v;
  }
  std::vector<glia_tensor*> owned_;
};

using Dims = std::vector<int64_t>;

// The reductions over several dim sets, keepdim both ways, contiguous and permuted inputs.
TEST_F(ReduceLinalgDevice, ReductionsMatchTheCpu) {
  glia_tensor* x = host(data(2 * 3 * 4), {2, 3, 4});
  glia_tensor* dx = to(x, kDev0);
  // Non-contiguous: x.transpose(0, 2) [4, 3, 2], the same view on both sides.
  glia_tensor* xt = transposed(x, 0, 2);
  glia_tensor* dxt = transposed(dx, 0, 2);
  const std::vector<Dims> dim_sets = {{}, {0}, {-1}, {0, 2}, {1, 2}, {2, 0, 1}};
  struct Case {
    const char* name;
    std::function<glia_error*(const glia_tensor*, const Dims&, int32_t, glia_tensor**)> op;
  };
  const std::vector<Case> cases = {
      {"sum", [](const glia_tensor* a, const Dims& d, int32_t k,
                 glia_tensor** o) { return glia_sum(a, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"mean", [](const glia_tensor* a, const Dims& d, int32_t k,
                  glia_tensor** o) { return glia_mean(a, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"prod", [](const glia_tensor* a, const Dims& d, int32_t k,
                  glia_tensor** o) { return glia_prod(a, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"amax", [](const glia_tensor* a, const Dims& d, int32_t k,
                  glia_tensor** o) { return glia_amax(a, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"amin", [](const glia_tensor* a, const Dims& d, int32_t k,
                  glia_tensor** o) { return glia_amin(a, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"var", [](const glia_tensor* a, const Dims& d, int32_t k,
                 glia_tensor** o) { return glia_var(a, d.data(), static_cast<int64_t>(d.size()), 1.0, k, o); }},
      {"std", [](const glia_tensor* a, const Dims& d, int32_t k,
                 glia_tensor** o) { return glia_std(a, d.data(), static_cast<int64_t>(d.size()), 0.0, k, o); }},
      {"logsumexp", [](const glia_tensor* a, const Dims& d, int32_t k,
                       glia_tensor** o) { return glia_logsumexp(a, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"norm2", [](const glia_tensor* a, const Dims& d, int32_t k,
                   glia_tensor** o) { return glia_norm(a, 2.0, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"norm1", [](const glia_tensor* a, const Dims& d, int32_t k,
                   glia_tensor** o) { return glia_norm(a, 1.0, d.data(), static_cast<int64_t>(d.size()), k, o); }},
      {"norm_inf",
       [](const glia_tensor* a, const Dims& d, int32_t k, glia_tensor** o) {
         return glia_norm(a, INFINITY, d.data(), static_cast<int64_t>(d.size()), k, o);
       }},
      {"norm3", [](const glia_tensor* a, const Dims& d, int32_t k,
                   glia_tensor** o) { return glia_norm(a, 3.0, d.data(), static_cast<int64_t>(d.size()), k, o); }},
  };
  for (const Case& c : cases)
    for (const Dims& dims : dim_sets)
      for (int32_t keepdim : {0, 1}) {
        std::string what = std::string(c.name) + " dims {";
        for (int64_t d : dims) what += std::to_string(d) + ",";
        what += "} keepdim " + std::to_string(keepdim);
        auto op = [&](const glia_tensor* a, glia_tensor** o) { return c.op(a, dims, keepdim, o); };
        check_unary(what, x, dx, op);
        check_unary(what + " (permuted)", xt, dxt, op);
      }
  // Integer inputs: sum and prod accumulate in int64.
  glia_tensor* xi = to(host({1, -2, 3, 4, 5, -6, 7, 8}, {2, 4}), kCpu, GLIA_INT32);
  glia_tensor* dxi = to(xi, kDev0, GLIA_INT32);
  for (const Dims& dims : std::vector<Dims>{{}, {1}, {0}}) {
    check_unary("sum int32", xi, dxi, [&](const glia_tensor* a, glia_tensor** o) {
      return glia_sum(a, dims.data(), static_cast<int64_t>(dims.size()), 0, o);
    });
    check_unary("prod int32", xi, dxi, [&](const glia_tensor* a, glia_tensor** o) {
      return glia_prod(a, dims.data(), static_cast<int64_t>(dims.size()), 1, o);
    });
    check_unary("logsumexp int32", xi, dxi, [&](const glia_tensor* a, glia_tensor** o) {
      return glia_logsumexp(a, dims.data(), static_cast<int64_t>(dims.size()), 0, o);
    });
  }
}

TEST_F(ReduceLinalgDevice, IndexReductionsMatchTheCpu) {
  glia_tensor* x = host(data(2 * 3 * 4), {2, 3, 4});
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* xt = transposed(x, 0, 2);
  glia_tensor* dxt = transposed(dx, 0, 2);
  for (int64_t dim : {0, 1, 2, -1})
    for (int32_t keepdim : {0, 1})
      for (int permuted : {0, 1}) {
        const glia_tensor* a = permuted ? xt : x;
        const glia_tensor* da = permuted ? dxt : dx;
        std::string what =
            "dim " + std::to_string(dim) + " keepdim " + std::to_string(keepdim) + (permuted ? " (permuted)" : "");
        for (int is_max : {0, 1}) {
          glia_tensor *cv = nullptr, *ci = nullptr, *dv = nullptr, *di = nullptr;
          auto f = is_max ? &glia_max : &glia_min;
          GLIA_OK_(f(a, dim, keepdim, &cv, &ci));
          keep(cv);
          keep(ci);
          GLIA_OK_(f(da, dim, keepdim, &dv, &di));
          keep(dv);
          keep(di);
          expect_same((is_max ? "max values " : "min values ") + what, cv, dv);
          expect_same((is_max ? "max indices " : "min indices ") + what, ci, di);
        }
        check_unary("argmax " + what, a, da,
                    [&](const glia_tensor* t, glia_tensor** o) { return glia_argmax(t, &dim, keepdim, o); });
        check_unary("argmin " + what, a, da,
                    [&](const glia_tensor* t, glia_tensor** o) { return glia_argmin(t, &dim, keepdim, o); });
      }
  check_unary("argmax flat", xt, dxt,
              [](const glia_tensor* t, glia_tensor** o) { return glia_argmax(t, nullptr, 0, o); });
  check_unary("argmin flat keepdim", xt, dxt,
              [](const glia_tensor* t, glia_tensor** o) { return glia_argmin(t, nullptr, 1, o); });
}

TEST_F(ReduceLinalgDevice, SoftmaxMatchesTheCpu) {
  glia_tensor* x = host(data(2 * 3 * 4, 3.0f), {2, 3, 4});
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* xt = transposed(x, 1, 2);
  glia_tensor* dxt = transposed(dx, 1, 2);
  glia_tensor* x64 = to(x, kCpu, GLIA_FLOAT64);
  glia_tensor* dx64 = to(x, kDev0, GLIA_FLOAT64);
  for (int64_t dim : {0, 1, 2, -1}) {
    std::string d = " dim " + std::to_string(dim);
    auto sm = [dim](const glia_tensor* t, glia_tensor** o) { return glia_softmax(t, dim, o); };
    auto lsm = [dim](const glia_tensor* t, glia_tensor** o) { return glia_log_softmax(t, dim, o); };
    check_unary("softmax" + d, x, dx, sm);
    check_unary("log_softmax" + d, x, dx, lsm);
    check_unary("softmax (permuted)" + d, xt, dxt, sm);
    check_unary("log_softmax (permuted)" + d, xt, dxt, lsm);
    check_unary("softmax float64" + d, x64, dx64, sm);
  }
}

TEST_F(ReduceLinalgDevice, MatrixProductsMatchTheCpu) {
  glia_tensor* a = host(data(3 * 4), {3, 4});
  glia_tensor* b = host(data(4 * 5, 0.5f), {4, 5});
  glia_tensor* bt_src = host(data(5 * 4, -0.25f), {5, 4});  // transposed: a non-contiguous [4, 5]
  glia_tensor* bias = host(data(5, 2.0f), {5});
  glia_tensor* bias2 = host(data(3 * 5, 2.0f), {3, 5});
  glia_tensor* v = host(data(4, 1.5f), {4});
  glia_tensor* w = host(data(4, -1.0f), {4});
  glia_tensor* ba = host(data(2 * 3 * 4), {2, 3, 4});
  glia_tensor* bb = host(data(2 * 4 * 5, 0.75f), {2, 4, 5});
  glia_tensor *da = to(a, kDev0), *db = to(b, kDev0), *dbias = to(bias, kDev0), *dbias2 = to(bias2, kDev0);
  glia_tensor *dv = to(v, kDev0), *dw = to(w, kDev0), *dba = to(ba, kDev0), *dbb = to(bb, kDev0);
  glia_tensor* bt = transposed(bt_src, 0, 1);
  glia_tensor* dbt = transposed(to(bt_src, kDev0), 0, 1);
  check_binary("mm", a, b, da, db, [](auto x, auto y, auto o) { return glia_mm(x, y, o); });
  check_binary("mm transposed", a, bt, da, dbt, [](auto x, auto y, auto o) { return glia_mm(x, y, o); });
  check_binary("bmm", ba, bb, dba, dbb, [](auto x, auto y, auto o) { return glia_bmm(x, y, o); });
  check_binary("matmul 2d", a, bt, da, dbt, [](auto x, auto y, auto o) { return glia_matmul(x, y, o); });
  check_binary("matmul dot", v, w, dv, dw, [](auto x, auto y, auto o) { return glia_matmul(x, y, o); });
  check_binary("matmul mv", a, v, da, dv, [](auto x, auto y, auto o) { return glia_matmul(x, y, o); });
  check_binary("matmul vm", v, b, dv, db, [](auto x, auto y, auto o) { return glia_matmul(x, y, o); });
  check_binary("matmul batched", ba, b, dba, db, [](auto x, auto y, auto o) { return glia_matmul(x, y, o); });
  check_binary("matmul broadcast", a, bb, da, dbb, [](auto x, auto y, auto o) { return glia_matmul(x, y, o); });
  for (glia_tensor* c : {bias, bias2}) {
    glia_tensor* dc = c == bias ? dbias : dbias2;
    glia_tensor *r1 = nullptr, *r2 = nullptr;
    GLIA_OK_(glia_addmm(c, a, b, 0.5, 2.0, &r1));
    keep(r1);
    GLIA_OK_(glia_addmm(dc, da, db, 0.5, 2.0, &r2));
    keep(r2);
    expect_same("addmm", r1, r2);
    GLIA_OK_(glia_addmm(c, a, bt, 1.0, -1.0, &r1));
    keep(r1);
    GLIA_OK_(glia_addmm(dc, da, dbt, 1.0, -1.0, &r2));
    keep(r2);
    expect_same("addmm transposed", r1, r2);
    GLIA_OK_(glia_addmm(c, a, b, 0.0, 1.0, &r1));
    keep(r1);
    GLIA_OK_(glia_addmm(dc, da, db, 0.0, 1.0, &r2));
    keep(r2);
    expect_same("addmm beta 0", r1, r2);
  }
  // linear: x [2, 3, 4] @ w^T with w [5, 4] and bias [5]; without bias.
  check_binary("linear", ba, bt_src, dba, to(bt_src, kDev0),
               [&](auto x, auto y, auto o) { return glia_linear(x, y, nullptr, o); });
  glia_tensor *l1 = nullptr, *l2 = nullptr;
  GLIA_OK_(glia_linear(ba, bt_src, bias, &l1));
  keep(l1);
  GLIA_OK_(glia_linear(dba, to(bt_src, kDev0), dbias, &l2));
  keep(l2);
  expect_same("linear with bias", l1, l2);
  // float64 and int64 go through the same kernels.
  glia_tensor *a64 = to(a, kCpu, GLIA_FLOAT64), *b64 = to(b, kCpu, GLIA_FLOAT64);
  check_binary("mm float64", a64, b64, to(a, kDev0, GLIA_FLOAT64), to(b, kDev0, GLIA_FLOAT64),
               [](auto x, auto y, auto o) { return glia_mm(x, y, o); });
  glia_tensor *ai = to(a, kCpu, GLIA_INT64), *bi = to(b, kCpu, GLIA_INT64);
  check_binary("mm int64", ai, bi, to(ai, kDev0, GLIA_INT64), to(bi, kDev0, GLIA_INT64),
               [](auto x, auto y, auto o) { return glia_mm(x, y, o); });
}

TEST_F(ReduceLinalgDevice, MatrixProductsAcrossDevicesFail) {
  glia_tensor* a = host(data(3 * 4), {3, 4});
  glia_tensor* b = host(data(4 * 5), {4, 5});
  glia_tensor* db = to(b, kDev0);
  glia_tensor* r = nullptr;
  EXPECT_GLIA_MSG(glia_matmul(a, db, &r), GLIA_ERR_DEVICE,
                  "Expected all tensors to be on the same device, but found at least two devices, cpu and "
                  "testdevice:0!");
  EXPECT_EQ(r, nullptr);
  EXPECT_GLIA_ERR(glia_mm(to(a, kDev0), b, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_bmm(host(data(24), {2, 3, 4}), to(host(data(40), {2, 4, 5}), kDev0), &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_matmul(host(data(4), {4}), to(host(data(4), {4}), kDev0), &r), GLIA_ERR_DEVICE);  // dot
  EXPECT_GLIA_ERR(glia_addmm(host(data(5), {5}), to(a, kDev0), db, 1, 1, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_linear(to(a, kDev0), host(data(20), {5, 4}), nullptr, &r), GLIA_ERR_DEVICE);
  EXPECT_EQ(r, nullptr);
  // torch's checks come with their messages on the device too.
  EXPECT_GLIA_MSG(glia_mm(to(a, kDev0), to(a, kDev0), &r), GLIA_ERR_SHAPE,
                  "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)");
  int64_t dim = 3;
  EXPECT_GLIA_MSG(glia_sum(db, &dim, 1, 0, &r), GLIA_ERR_INVALID_ARGUMENT,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 3)");
}

// Gradients of the converted ops, computed on the device and carried back to a CPU leaf, equal the CPU's.
TEST_F(ReduceLinalgDevice, GradientsMatchTheCpu) {
  const std::vector<float> xv = data(3 * 4);
  struct Case {
    const char* name;
    std::function<glia_error*(const glia_tensor*, glia_tensor**)> op;
  };
  glia_tensor* wc = host(data(4 * 5, 0.5f), {4, 5});
  glia_tensor* wd = to(wc, kDev0);
  const glia_tensor* w_for[2] = {wc, wd};
  int side = 0;  // 0: CPU, 1: device (selects the second operand of the products)
  const std::vector<Case> cases = {
      {"sum",
       [](const glia_tensor* a, glia_tensor** o) {
         int64_t d = 1;
         return glia_sum(a, &d, 1, 1, o);
       }},
      {"mean",
       [](const glia_tensor* a, glia_tensor** o) {
         int64_t d = 0;
         return glia_mean(a, &d, 1, 0, o);
       }},
      {"amax",
       [](const glia_tensor* a, glia_tensor** o) {
         int64_t d = 1;
         return glia_amax(a, &d, 1, 0, o);
       }},
      {"max",
       [](const glia_tensor* a, glia_tensor** o) {
         glia_tensor* idx = nullptr;
         glia_error* e = glia_max(a, 1, 0, o, &idx);
         if (!e) glia_tensor_release(idx);
         return e;
       }},
      {"prod",
       [](const glia_tensor* a, glia_tensor** o) {
         int64_t d = 1;
         return glia_prod(a, &d, 1, 0, o);
       }},
      {"norm",
       [](const glia_tensor* a, glia_tensor** o) {
         int64_t d = 1;
         return glia_norm(a, 2.0, &d, 1, 0, o);
       }},
      {"softmax", [](const glia_tensor* a, glia_tensor** o) { return glia_softmax(a, 1, o); }},
      {"log_softmax", [](const glia_tensor* a, glia_tensor** o) { return glia_log_softmax(a, 0, o); }},
      {"mm", [&](const glia_tensor* a, glia_tensor** o) { return glia_mm(a, w_for[side], o); }},
  };
  for (const Case& c : cases) {
    std::vector<unsigned char> grads[2];
    for (side = 0; side < 2; ++side) {
      glia_tensor* x = host(xv, {3, 4});
      GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
      const glia_tensor* in = side ? to(x, kDev0) : x;
      glia_tensor* y = nullptr;
      glia_error* e = c.op(in, &y);
      ASSERT_EQ(e, nullptr) << c.name << ": " << glia_error_message(e);
      keep(y);
      // Weight the outputs so that every gradient entry differs: loss = sum(y * y).
      glia_tensor *yy = nullptr, *loss = nullptr;
      GLIA_OK_(glia_mul(y, y, &yy));
      keep(yy);
      GLIA_OK_(glia_sum(yy, nullptr, 0, 0, &loss));
      keep(loss);
      e = glia_tensor_backward(loss, nullptr, 0);
      ASSERT_EQ(e, nullptr) << c.name << (side ? " (device)" : "") << ": " << glia_error_message(e);
      glia_tensor* g = nullptr;
      GLIA_OK_(glia_tensor_grad(x, &g));
      ASSERT_NE(g, nullptr) << c.name;
      keep(g);
      Result r = result(g);
      EXPECT_EQ(r.device.type, GLIA_CPU) << c.name;
      grads[side] = r.bytes;
    }
    EXPECT_EQ(grads[1], grads[0]) << c.name;
  }
}

}  // namespace
