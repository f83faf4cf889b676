"""Autograd: backward, grad, hooks, custom Functions, grad modes (torch 1.13's gradients as golden values)."""

import threading
import traceback

import numpy as np
import pytest

import glia
import glia.nn.functional as F
from glia import autograd
from _golden import GOLDEN, env


@pytest.mark.parametrize("expr", sorted(GOLDEN["grads"]))
def test_gradients_match_torch(expr):
    case = GOLDEN["grads"][expr]
    e = env()
    for n in case["leaves"]:
        e[n] = e[n].clone().requires_grad_(True)
    y = eval(expr, e)
    g = glia.tensor(np.array(case["weight"], dtype=np.float32))
    (y * g).sum().backward()
    for n in case["leaves"]:
        np.testing.assert_allclose(e[n].grad.numpy(), np.array(case["grads"][n]), rtol=1e-4, atol=1e-5, err_msg=n)


def _finite_difference(f, x, eps=1e-6):
    x0 = x.detach().double()
    flat = x0.numpy().reshape(-1)
    g = np.zeros_like(flat)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        hi = f(x0).item()
        flat[i] = old - eps
        lo = f(x0).item()
        flat[i] = old
        g[i] = (hi - lo) / (2 * eps)
    return g.reshape(x0.shape)


@pytest.mark.parametrize("name,f", [
    ("tanh-matmul", lambda x: (x @ x.t()).tanh().sum()),
    ("softmax-log", lambda x: (x.softmax(1) * glia.arange(4.0).double()).sum().log()),
    ("norm-div", lambda x: (x / x.norm(dim=1, keepdim=True)).pow(3).sum()),
    ("cross-entropy", lambda x: F.cross_entropy(x, glia.tensor([0, 3, 1]), label_smoothing=0.2)),
    ("layer-norm", lambda x: F.layer_norm(x, (4,)).exp().mean()),
])
def test_finite_differences(name, f):
    glia.manual_seed(1)
    x = glia.randn(3, 4, dtype=glia.float64, requires_grad=True)
    f(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), _finite_difference(f, x), rtol=1e-5, atol=1e-7)


def test_leaf_and_grad_attributes():
    x = glia.tensor([1.0, 2.0], requires_grad=True)
    assert x.is_leaf and x.grad is None and x.grad_fn is None
    y = x * 3
    assert not y.is_leaf and y.requires_grad and y.grad_fn.name() == "MulBackward0"
    y.retain_grad()
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and y.grad.tolist() == [1.0, 1.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]  # accumulates
    x.grad = None
    assert x.grad is None
    x.grad = glia.ones(2)
    assert x.grad.tolist() == [1.0, 1.0]
    x.requires_grad = False
    assert not x.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        glia.ones(2, dtype=glia.int64).requires_grad_()


def test_backward_errors_like_torch():
    x = glia.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        glia.ones(2).sum().backward()
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.tolist() == [6.0, 6.0]
    w = x * 2
    w.backward(glia.tensor([1.0, 0.5]))
    assert x.grad.tolist() == [8.0, 7.0]


def test_autograd_grad_and_create_graph():
    x = glia.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [3.0, 12.0, 27.0] and g.requires_grad
    (g2,) = autograd.grad(g.sum(), x)
    assert g2.tolist() == [6.0, 12.0, 18.0]
    assert x.grad is None  # grad() leaves .grad alone
    u = glia.ones(1, requires_grad=True)
    gx, gu = autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0, 2.0] and gu is None
    with pytest.raises(RuntimeError):
        autograd.grad((x * 2).sum(), [x, u])
    a, b = glia.ones(2, requires_grad=True), glia.ones(2, requires_grad=True)
    autograd.backward([(a * 2).sum(), b * 3], [None, glia.tensor([1.0, 2.0])])
    assert a.grad.tolist() == [2.0, 2.0] and b.grad.tolist() == [3.0, 6.0]
    (gg,) = autograd.grad([(x * x).sum()], [x], grad_outputs=[glia.tensor(2.0)])
    assert gg.tolist() == [4.0, 8.0, 12.0]


def test_hooks_modify_and_remove():
    x = glia.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h1 = x.register_hook(lambda g: seen.append(g.tolist()))
    h2 = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0]] and x.grad.tolist() == [20.0, 20.0]
    h2.remove()
    h2.remove()  # idempotent, as torch's
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    h1.remove()
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        glia.ones(1).register_hook(lambda g: g)


class HookError(Exception):
    pass


def test_exception_in_hook_travels_with_type_and_traceback():
    x = glia.tensor([1.0], requires_grad=True)

    def bad_hook(g):
        raise HookError("from the hook")

    x.register_hook(bad_hook)
    with pytest.raises(HookError, match="^from the hook$") as ei:
        (x * 2).sum().backward()
    frames = [f.name for f in traceback.extract_tb(ei.value.__traceback__)]
    assert "bad_hook" in frames
    x2 = glia.tensor([1.0], requires_grad=True)
    x2.register_hook(lambda g: "not a tensor")
    with pytest.raises(TypeError, match="hook returned str"):
        (x2 * 2).sum().backward()


class MulConst(autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        MulConst.needs = ctx.needs_input_grad
        return x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        assert x.shape == g.shape
        return g * ctx.k, None


class SplitSum(autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b, a * b

    @staticmethod
    def backward(ctx, gs, gp):
        a, b = ctx.saved_tensors if False else (None, None)  # noqa: F841
        return gs + gp * 2, gs + gp * 3


def test_custom_function():
    x = glia.tensor([1.0, 2.0], requires_grad=True)
    y = MulConst.apply(x, 3.0)
    assert MulConst.needs == (True, False)
    assert y.tolist() == [3.0, 6.0] and y.grad_fn.name() == "MulConstBackward"
    assert repr(y) == "tensor([3., 6.], grad_fn=<MulConstBackward>)"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    a, b = glia.ones(2, requires_grad=True), glia.ones(2, requires_grad=True)
    s, p = SplitSum.apply(a, b)  # two outputs: apply settles the count once, forward runs once
    (s + p).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0] and b.grad.tolist() == [4.0, 4.0]
    with glia.no_grad():
        z = MulConst.apply(glia.ones(1, requires_grad=True), 2.0)
    assert not z.requires_grad and MulConst.needs == (False, False)


class Boom(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        if x.sum().item() < 0:
            raise KeyError("forward failed")
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        raise ZeroDivisionError("backward failed")


def test_exceptions_in_function_travel_back():
    with pytest.raises(KeyError, match="forward failed") as ei:
        Boom.apply(-glia.ones(1, requires_grad=True))
    assert "forward" in [f.name for f in traceback.extract_tb(ei.value.__traceback__)]
    y = Boom.apply(glia.ones(1, requires_grad=True))
    with pytest.raises(ZeroDivisionError, match="backward failed"):
        y.sum().backward()


def test_function_wrong_gradient_count():
    class Bad(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    y = Bad.apply(glia.ones(1, requires_grad=True))
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        y.sum().backward()


def test_grad_modes():
    x = glia.ones(2, requires_grad=True)
    with glia.no_grad():
        assert not glia.is_grad_enabled()
        assert not (x * 2).requires_grad
        with glia.enable_grad():
            assert (x * 2).requires_grad
    assert glia.is_grad_enabled()

    @glia.no_grad()
    def f():
        return x * 2

    assert not f().requires_grad and glia.is_grad_enabled()
    glia.set_grad_enabled(False)
    assert not glia.is_grad_enabled()
    glia.set_grad_enabled(True)
    with glia.set_grad_enabled(False):
        assert not glia.is_grad_enabled()
    assert glia.is_grad_enabled()
    with glia.inference_mode():
        y = x * 2
        assert glia.is_inference_mode_enabled()
    assert y.is_inference() and not y.requires_grad and not glia.is_inference_mode_enabled()
    with pytest.raises(ValueError):
        with glia.no_grad():
            raise ValueError
    assert glia.is_grad_enabled()


def test_grad_mode_is_per_thread():
    seen = []
    with glia.no_grad():
        t = threading.Thread(target=lambda: seen.append(glia.is_grad_enabled()))
        t.start()
        t.join()
        assert not glia.is_grad_enabled()
    assert seen == [True]


def test_in_place_on_leaf_and_saved_tensor():
    x = glia.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with glia.no_grad():
        x.add_(1)
    assert x.tolist() == [2.0, 2.0]
    y = x * 1
    z = y.exp()  # exp saves its result, not y: modifying y is fine (as in torch)
    y.mul_(2)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [np.exp(2.0)] * 2, rtol=1e-6)
    y = x * 1
    z = y.pow(2)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_registry_entries_are_freed():
    import gc

    from glia import _ffi

    gc.collect()
    before = len(_ffi._registry)
    for _ in range(20):
        x = glia.ones(2, requires_grad=True)
        h = x.register_hook(lambda g: g * 2)
        y = MulConst.apply(x, 2.0)
        y.sum().backward()
        h.remove()
        z = MulConst.apply(x, 3.0)  # graph dropped without backward
        del x, y, z, h
    a = glia.from_numpy(np.ones(3))
    del a
    gc.collect()
    assert len(_ffi._registry) == before


# ---- dtype conversions keep the graph (torch records ToCopyBackward0) ----------------------


@pytest.mark.parametrize("convert", [
    lambda x: x.double(),
    lambda x: x.to(glia.float64),
    lambda x: x.to(dtype=glia.float64),
    lambda x: x.type(glia.float64),
    lambda x: x.half().float(),
    lambda x: x.bfloat16().double(),
], ids=["double", "to", "to_kw", "type", "half_float", "bfloat16_double"])
def test_dtype_conversion_is_differentiable(convert):
    x = glia.tensor([0.5, -1.25, 2.0], requires_grad=True)
    y = convert(x)
    assert y.requires_grad
    assert y.grad_fn.name() == "ToCopyBackward0"
    w = glia.tensor([1.0, 2.0, -3.0], dtype=y.dtype)
    (y * w).sum().backward()
    assert x.grad.dtype == glia.float32
    np.testing.assert_array_equal(x.grad.numpy(), np.array([1.0, 2.0, -3.0], dtype=np.float32))


def test_integer_conversion_does_not_require_grad():
    x = glia.tensor([0.5, -1.25], requires_grad=True)
    assert not x.long().requires_grad
    assert not x.int().requires_grad
    assert x.float() is x or x.float().grad_fn is None  # same dtype: the tensor itself


@pytest.mark.parametrize("log", [False, True])
def test_softmax_with_dtype_is_differentiable(log):
    xs = np.array([[0.1, -0.7, 1.3], [2.0, 0.0, -1.0]], dtype=np.float32)
    w = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
    x = glia.tensor(xs, requires_grad=True)
    s = F.log_softmax(x, dim=1, dtype=glia.float64) if log else F.softmax(x, dim=1, dtype=glia.float64)
    assert s.dtype == glia.float64 and s.requires_grad
    (s * glia.tensor(w)).sum().backward()
    e = np.exp(xs.astype(np.float64) - xs.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    want = w - p * w.sum(axis=1, keepdims=True) if log else p * (w - (p * w).sum(axis=1, keepdims=True))
    assert x.grad.dtype == glia.float32
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6, atol=1e-7)


def test_contiguous_is_differentiable():
    x = glia.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    c = x.t().contiguous()
    assert c.grad_fn.name() == "CloneBackward0"
    (c * glia.tensor([[1.0, 10.0], [100.0, 1000.0], [1e4, 1e5]])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array([[1, 100, 1e4], [10, 1000, 1e5]], dtype=np.float32))


def test_rounding_division_and_remainder_are_differentiable():
    # torch 1.13: div(rounding_mode=...) -> DivBackward2 (zero gradients); remainder and % -> d/dx 1,
    # d/dy -floor(x / y).
    x = glia.tensor([1.5, -2.5, 3.0], requires_grad=True)
    y = glia.tensor([2.0, 2.0, -4.0], requires_grad=True)
    for mode in ("floor", "trunc"):
        q = x.div(y, rounding_mode=mode)
        assert q.requires_grad and q.grad_fn.name() == "DivBackward2"
        q.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0])
        np.testing.assert_array_equal(y.grad.numpy(), [0, 0, 0])
        x.grad = None
        y.grad = None
    (x % y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(y.grad.numpy(), [0, 2, 1])
    x.grad = None
    (x // 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0])
