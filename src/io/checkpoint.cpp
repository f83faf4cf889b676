#include "io/checkpoint.h"

#include <cstring>

#include "core/error.h"
#include "io/safetensors.h"
#include "io/torch_format.h"

namespace glia::io {

// Legacy torch.save files start with the pickled magic number
// 0x1950a86a20f9469cfc6c, written by whichever pickle protocol the caller chose:
// protocols 2 and 3 as PROTO n, LONG1; 4 and 5 put a FRAME between them; 0 and 1
// have no PROTO and write the number as text (LONG).
bool is_legacy_torch(const uint8_t* data, size_t size) {
  static const uint8_t kLong1[] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
  static const char kText[] = "L119547037146038801333356L\n";
  if (size >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5) {
    size_t pos = 2;
    if (data[1] >= 4 && size >= pos + 9 && data[pos] == 0x95) pos += 9;  // FRAME and its 8-byte length
    return size >= pos + sizeof kLong1 && std::memcmp(data + pos, kLong1, sizeof kLong1) == 0;
  }
  return size >= sizeof kText - 1 && std::memcmp(data, kText, sizeof kText - 1) == 0;
}

// Any other pickle: PROTO 2-5, or protocols 0/1 starting with a GLOBAL ("module\nname\n",
// both dotted identifiers). A legacy file's magic number may be produced by a call
// (REDUCE of builtins.eval or int) instead of a literal; such a file goes to the
// torch reader, whose restricted unpickler names the global and its position
// instead of calling it "neither format".
bool looks_like_pickle(const uint8_t* data, size_t size) {
  if (size >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5) return true;
  if (size < 1 || data[0] != 'c') return false;
  size_t pos = 1;
  for (int line = 0; line < 2; ++line) {
    size_t start = pos;
    while (pos < size && pos - start < 256) {
      uint8_t c = data[pos];
      bool ident = c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (pos > start && c >= '0' && c <= '9');
      if (!ident) break;
      ++pos;
    }
    if (pos == start || pos >= size || data[pos] != '\n') return false;
    ++pos;
  }
  return true;
}

Format detect_format(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "PK\x03\x04", 4) == 0) return Format::Torch;
  if (is_legacy_torch(data, size)) return Format::Torch;
  // safetensors: a u64 header length that fits, then the JSON object's '{'.
  if (size >= 9 && data[8] == '{') {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
    if (n >= 2 && n <= size - 8) return Format::Safetensors;
  }
  // A safetensors file too short for its header length stays "neither" (its '{' at byte 8).
  if (looks_like_pickle(data, size) && !(size >= 9 && data[8] == '{')) return Format::Torch;
  return Format::Auto;
}

const char* format_name(Format f) {
  switch (f) {
    case Format::Auto:
      return "auto";
    case Format::Safetensors:
      return "safetensors";
    case Format::Torch:
      return "torch";
  }
  return "?";
}

namespace {

// Format::Auto becomes the format the first bytes show (Error(Format) when none).
Format resolve(const Ref<ByteSource>& src, Format format) {
  if (format != Format::Auto) return format;
  Format found = detect_format(src->data(), src->size());
  GLIA_CHECK(found != Format::Auto, Format, src->name(), " is neither a safetensors file nor a PyTorch checkpoint (",
             src->size(), " bytes, no known magic bytes at the start)");
  return found;
}

}  // namespace

Ref<nn::TensorDict> load(const Ref<ByteSource>& src, Format format) {
  format = resolve(src, format);
  switch (format) {
    case Format::Safetensors:
      return read_safetensors(src);
    case Format::Torch:
      return read_torch(src);
    case Format::Auto:
      break;
  }
  fail(Code::InvalidArgument, "unknown checkpoint format ", static_cast<int>(format));
}

Ref<Value> load_value(const Ref<ByteSource>& src, Format format) {
  format = resolve(src, format);
  if (format == Format::Torch) return read_torch_value(src);
  GLIA_CHECK(format == Format::Safetensors, InvalidArgument, "unknown checkpoint format ", static_cast<int>(format));
  Ref<nn::TensorDict> d = read_safetensors(src);
  auto root = make_ref<Value>();
  root->kind = Value::Kind::Dict;
  root->ordered = true;  // in header order, as glia_tensor_dict_load gives it
  root->items.reserve(2 * d->size());
  for (size_t i = 0; i < d->size(); ++i) {
    auto k = make_ref<Value>();
    k->kind = Value::Kind::Str;
    k->s = d->key_at(i);
    auto v = make_ref<Value>();
    v->kind = Value::Kind::Tensor;
    v->tensor = d->value_at(i);
    root->items.push_back(std::move(k));
    root->items.push_back(std::move(v));
  }
  return root;
}

Ref<nn::TensorDict> load_file(const std::string& path, Format format) {
  return load(ByteSource::map_file(path), format);
}

void save(const nn::TensorDict& dict, Sink& out, Format format) {
  switch (format) {
    case Format::Auto:
    case Format::Safetensors:
      write_safetensors(dict, out);
      return;
    case Format::Torch:
      write_torch(dict, out);
      return;
  }
  fail(Code::InvalidArgument, "unknown checkpoint format ", static_cast<int>(format));
}

namespace {

// torch names the folder inside the zip after the file's stem.
std::string archive_name_for(const std::string& path) {
  std::string stem = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  if (size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
  return stem.empty() ? "archive" : stem;
}

// The flat dict of str -> tensor a safetensors file holds, or why `root` is not one
// (`why` set, nullptr returned).
Ref<nn::TensorDict> as_flat_dict(const Value& root, std::string& why) {
  if (root.kind != Value::Kind::Dict) {
    why = std::string("the value is a ") + value_kind_name(root.kind) + ", not a dict";
    return nullptr;
  }
  auto d = make_ref<nn::TensorDict>();
  for (size_t i = 0; i < root.items.size(); i += 2) {
    const Value& k = *root.items[i];
    const Value& v = *root.items[i + 1];
    if (k.kind != Value::Kind::Str) {
      why =
          std::string("entry ") + std::to_string(i / 2) + " has a key of type " + value_kind_name(k.kind) + ", not str";
      return nullptr;
    }
    if (v.kind != Value::Kind::Tensor) {
      why = "the value of key \"" + k.s + "\" is a " + value_kind_name(v.kind) + ", not a tensor";
      return nullptr;
    }
    d->set(k.s, v.tensor);
  }
  return d;
}

}  // namespace

void save_file(const nn::TensorDict& dict, const std::string& path, Format format) {
  AtomicFile file(path);
  if (format == Format::Torch)
    write_torch(dict, file, archive_name_for(path));
  else
    save(dict, file, format);
  file.commit();
}

namespace {

void save_value_to(const Value& root, Sink& out, Format format, const std::string& archive) {
  GLIA_CHECK(format == Format::Auto || format == Format::Safetensors || format == Format::Torch, InvalidArgument,
             "unknown checkpoint format ", static_cast<int>(format));
  if (format != Format::Torch) {
    std::string why;
    Ref<nn::TensorDict> flat = as_flat_dict(root, why);
    if (flat) {
      write_safetensors(*flat, out);
      return;
    }
    GLIA_CHECK(format == Format::Auto, InvalidArgument, "a safetensors file holds a flat dict of str -> tensor, but ",
               why, " (save it in the torch format, GLIA_FORMAT_TORCH)");
  }
  write_torch_value(root, out, archive);
}

}  // namespace

void save_value(const Value& root, Sink& out, Format format) { save_value_to(root, out, format, "archive"); }

void save_value_file(const Value& root, const std::string& path, Format format) {
  AtomicFile file(path);
  save_value_to(root, file, format, archive_name_for(path));
  file.commit();
}

}  // namespace glia::io
