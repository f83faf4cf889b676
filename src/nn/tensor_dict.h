// An ordered name -> tensor map (state dicts, checkpoints, glia_tensor_dict)
// and the report of load_state_dict (glia_load_report).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/refcount.h"
#include "core/tensor.h"

namespace glia::nn {

// Insertion-ordered; set() on an existing key replaces the value in place
// (keeps its position), as a Python dict does.
class TensorDict : public RefCounted {
 public:
  size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }
  const std::string& key_at(size_t i) const { return keys_[i]; }
  const Tensor& value_at(size_t i) const { return values_[i]; }
  bool contains(std::string_view key) const { return index_.count(std::string(key)) != 0; }
  // Null when absent.
  const Tensor* find(std::string_view key) const {
    auto it = index_.find(std::string(key));
    return it == index_.end() ? nullptr : &values_[it->second];
  }
  // All or nothing: out of memory leaves the dict as it was.
  void set(const std::string& key, const Tensor& value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      values_[it->second] = value;
      return;
    }
    if (values_.size() == values_.capacity()) values_.reserve(values_.empty() ? 8 : 2 * values_.size());
    keys_.push_back(key);
    try {
      index_.emplace(key, keys_.size() - 1);
    } catch (...) {
      keys_.pop_back();
      throw;
    }
    values_.push_back(value);  // room reserved above: cannot throw
  }
  // False when absent; later entries keep their order.
  bool remove(std::string_view key) {
    auto it = index_.find(std::string(key));
    if (it == index_.end()) return false;
    size_t i = it->second;
    index_.erase(it);
    keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(i));
    values_.erase(values_.begin() + static_cast<std::ptrdiff_t>(i));
    for (auto& [k, j] : index_)
      if (j > i) --j;
    return true;
  }
  void clear() {
    keys_.clear();
    values_.clear();
    index_.clear();
  }

  // String metadata carried with the tensors (safetensors' "__metadata__"), in
  // insertion order with unique keys. Formats without such a map ignore it.
  std::vector<std::pair<std::string, std::string>> metadata;

 private:
  std::vector<std::string> keys_;
  std::vector<Tensor> values_;
  std::unordered_map<std::string, size_t> index_;
};

// torch's _IncompatibleKeys, plus the error messages of a failed load.
struct LoadReport : RefCounted {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
  std::vector<std::string> error_msgs;  // size mismatches etc. (empty after a successful load)
};

}  // namespace glia::nn
