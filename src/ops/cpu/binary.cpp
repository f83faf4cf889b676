// add, sub, mul, div, neg, rsub and the in-place arithmetic (add_, sub_, mul_, div_, addcmul_, addcdiv_, fill_, copy_).
#include <cmath>
#include <cstring>

#include "ops/cpu/loops.h"
#include "ops/elementwise.h"

namespace glia::ops {

namespace {
void check_alpha(const char* name, DType t, double alpha) {
  GLIA_CHECK(is_floating(t) || alpha == std::trunc(alpha), InvalidArgument, name,
             ": For integral input tensors, argument alpha must not be a floating point number.");
  GLIA_CHECK(t != DType::Bool || alpha == 0 || alpha == 1, InvalidArgument, name,
             ": boolean alpha only supported for Tensor with boolean dtype");
}

void check_sub_bool(const Tensor& a, const Tensor& b) {
  GLIA_CHECK(a.dtype() != DType::Bool || b.dtype() != DType::Bool, DType,
             "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
             "operator instead.");
  GLIA_CHECK(a.dtype() != DType::Bool && b.dtype() != DType::Bool, DType,
             "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
             "use the `~` or `logical_not()` operator instead.");
}
}  // namespace

void check_inplace_cast(const char* name, DType rt, DType self) {
  // torch's canCast: no floating -> integral, no non-bool -> bool.
  GLIA_CHECK(!(is_floating(rt) && !is_floating(self)) && !(rt != DType::Bool && self == DType::Bool), DType, name,
             ": result type ", scalar_type_name(rt), " can't be cast to the desired output type ",
             scalar_type_name(self));
}

// ---- meta parts (Note [Op = meta + kernel + rule])

Tensor add(const Tensor& a, const Tensor& b, double alpha) {
  DType t = result_type(a, b);
  check_alpha("add", t, alpha);
  return binary_meta(KernelId::add, "add", a, b, t, t, {attr_f(alpha)});
}

Tensor sub(const Tensor& a, const Tensor& b, double alpha) {
  check_sub_bool(a, b);
  DType t = result_type(a, b);
  check_alpha("sub", t, alpha);
  return binary_meta(KernelId::sub, "sub", a, b, t, t, {attr_f(alpha)});
}

Tensor rsub(const Tensor& a, const Tensor& s, double alpha) { return sub(s, a, alpha); }

Tensor mul(const Tensor& a, const Tensor& b) {
  DType t = result_type(a, b);
  return binary_meta(KernelId::mul, "mul", a, b, t, t);
}

Tensor div(const Tensor& a, const Tensor& b, const char* mode) {
  DType t = result_type(a, b);
  if (!mode) {
    // True division: integers promote to the default float dtype.
    DType ft = is_floating(t) ? t : DType::Float32;
    return binary_meta(KernelId::div, "div", a, b, ft, ft, {attr_s(nullptr)});
  }
  bool trunc = std::strcmp(mode, "trunc") == 0;
  GLIA_CHECK(trunc || std::strcmp(mode, "floor") == 0, InvalidArgument,
             "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", mode, "'");
  GLIA_CHECK(t != DType::Bool, DType, "div: rounding_mode is not supported for bool tensors");
  return binary_meta(KernelId::div, "div", a, b, t, t, {attr_s(trunc ? "trunc" : "floor")});
}

Tensor neg(const Tensor& a) {
  GLIA_CHECK(a.dtype() != DType::Bool, DType,
             "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
             "the `~` or `logical_not()` operator instead.");
  Tensor out = empty(a.shape(), a.dtype(), a.device());
  run_kernel(KernelId::neg, a.device(), {&a}, {&out});
  return out;
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::binary_kernel;

void add_kernel(const KernelArgs& k) {
  // Note [Integer wrap-around]: integer results wrap as torch's do.
  const double alpha = k.attr(0).f;
  if (alpha == 1.0) return binary_kernel(k, [](auto x, auto y) { return wrap_add(x, y); });
  binary_kernel(k, [alpha](auto x, auto y) {
    using A = decltype(x);
    return wrap_add(x, wrap_mul(convert<A, double>(alpha), y));
  });
}

void sub_kernel(const KernelArgs& k) {
  const double alpha = k.attr(0).f;
  binary_kernel(k, [alpha](auto x, auto y) {
    using A = decltype(x);
    return wrap_sub(x, wrap_mul(convert<A, double>(alpha), y));
  });
}

void mul_kernel(const KernelArgs& k) {
  if (k.input(0).dtype() == DType::Bool) return binary_kernel(k, [](auto x, auto y) { return x && y; });
  binary_kernel(k, [](auto x, auto y) { return wrap_mul(x, y); });
}

void div_kernel(const KernelArgs& k) {
  const char* mode = k.attr(0).s;
  if (!mode) return binary_kernel<ops::Types::Floating>(k, [](auto x, auto y) { return x / y; });
  const Tensor& y = k.input(1);
  if (!is_floating(y.dtype())) {
    // Integer division by zero is an error in torch ("ZeroDivisionError").
    Tensor zero = empty(y.shape(), DType::Bool, y.device());
    const Tensor* in[] = {&y, &y};
    const Tensor* out[] = {&zero};
    binary_kernel(KernelArgs{in, out, nullptr, 2, 1, 0}, [](auto, auto v) { return v == 0; });
    const bool* z = zero.data_ptr<bool>();
    for (int64_t i = 0; i < zero.numel(); ++i) GLIA_CHECK(!z[i], InvalidArgument, "ZeroDivisionError");
  }
  if (mode[0] == 't')
    return binary_kernel(k, [](auto x, auto y) {
      using A = decltype(x);
      if constexpr (std::is_floating_point_v<A>)
        return std::trunc(x / y);
      else if constexpr (wraps_v<A> && std::is_signed_v<A>)
        return y == A(-1) ? wrap_neg(x) : static_cast<A>(x / y);  // MIN / -1 traps (SIGFPE) on x86
      else
        return static_cast<A>(x / y);
    });
  binary_kernel(k, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_floating_point_v<A>) {
      // torch's floor division for floats (Python semantics, via fmod).
      if (y == A(0)) return x / y;
      A mod = std::fmod(x, y);
      A d = (x - mod) / y;
      if (mod != A(0) && ((y < A(0)) != (mod < A(0)))) d -= A(1);
      if (d == A(0)) return std::copysign(A(0), x / y);
      A fl = std::floor(d);
      if (d - fl > A(0.5)) fl += A(1);
      return fl;
    } else if constexpr (std::is_same_v<A, bool>) {
      return x;  // unreachable: bool division with a rounding mode is rejected by the meta part
    } else {
      if constexpr (std::is_signed_v<A>) {
        if (y == A(-1)) return wrap_neg(x);  // MIN / -1 and MIN % -1 trap (SIGFPE) on x86
      }
      A q = static_cast<A>(x / y);
      if ((x % y != 0) && ((x < 0) != (y < 0))) q = static_cast<A>(q - 1);
      return q;
    }
  });
}

void neg_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &a = k.input(0);
  dispatch_all(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) ops::unary_loop<T, T>(out, a, [](auto x) { return wrap_neg(x); });
  });
}

}  // namespace glia::cpu

namespace glia::ops {

// In place: the meta part (inplace_meta: checks, other converted to self's dtype and broadcast)
// then the out-of-place op's kernel with out == in0 == self.

void add_(const Tensor& self, const Tensor& other, double alpha) {
  check_alpha("add_", self.dtype(), alpha);
  inplace_meta(KernelId::add, "add_", self, other, result_type(self, other), {attr_f(alpha)});
}

void sub_(const Tensor& self, const Tensor& other, double alpha) {
  check_sub_bool(self, other);
  check_alpha("sub_", self.dtype(), alpha);
  inplace_meta(KernelId::sub, "sub_", self, other, result_type(self, other), {attr_f(alpha)});
}

void mul_(const Tensor& self, const Tensor& other) {
  inplace_meta(KernelId::mul, "mul_", self, other, result_type(self, other));
}

void div_(const Tensor& self, const Tensor& other) {
  DType rt = result_type(self, other);
  // True division; a non-floating self is refused by the cast check.
  inplace_meta(KernelId::div, "div_", self, other, is_floating(rt) ? rt : DType::Float32, {attr_s(nullptr)});
}

// self + value * y in self's dtype is the add kernel with alpha = value: it computes
// x + convert(value) * y, which for bool is x || (value != 0 && y).
void addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  Tensor prod = mul(t1, t2);
  const Tensor* ops3[] = {&self, &t1, &t2};
  DType rt = result_type(ops3);
  inplace_meta(KernelId::add, "addcmul_", self, prod, rt, {attr_f(value.to_double())});
}

void addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  GLIA_CHECK(!(is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)), DType,
             "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
             "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
             "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
             "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
             "(input + value * tensor1 / tensor2), for all dtypes.");
  Tensor q = div(t1, t2, nullptr);
  const Tensor* ops3[] = {&self, &t1, &t2};
  DType rt = result_type(ops3);
  inplace_meta(KernelId::add, "addcdiv_", self, q, is_floating(rt) ? rt : DType::Float32, {attr_f(value.to_double())});
}

void fill_(const Tensor& self, const Scalar& value) {
  value.check_fits(self.dtype());
  if (self.numel() == 0) return;
  const char* kind = value.kind == Scalar::Kind::Float ? "float" : value.kind == Scalar::Kind::Int ? "int" : "bool";
  run_kernel(KernelId::fill, self.device(), {}, {&self}, {Attr{value.i, value.f, nullptr, 0, kind}});
}

void copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  Dims shape = broadcast_shapes("copy_", self.shape(), src.shape());
  GLIA_CHECK(shape == self.shape(), Shape, "copy_: output with shape ", self.shape(),
             " doesn't match the broadcast shape ", shape);
  if (self.numel() == 0) return;
  // src may overlap self (e.g. a transposed view of it): copy through a temporary then.
  Tensor s = src.impl()->storage() == self.impl()->storage() ? clone(src) : src;
  copy_into(self, expand_to(s, shape), non_blocking);
}

}  // namespace glia::ops
