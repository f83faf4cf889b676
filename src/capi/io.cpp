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

// ---- glia_value: a checkpoint's whole object ------------------------------------

namespace {

using io::Value;

glia_value* value_handle(Value* v) { return static_cast<glia_value*>(handle_for(v, HandleType::Value)); }
const Value& value_raw(const glia_value* h, const char* fn, const char* arg) {
  return *lookup<Value>(h, HandleType::Value, fn, arg);
}

// "argument 'dict' has type 'list', expected a dict", in Python's type names.
[[noreturn]] void wrong_kind(const char* fn, const char* arg, const char* expected, const Value& v) {
  fail(Code::InvalidArgument, fn, ": argument '", arg, "' has type '", io::value_kind_name(v.kind), "', expected ",
       expected);
}

bool is_container(const Value& v) {
  return v.kind == Value::Kind::Tuple || v.kind == Value::Kind::List || v.kind == Value::Kind::Set ||
         v.kind == Value::Kind::Dict;
}

size_t item_index(const Value& v, int64_t index, const char* fn, const char* arg) {
  GLIA_CHECK(index >= 0 && static_cast<uint64_t>(index) < v.size(), InvalidArgument, fn, ": index ", index,
             " is out of range for a ", io::value_kind_name(v.kind), " of size ", v.size());
  return static_cast<size_t>(index);
}

}  // namespace

extern "C" {

glia_error* glia_value_load(const char* path, glia_format format, glia_value** out) {
  const char* fn = "glia_value_load";
  return guard([&] {
    std::string p = str_arg(path, fn, "path");
    io::Format f = format_arg(format, fn);
    check_out(out, fn, "out");
    Ref<Value> v = io::load_value(io::ByteSource::map_file(p), f);
    *out = value_handle(v.get());
  });
}

glia_error* glia_value_load_buffer(const void* data, size_t size, glia_format format, glia_value** out) {
  const char* fn = "glia_value_load_buffer";
  return guard([&] {
    GLIA_CHECK(data || size == 0, InvalidArgument, fn, ": argument 'data' is NULL but 'size' is ", size);
    io::Format f = format_arg(format, fn);
    check_out(out, fn, "out");
    Ref<Value> v = io::load_value(io::ByteSource::copy_of(data, size), f);
    *out = value_handle(v.get());
  });
}

glia_error* glia_value_retain(glia_value* value) {
  return guard([&] { handle_retain(value, HandleType::Value, "glia_value_retain"); });
}

glia_error* glia_value_release(glia_value* value) {
  if (!value) return nullptr;
  return guard([&] { handle_release(value, HandleType::Value, "glia_value_release"); });
}

glia_error* glia_value_get_kind(const glia_value* value, glia_value_kind* out) {
  const char* fn = "glia_value_get_kind";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    switch (v.kind) {
      case Value::Kind::None:
        *out = GLIA_VALUE_NONE;
        break;
      case Value::Kind::Bool:
        *out = GLIA_VALUE_BOOL;
        break;
      case Value::Kind::Int:
        *out = GLIA_VALUE_INT;
        break;
      case Value::Kind::BigInt:
        *out = GLIA_VALUE_BIG_INT;
        break;
      case Value::Kind::Float:
        *out = GLIA_VALUE_FLOAT;
        break;
      case Value::Kind::Str:
        *out = GLIA_VALUE_STR;
        break;
      case Value::Kind::Bytes:
        *out = GLIA_VALUE_BYTES;
        break;
      case Value::Kind::Tuple:
        *out = GLIA_VALUE_TUPLE;
        break;
      case Value::Kind::List:
        *out = GLIA_VALUE_LIST;
        break;
      case Value::Kind::Dict:
        *out = GLIA_VALUE_DICT;
        break;
      case Value::Kind::Set:
        *out = GLIA_VALUE_SET;
        break;
      case Value::Kind::Tensor:
        *out = GLIA_VALUE_TENSOR;
        break;
      case Value::Kind::Device:
        *out = GLIA_VALUE_DEVICE;
        break;
      case Value::Kind::DType:
        *out = GLIA_VALUE_DTYPE;
        break;
    }
  });
}

glia_error* glia_value_size(const glia_value* value, int64_t* out) {
  const char* fn = "glia_value_size";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    if (!is_container(v)) wrong_kind(fn, "value", "a tuple, list, set or dict", v);
    *out = static_cast<int64_t>(v.size());
  });
}

glia_error* glia_value_item(const glia_value* value, int64_t index, glia_value** out) {
  const char* fn = "glia_value_item";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    if (!is_container(v)) wrong_kind(fn, "value", "a tuple, list, set or dict", v);
    size_t i = item_index(v, index, fn, "index");
    *out = value_handle(v.kind == Value::Kind::Dict ? v.items[2 * i + 1].get() : v.items[i].get());
  });
}

glia_error* glia_value_key_at(const glia_value* dict, int64_t index, glia_value** out) {
  const char* fn = "glia_value_key_at";
  return guard([&] {
    const Value& v = value_raw(dict, fn, "dict");
    check_out(out, fn, "out");
    if (v.kind != Value::Kind::Dict) wrong_kind(fn, "dict", "a dict", v);
    size_t i = item_index(v, index, fn, "index");
    *out = value_handle(v.items[2 * i].get());
  });
}

glia_error* glia_value_get(const glia_value* dict, const char* key, glia_value** out) {
  const char* fn = "glia_value_get";
  return guard([&] {
    const Value& v = value_raw(dict, fn, "dict");
    std::string k = str_arg(key, fn, "key");
    check_out(out, fn, "out");
    if (v.kind != Value::Kind::Dict) wrong_kind(fn, "dict", "a dict", v);
    for (size_t i = v.items.size(); i >= 2; i -= 2) {  // the last entry wins, as in a Python dict
      const Value& kv = *v.items[i - 2];
      if (kv.kind == Value::Kind::Str && kv.s == k) {
        *out = value_handle(v.items[i - 1].get());
        return;
      }
    }
    fail(Code::NotFound, fn, ": key \"", k, "\" not found");
  });
}

glia_error* glia_value_as_bool(const glia_value* value, int32_t* out) {
  const char* fn = "glia_value_as_bool";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    if (v.kind != Value::Kind::Bool) wrong_kind(fn, "value", "a bool", v);
    *out = v.i ? 1 : 0;
  });
}

glia_error* glia_value_as_int(const glia_value* value, int64_t* out) {
  const char* fn = "glia_value_as_int";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    GLIA_CHECK(v.kind != Value::Kind::BigInt, InvalidArgument, fn, ": the int does not fit in int64");
    if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Bool) wrong_kind(fn, "value", "an int", v);
    *out = v.i;
  });
}

glia_error* glia_value_as_double(const glia_value* value, double* out) {
  const char* fn = "glia_value_as_double";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    if (v.kind == Value::Kind::Float)
      *out = v.f;
    else if (v.kind == Value::Kind::Int || v.kind == Value::Kind::Bool)
      *out = static_cast<double>(v.i);
    else
      wrong_kind(fn, "value", "a float", v);
  });
}

glia_error* glia_value_as_string(const glia_value* value, char* buffer, size_t capacity, size_t* out_length) {
  const char* fn = "glia_value_as_string";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_string_out(buffer, capacity, out_length, fn);
    if (v.kind != Value::Kind::Str && v.kind != Value::Kind::Bytes && v.kind != Value::Kind::BigInt &&
        v.kind != Value::Kind::Device && v.kind != Value::Kind::DType)
      wrong_kind(fn, "value", "a str, bytes, big int, device or dtype", v);
    write_string(v.s, buffer, capacity, out_length);
  });
}

glia_error* glia_value_as_tensor(const glia_value* value, glia_tensor** out) {
  const char* fn = "glia_value_as_tensor";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    if (v.kind != Value::Kind::Tensor) wrong_kind(fn, "value", "a tensor", v);
    *out = tensor_handle(v.tensor);
  });
}

glia_error* glia_value_to_tensor_dict(const glia_value* value, glia_tensor_dict** out) {
  const char* fn = "glia_value_to_tensor_dict";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    check_out(out, fn, "out");
    Ref<nn::TensorDict> d = io::flatten(v, "value");
    *out = dict_handle(d.get());
  });
}

}  // extern "C"
