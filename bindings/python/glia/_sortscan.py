"""Reductions, scans and sorting with torch's names: torch.all/any/count_nonzero/aminmax/nansum/nanmean/
var_mean/std_mean, cumsum/cumprod/cummax/cummin/logcumsumexp, sort/argsort/msort/topk/kthvalue/median/
nanmedian/mode, as functions and Tensor methods. Ops with values and indices return torch's named
tuples (torch.return_types.sort(values=..., indices=...))."""

import builtins
import collections
import ctypes
from ctypes import byref, c_int64, c_void_p

from ._ffi import C, check
from ._tensor import Tensor, _as_dtype, _dims, _new
from ._tensor import tensor as _tensor

__all__ = [
    "all", "any", "count_nonzero", "aminmax", "nansum", "nanmean", "var_mean", "std_mean", "cumsum", "cumprod",
    "cummax", "cummin", "logcumsumexp", "sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian",
    "mode", "quantile", "nanquantile",
]


def _return_type(name, fields=("values", "indices")):
    base = collections.namedtuple(name, list(fields))

    def __repr__(self):
        body = ",\n".join("%s=%r" % (f, v) for f, v in zip(fields, self))
        return "torch.return_types.%s(\n%s)" % (name, body)

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


_RESULTS = {n: _return_type(n) for n in ("cummax", "cummin", "sort", "topk", "kthvalue", "median", "nanmedian",
                                         "mode")}
_RESULTS["aminmax"] = _return_type("aminmax", ("min", "max"))


def _pair(fn, result, *args):
    a, b = c_void_p(), c_void_p()
    check(fn(*args, byref(a), byref(b)))
    return result(Tensor._wrap(a.value), Tensor._wrap(b.value))


def _tuple_pair(fn, *args):
    a, b = c_void_p(), c_void_p()
    check(fn(*args, byref(a), byref(b)))
    return (Tensor._wrap(a.value), Tensor._wrap(b.value))


def _kd(keepdim):
    return 1 if keepdim else 0


def _dtype_arg(dtype):
    dt = _as_dtype(dtype)
    return None if dt is None else byref(ctypes.c_int(dt._code))


def _correction(dim, unbiased, correction):
    if isinstance(dim, builtins.bool):  # var_mean(x, unbiased) positional form
        dim, unbiased = None, dim
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    return dim, builtins.float(correction)


class _Methods:
    """Tensor methods (copied onto Tensor below)."""

    def all(self, dim=None, keepdim=False):
        dims, n = _dims(dim)
        return _new(C.glia_all, self._h, dims, n, _kd(keepdim))

    def any(self, dim=None, keepdim=False):
        dims, n = _dims(dim)
        return _new(C.glia_any, self._h, dims, n, _kd(keepdim))

    def count_nonzero(self, dim=None):
        dims, n = _dims(dim)
        return _new(C.glia_count_nonzero, self._h, dims, n)

    def aminmax(self, *, dim=None, keepdim=False):
        d = None if dim is None else byref(c_int64(dim))
        return _pair(C.glia_aminmax, _RESULTS["aminmax"], self._h, d, _kd(keepdim))

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        x = self if dtype is None else self.to(_as_dtype(dtype))
        dims, n = _dims(dim)
        return _new(C.glia_nansum, x._h, dims, n, _kd(keepdim))

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        x = self if dtype is None else self.to(_as_dtype(dtype))
        dims, n = _dims(dim)
        return _new(C.glia_nanmean, x._h, dims, n, _kd(keepdim))

    def cumsum(self, dim, *, dtype=None):
        return _new(C.glia_cumsum, self._h, dim, _dtype_arg(dtype))

    def cumprod(self, dim, *, dtype=None):
        return _new(C.glia_cumprod, self._h, dim, _dtype_arg(dtype))

    def cummax(self, dim):
        return _pair(C.glia_cummax, _RESULTS["cummax"], self._h, dim)

    def cummin(self, dim):
        return _pair(C.glia_cummin, _RESULTS["cummin"], self._h, dim)

    def logcumsumexp(self, dim):
        return _new(C.glia_logcumsumexp, self._h, dim)

    def sort(self, dim=-1, descending=False, *, stable=False):
        return _pair(C.glia_sort, _RESULTS["sort"], self._h, dim, _kd(descending), _kd(stable))

    def argsort(self, dim=-1, descending=False, *, stable=False):
        return _new(C.glia_argsort, self._h, dim, _kd(descending), _kd(stable))

    def msort(self):
        return _new(C.glia_msort, self._h)

    def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002
        return _pair(C.glia_topk, _RESULTS["topk"], self._h, k, dim, _kd(largest), _kd(sorted))

    def kthvalue(self, k, dim=-1, keepdim=False):
        return _pair(C.glia_kthvalue, _RESULTS["kthvalue"], self._h, k, dim, _kd(keepdim))

    def median(self, dim=None, keepdim=False):
        if dim is None:
            return _new(C.glia_median, self._h)
        return _pair(C.glia_median_dim, _RESULTS["median"], self._h, dim, _kd(keepdim))

    def nanmedian(self, dim=None, keepdim=False):
        if dim is None:
            return _new(C.glia_nanmedian, self._h)
        return _pair(C.glia_nanmedian_dim, _RESULTS["nanmedian"], self._h, dim, _kd(keepdim))

    def mode(self, dim=-1, keepdim=False):
        return _pair(C.glia_mode, _RESULTS["mode"], self._h, dim, _kd(keepdim))

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _quantile(C.glia_quantile, self, q, dim, keepdim, interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _quantile(C.glia_nanquantile, self, q, dim, keepdim, interpolation)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(fn, x, q, dim, keepdim, interpolation):
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           "but got %s" % interpolation)
    if not isinstance(q, Tensor):
        q = _tensor(q, dtype=x.dtype, device=x.device)
    d = None if dim is None else byref(c_int64(dim))
    return _new(fn, x._h, q._h, d, _kd(keepdim), _INTERPOLATIONS.index(interpolation))


for _n, _f in list(vars(_Methods).items()):
    if callable(_f) and not _n.startswith("_"):
        setattr(Tensor, _n, _f)


def _function(name):
    method = getattr(Tensor, name)

    def f(input, *args, **kwargs):  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s" % (name, type(input).__name__))
        return method(input, *args, **kwargs)

    f.__name__ = name
    f.__qualname__ = name
    return f


for _n in __all__:
    if _n not in ("var_mean", "std_mean"):
        globals()[_n] = _function(_n)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    dim, corr = _correction(dim, unbiased, correction)
    dims, n = _dims(dim)
    return _tuple_pair(C.glia_var_mean, input._h, dims, n, corr, _kd(keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    dim, corr = _correction(dim, unbiased, correction)
    dims, n = _dims(dim)
    return _tuple_pair(C.glia_std_mean, input._h, dims, n, corr, _kd(keepdim))
