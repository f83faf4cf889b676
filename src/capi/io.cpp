// glia_tensor_dict_save/load (files and memory), tensor-dict metadata,
// glia_module_save/load: the C side of src/io/.
#include <cstdlib>
#include <cstring>

#include "capi/api.h"
#include "io/checkpoint.h"

using namespace glia;
using namespace glia::capi;

namespace {

io::Format format_arg(glia_format format, const char* fn) {
  int v = static_cast<int>(format);
  GLIA_CHECK(v >= GLIA_FORMAT_AUTO && v <= GLIA_FORMAT_TORCH, InvalidArgument, fn, ": argument 'format' is ", v,
             ", expected GLIA_FORMAT_AUTO (0), GLIA_FORMAT_SAFETENSORS (1) or GLIA_FORMAT_TORCH (2)");
  return static_cast<io::Format>(v);
}

std::vector<std::pair<std::string, std::string>>::iterator find_metadata(nn::TensorDict& d, const std::string& key) {
  auto it = d.metadata.begin();
  while (it != d.metadata.end() && it->first != key) ++it;
  return it;
}

}  // namespace

extern "C" {

glia_error* glia_tensor_dict_set_metadata(glia_tensor_dict* dict, const char* key, const char* value) {
  const char* fn = "glia_tensor_dict_set_metadata";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    std::string k = str_arg(key, fn, "key");
    auto it = find_metadata(*d, k);
    if (!value) {
      if (it != d->metadata.end()) d->metadata.erase(it);
    } else if (it != d->metadata.end()) {
      it->second = value;
    } else {
      d->metadata.emplace_back(std::move(k), value);
    }
  });
}

glia_error* glia_tensor_dict_metadata_count(const glia_tensor_dict* dict, int64_t* out) {
  const char* fn = "glia_tensor_dict_metadata_count";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    check_out(out, fn, "out");
    *out = static_cast<int64_t>(d->metadata.size());
  });
}

glia_error* glia_tensor_dict_metadata_key_at(const glia_tensor_dict* dict, int64_t index, char* buffer, size_t capacity,
                                             size_t* out_length) {
  const char* fn = "glia_tensor_dict_metadata_key_at";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    GLIA_CHECK(index >= 0 && static_cast<size_t>(index) < d->metadata.size(), InvalidArgument, fn, ": index ", index,
               " is out of range for ", d->metadata.size(), " metadata entries");
    check_string_out(buffer, capacity, out_length, fn);
    write_string(d->metadata[static_cast<size_t>(index)].first, buffer, capacity, out_length);
  });
}

glia_error* glia_tensor_dict_get_metadata(const glia_tensor_dict* dict, const char* key, char* buffer, size_t capacity,
                                          size_t* out_length) {
  const char* fn = "glia_tensor_dict_get_metadata";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    std::string k = str_arg(key, fn, "key");
    check_string_out(buffer, capacity, out_length, fn);
    auto it = find_metadata(*d, k);
    GLIA_CHECK(it != d->metadata.end(), NotFound, fn, ": metadata key \"", k, "\" not found");
    write_string(it->second, buffer, capacity, out_length);
  });
}

glia_error* glia_tensor_dict_save(const glia_tensor_dict* dict, const char* path, glia_format format) {
  const char* fn = "glia_tensor_dict_save";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    std::string p = str_arg(path, fn, "path");
    io::save_file(*d, p, format_arg(format, fn));
  });
}

glia_error* glia_tensor_dict_load(const char* path, glia_format format, glia_tensor_dict** out) {
  const char* fn = "glia_tensor_dict_load";
  return guard([&] {
    std::string p = str_arg(path, fn, "path");
    io::Format f = format_arg(format, fn);
    check_out(out, fn, "out");
    Ref<nn::TensorDict> d = io::load_file(p, f);
    *out = dict_handle(d.get());
  });
}

glia_error* glia_tensor_dict_load_buffer(const void* data, size_t size, glia_format format, glia_tensor_dict** out) {
  const char* fn = "glia_tensor_dict_load_buffer";
  return guard([&] {
    GLIA_CHECK(data || size == 0, InvalidArgument, fn, ": argument 'data' is NULL but 'size' is ", size);
    io::Format f = format_arg(format, fn);
    check_out(out, fn, "out");
    Ref<nn::TensorDict> d = io::load(io::ByteSource::copy_of(data, size), f);
    *out = dict_handle(d.get());
  });
}

glia_error* glia_tensor_dict_save_buffer(const glia_tensor_dict* dict, glia_format format, void** out_data,
                                         size_t* out_size) {
  const char* fn = "glia_tensor_dict_save_buffer";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    io::Format f = format_arg(format, fn);
    check_out(out_data, fn, "out_data");
    check_out(out_size, fn, "out_size");
    io::StringSink sink;
    io::save(*d, sink, f);
    void* p = std::malloc(sink.bytes.empty() ? 1 : sink.bytes.size());
    if (!p) throw std::bad_alloc();
    std::memcpy(p, sink.bytes.data(), sink.bytes.size());
    *out_data = p;
    *out_size = sink.bytes.size();
  });
}

void glia_buffer_free(void* data) { std::free(data); }

glia_error* glia_module_save(glia_module* module, const char* path) {
  const char* fn = "glia_module_save";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string p = str_arg(path, fn, "path");
    io::save_file(*m->state_dict(), p, io::Format::Safetensors);
  });
}

glia_error* glia_module_load(glia_module* module, const char* path, int32_t strict, glia_load_report** out_report) {
  const char* fn = "glia_module_load";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string p = str_arg(path, fn, "path");
    Ref<nn::TensorDict> d = io::load_file(p, io::Format::Auto);
    Ref<nn::LoadReport> r = m->load_state_dict(*d, strict != 0, false);
    if (out_report) *out_report = static_cast<glia_load_report*>(handle_for(r.get(), HandleType::LoadReport));
  });
}

}  // extern "C"
