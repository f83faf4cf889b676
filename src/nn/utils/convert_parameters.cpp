// torch.nn.utils.parameters_to_vector / vector_to_parameters (torch/nn/utils/convert_parameters.py).
#include "autograd/fn/index.h"
#include "autograd/fn/shape.h"
#include "nn/utils/utils.h"

namespace glia::nn::utils {

namespace {

void check_same_device(const TensorList& params) {
  for (const Tensor& p : params) {
    GLIA_CHECK(p.defined(), InvalidArgument, "parameters_to_vector: a parameter is None");
    GLIA_CHECK(p.device() == params[0].device(), InvalidArgument,
               "Found two parameters on different devices, this is currently not supported.");
  }
}

}  // namespace

Tensor parameters_to_vector(const TensorList& params) {
  check_same_device(params);
  std::vector<Tensor> flat;
  flat.reserve(params.size());
  for (const Tensor& p : params) flat.push_back(view(p, Dims{-1}));
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const TensorList& params) {
  check_same_device(params);
  // Every view first, so a vector too short changes no parameter.
  std::vector<Tensor> parts;
  parts.reserve(params.size());
  int64_t at = 0;
  for (const Tensor& p : params) {
    const int64_t n = p.numel();
    parts.push_back(detach(view(slice(vec, 0, at, at + n), p.shape())));
    at += n;
  }
  for (size_t i = 0; i < params.size(); ++i) params[i].impl()->set_data(*parts[i].impl());
}

}  // namespace glia::nn::utils
