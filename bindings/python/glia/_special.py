"""Elementwise and special functions (issue 20): torch.logaddexp, logaddexp2, heaviside, nextafter,
igamma, igammac, ldexp, float_power, dist, frexp, polygamma, mvlgamma, i0, sinc, renorm as functions
and Tensor methods (with torch's in-place forms), and the torch.special names glia has (glia.special).

The in-place forms compute out of place and copy into self after torch's checks (the result type
must be castable to self's dtype, the broadcast shape must be self's), as Tensor.pow_ does."""

import builtins
import collections
from ctypes import byref, c_void_p

from ._ffi import C, check
from ._tensor import Tensor, _arg_error, _is_number, _new, float64, full

__all__ = ["logaddexp", "logaddexp2", "heaviside", "nextafter", "igamma", "igammac", "ldexp", "float_power", "dist",
           "frexp", "polygamma", "mvlgamma", "i0", "i0_", "sinc", "sinc_", "renorm"]


def _type_name(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}.get(str(dt).split(".")[-1],
                                                                                                  str(dt))


def _can_cast(src, dst):
    if src.is_floating_point and not dst.is_floating_point:
        return False
    if str(dst).endswith("bool") and not str(src).endswith("bool"):
        return False
    return True


def _assign(self, result, name):
    """self <- result with torch's in-place checks (cast and shape)."""
    if not _can_cast(result.dtype, self.dtype):
        raise RuntimeError("result type %s can't be cast to the desired output type %s"
                           % (_type_name(result.dtype), _type_name(self.dtype)))
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError("output with shape %s doesn't match the broadcast shape %s"
                           % (list(self.shape), list(result.shape)))
    return self.copy_(result)


def _tensor_arg(x, op, arg, pos):
    if not isinstance(x, Tensor):
        raise _arg_error(op, arg, pos, x)
    return x


# ---- binary ops on two tensors

def _binary(name, fn, arg="other"):
    def method(self, other):
        return _new(fn, self._h, _tensor_arg(other, name, arg, 1)._h)

    def function(input, other):  # noqa: A002
        _tensor_arg(input, name, "input", 1)
        return method(input, _tensor_arg(other, name, arg, 2))

    method.__name__ = function.__name__ = function.__qualname__ = name
    method.__qualname__ = "Tensor." + name
    return method, function


for _n, _arg in (("logaddexp", "other"), ("logaddexp2", "other"), ("heaviside", "values"), ("nextafter", "other"),
                 ("igamma", "other"), ("igammac", "other"), ("ldexp", "other")):
    _m, _f = _binary(_n, getattr(C, "glia_" + _n), _arg)
    setattr(Tensor, _n, _m)
    globals()[_n] = _f

for _n in ("heaviside", "nextafter", "igamma", "igammac", "ldexp"):
    setattr(Tensor, _n + "_", (lambda n: lambda self, other: _assign(self, getattr(self, n)(other), n + "_"))(_n))
    getattr(Tensor, _n + "_").__name__ = _n + "_"


# ---- float_power: tensors or numbers, computed in float64

def _f64(x, name, arg, pos):
    if isinstance(x, Tensor):
        return x
    if _is_number(x):
        return full((), x, dtype=float64)
    raise TypeError("float_power() received an invalid combination of arguments - got (%s)" % arg)


def float_power(input, exponent):  # noqa: A002
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power() received an invalid combination of arguments")
    base, exp = _f64(input, "float_power", "input", 1), _f64(exponent, "float_power", "exponent", 2)  # kept alive
    return _new(C.glia_float_power, base._h, exp._h)


def _float_power_(self, exponent):
    r = float_power(self, exponent)
    if self.dtype != float64:
        raise RuntimeError("the base given to float_power_ has dtype %s but the operation's result requires dtype "
                           "Double" % _type_name(self.dtype))
    return _assign(self, r, "float_power_")


Tensor.float_power = float_power
Tensor.float_power_ = _float_power_
_float_power_.__name__ = "float_power_"


# ---- dist, renorm

def _dist(self, other, p=2):
    return _new(C.glia_dist, self._h, _tensor_arg(other, "dist", "other", 1)._h, builtins.float(p))


def dist(input, other, p=2):  # noqa: A002
    _tensor_arg(input, "dist", "input", 1)
    return _dist(input, other, p)


def _renorm(self, p, dim, maxnorm):
    return _new(C.glia_renorm, self._h, builtins.float(p), builtins.int(dim), builtins.float(maxnorm))


def renorm(input, p, dim, maxnorm):  # noqa: A002
    _tensor_arg(input, "renorm", "input", 1)
    return _renorm(input, p, dim, maxnorm)


Tensor.dist, Tensor.renorm = _dist, _renorm
Tensor.renorm_ = lambda self, p, dim, maxnorm: _assign(self, _renorm(self, p, dim, maxnorm), "renorm_")
_dist.__name__, _renorm.__name__, Tensor.renorm_.__name__ = "dist", "renorm", "renorm_"


# ---- frexp: torch.return_types.frexp(mantissa, exponent)

_frexp_base = collections.namedtuple("frexp", ["mantissa", "exponent"])


class _FrexpResult(_frexp_base):
    __slots__ = ()

    def __repr__(self):
        return "torch.return_types.frexp(\nmantissa=%r,\nexponent=%r)" % (self.mantissa, self.exponent)


def _frexp(self):
    m, e = c_void_p(), c_void_p()
    check(C.glia_frexp(self._h, byref(m), byref(e)))
    return _FrexpResult(Tensor._wrap(m.value), Tensor._wrap(e.value))


def frexp(input):  # noqa: A002
    return _frexp(_tensor_arg(input, "frexp", "input", 1))


Tensor.frexp = _frexp
_frexp.__name__ = "frexp"


# ---- unary special functions

def _polygamma(self, n):
    return _new(C.glia_polygamma, builtins.int(n), self._h)


def polygamma(n, input):  # noqa: A002
    return _polygamma(_tensor_arg(input, "polygamma", "input", 2), n)


def _mvlgamma(self, p):
    return _new(C.glia_mvlgamma, self._h, builtins.int(p))


def mvlgamma(input, p):  # noqa: A002
    return _mvlgamma(_tensor_arg(input, "mvlgamma", "input", 1), p)


Tensor.polygamma, Tensor.mvlgamma = _polygamma, _mvlgamma
Tensor.polygamma_ = lambda self, n: _assign(self, _polygamma(self, n), "polygamma_")
Tensor.mvlgamma_ = lambda self, p: _assign(self, _mvlgamma(self, p), "mvlgamma_")
_polygamma.__name__, _mvlgamma.__name__ = "polygamma", "mvlgamma"
Tensor.polygamma_.__name__, Tensor.mvlgamma_.__name__ = "polygamma_", "mvlgamma_"


def _unary(name, fn):
    def method(self):
        return _new(fn, self._h)

    def method_(self):
        return _assign(self, method(self), name + "_")

    def function(input):  # noqa: A002
        return method(_tensor_arg(input, name, "input", 1))

    def function_(input):  # noqa: A002
        return method_(_tensor_arg(input, name + "_", "input", 1))

    method.__name__ = function.__name__ = name
    method_.__name__ = function_.__name__ = name + "_"
    return method, method_, function, function_


for _n in ("i0", "sinc"):
    _m, _m_, _f, _f_ = _unary(_n, getattr(C, "glia_" + _n))
    setattr(Tensor, _n, _m)
    setattr(Tensor, _n + "_", _m_)
    globals()[_n], globals()[_n + "_"] = _f, _f_
_special_i1 = _unary("i1", C.glia_special_i1)[2]
