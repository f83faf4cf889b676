"""The examples of PyTorch's "Modules" note (docs/notes/modules) written against glia; expected values from
PyTorch 1.13 with the same weights (tests/golden/gen_nn_golden.py)."""

import os
import sys

import numpy as np

import glia
from glia import nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "golden"))
from nn_golden import A, J, weights  # noqa: E402


def close(t, expected, tol=1e-5):
    np.testing.assert_allclose(t.detach().numpy(), expected, rtol=tol, atol=tol)


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(glia.randn(in_features, out_features))
        self.bias = nn.Parameter(glia.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = glia.relu(x)
        x = self.l1(x)
        return x


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict({"relu": nn.ReLU(), "lrelu": nn.LeakyReLU()})
        self.final = MyLinear(4, 1)

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
        x = self.activations[act](x)
        x = self.final(x)
        return x


class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", glia.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


class StatefulModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.param1 = nn.Parameter(glia.randn(2))
        self.register_parameter("param2", None)
        self.register_buffer("buffer1", glia.randn(3))
        self.register_buffer("buffer2", None)
        self.register_buffer("buffer3", glia.randn(4), persistent=False)
        self.linear = nn.Linear(2, 3)


class ModalModule(nn.Module):
    def forward(self, x):
        if self.training:
            return x + 1
        return x - 1


def x4():
    return glia.from_numpy(A["x4"].copy())


def test_mylinear():
    m = MyLinear(4, 3)
    m.load_state_dict(weights("mylinear"))
    close(m(x4()), A["mylinear_out"])
    assert repr(m) == J["mylinear_repr"] == "MyLinear()"
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert m.weight is m.weight
    out = m(x4())
    out.sum().backward()
    assert m.weight.grad.shape == (4, 3)


def test_sequential_of_python_modules():
    s = nn.Sequential(MyLinear(4, 3), nn.ReLU(), MyLinear(3, 1))
    s.load_state_dict(weights("seq"))
    close(s(x4()), A["seq_out"])
    assert repr(s) == J["seq_repr"]


def test_net_and_bignet():
    net = Net()
    net.load_state_dict(weights("net"))
    close(net(x4()), A["net_out"])
    assert repr(net) == J["net_repr"]
    assert [n for n, _ in net.named_parameters()] == J["net_named_parameters"]
    big = BigNet()
    big.load_state_dict(weights("big"))
    close(big(glia.from_numpy(A["x5"].copy())), A["big_out"])
    assert repr(big) == J["big_repr"]
    assert [n for n, _ in big.named_modules()] == J["big_named_modules"]
    assert list(big.state_dict()) == J["big_state_keys"]
    assert [type(m).__name__ for m in big.children()] == ["MyLinear", "Net"]


def test_dynamic_net_with_non_tensor_argument():
    dyn = DynamicNet(3)
    dyn.load_state_dict(weights("dyn"))
    close(dyn(x4(), "relu"), A["dyn_relu"])
    close(dyn(x4(), act="lrelu"), A["dyn_lrelu"])
    assert repr(dyn) == J["dyn_repr"]
    assert list(dyn.state_dict()) == J["dyn_state_keys"]


def test_running_mean_buffer_reassigned_in_forward():
    rm = RunningMean(4)
    xs = A["rm_x"]
    for i in range(3):
        out = rm(glia.from_numpy(xs[i].copy()))
        close(out, A["rm_out"][i])
    assert out is rm.mean
    assert list(rm.state_dict()) == J["rm_state_keys"]
    close(rm.state_dict()["mean"], A["rm_out"][2])


def test_stateful_module():
    sm = StatefulModule()
    assert list(sm.state_dict()) == J["stateful_state_keys"]
    assert repr(sm) == J["stateful_repr"]
    assert [n for n, _ in sm.named_buffers()] == J["stateful_named_buffers"]
    assert [n for n, _ in sm.named_parameters()] == J["stateful_named_parameters"]
    assert sm.param2 is None and sm.buffer2 is None


def test_modal_module_training_flag():
    m = ModalModule()
    x = glia.zeros(2)
    assert m.training
    close(m(x), np.ones(2))
    m.eval()
    assert not m.training
    close(m(x), -np.ones(2))
    m.train()
    close(m(x), np.ones(2))


def test_note_hooks_example():
    lin = nn.Linear(3, 3)
    lin.load_state_dict(weights("hooklin"))
    x = glia.from_numpy(A["hook_x"].copy()).requires_grad_()

    def forward_pre_hook(m, inputs):
        return inputs[0] + 1.0

    def forward_hook(m, inputs, output):
        return output + inputs[0]

    def backward_hook(m, grad_inputs, grad_outputs):
        return [glia.ones_like(gi) * 42.0 for gi in grad_inputs]

    close(lin(x), A["hook_plain"])
    h1 = lin.register_forward_pre_hook(forward_pre_hook)
    close(lin(x), A["hook_pre"])
    h2 = lin.register_forward_hook(forward_hook)
    close(lin(x), A["hook_both"])
    h1.remove()
    h2.remove()
    close(lin(x), A["hook_removed"])
    lin(x).sum().backward()
    close(x.grad, A["hook_grad_plain"])
    x.grad = None
    h3 = lin.register_full_backward_hook(backward_hook)
    lin(x).sum().backward()
    close(x.grad, A["hook_grad_42"])
    h3.remove()
