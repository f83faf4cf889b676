// read_torch: torch.save's two layouts, both through the restricted unpickler
// (pickle.h; the rules that turn a checkpoint into name -> tensor are Note
// [Flattening a checkpoint] in unpickler.cpp).
//
// Zip (torch >= 1.6): "<archive>/data.pkl" (exactly one, any archive folder
// name: torch uses the file's stem), "<archive>/data/<key>" per storage (its
// size must be numel * itemsize), "<archive>/byteorder" ("little", or "big":
// the elements are byte-swapped on load; absent in files before 1.10: little).
// Tensors saved on CUDA (location "cuda:N") or any other device load onto the CPU.
// Stored entries view the source where aligned (torch aligns them to 64 bytes),
// deflated ones are inflated (ZipReader::read_storage, Note [Stored zip entries]).
//
// Legacy (torch.save(..., _use_new_zipfile_serialization=False), and every
// torch before 1.6): pickles one after another: the magic number, the protocol
// version 1001, sys_info, the object, the list of storage keys; then for each
// key its element count (8 bytes, little-endian) and its bytes, and nothing after
// them (Note [One pickle per checkpoint]). torch writes
// those bytes little-endian whatever the machine (THPStorage writeFileRaw), so
// sys_info's little_endian needs no swap. These storages view the source where
// aligned (Note [Zero-copy loading]).
#include <cstring>
#include <unordered_map>

#include "core/error.h"
#include "io/checkpoint.h"
#include "io/pickle.h"
#include "io/torch_format.h"
#include "io/zip.h"

namespace glia::io {

namespace {

void byteswap(Storage& s, size_t itemsize) {
  auto* p = static_cast<uint8_t*>(s.data());
  for (size_t i = 0; i + itemsize <= s.nbytes(); i += itemsize)
    for (size_t a = 0, b = itemsize - 1; a < b; ++a, --b) std::swap(p[i + a], p[i + b]);
}

// A bool storage must hold only 0 and 1: any other byte is undefined behaviour for
// the kernels, which read it as C++ bool (the safetensors reader checks the same).
void check_bools(const Storage& s, DType dtype, const std::string& file, const std::string& key) {
  if (dtype != DType::Bool) return;
  const auto* p = static_cast<const uint8_t*>(s.data());
  for (size_t k = 0; k < s.nbytes(); ++k)
    GLIA_CHECK(p[k] <= 1, Format, file, ": storage \"", key, "\" of bools: element ", k, " is byte ",
               static_cast<int>(p[k]), ", expected 0 or 1");
}

// Note [One pickle per checkpoint]: torch.load reads one pickle (the zip's
// data.pkl, the legacy format's fifth) and never looks past its STOP or past the
// last storage, so bytes there could hide a second pickle that another reader
// would run. glia refuses them: when they parse as a pickle, the restricted
// unpickler names any disallowed global and its byte first; nothing runs.
void refuse_trailing(const uint8_t* data, size_t size, size_t end, const std::string& what, uint64_t base,
                     const char* after) {
  if (end >= size) return;
  try {
    Unpickler extra(data + end, size - end, what, base + end);
  } catch (const Error& e) {
    fail(Code::Format, what, ": ", size - end, " bytes at byte ", base + end, ", after ", after,
         " (a checkpoint holds one pickle): ", e.message());
  }
  fail(Code::Format, what, ": a second pickle at byte ", base + end, " after ", after,
       " (a checkpoint holds one pickle)");
}

// A checkpoint's value and the name its messages give the pickle.
struct Read {
  Ref<Value> value;
  std::string what;
};

Read read_zip(const Ref<ByteSource>& src) {
  ZipReader zip(src);
  std::string pkl_name;
  size_t pkl = 0;
  for (size_t i = 0; i < zip.size(); ++i) {
    const std::string& name = zip.name(i);
    size_t slash = name.find('/');
    if (slash == std::string::npos || name.compare(slash, std::string::npos, "/data.pkl") != 0) continue;
    GLIA_CHECK(pkl_name.empty(), Format, src->name(), " holds two pickles, \"", pkl_name, "\" and \"", name,
               "\" (a torch.save archive has one <archive>/data.pkl)");
    pkl_name = name;
    pkl = i;
  }
  GLIA_CHECK(!pkl_name.empty(), Format, src->name(),
             " is a zip archive without <archive>/data.pkl: not a torch.save file");
  std::string prefix = pkl_name.substr(0, pkl_name.size() - std::strlen("data.pkl"));

  bool big_endian = false;
  if (auto bo = zip.find(prefix + "byteorder")) {
    std::string order = zip.read(*bo, 16);
    GLIA_CHECK(order == "little" || order == "big", Format, src->name(), ": ", prefix, "byteorder is \"", order,
               "\", expected \"little\" or \"big\"");
    big_endian = order == "big";
  }

  std::string pickle = zip.read(pkl, kMaxHeaderBytes);
  const auto* pkl_bytes = reinterpret_cast<const uint8_t*>(pickle.data());
  Unpickler u(pkl_bytes, pickle.size(), pkl_name);
  refuse_trailing(pkl_bytes, pickle.size(), u.consumed(), pkl_name, 0, "the pickle's STOP");
  std::vector<Ref<Storage>> storages;
  for (const StorageRequest& r : u.storages()) {
    std::string entry = prefix + "data/" + r.key;
    auto i = zip.find(entry);
    GLIA_CHECK(i, Format, src->name(), ": storage \"", r.key, "\" (", r.numel, " ", dtype_name(r.dtype),
               " elements) has no entry ", entry);
    size_t item = itemsize(r.dtype);
    Ref<Storage> s = zip.read_storage(*i, r.numel * item, item);  // numel * item checked by the unpickler
    if (big_endian && item > 1) byteswap(*s, item);
    check_bools(*s, r.dtype, src->name(), r.key);
    storages.push_back(std::move(s));
  }
  return {u.value(storages), pkl_name};
}

constexpr uint8_t kLegacyMagic[] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
constexpr int64_t kLegacyProtocol = 1001;

Read read_legacy(const Ref<ByteSource>& src) {
  const uint8_t* data = src->data();
  size_t size = src->size(), pos = 0;
  // The next pickle, at most kMaxHeaderBytes long.
  auto next = [&](const char* what) {
    auto u = std::make_unique<Unpickler>(data + pos, std::min<uint64_t>(size - pos, kMaxHeaderBytes),
                                         src->name() + " (" + what + ")", pos);
    pos += u->consumed();
    return u;
  };
  auto magic = next("magic number");
  GLIA_CHECK(magic->kind(magic->root()) == Unpickler::Kind::BigInt &&
                 magic->bytes(magic->root()) == std::string(std::begin(kLegacyMagic), std::end(kLegacyMagic)),
             Format, src->name(), ": not a torch.save file (wrong magic number)");
  auto protocol = next("protocol version");
  GLIA_CHECK(protocol->kind(protocol->root()) == Unpickler::Kind::Int &&
                 protocol->int_value(protocol->root()) == kLegacyProtocol,
             Format, src->name(), ": legacy torch.save protocol version is not ", kLegacyProtocol);
  auto sys_info = next("sys_info");
  GLIA_CHECK(sys_info->kind(sys_info->root()) == Unpickler::Kind::Dict, Format, src->name(),
             ": legacy torch.save sys_info is not a dict");
  auto object = next("object");
  auto keys = next("storage keys");
  GLIA_CHECK(keys->kind(keys->root()) == Unpickler::Kind::List, Format, src->name(),
             ": the legacy storage key list is not a list");

  const std::vector<StorageRequest>& requests = object->storages();
  std::vector<Ref<Storage>> storages(requests.size());
  std::unordered_map<std::string, size_t> index;
  for (size_t r = 0; r < requests.size(); ++r) index.emplace(requests[r].key, r);
  for (uint32_t k : keys->items(keys->root())) {
    Unpickler::Kind kind = keys->kind(k);
    GLIA_CHECK(kind == Unpickler::Kind::Str || kind == Unpickler::Kind::Bytes, Format, src->name(),
               ": a legacy storage key is not a str");
    const std::string& key = keys->bytes(k);
    auto found = index.find(key);
    GLIA_CHECK(found != index.end(), Format, src->name(), ": storage \"", key, "\" is listed but no tensor uses it");
    size_t r = found->second;
    GLIA_CHECK(!storages[r], Format, src->name(), ": storage \"", key, "\" is listed twice");
    GLIA_CHECK(size - pos >= 8, Format, src->name(), ": storage \"", key, "\" at byte ", pos, ": truncated");
    uint64_t numel = 0;
    for (int b = 7; b >= 0; --b) numel = (numel << 8) | data[pos + static_cast<size_t>(b)];
    pos += 8;
    GLIA_CHECK(numel == requests[r].numel, Format, src->name(), ": storage \"", key, "\" at byte ", pos - 8, " holds ",
               numel, " elements, the pickle declares ", requests[r].numel);
    size_t item = itemsize(requests[r].dtype);
    uint64_t nbytes = numel * item;  // no overflow: the unpickler checked the declared numel
    GLIA_CHECK(nbytes <= size - pos, Format, src->name(), ": storage \"", key, "\" needs ", nbytes, " bytes at byte ",
               pos, ", the file has ", size - pos, " left");
    storages[r] = src->storage(pos, nbytes, item);
    check_bools(*storages[r], requests[r].dtype, src->name(), key);
    pos += nbytes;
  }
  for (size_t r = 0; r < requests.size(); ++r)
    GLIA_CHECK(storages[r], Format, src->name(), ": storage \"", requests[r].key,
               "\" has no data (not in the key list)");
  refuse_trailing(data, size, pos, src->name(), 0, "the last storage");
  return {object->value(storages), src->name() + " (object)"};
}

Read read_any(const Ref<ByteSource>& src) {
  const uint8_t* d = src->data();
  if (src->size() >= 4 && std::memcmp(d, "PK\x03\x04", 4) == 0) return read_zip(src);
  // Any pickle (PROTO, or protocol 0/1's text LONG): read_legacy names what is wrong.
  // A pickle that starts with a GLOBAL (protocols 0 and 1) is read too, so that a magic
  // number made by a call is refused by the global's name (looks_like_pickle).
  if (src->size() >= 2 && (d[0] == 0x80 || d[0] == 'L' || d[0] == 'c')) return read_legacy(src);
  fail(Code::Format, src->name(),
       " is not a PyTorch checkpoint (neither a zip archive nor a legacy torch.save pickle)");
}

}  // namespace

Ref<Value> read_torch_value(const Ref<ByteSource>& src) { return read_any(src).value; }

Ref<nn::TensorDict> read_torch(const Ref<ByteSource>& src) {
  Read r = read_any(src);
  return flatten(*r.value, r.what);
}

}  // namespace glia::io
