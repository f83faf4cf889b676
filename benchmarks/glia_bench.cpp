// glia_bench --workload W1|W2|W3|W3L|W4|W5|W6|W8|all [--threads N] [--reps R]
// Prints one line per measurement: "<id> threads=<n> median=<value> unit=<unit>".
// W7 (Fashion-MNIST epochs) is examples/c/fashion_mnist.c itself, run by scripts/bench.sh; W8 here is
// part (c) of the footprint, the peak RSS of a fresh process after 200 W4 steps (not part of "all");
// its parts (a) and (b) are scripts/bench.sh (ldd closure) and w8_spawn + w8_cold (cold start).
// benchmarks/torch_bench.cpp is libtorch's side, with the same command line and output.
// Workloads follow ../shared/design/BENCHMARKS.md: W1, W2, W5 (conv), W6 (GEMM
// with the raw cblas_sgemm baseline and the ratio) and W3L, the linear layers
// of W3 (forward + backward of Linear(784,256)-Linear(256,128)-Linear(128,10),
// batch 64; the activations and the loss of W3 belong to other families), and the train steps W3
// (MLP) and W4 (LeNet) through the module and optimizer API (glia_nn_*, glia_optim_sgd): forward,
// cross-entropy loss, zero_grad, backward, SGD-momentum step.
// The networks and the optimizer are built from functional C ops (make_mlp, make_lenet, Sgd);
// swapping in the module classes and glia_optim_sgd changes only those three.
#include <cblas.h>
#include <dlfcn.h>
#include <glia/glia.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
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
  // OpenBLAS is opened here, not linked: linked, its constructor would start its thread pool in
  // every run of this program, and an idle OpenBLAS thread spinning in sched_yield would share the
  // cores with W1-W5 and W8, which a glia program never has (Note [Lazy OpenBLAS]).
  void* blas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!blas) {
    std::fprintf(stderr, "glia_bench: W6 baseline: %s\n", dlerror());
    std::exit(1);
  }
  auto sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(blas, "cblas_sgemm"));
  auto set_threads = reinterpret_cast<decltype(&openblas_set_num_threads)>(dlsym(blas, "openblas_set_num_threads"));
  if (!sgemm || !set_threads) {
    std::fprintf(stderr, "glia_bench: W6 baseline: libopenblas.so.0 lacks cblas_sgemm\n");
    std::exit(1);
  }
  set_threads(threads);
  for (int i = 0; i <= reps; ++i) {
    double t0 = now_ns();
    sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f, C.data(), n);
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

// ---- W3 / W4: train steps through the module and optimizer API ----------------------------------

// nn.Sequential of `mods` (the list's references are handed to the Sequential).
glia_module* sequential(std::initializer_list<glia_module*> mods) {
  std::vector<glia_module*> v(mods);
  glia_module* seq;
  check(glia_nn_sequential(v.data(), static_cast<int64_t>(v.size()), &seq));
  for (glia_module* m : v) check(glia_module_release(m));
  return seq;
}
glia_module* nn_linear(int64_t in, int64_t out) {
  glia_module* m;
  check(glia_nn_linear(in, out, 1, nullptr, &m));
  return m;
}
glia_module* nn_relu() {
  glia_module* m;
  check(glia_nn_relu(nullptr, &m));
  return m;
}
glia_module* nn_conv(int64_t in, int64_t out, int64_t k, int64_t padding) {
  glia_nn_conv2d_options o;
  glia_nn_conv2d_options_init(&o);
  o.padding[0] = o.padding[1] = padding;
  glia_module* m;
  check(glia_nn_conv2d(in, out, k, k, &o, nullptr, &m));
  return m;
}
glia_module* nn_max_pool(int64_t k) {
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  o.kernel_size[0] = o.kernel_size[1] = k;
  glia_module* m;
  check(glia_nn_max_pool2d(&o, nullptr, &m));
  return m;
}
glia_module* nn_flatten() {
  glia_module* m;
  check(glia_nn_flatten(1, -1, nullptr, &m));
  return m;
}

// W3's MLP: Linear(784,256)-ReLU-Linear(256,128)-ReLU-Linear(128,10).
glia_module* make_mlp() {
  return sequential({nn_linear(784, 256), nn_relu(), nn_linear(256, 128), nn_relu(), nn_linear(128, 10)});
}

// W4's LeNet: Conv2d(1,6,5,padding=2)-ReLU-MaxPool2d(2)-Conv2d(6,16,5)-ReLU-MaxPool2d(2)-Flatten-
// Linear(400,120)-ReLU-Linear(120,84)-ReLU-Linear(84,10).
glia_module* make_lenet() {
  return sequential({nn_conv(1, 6, 5, 2), nn_relu(), nn_max_pool(2), nn_conv(6, 16, 5, 0), nn_relu(), nn_max_pool(2),
                     nn_flatten(), nn_linear(400, 120), nn_relu(), nn_linear(120, 84), nn_relu(), nn_linear(84, 10)});
}

// model.parameters() (new references).
std::vector<glia_tensor*> parameters(glia_module* m) {
  glia_tensor_dict* d;
  check(glia_module_named_parameters(m, nullptr, 1, 1, &d));
  int64_t n;
  check(glia_tensor_dict_size(d, &n));
  std::vector<glia_tensor*> ps(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) check(glia_tensor_dict_value_at(d, i, &ps[static_cast<size_t>(i)]));
  check(glia_tensor_dict_release(d));
  return ps;
}

// One train step: forward, loss, zero_grad, backward, step.
void train_step(glia_module* model, glia_module* loss_fn, glia_optimizer* opt, glia_tensor* x, glia_tensor* target) {
  glia_tensor* logits;
  int64_t n;
  check(glia_module_forward(model, &x, 1, &logits, 1, &n));
  const glia_tensor* loss_in[] = {logits, target};
  glia_tensor* loss;
  check(glia_module_forward(loss_fn, loss_in, 2, &loss, 1, &n));
  check(glia_tensor_release(logits));
  check(glia_optimizer_zero_grad(opt, 1));
  check(glia_tensor_backward(loss, nullptr, 0));
  check(glia_optimizer_step(opt));
  check(glia_tensor_release(loss));
}

glia_tensor* class_targets(int64_t n, int64_t classes) {
  std::mt19937 gen(0);
  std::vector<int64_t> t(n);
  for (auto& v : t) v = static_cast<int64_t>(gen() % classes);
  glia_tensor* out;
  check(glia_tensor_from_data(t.data(), t.size() * sizeof(int64_t), &n, 1, GLIA_INT64, &out));
  return out;
}

// Median time per train step (us) over `reps` rounds of `iters` steps, after a warm-up round:
// the model, CrossEntropyLoss and SGD(lr 0.01, momentum 0.9) as BENCHMARKS.md describes.
double train_bench(bool lenet, int reps, int iters) {
  glia_module* model = lenet ? make_lenet() : make_mlp();
  glia_module* loss_fn;
  check(glia_nn_cross_entropy_loss(nullptr, nullptr, &loss_fn));
  std::vector<glia_tensor*> ps = parameters(model);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 0.01;
  so.momentum = 0.9;
  glia_optimizer* opt;
  check(glia_optim_sgd(ps.data(), static_cast<int64_t>(ps.size()), &so, &opt));
  for (glia_tensor* p : ps) check(glia_tensor_release(p));
  glia_tensor* x = lenet ? randn({64, 1, 28, 28}) : randn({64, 784});
  glia_tensor* target = class_targets(64, 10);
  double us = median_of(reps, [&] {
    double t0 = now_ns();
    for (int i = 0; i < iters; ++i) train_step(model, loss_fn, opt, x, target);
    return (now_ns() - t0) / iters / 1000.0;
  });
  check(glia_tensor_release(x));
  check(glia_tensor_release(target));
  check(glia_optimizer_release(opt));
  check(glia_module_release(loss_fn));
  check(glia_module_release(model));
  return us;
}

// W8 (c): peak RSS of this fresh process after 200 W4 steps, MiB.
void w8_rss(int threads) {
  glia_module* model = make_lenet();
  glia_module* loss_fn;
  check(glia_nn_cross_entropy_loss(nullptr, nullptr, &loss_fn));
  std::vector<glia_tensor*> ps = parameters(model);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 0.01;
  so.momentum = 0.9;
  glia_optimizer* opt;
  check(glia_optim_sgd(ps.data(), static_cast<int64_t>(ps.size()), &so, &opt));
  for (glia_tensor* p : ps) check(glia_tensor_release(p));
  glia_tensor* x = randn({64, 1, 28, 28});
  glia_tensor* target = class_targets(64, 10);
  for (int i = 0; i < 200; ++i) train_step(model, loss_fn, opt, x, target);
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("W8-rss threads=%d median=%.1f unit=MiB\n", threads, static_cast<double>(u.ru_maxrss) / 1024.0);
  check(glia_tensor_release(x));
  check(glia_tensor_release(target));
  check(glia_optimizer_release(opt));
  check(glia_module_release(loss_fn));
  check(glia_module_release(model));
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
      std::fprintf(stderr, "usage: %s [--workload W1|W2|W3|W3L|W4|W5|W6|W8|all] [--threads N] [--reps R]\n", argv[0]);
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
  if (all || workload == "W3") {
    std::printf("W3 threads=%d median=%.1f unit=us/step\n", threads, train_bench(false, reps, 100));
  }
  if (all || workload == "W4") {
    std::printf("W4 threads=%d median=%.3f unit=ms/step\n", threads, train_bench(true, reps, 20) / 1000.0);
  }
  if (all || workload == "W5") w5(reps, threads);
  if (all || workload == "W6") w6(reps, threads);
  if (workload == "W8") w8_rss(threads);
  glia_shutdown();
  return 0;
}
