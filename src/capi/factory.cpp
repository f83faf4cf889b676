// Factories beyond glia_tensor_empty/zeros/ones/full/arange/rand/randn (capi/tensor.cpp):
// eye, linspace, logspace, randint and the *_like family.
#include "ops/factory.h"

#include "autograd/functions.h"
#include "capi/api.h"
#include "ops/iter.h"

using namespace glia;
using namespace glia::capi;

namespace {

struct Opts {
  DType dtype;
  Device device;
};

// options NULL: `def` (the factories' float32 on the CPU, or the like-functions' tensor's dtype and device).
Opts opts_arg(const glia_tensor_options* o, Opts def, const char* fn) {
  if (!o) return def;
  GLIA_CHECK(o->struct_size >= offsetof(glia_tensor_options, device) + sizeof(glia_device), InvalidArgument, fn,
             ": options->struct_size is ", o->struct_size, ", expected at least ", sizeof(glia_tensor_options),
             " (use glia_tensor_options_init)");
  return Opts{dtype_arg(o->dtype, fn, "options->dtype"), device_arg(o->device, fn)};
}

constexpr Opts kDefault{DType::Float32, Device{}};

template <class Make>
glia_error* like(const glia_tensor* a, const glia_tensor_options* options, glia_tensor** out, const char* fn,
                 Make make) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out, fn, "out");
    Opts o = opts_arg(options, Opts{x.dtype(), x.device()}, fn);
    *out = tensor_handle(make(x, o));
  });
}

}  // namespace

extern "C" {

glia_error* glia_tensor_eye(int64_t rows, int64_t cols, const glia_tensor_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensor_eye";
    check_out(out, fn, "out");
    Opts o = opts_arg(options, kDefault, fn);
    *out = tensor_handle(ops::eye(rows, cols, o.dtype, o.device));
  });
}

glia_error* glia_tensor_linspace(double start, double end, int64_t steps, const glia_tensor_options* options,
                                 glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensor_linspace";
    check_out(out, fn, "out");
    Opts o = opts_arg(options, kDefault, fn);
    *out = tensor_handle(ops::linspace(start, end, steps, o.dtype, o.device));
  });
}

glia_error* glia_tensor_logspace(double start, double end, int64_t steps, double base,
                                 const glia_tensor_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensor_logspace";
    check_out(out, fn, "out");
    Opts o = opts_arg(options, kDefault, fn);
    *out = tensor_handle(ops::logspace(start, end, steps, base, o.dtype, o.device));
  });
}

glia_error* glia_tensor_randint(int64_t low, int64_t high, const int64_t* shape, int64_t ndim,
                                const glia_tensor_options* options, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensor_randint";
    check_out(out, fn, "out");
    IntSpan s = shape_arg(shape, ndim, fn);
    Opts o = opts_arg(options, Opts{DType::Int64, Device{}}, fn);
    *out = tensor_handle(ops::randint(low, high, s, o.dtype, o.device));
  });
}

glia_error* glia_tensor_empty_like(const glia_tensor* a, const glia_tensor_options* options, glia_tensor** out) {
  return like(a, options, out, "glia_tensor_empty_like",
              [](const Tensor& x, Opts o) { return ops::empty_like(x, o.dtype, o.device); });
}

glia_error* glia_tensor_zeros_like(const glia_tensor* a, const glia_tensor_options* options, glia_tensor** out) {
  return like(a, options, out, "glia_tensor_zeros_like", [](const Tensor& x, Opts o) {
    Tensor t = ops::empty_like(x, o.dtype, o.device);
    fill(t, 0.0);
    return t;
  });
}

glia_error* glia_tensor_ones_like(const glia_tensor* a, const glia_tensor_options* options, glia_tensor** out) {
  return like(a, options, out, "glia_tensor_ones_like", [](const Tensor& x, Opts o) {
    Tensor t = ops::empty_like(x, o.dtype, o.device);
    fill(t, 1.0);
    return t;
  });
}

glia_error* glia_tensor_full_like(const glia_tensor* a, double value, const glia_tensor_options* options,
                                  glia_tensor** out) {
  return like(a, options, out, "glia_tensor_full_like", [value](const Tensor& x, Opts o) {
    Scalar::from_fill_value(value).check_fits(o.dtype);
    Tensor t = ops::empty_like(x, o.dtype, o.device);
    fill(t, value);
    return t;
  });
}

glia_error* glia_tensor_rand_like(const glia_tensor* a, const glia_tensor_options* options, glia_tensor** out) {
  return like(a, options, out, "glia_tensor_rand_like", [](const Tensor& x, Opts o) {
    if (!is_floating(o.dtype)) ops::not_implemented_for("check_uniform_bounds", o.dtype);
    Tensor t = ops::empty_like(x, o.dtype, o.device);
    copy_into(t, rand(x.shape(), o.dtype, o.device));
    return t;
  });
}

glia_error* glia_tensor_randn_like(const glia_tensor* a, const glia_tensor_options* options, glia_tensor** out) {
  return like(a, options, out, "glia_tensor_randn_like", [](const Tensor& x, Opts o) {
    if (!is_floating(o.dtype)) ops::not_implemented_for("normal_kernel_cpu", o.dtype);
    Tensor t = ops::empty_like(x, o.dtype, o.device);
    copy_into(t, randn(x.shape(), o.dtype, o.device));
    return t;
  });
}

}  // extern "C"
