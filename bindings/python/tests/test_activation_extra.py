"""The activations of issue 21 through glia.nn and glia.nn.functional against torch 1.13
(tests/golden/gen_activation_extra.py's fixtures: ops/activation_extra.json and
modules/activation_extra.json): values, input and parameter gradients, reprs, state-dict keys,
errors, and torch's in-place autograd (node names, versions, the leaf rule)."""

import json
import math
import os

import numpy as np
import pytest

import glia
import glia.nn.functional as F
from glia import nn

from _repo import ROOT

GOLDEN = os.path.join(ROOT, "tests", "golden")
with open(os.path.join(GOLDEN, "ops", "activation_extra.json")) as _f:
    OPS = json.load(_f)
with open(os.path.join(GOLDEN, "modules", "activation_extra.json")) as _f:
    MODULES = json.load(_f)

_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64, "uint8": np.uint8,
       "bool": np.bool_}


def _num(v):
    return float(v) if isinstance(v, str) else v


def tensor(spec):
    a = np.array([_num(v) for v in spec["values"]], dtype=_NP[spec["dtype"]])
    if spec.get("transposed"):
        s = list(spec["shape"])
        s[0], s[1] = s[1], s[0]
        return glia.tensor(a.reshape(s)).transpose(0, 1)
    return glia.tensor(a.reshape(spec["shape"]))


def expect(got, spec, tol, what):
    assert list(got.shape) == spec["shape"], what
    assert str(got.dtype) == "torch." + spec["dtype"], what
    g = np.array(got.detach().tolist(), dtype=np.float64).reshape(-1)
    w = np.array([_num(v) for v in spec["values"]], dtype=np.float64)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


def _clone_then(f):
    return lambda xs, a: f(xs[0].clone(), a)


CALLS = {
    "prelu": lambda xs, a: F.prelu(xs[0], xs[1]),
    "rrelu": lambda xs, a: F.rrelu(xs[0], a.get("lower", 1 / 8), a.get("upper", 1 / 3)),
    "glu": lambda xs, a: F.glu(xs[0], a["dim"]),
    "celu": lambda xs, a: F.celu(xs[0], a.get("alpha", 1.0)),
    "selu": lambda xs, a: F.selu(xs[0]),
    "softmin": lambda xs, a: F.softmin(xs[0], a["dim"]),
    "softshrink": lambda xs, a: F.softshrink(xs[0], a.get("lambd", 0.5)),
    "hardshrink": lambda xs, a: F.hardshrink(xs[0], a.get("lambd", 0.5)),
    "tanhshrink": lambda xs, a: F.tanhshrink(xs[0]),
    "threshold": lambda xs, a: F.threshold(xs[0], a["threshold"], a["value"]),
    "relu6": lambda xs, a: F.relu6(xs[0]),
    "hardsigmoid": lambda xs, a: F.hardsigmoid(xs[0]),
    "mish": lambda xs, a: F.mish(xs[0]),
    "logsigmoid": lambda xs, a: F.logsigmoid(xs[0]),
    "leaky_relu_": _clone_then(lambda y, a: F.leaky_relu(y, a.get("negative_slope", 0.01), inplace=True)),
    "celu_": _clone_then(lambda y, a: F.celu_(y, a.get("alpha", 1.0))),
    "selu_": _clone_then(lambda y, a: F.selu(y, inplace=True)),
    "hardtanh_": _clone_then(lambda y, a: F.hardtanh_(y, a.get("min_val", -1.0), a.get("max_val", 1.0))),
    "threshold_": _clone_then(lambda y, a: F.threshold(y, a["threshold"], a["value"], inplace=True)),
    "rrelu_": _clone_then(lambda y, a: F.rrelu_(y, a.get("lower", 1 / 8), a.get("upper", 1 / 3))),
    "hardsigmoid_": _clone_then(lambda y, a: F.hardsigmoid(y, inplace=True)),
    "hardswish_": _clone_then(lambda y, a: F.hardswish(y, inplace=True)),
    "mish_": _clone_then(lambda y, a: F.mish(y, inplace=True)),
    "silu_": _clone_then(lambda y, a: F.silu(y, inplace=True)),
}
# elu_ with torch's F.elu_ arguments only (scale and input_scale are glia_elu_'s extras).
CALLS["elu_"] = _clone_then(lambda y, a: F.elu_(y, a.get("alpha", 1.0)))

TOL = {"float64": 1e-10, "float32": 1e-5, "float16": 2e-3}
CASES = [c for c in OPS["cases"] if all(i is None or i["dtype"] != "bfloat16" for i in c["inputs"])
         and not (c["op"] == "elu_" and (c["args"].get("scale", 1) != 1 or c["args"].get("input_scale", 1) != 1))]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_functional_golden(case):
    xs = [tensor(i) for i in case["inputs"]]
    grads = "grads" in case
    if grads:
        xs = [x.detach().requires_grad_(True) for x in xs]
    y = CALLS[case["op"]](xs, case["args"])
    tol = case.get("tol", TOL.get(case["outs"][0]["dtype"], 0))
    expect(y, case["outs"][0], tol, "out")
    if grads:
        w = glia.tensor(np.array([_num(v) for v in case["w"][0]], dtype=np.float64).reshape(case["outs"][0]["shape"]))
        (y * w).sum().backward()
        for x, g in zip(xs, case["grads"]):
            expect(x.grad, {"shape": list(x.shape), "dtype": "float64", "values": g}, 1e-10, "grad")


ERRORS = [e for e in OPS["errors"] if e["op"] in CALLS]


@pytest.mark.parametrize("case", ERRORS, ids=[e["name"] for e in ERRORS])
def test_functional_errors(case):
    xs = [tensor(i) for i in case["inputs"]]
    with pytest.raises(Exception) as info:
        CALLS[case["op"]](xs, case["args"])
    if case["message"]:
        assert case["message"] in str(info.value)


def _module(name, args):
    return getattr(nn, name)(**args)


MCASES = MODULES["cases"]


@pytest.mark.parametrize("case", MCASES, ids=[c["name"] for c in MCASES])
def test_module_golden(case):
    m = _module(case["module"], case["args"])
    if case["params"]:
        m = m.double() if case["dtype"] == "float64" else m
    assert repr(m) == case["repr"]
    assert list(m.state_dict()) == case["keys"]
    with glia.no_grad():
        for p in case["params"]:
            getattr(m, p["name"]).copy_(tensor(p["value"]))
    m.train(case["train"])
    xs = [tensor(x).requires_grad_(True) for x in case["inputs"]]
    y = m(*[x.clone() if case["inplace"] else x for x in xs])
    expect(y, case["out"], case["tol"], "out")
    (y * tensor(case["w"])).sum().backward()
    for i, x in enumerate(xs):
        expect(x.grad, case["grads"]["input%d" % i], case["tol"], "grad input")
    for p in case["params"]:
        expect(getattr(m, p["name"]).grad, case["grads"][p["name"]], case["tol"], "grad " + p["name"])


def test_module_errors():
    for e in MODULES["errors"]:
        with pytest.raises(Exception) as info:
            _module(e["module"], e["args"])
        assert e["message"] in str(info.value), e["name"]
    for e in MODULES["forward_errors"]:
        m = _module(e["module"], e["args"])
        with pytest.raises(Exception) as info:
            m(tensor(e["inputs"][0]))
        assert e["message"] in str(info.value), e["name"]


def test_inplace_autograd():
    x = glia.tensor([1.5, -1.0, 0.5], dtype=glia.float64, requires_grad=True)
    y = x * 1
    r = F.leaky_relu(y, 0.2, inplace=True)
    assert r is y and y.grad_fn.name() == "LeakyReluBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.2, 1.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        F.mish(x, inplace=True)
    # the module form: ReLU(inplace=True) overwrites its input
    z = x.detach().clone()
    out = nn.ReLU(inplace=True)(z)
    assert z.tolist() == [1.5, 0.0, 0.5] and out.tolist() == z.tolist()
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"


def test_rrelu_training_slopes():
    glia.manual_seed(3)
    x = -glia.ones(500, dtype=glia.float64)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    s = -np.array(y.tolist())
    assert s.min() >= 0.1 and s.max() <= 0.3 and s.max() - s.min() > 0.15
    glia.manual_seed(3)
    assert F.rrelu(x, 0.1, 0.3, training=True).tolist() == y.tolist()
    assert math.isclose(F.rrelu(x, 0.1, 0.3).tolist()[0], -0.2)
