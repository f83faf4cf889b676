"""nn.Module's Python API: attributes, registration, iteration, modes, errors as torch's."""

import traceback

import numpy as np
import pytest

import glia
from glia import nn


class MyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.w = nn.Parameter(glia.ones(2))
        self.register_buffer("steps", glia.zeros(1))

    def forward(self, x):
        return self.fc(x) * self.w


def test_identity_of_parameters_buffers_children():
    m = MyNet()
    assert m.fc is m.fc and m.w is m.w and m.steps is m.steps
    assert m.fc.weight is m.fc.weight
    assert list(m.parameters())[0] is m.w
    assert [n for n, _ in m.named_parameters()] == ["w", "fc.weight", "fc.bias"]
    assert dict(m.named_parameters())["fc.weight"] is m.fc.weight
    assert [n for n, _ in m.named_buffers()] == ["steps"]
    assert list(m.children()) == [m.fc]
    assert [n for n, _ in m.named_modules()] == ["", "fc"]
    assert [n for n, _ in m.named_parameters(prefix="net", recurse=False)] == ["net.w"]
    assert isinstance(m.w, nn.Parameter) and isinstance(m.w, glia.Tensor)
    assert m.w.requires_grad


def test_getattr_error_text():
    m = MyNet()
    with pytest.raises(AttributeError, match=r"^'MyNet' object has no attribute 'x'$"):
        m.x


def test_assign_none_and_delete():
    m = MyNet()
    m.w = None
    assert m.w is None
    assert "w" not in m.state_dict()
    m.fc = None
    assert m.fc is None
    assert list(m.state_dict()) == ["steps"]
    del m.steps
    with pytest.raises(AttributeError):
        m.steps
    assert list(m.state_dict()) == []
    m.other = 3
    del m.other
    assert not hasattr(m, "other")


def test_assignment_type_errors():
    m = MyNet()
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'fc'"):
        m.fc = 3
    with pytest.raises(TypeError, match=r"cannot assign 'int' as parameter 'w'"):
        m.w = 3
    with pytest.raises(KeyError, match="attribute 'fc' already exists"):
        m.register_buffer("fc", glia.zeros(1))
    with pytest.raises(KeyError, match="contain"):
        m.add_module("a.b", nn.ReLU())


def test_parameter_repr_and_aliasing():
    t = glia.zeros(2)
    p = nn.Parameter(t)
    assert repr(p) == "Parameter containing:\ntensor([0., 0.], requires_grad=True)"
    assert p.requires_grad and not t.requires_grad
    p.data.fill_(3.0) if hasattr(p, "data") else None
    q = nn.Parameter(glia.ones(2), requires_grad=False)
    assert not q.requires_grad


def test_get_submodule_errors():
    m = MyNet()
    assert m.get_submodule("fc") is m.fc
    assert m.get_submodule("") is m
    with pytest.raises(AttributeError, match="^Linear has no attribute `foo`$"):
        m.get_submodule("fc.foo")
    with pytest.raises(AttributeError, match="^`weight` is not an nn.Module$"):
        m.get_submodule("fc.weight")


def test_train_eval_recursive_and_attribute():
    m = nn.Sequential(MyNet(), nn.Dropout())
    assert m.training and m[0].training and m[0].fc.training
    m.eval()
    assert not m.training and not m[0].training and not m[0].fc.training
    m.train()
    m[0].training = False  # the attribute is not recursive, as in torch
    assert not m[0].training and m[0].fc.training and m.training


def test_zero_grad_requires_grad_apply_to():
    m = MyNet()
    m(glia.ones(3, 2)).sum().backward()
    assert m.fc.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert float(m.fc.weight.grad.abs().sum()) == 0.0
    m.zero_grad()
    assert m.fc.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "MyNet"]
    w = m.fc.weight
    m.to(glia.float64)
    assert m.fc.weight is w and w.dtype == glia.float64
    assert m(glia.ones(1, 2, dtype=glia.float64)).dtype == glia.float64
    m.double().float()
    assert w.dtype == glia.float32


def test_dir_lists_members():
    d = dir(MyNet())
    for name in ("fc", "w", "steps", "forward", "parameters"):
        assert name in d


def test_extra_repr_and_nested_repr():
    class Scale(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def extra_repr(self):
            return "k={}".format(self.k)

        def forward(self, x):
            return x * self.k

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(Scale(2), nn.Linear(2, 2, bias=False))

        def forward(self, x):
            return self.body(x)

    assert repr(Outer()) == (
        "Outer(\n  (body): Sequential(\n    (0): Scale(k=2)\n"
        "    (1): Linear(in_features=2, out_features=2, bias=False)\n  )\n)"
    )


class MyError(Exception):
    pass


def test_exception_in_forward_keeps_type_and_frame():
    class Bad(nn.Module):
        def forward(self, x):
            raise MyError("boom in forward")

    with pytest.raises(MyError, match="boom in forward") as info:
        Bad()(glia.ones(1))
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "forward" in frames
    # also when the Python module runs inside a C container called from a Python module
    seq = nn.Sequential(nn.Identity(), Bad())
    with pytest.raises(MyError):
        seq(glia.ones(1))


def test_missing_forward():
    class NoForward(nn.Module):
        pass

    with pytest.raises(NotImplementedError, match=r'Module \[NoForward\] is missing the required "forward" function'):
        NoForward()(glia.ones(1))


def test_python_module_in_c_container_in_python_module():
    class Double(nn.Module):
        def forward(self, x):
            return x * 2

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.seq = nn.Sequential(nn.Linear(2, 2), Double(), nn.ReLU())
            self.head = nn.ModuleList([Double()])

        def forward(self, x):
            return self.head[0](self.seq(x))

    o = Outer()
    x = glia.randn(3, 2)
    lin = o.seq[0]
    expected = np.maximum((x.numpy() @ lin.weight.detach().numpy().T + lin.bias.detach().numpy()) * 2, 0) * 2
    np.testing.assert_allclose(o(x).detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    o(x).sum().backward()
    assert lin.weight.grad is not None


def test_forward_returning_non_tensors_and_identity():
    class Multi(nn.Module):
        def forward(self, x, k=1):
            return {"x": x, "k": k}

    class Same(nn.Module):
        def forward(self, x):
            return x

    class Pair(nn.Module):
        def forward(self, x):
            return x, x + 1

    x = glia.ones(2)
    out = Multi()(x, k=5)
    assert out["x"] is x and out["k"] == 5
    assert Same()(x) is x
    a, b = Pair()(x)
    assert a is x and float(b.sum()) == 4.0


def test_module_without_super_init():
    class Bad(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_deepcopy_makes_independent_module():
    import copy

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.BatchNorm1d(3))
            self.scale = nn.Parameter(glia.ones(1))
            self.register_buffer("count", glia.zeros(1))
            self.tag = ["a"]

        def forward(self, x):
            return self.body(x) * self.scale

    a = Net()
    a.body[2].eval()
    b = copy.deepcopy(a)
    assert type(b) is Net and type(b.body) is nn.Sequential and type(b.body[0]) is nn.Linear
    assert b.scale is not a.scale and isinstance(b.scale, nn.Parameter) and b.scale.requires_grad
    assert b.tag == ["a"] and b.tag is not a.tag
    assert repr(a) == repr(b) and list(a.state_dict()) == list(b.state_dict())
    assert not b.body[2].training and b.training
    x = glia.randn(4, 2)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    with glia.no_grad():
        b.body[0].weight.fill_(0.0)
    assert float(a.body[0].weight.abs().sum()) > 0
    with pytest.raises(TypeError, match="cannot be pickled"):
        import pickle

        pickle.dumps(a)
