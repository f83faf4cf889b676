// glia_module_*: the tree, calling, state and state dicts of a module.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "autograd/grad_mode.h"
#include "capi/api.h"
#include "capi/handle_reserve.h"
#include "core/alloc_fault.h"

using namespace glia;
using namespace glia::capi;

namespace {

glia_error* named_tensors(glia_module* module, const char* prefix, int32_t recurse, int32_t remove_duplicate,
                          glia_tensor_dict** out, bool buffers, const char* fn) {
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    check_out(out, fn, "out");
    std::string pre = prefix ? prefix : "";
    auto d = make_ref<nn::TensorDict>();
    auto list = buffers ? m->named_buffers(pre, recurse != 0, remove_duplicate != 0)
                        : m->named_parameters(pre, recurse != 0, remove_duplicate != 0);
    for (auto& e : list) d->set(e.name, e.value);
    *out = dict_handle(d.get());
  });
}

nn::LoadReport* report_raw(const glia_load_report* h, const char* fn) {
  return lookup<nn::LoadReport>(h, HandleType::LoadReport, fn, "report");
}
std::vector<std::string>& report_keys(nn::LoadReport& r, glia_report_keys which, const char* fn) {
  GLIA_CHECK(which == GLIA_KEYS_MISSING || which == GLIA_KEYS_UNEXPECTED, InvalidArgument, fn,
             ": argument 'which' must be GLIA_KEYS_MISSING or GLIA_KEYS_UNEXPECTED, got ", static_cast<int>(which));
  return which == GLIA_KEYS_MISSING ? r.missing_keys : r.unexpected_keys;
}

// named_children / named_modules into the caller's arrays (glia_module_forward's convention).
void write_modules(const std::vector<nn::NamedModule>& ms, glia_module** out_modules, char** out_names,
                   int64_t capacity, int64_t* out_n, const char* fn) {
  int64_t n = static_cast<int64_t>(ms.size());
  if (!out_modules) {
    *out_n = n;
    return;
  }
  GLIA_CHECK(capacity >= n, InvalidArgument, fn, ": 'out_modules' has room for ", capacity, " modules but there are ",
             n);
  // Everything is made first, then published: a failure leaves nothing behind.
  std::vector<char*> names;
  std::vector<glia_module*> hs;
  try {
    if (out_names)
      for (const auto& m : ms) {
        char* s = fault::alloc_fails() ? nullptr : static_cast<char*>(std::malloc(m.name.size() + 1));
        if (!s) throw std::bad_alloc();
        std::memcpy(s, m.name.c_str(), m.name.size() + 1);
        names.push_back(s);
      }
    for (const auto& m : ms) hs.push_back(module_handle(m.module));
  } catch (...) {
    for (char* s : names) std::free(s);
    for (glia_module* h : hs) glia_error_free(glia_module_release(h));
    throw;
  }
  for (size_t i = 0; i < ms.size(); ++i) {
    out_modules[i] = hs[i];
    if (out_names) out_names[i] = names[i];
  }
  *out_n = n;
}

void check_module_outs(glia_module** out_modules, int64_t capacity, int64_t* out_n, const char* fn) {
  check_out(out_n, fn, "out_n");
  GLIA_CHECK(capacity >= 0, InvalidArgument, fn, ": argument 'capacity' must be >= 0, got ", capacity);
  GLIA_CHECK(out_modules || capacity == 0, InvalidArgument, fn, ": argument 'out_modules' is NULL with capacity ",
             capacity);
}

}  // namespace

extern "C" {

glia_error* glia_module_register_parameter(glia_module* module, const char* name, glia_tensor* tensor) {
  const char* fn = "glia_module_register_parameter";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    m->register_parameter(n, tensor_opt(tensor, fn, "tensor"));
  });
}

glia_error* glia_module_register_buffer(glia_module* module, const char* name, glia_tensor* tensor,
                                        int32_t persistent) {
  const char* fn = "glia_module_register_buffer";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    m->register_buffer(n, tensor_opt(tensor, fn, "tensor"), persistent != 0);
  });
}

glia_error* glia_module_add_module(glia_module* module, const char* name, glia_module* child) {
  const char* fn = "glia_module_add_module";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    nn::ModuleRef c = child ? module_arg(child, fn, "child") : nn::ModuleRef();
    m->register_module(n, c);
  });
}

glia_error* glia_module_named_children(glia_module* module, glia_module** out_modules, char** out_names,
                                       int64_t capacity, int64_t* out_n) {
  const char* fn = "glia_module_named_children";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    check_module_outs(out_modules, capacity, out_n, fn);
    write_modules(m->named_children(), out_modules, out_names, capacity, out_n, fn);
  });
}

glia_error* glia_module_named_modules(glia_module* module, const char* prefix, int32_t remove_duplicate,
                                      glia_module** out_modules, char** out_names, int64_t capacity, int64_t* out_n) {
  const char* fn = "glia_module_named_modules";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    check_module_outs(out_modules, capacity, out_n, fn);
    write_modules(m->named_modules(prefix ? prefix : "", remove_duplicate != 0), out_modules, out_names, capacity,
                  out_n, fn);
  });
}

glia_error* glia_module_requires_grad(glia_module* module, int32_t flag) {
  return guard([&] { module_arg(module, "glia_module_requires_grad", "module")->requires_grad_(flag != 0); });
}

glia_error* glia_module_zero_grad(glia_module* module, int32_t set_to_none) {
  return guard([&] { module_arg(module, "glia_module_zero_grad", "module")->zero_grad(set_to_none != 0); });
}

glia_error* glia_module_to(glia_module* module, const glia_device* device, const glia_dtype* dtype) {
  const char* fn = "glia_module_to";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::optional<Device> dev;
    std::optional<DType> dt;
    if (device) dev = device_arg(*device, fn);
    if (dtype) dt = dtype_arg(*dtype, fn, "dtype");
    m->to(dev, dt);
  });
}

glia_error* glia_module_to_empty(glia_module* module, glia_device device) {
  const char* fn = "glia_module_to_empty";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    m->to_empty(device_arg(device, fn));
  });
}

glia_error* glia_module_load_state_dict(glia_module* module, const glia_tensor_dict* dict, int32_t strict,
                                        int32_t assign, glia_load_report** out_report) {
  const char* fn = "glia_module_load_state_dict";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    Ref<nn::TensorDict> d = Ref<nn::TensorDict>::share(dict_raw(dict, fn, "dict"));
    // The report's handle is taken first: once the module has changed, nothing may fail.
    std::optional<HandleReservation> slot;
    if (out_report) slot.emplace();
    Ref<nn::LoadReport> r = m->load_state_dict(*d, strict != 0, assign != 0);
    if (out_report) *out_report = static_cast<glia_load_report*>(slot->bind(r.get(), HandleType::LoadReport));
  });
}

glia_error* glia_load_report_retain(glia_load_report* report) {
  return guard([&] { handle_retain(report, HandleType::LoadReport, "glia_load_report_retain"); });
}

glia_error* glia_load_report_release(glia_load_report* report) {
  if (!report) return nullptr;
  return guard([&] { handle_release(report, HandleType::LoadReport, "glia_load_report_release"); });
}

glia_error* glia_load_report_count(const glia_load_report* report, glia_report_keys which, int64_t* out) {
  const char* fn = "glia_load_report_count";
  return guard([&] {
    nn::LoadReport* r = report_raw(report, fn);
    auto& keys = report_keys(*r, which, fn);
    check_out(out, fn, "out");
    *out = static_cast<int64_t>(keys.size());
  });
}

glia_error* glia_load_report_key(const glia_load_report* report, glia_report_keys which, int64_t index, char* buffer,
                                 size_t capacity, size_t* out_length) {
  const char* fn = "glia_load_report_key";
  return guard([&] {
    nn::LoadReport* r = report_raw(report, fn);
    auto& keys = report_keys(*r, which, fn);
    GLIA_CHECK(index >= 0 && static_cast<size_t>(index) < keys.size(), InvalidArgument, fn, ": index ", index,
               " is out of range for ", keys.size(), " keys");
    check_string_out(buffer, capacity, out_length, fn);
    write_string(keys[static_cast<size_t>(index)], buffer, capacity, out_length);
  });
}

glia_error* glia_load_report_remove(glia_load_report* report, glia_report_keys which, const char* key) {
  const char* fn = "glia_load_report_remove";
  return guard([&] {
    nn::LoadReport* r = report_raw(report, fn);
    auto& keys = report_keys(*r, which, fn);
    std::string k = str_arg(key, fn, "key");
    auto it = std::find(keys.begin(), keys.end(), k);
    GLIA_CHECK(it != keys.end(), NotFound, fn, ": key \"", k, "\" is not in the ",
               which == GLIA_KEYS_MISSING ? "missing" : "unexpected", " keys");
    keys.erase(it);
  });
}

glia_error* glia_module_retain(glia_module* m) {
  return guard([&] { handle_retain(m, HandleType::Module, "glia_module_retain"); });
}

glia_error* glia_module_release(glia_module* m) {
  if (!m) return nullptr;
  return guard([&] { handle_release(m, HandleType::Module, "glia_module_release"); });
}

glia_error* glia_module_get_submodule(glia_module* module, const char* path, glia_module** out) {
  const char* fn = "glia_module_get_submodule";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string p = str_arg(path, fn, "path");
    check_out(out, fn, "out");
    *out = module_handle(m->get_submodule(p));
  });
}

glia_error* glia_module_get_parameter(glia_module* module, const char* path, glia_tensor** out) {
  const char* fn = "glia_module_get_parameter";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string p = str_arg(path, fn, "path");
    check_out(out, fn, "out");
    *out = tensor_handle(m->get_parameter(p));
  });
}

glia_error* glia_module_get_buffer(glia_module* module, const char* path, glia_tensor** out) {
  const char* fn = "glia_module_get_buffer";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    std::string p = str_arg(path, fn, "path");
    check_out(out, fn, "out");
    *out = tensor_handle(m->get_buffer(p));
  });
}

glia_error* glia_module_named_parameters(glia_module* module, const char* prefix, int32_t recurse,
                                         int32_t remove_duplicate, glia_tensor_dict** out) {
  return named_tensors(module, prefix, recurse, remove_duplicate, out, false, "glia_module_named_parameters");
}

glia_error* glia_module_named_buffers(glia_module* module, const char* prefix, int32_t recurse,
                                      int32_t remove_duplicate, glia_tensor_dict** out) {
  return named_tensors(module, prefix, recurse, remove_duplicate, out, true, "glia_module_named_buffers");
}

glia_error* glia_module_forward(glia_module* module, const glia_tensor* const* inputs, int64_t n_inputs,
                                glia_tensor** outputs, int64_t capacity, int64_t* out_n_outputs) {
  const char* fn = "glia_module_forward";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    GLIA_CHECK(n_inputs >= 0, InvalidArgument, fn, ": argument 'n_inputs' must be >= 0, got ", n_inputs);
    GLIA_CHECK(inputs || n_inputs == 0, InvalidArgument, fn, ": argument 'inputs' is NULL");
    TensorList xs;
    xs.reserve(static_cast<size_t>(n_inputs));
    for (int64_t i = 0; i < n_inputs; ++i) xs.push_back(tensor_opt(inputs[i], fn, "inputs"));
    check_outputs(outputs, capacity, out_n_outputs, fn);
    TensorList ys = m->call(xs);
    write_outputs(ys, outputs, capacity, out_n_outputs, fn);
  });
}

glia_error* glia_module_train(glia_module* module, int32_t mode) {
  return guard([&] { module_raw(module, "glia_module_train", "module")->train(mode != 0); });
}

glia_error* glia_module_is_training(const glia_module* module, int32_t* out) {
  return guard([&] {
    nn::Module* m = module_raw(module, "glia_module_is_training", "module");
    check_out(out, "glia_module_is_training", "out");
    *out = m->is_training() ? 1 : 0;
  });
}

glia_error* glia_module_to_string(const glia_module* module, char* buffer, size_t capacity, size_t* out_length) {
  const char* fn = "glia_module_to_string";
  return guard([&] {
    // A host module's extra_repr callback may release the caller's last reference: hold one.
    nn::ModuleRef m = module_arg(module, fn, "module");
    check_string_out(buffer, capacity, out_length, fn);
    write_string(m->repr(), buffer, capacity, out_length);
  });
}

glia_error* glia_module_type_name(const glia_module* module, char* buffer, size_t capacity, size_t* out_length) {
  const char* fn = "glia_module_type_name";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    check_string_out(buffer, capacity, out_length, fn);
    write_string(m->type_name(), buffer, capacity, out_length);
  });
}

glia_error* glia_module_extra_repr(const glia_module* module, char* buffer, size_t capacity, size_t* out_length) {
  const char* fn = "glia_module_extra_repr";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    check_string_out(buffer, capacity, out_length, fn);
    write_string(m->extra_repr(), buffer, capacity, out_length);
  });
}

glia_error* glia_module_state_dict(glia_module* module, glia_tensor_dict** out) {
  const char* fn = "glia_module_state_dict";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    check_out(out, fn, "out");
    *out = dict_handle(m->state_dict().get());
  });
}

// ---- tensor dicts ---------------------------------------------------------------

glia_error* glia_tensor_dict_create(glia_tensor_dict** out) {
  return guard([&] {
    check_out(out, "glia_tensor_dict_create", "out");
    *out = dict_handle(make_ref<nn::TensorDict>().get());
  });
}

glia_error* glia_tensor_dict_retain(glia_tensor_dict* d) {
  return guard([&] { handle_retain(d, HandleType::TensorDict, "glia_tensor_dict_retain"); });
}

glia_error* glia_tensor_dict_release(glia_tensor_dict* d) {
  if (!d) return nullptr;
  return guard([&] { handle_release(d, HandleType::TensorDict, "glia_tensor_dict_release"); });
}

glia_error* glia_tensor_dict_size(const glia_tensor_dict* dict, int64_t* out) {
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, "glia_tensor_dict_size", "dict");
    check_out(out, "glia_tensor_dict_size", "out");
    *out = static_cast<int64_t>(d->size());
  });
}

namespace {
size_t index_arg(const nn::TensorDict& d, int64_t index, const char* fn) {
  GLIA_CHECK(index >= 0 && static_cast<size_t>(index) < d.size(), InvalidArgument, fn, ": index ", index,
             " is out of range for a dict of size ", d.size());
  return static_cast<size_t>(index);
}
}  // namespace

glia_error* glia_tensor_dict_key_at(const glia_tensor_dict* dict, int64_t index, char* buffer, size_t capacity,
                                    size_t* out_length) {
  const char* fn = "glia_tensor_dict_key_at";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    size_t i = index_arg(*d, index, fn);
    check_string_out(buffer, capacity, out_length, fn);
    write_string(d->key_at(i), buffer, capacity, out_length);
  });
}

glia_error* glia_tensor_dict_value_at(const glia_tensor_dict* dict, int64_t index, glia_tensor** out) {
  const char* fn = "glia_tensor_dict_value_at";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    size_t i = index_arg(*d, index, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(d->value_at(i));
  });
}

glia_error* glia_tensor_dict_get(const glia_tensor_dict* dict, const char* key, glia_tensor** out) {
  const char* fn = "glia_tensor_dict_get";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    std::string k = str_arg(key, fn, "key");
    check_out(out, fn, "out");
    const Tensor* t = d->find(k);
    GLIA_CHECK(t, NotFound, fn, ": key \"", k, "\" not found");
    *out = tensor_handle(*t);
  });
}

glia_error* glia_tensor_dict_contains(const glia_tensor_dict* dict, const char* key, int32_t* out) {
  const char* fn = "glia_tensor_dict_contains";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    std::string k = str_arg(key, fn, "key");
    check_out(out, fn, "out");
    *out = d->contains(k) ? 1 : 0;
  });
}

glia_error* glia_tensor_dict_set(glia_tensor_dict* dict, const char* key, glia_tensor* tensor) {
  const char* fn = "glia_tensor_dict_set";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    std::string k = str_arg(key, fn, "key");
    Tensor t = tensor_arg(tensor, fn, "tensor");
    d->set(k, t);
  });
}

glia_error* glia_tensor_dict_remove(glia_tensor_dict* dict, const char* key) {
  const char* fn = "glia_tensor_dict_remove";
  return guard([&] {
    nn::TensorDict* d = dict_raw(dict, fn, "dict");
    std::string k = str_arg(key, fn, "key");
    GLIA_CHECK(d->remove(k), NotFound, fn, ": key \"", k, "\" not found");
  });
}

}  // extern "C"
