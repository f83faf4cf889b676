// The loss and embedding kernels of the CUDA backend (cuda/loss.cu, cuda/embedding.cu) through the C API, on
// cuda:0 (skipped without a device): what the golden cases do not cover there. The data checks read back
// from the device (torch's messages, as the CPU's; nothing changed by a failing embedding renorm), the
// determinism of the reductions and of embedding's backward (two runs, the same bits), embedding's backward
// equal to the CPU's bit for bit (same order, same roundings: Note [Deterministic embedding backward]), and
// large reductions (several blocks) against the CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCuda{GLIA_CUDA, 0};
constexpr glia_device kCpu{GLIA_CPU, 0};

class CudaLoss : public ::testing::Test {
 protected:
  void SetUp() override {
    if (glia_cuda_device_count() == 0) GTEST_SKIP() << "skipped: no CUDA device";
  }
  void TearDown() override {
    for (glia_tensor* t : owned_) glia_tensor_release(t);
  }
  // The tensor a call makes (kept until the test ends), or nullptr after a failure.
  glia_tensor* made(const std::function<glia_error*(glia_tensor**)>& f) {
    glia_tensor* t = nullptr;
    if (glia_error* e = f(&t)) {
      ADD_FAILURE() << glia_error_message(e);
      glia_error_free(e);
      return nullptr;
    }
    if (t) owned_.push_back(t);
    return t;
  }
  // `v` (of dtype d) on `dev`, converted to `as`.
  template <class T>
  glia_tensor* tensor(const std::vector<T>& v, std::vector<int64_t> shape, glia_dtype d, const glia_device& dev,
                      glia_dtype as) {
    glia_tensor* h = made([&](glia_tensor** o) {
      return glia_tensor_from_data(v.data(), v.size() * sizeof(T), shape.data(), static_cast<int64_t>(shape.size()), d,
                                   o);
    });
    return made([&](glia_tensor** o) { return glia_tensor_to(h, &dev, &as, o); });
  }
  // A tensor's values on the host, as dtype d (T of its size).
  template <class T>
  std::vector<T> values(const glia_tensor* t, glia_dtype d, size_t n) {
    glia_tensor* h = made([&](glia_tensor** o) { return glia_tensor_to(t, &kCpu, &d, o); });
    std::vector<T> v(n);
    if (h) EXPECT_EQ(glia_tensor_copy_to_host(h, v.data(), n * sizeof(T)), nullptr);
    return v;
  }
  double scalar(const glia_tensor* t) { return values<double>(t, GLIA_FLOAT64, 1)[0]; }
  std::vector<glia_tensor*> owned_;
};

TEST_F(CudaLoss, DataChecksGiveTheCpusErrors) {
  std::vector<float> lp(12);
  for (size_t i = 0; i < lp.size(); ++i) lp[i] = -0.1f * static_cast<float>(i + 1);
  glia_tensor* x = tensor(lp, {3, 4}, GLIA_FLOAT32, kCuda, GLIA_FLOAT32);
  glia_tensor* out = nullptr;
  // The first bad target in order, as the CPU's serial check names it.
  glia_tensor* bad = tensor(std::vector<int64_t>{1, 5, -1}, {3}, GLIA_INT64, kCuda, GLIA_INT64);
  EXPECT_GLIA_MSG(glia_nll_loss(x, bad, nullptr, &out), GLIA_ERR_INVALID_ARGUMENT, "Target 5 is out of bounds.");
  EXPECT_EQ(out, nullptr);
  glia_tensor* bad2 = tensor(std::vector<int64_t>{2, -3, 9}, {3}, GLIA_INT64, kCuda, GLIA_INT64);
  EXPECT_GLIA_MSG(glia_cross_entropy(x, bad2, nullptr, &out), GLIA_ERR_INVALID_ARGUMENT, "Target -3 is out of bounds.");
  EXPECT_EQ(out, nullptr);
  // ignore_index is no bad target: the mean of the two others.
  glia_nll_loss_options o;
  glia_nll_loss_options_init(&o);
  o.ignore_index = 7;
  glia_tensor* ok = tensor(std::vector<int64_t>{1, 7, 3}, {3}, GLIA_INT64, kCuda, GLIA_INT64);
  glia_tensor* loss = made([&](glia_tensor** r) { return glia_nll_loss(x, ok, &o, r); });
  ASSERT_NE(loss, nullptr);
  EXPECT_FLOAT_EQ(static_cast<float>(scalar(loss)), static_cast<float>(-(double{lp[1]} + double{lp[11]}) / 2));

  glia_tensor* p = tensor(std::vector<float>{0.25f, 1.5f}, {2}, GLIA_FLOAT32, kCuda, GLIA_FLOAT32);
  glia_tensor* t = tensor(std::vector<float>{0.0f, 1.0f}, {2}, GLIA_FLOAT32, kCuda, GLIA_FLOAT32);
  EXPECT_GLIA_MSG(glia_binary_cross_entropy(p, t, nullptr, GLIA_REDUCTION_MEAN, &out), GLIA_ERR_INVALID_ARGUMENT,
                  "all elements of input should be between 0 and 1");
  EXPECT_EQ(out, nullptr);

  const std::vector<float> wv = {3, 4, 0, 1, 1, 1, 6, 8, 0, 0.5f, 0.5f, 0.5f, 9, 9, 9};
  glia_tensor* w = tensor(wv, {5, 3}, GLIA_FLOAT32, kCuda, GLIA_FLOAT32);
  glia_tensor* far = tensor(std::vector<int64_t>{0, 7}, {2}, GLIA_INT64, kCuda, GLIA_INT64);
  EXPECT_GLIA_MSG(glia_embedding(w, far, nullptr, nullptr, 2.0, &out), GLIA_ERR_INVALID_ARGUMENT,
                  "index out of range in self");
  // max_norm with a bad index among good ones: the error, and no row renormalised.
  glia_tensor* neg = tensor(std::vector<int32_t>{0, 2, -1}, {3}, GLIA_INT32, kCuda, GLIA_INT32);
  const double max_norm = 1.0;
  EXPECT_GLIA_MSG(glia_embedding(w, neg, nullptr, &max_norm, 2.0, &out), GLIA_ERR_INVALID_ARGUMENT,
                  "index out of range in self");
  EXPECT_EQ(values<float>(w, GLIA_FLOAT32, wv.size()), wv);
  // Good indices, one repeated: rows 0 and 2 renormalised once (norms 5 and 10), row 1 untouched.
  glia_tensor* good = tensor(std::vector<int32_t>{2, 0, 2}, {3}, GLIA_INT32, kCuda, GLIA_INT32);
  ASSERT_NE(made([&](glia_tensor** r) { return glia_embedding(w, good, nullptr, &max_norm, 2.0, r); }), nullptr);
  const std::vector<float> got = values<float>(w, GLIA_FLOAT32, wv.size());
  const float s0 = static_cast<float>(1.0 / (5.0 + 1e-7)), s2 = static_cast<float>(1.0 / (10.0 + 1e-7));
  EXPECT_EQ(got, (std::vector<float>{3 * s0, 4 * s0, 0, 1, 1, 1, 6 * s2, 8 * s2, 0, 0.5f, 0.5f, 0.5f, 9, 9, 9}));
}

TEST_F(CudaLoss, EmbeddingBackwardIsDeterministicAndTheCpus) {
  const int64_t num = 6, dim = 5, n = 200, pad = 2;
  std::vector<float> wv(num * dim), gv(n * dim);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = 0.01f * static_cast<float>(i);
  for (size_t i = 0; i < gv.size(); ++i) gv[i] = static_cast<float>(3 * std::sin(0.37 * static_cast<double>(i)));
  std::vector<int64_t> iv(n);
  for (int64_t k = 0; k < n; ++k) iv[k] = (k * 7 + k / 3) % num;
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_BFLOAT16, GLIA_FLOAT16}) {
    SCOPED_TRACE(dt);
    auto grad_on = [&](const glia_device& dev) {
      glia_tensor* w = tensor(wv, {num, dim}, GLIA_FLOAT32, dev, dt);
      glia_tensor* idx = tensor(iv, {n}, GLIA_INT64, dev, GLIA_INT64);
      glia_tensor* g = tensor(gv, {n, dim}, GLIA_FLOAT32, dev, dt);
      std::vector<float> none;
      if (!w || !idx || !g) return none;
      EXPECT_EQ(glia_tensor_set_requires_grad(w, 1), nullptr);
      glia_tensor* out = made([&](glia_tensor** o) { return glia_embedding(w, idx, &pad, nullptr, 2.0, o); });
      if (!out) return none;
      EXPECT_EQ(glia_tensor_backward(out, g, 0), nullptr);
      glia_tensor* gw = made([&](glia_tensor** o) { return glia_tensor_grad(w, o); });
      return gw ? values<float>(gw, GLIA_FLOAT32, static_cast<size_t>(num * dim)) : none;
    };
    const std::vector<float> a = grad_on(kCuda), b = grad_on(kCuda), cpu = grad_on(kCpu);
    ASSERT_EQ(a.size(), static_cast<size_t>(num * dim));
    ASSERT_EQ(b.size(), a.size());
    ASSERT_EQ(cpu.size(), a.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0) << "two runs differ";
    EXPECT_EQ(std::memcmp(a.data(), cpu.data(), a.size() * 4), 0) << "the GPU's gradient is not the CPU's";
    for (int64_t j = 0; j < dim; ++j) EXPECT_EQ(a[pad * dim + j], 0.0f);
    float total = 0;
    for (float v : a) total += std::fabs(v);
    EXPECT_GT(total, 1.0f);
  }
}

TEST_F(CudaLoss, LargeReductionsAreDeterministicAndMatchTheCpu) {
  const int64_t n = 300001;  // several blocks of Note [Deterministic loss reductions]
  std::vector<double> xv(n), tv(n);
  for (int64_t i = 0; i < n; ++i) {
    xv[i] = 2 * std::sin(0.001 * static_cast<double>(i));
    tv[i] = std::cos(0.0007 * static_cast<double>(i));
  }
  glia_tensor* xg = tensor(xv, {n}, GLIA_FLOAT64, kCuda, GLIA_FLOAT64);
  glia_tensor* tg = tensor(tv, {n}, GLIA_FLOAT64, kCuda, GLIA_FLOAT64);
  glia_tensor* xc = tensor(xv, {n}, GLIA_FLOAT64, kCpu, GLIA_FLOAT64);
  glia_tensor* tc = tensor(tv, {n}, GLIA_FLOAT64, kCpu, GLIA_FLOAT64);
  using Loss = std::function<glia_error*(const glia_tensor*, const glia_tensor*, glia_reduction, glia_tensor**)>;
  const std::vector<std::pair<const char*, Loss>> losses = {
      {"mse_loss", glia_mse_loss},
      {"l1_loss", glia_l1_loss},
      {"smooth_l1_loss", [](const glia_tensor* a, const glia_tensor* b, glia_reduction r,
                            glia_tensor** o) { return glia_smooth_l1_loss(a, b, r, 0.5, o); }},
      {"huber_loss", [](const glia_tensor* a, const glia_tensor* b, glia_reduction r,
                        glia_tensor** o) { return glia_huber_loss(a, b, r, 0.8, o); }},
      {"binary_cross_entropy_with_logits",
       [](const glia_tensor* a, const glia_tensor* b, glia_reduction r, glia_tensor** o) {
         return glia_binary_cross_entropy_with_logits(a, b, nullptr, nullptr, r, o);
       }},
  };
  for (const auto& [name, f] : losses)
    for (glia_reduction r : {GLIA_REDUCTION_MEAN, GLIA_REDUCTION_SUM}) {
      SCOPED_TRACE(std::string(name) + (r == GLIA_REDUCTION_MEAN ? " mean" : " sum"));
      const double g1 = scalar(made([&](glia_tensor** o) { return f(xg, tg, r, o); }));
      const double g2 = scalar(made([&](glia_tensor** o) { return f(xg, tg, r, o); }));
      const double c = scalar(made([&](glia_tensor** o) { return f(xc, tc, r, o); }));
      uint64_t b1, b2;
      std::memcpy(&b1, &g1, 8);
      std::memcpy(&b2, &g2, 8);
      EXPECT_EQ(b1, b2) << "two runs differ";
      EXPECT_NEAR(g1, c, 1e-10 * std::fabs(c)) << "GPU " << g1 << ", CPU " << c;
    }

  // cross_entropy with class weights, ignore_index and label smoothing: value and input gradient.
  const int64_t N = 4000, C = 7;
  std::vector<double> lv(N * C), cw = {0.5, 1.0, 2.0, 0.25, 1.5, 1.0, 3.0};
  std::vector<int64_t> cls(N);
  for (int64_t i = 0; i < N * C; ++i) lv[i] = 3 * std::sin(0.013 * static_cast<double>(i));
  for (int64_t i = 0; i < N; ++i) cls[i] = (i * 5 + i / 7) % C;
  auto ce = [&](const glia_device& dev, std::vector<double>* grad) {
    glia_tensor* x = tensor(lv, {N, C}, GLIA_FLOAT64, dev, GLIA_FLOAT64);
    glia_tensor* t = tensor(cls, {N}, GLIA_INT64, dev, GLIA_INT64);
    glia_tensor* w = tensor(cw, {C}, GLIA_FLOAT64, dev, GLIA_FLOAT64);
    if (!x || !t || !w) return std::nan("");
    EXPECT_EQ(glia_tensor_set_requires_grad(x, 1), nullptr);
    glia_cross_entropy_options o;
    glia_cross_entropy_options_init(&o);
    o.weight = w;
    o.ignore_index = 3;
    o.label_smoothing = 0.1;
    glia_tensor* l = made([&](glia_tensor** r) { return glia_cross_entropy(x, t, &o, r); });
    if (!l) return std::nan("");
    const double v = scalar(l);
    EXPECT_EQ(glia_tensor_backward(l, nullptr, 0), nullptr);
    glia_tensor* gx = made([&](glia_tensor** r) { return glia_tensor_grad(x, r); });
    if (gx) *grad = values<double>(gx, GLIA_FLOAT64, static_cast<size_t>(N * C));
    return v;
  };
  std::vector<double> ga, gb, gc;
  const double va = ce(kCuda, &ga), vb = ce(kCuda, &gb), vc = ce(kCpu, &gc);
  EXPECT_EQ(std::memcmp(&va, &vb, 8), 0);
  EXPECT_NEAR(va, vc, 1e-10 * std::fabs(vc));
  ASSERT_EQ(ga.size(), static_cast<size_t>(N * C));
  ASSERT_EQ(gc.size(), ga.size());
  EXPECT_EQ(ga, gb) << "two runs differ";
  for (size_t i = 0; i < ga.size(); ++i) ASSERT_NEAR(ga[i], gc[i], 1e-12 * (1 + std::fabs(gc[i]))) << i;
}

}  // namespace
