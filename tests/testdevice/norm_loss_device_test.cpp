// Normalisation and losses on the test device (libglia_testdevice.so, Note
// [Test device memory]): batch/layer/group norm, torchvision's normalize and
// every loss give exactly the CPU's result (same kernels), running statistics
// included; their gradients (and mse_loss's second derivative) come back
// across a copy equal to the CPU's; data-dependent checks (target range,
// binary_cross_entropy's input range) keep torch's messages on the device;
// torch's same-device rule holds; and a BatchNorm1d module trains on the
// device as on the CPU.
#include <gtest/gtest.h>

#include <cmath>
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

// An op of several operands, all on one side (CPU or device).
using Op = std::function<glia_error*(const std::vector<glia_tensor*>&, glia_tensor**)>;

class NormLossDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (auto it = owned_.rbegin(); it != owned_.rend(); ++it) glia_error_free(glia_tensor_release(*it));
    owned_.clear();
  }
  glia_tensor* keep(glia_tensor* t) {
    if (t) owned_.push_back(t);
    return t;
  }
  glia_tensor* host(const std::vector<float>& v, std::vector<int64_t> shape, glia_dtype dt = GLIA_FLOAT32) {
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    keep(t);
    return dt == GLIA_FLOAT32 ? t : to(t, kCpu, dt);
  }
  glia_tensor* to(const glia_tensor* t, glia_device d, glia_dtype dt) {
    glia_tensor* out = nullptr;
    glia_error* e = glia_tensor_to(t, &d, &dt, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  glia_tensor* to_dev(const glia_tensor* t) {
    glia_dtype dt{};
    EXPECT_EQ(glia_tensor_dtype(t, &dt), nullptr);
    return to(t, kDev0, dt);
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
  // Runs op on the CPU operands and on copies of them on the device; the results must match.
  void check(const std::string& what, const std::vector<glia_tensor*>& cpu_in, const Op& op) {
    std::vector<glia_tensor*> dev_in;
    for (glia_tensor* t : cpu_in) dev_in.push_back(t ? to_dev(t) : nullptr);
    glia_tensor *c = nullptr, *d = nullptr;
    glia_error* e = op(cpu_in, &c);
    ASSERT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
    keep(c);
    e = op(dev_in, &d);
    ASSERT_EQ(e, nullptr) << what << " (device): " << glia_error_message(e);
    keep(d);
    expect_same(what, c, d);
  }
  // Gradients: the leaves (CPU, requires_grad for each `diff` entry) go to the device when
  // `device`; loss = sum(y * y) backward; returns each differentiable leaf's gradient bytes.
  std::vector<std::vector<unsigned char>> grads(const std::string& what, const std::vector<glia_tensor*>& leaves,
                                                const std::vector<bool>& diff, bool device, const Op& op) {
    std::vector<glia_tensor*> in;
    for (size_t k = 0; k < leaves.size(); ++k) {
      if (!leaves[k]) {
        in.push_back(nullptr);
        continue;
      }
      if (diff[k]) EXPECT_EQ(glia_tensor_set_requires_grad(leaves[k], 1), nullptr);
      in.push_back(device ? to_dev(leaves[k]) : leaves[k]);
    }
    std::vector<std::vector<unsigned char>> out;
    glia_tensor* y = nullptr;
    glia_error* e = op(in, &y);
    EXPECT_EQ(e, nullptr) << what << (device ? " (device)" : "") << ": " << glia_error_message(e);
    if (e) return out;
    keep(y);
    glia_tensor *yy = nullptr, *loss = nullptr;
    EXPECT_EQ(glia_mul(y, y, &yy), nullptr);
    keep(yy);
    EXPECT_EQ(glia_sum(yy, nullptr, 0, 0, &loss), nullptr);
    keep(loss);
    e = glia_tensor_backward(loss, nullptr, 0);
    EXPECT_EQ(e, nullptr) << what << (device ? " (device)" : "") << ": " << glia_error_message(e);
    if (e) return out;
    for (size_t k = 0; k < leaves.size(); ++k) {
      if (!leaves[k] || !diff[k]) continue;
      glia_tensor* g = nullptr;
      EXPECT_EQ(glia_tensor_grad(leaves[k], &g), nullptr);
      EXPECT_NE(g, nullptr) << what << ": no gradient for leaf " << k;
      if (!g) continue;
      keep(g);
      Result r = result(g);
      EXPECT_EQ(r.device.type, GLIA_CPU) << what;
      out.push_back(r.bytes);
      EXPECT_EQ(glia_tensor_set_grad(leaves[k], nullptr), nullptr);
      EXPECT_EQ(glia_tensor_set_requires_grad(leaves[k], 0), nullptr);
    }
    return out;
  }
  void check_grads(const std::string& what, const std::vector<glia_tensor*>& leaves, const std::vector<bool>& diff,
                   const Op& op) {
    auto c = grads(what, leaves, diff, false, op);
    auto d = grads(what, leaves, diff, true, op);
    EXPECT_FALSE(c.empty()) << what;
    EXPECT_EQ(d, c) << what;
  }
  // Values of [n] with a spread of magnitudes and signs.
  static std::vector<float> data(size_t n, float scale = 1.0f, float shift = 0.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = shift + scale * static_cast<float>(std::sin(0.7 * i + 0.3) * (1.0 + (i % 5)));
    return v;
  }
  // Values in (0, 1) (probabilities).
  static std::vector<float> probs(size_t n, double phase = 0.1) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = 0.05f + 0.9f * static_cast<float>(0.5 + 0.5 * std::sin(1.3 * i + phase));
    return v;
  }
  std::vector<glia_tensor*> owned_;
};

// ---- normalisation

TEST_F(NormLossDevice, BatchNormMatchesTheCpuRunningStatsIncluded) {
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_BFLOAT16}) {
    const std::string ds = std::string(" ") + glia_dtype_name(dt);
    // [N, C, L] (the per-channel path) and [N, C] (the column-block path), contiguous and transposed.
    for (std::vector<int64_t> shape : {std::vector<int64_t>{4, 3, 5}, std::vector<int64_t>{6, 3}}) {
      int64_t n = 1;
      for (int64_t s : shape) n *= s;
      glia_tensor* x = host(data(static_cast<size_t>(n), 1.5f, 0.25f), shape, dt);
      const glia_dtype pdt = dt == GLIA_BFLOAT16 ? GLIA_FLOAT32 : dt;  // torch's mixed type
      glia_tensor* w = host(data(3, 0.5f, 1.0f), {3}, pdt);
      glia_tensor* b = host(data(3, -0.5f), {3}, pdt);
      for (int affine : {0, 1}) {
        glia_tensor* rm = host({0.5f, -0.25f, 0.0f}, {3}, pdt);
        glia_tensor* rv = host({1.0f, 2.0f, 0.5f}, {3}, pdt);
        glia_tensor* drm = to_dev(rm);
        glia_tensor* drv = to_dev(rv);
        glia_tensor* dx = to_dev(x);
        glia_tensor *dw = to_dev(w), *db = to_dev(b);
        const std::string what =
            "batch_norm" + ds + " ndim " + std::to_string(shape.size()) + (affine ? " affine" : "");
        for (int training : {1, 1, 0}) {
          glia_tensor *yc = nullptr, *yd = nullptr;
          GLIA_OK_(glia_batch_norm(x, rm, rv, affine ? w : nullptr, affine ? b : nullptr, training, 0.3, 1e-5, &yc));
          keep(yc);
          GLIA_OK_(
              glia_batch_norm(dx, drm, drv, affine ? dw : nullptr, affine ? db : nullptr, training, 0.3, 1e-5, &yd));
          keep(yd);
          const std::string step = what + (training ? " training" : " eval");
          expect_same(step, yc, yd);
          expect_same(step + " running_mean", rm, drm);
          expect_same(step + " running_var", rv, drv);
        }
      }
      // Training without running statistics, on a transposed (non-contiguous) input.
      if (shape.size() == 3) {
        glia_tensor* xt = transposed(x, 0, 2);  // [5, 3, 4]
        glia_tensor* dxt = transposed(to_dev(x), 0, 2);
        glia_tensor *yc = nullptr, *yd = nullptr;
        GLIA_OK_(glia_batch_norm(xt, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, &yc));
        keep(yc);
        GLIA_OK_(glia_batch_norm(dxt, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, &yd));
        keep(yd);
        expect_same("batch_norm transposed" + ds, yc, yd);
      }
    }
  }
  // Non-contiguous running statistics are updated through a copy on the device too.
  glia_tensor* x = host(data(4 * 2), {4, 2});
  glia_tensor* stats = host({0, 9, 1, 9}, {2, 2});  // column 0: running_mean [0, 1] (stride 2)
  glia_tensor* dstats = to_dev(stats);
  glia_tensor *col = nullptr, *dcol = nullptr, *y = nullptr;
  GLIA_OK_(glia_select(transposed(stats, 0, 1), 0, 0, &col));
  keep(col);
  GLIA_OK_(glia_select(transposed(dstats, 0, 1), 0, 0, &dcol));
  keep(dcol);
  GLIA_OK_(glia_batch_norm(x, col, nullptr, nullptr, nullptr, 1, 0.5, 1e-5, &y));
  keep(y);
  GLIA_OK_(glia_batch_norm(to_dev(x), dcol, nullptr, nullptr, nullptr, 1, 0.5, 1e-5, &y));
  keep(y);
  expect_same("batch_norm strided running_mean", stats, dstats);
}

TEST_F(NormLossDevice, LayerGroupNormAndNormalizeMatchTheCpu) {
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_FLOAT16}) {
    const std::string ds = std::string(" ") + glia_dtype_name(dt);
    glia_tensor* x = host(data(2 * 6 * 5, 2.0f, 0.5f), {2, 6, 5}, dt);
    glia_tensor* xt = transposed(x, 1, 2);  // [2, 5, 6], not contiguous
    glia_tensor* w5 = host(data(5, 0.5f, 1.0f), {5}, dt);
    glia_tensor* b5 = host(data(5, 0.25f), {5}, dt);
    glia_tensor* w65 = host(data(30, 0.5f, 1.0f), {6, 5}, dt);
    glia_tensor* w6 = host(data(6, 0.5f, 1.0f), {6}, dt);
    glia_tensor* b6 = host(data(6, 0.25f), {6}, dt);
    for (const std::vector<int64_t>& ns : {std::vector<int64_t>{5}, std::vector<int64_t>{6, 5}}) {
      const std::string what = "layer_norm [" + std::to_string(ns.size()) + "]" + ds;
      Op op = [ns](const std::vector<glia_tensor*>& a, glia_tensor** o) {
        return glia_layer_norm(a[0], ns.data(), static_cast<int64_t>(ns.size()), a[1], a[2], 1e-5, o);
      };
      check(what, {x, nullptr, nullptr}, op);
      check(what + " affine", {x, ns.size() == 1 ? w5 : w65, ns.size() == 1 ? b5 : nullptr}, op);
    }
    const std::vector<int64_t> ns6{6};
    check("layer_norm transposed" + ds, {xt, w6, b6}, [&](const std::vector<glia_tensor*>& a, glia_tensor** o) {
      return glia_layer_norm(a[0], ns6.data(), 1, a[1], a[2], 1e-5, o);
    });
    for (int64_t groups : {1, 3, 6}) {
      Op op = [groups](const std::vector<glia_tensor*>& a, glia_tensor** o) {
        return glia_group_norm(a[0], groups, a[1], a[2], 1e-5, o);
      };
      const std::string what = "group_norm " + std::to_string(groups) + ds;
      check(what, {x, nullptr, nullptr}, op);
      check(what + " affine", {x, w6, b6}, op);
      check(what + " weight only", {x, w6, nullptr}, op);
    }
    // torchvision's normalize on [N, C, H, W]: per-channel and single mean/std.
    glia_tensor* img = host(data(2 * 3 * 4 * 5, 1.0f, 0.5f), {2, 3, 4, 5}, dt);
    const double mean3[] = {0.485, 0.456, 0.406}, std3[] = {0.229, 0.224, 0.225}, one[] = {0.5};
    check("normalize" + ds, {img}, [&](const std::vector<glia_tensor*>& a, glia_tensor** o) {
      return glia_normalize(a[0], mean3, 3, std3, 3, o);
    });
    check("normalize scalar" + ds, {img}, [&](const std::vector<glia_tensor*>& a, glia_tensor** o) {
      return glia_normalize(a[0], one, 1, std3, 3, o);
    });
  }
}

TEST_F(NormLossDevice, NormGradientsMatchTheCpu) {
  glia_tensor* x = host(data(4 * 6 * 3, 1.5f, 0.25f), {4, 6, 3}, GLIA_FLOAT64);
  glia_tensor* w = host(data(6, 0.5f, 1.0f), {6}, GLIA_FLOAT64);
  glia_tensor* b = host(data(6, -0.5f), {6}, GLIA_FLOAT64);
  glia_tensor* w3 = host(data(3, 0.5f, 1.0f), {3}, GLIA_FLOAT64);
  glia_tensor* b3 = host(data(3, -0.5f), {3}, GLIA_FLOAT64);
  for (int training : {1, 0}) {
    glia_tensor* rm = host(data(6, 0.1f), {6}, GLIA_FLOAT64);
    glia_tensor* rv = host(probs(6), {6}, GLIA_FLOAT64);
    Op op = [&, training](const std::vector<glia_tensor*>& a, glia_tensor** o) {
      // The running statistics follow x to its side (and are not differentiable).
      glia_device d{};
      glia_error* e = glia_tensor_device(a[0], &d);
      if (e) return e;
      glia_tensor* m = d.type == GLIA_CPU ? rm : to_dev(rm);
      glia_tensor* v = d.type == GLIA_CPU ? rv : to_dev(rv);
      return glia_batch_norm(a[0], m, v, a[1], a[2], training, 0.1, 1e-5, o);
    };
    const std::string what = training ? "batch_norm training" : "batch_norm eval";
    check_grads(what, {x, w, b}, {true, true, true}, op);
    check_grads(what + " (x only)", {x, nullptr, nullptr}, {true, false, false}, op);
    check_grads(what + " (weight only)", {x, w, b}, {false, true, false}, op);
  }
  const std::vector<int64_t> ns{3};
  Op ln = [&](const std::vector<glia_tensor*>& a, glia_tensor** o) {
    return glia_layer_norm(a[0], ns.data(), 1, a[1], a[2], 1e-5, o);
  };
  check_grads("layer_norm", {x, w3, b3}, {true, true, true}, ln);
  check_grads("layer_norm (bias only)", {x, w3, b3}, {false, false, true}, ln);
  check_grads("layer_norm (no affine)", {x, nullptr, nullptr}, {true, false, false}, ln);
  Op gn = [](const std::vector<glia_tensor*>& a, glia_tensor** o) {
    return glia_group_norm(a[0], 2, a[1], a[2], 1e-5, o);
  };
  check_grads("group_norm", {x, w, b}, {true, true, true}, gn);
  check_grads("group_norm (weight only)", {x, w, b}, {false, true, false}, gn);
  glia_tensor* img = host(data(2 * 3 * 2 * 2), {2, 3, 2, 2}, GLIA_FLOAT64);
  const double mean3[] = {0.485, 0.456, 0.406}, std3[] = {0.229, 0.224, 0.225};
  check_grads("normalize", {img}, {true}, [&](const std::vector<glia_tensor*>& a, glia_tensor** o) {
    return glia_normalize(a[0], mean3, 3, std3, 3, o);
  });
}

// ---- losses

TEST_F(NormLossDevice, PointwiseLossesMatchTheCpu) {
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_BFLOAT16}) {
    const std::string ds = std::string(" ") + glia_dtype_name(dt);
    glia_tensor* x = host(data(3 * 4), {3, 4}, dt);
    glia_tensor* t = host(data(3 * 4, 0.7f, 0.1f), {3, 4}, dt);
    glia_tensor* t_row = host(data(4, 0.5f), {4}, dt);  // broadcast target
    glia_tensor* p = host(probs(12), {3, 4}, dt);
    glia_tensor* q = host(probs(12, 2.0), {3, 4}, dt);  // another set of probabilities
    glia_tensor* wt = host(data(4, 0.5f, 1.0f), {4}, dt);
    glia_tensor* pw = host(probs(4), {4}, dt);
    for (glia_reduction r : {GLIA_REDUCTION_NONE, GLIA_REDUCTION_MEAN, GLIA_REDUCTION_SUM}) {
      const std::string rs = ds + " reduction " + std::to_string(r);
      auto pair = [&](const char* name,
                      const std::function<glia_error*(glia_tensor*, glia_tensor*, glia_tensor**)>& f) {
        Op op = [&f](const std::vector<glia_tensor*>& a, glia_tensor** o) { return f(a[0], a[1], o); };
        check(std::string(name) + rs, {x, t}, op);
        check(std::string(name) + " broadcast" + rs, {x, t_row}, op);
      };
      pair("mse_loss", [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_mse_loss(a, b, r, o); });
      pair("l1_loss", [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_l1_loss(a, b, r, o); });
      pair("smooth_l1_loss",
           [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_smooth_l1_loss(a, b, r, 0.5, o); });
      pair("huber_loss",
           [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_huber_loss(a, b, r, 0.75, o); });
      check("binary_cross_entropy" + rs, {p, q, wt}, [r](const std::vector<glia_tensor*>& a, glia_tensor** o) {
        return glia_binary_cross_entropy(a[0], a[1], a[2], r, o);
      });
      check("binary_cross_entropy_with_logits" + rs, {x, q, wt, pw},
            [r](const std::vector<glia_tensor*>& a, glia_tensor** o) {
              return glia_binary_cross_entropy_with_logits(a[0], a[1], a[2], a[3], r, o);
            });
    }
  }
}

TEST_F(NormLossDevice, ClassLossesMatchTheCpu) {
  glia_tensor* x = host(data(4 * 5, 2.0f), {4, 5});
  glia_tensor* tgt = host({1, 4, 0, 2}, {4}, GLIA_INT64);
  glia_tensor* tgt_ign = host({1, -100, 0, 3}, {4}, GLIA_INT64);
  glia_tensor* cw = host(data(5, 0.5f, 1.0f), {5});
  glia_tensor* x4 = host(data(2 * 3 * 2 * 2, 2.0f), {2, 3, 2, 2}, GLIA_FLOAT64);
  glia_tensor* t4 = host({0, 1, 2, 1, 2, 0, 1, 1}, {2, 2, 2}, GLIA_INT64);
  glia_tensor* x1 = host(data(5), {5});
  glia_tensor* t1 = host({3}, {}, GLIA_INT64);
  glia_tensor* probs_t = host(probs(20), {4, 5});
  for (glia_reduction r : {GLIA_REDUCTION_NONE, GLIA_REDUCTION_MEAN, GLIA_REDUCTION_SUM}) {
    const std::string rs = " reduction " + std::to_string(r);
    auto nll = [r](const std::vector<glia_tensor*>& a, glia_tensor** o) {
      glia_nll_loss_options opt;
      glia_nll_loss_options_init(&opt);
      opt.reduction = r;
      opt.weight = a.size() > 2 ? a[2] : nullptr;
      return glia_nll_loss(a[0], a[1], &opt, o);
    };
    check("nll_loss" + rs, {x, tgt}, nll);
    check("nll_loss weight, ignore_index" + rs, {x, tgt_ign, cw}, nll);
    check("nll_loss 4-D" + rs, {x4, t4}, nll);
    check("nll_loss 1-D" + rs, {x1, t1}, nll);
    for (double ls : {0.0, 0.2}) {
      auto ce = [r, ls](const std::vector<glia_tensor*>& a, glia_tensor** o) {
        glia_cross_entropy_options opt;
        glia_cross_entropy_options_init(&opt);
        opt.reduction = r;
        opt.label_smoothing = ls;
        opt.weight = a.size() > 2 ? a[2] : nullptr;
        return glia_cross_entropy(a[0], a[1], &opt, o);
      };
      const std::string s = rs + " label_smoothing " + std::to_string(ls);
      check("cross_entropy" + s, {x, tgt}, ce);
      check("cross_entropy weight, ignore_index" + s, {x, tgt_ign, cw}, ce);
      check("cross_entropy 4-D" + s, {x4, t4}, ce);
      check("cross_entropy probabilities" + s, {x, probs_t, cw}, ce);
      check("cross_entropy transposed" + s, {transposed(x, 0, 1), host({1, 3, 0, 2, 1}, {5}, GLIA_INT64)}, ce);
    }
  }
}

TEST_F(NormLossDevice, LossGradientsMatchTheCpu) {
  glia_tensor* x = host(data(3 * 4), {3, 4}, GLIA_FLOAT64);
  glia_tensor* t = host(data(3 * 4, 0.7f, 0.1f), {3, 4}, GLIA_FLOAT64);
  glia_tensor* t_row = host(data(4, 0.5f), {4}, GLIA_FLOAT64);
  glia_tensor* p = host(probs(12), {3, 4}, GLIA_FLOAT64);
  glia_tensor* q = host(probs(12, 2.0), {3, 4}, GLIA_FLOAT64);
  glia_tensor* pw = host(probs(4), {4}, GLIA_FLOAT64);
  for (glia_reduction r : {GLIA_REDUCTION_NONE, GLIA_REDUCTION_MEAN, GLIA_REDUCTION_SUM}) {
    const std::string rs = " reduction " + std::to_string(r);
    using F = std::function<glia_error*(glia_tensor*, glia_tensor*, glia_tensor**)>;
    const std::vector<std::pair<const char*, F>> pairs = {
        {"mse_loss", [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_mse_loss(a, b, r, o); }},
        {"l1_loss", [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_l1_loss(a, b, r, o); }},
        {"smooth_l1_loss",
         [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_smooth_l1_loss(a, b, r, 0.5, o); }},
        {"huber_loss",
         [r](glia_tensor* a, glia_tensor* b, glia_tensor** o) { return glia_huber_loss(a, b, r, 0.75, o); }},
        {"binary_cross_entropy", [r](glia_tensor* a, glia_tensor* b,
                                     glia_tensor** o) { return glia_binary_cross_entropy(a, b, nullptr, r, o); }},
    };
    for (const auto& [name, f] : pairs) {
      Op op = [&f](const std::vector<glia_tensor*>& a, glia_tensor** o) { return f(a[0], a[1], o); };
      const bool bce = std::string(name) == "binary_cross_entropy";
      check_grads(name + rs, {bce ? p : x, bce ? q : t}, {true, true}, op);
      if (!bce) check_grads(std::string(name) + " broadcast" + rs, {x, t_row}, {true, true}, op);
    }
    check_grads("binary_cross_entropy_with_logits" + rs, {x, q, pw}, {true, true, false},
                [r](const std::vector<glia_tensor*>& a, glia_tensor** o) {
                  return glia_binary_cross_entropy_with_logits(a[0], a[1], nullptr, a[2], r, o);
                });
  }
  glia_tensor* xc = host(data(4 * 5, 2.0f), {4, 5}, GLIA_FLOAT64);
  glia_tensor* tgt = host({1, -100, 0, 2}, {4}, GLIA_INT64);
  glia_tensor* cw = host(data(5, 0.5f, 1.0f), {5}, GLIA_FLOAT64);
  glia_tensor* pt = host(probs(20), {4, 5}, GLIA_FLOAT64);
  for (glia_reduction r : {GLIA_REDUCTION_NONE, GLIA_REDUCTION_MEAN}) {
    const std::string rs = " reduction " + std::to_string(r);
    check_grads("nll_loss" + rs, {xc, tgt, cw}, {true, false, false},
                [r](const std::vector<glia_tensor*>& a, glia_tensor** o) {
                  glia_nll_loss_options opt;
                  glia_nll_loss_options_init(&opt);
                  opt.reduction = r;
                  opt.weight = a[2];
                  return glia_nll_loss(a[0], a[1], &opt, o);
                });
    for (double ls : {0.0, 0.1}) {
      auto ce = [r, ls](const std::vector<glia_tensor*>& a, glia_tensor** o) {
        glia_cross_entropy_options opt;
        glia_cross_entropy_options_init(&opt);
        opt.reduction = r;
        opt.label_smoothing = ls;
        opt.weight = a[2];
        return glia_cross_entropy(a[0], a[1], &opt, o);
      };
      const std::string s = rs + " label_smoothing " + std::to_string(ls);
      check_grads("cross_entropy" + s, {xc, tgt, cw}, {true, false, false}, ce);
      check_grads("cross_entropy probabilities" + s, {xc, pt, cw}, {true, true, false}, ce);
    }
  }
}

// mse_loss is twice differentiable: d/dx sum(grad_x(mse)^2), with create_graph on the device.
TEST_F(NormLossDevice, MseLossSecondDerivativeMatchesTheCpu) {
  const std::vector<float> xv = data(6), tv = data(3, 0.5f, 0.25f);
  std::vector<unsigned char> out[2];
  for (int side = 0; side < 2; ++side) {
    glia_tensor* x = host(xv, {2, 3}, GLIA_FLOAT64);
    GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
    glia_tensor* xi = side ? to_dev(x) : x;
    glia_tensor* t = side ? to_dev(host(tv, {3}, GLIA_FLOAT64)) : host(tv, {3}, GLIA_FLOAT64);
    glia_tensor *loss = nullptr, *g = nullptr, *gg = nullptr, *s = nullptr;
    GLIA_OK_(glia_mse_loss(xi, t, GLIA_REDUCTION_MEAN, &loss));
    keep(loss);
    GLIA_OK_(glia_autograd_grad(&loss, 1, &x, 1, nullptr, 1, 1, 0, &g));
    keep(g);
    GLIA_OK_(glia_mul(g, g, &gg));
    keep(gg);
    GLIA_OK_(glia_sum(gg, nullptr, 0, 0, &s));
    keep(s);
    GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
    glia_tensor* g2 = nullptr;
    GLIA_OK_(glia_tensor_grad(x, &g2));
    ASSERT_NE(g2, nullptr);
    keep(g2);
    out[side] = result(g2).bytes;
  }
  EXPECT_EQ(out[1], out[0]);
}

// ---- errors

TEST_F(NormLossDevice, DataDependentChecksKeepTorchsMessages) {
  glia_tensor* x = to_dev(host(data(3 * 4), {3, 4}));
  glia_tensor* bad = to_dev(host({1, 4, 0}, {3}, GLIA_INT64));
  glia_tensor* r = nullptr;
  EXPECT_GLIA_MSG(glia_nll_loss(x, bad, nullptr, &r), GLIA_ERR_INVALID_ARGUMENT, "Target 4 is out of bounds.");
  EXPECT_GLIA_MSG(glia_cross_entropy(x, to_dev(host({-3, 0, 1}, {3}, GLIA_INT64)), nullptr, &r),
                  GLIA_ERR_INVALID_ARGUMENT, "Target -3 is out of bounds.");
  glia_tensor* p = to_dev(host({0.5f, 1.5f, 0.25f}, {3}));
  EXPECT_GLIA_MSG(glia_binary_cross_entropy(p, p, nullptr, GLIA_REDUCTION_MEAN, &r), GLIA_ERR_INVALID_ARGUMENT,
                  "all elements of input should be between 0 and 1");
  EXPECT_EQ(r, nullptr);
  // Argument checks that need no data come first, as on the CPU.
  EXPECT_GLIA_MSG(glia_nll_loss(x, to_dev(host({1, 2}, {2}, GLIA_INT64)), nullptr, &r), GLIA_ERR_SHAPE,
                  "Expected input batch_size (3) to match target batch_size (2).");
  int64_t ns = 5;
  EXPECT_GLIA_MSG(glia_layer_norm(x, &ns, 1, nullptr, nullptr, 1e-5, &r), GLIA_ERR_SHAPE,
                  "Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[3, 4]");
  EXPECT_EQ(r, nullptr);
}

TEST_F(NormLossDevice, OperandsOnTwoDevicesFail) {
  glia_tensor* xc = host(data(4 * 3), {4, 3});
  glia_tensor* xd = to_dev(xc);
  glia_tensor* rm = host({0, 0, 0}, {3});
  glia_tensor* rv = host({1, 1, 1}, {3});
  glia_tensor* r = nullptr;
  const char* msg =
      "Expected all tensors to be on the same device, but found at least two devices, testdevice:0 "
      "and cpu!";
  EXPECT_GLIA_MSG(glia_batch_norm(xd, rm, rv, nullptr, nullptr, 1, 0.1, 1e-5, &r), GLIA_ERR_DEVICE, msg);
  glia_tensor* w = host({1, 1, 1}, {3});
  int64_t ns = 3;
  EXPECT_GLIA_MSG(glia_layer_norm(xd, &ns, 1, w, nullptr, 1e-5, &r), GLIA_ERR_DEVICE, msg);
  EXPECT_GLIA_MSG(glia_group_norm(xd, 3, w, nullptr, 1e-5, &r), GLIA_ERR_DEVICE, msg);
  EXPECT_GLIA_MSG(glia_nll_loss(xd, host({0, 1, 2, 0}, {4}, GLIA_INT64), nullptr, &r), GLIA_ERR_DEVICE, msg);
  EXPECT_GLIA_MSG(glia_cross_entropy(xd, host(probs(12), {4, 3}), nullptr, &r), GLIA_ERR_DEVICE, msg);
  EXPECT_GLIA_MSG(glia_mse_loss(xd, xc, GLIA_REDUCTION_MEAN, &r), GLIA_ERR_DEVICE,
                  "Expected all tensors to be on the same device, but found at least two devices, testdevice:0 and "
                  "cpu!");
  EXPECT_EQ(r, nullptr);
  // The running statistics were left alone by the failing call.
  std::vector<float> back(3);
  GLIA_OK_(glia_tensor_copy_to_host(rm, back.data(), back.size() * sizeof(float)));
  EXPECT_EQ(back, (std::vector<float>{0, 0, 0}));
  // A 0-dim CPU target next to a device input is a wrapped scalar for the pointwise losses, as in torch.
  float half = 0.5f;
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_tensor_from_data(&half, sizeof half, nullptr, 0, GLIA_FLOAT32, &s));
  keep(s);
  GLIA_OK_(glia_mse_loss(xd, s, GLIA_REDUCTION_SUM, &r));
  keep(r);
  glia_device d{};
  GLIA_OK_(glia_tensor_device(r, &d));
  EXPECT_EQ(d.type, GLIA_PRIVATEUSE1);
}

// ---- a module end to end

// nn.BatchNorm1d trained for a few steps (momentum=None: the cumulative average, which reads
// num_batches_tracked), then evaluated, on the device and on the CPU: the same outputs, losses,
// parameter gradients and buffers.
TEST_F(NormLossDevice, BatchNormModuleTrainsOnTheDeviceAsOnTheCpu) {
  glia_batch_norm_options bo;
  glia_batch_norm_options_init(&bo);
  bo.momentum_none = 1;
  glia_module* m[2] = {nullptr, nullptr};
  for (int side = 0; side < 2; ++side) GLIA_OK_(glia_nn_batch_norm1d(3, &bo, nullptr, &m[side]));
  GLIA_OK_(glia_module_to(m[1], &kDev0, nullptr));
  glia_tensor* tgt = host({0, 2, 1, 1, 0, 2}, {6}, GLIA_INT64);
  for (int step = 0; step < 3; ++step) {
    const bool training = step < 2;
    glia_tensor* x = host(data(6 * 3, 1.0f + step, 0.1f * step), {6, 3});
    std::vector<unsigned char> seen[2][5];
    for (int side = 0; side < 2; ++side) {
      GLIA_OK_(glia_module_train(m[side], training));
      const glia_tensor* in = side ? to_dev(x) : x;
      glia_tensor* y = nullptr;
      int64_t n_out = 0;
      GLIA_OK_(glia_module_forward(m[side], &in, 1, &y, 1, &n_out));
      keep(y);
      glia_tensor* loss = nullptr;
      GLIA_OK_(glia_cross_entropy(y, side ? to_dev(tgt) : tgt, nullptr, &loss));
      keep(loss);
      seen[side][0] = result(y).bytes;
      seen[side][1] = result(loss).bytes;
      glia_tensor_dict *params = nullptr, *buffers = nullptr;
      GLIA_OK_(glia_module_named_parameters(m[side], nullptr, 1, 1, &params));
      GLIA_OK_(glia_module_named_buffers(m[side], nullptr, 1, 1, &buffers));
      if (training) {
        GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
        glia_tensor *w = nullptr, *g = nullptr;
        GLIA_OK_(glia_tensor_dict_get(params, "weight", &w));
        keep(w);
        GLIA_OK_(glia_tensor_grad(w, &g));
        ASSERT_NE(g, nullptr);
        keep(g);
        Result gr = result(g);
        EXPECT_EQ(gr.device.type, side ? GLIA_PRIVATEUSE1 : GLIA_CPU);
        seen[side][2] = gr.bytes;
        GLIA_OK_(glia_tensor_set_grad(w, nullptr));
      }
      const char* names[2] = {"running_mean", "running_var"};
      for (int k = 0; k < 2; ++k) {
        glia_tensor* b = nullptr;
        GLIA_OK_(glia_tensor_dict_get(buffers, names[k], &b));
        keep(b);
        Result br = result(b);
        EXPECT_EQ(br.device.type, side ? GLIA_PRIVATEUSE1 : GLIA_CPU) << names[k];
        seen[side][3 + k] = br.bytes;
      }
      GLIA_OK_(glia_tensor_dict_release(params));
      GLIA_OK_(glia_tensor_dict_release(buffers));
    }
    for (int k = 0; k < 5; ++k) EXPECT_EQ(seen[1][k], seen[0][k]) << "step " << step << " item " << k;
  }
  for (glia_module* mm : m) GLIA_OK_(glia_module_release(mm));
}

}  // namespace
