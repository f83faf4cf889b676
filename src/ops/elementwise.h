// Elementwise ops (no autograd): their meta parts (broadcasting, torch's type
// promotion, devices) and declarations. Their CPU loops: ops/cpu/loops.h.
#pragma once

#include "core/dispatch.h"
#include "core/scalar.h"
#include "ops/iter.h"

namespace glia::ops {

// The meta part of a binary elementwise op (Note [Op = meta + kernel + rule]):
// torch's device rule, broadcasting and promotion to `compute`, the output
// (`out_dtype`: compute, or bool for predicates) allocated on the op's
// device, then kernel `id` with inputs of dtype `compute` expanded to the
// output's shape. ops/elementwise.cpp.
Tensor binary_meta(KernelId id, const char* name, const Tensor& a, const Tensor& b, DType compute, DType out_dtype,
                   std::initializer_list<Attr> attrs = {});
// The same for a unary op: input converted to `compute`.
Tensor unary_meta(KernelId id, const Tensor& a, DType compute, DType out_dtype, std::initializer_list<Attr> attrs = {});

// The same for a ternary op (where, clamp with two bounds): `a` converted to
// `ta`, b and c to `compute`, all broadcast together (torch's order: a, b, c);
// the output has dtype `compute`. Undefined tensors are not allowed here.
Tensor ternary_meta(KernelId id, const char* name, const Tensor& a, const Tensor& b, const Tensor& c, DType ta,
                    DType compute);
// The meta part of in-place arithmetic (self op= other): torch's checks (other
// broadcasts to self's shape, `rt` castable to self's dtype, one device, a 0-dim
// CPU `other` allowed as a scalar), other converted to self's dtype, moved and
// expanded, then kernel `id` with in0 == out == self. An `other` that shares
// self's memory elsewhere than element for element is copied first.
void inplace_meta(KernelId id, const char* name, const Tensor& self, const Tensor& other, DType rt,
                  std::initializer_list<Attr> attrs = {});
// torch's device rule for several tensors (undefined ones skipped): as common_device.
Device common_device(const char* name, std::initializer_list<const Tensor*> ts);

// Checks torch's in-place rule: the result type `rt` must be castable to self's dtype.
void check_inplace_cast(const char* name, DType rt, DType self);

// ---- arithmetic (binary.cpp)
Tensor add(const Tensor& a, const Tensor& b, double alpha);
Tensor sub(const Tensor& a, const Tensor& b, double alpha);
Tensor mul(const Tensor& a, const Tensor& b);
// rounding_mode: nullptr (true division), "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b, const char* rounding_mode);
Tensor neg(const Tensor& a);
// s - alpha * a (torch.rsub with a Scalar).
Tensor rsub(const Tensor& a, const Tensor& s, double alpha);

void add_(const Tensor& self, const Tensor& other, double alpha);
void sub_(const Tensor& self, const Tensor& other, double alpha);
void mul_(const Tensor& self, const Tensor& other);
void div_(const Tensor& self, const Tensor& other);
// self += value * t1 * t2; self += value * t1 / t2.
void addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void fill_(const Tensor& self, const Scalar& value);
// self <- src broadcast to self's shape, converted to self's dtype (non_blocking: Note [Non-blocking
// copies] in core/tensor.cpp).
void copy_(const Tensor& self, const Tensor& src, bool non_blocking = false);

// ---- math (unary.cpp). Ops marked "float" give float32 for integer/bool inputs.
Tensor abs(const Tensor& a);
Tensor sign(const Tensor& a);
Tensor exp(const Tensor& a);      // float
Tensor log(const Tensor& a);      // float
Tensor log1p(const Tensor& a);    // float
Tensor expm1(const Tensor& a);    // float
Tensor sqrt(const Tensor& a);     // float
Tensor rsqrt(const Tensor& a);    // float
Tensor erf(const Tensor& a);      // float (internal: gelu's derivative)
Tensor sigmoid(const Tensor& a);  // float
Tensor tanh(const Tensor& a);     // float
// a ** b; either may be a wrapped scalar (torch.pow's three overloads).
Tensor pow(const Tensor& a, const Tensor& b);
// Clamp to [lo, hi]; either bound may be undefined (not both) or a wrapped scalar.
Tensor clamp(const Tensor& a, const Tensor& lo, const Tensor& hi);
void clamp_(const Tensor& self, const Tensor& lo, const Tensor& hi);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// ---- comparisons and logic (compare.cpp); results are bool.
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
Tensor compare(const Tensor& a, const Tensor& b, Cmp op);
enum class Logic { And, Or, Xor };
Tensor logical(const Tensor& a, const Tensor& b, Logic op);
Tensor logical_not(const Tensor& a);

// ---- activations (activation.cpp)
Tensor relu(const Tensor& a);
void relu_(const Tensor& self);
Tensor leaky_relu(const Tensor& a, double negative_slope);
Tensor elu(const Tensor& a, double alpha, double scale, double input_scale);
// approximate: false = "none" (erf), true = "tanh".
Tensor gelu(const Tensor& a, bool approximate_tanh);
Tensor silu(const Tensor& a);
Tensor hardswish(const Tensor& a);
Tensor softplus(const Tensor& a, double beta, double threshold);
Tensor hardtanh(const Tensor& a, double min_val, double max_val);
// Fused first-order backward kernels: the gradient of the input given the output gradient.
Tensor threshold_backward(const Tensor& grad, const Tensor& x, double threshold);  // x <= threshold ? 0 : g
Tensor sigmoid_backward(const Tensor& grad, const Tensor& y);                      // g * y * (1 - y)
Tensor tanh_backward(const Tensor& grad, const Tensor& y);                         // g * (1 - y^2)
Tensor gelu_backward(const Tensor& grad, const Tensor& x, bool approximate_tanh);
Tensor silu_backward(const Tensor& grad, const Tensor& x);
Tensor hardswish_backward(const Tensor& grad, const Tensor& x);

}  // namespace glia::ops
