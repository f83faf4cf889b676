// glia_bench --workload W1|W2 [--threads N] [--reps R]
// Prints one line per measurement: "<id> threads=<n> median=<value> unit=<unit>".
// Workloads follow ../shared/design/BENCHMARKS.md; only W1 and W2 exist so far
// (W3-W8 need the layers of later issues).
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
      std::fprintf(stderr, "usage: %s [--workload W1|W2|all] [--threads N] [--reps R]\n", argv[0]);
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
  glia_shutdown();
  return 0;
}
