// Convolutions 1d/3d and fold/unfold: glia_conv1d, glia_conv3d, glia_conv_transpose1d,
// glia_conv_transpose3d, glia_im2col (F.unfold), glia_col2im (F.fold) and their modules (glia_nn_*).
#include "nn/modules/convnd.h"

#include <cstddef>

#include "autograd/functions.h"
#include "capi/api.h"
#include "capi/options.h"

using namespace glia;
using namespace glia::capi;

#define GLIA_READ_TRIPLE(o, field, dst) \
  if (GLIA_COVERS(o, field)) {          \
    (dst)[0] = (o)->field[0];           \
    (dst)[1] = (o)->field[1];           \
    (dst)[2] = (o)->field[2];           \
  }

namespace {

ConvNdOptions convnd_arg(const glia_convnd_options* options, const char* fn) {
  ConvNdOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_convnd_options_init");
  GLIA_READ_TRIPLE(options, stride, o.stride);
  GLIA_READ_TRIPLE(options, padding, o.padding);
  GLIA_READ_TRIPLE(options, dilation, o.dilation);
  GLIA_READ(options, groups, o.groups);
  if (GLIA_COVERS(options, padding_kind)) {
    int m = static_cast<int>(options->padding_kind);
    GLIA_CHECK(m >= 0 && m <= 2, InvalidArgument, fn, ": options->padding_kind ", m, " is not a glia_padding_kind");
    o.padding_mode = m;
  }
  return o;
}

ConvTransposeNdOptions conv_transposend_arg(const glia_conv_transposend_options* options, const char* fn) {
  ConvTransposeNdOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_conv_transposend_options_init");
  GLIA_READ_TRIPLE(options, stride, o.stride);
  GLIA_READ_TRIPLE(options, padding, o.padding);
  GLIA_READ_TRIPLE(options, output_padding, o.output_padding);
  GLIA_READ(options, groups, o.groups);
  GLIA_READ_TRIPLE(options, dilation, o.dilation);
  return o;
}

FoldOptions fold_arg(const glia_fold_options* options, const char* fn) {
  FoldOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_fold_options_init");
  GLIA_READ_PAIR(options, kernel_size, o.kernel_size);
  GLIA_READ_PAIR(options, dilation, o.dilation);
  GLIA_READ_PAIR(options, padding, o.padding);
  GLIA_READ_PAIR(options, stride, o.stride);
  return o;
}

template <class F>
glia_error* conv_entry(const char* fn, const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                       glia_tensor** out, F&& f) {
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor b = tensor_opt(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(f(xt, w, b));
  });
}

template <class M, class... A>
nn::ModuleRef make(A&&... a) {
  return make_ref<M>(std::forward<A>(a)...);
}

void read_nn_convnd(const glia_nn_convnd_options* options, const char* fn, nn::ConvNdArgs& a) {
  if (!options) return;
  check_struct_size(options, fn, "glia_nn_convnd_options_init");
  GLIA_READ_TRIPLE(options, stride, a.stride);
  GLIA_READ_TRIPLE(options, padding, a.padding);
  GLIA_READ_TRIPLE(options, dilation, a.dilation);
  GLIA_READ(options, groups, a.groups);
  GLIA_READ_FLAG(options, bias, a.bias);
  if (GLIA_COVERS(options, padding_kind)) {
    int k = static_cast<int>(options->padding_kind);
    GLIA_CHECK(k >= 0 && k <= 2, InvalidArgument, fn, ": options->padding_kind ", k, " is not a glia_padding_kind");
    a.padding_kind = k;
  }
  if (GLIA_COVERS(options, padding_mode)) {
    int m = static_cast<int>(options->padding_mode);
    GLIA_CHECK(m >= 0 && m <= 3, InvalidArgument, fn,
               ": padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got glia_pad_mode ",
               m);
    a.padding_mode = static_cast<nn::ConvPadMode>(m);
  }
}

void read_nn_conv_transposend(const glia_nn_conv_transposend_options* options, const char* fn, nn::ConvNdArgs& a) {
  if (!options) return;
  check_struct_size(options, fn, "glia_nn_conv_transposend_options_init");
  GLIA_READ_TRIPLE(options, stride, a.stride);
  GLIA_READ_TRIPLE(options, padding, a.padding);
  GLIA_READ_TRIPLE(options, output_padding, a.output_padding);
  GLIA_READ(options, groups, a.groups);
  GLIA_READ_FLAG(options, bias, a.bias);
  GLIA_READ_TRIPLE(options, dilation, a.dilation);
}

}  // namespace

extern "C" {

void glia_convnd_options_init(glia_convnd_options* o) {
  if (!o) return;
  *o = glia_convnd_options{};
  o->struct_size = sizeof(*o);
  for (int i = 0; i < 3; ++i) o->stride[i] = o->dilation[i] = 1;
  o->groups = 1;
  o->padding_kind = GLIA_PADDING_EXPLICIT;
}

void glia_conv_transposend_options_init(glia_conv_transposend_options* o) {
  if (!o) return;
  *o = glia_conv_transposend_options{};
  o->struct_size = sizeof(*o);
  for (int i = 0; i < 3; ++i) o->stride[i] = o->dilation[i] = 1;
  o->groups = 1;
}

void glia_fold_options_init(glia_fold_options* o) {
  if (!o) return;
  *o = glia_fold_options{};
  o->struct_size = sizeof(*o);
  for (int i = 0; i < 2; ++i) o->kernel_size[i] = o->dilation[i] = o->stride[i] = 1;
}

glia_error* glia_conv1d(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                        const glia_convnd_options* options, glia_tensor** out) {
  const char* fn = "glia_conv1d";
  return conv_entry(fn, x, weight, bias, out, [&](const Tensor& xt, const Tensor& w, const Tensor& b) {
    return conv1d(xt, w, b, convnd_arg(options, fn));
  });
}

glia_error* glia_conv3d(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                        const glia_convnd_options* options, glia_tensor** out) {
  const char* fn = "glia_conv3d";
  return conv_entry(fn, x, weight, bias, out, [&](const Tensor& xt, const Tensor& w, const Tensor& b) {
    return conv3d(xt, w, b, convnd_arg(options, fn));
  });
}

glia_error* glia_conv_transpose1d(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                                  const glia_conv_transposend_options* options, glia_tensor** out) {
  const char* fn = "glia_conv_transpose1d";
  return conv_entry(fn, x, weight, bias, out, [&](const Tensor& xt, const Tensor& w, const Tensor& b) {
    return conv_transpose1d(xt, w, b, conv_transposend_arg(options, fn));
  });
}

glia_error* glia_conv_transpose3d(const glia_tensor* x, const glia_tensor* weight, const glia_tensor* bias,
                                  const glia_conv_transposend_options* options, glia_tensor** out) {
  const char* fn = "glia_conv_transpose3d";
  return conv_entry(fn, x, weight, bias, out, [&](const Tensor& xt, const Tensor& w, const Tensor& b) {
    return conv_transpose3d(xt, w, b, conv_transposend_arg(options, fn));
  });
}

glia_error* glia_im2col(const glia_tensor* x, const glia_fold_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_im2col";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(im2col(xt, fold_arg(options, fn)));
  });
}

glia_error* glia_col2im(const glia_tensor* x, int64_t out_h, int64_t out_w, const glia_fold_options* options,
                        glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_col2im";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(col2im(xt, out_h, out_w, fold_arg(options, fn)));
  });
}

void glia_nn_convnd_options_init(glia_nn_convnd_options* o) {
  if (!o) return;
  *o = glia_nn_convnd_options{};
  o->struct_size = sizeof(*o);
  for (int i = 0; i < 3; ++i) o->stride[i] = o->dilation[i] = 1;
  o->groups = 1;
  o->bias = 1;
  o->padding_kind = GLIA_PADDING_EXPLICIT;
  o->padding_mode = GLIA_PAD_CONSTANT;
}

void glia_nn_conv_transposend_options_init(glia_nn_conv_transposend_options* o) {
  if (!o) return;
  *o = glia_nn_conv_transposend_options{};
  o->struct_size = sizeof(*o);
  for (int i = 0; i < 3; ++i) o->stride[i] = o->dilation[i] = 1;
  o->groups = 1;
  o->bias = 1;
}

glia_error* glia_nn_conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                           const glia_nn_convnd_options* options, const glia_factory_options* factory,
                           glia_module** out) {
  const char* fn = "glia_nn_conv1d";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) {
    nn::ConvNdArgs a;
    a.kernel_size[0] = kernel_size;
    read_nn_convnd(options, fn, a);
    return make<nn::ConvNd>(1, false, in_channels, out_channels, a, f);
  });
}

glia_error* glia_nn_conv3d(int64_t in_channels, int64_t out_channels, int64_t kernel_d, int64_t kernel_h,
                           int64_t kernel_w, const glia_nn_convnd_options* options, const glia_factory_options* factory,
                           glia_module** out) {
  const char* fn = "glia_nn_conv3d";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) {
    nn::ConvNdArgs a;
    a.kernel_size[0] = kernel_d, a.kernel_size[1] = kernel_h, a.kernel_size[2] = kernel_w;
    read_nn_convnd(options, fn, a);
    return make<nn::ConvNd>(3, false, in_channels, out_channels, a, f);
  });
}

glia_error* glia_nn_conv_transpose1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                     const glia_nn_conv_transposend_options* options,
                                     const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_conv_transpose1d";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) {
    nn::ConvNdArgs a;
    a.kernel_size[0] = kernel_size;
    read_nn_conv_transposend(options, fn, a);
    return make<nn::ConvNd>(1, true, in_channels, out_channels, a, f);
  });
}

glia_error* glia_nn_conv_transpose3d(int64_t in_channels, int64_t out_channels, int64_t kernel_d, int64_t kernel_h,
                                     int64_t kernel_w, const glia_nn_conv_transposend_options* options,
                                     const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_conv_transpose3d";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) {
    nn::ConvNdArgs a;
    a.kernel_size[0] = kernel_d, a.kernel_size[1] = kernel_h, a.kernel_size[2] = kernel_w;
    read_nn_conv_transposend(options, fn, a);
    return make<nn::ConvNd>(3, true, in_channels, out_channels, a, f);
  });
}

glia_error* glia_nn_unfold(const glia_fold_options* options, const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_unfold";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::Unfold>(fold_arg(options, fn));
  });
}

glia_error* glia_nn_fold(int64_t out_h, int64_t out_w, const glia_fold_options* options,
                         const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_fold";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::Fold>(out_h, out_w, fold_arg(options, fn));
  });
}

}  // extern "C"
