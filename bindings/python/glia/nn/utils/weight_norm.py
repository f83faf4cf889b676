"""torch.nn.utils.weight_norm / remove_weight_norm (torch 1.13's hook form) over glia_nn_utils_weight_norm:
parameters name_g and name_v, and a forward pre-hook in the C module that recomputes `name` before every
call (a tensor attribute, which built-in forwards read)."""

from ..._ffi import C, check
from . import _sync

__all__ = ["weight_norm", "remove_weight_norm"]


def weight_norm(module, name="weight", dim=0):
    if name not in module._parameters:
        if hasattr(module, name):
            raise KeyError(name)
        raise AttributeError("'{}' object has no attribute '{}'".format(type(module).__name__, name))
    check(C.glia_nn_utils_weight_norm(module._h, name.encode(), -1 if dim is None else int(dim)))
    _sync.sync(module, (name, name + "_g", name + "_v"))
    module.__dict__.pop(name, None)
    return module


def remove_weight_norm(module, name="weight"):
    check(C.glia_nn_utils_remove_weight_norm(module._h, name.encode()), ValueError)
    _sync.sync(module, (name, name + "_g", name + "_v"))
    return module
