// W9, glia's side (../shared/design/BENCHMARKS.md, issue 16): the same workloads, settings and output as
// benchmarks/gpu/w9_torch.py (read its docstring), through glia's C API, run by scripts/gpu-check.sh's
// w9-glia stage next to PyTorch's figures.
//
// W9a  matmul 4096^3 (glia_mm; its output comes from the caching allocator, where torch.mm writes into a
//      preallocated one), float32 (TF32 off, glia's default) and bfloat16; TFLOP/s from glia events
//      around `inner` back-to-back products, median over `reps`, after warm-up; a few entries checked
//      against float64 on the host as w9_torch.py does.
// W9b  the W4 LeNet train step (forward, cross-entropy, zero_grad, backward, SGD lr 0.01 momentum 0.9),
//      N = 64 and 1024; ms/step. W9c: the W3 MLP step; us/step. Timed "pipelined" (steps back to back,
//      one glia_device_synchronize at the end) and "sync/step" (a synchronize after every step), wall
//      clock, median over `reps` rounds of `steps` steps, after `warmup` steps.
//
// Prints readable lines and one "JSON {...}" line per figure ("impl": "glia"), the schema of
// w9_torch.py, which gpu-check.sh collects into w9.jsonl for benchmarks/gpu/w9_table.py.
//
//   w9_glia [--device cuda|cpu] [--quick] [--only W9a,W9b,W9c] [--n N] [--batches 64,1024]
//           [--reps R] [--steps S] [--warmup-steps W] [--inner I]
// `--device cpu --quick` checks the program without a GPU (wall-clock timing instead of events).
#include <glia/glia.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(glia_error* e, const char* what) {
  if (e) {
    std::fprintf(stderr, "w9_glia: %s: %s\n", what, glia_error_message(e));
    std::exit(1);
  }
}
#define CHECK(call) check((call), #call)

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Args {
  glia_device device{GLIA_CUDA, 0};
  bool quick = false;
  std::set<std::string> only{"W9a", "W9b", "W9c"};
  int64_t n = 0;
  std::vector<int64_t> batches;
  int reps = 0, steps = 0, warmup_steps = 0, inner = 0, reps_mm = 0, warmup_mm = 0;
};

bool on_gpu(const Args& a) { return a.device.type == GLIA_CUDA; }

void sync(const Args& a) {
  if (on_gpu(a)) CHECK(glia_device_synchronize(a.device));
}

// Milliseconds per call of fn, `inner` calls between two timing events (wall clock on the CPU).
double events_ms(const Args& a, const std::function<void()>& fn, int inner) {
  if (!on_gpu(a)) {
    const double t0 = now_s();
    for (int i = 0; i < inner; ++i) fn();
    return (now_s() - t0) * 1e3 / inner;
  }
  glia_event_options o;
  glia_event_options_init(&o);
  o.enable_timing = 1;
  glia_event *start, *stop;
  CHECK(glia_event_create(a.device, &o, &start));
  CHECK(glia_event_create(a.device, &o, &stop));
  CHECK(glia_event_record(start, nullptr));
  for (int i = 0; i < inner; ++i) fn();
  CHECK(glia_event_record(stop, nullptr));
  double ms = 0;
  CHECK(glia_event_elapsed_time(start, stop, &ms));
  glia_event_release(start);
  glia_event_release(stop);
  return ms / inner;
}

std::string json_str(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A tensor of `shape` with uniform values in [-1, 1) from std::mt19937(seed), as `dtype` on `dev`.
glia_tensor* uniform(const std::vector<int64_t>& shape, uint32_t seed, glia_dtype dtype, glia_device dev) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> v(static_cast<size_t>(n));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : v) x = u(gen);
  glia_tensor *host, *out;
  CHECK(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(), static_cast<int64_t>(shape.size()),
                              GLIA_FLOAT32, &host));
  CHECK(glia_tensor_to(host, &dev, &dtype, &out));
  glia_tensor_release(host);
  return out;
}

std::vector<double> host_doubles(const glia_tensor* t) {
  int64_t n;
  CHECK(glia_tensor_numel(t, &n));
  const glia_device cpu{GLIA_CPU, 0};
  const glia_dtype f64 = GLIA_FLOAT64;
  glia_tensor* h;
  CHECK(glia_tensor_to(t, &cpu, &f64, &h));
  std::vector<double> v(static_cast<size_t>(n));
  CHECK(glia_tensor_copy_to_host(h, v.data(), v.size() * sizeof(double)));
  glia_tensor_release(h);
  return v;
}

void bench_matmul(const Args& a, glia_dtype dtype, const char* label) {
  const int64_t n = a.n;
  glia_tensor* x = uniform({n, n}, 1, dtype, a.device);
  glia_tensor* y = uniform({n, n}, 2, dtype, a.device);
  glia_tensor* c = nullptr;
  auto product = [&] {
    if (c) glia_tensor_release(c);
    CHECK(glia_mm(x, y, &c));
  };
  for (int i = 0; i < a.warmup_mm; ++i) product();
  sync(a);
  std::vector<double> ms;
  for (int r = 0; r < a.reps_mm; ++r) ms.push_back(events_ms(a, product, a.inner));
  const double med = median(ms);
  // A few entries against float64 on the host, relative to sqrt(sum_k (x_ik y_kj)^2).
  const std::vector<double> hx = host_doubles(x), hy = host_doubles(y), hc = host_doubles(c);
  const int64_t idx[][2] = {{0, 0}, {n - 1, n - 1}, {1, n / 2}, {n / 3, 7}, {n / 2, n - 2}, {n - 5, n / 5}};
  double err = 0;
  for (const auto& ij : idx) {
    double ref = 0, norm = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double t = hx[static_cast<size_t>(ij[0] * n + k)] * hy[static_cast<size_t>(k * n + ij[1])];
      ref += t;
      norm += t * t;
    }
    err = std::max(err, std::fabs(hc[static_cast<size_t>(ij[0] * n + ij[1])] - ref) / std::sqrt(norm));
  }
  const double tflops = 2.0 * static_cast<double>(n) * n * n / (med * 1e-3) / 1e12;
  char workload[96];
  std::snprintf(workload, sizeof workload, "matmul %lld^3 %s", static_cast<long long>(n), label);
  std::printf("W9a glia   %-44s %8.1f TFLOP/s  (%.3f ms per product, median of %d x %d; max rel err %.1e)\n", workload,
              tflops, med, a.reps_mm, a.inner, err);
  std::printf(
      "JSON {\"id\": \"W9a\", \"workload\": %s, \"impl\": \"glia\", \"value\": %.2f, \"unit\": \"TFLOP/s\", "
      "\"timing\": \"%s, %d products per event pair, median of %d\", \"ms\": %.4f, \"call\": \"glia_mm(a, b, &c)\", "
      "\"max_rel_err\": %.3g}\n",
      json_str(workload).c_str(), tflops, on_gpu(a) ? "glia events" : "wall clock", a.inner, a.reps_mm, med, err);
  std::fflush(stdout);
  glia_tensor_release(c);
  glia_tensor_release(x);
  glia_tensor_release(y);
  const double tol = dtype == GLIA_FLOAT32 ? 5e-5 : 2e-2;
  if (!(err <= tol)) {
    std::fprintf(stderr, "w9_glia: %s: relative error %.3g above %g: wrong result\n", workload, err, tol);
    std::exit(1);
  }
}

// ---- the train steps (the modules of W3/W4, as benchmarks/glia_bench.cpp builds them)

glia_module* sequential(std::vector<glia_module*> mods) {
  glia_module* seq;
  CHECK(glia_nn_sequential(mods.data(), static_cast<int64_t>(mods.size()), &seq));
  for (glia_module* m : mods) glia_module_release(m);
  return seq;
}
glia_module* linear(int64_t in, int64_t out) {
  glia_module* m;
  CHECK(glia_nn_linear(in, out, 1, nullptr, &m));
  return m;
}
glia_module* relu() {
  glia_module* m;
  CHECK(glia_nn_relu(nullptr, &m));
  return m;
}
glia_module* conv(int64_t in, int64_t out, int64_t k, int64_t padding) {
  glia_nn_conv2d_options o;
  glia_nn_conv2d_options_init(&o);
  o.padding[0] = o.padding[1] = padding;
  glia_module* m;
  CHECK(glia_nn_conv2d(in, out, k, k, &o, nullptr, &m));
  return m;
}
glia_module* max_pool(int64_t k) {
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  o.kernel_size[0] = o.kernel_size[1] = k;
  glia_module* m;
  CHECK(glia_nn_max_pool2d(&o, nullptr, &m));
  return m;
}
glia_module* flatten() {
  glia_module* m;
  CHECK(glia_nn_flatten(1, -1, nullptr, &m));
  return m;
}
glia_module* lenet() {
  return sequential({conv(1, 6, 5, 2), relu(), max_pool(2), conv(6, 16, 5, 0), relu(), max_pool(2), flatten(),
                     linear(400, 120), relu(), linear(120, 84), relu(), linear(84, 10)});
}
glia_module* mlp() { return sequential({linear(784, 256), relu(), linear(256, 128), relu(), linear(128, 10)}); }

void bench_step(const Args& a, const char* wid, const char* name, bool is_lenet, int64_t batch, bool ms_unit) {
  glia_manual_seed(0);
  glia_module* model = is_lenet ? lenet() : mlp();
  CHECK(glia_module_to(model, &a.device, nullptr));
  glia_module* loss_fn;
  CHECK(glia_nn_cross_entropy_loss(nullptr, nullptr, &loss_fn));
  glia_tensor_dict* d;
  CHECK(glia_module_named_parameters(model, nullptr, 1, 1, &d));
  int64_t np;
  CHECK(glia_tensor_dict_size(d, &np));
  std::vector<glia_tensor*> ps(static_cast<size_t>(np));
  for (int64_t i = 0; i < np; ++i) CHECK(glia_tensor_dict_value_at(d, i, &ps[static_cast<size_t>(i)]));
  glia_tensor_dict_release(d);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 0.01;
  so.momentum = 0.9;
  glia_optimizer* opt;
  CHECK(glia_optim_sgd(ps.data(), np, &so, &opt));
  for (glia_tensor* p : ps) glia_tensor_release(p);
  glia_tensor* x = is_lenet ? uniform({batch, 1, 28, 28}, 3, GLIA_FLOAT32, a.device)
                            : uniform({batch, 784}, 3, GLIA_FLOAT32, a.device);
  std::vector<int64_t> t(static_cast<size_t>(batch));
  std::mt19937 gen(4);
  for (int64_t& v : t) v = static_cast<int64_t>(gen() % 10);
  glia_tensor *th, *target;
  CHECK(glia_tensor_from_data(t.data(), t.size() * sizeof(int64_t), &batch, 1, GLIA_INT64, &th));
  CHECK(glia_tensor_to(th, &a.device, nullptr, &target));
  glia_tensor_release(th);

  glia_tensor* loss = nullptr;
  auto step = [&] {
    glia_tensor* logits;
    int64_t n;
    CHECK(glia_module_forward(model, &x, 1, &logits, 1, &n));
    const glia_tensor* in[] = {logits, target};
    if (loss) glia_tensor_release(loss);
    CHECK(glia_module_forward(loss_fn, in, 2, &loss, 1, &n));
    glia_tensor_release(logits);
    CHECK(glia_optimizer_zero_grad(opt, 1));
    CHECK(glia_tensor_backward(loss, nullptr, 0));
    CHECK(glia_optimizer_step(opt));
  };
  for (int i = 0; i < a.warmup_steps; ++i) step();
  sync(a);
  const double scale = ms_unit ? 1e3 : 1e6;
  const char* unit = ms_unit ? "ms" : "us";
  for (const char* mode : {"pipelined", "sync/step"}) {
    const bool per_step_sync = std::strcmp(mode, "sync/step") == 0;
    std::vector<double> per_step;
    for (int r = 0; r < a.reps; ++r) {
      const double t0 = now_s();
      for (int s = 0; s < a.steps; ++s) {
        step();
        if (per_step_sync) sync(a);
      }
      sync(a);
      per_step.push_back((now_s() - t0) / a.steps);
    }
    const double value = median(per_step) * scale;
    const double best = *std::min_element(per_step.begin(), per_step.end()) * scale;
    double final_loss = NAN;
    CHECK(glia_tensor_item_double(loss, &final_loss));
    char workload[96];
    std::snprintf(workload, sizeof workload, "%s train step, batch %lld", name, static_cast<long long>(batch));
    std::printf("%s glia   %-36s %-10s %10.1f %s/step  (median of %d x %d steps; min %.1f; loss %.4f)\n", wid, workload,
                mode, value, unit, a.reps, a.steps, best, final_loss);
    std::ostringstream timing;
    if (per_step_sync)
      timing << "synchronize after each of " << a.steps << " steps";
    else
      timing << a.steps << " steps then one synchronize";
    timing << ", wall clock, median of " << a.reps;
    std::printf(
        "JSON {\"id\": \"%s\", \"workload\": %s, \"impl\": \"glia\", \"mode\": \"%s\", \"value\": %.2f, \"unit\": "
        "\"%s/step\", \"timing\": %s, \"min\": %.2f, \"batch\": %lld, \"final_loss\": %.6g}\n",
        wid, json_str(workload).c_str(), mode, value, unit, json_str(timing.str()).c_str(), best,
        static_cast<long long>(batch), final_loss);
    std::fflush(stdout);
    if (final_loss != final_loss) {
      std::fprintf(stderr, "w9_glia: %s: the loss became NaN\n", workload);
      std::exit(1);
    }
  }
  glia_tensor_release(loss);
  glia_tensor_release(x);
  glia_tensor_release(target);
  glia_optimizer_release(opt);
  glia_module_release(loss_fn);
  glia_module_release(model);
}

[[noreturn]] void usage(const char* argv0, const char* why) {
  std::fprintf(stderr,
               "w9_glia: %s\nusage: %s [--device cuda|cpu] [--quick] [--only W9a,W9b,W9c] [--n N] [--batches B,...] "
               "[--reps R] [--steps S] [--warmup-steps W] [--inner I]\n",
               why, argv0);
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  std::string batches;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0], (k + " needs a value").c_str());
      return argv[++i];
    };
    auto number = [&]() -> long long {
      const std::string v = value();
      char* end = nullptr;
      const long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || x <= 0) usage(argv[0], (k + ": expected a positive integer, got '" + v + "'").c_str());
      return x;
    };
    if (k == "--device") {
      const std::string d = value();
      if (d == "cuda" || d == "cuda:0") {
        a.device = {GLIA_CUDA, 0};
      } else if (d == "cpu") {
        a.device = {GLIA_CPU, 0};
      } else {
        usage(argv[0], ("--device: expected cuda or cpu, got '" + d + "'").c_str());
      }
    } else if (k == "--quick") {
      a.quick = true;
    } else if (k == "--only") {
      a.only.clear();
      for (const std::string& w : split(value())) {
        if (w != "W9a" && w != "W9b" && w != "W9c") usage(argv[0], ("unknown workload in --only: " + w).c_str());
        a.only.insert(w);
      }
    } else if (k == "--n") {
      a.n = number();
    } else if (k == "--batches") {
      batches = value();
    } else if (k == "--reps") {
      a.reps = static_cast<int>(number());
    } else if (k == "--steps") {
      a.steps = static_cast<int>(number());
    } else if (k == "--warmup-steps") {
      a.warmup_steps = static_cast<int>(number());
    } else if (k == "--inner") {
      a.inner = static_cast<int>(number());
    } else {
      usage(argv[0], ("unknown argument " + k).c_str());
    }
  }
  const bool q = a.quick;
  if (!a.n) a.n = q ? 256 : 4096;
  for (const std::string& b : split(batches.empty() ? (q ? "8,32" : "64,1024") : batches)) {
    const long long v = std::atoll(b.c_str());
    if (v <= 0) usage(argv[0], ("--batches: expected positive integers, got '" + b + "'").c_str());
    a.batches.push_back(v);
  }
  if (!a.reps) a.reps = q ? 2 : 7;
  if (!a.steps) a.steps = q ? 3 : 100;
  if (!a.warmup_steps) a.warmup_steps = q ? 2 : 30;
  if (!a.inner) a.inner = q ? 2 : 10;
  a.reps_mm = q ? 3 : 15;
  a.warmup_mm = q ? 1 : 5;

  if (on_gpu(a) && !glia_cuda_is_available()) {
    char why[512] = "";
    size_t len = 0;
    int32_t count = 0;
    glia_error_free(glia_backend_status(GLIA_CUDA, &count, why, sizeof why, &len));
    std::fprintf(stderr, "w9_glia: no CUDA device (%s); use --device cpu --quick to check the program\n", why);
    return 1;
  }
  const char* dev = on_gpu(a) ? "cuda:0" : "cpu";
  std::printf("w9_glia: glia %s on %s; TF32 off (glia's default)\n", glia_version_string(), dev);
  std::printf(
      "JSON {\"meta\": \"glia\", \"glia\": \"%s\", \"device\": \"%s\", \"precision\": \"TF32 off\", "
      "\"quick\": %s}\n",
      glia_version_string(), dev, q ? "true" : "false");
  if (a.only.count("W9a")) {
    bench_matmul(a, GLIA_FLOAT32, "float32 (no TF32)");
    bench_matmul(a, GLIA_BFLOAT16, "bfloat16 (fp32 accumulate)");
  }
  for (int64_t b : a.batches)
    if (a.only.count("W9b")) bench_step(a, "W9b", "LeNet", true, b, true);
  for (int64_t b : a.batches)
    if (a.only.count("W9c")) bench_step(a, "W9c", "MLP", false, b, false);
  return 0;
}
