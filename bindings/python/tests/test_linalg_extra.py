"""torch.addcmul/addcdiv/dot/vdot/inner/outer/ger/mv/addmv/addr/baddbmm/addbmm through the binding's
torch-named functions and Tensor methods, against torch 1.13's values, gradients and error messages (the C
library's fixture tests/golden/ops/linalg_extra.json, made by tests/golden/gen_linalg_extra.py)."""

import json
import math
import os

import pytest

import glia

from _repo import ROOT

FIXTURE = os.path.join(ROOT, "tests", "golden", "ops", "linalg_extra.json")
with open(FIXTURE) as f:
    DATA = json.load(f)

TOL = {"float64": 1e-10, "float32": 1e-5}


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


def _call(op, xs, a, method):
    """The case as torch.<op>(...) or, with method, xs[0].<op>(...)."""
    f = getattr(xs[0], op) if method else lambda *r, **k: getattr(glia, op)(xs[0], *r, **k)
    if op in ("addcmul", "addcdiv"):
        return f(xs[1], xs[2]) if "value" not in a else f(xs[1], xs[2], value=a["value"])
    if op in ("addmv", "addr", "baddbmm", "addbmm"):
        return f(xs[1], xs[2], beta=a.get("beta", 1), alpha=a.get("alpha", 1))
    return f(xs[1])


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
    return [float(x) for x in (t.reshape(-1).tolist() if t.dim() > 0 else [t.item()])]


@pytest.mark.parametrize("method", [False, True], ids=["function", "method"])
@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_case_matches_torch(case, method):
    with_grads = "grads" in case
    xs = [_input(s, requires_grad=with_grads and s["dtype"] == "float64") for s in case["inputs"]]
    got = _call(case["op"], xs, case["args"], method)
    want = case["outs"][0]
    assert str(got.dtype) == "torch." + want["dtype"]
    assert list(got.shape) == want["shape"]
    _close(_flat(got.detach()), want["values"], case.get("tol", TOL.get(want["dtype"], 0)))
    if with_grads:
        wt = glia.tensor([_decode(v) for v in case["w"][0]], dtype=glia.float64).reshape(want["shape"])
        (got * wt).sum().backward()
        for x, g in zip(xs, case["grads"]):
            if g is not None:
                _close(_flat(x.grad), g, 1e-9)


@pytest.mark.parametrize("case", DATA["errors"], ids=[c["name"] for c in DATA["errors"]])
def test_error_matches_torch(case):
    xs = [_input(s) for s in case["inputs"]]
    with pytest.raises(RuntimeError) as ei:
        _call(case["op"], xs, case["args"], False)
    if case["message"]:
        assert str(ei.value).startswith(case["message"]) or case["message"] in str(ei.value)


def test_non_tensor_arguments_fail_as_in_torch():
    x = glia.ones(3)
    with pytest.raises(TypeError, match=r"^dot\(\): argument 'tensor' \(position 1\) must be Tensor, not int$"):
        x.dot(1)
    with pytest.raises(TypeError, match=r"^dot\(\): argument 'tensor' \(position 2\) must be Tensor, not int$"):
        glia.dot(x, 1)
    with pytest.raises(TypeError, match=r"^addmv\(\): argument 'mat' \(position 2\) must be Tensor, not list$"):
        glia.addmv(x, [1.0], x)
    with pytest.raises(TypeError, match=r"^addmv\(\): argument 'mat' \(position 1\) must be Tensor, not list$"):
        x.addmv([1.0], x)
    with pytest.raises(TypeError, match=r"^outer\(\): argument 'input' \(position 1\) must be Tensor, not float$"):
        glia.outer(1.0, x)
