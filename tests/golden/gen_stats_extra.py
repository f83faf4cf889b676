#!/usr/bin/python3
"""Golden fixtures of searching, set membership, unique values and histograms (issue 20):
searchsorted, bucketize, isin, unique, unique_consecutive, histc (none differentiable), and of the
functions composed of differentiable ops: diff, cross, tensordot, kron, block_diag, diagflat, cov,
corrcoef, trapezoid, cumulative_trapezoid, cdist, constant_pad_nd, combinations, einsum
-> ops/stats_extra.json. Format: see golden.py. Append new cases at the end.

    cd tests/golden && /usr/bin/python3 gen_stats_extra.py
"""

import torch

import warnings

from golden import Fixture, T, rnd, smooth

f64, f32, i64 = "float64", "float32", "int64"
SH, DT, IA = "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE", "GLIA_ERR_INVALID_ARGUMENT"
NAN, INF = float("nan"), float("inf")


def _ss(xs, a):
    kw = dict(out_int32=a.get("out_int32", False), right=a.get("right", False))
    if "side" in a:
        kw["side"] = a["side"]
    if len(xs) > 2 and xs[2] is not None:
        kw["sorter"] = xs[2]
    return torch.searchsorted(xs[0], xs[1], **kw)


def _unique(xs, a):
    return torch.unique(xs[0], sorted=True, return_inverse=True, return_counts=True)


def _unique_consecutive(xs, a):
    return torch.unique_consecutive(xs[0], return_inverse=True, return_counts=True)


OPS = {
    "searchsorted": _ss,
    "bucketize": lambda xs, a: torch.bucketize(xs[0], xs[1], out_int32=a.get("out_int32", False),
                                               right=a.get("right", False)),
    "isin": lambda xs, a: torch.isin(xs[0], xs[1], assume_unique=a.get("assume_unique", False),
                                     invert=a.get("invert", False)),
    "unique": _unique,
    "unique_consecutive": _unique_consecutive,
    "histc": lambda xs, a: torch.histc(xs[0], bins=a.get("bins", 100), min=float(a.get("min", 0)),
                                           max=float(a.get("max", 0))),
}


def _opt(xs, i):
    return xs[i] if len(xs) > i else None


def _trapz(fn):
    def f(xs, a):
        x = _opt(xs, 1)
        if x is not None:
            return fn(xs[0], x, dim=a.get("dim", -1))
        return fn(xs[0], dx=a.get("dx", 1.0), dim=a.get("dim", -1))
    return f


def _tensordot(xs, a):
    return torch.tensordot(xs[0], xs[1], dims=(a["dims_a"], a["dims_b"]))


COMPOSED = {
    "diff": lambda xs, a: torch.diff(xs[0], n=a.get("n", 1), dim=a.get("dim", -1), prepend=_opt(xs, 1),
                                     append=_opt(xs, 2)),
    "cross": lambda xs, a: torch.cross(xs[0], xs[1], dim=a.get("dim")),
    "tensordot": _tensordot,
    "kron": lambda xs, a: torch.kron(xs[0], xs[1]),
    "block_diag": lambda xs, a: torch.block_diag(*xs),
    "diagflat": lambda xs, a: torch.diagflat(xs[0], a.get("offset", 0)),
    "cov": lambda xs, a: torch.cov(xs[0], correction=a.get("correction", 1), fweights=_opt(xs, 1),
                                   aweights=_opt(xs, 2)),
    "corrcoef": lambda xs, a: torch.corrcoef(xs[0]),
    "trapezoid": _trapz(torch.trapezoid),
    "cumulative_trapezoid": _trapz(torch.cumulative_trapezoid),
    "cdist": lambda xs, a: torch.cdist(xs[0], xs[1], p=float(a.get("p", 2.0))),
    "constant_pad_nd": lambda xs, a: torch.constant_pad_nd(xs[0], a["pad"], a.get("value", 0)),
    "combinations": lambda xs, a: torch.combinations(xs[0], r=a.get("r", 2),
                                                     with_replacement=a.get("with_replacement", False)),
    "einsum": lambda xs, a: torch.einsum(a["equation"], *xs),
}
OPS.update(COMPOSED)


def t(v, dtype=torch.float64):
    return torch.tensor(v, dtype=dtype)


def sorted_rnd(shape, dtype=f64, lo=-5, hi=5):
    return rnd(shape, dtype, lo, hi).sort(-1).values


def build():
    fx = Fixture(OPS, COMPOSED.keys())
    c, e = fx.case, fx.error
    # searchsorted: ties (rnd values have few bits, so values hit boundaries), both sides, N-D rows.
    c("searchsorted 1D", "searchsorted", [sorted_rnd([9]), rnd([4, 5])])
    c("searchsorted 1D right", "searchsorted", [sorted_rnd([9]), rnd([4, 5])], right=True)
    c("searchsorted side right", "searchsorted", [sorted_rnd([9]), rnd([7])], side="right")
    c("searchsorted side left", "searchsorted", [sorted_rnd([9]), rnd([7])], side="left")
    c("searchsorted rows", "searchsorted", [sorted_rnd([2, 3, 6]), rnd([2, 3, 4])])
    c("searchsorted rows right int32", "searchsorted", [sorted_rnd([2, 3, 6]), rnd([2, 3, 4])], right=True,
      out_int32=True)
    s = rnd([2, 6])
    c("searchsorted sorter", "searchsorted", [s, rnd([2, 5]), s.argsort(-1)])
    s1 = rnd([8])
    c("searchsorted sorter 1D right", "searchsorted", [s1, rnd([3, 4]), s1.argsort()], right=True)
    c("searchsorted 0-dim value", "searchsorted", [sorted_rnd([5]), rnd([])])
    c("searchsorted transposed values", "searchsorted", [sorted_rnd([6]), T(rnd([3, 4]))])
    c("searchsorted f32", "searchsorted", [sorted_rnd([10], f32), rnd([6], f32)])
    c("searchsorted int64", "searchsorted", [sorted_rnd([7], i64), rnd([6], i64)], right=True)
    c("searchsorted promotes", "searchsorted", [sorted_rnd([7], i64), rnd([6], f64)])
    c("searchsorted nan and inf", "searchsorted", [t([-INF, 1.0, 2.0, INF, NAN]), t([NAN, -INF, INF, 1.5, 2.0])])
    c("searchsorted nan right", "searchsorted", [t([1.0, 2.0, NAN]), t([NAN, 2.0, 3.0])], right=True)
    c("searchsorted empty values", "searchsorted", [sorted_rnd([4]), rnd([0, 3])])
    c("searchsorted empty boundaries", "searchsorted", [rnd([0]), rnd([3])])
    c("searchsorted f16", "searchsorted", [sorted_rnd([6], "float16"), rnd([5], "float16")])
    e("searchsorted side bad", "searchsorted", [sorted_rnd([4]), rnd([3])], IA, side="foo")
    e("searchsorted side opposite", "searchsorted", [sorted_rnd([4]), rnd([3])], IA, side="left", right=True)
    e("searchsorted 0-dim boundaries", "searchsorted", [rnd([]), rnd([3])], SH)
    e("searchsorted rows mismatch", "searchsorted", [sorted_rnd([2, 2]), rnd([1, 3])], SH)
    e("searchsorted rows dims", "searchsorted", [sorted_rnd([1, 2]), rnd([3])], SH)
    e("searchsorted sorter size", "searchsorted", [sorted_rnd([2]), rnd([3]), t([0, 1, 2], torch.int64)], SH)
    e("searchsorted sorter dtype", "searchsorted", [sorted_rnd([2]), rnd([3]), t([0.0, 1.0])], DT)
    e("searchsorted bool", "searchsorted", [t([False, True], torch.bool), t([True], torch.bool)], DT)

    c("bucketize", "bucketize", [rnd([3, 4]), sorted_rnd([6])])
    c("bucketize right", "bucketize", [rnd([3, 4]), sorted_rnd([6])], right=True)
    c("bucketize int32", "bucketize", [rnd([5], f32), sorted_rnd([4], f32)], out_int32=True)
    c("bucketize 0-dim", "bucketize", [rnd([]), sorted_rnd([5])])
    c("bucketize int64", "bucketize", [rnd([6], i64), sorted_rnd([3], i64)])
    c("bucketize empty", "bucketize", [rnd([0]), sorted_rnd([3])])
    e("bucketize 2D boundaries", "bucketize", [rnd([3]), sorted_rnd([2, 3])], SH)

    c("isin", "isin", [rnd([4, 5]), rnd([6])])
    c("isin invert", "isin", [rnd([4, 5]), rnd([6])], invert=True)
    c("isin 2D test", "isin", [rnd([7]), rnd([2, 3])])
    c("isin int64", "isin", [rnd([10], i64), rnd([3], i64)])
    c("isin promotes", "isin", [t([1.0, 1.5, 2.0]), t([1, 2, 3], torch.int64)])
    c("isin nan", "isin", [t([NAN, 1.0, INF, -INF]), t([NAN, INF, 1.0])])
    c("isin nan invert", "isin", [t([NAN, 1.0, 3.0]), t([NAN, 1.0])], invert=True)
    c("isin 0-dim", "isin", [rnd([]), rnd([4])])
    c("isin empty test", "isin", [rnd([3]), rnd([0])])
    c("isin empty elements", "isin", [rnd([0, 2]), rnd([3])])
    c("isin transposed", "isin", [T(rnd([3, 4])), rnd([5])])
    e("isin bool", "isin", [t([True, False, True], torch.bool), t([1.0])], DT)
    e("isin bool test", "isin", [t([1.0]), t([True], torch.bool)], DT)
    c("isin assume_unique", "isin", [rnd([6]), t([-1.0, 0.0, 1.0])], assume_unique=True)

    c("unique", "unique", [rnd([4, 5], f64, -3, 3)])
    c("unique f32", "unique", [rnd([12], f32, -2, 2)])
    c("unique int64", "unique", [rnd([3, 4], i64, 0, 4)])
    c("unique bool", "unique", [t([True, False, True, True], torch.bool)])
    c("unique 0-dim", "unique", [rnd([])])
    c("unique empty", "unique", [rnd([0, 3])])
    c("unique transposed", "unique", [T(rnd([3, 4], f64, -2, 2))])
    # (torch 1.13 sorts with `<`: a NaN breaks its order, so no NaN here)
    c("unique inf", "unique", [t([1.0, 0.0, INF, 1.0, -INF, INF, -0.0])])
    c("uniqueconsec", "unique_consecutive", [t([1.0, 1.0, 2.0, 2.0, 3.0, 1.0, 1.0])])
    c("unique_consecutive 2D", "unique_consecutive", [rnd([3, 4], f64, 0, 2)])
    c("unique_consecutive int64", "unique_consecutive", [rnd([10], i64, 0, 2)])
    c("unique_consecutive 0-dim", "unique_consecutive", [rnd([])])
    c("unique_consecutive empty", "unique_consecutive", [rnd([0])])
    c("unique_consecutive transposed", "unique_consecutive", [T(rnd([3, 2], f64, 0, 2))])
    c("unique_consecutive nan", "unique_consecutive", [t([NAN, NAN, 1.0, 1.0, INF, INF])])
    c("unique_consecutive f32", "unique_consecutive", [rnd([9], f32, 0, 2)])

    c("histc default", "histc", [rnd([20])])
    c("histc bins", "histc", [rnd([4, 5])], bins=7)
    c("histc range", "histc", [rnd([30])], bins=6, min=-2, max=3)
    c("histc edges", "histc", [t([0.0, 1.0, 2.0, 3.0, 4.0, -0.5, 4.5])], bins=4, min=0, max=4)
    c("histc f32", "histc", [rnd([25], f32)], bins=9, min=-4.5, max=4.25)
    c("histc f32 thirds", "histc", [torch.linspace(-1, 1, 31, dtype=torch.float32)], bins=3, min=-1, max=1)
    c("histc f64 tenths", "histc", [torch.linspace(0, 1, 11, dtype=torch.float64)], bins=10, min=0, max=1)
    # (no NaN input: torch 1.13 counts a NaN in the first bin through an undefined float-to-int conversion;
    # glia does not count it)
    c("histc constant", "histc", [t([2.0, 2.0])], bins=4)
    c("histc empty", "histc", [rnd([0])], bins=4)
    c("histc 0-dim", "histc", [rnd([])], bins=3)
    c("histc transposed", "histc", [T(rnd([3, 4]))], bins=5)
    e("histc bins 0", "histc", [rnd([3])], IA, bins=0)
    e("histc min max", "histc", [rnd([3])], IA, min=3, max=2)
    e("histc int64", "histc", [rnd([3], i64)], DT)
    e("histc f16", "histc", [rnd([3], "float16")], DT, min=0, max=1)
    e("histc inf range", "histc", [t([1.0, INF])], IA)
    e("histc nan min", "histc", [t([1.0, 2.0])], IA, min="nan")
    composed(fx)
    return fx


def composed(fx):
    s = smooth
    c, e = fx.case, fx.error
    c("diff", "diff", [s([3, 5])])
    c("diff dim 0 n 2", "diff", [s([4, 3])], n=2, dim=0)
    c("diff prepend append", "diff", [s([3, 4]), s([3, 2]), s([3, 1])], dim=1)
    c("diff prepend only", "diff", [s([3, 4]), s([1, 4])], dim=0)
    c("diff n 0", "diff", [s([3])], n=0)
    c("diff n past size", "diff", [s([2, 3])], n=5)
    c("diff transposed", "diff", [T(s([3, 4]))], n=2)
    c("diff f32", "diff", [rnd([6], f32)])
    c("diff int64", "diff", [rnd([2, 5], i64)])
    c("diff bool", "diff", [t([True, True, False, True], torch.bool)])
    c("diff zero size", "diff", [s([0, 3])], dim=0)
    e("diff 0-dim", "diff", [s([])], SH)
    c("diff negative n", "diff", [s([3]), s([1])], n=-1)  # torch 1.13 does no difference then
    e("diff prepend dims", "diff", [s([3, 4]), s([4])], SH)
    e("diff prepend shape", "diff", [s([3, 4]), s([2, 3])], SH, dim=0)

    c("cross default dim", "cross", [s([4, 3]), s([4, 3])])
    c("cross dim", "cross", [s([3, 3, 2]), s([3, 3, 2])], dim=1)
    c("cross negative dim", "cross", [s([2, 3]), s([2, 3])], dim=-1)
    c("cross broadcast", "cross", [s([1, 3]), s([4, 3])], dim=1)
    c("cross transposed", "cross", [T(s([4, 3])), s([4, 3])])
    c("cross f32", "cross", [rnd([3], f32), rnd([3], f32)])
    c("cross int64", "cross", [rnd([2, 3], i64), rnd([2, 3], i64)])
    e("cross no dim of size 3", "cross", [s([4, 4]), s([4, 4])], SH)
    e("cross length", "cross", [s([3, 4]), s([3, 4])], SH, dim=-1)
    e("cross dims", "cross", [s([3]), s([2, 3])], SH)
    e("cross dtype", "cross", [rnd([3], f32), rnd([3])], DT)

    c("tensordot 2", "tensordot", [s([2, 3, 4]), s([3, 4, 5])], dims_a=[1, 2], dims_b=[0, 1])
    c("tensordot pairs", "tensordot", [s([3, 4, 5]), s([4, 3, 2])], dims_a=[1, 0], dims_b=[0, 1])
    c("tensordot none", "tensordot", [s([2, 3]), s([4])], dims_a=[], dims_b=[])
    c("tensordot negative", "tensordot", [s([2, 3]), s([3, 2])], dims_a=[-1], dims_b=[0])
    c("tensordot size 1", "tensordot", [s([2, 1]), s([3, 4])], dims_a=[1], dims_b=[0])
    c("tensordot size 1 right", "tensordot", [s([2, 3]), s([1, 4])], dims_a=[1], dims_b=[0])
    c("tensordot transposed", "tensordot", [T(s([3, 4])), s([4, 2])], dims_a=[1], dims_b=[0])
    c("tensordot f32", "tensordot", [rnd([3, 4], f32), rnd([4, 2], f32)], dims_a=[1], dims_b=[0])
    e("tensordot lengths", "tensordot", [s([3, 4]), s([3, 5])], SH, dims_a=[0, 1], dims_b=[0])
    e("tensordot sizes", "tensordot", [s([3, 4]), s([3, 5])], SH, dims_a=[-1], dims_b=[0])
    e("tensordot dtype", "tensordot", [rnd([3, 4], f32), rnd([4, 2])], DT, dims_a=[1], dims_b=[0])

    c("kron 2D", "kron", [s([2, 3]), s([3, 2])])
    c("kron mixed dims", "kron", [s([2, 2]), s([3])])
    c("kron 3D", "kron", [s([2, 1, 2]), s([1, 2, 2])])
    c("kron 0-dim", "kron", [s([]), s([2, 2])])
    c("kron promotes", "kron", [rnd([2, 2], f32), rnd([2], i64)])

    c("block_diag", "block_diag", [s([2, 3]), s([1, 2]), s([3, 1])])
    c("block_diag 0-d 1-d", "block_diag", [s([]), s([3]), s([2, 2])])
    c("block_diag one", "block_diag", [s([2, 2])])
    c("block_diag empty block", "block_diag", [s([0, 2]), s([2, 0]), s([1, 1])])
    c("block_diag promotes", "block_diag", [rnd([2, 2], i64), rnd([1, 2], f32)])
    e("block_diag 3D", "block_diag", [s([2, 2]), s([1, 2, 2])], SH)

    c("diagflat", "diagflat", [s([3])])
    c("diagflat 2D offset", "diagflat", [s([2, 2])], offset=1)
    c("diagflat negative offset", "diagflat", [s([3])], offset=-2)
    c("diagflat 0-dim", "diagflat", [s([])])
    c("diagflat transposed", "diagflat", [T(s([2, 3]))])

    c("cov", "cov", [s([3, 5])])
    c("cov 1D", "cov", [s([6])])
    c("cov correction 0", "cov", [s([2, 4])], correction=0)
    c("cov correction 2", "cov", [s([2, 6])], correction=2)
    c("cov fweights", "cov", [s([3, 5]), t([1, 2, 1, 3, 1], torch.int64)])
    c("cov aweights", "cov", [s([3, 5]), None, s([5], lo=0.5, hi=2.0)])
    c("cov both weights", "cov", [s([2, 4]), t([2, 1, 1, 3], torch.int64), s([4], lo=0.5, hi=2.0)])
    c("cov both weights correction 0", "cov", [s([2, 4]), t([2, 1, 1, 3], torch.int64), s([4], lo=0.5, hi=2.0)],
      correction=0)
    c("cov f32", "cov", [rnd([2, 5], f32)])
    c("cov int64", "cov", [rnd([2, 4], i64)])
    c("cov transposed", "cov", [T(s([4, 3]))])
    c("cov one observation", "cov", [s([2, 1])], grads=False)
    e("cov 3D", "cov", [s([2, 2, 2])], SH)
    e("cov bool", "cov", [t([True, False], torch.bool)], DT)
    e("cov fweights float", "cov", [s([2, 4]), s([4])], DT)
    e("cov fweights numel", "cov", [s([2, 4]), t([1, 2, 3], torch.int64)], SH)
    e("cov fweights negative", "cov", [s([2, 4]), t([1, 2, 3, -4], torch.int64)], IA)
    e("cov fweights 2D", "cov", [s([2, 4]), t([[1, 2, 3, 4]], torch.int64)], SH)
    e("cov aweights int", "cov", [s([2, 4]), None, t([1, 2, 3, 4], torch.int64)], DT)
    e("cov aweights negative", "cov", [s([2, 4]), None, t([1.0, -2.0, 3.0, 4.0])], IA)
    e("cov weights sum to zero", "cov", [s([2, 4]), None, t([0.0, 0.0, 0.0, 0.0])], IA)

    c("corrcoef", "corrcoef", [s([3, 6])])
    c("corrcoef 1D", "corrcoef", [s([5])], grads=False)
    c("corrcoef f32", "corrcoef", [rnd([2, 7], f32)])
    c("corrcoef transposed", "corrcoef", [T(s([5, 2]))])
    e("corrcoef 3D", "corrcoef", [s([2, 2, 2])], SH)

    c("trapezoid dx", "trapezoid", [s([3, 5])], dx=0.5)
    c("trapezoid default", "trapezoid", [s([4])])
    c("trapezoid dim 0", "trapezoid", [s([4, 3])], dim=0, dx=2.0)
    c("trapezoid x 1D", "trapezoid", [s([3, 5]), s([5])])
    c("trapezoid x same shape", "trapezoid", [s([3, 5]), s([3, 5])], dim=0)
    c("trapezoid x fewer dims", "trapezoid", [s([2, 3, 4]), s([3, 4])], dim=1)
    c("trapezoid zero samples", "trapezoid", [s([3, 0])], grads=False)
    c("trapezoid one sample", "trapezoid", [s([3, 1])])
    c("trapezoid int64", "trapezoid", [rnd([5], i64)])
    c("trapezoid int64 dx", "trapezoid", [rnd([5], i64)], dx=2.0)
    c("trapezoid f32", "trapezoid", [rnd([2, 6], f32), rnd([6], f32)])
    c("trapezoid transposed", "trapezoid", [T(s([4, 3]))], dx=0.25)
    e("trapezoid x size", "trapezoid", [s([3, 4]), s([3])], SH)
    e("trapezoid bool", "trapezoid", [t([True, False], torch.bool)], DT)
    e("trapezoid dim", "trapezoid", [s([3])], IA, dim=1)
    c("cumulative_trapezoid dx", "cumulative_trapezoid", [s([3, 5])], dx=0.5)
    c("cumulative_trapezoid default", "cumulative_trapezoid", [s([4])])
    c("cumulative_trapezoid dim 0", "cumulative_trapezoid", [s([4, 3])], dim=0)
    c("cumulative_trapezoid x", "cumulative_trapezoid", [s([3, 5]), s([5])])
    c("cumulative_trapezoid x same shape", "cumulative_trapezoid", [s([3, 5]), s([3, 5])], dim=0)
    c("cumulative_trapezoid zero samples", "cumulative_trapezoid", [s([3, 0])])
    c("cumulative_trapezoid f32", "cumulative_trapezoid", [rnd([7], f32)], dx=0.125)
    c("cumulative_trapezoid int64", "cumulative_trapezoid", [rnd([5], i64)])
    e("cumulative_trapezoid x size", "cumulative_trapezoid", [s([3, 4]), s([3])], SH)
    e("cumulative_trapezoid bool", "cumulative_trapezoid", [t([True, False], torch.bool), t([1.0, 2.0])], DT)

    c("cdist", "cdist", [s([3, 4]), s([5, 4])])
    c("cdist p1", "cdist", [s([3, 4]), s([2, 4])], p=1.0)
    c("cdist p3", "cdist", [s([3, 2]), s([2, 2])], p=3.0)
    c("cdist p half", "cdist", [s([2, 3]), s([3, 3])], p=0.5)
    c("cdist p0", "cdist", [s([3, 2]), s([2, 2])], p=0.0)
    c("cdist inf", "cdist", [s([3, 4]), s([2, 4])], p="inf", gradcheck=False)
    c("cdist batch", "cdist", [s([2, 3, 4]), s([2, 5, 4])])
    c("cdist broadcast batch", "cdist", [s([2, 1, 3, 2]), s([3, 4, 2])])
    c("cdist mm path", "cdist", [s([30, 3]), s([4, 3])])
    c("cdist mm path batch", "cdist", [s([2, 5, 3]), s([2, 27, 3])])
    c("cdist f32", "cdist", [rnd([4, 3], f32), rnd([3, 3], f32)])
    c("cdist transposed", "cdist", [T(s([3, 4])), s([2, 4])])
    c("cdist empty", "cdist", [s([0, 3]), s([2, 3])])
    e("cdist 1D", "cdist", [s([3]), s([3, 3])], SH)
    e("cdist 1D x2", "cdist", [s([3, 3]), s([3])], SH)
    e("cdist columns", "cdist", [s([3, 3]), s([3, 2])], SH)
    e("cdist negative p", "cdist", [s([3, 3]), s([3, 3])], IA, p=-1.0)
    e("cdist int64", "cdist", [rnd([3, 3], i64), rnd([3, 3], i64)], DT)
    e("cdist dtype", "cdist", [rnd([3, 3], f32), rnd([3, 3])], DT)

    c("constant_pad_nd", "constant_pad_nd", [s([2, 3])], pad=[1, 2])
    c("constant_pad_nd 2 dims value", "constant_pad_nd", [s([2, 3])], pad=[1, 0, 2, 1], value=-1.5)
    c("constant_pad_nd crop", "constant_pad_nd", [s([3, 4])], pad=[-1, 1, 0, -2])
    c("constant_pad_nd 3D", "constant_pad_nd", [s([2, 2, 2])], pad=[1, 1, 1, 1, 1, 1])
    c("constant_pad_nd int64", "constant_pad_nd", [rnd([2, 2], i64)], pad=[1, 1], value=7)
    c("constant_pad_nd transposed", "constant_pad_nd", [T(s([2, 3]))], pad=[0, 2])
    c("constant_pad_nd empty pad", "constant_pad_nd", [s([2, 3])], pad=[])
    e("constant_pad_nd odd", "constant_pad_nd", [s([2, 3])], IA, pad=[1, 2, 3])
    e("constant_pad_nd too long", "constant_pad_nd", [s([2, 3])], IA, pad=[1, 2, 3, 4, 5, 6])

    c("combinations", "combinations", [s([4])])
    c("combinations r3", "combinations", [s([5])], r=3)
    c("combinations replacement", "combinations", [s([3])], with_replacement=True)
    c("combinations r3 replacement", "combinations", [s([3])], r=3, with_replacement=True)
    c("combinations r1", "combinations", [s([3])], r=1)
    c("combinations r0", "combinations", [s([3])], r=0, grads=False)
    c("combinations r past n", "combinations", [s([2])], r=3)
    c("combinations empty", "combinations", [s([0])])
    c("combinations int64", "combinations", [rnd([4], i64)])
    e("combinations 2D", "combinations", [s([2, 2])], SH)
    e("combinations negative r", "combinations", [s([3])], IA, r=-1)

    c("einsum matmul", "einsum", [s([2, 3]), s([3, 4])], equation="ij,jk->ik")
    c("einsum implicit", "einsum", [s([2, 3]), s([3, 4])], equation="ij,jk")
    c("einsum trace", "einsum", [s([3, 3])], equation="ii")
    c("einsum diagonal", "einsum", [s([3, 3])], equation="ii->i")
    c("einsum transpose", "einsum", [s([2, 3])], equation="ij->ji")
    c("einsum sum", "einsum", [s([2, 3])], equation="ij->")
    c("einsum outer", "einsum", [s([3]), s([4])], equation="i,j->ij")
    c("einsum batch", "einsum", [s([2, 3, 4]), s([2, 4, 5])], equation="bij,bjk->bik")
    c("einsum ellipsis", "einsum", [s([2, 3, 4]), s([4, 5])], equation="...ij,jk->...ik")
    c("einsum ellipsis implicit", "einsum", [s([2, 3, 4]), s([2, 3, 4])], equation="...i,...i")
    c("einsum ellipsis broadcast", "einsum", [s([2, 1, 3]), s([4, 3])], equation="...j,...j->...")
    c("einsum three", "einsum", [s([2, 3]), s([3, 4]), s([4])], equation="ij,jk,k->i")
    c("einsum spaces upper", "einsum", [s([2, 3]), s([3, 2])], equation="iJ, Ji -> ")
    c("einsum bilinear", "einsum", [s([2, 3]), s([5, 3, 4]), s([2, 4])], equation="bn,anm,bm->ba")
    c("einsum f32", "einsum", [rnd([2, 3], f32), rnd([3], f32)], equation="ij,j->i")
    c("einsum transposed", "einsum", [T(s([3, 2])), s([2])], equation="ij,j->i")
    c("einsum size 1 broadcast", "einsum", [s([2, 1]), s([3, 4])], equation="ij,jk->ik")
    e("einsum fewer operands", "einsum", [s([2, 3])], IA, equation="ij,jk")
    e("einsum more operands", "einsum", [s([2, 3]), s([2])], IA, equation="ij")
    e("einsum subscripts", "einsum", [s([2, 3])], SH, equation="ijk")
    e("einsum repeated sizes", "einsum", [s([2, 3])], SH, equation="ii")
    e("einsum sizes", "einsum", [s([2, 3]), s([2, 3])], SH, equation="ij,jk->ik")
    e("einsum output unknown", "einsum", [s([2, 3])], IA, equation="ij->k")
    e("einsum output repeated", "einsum", [s([2, 3])], IA, equation="ij->ii")
    e("einsum bad subscript", "einsum", [s([2, 3])], IA, equation="i1")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    build().write("stats_extra.json")
