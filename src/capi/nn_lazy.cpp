// glia_nn_lazy_*: torch's lazy modules (nn/modules/lazy.h), and the lazy queries of glia_module.
// Each constructor builds the ordinary module with size 0 through its own C constructor (the
// same option checks and messages), then makes it lazy.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "capi/api.h"
#include "nn/modules/lazy.h"

using namespace glia;
using namespace glia::capi;

namespace {

// The module an inner constructor `inner` returned (its error rethrown, named after `fn`).
nn::ModuleRef adopt_built(glia_error* e, glia_module* h, const char* inner, const char* fn) {
  if (e) {
    Code code = static_cast<Code>(glia_error_code(e));
    std::string msg = glia_error_message(e);
    glia_error_free(e);
    if (code == Code::OutOfMemory) throw std::bad_alloc();
    if (msg.compare(0, std::strlen(inner), inner) == 0) msg = fn + msg.substr(std::strlen(inner));
    throw Error(code, msg);
  }
  nn::ModuleRef m = module_arg(h, fn, "out");
  glia_error_free(glia_module_release(h));
  return m;
}

// The caller's factory options (validated) with skip_init set: the size-0 module is not reset.
glia_factory_options skip_init_factory(const glia_factory_options* factory, const char* fn) {
  bool skip = false;
  factory_arg(factory, fn, &skip);
  glia_factory_options f;
  glia_factory_options_init(&f);
  if (factory) std::memcpy(&f, factory, std::min(factory->struct_size, sizeof(f)));
  f.struct_size = sizeof(f);
  f.skip_init = 1;
  return f;
}

// Builds with `make(factory)` (an inner C constructor writing *out) and makes the result lazy.
template <class F>
glia_error* lazy_entry(const glia_factory_options* factory, glia_module** out, const char* fn, const char* inner,
                       nn::LazyKind kind, int spatial_dims, F make) {
  return guard([&] {
    check_out(out, fn, "out");
    glia_factory_options f = skip_init_factory(factory, fn);
    glia_module* h = nullptr;
    glia_error* e = make(&f, &h);
    nn::ModuleRef m = adopt_built(e, h, inner, fn);
    nn::make_lazy(*m, kind, spatial_dims);
    *out = module_handle(m);
  });
}

glia_instance_norm_options lazy_instance_norm_options(const glia_instance_norm_options* options) {
  if (options) return *options;
  glia_instance_norm_options o;
  glia_instance_norm_options_init(&o);
  o.affine = 1;  // _LazyNormBase's defaults (torch 1.13)
  o.track_running_stats = 1;
  return o;
}

}  // namespace

extern "C" {

glia_error* glia_nn_lazy_linear(int64_t out_features, int32_t bias, const glia_factory_options* factory,
                                glia_module** out) {
  return lazy_entry(
      factory, out, "glia_nn_lazy_linear", "glia_nn_linear", nn::LazyKind::Linear, 0,
      [&](const glia_factory_options* f, glia_module** h) { return glia_nn_linear(0, out_features, bias, f, h); });
}

glia_error* glia_nn_lazy_conv1d(int64_t out_channels, int64_t kernel_size, const glia_nn_convnd_options* options,
                                const glia_factory_options* factory, glia_module** out) {
  return lazy_entry(factory, out, "glia_nn_lazy_conv1d", "glia_nn_conv1d", nn::LazyKind::Conv, 1,
                    [&](const glia_factory_options* f, glia_module** h) {
                      return glia_nn_conv1d(0, out_channels, kernel_size, options, f, h);
                    });
}

glia_error* glia_nn_lazy_conv2d(int64_t out_channels, int64_t kernel_h, int64_t kernel_w,
                                const glia_nn_conv2d_options* options, const glia_factory_options* factory,
                                glia_module** out) {
  return lazy_entry(factory, out, "glia_nn_lazy_conv2d", "glia_nn_conv2d", nn::LazyKind::Conv, 2,
                    [&](const glia_factory_options* f, glia_module** h) {
                      return glia_nn_conv2d(0, out_channels, kernel_h, kernel_w, options, f, h);
                    });
}

glia_error* glia_nn_lazy_conv3d(int64_t out_channels, int64_t kernel_d, int64_t kernel_h, int64_t kernel_w,
                                const glia_nn_convnd_options* options, const glia_factory_options* factory,
                                glia_module** out) {
  return lazy_entry(factory, out, "glia_nn_lazy_conv3d", "glia_nn_conv3d", nn::LazyKind::Conv, 3,
                    [&](const glia_factory_options* f, glia_module** h) {
                      return glia_nn_conv3d(0, out_channels, kernel_d, kernel_h, kernel_w, options, f, h);
                    });
}

glia_error* glia_nn_lazy_conv_transpose1d(int64_t out_channels, int64_t kernel_size,
                                          const glia_nn_conv_transposend_options* options,
                                          const glia_factory_options* factory, glia_module** out) {
  return lazy_entry(factory, out, "glia_nn_lazy_conv_transpose1d", "glia_nn_conv_transpose1d",
                    nn::LazyKind::ConvTranspose, 1, [&](const glia_factory_options* f, glia_module** h) {
                      return glia_nn_conv_transpose1d(0, out_channels, kernel_size, options, f, h);
                    });
}

glia_error* glia_nn_lazy_conv_transpose2d(int64_t out_channels, int64_t kernel_h, int64_t kernel_w,
                                          const glia_nn_conv_transpose2d_options* options,
                                          const glia_factory_options* factory, glia_module** out) {
  return lazy_entry(factory, out, "glia_nn_lazy_conv_transpose2d", "glia_nn_conv_transpose2d",
                    nn::LazyKind::ConvTranspose, 2, [&](const glia_factory_options* f, glia_module** h) {
                      return glia_nn_conv_transpose2d(0, out_channels, kernel_h, kernel_w, options, f, h);
                    });
}

glia_error* glia_nn_lazy_conv_transpose3d(int64_t out_channels, int64_t kernel_d, int64_t kernel_h, int64_t kernel_w,
                                          const glia_nn_conv_transposend_options* options,
                                          const glia_factory_options* factory, glia_module** out) {
  return lazy_entry(factory, out, "glia_nn_lazy_conv_transpose3d", "glia_nn_conv_transpose3d",
                    nn::LazyKind::ConvTranspose, 3, [&](const glia_factory_options* f, glia_module** h) {
                      return glia_nn_conv_transpose3d(0, out_channels, kernel_d, kernel_h, kernel_w, options, f, h);
                    });
}

glia_error* glia_nn_lazy_batch_norm1d(const glia_batch_norm_options* options, const glia_factory_options* factory,
                                      glia_module** out) {
  return lazy_entry(
      factory, out, "glia_nn_lazy_batch_norm1d", "glia_nn_batch_norm1d", nn::LazyKind::BatchNorm, 1,
      [&](const glia_factory_options* f, glia_module** h) { return glia_nn_batch_norm1d(0, options, f, h); });
}

glia_error* glia_nn_lazy_batch_norm2d(const glia_batch_norm_options* options, const glia_factory_options* factory,
                                      glia_module** out) {
  return lazy_entry(
      factory, out, "glia_nn_lazy_batch_norm2d", "glia_nn_batch_norm2d", nn::LazyKind::BatchNorm, 2,
      [&](const glia_factory_options* f, glia_module** h) { return glia_nn_batch_norm2d(0, options, f, h); });
}

glia_error* glia_nn_lazy_batch_norm3d(const glia_batch_norm_options* options, const glia_factory_options* factory,
                                      glia_module** out) {
  return lazy_entry(
      factory, out, "glia_nn_lazy_batch_norm3d", "glia_nn_batch_norm3d", nn::LazyKind::BatchNorm, 3,
      [&](const glia_factory_options* f, glia_module** h) { return glia_nn_batch_norm3d(0, options, f, h); });
}

glia_error* glia_nn_lazy_instance_norm1d(const glia_instance_norm_options* options, const glia_factory_options* factory,
                                         glia_module** out) {
  glia_instance_norm_options o = lazy_instance_norm_options(options);
  return lazy_entry(
      factory, out, "glia_nn_lazy_instance_norm1d", "glia_nn_instance_norm1d", nn::LazyKind::InstanceNorm, 1,
      [&](const glia_factory_options* f, glia_module** h) { return glia_nn_instance_norm1d(0, &o, f, h); });
}

glia_error* glia_nn_lazy_instance_norm2d(const glia_instance_norm_options* options, const glia_factory_options* factory,
                                         glia_module** out) {
  glia_instance_norm_options o = lazy_instance_norm_options(options);
  return lazy_entry(
      factory, out, "glia_nn_lazy_instance_norm2d", "glia_nn_instance_norm2d", nn::LazyKind::InstanceNorm, 2,
      [&](const glia_factory_options* f, glia_module** h) { return glia_nn_instance_norm2d(0, &o, f, h); });
}

glia_error* glia_nn_lazy_instance_norm3d(const glia_instance_norm_options* options, const glia_factory_options* factory,
                                         glia_module** out) {
  glia_instance_norm_options o = lazy_instance_norm_options(options);
  return lazy_entry(
      factory, out, "glia_nn_lazy_instance_norm3d", "glia_nn_instance_norm3d", nn::LazyKind::InstanceNorm, 3,
      [&](const glia_factory_options* f, glia_module** h) { return glia_nn_instance_norm3d(0, &o, f, h); });
}

glia_error* glia_module_has_uninitialized_params(const glia_module* module, int32_t* out) {
  const char* fn = "glia_module_has_uninitialized_params";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    check_out(out, fn, "out");
    *out = nn::has_uninitialized_params(*m) ? 1 : 0;
  });
}

glia_error* glia_module_is_uninitialized(const glia_module* module, const char* target, int32_t* out) {
  const char* fn = "glia_module_is_uninitialized";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    GLIA_CHECK(target, InvalidArgument, fn, ": argument 'target' is NULL");
    check_out(out, fn, "out");
    std::string path(target);
    size_t dot = path.rfind('.');
    nn::ModuleRef owner = dot == std::string::npos ? m : m->get_submodule(path.substr(0, dot));
    std::string name = dot == std::string::npos ? path : path.substr(dot + 1);
    const Tensor* t = owner->find_parameter(name);
    if (!t) t = owner->find_buffer(name);
    GLIA_CHECK(t, NotFound, owner->type_name(), " has no parameter or buffer `", name, "`");
    *out = nn::is_uninitialized(*owner, *t) ? 1 : 0;
  });
}

glia_error* glia_module_initialize_parameters(glia_module* module, const glia_tensor* const* inputs, int64_t n_inputs) {
  const char* fn = "glia_module_initialize_parameters";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    TensorList xs = tensors_arg(inputs, n_inputs, fn, "inputs");
    nn::initialize_parameters(*m, xs);
  });
}

}  // extern "C"
