// glia_bench --workload W1|W2|W3L|W5|W6|all [--threads N] [--reps R]
// Prints one line per measurement: "<id> threads=<n> median=<value> unit=<unit>".
// Workloads follow ../shared/design/BENCHMARKS.md: W1, W2, W5 (conv), W6 (GEMM
// with the raw cblas_sgemm baseline and the ratio) and W3L, the linear layers
// of W3 (forward + backward of Linear(784,256)-Linear(256,128)-Linear(128,10),
// batch 64; the activations and the loss of W3 belong to other families).
#include <cblas.h>
#include <glia/glia.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void check(glia_error* e) {
  if (e) {
    std::fprintf(stderr, "glia error: %s\n", glia_error_message(e));
    std::exit(1);
  }
}

double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
double median_of(int reps, F&& f) {
  std::vector<double> v;
  f();  // warm-up
  for (int i = 0; i < reps; ++i) v.push_back(f());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// W1: c = a + b, grad mode off, ns per op.
double w1(int64_t n, int iters) {
  glia_tensor *a, *b;
  check(glia_tensor_ones(&n, 1, nullptr, &a));
  check(glia_tensor_ones(&n, 1, nullptr, &b));
  glia_grad_mode_set(0);
  double t0 = now_ns();
  for (int i = 0; i < iters; ++i) {
    glia_tensor* c;
    check(glia_add(a, b, 1.0, &c));
    check(glia_tensor_release(c));
  }
  double t = (now_ns() - t0) / iters;
  glia_grad_mode_set(1);
  check(glia_tensor_release(a));
  check(glia_tensor_release(b));
  return t;
}

// W2: y = (a*b + c).sum(); y.backward(); grads reset each time. us per iteration.
double w2(int iters) {
  glia_tensor* t[3];
  int64_t one = 1;
  for (auto& x : t) {
    check(glia_tensor_ones(&one, 1, nullptr, &x));
    check(glia_tensor_set_requires_grad(x, 1));
  }
  double t0 = now_ns();
  for (int i = 0; i < iters; ++i) {
    glia_tensor *ab, *abc, *y;
    check(glia_mul(t[0], t[1], &ab));
    check(glia_add(ab, t[2], 1.0, &abc));
    check(glia_sum(abc, nullptr, 0, 0, &y));
    check(glia_tensor_backward(y, nullptr, 0));
    check(glia_tensor_release(ab));
    check(glia_tensor_release(abc));
    check(glia_tensor_release(y));
    for (auto& x : t) check(glia_tensor_set_grad(x, nullptr));
  }
  double us = (now_ns() - t0) / iters / 1000.0;
  for (auto& x : t) check(glia_tensor_release(x));
  return us;
}

glia_tensor* randn(std::initializer_list<int64_t> shape) {
  std::vector<int64_t> s(shape);
  glia_tensor* t;
  check(glia_tensor_randn(s.data(), static_cast<int64_t>(s.size()), nullptr, &t));
  return t;
}

glia_tensor* ones_like_shape(std::initializer_list<int64_t> shape) {
  std::vector<int64_t> s(shape);
  glia_tensor* t;
  check(glia_tensor_ones(s.data(), static_cast<int64_t>(s.size()), nullptr, &t));
  return t;
}

// W5: Conv2d(64, 64, 3, padding=1) on 8x64x56x56. Forward with grad mode off; backward = grad input +
// grad weight (+ bias) through retain_graph backward of one recorded forward. GFLOP/s with
// 2*N*Cout*H*W*Cin*9 flops per pass (backward: two passes).
void w5(int reps, int threads) {
  const double flop = 2.0 * 8 * 64 * 56 * 56 * 64 * 9;
  glia_tensor *x = randn({8, 64, 56, 56}), *w = randn({64, 64, 3, 3}), *b = randn({64});
  glia_conv2d_options o;
  glia_conv2d_options_init(&o);
  o.padding[0] = o.padding[1] = 1;
  glia_grad_mode_set(0);
  double fwd = median_of(reps, [&] {
    glia_tensor* y;
    double t0 = now_ns();
    check(glia_conv2d(x, w, b, &o, &y));
    double t = now_ns() - t0;
    check(glia_tensor_release(y));
    return t;
  });
  glia_grad_mode_set(1);
  check(glia_tensor_set_requires_grad(x, 1));
  check(glia_tensor_set_requires_grad(w, 1));
  check(glia_tensor_set_requires_grad(b, 1));
  glia_tensor* y;
  check(glia_conv2d(x, w, b, &o, &y));
  glia_tensor* gy = ones_like_shape({8, 64, 56, 56});
  double bwd = median_of(reps, [&] {
    double t0 = now_ns();
    check(glia_tensor_backward(y, gy, 1));
    double t = now_ns() - t0;
    for (glia_tensor* p : {x, w, b}) check(glia_tensor_set_grad(p, nullptr));
    return t;
  });
  std::printf("W5-fwd threads=%d median=%.1f unit=GFLOP/s (%.2f ms)\n", threads, flop / fwd, fwd / 1e6);
  std::printf("W5-bwd threads=%d median=%.1f unit=GFLOP/s (%.2f ms)\n", threads, 2 * flop / bwd, bwd / 1e6);
  for (glia_tensor* t : {x, w, b, y, gy}) check(glia_tensor_release(t));
}

// W6: 1024^3 GEMM through glia_matmul and through cblas_sgemm directly (OpenBLAS at `threads`
// threads for the baseline; glia runs OpenBLAS single-threaded on its own pool, Note [BLAS threads]).
void w6(int reps, int threads) {
  const int64_t n = 1024;
  const double flop = 2.0 * n * n * n;
  glia_tensor *a = randn({n, n}), *b = randn({n, n});
  std::vector<float> A(n * n, 0.5f), B(n * n, 0.25f), C(n * n);
  glia_grad_mode_set(0);
  std::vector<double> tg, tb;
  // glia first, then the baseline, each with a warm-up round: interleaving them would measure
  // glia's pool while OpenBLAS's own threads still spin after their call (two pools fighting is
  // the very thing glia avoids; Note [BLAS threads]).
  for (int i = 0; i <= reps; ++i) {
    double t1 = now_ns();
    glia_tensor* c;
    check(glia_matmul(a, b, &c));
    double t2 = now_ns();
    check(glia_tensor_release(c));
    if (i) tg.push_back(t2 - t1);
  }
  openblas_set_num_threads(threads);
  for (int i = 0; i <= reps; ++i) {
    double t0 = now_ns();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f, C.data(), n);
    double t1 = now_ns();
    if (i) tb.push_back(t1 - t0);
  }
  glia_grad_mode_set(1);
  std::sort(tg.begin(), tg.end());
  std::sort(tb.begin(), tb.end());
  double g = flop / tg[tg.size() / 2], base = flop / tb[tb.size() / 2];
  std::printf("W6-glia_matmul threads=%d median=%.1f unit=GFLOP/s\n", threads, g);
  std::printf("W6-cblas_sgemm threads=%d median=%.1f unit=GFLOP/s\n", threads, base);
  std::printf("W6-ratio threads=%d median=%.3f unit=glia/cblas\n", threads, g / base);
  check(glia_tensor_release(a));
  check(glia_tensor_release(b));
}

// W3L: the linear layers of W3 (batch 64): forward, sum, backward; us per step.
double w3l(int iters) {
  glia_tensor* x = randn({64, 784});
  glia_tensor* ws[3] = {randn({256, 784}), randn({128, 256}), randn({10, 128})};
  glia_tensor* bs[3] = {randn({256}), randn({128}), randn({10})};
  for (int l = 0; l < 3; ++l) {
    check(glia_tensor_set_requires_grad(ws[l], 1));
    check(glia_tensor_set_requires_grad(bs[l], 1));
  }
  double t0 = now_ns();
  for (int i = 0; i < iters; ++i) {
    glia_tensor* h[3];
    check(glia_linear(x, ws[0], bs[0], &h[0]));
    check(glia_linear(h[0], ws[1], bs[1], &h[1]));
    check(glia_linear(h[1], ws[2], bs[2], &h[2]));
    glia_tensor* s;
    check(glia_sum(h[2], nullptr, 0, 0, &s));
    check(glia_tensor_backward(s, nullptr, 0));
    check(glia_tensor_release(s));
    for (glia_tensor* t : h) check(glia_tensor_release(t));
    for (int l = 0; l < 3; ++l) {
      check(glia_tensor_set_grad(ws[l], nullptr));
      check(glia_tensor_set_grad(bs[l], nullptr));
    }
  }
  double us = (now_ns() - t0) / iters / 1000.0;
  check(glia_tensor_release(x));
  for (int l = 0; l < 3; ++l) {
    check(glia_tensor_release(ws[l]));
    check(glia_tensor_release(bs[l]));
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  std::string workload = "all";
  int threads = 1, reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--workload"))
      workload = argv[i + 1];
    else if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps"))
      reps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--workload W1|W2|W3L|W5|W6|all] [--threads N] [--reps R]\n", argv[0]);
      return 2;
    }
  }
  check(glia_set_num_threads(threads));
  bool all = workload == "all";
  if (all || workload == "W1") {
    std::printf("W1-1 threads=%d median=%.1f unit=ns/op\n", threads, median_of(reps, [] { return w1(1, 200000); }));
    std::printf("W1-1000 threads=%d median=%.1f unit=ns/op\n", threads,
                median_of(reps, [] { return w1(1000, 200000); }));
  }
  if (all || workload == "W2") {
    std::printf("W2 threads=%d median=%.2f unit=us/iter\n", threads, median_of(reps, [] { return w2(20000); }));
  }
  if (all || workload == "W3L") {
    std::printf("W3L threads=%d median=%.1f unit=us/step\n", threads, median_of(reps, [] { return w3l(200); }));
  }
  if (all || workload == "W5") w5(reps, threads);
  if (all || workload == "W6") w6(reps, threads);
  glia_shutdown();
  return 0;
}
