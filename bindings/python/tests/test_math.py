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


A = [1.5, -2.25, 0.5, -0.0, 7.0]
B = [0.75, 1.5, -2.0, 3.0, -2.5]


@pytest.mark.parametrize("name,ref", [("atan2", np.arctan2), ("hypot", np.hypot), ("copysign", np.copysign),
                                      ("fmod", np.fmod), ("remainder", np.remainder), ("fmax", np.fmax),
                                      ("fmin", np.fmin)])
def test_binary_math_matches_numpy(name, ref):
    a, b = glia.tensor(A, dtype=glia.float64), glia.tensor(B, dtype=glia.float64)
    np.testing.assert_allclose(getattr(glia, name)(a, b).numpy(), ref(np.array(A), np.array(B)), rtol=1e-14)
    np.testing.assert_allclose(getattr(a, name)(b).numpy(), ref(np.array(A), np.array(B)), rtol=1e-14)


def test_remainder_and_fmod_signs_and_operators():
    a, b = glia.tensor([7, -7, 7, -7]), glia.tensor([3, 3, -3, -3])
    assert (a % b).tolist() == [1, 2, -2, -1]  # Python's rule: the divisor's sign
    assert glia.fmod(a, b).tolist() == [1, -1, 1, -1]
    assert (5 % glia.tensor([3, -3])).tolist() == [2, -1]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        a % glia.tensor([1, 0, 1, 1])


def test_floor_divide_and_remainder_record_torchs_nodes():
    a = glia.tensor([1.0, 2.0], requires_grad=True)
    b = glia.tensor([3.0, -1.0], requires_grad=True)
    r = a % b
    assert r.grad_fn.name() == "RemainderBackward1" and r.tolist() == [1.0, 0.0]
    assert (a // b).grad_fn.name() == "DivBackward2"
    r.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [-0.0, 2.0]


def test_xlogy_fmax_and_nan_to_num():
    x = glia.tensor([0.0, 0.0, 2.0, 3.0], dtype=glia.float64)
    y = glia.tensor([0.0, math.nan, 5.0, 0.5], dtype=glia.float64)
    got = glia.xlogy(x, y).tolist()
    assert got[0] == 0.0 and math.isnan(got[1]) and got[2] == pytest.approx(2 * math.log(5)) and got[3] < 0
    assert glia.xlogy(2, glia.tensor([1.0])).tolist() == [0.0]
    assert glia.fmax(glia.tensor([math.nan, 1.0]), glia.tensor([2.0, math.nan])).tolist() == [2.0, 1.0]
    z = glia.tensor([math.nan, math.inf, -math.inf, 1.5])
    np.testing.assert_array_equal(glia.nan_to_num(z).numpy(), np.nan_to_num(z.numpy()))
    assert z.nan_to_num(nan=1.0, posinf=2.0, neginf=-3.0).tolist() == [1.0, 2.0, -3.0, 1.5]


def test_bitwise_ops_on_integers_and_bools():
    a, b = glia.tensor([12, -7, 0, 255]), glia.tensor([10, 3, -1, 15])
    na, nb = np.array([12, -7, 0, 255]), np.array([10, 3, -1, 15])
    assert (a & b).tolist() == (na & nb).tolist()
    assert (a | b).tolist() == (na | nb).tolist()
    assert (a ^ b).tolist() == (na ^ nb).tolist()
    assert (~a).tolist() == (~na).tolist()
    assert (a & 6).tolist() == (na & 6).tolist()
    assert (a << 2).tolist() == (na << 2).tolist() and (a >> 1).tolist() == (na >> 1).tolist()
    assert glia.bitwise_not(glia.tensor([True, False])).tolist() == [False, True]
    with pytest.raises(RuntimeError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        glia.ones(2) & glia.ones(2)


def test_predicates_and_isclose():
    v = [0.0, math.nan, math.inf, -math.inf, 1.5]
    x, nx = glia.tensor(v), np.array(v, dtype=np.float32)
    assert x.isnan().tolist() == np.isnan(nx).tolist()
    assert glia.isinf(x).tolist() == np.isinf(nx).tolist()
    assert glia.isfinite(x).tolist() == np.isfinite(nx).tolist()
    assert glia.isposinf(x).tolist() == np.isposinf(nx).tolist()
    assert glia.isneginf(x).tolist() == np.isneginf(nx).tolist()
    assert glia.isfinite(glia.tensor([1, 2])).tolist() == [True, True]
    a = glia.tensor([1.0, 1.0 + 1e-6, 1.001, math.nan])
    b = glia.tensor([1.0, 1.0, 1.0, math.nan])
    assert glia.isclose(a, b).tolist() == np.isclose(a.numpy(), b.numpy()).tolist()
    assert a.isclose(b, equal_nan=True).tolist() == [True, True, False, True]


def test_lerp_with_a_number_and_a_tensor_weight():
    s = glia.tensor([1.0, 2.0, 3.0], dtype=glia.float64, requires_grad=True)
    e = glia.tensor([5.0, -2.0, 3.5], dtype=glia.float64)
    w = glia.tensor([0.0, 0.5, 1.0], dtype=glia.float64)
    assert glia.lerp(s, e, w).tolist() == [1.0, 0.0, 3.5]
    r = s.lerp(e, 0.25)
    np.testing.assert_allclose(r.detach().numpy(), s.detach().numpy() + 0.25 * (e.numpy() - s.detach().numpy()))
    assert r.grad_fn.name() == "LerpBackward0" and glia.lerp(s, e, w).grad_fn.name() == "LerpBackward1"
    r.sum().backward()
    assert s.grad.tolist() == [0.75, 0.75, 0.75]
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        glia.lerp(glia.ones(2), glia.ones(2, dtype=glia.float64), 0.5)
