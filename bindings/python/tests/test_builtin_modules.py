"""Built-in modules and containers: torch's reprs, state-dict keys, parameter shapes and forward values
(golden values from PyTorch 1.13 with the same weights)."""

import os
import sys
from collections import OrderedDict

import numpy as np
import pytest

import glia
from glia import nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "golden"))
from nn_golden import A, J, weights  # noqa: E402

# The constructor calls of gen_nn_golden.py, evaluated against glia.nn.
CONSTRUCTORS = list(J["builtin_reprs"])


def T(name):
    return glia.from_numpy(A[name].copy())


def close(t, expected, tol=1e-5):
    np.testing.assert_allclose(t.detach().numpy(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("expr", CONSTRUCTORS)
def test_repr_keys_shapes(expr):
    m = eval(expr, {}, vars(nn))
    assert repr(m) == J["builtin_reprs"][expr]
    assert list(m.state_dict()) == J["builtin_state_keys"][expr]
    assert {n: list(p.shape) for n, p in m.named_parameters()} == J["builtin_param_shapes"][expr]
    for n, p in m.named_parameters():
        assert getattr(m, n) is p and isinstance(p, nn.Parameter)


def test_bias_false_is_none():
    assert nn.Linear(2, 3, bias=False).bias is None
    assert nn.Conv2d(1, 1, 3, bias=False).bias is None
    bn = nn.BatchNorm2d(3, affine=False, track_running_stats=False)
    assert bn.weight is None and bn.running_mean is None


@pytest.mark.parametrize("key,make", [
    ("lin", lambda: nn.Linear(2, 3)),
    ("conv", lambda: nn.Conv2d(1, 6, 5, padding=2)),
    ("convt", lambda: nn.ConvTranspose2d(4, 2, 3, stride=2)),
    ("bn1", lambda: nn.BatchNorm1d(4)),
    ("ln", lambda: nn.LayerNorm(4)),
    ("gn", lambda: nn.GroupNorm(2, 4)),
    ("emb", lambda: nn.Embedding(10, 3)),
])
def test_forward_values(key, make):
    m = make()
    m.load_state_dict(weights("w_" + key))
    close(m(T("in_" + key)), A["out_" + key], 1e-4)
    if key == "bn1":
        close(m.running_mean, A["bn1_running_mean"])
        close(m.running_var, A["bn1_running_var"])
        assert int(m.num_batches_tracked) == 1


def test_bilinear_two_inputs():
    m = nn.Bilinear(2, 3, 4)
    m.load_state_dict(weights("w_bil"))
    close(m(T("in_bil1"), T("in_bil2")), A["out_bil"], 1e-4)


def test_pools_and_activations():
    p = T("in_pool")
    close(nn.MaxPool2d(2)(p), A["out_maxpool"])
    close(nn.AvgPool2d(3, stride=1, padding=1)(p), A["out_avgpool"])
    close(nn.AdaptiveAvgPool2d((2, 3))(p), A["out_adaptive"])
    x = T("act_in")
    for name, m in [("relu", nn.ReLU()), ("lrelu", nn.LeakyReLU(0.2)), ("elu", nn.ELU()), ("gelu", nn.GELU()),
                    ("gelut", nn.GELU(approximate="tanh")), ("silu", nn.SiLU()), ("sigmoid", nn.Sigmoid()),
                    ("tanh", nn.Tanh()), ("softmax", nn.Softmax(dim=1)), ("logsoftmax", nn.LogSoftmax(dim=-1))]:
        close(m(x), A["act_" + name])
    assert nn.Identity()(x) is x or np.array_equal(nn.Identity()(x).numpy(), x.numpy())
    assert tuple(nn.Flatten()(glia.zeros(2, 3, 4)).shape) == (2, 12)
    assert tuple(nn.Unflatten(1, (2, 3))(glia.zeros(4, 6)).shape) == (4, 2, 3)


def test_losses():
    a, t = T("act_in"), T("loss_tgt")
    cls = T("loss_cls")
    close(nn.MSELoss()(a, t), A["loss_mse"])
    close(nn.L1Loss(reduction="sum")(a, t), A["loss_l1"], 1e-4)
    close(nn.SmoothL1Loss(beta=0.5)(a, t), A["loss_sl1"])
    close(nn.HuberLoss(delta=2.0)(a, t), A["loss_huber"])
    close(nn.NLLLoss()(glia.log_softmax(a, 1), cls), A["loss_nll"])
    close(nn.CrossEntropyLoss(label_smoothing=0.1)(a, cls), A["loss_ce"])
    close(nn.CrossEntropyLoss(reduction="none")(a, cls), A["loss_ce_none"])
    close(nn.BCELoss()(T("loss_prob"), T("loss_bt")), A["loss_bce"])
    close(nn.BCEWithLogitsLoss()(a, T("loss_bt")), A["loss_bcel"])
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        nn.MSELoss(reduction="foo")


def test_dropout_train_eval():
    d = nn.Dropout(0.5)
    x = glia.ones(1000)
    y = d(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 300 < (y == 0).sum() < 700
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), np.ones(1000))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_constructor_errors():
    with pytest.raises(RuntimeError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)


def test_sequential_api():
    a, b, c = nn.ReLU(), nn.Linear(2, 2), nn.Tanh()
    s = nn.Sequential(a, b)
    assert len(s) == 2 and s[0] is a and s[-1] is b and list(s) == [a, b]
    s.append(c)
    assert s[2] is c and list(s.state_dict()) == ["1.weight", "1.bias"]
    sl = s[1:]
    assert list(sl._modules) == ["1", "2"] and sl[0] is b
    d = nn.Identity()
    s.insert(0, d)
    assert list(s) == [d, a, b, c]
    assert list(s.state_dict()) == ["2.weight", "2.bias"]
    s[0] = nn.Sigmoid()
    assert isinstance(s[0], nn.Sigmoid)
    with pytest.raises(IndexError, match="index 7 is out of range"):
        s[7]
    od = nn.Sequential(OrderedDict([("conv", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert list(od._modules) == ["conv", "act"] and od.conv is od[0]
    x = glia.randn(3, 2)
    np.testing.assert_allclose(nn.Sequential()(x).numpy(), x.numpy())


def test_module_list_api():
    ms = [nn.Linear(1, 1) for _ in range(3)]
    ml = nn.ModuleList(ms[:2])
    ml.append(ms[2])
    assert len(ml) == 3 and list(ml) == ms and ml[-1] is ms[2]
    ml.extend([nn.ReLU()])
    ml.insert(1, nn.Tanh())
    assert isinstance(ml[1], nn.Tanh) and ml[2] is ms[1]
    ml[0] = nn.Sigmoid()
    assert isinstance(ml[0], nn.Sigmoid)
    sub = ml[1:3]
    assert isinstance(sub, nn.ModuleList) and list(sub._modules) == ["0", "1"] and sub[1] is ms[1]
    assert list(ml.state_dict()) == ["2.weight", "2.bias", "3.weight", "3.bias"]
    with pytest.raises(NotImplementedError):
        ml(glia.ones(1))


def test_module_dict_api():
    relu = nn.ReLU()
    md = nn.ModuleDict({"b": relu, "a": nn.Linear(1, 1)})
    assert list(md.keys()) == ["b", "a"] and md["b"] is relu and "a" in md and len(md) == 2
    md["c"] = nn.Tanh()
    assert [k for k, _ in md.items()] == ["b", "a", "c"] and list(md.values())[0] is relu
    assert list(md.state_dict()) == ["a.weight", "a.bias"]
    with pytest.raises(KeyError):
        md["zz"]


def test_parameter_containers():
    p = nn.Parameter(glia.zeros(2, 3))
    pl = nn.ParameterList([p, glia.ones(2)])
    assert pl[0] is p and isinstance(pl[1], nn.Parameter) and pl[1].requires_grad and len(pl) == 2
    pl.append(glia.zeros(1))
    assert list(pl.state_dict()) == ["0", "1", "2"]
    pd = nn.ParameterDict({"b": glia.zeros(3), "a": p})
    assert list(pd.keys()) == ["a", "b"] and pd["a"] is p
    pd["c"] = glia.ones(1)
    assert list(pd.state_dict()) == ["a", "b", "c"] and "c" in pd

    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([glia.zeros(2)])

    assert list(Holder().state_dict()) == ["ps.0"]


def test_mixed_python_and_builtin_modules():
    class Twice(nn.Module):
        def forward(self, x):
            return x * 2

    lin = nn.Linear(2, 2)
    s = nn.Sequential(Twice(), lin)
    x = glia.randn(4, 2)
    expected = (x.numpy() * 2) @ lin.weight.detach().numpy().T + lin.bias.detach().numpy()
    close(s(x), expected)
    assert repr(s) == "Sequential(\n  (0): Twice()\n  (1): Linear(in_features=2, out_features=2, bias=True)\n)"


def test_init_functions():
    w = glia.empty(64, 32)
    nn.init.constant_(w, 0.5)
    assert np.all(w.numpy() == 0.5)
    nn.init.ones_(w)
    assert np.all(w.numpy() == 1)
    nn.init.zeros_(w)
    assert np.all(w.numpy() == 0)
    nn.init.eye_(w)
    np.testing.assert_array_equal(w.numpy(), np.eye(64, 32, dtype=np.float32))
    nn.init.uniform_(w, -0.1, 0.1)
    assert w.numpy().min() >= -0.1 and w.numpy().max() <= 0.1
    nn.init.normal_(w, 0, 0.02)
    assert abs(w.numpy().std() - 0.02) < 0.003
    nn.init.xavier_uniform_(w)
    assert np.abs(w.numpy()).max() <= np.sqrt(6 / 96) + 1e-6
    nn.init.xavier_normal_(w)
    nn.init.kaiming_uniform_(w, a=0, mode="fan_in", nonlinearity="relu")
    assert np.abs(w.numpy()).max() <= np.sqrt(2) * np.sqrt(3 / 32) + 1e-6
    nn.init.kaiming_normal_(w, mode="fan_out")
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert np.abs(w.numpy()).max() <= 0.5
    q = glia.empty(4, 6)
    nn.init.orthogonal_(q)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, np.eye(4), atol=1e-5)
    for k, v in J["gains"].items():
        assert nn.init.calculate_gain(k) == pytest.approx(v)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(J["gain_lrelu_02"])
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        nn.init.calculate_gain("foo")
    lin = nn.Linear(3, 3)
    nn.init.zeros_(lin.weight)  # parameters that require grad: no autograd history
    assert lin.weight.requires_grad and lin.weight.is_leaf


def test_init_dirac_sparse_and_deprecated_aliases():
    w = glia.full((4, 2, 3), 7.0)
    nn.init.dirac_(w)
    expected = np.zeros((4, 2, 3), np.float32)
    expected[0, 0, 1] = expected[1, 1, 1] = 1  # torch: w[d, d, k // 2] = 1 for d < min(out, in)
    np.testing.assert_array_equal(w.numpy(), expected)
    g = glia.full((6, 4, 3, 3), 7.0)
    nn.init.dirac_(g, groups=2)
    e = np.zeros((6, 4, 3, 3), np.float32)
    for grp in range(2):
        for d in range(3):
            e[grp * 3 + d, d, 1, 1] = 1
    np.testing.assert_array_equal(g.numpy(), e)
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        nn.init.dirac_(glia.empty(3, 4))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        nn.init.dirac_(glia.empty(3, 2, 3), groups=2)
    s = glia.empty(50, 40)
    nn.init.sparse_(s, 0.1)
    assert np.all((s.numpy() == 0).sum(axis=0) == 5)  # ceil(0.1 * 50) per column
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.sparse_(glia.empty(2, 2, 2), 0.5)
    with pytest.warns(UserWarning, match=r"nn.init.uniform is now deprecated in favor of nn.init.uniform_."):
        out = nn.init.uniform(s, -0.25, 0.25)
    assert out is s and np.abs(s.numpy()).max() <= 0.25
    for name in ("normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
                 "kaiming_normal", "orthogonal", "sparse"):
        assert getattr(nn.init, name).__name__ == name


def test_clip_grad():
    p = nn.Parameter(glia.zeros(4))
    (p * glia.tensor([3.0, 4.0, 0.0, 0.0])).sum().backward()
    total = nn.utils.clip_grad_norm_([p], 1.0)
    assert float(total) == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8, 0, 0], rtol=1e-4)
    nn.utils.clip_grad_value_(p, 0.7)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.7, 0, 0], rtol=1e-4)


def test_container_reprs_as_torch():
    # torch 1.13's texts for the same calls
    assert repr(nn.ParameterList([nn.Parameter(glia.zeros(2, 3))])) == (
        "ParameterList(  (0): Parameter containing: [torch.float32 of size 2x3])")
    assert repr(nn.ParameterDict({"b": nn.Parameter(glia.zeros(3)), "a": nn.Parameter(glia.zeros(2))})) == (
        "ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of size 2]\n"
        "    (b): Parameter containing: [torch.FloatTensor of size 3]\n)")
    assert repr(nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})) == "ModuleDict(\n  (b): ReLU()\n  (a): Tanh()\n)"
    assert repr(nn.Sequential(nn.ReLU(), nn.Linear(1, 2))[1:]) == (
        "Sequential(\n  (1): Linear(in_features=1, out_features=2, bias=True)\n)")
    assert repr(nn.ModuleList([nn.ReLU(), nn.Tanh()])[1:]) == "ModuleList(\n  (0): Tanh()\n)"


def test_buffers_seen_through_attributes_after_dtype_change():
    """torch: after .double() the module's attributes are the converted buffers (issue 21's fix on the way)."""
    net = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    bn = net[1]
    w = bn.weight
    net.double()
    assert bn.running_mean.dtype == glia.float64 and bn.running_var.dtype == glia.float64
    assert bn.num_batches_tracked.dtype == glia.int64
    assert bn.weight is w and w.dtype == glia.float64  # parameters keep their identity
    net.train()
    net(glia.tensor(np.linspace(-1, 2, 12).reshape(4, 3)))
    sd = net.state_dict()
    np.testing.assert_array_equal(bn.running_mean.numpy(), sd["1.running_mean"].numpy())
    assert int(bn.num_batches_tracked) == 1
    assert np.any(bn.running_mean.numpy() != 0)
    net.float()
    assert bn.running_var.dtype == glia.float32
    np.testing.assert_allclose(bn.running_var.numpy(), sd["1.running_var"].numpy(), rtol=1e-6)


def test_parameter_str_is_its_repr():
    p = nn.Parameter(glia.tensor([0.0, 1.5]))
    assert str(p) == repr(p) == "Parameter containing:\ntensor([0.0000, 1.5000], requires_grad=True)"


def test_conv_transpose2d_has_torchs_attributes():
    # torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2) in torch 1.13
    m = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2)
    assert (m.in_channels, m.out_channels, m.kernel_size) == (4, 2, (3, 3))
    assert (m.stride, m.padding, m.output_padding, m.dilation) == ((2, 2), (1, 1), (1, 1), (1, 1))
    assert (m.groups, m.padding_mode, m.transposed) == (2, "zeros", True)
    assert m.weight.shape == (4, 1, 3, 3)
