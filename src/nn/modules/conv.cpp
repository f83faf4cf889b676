// Conv2d and ConvTranspose2d (torch's _ConvNd).
#include <cmath>

#include "core/checked.h"
#include "nn/init.h"
#include "nn/modules/layers.h"

namespace glia::nn {

namespace {

void check_groups(int64_t in, int64_t out, int64_t groups) {
  GLIA_CHECK(groups > 0, InvalidArgument, "groups must be a positive integer");
  GLIA_CHECK(in % groups == 0, InvalidArgument, "in_channels must be divisible by groups");
  GLIA_CHECK(out % groups == 0, InvalidArgument, "out_channels must be divisible by groups");
}

std::string pair(const int64_t* p) {
  std::string s = "(";
  s += std::to_string(p[0]);
  s += ", ";
  s += std::to_string(p[1]);
  return s += ")";
}
bool all_eq(const int64_t* p, int64_t v) { return p[0] == v && p[1] == v; }

// _ConvNd.reset_parameters: kaiming_uniform_(a=sqrt(5)), bias uniform(+-1/sqrt(fan_in)).
void reset_conv(Module& m) {
  const Tensor& w = m.param("weight");
  init::kaiming_uniform_(w, std::sqrt(5.0));
  if (const Tensor& b = m.param("bias"); b.defined() && b.numel() > 0) {
    double bound = init::bias_bound(w);
    init::uniform_(b, -bound, bound);
  }
}

// The part of _ConvNd.extra_repr after "in, out, kernel_size=..., stride=...".
std::string conv_repr_head(int64_t in, int64_t out, const int64_t* k, const int64_t* s) {
  return std::to_string(in) + ", " + std::to_string(out) + ", kernel_size=" + pair(k) + ", stride=" + pair(s);
}

}  // namespace

Conv2d::Conv2d(int64_t in, int64_t out, const Conv2dArgs& a, const Factory& f)
    : Module("Conv2d"), in_channels(in), out_channels(out), args(a) {
  check_groups(in, out, a.groups);
  GLIA_CHECK(a.padding_kind >= 0 && a.padding_kind <= 2, InvalidArgument,
             "Invalid padding string, should be one of {'valid', 'same'}");
  if (a.padding_kind == 2)
    GLIA_CHECK(a.stride[0] == 1 && a.stride[1] == 1, InvalidArgument,
               "padding='same' is not supported for strided convolutions");
  if (a.padding_kind != 0) args.padding[0] = args.padding[1] = 0;
  Dims shape{out, a.groups > 0 ? in / a.groups : in, a.kernel_size[0], a.kernel_size[1]};
  check_param_shape(shape);
  register_parameter("weight", empty(shape, f.dtype, f.device));
  register_parameter("bias", a.bias ? empty(Dims{out}, f.dtype, f.device) : Tensor());
  maybe_reset(*this);
}

void Conv2d::reset_parameters() { reset_conv(*this); }

TensorList Conv2d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  Conv2dOptions o;
  for (int d = 0; d < 2; ++d) {
    o.stride[d] = args.stride[d];
    o.dilation[d] = args.dilation[d];
    o.padding[d] = args.padding[d];
  }
  o.groups = args.groups;
  o.padding_mode = args.padding_kind;
  if (args.padding_mode == ConvPadMode::Zeros) return {conv2d(inputs[0], param("weight"), param("bias"), o)};
  // torch's _conv_forward: F.pad with padding_mode by _reversed_padding_repeated_twice (left, right,
  // top, bottom), then an unpadded convolution. Worked out here, checked: torch builds a Conv2d
  // whose "same" padding d * (k - 1) overflows an int64 (the capi fuzzer's regress-conv2d-same-
  // overflow: signed overflow in the constructor) and fails in forward.
  int64_t reversed_padding[4];
  for (int d = 0; d < 2; ++d) {
    int64_t lo = args.padding[d], hi = args.padding[d];
    if (args.padding_kind == 2) {
      int64_t total = (Checked(args.dilation[d], "Conv2d") * (Checked(args.kernel_size[d]) - 1)).value();
      lo = total / 2;
      hi = total - lo;
    }
    reversed_padding[2 * (1 - d)] = lo;
    reversed_padding[2 * (1 - d) + 1] = hi;
  }
  Tensor x = pad(inputs[0], IntSpan(reversed_padding, 4), static_cast<PadMode>(args.padding_mode));
  o.padding[0] = o.padding[1] = 0;
  o.padding_mode = 0;
  return {conv2d(x, param("weight"), param("bias"), o)};
}

std::string Conv2d::extra_repr() const {
  std::string s = conv_repr_head(in_channels, out_channels, args.kernel_size, args.stride);
  if (args.padding_kind == 1)
    s += ", padding=valid";
  else if (args.padding_kind == 2)
    s += ", padding=same";
  else if (!all_eq(args.padding, 0))
    s += ", padding=" + pair(args.padding);
  if (!all_eq(args.dilation, 1)) s += ", dilation=" + pair(args.dilation);
  if (args.groups != 1) s += ", groups=" + std::to_string(args.groups);
  if (!param("bias").defined()) s += ", bias=False";
  static const char* modes[] = {"zeros", "reflect", "replicate", "circular"};
  if (args.padding_mode != ConvPadMode::Zeros)
    s += std::string(", padding_mode=") + modes[static_cast<int>(args.padding_mode)];
  return s;
}

ConvTranspose2d::ConvTranspose2d(int64_t in, int64_t out, const ConvTranspose2dArgs& a, const Factory& f)
    : Module("ConvTranspose2d"), in_channels(in), out_channels(out), args(a) {
  check_groups(in, out, a.groups);
  Dims shape{in, a.groups > 0 ? out / a.groups : out, a.kernel_size[0], a.kernel_size[1]};
  check_param_shape(shape);
  register_parameter("weight", empty(shape, f.dtype, f.device));
  register_parameter("bias", a.bias ? empty(Dims{out}, f.dtype, f.device) : Tensor());
  maybe_reset(*this);
}

void ConvTranspose2d::reset_parameters() { reset_conv(*this); }

TensorList ConvTranspose2d::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  ConvTranspose2dOptions o;
  for (int d = 0; d < 2; ++d) {
    o.stride[d] = args.stride[d];
    o.padding[d] = args.padding[d];
    o.output_padding[d] = args.output_padding[d];
    o.dilation[d] = args.dilation[d];
  }
  o.groups = args.groups;
  return {conv_transpose2d(inputs[0], param("weight"), param("bias"), o)};
}

std::string ConvTranspose2d::extra_repr() const {
  std::string s = conv_repr_head(in_channels, out_channels, args.kernel_size, args.stride);
  if (!all_eq(args.padding, 0)) s += ", padding=" + pair(args.padding);
  if (!all_eq(args.dilation, 1)) s += ", dilation=" + pair(args.dilation);
  if (!all_eq(args.output_padding, 0)) s += ", output_padding=" + pair(args.output_padding);
  if (args.groups != 1) s += ", groups=" + std::to_string(args.groups);
  if (!param("bias").defined()) s += ", bias=False";
  return s;
}

}  // namespace glia::nn
