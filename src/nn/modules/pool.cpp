// MaxPool2d, AvgPool2d, AdaptiveAvgPool2d.
#include "nn/modules/layers.h"

namespace glia::nn {

namespace {

// torch keeps the pools' arguments as given (an int or a tuple); glia stores
// pairs and prints an equal pair as one int (MaxPool2d(2) -> "kernel_size=2").
std::string int_or_pair(const int64_t* p) {
  if (p[0] == p[1]) return std::to_string(p[0]);
  std::string s = "(";
  s += std::to_string(p[0]);
  s += ", ";
  s += std::to_string(p[1]);
  return s += ")";
}

}  // namespace

MaxPool2d::MaxPool2d(const MaxPool2dOptions& o) : Module("MaxPool2d"), options(o) {
  if (options.stride[0] == 0 && options.stride[1] == 0) {
    options.stride[0] = options.kernel_size[0];
    options.stride[1] = options.kernel_size[1];
  }
}
TensorList MaxPool2d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {max_pool2d(inputs[0], options)};
}
std::string MaxPool2d::extra_repr() const {
  return "kernel_size=" + int_or_pair(options.kernel_size) + ", stride=" + int_or_pair(options.stride) +
         ", padding=" + int_or_pair(options.padding) + ", dilation=" + int_or_pair(options.dilation) +
         ", ceil_mode=" + py_bool(options.ceil_mode);
}

AvgPool2d::AvgPool2d(const AvgPool2dOptions& o) : Module("AvgPool2d"), options(o) {
  if (options.stride[0] == 0 && options.stride[1] == 0) {
    options.stride[0] = options.kernel_size[0];
    options.stride[1] = options.kernel_size[1];
  }
}
TensorList AvgPool2d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {avg_pool2d(inputs[0], options)};
}
std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + int_or_pair(options.kernel_size) + ", stride=" + int_or_pair(options.stride) +
         ", padding=" + int_or_pair(options.padding);
}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(std::optional<int64_t> h, std::optional<int64_t> w)
    : Module("AdaptiveAvgPool2d"), output_size{h, w} {}
TensorList AdaptiveAvgPool2d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  int64_t h = output_size[0] ? *output_size[0] : (x.dim() >= 2 ? x.size(-2) : 0);
  int64_t w = output_size[1] ? *output_size[1] : (x.dim() >= 2 ? x.size(-1) : 0);
  return {adaptive_avg_pool2d(x, h, w)};
}
std::string AdaptiveAvgPool2d::extra_repr() const {
  auto one = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("None"); };
  if (output_size[0] == output_size[1]) return "output_size=" + one(output_size[0]);
  return "output_size=(" + one(output_size[0]) + ", " + one(output_size[1]) + ")";
}

}  // namespace glia::nn
