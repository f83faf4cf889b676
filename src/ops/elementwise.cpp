// The meta parts of the elementwise ops (Note [Op = meta + kernel + rule] in core/dispatch.h).
#include "ops/elementwise.h"

namespace glia::ops {

namespace {
// The general case of binary_meta: broadcasting, promotion, CPU scalars joining a device op.
__attribute__((noinline)) Tensor binary_meta_general(KernelId id, const char* name, const Tensor& a, const Tensor& b,
                                                     DType compute, DType out_dtype, std::initializer_list<Attr> attrs) {
  const Device dev = common_device(name, a, b);
  Dims shape = broadcast_shapes(name, a.shape(), b.shape());
  // A 0-dim CPU operand of a device op (a wrapped scalar) moves to the device.
  Tensor x = expand_to(to_dtype(to_device(a, dev), compute), shape);
  Tensor y = expand_to(to_dtype(to_device(b, dev), compute), shape);
  Tensor out = empty(shape, out_dtype, dev);
  run_kernel(id, dev, {&x, &y}, {&out}, attrs);
  return out;
}
}  // namespace

Tensor binary_meta(KernelId id, const char* name, const Tensor& a, const Tensor& b, DType compute, DType out_dtype,
                   std::initializer_list<Attr> attrs) {
  if (__builtin_expect(a.dtype() == compute && b.dtype() == compute && a.device() == b.device() &&
                           a.shape() == b.shape(),
                       1)) {
    // Same dtype, device and shape (the common case): no converted or expanded temporaries, whose
    // reference counting was a sixth of a small op's cost (W1).
    Tensor out = empty(a.shape(), out_dtype, a.device());
    run_kernel(id, a.device(), {&a, &b}, {&out}, attrs);
    return out;
  }
  return binary_meta_general(id, name, a, b, compute, out_dtype, attrs);
}

Tensor unary_meta(KernelId id, const Tensor& a, DType compute, DType out_dtype, std::initializer_list<Attr> attrs) {
  Tensor x = to_dtype(a, compute);
  Tensor out = empty(a.shape(), out_dtype, a.device());
  run_kernel(id, a.device(), {&x}, {&out}, attrs);
  return out;
}

Device common_device(const char* name, std::initializer_list<const Tensor*> ts) {
  // The device of the first tensor that is not a 0-dim CPU tensor (all CPU scalars: the CPU).
  const Tensor* first = nullptr;
  for (const Tensor* t : ts)
    if (t->defined() && (!first || (first->device().is_cpu() && first->dim() == 0 && !t->device().is_cpu()))) first = t;
  if (!first) return Device{};
  const Device dev = first->device();
  for (const Tensor* t : ts)
    if (t->defined() && t->device() != dev && !(t->device().is_cpu() && t->dim() == 0)) fail_devices(name, dev, t->device());
  return dev;
}

namespace {
// t converted to `dtype` on `dev`, expanded to `shape` (t itself when nothing changes).
Tensor prepare(const Tensor& t, Device dev, DType dtype, IntSpan shape) {
  if (__builtin_expect(t.device() != dev, 0)) return expand_to(to_dtype(to_device(t, dev), dtype), shape);
  return expand_to(to_dtype(t, dtype), shape);
}
}  // namespace

Tensor ternary_meta(KernelId id, const char* name, const Tensor& a, const Tensor& b, const Tensor& c, DType ta,
                    DType compute) {
  const Device dev = common_device(name, {&a, &b, &c});
  if (a.dtype() == ta && b.dtype() == compute && c.dtype() == compute && a.shape() == b.shape() &&
      a.shape() == c.shape() && a.device() == dev && b.device() == dev && c.device() == dev) {
    // Converted, of one shape and on one device already (the common case): no temporaries.
    Tensor out = empty(a.shape(), compute, dev);
    run_kernel(id, dev, {&a, &b, &c}, {&out});
    return out;
  }
  Dims shape = broadcast_shapes(name, broadcast_shapes(name, a.shape(), b.shape()), c.shape());
  Tensor x = prepare(a, dev, ta, shape);
  Tensor y = prepare(b, dev, compute, shape);
  Tensor z = prepare(c, dev, compute, shape);
  Tensor out = empty(shape, compute, dev);
  run_kernel(id, dev, {&x, &y, &z}, {&out});
  return out;
}

namespace {
// y shares memory with self other than element for element (the same offset and strides).
bool overlaps_elsewhere(const Tensor& y, const Tensor& self) {
  return y.impl()->storage() == self.impl()->storage() && !y.is_same(self) &&
         !(y.offset() == self.offset() && y.strides() == self.strides());
}
}  // namespace

void inplace_meta(KernelId id, const char* name, const Tensor& self, const Tensor& other, DType rt,
                  std::initializer_list<Attr> attrs) {
  const Device dev = self.device();
  if (__builtin_expect(other.device() != dev, 0) && !(other.device().is_cpu() && other.dim() == 0))
    fail_devices(name, dev, other.device());
  if (other.dtype() == self.dtype() && other.shape() == self.shape() && other.device() == dev &&
      !overlaps_elsewhere(other, self)) {
    // Same dtype, shape and device (the common case): no converted or expanded temporaries.
    check_inplace_cast(name, rt, self.dtype());
    run_kernel(id, dev, {&self, &other}, {&self}, attrs);
    return;
  }
  Dims shape = broadcast_shapes(name, self.shape(), other.shape());
  GLIA_CHECK(shape == self.shape(), Shape, name, ": output with shape ", self.shape(),
             " doesn't match the broadcast shape ", shape);
  check_inplace_cast(name, rt, self.dtype());
  Tensor y = other.device() == dev ? to_dtype(other, self.dtype()) : to_dtype(to_device(other, dev), self.dtype());
  // Kernels read in0 and in1 and write out in one pass: an in1 that is another view of self's
  // memory (transposed, shifted) is read from a copy, so no element is read after it was written.
  if (overlaps_elsewhere(y, self)) y = clone(y);
  Tensor x = expand_to(y, shape);
  run_kernel(id, dev, {&self, &x}, {&self}, attrs);
}

}  // namespace glia::ops
