"""Small Tensor methods and torch functions composed of glia's ops (issue 20, found missing by the
OpInfo replay, docs/coverage.md): H, mH, sum_to_size, new_empty_strided, Tensor.addmm,
Tensor.broadcast_to, positive, sgn, signbit, deg2rad, rad2deg, isreal. Real dtypes only, as glia."""

import math

import numpy as np

from ._tensor import (
    Tensor,
    _arg_error,
    _as_device,
    _as_dtype,
    _shape_args,
    addmm,
    bool as _bool,
    broadcast_to,
    copysign,
    from_numpy,
    get_default_dtype,
    ones_like,
)

__all__ = ["positive", "sgn", "signbit", "deg2rad", "rad2deg", "isreal"]


def _H(self):
    if self.ndim == 2:
        return self.transpose(0, 1)
    if self.ndim == 0:  # torch 1.13 gives the scalar back
        return self.view(())
    raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor.%s"
                       % (self.ndim, " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""))


def _mH(self):
    if self.ndim == 1:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return self.mT


def _sum_to_size(self, *size):
    size = list(_shape_args(size, "sum_to_size"))
    shape = list(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != d for s, d in zip(size, shape[lead:])):
        raise RuntimeError("size {[%s]} is not expandable to size {[%s]}."
                           % (", ".join(map(str, size)), ", ".join(map(str, shape))))
    r = self
    if lead:
        r = r.sum(list(range(lead)))
    keep = [i for i, (s, d) in enumerate(zip(size, shape[lead:])) if s == 1 and d != 1]
    if keep:
        r = r.sum(keep, keepdim=True)
    return r


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                       requires_grad=False):
    size, stride = list(_shape_args((size,), "new_empty_strided")), list(_shape_args((stride,), "new_empty_strided"))
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    dt = self.dtype if dtype is None else _as_dtype(dtype)
    dev = self.device if device is None else _as_device(device)
    if dev.type != "cpu" or dt.to_numpy() is None or dt._name == "bfloat16":
        raise NotImplementedError("glia: new_empty_strided makes CPU tensors of numpy's dtypes only (got %s, %s)"
                                  % (dev, dt))
    npd = np.dtype(dt.to_numpy())
    span = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    buf = np.empty(max(span, 1), dtype=npd)
    # A view with exactly these strides over new memory, as torch's empty_strided.
    a = np.lib.stride_tricks.as_strided(buf, shape=size, strides=[s * npd.itemsize for s in stride])
    t = from_numpy(a) if span else self.new_empty(size, dtype=dt)
    return t.requires_grad_(True) if requires_grad else t


def _addmm(self, mat1, mat2, *, beta=1, alpha=1):
    return addmm(self, mat1, mat2, beta=beta, alpha=alpha)


def _broadcast_to(self, size):
    return broadcast_to(self, size)


def _positive(self):
    if self.dtype is _bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _sgn(self):
    return self.sign()  # real dtypes: torch.sgn is torch.sign


def _signbit(self):
    if self.dtype is _bool:
        return self.new_zeros(self.shape, dtype=_bool)
    if self.dtype.is_floating_point:
        # the sign bit itself: True for -0.0 and a negative NaN, as std::signbit
        return copysign(self.new_ones(()), self.detach()).lt(0)
    return self.detach().lt(0)


def _to_float(t):
    return t if t.dtype.is_floating_point else t.to(get_default_dtype())


def _deg2rad(self):
    return _to_float(self).mul(math.pi / 180.0)


def _rad2deg(self):
    return _to_float(self).mul(180.0 / math.pi)


def _isreal(self):
    return ones_like(self, dtype=_bool)  # no complex dtypes in glia


for _n, _f in (("sum_to_size", _sum_to_size), ("new_empty_strided", _new_empty_strided), ("addmm", _addmm),
               ("broadcast_to", _broadcast_to), ("positive", _positive), ("sgn", _sgn), ("signbit", _signbit),
               ("deg2rad", _deg2rad), ("rad2deg", _rad2deg), ("isreal", _isreal)):
    _f.__name__ = _n
    _f.__qualname__ = "Tensor." + _n
    setattr(Tensor, _n, _f)
Tensor.H = property(_H)
Tensor.mH = property(_mH)


def _function(name):
    method = getattr(Tensor, name)

    def f(input):  # noqa: A002
        if not isinstance(input, Tensor):
            raise _arg_error(name, "input", 1, input)
        return method(input)

    f.__name__ = f.__qualname__ = name
    return f


positive = _function("positive")
sgn = _function("sgn")
signbit = _function("signbit")
deg2rad = _function("deg2rad")
rad2deg = _function("rad2deg")
isreal = _function("isreal")
