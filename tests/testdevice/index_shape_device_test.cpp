// Indexing, joining, padding and embedding on the test device
// (libglia_testdevice.so, Note [Test device memory]): every op gives exactly
// the CPU's result (the same kernels), for contiguous and transposed inputs;
// index checks keep torch's CPU messages when the kernel finds the bad index
// on the device; the gradients of the view ops (slice, select, narrow, split,
// chunk), of the index ops, of pad, logsumexp and std come back across a copy
// equal to the CPU's; mixed devices are refused; and an nn.Embedding module
// moved to the device trains as on the CPU.
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

using Dims = std::vector<int64_t>;
using Args = std::vector<const glia_tensor*>;
using Op = std::function<glia_error*(const Args&, glia_tensor**)>;

// One result as the host sees it: device, dtype, shape and bytes.
struct Result {
  glia_device device{};
  glia_dtype dtype{};
  Dims shape;
  std::vector<unsigned char> bytes;
};

class IndexShapeDevice : public ::testing::Test {
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
  glia_tensor* host(const std::vector<float>& v, Dims shape) {
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  glia_tensor* host_i64(const std::vector<int64_t>& v, Dims shape) {
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(int64_t), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_INT64, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  glia_tensor* host_bool(const std::vector<unsigned char>& v, Dims shape) {
    glia_tensor* t = nullptr;
    glia_error* e =
        glia_tensor_from_data(v.data(), v.size(), shape.data(), static_cast<int64_t>(shape.size()), GLIA_BOOL, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  glia_tensor* to(const glia_tensor* t, glia_device d, glia_dtype dt) {
    glia_tensor* out = nullptr;
    glia_error* e = glia_tensor_to(t, &d, &dt, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  glia_tensor* to(const glia_tensor* t, glia_device d) {
    glia_dtype dt{};
    EXPECT_EQ(glia_tensor_dtype(t, &dt), nullptr);
    return to(t, d, dt);
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
  }
  // Runs op on the CPU operands and on their device copies (the same views taken there).
  void check(const std::string& what, const Args& cpu, const Args& dev, const Op& op) {
    glia_tensor *c = nullptr, *d = nullptr;
    glia_error* e = op(cpu, &c);
    ASSERT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
    keep(c);
    e = op(dev, &d);
    ASSERT_EQ(e, nullptr) << what << " (device): " << glia_error_message(e);
    keep(d);
    expect_same(what, c, d);
  }
  // Both runs fail with the same code and message (the device's kernel finds the bad index).
  void check_error(const std::string& what, const Args& cpu, const Args& dev, const Op& op) {
    glia_tensor *c = nullptr, *d = nullptr;
    glia_test::ErrorInfo ec = glia_test::take(op(cpu, &c));
    glia_test::ErrorInfo ed = glia_test::take(op(dev, &d));
    EXPECT_EQ(c, nullptr) << what;
    EXPECT_EQ(d, nullptr) << what;
    EXPECT_NE(ec.code, GLIA_OK) << what;
    EXPECT_EQ(ed.code, ec.code) << what << ": " << ed.message;
    EXPECT_EQ(ed.message, ec.message) << what;
  }
  static std::vector<float> data(size_t n, float scale = 1.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(std::sin(0.7 * i + 0.3) * (1.0 + (i % 5)));
    return v;
  }
  std::vector<glia_tensor*> owned_;
};

TEST_F(IndexShapeDevice, IndexOpsMatchTheCpu) {
  glia_tensor* x = host(data(3 * 4 * 5), {3, 4, 5});
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* xt = transposed(x, 0, 2);  // [5, 4, 3], not contiguous
  glia_tensor* dxt = transposed(dx, 0, 2);
  glia_tensor* idx = host_i64({2, 0, 2, 1}, {4});
  glia_tensor* idx32 = to(idx, kCpu, GLIA_INT32);
  glia_tensor* idx0 = host_i64({1}, {});
  for (int64_t dim : {0, 1, 2, -1})
    for (glia_tensor* i : {idx, idx32, idx0}) {
      const std::string what = "index_select dim " + std::to_string(dim);
      auto op = [dim](const Args& a, glia_tensor** o) { return glia_index_select(a[0], dim, a[1], o); };
      check(what, {x, i}, {dx, to(i, kDev0)}, op);
      check(what + " (transposed)", {xt, i}, {dxt, to(i, kDev0)}, op);
    }

  // gather / scatter along each dim with an index of [2, 3, 4] (values below that dim's size in x).
  for (int64_t dim : {0, 1, 2}) {
    const int64_t size = dim == 0 ? 3 : dim == 1 ? 4 : 5;
    std::vector<int64_t> iv(2 * 3 * 4);
    for (size_t k = 0; k < iv.size(); ++k) iv[k] = static_cast<int64_t>((k * 7 + 3) % static_cast<size_t>(size));
    glia_tensor* index = host_i64(iv, {2, 3, 4});
    glia_tensor* dindex = to(index, kDev0);
    glia_tensor* src = host(data(2 * 3 * 4, -2.0f), {2, 3, 4});
    glia_tensor* dsrc = to(src, kDev0);
    const std::string d = " dim " + std::to_string(dim);
    check("gather" + d, {x, index}, {dx, dindex},
          [dim](const Args& a, glia_tensor** o) { return glia_gather(a[0], dim, a[1], o); });
    check("scatter" + d, {x, index, src}, {dx, dindex, dsrc},
          [dim](const Args& a, glia_tensor** o) { return glia_scatter(a[0], dim, a[1], a[2], o); });
    check("scatter_add" + d, {x, index, src}, {dx, dindex, dsrc},
          [dim](const Args& a, glia_tensor** o) { return glia_scatter_add(a[0], dim, a[1], a[2], o); });
    check("scatter_value" + d, {x, index}, {dx, dindex}, [dim](const Args& a, glia_tensor** o) {
      return glia_scatter_value(a[0], dim, a[1], glia_scalar_float(-7.25), o);
    });
    check("scatter_value int" + d, {to(x, kCpu, GLIA_INT64), index}, {to(x, kDev0, GLIA_INT64), dindex},
          [dim](const Args& a, glia_tensor** o) {
            return glia_scatter_value(a[0], dim, a[1], glia_scalar_int(int64_t{1} << 53 | 1), o);
          });
  }

  // masked_select: a broadcast mask, a transposed input, and one large enough for several chunks.
  std::vector<unsigned char> mv(4 * 5);
  for (size_t k = 0; k < mv.size(); ++k) mv[k] = (k * 3) % 7 < 3;
  glia_tensor* mask = host_bool(mv, {4, 5});
  auto ms = [](const Args& a, glia_tensor** o) { return glia_masked_select(a[0], a[1], o); };
  check("masked_select broadcast", {x, mask}, {dx, to(mask, kDev0)}, ms);
  glia_tensor* mask_t = host_bool(mv, {5, 4});
  check("masked_select transposed mask", {x, transposed(mask_t, 0, 1)}, {dx, transposed(to(mask_t, kDev0), 0, 1)}, ms);
  glia_tensor* mask43 = host_bool(std::vector<unsigned char>(mv.begin(), mv.begin() + 12), {4, 3});
  check("masked_select transposed input", {xt, mask43}, {dxt, to(mask43, kDev0)}, ms);
  check("masked_select none", {x, host_bool(std::vector<unsigned char>(20, 0), {4, 5})},
        {dx, to(host_bool(std::vector<unsigned char>(20, 0), {4, 5}), kDev0)}, ms);
  const size_t big = 3 * 40000 + 17;
  std::vector<unsigned char> bm(big);
  for (size_t k = 0; k < big; ++k) bm[k] = (k * 2654435761u) % 5 < 2;
  glia_tensor* xb = host(data(big), {static_cast<int64_t>(big)});
  glia_tensor* mb = host_bool(bm, {static_cast<int64_t>(big)});
  check("masked_select several chunks", {xb, mb}, {to(xb, kDev0), to(mb, kDev0)}, ms);

  // cat with promotion (a float64 part), a transposed part and a legacy empty tensor; stack.
  glia_tensor* y = host(data(3 * 2 * 5, 0.5f), {3, 2, 5});
  glia_tensor* y64 = to(y, kCpu, GLIA_FLOAT64);
  glia_tensor* yt = transposed(host(data(3 * 2 * 5, 0.25f), {3, 5, 2}), 1, 2);
  glia_tensor* e0 = host({}, {0});
  auto cat1 = [](const Args& a, glia_tensor** o) { return glia_cat(a.data(), static_cast<int64_t>(a.size()), 1, o); };
  check("cat", {x, y, yt}, {dx, to(y, kDev0), transposed(to(host(data(30, 0.25f), {3, 5, 2}), kDev0), 1, 2)}, cat1);
  check("cat promoted", {x, y64, e0}, {dx, to(y64, kDev0), to(e0, kDev0)}, cat1);
  for (int64_t dim : {0, 2, -1})
    check("stack dim " + std::to_string(dim), {x, x, x}, {dx, dx, dx}, [dim](const Args& a, glia_tensor** o) {
      return glia_stack(a.data(), static_cast<int64_t>(a.size()), dim, o);
    });
}

TEST_F(IndexShapeDevice, PadMatchesTheCpu) {
  glia_tensor* x = host(data(2 * 3 * 4 * 5), {2, 3, 4, 5});
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* xt = transposed(x, 2, 3);
  glia_tensor* dxt = transposed(dx, 2, 3);
  struct Case {
    const char* name;
    Dims pad;
    glia_pad_mode mode;
    double value;
  };
  const std::vector<Case> cases = {
      {"constant", {1, 2, 0, 3}, GLIA_PAD_CONSTANT, 1.5},
      {"constant crop", {-1, 2, 1, -2}, GLIA_PAD_CONSTANT, -3},
      {"constant 3 dims", {1, 1, 0, 2, 1, 0}, GLIA_PAD_CONSTANT, 0},
      {"reflect 1d", {2, 3}, GLIA_PAD_REFLECT, 0},
      {"reflect 2d", {3, 1, 2, 2}, GLIA_PAD_REFLECT, 0},
      {"replicate 1d", {4, 1}, GLIA_PAD_REPLICATE, 0},
      {"replicate 2d", {1, 3, 2, 0}, GLIA_PAD_REPLICATE, 0},
      {"circular 2d", {2, 1, 3, 1}, GLIA_PAD_CIRCULAR, 0},
      {"circular crop", {-1, 2, 1, -2}, GLIA_PAD_CIRCULAR, 0},
  };
  for (const Case& c : cases) {
    // 1-d reflect / replicate pad 3-D inputs: the same data as [6, 4, 5].
    const bool one_d = c.pad.size() == 2;
    glia_tensor *a = x, *da = dx, *at = xt, *dat = dxt;
    if (one_d) {
      const Dims s = {6, 4, 5};
      GLIA_OK_(glia_reshape(x, s.data(), 3, &a));
      keep(a);
      GLIA_OK_(glia_reshape(dx, s.data(), 3, &da));
      keep(da);
      at = transposed(a, 1, 2);
      dat = transposed(da, 1, 2);
    }
    auto op = [&c](const Args& t, glia_tensor** o) {
      return glia_pad(t[0], c.pad.data(), static_cast<int64_t>(c.pad.size()), c.mode, c.value, o);
    };
    check(std::string("pad ") + c.name, {a}, {da}, op);
    check(std::string("pad ") + c.name + " (transposed)", {at}, {dat}, op);
  }
  // Circular padding copies integers too.
  glia_tensor* xi = to(x, kCpu, GLIA_INT32);
  const Dims p = {1, 2, 2, 1};
  check("pad circular int32", {xi}, {to(xi, kDev0)},
        [&p](const Args& t, glia_tensor** o) { return glia_pad(t[0], p.data(), 4, GLIA_PAD_CIRCULAR, 0, o); });
}

TEST_F(IndexShapeDevice, EmbeddingMatchesTheCpu) {
  const std::vector<float> wv = data(6 * 4, 2.0f);
  glia_tensor* idx = host_i64({5, 0, 2, 2, 1, 5}, {2, 3});
  for (glia_tensor* i : {idx, to(idx, kCpu, GLIA_INT32)}) {
    glia_tensor* w = host(wv, {6, 4});
    check("embedding", {w, i}, {to(w, kDev0), to(i, kDev0)}, [](const Args& a, glia_tensor** o) {
      return glia_embedding(const_cast<glia_tensor*>(a[0]), a[1], nullptr, nullptr, 2.0, o);
    });
    // max_norm renormalises the weight's rows in place: the weights after the call agree too.
    for (double norm_type : {2.0, 1.0, 3.0, static_cast<double>(INFINITY)}) {
      glia_tensor* cw = host(wv, {6, 4});
      glia_tensor* dw = to(host(wv, {6, 4}), kDev0);
      const double max_norm = 1.5;
      const int64_t pad = 2;
      check("embedding max_norm", {cw, i}, {dw, to(i, kDev0)}, [&](const Args& a, glia_tensor** o) {
        return glia_embedding(const_cast<glia_tensor*>(a[0]), a[1], &pad, &max_norm, norm_type, o);
      });
      expect_same("embedding renormalised weight", cw, dw);
    }
  }
}

TEST_F(IndexShapeDevice, IndexErrorsKeepTorchsMessagesOnTheDevice) {
  glia_tensor* x = host(data(3 * 4), {3, 4});
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* bad = host_i64({0, 7, 1}, {3});
  glia_tensor* dbad = to(bad, kDev0);
  check_error("index_select", {x, bad}, {dx, dbad},
              [](const Args& a, glia_tensor** o) { return glia_index_select(a[0], 0, a[1], o); });
  glia_tensor* gi = host_i64({0, 1, -1, 2, 0, 1, 2, 9}, {2, 4});
  glia_tensor* dgi = to(gi, kDev0);
  check_error("gather", {x, gi}, {dx, dgi},
              [](const Args& a, glia_tensor** o) { return glia_gather(a[0], 0, a[1], o); });
  glia_tensor* src = host(data(8), {2, 4});
  check_error("scatter", {x, gi, src}, {dx, dgi, to(src, kDev0)},
              [](const Args& a, glia_tensor** o) { return glia_scatter(a[0], 0, a[1], a[2], o); });
  check_error("scatter_add", {x, gi, src}, {dx, dgi, to(src, kDev0)},
              [](const Args& a, glia_tensor** o) { return glia_scatter_add(a[0], 0, a[1], a[2], o); });
  check_error("embedding", {x, bad}, {dx, dbad}, [](const Args& a, glia_tensor** o) {
    return glia_embedding(const_cast<glia_tensor*>(a[0]), a[1], nullptr, nullptr, 2.0, o);
  });
  const double max_norm = 1.0;
  check_error("embedding max_norm", {x, bad}, {dx, dbad}, [&](const Args& a, glia_tensor** o) {
    return glia_embedding(const_cast<glia_tensor*>(a[0]), a[1], nullptr, &max_norm, 2.0, o);
  });
  // The messages are torch's CPU ones.
  glia_tensor* r = nullptr;
  EXPECT_GLIA_MSG(glia_index_select(dx, 0, dbad, &r), GLIA_ERR_INVALID_ARGUMENT,
                  "INDICES element is out of DATA bounds, id=7 axis_dim=3");
  EXPECT_GLIA_MSG(glia_gather(dx, 0, dgi, &r), GLIA_ERR_INVALID_ARGUMENT,
                  "index -1 is out of bounds for dimension 0 with size 3");
  EXPECT_GLIA_MSG(glia_embedding(dx, dbad, nullptr, nullptr, 2.0, &r), GLIA_ERR_INVALID_ARGUMENT,
                  "index out of range in self");
  EXPECT_EQ(r, nullptr);
}

TEST_F(IndexShapeDevice, MixedDevicesAreRefused) {
  glia_tensor* x = host(data(3 * 4), {3, 4});
  glia_tensor* dx = to(x, kDev0);
  glia_tensor* idx = host_i64({0, 2, 1, 0, 0, 1, 2, 2, 1, 1, 0, 2}, {3, 4});
  glia_tensor* didx = to(idx, kDev0);
  glia_tensor* r = nullptr;
  const char* msg = "Expected all tensors to be on the same device, but found at least two devices, ";
  EXPECT_GLIA_MSG(glia_gather(x, 0, didx, &r), GLIA_ERR_DEVICE, std::string(msg) + "cpu and testdevice:0!");
  EXPECT_GLIA_MSG(glia_gather(dx, 0, idx, &r), GLIA_ERR_DEVICE, std::string(msg) + "testdevice:0 and cpu!");
  EXPECT_GLIA_ERR(glia_scatter(dx, 0, didx, x, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_scatter_add(dx, 0, idx, dx, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_scatter_value(dx, 0, idx, glia_scalar_float(1), &r), GLIA_ERR_DEVICE);
  glia_tensor* row = host_i64({1}, {1});
  EXPECT_GLIA_ERR(glia_index_select(dx, 0, row, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_index_select(dx, 0, host_i64({1}, {}), &r), GLIA_ERR_DEVICE);  // no 0-dim exception
  EXPECT_GLIA_ERR(glia_masked_select(dx, host_bool({1, 0, 1, 1}, {4}), &r), GLIA_ERR_DEVICE);
  const glia_tensor* pair[2] = {x, dx};
  EXPECT_GLIA_MSG(glia_cat(pair, 2, 0, &r), GLIA_ERR_DEVICE, std::string(msg) + "cpu and testdevice:0!");
  EXPECT_GLIA_ERR(glia_stack(pair, 2, 0, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_embedding(dx, row, nullptr, nullptr, 2.0, &r), GLIA_ERR_DEVICE);
  EXPECT_EQ(r, nullptr);
}

// Gradients computed on the device and carried back to a CPU leaf equal the CPU's: loss = sum(y * y)
// over the op's outputs (several for split and chunk).
TEST_F(IndexShapeDevice, GradientsMatchTheCpu) {
  const std::vector<float> xv = data(4 * 6);
  using Multi = std::function<glia_error*(const glia_tensor*, std::vector<glia_tensor*>&)>;
  int side = 0;  // 0: CPU, 1: device (selects the index operands)
  glia_tensor* idx[2];
  glia_tensor* gidx[2];
  glia_tensor* mask[2];
  idx[0] = host_i64({3, 0, 3, 1, 5}, {5});
  gidx[0] = host_i64({1, 0, 3, 3, 2, 1, 0, 0, 3, 1, 2, 2}, {2, 6});
  mask[0] = host_bool({1, 0, 0, 1, 1, 1}, {6});
  for (glia_tensor** t : {idx, gidx, mask}) t[1] = to(t[0], kDev0);
  auto one = [](glia_error* e, glia_tensor* const* y, std::vector<glia_tensor*>& ys) {
    if (!e) ys.push_back(*y);
    return e;
  };
  // y and n by pointer: they are read after the call that writes them.
  auto parts = [](glia_error* e, glia_tensor** outs, const int64_t* n, std::vector<glia_tensor*>& ys) {
    if (!e) ys.assign(outs, outs + *n);
    return e;
  };
  struct Case {
    const char* name;
    Multi op;
  };
  const std::vector<Case> cases = {
      {"slice",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         return one(glia_slice(a, 1, 1, 6, 2, &y), &y, ys);
       }},
      {"select",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         return one(glia_select(a, 1, -2, &y), &y, ys);
       }},
      {"narrow",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         return one(glia_narrow(a, 0, 1, 2, &y), &y, ys);
       }},
      {"split (one part used)",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* outs[4] = {};
         int64_t n = 0;
         glia_error* e = glia_split(a, 4, 1, outs, 4, &n);
         if (e) return e;
         ys.push_back(outs[1]);
         for (int64_t k = 0; k < n; ++k)
           if (k != 1) glia_tensor_release(outs[k]);
         return e;
       }},
      {"split_with_sizes",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* outs[3] = {};
         int64_t n = 0;
         const int64_t sizes[3] = {1, 0, 3};
         return parts(glia_split_with_sizes(a, sizes, 3, 0, outs, 3, &n), outs, &n, ys);
       }},
      {"chunk",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* outs[4] = {};
         int64_t n = 0;
         return parts(glia_chunk(a, 4, 1, outs, 4, &n), outs, &n, ys);
       }},
      {"cat",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const glia_tensor* ts[2] = {a, a};
         return one(glia_cat(ts, 2, 1, &y), &y, ys);
       }},
      {"stack",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const glia_tensor* ts[2] = {a, a};
         return one(glia_stack(ts, 2, 2, &y), &y, ys);
       }},
      {"index_select",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         return one(glia_index_select(a, 1, idx[side], &y), &y, ys);
       }},
      {"gather",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         return one(glia_gather(a, 0, gidx[side], &y), &y, ys);
       }},
      {"scatter_add (self and src)",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor *s = nullptr, *y = nullptr;
         const int64_t start = 0;
         glia_error* e = glia_narrow(a, 0, start, 2, &s);
         if (e) return e;
         e = glia_scatter_add(a, 0, gidx[side], s, &y);
         glia_tensor_release(s);
         return one(e, &y, ys);
       }},
      {"scatter_value",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         return one(glia_scatter_value(a, 0, gidx[side], glia_scalar_float(2.5), &y), &y, ys);
       }},
      {"masked_select",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         return one(glia_masked_select(a, mask[side], &y), &y, ys);
       }},
      {"pad constant",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const int64_t p[4] = {1, -2, 2, 1};
         return one(glia_pad(a, p, 4, GLIA_PAD_CONSTANT, 3.0, &y), &y, ys);
       }},
      {"pad reflect",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const int64_t p[2] = {3, 2};
         return one(glia_pad(a, p, 2, GLIA_PAD_REFLECT, 0, &y), &y, ys);
       }},
      {"pad replicate",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const int64_t p[2] = {2, 4};
         return one(glia_pad(a, p, 2, GLIA_PAD_REPLICATE, 0, &y), &y, ys);
       }},
      {"logsumexp",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const int64_t d = 1;
         return one(glia_logsumexp(a, &d, 1, 0, &y), &y, ys);
       }},
      {"std",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const int64_t d = 0;
         return one(glia_std(a, &d, 1, 1.0, 1, &y), &y, ys);
       }},
      {"embedding",
       [&](const glia_tensor* a, auto& ys) {
         glia_tensor* y = nullptr;
         const int64_t pad = 1;
         return one(glia_embedding(const_cast<glia_tensor*>(a), gidx[side], &pad, nullptr, 2.0, &y), &y, ys);
       }},
  };
  for (const Case& c : cases) {
    std::vector<unsigned char> grads[2];
    for (side = 0; side < 2; ++side) {
      glia_tensor* x = host(xv, {4, 6});
      GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
      const glia_tensor* in = side ? to(x, kDev0) : x;
      std::vector<glia_tensor*> ys;
      glia_error* e = c.op(in, ys);
      ASSERT_EQ(e, nullptr) << c.name << (side ? " (device)" : "") << ": " << glia_error_message(e);
      glia_tensor* loss = nullptr;
      for (glia_tensor* y : ys) {
        keep(y);
        glia_tensor *yy = nullptr, *s = nullptr;
        GLIA_OK_(glia_mul(y, y, &yy));
        keep(yy);
        GLIA_OK_(glia_sum(yy, nullptr, 0, 0, &s));
        keep(s);
        if (loss) {
          glia_tensor* l2 = nullptr;
          GLIA_OK_(glia_add(loss, s, 1.0, &l2));
          s = keep(l2);
        }
        loss = s;
      }
      ASSERT_NE(loss, nullptr) << c.name;
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

// nn.Embedding end to end: the same module (same seed) on the CPU and moved to the device; outputs and the
// weight's gradient agree, and the gradient stays on the device.
TEST_F(IndexShapeDevice, EmbeddingModuleTrainsOnTheDevice) {
  glia_tensor* idx = host_i64({3, 9, 0, 3, 7, 0, 1, 3}, {2, 4});
  std::vector<unsigned char> grads[2], outs[2];
  for (int side = 0; side < 2; ++side) {
    glia_manual_seed(7);
    const int64_t pad = 0;
    glia_module* m = nullptr;
    GLIA_OK_(glia_nn_embedding(10, 5, &pad, nullptr, 2.0, nullptr, &m));
    if (side) GLIA_OK_(glia_module_to(m, &kDev0, nullptr));
    const glia_tensor* in = side ? to(idx, kDev0) : idx;
    glia_tensor* y = nullptr;
    int64_t n = 0;
    GLIA_OK_(glia_module_forward(m, &in, 1, &y, 1, &n));
    keep(y);
    Result ry = result(y);
    EXPECT_EQ(ry.device.type, side ? GLIA_PRIVATEUSE1 : GLIA_CPU);
    outs[side] = ry.bytes;
    glia_tensor *yy = nullptr, *loss = nullptr;
    GLIA_OK_(glia_mul(y, y, &yy));
    keep(yy);
    GLIA_OK_(glia_sum(yy, nullptr, 0, 0, &loss));
    keep(loss);
    GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
    glia_tensor *w = nullptr, *g = nullptr;
    GLIA_OK_(glia_module_get_parameter(m, "weight", &w));
    keep(w);
    GLIA_OK_(glia_tensor_grad(w, &g));
    ASSERT_NE(g, nullptr);
    keep(g);
    Result rg = result(g);
    EXPECT_EQ(rg.device.type, side ? GLIA_PRIVATEUSE1 : GLIA_CPU);
    grads[side] = rg.bytes;
    glia_error_free(glia_module_release(m));
  }
  EXPECT_EQ(outs[1], outs[0]);
  EXPECT_EQ(grads[1], grads[0]);
}

}  // namespace
