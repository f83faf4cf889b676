// The restricted unpickler: Python's pickle opcodes (protocols 0 to 5, as
// CPython's Lib/pickle.py defines them) over an arena of values, with an
// allowlist of the globals a PyTorch state dict needs.
//
// Note [Pickle values in an arena]: every object the pickle builds is a Value in
// one vector and containers hold indices into it. The memo, the stack and
// containers share objects by index, so cycles (a list appended to itself) and
// sharing cost nothing and free nothing twice; the arena dies at once. Nothing
// here recurses: parsing is a loop over opcodes and the flattening walk keeps
// its own stack, bounded by kMaxNesting.
//
// The flattening of a checkpoint into name -> tensor is Note [Flattening a
// checkpoint] in value.cpp.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "core/tensor.h"
#include "io/checkpoint.h"
#include "io/pickle.h"
#include "io/text.h"
#include "io/value.h"

namespace glia::io {

namespace {

using Kind = Unpickler::Kind;

// What an Object value is: an allowed global, or a value only allowed calls make.
enum class Obj : uint8_t {
  OrderedDict,
  RebuildTensor,
  RebuildTensorV2,
  RebuildParameter,
  RebuildParameterWithState,
  RebuildFromTypeV2,
  StorageType,  // Value::i holds the DType
  TorchSize,
  TorchDevice,
  TensorClass,
  ParameterClass,
  DTypeValue,  // torch.float32 etc. (an opaque value)
  CodecsEncode,
  BuiltinSet,
  BuiltinFrozenset,
  BuiltinBytes,  // bytes() with no arguments: protocol 2's b""
  DeviceValue,   // a torch.device(...)
  StorageRef,    // a persistent id's storage; Value::i indexes Impl::refs
};

struct Global {
  const char* name;
  Obj obj;
  int dtype;  // DType of a storage type, -1 otherwise
};

// The allowlist (a subset of torch/_weights_only_unpickler.py's, plus what
// protocol 2 uses for sets and bytes).
constexpr Global kGlobals[] = {
    {"collections.OrderedDict", Obj::OrderedDict, -1},
    {"torch._utils._rebuild_tensor", Obj::RebuildTensor, -1},
    {"torch._utils._rebuild_tensor_v2", Obj::RebuildTensorV2, -1},
    {"torch._utils._rebuild_parameter", Obj::RebuildParameter, -1},
    {"torch._utils._rebuild_parameter_with_state", Obj::RebuildParameterWithState, -1},
    {"torch._tensor._rebuild_from_type_v2", Obj::RebuildFromTypeV2, -1},
    {"torch.Size", Obj::TorchSize, -1},
    {"torch.device", Obj::TorchDevice, -1},
    {"torch.Tensor", Obj::TensorClass, -1},
    {"torch.nn.parameter.Parameter", Obj::ParameterClass, -1},
    {"_codecs.encode", Obj::CodecsEncode, -1},
    {"builtins.set", Obj::BuiltinSet, -1},
    {"builtins.frozenset", Obj::BuiltinFrozenset, -1},
    {"__builtin__.set", Obj::BuiltinSet, -1},
    {"__builtin__.frozenset", Obj::BuiltinFrozenset, -1},
    {"builtins.bytes", Obj::BuiltinBytes, -1},
    {"__builtin__.bytes", Obj::BuiltinBytes, -1},
};

struct StorageName {
  const char* name;  // after "torch." or "torch.cuda."
  int dtype;         // -1: torch has it, glia does not
  const char* torch_dtype;
};
constexpr StorageName kStorages[] = {
    {"FloatStorage", static_cast<int>(DType::Float32), "float32"},
    {"DoubleStorage", static_cast<int>(DType::Float64), "float64"},
    {"HalfStorage", static_cast<int>(DType::Float16), "float16"},
    {"BFloat16Storage", static_cast<int>(DType::BFloat16), "bfloat16"},
    {"LongStorage", static_cast<int>(DType::Int64), "int64"},
    {"IntStorage", static_cast<int>(DType::Int32), "int32"},
    {"ByteStorage", static_cast<int>(DType::UInt8), "uint8"},
    {"BoolStorage", static_cast<int>(DType::Bool), "bool"},
    {"CharStorage", static_cast<int>(DType::Int8), "int8"},
    {"ShortStorage", static_cast<int>(DType::Int16), "int16"},
    {"ComplexHalfStorage", -1, "complex32"},
    {"ComplexFloatStorage", -1, "complex64"},
    {"ComplexDoubleStorage", -1, "complex128"},
    {"QInt8Storage", -1, "qint8"},
    {"QUInt8Storage", -1, "quint8"},
    {"QInt32Storage", -1, "qint32"},
    {"QUInt4x2Storage", -1, "quint4x2"},
    {"QUInt2x4Storage", -1, "quint2x4"},
    {"UntypedStorage", -1, "untyped"},
};
constexpr const char* kDTypes[] = {"float16", "float32", "float64", "bfloat16",  "int64",     "int32",      "uint8",
                                   "bool",    "int8",    "int16",   "complex32", "complex64", "complex128", "half",
                                   "float",   "double",  "long",    "int",       "short",     "cfloat",     "cdouble"};

const char* opcode_name(uint8_t op) {
  switch (op) {
    case '(':
      return "MARK";
    case '.':
      return "STOP";
    case '0':
      return "POP";
    case '1':
      return "POP_MARK";
    case '2':
      return "DUP";
    case 'F':
      return "FLOAT";
    case 'I':
      return "INT";
    case 'J':
      return "BININT";
    case 'K':
      return "BININT1";
    case 'L':
      return "LONG";
    case 'M':
      return "BININT2";
    case 'N':
      return "NONE";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 'R':
      return "REDUCE";
    case 'S':
      return "STRING";
    case 'T':
      return "BINSTRING";
    case 'U':
      return "SHORT_BINSTRING";
    case 'V':
      return "UNICODE";
    case 'X':
      return "BINUNICODE";
    case 'a':
      return "APPEND";
    case 'b':
      return "BUILD";
    case 'c':
      return "GLOBAL";
    case 'd':
      return "DICT";
    case '}':
      return "EMPTY_DICT";
    case 'e':
      return "APPENDS";
    case 'g':
      return "GET";
    case 'h':
      return "BINGET";
    case 'i':
      return "INST";
    case 'j':
      return "LONG_BINGET";
    case 'l':
      return "LIST";
    case ']':
      return "EMPTY_LIST";
    case 'o':
      return "OBJ";
    case 'p':
      return "PUT";
    case 'q':
      return "BINPUT";
    case 'r':
      return "LONG_BINPUT";
    case 's':
      return "SETITEM";
    case 't':
      return "TUPLE";
    case ')':
      return "EMPTY_TUPLE";
    case 'u':
      return "SETITEMS";
    case 'G':
      return "BINFLOAT";
    case 'B':
      return "BINBYTES";
    case 'C':
      return "SHORT_BINBYTES";
    case 0x80:
      return "PROTO";
    case 0x81:
      return "NEWOBJ";
    case 0x82:
      return "EXT1";
    case 0x83:
      return "EXT2";
    case 0x84:
      return "EXT4";
    case 0x85:
      return "TUPLE1";
    case 0x86:
      return "TUPLE2";
    case 0x87:
      return "TUPLE3";
    case 0x88:
      return "NEWTRUE";
    case 0x89:
      return "NEWFALSE";
    case 0x8a:
      return "LONG1";
    case 0x8b:
      return "LONG4";
    case 0x8c:
      return "SHORT_BINUNICODE";
    case 0x8d:
      return "BINUNICODE8";
    case 0x8e:
      return "BINBYTES8";
    case 0x8f:
      return "EMPTY_SET";
    case 0x90:
      return "ADDITEMS";
    case 0x91:
      return "FROZENSET";
    case 0x92:
      return "NEWOBJ_EX";
    case 0x93:
      return "STACK_GLOBAL";
    case 0x94:
      return "MEMOIZE";
    case 0x95:
      return "FRAME";
    case 0x96:
      return "BYTEARRAY8";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    default:
      return nullptr;
  }
}

uint64_t read_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// A Python long's little-endian two's complement bytes, when it fits int64.
bool long_to_int64(const uint8_t* p, size_t n, int64_t* out) {
  if (n == 0) {
    *out = 0;
    return true;
  }
  bool negative = p[n - 1] & 0x80;
  for (size_t i = 8; i < n; ++i)  // bytes beyond 8 must only extend the sign
    if (p[i] != (negative ? 0xff : 0x00)) return false;
  if (n > 8 && ((p[7] & 0x80) != 0) != negative) return false;
  size_t k = std::min<size_t>(n, 8);
  uint64_t v = read_le(p, static_cast<int>(k));
  if (negative && k < 8) v |= ~uint64_t{0} << (8 * k);
  *out = static_cast<int64_t>(v);
  return true;
}

}  // namespace

struct Unpickler::Impl {
  struct Value {
    Kind kind;
    Obj obj;       // Kind::Object
    uint32_t aux;  // Str/Bytes/BigInt: strings index; containers: lists index; Tensor: tensors index
    union {
      int64_t i;  // Int, Bool; Object: dtype (StorageType) or refs index (StorageRef)
      double f;
    };
  };
  struct TensorSpec {
    uint32_t storage;  // index into requests
    int64_t offset;
    Dims shape, strides;
    bool requires_grad;
  };
  struct StorageView {  // what a persistent id resolves to: a root storage, or a legacy view of one
    uint32_t storage;
    uint64_t offset, numel;  // elements
  };

  std::string what;
  uint64_t base = 0;
  const uint8_t* data = nullptr;
  size_t size = 0, pos = 0, op_pos = 0;
  uint8_t op = 0;

  std::vector<Value> values;
  std::vector<std::string> strings;
  std::vector<std::vector<uint32_t>> lists;
  std::vector<TensorSpec> tensors;
  std::vector<StorageView> refs;
  std::vector<StorageRequest> requests;
  std::unordered_map<std::string, uint32_t> request_index;

  std::vector<uint32_t> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, uint32_t> memo;
  uint32_t root = 0;

  template <class... Args>
  [[noreturn]] void bad(const Args&... args) const {
    const char* name = opcode_name(op);
    fail(Code::Format, "unpickler: ", name ? name : "opcode", " at byte ", base + op_pos, " of ", what, ": ", args...);
  }

  // ---- values --------------------------------------------------------------

  uint32_t add(Value v) {
    if (values.size() >= kMaxValues) bad("more than ", kMaxValues, " objects");
    values.push_back(v);
    return static_cast<uint32_t>(values.size() - 1);
  }
  uint32_t add_scalar(Kind k, int64_t i) {
    Value v{k, Obj::OrderedDict, 0, {}};
    v.i = i;
    return add(v);
  }
  uint32_t add_float(double f) {
    Value v{Kind::Float, Obj::OrderedDict, 0, {}};
    v.f = f;
    return add(v);
  }
  uint32_t add_string(Kind k, std::string s) {
    uint32_t v = add(Value{k, Obj::OrderedDict, static_cast<uint32_t>(strings.size()), {}});
    strings.push_back(std::move(s));
    return v;
  }
  uint32_t add_list(Kind k, std::vector<uint32_t> items) {
    uint32_t v = add(Value{k, Obj::OrderedDict, static_cast<uint32_t>(lists.size()), {}});
    lists.push_back(std::move(items));
    return v;
  }
  // An empty collections.OrderedDict: a Dict whose Value::i is 1 (0 for a plain dict).
  uint32_t add_ordered_dict() {
    uint32_t v = add_list(Kind::Dict, {});
    values[v].i = 1;
    return v;
  }
  uint32_t add_object(Obj o, int64_t i = 0) {
    Value v{Kind::Object, o, 0, {}};
    v.i = i;
    return add(v);
  }
  // An object that carries a name: a device ("cuda:0") or a dtype ("float32").
  uint32_t add_named_object(Obj o, std::string name) {
    Value v{Kind::Object, o, static_cast<uint32_t>(strings.size()), {}};
    v.i = 0;
    strings.push_back(std::move(name));
    return add(v);
  }
  uint32_t add_tensor(TensorSpec spec) {
    uint32_t v = add(Value{Kind::Tensor, Obj::OrderedDict, static_cast<uint32_t>(tensors.size()), {}});
    tensors.push_back(std::move(spec));
    return v;
  }

  const char* kind_name(uint32_t v) const {
    switch (values[v].kind) {
      case Kind::None:
        return "None";
      case Kind::Bool:
        return "a bool";
      case Kind::Int:
      case Kind::BigInt:
        return "an int";
      case Kind::Float:
        return "a float";
      case Kind::Str:
        return "a str";
      case Kind::Bytes:
        return "bytes";
      case Kind::Tuple:
        return "a tuple";
      case Kind::List:
        return "a list";
      case Kind::Dict:
        return "a dict";
      case Kind::Set:
        return "a set";
      case Kind::Tensor:
        return "a tensor";
      case Kind::Object:
        return object_name(values[v]);
    }
    return "?";
  }
  static const char* object_name(const Value& v) {
    switch (v.obj) {
      case Obj::OrderedDict:
        return "collections.OrderedDict";
      case Obj::RebuildTensor:
        return "torch._utils._rebuild_tensor";
      case Obj::RebuildTensorV2:
        return "torch._utils._rebuild_tensor_v2";
      case Obj::RebuildParameter:
        return "torch._utils._rebuild_parameter";
      case Obj::RebuildParameterWithState:
        return "torch._utils._rebuild_parameter_with_state";
      case Obj::RebuildFromTypeV2:
        return "torch._tensor._rebuild_from_type_v2";
      case Obj::StorageType:
        return "a storage type";
      case Obj::TorchSize:
        return "torch.Size";
      case Obj::TorchDevice:
        return "torch.device";
      case Obj::TensorClass:
        return "torch.Tensor";
      case Obj::ParameterClass:
        return "torch.nn.parameter.Parameter";
      case Obj::DTypeValue:
        return "a torch dtype";
      case Obj::CodecsEncode:
        return "_codecs.encode";
      case Obj::BuiltinSet:
        return "builtins.set";
      case Obj::BuiltinFrozenset:
        return "builtins.frozenset";
      case Obj::BuiltinBytes:
        return "builtins.bytes";
      case Obj::DeviceValue:
        return "a torch.device";
      case Obj::StorageRef:
        return "a storage";
    }
    return "?";
  }

  const std::vector<uint32_t>& seq(uint32_t v, const char* what_arg) const {
    if (values[v].kind != Kind::Tuple && values[v].kind != Kind::List)
      bad(what_arg, " must be a tuple, got ", kind_name(v));
    return lists[values[v].aux];
  }
  int64_t int_arg(uint32_t v, const char* what_arg) const {
    if (values[v].kind == Kind::BigInt) bad(what_arg, " does not fit in int64");
    if (values[v].kind != Kind::Int && values[v].kind != Kind::Bool)
      bad(what_arg, " must be an int, got ", kind_name(v));
    return values[v].i;
  }
  const std::string& str_arg(uint32_t v, const char* what_arg) const {
    if (values[v].kind != Kind::Str && values[v].kind != Kind::Bytes)
      bad(what_arg, " must be a str, got ", kind_name(v));
    return strings[values[v].aux];
  }

  // ---- input ---------------------------------------------------------------

  void need(uint64_t n) const {
    if (n > size - pos) bad("needs ", n, " bytes, only ", size - pos, " left (truncated pickle)");
  }
  uint64_t take_le(int n) {
    need(static_cast<uint64_t>(n));
    uint64_t v = read_le(data + pos, n);
    pos += static_cast<size_t>(n);
    return v;
  }
  std::string take_bytes(uint64_t n) {
    need(n);
    std::string s(reinterpret_cast<const char*>(data + pos), static_cast<size_t>(n));
    pos += static_cast<size_t>(n);
    return s;
  }
  std::string_view take_line() {
    const void* nl = std::memchr(data + pos, '\n', size - pos);
    if (!nl) bad("no end of line (truncated pickle)");
    size_t end = static_cast<size_t>(static_cast<const uint8_t*>(nl) - data);
    std::string_view line(reinterpret_cast<const char*>(data + pos), end - pos);
    pos = end + 1;
    return line;
  }
  // A decimal integer beyond int64 as LONG1 holds it: little-endian two's
  // complement in the fewest bytes (Python's encode_long), so a big int reads the
  // same whichever protocol wrote it (the legacy torch.save magic number).
  std::string decimal_to_long(std::string_view line) const {
    bool negative = !line.empty() && line.front() == '-';
    if (negative || (!line.empty() && line.front() == '+')) line.remove_prefix(1);
    if (line.empty() || line.size() > 4300) bad("\"", line.substr(0, 40), "\" is not an int");
    std::string digits(line);
    for (char c : digits)
      if (c < '0' || c > '9') bad("\"", line.substr(0, 40), "\" is not an int");
    std::string mag;  // magnitude, little-endian bytes: repeated division by 256
    while (!(digits.size() == 1 && digits[0] == '0')) {
      std::string q;
      unsigned rem = 0;
      for (char c : digits) {
        rem = rem * 10 + static_cast<unsigned>(c - '0');
        if (!q.empty() || rem >= 256) q += static_cast<char>('0' + rem / 256);
        rem %= 256;
      }
      mag += static_cast<char>(rem);
      digits = q.empty() ? "0" : q;
    }
    if (!negative) {
      if (mag.empty() || (static_cast<uint8_t>(mag.back()) & 0x80)) mag += '\0';
      return mag;
    }
    // Two's complement of the magnitude; one more byte when the sign bit is lost.
    std::string out = mag;
    unsigned carry = 1;
    for (char& c : out) {
      unsigned b = (~static_cast<unsigned>(static_cast<uint8_t>(c)) & 0xFF) + carry;
      c = static_cast<char>(b & 0xFF);
      carry = b >> 8;
    }
    if (!(static_cast<uint8_t>(out.back()) & 0x80)) out += '\xff';
    // Drop redundant 0xff bytes (fewest bytes that keep the sign).
    while (out.size() > 1 && static_cast<uint8_t>(out.back()) == 0xFF &&
           (static_cast<uint8_t>(out[out.size() - 2]) & 0x80))
      out.pop_back();
    return out;
  }

  int64_t line_int(std::string_view line) const {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc() || p != line.data() + line.size()) bad("\"", line, "\" is not an int64");
    return v;
  }

  // ---- stack ---------------------------------------------------------------

  size_t floor() const { return marks.empty() ? 0 : marks.back(); }
  uint32_t pop() {
    if (stack.size() <= floor()) bad("stack underflow");
    uint32_t v = stack.back();
    stack.pop_back();
    return v;
  }
  uint32_t& top() {
    if (stack.size() <= floor()) bad("stack underflow");
    return stack.back();
  }
  std::vector<uint32_t> pop_mark() {
    if (marks.empty()) bad("no MARK to pop to");
    std::vector<uint32_t> items(stack.begin() + static_cast<std::ptrdiff_t>(marks.back()), stack.end());
    stack.resize(marks.back());
    marks.pop_back();
    return items;
  }
  void push(uint32_t v) { stack.push_back(v); }

  uint32_t container(Kind k, const char* verb) {
    uint32_t t = top();
    if (values[t].kind != k) bad("cannot ", verb, " ", kind_name(t));
    return t;
  }

  // ---- globals and calls -----------------------------------------------------

  uint32_t global(const std::string& module, const std::string& name) {
    std::string full = module + "." + name;
    for (const Global& g : kGlobals)
      if (full == g.name) return add_object(g.obj);
    if (module == "torch" || module == "torch.cuda") {
      for (const StorageName& s : kStorages) {
        if (name != s.name) continue;
        if (s.dtype < 0)
          fail(Code::Unsupported, "unpickler: ", opcode_name(op), " at byte ", base + op_pos, " of ", what,
               ": storage type ", full, " (", s.torch_dtype, ") is not supported: glia has no such dtype");
        return add_object(Obj::StorageType, s.dtype);
      }
      if (module == "torch")
        for (const char* d : kDTypes)
          if (name == d) return add_named_object(Obj::DTypeValue, name);
    }
    if (module == "torch.storage" && name == "UntypedStorage")
      fail(Code::Unsupported, "unpickler: ", opcode_name(op), " at byte ", base + op_pos, " of ", what,
           ": torch.storage.UntypedStorage is not supported (only tensors' typed storages are)");
    // A module's class (torch.save(model) pickles the whole module, its class first).
    if (module.rfind("torch.nn.", 0) == 0 || module == "__main__")
      bad("global \"", full, "\" is not allowed (only the globals of a state dict are; no code runs): a whole ",
          "pickled module or object; save its state_dict() instead");
    bad("global \"", full, "\" is not allowed (only the globals of a state dict are; no code runs)");
  }

  // ('storage', storage_type, key, location, numel[, view_metadata])
  uint32_t persistent_load(uint32_t pid) {
    if (values[pid].kind != Kind::Tuple) bad("a persistent id must be a tuple, got ", kind_name(pid));
    const std::vector<uint32_t>& f = lists[values[pid].aux];
    if (f.empty() || (values[f[0]].kind != Kind::Str && values[f[0]].kind != Kind::Bytes) ||
        strings[values[f[0]].aux] != "storage")
      bad("only ('storage', ...) persistent ids are allowed");
    if (f.size() != 5 && f.size() != 6) bad("a storage persistent id has 5 or 6 fields, got ", f.size());
    const Value& type = values[f[1]];
    if (type.kind != Kind::Object || type.obj != Obj::StorageType)
      bad("the storage type must be a torch storage class, got ", kind_name(f[1]));
    auto dtype = static_cast<DType>(type.i);
    std::string key = values[f[2]].kind == Kind::Int ? std::to_string(values[f[2]].i) : str_arg(f[2], "storage key");
    const std::string& location = str_arg(f[3], "storage location");
    int64_t numel = int_arg(f[4], "storage size");
    if (numel < 0) bad("storage \"", key, "\" has negative size ", numel);
    uint64_t nbytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(numel), itemsize(dtype), &nbytes))
      bad("storage \"", key, "\" of ", numel, " ", dtype_name(dtype), " elements overflows");
    uint32_t slot;
    if (auto it = request_index.find(key); it != request_index.end()) {
      slot = it->second;
      const StorageRequest& r = requests[slot];
      if (r.dtype != dtype || r.numel != static_cast<uint64_t>(numel))
        bad("storage \"", key, "\" is declared as ", r.numel, " ", dtype_name(r.dtype), " elements and as ", numel, " ",
            dtype_name(dtype), " elements");
    } else {
      slot = static_cast<uint32_t>(requests.size());
      request_index.emplace(key, slot);
      requests.push_back(StorageRequest{key, dtype, static_cast<uint64_t>(numel), location});
    }
    StorageView view{slot, 0, static_cast<uint64_t>(numel)};
    if (f.size() == 6 && values[f[5]].kind != Kind::None) {  // legacy storage view (view_key, offset, size)
      const std::vector<uint32_t>& m = seq(f[5], "view metadata");
      if (m.size() != 3) bad("view metadata has 3 fields, got ", m.size());
      int64_t off = int_arg(m[1], "view offset"), n = int_arg(m[2], "view size");
      if (off < 0 || n < 0 || static_cast<uint64_t>(off) > view.numel || static_cast<uint64_t>(n) > view.numel - off)
        bad("view [", off, ", ", off, " + ", n, ") is outside storage \"", key, "\" of ", numel, " elements");
      view.offset = static_cast<uint64_t>(off);
      view.numel = static_cast<uint64_t>(n);
    }
    refs.push_back(view);
    return add_object(Obj::StorageRef, static_cast<int64_t>(refs.size() - 1));
  }

  // Note [Text persistent ids]: torch.save with pickle_protocol=0 writes each
  // persistent id as PERSID and the str() of its tuple, e.g.
  //   ('storage', <class 'torch.FloatStorage'>, '0', 'cpu', 4)
  //   ('storage', <class 'torch.FloatStorage'>, '94', 'cpu', 4, None)      (legacy)
  //   ('storage', <class 'torch.FloatStorage'>, '94', 'cpu', 4, ('94', 0, 4))
  // torch.load cannot read these back (it indexes the str). They are parsed here
  // by this grammar alone: quoted strings without quotes or backslashes inside,
  // decimal ints, None, and the storage class, which goes through global() like a
  // GLOBAL opcode (so a disallowed class is refused by name). Nothing is evaluated.
  uint32_t text_persistent_id(std::string_view line) {
    std::string_view rest = line;
    auto refuse = [&]() {
      bad("text persistent id \"", line.substr(0, 80), line.size() > 80 ? "..." : "",
          "\" is not a storage tuple ('storage', <class 'torch.<Type>Storage'>, 'key', 'location', numel[, view])");
    };
    auto eat = [&](std::string_view tok) {
      if (rest.substr(0, tok.size()) != tok) refuse();
      rest.remove_prefix(tok.size());
    };
    auto comma = [&]() { eat(", "); };
    auto quoted = [&]() {
      eat("'");
      size_t end = rest.find_first_of("'\\");
      if (end == std::string_view::npos || rest[end] != '\'') refuse();
      std::string s(rest.substr(0, end));
      rest.remove_prefix(end + 1);
      return add_string(Kind::Str, std::move(s));
    };
    auto integer = [&]() {
      size_t end = !rest.empty() && rest[0] == '-' ? 1 : 0;  // the line may end right here
      while (end < rest.size() && rest[end] >= '0' && rest[end] <= '9') ++end;
      if (end == 0 || (end == 1 && rest[0] == '-') || end > 20) refuse();
      int64_t v = line_int(rest.substr(0, end));
      rest.remove_prefix(end);
      return add_scalar(Kind::Int, v);
    };
    std::vector<uint32_t> f;
    eat("(");
    f.push_back(quoted());
    comma();
    eat("<class '");
    size_t end = rest.find('\'');
    if (end == std::string_view::npos) refuse();
    std::string_view full = rest.substr(0, end);
    size_t dot = full.rfind('.');
    if (dot == std::string_view::npos) refuse();
    f.push_back(global(std::string(full.substr(0, dot)), std::string(full.substr(dot + 1))));
    rest.remove_prefix(end);
    eat("'>");
    comma();
    f.push_back(quoted());
    comma();
    f.push_back(quoted());
    comma();
    f.push_back(integer());
    if (rest.substr(0, 2) == ", ") {
      comma();
      if (rest.substr(0, 4) == "None") {
        eat("None");
        f.push_back(add_scalar(Kind::None, 0));
      } else {
        eat("(");
        std::vector<uint32_t> view{quoted()};
        comma();
        view.push_back(integer());
        comma();
        view.push_back(integer());
        eat(")");
        f.push_back(add_list(Kind::Tuple, std::move(view)));
      }
    }
    eat(")");
    if (!rest.empty()) refuse();
    return add_list(Kind::Tuple, std::move(f));
  }

  // _rebuild_tensor(_v2)(storage, storage_offset, size, stride, ...)
  uint32_t rebuild_tensor(const std::vector<uint32_t>& a, bool requires_grad) {
    const Value& sv = values[a[0]];
    if (sv.kind != Kind::Object || sv.obj != Obj::StorageRef)
      bad("a tensor's storage must be a storage, got ", kind_name(a[0]));
    const StorageView& view = refs[static_cast<size_t>(sv.i)];
    const StorageRequest& storage = requests[view.storage];
    int64_t offset = int_arg(a[1], "storage_offset");
    const std::vector<uint32_t>& size = seq(a[2], "size");
    const std::vector<uint32_t>& stride = seq(a[3], "stride");
    if (size.size() > static_cast<size_t>(kMaxDims))
      bad("a tensor of ", size.size(), " dimensions (at most ", kMaxDims, ")");
    if (size.size() != stride.size()) bad("size has ", size.size(), " dimensions, stride ", stride.size());
    TensorSpec t{view.storage, 0, {}, {}, requires_grad};
    for (size_t d = 0; d < size.size(); ++d) {
      t.shape.push_back(int_arg(size[d], "a size"));
      t.strides.push_back(int_arg(stride[d], "a stride"));
    }
    if (offset < 0) bad("negative storage offset ", offset);
    int64_t numel = 1;
    int64_t last = offset;  // the last element's index in the view
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < 0) bad("negative size in ", IntSpan(t.shape));
      if (t.strides[d] < 0) bad("negative stride in ", IntSpan(t.strides));
      if (__builtin_mul_overflow(numel, t.shape[d], &numel))
        bad("the number of elements of ", IntSpan(t.shape), " overflows");
    }
    if (numel > 0) {
      for (size_t d = 0; d < t.shape.size(); ++d) {
        int64_t span = 0;
        if (__builtin_mul_overflow(t.shape[d] - 1, t.strides[d], &span) || __builtin_add_overflow(last, span, &last))
          bad("size ", IntSpan(t.shape), " with stride ", IntSpan(t.strides), " overflows");
      }
      if (static_cast<uint64_t>(last) >= view.numel)
        bad("a tensor of size ", IntSpan(t.shape), ", stride ", IntSpan(t.strides), " at offset ", offset,
            " reaches element ", last, " of storage \"", storage.key, "\", which has ", view.numel, " elements");
    } else if (static_cast<uint64_t>(offset) > view.numel) {
      bad("storage offset ", offset, " is past the end of storage \"", storage.key, "\" (", view.numel, " elements)");
    }
    if (requires_grad && !is_floating(storage.dtype))
      bad("only tensors of floating point dtype can require gradients, got ", dtype_name(storage.dtype));
    t.offset = offset + static_cast<int64_t>(view.offset);
    return add_tensor(std::move(t));
  }

  bool bool_arg(uint32_t v, const char* what_arg) const {
    if (values[v].kind != Kind::Bool && values[v].kind != Kind::Int)
      bad(what_arg, " must be a bool, got ", kind_name(v));
    return values[v].i != 0;
  }

  uint32_t call(uint32_t callable, uint32_t args_v) {
    const Value& c = values[callable];
    if (c.kind != Kind::Object) bad(kind_name(callable), " is not callable");
    if (values[args_v].kind != Kind::Tuple) bad("the arguments must be a tuple, got ", kind_name(args_v));
    const std::vector<uint32_t> a = lists[values[args_v].aux];  // a copy: calls add values
    auto arity = [&](size_t lo, size_t hi) {
      if (a.size() < lo || a.size() > hi)
        bad(object_name(c), " takes ", lo, lo == hi ? "" : " or more", " arguments, got ", a.size());
    };
    switch (c.obj) {
      case Obj::OrderedDict:
        arity(0, 0);
        return add_ordered_dict();
      case Obj::RebuildTensor:
        arity(4, 4);
        return rebuild_tensor(a, false);
      case Obj::RebuildTensorV2:  // (storage, offset, size, stride, requires_grad, backward_hooks[, metadata])
        arity(6, 7);
        return rebuild_tensor(a, bool_arg(a[4], "requires_grad"));
      case Obj::RebuildParameter:             // (data, requires_grad, backward_hooks)
      case Obj::RebuildParameterWithState: {  // (data, requires_grad, backward_hooks, state)
        size_t n = c.obj == Obj::RebuildParameter ? 3 : 4;
        arity(n, n);
        if (values[a[0]].kind != Kind::Tensor) bad("a parameter's data must be a tensor, got ", kind_name(a[0]));
        TensorSpec t = tensors[values[a[0]].aux];
        t.requires_grad = bool_arg(a[1], "requires_grad");
        if (t.requires_grad && !is_floating(requests[t.storage].dtype))
          bad("only tensors of floating point dtype can require gradients, got ",
              dtype_name(requests[t.storage].dtype));
        return add_tensor(std::move(t));
      }
      case Obj::RebuildFromTypeV2: {  // (func, type, args, state): func(*args); the state is dropped
        arity(4, 4);
        const Value& f = values[a[0]];
        const Value& type = values[a[1]];
        if (f.kind != Kind::Object || (f.obj != Obj::RebuildTensor && f.obj != Obj::RebuildTensorV2 &&
                                       f.obj != Obj::RebuildParameter && f.obj != Obj::RebuildParameterWithState))
          bad("_rebuild_from_type_v2 of ", kind_name(a[0]), " is not allowed");
        if (type.kind != Kind::Object || (type.obj != Obj::TensorClass && type.obj != Obj::ParameterClass))
          bad("_rebuild_from_type_v2 to ", kind_name(a[1]), " is not allowed (only torch.Tensor and Parameter)");
        return call(a[0], a[2]);
      }
      case Obj::TorchSize: {
        arity(1, 1);
        std::vector<uint32_t> items = seq(a[0], "torch.Size's argument");
        for (uint32_t v : items) int_arg(v, "a size");
        return add_list(Kind::Tuple, std::move(items));
      }
      case Obj::TorchDevice: {  // torch.device("cuda:0") or torch.device("cuda", 0)
        arity(1, 2);
        std::string device = str_arg(a[0], "the device type");
        if (a.size() == 2) device += ":" + std::to_string(int_arg(a[1], "the device index"));
        return add_named_object(Obj::DeviceValue, std::move(device));
      }
      case Obj::CodecsEncode: {  // protocol 2's bytes: _codecs.encode(str, 'latin1')
        arity(1, 2);
        const std::string& s = str_arg(a[0], "the string to encode");
        std::string enc = a.size() == 2 ? str_arg(a[1], "the encoding") : "utf-8";
        if (enc == "utf-8" || enc == "utf8") return add_string(Kind::Bytes, s);
        if (enc != "latin1" && enc != "latin-1") bad("_codecs.encode to \"", enc, "\" is not supported");
        return add_string(Kind::Bytes, latin1(s));
      }
      case Obj::BuiltinBytes:  // protocol 2's b"": bytes() (any other argument could run code)
        arity(0, 0);
        return add_string(Kind::Bytes, std::string());
      case Obj::BuiltinSet:
      case Obj::BuiltinFrozenset: {
        arity(0, 1);
        std::vector<uint32_t> items;
        if (a.size() == 1) items = seq(a[0], "the set's items");
        return add_list(Kind::Set, std::move(items));
      }
      default:
        bad("calling ", object_name(c), " is not allowed");
    }
  }

  // Protocol 0's UNICODE line (Python's "raw-unicode-escape") as UTF-8: each byte
  // is a Latin-1 character, except that an odd run of backslashes followed by
  // \uXXXX or \UXXXXXXXX makes its last backslash an escape (pickle writes '\\'
  // and '\n' themselves as \u005c and \u000a).
  std::string raw_unicode_escape(std::string_view line) const {
    std::string out;
    out.reserve(line.size());
    auto put = [&](uint32_t c) {
      if (c < 0x80) {
        out.push_back(static_cast<char>(c));
      } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
      } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
      } else {
        out.push_back(static_cast<char>(0xf0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
      }
    };
    size_t run = 0;  // backslashes just before i
    for (size_t i = 0; i < line.size(); ++i) {
      auto b = static_cast<uint8_t>(line[i]);
      if (b == '\\') {
        ++run;
        put(b);
        continue;
      }
      if ((run & 1) && (b == 'u' || b == 'U')) {
        size_t n = b == 'u' ? 4 : 8;
        if (line.size() - i - 1 < n) bad("a truncated \\", static_cast<char>(b), " escape in a UNICODE string");
        uint32_t c = 0;
        for (size_t k = 1; k <= n; ++k) {
          char h = line[i + k];
          int d = h >= '0' && h <= '9'   ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                         : -1;
          if (d < 0) bad("a malformed \\", static_cast<char>(b), " escape in a UNICODE string");
          c = c << 4 | static_cast<uint32_t>(d);
        }
        if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
          bad("\\", static_cast<char>(b), " escape of code point ", c, " in a UNICODE string is not a character");
        out.pop_back();  // the escaping backslash
        put(c);
        i += n;
      } else {
        put(b);
      }
      run = 0;
    }
    return out;
  }

  // UTF-8 (as str values hold text) to Latin-1 bytes.
  std::string latin1(const std::string& s) const {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      auto b = static_cast<uint8_t>(s[i]);
      if (b < 0x80) {
        out.push_back(static_cast<char>(b));
      } else if ((b & 0xe0) == 0xc0 && i + 1 < s.size() && b <= 0xc3) {
        out.push_back(static_cast<char>(((b & 0x03) << 6) | (static_cast<uint8_t>(s[++i]) & 0x3f)));
      } else {
        bad("a character beyond Latin-1 in _codecs.encode");
      }
    }
    return out;
  }

  uint32_t new_object(uint32_t cls, uint32_t args_v) {
    const Value& c = values[cls];
    if (values[args_v].kind != Kind::Tuple) bad("the arguments must be a tuple, got ", kind_name(args_v));
    if (c.kind == Kind::Object && c.obj == Obj::OrderedDict && lists[values[args_v].aux].empty())
      return add_ordered_dict();
    if (c.kind == Kind::Object && (c.obj == Obj::BuiltinSet || c.obj == Obj::BuiltinFrozenset) &&
        lists[values[args_v].aux].empty())
      return add_list(Kind::Set, {});
    bad("creating an instance of ", kind_name(cls), " is not allowed");
  }

  // ---- the opcode loop -------------------------------------------------------

  void run() {
    for (;;) {
      op_pos = pos;
      if (pos >= size) {
        op = 0;
        bad("the pickle ends without STOP (truncated)");
      }
      op = data[pos++];
      switch (op) {
        case 0x80: {  // PROTO
          uint64_t v = take_le(1);
          if (v > 5) bad("protocol ", v, " (at most 5)");
          break;
        }
        case 0x95: {  // FRAME: frames only group opcodes; each read below checks its own bounds
          uint64_t n = take_le(8);
          if (n > size - pos) bad("a frame of ", n, " bytes, only ", size - pos, " left");
          break;
        }
        case '.':  // STOP
          if (stack.empty()) bad("STOP with an empty stack");
          root = stack.back();
          return;
        // ---- numbers
        case 'J':
          push(add_scalar(Kind::Int, static_cast<int32_t>(take_le(4))));
          break;
        case 'K':
          push(add_scalar(Kind::Int, static_cast<int64_t>(take_le(1))));
          break;
        case 'M':
          push(add_scalar(Kind::Int, static_cast<int64_t>(take_le(2))));
          break;
        case 0x8a:
        case 0x8b: {  // LONG1, LONG4
          uint64_t n = op == 0x8a ? take_le(1) : take_le(4);
          if (op == 0x8b && n > INT32_MAX) bad("negative length");
          need(n);
          int64_t v = 0;
          if (long_to_int64(data + pos, n, &v)) {
            pos += n;
            push(add_scalar(Kind::Int, v));
          } else {
            push(add_string(Kind::BigInt, take_bytes(n)));
          }
          break;
        }
        case 'I': {
          std::string_view line = take_line();
          if (line == "00" || line == "01")
            push(add_scalar(Kind::Bool, line == "01"));
          else
            push(add_scalar(Kind::Int, line_int(line)));
          break;
        }
        case 'L': {  // LONG (protocols 0 and 1): decimal digits, then 'L'
          std::string_view line = take_line();
          if (!line.empty() && line.back() == 'L') line.remove_suffix(1);
          int64_t v = 0;
          auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
          if (ec == std::errc() && p == line.data() + line.size())
            push(add_scalar(Kind::Int, v));
          else
            push(add_string(Kind::BigInt, decimal_to_long(line)));
          break;
        }
        case 'F': {
          std::string_view line = take_line();
          double v = 0;
          auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
          if (ec != std::errc() || p != line.data() + line.size()) bad("\"", line, "\" is not a float");
          push(add_float(v));
          break;
        }
        case 'G': {  // big-endian IEEE double
          need(8);
          uint64_t bits = 0;
          for (int i = 0; i < 8; ++i) bits = (bits << 8) | data[pos + static_cast<size_t>(i)];
          pos += 8;
          double v;
          std::memcpy(&v, &bits, 8);
          push(add_float(v));
          break;
        }
        case 'N':
          push(add_scalar(Kind::None, 0));
          break;
        case 0x88:
        case 0x89:
          push(add_scalar(Kind::Bool, op == 0x88));
          break;
        // ---- strings and bytes
        case 'X':
          push(add_string(Kind::Str, take_bytes(take_le(4))));
          break;
        case 0x8c:
          push(add_string(Kind::Str, take_bytes(take_le(1))));
          break;
        case 0x8d:
          push(add_string(Kind::Str, take_bytes(take_le(8))));
          break;
        case 'V':  // UNICODE (protocol 0): raw-unicode-escape text
          push(add_string(Kind::Str, raw_unicode_escape(take_line())));
          break;
        case 'T': {  // BINSTRING (Python 2 str, decoded as Python 3 does: text)
          uint64_t n = take_le(4);
          if (n > INT32_MAX) bad("negative length");
          push(add_string(Kind::Str, take_bytes(n)));
          break;
        }
        case 'U':
          push(add_string(Kind::Str, take_bytes(take_le(1))));
          break;
        case 'S': {  // STRING: a quoted repr; only the plain ones (no escapes)
          std::string_view line = take_line();
          if (line.size() < 2 || line.front() != line.back() || (line.front() != '\'' && line.front() != '"'))
            bad("an unquoted string");
          line = line.substr(1, line.size() - 2);
          if (line.find('\\') != std::string_view::npos) bad("escapes in STRING are not supported");
          push(add_string(Kind::Str, std::string(line)));
          break;
        }
        case 'B':
          push(add_string(Kind::Bytes, take_bytes(take_le(4))));
          break;
        case 'C':
          push(add_string(Kind::Bytes, take_bytes(take_le(1))));
          break;
        case 0x8e:
        case 0x96:
          push(add_string(Kind::Bytes, take_bytes(take_le(8))));
          break;
        // ---- tuples, lists, dicts, sets
        case ')':
          push(add_list(Kind::Tuple, {}));
          break;
        case 0x85:
        case 0x86:
        case 0x87: {
          size_t n = op - 0x84u;
          if (stack.size() < floor() + n) bad("stack underflow");
          std::vector<uint32_t> items(stack.end() - static_cast<std::ptrdiff_t>(n), stack.end());
          stack.resize(stack.size() - n);
          push(add_list(Kind::Tuple, std::move(items)));
          break;
        }
        case 't':
          push(add_list(Kind::Tuple, pop_mark()));
          break;
        case ']':
          push(add_list(Kind::List, {}));
          break;
        case 'l':
          push(add_list(Kind::List, pop_mark()));
          break;
        case '}':
          push(add_list(Kind::Dict, {}));
          break;
        case 'd': {
          std::vector<uint32_t> items = pop_mark();
          if (items.size() % 2) bad("an odd number of items for a dict");
          push(add_list(Kind::Dict, std::move(items)));
          break;
        }
        case 0x8f:
          push(add_list(Kind::Set, {}));
          break;
        case 0x91:
          push(add_list(Kind::Set, pop_mark()));
          break;
        case 'a': {
          uint32_t item = pop();
          std::vector<uint32_t>& l = lists[values[container(Kind::List, "append to")].aux];
          l.push_back(item);
          break;
        }
        case 'e': {
          std::vector<uint32_t> items = pop_mark();
          std::vector<uint32_t>& l = lists[values[container(Kind::List, "extend")].aux];
          l.insert(l.end(), items.begin(), items.end());
          break;
        }
        case 's': {
          uint32_t v = pop(), k = pop();
          std::vector<uint32_t>& d = lists[values[container(Kind::Dict, "set an item of")].aux];
          d.push_back(k);
          d.push_back(v);
          break;
        }
        case 'u': {
          std::vector<uint32_t> items = pop_mark();
          if (items.size() % 2) bad("an odd number of items for a dict");
          std::vector<uint32_t>& d = lists[values[container(Kind::Dict, "set items of")].aux];
          d.insert(d.end(), items.begin(), items.end());
          break;
        }
        case 0x90: {
          std::vector<uint32_t> items = pop_mark();
          std::vector<uint32_t>& s = lists[values[container(Kind::Set, "add items to")].aux];
          s.insert(s.end(), items.begin(), items.end());
          break;
        }
        // ---- stack and memo
        case '(':
          if (marks.size() >= static_cast<size_t>(kMaxNesting)) bad("more than ", kMaxNesting, " nested MARKs");
          marks.push_back(stack.size());
          break;
        case '0':
          if (!marks.empty() && stack.size() == marks.back())
            marks.pop_back();  // Python's POP drops a MARK when nothing is above it
          else
            pop();
          break;
        case '1':
          pop_mark();
          break;
        case '2':
          push(top());
          break;
        case 'p':
          memo[static_cast<uint64_t>(line_int(take_line()))] = top();
          break;
        case 'q':
          memo[take_le(1)] = top();
          break;
        case 'r':
          memo[take_le(4)] = top();
          break;
        case 0x94:
          memo[memo.size()] = top();
          break;
        case 'g':
        case 'h':
        case 'j': {
          uint64_t i = op == 'g' ? static_cast<uint64_t>(line_int(take_line())) : take_le(op == 'h' ? 1 : 4);
          auto it = memo.find(i);
          if (it == memo.end()) bad("memo index ", i, " was never set");
          push(it->second);
          break;
        }
        // ---- globals and calls
        case 'c': {
          std::string module(take_line());
          std::string name(take_line());
          push(global(module, name));
          break;
        }
        case 0x93: {
          uint32_t name = pop(), module = pop();
          if (values[name].kind != Kind::Str || values[module].kind != Kind::Str)
            bad("module and name must be str, got ", kind_name(module), " and ", kind_name(name));
          push(global(strings[values[module].aux], strings[values[name].aux]));
          break;
        }
        case 'R': {
          uint32_t args = pop();
          uint32_t& f = top();
          f = call(f, args);
          break;
        }
        case 0x81: {
          uint32_t args = pop();
          uint32_t cls = pop();
          push(new_object(cls, args));
          break;
        }
        case 0x92: {
          uint32_t kwargs = pop(), args = pop(), cls = pop();
          if (values[kwargs].kind != Kind::Dict || !lists[values[kwargs].aux].empty())
            bad("keyword arguments are not allowed");
          push(new_object(cls, args));
          break;
        }
        case 'b': {
          uint32_t state = pop();
          uint32_t inst = top();
          // An OrderedDict's __dict__ (a state dict's _metadata): dropped, it holds no tensors we need.
          if (values[inst].kind != Kind::Dict) bad("BUILD of ", kind_name(inst), " is not allowed");
          (void)state;
          break;
        }
        case 'Q':
          push(persistent_load(pop()));
          break;
        case 'P':  // PERSID: protocol 0's persistent id, the str() of torch's tuple
          push(persistent_load(text_persistent_id(take_line())));
          break;
        case 'i':
        case 'o':
          bad("creating class instances is not allowed (no code runs)");
        case 0x82:
        case 0x83:
        case 0x84:
          bad("the copyreg extension registry is not allowed");
        case 0x97:
        case 0x98:
          bad("out-of-band buffers are not supported");
        default:
          bad("unknown opcode 0x", "0123456789abcdef"[op >> 4], "0123456789abcdef"[op & 15]);
      }
    }
  }
};

Unpickler::Unpickler(const uint8_t* data, size_t size, std::string what, uint64_t base)
    : impl_(std::make_unique<Impl>()) {
  impl_->what = std::move(what);
  impl_->base = base;
  impl_->data = data;
  impl_->size = size;
  impl_->run();
}

Unpickler::~Unpickler() = default;

size_t Unpickler::consumed() const { return impl_->pos; }
const std::vector<StorageRequest>& Unpickler::storages() const { return impl_->requests; }
uint32_t Unpickler::root() const { return impl_->root; }
Unpickler::Kind Unpickler::kind(uint32_t v) const { return impl_->values[v].kind; }
int64_t Unpickler::int_value(uint32_t v) const { return impl_->values[v].i; }
const std::string& Unpickler::bytes(uint32_t v) const { return impl_->strings[impl_->values[v].aux]; }
const std::vector<uint32_t>& Unpickler::items(uint32_t v) const { return impl_->lists[impl_->values[v].aux]; }

Ref<Value> Unpickler::value(const std::vector<Ref<Storage>>& storages) const {
  const Impl& m = *impl_;
  auto bad = [&](const auto&... args) { fail(Code::Format, "checkpoint ", m.what, ": ", args...); };
  GLIA_CHECK(storages.size() == m.requests.size(), Internal, "value: ", storages.size(), " storages for ",
             m.requests.size());
  // Each pickle value becomes one Value (shared where the pickle shares it, so a
  // DAG stays linear in size); each tensor one glia tensor, however often reached.
  std::vector<Ref<Value>> made(m.values.size());
  std::vector<Tensor> tensors(m.tensors.size());
  std::vector<uint8_t> on_path(m.values.size(), 0);
  struct Frame {
    uint32_t v;
    size_t next;
  };
  std::vector<Frame> path;
  auto leaf = [&](uint32_t v) {
    const Impl::Value& pv = m.values[v];
    auto out = make_ref<Value>();
    switch (pv.kind) {
      case Kind::None:
        out->kind = Value::Kind::None;
        break;
      case Kind::Bool:
        out->kind = Value::Kind::Bool;
        out->i = pv.i;
        break;
      case Kind::Int:
        out->kind = Value::Kind::Int;
        out->i = pv.i;
        break;
      case Kind::Float:
        out->kind = Value::Kind::Float;
        out->f = pv.f;
        break;
      case Kind::BigInt:
      case Kind::Str:
      case Kind::Bytes:
        out->kind = pv.kind == Kind::BigInt ? Value::Kind::BigInt
                    : pv.kind == Kind::Str  ? Value::Kind::Str
                                            : Value::Kind::Bytes;
        out->s = m.strings[pv.aux];
        break;
      case Kind::Tensor: {
        Tensor& t = tensors[pv.aux];
        if (!t.defined()) {
          const Impl::TensorSpec& spec = m.tensors[pv.aux];
          t = Tensor(make_ref<TensorImpl>(storages[spec.storage], spec.offset, spec.shape, spec.strides,
                                          m.requests[spec.storage].dtype));
          t.impl()->requires_grad = spec.requires_grad;
        }
        out->kind = Value::Kind::Tensor;
        out->tensor = t;
        break;
      }
      case Kind::Object:
        if (pv.obj == Obj::DeviceValue || pv.obj == Obj::DTypeValue) {
          out->kind = pv.obj == Obj::DeviceValue ? Value::Kind::Device : Value::Kind::DType;
          out->s = m.strings[pv.aux];
          break;
        }
        fail(Code::Format, "checkpoint ", m.what, ": ", m.object_name(pv), " is not a value a checkpoint can hold");
      default:
        fail(Code::Format, "checkpoint ", m.what, ": unexpected ", m.kind_name(v));
    }
    return out;
  };
  auto is_container = [&](uint32_t v) {
    Kind k = m.values[v].kind;
    return k == Kind::Dict || k == Kind::List || k == Kind::Tuple || k == Kind::Set;
  };
  auto enter = [&](uint32_t v) {
    if (on_path[v]) bad("a container contains itself (a cycle)");
    if (path.size() >= static_cast<size_t>(kMaxNesting)) bad("containers nested deeper than ", kMaxNesting);
    on_path[v] = 1;
    auto c = make_ref<Value>();
    Kind k = m.values[v].kind;
    c->kind = k == Kind::Dict   ? Value::Kind::Dict
              : k == Kind::List ? Value::Kind::List
              : k == Kind::Set  ? Value::Kind::Set
                                : Value::Kind::Tuple;
    c->ordered = k == Kind::Dict && m.values[v].i == 1;
    c->items.reserve(m.lists[m.values[v].aux].size());
    made[v] = c;
    path.push_back(Frame{v, 0});
  };

  if (is_container(m.root))
    enter(m.root);
  else
    made[m.root] = leaf(m.root);
  while (!path.empty()) {
    Frame& f = path.back();
    const std::vector<uint32_t>& items = m.lists[m.values[f.v].aux];
    if (f.next >= items.size()) {
      on_path[f.v] = 0;
      path.pop_back();
      continue;
    }
    uint32_t child = items[f.next];
    if (made[child]) {  // done before (shared), or a cycle
      if (on_path[child]) bad("a container contains itself (a cycle)");
      made[f.v]->items.push_back(made[child]);
      ++f.next;
      continue;
    }
    if (is_container(child)) {
      enter(child);  // appended to its parent when finished (next round)
      continue;
    }
    made[child] = leaf(child);
    made[f.v]->items.push_back(made[child]);
    ++f.next;
  }
  return made[m.root];
}

Ref<nn::TensorDict> Unpickler::state_dict(const std::vector<Ref<Storage>>& storages) const {
  return flatten(*value(storages), impl_->what);
}

bool is_torch_dtype_name(std::string_view name) {
  for (const char* d : kDTypes)
    if (name == d) return true;
  return false;
}

Ref<nn::TensorDict> unpickle_state_dict(const uint8_t* data, size_t size, uint64_t max_storage_bytes) {
  Unpickler u(data, size, "data.pkl");
  std::vector<Ref<Storage>> storages;
  for (const StorageRequest& r : u.storages()) {
    uint64_t nbytes = r.numel * itemsize(r.dtype);  // no overflow: the unpickler checked
    GLIA_CHECK(nbytes <= max_storage_bytes, Format, "storage \"", r.key, "\" of ", nbytes,
               " bytes exceeds the limit of ", max_storage_bytes, " bytes");
    Ref<Storage> s = Storage::allocate(static_cast<size_t>(nbytes));
    if (nbytes) std::memset(s->data(), 0, static_cast<size_t>(nbytes));
    storages.push_back(std::move(s));
  }
  return u.state_dict(storages);
}

}  // namespace glia::io
