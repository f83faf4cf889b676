"""Search, statistics and shape functions with torch's names (issue 20; glia_searchsorted & co. in
glia.h): searchsorted, bucketize, isin, unique, unique_consecutive, histc (not differentiable), and diff,
cross, tensordot, kron, block_diag, diagflat, cov, corrcoef, trapezoid/trapz, cumulative_trapezoid,
cdist, constant_pad_nd, combinations, einsum (differentiable, composed of glia's ops in C), as functions
and, where torch has them, Tensor methods."""

import builtins
import numbers
from ctypes import byref, c_int64, c_void_p

from ._ffi import C, check
from ._tensor import Tensor, _arg_error, _handles, _i64, _new
from ._tensor import tensor as _tensor

__all__ = [
    "searchsorted", "bucketize", "isin", "unique", "unique_consecutive", "histc", "diff", "cross", "tensordot",
    "kron", "block_diag", "diagflat", "cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid", "cdist",
    "constant_pad_nd", "combinations", "einsum",
]


def _t(x, op, arg, pos):
    if not isinstance(x, Tensor):
        raise _arg_error(op, arg, pos, x)
    return x


def _h(x):
    return None if x is None else x._h


def _as_tensor(x, op, arg, pos):
    """A Tensor for a Tensor or a Python number (torch's Scalar overloads)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, numbers.Number):
        return _tensor(x)
    raise _arg_error(op, arg, pos, x)


def _check_out(out, op):
    if out is not None:
        raise TypeError("%s(): the out= argument is not supported by glia" % op)


# ---- searching and counting (not differentiable)

def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,  # noqa: A002
                 out=None):
    _check_out(out, "searchsorted")
    seq = _t(sorted_sequence, "searchsorted", "sorted_sequence", 1)
    values = _as_tensor(input, "searchsorted", "input", 2)
    side_arg = None if side is None else str(side).encode()
    return _new(C.glia_searchsorted, seq._h, values._h, 1 if out_int32 else 0, 1 if right else 0, side_arg,
                _h(sorter))


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):  # noqa: A002
    _check_out(out, "bucketize")
    x = _as_tensor(input, "bucketize", "input", 1)
    b = _t(boundaries, "bucketize", "boundaries", 2)
    return _new(C.glia_bucketize, x._h, b._h, 1 if out_int32 else 0, 1 if right else 0)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    e = _as_tensor(elements, "isin", "elements", 1)
    t = _as_tensor(test_elements, "isin", "test_elements", 2)
    return _new(C.glia_isin, e._h, t._h, 1 if assume_unique else 0, 1 if invert else 0)


def _dim_ptr(dim):
    return None if dim is None else byref(c_int64(builtins.int(dim)))


def _unique_results(fn, args, return_inverse, return_counts):
    out, inv, cnt = c_void_p(), c_void_p(), c_void_p()
    check(fn(*args, byref(out), byref(inv), byref(cnt)))
    res = [Tensor._wrap(out.value), Tensor._wrap(inv.value), Tensor._wrap(cnt.value)]
    if not return_inverse and not return_counts:
        return res[0]
    picked = [res[0]]
    if return_inverse:
        picked.append(res[1])
    if return_counts:
        picked.append(res[2])
    return tuple(picked)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """torch.unique; glia always sorts (torch's CPU order for sorted=False is its hash set's)."""
    x = _t(input, "unique", "input", 1)
    return _unique_results(C.glia_unique, (x._h, 1 if sorted else 0, _dim_ptr(dim)), return_inverse,
                           return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    x = _t(input, "unique_consecutive", "input", 1)
    return _unique_results(C.glia_unique_consecutive, (x._h, _dim_ptr(dim)), return_inverse, return_counts)


def histc(input, bins=100, min=0, max=0, *, out=None):  # noqa: A002
    _check_out(out, "histc")
    x = _t(input, "histc", "input", 1)
    return _new(C.glia_histc, x._h, builtins.int(bins), builtins.float(min), builtins.float(max))


# ---- composed, differentiable

def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    x = _t(input, "diff", "input", 1)
    return _new(C.glia_diff, x._h, builtins.int(n), builtins.int(dim), _h(prepend), _h(append))


def cross(input, other, dim=None, *, out=None):  # noqa: A002
    _check_out(out, "cross")
    a = _t(input, "cross", "input", 1)
    b = _t(other, "cross", "other", 2)
    return _new(C.glia_cross, a._h, b._h, _dim_ptr(dim))


def _dim_list(d):
    if isinstance(d, Tensor):
        d = d.tolist()
    if isinstance(d, numbers.Integral):
        return [builtins.int(d)]
    return [builtins.int(v) for v in d]


def tensordot(a, b, dims=2, out=None):
    _check_out(out, "tensordot")
    _t(a, "tensordot", "a", 1)
    _t(b, "tensordot", "b", 2)
    if isinstance(dims, Tensor) and dims.ndim == 0:
        dims = dims.item()
    if isinstance(dims, numbers.Integral):
        dims = builtins.int(dims)
        if dims < 0:
            raise RuntimeError("tensordot expects dims >= 0, but got dims=%d" % dims)
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        if isinstance(dims, Tensor):
            dims = dims.tolist()
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists of dims")
        da, db = _dim_list(dims[0]), _dim_list(dims[1])
    arr_a, n_a = _i64(da)
    arr_b, n_b = _i64(db)
    return _new(C.glia_tensordot, a._h, b._h, arr_a, n_a, arr_b, n_b)


def kron(input, other, *, out=None):  # noqa: A002
    _check_out(out, "kron")
    a = _t(input, "kron", "input", 1)
    b = _t(other, "kron", "other", 2)
    return _new(C.glia_kron, a._h, b._h)


def block_diag(*tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("expected Tensor as element %d in argument 0, but got %s" % (i, type(t).__name__))
    arr, n = _handles(tensors)
    return _new(C.glia_block_diag, arr, n)


def diagflat(input, offset=0):  # noqa: A002
    x = _t(input, "diagflat", "input", 1)
    return _new(C.glia_diagflat, x._h, builtins.int(offset))


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    x = _t(input, "cov", "input", 1)
    return _new(C.glia_cov, x._h, builtins.int(correction), _h(fweights), _h(aweights))


def corrcoef(input):  # noqa: A002
    x = _t(input, "corrcoef", "input", 1)
    return _new(C.glia_corrcoef, x._h)


def _trapz(fn, name, y, x, dx, dim):
    y = _t(y, name, "y", 1)
    if x is not None and not isinstance(x, Tensor):  # torch.trapezoid(y, 0.5): a number is dx
        x, dx = None, x
    if x is not None and dx is not None:
        raise TypeError("%s() received an invalid combination of arguments: both x and dx were given" % name)
    return _new(fn, y._h, _h(x), builtins.float(1.0 if dx is None else dx), builtins.int(dim))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    return _trapz(C.glia_trapezoid, "trapezoid", y, x, dx, dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    return _trapz(C.glia_trapezoid, "trapz", y, x, dx, dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    return _trapz(C.glia_cumulative_trapezoid, "cumulative_trapezoid", y, x, dx, dim)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _euclid_mm(x1, x2):
    # torch's _euclidean_dist: one matrix product of [-2 x1, |x1|^2, 1] and [x2, 1, |x2|^2].
    from ._tensor import cat, ones_like

    n1 = x1.pow(2).sum(-1, keepdim=True)
    n2 = x2.pow(2).sum(-1, keepdim=True)
    a = cat([x1.mul(-2), n1, ones_like(n1)], -1)
    b = cat([x2, ones_like(n2), n2], -1)
    return a.matmul(b.transpose(-1, -2)).clamp_min(1e-30).sqrt()


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    a = _t(x1, "cdist", "x1", 1)
    b = _t(x2, "cdist", "x2", 2)
    if compute_mode not in _CDIST_MODES:
        raise ValueError("%s is not a valid value for compute_mode" % compute_mode)
    out = _new(C.glia_cdist, a._h, b._h, builtins.float(p))  # torch's checks, and the default mode
    if p == 2 and a.numel() and b.numel():
        big = a.shape[-2] > 25 or b.shape[-2] > 25
        if compute_mode == "use_mm_for_euclid_dist" and not big:
            return _euclid_mm(a, b)
        if compute_mode == "donot_use_mm_for_euclid_dist" and big:
            return (a.unsqueeze(-2) - b.unsqueeze(-3)).pow(2).sum(-1).sqrt()
    return out


def constant_pad_nd(input, pad, value=0):  # noqa: A002
    x = _t(input, "constant_pad_nd", "input", 1)
    arr, n = _i64(list(pad))
    return _new(C.glia_constant_pad_nd, x._h, arr, n, builtins.float(value))


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    x = _t(input, "combinations", "input", 1)
    return _new(C.glia_combinations, x._h, builtins.int(r), 1 if with_replacement else 0)


def einsum(equation, *operands):
    if not isinstance(equation, str):
        raise TypeError("einsum(): the equation must be a string (the sublist format is not supported)")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError("einsum(): argument 'operands' must be tuple of Tensors, not %s" % type(t).__name__)
    arr, n = _handles(operands)
    return _new(C.glia_einsum, equation.encode(), arr, n)


# ---- Tensor methods (torch's)

def _method(name, fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    m.__name__ = name
    m.__qualname__ = "Tensor." + name
    return m


for _n, _f in (("unique", unique), ("unique_consecutive", unique_consecutive), ("histc", histc), ("diff", diff),
               ("cross", cross), ("kron", kron), ("diagflat", diagflat), ("cov", cov), ("corrcoef", corrcoef)):
    setattr(Tensor, _n, _method(_n, _f))
