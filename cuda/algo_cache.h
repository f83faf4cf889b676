// Note [cuDNN algorithm cache]
// cuDNN's heuristics (cudnnGet*Algorithm_v7) cost as much as a small convolution itself, and a training loop
// asks them the same question every step. torch keeps the answer per convolution (its BenchmarkCache over
// ConvolutionParams); so does glia: conv.cpp keys a cache by everything the question depends on (the
// direction, the device, the dtype, every size, padding, stride, dilation and the groups of the chunk cuDNN
// sees, and the math asked for: deterministic, TF32) and stores the heuristics' candidates after glia's own
// filter (status, determinism, tensor-op math), in their order. A hit skips the heuristics and keeps the
// fallback order: a candidate whose workspace cannot be allocated still gives way to the next one.
// The cache is bounded (kCapacity entries a direction): a program that convolves ever new shapes starts
// over when it is full instead of growing without end. Plain C++ over a template candidate type, so the CPU
// tests (tests/cuda/algo_cache_test.cpp) exercise it without cuDNN.
#ifndef GLIA_CUDA_ALGO_CACHE_H
#define GLIA_CUDA_ALGO_CACHE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace glia::cuda {

// The question asked of the heuristics, as integers (ConvKey::make fills it in a fixed order).
struct ConvKey {
  static constexpr size_t kFields = 21;
  std::array<int64_t, kFields> v{};
  bool operator==(const ConvKey& o) const { return v == o.v; }
};

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const noexcept {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields' bytes
    for (int64_t x : k.v) {
      uint64_t u = static_cast<uint64_t>(x);
      for (int b = 0; b < 8; ++b) {
        h ^= (u >> (8 * b)) & 0xffu;
        h *= 1099511628211ull;
      }
    }
    return static_cast<size_t>(h);
  }
};

template <class Candidate>
class AlgoCache {
 public:
  static constexpr size_t kCapacity = 4096;
  explicit AlgoCache(size_t capacity = kCapacity) : capacity_(capacity) {}

  // The candidates cached for k into *out; false (and *out untouched) when there are none.
  bool find(const ConvKey& k, std::vector<Candidate>* out) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = map_.find(k);
    if (it == map_.end()) return false;
    *out = it->second;
    return true;
  }

  // Remembers candidates for k (replacing an earlier answer); a full cache is emptied first.
  void insert(const ConvKey& k, std::vector<Candidate> candidates) {
    std::lock_guard<std::mutex> g(mu_);
    if (map_.size() >= capacity_ && map_.find(k) == map_.end()) map_.clear();
    map_[k] = std::move(candidates);
  }

  size_t size() const {
    std::lock_guard<std::mutex> g(mu_);
    return map_.size();
  }

  void clear() {
    std::lock_guard<std::mutex> g(mu_);
    map_.clear();
  }

 private:
  size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<ConvKey, std::vector<Candidate>, ConvKeyHash> map_;
};

}  // namespace glia::cuda

#endif  // GLIA_CUDA_ALGO_CACHE_H
