// 1-D and 3-D pooling: glia_max_pool1d/3d, glia_avg_pool1d/3d, glia_adaptive_avg_pool1d/3d and their
// modules glia_nn_* (the 2-D pools are in capi/conv.cpp and capi/nn_layers.cpp).
#include "autograd/fn/pool.h"

#include <cstddef>
#include <optional>

#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/pool_extra.h"

using namespace glia;
using namespace glia::capi;

namespace {

#define GLIA_READ_TRIPLE(o, field, dst) \
  if (GLIA_COVERS(o, field)) {          \
    (dst)[0] = (o)->field[0];           \
    (dst)[1] = (o)->field[1];           \
    (dst)[2] = (o)->field[2];           \
  }

MaxPool1dOptions max_pool1d_options_arg(const glia_max_pool1d_options* options, const char* fn) {
  MaxPool1dOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_max_pool1d_options_init");
  GLIA_READ(options, kernel_size, o.kernel_size);
  GLIA_READ(options, stride, o.stride);
  GLIA_READ(options, padding, o.padding);
  GLIA_READ(options, dilation, o.dilation);
  GLIA_READ_FLAG(options, ceil_mode, o.ceil_mode);
  return o;
}

AvgPool1dOptions avg_pool1d_options_arg(const glia_avg_pool1d_options* options, const char* fn) {
  AvgPool1dOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_avg_pool1d_options_init");
  GLIA_READ(options, kernel_size, o.kernel_size);
  GLIA_READ(options, stride, o.stride);
  GLIA_READ(options, padding, o.padding);
  GLIA_READ_FLAG(options, ceil_mode, o.ceil_mode);
  GLIA_READ_FLAG(options, count_include_pad, o.count_include_pad);
  return o;
}

MaxPool3dOptions max_pool3d_options_arg(const glia_max_pool3d_options* options, const char* fn) {
  MaxPool3dOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_max_pool3d_options_init");
  GLIA_READ_TRIPLE(options, kernel_size, o.kernel_size);
  GLIA_READ_TRIPLE(options, stride, o.stride);
  GLIA_READ_TRIPLE(options, padding, o.padding);
  GLIA_READ_TRIPLE(options, dilation, o.dilation);
  GLIA_READ_FLAG(options, ceil_mode, o.ceil_mode);
  return o;
}

AvgPool3dOptions avg_pool3d_options_arg(const glia_avg_pool3d_options* options, const char* fn) {
  AvgPool3dOptions o;
  if (!options) return o;
  check_struct_size(options, fn, "glia_avg_pool3d_options_init");
  GLIA_READ_TRIPLE(options, kernel_size, o.kernel_size);
  GLIA_READ_TRIPLE(options, stride, o.stride);
  GLIA_READ_TRIPLE(options, padding, o.padding);
  GLIA_READ_FLAG(options, ceil_mode, o.ceil_mode);
  GLIA_READ_FLAG(options, count_include_pad, o.count_include_pad);
  GLIA_READ(options, divisor_override, o.divisor_override);
  return o;
}

template <class M, class... A>
nn::ModuleRef make(A&&... a) {
  return make_ref<M>(std::forward<A>(a)...);
}

}  // namespace

extern "C" {

void glia_max_pool1d_options_init(glia_max_pool1d_options* o) {
  if (!o) return;
  *o = glia_max_pool1d_options{};
  o->struct_size = sizeof(*o);
  o->kernel_size = 1;
  o->dilation = 1;
}

void glia_avg_pool1d_options_init(glia_avg_pool1d_options* o) {
  if (!o) return;
  *o = glia_avg_pool1d_options{};
  o->struct_size = sizeof(*o);
  o->kernel_size = 1;
  o->count_include_pad = 1;
}

void glia_max_pool3d_options_init(glia_max_pool3d_options* o) {
  if (!o) return;
  *o = glia_max_pool3d_options{};
  o->struct_size = sizeof(*o);
  o->kernel_size[0] = o->kernel_size[1] = o->kernel_size[2] = 1;
  o->dilation[0] = o->dilation[1] = o->dilation[2] = 1;
}

void glia_avg_pool3d_options_init(glia_avg_pool3d_options* o) {
  if (!o) return;
  *o = glia_avg_pool3d_options{};
  o->struct_size = sizeof(*o);
  o->kernel_size[0] = o->kernel_size[1] = o->kernel_size[2] = 1;
  o->count_include_pad = 1;
}

glia_error* glia_max_pool1d(const glia_tensor* x, const glia_max_pool1d_options* options, glia_tensor** out,
                            glia_tensor** out_indices) {
  return guard([&] {
    const char* fn = "glia_max_pool1d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    MaxPool1dOptions o = max_pool1d_options_arg(options, fn);
    Tensor idx;
    Tensor y = max_pool1d(xt, o, out_indices ? &idx : nullptr);
    glia_tensor* hy = tensor_handle(y);
    if (out_indices) *out_indices = tensor_handle(idx);
    *out = hy;
  });
}

glia_error* glia_avg_pool1d(const glia_tensor* x, const glia_avg_pool1d_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_avg_pool1d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(avg_pool1d(xt, avg_pool1d_options_arg(options, fn)));
  });
}

glia_error* glia_max_pool3d(const glia_tensor* x, const glia_max_pool3d_options* options, glia_tensor** out,
                            glia_tensor** out_indices) {
  return guard([&] {
    const char* fn = "glia_max_pool3d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    MaxPool3dOptions o = max_pool3d_options_arg(options, fn);
    Tensor idx;
    Tensor y = max_pool3d(xt, o, out_indices ? &idx : nullptr);
    glia_tensor* hy = tensor_handle(y);
    if (out_indices) *out_indices = tensor_handle(idx);
    *out = hy;
  });
}

glia_error* glia_avg_pool3d(const glia_tensor* x, const glia_avg_pool3d_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_avg_pool3d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(avg_pool3d(xt, avg_pool3d_options_arg(options, fn)));
  });
}

glia_error* glia_adaptive_avg_pool1d(const glia_tensor* x, int64_t out_l, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_adaptive_avg_pool1d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(adaptive_avg_pool1d(xt, out_l));
  });
}

glia_error* glia_adaptive_avg_pool3d(const glia_tensor* x, int64_t out_t, int64_t out_h, int64_t out_w,
                                     glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_adaptive_avg_pool3d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(adaptive_avg_pool3d(xt, out_t, out_h, out_w));
  });
}

glia_error* glia_nn_max_pool1d(const glia_max_pool1d_options* options, const glia_factory_options* factory,
                               glia_module** out) {
  const char* fn = "glia_nn_max_pool1d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::MaxPool1d>(max_pool1d_options_arg(options, fn));
  });
}

glia_error* glia_nn_avg_pool1d(const glia_avg_pool1d_options* options, const glia_factory_options* factory,
                               glia_module** out) {
  const char* fn = "glia_nn_avg_pool1d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::AvgPool1d>(avg_pool1d_options_arg(options, fn));
  });
}

glia_error* glia_nn_max_pool3d(const glia_max_pool3d_options* options, const glia_factory_options* factory,
                               glia_module** out) {
  const char* fn = "glia_nn_max_pool3d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::MaxPool3d>(max_pool3d_options_arg(options, fn));
  });
}

glia_error* glia_nn_avg_pool3d(const glia_avg_pool3d_options* options, const glia_factory_options* factory,
                               glia_module** out) {
  const char* fn = "glia_nn_avg_pool3d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::AvgPool3d>(avg_pool3d_options_arg(options, fn));
  });
}

glia_error* glia_nn_adaptive_avg_pool1d(int64_t out_l, const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_adaptive_avg_pool1d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    GLIA_CHECK(out_l >= 0, InvalidArgument, fn, ": out_l must be >= 0, got ", out_l);
    return make<nn::AdaptiveAvgPool1d>(out_l);
  });
}

glia_error* glia_nn_adaptive_avg_pool3d(int64_t out_t, int64_t out_h, int64_t out_w,
                                        const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_adaptive_avg_pool3d", [&](const nn::Factory&) {
    std::optional<int64_t> t, h, w;
    if (out_t >= 0) t = out_t;
    if (out_h >= 0) h = out_h;
    if (out_w >= 0) w = out_w;
    return make<nn::AdaptiveAvgPool3d>(t, h, w);
  });
}

}  // extern "C"
