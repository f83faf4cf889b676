// The restricted unpickler (Python pickle protocols 0 to 5) that torch_read.cpp
// builds state dicts with. Only the globals a state dict needs are allowed; any
// other GLOBAL/STACK_GLOBAL, or a REDUCE/NEWOBJ/BUILD on anything else, is
// Error(Format) naming it. No code runs, ever.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/storage.h"
#include "io/value.h"
#include "nn/tensor_dict.h"

namespace glia::io {

// The unpickler alone, as the fuzzer and the hostile-pickle tests drive it: parses
// `data` as torch's data.pkl, resolving each persistent id ('storage', type, key,
// location, numel) to a zero-filled storage (Error(Format) when one would exceed
// max_storage_bytes), and returns the dict read_torch would build from it.
// Errors: Format.
Ref<nn::TensorDict> unpickle_state_dict(const uint8_t* data, size_t size, uint64_t max_storage_bytes);
// Whether torch.<name> is a dtype the unpickler accepts ("float32", "int8", "half"...).
bool is_torch_dtype_name(std::string_view name);

// A storage a pickle refers to through a persistent id ('storage', type, key,
// location, numel[, view_metadata]), in order of first use. Views of the legacy
// format (view_metadata) are folded into the tensors' offsets: only roots are here.
struct StorageRequest {
  std::string key;
  DType dtype;
  uint64_t numel;        // elements, as the persistent id declares them
  std::string location;  // "cpu", "cuda:0", ...: everything is loaded onto the CPU
};

// One pickle, parsed into values (nothing runs; tensors are descriptions until
// state_dict() puts them over storages).
class Unpickler {
 public:
  enum class Kind : uint8_t { None, Bool, Int, BigInt, Float, Str, Bytes, Tuple, List, Dict, Set, Object, Tensor };

  // Parses one pickle starting at data[0], through its STOP. Messages name byte
  // positions as `base + position` in `what` (e.g. "archive/data.pkl").
  // Errors: Format (malformed, truncated, hostile, or a global outside the allowlist).
  Unpickler(const uint8_t* data, size_t size, std::string what, uint64_t base = 0);
  ~Unpickler();
  Unpickler(const Unpickler&) = delete;
  Unpickler& operator=(const Unpickler&) = delete;

  // Bytes read, STOP included.
  size_t consumed() const;
  const std::vector<StorageRequest>& storages() const;

  // Read-only access to the values, for the legacy format's header pickles.
  uint32_t root() const;
  Kind kind(uint32_t v) const;
  int64_t int_value(uint32_t v) const;                   // Int, Bool
  const std::string& bytes(uint32_t v) const;            // Str (UTF-8), Bytes, BigInt (little-endian two's complement)
  const std::vector<uint32_t>& items(uint32_t v) const;  // Tuple, List, Set; Dict: key, value, key, value...

  // The root, a dict, flattened into name -> tensor (the rules are in
  // unpickler.cpp, Note [Flattening a checkpoint]); storages[i] backs storages()[i]
  // and holds exactly numel * itemsize bytes. Errors: Format.
  Ref<nn::TensorDict> state_dict(const std::vector<Ref<Storage>>& storages) const;
  // The root as a value tree (io/value.h), whatever its type: what
  // torch.load(weights_only=True) returns. Shared values stay shared; a cycle is
  // Error(Format).
  Ref<Value> value(const std::vector<Ref<Storage>>& storages) const;

  // Limits on hostile input beyond those of checkpoint.h (Format errors past them).
  static constexpr size_t kMaxValues = size_t{1} << 23;           // objects built while parsing
  static constexpr size_t kMaxVisits = size_t{1} << 22;           // nodes the flattening walk visits
  static constexpr size_t kMaxKeyBytes = size_t{1} << 16;         // one flattened key
  static constexpr uint64_t kMaxAllKeyBytes = uint64_t{1} << 28;  // all flattened keys together

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace glia::io
