"""Issue 21's 1-D and 3-D pools through the binding (F.max_pool1d, nn.AvgPool3d, ...), against torch
1.13's results (tests/golden/pooling_golden.json, made by golden/gen_pooling_golden.py)."""

import json
import os

import numpy as np
import pytest

import glia
import glia.nn as nn
import glia.nn.functional as F
from _golden import HERE, assert_matches, env

with open(os.path.join(HERE, "golden", "pooling_golden.json")) as _f:
    GOLDEN = json.load(_f)


@pytest.mark.parametrize("expr", sorted(GOLDEN["values"]))
def test_value_matches_torch(expr):
    assert_matches(eval(expr, env()), GOLDEN["values"][expr], expr)


@pytest.mark.parametrize("expr", sorted(GOLDEN["reprs"]))
def test_module_repr_matches_torch(expr):
    assert repr(eval(expr, env())) == GOLDEN["reprs"][expr]


@pytest.mark.parametrize("expr", sorted(GOLDEN["errors"]))
def test_error_matches_torch(expr):
    want = GOLDEN["errors"][expr]
    with pytest.raises(Exception) as info:
        eval(expr, env())
    assert type(info.value).__name__ == want["type"]
    assert want["message"] in str(info.value)


@pytest.mark.parametrize("expr", sorted(GOLDEN["grads"]))
def test_gradient_matches_torch(expr):
    case = GOLDEN["grads"][expr]
    e = env()
    for n in case["leaves"]:
        e[n] = e[n].clone().requires_grad_(True)
    y = eval(expr, e)
    (y * glia.tensor(np.array(case["weight"], dtype=np.float32))).sum().backward()
    for n in case["leaves"]:
        np.testing.assert_allclose(np.array(e[n].grad.tolist()), np.array(case["grads"][n]), rtol=1e-5, atol=1e-6)


def test_names_are_exported():
    for name in ("MaxPool1d", "AvgPool1d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d",
                 "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "MaxUnpool1d",
                 "MaxUnpool2d", "MaxUnpool3d"):
        assert name in nn.__all__ and hasattr(nn, name)
    for name in ("max_pool1d", "avg_pool1d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool3d",
                 "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d",
                 "max_unpool3d", "lp_pool1d", "lp_pool2d"):
        assert name in F.__all__


def test_indices_are_int64_positions():
    x = glia.tensor([[[1.0, 5.0, 2.0, 7.0, 3.0, 3.0]]])
    y, i = F.max_pool1d(x, 2, return_indices=True)
    assert y.tolist() == [[[5.0, 7.0, 3.0]]] and i.dtype == glia.int64 and i.tolist() == [[[1, 3, 4]]]
    v = glia.arange(8.0).reshape(1, 1, 2, 2, 2)
    y, i = F.max_pool3d(v, 2, return_indices=True)
    assert y.tolist() == [[[[[7.0]]]]] and i.tolist() == [[[[[7]]]]]


def test_unpool_round_trip():
    x = glia.arange(32.0).reshape(1, 2, 4, 4)
    y, i = F.max_pool2d(x, 2, return_indices=True)
    u = F.max_unpool2d(y, i, 2)
    assert u.shape == (1, 2, 4, 4)
    assert F.max_pool2d(u, 2).tolist() == y.tolist()
    assert u.sum().item() == y.sum().item()


def test_binding_argument_errors():
    x = glia.ones(1, 2, 4, 4, 4)
    with pytest.raises(ValueError, match="triple"):
        F.max_pool3d(x, (2, 2))
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool3d(x, 2, divisor_override=0)
    with pytest.raises(ValueError, match="Input dimension should be at least 4"):
        F.adaptive_avg_pool3d(glia.ones(2, 3, 4), (2, 2, 2))
    with pytest.raises(NotImplementedError):
        nn.MaxPool3d(2, return_indices=True)
