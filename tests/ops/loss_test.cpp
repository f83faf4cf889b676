// Losses against tests/golden/gen_reduce.py's fixtures (ops/loss.json), plus the
// options structs' struct_size handling and large inputs (parallel vs serial).
#include <cstddef>
#include <cstring>

#include "autograd/functions.h"
#include "core/parallel.h"
#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
glia_reduction red(const Call& c) {
  std::string r = c.str("reduction", "mean");
  return r == "none" ? GLIA_REDUCTION_NONE : r == "sum" ? GLIA_REDUCTION_SUM : GLIA_REDUCTION_MEAN;
}
glia_tensor* opt_in(const Call& c, size_t k) { return k < c.in.size() ? c.in[k] : nullptr; }
}  // namespace

GLIA_ADAPTER(mse_loss) { return glia_mse_loss(c.in[0], c.in[1], red(c), c.out()); }
GLIA_ADAPTER(l1_loss) { return glia_l1_loss(c.in[0], c.in[1], red(c), c.out()); }
GLIA_ADAPTER(smooth_l1_loss) { return glia_smooth_l1_loss(c.in[0], c.in[1], red(c), c.num("beta", 1.0), c.out()); }
GLIA_ADAPTER(huber_loss) { return glia_huber_loss(c.in[0], c.in[1], red(c), c.num("delta", 1.0), c.out()); }
GLIA_ADAPTER(binary_cross_entropy) {
  return glia_binary_cross_entropy(c.in[0], c.in[1], opt_in(c, 2), red(c), c.out());
}
GLIA_ADAPTER(binary_cross_entropy_with_logits) {
  return glia_binary_cross_entropy_with_logits(c.in[0], c.in[1], opt_in(c, 2), opt_in(c, 3), red(c), c.out());
}
GLIA_ADAPTER(nll_loss) {
  glia_nll_loss_options o;
  glia_nll_loss_options_init(&o);
  o.weight = opt_in(c, 2);
  o.ignore_index = c.integer("ignore_index", -100);
  o.reduction = red(c);
  return glia_nll_loss(c.in[0], c.in[1], &o, c.out());
}
GLIA_ADAPTER(cross_entropy) {
  glia_cross_entropy_options o;
  glia_cross_entropy_options_init(&o);
  o.weight = opt_in(c, 2);
  o.ignore_index = c.integer("ignore_index", -100);
  o.reduction = red(c);
  o.label_smoothing = c.num("label_smoothing", 0.0);
  return glia_cross_entropy(c.in[0], c.in[1], &o, c.out());
}

TEST(Loss, Golden) { run_cases("loss.json"); }
TEST(Loss, Errors) { run_errors("loss.json"); }

TEST(Loss, OptionsDefaultsAndStructSize) {
  Handles h;
  glia_tensor* x = make(h, {0.5, -1.0, 2.0, 0.25, 1.5, -0.5}, {2, 3});
  glia_tensor* t = nullptr;
  {
    int64_t tv[2] = {2, 0};
    int64_t shape[1] = {2};
    GLIA_OK_(glia_tensor_from_data(tv, sizeof tv, shape, 1, GLIA_INT64, &t));
    h.add(t);
  }
  glia_tensor *a = nullptr, *b = nullptr, *d = nullptr;
  GLIA_OK_(glia_cross_entropy(x, t, nullptr, &a));
  h.add(a);
  glia_cross_entropy_options o;
  glia_cross_entropy_options_init(&o);
  EXPECT_EQ(o.ignore_index, -100);
  EXPECT_EQ(o.reduction, GLIA_REDUCTION_MEAN);
  // An older caller's struct that ends before label_smoothing: the rest keeps its default.
  o.label_smoothing = 0.7;
  o.struct_size = offsetof(glia_cross_entropy_options, label_smoothing);
  GLIA_OK_(glia_cross_entropy(x, t, &o, &b));
  h.add(b);
  EXPECT_EQ(values(a), values(b));
  o.struct_size = sizeof o;
  GLIA_OK_(glia_cross_entropy(x, t, &o, &d));
  h.add(d);
  EXPECT_NE(values(a), values(d));
  o.struct_size = 0;
  glia_tensor* bad = nullptr;
  glia_error* e = glia_cross_entropy(x, t, &o, &bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
  glia_error_free(e);
  glia_nll_loss_options no;
  glia_nll_loss_options_init(&no);
  no.reduction = static_cast<glia_reduction>(7);
  e = glia_nll_loss(x, t, &no, &bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  glia_error_free(e);
}

namespace {
using glia::Tensor;
Tensor det_values(const std::vector<int64_t>& shape, glia::DType dt, uint64_t seed, double lo, double hi) {
  Tensor t = glia::empty(shape, glia::DType::Float64, glia::Device{});
  double* p = t.data_ptr<double>();
  uint64_t s = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    p[i] = lo + (hi - lo) * static_cast<double>((s >> 11) & ((1ULL << 40) - 1)) / static_cast<double>(1ULL << 40);
  }
  return glia::to_dtype(t, dt);
}
double scalar(const Tensor& t) { return glia::item_double(t); }
}  // namespace

TEST(Loss, LargeParallelMatchesSerial) {
  using glia::DType;
  using glia::Reduction;
  Tensor x = det_values({3000, 40}, DType::Float32, 1, -3, 3);
  Tensor y = det_values({3000, 40}, DType::Float32, 2, 0, 1);
  Tensor tgt = glia::empty(std::vector<int64_t>{3000}, DType::Int64, glia::Device{});
  for (int64_t i = 0; i < 3000; ++i) tgt.data_ptr<int64_t>()[i] = (i * 7) % 40;
  auto run = [&] {
    return std::vector<double>{
        scalar(glia::mse_loss(x, y)),
        scalar(glia::l1_loss(x, y, Reduction::Sum)),
        scalar(glia::smooth_l1_loss(x, y, Reduction::Mean, 0.5)),
        scalar(glia::huber_loss(x, y)),
        scalar(glia::binary_cross_entropy_with_logits(x, y)),
        scalar(glia::cross_entropy(x, tgt)),
        scalar(glia::cross_entropy(x, tgt, {}, -100, Reduction::Mean, 0.1)),
        scalar(glia::nll_loss(x, tgt, {}, -100, Reduction::Sum)),
    };
  };
  int threads = glia::get_num_threads();
  glia::set_num_threads(1);
  auto serial = run();
  glia::set_num_threads(std::max(threads, 4));
  auto par = run();
  glia::set_num_threads(threads);
  // Chunked sums in chunk order: identical whatever the number of threads.
  EXPECT_EQ(serial, par);
}
