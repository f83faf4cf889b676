// glia_module_*: the tree, calling, state and state dicts of a module.
#include <cstring>

#include "autograd/grad_mode.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {

std::string str_arg(const char* s, const char* fn, const char* arg) {
  GLIA_CHECK(s != nullptr, InvalidArgument, fn, ": argument '", arg, "' is NULL");
  return s;
}

glia_tensor_dict* dict_handle(const Ref<nn::TensorDict>& d) {
  return static_cast<glia_tensor_dict*>(handle_for(d.get(), HandleType::TensorDict));
}
nn::TensorDict* dict_raw(const glia_tensor_dict* h, const char* fn, const char* arg) {
  return lookup<nn::TensorDict>(h, HandleType::TensorDict, fn, arg);
}

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
    *out = dict_handle(d);
  });
}

}  // namespace

extern "C" {

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
    nn::Module* m = module_raw(module, fn, "module");
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
    *out = dict_handle(m->state_dict());
  });
}

// ---- tensor dicts ---------------------------------------------------------------

glia_error* glia_tensor_dict_create(glia_tensor_dict** out) {
  return guard([&] {
    check_out(out, "glia_tensor_dict_create", "out");
    *out = dict_handle(make_ref<nn::TensorDict>());
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
