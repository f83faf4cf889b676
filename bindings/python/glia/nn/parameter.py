"""nn.Parameter: a Tensor that a Module registers as a parameter."""

from .._ffi import C, check, c_void_p, byref
from .._tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """torch.nn.Parameter(data=None, requires_grad=True): a detached alias of `data` (same storage)."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from . import _util
            import numpy as np

            data = _util.from_numpy(np.zeros((0,), np.float32))
        out = c_void_p()
        check(C.glia_tensor_detach(data._h, byref(out)))
        p = cls._wrap(out.value)
        check(C.glia_tensor_set_requires_grad(p._h, 1 if requires_grad else 0))
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__  # torch prints a Parameter the same way through str() and print()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = c_void_p()
        check(C.glia_tensor_detach(self._h, byref(out)))
        tmp = Tensor._wrap(out.value)
        result = Parameter(tmp.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):  # pragma: no cover - pickling goes through glia.save
        raise TypeError("glia.nn.Parameter cannot be pickled; use glia.save")
