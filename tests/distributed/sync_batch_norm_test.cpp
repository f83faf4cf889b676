// glia_nn_sync_batch_norm over 2 and 3 forked ranks (a file store on 127.0.0.1) against BatchNorm1d
// on the whole batch in each rank: outputs, input gradients, the weight and bias gradients summed
// over the ranks, running statistics after two steps (float64); eval and no group are BatchNorm;
// the surface (type name, repr, state-dict keys, errors) in one process.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "distributed/dist_support.h"

using namespace dist_test;
using namespace std::chrono_literals;

namespace {

bool gloo_available() {
  int32_t v = 0;
  glia_error_free(glia_dist_is_gloo_available(&v));
  return v == 1;
}

constexpr int64_t kRowsPerRank = 3, kC = 4, kL = 5;

double value(int64_t i, double a, double b) { return std::sin(a * static_cast<double>(i) + b); }

glia_tensor* from(const std::vector<double>& v, std::vector<int64_t> shape) {
  glia_tensor* t = nullptr;
  if (glia_tensor_from_data(v.data(), v.size() * sizeof(double), shape.data(), static_cast<int64_t>(shape.size()),
                            GLIA_FLOAT64, &t))
    std::abort();
  return t;
}

std::vector<double> host(glia_tensor* t) {
  int64_t n = 0;
  if (glia_tensor_numel(t, &n)) std::abort();
  std::vector<double> v(static_cast<size_t>(n));
  if (glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(double))) std::abort();
  return v;
}

bool close(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::abs(a[i] - b[i]) > tol * (1 + std::abs(b[i]))) {
      std::fprintf(stderr, "rank %d: element %zu: %.17g vs %.17g\n", g_rank, i, a[i], b[i]);
      return false;
    }
  return true;
}

struct GradOff {  // torch.no_grad(): writing into a parameter
  GradOff() { glia_grad_mode_set(0); }
  ~GradOff() { glia_grad_mode_set(1); }
};

int get(glia_module* m, const char* path, bool param, std::vector<double>* out) {
  glia_tensor* t = nullptr;
  DOK(param ? glia_module_get_parameter(m, path, &t) : glia_module_get_buffer(m, path, &t));
  *out = host(t);
  DOK(glia_tensor_release(t));
  return 0;
}

int set_affine(glia_module* m) {
  std::vector<double> w(kC), b(kC);
  for (int64_t c = 0; c < kC; ++c) w[c] = 0.5 + value(c, 1.3, 0.2), b[c] = value(c, 0.7, 1.0);
  glia_tensor *wt = from(w, {kC}), *bt = from(b, {kC}), *p = nullptr;
  GradOff off;
  DOK(glia_module_get_parameter(m, "weight", &p));
  DOK(glia_copy_(p, wt));
  DOK(glia_tensor_release(p));
  DOK(glia_module_get_parameter(m, "bias", &p));
  DOK(glia_copy_(p, bt));
  DOK(glia_tensor_release(p));
  DOK(glia_tensor_release(wt));
  DOK(glia_tensor_release(bt));
  return 0;
}

// forward x, loss = sum(y * w), backward; *y_out receives y.
int run(glia_module* m, glia_tensor* x, glia_tensor* w, std::vector<double>* y_out) {
  glia_tensor *y = nullptr, *prod = nullptr, *loss = nullptr;
  int64_t n = 0;
  DOK(glia_module_forward(m, &x, 1, &y, 1, &n));
  DOK(glia_mul(y, w, &prod));
  DOK(glia_sum(prod, nullptr, 0, 0, &loss));
  DOK(glia_tensor_backward(loss, nullptr, 0));
  *y_out = host(y);
  DOK(glia_tensor_release(y));
  DOK(glia_tensor_release(prod));
  DOK(glia_tensor_release(loss));
  return 0;
}

int rank_body(int rank, int world, glia_process_group* g) {
  const int64_t rows = kRowsPerRank * world, per = kC * kL;
  std::vector<double> xs(static_cast<size_t>(rows * per)), ws(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = 2 * value(static_cast<int64_t>(i), 0.37, 0.1), ws[i] = value(i, 0.11, 2);
  glia_batch_norm_options o;
  glia_batch_norm_options_init(&o);
  o.momentum = 0.3;
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = GLIA_FLOAT64;
  glia_module *ref = nullptr, *sbn = nullptr;
  DOK(glia_nn_batch_norm1d(kC, &o, &f, &ref));
  DOK(glia_nn_sync_batch_norm(kC, &o, g, &f, &sbn));
  if (set_affine(ref) || set_affine(sbn)) return 1;

  glia_tensor* x_full = from(xs, {rows, kC, kL});
  glia_tensor* w_full = from(ws, {rows, kC, kL});
  DOK(glia_tensor_set_requires_grad(x_full, 1));
  const size_t lo = static_cast<size_t>(rank * kRowsPerRank * per), hi = lo + kRowsPerRank * per;
  glia_tensor* x = from(std::vector<double>(xs.begin() + lo, xs.begin() + hi), {kRowsPerRank, kC, kL});
  glia_tensor* w = from(std::vector<double>(ws.begin() + lo, ws.begin() + hi), {kRowsPerRank, kC, kL});
  DOK(glia_tensor_set_requires_grad(x, 1));
  std::vector<double> y_ref, y;
  if (run(ref, x_full, w_full, &y_ref) || run(sbn, x, w, &y)) return 1;
  DCHECK(close(y, std::vector<double>(y_ref.begin() + lo, y_ref.begin() + hi), 1e-10));
  glia_tensor *gx = nullptr, *gx_full = nullptr;
  DOK(glia_tensor_grad(x, &gx));
  DOK(glia_tensor_grad(x_full, &gx_full));
  std::vector<double> gxv = host(gx), gfull = host(gx_full);
  DCHECK(close(gxv, std::vector<double>(gfull.begin() + lo, gfull.begin() + hi), 1e-9));
  DOK(glia_tensor_release(gx));
  DOK(glia_tensor_release(gx_full));
  for (const char* name : {"weight", "bias"}) {
    glia_tensor *p = nullptr, *gp = nullptr, *pr = nullptr, *gpr = nullptr;
    DOK(glia_module_get_parameter(sbn, name, &p));
    DOK(glia_tensor_grad(p, &gp));
    DOK(glia_process_group_all_reduce(g, gp, GLIA_REDUCE_SUM, nullptr));  // this rank's share, summed
    DOK(glia_module_get_parameter(ref, name, &pr));
    DOK(glia_tensor_grad(pr, &gpr));
    DCHECK(close(host(gp), host(gpr), 1e-9));
    for (glia_tensor* t : {p, gp, pr, gpr}) DOK(glia_tensor_release(t));
  }
  // A second training step, then the running statistics against the reference's.
  if (run(ref, x_full, w_full, &y_ref) || run(sbn, x, w, &y)) return 1;
  for (const char* name : {"running_mean", "running_var", "num_batches_tracked"}) {
    std::vector<double> a, b;
    if (get(sbn, name, false, &a) || get(ref, name, false, &b)) return 1;
    if (std::string(name) == "num_batches_tracked") continue;  // int64: checked below
    DCHECK(close(a, b, 1e-10));
  }
  glia_tensor* nbt = nullptr;
  int64_t steps = 0;
  DOK(glia_module_get_buffer(sbn, "num_batches_tracked", &nbt));
  DOK(glia_tensor_copy_to_host(nbt, &steps, sizeof(steps)));
  DCHECK(steps == 2);
  DOK(glia_tensor_release(nbt));
  // eval: the running statistics, no collective (ranks may differ in how often they call it)
  DOK(glia_module_train(sbn, 0));
  DOK(glia_module_train(ref, 0));
  if (rank == 0) {
    glia_tensor *a = nullptr, *b = nullptr;
    int64_t n = 0;
    DOK(glia_module_forward(sbn, &x, 1, &a, 1, &n));
    DOK(glia_module_forward(ref, &x, 1, &b, 1, &n));
    DCHECK(close(host(a), host(b), 1e-12));
    DOK(glia_tensor_release(a));
    DOK(glia_tensor_release(b));
  }
  for (glia_tensor* t : {x_full, w_full, x, w}) DOK(glia_tensor_release(t));
  DOK(glia_module_release(ref));
  DOK(glia_module_release(sbn));
  return 0;
}

int with_file_group(int n) {
  char dir[] = "/tmp/glia_syncbn_XXXXXX";
  if (!::mkdtemp(dir)) return 1;
  const std::string path = std::string(dir) + "/store";
  Result r = run_ranks(n, 120s, [&](int rank) {
    glia_store* s = nullptr;
    DOK(glia_store_file_create(path.c_str(), n, &s));
    glia_process_group_options o;
    glia_process_group_options_init(&o);
    o.timeout_ms = 20000;
    o.hostname = "127.0.0.1";
    glia_process_group* g = nullptr;
    DOK(glia_process_group_create(s, rank, n, &o, &g));
    int rc = rank_body(rank, n, g);
    if (rc == 0) DOK(glia_process_group_barrier(g, nullptr));
    DOK(glia_process_group_release(g));
    DOK(glia_store_release(s));
    return rc;
  });
  ::unlink(path.c_str());
  ::rmdir(dir);
  EXPECT_FALSE(r.timed_out) << "a rank hung";
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(r.status[i], 0) << "rank " << i;
    bad += r.status[i] != 0;
  }
  return bad;
}

std::string repr(const glia_module* m) {
  size_t n = 0;
  glia_error_free(glia_module_to_string(m, nullptr, 0, &n));
  std::string s(n + 1, '\0');
  glia_error_free(glia_module_to_string(m, s.data(), s.size(), &n));
  s.resize(n);
  return s;
}

std::string message(glia_error* e, int* code) {
  *code = glia_error_code(e);
  std::string m = e ? glia_error_message(e) : "";
  glia_error_free(e);
  return m;
}

}  // namespace

TEST(SyncBatchNorm, TwoRanksMatchBatchNormOnTheWholeBatch) {
  if (!gloo_available()) GTEST_SKIP() << "glia was built without Gloo";
  EXPECT_EQ(with_file_group(2), 0);
}

TEST(SyncBatchNorm, ThreeRanksMatchBatchNormOnTheWholeBatch) {
  if (!gloo_available()) GTEST_SKIP() << "glia was built without Gloo";
  EXPECT_EQ(with_file_group(3), 0);
}

TEST(SyncBatchNorm, WithoutAGroupItIsBatchNormWithTorchsSurface) {
  glia_module *s = nullptr, *b = nullptr;
  ASSERT_EQ(glia_nn_sync_batch_norm(3, nullptr, nullptr, nullptr, &s), nullptr);
  ASSERT_EQ(glia_nn_batch_norm2d(3, nullptr, nullptr, &b), nullptr);
  EXPECT_EQ(repr(s), "SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  std::vector<double> xs(2 * 3 * 2 * 2);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = value(static_cast<int64_t>(i), 0.9, 0.3);
  glia_tensor* x = nullptr;
  int64_t shape[4] = {2, 3, 2, 2};
  ASSERT_EQ(glia_tensor_from_data(xs.data(), xs.size() * sizeof(double), shape, 4, GLIA_FLOAT64, &x), nullptr);
  glia_tensor* xf = nullptr;
  glia_dtype f32 = GLIA_FLOAT32;
  ASSERT_EQ(glia_tensor_to(x, nullptr, &f32, &xf), nullptr);
  glia_tensor *ys = nullptr, *yb = nullptr;
  int64_t n = 0;
  ASSERT_EQ(glia_module_forward(s, &xf, 1, &ys, 1, &n), nullptr);
  ASSERT_EQ(glia_module_forward(b, &xf, 1, &yb, 1, &n), nullptr);
  std::vector<float> a(xs.size()), c(xs.size());
  ASSERT_EQ(glia_tensor_copy_to_host(ys, a.data(), a.size() * sizeof(float)), nullptr);
  ASSERT_EQ(glia_tensor_copy_to_host(yb, c.data(), c.size() * sizeof(float)), nullptr);
  EXPECT_EQ(a, c);
  glia_tensor_dict *ds = nullptr, *db = nullptr;
  ASSERT_EQ(glia_module_state_dict(s, &ds), nullptr);
  ASSERT_EQ(glia_module_state_dict(b, &db), nullptr);
  int64_t ns = 0, nb = 0;
  ASSERT_EQ(glia_tensor_dict_size(ds, &ns), nullptr);
  ASSERT_EQ(glia_tensor_dict_size(db, &nb), nullptr);
  EXPECT_EQ(ns, 5);
  EXPECT_EQ(ns, nb);
  int code = 0;
  glia_tensor* x1 = nullptr;
  int64_t s1 = 3;
  ASSERT_EQ(glia_tensor_from_data(xs.data(), 3 * sizeof(double), &s1, 1, GLIA_FLOAT64, &x1), nullptr);
  EXPECT_EQ(message(glia_module_forward(s, &x1, 1, &ys, 1, &n), &code), "expected at least 2D input (got 1D input)");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message(glia_nn_sync_batch_norm_set_process_group(b, nullptr), &code).find("not a SyncBatchNorm"),
            std::string::npos);
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(glia_nn_sync_batch_norm_set_process_group(s, nullptr), nullptr);
  glia_batch_norm_options o;
  glia_batch_norm_options_init(&o);
  o.struct_size = 3;
  EXPECT_NE(message(glia_nn_sync_batch_norm(3, &o, nullptr, nullptr, &b), &code).find("glia_nn_sync_batch_norm"),
            std::string::npos);
  for (glia_tensor* t : {x, xf, ys, yb, x1}) glia_error_free(glia_tensor_release(t));
  glia_error_free(glia_tensor_dict_release(ds));
  glia_error_free(glia_tensor_dict_release(db));
  glia_error_free(glia_module_release(s));
  glia_error_free(glia_module_release(b));
}
