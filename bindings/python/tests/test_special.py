"""Elementwise and special functions through the binding (glia/_special.py, glia/special.py): torch's
names and signatures (functions, methods, in-place forms, torch.special), values against Python's
math module, numpy and closed forms, dtypes, grad_fn names, gradients and torch's messages."""

import math

import numpy as np
import pytest

import glia

F64 = glia.float64


def t(values, dtype=F64, requires_grad=False):
    return glia.tensor(values, dtype=dtype, requires_grad=requires_grad)


def test_logaddexp_and_logaddexp2_match_math_and_broadcast():
    a, b = [-3.0, 0.5, 800.0, -1000.0], [2.0, 0.5, 799.0, -1001.0]
    want = [max(x, y) + math.log1p(math.exp(-abs(x - y))) for x, y in zip(a, b)]
    np.testing.assert_allclose(glia.logaddexp(t(a), t(b)).numpy(), want, rtol=1e-14)
    want2 = [max(x, y) + math.log2(1 + 2.0 ** -abs(x - y)) for x, y in zip(a, b)]
    np.testing.assert_allclose(t(a).logaddexp2(t(b)).numpy(), want2, rtol=1e-14)
    assert glia.logaddexp(t([[1.0], [2.0]]), t([1.0, 2.0, 3.0])).shape == (2, 3)
    assert glia.logaddexp(t([math.inf]), t([math.inf])).tolist() == [math.inf]
    with pytest.raises(RuntimeError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        glia.logaddexp(glia.tensor([1, 2]), glia.tensor([1, 2]))
    with pytest.raises(TypeError, match=r"logaddexp\(\): argument 'other' \(position 2\) must be Tensor, not float"):
        glia.logaddexp(t([1.0]), 2.0)


def test_heaviside_values_dtypes_and_message():
    x = t([-1.5, 0.0, 2.0, math.nan])
    assert glia.heaviside(x, t([0.25])).tolist() == [0.0, 0.25, 1.0, 0.0]
    i = glia.tensor([-2, 0, 3])
    r = i.heaviside(glia.tensor([7]))
    assert r.dtype is glia.int64 and r.tolist() == [0, 7, 1]
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        glia.heaviside(x, glia.tensor([0.5]))
    y = x.clone()
    assert y.heaviside_(t([0.5])) is y and y.tolist() == [0.0, 0.5, 1.0, 0.0]


def test_nextafter_matches_numpy():
    a = np.array([1.0, 1.0, 0.0, -0.0, 3.5, 1e-300])
    b = np.array([2.0, 0.0, -1.0, 1.0, 3.5, 0.0])
    assert glia.nextafter(t(a.tolist()), t(b.tolist())).tolist() == np.nextafter(a, b).tolist()
    a32 = a.astype(np.float32)
    got = glia.nextafter(glia.tensor(a32), glia.tensor(b.astype(np.float32))).numpy()
    assert got.tolist() == np.nextafter(a32, b.astype(np.float32)).tolist()
    with pytest.raises(RuntimeError, match="\"nextafter_cpu\" not implemented for 'Long'"):
        glia.nextafter(glia.tensor([1]), glia.tensor([2]))


def test_frexp_is_a_named_pair_like_math_frexp():
    xs = [0.0, 1.0, -3.0, 0.1, 1e300, 5e-324]
    r = glia.frexp(t(xs))
    assert r.mantissa.dtype is F64 and r.exponent.dtype is glia.int32
    assert [(m, e) for m, e in zip(r.mantissa.tolist(), r.exponent.tolist())] == [math.frexp(v) for v in xs]
    m, e = t(xs).frexp()
    assert m.tolist() == r.mantissa.tolist() and e.tolist() == r.exponent.tolist()
    assert repr(r).startswith("torch.return_types.frexp(\nmantissa=")
    x = t([3.0, -10.0], requires_grad=True)
    glia.frexp(x).mantissa.sum().backward()
    assert x.grad.tolist() == [0.25, 1.0 / 16]
    with pytest.raises(RuntimeError, match=r"torch.frexp\(\) only supports floating-point dtypes"):
        glia.frexp(glia.tensor([1, 2]))


def test_ldexp_and_float_power():
    assert glia.ldexp(t([1.5, -3.0]), glia.tensor([3, -2])).tolist() == [math.ldexp(1.5, 3), math.ldexp(-3.0, -2)]
    r = glia.ldexp(glia.tensor([1, 2]), glia.tensor([1, 2]))
    assert r.dtype is glia.float32 and r.tolist() == [2.0, 8.0]
    y = t([1.0, 2.0])
    assert y.ldexp_(glia.tensor([1, 1])) is y and y.tolist() == [2.0, 4.0]
    fp = glia.float_power(glia.tensor([2, 3], dtype=glia.float32), 2)
    assert fp.dtype is F64 and fp.tolist() == [4.0, 9.0]
    assert glia.float_power(2, glia.tensor([3, -1])).tolist() == [8.0, 0.5]
    assert glia.tensor([4.0]).float_power(glia.tensor([0.5])).dtype is F64
    z = t([2.0, 3.0])
    assert z.float_power_(3) is z and z.tolist() == [8.0, 27.0]
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float but the operation's "
                                           "result requires dtype Double"):
        glia.tensor([2.0]).float_power_(2)
    x = t([1.5, 2.0], requires_grad=True)
    glia.float_power(x, 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3 * 1.5 ** 2, 12.0], rtol=1e-14)


def test_dist_and_renorm():
    a, b = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0]]), np.array([0.5, 1.0, -1.0])
    for p in (2, 1, 3.5, math.inf, 0):
        want = np.linalg.norm((a - b).ravel(), ord=p)
        np.testing.assert_allclose(glia.dist(t(a.tolist()), t(b.tolist()), p).item(), want, rtol=1e-14)
    assert t(a.tolist()).dist(t(b.tolist())).shape == ()
    x = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    got = glia.renorm(t(x.tolist()), 2, 0, 1.0).numpy()
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    want = np.where(norms > 1.0, x * (1.0 / (norms + 1e-7)), x)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    y = t(x.tolist())
    assert y.renorm_(2, 0, 1.0) is y
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-14)
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        glia.renorm(t([1.0, 2.0]), 2, 0, 1.0)
    with pytest.raises(RuntimeError, match="renorm: non-positive-norm not supported"):
        t(x.tolist()).renorm(0, 0, 1.0)


def test_polygamma_closed_forms():
    one = t([1.0])
    zeta3 = 1.2020569031595942854
    assert glia.polygamma(0, one).item() == pytest.approx(-0.57721566490153286061, rel=1e-15)
    # torch 1.13's trigamma (six recurrence steps, then four asymptotic terms) is good to ~1e-9
    assert glia.polygamma(1, one).item() == pytest.approx(math.pi ** 2 / 6, rel=1e-9)
    assert glia.polygamma(2, one).item() == pytest.approx(-2 * zeta3, rel=1e-14)
    assert one.polygamma(3).item() == pytest.approx(math.pi ** 4 / 15, rel=1e-14)
    x = t([0.7, 2.5, 9.0])
    np.testing.assert_allclose(glia.polygamma(0, x).numpy(), glia.digamma(x).numpy(), rtol=1e-15)
    y = x.clone()
    assert y.polygamma_(2) is y
    np.testing.assert_allclose(y.numpy(), glia.polygamma(2, x).numpy(), rtol=0)
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        glia.polygamma(-1, x)
    g = t([1.5], requires_grad=True)
    out = glia.polygamma(2, g)
    assert out.grad_fn.name() == "PolygammaBackward0"
    out.backward()
    np.testing.assert_allclose(g.grad.numpy(), glia.polygamma(3, t([1.5])).numpy(), rtol=1e-15)


def test_mvlgamma_is_a_sum_of_lgammas():
    xs = [2.2, 3.5, 9.0]
    for p in (1, 2, 4):
        want = [p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(v - j / 2) for j in range(p)) for v in xs]
        np.testing.assert_allclose(glia.mvlgamma(t(xs), p).numpy(), want, rtol=1e-13)
        np.testing.assert_allclose(t(xs).mvlgamma(p=p).numpy(), want, rtol=1e-13)
    assert glia.special.multigammaln(t(xs), 1).tolist() == glia.lgamma(t(xs)).tolist()
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        glia.mvlgamma(t(xs), 0)
    with pytest.raises(RuntimeError, match="The input tensor may not be a boolean tensor."):
        glia.mvlgamma(glia.tensor([True]), 1)


def test_i0_i1_sinc():
    xs = [-40.0, -3.0, -0.5, 0.0, 1e-3, 2.0, 29.0, 31.0, 300.0]
    np.testing.assert_allclose(glia.i0(t(xs)).numpy(), np.i0(np.array(xs)), rtol=1e-14)
    # I1 from its series (and its symmetry)
    def i1(v):
        term = total = v / 2
        for k in range(1, 120):
            term *= (v / 2) ** 2 / (k * (k + 1))
            total += term
        return total
    small = [-6.0, -0.5, 0.0, 0.25, 4.0, 12.0]
    np.testing.assert_allclose(glia.special.i1(t(small)).numpy(), [i1(v) for v in small], rtol=1e-14)
    np.testing.assert_allclose(glia.sinc(t(xs)).numpy(), np.sinc(np.array(xs)), rtol=1e-14, atol=1e-17)
    assert glia.sinc(glia.tensor([0, 1])).dtype is glia.float32
    x = t([0.0, 0.5, 2.0], requires_grad=True)
    y = glia.sinc(x)
    assert y.grad_fn.name() == "SincBackward0"
    y.sum().backward()
    want = [0.0] + [(math.pi * v * math.cos(math.pi * v) - math.sin(math.pi * v)) / (math.pi * v * v)
                    for v in (0.5, 2.0)]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-14, atol=1e-16)
    z = t([1.0, 2.0], requires_grad=True)
    glia.i0(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), glia.special.i1(t([1.0, 2.0])).numpy(), rtol=0)
    w = t([0.0, 1.0])
    assert w.i0_() is w and w.tolist()[0] == 1.0
    assert glia.i0_ is not None and glia.sinc_(t([0.0])).tolist() == [1.0]


def test_igamma_and_igammac():
    x = t([0.1, 1.0, 4.0, 20.0])
    np.testing.assert_allclose(glia.igamma(t([1.0]), x).numpy(), [1 - math.exp(-v) for v in x.tolist()],
                               rtol=1e-14)
    np.testing.assert_allclose(glia.special.gammainc(t([0.5]), x).numpy(),
                               [math.erf(math.sqrt(v)) for v in x.tolist()], rtol=1e-13)
    np.testing.assert_allclose((glia.igamma(t([3.5]), x) + t([3.5]).igammac(x)).numpy(), [1.0] * 4, rtol=1e-15)
    xg = t([0.5, 2.0], requires_grad=True)
    out = glia.igamma(t([2.0, 2.0]), xg)
    assert out.grad_fn.name() == "IgammaBackward0"
    out.sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), [v * math.exp(-v) for v in (0.5, 2.0)], rtol=1e-14)
    a = t([2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="the derivative for 'igamma: input' is not implemented."):
        glia.igamma(a, t([1.0])).sum().backward()
    with pytest.raises(RuntimeError, match="\"igamma_cpu\" not implemented for 'Long'"):
        glia.igamma(glia.tensor([1]), glia.tensor([1]))


def test_grad_fn_names():
    a, b = t([0.5, 1.0], requires_grad=True), t([1.5, -1.0], requires_grad=True)
    assert glia.logaddexp(a, b).grad_fn.name() == "LogaddexpBackward0"
    assert glia.logaddexp2(a, b).grad_fn.name() == "Logaddexp2Backward0"
    assert glia.mvlgamma(a + 2, 2).grad_fn.name() == "MvlgammaBackward0"
    assert glia.i0(a).grad_fn.name() == "I0Backward0"
    assert glia.frexp(a).mantissa.grad_fn.name() == "FrexpBackward0"
    assert not glia.heaviside(a, b).requires_grad and not glia.nextafter(a, b).requires_grad


def test_special_namespace_names():
    x = t([0.3, 0.7])
    assert glia.special.expit(x).tolist() == glia.sigmoid(x).tolist()
    assert glia.special.psi(x).tolist() == glia.digamma(x).tolist()
    assert glia.special.gammaln(x).tolist() == glia.lgamma(x).tolist()
    assert glia.special.logit(x, eps=0.4).tolist() == glia.logit(x, 0.4).tolist()
    assert glia.special.sinc is glia.sinc and glia.special.i0 is glia.i0
