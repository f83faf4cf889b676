// write_torch: the zip format of torch.save (since 1.6), written as torch 1.13
// writes it, so that torch.load(path, weights_only=True) reads it back; for the
// dicts glia writes, the file is byte for byte what torch 1.13's torch.save of the
// loaded dict writes (tests/golden/checkpoints/verify_glia_written.py checks it).
//
// Note [Torch checkpoint layout] (measured with torch 1.13):
// - Records, in this order: <archive>/data.pkl, <archive>/data/<key> for each
//   storage in the order of the keys as strings ("0", "1", "10", "11", "2", ...:
//   torch sorts them), <archive>/version ("3\n"). torch 1.13 writes no "byteorder"
//   record (2.1 added it; its readers assume "little" without it), nor
//   .data/serialization_id (2.x, optional).
// - data.pkl: pickle protocol 2 of a collections.OrderedDict (no _metadata: it is a
//   plain dict, not a module's state_dict()), as Python's C pickler writes it: every
//   string, global and non-empty tuple memoized (BINPUT) and repeated by BINGET,
//   items in batches of 1000 (SETITEMS; SETITEM for a batch of one). A tensor is
//   torch._utils._rebuild_tensor_v2(persistent_id(('storage', torch.<T>Storage,
//   '<key>', 'cpu', <elements in the storage>)), offset, size, stride, False,
//   OrderedDict()).
// - A storage is written whole (as torch does: a view of part of a big storage
//   writes the big storage) and once, however many tensors view it; each tensor
//   keeps its offset and strides, non-contiguous ones included. The storage's
//   element count is its bytes over the dtype's size (a tail shorter than one
//   element is not written).
// - requires_grad is written False for a dict (state dicts are detached); a
//   value's tensor (write_torch_value, Note [Pickling a value]) keeps its own. A dict's metadata is
//   not written: torch's format has no place for it.
// - Tensors of different dtypes over one storage are refused, as torch.save
//   refuses them. A tensor on a device is written from a host copy of its
//   storage (one copy per storage, so sharing survives), located 'cpu': the
//   file holds what torch.save writes for the state dict moved to the CPU.
#include <bit>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "io/checkpoint.h"
#include "io/pickle.h"
#include "io/text.h"
#include "io/torch_format.h"
#include "io/zip.h"

namespace glia::io {

namespace {

static_assert(std::endian::native == std::endian::little, "torch's storages are little-endian");

const char* storage_type(DType d) {
  switch (d) {
    case DType::Float32:
      return "FloatStorage";
    case DType::Float64:
      return "DoubleStorage";
    case DType::Float16:
      return "HalfStorage";
    case DType::BFloat16:
      return "BFloat16Storage";
    case DType::Int64:
      return "LongStorage";
    case DType::Int32:
      return "IntStorage";
    case DType::UInt8:
      return "ByteStorage";
    case DType::Bool:
      return "BoolStorage";
    case DType::Int8:
      return "CharStorage";
    case DType::Int16:
      return "ShortStorage";
  }
  return nullptr;
}

// The subset of Python's pickler (protocol 2, C implementation) that state dicts need.
class Pickler {
 public:
  std::string out;

  void proto() { out += "\x80\x02"; }
  void stop() { out += '.'; }
  void mark() { out += '('; }
  void op(char c) { out += c; }

  // Memoizes what was just pushed, as the pickler memoizes every object it saves.
  uint32_t put() {
    uint32_t idx = next_memo_++;
    if (idx < 256) {
      out += 'q';
      out += static_cast<char>(idx);
    } else {
      out += 'r';
      u32(idx);
    }
    return idx;
  }
  uint32_t memo_count() const { return next_memo_; }
  void get(uint32_t idx) {
    if (idx < 256) {
      out += 'h';
      out += static_cast<char>(idx);
    } else {
      out += 'j';
      u32(idx);
    }
  }

  // A new string object: BINUNICODE, memoized.
  uint32_t unicode(std::string_view s) {
    GLIA_CHECK(s.size() <= 0xFFFFFFFFu, InvalidArgument, "torch write: string of ", s.size(), " bytes");
    out += 'X';
    u32(s.size());
    out += s;
    return put();
  }
  // A string object the pickle shares (torch's 'storage', 'cpu', a storage's key).
  void shared_unicode(const std::string& s) {
    auto it = strings_.find(s);
    if (it != strings_.end())
      get(it->second);
    else
      strings_.emplace(s, unicode(s));
  }
  void global(const std::string& module, const std::string& name) {
    std::string key = module + "\n" + name + "\n";
    auto it = globals_.find(key);
    if (it != globals_.end()) {
      get(it->second);
      return;
    }
    out += 'c';
    out += key;
    globals_.emplace(key, put());
  }

  void integer(int64_t v) {
    if (v >= 0 && v <= 0xff) {
      out += 'K';
      out += static_cast<char>(v);
    } else if (v >= 0 && v <= 0xffff) {
      out += 'M';
      out += static_cast<char>(v & 0xff);
      out += static_cast<char>(v >> 8);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out += 'J';
      u32(static_cast<uint32_t>(v));
    } else {
      // LONG1: two's complement, little-endian, bit_length / 8 + 1 bytes.
      auto u = static_cast<uint64_t>(v);
      int bits = v >= 0 ? 64 - std::countl_zero(u) : 64 - std::countl_one(u);
      int nbytes = bits / 8 + 1;
      out += '\x8a';
      out += static_cast<char>(nbytes);
      for (int i = 0; i < nbytes; ++i) out += static_cast<char>(i < 8 ? (u >> (8 * i)) & 0xff : (v < 0 ? 0xff : 0));
    }
  }

  // A tuple of ints (sizes, strides): EMPTY_TUPLE, TUPLE1..3 or MARK ... TUPLE,
  // memoized unless empty.
  void int_tuple(IntSpan values) {
    if (values.empty()) {
      out += ')';
      return;
    }
    if (values.size() > 3) mark();
    for (int64_t v : values) integer(v);
    end_tuple(values.size());
  }
  // Closes a tuple of n > 0 items (MARK already written when n > 3) and memoizes it.
  void end_tuple(size_t n) {
    static const char kTupleN[] = {0, '\x85', '\x86', '\x87'};
    out += n <= 3 ? kTupleN[n] : 't';
    put();
  }

 private:
  void u32(uint64_t v) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  uint32_t next_memo_ = 0;
  std::unordered_map<std::string, uint32_t> strings_, globals_;
};

struct StorageEntry {
  std::string key;  // "0", "1", ... in the order of first use
  DType dtype;
  const Storage* storage;
  int64_t numel;
};

// Pickles tensors (each once: the same tensor again is a BINGET) and collects
// the storages they view, then writes the zip. `name` in messages: `tensor "<name>"`.
class TorchWriter {
 public:
  explicit TorchWriter(const std::string& archive_name) : archive_name_(archive_name) {
    GLIA_CHECK(!archive_name.empty() && invalid_utf8_at(archive_name) == std::string_view::npos, InvalidArgument,
               "torch write: the archive name must be non-empty UTF-8, got \"", archive_name, "\"");
    p.proto();
  }

  Pickler p;

  void tensor(const Tensor& t, const std::string& name, bool requires_grad) {
    GLIA_CHECK(t.defined(), InvalidArgument, "torch write: tensor \"", name, "\" is undefined");
    if (auto it = tensor_memo_.find(t.impl()); it != tensor_memo_.end()) {
      p.get(it->second);
      return;
    }
    const Storage* s = t.impl()->storage().get();
    size_t item = itemsize(t.dtype());
    if (!t.device().is_cpu()) {  // the whole storage, copied to the host once (an explicit device-to-host copy)
      auto [hc, fresh] = host_copies_.emplace(s, Tensor());
      if (fresh) {
        const int64_t numel = static_cast<int64_t>(s->nbytes() / item), one = 1;
        hc->second = empty(IntSpan(&numel, 1), t.dtype(), Device{});
        copy_into(hc->second, make_view(t, IntSpan(&numel, 1), IntSpan(&one, 1), 0));
      }
      s = hc->second.impl()->storage().get();
    }
    auto [it, added] = storage_index_.emplace(s, storages_.size());
    if (added) {
      storages_.push_back({std::to_string(storages_.size()), t.dtype(), s, static_cast<int64_t>(s->nbytes() / item)});
    }
    const StorageEntry& se = storages_[it->second];
    GLIA_CHECK(se.dtype == t.dtype(), InvalidArgument, "torch write: tensor \"", name, "\" (", dtype_name(t.dtype()),
               ") shares its storage with a ", dtype_name(se.dtype),
               " tensor; torch.save cannot save views of one storage as different types");
    // The elements the tensor reaches must lie in the storage (glia's views are
    // made that way; a check here keeps a bad one from writing a file torch rejects).
    if (t.numel() > 0) {
      int64_t last = t.offset(), step = 0;
      bool overflow = false;
      for (int64_t d = 0; d < t.dim(); ++d) {
        overflow |= t.stride(d) < 0 || __builtin_mul_overflow(t.size(d) - 1, t.stride(d), &step) ||
                    __builtin_add_overflow(last, step, &last);
      }
      GLIA_CHECK(!overflow && t.offset() >= 0 && last < se.numel, Internal, "torch write: tensor \"", name,
                 "\" (offset ", t.offset(), ", shape ", t.shape(), ", strides ", t.strides(),
                 ") reaches past its storage of ", se.numel, " elements");
    }

    p.global("torch._utils", "_rebuild_tensor_v2");
    p.mark();
    p.mark();
    p.shared_unicode("storage");
    p.global("torch", storage_type(se.dtype));
    p.shared_unicode(se.key);
    p.shared_unicode("cpu");
    p.integer(se.numel);
    p.end_tuple(5);
    p.op('Q');  // BINPERSID
    p.integer(t.offset());
    p.int_tuple(t.shape());
    p.int_tuple(t.strides());
    p.op(requires_grad ? '\x88' : '\x89');  // NEWTRUE / NEWFALSE
    p.global("collections", "OrderedDict");
    p.op(')');
    p.op('R');
    p.put();  // backward_hooks
    p.end_tuple(6);
    p.op('R');
    tensor_memo_.emplace(t.impl(), p.put());
  }

  void finish(Sink& out) {
    p.stop();
    ZipWriter zip(out);
    const std::string prefix = archive_name_ + "/";
    zip.add(prefix + "data.pkl", p.out.data(), p.out.size());
    std::map<std::string, const StorageEntry*> sorted;  // torch writes the keys sorted as strings
    for (const StorageEntry& se : storages_) sorted.emplace(se.key, &se);
    for (const auto& [key, se] : sorted) {
      size_t nbytes = static_cast<size_t>(se->numel) * itemsize(se->dtype);
      zip.add(prefix + "data/" + key, nbytes ? se->storage->data() : nullptr, nbytes);
    }
    zip.add(prefix + "version", "3\n", 2);
    zip.finish();
  }

 private:
  std::string archive_name_;
  std::vector<StorageEntry> storages_;
  std::unordered_map<const Storage*, size_t> storage_index_;
  std::unordered_map<const TensorImpl*, uint32_t> tensor_memo_;  // the same tensor reached twice
  std::unordered_map<const Storage*, Tensor> host_copies_;       // a device storage -> its host copy
};

// Note [Pickling a value]: Python's C pickler (protocol 2) on the object the
// value stands for, so that torch.save of what torch.load returns writes the
// same bytes (verify_glia_written.py checks it):
// - None N; bool NEWTRUE/NEWFALSE; int BININT1/BININT2/BININT/LONG1 (LONG4 for a
//   big int of more than 255 bytes); float BINFLOAT (big-endian). Not memoized.
// - str BINUNICODE, memoized. bytes: protocol 2 has no opcode for them, so
//   _codecs.encode(<the bytes as latin-1 text>, 'latin1'), or
//   __builtin__.bytes() when empty (what Python writes).
// - tuple: EMPTY_TUPLE, TUPLE1..3, MARK ... TUPLE; list: EMPTY_LIST then APPEND
//   (one item) or MARK ... APPENDS in batches of 1000; dict: EMPTY_DICT then
//   SETITEM (one entry) or MARK ... SETITEMS in batches of 1000 (a final empty
//   batch when the count is a multiple of 1000, as batch_dict_exact writes);
//   OrderedDict: collections.OrderedDict() by REDUCE, then its items as the
//   generic batch_dict writes them (SETITEM for a final batch of one); set:
//   __builtin__.set([items]). All memoized.
// - tensor: _rebuild_tensor_v2 (TorchWriter::tensor) with its requires_grad.
//   device: torch.device('cuda', 0) / torch.device('cpu') by REDUCE; dtype: the
//   global torch.<name>.
// - The same value reached twice is written once and then fetched from the memo
//   (BINGET), so sharing survives; so is the same tensor in two values.
class ValuePickler {
 public:
  explicit ValuePickler(TorchWriter& w) : w_(w), p_(w.p) {}

  void value(const Value& v, std::string& name, int depth) {
    GLIA_CHECK(depth <= kMaxNesting, InvalidArgument, "torch write: containers nested deeper than ", kMaxNesting,
               " (at \"", name, "\"); glia's reader would refuse the file");
    if (auto it = memo_.find(&v); it != memo_.end()) {
      p_.get(it->second);
      return;
    }
    switch (v.kind) {
      case Value::Kind::None:
        p_.op('N');
        return;
      case Value::Kind::Bool:
        p_.op(v.i ? '\x88' : '\x89');
        return;
      case Value::Kind::Int:
        p_.integer(v.i);
        return;
      case Value::Kind::BigInt:
        big_int(v.s, name);
        return;
      case Value::Kind::Float: {
        p_.op('G');
        uint64_t bits = std::bit_cast<uint64_t>(v.f);
        for (int i = 7; i >= 0; --i) p_.out += static_cast<char>((bits >> (8 * i)) & 0xff);
        return;
      }
      case Value::Kind::Str:
        GLIA_CHECK(invalid_utf8_at(v.s) == std::string_view::npos, InvalidArgument, "torch write: the str at \"", name,
                   "\" is not valid UTF-8");
        memo_.emplace(&v, p_.unicode(v.s));
        return;
      case Value::Kind::Bytes:
        if (v.s.empty()) {
          p_.global("__builtin__", "bytes");
          p_.op(')');
        } else {
          p_.global("_codecs", "encode");
          std::string text;  // latin-1 -> UTF-8
          for (unsigned char c : v.s) {
            if (c < 0x80) {
              text += static_cast<char>(c);
            } else {
              text += static_cast<char>(0xc0 | (c >> 6));
              text += static_cast<char>(0x80 | (c & 0x3f));
            }
          }
          p_.unicode(text);
          p_.shared_unicode("latin1");
          p_.end_tuple(2);
        }
        p_.op('R');
        memo_.emplace(&v, p_.put());
        return;
      case Value::Kind::Tuple: {
        if (v.items.empty()) {
          p_.op(')');
          return;
        }
        if (v.items.size() > 3) p_.mark();
        for (size_t i = 0; i < v.items.size(); ++i) child(*v.items[i], name, std::to_string(i), depth);
        p_.end_tuple(v.items.size());
        memo_.emplace(&v, last_memo());
        return;
      }
      case Value::Kind::List:
        p_.op(']');
        memo_.emplace(&v, p_.put());
        list_items(v, name, depth);
        return;
      case Value::Kind::Set:
        p_.global("__builtin__", "set");
        p_.op(']');
        p_.put();
        list_items(v, name, depth);
        p_.end_tuple(1);
        p_.op('R');
        memo_.emplace(&v, p_.put());
        return;
      case Value::Kind::Dict:
        if (v.ordered) {
          p_.global("collections", "OrderedDict");
          p_.op(')');
          p_.op('R');
        } else {
          p_.op('}');
        }
        memo_.emplace(&v, p_.put());
        dict_items(v, name, depth);
        return;
      case Value::Kind::Tensor:
        w_.tensor(v.tensor, name, v.tensor.defined() && v.tensor.requires_grad());
        return;
      case Value::Kind::Device: {
        // "cuda:0" -> torch.device('cuda', 0); "cpu" -> torch.device('cpu')
        GLIA_CHECK(is_device_name(v.s), InvalidArgument, "torch write: device \"", v.s, "\" at \"", name,
                   "\" is not \"<type>\" or \"<type>:<index>\"");
        size_t colon = v.s.find(':');
        p_.global("torch", "device");
        p_.unicode(v.s.substr(0, colon));
        if (colon != std::string::npos) p_.integer(std::stoll(v.s.substr(colon + 1)));
        p_.end_tuple(colon == std::string::npos ? 1 : 2);
        p_.op('R');
        memo_.emplace(&v, p_.put());
        return;
      }
      case Value::Kind::DType:
        GLIA_CHECK(is_torch_dtype_name(v.s), InvalidArgument, "torch write: dtype \"", v.s, "\" at \"", name,
                   "\" is not a torch dtype name");
        p_.global("torch", v.s);
        return;
    }
    fail(Code::Internal, "torch write: unknown value kind ", static_cast<int>(v.kind));
  }

 private:
  // The memo index of what end_tuple just memoized.
  uint32_t last_memo() { return p_.memo_count() - 1; }

  void child(const Value& c, std::string& name, const std::string& part, int depth) {
    size_t len = name.size();
    if (!name.empty()) name += '.';
    name += part;
    value(c, name, depth + 1);
    name.resize(len);
  }

  void big_int(const std::string& bytes, const std::string& name) {
    GLIA_CHECK(!bytes.empty() && bytes.size() <= 0xFFFFFFFFu, InvalidArgument, "torch write: the int at \"", name,
               "\" has ", bytes.size(), " bytes");
    if (bytes.size() < 256) {
      p_.op('\x8a');  // LONG1
      p_.out += static_cast<char>(bytes.size());
    } else {
      p_.op('\x8b');  // LONG4
      for (int i = 0; i < 4; ++i) p_.out += static_cast<char>((bytes.size() >> (8 * i)) & 0xff);
    }
    p_.out += bytes;
  }

  // Items of a list (or a set's list): APPEND for one, else MARK ... APPENDS per 1000.
  void list_items(const Value& v, std::string& name, int depth) {
    const size_t n = v.items.size();
    if (n == 0) return;
    if (n == 1) {
      child(*v.items[0], name, "0", depth);
      p_.op('a');
      return;
    }
    for (size_t batch = 0; batch < n; batch += kBatch) {
      p_.mark();
      for (size_t i = batch; i < std::min(n, batch + kBatch); ++i) child(*v.items[i], name, std::to_string(i), depth);
      p_.op('e');
    }
  }

  void dict_items(const Value& v, std::string& name, int depth) {
    const size_t n = v.size();
    auto entry = [&](size_t i) {
      const Value& k = *v.items[2 * i];
      value(k, name, depth + 1);
      std::string part;
      if (k.kind == Value::Kind::Str || k.kind == Value::Kind::Bytes)
        part = k.s;
      else if (k.kind == Value::Kind::Int)
        part = std::to_string(k.i);
      else
        part = "?";
      child(*v.items[2 * i + 1], name, part, depth);
    };
    if (v.ordered) {  // the generic batch_dict (an OrderedDict's items come from an iterator)
      for (size_t batch = 0; batch < n; batch += kBatch) {
        size_t count = std::min(kBatch, n - batch);
        if (count > 1) p_.mark();
        for (size_t i = batch; i < batch + count; ++i) entry(i);
        p_.op(count > 1 ? 'u' : 's');
      }
      return;
    }
    if (n == 0) return;
    if (n == 1) {  // batch_dict_exact
      entry(0);
      p_.op('s');
      return;
    }
    size_t i = 0, in_batch = 0;
    do {
      in_batch = 0;
      p_.mark();
      while (i < n) {
        entry(i++);
        if (++in_batch == kBatch) break;
      }
      p_.op('u');
    } while (in_batch == kBatch);
  }

  static constexpr size_t kBatch = 1000;  // the pickler's BATCHSIZE
  TorchWriter& w_;
  Pickler& p_;
  std::unordered_map<const Value*, uint32_t> memo_;
};

}  // namespace

void write_torch(const nn::TensorDict& dict, Sink& out, const std::string& archive_name) {
  TorchWriter w(archive_name);
  Pickler& p = w.p;
  p.global("collections", "OrderedDict");
  p.op(')');
  p.op('R');
  p.put();

  const size_t n = dict.size();
  constexpr size_t kBatch = 1000;  // the pickler's _BATCHSIZE
  for (size_t batch = 0; batch < n; batch += kBatch) {
    size_t count = std::min(kBatch, n - batch);
    if (count > 1) p.mark();
    for (size_t i = batch; i < batch + count; ++i) {
      const std::string& key = dict.key_at(i);
      GLIA_CHECK(invalid_utf8_at(key) == std::string_view::npos, InvalidArgument, "torch write: key \"", key,
                 "\" is not valid UTF-8");
      // glia's reader refuses NUL in keys (the C ABI cannot name them): never write one.
      GLIA_CHECK(key.find('\0') == std::string::npos, InvalidArgument, "torch write: key \"", key,
                 "\" contains a NUL character");
      p.unicode(key);
      w.tensor(dict.value_at(i), key, false);  // requires_grad False: state dicts are detached
    }
    p.op(count > 1 ? 'u' : 's');  // SETITEMS / SETITEM
  }
  w.finish(out);
}

void write_torch_value(const Value& root, Sink& out, const std::string& archive_name) {
  TorchWriter w(archive_name);
  ValuePickler vp(w);
  std::string name;
  vp.value(root, name, 0);
  w.finish(out);
}

}  // namespace glia::io
