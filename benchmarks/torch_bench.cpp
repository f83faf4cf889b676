// torch_bench --workload W1|W2|W3|W4|W5|W6|W7|W8|all [--threads N] [--reps R] [--epochs E] [--data DIR]
// libtorch's side of the benchmark suite (../shared/design/BENCHMARKS.md): the same workloads as
// glia_bench, written as a C++ user of libtorch (Debian's libtorch-dev 1.13) would write them, with the
// same command line and output ("<id> threads=<n> median=<value> unit=<unit>"), the same repetitions,
// warm-up and median rule, the same input shapes and seeds (inputs: randn after manual_seed(0);
// class targets: std::mt19937(0) % 10, as in glia_bench).
//   W1  torch::add under NoGradGuard, 1 and 1000 elements (lines W1-1, W1-1000), ns/op
//   W2  y = (a*b + c).sum(); y.backward(); grads reset, us/iter
//   W3  MLP train step (torch::nn modules, CrossEntropyLoss, torch::optim::SGD), us/step
//   W4  LeNet train step, ms/step
//   W5  Conv2d(64,64,3,padding=1) on 8x64x56x56, forward (no grad) and backward, GFLOP/s
//   W6  torch::matmul 1024^3 (line W6-torch_matmul), GFLOP/s
//   W7  Fashion-MNIST LeNet epochs (the gzipped IDX files read here with zlib), s/epoch (training
//       only, as examples/c/fashion_mnist.c times it) and the test accuracy after the last epoch
//   W8  peak RSS (getrusage ru_maxrss) of a fresh process after 200 W4 steps, MiB (not part of "all")
// One translation unit on purpose: libtorch's headers are slow to compile.
#include <sys/resource.h>
#include <torch/torch.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

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
  torch::Tensor a = torch::ones({n}), b = torch::ones({n});
  torch::NoGradGuard no_grad;
  double t0 = now_ns();
  for (int i = 0; i < iters; ++i) {
    torch::Tensor c = torch::add(a, b);
  }
  return (now_ns() - t0) / iters;
}

// W2: y = (a*b + c).sum(); y.backward(); grads reset each time. us per iteration.
double w2(int iters) {
  torch::Tensor t[3];
  for (auto& x : t) x = torch::ones({1}, torch::requires_grad());
  double t0 = now_ns();
  for (int i = 0; i < iters; ++i) {
    torch::Tensor y = (t[0] * t[1] + t[2]).sum();
    y.backward();
    for (auto& x : t) x.mutable_grad().reset();
  }
  return (now_ns() - t0) / iters / 1000.0;
}

// W5: Conv2d(64, 64, 3, padding=1) on 8x64x56x56; backward = grad input + grad weight (+ bias) through a
// retain_graph backward of one recorded forward.
void w5(int reps, int threads) {
  const double flop = 2.0 * 8 * 64 * 56 * 56 * 64 * 9;
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({8, 64, 56, 56}), w = torch::randn({64, 64, 3, 3}), b = torch::randn({64});
  double fwd;
  {
    torch::NoGradGuard no_grad;
    fwd = median_of(reps, [&] {
      double t0 = now_ns();
      torch::Tensor y = torch::conv2d(x, w, b, 1, 1);
      return now_ns() - t0;
    });
  }
  for (torch::Tensor* p : {&x, &w, &b}) p->set_requires_grad(true);
  torch::Tensor y = torch::conv2d(x, w, b, 1, 1);
  torch::Tensor gy = torch::ones({8, 64, 56, 56});
  double bwd = median_of(reps, [&] {
    double t0 = now_ns();
    y.backward(gy, /*retain_graph=*/true);
    double t = now_ns() - t0;
    for (torch::Tensor* p : {&x, &w, &b}) p->mutable_grad().reset();
    return t;
  });
  std::printf("W5-fwd threads=%d median=%.1f unit=GFLOP/s (%.2f ms)\n", threads, flop / fwd, fwd / 1e6);
  std::printf("W5-bwd threads=%d median=%.1f unit=GFLOP/s (%.2f ms)\n", threads, 2 * flop / bwd, bwd / 1e6);
}

// W6: 1024^3 GEMM through torch::matmul.
void w6(int reps, int threads) {
  const int64_t n = 1024;
  const double flop = 2.0 * n * n * n;
  torch::manual_seed(0);
  torch::Tensor a = torch::randn({n, n}), b = torch::randn({n, n});
  torch::NoGradGuard no_grad;
  double t = median_of(reps, [&] {
    double t0 = now_ns();
    torch::Tensor c = torch::matmul(a, b);
    return now_ns() - t0;
  });
  std::printf("W6-torch_matmul threads=%d median=%.1f unit=GFLOP/s\n", threads, flop / t);
}

// ---- W3 / W4 / W7: train steps ---------------------------------------------------------------------

// W3's MLP: Linear(784,256)-ReLU-Linear(256,128)-ReLU-Linear(128,10).
torch::nn::Sequential make_mlp() {
  return torch::nn::Sequential(torch::nn::Linear(784, 256), torch::nn::ReLU(), torch::nn::Linear(256, 128),
                               torch::nn::ReLU(), torch::nn::Linear(128, 10));
}

// W4's LeNet: Conv2d(1,6,5,padding=2)-ReLU-MaxPool2d(2)-Conv2d(6,16,5)-ReLU-MaxPool2d(2)-Flatten-
// Linear(400,120)-ReLU-Linear(120,84)-ReLU-Linear(84,10).
torch::nn::Sequential make_lenet() {
  using namespace torch::nn;
  return Sequential(Conv2d(Conv2dOptions(1, 6, 5).padding(2)), ReLU(), MaxPool2d(MaxPool2dOptions(2)),
                    Conv2d(Conv2dOptions(6, 16, 5)), ReLU(), MaxPool2d(MaxPool2dOptions(2)), Flatten(),
                    Linear(400, 120), ReLU(), Linear(120, 84), ReLU(), Linear(84, 10));
}

torch::Tensor class_targets(int64_t n, int64_t classes) {
  std::mt19937 gen(0);
  std::vector<int64_t> t(static_cast<size_t>(n));
  for (auto& v : t) v = static_cast<int64_t>(gen() % classes);
  return torch::tensor(t, torch::kInt64);
}

struct Trainer {
  torch::nn::Sequential model;
  torch::nn::CrossEntropyLoss loss_fn;
  torch::optim::SGD opt;
  explicit Trainer(torch::nn::Sequential m)
      : model(std::move(m)), opt(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9)) {}
  // One train step: forward, loss, zero_grad, backward, step. Returns the loss.
  torch::Tensor step(const torch::Tensor& x, const torch::Tensor& target) {
    torch::Tensor loss = loss_fn(model->forward(x), target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss;
  }
};

// Median time per train step (us) over `reps` rounds of `iters` steps, after a warm-up round.
double train_bench(bool lenet, int reps, int iters) {
  torch::manual_seed(0);
  Trainer tr(lenet ? make_lenet() : make_mlp());
  torch::Tensor x = lenet ? torch::randn({64, 1, 28, 28}) : torch::randn({64, 784});
  torch::Tensor target = class_targets(64, 10);
  return median_of(reps, [&] {
    double t0 = now_ns();
    for (int i = 0; i < iters; ++i) tr.step(x, target);
    return (now_ns() - t0) / iters / 1000.0;
  });
}

// W8 (c): peak RSS of this fresh process after 200 W4 steps, MiB.
void w8_rss(int threads) {
  torch::manual_seed(0);
  Trainer tr(make_lenet());
  torch::Tensor x = torch::randn({64, 1, 28, 28});
  torch::Tensor target = class_targets(64, 10);
  for (int i = 0; i < 200; ++i) tr.step(x, target);
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("W8-rss threads=%d median=%.1f unit=MiB\n", threads, static_cast<double>(u.ru_maxrss) / 1024.0);
}

// ---- W7: Fashion-MNIST ------------------------------------------------------------------------------

std::vector<unsigned char> read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "torch_bench: cannot open %s (sudo apt-get install dataset-fashion-mnist)\n", path.c_str());
    std::exit(1);
  }
  std::vector<unsigned char> out;
  unsigned char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + n);
  if (n < 0) {
    std::fprintf(stderr, "torch_bench: %s: read error\n", path.c_str());
    std::exit(1);
  }
  gzclose(f);
  return out;
}

uint32_t be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Images as N x 1 x 28 x 28 float32 normalised (x/255 - 0.2860) / 0.3530, labels as int64.
std::pair<torch::Tensor, torch::Tensor> load_split(const std::string& dir, const std::string& split) {
  std::vector<unsigned char> img = read_gz(dir + "/" + split + "-images-idx3-ubyte.gz");
  std::vector<unsigned char> lab = read_gz(dir + "/" + split + "-labels-idx1-ubyte.gz");
  if (img.size() < 16 || lab.size() < 8 || be32(img.data()) != 2051 || be32(lab.data()) != 2049 ||
      be32(img.data() + 8) != 28 || be32(img.data() + 12) != 28 || be32(img.data() + 4) != be32(lab.data() + 4) ||
      img.size() != 16 + size_t{be32(img.data() + 4)} * 784 || lab.size() != 8 + size_t{be32(lab.data() + 4)}) {
    std::fprintf(stderr, "torch_bench: %s/%s: malformed IDX files\n", dir.c_str(), split.c_str());
    std::exit(1);
  }
  const int64_t n = be32(img.data() + 4);
  torch::Tensor x = torch::from_blob(img.data() + 16, {n, 1, 28, 28}, torch::kUInt8).to(torch::kFloat32);
  x = (x / 255.0 - 0.2860) / 0.3530;
  torch::Tensor y = torch::from_blob(lab.data() + 8, {n}, torch::kUInt8).to(torch::kInt64);
  return {x.contiguous(), y};
}

// LeNet, CrossEntropyLoss, SGD(lr 0.01, momentum 0.9), batches of 64 shuffled every epoch (the last one
// smaller), test accuracy after each epoch on the 10,000 test images (batches of 1000, no grad).
void w7(int threads, int epochs, const std::string& dir) {
  double t_load = now_ns();
  auto [train_x, train_y] = load_split(dir, "train");
  auto [test_x, test_y] = load_split(dir, "t10k");
  std::printf("Fashion-MNIST from %s: %lld training images, %lld test images (%.1f s to load)\n", dir.c_str(),
              static_cast<long long>(train_x.size(0)), static_cast<long long>(test_x.size(0)),
              (now_ns() - t_load) / 1e9);
  torch::manual_seed(0);
  Trainer tr(make_lenet());
  const int64_t n = train_x.size(0), batches = (n + 63) / 64;
  std::vector<double> seconds;
  double accuracy = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    tr.model->train();
    torch::Tensor order = torch::randperm(n, torch::kInt64);
    double t0 = now_ns(), loss_sum = 0;
    for (int64_t b = 0; b < batches; ++b) {
      torch::Tensor idx = order.slice(0, b * 64, std::min(n, (b + 1) * 64));
      torch::Tensor x = train_x.index_select(0, idx), y = train_y.index_select(0, idx);
      torch::Tensor loss = tr.step(x, y);
      loss_sum += loss.item<double>() * static_cast<double>(idx.size(0));
    }
    double s = (now_ns() - t0) / 1e9;
    seconds.push_back(s);
    tr.model->eval();
    int64_t correct = 0;
    {
      torch::NoGradGuard no_grad;
      for (int64_t b = 0; b < test_x.size(0); b += 1000) {
        torch::Tensor logits = tr.model->forward(test_x.slice(0, b, b + 1000));
        correct += logits.argmax(1).eq(test_y.slice(0, b, b + 1000)).sum().item<int64_t>();
      }
    }
    accuracy = static_cast<double>(correct) / static_cast<double>(test_x.size(0));
    std::printf("epoch %d/%d: train loss %.4f  %.2f s  %.0f img/s  test accuracy %.4f\n", epoch, epochs,
                loss_sum / static_cast<double>(n), s, static_cast<double>(n) / s, accuracy);
    std::fflush(stdout);
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("W7 threads=%d median=%.3f unit=s/epoch\n", threads, seconds[seconds.size() / 2]);
  std::printf("W7-accuracy threads=%d median=%.4f unit=accuracy\n", threads, accuracy);
}

}  // namespace

int main(int argc, char** argv) {
  std::string workload = "all", data = "/usr/share/datasets/fashion-mnist";
  int threads = 1, reps = 7, epochs = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--workload"))
      workload = argv[i + 1];
    else if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps"))
      reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--epochs"))
      epochs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--data"))
      data = argv[i + 1];
    else {
      std::fprintf(stderr,
                   "usage: %s [--workload W1|W2|W3|W4|W5|W6|W7|W8|all] [--threads N] [--reps R] [--epochs E] "
                   "[--data DIR]\n",
                   argv[0]);
      return 2;
    }
  }
  if (argc % 2 == 0 || threads < 1 || reps < 1 || epochs < 1) {
    std::fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  torch::set_num_threads(threads);
  bool all = workload == "all";
  if (all || workload == "W1") {
    std::printf("W1-1 threads=%d median=%.1f unit=ns/op\n", threads, median_of(reps, [] { return w1(1, 200000); }));
    std::printf("W1-1000 threads=%d median=%.1f unit=ns/op\n", threads,
                median_of(reps, [] { return w1(1000, 200000); }));
  }
  if (all || workload == "W2") {
    std::printf("W2 threads=%d median=%.2f unit=us/iter\n", threads, median_of(reps, [] { return w2(20000); }));
  }
  if (all || workload == "W3") {
    std::printf("W3 threads=%d median=%.1f unit=us/step\n", threads, train_bench(false, reps, 100));
  }
  if (all || workload == "W4") {
    std::printf("W4 threads=%d median=%.3f unit=ms/step\n", threads, train_bench(true, reps, 20) / 1000.0);
  }
  if (all || workload == "W5") w5(reps, threads);
  if (all || workload == "W6") w6(reps, threads);
  if (all || workload == "W7") w7(threads, epochs, data);
  if (workload == "W8") w8_rss(threads);
  return 0;
}
