"""Forward/backward hooks: torch's order, replacement rules, handles, errors, and hooks of modules called from C."""

import traceback

import numpy as np
import pytest

import glia
from glia import nn


class Scale(nn.Module):
    def __init__(self, k=2.0):
        super().__init__()
        self.k = k

    def forward(self, x, offset=0.0, *, bias=0.0):
        return x * self.k + offset + bias


def test_order_pre_forward_post():
    log = []
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre1", len(args))))
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre0",)), prepend=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("post", float(out.sum()))))
    m.register_forward_hook(lambda mod, args, out: log.append(("post0",)), prepend=True)
    m(glia.ones(2))
    assert log == [("pre0",), ("pre1", 1), ("post0",), ("post", 4.0)]


def test_hooks_see_non_tensor_arguments_and_may_replace_them():
    m = Scale()
    seen = {}

    def pre(mod, args):
        seen["pre"] = args
        return (args[0], 10.0)  # replaces the non-tensor offset

    def post(mod, args, out):
        seen["post"] = args
        return out * 0 + 1

    m.register_forward_pre_hook(pre)
    x = glia.ones(2)
    out = m(x, 1.0, bias=0.5)
    assert seen["pre"][0] is x and seen["pre"][1] == 1.0
    np.testing.assert_allclose(out.numpy(), [12.5, 12.5])
    h = m.register_forward_hook(post)
    out = m(x, 1.0)
    assert seen["post"][0] is x and seen["post"][1] == 10.0
    np.testing.assert_allclose(out.numpy(), [1.0, 1.0])
    h.remove()


def test_pre_hook_returning_single_value_is_wrapped_in_tuple():
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)
    np.testing.assert_allclose(m(glia.zeros(2)).numpy(), [2.0, 2.0])


def test_forward_hook_non_tensor_output():
    class D(nn.Module):
        def forward(self, x):
            return {"y": x}

    m = D()
    m.register_forward_hook(lambda mod, args, out: {"y": out["y"], "z": 1})
    out = m(glia.ones(1))
    assert out["z"] == 1


def test_handle_remove_and_context_manager():
    m = Scale()
    calls = []
    with m.register_forward_hook(lambda *a: calls.append(1)):
        m(glia.ones(1))
    m(glia.ones(1))
    h = m.register_forward_pre_hook(lambda *a: calls.append(2))
    h.remove()
    h.remove()  # idempotent
    m(glia.ones(1))
    assert calls == [1]


def test_handle_remove_drops_the_hook_dict_entry_and_prepend_comes_first():
    # torch: module._forward_pre_hooks / _forward_hooks hold the live hooks, in call order.
    m = Scale()
    f1, f2, f3 = (lambda *a: None), (lambda *a: None), (lambda *a: None)
    h1 = m.register_forward_pre_hook(f1)
    h2 = m.register_forward_pre_hook(f2, prepend=True)
    assert list(m._forward_pre_hooks.values()) == [f2, f1]
    assert list(m._forward_pre_hooks) == [h2.id, h1.id]
    h1.remove()
    assert list(m._forward_pre_hooks.values()) == [f2]
    with m.register_forward_hook(f3) as h3:
        assert list(m._forward_hooks) == [h3.id]
    assert len(m._forward_hooks) == 0
    h2.remove()
    assert len(m._forward_pre_hooks) == 0


def test_hooks_run_when_module_is_called_from_c():
    inner = Scale(3.0)
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(inner, lin)  # C Sequential runs both through glia_module_forward
    log = []
    inner.register_forward_pre_hook(lambda mod, args: log.append("inner-pre"))
    inner.register_forward_hook(lambda mod, args, out: out + 100)
    lin.register_forward_hook(lambda mod, args, out: log.append("lin-post"))
    x = glia.ones(1, 2)
    out = seq(x)
    expected = (np.ones((1, 2)) * 3 + 100) @ lin.weight.detach().numpy().T + lin.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5)
    assert log == ["inner-pre", "lin-post"]


class HookError(Exception):
    pass


def test_exception_in_hooks_reraised_with_type_and_frame():
    m = Scale()

    def bad_pre(mod, args):
        raise HookError("pre failed")

    h = m.register_forward_pre_hook(bad_pre)
    with pytest.raises(HookError, match="pre failed") as info:
        m(glia.ones(1))
    assert "bad_pre" in [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    h.remove()

    def bad_post(mod, args, out):
        raise HookError("post failed")

    h = m.register_forward_hook(bad_post)
    with pytest.raises(HookError, match="post failed"):
        nn.Sequential(m)(glia.ones(1))
    h.remove()

    lin = nn.Linear(2, 1)

    def bad_backward(mod, gin, gout):
        raise HookError("backward failed")

    lin.register_full_backward_hook(bad_backward)
    x = glia.ones(1, 2, requires_grad=True)
    with pytest.raises(HookError, match="backward failed"):
        lin(x).sum().backward()


def test_full_backward_hooks_values_and_pre_hook():
    lin = nn.Linear(2, 1, bias=False)
    with glia.no_grad():
        lin.weight.copy_(glia.tensor([[2.0, 3.0]]))
    got = {}

    def bpre(mod, gout):
        got["gout"] = gout[0].numpy().copy()
        return (gout[0] * 10,)

    def bhook(mod, gin, gout):
        got["gin"] = gin[0].numpy().copy()
        got["gout2"] = gout[0].numpy().copy()

    lin.register_full_backward_pre_hook(bpre)
    lin.register_full_backward_hook(bhook)
    x = glia.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    np.testing.assert_allclose(got["gout"], [[1.0]])
    np.testing.assert_allclose(got["gout2"], [[10.0]])
    np.testing.assert_allclose(got["gin"], [[20.0, 30.0]])
    np.testing.assert_allclose(x.grad.numpy(), [[20.0, 30.0]])


def test_hook_on_python_module_backward():
    m = Scale(2.0)
    grads = []
    m.register_full_backward_hook(lambda mod, gin, gout: grads.append((gin[0].numpy().copy(), gout[0].numpy().copy())))
    x = glia.ones(3, requires_grad=True)
    m(x).sum().backward()
    np.testing.assert_allclose(grads[0][0], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(grads[0][1], [1.0, 1.0, 1.0])


def test_removed_backward_hook_does_not_run_for_recorded_graph():
    lin = nn.Linear(2, 1)
    calls = []
    h = lin.register_full_backward_hook(lambda *a: calls.append(1))
    out = lin(glia.ones(1, 2, requires_grad=True))
    h.remove()
    out.sum().backward()
    assert calls == []


def test_always_call_forward_hook_runs_when_forward_fails():
    class Fails(nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    m = Fails()
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: calls.append("normal"))
    with pytest.raises(ValueError, match="forward failed"):
        m(glia.ones(1))
    assert calls == ["always"]


def test_threads_call_one_python_module():
    import threading

    class Add(nn.Module):
        def forward(self, x, k):
            return x + k

    m = Add()
    errors = []

    def work(k):
        try:
            for _ in range(200):
                assert float(m(glia.zeros(1), k).sum()) == k
        except BaseException as e:  # noqa: B902
            errors.append(e)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
