// A checkpoint's whole object, as torch.load(weights_only=True) returns it: the
// value tree behind the C API's glia_value (docs/c-api.md, "Checkpoints of any
// shape"). Made by the readers (torch_read.cpp, safetensors.cpp); the flattened
// name -> tensor view (nn::TensorDict) is one function of it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/refcount.h"
#include "core/tensor.h"
#include "nn/tensor_dict.h"

namespace glia::io {

struct Value : RefCounted {
  // The safe types of torch's weights_only unpickler. Tuple also stands for
  // torch.Size; Dict for dict and OrderedDict (insertion order kept).
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    BigInt,
    Float,
    Str,
    Bytes,
    Tuple,
    List,
    Dict,
    Set,
    Tensor,
    Device,
    DType
  };

  Kind kind = Kind::None;
  int64_t i = 0;  // Bool, Int
  double f = 0;   // Float
  std::string s;  // Str (UTF-8), Bytes, BigInt (little-endian two's complement), Device ("cuda:0"), DType ("float32")
  std::vector<Ref<Value>> items;  // Tuple, List, Set; Dict: key, value, key, value, ...
  Tensor tensor;                  // Tensor
  bool ordered = false;           // Dict: a collections.OrderedDict (false: a plain dict)
  // Built by the C API's glia_value_new_* and not yet put into another value:
  // items may still be added. Values the readers make, and a value once it is
  // inside another, are never changed again (so no value can contain itself).
  bool building = false;

  size_t size() const { return kind == Kind::Dict ? items.size() / 2 : items.size(); }
};

// The name of a kind as Python spells the type ("dict", "torch.Tensor", ...).
const char* value_kind_name(Value::Kind k);

// The root, a dict, flattened into name -> tensor by the rules of Note
// [Flattening a checkpoint] (value.cpp). `what` names the source in messages.
// Errors: Format.
Ref<nn::TensorDict> flatten(const Value& root, const std::string& what);

// Whether two values are equal as Python's == compares dict keys: numbers by
// value across bool/int/float (True == 1 == 1.0), str, bytes, None, devices,
// dtypes by content, tuples item by item; tensors, lists, dicts and sets by
// identity.
bool key_equal(const Value& a, const Value& b);

// Whether `name` is a torch.device string glia can write: "<type>" or
// "<type>:<index>", the type lowercase letters and '_' ("cpu", "cuda:1").
bool is_device_name(std::string_view name);

}  // namespace glia::io
