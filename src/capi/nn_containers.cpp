// Built-in containers: glia_nn_sequential, glia_nn_module_list, glia_nn_module_dict,
// glia_nn_parameter_list, glia_nn_parameter_dict and their element access.
#include <algorithm>
#include <map>

#include "capi/api.h"
#include "nn/modules/container.h"

using namespace glia;
using namespace glia::capi;

namespace {

// The module behind `h` as a C (a container class), else InvalidArgument naming the argument.
template <class C>
C* container_arg(const glia_module* h, const char* fn, const char* arg, const char* cls) {
  nn::Module* m = module_raw(h, fn, arg);
  auto* c = dynamic_cast<C*>(m);
  GLIA_CHECK(c, InvalidArgument, fn, ": argument '", arg, "' is a ", m->type_name(), ", expected a ", cls);
  return c;
}

std::vector<nn::ModuleRef> modules_arg(glia_module* const* ms, int64_t n, const char* fn) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument 'n' must be >= 0, got ", n);
  GLIA_CHECK(ms || n == 0, InvalidArgument, fn, ": argument 'modules' is NULL");
  std::vector<nn::ModuleRef> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(module_arg(ms[i], fn, "modules"));
  return out;
}

}  // namespace

extern "C" {

// ---- Sequential ------------------------------------------------------------------------

glia_error* glia_nn_sequential(glia_module* const* modules, int64_t n, glia_module** out) {
  const char* fn = "glia_nn_sequential";
  return guard([&] {
    auto ms = modules_arg(modules, n, fn);
    check_out(out, fn, "out");
    auto s = make_ref<nn::Sequential>();
    for (auto& m : ms) s->append(m);
    *out = module_handle(s);
  });
}

glia_error* glia_nn_sequential_append(glia_module* seq, glia_module* module) {
  const char* fn = "glia_nn_sequential_append";
  return guard([&] {
    auto* s = container_arg<nn::Sequential>(seq, fn, "seq", "Sequential");
    s->append(module_arg(module, fn, "module"));
  });
}

glia_error* glia_nn_sequential_insert(glia_module* seq, int64_t index, glia_module* module) {
  const char* fn = "glia_nn_sequential_insert";
  return guard([&] {
    auto* s = container_arg<nn::Sequential>(seq, fn, "seq", "Sequential");
    s->insert(index, module_arg(module, fn, "module"));
  });
}

glia_error* glia_nn_sequential_get(glia_module* seq, int64_t index, glia_module** out) {
  const char* fn = "glia_nn_sequential_get";
  return guard([&] {
    auto* s = container_arg<nn::Sequential>(seq, fn, "seq", "Sequential");
    check_out(out, fn, "out");
    *out = module_handle(s->at(index));
  });
}

glia_error* glia_nn_sequential_set(glia_module* seq, int64_t index, glia_module* module) {
  const char* fn = "glia_nn_sequential_set";
  return guard([&] {
    auto* s = container_arg<nn::Sequential>(seq, fn, "seq", "Sequential");
    s->set(index, module_arg(module, fn, "module"));
  });
}

glia_error* glia_nn_sequential_slice(glia_module* seq, int64_t start, int64_t stop, int64_t step, glia_module** out) {
  const char* fn = "glia_nn_sequential_slice";
  return guard([&] {
    auto* s = container_arg<nn::Sequential>(seq, fn, "seq", "Sequential");
    check_out(out, fn, "out");
    *out = module_handle(s->slice(start, stop, step));
  });
}

// ---- ModuleList ------------------------------------------------------------------------

glia_error* glia_nn_module_list(glia_module* const* modules, int64_t n, glia_module** out) {
  const char* fn = "glia_nn_module_list";
  return guard([&] {
    auto ms = modules_arg(modules, n, fn);
    check_out(out, fn, "out");
    auto l = make_ref<nn::ModuleList>();
    for (auto& m : ms) l->append(m);
    *out = module_handle(l);
  });
}

glia_error* glia_nn_module_list_append(glia_module* list, glia_module* module) {
  const char* fn = "glia_nn_module_list_append";
  return guard([&] {
    auto* l = container_arg<nn::ModuleList>(list, fn, "list", "ModuleList");
    l->append(module_arg(module, fn, "module"));
  });
}

glia_error* glia_nn_module_list_extend(glia_module* list, glia_module* const* modules, int64_t n) {
  const char* fn = "glia_nn_module_list_extend";
  return guard([&] {
    auto* l = container_arg<nn::ModuleList>(list, fn, "list", "ModuleList");
    for (auto& m : modules_arg(modules, n, fn)) l->append(m);
  });
}

glia_error* glia_nn_module_list_insert(glia_module* list, int64_t index, glia_module* module) {
  const char* fn = "glia_nn_module_list_insert";
  return guard([&] {
    auto* l = container_arg<nn::ModuleList>(list, fn, "list", "ModuleList");
    l->insert(index, module_arg(module, fn, "module"));
  });
}

glia_error* glia_nn_module_list_get(glia_module* list, int64_t index, glia_module** out) {
  const char* fn = "glia_nn_module_list_get";
  return guard([&] {
    auto* l = container_arg<nn::ModuleList>(list, fn, "list", "ModuleList");
    check_out(out, fn, "out");
    *out = module_handle(l->at(index));
  });
}

glia_error* glia_nn_module_list_set(glia_module* list, int64_t index, glia_module* module) {
  const char* fn = "glia_nn_module_list_set";
  return guard([&] {
    auto* l = container_arg<nn::ModuleList>(list, fn, "list", "ModuleList");
    l->set(index, module_arg(module, fn, "module"));
  });
}

glia_error* glia_nn_module_list_slice(glia_module* list, int64_t start, int64_t stop, int64_t step, glia_module** out) {
  const char* fn = "glia_nn_module_list_slice";
  return guard([&] {
    auto* l = container_arg<nn::ModuleList>(list, fn, "list", "ModuleList");
    check_out(out, fn, "out");
    *out = module_handle(l->slice(start, stop, step));
  });
}

// ---- ModuleDict ------------------------------------------------------------------------

glia_error* glia_nn_module_dict(const char* const* keys, glia_module* const* modules, int64_t n, glia_module** out) {
  const char* fn = "glia_nn_module_dict";
  return guard([&] {
    auto ms = modules_arg(modules, n, fn);
    GLIA_CHECK(keys || n == 0, InvalidArgument, fn, ": argument 'keys' is NULL");
    check_out(out, fn, "out");
    auto d = make_ref<nn::ModuleDict>();
    for (int64_t i = 0; i < n; ++i) d->set(str_arg(keys[i], fn, "keys"), ms[static_cast<size_t>(i)]);
    *out = module_handle(d);
  });
}

glia_error* glia_nn_module_dict_set(glia_module* dict, const char* key, glia_module* module) {
  const char* fn = "glia_nn_module_dict_set";
  return guard([&] {
    auto* d = container_arg<nn::ModuleDict>(dict, fn, "dict", "ModuleDict");
    d->set(str_arg(key, fn, "key"), module_arg(module, fn, "module"));
  });
}

glia_error* glia_nn_module_dict_get(glia_module* dict, const char* key, glia_module** out) {
  const char* fn = "glia_nn_module_dict_get";
  return guard([&] {
    auto* d = container_arg<nn::ModuleDict>(dict, fn, "dict", "ModuleDict");
    std::string k = str_arg(key, fn, "key");
    check_out(out, fn, "out");
    *out = module_handle(d->get(k));
  });
}

glia_error* glia_nn_dict_key_at(const glia_module* dict, int64_t index, char* buffer, size_t capacity,
                                size_t* out_length) {
  const char* fn = "glia_nn_dict_key_at";
  return guard([&] {
    nn::Module* m = module_raw(dict, fn, "dict");
    std::vector<std::string> keys;
    if (dynamic_cast<nn::ModuleDict*>(m)) {
      for (const auto& c : m->local_children()) keys.push_back(c.name);
    } else if (dynamic_cast<nn::ParameterDict*>(m)) {
      for (const auto& p : m->local_parameters()) keys.push_back(p.name);
    } else {
      fail(Code::InvalidArgument, fn, ": argument 'dict' is a ", m->type_name(),
           ", expected a ModuleDict or ParameterDict");
    }
    GLIA_CHECK(index >= 0 && static_cast<size_t>(index) < keys.size(), InvalidArgument, fn, ": index ", index,
               " is out of range for a dict of size ", keys.size());
    check_string_out(buffer, capacity, out_length, fn);
    write_string(keys[static_cast<size_t>(index)], buffer, capacity, out_length);
  });
}

// ---- ParameterList ---------------------------------------------------------------------

glia_error* glia_nn_parameter_list(glia_tensor* const* params, int64_t n, glia_module** out) {
  const char* fn = "glia_nn_parameter_list";
  return guard([&] {
    GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument 'n' must be >= 0, got ", n);
    std::vector<Tensor> ps = tensors_arg(params, n, fn, "params");
    check_out(out, fn, "out");
    auto l = make_ref<nn::ParameterList>();
    for (auto& p : ps) l->append(p);
    *out = module_handle(l);
  });
}

glia_error* glia_nn_parameter_list_append(glia_module* list, glia_tensor* param) {
  const char* fn = "glia_nn_parameter_list_append";
  return guard([&] {
    auto* l = container_arg<nn::ParameterList>(list, fn, "list", "ParameterList");
    l->append(tensor_arg(param, fn, "param"));
  });
}

glia_error* glia_nn_parameter_list_get(glia_module* list, int64_t index, glia_tensor** out) {
  const char* fn = "glia_nn_parameter_list_get";
  return guard([&] {
    auto* l = container_arg<nn::ParameterList>(list, fn, "list", "ParameterList");
    check_out(out, fn, "out");
    *out = tensor_handle(l->at(index));
  });
}

glia_error* glia_nn_parameter_list_set(glia_module* list, int64_t index, glia_tensor* param) {
  const char* fn = "glia_nn_parameter_list_set";
  return guard([&] {
    auto* l = container_arg<nn::ParameterList>(list, fn, "list", "ParameterList");
    l->set(index, tensor_arg(param, fn, "param"));
  });
}

// ---- ParameterDict ---------------------------------------------------------------------

glia_error* glia_nn_parameter_dict(const char* const* keys, glia_tensor* const* params, int64_t n, glia_module** out) {
  const char* fn = "glia_nn_parameter_dict";
  return guard([&] {
    GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument 'n' must be >= 0, got ", n);
    GLIA_CHECK(keys || n == 0, InvalidArgument, fn, ": argument 'keys' is NULL");
    std::vector<Tensor> ps = tensors_arg(params, n, fn, "params");
    check_out(out, fn, "out");
    // torch's update() from a plain dict: sorted(items()) (the last duplicate wins, as in a dict).
    std::map<std::string, Tensor> sorted;
    for (int64_t i = 0; i < n; ++i) sorted[str_arg(keys[i], fn, "keys")] = ps[static_cast<size_t>(i)];
    auto d = make_ref<nn::ParameterDict>();
    for (auto& [k, p] : sorted) d->set(k, p);
    *out = module_handle(d);
  });
}

glia_error* glia_nn_parameter_dict_set(glia_module* dict, const char* key, glia_tensor* param) {
  const char* fn = "glia_nn_parameter_dict_set";
  return guard([&] {
    auto* d = container_arg<nn::ParameterDict>(dict, fn, "dict", "ParameterDict");
    std::string k = str_arg(key, fn, "key");
    d->set(k, tensor_arg(param, fn, "param"));
  });
}

glia_error* glia_nn_parameter_dict_get(glia_module* dict, const char* key, glia_tensor** out) {
  const char* fn = "glia_nn_parameter_dict_get";
  return guard([&] {
    auto* d = container_arg<nn::ParameterDict>(dict, fn, "dict", "ParameterDict");
    std::string k = str_arg(key, fn, "key");
    check_out(out, fn, "out");
    *out = tensor_handle(d->get(k));
  });
}

glia_error* glia_nn_container_len(const glia_module* container, int64_t* out) {
  const char* fn = "glia_nn_container_len";
  return guard([&] {
    nn::Module* m = module_raw(container, fn, "container");
    check_out(out, fn, "out");
    auto n = nn::container_len(*m);
    GLIA_CHECK(n, InvalidArgument, fn, ": argument 'container' is a ", m->type_name(),
               ", expected a Sequential, ModuleList, ModuleDict, ParameterList or ParameterDict");
    *out = static_cast<int64_t>(*n);
  });
}

}  // extern "C"
