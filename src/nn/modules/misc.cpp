// Shared helpers of the built-in layers, and the shape and regularisation
// modules: Identity, Dropout, Flatten, Unflatten, Normalize.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "nn/modules/layers.h"

namespace glia::nn {

void check_param_shape(IntSpan shape) {
  for (int64_t s : shape) {
    if (s >= 0) continue;
    std::ostringstream os;
    os << "Trying to create tensor with negative dimension " << s << ": [";
    for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
    os << "]";
    fail(Code::InvalidArgument, os.str());
  }
}

TensorList Identity::forward(const TensorList& inputs) {
  check_num_inputs(inputs, 1);
  return {inputs[0]};
}

Dropout::Dropout(double p_) : Module("Dropout"), p(p_) {
  GLIA_CHECK(p >= 0 && p <= 1, InvalidArgument, "dropout probability has to be between 0 and 1, but got ", py_float(p));
}
TensorList Dropout::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {dropout(inputs[0], p, training_)};
}
std::string Dropout::extra_repr() const { return "p=" + py_float(p) + ", inplace=False"; }

Flatten::Flatten(int64_t s, int64_t e) : Module("Flatten"), start_dim(s), end_dim(e) {}
TensorList Flatten::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {flatten(inputs[0], start_dim, end_dim)};
}
std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

Unflatten::Unflatten(int64_t d, std::vector<int64_t> s) : Module("Unflatten"), dim(d), sizes(std::move(s)) {}
TensorList Unflatten::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {unflatten(inputs[0], dim, sizes)};
}
std::string Unflatten::extra_repr() const {
  std::string s = "dim=" + std::to_string(dim) + ", unflattened_size=(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

Normalize::Normalize(std::vector<double> m, std::vector<double> s)
    : Module("Normalize"), mean(std::move(m)), std(std::move(s)) {}
TensorList Normalize::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {normalize(inputs[0], mean, std)};
}
std::string Normalize::extra_repr() const {
  auto list = [](const std::vector<double>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + py_float(v[i]);
    return s + "]";
  };
  return "mean=" + list(mean) + ", std=" + list(std);
}

}  // namespace glia::nn
