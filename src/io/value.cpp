// The value tree of a checkpoint and its flattening into name -> tensor.
//
// Note [Flattening a checkpoint]: the root must be a dict (an OrderedDict or a
// plain dict). Each entry becomes name -> tensor, walking depth first in the
// pickle's insertion order:
//  - a tensor (or nn.Parameter) is an entry; the same tensor reached twice is
//    the same glia tensor. requires_grad is what the pickle says, as torch.load
//    gives it (state_dict() detaches, so state dicts load with false).
//  - a dict nests: its entries get the key as a prefix, joined with '.'
//    ({"model": {"fc.weight": t}} -> "model.fc.weight"). Keys are str (or bytes),
//    int and bool (written as Python's str() writes them: "3", "True"); entries
//    under any other key (None, float, tuple) are skipped.
//  - a list or tuple nests with the indices as keys ("layers.0", "betas.1").
//  - Python numbers become 0-dim tensors: bool -> bool, int -> int64, float ->
//    float64 ({"epoch": 3} -> "epoch" = tensor(3)); ints beyond int64 are skipped.
//  - None, str, bytes, sets, torch.device and dtype objects are skipped.
//  - Two entries of one dict with the same flattened key: the later replaces the
//    earlier (a Python dict's SETITEM does). Entries of different containers
//    that flatten to the same key ({"a.b": t, "a": {"b": u}}) are Error(Format).
//  - A container inside itself is Error(Format) (a cycle), as is nesting deeper
//    than kMaxNesting or a walk of more than kMaxVisits nodes (exponential sharing).
#include "io/value.h"

#include <unordered_map>

#include "core/error.h"
#include "io/checkpoint.h"
#include "io/pickle.h"
#include "io/text.h"

namespace glia::io {

const char* value_kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::None:
      return "None";
    case Value::Kind::Bool:
      return "bool";
    case Value::Kind::Int:
    case Value::Kind::BigInt:
      return "int";
    case Value::Kind::Float:
      return "float";
    case Value::Kind::Str:
      return "str";
    case Value::Kind::Bytes:
      return "bytes";
    case Value::Kind::Tuple:
      return "tuple";
    case Value::Kind::List:
      return "list";
    case Value::Kind::Dict:
      return "dict";
    case Value::Kind::Set:
      return "set";
    case Value::Kind::Tensor:
      return "torch.Tensor";
    case Value::Kind::Device:
      return "torch.device";
    case Value::Kind::DType:
      return "torch.dtype";
  }
  return "?";
}

namespace {

const char* article_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::None:
      return "None";
    case Value::Kind::Bool:
      return "a bool";
    case Value::Kind::Int:
    case Value::Kind::BigInt:
      return "an int";
    case Value::Kind::Float:
      return "a float";
    case Value::Kind::Str:
      return "a str";
    case Value::Kind::Bytes:
      return "bytes";
    case Value::Kind::Tuple:
      return "a tuple";
    case Value::Kind::List:
      return "a list";
    case Value::Kind::Dict:
      return "a dict";
    case Value::Kind::Set:
      return "a set";
    case Value::Kind::Tensor:
      return "a tensor";
    case Value::Kind::Device:
      return "a torch.device";
    case Value::Kind::DType:
      return "a torch dtype";
  }
  return "?";
}

}  // namespace

Ref<nn::TensorDict> flatten(const Value& root, const std::string& what) {
  auto bad = [&](const auto&... args) { fail(Code::Format, "checkpoint ", what, ": ", args...); };
  if (root.kind != Value::Kind::Dict)
    bad("the top-level object is ", article_name(root.kind), ", expected a dict (a state dict)");

  auto dict = make_ref<nn::TensorDict>();
  std::unordered_map<std::string, const Value*> owner;  // flattened key -> the container it came from
  size_t visits = 0;
  uint64_t key_bytes = 0;

  struct Frame {
    const Value* container;
    size_t next;        // index of the next child
    size_t prefix_len;  // of `key` when this container was entered
  };
  std::vector<Frame> path;
  std::string key;

  auto enter = [&](const Value* v) {
    if (path.size() >= static_cast<size_t>(kMaxNesting)) bad("containers nested deeper than ", kMaxNesting);
    path.push_back(Frame{v, 0, key.size()});
  };
  auto emit = [&](const Value* container, const Tensor& t) {
    if (auto [it, inserted] = owner.emplace(key, container); !inserted && it->second != container)
      bad("two entries flatten to the key \"", key, "\"");
    key_bytes += key.size();
    if (key_bytes > Unpickler::kMaxAllKeyBytes) bad("the keys take more than ", Unpickler::kMaxAllKeyBytes, " bytes");
    dict->set(key, t);
  };

  enter(&root);
  while (!path.empty()) {
    Frame& f = path.back();
    const Value* c = f.container;
    bool is_dict = c->kind == Value::Kind::Dict;
    size_t step = is_dict ? 2 : 1;
    if (f.next >= c->items.size()) {
      key.resize(f.prefix_len);
      path.pop_back();
      continue;
    }
    size_t i = f.next;
    f.next += step;
    if (++visits > Unpickler::kMaxVisits)
      bad("more than ", Unpickler::kMaxVisits, " objects to flatten (shared too often)");

    // The child's key part.
    key.resize(f.prefix_len);
    std::string part;
    if (is_dict) {
      const Value& k = *c->items[i];
      if (k.kind == Value::Kind::Str || k.kind == Value::Kind::Bytes)
        part = k.s;
      else if (k.kind == Value::Kind::Int)
        part = std::to_string(k.i);
      else if (k.kind == Value::Kind::Bool)
        part = k.i ? "True" : "False";
      else
        continue;  // keys glia cannot name
    } else {
      part = std::to_string(i);
    }
    // Keys are C strings at the C ABI: one with a NUL could be neither named nor saved.
    if (part.find('\0') != std::string::npos) bad("a key with a NUL character (\"", key, "\" + ...)");
    if (invalid_utf8_at(part) != std::string::npos) bad("a key that is not valid UTF-8 (under \"", key, "\")");
    if (!key.empty()) key += '.';
    key += part;
    if (key.size() > Unpickler::kMaxKeyBytes) bad("a key longer than ", Unpickler::kMaxKeyBytes, " bytes");

    const Value* v = is_dict ? c->items[i + 1].get() : c->items[i].get();
    switch (v->kind) {
      case Value::Kind::Dict:
      case Value::Kind::List:
      case Value::Kind::Tuple:
        enter(v);
        break;
      case Value::Kind::Tensor:
        emit(c, v->tensor);
        break;
      case Value::Kind::Bool:
        emit(c, full({}, static_cast<double>(v->i), DType::Bool, Device{}));
        break;
      case Value::Kind::Int: {
        Tensor t = empty({}, DType::Int64, Device{});
        *t.data_ptr<int64_t>() = v->i;  // exact beyond 2^53
        emit(c, t);
        break;
      }
      case Value::Kind::Float:
        emit(c, full({}, v->f, DType::Float64, Device{}));
        break;
      default:
        break;  // None, str, bytes, sets, big ints, devices, dtypes
    }
  }
  return dict;
}

namespace {

bool is_number(Value::Kind k) { return k == Value::Kind::Bool || k == Value::Kind::Int || k == Value::Kind::Float; }

// An int equals a float when the float is that very integer (Python compares exactly).
bool int_equals_float(int64_t i, double f) {
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) return false;
  return static_cast<double>(static_cast<int64_t>(f)) == f && static_cast<int64_t>(f) == i;
}

}  // namespace

bool key_equal(const Value& a, const Value& b) {
  if (&a == &b) return true;
  if (is_number(a.kind) && is_number(b.kind)) {
    bool af = a.kind == Value::Kind::Float, bf = b.kind == Value::Kind::Float;
    if (af && bf) return a.f == b.f;
    if (af) return int_equals_float(b.i, a.f);
    if (bf) return int_equals_float(a.i, b.f);
    return a.i == b.i;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::None:
      return true;
    case Value::Kind::BigInt:
    case Value::Kind::Str:
    case Value::Kind::Bytes:
    case Value::Kind::Device:
    case Value::Kind::DType:
      return a.s == b.s;
    case Value::Kind::Tuple:
      if (a.items.size() != b.items.size()) return false;
      for (size_t i = 0; i < a.items.size(); ++i)
        if (!key_equal(*a.items[i], *b.items[i])) return false;
      return true;
    default:
      return false;  // tensors, lists, dicts, sets: by identity (checked above)
  }
}

bool is_device_name(std::string_view name) {
  size_t colon = name.find(':');
  std::string_view type = name.substr(0, colon);
  if (type.empty() || type.size() > 32 || type.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
    return false;
  if (colon == std::string_view::npos) return true;
  std::string_view index = name.substr(colon + 1);
  return !index.empty() && index.size() <= 9 && index.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace glia::io
