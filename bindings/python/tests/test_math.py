"""The unary floating math and rounding ops through the binding: torch's names
(torch.sin, x.sin(), x.sin_(), aliases), values against Python's math module and
numpy, integer promotion, grad_fn names, in-place rules and torch's messages."""

import math

import numpy as np
import pytest

import glia

XS = [-0.75, -0.3, 0.2, 0.6, 0.9]
REFERENCE = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan,
    "sinh": math.sinh, "cosh": math.cosh, "asinh": math.asinh, "atanh": math.atanh, "exp2": lambda v: 2.0 ** v,
    "erf": math.erf, "erfc": math.erfc, "trunc": math.trunc, "floor": math.floor, "ceil": math.ceil,
    "frac": lambda v: v - math.trunc(v),
}
POSITIVE = {"acosh": math.acosh, "log2": math.log2, "log10": math.log10, "lgamma": math.lgamma}


@pytest.mark.parametrize("name", sorted(REFERENCE) + sorted(POSITIVE))
def test_function_method_and_inplace_match_math(name):
    ref = REFERENCE.get(name) or POSITIVE[name]
    xs = XS if name in REFERENCE else [1.25, 1.5, 2.0, 3.5, 7.0]
    x = glia.tensor(xs, dtype=glia.float64)
    want = [ref(v) for v in xs]
    np.testing.assert_allclose(getattr(glia, name)(x).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(getattr(x, name)().numpy(), want, rtol=1e-12)
    y = x.clone()
    assert getattr(y, name + "_")() is y
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12)


def test_erfinv_and_digamma_invert_and_differentiate():
    x = glia.tensor([-0.9, -0.2, 0.0, 0.5, 0.99], dtype=glia.float64)
    np.testing.assert_allclose(glia.erf(glia.erfinv(x)).numpy(), x.numpy(), rtol=1e-12, atol=1e-15)
    # digamma(x + 1) = digamma(x) + 1 / x
    z = glia.tensor([0.3, 1.7, 4.0, 12.5], dtype=glia.float64)
    np.testing.assert_allclose((glia.digamma(z + 1) - glia.digamma(z)).numpy(), 1 / z.numpy(), rtol=1e-12)


def test_aliases_are_the_same_ops():
    x = glia.tensor([-0.5, 0.25, 2.5], dtype=glia.float64)
    assert glia.arcsin(x.clamp(-1, 1)).tolist() == glia.asin(x.clamp(-1, 1)).tolist()
    assert glia.fix(x).tolist() == [-0.0, 0.0, 2.0]
    assert x.arctan().tolist() == x.atan().tolist()


def test_integer_inputs_promote_to_float32_and_rounding_keeps_them():
    i = glia.tensor([1, 2, 3])
    assert glia.sin(i).dtype is glia.float32
    np.testing.assert_allclose(glia.sin(i).numpy(), np.sin([1.0, 2.0, 3.0]), rtol=1e-6)
    assert glia.floor(i).dtype is glia.int64 and glia.floor(i).tolist() == [1, 2, 3]
    with pytest.raises(RuntimeError, match=r"result type Float can.t be cast to the desired output type Long$"):
        i.sin_()
    with pytest.raises(RuntimeError, match="\"frac_cpu\" not implemented for 'Long'"):
        i.frac()


def test_round_with_decimals_rounds_half_to_even():
    x = glia.tensor([0.5, 1.5, 2.5, -0.5, 1234.5678], dtype=glia.float64)
    assert glia.round(x).tolist() == [0.0, 2.0, 2.0, -0.0, 1235.0]
    np.testing.assert_allclose(glia.round(x, decimals=2).numpy(), np.round(x.numpy(), 2), rtol=1e-15)
    np.testing.assert_allclose(x.round(decimals=-2).numpy(), np.round(x.numpy(), -2), rtol=1e-15)
    with pytest.raises(RuntimeError, match="\"round_cpu\" not implemented for 'Long'"):
        glia.tensor([1, 2]).round(decimals=1)


def test_logit_with_and_without_eps():
    x = glia.tensor([-0.5, 0.0, 0.25, 0.5, 1.0, 1.5], dtype=glia.float64)
    p = np.array([0.25, 0.5])
    np.testing.assert_allclose(glia.logit(x)[2:4].numpy(), np.log(p / (1 - p)), rtol=1e-14)
    got = glia.logit(x).tolist()
    assert math.isnan(got[0]) and got[1] == -math.inf and got[4] == math.inf and math.isnan(got[5])
    z = np.clip(x.numpy(), 0.1, 0.9)
    np.testing.assert_allclose(x.logit(eps=0.1).numpy(), np.log(z / (1 - z)), rtol=1e-14)


def test_grad_fn_names_and_gradients():
    x = glia.tensor([0.3, -0.4], dtype=glia.float64, requires_grad=True)
    names = {"sin": "SinBackward0", "acos": "AcosBackward0", "exp2": "Exp2Backward0", "lgamma": "LgammaBackward0",
             "erfinv": "ErfinvBackward0", "floor": "FloorBackward0", "frac": "FracBackward0"}
    for op, node in names.items():
        assert getattr(x, op)().grad_fn.name() == node
    assert x.round(decimals=1).grad_fn.name() == "RoundBackward1"
    assert x.logit(eps=0.1).grad_fn.name() == "LogitBackward0"
    y = x.sin().sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.3, -0.4]), rtol=1e-14)
    x.grad = None
    x.floor().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_inplace_on_a_leaf_that_requires_grad_is_refused():
    x = glia.tensor([0.3], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.cos_()
    y = x * 1
    y.cos_()
    assert y.grad_fn.name() == "CosBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin([0.3]), rtol=1e-6)
