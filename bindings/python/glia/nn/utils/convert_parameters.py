"""torch.nn.utils.parameters_to_vector / vector_to_parameters over glia_nn_utils_*."""

from ..._ffi import C, check, c_void_p, byref
from ..._tensor import Tensor
from .. import _util

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _device_codes():
    from ... import _ffi

    return {_ffi.GLIA_ERR_INVALID_ARGUMENT: TypeError}


def _typename(o):
    """torch.typename for a non-tensor."""
    module = ""
    if hasattr(o, "__module__") and o.__module__ not in ("builtins", "__builtin__", None):
        module = o.__module__ + "."
    if hasattr(o, "__qualname__"):
        class_name = o.__qualname__
    elif hasattr(o, "__name__"):
        class_name = o.__name__
    else:
        class_name = o.__class__.__name__
    return module + class_name


def parameters_to_vector(parameters):
    ps = list(parameters)
    arr, n = _util.handles(ps)
    out = c_void_p()
    check(C.glia_nn_utils_parameters_to_vector(arr, n, byref(out)), codes=_device_codes() if n else None)
    return Tensor._wrap(out.value)


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        raise TypeError("expected torch.Tensor, but got: {}".format(_typename(vec)))
    ps = list(parameters)
    arr, n = _util.handles(ps)
    check(C.glia_nn_utils_vector_to_parameters(vec._h, arr, n))
