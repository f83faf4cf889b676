// The meta parts of the elementwise ops (Note [Op = meta + kernel + rule] in core/dispatch.h).
#include "ops/elementwise.h"

namespace glia::ops {

Tensor binary_meta(KernelId id, const char* name, const Tensor& a, const Tensor& b, DType compute, DType out_dtype,
                   std::initializer_list<Attr> attrs) {
  const Device dev = common_device(name, a, b);
  auto run = [&](const Tensor& x, const Tensor& y, const Tensor& out) { run_kernel(id, dev, {&x, &y}, {&out}, attrs); };
  if (a.dtype() == compute && b.dtype() == compute && a.shape() == b.shape() && a.device() == b.device()) {
    // Same dtype, shape and device (the common case): no converted or expanded temporaries, whose
    // reference counting was a sixth of a small op's cost (W1).
    Tensor out = empty(a.shape(), out_dtype, dev);
    run(a, b, out);
    return out;
  }
  Dims shape = broadcast_shapes(name, a.shape(), b.shape());
  // A 0-dim CPU operand of a device op (a wrapped scalar) moves to the device.
  Tensor x = expand_to(to_dtype(to_device(a, dev), compute), shape);
  Tensor y = expand_to(to_dtype(to_device(b, dev), compute), shape);
  Tensor out = empty(shape, out_dtype, dev);
  run(x, y, out);
  return out;
}

Tensor unary_meta(KernelId id, const Tensor& a, DType compute, DType out_dtype, std::initializer_list<Attr> attrs) {
  Tensor x = to_dtype(a, compute);
  Tensor out = empty(a.shape(), out_dtype, a.device());
  run_kernel(id, a.device(), {&x}, {&out}, attrs);
  return out;
}

}  // namespace glia::ops
