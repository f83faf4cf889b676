"""torch.index_add/index_copy/index_fill/scatter_reduce/index_reduce/masked_scatter/put/index_put/nonzero/
diagonal_scatter/select_scatter/slice_scatter through the binding's torch-named functions and Tensor
methods (and their in-place forms), against torch 1.13's values, gradients and error messages (the C
library's fixture tests/golden/ops/index_extra.json, made by tests/golden/gen_index_extra.py); argwhere,
nonzero(as_tuple=True), narrow_copy and split_with_sizes against numpy."""

import json
import math
import os

import numpy as np
import pytest

import glia

from _repo import ROOT

FIXTURE = os.path.join(ROOT, "tests", "golden", "ops", "index_extra.json")
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
    op = op.rstrip("_")  # the in-place forms take the same arguments
    if op == "index_add":
        return f(a["dim"], xs[1], xs[2], alpha=a.get("alpha", 1))
    if op == "index_copy":
        return f(a["dim"], xs[1], xs[2])
    if op == "index_fill":
        return f(a["dim"], xs[1], _decode(a["value"]))
    if op == "scatter_reduce":
        return f(a["dim"], xs[1], xs[2], a["reduce"], include_self=a.get("include_self", True))
    if op == "index_reduce":
        return f(a["dim"], xs[1], xs[2], a["reduce"], include_self=a.get("include_self", True))
    if op == "masked_scatter":
        return f(xs[1], xs[2])
    if op == "put":
        return f(xs[1], xs[2], a.get("accumulate", False))
    if op == "index_put":
        return f(tuple(xs[2:]), xs[1], accumulate=a.get("accumulate", False))
    if op == "nonzero":
        return f()
    if op == "diagonal_scatter":
        return f(xs[1], a.get("offset", 0), a.get("dim1", 0), a.get("dim2", 1))
    if op == "select_scatter":
        return f(xs[1], a["dim"], a["index"])
    assert op == "slice_scatter"
    return f(xs[1], a["dim"], a["start"], a["end"], a["step"])


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
        assert case["message"] in str(ei.value)


INPLACE = ["index_add", "index_copy", "index_fill", "scatter_reduce", "index_reduce", "masked_scatter", "put", "index_put"]


@pytest.mark.parametrize("case", [c for c in DATA["cases"] if c["op"] in INPLACE
                                  and list(c["outs"][0]["shape"]) == list(c["inputs"][0]["shape"])],
                         ids=lambda c: c["name"])
def test_inplace_form_writes_the_result_into_self(case):
    xs = [_input(s) for s in case["inputs"]]
    x = xs[0].clone()
    r = _call(case["op"] + "_", [x] + xs[1:], case["args"], True)
    assert r is x
    _close(_flat(x), case["outs"][0]["values"], case.get("tol", TOL.get(case["outs"][0]["dtype"], 0)))


def test_inplace_form_records_a_gradient():
    w = glia.tensor([1.0, 2.0, 3.0], dtype=glia.float64, requires_grad=True)
    x = (w * 1.0).index_fill_(0, glia.tensor([1]), 5.0)
    x.sum().backward()
    assert w.grad.tolist() == [1.0, 0.0, 1.0]


def test_masked_scatter_inplace_keeps_self_shape():
    x = glia.zeros(2, 3)
    x.masked_scatter_(glia.tensor([True, False, True]), glia.arange(1.0, 7.0))
    assert x.tolist() == [[1.0, 0.0, 2.0], [3.0, 0.0, 4.0]]


def test_nonzero_as_tuple_and_argwhere():
    a = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    x = glia.tensor(a)
    want = np.argwhere(a)
    assert glia.argwhere(x).tolist() == want.tolist()
    assert x.argwhere().tolist() == want.tolist()
    cols = glia.nonzero(x, as_tuple=True)
    assert [c.tolist() for c in cols] == [list(v) for v in np.nonzero(a)]
    assert all(str(c.dtype) == "torch.int64" for c in cols)
    assert [c.tolist() for c in glia.tensor(3.0).nonzero(as_tuple=True)] == [[0]]
    assert [c.tolist() for c in glia.tensor(0.0).nonzero(as_tuple=True)] == [[]]
    assert list(glia.zeros(5, 0).argwhere().shape) == [0, 2]


def test_narrow_copy_and_split_with_sizes():
    a = np.arange(60.0).reshape(3, 4, 5)
    x = glia.tensor(a)
    n = glia.narrow_copy(x, -1, 1, 3)
    assert n.tolist() == a[:, :, 1:4].tolist() and n.is_contiguous()
    assert x.narrow_copy(1, 0, 0).tolist() == a[:, 0:0].tolist()
    parts = glia.split_with_sizes(x, [1, 3], 1)
    assert [p.tolist() for p in parts] == [a[:, :1].tolist(), a[:, 1:].tolist()]
    assert [p.tolist() for p in x.split_with_sizes([2, 1])] == [a[:2].tolist(), a[2:].tolist()]


def test_non_tensor_arguments_fail_as_in_torch():
    x = glia.ones(3)
    with pytest.raises(TypeError, match=r"^index_add\(\): argument 'index' \(position 3\) must be Tensor, not list$"):
        glia.index_add(x, 0, [0], x)
    with pytest.raises(TypeError, match=r"^scatter_reduce\(\): argument 'reduce' \(position 5\) must be str"):
        glia.scatter_reduce(x, 0, glia.tensor([0]), x, 1)
    with pytest.raises(TypeError, match=r"^put\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        glia.put([1.0], glia.tensor([0]), x)
