// Elementwise kernels (no autograd): broadcasting and torch's type promotion.
#pragma once

#include "ops/iter.h"

namespace glia::ops {

// Applies f (a generic lambda on acc types) to broadcast a and b, computing in
// the promoted dtype `compute` and storing as `out_dtype`.
template <class F>
Tensor binary_op(const char* name, const Tensor& a, const Tensor& b, DType compute, DType out_dtype, F f) {
  Dims shape = broadcast_shapes(name, a.shape(), b.shape());
  Tensor x = expand_to(to_dtype(a, compute), shape);
  Tensor y = expand_to(to_dtype(b, compute), shape);
  Tensor out = empty(shape, out_dtype, a.device());
  dispatch_all(compute, [&](auto ctag) {
    using C = decltype(ctag);
    dispatch_all(out_dtype, [&](auto otag) {
      using O = decltype(otag);
      if constexpr (std::is_same_v<O, C> || std::is_same_v<O, bool>) binary_loop<O, C>(out, x, y, f);
    });
  });
  return out;
}

// In place: self = f(self, other) with other broadcast to self's shape and
// the result cast to self's dtype (torch's rule: the result type must be
// castable to self's dtype).
template <class F>
void binary_op_(const char* name, const Tensor& self, const Tensor& other, F f) {
  Dims shape = broadcast_shapes(name, self.shape(), other.shape());
  GLIA_CHECK(shape == self.shape(), Shape, name, ": output with shape ", self.shape(),
             " doesn't match the broadcast shape ", shape);
  DType rt = result_type(self, other);
  GLIA_CHECK(!(is_floating(rt) && !is_floating(self.dtype())) && !(rt != DType::Bool && self.dtype() == DType::Bool),
             DType, name, ": result type ", dtype_name(rt), " can't be cast to the desired output type ",
             dtype_name(self.dtype()));
  Tensor y = expand_to(to_dtype(other, self.dtype()), shape);
  dispatch_all(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    binary_loop<T, T>(self, self, y, f);
  });
}

Tensor add(const Tensor& a, const Tensor& b, double alpha);
Tensor sub(const Tensor& a, const Tensor& b, double alpha);
Tensor mul(const Tensor& a, const Tensor& b);
// rounding_mode: nullptr (true division), "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b, const char* rounding_mode);
Tensor neg(const Tensor& a);

void add_(const Tensor& self, const Tensor& other, double alpha);
void mul_(const Tensor& self, const Tensor& other);

}  // namespace glia::ops
