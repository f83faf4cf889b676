// Conv1d, Conv3d, ConvTranspose1d, ConvTranspose3d (torch's _ConvNd), Unfold, Fold.
#include "nn/modules/convnd.h"

#include <cmath>

#include "core/checked.h"
#include "nn/init.h"

namespace glia::nn {

namespace {

// Python's tuple repr of the first n values: "(3,)", "(1, 2, 3)".
std::string tuple(const int64_t* v, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s += n == 1 ? ",)" : ")";
}
bool all_eq(const int64_t* v, int n, int64_t x) {
  for (int i = 0; i < n; ++i)
    if (v[i] != x) return false;
  return true;
}
// torch's F.unfold / nn.Fold argument repr: an int when both are equal (glia keeps pairs).
std::string int_or_pair(const int64_t* v) { return v[0] == v[1] ? std::to_string(v[0]) : tuple(v, 2); }

const char* conv_name(int nd, bool transposed) {
  if (transposed) return nd == 1 ? "ConvTranspose1d" : "ConvTranspose3d";
  return nd == 1 ? "Conv1d" : "Conv3d";
}

}  // namespace

ConvNd::ConvNd(int nd_, bool transposed_, int64_t in, int64_t out, const ConvNdArgs& a, const Factory& f)
    : Module(conv_name(nd_, transposed_)),
      nd(nd_),
      transposed(transposed_),
      in_channels(in),
      out_channels(out),
      args(a) {
  GLIA_CHECK(a.groups > 0, InvalidArgument, "groups must be a positive integer");
  GLIA_CHECK(in % a.groups == 0, InvalidArgument, "in_channels must be divisible by groups");
  GLIA_CHECK(out % a.groups == 0, InvalidArgument, "out_channels must be divisible by groups");
  if (!transposed) {
    GLIA_CHECK(a.padding_kind >= 0 && a.padding_kind <= 2, InvalidArgument,
               "Invalid padding string, should be one of {'valid', 'same'}");
    if (a.padding_kind == 2)
      GLIA_CHECK(all_eq(a.stride, nd, 1), InvalidArgument, "padding='same' is not supported for strided convolutions");
    if (a.padding_kind != 0) args.padding[0] = args.padding[1] = args.padding[2] = 0;
  } else {
    GLIA_CHECK(a.padding_mode == ConvPadMode::Zeros, InvalidArgument, "Only \"zeros\" padding mode is supported for ",
               type_name());
  }
  Dims shape{transposed ? in : out, transposed ? out / a.groups : in / a.groups};
  for (int i = 0; i < nd; ++i) shape.push_back(a.kernel_size[i]);
  check_param_shape(shape);
  register_parameter("weight", empty(shape, f.dtype, f.device));
  register_parameter("bias", a.bias ? empty(Dims{out}, f.dtype, f.device) : Tensor());
  maybe_reset(*this);
}

// _ConvNd.reset_parameters: kaiming_uniform_(a=sqrt(5)), bias uniform(+-1/sqrt(fan_in)).
void ConvNd::reset_parameters() {
  const Tensor& w = param("weight");
  init::kaiming_uniform_(w, std::sqrt(5.0));
  if (const Tensor& b = param("bias"); b.defined() && b.numel() > 0) {
    double bound = init::bias_bound(w);
    init::uniform_(b, -bound, bound);
  }
}

TensorList ConvNd::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor &w = param("weight"), &b = param("bias");
  if (transposed) {
    ConvTransposeNdOptions o;
    for (int i = 0; i < 3; ++i) {
      o.stride[i] = args.stride[i];
      o.padding[i] = args.padding[i];
      o.output_padding[i] = args.output_padding[i];
      o.dilation[i] = args.dilation[i];
    }
    o.groups = args.groups;
    return {nd == 1 ? conv_transpose1d(inputs[0], w, b, o) : conv_transpose3d(inputs[0], w, b, o)};
  }
  ConvNdOptions o;
  for (int i = 0; i < 3; ++i) {
    o.stride[i] = args.stride[i];
    o.padding[i] = args.padding[i];
    o.dilation[i] = args.dilation[i];
  }
  o.groups = args.groups;
  o.padding_mode = args.padding_kind;
  Tensor x = inputs[0];
  if (args.padding_mode != ConvPadMode::Zeros) {
    // torch's _conv_forward: F.pad with padding_mode by _reversed_padding_repeated_twice, then an
    // unpadded convolution (as Conv2d::forward).
    int64_t reversed[6];
    for (int d = 0; d < nd; ++d) {
      int64_t lo = args.padding[d], hi = args.padding[d];
      if (args.padding_kind == 2) {
        int64_t total = (Checked(args.dilation[d], "conv") * (Checked(args.kernel_size[d]) - 1)).value();
        lo = total / 2;
        hi = total - lo;
      }
      reversed[2 * (nd - 1 - d)] = lo;
      reversed[2 * (nd - 1 - d) + 1] = hi;
    }
    x = pad(x, IntSpan(reversed, static_cast<size_t>(2 * nd)), static_cast<PadMode>(args.padding_mode));
    o.padding[0] = o.padding[1] = o.padding[2] = 0;
    o.padding_mode = 0;
  }
  return {nd == 1 ? conv1d(x, w, b, o) : conv3d(x, w, b, o)};
}

std::string ConvNd::extra_repr() const {
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + tuple(args.kernel_size, nd) + ", stride=" + tuple(args.stride, nd);
  if (args.padding_kind == 1)
    s += ", padding=valid";
  else if (args.padding_kind == 2)
    s += ", padding=same";
  else if (!all_eq(args.padding, nd, 0))
    s += ", padding=" + tuple(args.padding, nd);
  if (!all_eq(args.dilation, nd, 1)) s += ", dilation=" + tuple(args.dilation, nd);
  if (transposed && !all_eq(args.output_padding, nd, 0)) s += ", output_padding=" + tuple(args.output_padding, nd);
  if (args.groups != 1) s += ", groups=" + std::to_string(args.groups);
  if (!param("bias").defined()) s += ", bias=False";
  static const char* modes[] = {"zeros", "reflect", "replicate", "circular"};
  if (args.padding_mode != ConvPadMode::Zeros)
    s += std::string(", padding_mode=") + modes[static_cast<int>(args.padding_mode)];
  return s;
}

Unfold::Unfold(const FoldOptions& o) : Module("Unfold"), options(o) {}

TensorList Unfold::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {im2col(inputs[0], options)};
}

std::string Unfold::extra_repr() const {
  return "kernel_size=" + int_or_pair(options.kernel_size) + ", dilation=" + int_or_pair(options.dilation) +
         ", padding=" + int_or_pair(options.padding) + ", stride=" + int_or_pair(options.stride);
}

Fold::Fold(int64_t h, int64_t w, const FoldOptions& o) : Module("Fold"), out_h(h), out_w(w), options(o) {}

TensorList Fold::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {col2im(inputs[0], out_h, out_w, options)};
}

std::string Fold::extra_repr() const {
  const int64_t os[2] = {out_h, out_w};
  return "output_size=" + int_or_pair(os) + ", kernel_size=" + int_or_pair(options.kernel_size) +
         ", dilation=" + int_or_pair(options.dilation) + ", padding=" + int_or_pair(options.padding) +
         ", stride=" + int_or_pair(options.stride);
}

}  // namespace glia::nn
