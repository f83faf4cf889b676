// Removing module members and container elements (torch's __delattr__,
// __delitem__, pop, clear) and the non-recursive training flag.
#include "capi/api.h"
#include "nn/modules/container.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class C>
C* container_of(const glia_module* h, const char* fn, const char* arg, const char* cls) {
  nn::Module* m = module_raw(h, fn, arg);
  auto* c = dynamic_cast<C*>(m);
  GLIA_CHECK(c, InvalidArgument, fn, ": argument '", arg, "' is a ", m->type_name(), ", expected a ", cls);
  return c;
}

// Writes the popped module to *out when out is not NULL.
void write_popped(const nn::ModuleRef& m, glia_module** out) {
  if (out) *out = module_handle(m);
}

}  // namespace

extern "C" {

glia_error* glia_module_remove(glia_module* module, const char* name) {
  const char* fn = "glia_module_remove";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    GLIA_CHECK(m->remove(n), NotFound, "'", m->type_name(), "' object has no attribute '", n, "'");
  });
}

glia_error* glia_module_set_training(glia_module* module, int32_t mode) {
  return guard([&] { module_raw(module, "glia_module_set_training", "module")->set_training(mode != 0); });
}

glia_error* glia_nn_sequential_pop(glia_module* seq, int64_t index, glia_module** out) {
  const char* fn = "glia_nn_sequential_pop";
  return guard([&] {
    auto* s = container_of<nn::Sequential>(seq, fn, "seq", "Sequential");
    write_popped(s->pop(index), out);
  });
}

glia_error* glia_nn_module_list_pop(glia_module* list, int64_t index, glia_module** out) {
  const char* fn = "glia_nn_module_list_pop";
  return guard([&] {
    auto* l = container_of<nn::ModuleList>(list, fn, "list", "ModuleList");
    write_popped(l->pop(index), out);
  });
}

glia_error* glia_nn_module_dict_pop(glia_module* dict, const char* key, glia_module** out) {
  const char* fn = "glia_nn_module_dict_pop";
  return guard([&] {
    auto* d = container_of<nn::ModuleDict>(dict, fn, "dict", "ModuleDict");
    std::string k = str_arg(key, fn, "key");
    write_popped(d->pop(k), out);
  });
}

glia_error* glia_nn_parameter_dict_pop(glia_module* dict, const char* key, glia_tensor** out) {
  const char* fn = "glia_nn_parameter_dict_pop";
  return guard([&] {
    auto* d = container_of<nn::ParameterDict>(dict, fn, "dict", "ParameterDict");
    std::string k = str_arg(key, fn, "key");
    Tensor t = d->pop(k);
    if (out) *out = t.defined() ? tensor_handle(t) : nullptr;
  });
}

glia_error* glia_nn_dict_clear(glia_module* dict) {
  const char* fn = "glia_nn_dict_clear";
  return guard([&] {
    nn::Module* m = module_raw(dict, fn, "dict");
    if (auto* md = dynamic_cast<nn::ModuleDict*>(m))
      md->clear();
    else if (auto* pd = dynamic_cast<nn::ParameterDict*>(m))
      pd->clear();
    else
      fail(Code::InvalidArgument, fn, ": argument 'dict' is a ", m->type_name(),
           ", expected a ModuleDict or ParameterDict");
  });
}

}  // extern "C"
