#include "io/checkpoint.h"

#include <cstring>

#include "core/error.h"
#include "io/safetensors.h"
#include "io/torch_format.h"

namespace glia::io {

Format detect_format(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "PK\x03\x04", 4) == 0) return Format::Torch;
  // Legacy torch.save: PROTO 2, then the magic number 0x1950a86a20f9469cfc6c as LONG1.
  static const uint8_t kLegacy[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
  if (size >= sizeof kLegacy && std::memcmp(data, kLegacy, sizeof kLegacy) == 0) return Format::Torch;
  // safetensors: a u64 header length that fits, then the JSON object's '{'.
  if (size >= 9 && data[8] == '{') {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
    if (n >= 2 && n <= size - 8) return Format::Safetensors;
  }
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

Ref<nn::TensorDict> load(const Ref<ByteSource>& src, Format format) {
  Format found = detect_format(src->data(), src->size());
  if (format == Format::Auto) {
    GLIA_CHECK(found != Format::Auto, Format, src->name(), " is neither a safetensors file nor a PyTorch checkpoint (",
               src->size(), " bytes, no known magic bytes at the start)");
    format = found;
  }
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

void save_file(const nn::TensorDict& dict, const std::string& path, Format format) {
  AtomicFile file(path);
  if (format == Format::Torch) {
    // torch names the folder inside the zip after the file's stem.
    std::string stem = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    if (size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
    write_torch(dict, file, stem.empty() ? "archive" : stem);
  } else {
    save(dict, file, format);
  }
  file.commit();
}

}  // namespace glia::io
