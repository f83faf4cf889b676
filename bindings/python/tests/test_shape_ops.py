"""Issue 20's factories and shape ops through the binding, against torch 1.13's results
(tests/golden/shape_ops_golden.json, made by golden/gen_shape_ops_golden.py)."""

import json
import os

import numpy as np
import pytest

import glia
from _golden import HERE, assert_matches, env

with open(os.path.join(HERE, "golden", "shape_ops_golden.json")) as _f:
    GOLDEN = json.load(_f)


@pytest.mark.parametrize("expr", sorted(GOLDEN["values"]))
def test_value_matches_torch(expr):
    assert_matches(eval(expr, env()), GOLDEN["values"][expr], expr)


@pytest.mark.parametrize("expr", sorted(GOLDEN["reprs"]))
def test_repr_matches_torch(expr):
    assert repr(eval(expr, env())).split(", grad_fn=")[1] == GOLDEN["reprs"][expr].split(", grad_fn=")[1]


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


def test_diagonal_is_a_view():
    a = glia.arange(12.0).reshape(3, 4)
    d = a.diagonal(1)
    d.fill_(-1.0)
    assert a[1, 2].item() == -1.0 and a[1, 1].item() == 5.0


def test_randint_and_seed():
    glia.manual_seed(3)
    x = glia.randint(-2, 3, (1000,))
    glia.manual_seed(3)
    y = glia.randint(-2, 3, size=(1000,))
    assert x.dtype == glia.int64 and x.tolist() == y.tolist()
    assert set(x.tolist()) == {-2, -1, 0, 1, 2}
    z = glia.randint(4, (2, 3), dtype=glia.float32)
    assert z.dtype == glia.float32 and z.shape == (2, 3)


def test_in_place_triangles():
    a = glia.ones(3, 3)
    assert a.tril_(-1) is a
    assert a.sum().item() == 3.0
