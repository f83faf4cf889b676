// MaxPool1d, AvgPool1d, MaxPool3d, AvgPool3d, AdaptiveAvgPool1d, AdaptiveAvgPool3d.
#include "nn/modules/pool_extra.h"

#include "nn/repr.h"

namespace glia::nn {

namespace {

// torch keeps the pools' arguments as given (an int or a tuple); glia stores triples and prints an
// equal triple as one int (MaxPool3d(2) -> "kernel_size=2").
std::string int_or_triple(const int64_t* p) {
  if (p[0] == p[1] && p[1] == p[2]) return std::to_string(p[0]);
  return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " + std::to_string(p[2]) + ")";
}

// AvgPool1d keeps _single(...) tuples: "(2,)".
std::string single(int64_t v) { return "(" + std::to_string(v) + ",)"; }

void resolve_stride(int64_t* stride, const int64_t* kernel) {
  if (stride[0] == 0 && stride[1] == 0 && stride[2] == 0)
    for (int a = 0; a < 3; ++a) stride[a] = kernel[a];
}

}  // namespace

MaxPool1d::MaxPool1d(const MaxPool1dOptions& o) : Module("MaxPool1d"), options(o) {
  if (options.stride == 0) options.stride = options.kernel_size;
}
TensorList MaxPool1d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {max_pool1d(inputs[0], options)};
}
std::string MaxPool1d::extra_repr() const {
  return "kernel_size=" + std::to_string(options.kernel_size) + ", stride=" + std::to_string(options.stride) +
         ", padding=" + std::to_string(options.padding) + ", dilation=" + std::to_string(options.dilation) +
         ", ceil_mode=" + py_bool(options.ceil_mode);
}

AvgPool1d::AvgPool1d(const AvgPool1dOptions& o) : Module("AvgPool1d"), options(o) {
  if (options.stride == 0) options.stride = options.kernel_size;
}
TensorList AvgPool1d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {avg_pool1d(inputs[0], options)};
}
std::string AvgPool1d::extra_repr() const {
  return "kernel_size=" + single(options.kernel_size) + ", stride=" + single(options.stride) +
         ", padding=" + single(options.padding);
}

MaxPool3d::MaxPool3d(const MaxPool3dOptions& o) : Module("MaxPool3d"), options(o) {
  resolve_stride(options.stride, options.kernel_size);
}
TensorList MaxPool3d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {max_pool3d(inputs[0], options)};
}
std::string MaxPool3d::extra_repr() const {
  return "kernel_size=" + int_or_triple(options.kernel_size) + ", stride=" + int_or_triple(options.stride) +
         ", padding=" + int_or_triple(options.padding) + ", dilation=" + int_or_triple(options.dilation) +
         ", ceil_mode=" + py_bool(options.ceil_mode);
}

AvgPool3d::AvgPool3d(const AvgPool3dOptions& o) : Module("AvgPool3d"), options(o) {
  resolve_stride(options.stride, options.kernel_size);
}
TensorList AvgPool3d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {avg_pool3d(inputs[0], options)};
}
std::string AvgPool3d::extra_repr() const {
  return "kernel_size=" + int_or_triple(options.kernel_size) + ", stride=" + int_or_triple(options.stride) +
         ", padding=" + int_or_triple(options.padding);
}

AdaptiveAvgPool1d::AdaptiveAvgPool1d(int64_t out_l) : Module("AdaptiveAvgPool1d"), output_size(out_l) {}
TensorList AdaptiveAvgPool1d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {adaptive_avg_pool1d(inputs[0], output_size)};
}
std::string AdaptiveAvgPool1d::extra_repr() const { return "output_size=" + std::to_string(output_size); }

AdaptiveAvgPool3d::AdaptiveAvgPool3d(std::optional<int64_t> t, std::optional<int64_t> h, std::optional<int64_t> w)
    : Module("AdaptiveAvgPool3d"), output_size{t, h, w} {}
TensorList AdaptiveAvgPool3d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  int64_t s[3];
  for (int a = 0; a < 3; ++a) s[a] = output_size[a] ? *output_size[a] : (x.dim() >= 3 ? x.size(a - 3) : 0);
  return {adaptive_avg_pool3d(x, s[0], s[1], s[2])};
}
std::string AdaptiveAvgPool3d::extra_repr() const {
  auto one = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("None"); };
  if (output_size[0] == output_size[1] && output_size[1] == output_size[2]) return "output_size=" + one(output_size[0]);
  return "output_size=(" + one(output_size[0]) + ", " + one(output_size[1]) + ", " + one(output_size[2]) + ")";
}

}  // namespace glia::nn
