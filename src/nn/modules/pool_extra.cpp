// MaxPool1d, AvgPool1d, MaxPool3d, AvgPool3d, AdaptiveAvgPool1d, AdaptiveAvgPool3d.
#include "nn/modules/pool_extra.h"

#include <cmath>

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

AdaptiveMaxPool::AdaptiveMaxPool(Dims sizes, std::vector<bool> g)
    : Module(sizes.size() == 1   ? "AdaptiveMaxPool1d"
             : sizes.size() == 2 ? "AdaptiveMaxPool2d"
                                 : "AdaptiveMaxPool3d"),
      output_size(std::move(sizes)),
      given(std::move(g)) {}
TensorList AdaptiveMaxPool::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  const int64_t sd = static_cast<int64_t>(output_size.size());
  int64_t s[3];
  for (int64_t a = 0; a < sd; ++a) s[a] = given[a] ? output_size[a] : (x.dim() >= sd ? x.size(a - sd) : 0);
  if (sd == 1) return {adaptive_max_pool1d(x, s[0])};
  if (sd == 2) return {adaptive_max_pool2d(x, s[0], s[1])};
  return {adaptive_max_pool3d(x, s[0], s[1], s[2])};
}
std::string AdaptiveMaxPool::extra_repr() const {
  auto one = [&](size_t a) { return given[a] ? std::to_string(output_size[a]) : std::string("None"); };
  bool same = true;
  for (size_t a = 1; a < output_size.size(); ++a) same = same && one(a) == one(0);
  if (same) return "output_size=" + one(0);
  std::string r = "output_size=(";
  for (size_t a = 0; a < output_size.size(); ++a) {
    if (a) r += ", ";
    r += one(a);
  }
  return r + ")";
}

LPPool::LPPool(int d, double p, const int64_t k[2], const int64_t s[2], bool c)
    : Module(d == 1 ? "LPPool1d" : "LPPool2d"),
      dims(d),
      norm_type(p),
      kernel_size{k[0], k[1]},
      stride{s[0], s[1]},
      ceil_mode(c) {}
TensorList LPPool::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  if (dims == 1) return {lp_pool1d(inputs[0], norm_type, kernel_size[0], stride[0], ceil_mode)};
  return {lp_pool2d(inputs[0], norm_type, kernel_size, stride, ceil_mode)};
}
std::string LPPool::extra_repr() const {
  // torch prints the arguments as given; glia prints an integral norm_type as an int and pairs of equal
  // sizes as one int.
  auto size = [&](const int64_t* v) {
    if (dims == 1 || v[0] == v[1]) return std::to_string(v[0]);
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ")";
  };
  const std::string p = norm_type == std::floor(norm_type) && std::fabs(norm_type) < 1e15
                            ? std::to_string(static_cast<int64_t>(norm_type))
                            : py_float(norm_type);
  const bool none = stride[0] == 0 && (dims == 1 || stride[1] == 0);
  return "norm_type=" + p + ", kernel_size=" + size(kernel_size) + ", stride=" + (none ? "None" : size(stride)) +
         ", ceil_mode=" + py_bool(ceil_mode);
}

}  // namespace glia::nn
