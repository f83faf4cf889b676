"""Padding, upsampling and rearrangement modules and functionals against torch 1.13
(tests/golden/modules/resample.json, written by tests/golden/gen_resample.py)."""

import json
import os

import numpy as np
import pytest

import glia
import glia.nn.functional as F
from glia import nn
from _repo import ROOT

with open(os.path.join(ROOT, "tests", "golden", "modules", "resample.json")) as _f:
    MODULES = json.load(_f)

_NP = {"float32": np.float32, "float64": np.float64}


def _value(v):
    return float(v) if not isinstance(v, str) else float(v.replace("inf", "Infinity")) if "inf" in v else float("nan")


def from_json(t):
    arr = np.array([_value(v) for v in t["values"]], dtype=_NP[t["dtype"]]).reshape(t["shape"])
    return glia.from_numpy(arr)


def build(module, args):
    cls = getattr(nn, module)
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in args.items()}
    return cls(**kw)


def close(t, want, tol):
    g = t.detach().numpy().astype(np.float64)
    w = np.array([_value(v) for v in want["values"]]).reshape(want["shape"])
    assert list(t.shape) == want["shape"]
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", MODULES["cases"], ids=[c["name"] for c in MODULES["cases"]])
def test_padding_module_matches_torch(case):
    m = build(case["module"], case["args"])
    if case["dtype"] == "float32":
        m = m.float()
    assert repr(m) == case["repr"]
    assert list(m.state_dict()) == case["keys"]
    x = from_json(case["inputs"][0]).requires_grad_(True)
    y = m(x)
    close(y, case["out"], case["tol"])
    assert y.grad_fn.name() == case["node"]
    y.backward(from_json(case["w"]))
    close(x.grad, case["grads"]["input0"], case["tol"])


@pytest.mark.parametrize("err", MODULES["forward_errors"], ids=[e["name"] for e in MODULES["forward_errors"]])
def test_padding_module_forward_error(err):
    m = build(err["module"], err["args"]) if "size" not in err["args"] else getattr(nn, err["module"])(**err["args"])
    with pytest.raises((RuntimeError, ValueError, NotImplementedError)) as ei:
        m(from_json(err["inputs"][0]))
    assert err["message"] in str(ei.value)


def test_padding_module_attributes():
    assert nn.ReflectionPad2d(1).padding == (1, 1, 1, 1)
    assert nn.ConstantPad1d((1, 2), 0.5).padding == (1, 2)
    assert nn.ConstantPad3d(2, 1.0).value == 1.0
    assert nn.ZeroPad2d((1, 0, 2, 0)).padding == (1, 0, 2, 0)
    m = nn.Sequential(nn.ReplicationPad1d(2))
    assert repr(m) == "Sequential(\n  (0): ReplicationPad1d((2, 2))\n)"


with open(os.path.join(ROOT, "tests", "golden", "ops", "resample.json")) as _f:
    OPS = json.load(_f)


def operand(spec):
    """golden.py's operand encoding (a transposed operand is the transpose of the stored values)."""
    if spec["transposed"]:
        shape = [spec["shape"][1], spec["shape"][0]] + spec["shape"][2:]
        return from_json(dict(spec, shape=shape)).transpose(0, 1)
    return from_json(spec)


def interpolate_kwargs(args):
    kw = dict(args)
    for k in ("size", "scale_factor"):
        if isinstance(kw.get(k), list):
            kw[k] = tuple(kw[k])
    return kw


FLOAT_CASES = [c for c in OPS["cases"] if c["inputs"][0]["dtype"] in ("float32", "float64")]


@pytest.mark.parametrize("case", FLOAT_CASES, ids=[c["name"] for c in FLOAT_CASES])
def test_op_matches_torch(case):
    x = operand(case["inputs"][0])
    grads = "grads" in case
    if grads:
        x.requires_grad_(True)
    y = getattr(F, case["op"])(x, **interpolate_kwargs(case["args"]))
    want = case["outs"][0]
    tol = 1e-10 if want["dtype"] == "float64" else 2e-5
    close(y, want, tol)
    if grads:
        y.backward(from_json(dict(want, values=case["w"][0])))
        close(x.grad, dict(case["inputs"][0], values=case["grads"][0], shape=list(x.shape)), tol)


@pytest.mark.parametrize("err", OPS["errors"], ids=[e["name"] for e in OPS["errors"]])
def test_op_error(err):
    spec = err["inputs"][0]
    arr = np.array(spec["values"]).reshape(spec["shape"])
    x = glia.from_numpy(arr.astype({"float64": np.float64, "int64": np.int64, "int32": np.int32}[spec["dtype"]]))
    # torch's F.interpolate raises ValueError / NotImplementedError for its Python-level checks.
    want = RuntimeError
    if err["op"] == "interpolate":
        want = {"GLIA_ERR_INVALID_ARGUMENT": ValueError, "GLIA_ERR_UNSUPPORTED": NotImplementedError}.get(
            err["code"], RuntimeError)
    with pytest.raises(want) as ei:
        getattr(F, err["op"])(x, **interpolate_kwargs(err["args"]))
    assert err["message"] in str(ei.value)


def test_channel_shuffle_module():
    m = nn.ChannelShuffle(3)
    assert repr(m) == "ChannelShuffle(groups=3)" and m.groups == 3
    y = m(glia.from_numpy(np.arange(6, dtype=np.float64).reshape(1, 6, 1)))
    assert y.reshape(-1).tolist() == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]
    assert nn.PixelShuffle(2).upscale_factor == 2 and nn.PixelUnshuffle(3).downscale_factor == 3


def test_upsample_functionals():
    x = glia.from_numpy(np.arange(12, dtype=np.float64).reshape(1, 1, 3, 4))
    with pytest.warns(UserWarning, match="upsample_bilinear is deprecated"):
        y = F.upsample_bilinear(x, size=(5, 7))
    np.testing.assert_allclose(y.numpy(), F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True).numpy())
    with pytest.warns(UserWarning, match="upsample_nearest is deprecated"):
        y = F.upsample_nearest(x, scale_factor=2)
    assert list(y.shape) == [1, 1, 6, 8]
    with pytest.warns(UserWarning, match="upsample is deprecated"):
        y = F.upsample(x, scale_factor=2, mode="bicubic")
    np.testing.assert_allclose(y.numpy(), F.interpolate(x, scale_factor=2, mode="bicubic").numpy())
    with pytest.raises(NotImplementedError):
        F.interpolate(x, size=2, antialias=True)
    m = nn.Upsample(scale_factor=(2, 3), mode="bilinear")
    assert m.scale_factor == (2.0, 3.0) and m.size is None and m.name == "Upsample"
    assert list(m(x).shape) == [1, 1, 6, 12]
