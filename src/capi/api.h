// The exception barrier every entry point goes through, and helpers shared by
// the C-API translation units.
#pragma once

#include <new>
#include <string>
#include <utility>
#include <vector>

#include "capi/handles.h"
#include "core/error.h"
#include "core/scalar.h"
#include "core/small_vector.h"
#include "core/tensor.h"
#include "glia/glia.h"
#include "nn/module.h"

struct glia_error {
  int32_t code;
  char* message;  // owned; a static string for the out-of-memory error
  bool is_static;
};

namespace glia::capi {

glia_error* make_error(Code code, const char* message) noexcept;
glia_error* out_of_memory_error() noexcept;
glia_error* current_exception_to_error() noexcept;

// Runs `body` and turns any exception into a glia_error (Note [Exception barrier]).
template <class F>
inline glia_error* guard(F&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (...) {
    return current_exception_to_error();
  }
}

// Throws unless `p` is non-null; `fn` and `arg` name the call and argument.
inline void check_out(const void* p, const char* fn, const char* arg) {
  GLIA_CHECK(p != nullptr, InvalidArgument, fn, ": argument '", arg, "' is NULL");
}

inline Tensor tensor_arg(const glia_tensor* h, const char* fn, const char* arg) {
  return Tensor(Ref<TensorImpl>::share(lookup<TensorImpl>(h, HandleType::Tensor, fn, arg)));
}
inline TensorImpl* tensor_raw(const glia_tensor* h, const char* fn, const char* arg) {
  return lookup<TensorImpl>(h, HandleType::Tensor, fn, arg);
}
inline glia_tensor* tensor_handle(const Tensor& t) {
  return static_cast<glia_tensor*>(handle_for(t.impl(), HandleType::Tensor));
}

// Validates (buffer, capacity, out_length) of an snprintf-style string result.
void check_string_out(char* buffer, size_t capacity, size_t* out_length, const char* fn);
// Writes `s` snprintf style: at most capacity - 1 bytes and a NUL, full length to *out_length.
void write_string(const std::string& s, char* buffer, size_t capacity, size_t* out_length);

// A shape given as (pointer, ndim) by the caller, validated.
IntSpan shape_arg(const int64_t* shape, int64_t ndim, const char* fn);
DType dtype_arg(int dtype, const char* fn, const char* arg);
Device device_arg(glia_device d, const char* fn);

// The body of a one-tensor op: unwraps `a`, checks `out`, wraps f(a).
template <class F>
glia_error* unary_entry(const glia_tensor* a, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    check_out(out, fn, "out");
    *out = tensor_handle(f(x));
  });
}
// The body of a two-tensor op: unwraps `a` and `b`, checks `out`, wraps f(a, b).
template <class F>
glia_error* binary_entry(const glia_tensor* a, const glia_tensor* b, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    Tensor y = tensor_arg(b, fn, "b");
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, y));
  });
}

// A glia_scalar argument, validated (known type, bool 0 or 1).
Scalar scalar_arg(const glia_scalar& s, const char* fn, const char* arg);
// An optional tensor argument: NULL gives an undefined Tensor.
inline Tensor tensor_opt(const glia_tensor* h, const char* fn, const char* arg) {
  return h ? tensor_arg(h, fn, arg) : Tensor();
}
// A list of dims (pointer, count), count in [0, 64]; `arg` names the pointer, `n_arg` the count.
IntSpan dims_arg(const int64_t* dims, int64_t n, const char* fn, const char* arg = "dims",
                 const char* n_arg = "n_dims");
// `n` tensor handles (none NULL); `arg` names the array.
std::vector<Tensor> tensors_arg(const glia_tensor* const* ts, int64_t n, const char* fn, const char* arg);
// Several results into a caller's array (the glia_module_forward convention): outs == NULL with
// capacity 0 only asks for the count; otherwise capacity must hold them all (else nothing is written).
// *n_outs receives the count either way; an undefined tensor is written as NULL. Call check_outputs
// before computing, write_outputs after.
void check_outputs(glia_tensor** outs, int64_t capacity, int64_t* n_outs, const char* fn);
void write_outputs(const std::vector<Tensor>& ts, glia_tensor** outs, int64_t capacity, int64_t* n_outs,
                   const char* fn);

// ---- host callbacks -------------------------------------------------------------

// A host callback's error as Error(Callback), "<who>: <what> callback failed: <message>"; frees `e`.
[[noreturn]] void rethrow_callback(glia_error* e, const std::string& who, const char* what);
// Releases the non-NULL handles of hs[0, n) and sets them to NULL.
void release_handles(glia_tensor** hs, size_t n);
// Takes over the new references a callback wrote into hs[0, n): the first `keep`
// become the result (NULL: an undefined tensor), the others are only released.
// Every handle is released and set to NULL, even when one is rejected (the
// first rejection is then rethrown).
TensorList adopt_handles(glia_tensor** hs, size_t n, size_t keep, const char* fn, const char* what);

// New handles for a list of tensors (NULL for undefined) to pass to a
// callback, released by the destructor.
struct HandleList {
  std::vector<glia_tensor*> hs;
  explicit HandleList(const TensorList& ts);
  ~HandleList() { release_handles(hs.data(), hs.size()); }
  HandleList(const HandleList&) = delete;
  HandleList& operator=(const HandleList&) = delete;
  const glia_tensor* const* data() const { return hs.data(); }
  int64_t size() const { return static_cast<int64_t>(hs.size()); }
  // Gives up handle i (the caller now owns it).
  glia_tensor* take(size_t i) { return std::exchange(hs[i], nullptr); }
};

// A required C string argument (throws naming `arg` when NULL).
inline std::string str_arg(const char* s, const char* fn, const char* arg) {
  GLIA_CHECK(s != nullptr, InvalidArgument, fn, ": argument '", arg, "' is NULL");
  return s;
}

// ---- tensor dicts ---------------------------------------------------------------

inline glia_tensor_dict* dict_handle(nn::TensorDict* d) {
  return static_cast<glia_tensor_dict*>(handle_for(d, HandleType::TensorDict));
}
inline nn::TensorDict* dict_raw(const glia_tensor_dict* h, const char* fn, const char* arg) {
  return lookup<nn::TensorDict>(h, HandleType::TensorDict, fn, arg);
}

// ---- modules ------------------------------------------------------------------

inline nn::Module* module_raw(const glia_module* h, const char* fn, const char* arg) {
  return lookup<nn::Module>(h, HandleType::Module, fn, arg);
}
inline nn::ModuleRef module_arg(const glia_module* h, const char* fn, const char* arg) {
  return nn::ModuleRef::share(module_raw(h, fn, arg));
}
inline glia_module* module_handle(const nn::ModuleRef& m) {
  return static_cast<glia_module*>(handle_for(m.get(), HandleType::Module));
}
// glia_factory_options (NULL: defaults), validated; *skip_init receives the flag.
nn::Factory factory_arg(const glia_factory_options* options, const char* fn, bool* skip_init);

// The body of a built-in constructor: validates the factory options and `out`,
// runs build(factory) (under a SkipInitGuard when skip_init is set; build ends
// with nn::maybe_reset) and writes the handle.
template <class F>
glia_error* module_entry(const glia_factory_options* options, glia_module** out, const char* fn, F build) {
  return guard([&] {
    check_out(out, fn, "out");
    bool skip = false;
    nn::Factory f = factory_arg(options, fn, &skip);
    nn::SkipInitGuard g(skip);
    nn::ModuleRef m = build(f);
    *out = module_handle(m);
  });
}

}  // namespace glia::capi
