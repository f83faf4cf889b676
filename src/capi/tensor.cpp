#include <cmath>
#include <cstring>

#include "autograd/functions.h"
#include "capi/api.h"
#include "core/dlpack.h"
#include "core/print.h"

using namespace glia;
using namespace glia::capi;

namespace {

struct Opts {
  DType dtype = DType::Float32;
  Device device;
};

Opts opts_arg(const glia_tensor_options* o, const char* fn) {
  Opts r;
  if (!o) return r;
  GLIA_CHECK(o->struct_size >= offsetof(glia_tensor_options, device) + sizeof(glia_device), InvalidArgument, fn,
             ": options->struct_size is ", o->struct_size, ", expected at least ", sizeof(glia_tensor_options),
             " (use glia_tensor_options_init)");
  r.dtype = dtype_arg(o->dtype, fn, "options->dtype");
  r.device = device_arg(o->device, fn);
  return r;
}

template <class Make>
glia_error* factory(const int64_t* shape, int64_t ndim, const glia_tensor_options* options, glia_tensor** out,
                    const char* fn, Make make) {
  return guard([&] {
    check_out(out, fn, "out");
    IntSpan s = shape_arg(shape, ndim, fn);
    Opts o = opts_arg(options, fn);
    Tensor t = make(s, o);
    *out = tensor_handle(t);
  });
}

}  // namespace

extern "C" {

glia_error* glia_tensor_retain(glia_tensor* t) {
  return guard([&] { handle_retain(t, HandleType::Tensor, "glia_tensor_retain"); });
}

glia_error* glia_tensor_release(glia_tensor* t) {
  if (!t) return nullptr;
  return guard([&] { handle_release(t, HandleType::Tensor, "glia_tensor_release"); });
}

void glia_tensor_options_init(glia_tensor_options* o) {
  if (!o) return;
  *o = glia_tensor_options{};
  o->struct_size = sizeof(glia_tensor_options);
  o->dtype = GLIA_FLOAT32;
  o->device = glia_device{GLIA_CPU, 0};
}

glia_error* glia_tensor_empty(const int64_t* shape, int64_t ndim, const glia_tensor_options* options,
                              glia_tensor** out) {
  return factory(shape, ndim, options, out, "glia_tensor_empty",
                 [](IntSpan s, Opts o) { return empty(s, o.dtype, o.device); });
}

glia_error* glia_tensor_zeros(const int64_t* shape, int64_t ndim, const glia_tensor_options* options,
                              glia_tensor** out) {
  return factory(shape, ndim, options, out, "glia_tensor_zeros",
                 [](IntSpan s, Opts o) { return zeros(s, o.dtype, o.device); });
}

glia_error* glia_tensor_ones(const int64_t* shape, int64_t ndim, const glia_tensor_options* options,
                             glia_tensor** out) {
  return factory(shape, ndim, options, out, "glia_tensor_ones",
                 [](IntSpan s, Opts o) { return ones(s, o.dtype, o.device); });
}

glia_error* glia_tensor_full(const int64_t* shape, int64_t ndim, double value, const glia_tensor_options* options,
                             glia_tensor** out) {
  return factory(shape, ndim, options, out, "glia_tensor_full",
                 [value](IntSpan s, Opts o) { return full(s, value, o.dtype, o.device); });
}

glia_error* glia_tensor_rand(const int64_t* shape, int64_t ndim, const glia_tensor_options* options,
                             glia_tensor** out) {
  return factory(shape, ndim, options, out, "glia_tensor_rand",
                 [](IntSpan s, Opts o) { return rand(s, o.dtype, o.device); });
}

glia_error* glia_tensor_randn(const int64_t* shape, int64_t ndim, const glia_tensor_options* options,
                              glia_tensor** out) {
  return factory(shape, ndim, options, out, "glia_tensor_randn",
                 [](IntSpan s, Opts o) { return randn(s, o.dtype, o.device); });
}

glia_error* glia_tensor_arange(double start, double end, double step, const glia_tensor_options* options,
                               glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensor_arange";
    check_out(out, fn, "out");
    Opts o = opts_arg(options, fn);
    if (!options) {
      // torch infers int64 when every bound is an integer (inf and NaN are not: no cast of them to int64).
      auto integral = [](double v) { return std::isfinite(v) && v == std::trunc(v); };
      bool whole = integral(start) && integral(end) && integral(step);
      o.dtype = whole ? DType::Int64 : DType::Float32;
    }
    *out = tensor_handle(arange(start, end, step, o.dtype, o.device));
  });
}

glia_error* glia_tensor_from_data(const void* data, size_t nbytes, const int64_t* shape, int64_t ndim, glia_dtype dtype,
                                  glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensor_from_data";
    check_out(out, fn, "out");
    IntSpan s = shape_arg(shape, ndim, fn);
    DType dt = dtype_arg(dtype, fn, "dtype");
    size_t expected = static_cast<size_t>(checked_numel(s)) * itemsize(dt);
    GLIA_CHECK(nbytes == expected, InvalidArgument, fn, ": argument 'nbytes' is ", nbytes, " but shape ", s, " of ",
               dtype_name(dt), " needs ", expected, " bytes");
    GLIA_CHECK(data || nbytes == 0, InvalidArgument, fn, ": argument 'data' is NULL");
    Tensor t = empty(s, dt, Device{});
    if (nbytes) std::memcpy(t.data(), data, nbytes);
    *out = tensor_handle(t);
  });
}

glia_error* glia_tensor_from_blob(void* data, const int64_t* shape, const int64_t* strides, int64_t ndim,
                                  glia_dtype dtype, glia_device device, glia_blob_deleter deleter,
                                  void* deleter_context, glia_tensor** out) {
  // Note [Blob deleter runs once]: until from_blob owns the blob, every failure calls the deleter here.
  bool handed_over = false;
  glia_error* e = guard([&] {
    const char* fn = "glia_tensor_from_blob";
    check_out(out, fn, "out");
    IntSpan s = shape_arg(shape, ndim, fn);
    DType dt = dtype_arg(dtype, fn, "dtype");
    Device dev = device_arg(device, fn);
    IntSpan st = strides ? IntSpan(strides, static_cast<size_t>(ndim)) : IntSpan();
    handed_over = true;  // glia::from_blob calls the deleter itself on failure
    Tensor t = from_blob(data, s, st, dt, dev, deleter, deleter_context);
    *out = tensor_handle(t);
  });
  if (e && !handed_over && deleter) deleter(deleter_context, data);
  return e;
}

glia_error* glia_tensor_from_dlpack(struct DLManagedTensor* managed, glia_tensor** out) {
  return guard([&] {
    check_out(out, "glia_tensor_from_dlpack", "out");
    check_out(managed, "glia_tensor_from_dlpack", "managed");
    Tensor t = from_dlpack(managed);
    *out = tensor_handle(t);
  });
}

glia_error* glia_tensor_to_dlpack(glia_tensor* tensor, struct DLManagedTensor** out_managed) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_to_dlpack", "tensor");
    check_out(out_managed, "glia_tensor_to_dlpack", "out_managed");
    *out_managed = to_dlpack(t);
  });
}

glia_error* glia_tensor_ndim(const glia_tensor* tensor, int64_t* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_ndim", "tensor");
    check_out(out, "glia_tensor_ndim", "out_ndim");
    *out = t->dim();
  });
}

static glia_error* copy_dims(const glia_tensor* tensor, int64_t capacity, int64_t* out, bool strides, const char* fn) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, fn, "tensor");
    const Dims& d = strides ? t->strides() : t->shape();
    GLIA_CHECK(capacity >= d.ssize(), InvalidArgument, fn, ": argument 'capacity' is ", capacity,
               " but the tensor has ", d.size(), " dimensions");
    GLIA_CHECK(out || d.empty(), InvalidArgument, fn, ": argument '", strides ? "out_strides" : "out_shape",
               "' is NULL");
    if (!d.empty()) std::memcpy(out, d.data(), d.size() * sizeof(int64_t));
  });
}

glia_error* glia_tensor_shape(const glia_tensor* tensor, int64_t capacity, int64_t* out_shape) {
  return copy_dims(tensor, capacity, out_shape, false, "glia_tensor_shape");
}

glia_error* glia_tensor_strides(const glia_tensor* tensor, int64_t capacity, int64_t* out_strides) {
  return copy_dims(tensor, capacity, out_strides, true, "glia_tensor_strides");
}

glia_error* glia_tensor_storage_offset(const glia_tensor* tensor, int64_t* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_storage_offset", "tensor");
    check_out(out, "glia_tensor_storage_offset", "out_offset");
    *out = t->offset();
  });
}

glia_error* glia_tensor_dtype(const glia_tensor* tensor, glia_dtype* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_dtype", "tensor");
    check_out(out, "glia_tensor_dtype", "out_dtype");
    *out = static_cast<glia_dtype>(t->dtype());
  });
}

glia_error* glia_tensor_device(const glia_tensor* tensor, glia_device* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_device", "tensor");
    check_out(out, "glia_tensor_device", "out_device");
    Device d = t->device();
    *out = glia_device{static_cast<glia_device_type>(d.type), d.index};
  });
}

glia_error* glia_tensor_numel(const glia_tensor* tensor, int64_t* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_numel", "tensor");
    check_out(out, "glia_tensor_numel", "out_numel");
    *out = t->numel();
  });
}

glia_error* glia_tensor_is_contiguous(const glia_tensor* tensor, int32_t* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_is_contiguous", "tensor");
    check_out(out, "glia_tensor_is_contiguous", "out_contiguous");
    *out = t->is_contiguous() ? 1 : 0;
  });
}

glia_error* glia_tensor_data(glia_tensor* tensor, void** out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_data", "tensor");
    check_out(out, "glia_tensor_data", "out_data");
    GLIA_CHECK(t->device().is_cpu(), Device, "glia_tensor_data: tensor is on ", t->device(),
               "; copy it with glia_tensor_copy_to_host or glia_tensor_to");
    *out = t->data();
  });
}

glia_error* glia_tensor_copy_to_host(const glia_tensor* tensor, void* dst, size_t nbytes) {
  return guard([&] {
    const char* fn = "glia_tensor_copy_to_host";
    Tensor t = tensor_arg(tensor, fn, "tensor");
    size_t expected = static_cast<size_t>(t.numel()) * itemsize(t.dtype());
    GLIA_CHECK(nbytes == expected, InvalidArgument, fn, ": argument 'nbytes' is ", nbytes, " but the tensor of shape ",
               t.shape(), " and dtype ", dtype_name(t.dtype()), " has ", expected, " bytes");
    GLIA_CHECK(dst || nbytes == 0, InvalidArgument, fn, ": argument 'dst' is NULL");
    if (nbytes == 0) return;
    Tensor out = from_blob(dst, t.shape(), {}, t.dtype(), Device{}, nullptr, nullptr);
    copy_into(out, t);
  });
}

glia_error* glia_tensor_item_double(const glia_tensor* tensor, double* out) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_item_double", "tensor");
    check_out(out, "glia_tensor_item_double", "out_value");
    *out = item_double(t);
  });
}

glia_error* glia_tensor_item_int64(const glia_tensor* tensor, int64_t* out) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_item_int64", "tensor");
    check_out(out, "glia_tensor_item_int64", "out_value");
    *out = item_int64(t);
  });
}

glia_error* glia_tensor_to(const glia_tensor* tensor, const glia_device* device, const glia_dtype* dtype,
                           glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_tensor_to";
    Tensor t = tensor_arg(tensor, fn, "tensor");
    Device dev = device ? device_arg(*device, fn) : t.device();
    DType dt = dtype ? dtype_arg(*dtype, fn, "dtype") : t.dtype();
    check_out(out, fn, "out");
    *out = tensor_handle(to_with_grad(t, dev, dt));
  });
}

glia_error* glia_tensor_contiguous(const glia_tensor* tensor, glia_tensor** out) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_contiguous", "tensor");
    check_out(out, "glia_tensor_contiguous", "out");
    *out = tensor_handle(contiguous_with_grad(t));
  });
}

glia_error* glia_tensor_clone(const glia_tensor* tensor, glia_tensor** out) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_clone", "tensor");
    check_out(out, "glia_tensor_clone", "out");
    *out = tensor_handle(clone_with_grad(t));
  });
}

glia_error* glia_tensor_detach(const glia_tensor* tensor, glia_tensor** out) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_detach", "tensor");
    check_out(out, "glia_tensor_detach", "out");
    *out = tensor_handle(detach(t));
  });
}

glia_error* glia_tensor_to_string(const glia_tensor* tensor, char* buffer, size_t capacity, size_t* out_length) {
  return guard([&] {
    const char* fn = "glia_tensor_to_string";
    Tensor t = tensor_arg(tensor, fn, "tensor");
    check_string_out(buffer, capacity, out_length, fn);
    // torch appends the autograd state: grad_fn for results, requires_grad for leaves.
    std::string suffix;
    if (Ref<Node> fn = grad_fn(t))
      suffix = std::string(", grad_fn=<") + fn->name() + ">";
    else if (t.requires_grad())
      suffix = ", requires_grad=True";
    std::string s = to_string(t, suffix);
    write_string(s, buffer, capacity, out_length);
  });
}

}  // extern "C"
