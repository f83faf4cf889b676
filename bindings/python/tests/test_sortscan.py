"""torch.all/any/count_nonzero/aminmax/nansum/nanmean/var_mean/std_mean, the scans and the sorts through the
binding's torch-named functions and Tensor methods, against torch 1.13's values, gradients and error messages
(the C library's fixture tests/golden/ops/sortscan.json, made by tests/golden/gen_sortscan.py)."""

import json
import math
import os

import pytest

import glia

from _repo import ROOT

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(ROOT, "tests", "golden", "ops", "sortscan.json")
with open(FIXTURE) as f:
    DATA = json.load(f)

TOL = {"float64": 1e-10, "float32": 1e-5, "float16": 1e-3, "bfloat16": 1e-2}


def _decode(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return v


def _input(spec, requires_grad=False):
    dt = getattr(glia, spec["dtype"])
    vals = [_decode(v) for v in spec["values"]]
    shape = list(spec["shape"])
    if spec["transposed"]:
        base = shape[:]
        base[0], base[1] = shape[1], shape[0]
        x = glia.tensor(vals, dtype=dt).reshape(base).transpose(0, 1)
    else:
        x = glia.tensor(vals, dtype=dt).reshape(shape)
    if requires_grad:
        x.requires_grad_(True)
    return x


def _dims(a):
    d = a.get("dims")
    return None if not d else d


def _call(op, x, a):
    """The case as a torch-style call: a function for some ops, a method for others."""
    kd = a.get("keepdim", False)
    if op in ("all", "any"):
        d = _dims(a)
        f = getattr(glia, op)
        return f(x) if d is None else f(x, d[0], keepdim=kd)
    if op == "count_nonzero":
        return glia.count_nonzero(x, dim=_dims(a))
    if op == "aminmax":
        r = x.aminmax(dim=a.get("dim"), keepdim=kd)
        assert type(r).__name__ == "aminmax" and r.min is r[0] and r.max is r[1]
        return tuple(r)
    if op in ("nansum", "nanmean"):
        d = _dims(a)
        return getattr(glia, op)(x) if d is None and not kd else getattr(x, op)(dim=d, keepdim=kd)
    if op in ("var_mean", "std_mean"):
        return getattr(glia, op)(x, dim=_dims(a), correction=a.get("correction", 1), keepdim=kd)
    if op in ("cumsum", "cumprod"):
        dt = a.get("dtype")
        return getattr(glia, op)(x, a["dim"], dtype=None if dt is None else getattr(glia, dt))
    if op in ("cummax", "cummin"):
        r = getattr(x, op)(a["dim"])
        assert repr(r).startswith("torch.return_types.%s(" % op)
        return (r.values, r.indices)
    if op == "logcumsumexp":
        return x.logcumsumexp(a["dim"])
    if op == "sort":
        r = glia.sort(x, dim=a.get("dim", -1), descending=a.get("descending", False), stable=a.get("stable", False))
        assert type(r).__name__ == "sort"
        return (r.values, r.indices)
    if op == "argsort":
        return x.argsort(a.get("dim", -1), a.get("descending", False), stable=a.get("stable", False))
    if op == "msort":
        return glia.msort(x)
    if op == "topk":
        r = x.topk(a["k"], dim=a.get("dim", -1), largest=a.get("largest", True), sorted=a.get("sorted", True))
        return (r.values, r.indices)
    if op == "kthvalue":
        r = glia.kthvalue(x, a["k"], a.get("dim", -1), kd)
        return (r.values, r.indices)
    if op in ("median", "nanmedian"):
        return getattr(glia, op)(x)
    if op in ("median_dim", "nanmedian_dim"):
        r = getattr(x, op[:-4])(a["dim"], keepdim=kd)
        assert type(r).__name__ == op[:-4]
        return (r.values, r.indices)
    if op == "mode":
        r = glia.mode(x, a.get("dim", -1), keepdim=kd)
        return (r.values, r.indices)
    if op in ("quantile", "nanquantile"):
        kw = {} if "interpolation" not in a else {"interpolation": a["interpolation"]}
        if "dim" in a:
            return getattr(x, op)(a["q"], a["dim"], keepdim=kd, **kw)
        return getattr(glia, op)(x, a["q"], keepdim=kd, **kw)
    raise AssertionError("no call for " + op)


def _close(got, want, tol):
    for g, w in zip(got, want):
        w = _decode(w)
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g)
        elif isinstance(w, float) and math.isinf(w):
            assert g == w
        else:
            assert abs(g - w) <= tol * (1 + abs(w)), (g, w)


def _flat(t):
    v = t.reshape(-1).tolist() if t.dim() > 0 else [t.item()]
    return [builtins_float(x) for x in v]


def builtins_float(x):
    return float(x) if not isinstance(x, bool) else float(x)


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_case_matches_torch(case):
    with_grads = "grads" in case
    xs = [_input(s, requires_grad=with_grads and s["dtype"] == "float64") for s in case["inputs"]]
    outs = _call(case["op"], xs[0], case["args"])
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    assert len(outs) == len(case["outs"])
    for got, want in zip(outs, case["outs"]):
        assert str(got.dtype) == "torch." + want["dtype"]
        assert list(got.shape) == want["shape"]
        _close(_flat(got.detach()), want["values"], case.get("tol", TOL.get(want["dtype"], 0)))
    if with_grads:
        total = None
        for got, w, spec in zip(outs, case["w"], case["outs"]):
            if w is None:
                continue
            wt = glia.tensor([_decode(v) for v in w], dtype=glia.float64).reshape(spec["shape"])
            term = (got * wt).sum()
            total = term if total is None else total + term
        total.backward()
        for x, g in zip(xs, case["grads"]):
            if g is not None:
                _close(_flat(x.grad), g, 1e-9)


@pytest.mark.parametrize("case", DATA["errors"], ids=[c["name"] for c in DATA["errors"]])
def test_error_matches_torch(case):
    x = _input(case["inputs"][0])
    with pytest.raises((RuntimeError, IndexError)) as ei:
        _call(case["op"], x, case["args"])
    if case["message"]:
        assert case["message"] in str(ei.value)


def test_methods_and_functions_exist_with_torchs_names():
    x = glia.tensor([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]])
    for name in ("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "sort", "argsort", "topk", "kthvalue",
                 "median", "nanmedian", "mode", "msort", "all", "any", "count_nonzero", "aminmax", "nansum",
                 "nanmean", "var_mean", "std_mean", "quantile", "nanquantile"):
        assert callable(getattr(glia, name)), name
        if name not in ("var_mean", "std_mean"):
            assert callable(getattr(x, name)), name
    rows = x.tolist()
    v, i = glia.sort(x, descending=True)  # unpacks like torch's named tuple
    assert v.tolist() == [sorted(r, reverse=True) for r in rows]
    assert [[r[k] for k in ks] for r, ks in zip(rows, i.tolist())] == v.tolist()
    assert (x > 0).all().item() is (min(min(r) for r in rows) > 0)
    assert x.eq(x).all().item() is True
    assert glia.equal(x, x.clone())


def test_quantile_interpolation_names_as_torch():
    x = glia.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^quantile\(\) interpolation must be one of linear, lower, higher, "
                                           r"midpoint or nearest, but got foo$"):
        glia.quantile(x, 0.5, interpolation="foo")
    q = glia.tensor([0.25, 0.75])
    assert glia.quantile(x, q).tolist() == glia.quantile(x, [0.25, 0.75]).tolist()
