// TensorImpl (shape, strides, offset over a Storage) and Tensor, the value
// handle the rest of the engine passes around.
#pragma once

#include <cstdint>
#include <memory>

#include "core/device.h"
#include "core/dtype.h"
#include "core/refcount.h"
#include "core/small_vector.h"
#include "core/storage.h"

namespace glia {

// What autograd attaches to a tensor; defined in src/autograd/.
struct AutogradMetaBase {
  virtual ~AutogradMetaBase() = default;
};

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Ref<Storage> storage, int64_t offset, IntSpan shape, IntSpan strides, DType dtype);
  ~TensorImpl() override;

  const Ref<Storage>& storage() const { return storage_; }
  int64_t offset() const { return offset_; }
  const Dims& shape() const { return shape_; }
  const Dims& strides() const { return strides_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  int64_t dim() const { return shape_.ssize(); }
  int64_t numel() const { return numel_; }
  bool is_contiguous() const { return contiguous_; }
  size_t itemsize() const { return glia::itemsize(dtype_); }
  // Address of the first element.
  __attribute__((always_inline)) void* data() const {
    // In integers: an empty storage's data may be NULL under a view with an offset, and NULL + n
    // is undefined behaviour (such a pointer is never dereferenced: the view has no element).
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(storage_->data()) +
                                   static_cast<uintptr_t>(offset_ * static_cast<int64_t>(itemsize())));
  }

  // torch's `t.data = src`: this impl takes src's storage, offset, geometry and
  // dtype (views of the old data keep the old storage). Autograd state stays
  // (nn::Module::to keeps parameters' identity this way).
  void set_data(const TensorImpl& src);

  bool requires_grad = false;
  // A Python-number-like operand (scalar argument of an op): takes part in
  // type promotion with lower priority, as torch's wrapped numbers do.
  bool wrapped_number = false;
  // Created in inference mode (or a view of such a tensor): never part of an
  // autograd graph (Note [Inference mode] in autograd/grad_mode.h).
  bool is_inference = false;
  std::unique_ptr<AutogradMetaBase> autograd;

 private:
  Ref<Storage> storage_;
  int64_t offset_;
  Dims shape_, strides_;
  int64_t numel_;
  DType dtype_;
  bool contiguous_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<TensorImpl> impl) : impl_(std::move(impl)) {}

  TensorImpl* impl() const { return impl_.get(); }
  const Ref<TensorImpl>& ref() const { return impl_; }
  bool defined() const { return static_cast<bool>(impl_); }

  const Dims& shape() const { return impl_->shape(); }
  const Dims& strides() const { return impl_->strides(); }
  int64_t size(int64_t d) const { return impl_->shape()[wrap(d)]; }
  int64_t stride(int64_t d) const { return impl_->strides()[wrap(d)]; }
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  DType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  int64_t offset() const { return impl_->offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  // Host access to the elements: only for tensors in host memory (Note [Host reads of device memory]).
  // Device-neutral code (dispatch, copies) uses impl()->data().
  __attribute__((always_inline)) void* data() const {
    if (__builtin_expect(!impl_->device().is_cpu(), 0)) host_access_failed();
    return impl_->data();
  }
  template <class T>
  T* data_ptr() const {
    return static_cast<T*>(data());
  }
  bool requires_grad() const { return impl_->requires_grad; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

 private:
  int64_t wrap(int64_t d) const { return d < 0 ? d + dim() : d; }
  [[noreturn]] void host_access_failed() const;
  Ref<TensorImpl> impl_;
};

// Thread-local inference mode (torch.inference_mode): tensors created while it
// is on are inference tensors. The autograd layer adds grad mode on top.
bool inference_mode_enabled();
void set_inference_mode_flag(bool enabled);

// Row-major strides for `shape`.
Dims contiguous_strides(IntSpan shape);
// Product of sizes; Error(Shape) when it overflows int64.
int64_t checked_numel(IntSpan shape);
// Validates a user-given shape: ndim in [0, 64], sizes >= 0, numel fits. `what` names the caller.
void check_shape(const char* what, IntSpan shape);

// Factories. empty leaves memory uninitialised.
// No default device: the caller names it. A tensor that stands for another one (its gradient, a
// zero-fill, a buffer combined with it) is made on that tensor's device (x.device(),
// grad.device()...); Device{} (the CPU) is written out only for genuine host tensors (checkpoint
// readers, host copies, wrapped scalars, lr-scheduler and optimizer "step" state that torch keeps
// on the CPU, scratch inside a CPU kernel). A forgotten device would otherwise allocate on the
// CPU silently, a bug that only shows when the tensor later meets device tensors.
Tensor empty(IntSpan shape, DType dtype, Device device);
Tensor zeros(IntSpan shape, DType dtype, Device device);
Tensor ones(IntSpan shape, DType dtype, Device device);
Tensor full(IntSpan shape, double value, DType dtype, Device device);
Tensor arange(double start, double end, double step, DType dtype, Device device);
Tensor rand(IntSpan shape, DType dtype, Device device);
Tensor randn(IntSpan shape, DType dtype, Device device);
Tensor from_blob(void* data, IntSpan shape, IntSpan strides, DType dtype, Device device, BlobDeleter deleter,
                 void* context);

// A view of `base`'s storage with other geometry (no checks beyond ndim).
Tensor make_view(const Tensor& base, IntSpan shape, IntSpan strides, int64_t offset);

// Elementwise dst <- src with dtype conversion; shapes must be equal (no broadcasting here).
// non_blocking: Note [Non-blocking copies] in tensor.cpp.
void copy_into(const Tensor& dst, const Tensor& src, bool non_blocking = false);
Tensor contiguous(const Tensor& t);
Tensor clone(const Tensor& t);
Tensor to_dtype(const Tensor& t, DType dtype);  // t itself when dtype already matches
// `t` on `device` (t itself when it is there already), copied through the backends.
Tensor to_device(const Tensor& t, Device device);
void fill(const Tensor& t, double value);
// Single element as double / int64 (Error(Shape) when numel != 1).
double item_double(const Tensor& t);
int64_t item_int64(const Tensor& t);

}  // namespace glia
