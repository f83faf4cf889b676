"""The norms, dropouts and distances of issue 21 through glia.nn and glia.nn.functional against torch 1.13
(tests/golden/gen_nnmisc.py's fixtures: ops/nnmisc.json and modules/nnmisc.json): values, input and parameter
gradients, running statistics, reprs, state-dict keys, errors; the dropouts' masks, scales and eval identity."""

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
with open(os.path.join(GOLDEN, "ops", "nnmisc.json")) as _f:
    OPS = json.load(_f)
with open(os.path.join(GOLDEN, "modules", "nnmisc.json")) as _f:
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




def _stats(xs, a, key):
    if key not in a:
        return None
    return glia.tensor(np.array(a[key], dtype=np.float64)).to(xs[0].dtype)


def _instance_norm(xs, a):
    rm, rv = _stats(xs, a, "running_mean"), _stats(xs, a, "running_var")
    y = F.instance_norm(xs[0], rm, rv, xs[1], xs[2], use_input_stats=a.get("use_input_stats", True),
                        momentum=a.get("momentum", 0.1), eps=a.get("eps", 1e-5))
    return [y] + [t for t in (rm, rv) if t is not None]


def _drop(f):
    return lambda xs, a: f(xs[0], a.get("p", 0.5), training=a.get("training", True))


CALLS = {
    "instance_norm": _instance_norm,
    "local_response_norm": lambda xs, a: F.local_response_norm(xs[0], a["size"], a.get("alpha", 1e-4),
                                                               a.get("beta", 0.75), a.get("k", 1.0)),
    "cosine_similarity": lambda xs, a: F.cosine_similarity(xs[0], xs[1], a.get("dim", 1), a.get("eps", 1e-8)),
    "pairwise_distance": lambda xs, a: F.pairwise_distance(xs[0], xs[1], a.get("p", 2.0), a.get("eps", 1e-6),
                                                           a.get("keepdim", False)),
    "pdist": lambda xs, a: F.pdist(xs[0], a.get("p", 2.0)),
    "bilinear": lambda xs, a: F.bilinear(xs[0], xs[1], xs[2], xs[3]),
    "softsign": lambda xs, a: F.softsign(xs[0]),
    "dropout1d": _drop(F.dropout1d),
    "dropout2d": _drop(F.dropout2d),
    "dropout3d": _drop(F.dropout3d),
    "alpha_dropout": _drop(F.alpha_dropout),
    "feature_alpha_dropout": _drop(F.feature_alpha_dropout),
}

TOL = {"float64": 1e-10, "float32": 1e-5}
CASES = OPS["cases"]


def _tensor_or_none(i):
    return None if i is None else tensor(i)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_functional_golden(case):
    xs = [_tensor_or_none(i) for i in case["inputs"]]
    grads = "grads" in case
    if grads:
        xs = [None if x is None else x.detach().requires_grad_(True) for x in xs]
    ys = CALLS[case["op"]](xs, case["args"])
    ys = ys if isinstance(ys, list) else [ys]
    for y, want in zip(ys, case["outs"]):
        expect(y, want, case.get("tol", TOL.get(want["dtype"], 0)), "out")
    if grads:
        w = glia.tensor(np.array([_num(v) for v in case["w"][0]], dtype=np.float64).reshape(case["outs"][0]["shape"]))
        (ys[0] * w).sum().backward()
        for x, g in zip(xs, case["grads"]):
            if g is not None:
                expect(x.grad, {"shape": list(x.shape), "dtype": "float64", "values": g}, 1e-10, "grad")


ERRORS = OPS["errors"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", ERRORS, ids=[e["name"] for e in ERRORS])
def test_functional_errors(case):
    xs = [_tensor_or_none(i) for i in case["inputs"]]
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
    if case["dtype"] == "float64":
        m = m.double()
    assert repr(m) == case["repr"]
    assert list(m.state_dict()) == case["keys"]
    with glia.no_grad():
        for p in case["params"]:
            getattr(m, p["name"]).copy_(tensor(p["value"]))
    m.train(case["train"])
    inplace = case["args"].get("inplace", False)
    xs = [tensor(x).requires_grad_(True) for x in case["inputs"]]
    for _ in range(case["calls"]):
        y = m(*[x.clone() if inplace else x for x in xs])
    expect(y, case["out"], case["tol"], "out")
    sd = m.state_dict()  # (after .double(), attribute access still shows the old buffers: a binding issue)
    for b in case["buffers"]:
        expect(sd[b["name"]], b["value"], case["tol"], "buffer " + b["name"])
    (y * tensor(case["w"])).sum().backward()
    for i, x in enumerate(xs):
        expect(x.grad, case["grads"]["input%d" % i], case["tol"], "grad input")
    for p in case["params"]:
        expect(getattr(m, p["name"]).grad, case["grads"][p["name"]], case["tol"], "grad " + p["name"])


def test_module_errors():
    for e in MODULES["errors"]:
        with pytest.raises(ValueError) as info:
            _module(e["module"], e["args"])
        assert e["message"] in str(info.value), e["name"]
    for e in MODULES["forward_errors"]:
        m = _module(e["module"], e["args"])
        with pytest.raises(Exception) as info:
            m(tensor(e["inputs"][0]))
        assert e["message"] in str(info.value), e["name"]


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d"])
def test_feature_dropout_masks_channels(name):
    f = getattr(F, name)
    shape = {"dropout1d": (20, 200, 3), "dropout2d": (20, 200, 2, 2), "dropout3d": (20, 200, 1, 2, 2)}[name]
    x = glia.ones(*shape, dtype=glia.float64) * 3
    y = np.array(f(x, 0.75, training=True).tolist()).reshape(20 * 200, -1)
    first = y[:, :1]
    assert np.all(y == first), "a channel is not one draw"
    assert set(np.unique(first)) <= {0.0, 12.0}
    frac = float((first == 0).mean())
    assert abs(frac - 0.75) < 5 * math.sqrt(0.75 * 0.25 / 4000)
    glia.manual_seed(5)
    a = f(x, 0.5, training=True).tolist()
    glia.manual_seed(5)
    assert f(x, 0.5, training=True).tolist() == a


def test_alpha_dropout_scale_and_moments():
    alpha, p = 1.7580993408473766, 0.3
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = alpha * a * p
    x = glia.tensor(np.where(np.arange(100000) % 2 == 0, -1.0, 1.0))
    y = np.array(F.alpha_dropout(x, p, training=True).tolist())
    xv = np.array(x.tolist())
    dropped = np.isclose(y, -alpha * a + b, rtol=0, atol=1e-12)
    assert np.allclose(y[~dropped], a * xv[~dropped] + b, rtol=0, atol=1e-12)
    assert abs(dropped.mean() - p) < 5 * math.sqrt(p * (1 - p) / 100000)
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.03
    assert F.alpha_dropout(x, p).tolist() == x.tolist()  # torch's training default is False


def test_dropout_inplace_and_eval_identity():
    x = glia.ones(50, 40, 3, dtype=glia.float64)
    r = F.dropout1d(x, 0.5, training=True, inplace=True)
    assert r is x
    v = np.array(x.tolist())
    assert set(np.unique(v)) <= {0.0, 2.0} and 0 < (v == 0).mean() < 1
    z = glia.ones(2, 3, 4)
    assert F.dropout2d(z, 0.5, training=False).tolist() == z.tolist()
    assert F.alpha_dropout(z, 0.5, training=False, inplace=True) is z
    m = nn.Dropout3d(0.5, inplace=True)
    assert repr(m) == "Dropout3d(p=0.5, inplace=True)"
    m.eval()
    w = glia.ones(2, 2, 2, 2, 2)
    assert m(w).tolist() == w.tolist()
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(glia.ones(2, 3, 4), 0.5, training=False)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.feature_alpha_dropout(z, 1.5)


def test_instance_norm_running_stats_and_cosine_zero_grad():
    m = nn.InstanceNorm1d(2, track_running_stats=True).double()
    x = glia.tensor(np.arange(12, dtype=np.float64).reshape(2, 2, 3))
    m(x)
    sd = m.state_dict()
    assert sd["num_batches_tracked"].tolist() == 0
    assert np.allclose(np.array(sd["running_mean"].tolist()), [0.1 * (1.0 + 7.0) / 2, 0.1 * (4.0 + 10.0) / 2])
    a = glia.zeros(1, 3, dtype=glia.float64, requires_grad=True)
    bb = glia.tensor([[1.0, 2.0, 2.0]], dtype=glia.float64, requires_grad=True)
    F.cosine_similarity(a, bb).sum().backward()
    assert np.allclose(np.array(a.grad.tolist()), np.array([[1.0, 2.0, 2.0]]) / 3 / 1e-8)
    assert bb.grad.tolist() == [[0.0, 0.0, 0.0]]
