"""torch.nn.utils.weight_norm / remove_weight_norm (torch 1.13's hook form) over glia_nn_utils_weight_norm:
parameters name_g and name_v, and a forward pre-hook in the C module that recomputes `name` before every
call (a tensor attribute, which built-in forwards read)."""

from ... import _ffi
from ..._ffi import C, check
from . import _sync

__all__ = ["weight_norm", "remove_weight_norm"]


def _call(module, name, err):
    """Raises for `err` (a glia_error *) as torch does: a `name` that is no parameter is torch's KeyError (an
    attribute of another kind) or AttributeError."""
    if not err:
        return
    code, message = _ffi.error_info(err)
    if code == _ffi.GLIA_ERR_NOT_FOUND and "object has no parameter" in message:
        if hasattr(module, name):
            raise KeyError(name)
        raise AttributeError("'{}' object has no attribute '{}'".format(type(module).__name__, name))
    _ffi.raise_error(code, message, codes={_ffi.GLIA_ERR_INVALID_ARGUMENT: ValueError})


def weight_norm(module, name="weight", dim=0):
    _call(module, name, C.glia_nn_utils_weight_norm(module._h, name.encode(), -1 if dim is None else int(dim)))
    _sync.sync(module, (name, name + "_g", name + "_v"))
    module.__dict__.pop(name, None)
    return module


def remove_weight_norm(module, name="weight"):
    check(C.glia_nn_utils_remove_weight_norm(module._h, name.encode()), ValueError)
    _sync.sync(module, (name, name + "_g", name + "_v"))
    return module
