// 1-D and 3-D pooling: glia_max_pool1d/3d, glia_avg_pool1d/3d, glia_adaptive_avg_pool1d/3d and their
// modules glia_nn_* (the 2-D pools are in capi/conv.cpp and capi/nn_layers.cpp).
#include "autograd/fn/pool.h"

#include <cstddef>
#include <optional>
#include <string>

#include "capi/api.h"
#include "capi/options.h"
#include "core/checked.h"
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

// torch.nn.functional's _unpool_output_size: the default (in - 1) * stride + kernel - 2 * padding, or
// the caller's size when it is within a stride of it.
Dims unpool_size(const Tensor& x, const glia_max_unpool_options* options, int64_t sd, const char* fn) {
  int64_t k[3] = {1, 1, 1}, st[3] = {0, 0, 0}, pad[3] = {0, 0, 0}, out[3] = {-1, -1, -1};
  if (options) {
    check_struct_size(options, fn, "glia_max_unpool_options_init");
    GLIA_READ_TRIPLE(options, kernel_size, k);
    GLIA_READ_TRIPLE(options, stride, st);
    GLIA_READ_TRIPLE(options, padding, pad);
    GLIA_READ_TRIPLE(options, output_size, out);
  }
  GLIA_CHECK(x.dim() >= sd, Shape, fn, ": x has ", x.dim(), " dimensions, expected at least ", sd);
  Dims def, r;
  for (int64_t d = 0; d < sd; ++d) {
    const int64_t s = st[d] == 0 ? k[d] : st[d];
    def.push_back(((Checked(x.size(x.dim() - sd + d), fn) - 1) * s + k[d] - Checked(2) * pad[d]).value());
  }
  bool given = false;
  for (int64_t d = 0; d < sd; ++d) given = given || out[d] >= 0;
  if (!given) return def;
  std::string shown = "[";
  for (int64_t d = 0; d < sd; ++d) {
    if (d) shown += ", ";
    shown += std::to_string(out[d]);
  }
  shown += "]";
  for (int64_t d = 0; d < sd; ++d) {
    const int64_t s = st[d] == 0 ? k[d] : st[d];
    const int64_t lo = def[d] - s, hi = def[d] + s;
    GLIA_CHECK(lo < out[d] && out[d] < hi, InvalidArgument, "invalid output_size \"", shown, "\" (dim ", d,
               " must be between ", lo, " and ", hi, ")");
    r.push_back(out[d]);
  }
  return r;
}

glia_error* max_unpool_entry(const glia_tensor* x, const glia_tensor* indices, const glia_max_unpool_options* options,
                             glia_tensor** out, int64_t sd, const char* fn) {
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor it = tensor_arg(indices, fn, "indices");
    check_out(out, fn, "out");
    Dims size = unpool_size(xt, options, sd, fn);
    *out = tensor_handle(max_unpool(xt, it, size));
  });
}

glia_error* adaptive_max_entry(const glia_tensor* x, IntSpan size, glia_tensor** out, glia_tensor** out_indices,
                               const char* fn) {
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    Tensor idx;
    Tensor* ip = out_indices ? &idx : nullptr;
    Tensor y = size.size() == 1   ? adaptive_max_pool1d(xt, size[0], ip)
               : size.size() == 2 ? adaptive_max_pool2d(xt, size[0], size[1], ip)
                                  : adaptive_max_pool3d(xt, size[0], size[1], size[2], ip);
    glia_tensor* hy = tensor_handle(y);
    if (out_indices) *out_indices = tensor_handle(idx);
    *out = hy;
  });
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

glia_error* glia_adaptive_max_pool1d(const glia_tensor* x, int64_t out_l, glia_tensor** out,
                                     glia_tensor** out_indices) {
  const int64_t size[1] = {out_l};
  return adaptive_max_entry(x, size, out, out_indices, "glia_adaptive_max_pool1d");
}

glia_error* glia_adaptive_max_pool2d(const glia_tensor* x, int64_t out_h, int64_t out_w, glia_tensor** out,
                                     glia_tensor** out_indices) {
  const int64_t size[2] = {out_h, out_w};
  return adaptive_max_entry(x, size, out, out_indices, "glia_adaptive_max_pool2d");
}

glia_error* glia_adaptive_max_pool3d(const glia_tensor* x, int64_t out_t, int64_t out_h, int64_t out_w,
                                     glia_tensor** out, glia_tensor** out_indices) {
  const int64_t size[3] = {out_t, out_h, out_w};
  return adaptive_max_entry(x, size, out, out_indices, "glia_adaptive_max_pool3d");
}

void glia_max_unpool_options_init(glia_max_unpool_options* o) {
  if (!o) return;
  *o = glia_max_unpool_options{};
  o->struct_size = sizeof(*o);
  for (int a = 0; a < 3; ++a) o->kernel_size[a] = 1, o->output_size[a] = -1;
}

glia_error* glia_max_unpool1d(const glia_tensor* x, const glia_tensor* indices, const glia_max_unpool_options* options,
                              glia_tensor** out) {
  return max_unpool_entry(x, indices, options, out, 1, "glia_max_unpool1d");
}

glia_error* glia_max_unpool2d(const glia_tensor* x, const glia_tensor* indices, const glia_max_unpool_options* options,
                              glia_tensor** out) {
  return max_unpool_entry(x, indices, options, out, 2, "glia_max_unpool2d");
}

glia_error* glia_max_unpool3d(const glia_tensor* x, const glia_tensor* indices, const glia_max_unpool_options* options,
                              glia_tensor** out) {
  return max_unpool_entry(x, indices, options, out, 3, "glia_max_unpool3d");
}

glia_error* glia_nn_adaptive_max_pool1d(int64_t out_l, const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_adaptive_max_pool1d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    GLIA_CHECK(out_l >= 0, InvalidArgument, fn, ": out_l must be >= 0, got ", out_l);
    return make<nn::AdaptiveMaxPool>(Dims{out_l}, std::vector<bool>{true});
  });
}

glia_error* glia_nn_adaptive_max_pool2d(int64_t out_h, int64_t out_w, const glia_factory_options* factory,
                                        glia_module** out) {
  return module_entry(factory, out, "glia_nn_adaptive_max_pool2d", [&](const nn::Factory&) {
    return make<nn::AdaptiveMaxPool>(Dims{out_h, out_w}, std::vector<bool>{out_h >= 0, out_w >= 0});
  });
}

glia_error* glia_nn_adaptive_max_pool3d(int64_t out_t, int64_t out_h, int64_t out_w,
                                        const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_adaptive_max_pool3d", [&](const nn::Factory&) {
    return make<nn::AdaptiveMaxPool>(Dims{out_t, out_h, out_w}, std::vector<bool>{out_t >= 0, out_h >= 0, out_w >= 0});
  });
}

glia_error* glia_lp_pool1d(const glia_tensor* x, double norm_type, int64_t kernel_size, int64_t stride,
                           int32_t ceil_mode, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_lp_pool1d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(out, fn, "out");
    *out = tensor_handle(lp_pool1d(xt, norm_type, kernel_size, stride, ceil_mode != 0));
  });
}

glia_error* glia_lp_pool2d(const glia_tensor* x, double norm_type, const int64_t kernel_size[2], const int64_t* stride,
                           int32_t ceil_mode, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_lp_pool2d";
    Tensor xt = tensor_arg(x, fn, "x");
    check_out(kernel_size, fn, "kernel_size");
    check_out(out, fn, "out");
    const int64_t none[2] = {0, 0};
    *out = tensor_handle(lp_pool2d(xt, norm_type, kernel_size, stride ? stride : none, ceil_mode != 0));
  });
}

glia_error* glia_nn_lp_pool1d(double norm_type, int64_t kernel_size, int64_t stride, int32_t ceil_mode,
                              const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_lp_pool1d", [&](const nn::Factory&) {
    const int64_t k[2] = {kernel_size, 0}, s[2] = {stride, 0};
    return make<nn::LPPool>(1, norm_type, k, s, ceil_mode != 0);
  });
}

glia_error* glia_nn_lp_pool2d(double norm_type, const int64_t kernel_size[2], const int64_t* stride, int32_t ceil_mode,
                              const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_lp_pool2d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(kernel_size, fn, "kernel_size");
    const int64_t none[2] = {0, 0};
    return make<nn::LPPool>(2, norm_type, kernel_size, stride ? stride : none, ceil_mode != 0);
  });
}

}  // extern "C"
