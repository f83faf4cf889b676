// glia_tensor_dict_save/load (files and memory), tensor-dict metadata,
// glia_module_save/load: the C side of src/io/.
#include <cstdlib>
#include <cstring>
#include <optional>

#include "capi/api.h"
#include "capi/handle_reserve.h"
#include "core/alloc_fault.h"
#include "io/checkpoint.h"
#include "io/pickle.h"
#include "io/text.h"

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
    void* p = fault::alloc_fails() ? nullptr : std::malloc(sink.bytes.empty() ? 1 : sink.bytes.size());
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
    // The report's handle is taken first: once the module has changed, nothing may fail.
    std::optional<HandleReservation> slot;
    if (out_report) slot.emplace();
    Ref<nn::LoadReport> r = m->load_state_dict(*d, strict != 0, false);
    if (out_report) *out_report = static_cast<glia_load_report*>(slot->bind(r.get(), HandleType::LoadReport));
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

// ---- glia_value: building and saving --------------------------------------------

namespace {

Value& value_mut(glia_value* h, const char* fn, const char* arg) {
  return *lookup<Value>(h, HandleType::Value, fn, arg);
}

template <class Fill>
void new_value(glia_value** out, const char* fn, Value::Kind kind, Fill fill) {
  check_out(out, fn, "out");
  auto v = make_ref<Value>();
  v->kind = kind;
  v->building = true;
  fill(*v);
  *out = value_handle(v.get());
}

// A container the caller is still building (not yet inside another value).
Value& building_container(glia_value* h, const char* fn, const char* arg, const char* expected, bool dict) {
  Value& c = value_mut(h, fn, arg);
  bool kind_ok = dict ? c.kind == Value::Kind::Dict : (c.kind == Value::Kind::List || c.kind == Value::Kind::Tuple);
  if (!kind_ok) wrong_kind(fn, arg, expected, c);
  GLIA_CHECK(c.building, InvalidArgument, fn, ": argument '", arg,
             "' can no longer be changed: it was read from a file ",
             "or is already inside another value (build containers from the inside out)");
  return c;
}

// The child `h` of `container`, which from now on is never changed again.
Ref<Value> child_arg(glia_value* h, const Value& container, const char* fn, const char* arg) {
  Value& v = value_mut(h, fn, arg);
  GLIA_CHECK(&v != &container, InvalidArgument, fn, ": argument '", arg, "' is the container itself (a value cannot ",
             "contain itself)");
  return Ref<Value>::share(&v);
}

bool hashable(const Value& k) {
  switch (k.kind) {
    case Value::Kind::Tuple:
      for (const Ref<Value>& i : k.items)
        if (!hashable(*i)) return false;
      return true;
    case Value::Kind::List:
    case Value::Kind::Dict:
    case Value::Kind::Set:
    case Value::Kind::Tensor:
      return false;
    default:
      return true;
  }
}

void dict_set(Value& d, Ref<Value> key, Ref<Value> value) {
  key->building = false;
  value->building = false;
  for (size_t i = 0; i < d.items.size(); i += 2) {
    if (io::key_equal(*d.items[i], *key)) {  // a Python dict keeps the first key and its place
      d.items[i + 1] = std::move(value);
      return;
    }
  }
  d.items.push_back(std::move(key));
  d.items.push_back(std::move(value));
}

}  // namespace

extern "C" {

glia_error* glia_value_new_none(glia_value** out) {
  return guard([&] { new_value(out, "glia_value_new_none", Value::Kind::None, [](Value&) {}); });
}

glia_error* glia_value_new_bool(int32_t value, glia_value** out) {
  return guard([&] { new_value(out, "glia_value_new_bool", Value::Kind::Bool, [&](Value& v) { v.i = value != 0; }); });
}

glia_error* glia_value_new_int(int64_t value, glia_value** out) {
  return guard([&] { new_value(out, "glia_value_new_int", Value::Kind::Int, [&](Value& v) { v.i = value; }); });
}

glia_error* glia_value_new_double(double value, glia_value** out) {
  return guard([&] { new_value(out, "glia_value_new_double", Value::Kind::Float, [&](Value& v) { v.f = value; }); });
}

glia_error* glia_value_new_string(const char* data, size_t length, glia_value** out) {
  const char* fn = "glia_value_new_string";
  return guard([&] {
    GLIA_CHECK(data || length == 0, InvalidArgument, fn, ": argument 'data' is NULL but 'length' is ", length);
    std::string s(data ? data : "", length);
    size_t bad = io::invalid_utf8_at(s);
    GLIA_CHECK(bad == std::string::npos, InvalidArgument, fn, ": argument 'data' is not valid UTF-8 (at byte ", bad,
               ")");
    new_value(out, fn, Value::Kind::Str, [&](Value& v) { v.s = std::move(s); });
  });
}

glia_error* glia_value_new_bytes(const void* data, size_t length, glia_value** out) {
  const char* fn = "glia_value_new_bytes";
  return guard([&] {
    GLIA_CHECK(data || length == 0, InvalidArgument, fn, ": argument 'data' is NULL but 'length' is ", length);
    new_value(out, fn, Value::Kind::Bytes, [&](Value& v) {
      if (length) v.s.assign(static_cast<const char*>(data), length);
    });
  });
}

glia_error* glia_value_new_tensor(glia_tensor* tensor, glia_value** out) {
  const char* fn = "glia_value_new_tensor";
  return guard([&] {
    Tensor t = tensor_arg(tensor, fn, "tensor");
    new_value(out, fn, Value::Kind::Tensor, [&](Value& v) { v.tensor = std::move(t); });
  });
}

glia_error* glia_value_new_device(const char* name, glia_value** out) {
  const char* fn = "glia_value_new_device";
  return guard([&] {
    std::string n = str_arg(name, fn, "name");
    GLIA_CHECK(io::is_device_name(n), InvalidArgument, fn, ": argument 'name' is \"", n,
               "\", expected a torch.device string such as \"cpu\" or \"cuda:0\"");
    new_value(out, fn, Value::Kind::Device, [&](Value& v) { v.s = std::move(n); });
  });
}

glia_error* glia_value_new_dtype(const char* name, glia_value** out) {
  const char* fn = "glia_value_new_dtype";
  return guard([&] {
    std::string n = str_arg(name, fn, "name");
    GLIA_CHECK(io::is_torch_dtype_name(n), InvalidArgument, fn, ": argument 'name' is \"", n,
               "\", expected the name of a torch dtype such as \"float32\" or \"int8\"");
    new_value(out, fn, Value::Kind::DType, [&](Value& v) { v.s = std::move(n); });
  });
}

glia_error* glia_value_new_list(glia_value** out) {
  return guard([&] { new_value(out, "glia_value_new_list", Value::Kind::List, [](Value&) {}); });
}

glia_error* glia_value_new_tuple(glia_value** out) {
  return guard([&] { new_value(out, "glia_value_new_tuple", Value::Kind::Tuple, [](Value&) {}); });
}

glia_error* glia_value_new_dict(int32_t ordered, glia_value** out) {
  return guard(
      [&] { new_value(out, "glia_value_new_dict", Value::Kind::Dict, [&](Value& v) { v.ordered = ordered != 0; }); });
}

glia_error* glia_value_append(glia_value* container, glia_value* item) {
  const char* fn = "glia_value_append";
  return guard([&] {
    Value& c = building_container(container, fn, "container", "a list or tuple", false);
    Ref<Value> v = child_arg(item, c, fn, "item");
    v->building = false;
    c.items.push_back(std::move(v));
  });
}

glia_error* glia_value_set(glia_value* dict, const char* key, glia_value* value) {
  const char* fn = "glia_value_set";
  return guard([&] {
    Value& d = building_container(dict, fn, "dict", "a dict", true);
    std::string k = str_arg(key, fn, "key");
    size_t bad = io::invalid_utf8_at(k);
    GLIA_CHECK(bad == std::string::npos, InvalidArgument, fn, ": argument 'key' is not valid UTF-8 (at byte ", bad,
               ")");
    Ref<Value> v = child_arg(value, d, fn, "value");
    auto kv = make_ref<Value>();
    kv->kind = Value::Kind::Str;
    kv->s = std::move(k);
    dict_set(d, std::move(kv), std::move(v));
  });
}

glia_error* glia_value_set_item(glia_value* dict, glia_value* key, glia_value* value) {
  const char* fn = "glia_value_set_item";
  return guard([&] {
    Value& d = building_container(dict, fn, "dict", "a dict", true);
    Ref<Value> k = child_arg(key, d, fn, "key");
    GLIA_CHECK(hashable(*k), InvalidArgument, fn, ": argument 'key' has type '", io::value_kind_name(k->kind),
               "', which cannot be a dict key (unhashable type; keys are None, bool, int, float, str, bytes, tuples ",
               "of those, devices and dtypes)");
    Ref<Value> v = child_arg(value, d, fn, "value");
    dict_set(d, std::move(k), std::move(v));
  });
}

glia_error* glia_value_dict_is_ordered(const glia_value* dict, int32_t* out) {
  const char* fn = "glia_value_dict_is_ordered";
  return guard([&] {
    const Value& d = value_raw(dict, fn, "dict");
    check_out(out, fn, "out");
    if (d.kind != Value::Kind::Dict) wrong_kind(fn, "dict", "a dict", d);
    *out = d.ordered ? 1 : 0;
  });
}

glia_error* glia_value_save(const glia_value* value, const char* path, glia_format format) {
  const char* fn = "glia_value_save";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    std::string p = str_arg(path, fn, "path");
    io::save_value_file(v, p, format_arg(format, fn));
  });
}

glia_error* glia_value_save_buffer(const glia_value* value, glia_format format, void** out_data, size_t* out_size) {
  const char* fn = "glia_value_save_buffer";
  return guard([&] {
    const Value& v = value_raw(value, fn, "value");
    io::Format f = format_arg(format, fn);
    check_out(out_data, fn, "out_data");
    check_out(out_size, fn, "out_size");
    io::StringSink sink;
    io::save_value(v, sink, f);
    void* p = fault::alloc_fails() ? nullptr : std::malloc(sink.bytes.empty() ? 1 : sink.bytes.size());
    if (!p) throw std::bad_alloc();
    std::memcpy(p, sink.bytes.data(), sink.bytes.size());
    *out_data = p;
    *out_size = sink.bytes.size();
  });
}

}  // extern "C"
