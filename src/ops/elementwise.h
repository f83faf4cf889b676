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

}  // namespace glia::ops
