// Module tensor attributes and torch.nn.utils' weight_norm, spectral_norm and
// convert_parameters behind the C ABI.
#include "capi/api.h"
#include "nn/utils/utils.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

glia_error* glia_module_set_tensor_attribute(glia_module* module, const char* name, const glia_tensor* tensor) {
  const char* fn = "glia_module_set_tensor_attribute";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    m->set_tensor_attribute(n, tensor_arg(tensor, fn, "tensor"));
  });
}

glia_error* glia_module_get_tensor_attribute(const glia_module* module, const char* name, glia_tensor** out) {
  const char* fn = "glia_module_get_tensor_attribute";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    check_out(out, fn, "out");
    const Tensor* t = m->find_tensor_attribute(n);
    GLIA_CHECK(t, NotFound, "'", m->type_name(), "' object has no attribute '", n, "'");
    *out = tensor_handle(*t);
  });
}

glia_error* glia_module_remove_tensor_attribute(glia_module* module, const char* name) {
  const char* fn = "glia_module_remove_tensor_attribute";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    GLIA_CHECK(m->remove_tensor_attribute(n), NotFound, "'", m->type_name(), "' object has no attribute '", n, "'");
  });
}

glia_error* glia_module_swap_tensor(glia_module* module, const char* name, const glia_tensor* tensor,
                                    glia_tensor** out_previous) {
  const char* fn = "glia_module_swap_tensor";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    std::string n = str_arg(name, fn, "name");
    Tensor t = tensor_opt(tensor, fn, "tensor");
    check_out(out_previous, fn, "out_previous");
    Tensor prev = m->swap_tensor(n, t);
    *out_previous = prev.defined() ? tensor_handle(prev) : nullptr;
  });
}

glia_error* glia_nn_utils_weight_norm(glia_module* module, const char* name, int64_t dim) {
  const char* fn = "glia_nn_utils_weight_norm";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    nn::utils::weight_norm(*m, str_arg(name, fn, "name"), dim);
  });
}

glia_error* glia_nn_utils_remove_weight_norm(glia_module* module, const char* name) {
  const char* fn = "glia_nn_utils_remove_weight_norm";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    nn::utils::remove_weight_norm(*m, str_arg(name, fn, "name"));
  });
}

glia_error* glia_nn_utils_spectral_norm(glia_module* module, const char* name, int64_t n_power_iterations, double eps,
                                        int32_t has_dim, int64_t dim) {
  const char* fn = "glia_nn_utils_spectral_norm";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    nn::utils::spectral_norm(*m, str_arg(name, fn, "name"), n_power_iterations, eps,
                             has_dim ? std::optional<int64_t>(dim) : std::nullopt);
  });
}

glia_error* glia_nn_utils_remove_spectral_norm(glia_module* module, const char* name) {
  const char* fn = "glia_nn_utils_remove_spectral_norm";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    nn::utils::remove_spectral_norm(*m, str_arg(name, fn, "name"));
  });
}

glia_error* glia_nn_utils_parameters_to_vector(glia_tensor* const* params, int64_t n_params, glia_tensor** out) {
  const char* fn = "glia_nn_utils_parameters_to_vector";
  return guard([&] {
    std::vector<Tensor> ps = tensors_arg(const_cast<const glia_tensor* const*>(params), n_params, fn, "params");
    check_out(out, fn, "out");
    *out = tensor_handle(nn::utils::parameters_to_vector(ps));
  });
}

glia_error* glia_nn_utils_vector_to_parameters(const glia_tensor* vec, glia_tensor* const* params, int64_t n_params) {
  const char* fn = "glia_nn_utils_vector_to_parameters";
  return guard([&] {
    Tensor v = tensor_arg(vec, fn, "vec");
    std::vector<Tensor> ps = tensors_arg(const_cast<const glia_tensor* const*>(params), n_params, fn, "params");
    nn::utils::vector_to_parameters(v, ps);
  });
}

}  // extern "C"
