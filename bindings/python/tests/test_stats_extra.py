"""torch.searchsorted/bucketize/isin/unique/unique_consecutive/histc and diff/cross/tensordot/kron/block_diag/
diagflat/cov/corrcoef/trapezoid/cumulative_trapezoid/cdist/constant_pad_nd/combinations/einsum through the
binding's torch-named functions (and Tensor methods where torch has them), against torch 1.13's values,
gradients and error messages (the C library's fixture tests/golden/ops/stats_extra.json, made by
tests/golden/gen_stats_extra.py)."""

import json
import math
import os

import pytest

import glia

from _repo import ROOT

FIXTURE = os.path.join(ROOT, "tests", "golden", "ops", "stats_extra.json")
with open(FIXTURE) as f:
    DATA = json.load(f)

TOL = {"float64": 1e-10, "float32": 1e-5, "float16": 1e-3}
METHODS = {"unique", "unique_consecutive", "histc", "diff", "cross", "kron", "diagflat", "cov", "corrcoef"}


def _decode(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return v


def _input(spec, requires_grad=False):
    if spec is None:
        return None
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


def _call(op, xs, a, method):
    """The case as torch.<op>(...) or, with method, xs[0].<op>(...); results as a tuple."""
    if method:
        def f(*r, **k):
            return getattr(xs[0], op)(*r, **k)
    else:
        def f(*r, **k):
            return getattr(glia, op)(xs[0], *r, **k)
    rest = xs[1:]
    if op == "searchsorted":
        kw = dict(out_int32=a.get("out_int32", False), right=a.get("right", False))
        if "side" in a:
            kw["side"] = a["side"]
        if len(rest) > 1 and rest[1] is not None:
            kw["sorter"] = rest[1]
        return (f(rest[0], **kw),)
    if op == "bucketize":
        return (f(rest[0], out_int32=a.get("out_int32", False), right=a.get("right", False)),)
    if op == "isin":
        return (f(rest[0], assume_unique=a.get("assume_unique", False), invert=a.get("invert", False)),)
    if op == "unique":
        return f(sorted=True, return_inverse=True, return_counts=True)
    if op == "unique_consecutive":
        return f(return_inverse=True, return_counts=True)
    if op == "histc":
        return (f(bins=a.get("bins", 100), min=a.get("min", 0), max=a.get("max", 0)),)
    if op == "diff":
        pre = rest[0] if len(rest) > 0 else None
        app = rest[1] if len(rest) > 1 else None
        return (f(n=a.get("n", 1), dim=a.get("dim", -1), prepend=pre, append=app),)
    if op == "cross":
        return (f(rest[0], dim=a.get("dim")),)
    if op == "tensordot":
        return (f(rest[0], dims=(a["dims_a"], a["dims_b"])),)
    if op in ("kron",):
        return (f(rest[0]),)
    if op == "block_diag":
        return (glia.block_diag(*xs),)
    if op == "diagflat":
        return (f(a.get("offset", 0)),)
    if op == "cov":
        return (f(correction=a.get("correction", 1), fweights=rest[0] if len(rest) > 0 else None,
                  aweights=rest[1] if len(rest) > 1 else None),)
    if op == "corrcoef":
        return (f(),)
    if op in ("trapezoid", "cumulative_trapezoid"):
        if rest:
            return (f(rest[0], dim=a.get("dim", -1)),)
        return (f(dx=a.get("dx", 1.0), dim=a.get("dim", -1)),)
    if op == "cdist":
        return (f(rest[0], p=a.get("p", 2.0)),)
    if op == "constant_pad_nd":
        return (f(a["pad"], a.get("value", 0)),)
    if op == "combinations":
        return (f(r=a.get("r", 2), with_replacement=a.get("with_replacement", False)),)
    if op == "einsum":
        return (glia.einsum(a["equation"], *xs),)
    raise AssertionError(op)


def _close(got, want, tol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = _decode(w)
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g)
        elif isinstance(w, float) and math.isinf(w):
            assert g == w
        else:
            assert abs(g - w) <= tol * (1 + abs(w)), (g, w)


def _flat(t):
    return [float(x) for x in (t.reshape(-1).tolist() if t.dim() > 0 else [t.item()])]


def _variants(case):
    return [False, True] if case["op"] in METHODS else [False]


CASES = [(c, m) for c in DATA["cases"] for m in _variants(c)]


@pytest.mark.parametrize("case,method", CASES,
                         ids=["%s%s" % (c["name"], " method" if m else "") for c, m in CASES])
def test_case_matches_torch(case, method):
    with_grads = "grads" in case
    xs = [_input(s, requires_grad=with_grads and s is not None and s["dtype"] == "float64")
          for s in case["inputs"]]
    got = _call(case["op"], xs, case["args"], method)
    assert len(got) == len(case["outs"])
    for g, want in zip(got, case["outs"]):
        assert str(g.dtype) == "torch." + want["dtype"]
        assert list(g.shape) == want["shape"]
        _close(_flat(g.detach()), want["values"], case.get("tol", TOL.get(want["dtype"], 0)))
    if with_grads:
        total = None
        for g, w, want in zip(got, case["w"], case["outs"]):
            if w is None:
                continue
            wt = glia.tensor([_decode(v) for v in w], dtype=glia.float64).reshape(want["shape"])
            term = (g * wt).sum()
            total = term if total is None else total + term
        total.backward()
        for x, g in zip(xs, case["grads"]):
            if g is not None:
                grad = x.grad if x.grad is not None else glia.zeros_like(x)
                _close(_flat(grad), g, 1e-9)


@pytest.mark.parametrize("case", DATA["errors"], ids=[c["name"] for c in DATA["errors"]])
def test_error_matches_torch(case):
    xs = [_input(s) for s in case["inputs"]]
    with pytest.raises((RuntimeError, IndexError)) as ei:
        _call(case["op"], xs, case["args"], False)
    if case["message"]:
        assert case["message"] in str(ei.value)


def test_scalar_forms_and_keywords():
    b = glia.tensor([1.0, 2.0, 3.0])
    # a Python number as the value searched for (torch's Scalar overloads): a 0-dim result
    assert glia.searchsorted(b, 2.5).tolist() == glia.searchsorted(b, glia.tensor(2.5)).tolist()
    assert glia.bucketize(2.0, b, right=True).dim() == 0
    assert glia.isin(b, 2.0).tolist() == [False, True, False]
    # unique's result forms follow the flags
    x = glia.tensor([2.0, 1.0, 2.0])
    assert isinstance(glia.unique(x), glia.Tensor)
    assert len(glia.unique(x, return_counts=True)) == 2
    assert len(x.unique_consecutive(return_inverse=True, return_counts=True)) == 3
    with pytest.raises(RuntimeError, match="dim is not supported"):
        glia.unique(x, dim=0)
    # tensordot's int dims and trapezoid's positional dx
    a, c = glia.ones(2, 3), glia.ones(3, 4)
    assert glia.tensordot(a, c, 1).tolist() == glia.tensordot(a, c, ([1], [0])).tolist()
    with pytest.raises(RuntimeError, match=r"^tensordot expects dims >= 0, but got dims=-1$"):
        glia.tensordot(a, c, -1)
    y = glia.tensor([1.0, 2.0, 4.0])
    assert glia.trapz(y, dx=0.5).item() == glia.trapezoid(y, 0.5).item()
    # einsum takes the operands as a list too
    assert glia.einsum("ij,jk", [a, c]).tolist() == glia.einsum("ij,jk", a, c).tolist()


def test_cdist_compute_modes_agree():
    x1 = glia.linspace(-1.0, 1.0, 12, dtype=glia.float64).reshape(4, 3)
    x2 = glia.linspace(0.5, -2.0, 9, dtype=glia.float64).reshape(3, 3)
    base = glia.cdist(x1, x2)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        _close(_flat(glia.cdist(x1, x2, compute_mode=mode)), _flat(base), 1e-12)
    with pytest.raises(ValueError):
        glia.cdist(x1, x2, compute_mode="fast")


def test_non_tensor_arguments_fail_as_in_torch():
    with pytest.raises(TypeError, match=r"^diff\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        glia.diff([1.0, 2.0])
    with pytest.raises(TypeError, match=r"^kron\(\): argument 'other' \(position 2\) must be Tensor, not int$"):
        glia.kron(glia.ones(2), 1)
