// torch's out= arguments and a generic in-place write (issue 20): results computed out of place
// are written into a given tensor with torch's rules. The C API's glia_tensor_write_out,
// glia_tensor_assign_ and glia_tensor_set_geometry_ (src/capi/out_inplace.cpp) call these.
#pragma once

#include "autograd/node.h"

namespace glia {

// Writes `result` into `out` as torch's out= variants do: `out` is resized (to result's shape,
// contiguous) when its shape differs, with torch's deprecation warning (logged at Warning level)
// when it had elements; result's dtype must be castable to out's (torch's canCast); out must not
// have internal overlap nor partially overlap one of `inputs`; out's version counter is bumped.
// A result that requires grad (grad mode on and an input requires grad), or an out that requires
// grad, is torch's "functions with out=... arguments don't support automatic differentiation".
// Returns true when a non-empty out was resized. `op` names the function ("add").
bool write_out(const Tensor& out, const Tensor& result, const TensorList& inputs, const char* op);

// self <- result in place with autograd (Note [Generic in-place]): torch's leaf and inference
// checks, result castable to self's dtype, result's shape equal to self's; self's history becomes
// result's. `op` is the in-place op's name ("exp_").
void assign_(const Tensor& self, const Tensor& result, const char* op);

// self takes the geometry of `view` (a view of self's storage) in place, with view's history:
// torch's metadata in-place ops (t_, transpose_, squeeze_, unsqueeze_, swapaxes_).
void set_geometry_(const Tensor& self, const Tensor& view, const char* op);

}  // namespace glia
