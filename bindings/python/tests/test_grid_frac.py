"""F.grid_sample, F.affine_grid, F.fractional_max_pool2d / 3d and nn.FractionalMaxPool2d / 3d against torch 1.13
(tests/golden/ops/grid.json, written by tests/golden/gen_grid_frac.py), and torch.conv_tbc, through the Python binding."""

import json
import os
import warnings

import numpy as np
import pytest

import glia
import glia.nn.functional as F
from glia import nn
from _repo import ROOT

with open(os.path.join(ROOT, "tests", "golden", "ops", "grid.json")) as _f:
    FIXTURE = json.load(_f)

_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64}


def _value(v):
    if isinstance(v, str):
        return float(v.replace("inf", "Infinity")) if "inf" in v else float("nan")
    return v


def tensor(spec):
    if spec is None:
        return None
    shape = spec["shape"]
    if spec.get("transposed"):
        shape = [shape[1], shape[0]] + shape[2:]
    arr = np.array([_value(v) for v in spec["values"]], dtype=_NP[spec["dtype"]]).reshape(shape)
    t = glia.from_numpy(arr)
    return t.transpose(0, 1) if spec.get("transposed") else t


def call(op, xs, a):
    if op == "grid_sample":
        return F.grid_sample(xs[0], xs[1], mode=a.get("mode", "bilinear"), padding_mode=a.get("padding_mode", "zeros"),
                             align_corners=a.get("align_corners", False))
    if op == "conv_tbc":
        return glia.conv_tbc(xs[0], xs[1], xs[2], a.get("pad", 0))
    if op == "affine_grid":
        return F.affine_grid(xs[0], a["size"], align_corners=a.get("align_corners", False))
    fn = F.fractional_max_pool2d if op == "fractional_max_pool2d" else F.fractional_max_pool3d
    return fn(xs[0], a["kernel_size"], output_size=a.get("output_size"), output_ratio=a.get("output_ratio"),
              return_indices=a.get("return_indices", False), _random_samples=xs[1])


def close(t, want, tol):
    assert list(t.shape) == want["shape"]
    g = np.array(t.detach().tolist(), dtype=np.float64).reshape(-1)
    w = np.array([_value(v) for v in want["values"]], dtype=np.float64)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


NODES = {"grid_sample": ("GridSampler2DBackward0", "GridSampler3DBackward0"),
         "affine_grid": ("AffineGridGeneratorBackward0",) * 2,
         "fractional_max_pool2d": ("FractionalMaxPool2DBackward0",) * 2,
         "fractional_max_pool3d": ("FractionalMaxPool3DBackward0",) * 2,
         "conv_tbc": ("ConvTbcBackward0",) * 2}


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=[c["name"] for c in FIXTURE["cases"]])
def test_matches_torch(case):
    xs = [tensor(s) for s in case["inputs"]]
    grads = case.get("grads")
    if grads:
        for x, g in zip(xs, grads):
            if g is not None:
                x.requires_grad_(True)
    out = call(case["op"], xs, case["args"])
    outs = list(out) if isinstance(out, tuple) else [out]
    tol = case.get("tol", 1e-10 if case["outs"][0]["dtype"] == "float64" else 1e-5)
    for o, want in zip(outs, case["outs"]):
        assert str(o.dtype) == "torch." + want["dtype"]
        close(o, want, tol)
    if not grads:
        return
    three = outs[0].dim() == 5
    if outs[0].numel():
        assert outs[0].grad_fn.name() == NODES[case["op"]][1 if three else 0]
    total = None
    for o, w in zip(outs, case["w"]):
        if w is None:
            continue
        term = (o * glia.from_numpy(np.array([_value(v) for v in w], dtype=np.float64).reshape(list(o.shape)))).sum()
        total = term if total is None else total + term
    total.backward()
    for x, g in zip(xs, grads):
        if g is None:
            continue
        want = {"shape": list(x.shape), "values": g}
        if x.grad is None:
            assert all(v == 0 for v in g)
        else:
            close(x.grad, want, max(tol, 1e-10))


@pytest.mark.parametrize("err", FIXTURE["errors"], ids=[e["name"] for e in FIXTURE["errors"]])
def test_error_matches_torch(err):
    xs = [tensor(s) for s in err["inputs"]]
    with pytest.raises((RuntimeError, ValueError, NotImplementedError)) as info:
        call(err["op"], xs, err["args"])
    if err["message"] is not None:
        assert err["message"] in str(info.value)


def test_python_level_errors():
    x, g = glia.rand(1, 2, 3, 4), glia.rand(1, 2, 2, 2)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'"):
        F.grid_sample(x, g, mode="foo", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
                                         "'foo'"):
        F.grid_sample(x, g, padding_mode="foo", align_corners=False)
    with pytest.raises(ValueError, match=r"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                                         r"\[1, 1, 2, 2\]. Got torch.Size\(\[1, 3, 3\]\)."):
        F.affine_grid(glia.rand(1, 3, 3), [1, 1, 2, 2], align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(glia.rand(1, 2, 3), [1, 1, 2], align_corners=False)
    with pytest.raises(ValueError, match="fractional_max_pool2d requires specifying either an output_size or an "
                                         "output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(RuntimeError, match="kernel_size must either be a single Int or tuple of Ints"):
        F.fractional_max_pool2d(x, [2], output_size=2)


def test_align_corners_none_warns():
    x, g = glia.rand(1, 2, 3, 4), glia.rand(1, 2, 2, 2) * 2 - 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a = F.grid_sample(x, g)
        F.affine_grid(glia.rand(1, 2, 3), [1, 1, 2, 2])
    msgs = [str(m.message) for m in w]
    assert len([m for m in msgs if m.startswith("Default grid_sample and affine_grid behavior has changed")]) == 2
    assert np.array_equal(a.numpy(), F.grid_sample(x, g, align_corners=False).numpy())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.affine_grid(glia.rand(1, 2, 3), [1, 1, 1, 3], align_corners=True)
    assert any("unit-size grids when align_corners=True" in str(m.message) for m in w)


def test_fractional_modules():
    m = nn.FractionalMaxPool2d(2, output_ratio=0.5)
    assert repr(m) == "FractionalMaxPool2d()"
    assert list(m.state_dict()) == []
    assert repr(nn.FractionalMaxPool3d((2, 3, 2), output_size=3)) == "FractionalMaxPool3d()"
    with pytest.raises(ValueError, match="FractionalMaxPool2d requires specifying either an output size, or a "
                                         "pooling ratio"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        nn.FractionalMaxPool3d(2, output_ratio=1.5)
    # With _random_samples the module is F's with those samples (the fixture's first 2-D case).
    case = next(c for c in FIXTURE["cases"] if c["name"] == "frac2d indices")
    x, s = tensor(case["inputs"][0]), tensor(case["inputs"][1])
    a = case["args"]
    m = nn.FractionalMaxPool2d(a["kernel_size"], output_size=a["output_size"], return_indices=True, _random_samples=s)
    y, idx = m(x)
    close(y, case["outs"][0], 1e-12)
    close(idx, case["outs"][1], 0)
    # Without samples: output_ratio's size, values taken at the returned indices, one seed one result.
    x = glia.rand(2, 3, 10, 9, dtype=glia.float64)
    m = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.7), return_indices=True)
    glia.manual_seed(3)
    y1, i1 = m(x)
    glia.manual_seed(3)
    y2, i2 = m(x)
    assert list(y1.shape) == [2, 3, 5, 6]
    assert np.array_equal(y1.numpy(), y2.numpy()) and np.array_equal(i1.numpy(), i2.numpy())
    flat = x.reshape(6, 90).numpy()
    got = np.take_along_axis(flat, i1.reshape(6, 30).numpy(), 1)
    assert np.array_equal(got, y1.reshape(6, 30).numpy())
    m3 = nn.FractionalMaxPool3d(2, output_size=(2, 3, 2))
    assert list(m3(glia.rand(1, 2, 4, 5, 4)).shape) == [1, 2, 2, 3, 2]
