// torch's lazy modules (torch/nn/modules/lazy.py of 1.13): LazyLinear, LazyConv1d/2d/3d,
// LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d.
//
// Note [Lazy modules]: a lazy module is the ordinary built-in constructed with in_features /
// in_channels / num_features 0 (parameters not reset), renamed "Lazy<Class>", whose
// shape-dependent entries are placeholders (torch's UninitializedParameter /
// UninitializedBuffer): [0] tensors of the factory dtype, listed in the module's lazy state
// (a table in lazy.cpp keyed by the module, dropped with the hook or the module). They
// appear in state dicts as such. A forward pre-hook registered first (torch's
// _infer_parameters) runs initialize_parameters on the first call: the size comes from the
// input, each placeholder is materialised in place (the same TensorImpl takes new storage, as
// torch's materialize keeps the Parameter object), reset_parameters runs, the hook goes away
// and the module takes its ordinary name (torch's cls_to_become). load_state_dict
// (module_state.cpp) materialises a placeholder from the checkpoint's shape (torch's
// _lazy_load_hook) and leaves it alone when the checkpoint holds a placeholder too; the module
// then stays lazy until its next forward, with its size still 0 (as in torch).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nn/module.h"

namespace glia::nn {

enum class LazyKind { Linear, Conv, ConvTranspose, BatchNorm, InstanceNorm };

// Turns `m`, a built-in of `kind` freshly built with size 0 and not reset, into its lazy
// form: renames it "Lazy" + its name, replaces weight and bias (convolutions, Linear; when
// registered) or weight, bias, running_mean and running_var (norms; when registered) by
// placeholders, and registers the inferring hook.
void make_lazy(Module& m, LazyKind kind, int spatial_dims);

// torch's is_lazy(t): `t` is a placeholder of `m`.
bool is_uninitialized(const Module& m, const Tensor& t);
// torch's has_uninitialized_params(): any own parameter or buffer is a placeholder.
bool has_uninitialized_params(const Module& m);
// torch's initialize_parameters(input): when `m` has placeholders, infers the size from
// inputs[0] and materialises them, then reset_parameters. Errors as torch's (InvalidArgument):
// "Expected 3D (unbatched) or 4D (batched) input to LazyConv2d, but got input of size:
// torch.Size([5, 5])", "in_channels must be divisible by groups". A module that is not lazy:
// "initialize_parameters is not implemented for Linear" (Unsupported).
void initialize_parameters(Module& m, const TensorList& inputs);
// torch's materialize(shape): the placeholder `t` of `m` takes uninitialised storage of
// `shape` (its dtype and device kept) and stops being a placeholder.
void materialize(Module& m, const Tensor& t, IntSpan shape);
// Undoes materialize (load_state_dict's rollback): `t` becomes a [0] placeholder again.
void unmaterialize(Module& m, const Tensor& t);

}  // namespace glia::nn
