// libFuzzer harness for the checkpoint writers: the input is a small program
// (below) that builds a value tree (io/value.h) as the C API's glia_value
// builders could: leaves of every kind, tensors of every dtype with views that
// share storages, containers, and the same subtree reached twice. The tree is
// saved in torch's zip format to memory and loaded back: the file must load and
// hold the same object (kinds, numbers bit for bit, strings, tensors' dtype,
// geometry, bytes and requires_grad, shared containers still shared, shared
// storages still shared). A flat dict of str -> tensor is also saved as
// safetensors and read back. When the loaded object is a dict, its flattened
// tensor dict is saved in both formats and read back the same. The writers may
// refuse a tree only with InvalidArgument (a str that is not UTF-8, a device or
// dtype name torch does not have, tensors of two dtypes over one storage...).
//
// The program: one opcode byte at a time (op % 16) with its operands; values go
// on a stack, containers take theirs from the top (n: a byte % 64); tensor sizes
// are a byte % 5, strides a byte % 7; the root is the only value left, or a list
// of all that are left.
//   0 None  1 bool(b)  2 int(i64)  3 int(b) small  4 big int(n, n bytes)
//   5 float(f64)  6 str(n, n bytes)  7 bytes(n, n bytes)
//   8 tuple(n)  9 list(n)  10 dict(n, ordered): n key/value pairs from the stack;
//     unhashable keys dropped, equal keys (Python's ==) keep the first key and the
//     last value  11 set(n): hashable items, duplicates dropped
//   12 tensor(dtype, ndim, sizes, requires_grad, bytes): a new contiguous tensor
//   13 view(k, ndim, (size, stride) per dim, offset): a view of the k-th tensor's storage,
//     geometry clamped into the storage
//   14 device(b) or dtype(b): from short lists, or a name from the input
//   15 again(k): the k-th value built so far, once more (shared)
#include <bit>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "fuzz_support.h"
#include "io/checkpoint.h"
#include "io/value.h"

namespace {

using glia::Ref;
using glia::Tensor;
using glia::io::Value;
using K = Value::Kind;

struct Input {
  const uint8_t* p;
  size_t n;
  bool empty() const { return n == 0; }
  uint8_t byte() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  uint64_t u64(int bytes = 8) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t{byte()} << (8 * i);
    return v;
  }
  std::string bytes(size_t len) {
    len = std::min(len, n);
    std::string s(reinterpret_cast<const char*>(p), len);
    p += len;
    n -= len;
    return s;
  }
};

constexpr glia::DType kDTypes[] = {glia::DType::Float32,  glia::DType::Float64, glia::DType::Float16,
                                   glia::DType::BFloat16, glia::DType::Int64,   glia::DType::Int32,
                                   glia::DType::UInt8,    glia::DType::Bool};
const char* const kDevices[] = {"cpu", "cuda", "cuda:0", "cuda:1", "meta", "cuda:12"};
const char* const kDTypeNames[] = {"float32", "float64", "float16", "bfloat16", "int64",
                                   "int32",   "uint8",   "bool",    "half"};

Ref<Value> leaf(K k) {
  auto v = glia::make_ref<Value>();
  v->kind = k;
  return v;
}

bool hashable(const Value& v) {
  switch (v.kind) {
    case K::Tuple:
      for (const auto& i : v.items)
        if (!hashable(*i)) return false;
      return true;
    case K::List:
    case K::Dict:
    case K::Set:
    case K::Tensor:
      return false;
    default:
      return true;
  }
}

struct Builder {
  Input in;
  std::vector<Ref<Value>> stack, all;
  std::vector<Tensor> tensors;

  std::vector<Ref<Value>> take(size_t n) {
    n = std::min(n, stack.size());
    std::vector<Ref<Value>> out(stack.end() - static_cast<std::ptrdiff_t>(n), stack.end());
    stack.resize(stack.size() - n);
    return out;
  }
  void push(Ref<Value> v) {
    all.push_back(v);
    stack.push_back(std::move(v));
  }

  Tensor new_tensor() {
    glia::DType dt = kDTypes[in.byte() % std::size(kDTypes)];
    int ndim = in.byte() % 4;
    std::vector<int64_t> shape;
    for (int d = 0; d < ndim; ++d) shape.push_back(in.byte() % 5);
    bool grad = (in.byte() & 1) && glia::is_floating(dt);
    Tensor t = glia::empty(shape, dt, glia::Device{});
    size_t nbytes = static_cast<size_t>(t.numel()) * glia::itemsize(dt);
    std::string raw = in.bytes(nbytes);
    raw.resize(nbytes, '\x5a');
    if (dt == glia::DType::Bool)
      for (char& c : raw) c = static_cast<char>(c & 1);
    if (nbytes) std::memcpy(t.data(), raw.data(), nbytes);
    t.impl()->requires_grad = grad;
    return t;
  }

  Tensor view() {
    const Tensor& base = tensors[in.byte() % tensors.size()];
    int64_t numel = static_cast<int64_t>(base.ref()->storage()->nbytes() / glia::itemsize(base.dtype()));
    int ndim = in.byte() % 4;
    std::vector<int64_t> shape, strides;
    int64_t last = 0;  // the highest element index the view reaches, offset excluded
    bool empty = false;
    for (int d = 0; d < ndim; ++d) {
      shape.push_back(in.byte() % 5);
      strides.push_back(in.byte() % 7);
      if (shape.back() == 0) empty = true;
    }
    for (int d = 0; d < ndim; ++d) last += (shape[d] ? shape[d] - 1 : 0) * strides[d];
    if (!empty && last >= numel) {  // too big: every size becomes at most 1 (one element)
      last = 0;
      for (auto& s : shape) s = std::min<int64_t>(s, 1);
    }
    int64_t room = numel - (empty ? 0 : last + 1);
    if (room < 0) {  // an empty storage: only empty views fit
      shape.assign(static_cast<size_t>(ndim ? ndim : 1), 0);
      strides.assign(shape.size(), 1);
      room = 0;
    }
    uint8_t off = in.byte();
    int64_t offset = room > 0 ? static_cast<int64_t>(off) % (room + 1) : 0;
    Tensor v = glia::make_view(base, shape, strides, offset);
    v.impl()->requires_grad = base.requires_grad();
    return v;
  }

  void step() {
    uint8_t op = in.byte() % 16;
    switch (op) {
      case 0:
        push(leaf(K::None));
        break;
      case 1: {
        auto v = leaf(K::Bool);
        v->i = in.byte() & 1;
        push(v);
        break;
      }
      case 2:
      case 3: {
        auto v = leaf(K::Int);
        v->i = op == 2 ? static_cast<int64_t>(in.u64()) : static_cast<int8_t>(in.byte());
        push(v);
        break;
      }
      case 4: {  // as LONG1 holds it; the writer refuses an empty one
        auto v = leaf(K::BigInt);
        v->s = in.bytes(in.byte() % 24);
        push(v);
        break;
      }
      case 5: {
        auto v = leaf(K::Float);
        v->f = std::bit_cast<double>(in.u64());
        push(v);
        break;
      }
      case 6:
      case 7: {
        auto v = leaf(op == 6 ? K::Str : K::Bytes);
        v->s = in.bytes(in.byte() % 32);
        push(v);
        break;
      }
      case 8:
      case 9: {
        auto v = leaf(op == 8 ? K::Tuple : K::List);
        v->items = take(in.byte() % 64);
        push(v);
        break;
      }
      case 10: {
        auto v = leaf(K::Dict);
        size_t n = in.byte() % 64;
        v->ordered = in.byte() & 1;
        std::vector<Ref<Value>> kv = take(2 * n);
        for (size_t i = 0; i + 1 < kv.size(); i += 2) {
          if (!hashable(*kv[i])) continue;
          bool replaced = false;
          for (size_t j = 0; j < v->items.size(); j += 2)
            if (glia::io::key_equal(*v->items[j], *kv[i])) {
              v->items[j + 1] = kv[i + 1];
              replaced = true;
              break;
            }
          if (!replaced) {
            v->items.push_back(kv[i]);
            v->items.push_back(kv[i + 1]);
          }
        }
        push(v);
        break;
      }
      case 11: {
        auto v = leaf(K::Set);
        for (auto& item : take(in.byte() % 64)) {
          if (!hashable(*item)) continue;
          bool dup = false;
          for (auto& have : v->items) dup = dup || glia::io::key_equal(*have, *item);
          if (!dup) v->items.push_back(item);
        }
        push(v);
        break;
      }
      case 12:
      case 13: {
        Tensor t = op == 12 || tensors.empty() ? new_tensor() : view();
        tensors.push_back(t);
        auto v = leaf(K::Tensor);
        v->tensor = t;
        push(v);
        break;
      }
      case 14: {
        uint8_t b = in.byte();
        auto v = leaf(b & 1 ? K::Device : K::DType);
        if (b & 2)
          v->s = in.bytes(in.byte() % 12);  // any name: the writer refuses what torch does not have
        else if (b & 1)
          v->s = kDevices[(b >> 2) % std::size(kDevices)];
        else
          v->s = kDTypeNames[(b >> 2) % std::size(kDTypeNames)];
        push(v);
        break;
      }
      case 15:
        if (!all.empty()) {
          Ref<Value> again = all[in.u64(2) % all.size()];
          stack.push_back(again);
        }
        break;
    }
  }

  Ref<Value> build() {
    for (int ops = 0; !in.empty() && ops < 4096; ++ops) step();
    if (stack.size() == 1) return stack[0];
    auto root = leaf(K::List);
    root->items = stack;
    return root;
  }
};

// Minimal little-endian two's complement of an integer value (Int or BigInt).
std::string canonical_int(const Value& v) {
  std::string b = v.s;
  if (v.kind == K::Int) {
    b.resize(8);
    std::memcpy(b.data(), &v.i, 8);
  }
  while (b.size() > 1) {
    auto last = static_cast<uint8_t>(b.back()), prev = static_cast<uint8_t>(b[b.size() - 2]);
    if ((last == 0 && !(prev & 0x80)) || (last == 0xff && (prev & 0x80)))
      b.pop_back();
    else
      break;
  }
  return b;
}

// Structural equality (floats bit for bit, ints by value, containers item by item).
bool equal(const Value& a, const Value& b) {
  bool int_a = a.kind == K::Int || a.kind == K::BigInt, int_b = b.kind == K::Int || b.kind == K::BigInt;
  if (int_a || int_b) return int_a && int_b && canonical_int(a) == canonical_int(b);
  if (a.kind != b.kind || a.items.size() != b.items.size()) return false;
  switch (a.kind) {
    case K::Bool:
      return (a.i != 0) == (b.i != 0);
    case K::Float:
      return std::bit_cast<uint64_t>(a.f) == std::bit_cast<uint64_t>(b.f);
    case K::Str:
    case K::Bytes:
    case K::Device:
    case K::DType:
      return a.s == b.s;
    case K::Tensor:
      return a.tensor.dtype() == b.tensor.dtype() && a.tensor.shape() == b.tensor.shape();
    default:
      break;
  }
  for (size_t i = 0; i < a.items.size(); ++i)
    if (!equal(*a.items[i], *b.items[i])) return false;
  return true;
}

struct Compare {
  const char* what;
  std::unordered_map<const Value*, const Value*> containers;  // shared containers stay shared
  std::unordered_map<const void*, const void*> storages;      // shared storages stay shared

  void tensors(const Tensor& a, const Tensor& b, bool geometry) {
    glia::fuzz::check_tensor("loaded", b);
    if (a.dtype() != b.dtype()) glia::fuzz::finding("a tensor's dtype changed", what);
    if (a.shape() != b.shape()) glia::fuzz::finding("a tensor's shape changed", what);
    if (geometry) {
      if (a.strides() != b.strides() || a.offset() != b.offset())
        glia::fuzz::finding("a tensor's strides or offset changed", what);
      if (a.requires_grad() != b.requires_grad()) glia::fuzz::finding("requires_grad changed", what);
      const void* sa = a.ref()->storage().get();
      const void* sb = b.ref()->storage().get();
      if (a.numel()) {
        auto [it, fresh] = storages.emplace(sa, sb);
        if (it->second != sb) glia::fuzz::finding("tensors that shared a storage no longer share it", what);
      }
    }
    Tensor ca = glia::contiguous(a), cb = glia::contiguous(b);
    size_t n = static_cast<size_t>(ca.numel()) * glia::itemsize(ca.dtype());
    if (n && std::memcmp(ca.data(), cb.data(), n) != 0) glia::fuzz::finding("a tensor's bytes changed", what);
  }

  void values(const Value& a, const Value& b, bool geometry) {
    bool int_a = a.kind == K::Int || a.kind == K::BigInt, int_b = b.kind == K::Int || b.kind == K::BigInt;
    if (int_a && int_b) {
      if (canonical_int(a) != canonical_int(b)) glia::fuzz::finding("an int changed", what);
      return;
    }
    if (a.kind != b.kind) glia::fuzz::finding("a value's kind changed", what);
    switch (a.kind) {
      case K::None:
        return;
      case K::Bool:
        if ((a.i != 0) != (b.i != 0)) glia::fuzz::finding("a bool changed", what);
        return;
      case K::Float:
        if (std::bit_cast<uint64_t>(a.f) != std::bit_cast<uint64_t>(b.f)) glia::fuzz::finding("a float changed", what);
        return;
      case K::Str:
      case K::Bytes:
      case K::Device:
      case K::DType:
        if (a.s != b.s) glia::fuzz::finding("a string changed", what);
        return;
      case K::Tensor:
        tensors(a.tensor, b.tensor, geometry);
        return;
      default:
        break;
    }
    if (a.kind == K::List || a.kind == K::Dict || a.kind == K::Set) {
      auto [it, fresh] = containers.emplace(&a, &b);
      if (it->second != &b) glia::fuzz::finding("a container reached twice is no longer shared", what);
      if (!fresh) return;
    }
    // A safetensors file always reads as an OrderedDict (geometry false: only torch's format keeps more).
    if (a.kind == K::Dict && geometry && a.ordered != b.ordered)
      glia::fuzz::finding("OrderedDict and dict swapped", what);
    if (a.items.size() != b.items.size()) glia::fuzz::finding("a container's size changed", what);
    if (a.kind == K::Set) {  // any order: each item has an equal one
      for (const auto& x : a.items) {
        bool found = false;
        for (const auto& y : b.items) found = found || equal(*x, *y);
        if (!found) glia::fuzz::finding("a set lost an item", what);
      }
      return;
    }
    for (size_t i = 0; i < a.items.size(); ++i) values(*a.items[i], *b.items[i], geometry);
  }
};

bool flat_dict_of_tensors(const Value& v) {
  if (v.kind != K::Dict) return false;
  for (size_t i = 0; i < v.items.size(); i += 2)
    if (v.items[i]->kind != K::Str || v.items[i + 1]->kind != K::Tensor) return false;
  return true;
}

// Saves with `save`, which may refuse only with InvalidArgument; returns the bytes,
// or an empty string when refused.
// GLIA_FUZZ_VERBOSE=1: say what each input built and how each save went (for writing seeds).
const bool kVerbose = std::getenv("GLIA_FUZZ_VERBOSE") != nullptr;

template <class F>
std::string saved(F&& save, const char* what) {
  glia::io::StringSink out;
  try {
    save(out);
  } catch (const glia::Error& e) {
    if (kVerbose) std::fprintf(stderr, "writer: refused: %s\n", e.message().c_str());
    if (e.code() != glia::Code::InvalidArgument) glia::fuzz::finding(what, e.message());
    return {};
  }
  if (kVerbose) std::fprintf(stderr, "writer: saved %zu bytes\n", out.bytes.size());
  if (out.bytes.empty()) glia::fuzz::finding("a writer wrote nothing", what);
  return out.bytes;
}

template <class F>
auto loaded(const std::string& bytes, F&& load, const char* what) {
  try {
    return load(glia::io::ByteSource::borrow(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  } catch (const glia::Error& e) {
    glia::fuzz::finding(what, e.message());
  }
}

void same_dicts(const glia::nn::TensorDict& a, const glia::nn::TensorDict& b, const char* what) {
  if (a.size() != b.size()) glia::fuzz::finding("a tensor dict's size changed", what);
  Compare c{what, {}, {}};
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.key_at(i) != b.key_at(i)) glia::fuzz::finding("a tensor dict's keys changed", what);
    c.tensors(a.value_at(i), b.value_at(i), /*geometry=*/false);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using glia::io::Format;
  return glia::fuzz::run_one([&] {
    Builder b{Input{data, size}, {}, {}, {}};
    Ref<Value> root = b.build();
    if (kVerbose)
      std::fprintf(stderr, "writer: a %s of %zu, %zu values, %zu tensors\n", glia::io::value_kind_name(root->kind),
                   root->size(), b.all.size(), b.tensors.size());

    std::string torch = saved([&](glia::io::Sink& out) { glia::io::save_value(*root, out, Format::Torch); },
                              "torch write refused a value with a code other than InvalidArgument");
    if (torch.empty()) return;
    auto back = loaded(
        torch, [](const auto& src) { return glia::io::load_value(src, Format::Auto); },
        "a torch file glia wrote does not load");
    Compare{"torch zip", {}, {}}.values(*root, *back, /*geometry=*/true);

    if (flat_dict_of_tensors(*root)) {
      std::string st = saved([&](glia::io::Sink& out) { glia::io::save_value(*root, out, Format::Safetensors); },
                             "safetensors write refused a flat dict with a code other than InvalidArgument");
      if (!st.empty()) {
        auto st_back = loaded(
            st, [](const auto& src) { return glia::io::load_value(src, Format::Auto); },
            "a safetensors file glia wrote does not load");
        Compare{"safetensors", {}, {}}.values(*root, *st_back, /*geometry=*/false);
      }
    }

    if (back->kind != K::Dict) return;
    Ref<glia::nn::TensorDict> flat;
    try {
      flat = glia::io::flatten(*back, "fuzz");
    } catch (const glia::Error& e) {
      if (e.code() != glia::Code::Format) glia::fuzz::finding("flatten failed with a code other than Format", "");
      return;  // keys that collide when flattened
    }
    for (Format f : {Format::Torch, Format::Safetensors}) {
      std::string bytes = saved([&](glia::io::Sink& out) { glia::io::save(*flat, out, f); },
                                "a flattened dict failed to save with a code other than InvalidArgument");
      if (bytes.empty()) continue;  // e.g. a key that is not UTF-8 in safetensors
      auto again = loaded(
          bytes, [](const auto& src) { return glia::io::load(src, Format::Auto); },
          "a tensor dict glia wrote does not load");
      same_dicts(*flat, *again, f == Format::Torch ? "flat torch" : "flat safetensors");
    }
  });
}
