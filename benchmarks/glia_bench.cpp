// glia_bench --workload W1|W2|W3|W3L|W4|W5|W6|all [--threads N] [--reps R]
// Prints one line per measurement: "<id> threads=<n> median=<value> unit=<unit>".
// Workloads follow ../shared/design/BENCHMARKS.md: W1, W2, W5 (conv), W6 (GEMM
// with the raw cblas_sgemm baseline and the ratio) and W3L, the linear layers
// of W3 (forward + backward of Linear(784,256)-Linear(256,128)-Linear(128,10),
// batch 64; the activations and the loss of W3 belong to other families), and the train steps W3
// (MLP) and W4 (LeNet): forward, cross-entropy loss, zero_grad, backward, SGD-momentum step.
// The networks and the optimizer are built from functional C ops (make_mlp, make_lenet, Sgd);
// swapping in the module classes and glia_optim_sgd changes only those three.
#include <cblas.h>
#include <glia/glia.h>

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

// ---- W3 / W4: train steps ----------------------------------------------------------------------

// A network as its parameters and a forward function (the caller releases the output).
struct Net {
  std::vector<glia_tensor*> params;
  std::function<glia_tensor*(glia_tensor*)> forward;
  ~Net() {
    for (glia_tensor* p : params) check(glia_tensor_release(p));
  }
};

// uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) as torch's Linear/Conv2d default init gives (weights and
// biases: the kaiming_uniform(a=sqrt(5)) bound equals the bias bound).
glia_tensor* param(std::initializer_list<int64_t> shape, int64_t fan_in) {
  std::vector<int64_t> s(shape);
  glia_tensor* t;
  check(glia_tensor_rand(s.data(), static_cast<int64_t>(s.size()), nullptr, &t));
  double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  check(glia_mul_scalar_(t, glia_scalar_float(2 * bound)));
  check(glia_add_scalar_(t, glia_scalar_float(-bound), 1.0));
  check(glia_tensor_set_requires_grad(t, 1));
  return t;
}

// Linear(in, out) appended to net.params; returns the index of its weight.
size_t add_linear(Net& net, int64_t in, int64_t out) {
  net.params.push_back(param({out, in}, in));
  net.params.push_back(param({out}, in));
  return net.params.size() - 2;
}

// Applies y = f(x) and releases x (the graph keeps what backward needs).
glia_tensor* then(glia_tensor* x, glia_tensor* y) {
  check(glia_tensor_release(x));
  return y;
}
glia_tensor* linear(glia_tensor* x, const Net& net, size_t w) {
  glia_tensor* y;
  check(glia_linear(x, net.params[w], net.params[w + 1], &y));
  return y;
}
glia_tensor* relu(glia_tensor* x) {
  glia_tensor* y;
  check(glia_relu(x, &y));
  return then(x, y);
}

// W3's MLP: Linear(784,256)-ReLU-Linear(256,128)-ReLU-Linear(128,10).
void make_mlp(Net& net) {
  size_t l1 = add_linear(net, 784, 256), l2 = add_linear(net, 256, 128), l3 = add_linear(net, 128, 10);
  net.forward = [&net, l1, l2, l3](glia_tensor* x) {
    glia_tensor* h = relu(linear(x, net, l1));
    h = relu(then(h, linear(h, net, l2)));
    return then(h, linear(h, net, l3));
  };
}

// W4's LeNet: Conv2d(1,6,5,padding=2)-ReLU-MaxPool2d(2)-Conv2d(6,16,5)-ReLU-MaxPool2d(2)-Flatten-
// Linear(400,120)-ReLU-Linear(120,84)-ReLU-Linear(84,10).
void make_lenet(Net& net) {
  net.params.push_back(param({6, 1, 5, 5}, 25));
  net.params.push_back(param({6}, 25));
  net.params.push_back(param({16, 6, 5, 5}, 150));
  net.params.push_back(param({16}, 150));
  size_t l1 = add_linear(net, 400, 120), l2 = add_linear(net, 120, 84), l3 = add_linear(net, 84, 10);
  net.forward = [&net, l1, l2, l3](glia_tensor* x) {
    glia_conv2d_options c1, c2;
    glia_conv2d_options_init(&c1);
    glia_conv2d_options_init(&c2);
    c1.padding[0] = c1.padding[1] = 2;
    glia_max_pool2d_options mp;
    glia_max_pool2d_options_init(&mp);
    mp.kernel_size[0] = mp.kernel_size[1] = 2;
    glia_tensor* h;
    check(glia_conv2d(x, net.params[0], net.params[1], &c1, &h));
    h = relu(h);
    glia_tensor* p;
    check(glia_max_pool2d(h, &mp, &p, nullptr));
    h = then(h, p);
    check(glia_conv2d(h, net.params[2], net.params[3], &c2, &p));
    h = relu(then(h, p));
    check(glia_max_pool2d(h, &mp, &p, nullptr));
    h = then(h, p);
    check(glia_flatten(h, 1, -1, &p));
    h = then(h, p);
    h = relu(then(h, linear(h, net, l1)));
    h = relu(then(h, linear(h, net, l2)));
    return then(h, linear(h, net, l3));
  };
}

// torch.optim.SGD(lr, momentum) with dampening 0, no weight decay, no nesterov:
// buf = grad on the first step, then buf = momentum * buf + grad; p -= lr * buf.
// zero_grad sets the grads to None (torch 2.x's default).
struct Sgd {
  std::vector<glia_tensor*> params, bufs;
  double lr, momentum;
  Sgd(const std::vector<glia_tensor*>& ps, double lr_, double m)
      : params(ps), bufs(ps.size(), nullptr), lr(lr_), momentum(m) {}
  ~Sgd() {
    for (glia_tensor* b : bufs)
      if (b) check(glia_tensor_release(b));
  }
  void zero_grad() {
    for (glia_tensor* p : params) check(glia_tensor_set_grad(p, nullptr));
  }
  void step() {
    glia_grad_mode_set(0);
    for (size_t i = 0; i < params.size(); ++i) {
      glia_tensor* g;
      check(glia_tensor_grad(params[i], &g));
      if (!g) continue;
      if (!bufs[i]) {
        check(glia_tensor_clone(g, &bufs[i]));
      } else {
        check(glia_mul_scalar_(bufs[i], glia_scalar_float(momentum)));
        check(glia_add_(bufs[i], g, 1.0));
      }
      check(glia_add_(params[i], bufs[i], -lr));
      check(glia_tensor_release(g));
    }
    glia_grad_mode_set(1);
  }
};

// One train step: forward, loss, zero_grad, backward, step.
void train_step(Net& net, Sgd& opt, glia_tensor* x, glia_tensor* target) {
  glia_tensor* logits = net.forward(x);
  glia_tensor* loss;
  check(glia_cross_entropy(logits, target, nullptr, &loss));
  check(glia_tensor_release(logits));
  opt.zero_grad();
  check(glia_tensor_backward(loss, nullptr, 0));
  opt.step();
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

// Median time per train step (us) over `reps` rounds of `iters` steps, after a warm-up round.
double train_bench(bool lenet, int reps, int iters) {
  Net net;
  if (lenet)
    make_lenet(net);
  else
    make_mlp(net);
  Sgd opt(net.params, 0.01, 0.9);
  glia_tensor* x = lenet ? randn({64, 1, 28, 28}) : randn({64, 784});
  glia_tensor* target = class_targets(64, 10);
  double us = median_of(reps, [&] {
    double t0 = now_ns();
    for (int i = 0; i < iters; ++i) train_step(net, opt, x, target);
    return (now_ns() - t0) / iters / 1000.0;
  });
  check(glia_tensor_release(x));
  check(glia_tensor_release(target));
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
      std::fprintf(stderr, "usage: %s [--workload W1|W2|W3|W3L|W4|W5|W6|all] [--threads N] [--reps R]\n", argv[0]);
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
  glia_shutdown();
  return 0;
}
