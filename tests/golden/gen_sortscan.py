#!/usr/bin/python3
"""Golden fixtures of the reductions added with the scans and sorts (all, any,
count_nonzero, aminmax, nansum, nanmean, var_mean, std_mean), the scans
(cumsum, cumprod, cummax, cummin, logcumsumexp) and sorting and selection
(sort, argsort, msort, topk, kthvalue, median, nanmedian, mode):
ops/sortscan.json, one case per line. Format: see golden.py.

    cd tests/golden && /usr/bin/python3 gen_sortscan.py
"""

import json
import os
import warnings

import torch

from golden import OUT, Fixture, T, rnd, smooth

warnings.filterwarnings("ignore")
f64, f32 = "float64", "float32"
NAN, INF = float("nan"), float("inf")


def _dims(a):
    d = a.get("dims")
    return None if d is None or d == [] else d


def _kd(a):
    return a.get("keepdim", False)


def _one_dim(f):
    """all / any: torch 1.13 takes one dim or none."""
    def op(xs, a):
        d = _dims(a)
        return f(xs[0]) if d is None else f(xs[0], d[0], keepdim=_kd(a))
    return op


def _dim_reduce(f):
    def op(xs, a):
        d = _dims(a)
        return f(xs[0]) if d is None and not _kd(a) else f(xs[0], dim=d, keepdim=_kd(a))
    return op


def _var_mean(f):
    def op(xs, a):
        return tuple(f(xs[0], dim=_dims(a), correction=a.get("correction", 1), keepdim=_kd(a)))
    return op


def _dtype(a):
    d = a.get("dtype")
    return None if d is None else getattr(torch, d)


def _quantile(f, x, a):
    """q in args: a number (0-dim q) or a list (1-D q of x's dtype)."""
    q = a["q"]
    q = torch.tensor(q, dtype=x.dtype) if isinstance(q, list) else q
    return f(x, q, dim=a.get("dim"), keepdim=_kd(a), interpolation=a.get("interpolation", "linear"))


def _pair(f):
    def op(xs, a):
        return tuple(f(xs[0], a))
    return op


OPS = {
    "all": _one_dim(torch.all),
    "any": _one_dim(torch.any),
    "count_nonzero": lambda xs, a: torch.count_nonzero(xs[0], dim=_dims(a)),
    "aminmax": lambda xs, a: tuple(torch.aminmax(xs[0], dim=a.get("dim"), keepdim=_kd(a))),
    "nansum": _dim_reduce(torch.nansum),
    "nanmean": _dim_reduce(torch.nanmean),
    "var_mean": _var_mean(torch.var_mean),
    "std_mean": _var_mean(torch.std_mean),
    "cumsum": lambda xs, a: torch.cumsum(xs[0], a["dim"], dtype=_dtype(a)),
    "cumprod": lambda xs, a: torch.cumprod(xs[0], a["dim"], dtype=_dtype(a)),
    "cummax": _pair(lambda x, a: torch.cummax(x, a["dim"])),
    "cummin": _pair(lambda x, a: torch.cummin(x, a["dim"])),
    "logcumsumexp": lambda xs, a: torch.logcumsumexp(xs[0], a["dim"]),
    "sort": _pair(lambda x, a: torch.sort(x, dim=a.get("dim", -1), descending=a.get("descending", False),
                                          stable=a.get("stable", False))),
    "argsort": lambda xs, a: torch.argsort(xs[0], dim=a.get("dim", -1), descending=a.get("descending", False),
                                           stable=a.get("stable", False)),
    "msort": lambda xs, a: torch.msort(xs[0]),
    "topk": _pair(lambda x, a: torch.topk(x, a["k"], dim=a.get("dim", -1), largest=a.get("largest", True),
                                          sorted=a.get("sorted", True))),
    "kthvalue": _pair(lambda x, a: torch.kthvalue(x, a["k"], dim=a.get("dim", -1), keepdim=_kd(a))),
    "median": lambda xs, a: torch.median(xs[0]),
    "median_dim": _pair(lambda x, a: torch.median(x, a["dim"], keepdim=_kd(a))),
    "nanmedian": lambda xs, a: torch.nanmedian(xs[0]),
    "nanmedian_dim": _pair(lambda x, a: torch.nanmedian(x, a["dim"], keepdim=_kd(a))),
    "mode": _pair(lambda x, a: torch.mode(x, a.get("dim", -1), keepdim=_kd(a))),
    "quantile": lambda xs, a: _quantile(torch.quantile, xs[0], a),
    "nanquantile": lambda xs, a: _quantile(torch.nanquantile, xs[0], a),
}
DIFFERENTIABLE = ("nansum", "nanmean", "var_mean", "std_mean", "cumsum", "cumprod", "cummax", "cummin",
                  "logcumsumexp", "sort", "msort", "topk", "kthvalue", "median", "median_dim", "nanmedian",
                  "nanmedian_dim", "mode", "quantile", "nanquantile")

SKIPPED = []


class SortScanFixture(Fixture):
    """Skips a case whose dtype torch's CPU kernels do not implement (glia computes those anyway);
    writes one case per line."""

    def case(self, name, op, xs, **kw):
        try:
            return super().case(name, op, xs, **kw)
        except RuntimeError as e:
            if "not implemented for" not in str(e):
                raise
            SKIPPED.append(name)
            return None

    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        os.makedirs(OUT, exist_ok=True)

        def lines(items):
            return ",\n".join(json.dumps(c, separators=(",", ":")) for c in items)

        with open(os.path.join(OUT, filename), "w") as f:
            f.write('{"cases":[\n' + lines(self.cases) + '\n],\n"errors":[\n' + lines(self.errors) + "\n]}\n")


def distinct(shape, dtype=f64):
    """Values with no ties (for gradients through selected indices)."""
    n = 1
    for s in shape:
        n *= s
    v = torch.randperm(n, generator=torch.Generator().manual_seed(n + 7)).to(torch.float64) / 4 - n / 8
    return v.reshape(shape).to(getattr(torch, dtype))


def t(values, dtype=f64):
    return torch.tensor(values, dtype=getattr(torch, dtype))


def reductions(fx):
    x = smooth([2, 3, 4])
    b = rnd([3, 4], "bool")
    for op in ("all", "any"):
        fx.case(op + " all", op, [b])
        for ds in (dict(dims=[0]), dict(dims=[1], keepdim=True), dict(dims=[-1])):
            fx.case("%s bool %s" % (op, ds), op, [b], **ds)
        fx.case(op + " transposed", op, [T(rnd([3, 4], "bool"))], dims=[1])
        for dt in ("float32", "float64", "int64", "int32", "float16", "bfloat16"):
            fx.case(op + " " + dt, op, [rnd([3, 4], dt, -1, 2)], dims=[1])
        fx.case(op + " uint8 stays uint8", op, [rnd([3, 4], "uint8", 0, 2)], dims=[0])
        fx.case(op + " uint8 all", op, [rnd([3, 4], "uint8", 0, 2)])
        fx.case(op + " nan is true", op, [t([[0.0, NAN], [NAN, NAN]])], dims=[1])
        fx.case(op + " 0-dim", op, [t(0.0)])
        fx.case(op + " 0-dim dim 0", op, [t(1.5)], dims=[0], keepdim=True)
        fx.case(op + " zero-size dim 0", op, [rnd([0, 3], "bool")], dims=[0])
        fx.case(op + " zero-size dim 1", op, [rnd([0, 3], "bool")], dims=[1])
        fx.case(op + " zero-size all", op, [rnd([0, 3])])
        fx.error(op + " dim out of range", op, [b], "GLIA_ERR_INVALID_ARGUMENT", dims=[2])
    for ds in (dict(), dict(dims=[1]), dict(dims=[0, 2]), dict(dims=[-1, 0])):
        fx.case("count_nonzero %s" % ds, "count_nonzero", [rnd([2, 3, 4], "int64", -1, 2)], **ds)
    fx.case("count_nonzero float nan", "count_nonzero", [t([[0.0, NAN, 1.0], [0.0, -0.0, 2.0]])], dims=[1])
    fx.case("count_nonzero bool transposed", "count_nonzero", [T(rnd([3, 4], "bool"))], dims=[0])
    fx.case("count_nonzero 0-dim", "count_nonzero", [t(2.0)])
    fx.case("count_nonzero zero-size", "count_nonzero", [rnd([0, 3])], dims=[0])
    fx.error("count_nonzero repeated dim", "count_nonzero", [x], "GLIA_ERR_INVALID_ARGUMENT", dims=[0, -3])

    xd = distinct([2, 3, 4])
    for ds in (dict(), dict(keepdim=True), dict(dim=1), dict(dim=-1, keepdim=True), dict(dim=0)):
        fx.case("aminmax %s" % ds, "aminmax", [xd], **ds)
    for dt in ("float32", "int64", "int32", "uint8", "bool", "bfloat16"):
        fx.case("aminmax " + dt, "aminmax", [rnd([3, 5], dt)], dim=1)
    fx.case("aminmax nan", "aminmax", [t([[1.0, NAN, 3.0], [2.0, -1.0, 0.5]])], dim=1)
    fx.case("aminmax transposed", "aminmax", [T(distinct([3, 4]))], dim=0)
    fx.case("aminmax 0-dim", "aminmax", [t(2.5)])
    # torch 1.13: a 0-dim input with a dim and keepdim gives shape [1] (its out= resize), without keepdim [].
    fx.case("aminmax 0-dim dim 0 keepdim", "aminmax", [t(2.5)], dim=0, keepdim=True)
    fx.case("aminmax 0-dim dim -1", "aminmax", [t(-1.5)], dim=-1)
    fx.case("aminmax zero-size kept dim", "aminmax", [rnd([0, 3])], dim=1)
    fx.error("aminmax empty", "aminmax", [rnd([0, 3])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("aminmax empty dim", "aminmax", [rnd([0, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim=0)
    fx.error("aminmax dim out of range", "aminmax", [xd], "GLIA_ERR_INVALID_ARGUMENT", dim=3)

    xn = t([[1.5, NAN, -2.0, 0.25], [NAN, NAN, 3.0, 1.0], [NAN, NAN, NAN, NAN]])
    dim_sets = [dict(), dict(dims=[1]), dict(dims=[1], keepdim=True), dict(dims=[-1, 0])]
    for op in ("nansum", "nanmean"):
        for ds in dim_sets:
            fx.case("%s f64 %s" % (op, ds), op, [x], **ds)
            # nanmean of an all-NaN row: NaN gradients (torch's), which finite differences cannot check.
            fx.case("%s nan %s" % (op, ds), op, [xn], gradcheck=op == "nansum" or ds.get("dims") != [1], **ds)
        fx.case(op + " transposed nan", op, [T(xn)], dims=[0], gradcheck=op == "nansum")
        fx.case(op + " f32", op, [smooth([5, 7], f32)], dims=[1])
        fx.case(op + " bfloat16", op, [rnd([3, 4], "bfloat16")], dims=[1])
        fx.case(op + " 0-dim", op, [smooth([])])
        fx.case(op + " 0-dim nan", op, [t(NAN)], grads=False)
        fx.case(op + " zero-size", op, [rnd([0, 3])], dims=[0])
        fx.error(op + " dim out of range", op, [x], "GLIA_ERR_INVALID_ARGUMENT", dims=[3])
    fx.case("nansum int32 -> int64", "nansum", [rnd([3, 4], "int32")], dims=[1])
    fx.case("nansum bool -> int64", "nansum", [rnd([3, 4], "bool")])
    fx.error("nanmean int64", "nanmean", [rnd([3], "int64")], "GLIA_ERR_DTYPE")

    for op in ("var_mean", "std_mean"):
        for ds in (dict(), dict(dims=[1]), dict(dims=[0, 2], keepdim=True), dict(dims=[-1], correction=0),
                   dict(dims=[1], correction=2)):
            fx.case("%s %s" % (op, ds), op, [x], **ds)
        fx.case(op + " transposed", op, [T(smooth([3, 4]))], dims=[0])
        fx.case(op + " f32", op, [smooth([5, 7], f32)], dims=[1])
        fx.case(op + " zero-size", op, [rnd([0, 3])], dims=[0])
        fx.error(op + " int64", op, [rnd([3], "int64")], "GLIA_ERR_DTYPE")
        fx.error(op + " dim out of range", op, [x], "GLIA_ERR_INVALID_ARGUMENT", dims=[3])


def scans(fx):
    x = smooth([2, 3, 4])
    for op in ("cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"):
        xs = distinct([2, 3, 4]) / 4 if op in ("cummax", "cummin") else x
        for dim in (0, 1, 2, -1):
            fx.case("%s f64 dim %d" % (op, dim), op, [xs], dim=dim)
        fx.case(op + " transposed dim 0", op, [T(smooth([3, 4]) if op[:4] != "cumm" else distinct([3, 4]))], dim=0)
        fx.case(op + " transposed dim 1", op, [T(smooth([3, 4]) if op[:4] != "cumm" else distinct([3, 4]))], dim=1)
        fx.case(op + " f32 rows", op, [smooth([3, 100], f32)], dim=1)
        fx.case(op + " f32 inner", op, [smooth([3, 4, 40], f32)], dim=1)
        fx.case(op + " bfloat16", op, [rnd([3, 4], "bfloat16", -1, 2)], dim=1)
        fx.case(op + " float16", op, [rnd([3, 4], "float16", -1, 2)], dim=0)
        fx.case(op + " 0-dim", op, [smooth([])], dim=0)
        fx.case(op + " 0-dim dim -1", op, [smooth([])], dim=-1)
        fx.case(op + " zero-size", op, [rnd([0, 3])], dim=0)
        fx.case(op + " zero-size other dim", op, [rnd([0, 3])], dim=1)
        fx.error(op + " dim out of range", op, [x], "GLIA_ERR_INVALID_ARGUMENT", dim=3)
    for op in ("cumsum", "cumprod", "cummax", "cummin"):
        for dt in ("int64", "int32", "uint8", "bool"):
            fx.case(op + " " + dt, op, [rnd([3, 5], dt, -3, 4)], dim=1)
    fx.case("cumsum int64 overflow wraps", "cumsum", [torch.full([3], 2 ** 62, dtype=torch.int64)], dim=0)
    fx.case("cumsum dtype float64 from f32", "cumsum", [smooth([3, 4], f32)], dim=1, dtype="float64")
    fx.case("cumsum dtype float32 from int", "cumsum", [rnd([3, 4], "int64")], dim=0, dtype="float32")
    fx.case("cumsum dtype int32 from int32", "cumsum", [rnd([3, 4], "int32")], dim=1, dtype="int32")
    fx.case("cumsum dtype float64 grad", "cumsum", [smooth([3, 4])], dim=1, dtype="float64")
    fx.case("cumprod dtype float64 from int", "cumprod", [rnd([3, 4], "int32", -3, 4)], dim=1, dtype="float64")
    fx.case("cumsum nan inf", "cumsum", [t([[1.0, NAN, 2.0], [INF, -INF, 1.0]])], dim=1, grads=False)
    # cumprod with zeros: torch's gradient (one zero, two zeros, zero first and last).
    fx.case("cumprod one zero", "cumprod", [t([[1.5, 0.0, -2.0, 0.5], [0.5, 2.0, 3.0, 0.0]])], dim=1)
    fx.case("cumprod two zeros", "cumprod", [t([[0.0, 1.5, 0.0, -2.0], [0.5, 0.0, 3.0, 0.0]])], dim=1)
    fx.case("cumprod zero first dim 0", "cumprod", [t([[0.0, 1.5], [2.0, 0.0], [-1.5, 3.0]])], dim=0)
    fx.case("cumprod zero transposed", "cumprod", [T(t([[0.0, 1.5], [2.0, 0.0], [-1.5, 3.0]]))], dim=1)
    # cummax / cummin: ties take the last index, a NaN sticks and each later NaN takes its index.
    ties = t([[1.0, 3.0, 3.0, 2.0, 3.0], [2.0, 2.0, 1.0, 1.0, 2.0]])
    for op in ("cummax", "cummin"):
        fx.case(op + " ties last index", op, [ties], dim=1, gradcheck=False)
        fx.case(op + " nan sticks", op, [t([1.0, 3.0, NAN, 5.0, NAN, -1.0])], dim=0, grads=False)
        fx.case(op + " inf", op, [t([1.0, INF, -INF, 2.0])], dim=0, grads=False)
    fx.case("logcumsumexp -inf inf nan", "logcumsumexp", [t([[-INF, -INF, 1.0], [INF, 1.0, INF], [1.0, NAN, 2.0]])],
            dim=1, grads=False)
    fx.case("logcumsumexp big values", "logcumsumexp", [t([[1000.0, 1000.5, 999.0], [-1000.0, -999.0, -1001.0]])],
            dim=1)
    fx.error("logcumsumexp int64", "logcumsumexp", [rnd([3], "int64")], "GLIA_ERR_DTYPE", dim=0)


def sorting(fx):
    xd = distinct([2, 3, 4])
    for dim in (0, 1, -1):
        for desc in (False, True):
            fx.case("sort dim %d desc %s" % (dim, desc), "sort", [xd], dim=dim, descending=desc)
            fx.case("argsort dim %d desc %s" % (dim, desc), "argsort", [xd], dim=dim, descending=desc)
    fx.case("sort transposed", "sort", [T(distinct([3, 4]))], dim=0)
    fx.case("sort transposed dim 1 desc", "sort", [T(distinct([3, 4]))], dim=1, descending=True)
    fx.case("sort f32 long rows", "sort", [smooth([3, 150], f32)], dim=1)
    fx.case("sort f32 inner", "sort", [smooth([4, 50, 3], f32)], dim=1, descending=True)
    ties = t([[2.0, 1.0, 2.0, 1.0, 3.0, 1.0, 2.0], [0.0, 0.0, -1.0, 0.0, -1.0, 5.0, 0.0]])
    for desc in (False, True):
        fx.case("sort stable ties desc %s" % desc, "sort", [ties], dim=1, descending=desc, stable=True,
                gradcheck=False)
        fx.case("argsort stable ties desc %s" % desc, "argsort", [ties], dim=1, descending=desc, stable=True)
        fx.case("sort stable int ties desc %s" % desc, "sort", [rnd([3, 20], "int64", 0, 4)], dim=1,
                descending=desc, stable=True)
        fx.case("sort nan desc %s" % desc, "sort", [t([[3.0, NAN, 1.0, -INF, NAN, 2.0], [NAN, 0.5, INF, 0.0, 1.0, -2.0]])],
                dim=1, descending=desc, stable=True, grads=False)
    for dt in ("float32", "int64", "int32", "uint8", "bool", "bfloat16", "float16"):
        fx.case("sort " + dt, "sort", [rnd([3, 6], dt)], dim=1, stable=True)
    fx.case("sort 0-dim", "sort", [smooth([])], dim=0)
    fx.case("sort zero-size", "sort", [rnd([0, 3])], dim=0)
    fx.case("sort zero-size dim 1", "sort", [rnd([0, 3])], dim=1)
    fx.error("sort dim out of range", "sort", [xd], "GLIA_ERR_INVALID_ARGUMENT", dim=3)
    fx.case("msort", "msort", [xd])
    fx.case("msort transposed", "msort", [T(distinct([3, 4]))])
    fx.case("msort 1-d int", "msort", [rnd([7], "int64")])

    for ds in (dict(k=2), dict(k=2, largest=False), dict(k=1, dim=0), dict(k=3, dim=1, largest=False),
               dict(k=4, dim=-1), dict(k=0, dim=1)):
        fx.case("topk %s" % ds, "topk", [xd], **ds)
    fx.case("topk transposed", "topk", [T(distinct([3, 4]))], k=2, dim=0)
    fx.case("topk f32 long rows", "topk", [distinct([3, 150], f32)], k=5, dim=1)
    fx.case("topk nan largest", "topk", [t([[3.0, NAN, 1.0, 2.0], [0.5, 1.5, -1.0, INF]])], k=2, grads=False)
    fx.case("topk nan smallest", "topk", [t([[3.0, NAN, 1.0, 2.0], [0.5, 1.5, -1.0, -INF]])], k=2, largest=False,
            grads=False)
    for dt in ("int64", "int32", "uint8", "float32"):
        fx.case("topk " + dt, "topk", [(distinct([3, 6]) * 4).to(getattr(torch, dt)) if dt != "uint8" else
                                       (distinct([3, 6]) * 4 + 10).to(torch.uint8)], k=3)
    fx.case("topk 0-dim", "topk", [smooth([])], k=1, dim=0)
    fx.case("topk zero-size", "topk", [rnd([0, 3])], k=0, dim=0)
    fx.case("topk zero-size other dim", "topk", [rnd([0, 3])], k=2, dim=1)
    fx.error("topk k too big", "topk", [xd], "GLIA_ERR_INVALID_ARGUMENT", k=5, dim=1)
    fx.error("topk k negative", "topk", [xd], "GLIA_ERR_INVALID_ARGUMENT", k=-1)
    fx.error("topk 0-dim k 2", "topk", [smooth([])], "GLIA_ERR_INVALID_ARGUMENT", k=2)
    fx.error("topk bool", "topk", [rnd([4], "bool")], "GLIA_ERR_DTYPE", k=1)
    fx.error("topk dim out of range", "topk", [xd], "GLIA_ERR_INVALID_ARGUMENT", k=1, dim=-4)

    for ds in (dict(k=1), dict(k=4), dict(k=2, dim=1, keepdim=True), dict(k=2, dim=0), dict(k=3, dim=-2)):
        fx.case("kthvalue %s" % ds, "kthvalue", [xd], **ds)
    fx.case("kthvalue transposed", "kthvalue", [T(distinct([3, 4]))], k=2, dim=0)
    fx.case("kthvalue nan largest", "kthvalue", [t([[3.0, NAN, 1.0], [NAN, NAN, 2.0]])], k=3, dim=1, grads=False)
    fx.case("kthvalue f32", "kthvalue", [distinct([5, 40], f32)], k=17, dim=1)
    fx.case("kthvalue int64", "kthvalue", [distinct([3, 6]).mul(4).to(torch.int64)], k=2, dim=1)
    fx.case("kthvalue 0-dim", "kthvalue", [smooth([])], k=1, dim=0)
    fx.case("kthvalue zero-size kept dim", "kthvalue", [rnd([0, 3])], k=2, dim=1)
    fx.error("kthvalue k too big", "kthvalue", [xd], "GLIA_ERR_INVALID_ARGUMENT", k=5, dim=2)
    fx.error("kthvalue k 0", "kthvalue", [xd], "GLIA_ERR_INVALID_ARGUMENT", k=0, dim=1)
    fx.error("kthvalue empty dim", "kthvalue", [rnd([0, 3])], "GLIA_ERR_INVALID_ARGUMENT", k=1, dim=0)
    fx.error("kthvalue bool", "kthvalue", [rnd([4], "bool")], "GLIA_ERR_DTYPE", k=1, dim=0)

    # median / nanmedian: the lower median of even counts; NaN.
    for op in ("median", "nanmedian"):
        fx.case(op + " all odd", op, [distinct([3, 5])])
        fx.case(op + " all even", op, [distinct([2, 4])])
        fx.case(op + " all transposed", op, [T(distinct([3, 4]))])
        fx.case(op + " all f32", op, [distinct([7, 9], f32)])
        fx.case(op + " all int64", op, [rnd([3, 5], "int64")])
        fx.case(op + " all ties", op, [t([[1.0, 2.0, 2.0], [3.0, 2.0, 0.0]])], gradcheck=False)
        fx.case(op + " all nan", op, [t([[1.0, NAN, 2.0], [3.0, 0.5, NAN]])], grads=False)
        fx.case(op + " all 0-dim", op, [smooth([])])
        fx.case(op + " all empty", op, [rnd([0, 3])])
        d = op + "_dim"
        for ds in (dict(dim=1), dict(dim=0, keepdim=True), dict(dim=-1), dict(dim=2, keepdim=True)):
            fx.case("%s %s" % (d, ds), d, [distinct([2, 3, 4])], **ds)
        fx.case(d + " even", d, [distinct([3, 6])], dim=1)
        fx.case(d + " transposed", d, [T(distinct([3, 4]))], dim=0)
        fx.case(d + " nan", d, [t([[1.0, NAN, 2.0, 0.0], [3.0, 0.5, -1.0, 2.0], [NAN, NAN, NAN, 1.0]])], dim=1,
                grads=False)
        fx.case(d + " all nan row", d, [t([[NAN, NAN], [1.0, 2.0]])], dim=1, grads=False)
        fx.case(d + " f32", d, [distinct([5, 40], f32)], dim=1)
        fx.case(d + " int32", d, [distinct([3, 6]).mul(4).to(torch.int32)], dim=1)
        fx.case(d + " 0-dim", d, [smooth([])], dim=0)
        fx.case(d + " zero-size kept dim", d, [rnd([0, 3])], dim=1)
        fx.error(d + " empty dim", d, [rnd([0, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim=0)
        fx.error(d + " dim out of range", d, [distinct([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim=2)
        fx.error(op + " bool", op, [rnd([4], "bool")], "GLIA_ERR_DTYPE")

    # mode: the smallest most frequent value, the last index holding it.
    fx.case("mode distinct (smallest)", "mode", [distinct([3, 5])], dim=1)
    fx.case("mode distinct dim 0 keepdim", "mode", [distinct([3, 5])], dim=0, keepdim=True)
    fx.case("mode ties", "mode", [ties], dim=1, gradcheck=False)
    fx.case("mode transposed", "mode", [T(rnd([4, 6], f64, -2, 2))], dim=0, gradcheck=False)
    for dt in ("int64", "int32", "uint8", "bool", "float32"):
        fx.case("mode " + dt, "mode", [rnd([3, 8], dt, 0, 3)], dim=1)
    fx.case("mode 0-dim", "mode", [smooth([])], dim=0)
    fx.case("mode zero-size kept dim", "mode", [rnd([0, 3])], dim=1)
    fx.error("mode empty dim", "mode", [rnd([0, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim=0)
    fx.error("mode dim out of range", "mode", [xd], "GLIA_ERR_INVALID_ARGUMENT", dim=3)


def quantiles(fx):
    xd = distinct([3, 5])
    xn = t([[1.0, NAN, 2.0, 8.0, 5.0], [3.0, 0.5, -1.0, 2.5, 4.0], [NAN, NAN, NAN, NAN, NAN]])
    for op in ("quantile", "nanquantile"):
        for ds in (dict(q=0.4), dict(q=[0.0, 0.25, 0.5, 1.0]), dict(q=0.3, dim=1), dict(q=[0.1, 0.9], dim=0),
                   dict(q=0.75, dim=-1, keepdim=True), dict(q=[0.5, 0.6], dim=1, keepdim=True),
                   dict(q=[0.2], keepdim=True)):
            fx.case("%s %s" % (op, ds), op, [xd], **ds)
        for interp in ("lower", "higher", "nearest", "midpoint"):
            fx.case("%s %s" % (op, interp), op, [xd], q=[0.1, 0.125, 0.5, 0.625, 0.7], dim=1,
                    interpolation=interp)
            fx.case("%s %s nan" % (op, interp), op, [xn], q=[0.1, 0.5, 0.875], dim=1, interpolation=interp,
                    grads=False)
        fx.case(op + " nan rows", op, [xn], q=[0.25, 0.5], dim=1, grads=False)
        fx.case(op + " nan all", op, [xn], q=0.5, grads=False)
        fx.case(op + " transposed", op, [T(distinct([4, 3]))], q=[0.3, 0.8], dim=0)
        fx.case(op + " f32", op, [distinct([4, 9], f32)], q=[0.33, 0.5], dim=1)
        fx.case(op + " 0-dim", op, [smooth([])], q=0.5)
        fx.case(op + " 0-dim dim 0 keepdim", op, [smooth([])], q=[0.5], dim=0, keepdim=True)
        fx.case(op + " 3-d dim 1", op, [distinct([2, 3, 4])], q=[0.2, 0.7], dim=1)
        fx.error(op + " int64", op, [rnd([3], "int64")], "GLIA_ERR_DTYPE", q=0.5)
        fx.error(op + " float16", op, [rnd([3], "float16")], "GLIA_ERR_DTYPE", q=0.5)
        fx.error(op + " q above 1", op, [xd], "GLIA_ERR_INVALID_ARGUMENT", q=1.5)
        fx.error(op + " q below 0", op, [xd], "GLIA_ERR_INVALID_ARGUMENT", q=-0.1)
        fx.error(op + " q values out of range", op, [xd], "GLIA_ERR_INVALID_ARGUMENT", q=[0.5, 1.25])
        fx.error(op + " empty", op, [rnd([0, 3])], "GLIA_ERR_INVALID_ARGUMENT", q=0.5, dim=1)
        fx.error(op + " dim out of range", op, [xd], "GLIA_ERR_INVALID_ARGUMENT", q=0.5, dim=2)


if __name__ == "__main__":
    fx = SortScanFixture(OPS, DIFFERENTIABLE)
    reductions(fx)
    scans(fx)
    sorting(fx)
    quantiles(fx)
    fx.write("sortscan.json")
    print("skipped (not implemented in torch):", SKIPPED)
