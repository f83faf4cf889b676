// torch.nn.utils in C++: weight_norm / spectral_norm (the old-style hooks of
// torch.nn.utils.weight_norm and .spectral_norm) and convert_parameters.
// Both norms turn a parameter `name` into parameters/buffers the module keeps
// and a tensor attribute `name` (Note [Tensor attributes] in nn/module.cpp)
// that a forward pre-hook recomputes before every call.
#pragma once

#include <optional>
#include <string>

#include "nn/module.h"

namespace glia::nn::utils {

// torch.norm_except_dim(v, pow, dim): the norm over every dim but `dim`
// (dim == -1: over all dims, a 0-dim result).
Tensor norm_except_dim(const Tensor& v, double pow, int64_t dim);
// torch._weight_norm(v, g, dim) = v * (g / norm_except_dim(v, 2, dim)).
Tensor weight_norm_compute(const Tensor& v, const Tensor& g, int64_t dim);

// torch.nn.utils.weight_norm(module, name, dim) (dim None is -1): parameters
// name_g, name_v replace `name`. Errors: State "Cannot register two
// weight_norm hooks on the same parameter weight"; NotFound when `name` is
// no parameter. Nothing changes on error.
void weight_norm(Module& m, const std::string& name, int64_t dim);
// remove_weight_norm: `name` becomes a parameter again holding the computed
// weight. NotFound "weight_norm of 'weight' not found in Linear(...)".
void remove_weight_norm(Module& m, const std::string& name);

// torch.nn.utils.spectral_norm(module, name, n_power_iterations, eps, dim):
// parameter name_orig, buffers name_u, name_v (drawn from glia's generator as
// torch draws them); dim nullopt is 1 for ConvTranspose1d/2d/3d, else 0.
// Errors: State for a second spectral_norm on the name, InvalidArgument
// "Expected n_power_iterations to be positive, but got n_power_iterations=0".
void spectral_norm(Module& m, const std::string& name, int64_t n_power_iterations, double eps,
                   std::optional<int64_t> dim);
// remove_spectral_norm: NotFound "spectral_norm of 'weight' not found in ...".
void remove_spectral_norm(Module& m, const std::string& name);

// torch.nn.utils.parameters_to_vector: the parameters flattened and concatenated
// (differentiable). InvalidArgument "Found two parameters on different devices,
// this is currently not supported." Empty list: torch.cat's error.
Tensor parameters_to_vector(const TensorList& params);
// vector_to_parameters(vec, params): each parameter's data becomes the next
// slice of vec (torch's `param.data = vec[a:b].view_as(param).data`: the
// parameters alias vec's storage afterwards).
void vector_to_parameters(const Tensor& vec, const TensorList& params);

}  // namespace glia::nn::utils
