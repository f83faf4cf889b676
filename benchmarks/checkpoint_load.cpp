// checkpoint_load [--file PATH] [--reps N] [--format safetensors|torch]
// Writes a ResNet-50 state dict (25.6M float32 parameters plus BatchNorm buffers,
// about 102 MB) as safetensors (or, with --format torch, as torch.save's zip with
// stored entries) with glia_tensor_dict_save, then times
// glia_tensor_dict_load of it: the first load and the median of N more (the file
// was just written, so the page cache is warm for all of them: these are warm
// numbers, not a cold disk read). Each load is timed twice: the load alone
// (header parse + mmap: the tensors view the file; a torch file's entries are
// also CRC-checked, which reads every byte) and the load followed by a read
// of every tensor byte (page faults included), which is what torch.load's time
// contains. Then it checks that no tensor byte was copied: every tensor's data lies
// inside the file's mapping (found in /proc/self/maps).
// Prints one line per measurement: "<id> median=<value> unit=<unit> ...".
// benchmarks/checkpoint_load_torch.py times torch.load of the same weights.
#include <glia/glia.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(glia_error* e) {
  if (e) {
    std::fprintf(stderr, "glia error: %s\n", glia_error_message(e));
    std::exit(1);
  }
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void add_randn(glia_tensor_dict* d, const std::string& key, std::vector<int64_t> shape) {
  glia_tensor* t;
  check(glia_tensor_randn(shape.data(), static_cast<int64_t>(shape.size()), nullptr, &t));
  check(glia_tensor_dict_set(d, key.c_str(), t));
  check(glia_tensor_release(t));
}

void add_batchnorm(glia_tensor_dict* d, const std::string& p, int64_t c) {
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) add_randn(d, p + "." + name, {c});
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = GLIA_INT64;
  glia_tensor* t;
  check(glia_tensor_zeros(nullptr, 0, &o, &t));
  check(glia_tensor_dict_set(d, (p + ".num_batches_tracked").c_str(), t));
  check(glia_tensor_release(t));
}

// torchvision's resnet50().state_dict(): keys, shapes and order.
void make_resnet50(glia_tensor_dict* d) {
  add_randn(d, "conv1.weight", {64, 3, 7, 7});
  add_batchnorm(d, "bn1", 64);
  const int blocks[] = {3, 4, 6, 3};
  int64_t in = 64;
  for (int layer = 0; layer < 4; ++layer) {
    int64_t width = 64 << layer, out = width * 4;
    for (int b = 0; b < blocks[layer]; ++b) {
      std::string p = "layer" + std::to_string(layer + 1) + "." + std::to_string(b);
      add_randn(d, p + ".conv1.weight", {width, in, 1, 1});
      add_batchnorm(d, p + ".bn1", width);
      add_randn(d, p + ".conv2.weight", {width, width, 3, 3});
      add_batchnorm(d, p + ".bn2", width);
      add_randn(d, p + ".conv3.weight", {out, width, 1, 1});
      add_batchnorm(d, p + ".bn3", out);
      if (b == 0) {
        add_randn(d, p + ".downsample.0.weight", {out, in, 1, 1});
        add_batchnorm(d, p + ".downsample.1", out);
      }
      in = out;
    }
  }
  add_randn(d, "fc.weight", {1000, 2048});
  add_randn(d, "fc.bias", {1000});
}

struct Range {
  uintptr_t begin, end;
};

// Address ranges where `path` is mapped in this process.
std::vector<Range> mappings_of(const std::string& path) {
  std::vector<Range> out;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.size() < path.size() || line.compare(line.size() - path.size(), path.size(), path) != 0) continue;
    Range r{};
    std::sscanf(line.c_str(), "%lx-%lx", &r.begin, &r.end);
    out.push_back(r);
  }
  return out;
}

struct Stats {
  int64_t tensors = 0;
  uint64_t bytes = 0, copied = 0, checksum = 0;
};

// Reads every byte of every tensor (so the pages are really there) and counts
// the bytes that lie outside the file's mapping.
Stats inspect(glia_tensor_dict* d, const std::vector<Range>& maps) {
  Stats s;
  check(glia_tensor_dict_size(d, &s.tensors));
  for (int64_t i = 0; i < s.tensors; ++i) {
    glia_tensor* t;
    check(glia_tensor_dict_value_at(d, i, &t));
    int64_t numel;
    glia_dtype dt;
    void* p;
    check(glia_tensor_numel(t, &numel));
    check(glia_tensor_dtype(t, &dt));
    check(glia_tensor_data(t, &p));
    size_t n = static_cast<size_t>(numel) * glia_dtype_size(dt);
    auto a = reinterpret_cast<uintptr_t>(p);
    bool inside = false;
    for (const Range& r : maps) inside |= a >= r.begin && a + n <= r.end;
    if (!inside) s.copied += n;
    s.bytes += n;
    const auto* b = static_cast<const unsigned char*>(p);
    uint64_t sum = 0;
    for (size_t k = 0; k < n; k += 64) sum += b[k];  // one read per cache line
    s.checksum += sum;
    check(glia_tensor_release(t));
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = "/tmp/glia_checkpoint_bench.safetensors";
  std::string format = "safetensors";
  int reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--file")) path = argv[i + 1];
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--format")) format = argv[i + 1];
  }
  if (format != "safetensors" && format != "torch") {
    std::fprintf(stderr, "--format: expected safetensors or torch, got %s\n", format.c_str());
    return 2;
  }
  const char* id = format.c_str();

  glia_tensor_dict* d;
  check(glia_tensor_dict_create(&d));
  make_resnet50(d);
  double t0 = now_ms();
  check(glia_tensor_dict_save(d, path.c_str(), format == "torch" ? GLIA_FORMAT_TORCH : GLIA_FORMAT_SAFETENSORS));
  double save_ms = now_ms() - t0;
  check(glia_tensor_dict_release(d));

  std::vector<double> load, load_touch;
  Stats stats;
  uint64_t copied_max = 0;
  for (int r = 0; r <= reps; ++r) {
    glia_tensor_dict* back;
    double a = now_ms();
    check(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &back));
    double b = now_ms();
    stats = inspect(back, mappings_of(path));
    double c = now_ms();
    copied_max = std::max(copied_max, stats.copied);
    check(glia_tensor_dict_release(back));
    if (r == 0) {
      std::printf("glia_%s_load_first ms=%.3f load_and_read_ms=%.3f\n", id, b - a, c - a);
      continue;
    }
    load.push_back(b - a);
    load_touch.push_back(c - a);
  }
  std::printf("glia_%s_save ms=%.1f file=%s tensors=%lld bytes=%llu\n", id, save_ms, path.c_str(),
              static_cast<long long>(stats.tensors), static_cast<unsigned long long>(stats.bytes));
  std::printf("glia_%s_load median=%.3f unit=ms reps=%d\n", id, median(load), reps);
  std::printf("glia_%s_load_and_read median=%.3f unit=ms reps=%d\n", id, median(load_touch), reps);
  std::printf("glia_%s_bytes_copied max=%llu of %llu\n", id, static_cast<unsigned long long>(copied_max),
              static_cast<unsigned long long>(stats.bytes));
  return copied_max == 0 ? 0 : 1;
}
