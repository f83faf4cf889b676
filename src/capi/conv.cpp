// Convolution and pooling: conv2d, conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d.
#include <cstddef>

#include "autograd/functions.h"
#include "capi/api.h"
#include "capi/options.h"

using namespace glia;
using namespace glia::capi;

namespace {}  // namespace

extern "C" {

void glia_conv2d_options_init(glia_conv2d_options* o) {
  if (!o) return;
  *o = glia_conv2d_options{};
  o->struct_size = sizeof(*o);
  o->stride[0] = o->stride[1] = 1;
  o->dilation[0] = o->dilation[1] = 1;
  o->groups = 1;
  o->padding_kind = GLIA_PADDING_EXPLICIT;
}

void glia_conv_transpose2d_options_init(glia_conv_transpose2d_options* o) {
  if (!o) return;
  *o = glia_conv_transpose2d_options{};
  o->struct_size = sizeof(*o);
  o->stride[0] = o->stride[1] = 1;
  o->dilation[0] = o->dilation[1] = 1;
  o->groups = 1;
}

void glia_max_pool2d_options_init(glia_max_pool2d_options* o) {
  if (!o) return;
  *o = glia_max_pool2d_options{};
  o->struct_size = sizeof(*o);
  o->kernel_size[0] = o->kernel_size[1] = 1;
  o->dilation[0] = o->dilation[1] = 1;
}

void glia_avg_pool2d_options_init(glia_avg_pool2d_options* o) {
  if (!o) return;
  *o = glia_avg_pool2d_options{};
  o->struct_size = sizeof(*o);
  o->kernel_size[0] = o->kernel_size[1] = 1;
  o->count_include_pad = 1;
}

glia_error* glia_conv2d(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                        const glia_conv2d_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_conv2d";
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    Conv2dOptions o;
    if (options) {
      check_struct_size(options, fn, "glia_conv2d_options_init");
      GLIA_READ_PAIR(options, stride, o.stride);
      GLIA_READ_PAIR(options, padding, o.padding);
      GLIA_READ_PAIR(options, dilation, o.dilation);
      GLIA_READ(options, groups, o.groups);
      if (GLIA_COVERS(options, padding_kind)) {
        int m = static_cast<int>(options->padding_kind);
        GLIA_CHECK(m >= 0 && m <= 2, InvalidArgument, fn, ": options->padding_kind ", m, " is not a glia_padding_kind");
        o.padding_mode = m;
      }
    }
    *out = tensor_handle(conv2d(xt, w, b, o));
  });
}

glia_error* glia_conv_transpose2d(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                                  const glia_conv_transpose2d_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_conv_transpose2d";
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    ConvTranspose2dOptions o;
    if (options) {
      check_struct_size(options, fn, "glia_conv_transpose2d_options_init");
      GLIA_READ_PAIR(options, stride, o.stride);
      GLIA_READ_PAIR(options, padding, o.padding);
      GLIA_READ_PAIR(options, output_padding, o.output_padding);
      GLIA_READ(options, groups, o.groups);
      GLIA_READ_PAIR(options, dilation, o.dilation);
    }
    *out = tensor_handle(conv_transpose2d(xt, w, b, o));
  });
}

glia_error* glia_max_pool2d(const glia_tensor* x, const glia_max_pool2d_options* options, glia_tensor** out,
                            glia_tensor** out_indices) {
  return guard([&] {
    const char* fn = "glia_max_pool2d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    MaxPool2dOptions o = max_pool2d_options_arg(options, fn);
    Tensor idx;
    Tensor y = max_pool2d(xt, o, out_indices ? &idx : nullptr);
    glia_tensor* hy = tensor_handle(y);
    if (out_indices) *out_indices = tensor_handle(idx);
    *out = hy;
  });
}

glia_error* glia_avg_pool2d(const glia_tensor* x, const glia_avg_pool2d_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_avg_pool2d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    AvgPool2dOptions o = avg_pool2d_options_arg(options, fn);
    *out = tensor_handle(avg_pool2d(xt, o));
  });
}

glia_error* glia_adaptive_avg_pool2d(const glia_tensor* x, int64_t out_h, int64_t out_w, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_adaptive_avg_pool2d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(adaptive_avg_pool2d(xt, out_h, out_w));
  });
}

}  // extern "C"

MaxPool2dOptions glia::capi::max_pool2d_options_arg(const glia_max_pool2d_options* options, const char* fn) {
  MaxPool2dOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_max_pool2d_options_init");
  GLIA_READ_PAIR(options, kernel_size, o.kernel_size);
  GLIA_READ_PAIR(options, stride, o.stride);
  GLIA_READ_PAIR(options, padding, o.padding);
  GLIA_READ_PAIR(options, dilation, o.dilation);
  GLIA_READ_FLAG(options, ceil_mode, o.ceil_mode);
  return o;
}

AvgPool2dOptions glia::capi::avg_pool2d_options_arg(const glia_avg_pool2d_options* options, const char* fn) {
  AvgPool2dOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_avg_pool2d_options_init");
  GLIA_READ_PAIR(options, kernel_size, o.kernel_size);
  GLIA_READ_PAIR(options, stride, o.stride);
  GLIA_READ_PAIR(options, padding, o.padding);
  GLIA_READ_FLAG(options, ceil_mode, o.ceil_mode);
  GLIA_READ_FLAG(options, count_include_pad, o.count_include_pad);
  GLIA_READ(options, divisor_override, o.divisor_override);
  return o;
}
