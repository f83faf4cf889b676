"""Issue 20: out= wherever torch has it, the in-place variants, and small aliases, against torch 1.13
(golden/out_inplace_golden.json, made by golden/gen_out_inplace_golden.py); gradients of in-place
variants by finite differences."""

import json
import os
import warnings

import numpy as np
import pytest

import glia
from _golden import HERE, assert_matches, env

with open(os.path.join(HERE, "golden", "out_inplace_golden.json")) as _f:
    GOLDEN = json.load(_f)


def genv():
    e = env()
    exec(GOLDEN["helpers"], e)
    return e


def check(got, want, where):
    if "list" in want:
        assert isinstance(got, (tuple, list)) and len(got) == len(want["list"]), "%s: %r" % (where, got)
        for k, (g, w) in enumerate(zip(got, want["list"])):
            check(g, w, "%s[%d]" % (where, k))
    else:
        if "pytuple" in want and isinstance(got, glia.Size):
            got = tuple(got)
        assert_matches(got, want, where)


@pytest.mark.parametrize("expr", sorted(GOLDEN["values"]))
def test_value_matches_torch(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = eval(expr, genv())
    check(got, GOLDEN["values"][expr], expr)


@pytest.mark.parametrize("expr", sorted(GOLDEN["reprs"]))
def test_grad_fn_matches_torch(expr):
    assert repr(eval(expr, genv())).split("grad_fn=")[1] == GOLDEN["reprs"][expr].split("grad_fn=")[1]


@pytest.mark.parametrize("expr", sorted(GOLDEN["errors"]))
def test_error_matches_torch(expr):
    want = GOLDEN["errors"][expr]
    e = genv()
    with pytest.raises(Exception) as info:
        eval(expr, e)
    assert type(info.value).__name__ == want["type"]
    assert want["message"] in str(info.value)


@pytest.mark.parametrize("expr", sorted(GOLDEN["grads"]))
def test_gradient_matches_torch(expr):
    case = GOLDEN["grads"][expr]
    e = genv()
    for n in case["leaves"]:
        e[n] = e[n].clone().double().requires_grad_(True)
    y = eval(expr, e)
    (y * glia.tensor(np.array(case["weight"], dtype=np.float64))).sum().backward()
    for n in case["leaves"]:
        np.testing.assert_allclose(np.array(e[n].grad.tolist()), np.array(case["grads"][n]), rtol=1e-9, atol=1e-9,
                                   err_msg=expr)


def test_out_names_are_torchs():
    from glia import _out_inplace

    assert sorted(_out_inplace._OUT_NAMES) == GOLDEN["out_names"]
    missing = [n for n in GOLDEN["out_names"]
               if hasattr(glia, n) and not getattr(getattr(glia, n), "_glia_with_out", False)]
    assert missing == []


def test_every_out_function_writes_into_out():
    # A wrong-result defect before issue 20: out= was accepted and ignored.
    a = glia.arange(6.0).reshape(2, 3)
    for call in (lambda o: glia.zeros(2, out=o), lambda o: glia.ones(2, 3, out=o), lambda o: glia.cat([a, a], out=o),
                 lambda o: glia.stack([a, a], out=o), lambda o: glia.exp(a, out=o), lambda o: glia.sum(a, 0, out=o),
                 lambda o: glia.rand(4, out=o), lambda o: glia.full((3,), 2.0, out=o)):
        o = glia.empty(0)
        r = call(o)
        assert r is o and o.numel() > 0


def _numeric_grad(f, x, eps=1e-6):
    x0 = np.array(x.tolist(), dtype=np.float64)
    g = np.zeros_like(x0)
    it = np.nditer(x0, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        for sgn in (1, -1):
            xp = x0.copy()
            xp[idx] += sgn * eps
            g[idx] += sgn * f(glia.tensor(xp)).sum().item()
    return g / (2 * eps)


@pytest.mark.parametrize("name,fn", [
    ("exp_", lambda x: (x * 1).exp_()), ("sigmoid_", lambda x: (x * 2).sigmoid_()),
    ("atan2_", lambda x: (x * 1).atan2_(x.detach() * 0 + 0.7)), ("cumprod_", lambda x: (x * 1).cumprod_(1)),
    ("square_ twice", lambda x: (x + 0).square_().square_()), ("t_", lambda x: (x * 1).t_() * glia.arange(6.0).reshape(3, 2)),
    ("xlogy_", lambda x: (x * 1).xlogy_(glia.tensor(np.linspace(0.5, 2.0, 6).reshape(2, 3)))), ("fill_diagonal_", lambda x: (x * 3).fill_diagonal_(1.0)),
    ("clamp_min_", lambda x: (x * 1).clamp_min_(0.05)), ("unsqueeze_", lambda x: (x * 1).unsqueeze_(0).exp()),
])
def test_inplace_gradient_by_finite_differences(name, fn):
    x0 = np.linspace(-0.9, 1.3, 6).reshape(2, 3)
    x = glia.tensor(x0, requires_grad=True)
    fn(x).sum().backward()
    np.testing.assert_allclose(np.array(x.grad.tolist()), _numeric_grad(fn, x), rtol=1e-6, atol=1e-7, err_msg=name)


def test_resize_warning_is_a_user_warning():
    with pytest.warns(UserWarning, match=r"since it had shape \[5\], which does not match the required output shape \[2\]"):
        glia.exp(glia.zeros(2), out=glia.zeros(5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        glia.exp(glia.zeros(2), out=glia.zeros(0))  # an empty out is resized silently


def test_failed_out_write_changes_nothing():
    o = glia.full((3,), 7, dtype=glia.int64)
    v = o._version
    with pytest.raises(RuntimeError, match="can't be cast"):
        glia.exp(glia.zeros(3), out=o)
    assert o.tolist() == [7, 7, 7] and o._version == v


def test_inplace_on_nonleaf_keeps_history_for_later_ops():
    w = glia.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = w * 2
    y.exp_()
    y.mul_(3)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.tolist(), (6 * np.exp(2 * np.array([0.5, -1.0, 2.0]))).tolist(), rtol=1e-6)
