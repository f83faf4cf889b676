/// @file
/// glia.hpp: a header-only C++17 wrapper over the glia C API (glia.h).
///
/// Every object is a value type over one reference-counted C handle: copying
/// retains, moving steals, the destructor releases. Every operation is one C
/// call; a returned glia_error becomes a thrown glia::Error carrying the C
/// code and message. Callbacks (tensor hooks, module hooks, the forward of a
/// custom module) are std::function objects; an exception thrown in one is
/// caught at the C boundary and reaches glia as
/// glia_error_new(GLIA_ERR_CALLBACK, what()), so the glia call that ran the
/// callback fails with GLIA_ERR_CALLBACK and that message. No exception ever
/// crosses the C ABI.
#ifndef GLIA_GLIA_HPP
#define GLIA_GLIA_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "glia/glia.h"

// The wrapper's classes live in glia::cxx, an inline namespace: user code
// writes glia::Tensor, while the symbols are glia::cxx::Tensor and so can
// never meet the library's internal glia:: classes at link time (a static
// libglia.a linked into a program that also uses this header), and a
// translation unit that sees both fails to compile instead of mixing them.
namespace glia {
inline namespace cxx {
/** @addtogroup cpp
 * @{ */

/** The C error codes (enum glia_error_code: the name alone is also a function). */
using ErrorCode = enum glia_error_code;

/** A failed glia call: the C error's code and message (what() is the message). */
class Error : public std::runtime_error {
 public:
  /** An error with `code` and `message` (what glia.hpp throws for a failed C call). */
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /** The C error code, e.g. GLIA_ERR_SHAPE. */
  ErrorCode code() const noexcept { return code_; }
  /** The C error's message (the same as what()). */
  std::string message() const { return what(); }
  /** "GLIA_ERR_SHAPE" etc. */
  const char* code_name() const noexcept { return glia_error_code_name(code_); }

 private:
  ErrorCode code_;
};

namespace detail {

/** Throws (and frees) `e` when it is an error. */
inline void check(glia_error* e) {
  if (!e) return;
  const ErrorCode code = glia_error_code(e);
  std::string message = glia_error_message(e);
  glia_error_free(e);
  throw Error(code, message);
}

/** Runs `f` and turns any exception into a glia_error for the C side. */
template <class F>
glia_error* guard(F&& f) noexcept {
  try {
    f();
    return nullptr;
  } catch (const std::exception& ex) {
    return glia_error_new(GLIA_ERR_CALLBACK, ex.what());
  } catch (...) {
    return glia_error_new(GLIA_ERR_CALLBACK, "unknown C++ exception");
  }
}

/** Reads a snprintf-style C string getter: `call(buffer, capacity, &length)`. */
template <class F>
std::string read_string(F&& call) {
  size_t length = 0;
  check(call(nullptr, 0, &length));
  std::string s(length + 1, '\0');
  check(call(&s[0], s.size(), &length));
  s.resize(length);
  return s;
}

/** Deletes a heap object of type T (free_user_data for std::function callbacks). */
template <class T>
void delete_user_data(void* p) {
  delete static_cast<T*>(p);
}

/** The common part of every handle type: one owned reference. */
template <class H, glia_error* (*Retain)(H*), glia_error* (*Release)(H*)>
class Handle {
 public:
  Handle() noexcept = default;
  /** Takes over a reference (e.g. an out-handle of a C call). */
  explicit Handle(H* owned) noexcept : h_(owned) {}
  Handle(const Handle& other) : h_(other.h_) {
    if (h_) check(Retain(h_));
  }
  Handle(Handle&& other) noexcept : h_(other.h_) { other.h_ = nullptr; }
  Handle& operator=(const Handle& other) {
    Handle copy(other);
    swap(copy);
    return *this;
  }
  Handle& operator=(Handle&& other) noexcept {
    Handle moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~Handle() { reset(); }

  /** The C handle, still owned by this object. */
  H* get() const noexcept { return h_; }
  /** Gives up ownership: the caller now owns the reference. */
  H* release() noexcept {
    H* h = h_;
    h_ = nullptr;
    return h;
  }
  /** Drops the reference (the object becomes empty). */
  void reset() noexcept {
    if (h_) glia_error_free(Release(h_));
    h_ = nullptr;
  }
  void swap(Handle& other) noexcept { std::swap(h_, other.h_); }
  bool defined() const noexcept { return h_ != nullptr; }
  explicit operator bool() const noexcept { return h_ != nullptr; }

 protected:
  /** A new reference to a borrowed handle. */
  static H* retained(const H* borrowed) {
    H* h = const_cast<H*>(borrowed);
    if (h) check(Retain(h));
    return h;
  }

 private:
  H* h_ = nullptr;
};

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr glia_dtype value = GLIA_FLOAT32;
};
template <>
struct dtype_of<double> {
  static constexpr glia_dtype value = GLIA_FLOAT64;
};
template <>
struct dtype_of<int64_t> {
  static constexpr glia_dtype value = GLIA_INT64;
};
template <>
struct dtype_of<int32_t> {
  static constexpr glia_dtype value = GLIA_INT32;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr glia_dtype value = GLIA_UINT8;
};
template <>
struct dtype_of<int8_t> {
  static constexpr glia_dtype value = GLIA_INT8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr glia_dtype value = GLIA_INT16;
};

}  // namespace detail

/** A shape, strides or a list of dims (torch.Size). */
using Shape = std::vector<int64_t>;

/** dtype and device of a new tensor (torch's dtype= / device=). */
struct TensorOptions {
  /** torch's dtype= (default float32). */
  glia_dtype dtype = GLIA_FLOAT32;
  /** torch's device= (default the CPU). */
  glia_device device = {GLIA_CPU, 0};
  TensorOptions() = default;
  /** Options of dtype `d` on the CPU; implicit, so that a dtype can be passed where options are expected. */
  TensorOptions(glia_dtype d) : dtype(d) {}  // NOLINT: implicit, as torch's kFloat64
  /** The same options as the C struct glia_tensor_options. */
  glia_tensor_options c() const {
    glia_tensor_options o;
    glia_tensor_options_init(&o);
    o.dtype = dtype;
    o.device = device;
    return o;
  }
};

/** torch's name of `d` ("float32"...), NULL for an unknown value (glia_dtype_name()). */
inline const char* dtype_name(glia_dtype d) { return glia_dtype_name(d); }

class Tensor;
class Module;
class TensorDict;

/** A removable hook registration (torch's RemovableHandle). Removing twice is a no-op. */
class HookHandle {
 public:
  HookHandle() = default;
  /** A registration `id` removed by calling `remover(id)` (made by the register_*hook functions). */
  HookHandle(std::function<glia_error*(uint64_t)> remover, uint64_t id) : remover_(std::move(remover)), id_(id) {}
  /** The id the C registration returned. */
  uint64_t id() const noexcept { return id_; }
  /** Removes the hook (torch's handle.remove()); a second call does nothing. Throws Error when the C removal fails. */
  void remove() {
    if (!remover_) return;
    auto r = std::move(remover_);
    remover_ = nullptr;
    detail::check(r(id_));
  }

 private:
  std::function<glia_error*(uint64_t)> remover_;
  uint64_t id_ = 0;
};

/** A tensor (torch.Tensor). An empty Tensor (default-constructed) stands for None. */
class Tensor : public detail::Handle<glia_tensor, glia_tensor_retain, glia_tensor_release> {
  using Base = detail::Handle<glia_tensor, glia_tensor_retain, glia_tensor_release>;

 public:
  using Base::Base;
  /** A new reference to a borrowed C handle (NULL gives an empty Tensor). */
  static Tensor borrow(const glia_tensor* t) { return Tensor(retained(t)); }

  // ---- factories ----
  /** A new CPU tensor holding a copy of `data` (row-major, nbytes = numel * element size; glia_tensor_from_data()). */
  static Tensor from_data(const void* data, size_t nbytes, const Shape& shape, glia_dtype dtype) {
    glia_tensor* out = nullptr;
    detail::check(glia_tensor_from_data(data, nbytes, shape.data(), static_cast<int64_t>(shape.size()), dtype, &out));
    return Tensor(out);
  }
  /** A copy of `values` with `shape` (1-D of values.size() when shape is empty and values has more than one). */
  template <class T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape = {}) {
    if (shape.empty() && values.size() != 1) shape = {static_cast<int64_t>(values.size())};
    return from_data(values.data(), values.size() * sizeof(T), shape, detail::dtype_of<T>::value);
  }
  template <class T>
  /** from_vector of a braced list: Tensor::from_vector({1.f, 2.f}); the dtype follows T. */
  static Tensor from_vector(std::initializer_list<T> values, Shape shape = {}) {
    return from_vector(std::vector<T>(values), std::move(shape));
  }
  /** torch.empty: uninitialised memory (glia_tensor_empty()). */
  static Tensor empty(const Shape& shape, const TensorOptions& o = {}) { return make(glia_tensor_empty, shape, o); }
  /** torch.zeros (glia_tensor_zeros()). */
  static Tensor zeros(const Shape& shape, const TensorOptions& o = {}) { return make(glia_tensor_zeros, shape, o); }
  /** torch.ones (glia_tensor_ones()). */
  static Tensor ones(const Shape& shape, const TensorOptions& o = {}) { return make(glia_tensor_ones, shape, o); }
  /** torch.rand: uniform on [0, 1), floating dtypes only (glia_tensor_rand()). */
  static Tensor rand(const Shape& shape, const TensorOptions& o = {}) { return make(glia_tensor_rand, shape, o); }
  /** torch.randn: standard normal, floating dtypes only (glia_tensor_randn()). */
  static Tensor randn(const Shape& shape, const TensorOptions& o = {}) { return make(glia_tensor_randn, shape, o); }
  /** torch.full: every element `value` (glia_tensor_full()). */
  static Tensor full(const Shape& shape, double value, const TensorOptions& o = {}) {
    const glia_tensor_options c = o.c();
    glia_tensor* out = nullptr;
    detail::check(glia_tensor_full(shape.data(), static_cast<int64_t>(shape.size()), value, &c, &out));
    return Tensor(out);
  }
  /** torch.arange(start, end, step): values in [start, end) (glia_tensor_arange()). */
  static Tensor arange(double start, double end, double step = 1, const TensorOptions& o = {}) {
    const glia_tensor_options c = o.c();
    glia_tensor* out = nullptr;
    detail::check(glia_tensor_arange(start, end, step, &c, &out));
    return Tensor(out);
  }
  /** torch.arange(end): 0, 1, ..., up to end (exclusive). */
  static Tensor arange(double end, const TensorOptions& o = {}) { return arange(0, end, 1, o); }
  /** arange(end, dtype): without it, arange(5, GLIA_INT64) would convert the enum to a double end. */
  static Tensor arange(double end, glia_dtype dtype) { return arange(0, end, 1, TensorOptions(dtype)); }

  // ---- metadata ----
  /** The number of dimensions (Tensor.dim()). */
  int64_t dim() const {
    int64_t n = 0;
    detail::check(glia_tensor_ndim(get(), &n));
    return n;
  }
  /** The sizes (Tensor.shape). */
  Shape shape() const {
    Shape s(static_cast<size_t>(dim()));
    detail::check(glia_tensor_shape(get(), static_cast<int64_t>(s.size()), s.data()));
    return s;
  }
  /** The sizes, as shape() (Tensor.size()). */
  Shape sizes() const { return shape(); }
  /** The size of dim `d` (negative counts from the end); throws std::out_of_range for a bad dim. */
  int64_t size(int64_t d) const {
    const Shape s = shape();
    if (d < 0) d += static_cast<int64_t>(s.size());
    return s.at(static_cast<size_t>(d));
  }
  /** The strides, in elements (Tensor.stride()). */
  Shape strides() const {
    Shape s(static_cast<size_t>(dim()));
    detail::check(glia_tensor_strides(get(), static_cast<int64_t>(s.size()), s.data()));
    return s;
  }
  /** The number of elements. */
  int64_t numel() const {
    int64_t n = 0;
    detail::check(glia_tensor_numel(get(), &n));
    return n;
  }
  /** The element type. */
  glia_dtype dtype() const {
    glia_dtype d = GLIA_FLOAT32;
    detail::check(glia_tensor_dtype(get(), &d));
    return d;
  }
  /** The device that holds the data. */
  glia_device device() const {
    glia_device d{GLIA_CPU, 0};
    detail::check(glia_tensor_device(get(), &d));
    return d;
  }
  /** Whether the elements are contiguous in row-major order. */
  bool is_contiguous() const {
    int32_t c = 0;
    detail::check(glia_tensor_is_contiguous(get(), &c));
    return c != 0;
  }

  // ---- data ----
  /** torch's .item() as double. */
  double item() const {
    double v = 0;
    detail::check(glia_tensor_item_double(get(), &v));
    return v;
  }
  template <class T>
  /** torch's .item() as T: via int64 for integral T (floats truncated toward zero), else via double. */
  T item() const {
    if constexpr (std::is_integral_v<T>) {
      int64_t v = 0;
      detail::check(glia_tensor_item_int64(get(), &v));
      return static_cast<T>(v);
    } else {
      return static_cast<T>(item());
    }
  }
  /** The elements in row-major order; T must match the dtype (copy_to_host checks the byte count). */
  template <class T>
  std::vector<T> to_vector() const {
    std::vector<T> v(static_cast<size_t>(numel()));
    detail::check(glia_tensor_copy_to_host(get(), v.data(), v.size() * sizeof(T)));
    return v;
  }
  /** Address of the first element of a CPU tensor (valid while the tensor lives). */
  template <class T = void>
  T* data_ptr() const {
    void* p = nullptr;
    detail::check(glia_tensor_data(get(), &p));
    return static_cast<T*>(p);
  }
  /** torch's repr. */
  std::string to_string() const {
    return detail::read_string([&](char* b, size_t c, size_t* n) { return glia_tensor_to_string(get(), b, c, n); });
  }

  // ---- conversions ----
  /** Tensor.to(dtype): this tensor itself when it already has dtype `d` (glia_tensor_to()). */
  Tensor to(glia_dtype d) const {
    return unary([&](glia_tensor** o) { return glia_tensor_to(get(), nullptr, &d, o); });
  }
  /** Tensor.to(device): this tensor itself when it is already on `dev` (glia_tensor_to()). */
  Tensor to(glia_device dev) const {
    return unary([&](glia_tensor** o) { return glia_tensor_to(get(), &dev, nullptr, o); });
  }
  /** Tensor.to(device, dtype) (glia_tensor_to()). */
  Tensor to(glia_device dev, glia_dtype d) const {
    return unary([&](glia_tensor** o) { return glia_tensor_to(get(), &dev, &d, o); });
  }
  /** to(device, non_blocking=True): asynchronous when the host side is pinned memory. */
  Tensor to_non_blocking(glia_device dev) const {
    return unary([&](glia_tensor** o) { return glia_tensor_to_non_blocking(get(), &dev, nullptr, o); });
  }
  /** pin_memory(): a CPU copy in page-locked memory of `device_type`'s backend. */
  Tensor pin_memory(glia_device_type device_type = GLIA_CUDA) const {
    return unary([&](glia_tensor** o) { return glia_tensor_pin_memory(get(), device_type, o); });
  }
  /** Whether the storage is pinned host memory (Tensor.is_pinned()). */
  bool is_pinned() const {
    int32_t p = 0;
    detail::check(glia_tensor_is_pinned(get(), &p));
    return p != 0;
  }
  /** A copy with its own contiguous storage, recorded by autograd (glia_tensor_clone()). */
  Tensor clone() const {
    return unary([&](glia_tensor** o) { return glia_tensor_clone(get(), o); });
  }
  /** A view of the same storage outside any autograd graph (glia_tensor_detach()). */
  Tensor detach() const {
    return unary([&](glia_tensor** o) { return glia_tensor_detach(get(), o); });
  }
  /** This tensor when contiguous, else a contiguous copy (glia_tensor_contiguous()). */
  Tensor contiguous() const {
    return unary([&](glia_tensor** o) { return glia_tensor_contiguous(get(), o); });
  }

  // ---- autograd ----
  /** Whether gradients are recorded for this tensor (Tensor.requires_grad). */
  bool requires_grad() const {
    int32_t r = 0;
    detail::check(glia_tensor_requires_grad(get(), &r));
    return r != 0;
  }
  /** torch's requires_grad_(). */
  Tensor& requires_grad_(bool flag = true) {
    detail::check(glia_tensor_set_requires_grad(get(), flag ? 1 : 0));
    return *this;
  }
  /** Whether the tensor has no grad_fn (Tensor.is_leaf). */
  bool is_leaf() const {
    int32_t r = 0;
    detail::check(glia_tensor_is_leaf(get(), &r));
    return r != 0;
  }
  /** .grad (an empty Tensor when there is none). */
  Tensor grad() const {
    return unary([&](glia_tensor** o) { return glia_tensor_grad(get(), o); });
  }
  /** Sets .grad (an empty Tensor clears it; glia_tensor_set_grad()). */
  void set_grad(const Tensor& g) { detail::check(glia_tensor_set_grad(get(), g.get())); }
  /** torch's retain_grad(): a non-leaf keeps its .grad after backward. */
  void retain_grad() { detail::check(glia_tensor_retain_grad(get())); }
  /** The name of the node that made this tensor ("AddBackward0"), "" for a leaf (glia_tensor_grad_fn_name()). */
  std::string grad_fn_name() const {
    return detail::read_string([&](char* b, size_t c, size_t* n) { return glia_tensor_grad_fn_name(get(), b, c, n); });
  }
  /** Tensor.backward(gradient, retain_graph): `gradient` may be empty for a single-element tensor
   * (glia_tensor_backward()). */
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false) {
    detail::check(glia_tensor_backward(get(), gradient.get(), retain_graph ? 1 : 0));
  }
  /**
   * torch's register_hook: `fn(grad)` returns a replacement gradient, or an
   * empty Tensor to keep it. The std::function lives until the hook is
   * removed or the tensor's graph dies.
   */
  HookHandle register_hook(std::function<Tensor(const Tensor&)> fn);

  // ---- in place ----
  /** In place: self += alpha * other (glia_add_()). */
  Tensor& add_(const Tensor& other, double alpha = 1) {
    detail::check(glia_add_(get(), other.get(), alpha));
    return *this;
  }
  /** In place: self -= alpha * other (glia_sub_()). */
  Tensor& sub_(const Tensor& other, double alpha = 1) {
    detail::check(glia_sub_(get(), other.get(), alpha));
    return *this;
  }
  /** In place: self *= other (glia_mul_()). */
  Tensor& mul_(const Tensor& other) {
    detail::check(glia_mul_(get(), other.get()));
    return *this;
  }
  /** In place: self *= s, s as a Python float (glia_mul_scalar_()). */
  Tensor& mul_(double s) {
    detail::check(glia_mul_scalar_(get(), glia_scalar_float(s)));
    return *this;
  }
  /** In place: self = 0 (glia_zero_()). */
  Tensor& zero_() {
    detail::check(glia_zero_(get()));
    return *this;
  }
  /** In place: every element = v (glia_fill_()). */
  Tensor& fill_(double v) {
    detail::check(glia_fill_(get(), glia_scalar_float(v)));
    return *this;
  }
  /** In place: self = src, broadcast and converted to self's dtype (glia_copy_()). */
  Tensor& copy_(const Tensor& src) {
    detail::check(glia_copy_(get(), src.get()));
    return *this;
  }

  // ---- operators (each one C call) ----
  /** self + alpha * b (glia_add()). */
  Tensor add(const Tensor& b, double alpha = 1) const { return binary(glia_add, b, alpha); }
  /** self - alpha * b (glia_sub()). */
  Tensor sub(const Tensor& b, double alpha = 1) const { return binary(glia_sub, b, alpha); }
  /** self * b, elementwise (glia_mul()). */
  Tensor mul(const Tensor& b) const {
    return unary([&](glia_tensor** o) { return glia_mul(get(), b.get(), o); });
  }
  /** self / b, true division (glia_div()). */
  Tensor div(const Tensor& b) const {
    return unary([&](glia_tensor** o) { return glia_div(get(), b.get(), nullptr, o); });
  }
  /** torch.matmul(self, b) (glia_matmul()). */
  Tensor matmul(const Tensor& b) const {
    return unary([&](glia_tensor** o) { return glia_matmul(get(), b.get(), o); });
  }
  /** The matrix product of two 2-D tensors (glia_mm()). */
  Tensor mm(const Tensor& b) const {
    return unary([&](glia_tensor** o) { return glia_mm(get(), b.get(), o); });
  }
  /** self ** e (glia_pow_scalar()). */
  Tensor pow(double e) const {
    return unary([&](glia_tensor** o) { return glia_pow_scalar(get(), glia_scalar_float(e), o); });
  }
  /** -self (glia_neg()). */
  Tensor neg() const { return fn1(glia_neg); }
  /** |self| (glia_abs()). */
  Tensor abs() const { return fn1(glia_abs); }
  /** e ** self (glia_exp()). */
  Tensor exp() const { return fn1(glia_exp); }
  /** The natural logarithm (glia_log()). */
  Tensor log() const { return fn1(glia_log); }
  /** The square root (glia_sqrt()). */
  Tensor sqrt() const { return fn1(glia_sqrt); }
  /** max(self, 0) (glia_relu()). */
  Tensor relu() const { return fn1(glia_relu); }
  /** 1 / (1 + exp(-self)) (glia_sigmoid()). */
  Tensor sigmoid() const { return fn1(glia_sigmoid); }
  /** The hyperbolic tangent (glia_tanh()). */
  Tensor tanh() const { return fn1(glia_tanh); }
  /** self * sigmoid(self) (glia_silu()). */
  Tensor silu() const { return fn1(glia_silu); }
  /** GELU; approximate "none" (erf) or "tanh" (glia_gelu()). */
  Tensor gelu(const char* approximate = "none") const {
    return unary([&](glia_tensor** o) { return glia_gelu(get(), approximate, o); });
  }
  /** Clamps to [min, max]; either bound may be std::nullopt, not both (glia_clamp()). */
  Tensor clamp(std::optional<double> min, std::optional<double> max) const {
    const glia_scalar lo = glia_scalar_float(min.value_or(0)), hi = glia_scalar_float(max.value_or(0));
    return unary([&](glia_tensor** o) { return glia_clamp(get(), min ? &lo : nullptr, max ? &hi : nullptr, o); });
  }
  /** Softmax along `dim` (glia_softmax()). */
  Tensor softmax(int64_t dim) const {
    return unary([&](glia_tensor** o) { return glia_softmax(get(), dim, o); });
  }
  /** Log-softmax along `dim` (glia_log_softmax()). */
  Tensor log_softmax(int64_t dim) const {
    return unary([&](glia_tensor** o) { return glia_log_softmax(get(), dim, o); });
  }
  /** The sum of all elements, 0-dim (glia_sum()). */
  Tensor sum() const { return reduce(glia_sum, {}, false); }
  /** The sum over `dims` (glia_sum()). */
  Tensor sum(const Shape& dims, bool keepdim = false) const { return reduce(glia_sum, dims, keepdim); }
  /** The mean of all elements, 0-dim (glia_mean()). */
  Tensor mean() const { return reduce(glia_mean, {}, false); }
  /** The mean over `dims` (glia_mean()). */
  Tensor mean(const Shape& dims, bool keepdim = false) const { return reduce(glia_mean, dims, keepdim); }
  /** The maximum over `dims` (glia_amax()). */
  Tensor amax(const Shape& dims, bool keepdim = false) const { return reduce(glia_amax, dims, keepdim); }
  /** The flat index of the maximum, int64 0-dim (glia_argmax()). */
  Tensor argmax() const {
    return unary([&](glia_tensor** o) { return glia_argmax(get(), nullptr, 0, o); });
  }
  /** The index of the maximum along `dim` (glia_argmax()). */
  Tensor argmax(int64_t dim, bool keepdim = false) const {
    return unary([&](glia_tensor** o) { return glia_argmax(get(), &dim, keepdim ? 1 : 0, o); });
  }
  /** self == b, a bool tensor (glia_eq()). */
  Tensor eq(const Tensor& b) const {
    return unary([&](glia_tensor** o) { return glia_eq(get(), b.get(), o); });
  }
  /** self > b, a bool tensor (glia_gt()). */
  Tensor gt(const Tensor& b) const {
    return unary([&](glia_tensor** o) { return glia_gt(get(), b.get(), o); });
  }
  /** self < b, a bool tensor (glia_lt()). */
  Tensor lt(const Tensor& b) const {
    return unary([&](glia_tensor** o) { return glia_lt(get(), b.get(), o); });
  }

  // ---- shape ----
  /** torch.reshape: a view when possible, else a copy; one size may be -1 (glia_reshape()). */
  Tensor reshape(const Shape& s) const {
    return unary([&](glia_tensor** o) { return glia_reshape(get(), s.data(), static_cast<int64_t>(s.size()), o); });
  }
  /** Tensor.view: a view with shape `s`, which the strides must allow (glia_view()). */
  Tensor view(const Shape& s) const {
    return unary([&](glia_tensor** o) { return glia_view(get(), s.data(), static_cast<int64_t>(s.size()), o); });
  }
  /** Flattens dims start_dim..end_dim into one (glia_flatten()). */
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const {
    return unary([&](glia_tensor** o) { return glia_flatten(get(), start_dim, end_dim, o); });
  }
  /** A view with dims d0 and d1 swapped (glia_transpose()). */
  Tensor transpose(int64_t d0, int64_t d1) const {
    return unary([&](glia_tensor** o) { return glia_transpose(get(), d0, d1, o); });
  }
  /** transpose(0, 1) (Tensor.t()). */
  Tensor t() const { return transpose(0, 1); }
  /** A view with the dims in the order `dims` (glia_permute()). */
  Tensor permute(const Shape& dims) const {
    return unary(
        [&](glia_tensor** o) { return glia_permute(get(), dims.data(), static_cast<int64_t>(dims.size()), o); });
  }
  /** A view with a size-1 dim inserted at `d` (glia_unsqueeze()). */
  Tensor unsqueeze(int64_t d) const {
    return unary([&](glia_tensor** o) { return glia_unsqueeze(get(), d, o); });
  }
  /** A view without the size-1 dims (glia_squeeze()). */
  Tensor squeeze() const {
    return unary([&](glia_tensor** o) { return glia_squeeze(get(), nullptr, 0, o); });
  }
  /** A view without dim `d` when its size is 1 (glia_squeeze()). */
  Tensor squeeze(int64_t d) const {
    return unary([&](glia_tensor** o) { return glia_squeeze(get(), &d, 1, o); });
  }
  /** The view self[..., i, ...] at index `i` of dim `d`, without that dim (glia_select()). */
  Tensor select(int64_t d, int64_t i) const {
    return unary([&](glia_tensor** o) { return glia_select(get(), d, i, o); });
  }
  /** The view of `length` entries of dim `d` from `start` (glia_narrow()). */
  Tensor narrow(int64_t d, int64_t start, int64_t length) const {
    return unary([&](glia_tensor** o) { return glia_narrow(get(), d, start, length, o); });
  }

  /** Runs a C call that writes one new reference to its out-parameter. */
  template <class F>
  static Tensor unary(F&& call) {
    glia_tensor* out = nullptr;
    detail::check(call(&out));
    return Tensor(out);
  }

 private:
  template <class Factory>
  static Tensor make(Factory f, const Shape& shape, const TensorOptions& o) {
    const glia_tensor_options c = o.c();
    glia_tensor* out = nullptr;
    detail::check(f(shape.data(), static_cast<int64_t>(shape.size()), &c, &out));
    return Tensor(out);
  }
  Tensor fn1(glia_error* (*f)(const glia_tensor*, glia_tensor**)) const {
    return unary([&](glia_tensor** o) { return f(get(), o); });
  }
  Tensor binary(glia_error* (*f)(const glia_tensor*, const glia_tensor*, double, glia_tensor**), const Tensor& b,
                double alpha) const {
    return unary([&](glia_tensor** o) { return f(get(), b.get(), alpha, o); });
  }
  Tensor reduce(glia_error* (*f)(const glia_tensor*, const int64_t*, int64_t, int32_t, glia_tensor**),
                const Shape& dims, bool keepdim) const {
    return unary([&](glia_tensor** o) {
      return f(get(), dims.empty() ? nullptr : dims.data(), static_cast<int64_t>(dims.size()), keepdim ? 1 : 0, o);
    });
  }
};

// ---- tensor operators ----
/** a + b (Tensor::add). */
inline Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
/** a - b (Tensor::sub). */
inline Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
/** a * b, elementwise (Tensor::mul). */
inline Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
/** a / b, true division (Tensor::div). */
inline Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
/** -a (Tensor::neg). */
inline Tensor operator-(const Tensor& a) { return a.neg(); }
/** a + s, s as a Python float (glia_add_scalar()). */
inline Tensor operator+(const Tensor& a, double s) {
  return Tensor::unary([&](glia_tensor** o) { return glia_add_scalar(a.get(), glia_scalar_float(s), 1, o); });
}
/** s + a (as a + s). */
inline Tensor operator+(double s, const Tensor& a) { return a + s; }
/** a - s (glia_sub_scalar()). */
inline Tensor operator-(const Tensor& a, double s) {
  return Tensor::unary([&](glia_tensor** o) { return glia_sub_scalar(a.get(), glia_scalar_float(s), 1, o); });
}
/** s - a (glia_rsub_scalar()). */
inline Tensor operator-(double s, const Tensor& a) {
  return Tensor::unary([&](glia_tensor** o) { return glia_rsub_scalar(a.get(), glia_scalar_float(s), 1, o); });
}
/** a * s (glia_mul_scalar()). */
inline Tensor operator*(const Tensor& a, double s) {
  return Tensor::unary([&](glia_tensor** o) { return glia_mul_scalar(a.get(), glia_scalar_float(s), o); });
}
/** s * a (as a * s). */
inline Tensor operator*(double s, const Tensor& a) { return a * s; }
/** a / s, true division (glia_div_scalar()). */
inline Tensor operator/(const Tensor& a, double s) {
  return Tensor::unary([&](glia_tensor** o) { return glia_div_scalar(a.get(), glia_scalar_float(s), nullptr, o); });
}
/** In place: a += b (Tensor::add_). */
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
/** In place: a -= b (Tensor::sub_). */
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
/** In place: a *= b (Tensor::mul_). */
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
/** In place: a *= s (Tensor::mul_). */
inline Tensor& operator*=(Tensor& a, double s) { return a.mul_(s); }
/** Prints torch's repr of `t` ("Tensor(undefined)" for an empty Tensor). */
inline std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << (t ? t.to_string() : std::string("Tensor(undefined)"));
}

/** torch.matmul(a, b). */
inline Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }
/** torch.relu(a). */
inline Tensor relu(const Tensor& a) { return a.relu(); }
/** torch.cat: joins `ts` along the existing dim `dim` (glia_cat()). */
inline Tensor cat(const std::vector<Tensor>& ts, int64_t dim = 0) {
  std::vector<const glia_tensor*> raw;
  for (const Tensor& t : ts) raw.push_back(t.get());
  return Tensor::unary([&](glia_tensor** o) { return glia_cat(raw.data(), static_cast<int64_t>(raw.size()), dim, o); });
}
/** torch.stack: joins `ts` along a new dim `dim` (glia_stack()). */
inline Tensor stack(const std::vector<Tensor>& ts, int64_t dim = 0) {
  std::vector<const glia_tensor*> raw;
  for (const Tensor& t : ts) raw.push_back(t.get());
  return Tensor::unary(
      [&](glia_tensor** o) { return glia_stack(raw.data(), static_cast<int64_t>(raw.size()), dim, o); });
}

/** torch.nn.functional. */
namespace F {
/** F.linear: x @ w^T + b; `b` may be empty (glia_linear()). */
inline Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b = Tensor()) {
  return Tensor::unary([&](glia_tensor** o) { return glia_linear(x.get(), w.get(), b.get(), o); });
}
/** F.mse_loss (glia_mse_loss()). */
inline Tensor mse_loss(const Tensor& input, const Tensor& target, glia_reduction r = GLIA_REDUCTION_MEAN) {
  return Tensor::unary([&](glia_tensor** o) { return glia_mse_loss(input.get(), target.get(), r, o); });
}
/** F.cross_entropy with torch's defaults (glia_cross_entropy()). */
inline Tensor cross_entropy(const Tensor& input, const Tensor& target) {
  return Tensor::unary([&](glia_tensor** o) { return glia_cross_entropy(input.get(), target.get(), nullptr, o); });
}
/** F.dropout: zeroes elements with probability p and scales the rest by 1 / (1 - p) when training (glia_dropout()). */
inline Tensor dropout(const Tensor& x, double p, bool training) {
  return Tensor::unary([&](glia_tensor** o) { return glia_dropout(x.get(), p, training ? 1 : 0, o); });
}
}  // namespace F

namespace detail {
inline std::vector<Tensor> borrow_all(const glia_tensor* const* ts, int64_t n) {
  std::vector<Tensor> v;
  v.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v.push_back(Tensor::borrow(ts[i]));
  return v;
}
/** Hands `ts` over to C out-slots (new references; empty -> NULL). */
inline void hand_over(std::vector<Tensor>&& ts, glia_tensor** out, int64_t capacity, int64_t* out_n) {
  if (static_cast<int64_t>(ts.size()) > capacity)
    throw std::length_error("glia.hpp: more outputs than GLIA_MODULE_MAX_OUTPUTS");
  for (size_t i = 0; i < ts.size(); ++i) out[i] = ts[i].release();
  *out_n = static_cast<int64_t>(ts.size());
}
}  // namespace detail

inline HookHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> fn) {
  using Fn = std::function<Tensor(const Tensor&)>;
  auto* heap = new Fn(std::move(fn));
  auto trampoline = [](void* user, const glia_tensor* grad, glia_tensor** out) -> glia_error* {
    return detail::guard([&] {
      Tensor r = (*static_cast<Fn*>(user))(Tensor::borrow(grad));
      if (r) *out = r.release();
    });
  };
  uint64_t id = 0;
  // free_user_data runs even when the registration fails, so `heap` is never leaked.
  detail::check(glia_tensor_register_hook(get(), trampoline, heap, detail::delete_user_data<Fn>, &id));
  Tensor self = *this;
  return HookHandle([self](uint64_t i) { return glia_tensor_remove_hook(self.get(), i); }, id);
}

/** torch.no_grad(): grad mode off for the calling thread while in scope. */
class NoGradGuard {
 public:
  NoGradGuard() : prev_(glia_grad_mode_enabled()) { glia_grad_mode_set(0); }
  ~NoGradGuard() { glia_grad_mode_set(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  int32_t prev_;
};

/** torch.inference_mode() for the calling thread while in scope. */
class InferenceModeGuard {
 public:
  InferenceModeGuard() : prev_(glia_inference_mode_enabled()) { glia_inference_mode_set(1); }
  ~InferenceModeGuard() { glia_inference_mode_set(prev_); }
  InferenceModeGuard(const InferenceModeGuard&) = delete;
  InferenceModeGuard& operator=(const InferenceModeGuard&) = delete;

 private:
  int32_t prev_;
};

/** An ordered name -> tensor map (state dicts, checkpoints). */
class TensorDict : public detail::Handle<glia_tensor_dict, glia_tensor_dict_retain, glia_tensor_dict_release> {
  using Base = detail::Handle<glia_tensor_dict, glia_tensor_dict_retain, glia_tensor_dict_release>;

 public:
  using Base::Base;
  /** A new reference to a borrowed C handle (NULL gives an empty TensorDict). */
  static TensorDict borrow(const glia_tensor_dict* d) { return TensorDict(retained(d)); }
  /** An empty dict (glia_tensor_dict_create()). */
  static TensorDict create() {
    glia_tensor_dict* d = nullptr;
    detail::check(glia_tensor_dict_create(&d));
    return TensorDict(d);
  }
  /** Reads a checkpoint file: safetensors or torch.save, detected by default (glia_tensor_dict_load()). */
  static TensorDict load(const std::string& path, glia_format format = GLIA_FORMAT_AUTO) {
    glia_tensor_dict* d = nullptr;
    detail::check(glia_tensor_dict_load(path.c_str(), format, &d));
    return TensorDict(d);
  }
  /** Reads a checkpoint from memory (glia_tensor_dict_load_buffer()). */
  static TensorDict load_buffer(const void* data, size_t size, glia_format format = GLIA_FORMAT_AUTO) {
    glia_tensor_dict* d = nullptr;
    detail::check(glia_tensor_dict_load_buffer(data, size, format, &d));
    return TensorDict(d);
  }
  /** Writes the dict to `path` (glia_tensor_dict_save()). */
  void save(const std::string& path, glia_format format = GLIA_FORMAT_SAFETENSORS) const {
    detail::check(glia_tensor_dict_save(get(), path.c_str(), format));
  }
  /** The bytes of the file save() would write (glia_tensor_dict_save_buffer()). */
  std::vector<uint8_t> save_buffer(glia_format format = GLIA_FORMAT_SAFETENSORS) const {
    void* data = nullptr;
    size_t size = 0;
    detail::check(glia_tensor_dict_save_buffer(get(), format, &data, &size));
    std::vector<uint8_t> bytes(static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
    glia_buffer_free(data);
    return bytes;
  }
  /** The number of entries. */
  int64_t size() const {
    int64_t n = 0;
    detail::check(glia_tensor_dict_size(get(), &n));
    return n;
  }
  /** The key of entry `i` (insertion order). */
  std::string key_at(int64_t i) const {
    return detail::read_string(
        [&](char* b, size_t c, size_t* n) { return glia_tensor_dict_key_at(get(), i, b, c, n); });
  }
  /** The tensor of entry `i`. */
  Tensor value_at(int64_t i) const {
    return Tensor::unary([&](glia_tensor** o) { return glia_tensor_dict_value_at(get(), i, o); });
  }
  /** The keys in insertion order. */
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (int64_t i = 0, n = size(); i < n; ++i) k.push_back(key_at(i));
    return k;
  }
  /** The tensors in insertion order. */
  std::vector<Tensor> values() const {
    std::vector<Tensor> v;
    for (int64_t i = 0, n = size(); i < n; ++i) v.push_back(value_at(i));
    return v;
  }
  /** (key, tensor) pairs in insertion order. */
  std::vector<std::pair<std::string, Tensor>> items() const {
    std::vector<std::pair<std::string, Tensor>> v;
    for (int64_t i = 0, n = size(); i < n; ++i) v.emplace_back(key_at(i), value_at(i));
    return v;
  }
  /** The tensor of `key`; throws Error (GLIA_ERR_NOT_FOUND) when absent. */
  Tensor at(const std::string& key) const {
    return Tensor::unary([&](glia_tensor** o) { return glia_tensor_dict_get(get(), key.c_str(), o); });
  }
  /** at(key). */
  Tensor operator[](const std::string& key) const { return at(key); }
  /** Whether `key` is present. */
  bool contains(const std::string& key) const {
    int32_t r = 0;
    detail::check(glia_tensor_dict_contains(get(), key.c_str(), &r));
    return r != 0;
  }
  /** Inserts or replaces `key` (a replaced key keeps its position). */
  void set(const std::string& key, const Tensor& t) {
    detail::check(glia_tensor_dict_set(get(), key.c_str(), t.get()));
  }
  /** Removes `key`; throws Error (GLIA_ERR_NOT_FOUND) when absent. */
  void remove(const std::string& key) { detail::check(glia_tensor_dict_remove(get(), key.c_str())); }
  /** Sets a string metadata entry (saved in safetensors' __metadata__). */
  void set_metadata(const std::string& key, const std::string& value) {
    detail::check(glia_tensor_dict_set_metadata(get(), key.c_str(), value.c_str()));
  }
  /** The metadata value of `key`; throws Error (GLIA_ERR_NOT_FOUND) when absent. */
  std::string metadata(const std::string& key) const {
    return detail::read_string(
        [&](char* b, size_t c, size_t* n) { return glia_tensor_dict_get_metadata(get(), key.c_str(), b, c, n); });
  }
};

/** What load_state_dict found. */
struct LoadResult {
  /** Keys of the module that the dict lacked. */
  std::vector<std::string> missing_keys;
  /** Keys of the dict that the module lacks. */
  std::vector<std::string> unexpected_keys;
};

namespace detail {
inline LoadResult take_report(glia_load_report* report) {
  struct Release {
    glia_load_report* r;
    ~Release() { glia_error_free(glia_load_report_release(r)); }
  } guard_{report};
  LoadResult result;
  for (glia_report_keys which : {GLIA_KEYS_MISSING, GLIA_KEYS_UNEXPECTED}) {
    int64_t n = 0;
    check(glia_load_report_count(report, which, &n));
    auto& list = which == GLIA_KEYS_MISSING ? result.missing_keys : result.unexpected_keys;
    for (int64_t i = 0; i < n; ++i)
      list.push_back(read_string(
          [&](char* b, size_t c, size_t* len) { return glia_load_report_key(report, which, i, b, c, len); }));
  }
  return result;
}
}  // namespace detail

/** A module (torch.nn.Module): a built-in from glia::nn, or a custom one from Module::custom. */
class Module : public detail::Handle<glia_module, glia_module_retain, glia_module_release> {
  using Base = detail::Handle<glia_module, glia_module_retain, glia_module_release>;

 public:
  using Base::Base;
  /** A new reference to a borrowed C handle (NULL gives an empty Module). */
  static Module borrow(const glia_module* m) { return Module(retained(m)); }

  /** forward(self, inputs) -> outputs: the forward of a custom module. */
  using ForwardFn = std::function<std::vector<Tensor>(Module& self, const std::vector<Tensor>& inputs)>;
  /** Hooks return replacement tensors, or std::nullopt to keep what they received. */
  using ForwardPreHook = std::function<std::optional<std::vector<Tensor>>(Module&, const std::vector<Tensor>& inputs)>;
  /** forward hook(self, inputs, outputs): returns replacement outputs or std::nullopt. */
  using ForwardHook = std::function<std::optional<std::vector<Tensor>>(Module&, const std::vector<Tensor>& inputs,
                                                                       const std::vector<Tensor>& outputs)>;
  /** full backward pre-hook(self, grad_outputs): returns replacement grad_outputs or std::nullopt. */
  using BackwardPreHook =
      std::function<std::optional<std::vector<Tensor>>(Module&, const std::vector<Tensor>& grad_outputs)>;
  /** full backward hook(self, grad_inputs, grad_outputs): returns replacement grad_inputs or std::nullopt. */
  using BackwardHook = std::function<std::optional<std::vector<Tensor>>(Module&, const std::vector<Tensor>& grad_inputs,
                                                                        const std::vector<Tensor>& grad_outputs)>;

  /**
   * A module whose forward is `forward` (glia_module_create). Register its
   * parameters and children with register_parameter / add_module.
   */
  static Module custom(const std::string& type_name, ForwardFn forward) {
    glia_module_def def;
    glia_module_def_init(&def);
    def.forward = [](void* user, glia_module* self, const glia_tensor* const* inputs, int64_t n_inputs,
                     glia_tensor** outputs, int64_t capacity, int64_t* out_n) -> glia_error* {
      return detail::guard([&] {
        Module m = Module::borrow(self);
        detail::hand_over((*static_cast<ForwardFn*>(user))(m, detail::borrow_all(inputs, n_inputs)), outputs, capacity,
                          out_n);
      });
    };
    def.user_data = new ForwardFn(std::move(forward));
    def.free_user_data = detail::delete_user_data<ForwardFn>;
    glia_module* out = nullptr;
    detail::check(glia_module_create(type_name.c_str(), &def, &out));
    return Module(out);
  }
  /** A custom module of one input and one output. */
  static Module custom(const std::string& type_name, std::function<Tensor(const Tensor&)> forward) {
    return custom(type_name, [f = std::move(forward)](Module&, const std::vector<Tensor>& in) {
      return std::vector<Tensor>{f(in.at(0))};
    });
  }

  /** Module.__call__ with any number of inputs and outputs. */
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) {
    std::vector<const glia_tensor*> raw;
    for (const Tensor& t : inputs) raw.push_back(t.get());
    glia_tensor* outs[GLIA_MODULE_MAX_OUTPUTS] = {};
    int64_t n = 0;
    detail::check(
        glia_module_forward(get(), raw.data(), static_cast<int64_t>(raw.size()), outs, GLIA_MODULE_MAX_OUTPUTS, &n));
    std::vector<Tensor> result;
    for (int64_t i = 0; i < n; ++i) result.emplace_back(outs[i]);
    return result;
  }
  /** Module.__call__ for a module with one output (the first output otherwise). */
  template <class... Ts>
  Tensor operator()(const Tensor& x, const Ts&... rest) {
    std::vector<Tensor> out = forward({x, rest...});
    return out.empty() ? Tensor() : std::move(out[0]);
  }

  // ---- tree ----
  /** Module.register_parameter (glia_module_register_parameter()). */
  void register_parameter(const std::string& name, const Tensor& t) {
    detail::check(glia_module_register_parameter(get(), name.c_str(), t.get()));
  }
  /** Module.register_buffer; a non-persistent buffer is not in the state dict (glia_module_register_buffer()). */
  void register_buffer(const std::string& name, const Tensor& t, bool persistent = true) {
    detail::check(glia_module_register_buffer(get(), name.c_str(), t.get(), persistent ? 1 : 0));
  }
  /** Module.add_module: registers `child` as a submodule (glia_module_add_module()). */
  void add_module(const std::string& name, const Module& child) {
    detail::check(glia_module_add_module(get(), name.c_str(), child.get()));
  }
  /** Module.get_submodule("a.b") (glia_module_get_submodule()). */
  Module submodule(const std::string& path) {
    glia_module* m = nullptr;
    detail::check(glia_module_get_submodule(get(), path.c_str(), &m));
    return Module(m);
  }
  /** Module.get_parameter("a.weight") (glia_module_get_parameter()). */
  Tensor parameter(const std::string& path) {
    return Tensor::unary([&](glia_tensor** o) { return glia_module_get_parameter(get(), path.c_str(), o); });
  }
  /** Module.get_buffer("bn.running_mean") (glia_module_get_buffer()). */
  Tensor buffer(const std::string& path) {
    return Tensor::unary([&](glia_tensor** o) { return glia_module_get_buffer(get(), path.c_str(), o); });
  }
  /** named_parameters(): the parameters themselves (not copies) by dotted name (glia_module_named_parameters()). */
  TensorDict named_parameters(bool recurse = true) {
    glia_tensor_dict* d = nullptr;
    detail::check(glia_module_named_parameters(get(), nullptr, recurse ? 1 : 0, 1, &d));
    return TensorDict(d);
  }
  /** parameters(): the values of named_parameters(). */
  std::vector<Tensor> parameters(bool recurse = true) { return named_parameters(recurse).values(); }
  /** named_buffers(): the buffers themselves by dotted name (glia_module_named_buffers()). */
  TensorDict named_buffers(bool recurse = true) {
    glia_tensor_dict* d = nullptr;
    detail::check(glia_module_named_buffers(get(), nullptr, recurse ? 1 : 0, 1, &d));
    return TensorDict(d);
  }

  // ---- modes ----
  /** Module.train(mode), for this module and its children (glia_module_train()). */
  Module& train(bool mode = true) {
    detail::check(glia_module_train(get(), mode ? 1 : 0));
    return *this;
  }
  /** Module.eval(): train(false). */
  Module& eval() { return train(false); }
  /** The training flag. */
  bool is_training() const {
    int32_t r = 0;
    detail::check(glia_module_is_training(get(), &r));
    return r != 0;
  }
  /** Module.zero_grad: clears every parameter's .grad, or zeroes it when !set_to_none (glia_module_zero_grad()). */
  void zero_grad(bool set_to_none = true) { detail::check(glia_module_zero_grad(get(), set_to_none ? 1 : 0)); }
  /** Module.requires_grad_: sets requires_grad of every parameter (glia_module_requires_grad()). */
  Module& requires_grad_(bool flag = true) {
    detail::check(glia_module_requires_grad(get(), flag ? 1 : 0));
    return *this;
  }
  /** Module.to(dtype): converts the floating parameters and buffers (glia_module_to()). */
  Module& to(glia_dtype dtype) {
    detail::check(glia_module_to(get(), nullptr, &dtype));
    return *this;
  }
  /** torch's repr of the module tree (glia_module_to_string()). */
  std::string to_string() const {
    return detail::read_string([&](char* b, size_t c, size_t* n) { return glia_module_to_string(get(), b, c, n); });
  }
  /** The type name ("Linear"). */
  std::string type_name() const {
    return detail::read_string([&](char* b, size_t c, size_t* n) { return glia_module_type_name(get(), b, c, n); });
  }

  // ---- state ----
  /** Module.state_dict(): parameters and persistent buffers by dotted name (glia_module_state_dict()). */
  TensorDict state_dict() {
    glia_tensor_dict* d = nullptr;
    detail::check(glia_module_state_dict(get(), &d));
    return TensorDict(d);
  }
  /** Module.load_state_dict(dict, strict, assign); with strict, missing or unexpected keys throw Error
   * (glia_module_load_state_dict()). */
  LoadResult load_state_dict(const TensorDict& dict, bool strict = true, bool assign = false) {
    glia_load_report* r = nullptr;
    detail::check(glia_module_load_state_dict(get(), dict.get(), strict ? 1 : 0, assign ? 1 : 0, &r));
    return detail::take_report(r);
  }
  /** Saves state_dict() as safetensors. */
  void save(const std::string& path) { detail::check(glia_module_save(get(), path.c_str())); }
  /** Loads a checkpoint of any format (safetensors or torch.save). */
  LoadResult load(const std::string& path, bool strict = true) {
    glia_load_report* r = nullptr;
    detail::check(glia_module_load(get(), path.c_str(), strict ? 1 : 0, &r));
    return detail::take_report(r);
  }

  // ---- hooks ----
  /** register_forward_pre_hook; `flags` are the C API's GLIA_HOOK_* flags (glia_module_add_forward_pre_hook()). */
  HookHandle register_forward_pre_hook(ForwardPreHook fn, uint32_t flags = 0) {
    auto* heap = new ForwardPreHook(std::move(fn));
    auto cb = [](void* user, glia_module* m, const glia_tensor* const* in, int64_t n_in, glia_tensor** rep, int64_t cap,
                 int64_t* n_rep) -> glia_error* {
      return detail::guard([&] {
        Module self = Module::borrow(m);
        auto r = (*static_cast<ForwardPreHook*>(user))(self, detail::borrow_all(in, n_in));
        if (r) detail::hand_over(std::move(*r), rep, cap, n_rep);
      });
    };
    uint64_t id = 0;
    detail::check(
        glia_module_add_forward_pre_hook(get(), cb, heap, detail::delete_user_data<ForwardPreHook>, flags, &id));
    return remover(id);
  }
  /** register_forward_hook; `flags` are GLIA_HOOK_* flags (glia_module_add_forward_hook()). */
  HookHandle register_forward_hook(ForwardHook fn, uint32_t flags = 0) {
    auto* heap = new ForwardHook(std::move(fn));
    auto cb = [](void* user, glia_module* m, const glia_tensor* const* in, int64_t n_in, const glia_tensor* const* outs,
                 int64_t n_out, glia_tensor** rep, int64_t cap, int64_t* n_rep) -> glia_error* {
      return detail::guard([&] {
        Module self = Module::borrow(m);
        auto r =
            (*static_cast<ForwardHook*>(user))(self, detail::borrow_all(in, n_in), detail::borrow_all(outs, n_out));
        if (r) detail::hand_over(std::move(*r), rep, cap, n_rep);
      });
    };
    uint64_t id = 0;
    detail::check(glia_module_add_forward_hook(get(), cb, heap, detail::delete_user_data<ForwardHook>, flags, &id));
    return remover(id);
  }
  /** register_full_backward_pre_hook (glia_module_add_backward_pre_hook()). */
  HookHandle register_full_backward_pre_hook(BackwardPreHook fn, uint32_t flags = 0) {
    auto* heap = new BackwardPreHook(std::move(fn));
    auto cb = [](void* user, glia_module* m, const glia_tensor* const* go, int64_t n_go, glia_tensor** rep, int64_t cap,
                 int64_t* n_rep) -> glia_error* {
      return detail::guard([&] {
        Module self = Module::borrow(m);
        auto r = (*static_cast<BackwardPreHook*>(user))(self, detail::borrow_all(go, n_go));
        if (r) detail::hand_over(std::move(*r), rep, cap, n_rep);
      });
    };
    uint64_t id = 0;
    detail::check(
        glia_module_add_backward_pre_hook(get(), cb, heap, detail::delete_user_data<BackwardPreHook>, flags, &id));
    return remover(id);
  }
  /** register_full_backward_hook (glia_module_add_backward_hook()). */
  HookHandle register_full_backward_hook(BackwardHook fn, uint32_t flags = 0) {
    auto* heap = new BackwardHook(std::move(fn));
    auto cb = [](void* user, glia_module* m, const glia_tensor* const* gi, int64_t n_gi, const glia_tensor* const* go,
                 int64_t n_go, glia_tensor** rep, int64_t cap, int64_t* n_rep) -> glia_error* {
      return detail::guard([&] {
        Module self = Module::borrow(m);
        auto r = (*static_cast<BackwardHook*>(user))(self, detail::borrow_all(gi, n_gi), detail::borrow_all(go, n_go));
        if (r) detail::hand_over(std::move(*r), rep, cap, n_rep);
      });
    };
    uint64_t id = 0;
    detail::check(glia_module_add_backward_hook(get(), cb, heap, detail::delete_user_data<BackwardHook>, flags, &id));
    return remover(id);
  }

 private:
  HookHandle remover(uint64_t id) {
    Module self = *this;
    return HookHandle([self](uint64_t i) { return glia_module_remove_hook(self.get(), i); }, id);
  }
};

/** Prints torch's repr of the module tree. */
inline std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.to_string(); }

/** Built-in modules (torch.nn), each made by one glia_nn_* constructor. */
namespace nn {
namespace detail {
template <class F>
Module make(F&& call) {
  glia_module* m = nullptr;
  glia::detail::check(call(&m));
  return Module(m);
}
}  // namespace detail

/** torch.nn.Identity (glia_nn_identity()). */
inline Module Identity() {
  return detail::make([](glia_module** o) { return glia_nn_identity(nullptr, o); });
}
/** torch.nn.Linear(in_features, out_features, bias) (glia_nn_linear()). */
inline Module Linear(int64_t in_features, int64_t out_features, bool bias = true) {
  return detail::make([&](glia_module** o) { return glia_nn_linear(in_features, out_features, bias, nullptr, o); });
}
/** torch.nn.Conv2d with a square kernel; `options` from glia_nn_conv2d_options_init (NULL: defaults). */
inline Module Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
                     int64_t padding = 0, bool bias = true) {
  glia_nn_conv2d_options opt;
  glia_nn_conv2d_options_init(&opt);
  opt.stride[0] = opt.stride[1] = stride;
  opt.padding[0] = opt.padding[1] = padding;
  opt.bias = bias ? 1 : 0;
  return detail::make([&](glia_module** o) {
    return glia_nn_conv2d(in_channels, out_channels, kernel_size, kernel_size, &opt, nullptr, o);
  });
}
/** torch.nn.MaxPool2d with a square window; stride 0 means kernel_size, as torch's None (glia_nn_max_pool2d()). */
inline Module MaxPool2d(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0) {
  glia_max_pool2d_options opt;
  glia_max_pool2d_options_init(&opt);
  opt.kernel_size[0] = opt.kernel_size[1] = kernel_size;
  opt.stride[0] = opt.stride[1] = stride;
  opt.padding[0] = opt.padding[1] = padding;
  return detail::make([&](glia_module** o) { return glia_nn_max_pool2d(&opt, nullptr, o); });
}
/** torch.nn.AdaptiveAvgPool2d((out_h, out_w)) (glia_nn_adaptive_avg_pool2d()). */
inline Module AdaptiveAvgPool2d(int64_t out_h, int64_t out_w) {
  return detail::make([&](glia_module** o) { return glia_nn_adaptive_avg_pool2d(out_h, out_w, nullptr, o); });
}
/** torch.nn.ReLU (glia_nn_relu()). */
inline Module ReLU() {
  return detail::make([](glia_module** o) { return glia_nn_relu(nullptr, o); });
}
/** torch.nn.GELU(approximate) (glia_nn_gelu()). */
inline Module GELU(const char* approximate = "none") {
  return detail::make([&](glia_module** o) { return glia_nn_gelu(approximate, nullptr, o); });
}
/** torch.nn.SiLU (glia_nn_silu()). */
inline Module SiLU() {
  return detail::make([](glia_module** o) { return glia_nn_silu(nullptr, o); });
}
/** torch.nn.Sigmoid (glia_nn_sigmoid()). */
inline Module Sigmoid() {
  return detail::make([](glia_module** o) { return glia_nn_sigmoid(nullptr, o); });
}
/** torch.nn.Tanh (glia_nn_tanh()). */
inline Module Tanh() {
  return detail::make([](glia_module** o) { return glia_nn_tanh(nullptr, o); });
}
/** torch.nn.Softmax(dim) (glia_nn_softmax()). */
inline Module Softmax(int64_t dim) {
  return detail::make([&](glia_module** o) { return glia_nn_softmax(dim, nullptr, o); });
}
/** torch.nn.LogSoftmax(dim) (glia_nn_log_softmax()). */
inline Module LogSoftmax(int64_t dim) {
  return detail::make([&](glia_module** o) { return glia_nn_log_softmax(dim, nullptr, o); });
}
/** torch.nn.Dropout(p) (glia_nn_dropout()). */
inline Module Dropout(double p = 0.5) {
  return detail::make([&](glia_module** o) { return glia_nn_dropout(p, nullptr, o); });
}
/** torch.nn.Flatten(start_dim, end_dim) (glia_nn_flatten()). */
inline Module Flatten(int64_t start_dim = 1, int64_t end_dim = -1) {
  return detail::make([&](glia_module** o) { return glia_nn_flatten(start_dim, end_dim, nullptr, o); });
}
/** torch.nn.BatchNorm2d(num_features) with torch's defaults (glia_nn_batch_norm2d()). */
inline Module BatchNorm2d(int64_t num_features) {
  return detail::make([&](glia_module** o) { return glia_nn_batch_norm2d(num_features, nullptr, nullptr, o); });
}
/** torch.nn.LayerNorm(normalized_shape, eps), with weight and bias (glia_nn_layer_norm()). */
inline Module LayerNorm(const Shape& normalized_shape, double eps = 1e-5) {
  return detail::make([&](glia_module** o) {
    return glia_nn_layer_norm(normalized_shape.data(), static_cast<int64_t>(normalized_shape.size()), eps, 1, 1,
                              nullptr, o);
  });
}
/** torch.nn.Embedding(num_embeddings, embedding_dim) (glia_nn_embedding()). */
inline Module Embedding(int64_t num_embeddings, int64_t embedding_dim) {
  return detail::make([&](glia_module** o) {
    return glia_nn_embedding(num_embeddings, embedding_dim, nullptr, nullptr, 2.0, nullptr, o);
  });
}
/** torch.nn.RNNCell; forward(input[, h]) returns h' (Note [Recurrent modules through glia_module_forward]). */
inline Module RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true, const char* nonlinearity = "tanh") {
  return detail::make(
      [&](glia_module** o) { return glia_nn_rnn_cell(input_size, hidden_size, bias, nonlinearity, nullptr, o); });
}
/** torch.nn.LSTMCell; forward(input[, h, c]) returns (h', c'). */
inline Module LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true) {
  return detail::make([&](glia_module** o) { return glia_nn_lstm_cell(input_size, hidden_size, bias, nullptr, o); });
}
/** torch.nn.GRUCell; forward(input[, h]) returns h'. */
inline Module GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true) {
  return detail::make([&](glia_module** o) { return glia_nn_gru_cell(input_size, hidden_size, bias, nullptr, o); });
}
/** torch.nn.RNN/LSTM/GRU's keywords (glia_nn_rnn_options); nonlinearity is RNN's. */
struct RNNOptions {
  /** Stacked layers (num_layers). */
  int64_t num_layers = 1;
  /** Whether the layers have bias weights (bias). */
  bool bias = true;
  /** Input and output as [batch, seq, feature] instead of [seq, batch, feature] (batch_first). */
  bool batch_first = false;
  /** Dropout on the outputs of every layer but the last, in training (dropout). */
  double dropout = 0.0;
  /** A second, backward direction per layer (bidirectional). */
  bool bidirectional = false;
  /** LSTM only: projects h to this size when > 0 (proj_size). */
  int64_t proj_size = 0;
  /** RNN only: "tanh" (NULL, the default) or "relu" (nonlinearity). */
  const char* nonlinearity = nullptr;
};
namespace detail {
inline glia_nn_rnn_options rnn_options(const RNNOptions& r) {
  glia_nn_rnn_options o;
  glia_nn_rnn_options_init(&o);
  o.num_layers = r.num_layers;
  o.bias = r.bias ? 1 : 0;
  o.batch_first = r.batch_first ? 1 : 0;
  o.dropout = r.dropout;
  o.bidirectional = r.bidirectional ? 1 : 0;
  o.proj_size = r.proj_size;
  o.nonlinearity = r.nonlinearity;
  return o;
}
}  // namespace detail
/** torch.nn.RNN; forward(input[, h_0]) returns (output, h_n). */
inline Module RNN(int64_t input_size, int64_t hidden_size, const RNNOptions& options = {}) {
  glia_nn_rnn_options o = detail::rnn_options(options);
  return detail::make([&](glia_module** m) { return glia_nn_rnn(input_size, hidden_size, &o, nullptr, m); });
}
/** torch.nn.LSTM; forward(input[, h_0, c_0]) returns (output, h_n, c_n). */
inline Module LSTM(int64_t input_size, int64_t hidden_size, const RNNOptions& options = {}) {
  glia_nn_rnn_options o = detail::rnn_options(options);
  return detail::make([&](glia_module** m) { return glia_nn_lstm(input_size, hidden_size, &o, nullptr, m); });
}
/** torch.nn.GRU; forward(input[, h_0]) returns (output, h_n). */
inline Module GRU(int64_t input_size, int64_t hidden_size, const RNNOptions& options = {}) {
  glia_nn_rnn_options o = detail::rnn_options(options);
  return detail::make([&](glia_module** m) { return glia_nn_gru(input_size, hidden_size, &o, nullptr, m); });
}
/** torch.nn.CrossEntropyLoss with torch's defaults (glia_nn_cross_entropy_loss()). */
inline Module CrossEntropyLoss() {
  return detail::make([](glia_module** o) { return glia_nn_cross_entropy_loss(nullptr, nullptr, o); });
}
/** torch.nn.MSELoss(reduction) (glia_nn_mse_loss()). */
inline Module MSELoss(glia_reduction reduction = GLIA_REDUCTION_MEAN) {
  return detail::make([&](glia_module** o) { return glia_nn_mse_loss(reduction, nullptr, o); });
}
/** torch.nn.Sequential of `modules`, named "0", "1", ... (glia_nn_sequential()). */
inline Module Sequential(const std::vector<Module>& modules) {
  std::vector<glia_module*> raw;
  for (const Module& m : modules) raw.push_back(m.get());
  return detail::make(
      [&](glia_module** o) { return glia_nn_sequential(raw.data(), static_cast<int64_t>(raw.size()), o); });
}
/** nn::Sequential({nn::Linear(4, 8), nn::ReLU()}). */
inline Module Sequential(std::initializer_list<Module> modules) { return Sequential(std::vector<Module>(modules)); }
}  // namespace nn

/** An optimizer (torch.optim). Made by optim::SGD / optim::Adam / optim::AdamW. */
class Optimizer : public detail::Handle<glia_optimizer, glia_optimizer_retain, glia_optimizer_release> {
  using Base = detail::Handle<glia_optimizer, glia_optimizer_retain, glia_optimizer_release>;

 public:
  using Base::Base;
  /** Optimizer.step(): one update of every parameter with a gradient (glia_optimizer_step()). */
  void step() { detail::check(glia_optimizer_step(get())); }
  /** Optimizer.zero_grad: clears every parameter's .grad, or zeroes it when !set_to_none. */
  void zero_grad(bool set_to_none = true) { detail::check(glia_optimizer_zero_grad(get(), set_to_none ? 1 : 0)); }
  /** The learning rate of param group `group` (glia_optimizer_get_lr()). */
  double lr(int64_t group = 0) const {
    double v = 0;
    detail::check(glia_optimizer_get_lr(get(), group, &v));
    return v;
  }
  /** Sets the learning rate of param group `group` (glia_optimizer_set_lr()). */
  void set_lr(double lr, int64_t group = 0) { detail::check(glia_optimizer_set_lr(get(), group, lr)); }
  /** The number of param groups. */
  int64_t num_param_groups() const {
    int64_t n = 0;
    detail::check(glia_optimizer_num_param_groups(get(), &n));
    return n;
  }
  /** Optimizer.state_dict() as a flat dict (glia_optimizer_state_dict()). */
  TensorDict state_dict() const {
    glia_tensor_dict* d = nullptr;
    detail::check(glia_optimizer_state_dict(get(), &d));
    return TensorDict(d);
  }
  /** Optimizer.load_state_dict (glia_optimizer_load_state_dict()). */
  void load_state_dict(const TensorDict& d) { detail::check(glia_optimizer_load_state_dict(get(), d.get())); }
};

/** A learning-rate scheduler (torch.optim.lr_scheduler). */
class LrScheduler : public detail::Handle<glia_lr_scheduler, glia_lr_scheduler_retain, glia_lr_scheduler_release> {
  using Base = detail::Handle<glia_lr_scheduler, glia_lr_scheduler_retain, glia_lr_scheduler_release>;

 public:
  using Base::Base;
  /** scheduler.step(): advances one epoch and sets the optimizer's learning rates (glia_lr_scheduler_step()). */
  void step() { detail::check(glia_lr_scheduler_step(get())); }
  /** get_last_lr()[group]: the learning rate of the last step (glia_lr_scheduler_get_last_lr()). */
  double last_lr(int64_t group = 0) const {
    double v = 0;
    detail::check(glia_lr_scheduler_get_last_lr(get(), group, &v));
    return v;
  }
};

namespace optim {
namespace detail {
inline std::vector<glia_tensor*> raw(const std::vector<Tensor>& params) {
  std::vector<glia_tensor*> r;
  for (const Tensor& t : params) r.push_back(t.get());
  return r;
}
}  // namespace detail

/** torch.optim.SGD options, builder style: SGDOptions(0.1).momentum(0.9). */
struct SGDOptions {
  /** The C options glia_optim_sgd() receives. */
  glia_sgd_options c;
  /** torch's defaults with learning rate `lr`. */
  explicit SGDOptions(double lr) {
    glia_sgd_options_init(&c);
    c.lr = lr;
  }
  /** momentum (default 0). */
  SGDOptions& momentum(double v) {
    c.momentum = v;
    return *this;
  }
  /** dampening (default 0). */
  SGDOptions& dampening(double v) {
    c.dampening = v;
    return *this;
  }
  /** weight_decay, L2 penalty (default 0). */
  SGDOptions& weight_decay(double v) {
    c.weight_decay = v;
    return *this;
  }
  /** nesterov momentum (default false). */
  SGDOptions& nesterov(bool v) {
    c.nesterov = v ? 1 : 0;
    return *this;
  }
};
/** torch.optim.Adam / AdamW options, builder style. */
struct AdamOptions {
  /** The C options glia_optim_adam() receives. */
  glia_adam_options c;
  /** torch's defaults with learning rate `lr`. */
  explicit AdamOptions(double lr = 1e-3) {
    glia_adam_options_init(&c);
    c.lr = lr;
  }
  /** betas (default (0.9, 0.999)). */
  AdamOptions& betas(double b1, double b2) {
    c.betas[0] = b1;
    c.betas[1] = b2;
    return *this;
  }
  /** eps (default 1e-8). */
  AdamOptions& eps(double v) {
    c.eps = v;
    return *this;
  }
  /** weight_decay, L2 penalty (default 0). */
  AdamOptions& weight_decay(double v) {
    c.weight_decay = v;
    return *this;
  }
  /** amsgrad (default false). */
  AdamOptions& amsgrad(bool v) {
    c.amsgrad = v ? 1 : 0;
    return *this;
  }
};

/** torch.optim.SGD(params, ...) (glia_optim_sgd()). */
inline Optimizer SGD(const std::vector<Tensor>& params, const SGDOptions& options) {
  auto r = detail::raw(params);
  glia_optimizer* o = nullptr;
  glia::detail::check(glia_optim_sgd(r.data(), static_cast<int64_t>(r.size()), &options.c, &o));
  return Optimizer(o);
}
/** torch.optim.SGD(params, lr). */
inline Optimizer SGD(const std::vector<Tensor>& params, double lr) { return SGD(params, SGDOptions(lr)); }
/** torch.optim.Adam(params, ...) (glia_optim_adam()). */
inline Optimizer Adam(const std::vector<Tensor>& params, const AdamOptions& options = AdamOptions()) {
  auto r = detail::raw(params);
  glia_optimizer* o = nullptr;
  glia::detail::check(glia_optim_adam(r.data(), static_cast<int64_t>(r.size()), &options.c, &o));
  return Optimizer(o);
}
/** torch.optim.AdamW(params, lr, weight_decay=weight_decay) (glia_optim_adamw()). */
inline Optimizer AdamW(const std::vector<Tensor>& params, double lr = 1e-3, double weight_decay = 0.01) {
  auto r = detail::raw(params);
  glia_adamw_options c;
  glia_adamw_options_init(&c);
  c.lr = lr;
  c.weight_decay = weight_decay;
  glia_optimizer* o = nullptr;
  glia::detail::check(glia_optim_adamw(r.data(), static_cast<int64_t>(r.size()), &c, &o));
  return Optimizer(o);
}
/** torch.optim.lr_scheduler.StepLR(opt, step_size, gamma) (glia_lr_scheduler_step_lr()). */
inline LrScheduler StepLR(const Optimizer& opt, int64_t step_size, double gamma = 0.1) {
  glia_lr_scheduler* s = nullptr;
  glia::detail::check(glia_lr_scheduler_step_lr(opt.get(), step_size, gamma, &s));
  return LrScheduler(s);
}
/** torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max, eta_min) (glia_lr_scheduler_cosine_annealing_lr()). */
inline LrScheduler CosineAnnealingLR(const Optimizer& opt, int64_t t_max, double eta_min = 0) {
  glia_lr_scheduler* s = nullptr;
  glia::detail::check(glia_lr_scheduler_cosine_annealing_lr(opt.get(), t_max, eta_min, &s));
  return LrScheduler(s);
}
}  // namespace optim

// ---- runtime ----
/** torch.manual_seed: seeds every thread's generator (glia_manual_seed()). */
inline void manual_seed(uint64_t seed) { glia_manual_seed(seed); }
/** torch.set_num_threads (glia_set_num_threads()). */
inline void set_num_threads(int32_t n_threads) { detail::check(glia_set_num_threads(n_threads)); }
/** torch.get_num_threads (glia_get_num_threads()). */
inline int32_t get_num_threads() { return glia_get_num_threads(); }
/** The loaded library's version, "MAJOR.MINOR.PATCH". */
inline std::string version_string() { return glia_version_string(); }
/** The CPU's memory statistics (glia_memory_stats_get()). */
inline glia_memory_stats memory_stats() {
  glia_memory_stats s{};
  s.struct_size = sizeof s;
  detail::check(glia_memory_stats_get(&s));
  return s;
}

// ---- devices, streams and events (torch.cuda.*) ----
/** One device's memory statistics (torch.cuda.memory_stats(device)); the CPU's for {GLIA_CPU, 0}. */
inline glia_memory_stats memory_stats(glia_device device) {
  glia_memory_stats s{};
  s.struct_size = sizeof s;
  detail::check(glia_device_memory_stats_get(device, &s));
  return s;
}
/** torch.cuda.reset_peak_memory_stats(device) (glia_device_reset_peak_memory_stats()). */
inline void reset_peak_memory_stats(glia_device device) { detail::check(glia_device_reset_peak_memory_stats(device)); }
/** torch.cuda.empty_cache for `device` (glia_device_empty_cache()). */
inline void empty_cache(glia_device device) { detail::check(glia_device_empty_cache(device)); }
/** Waits for everything queued on `device`. */
inline void synchronize(glia_device device) { detail::check(glia_device_synchronize(device)); }

class Event;

/** torch.cuda.Stream: a queue of work on one device. Streams come from a pool and compare by handle. */
class Stream : public detail::Handle<glia_stream, glia_stream_retain, glia_stream_release> {
 public:
  Stream() = default;
  /** Takes over a reference to a C stream. */
  explicit Stream(glia_stream* owned) : Handle(owned) {}
  /** A stream from `device`'s pool (priority: 0 normal, < 0 high). */
  static Stream create(glia_device device, int32_t priority = 0) {
    glia_stream_options o;
    glia_stream_options_init(&o);
    o.priority = priority;
    glia_stream* s = nullptr;
    detail::check(glia_stream_create(device, &o, &s));
    return Stream(s);
  }
  /** The calling thread's current stream of `device` (torch.cuda.current_stream). */
  static Stream current(glia_device device) {
    glia_stream* s = nullptr;
    detail::check(glia_device_current_stream(device, &s));
    return Stream(s);
  }
  /** The stream's device (glia_stream_device()). */
  glia_device device() const {
    glia_device d{GLIA_CPU, 0};
    detail::check(glia_stream_device(get(), &d));
    return d;
  }
  /** Waits until all work queued on the stream has finished (Stream.synchronize()). */
  void synchronize() const { detail::check(glia_stream_synchronize(get())); }
  /** True when all work queued so far has completed. */
  bool query() const {
    int32_t done = 0;
    detail::check(glia_stream_query(get(), &done));
    return done != 0;
  }
  /** Later work on this stream waits for `event` (torch's Stream.wait_event). */
  inline void wait(const Event& event) const;
  /** Later work on this stream waits for the work queued on `other` so far. */
  void wait(const Stream& other) const { detail::check(glia_stream_wait_stream(get(), other.get())); }
  /** Whether both are the same stream. */
  bool operator==(const Stream& o) const noexcept { return get() == o.get(); }
  /** Whether the streams differ. */
  bool operator!=(const Stream& o) const noexcept { return get() != o.get(); }
};

/**
 * `with torch.cuda.stream(s):` — makes `stream` current for its device on this thread until the
 * guard goes out of scope, then restores the stream that was current before.
 */
class StreamGuard {
 public:
  /** Makes `stream` current for its device on this thread (glia_device_set_current_stream()). */
  explicit StreamGuard(const Stream& stream) : previous_(Stream::current(stream.device())) {
    detail::check(glia_device_set_current_stream(stream.get()));
  }
  ~StreamGuard() { glia_error_free(glia_device_set_current_stream(previous_.get())); }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

/** torch.cuda.Event: a point in a stream's work, to wait for or to time. */
class Event : public detail::Handle<glia_event, glia_event_retain, glia_event_release> {
 public:
  Event() = default;
  /** Takes over a reference to a C event. */
  explicit Event(glia_event* owned) : Handle(owned) {}
  /** torch.cuda.Event(enable_timing) of `device` (glia_event_create()). */
  static Event create(glia_device device, bool enable_timing = false) {
    glia_event_options o;
    glia_event_options_init(&o);
    o.enable_timing = enable_timing ? 1 : 0;
    glia_event* e = nullptr;
    detail::check(glia_event_create(device, &o, &e));
    return Event(e);
  }
  /** Records the work queued so far on `stream` (the current stream when undefined). */
  void record(const Stream& stream = Stream()) { detail::check(glia_event_record(get(), stream.get())); }
  /** Waits until the recorded work has finished (Event.synchronize()). */
  void synchronize() const { detail::check(glia_event_synchronize(get())); }
  /** True when the recorded work has finished, or the event was never recorded (Event.query()). */
  bool query() const {
    int32_t done = 0;
    detail::check(glia_event_query(get(), &done));
    return done != 0;
  }
  /** Milliseconds between this event and `end` (both recorded, both with timing). */
  double elapsed_ms(const Event& end) const {
    double ms = 0;
    detail::check(glia_event_elapsed_time(get(), end.get(), &ms));
    return ms;
  }
};

inline void Stream::wait(const Event& event) const { detail::check(glia_stream_wait_event(get(), event.get())); }

/** @} */
}  // namespace cxx
}  // namespace glia

// The generated wrappers of the other regular ops (glia::ops, more glia::nn constructors).
#include "glia/glia_ops.hpp"

// ---- distributed training (torch.distributed, docs/distributed.md) ----
namespace glia {
inline namespace cxx {
/** @addtogroup cpp
 * @{ */

/** torch.distributed: key-value stores, process groups and their collectives (glia.h, "Distributed training"). */
namespace dist {

/** torch.distributed.ReduceOp (glia_reduce_op); AVG takes floating tensors only. */
enum class ReduceOp : int32_t {
  SUM = GLIA_REDUCE_SUM,         /**< the sum over the ranks */
  AVG = GLIA_REDUCE_AVG,         /**< the mean over the ranks (floating tensors) */
  PRODUCT = GLIA_REDUCE_PRODUCT, /**< the product over the ranks */
  MIN = GLIA_REDUCE_MIN,         /**< the elementwise minimum */
  MAX = GLIA_REDUCE_MAX          /**< the elementwise maximum */
};

/** torch.distributed.is_gloo_available(): whether this build of glia has the Gloo backend. */
inline bool is_gloo_available() {
  int32_t v = 0;
  glia::detail::check(glia_dist_is_gloo_available(&v));
  return v != 0;
}

/** A key-value store for rendezvous (torch's Store): FileStore, TCPStore, PrefixStore or a Redis store. */
class Store : public glia::detail::Handle<glia_store, glia_store_retain, glia_store_release> {
  using Base = glia::detail::Handle<glia_store, glia_store_retain, glia_store_release>;

 public:
  using Base::Base;
  /** get() without arguments is still the C handle (Handle::get). */
  using Base::get;

  /** torch's FileStore(path, num_workers): the last of num_workers stores to be released removes the file
   * (glia_store_file_create()). */
  static Store file(const std::string& path, int64_t num_workers = -1) {
    glia_store* s = nullptr;
    glia::detail::check(glia_store_file_create(path.c_str(), num_workers, &s));
    return Store(s);
  }
  /** torch's TCPStore(host, port, is_master, timeout): a server binds port (0: a free one, see port()), every
   * store connects to it, retrying for timeout_ms (glia_store_tcp_create()). */
  static Store tcp(const std::string& host, int32_t port, bool is_server, int64_t timeout_ms = 300000) {
    glia_store* s = nullptr;
    glia::detail::check(glia_store_tcp_create(host.c_str(), port, is_server ? 1 : 0, timeout_ms, &s));
    return Store(s);
  }
  /** torch's PrefixStore(prefix, store): keys become "<prefix>/<key>" in `store` (glia_store_prefix_create()). */
  static Store prefix(const std::string& prefix, const Store& store) {
    glia_store* s = nullptr;
    glia::detail::check(glia_store_prefix_create(prefix.c_str(), store.get(), &s));
    return Store(s);
  }
  /** A store in a Redis server at host:port (glia_store_redis_create()). */
  static Store redis(const std::string& host, int32_t port, int64_t timeout_ms = 300000) {
    glia_store* s = nullptr;
    glia::detail::check(glia_store_redis_create(host.c_str(), port, timeout_ms, &s));
    return Store(s);
  }

  /** The port of a TCP store: the bound one for a server made with port 0 (TCPStore.port). */
  int32_t port() const {
    int32_t p = 0;
    glia::detail::check(glia_store_tcp_port(get(), &p));
    return p;
  }
  /** set(key, value): any bytes. */
  void set(const std::string& key, const std::string& value) {
    glia::detail::check(glia_store_set(get(), key.c_str(), value.data(), value.size()));
  }
  /** get(key): waits up to the store's timeout for the key (GLIA_ERR_IO after it). */
  std::string get(const std::string& key) {
    return read_value([&](void* b, size_t c, size_t* n) { return glia_store_get(get(), key.c_str(), b, c, n); });
  }
  /** add(key, amount): the value is a decimal integer (absent: 0); stores and returns value + amount. */
  int64_t add(const std::string& key, int64_t amount) {
    int64_t v = 0;
    glia::detail::check(glia_store_add(get(), key.c_str(), amount, &v));
    return v;
  }
  /** compare_set(key, expected, desired): sets desired when the value is expected (or the key is absent and
   * expected is empty); returns the value the key has afterwards. */
  std::string compare_set(const std::string& key, const std::string& expected, const std::string& desired) {
    return read_value([&](void* b, size_t c, size_t* n) {
      return glia_store_compare_set(get(), key.c_str(), expected.data(), expected.size(), desired.data(),
                                    desired.size(), b, c, n);
    });
  }
  /** wait(keys, timeout): returns when every key exists; timeout_ms < 0: the store's timeout (GLIA_ERR_IO after it,
   * naming the missing keys). */
  void wait(const std::vector<std::string>& keys, int64_t timeout_ms = -1) {
    std::vector<const char*> k = c_keys(keys);
    glia::detail::check(glia_store_wait(get(), k.data(), static_cast<int64_t>(k.size()), timeout_ms));
  }
  /** check(keys): whether every key exists now. */
  bool check(const std::vector<std::string>& keys) {
    std::vector<const char*> k = c_keys(keys);
    int32_t r = 0;
    glia::detail::check(glia_store_check(get(), k.data(), static_cast<int64_t>(k.size()), &r));
    return r != 0;
  }
  /** delete_key(key): whether the key existed. */
  bool delete_key(const std::string& key) {
    int32_t r = 0;
    glia::detail::check(glia_store_delete_key(get(), key.c_str(), &r));
    return r != 0;
  }
  /** num_keys(). */
  int64_t num_keys() {
    int64_t n = 0;
    glia::detail::check(glia_store_num_keys(get(), &n));
    return n;
  }
  /** set_timeout: the timeout of get and wait, in milliseconds (> 0). */
  void set_timeout(int64_t timeout_ms) { glia::detail::check(glia_store_set_timeout(get(), timeout_ms)); }

 private:
  template <class F>
  static std::string read_value(F&& call) {
    // One call usually does: the value is copied into a buffer, and its full length comes back.
    std::string s(64, '\0');
    size_t n = 0;
    glia::detail::check(call(&s[0], s.size(), &n));
    if (n > s.size()) {
      s.assign(n, '\0');
      glia::detail::check(call(&s[0], s.size(), &n));
    }
    s.resize(n);
    return s;
  }
  static std::vector<const char*> c_keys(const std::vector<std::string>& keys) {
    std::vector<const char*> k;
    for (const std::string& key : keys) k.push_back(key.c_str());
    return k;
  }
};

/** The handle of a collective in flight (torch's Work), from the *_async collectives. */
class Work : public glia::detail::Handle<glia_work, glia_work_retain, glia_work_release> {
  using Base = glia::detail::Handle<glia_work, glia_work_retain, glia_work_release>;

 public:
  using Base::Base;
  /** Work.wait(timeout): waits until the collective completes and throws its error; timeout_ms < 0: as long as it
   * runs (GLIA_ERR_IO when timeout_ms passes first; the collective goes on). */
  void wait(int64_t timeout_ms = -1) { glia::detail::check(glia_work_wait(get(), timeout_ms)); }
  /** Work.is_completed(): whether the collective finished (successfully or not). */
  bool is_completed() const {
    int32_t r = 0;
    glia::detail::check(glia_work_is_completed(get(), &r));
    return r != 0;
  }
};

/** Options of a process group (glia_process_group_options); empty strings are the C API's NULL defaults. */
struct ProcessGroupOptions {
  /** GLIA_DIST_BACKEND_GLOO (NCCL is not built yet). */
  glia_dist_backend backend = GLIA_DIST_BACKEND_GLOO;
  /** Every collective's (and the rendezvous') timeout; torch's `timeout`. */
  int64_t timeout_ms = 300000;
  /** The address this rank's sockets bind to ("": this host's name, else 127.0.0.1). */
  std::string hostname;
  /** Or a network interface ("lo", "eth0"; "": GLOO_SOCKET_IFNAME). */
  std::string iface;
  /** The rendezvous keys live under "<group_name>/" ("": "default"). */
  std::string group_name;
  /** The C struct; its strings point into this object. */
  glia_process_group_options c() const {
    glia_process_group_options o;
    glia_process_group_options_init(&o);
    o.backend = backend;
    o.timeout_ms = timeout_ms;
    o.hostname = hostname.empty() ? nullptr : hostname.c_str();
    o.iface = iface.empty() ? nullptr : iface.c_str();
    o.group_name = group_name.empty() ? nullptr : group_name.c_str();
    return o;
  }
};

/**
 * A process group (torch's ProcessGroup). Every rank calls the same collectives in the same order.
 * Each collective works in place, as torch's; the plain form waits for it (async_op=False), the
 * *_async form returns a Work (async_op=True) and the tensors must not be used until its wait()
 * returns.
 */
class ProcessGroup
    : public glia::detail::Handle<glia_process_group, glia_process_group_retain, glia_process_group_release> {
  using Base = glia::detail::Handle<glia_process_group, glia_process_group_retain, glia_process_group_release>;

 public:
  using Base::Base;

  /** init_process_group(backend, store=store, rank, world_size): waits for every rank up to the timeout
   * (glia_process_group_create()). */
  static ProcessGroup create(const Store& store, int64_t rank, int64_t world_size,
                             const ProcessGroupOptions& options = {}) {
    const glia_process_group_options o = options.c();
    glia_process_group* g = nullptr;
    glia::detail::check(glia_process_group_create(store.get(), rank, world_size, &o, &g));
    return ProcessGroup(g);
  }
  /** init_process_group(backend, init_method="env://"): MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
   * (glia_process_group_create_from_env(); what glia-run sets). */
  static ProcessGroup from_env(const ProcessGroupOptions& options = {}) {
    const glia_process_group_options o = options.c();
    glia_process_group* g = nullptr;
    glia::detail::check(glia_process_group_create_from_env(&o, &g));
    return ProcessGroup(g);
  }

  /** get_rank(group). */
  int64_t rank() const {
    int64_t r = 0;
    glia::detail::check(glia_process_group_rank(get(), &r));
    return r;
  }
  /** get_world_size(group). */
  int64_t size() const {
    int64_t n = 0;
    glia::detail::check(glia_process_group_size(get(), &n));
    return n;
  }

  /** all_reduce(tensor, op), in place on every rank. */
  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM) {
    glia::detail::check(glia_process_group_all_reduce(get(), tensor.get(), c_op(op), nullptr));
  }
  /** all_reduce(tensor, op, async_op=True). */
  Work all_reduce_async(const Tensor& tensor, ReduceOp op = ReduceOp::SUM) {
    return launch([&](glia_work** w) { return glia_process_group_all_reduce(get(), tensor.get(), c_op(op), w); });
  }
  /** broadcast(tensor, src=root): root's tensor is copied into every rank's. */
  void broadcast(const Tensor& tensor, int64_t root) {
    glia::detail::check(glia_process_group_broadcast(get(), tensor.get(), root, nullptr));
  }
  /** broadcast(tensor, src=root, async_op=True). */
  Work broadcast_async(const Tensor& tensor, int64_t root) {
    return launch([&](glia_work** w) { return glia_process_group_broadcast(get(), tensor.get(), root, w); });
  }
  /** reduce(tensor, dst=root, op): root's tensor receives the reduction; the others' are unchanged. */
  void reduce(const Tensor& tensor, int64_t root, ReduceOp op = ReduceOp::SUM) {
    glia::detail::check(glia_process_group_reduce(get(), tensor.get(), root, c_op(op), nullptr));
  }
  /** reduce(tensor, dst=root, op, async_op=True). */
  Work reduce_async(const Tensor& tensor, int64_t root, ReduceOp op = ReduceOp::SUM) {
    return launch([&](glia_work** w) { return glia_process_group_reduce(get(), tensor.get(), root, c_op(op), w); });
  }
  /** all_gather(outputs, input): outputs[r] (world size of them, input's shape and dtype) receives rank r's input. */
  void all_gather(const std::vector<Tensor>& outputs, const Tensor& input) {
    std::vector<glia_tensor*> o = raw(outputs);
    glia::detail::check(
        glia_process_group_all_gather(get(), o.data(), static_cast<int64_t>(o.size()), input.get(), nullptr));
  }
  /** all_gather(outputs, input, async_op=True). */
  Work all_gather_async(const std::vector<Tensor>& outputs, const Tensor& input) {
    std::vector<glia_tensor*> o = raw(outputs);
    return launch([&](glia_work** w) {
      return glia_process_group_all_gather(get(), o.data(), static_cast<int64_t>(o.size()), input.get(), w);
    });
  }
  /** reduce_scatter(output, inputs, op): output receives the reduction over the ranks of inputs[rank]. */
  void reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op = ReduceOp::SUM) {
    std::vector<glia_tensor*> i = raw(inputs);
    glia::detail::check(glia_process_group_reduce_scatter(get(), output.get(), i.data(), static_cast<int64_t>(i.size()),
                                                          c_op(op), nullptr));
  }
  /** reduce_scatter(output, inputs, op, async_op=True). */
  Work reduce_scatter_async(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op = ReduceOp::SUM) {
    std::vector<glia_tensor*> i = raw(inputs);
    return launch([&](glia_work** w) {
      return glia_process_group_reduce_scatter(get(), output.get(), i.data(), static_cast<int64_t>(i.size()), c_op(op),
                                               w);
    });
  }
  /** barrier(): returns when every rank has entered it. */
  void barrier() { glia::detail::check(glia_process_group_barrier(get(), nullptr)); }
  /** barrier(async_op=True). */
  Work barrier_async() {
    return launch([&](glia_work** w) { return glia_process_group_barrier(get(), w); });
  }

 private:
  static glia_reduce_op c_op(ReduceOp op) { return static_cast<glia_reduce_op>(op); }
  static std::vector<glia_tensor*> raw(const std::vector<Tensor>& ts) {
    std::vector<glia_tensor*> r;
    for (const Tensor& t : ts) r.push_back(t.get());
    return r;
  }
  template <class F>
  static Work launch(F&& call) {
    glia_work* w = nullptr;
    glia::detail::check(call(&w));
    return Work(w);
  }
};

}  // namespace dist

namespace nn {

/** DistributedDataParallel's keyword arguments (glia_ddp_options), torch's defaults. */
struct DDPOptions {
  /** Bucket size in MiB; the first bucket closes at 1 MiB (torch's). */
  double bucket_cap_mb = 25;
  /** A parameter without a gradient is reduced as zero instead of failing backward. */
  bool find_unused_parameters = false;
  /** Rank 0's buffers are broadcast before every synchronised forward. */
  bool broadcast_buffers = true;
  /** Each .grad becomes a view of its bucket after the first synchronised backward. */
  bool gradient_as_bucket_view = false;
};

/** torch's DDP communication hooks built into glia (glia_ddp_comm_hook). */
enum class BuiltinCommHook : int32_t {
  ALLREDUCE = GLIA_DDP_COMM_HOOK_ALLREDUCE,         /**< the default: each bucket averaged */
  FP16_COMPRESS = GLIA_DDP_COMM_HOOK_FP16_COMPRESS, /**< torch's fp16_compress_hook */
  BF16_COMPRESS = GLIA_DDP_COMM_HOOK_BF16_COMPRESS  /**< torch's bf16_compress_hook */
};

/**
 * torch.nn.parallel.DistributedDataParallel(module, process_group=group): a Module whose child
 * "module" is `module` (state-dict keys "module.<name>"); rank 0's parameters and buffers are
 * broadcast to every rank here, and backward averages the gradients over the group
 * (glia_nn_distributed_data_parallel()).
 */
class DistributedDataParallel : public Module {
 public:
  /** Every rank calls it with the same model. */
  DistributedDataParallel(const Module& module, const dist::ProcessGroup& group, const DDPOptions& options = {})
      : Module(make(module, group, options)) {}

  /** `with ddp.no_sync():` — backward only accumulates local gradients while the guard lives; the next
   * backward after it averages the accumulated ones. */
  class NoSyncGuard {
   public:
    /** Turns gradient synchronisation off (glia_ddp_set_require_backward_grad_sync(ddp, 0)). */
    explicit NoSyncGuard(const DistributedDataParallel& ddp) : ddp_(ddp) {
      glia::detail::check(glia_ddp_require_backward_grad_sync(ddp_.get(), &previous_));
      glia::detail::check(glia_ddp_set_require_backward_grad_sync(ddp_.get(), 0));
    }
    /** Restores the flag it found, as torch's no_sync does (nested guards end unsynchronised). */
    ~NoSyncGuard() { glia_error_free(glia_ddp_set_require_backward_grad_sync(ddp_.get(), previous_)); }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    Module ddp_;
    int32_t previous_ = 1;
  };

  /** A guard for `with ddp.no_sync():` (C++17 guaranteed elision: `auto guard = ddp.no_sync();`). */
  NoSyncGuard no_sync() const { return NoSyncGuard(*this); }
  /** torch's require_backward_grad_sync (false inside no_sync()). */
  bool require_backward_grad_sync() const {
    int32_t flag = 1;
    glia::detail::check(glia_ddp_require_backward_grad_sync(get(), &flag));
    return flag != 0;
  }
  /** torch's require_backward_grad_sync = flag (no_sync() sets false). */
  void set_require_backward_grad_sync(bool flag) {
    glia::detail::check(glia_ddp_set_require_backward_grad_sync(get(), flag ? 1 : 0));
  }
  /** torch's _register_builtin_comm_hook (at most one hook per DDP module: a second is GLIA_ERR_STATE). */
  void register_builtin_comm_hook(BuiltinCommHook hook) {
    glia::detail::check(glia_ddp_register_builtin_comm_hook(get(), static_cast<glia_ddp_comm_hook>(hook)));
  }
  /** hook(bucket, index, count): must replace the bucket (a 1-D tensor of this rank's gradients) by its average
   * over the group; runs on backward's thread, buckets in the same order on every rank. An exception fails the
   * backward with GLIA_ERR_CALLBACK. */
  using CommHook = std::function<void(const Tensor& bucket, int64_t index, int64_t count)>;
  /** torch's register_comm_hook(state, hook), the state captured by the std::function. */
  void register_comm_hook(CommHook hook) {
    auto* heap = new CommHook(std::move(hook));
    auto cb = [](void* user, glia_tensor* bucket, int64_t index, int64_t count) -> glia_error* {
      return glia::detail::guard([&] { (*static_cast<CommHook*>(user))(Tensor::borrow(bucket), index, count); });
    };
    // free_user_data runs even when the registration fails.
    glia::detail::check(glia_ddp_register_comm_hook(get(), cb, heap, glia::detail::delete_user_data<CommHook>));
  }
  /** The number of gradient buckets. */
  int64_t bucket_count() const {
    int64_t count = 0, buckets = 0;
    glia::detail::check(glia_ddp_bucket_parameters(get(), 0, nullptr, 0, &count, &buckets));
    return buckets;
  }
  /** GradBucket.parameters() of bucket `index` (in reduction order: the last parameters first), as indices into
   * the parameters that require grad, in registration order. */
  std::vector<int64_t> bucket_parameters(int64_t index) const {
    int64_t count = 0;
    glia::detail::check(glia_ddp_bucket_parameters(get(), index, nullptr, 0, &count, nullptr));
    std::vector<int64_t> idx(static_cast<size_t>(count));
    glia::detail::check(glia_ddp_bucket_parameters(get(), index, idx.data(), count, &count, nullptr));
    idx.resize(static_cast<size_t>(count));
    return idx;
  }

 private:
  static Module make(const Module& module, const dist::ProcessGroup& group, const DDPOptions& options) {
    glia_ddp_options o;
    glia_ddp_options_init(&o);
    o.bucket_cap_mb = options.bucket_cap_mb;
    o.find_unused_parameters = options.find_unused_parameters ? 1 : 0;
    o.broadcast_buffers = options.broadcast_buffers ? 1 : 0;
    o.gradient_as_bucket_view = options.gradient_as_bucket_view ? 1 : 0;
    glia_module* m = nullptr;
    glia::detail::check(glia_nn_distributed_data_parallel(module.get(), group.get(), &o, &m));
    return Module(m);
  }
};

/**
 * torch.nn.SyncBatchNorm(num_features, eps, momentum, affine, track_running_stats, process_group):
 * in training with a group of more than one rank, the batch statistics are those of every rank's
 * batch; otherwise BatchNorm. An empty `process_group`: none (glia_nn_sync_batch_norm()).
 */
inline Module SyncBatchNorm(int64_t num_features, const dist::ProcessGroup& process_group = dist::ProcessGroup(),
                            double eps = 1e-5, double momentum = 0.1, bool affine = true,
                            bool track_running_stats = true) {
  glia_batch_norm_options o;
  glia_batch_norm_options_init(&o);
  o.eps = eps;
  o.momentum = momentum;
  o.affine = affine ? 1 : 0;
  o.track_running_stats = track_running_stats ? 1 : 0;
  return detail::make(
      [&](glia_module** m) { return glia_nn_sync_batch_norm(num_features, &o, process_group.get(), nullptr, m); });
}
/**
 * torch.nn.DataParallel(module, device_ids, output_device, dim): one process, several devices of one
 * backend; forward scatters the inputs along `dim`, runs a replica per device, gathers the outputs on
 * `output_device` (nullopt: device_ids[0]). No device_ids: forward calls `module` as it is
 * (glia_nn_data_parallel()).
 */
inline Module DataParallel(const Module& module, const std::vector<glia_device>& device_ids = {},
                           std::optional<glia_device> output_device = std::nullopt, int64_t dim = 0) {
  return detail::make([&](glia_module** m) {
    return glia_nn_data_parallel(module.get(), device_ids.empty() ? nullptr : device_ids.data(),
                                 static_cast<int64_t>(device_ids.size()), output_device ? &*output_device : nullptr,
                                 dim, m);
  });
}
/** `sync_bn.process_group = group` for a module made by SyncBatchNorm (empty: none)
 * (glia_nn_sync_batch_norm_set_process_group()). */
inline void set_sync_batch_norm_process_group(const Module& sync_batch_norm, const dist::ProcessGroup& group) {
  glia::detail::check(glia_nn_sync_batch_norm_set_process_group(sync_batch_norm.get(), group.get()));
}

}  // namespace nn

/** @} */
}  // namespace cxx
}  // namespace glia

#endif  // GLIA_GLIA_HPP
