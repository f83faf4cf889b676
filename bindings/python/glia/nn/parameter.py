"""nn.Parameter: a Tensor that a Module registers as a parameter."""

from .._ffi import C, check, c_void_p, byref
from .._tensor import Tensor

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin", "is_lazy"]


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


# ---- torch.nn.parameter's lazy placeholders (issue 21) ------------------------------------------

_UNINIT_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                 "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
                 "Call `forward` to initialize the parameters before accessing their attributes.")
_UNINIT_USE = ("Attempted to use an uninitialized parameter in <method '{}' of 'torch._C._TensorBase' objects>. "
               "This error happens when you are using a `LazyModule` or explicitly manipulating "
               "`torch.nn.parameter.{}` objects. When using LazyModules Call `forward` with a dummy batch "
               "to initialize the parameters before calling torch functions")
# torch's UninitializedTensorMixin._allowed_methods (and glia's internal data_ptr, used by Module.to).
_ALLOWED = frozenset(["size", "copy_", "is_floating_point", "half", "float", "double", "char", "short", "int",
                      "long", "cuda", "cpu", "to", "get_device", "data_ptr", "materialize", "share_memory_"])


def _refuse(name):
    def method(self, *args, **kwargs):
        raise ValueError(_UNINIT_USE.format(name.strip("_") if name.startswith("__") else name,
                                            type(self).__name__))
    method.__name__ = name
    return method


class UninitializedTensorMixin:
    """torch.nn.parameter.UninitializedTensorMixin: a placeholder of a lazy module ([0] data of the factory
    dtype) until the module's first forward or load_state_dict materialises it in place (the same object
    then becomes a Parameter / Tensor). Tensor methods other than torch's allowed ones raise ValueError."""

    __slots__ = ()
    cls_to_become = None

    def __getattribute__(self, name):
        if not name.startswith("_") and name not in _ALLOWED:
            from .._tensor import Tensor as _T

            attr = _T.__dict__.get(name)
            if callable(attr) and not isinstance(attr, (property, staticmethod, classmethod)):
                raise ValueError(_UNINIT_USE.format(name, type(self).__name__))
        return object.__getattribute__(self, name)

    @property
    def shape(self):
        raise RuntimeError(_UNINIT_SHAPE)

    def size(self, dim=None):
        s = Tensor.shape.fget(self)
        return s if dim is None else s[dim]

    def materialize(self, shape, device=None, dtype=None):
        raise RuntimeError("glia: only a lazy module materializes its placeholders (at its first forward or "
                           "load_state_dict); a standalone {} cannot be materialized".format(type(self).__name__))

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return "<{}>".format(type(self).__name__)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        raise TypeError("glia: an uninitialized parameter cannot be pickled; use glia.save")


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__matmul__", "__rmatmul__", "__pow__", "__neg__", "__getitem__", "__setitem__", "__iadd__",
              "__isub__", "__imul__", "__lt__", "__le__", "__gt__", "__ge__", "__array__", "__len__", "__iter__",
              "__float__", "__int__", "__bool__"):
    setattr(UninitializedTensorMixin, _name, _refuse(_name))
del _name


def _uninitialized(cls, requires_grad, device, dtype):
    from .._tensor import empty

    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError("glia's Python binding creates tensors on the CPU only (got %s)" % (device,))
    data = empty(0, dtype=dtype) if dtype is not None else empty(0)
    return Parameter.__new__(cls, data, requires_grad) if issubclass(cls, Parameter) else _as(cls, data,
                                                                                                   requires_grad)


def _as(cls, data, requires_grad):
    h, data._h = data._h, None
    t = cls._wrap(h)
    check(C.glia_tensor_set_requires_grad(t._h, 1 if requires_grad else 0))
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """torch.nn.parameter.UninitializedParameter(requires_grad=True, device=None, dtype=None)."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, None, self.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """torch.nn.parameter.UninitializedBuffer(requires_grad=False, device=None, dtype=None)."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, None, self.dtype)
        memo[id(self)] = result
        return result


def is_lazy(param):
    """torch.nn.parameter.is_lazy."""
    return isinstance(param, UninitializedTensorMixin)
