"""Conv1d, Conv3d, ConvTranspose1d, ConvTranspose3d, Unfold, Fold and their functionals: torch's reprs,
state-dict keys and shapes, forward values and gradients of modules loaded with torch's state dicts
(golden/gen_conv_nd_golden.py, PyTorch 1.13), and identities checked without torch."""

import json
import os

import numpy as np
import pytest

import glia
import glia.nn.functional as F
from glia import nn

with open(os.path.join(os.path.dirname(__file__), "golden", "conv_nd_golden.json")) as f:
    J = json.load(f)


def arr(spec):
    return np.array(spec["values"], dtype=np.float64).reshape(spec["shape"])


def T(spec, requires_grad=False):
    t = glia.from_numpy(arr(spec))
    return t.requires_grad_() if requires_grad else t


@pytest.mark.parametrize("expr", list(J["reprs"]))
def test_repr_keys_shapes(expr):
    m = eval(expr, {}, vars(nn))
    assert repr(m) == J["reprs"][expr]
    assert list(m.state_dict()) == J["state_keys"][expr]
    assert {n: list(p.shape) for n, p in m.named_parameters()} == J["param_shapes"][expr]


@pytest.mark.parametrize("expr", list(J["forward"]))
def test_forward_with_torch_state_dict(expr):
    case = J["forward"][expr]
    m = eval(expr, {}, vars(nn)).double()
    m.load_state_dict({k: T(v) for k, v in case["state"].items()})
    y = m(T(case["x"]))
    np.testing.assert_allclose(y.detach().numpy(), arr(case["y"]), rtol=1e-10, atol=1e-10)
    y.backward(glia.ones_like(y))
    for n, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy().reshape(-1), case["grads"][n], rtol=1e-10, atol=1e-10)


def test_conv_transpose_output_size():
    case = J["output_size"]
    m = nn.ConvTranspose1d(2, 3, 3, stride=3).double()
    m.load_state_dict({k: T(v) for k, v in case["state"].items()})
    y = m(T(case["x"]), output_size=[13])
    np.testing.assert_allclose(y.detach().numpy(), arr(case["y"]), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="requested an output size of"):
        m(T(case["x"]), output_size=[20])


def test_constructor_errors():
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv1d(2, 2, 3, groups=0)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv3d(3, 2, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv1d(2, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose3d'):
        nn.ConvTranspose3d(2, 2, 3, padding_mode="reflect")


def rand(*shape):
    return glia.from_numpy(np.random.RandomState(sum(shape)).randn(*shape))


def test_conv1d_is_conv2d_with_unit_height():
    x, w, b = rand(2, 4, 9), rand(6, 2, 3), rand(6)
    y = F.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=2)
    y2 = F.conv2d(x.unsqueeze(2), w.unsqueeze(2), b, stride=(1, 2), padding=(0, 1), dilation=(1, 2), groups=2)
    np.testing.assert_allclose(y.numpy(), y2.squeeze(2).numpy(), rtol=1e-12, atol=1e-12)
    yt = F.conv_transpose1d(x, rand(4, 3, 3), None, stride=2, output_padding=1)
    yt2 = F.conv_transpose2d(x.unsqueeze(2), rand(4, 3, 3).unsqueeze(2), None, stride=(1, 2), output_padding=(0, 1))
    np.testing.assert_allclose(yt.numpy(), yt2.squeeze(2).numpy(), rtol=1e-12, atol=1e-12)


def test_conv3d_with_unit_depth_is_conv2d():
    x, w = rand(1, 2, 5, 6), rand(3, 2, 2, 3)
    y = F.conv3d(x.unsqueeze(2), w.unsqueeze(2), None, padding=(0, 1, 1), stride=(1, 2, 1))
    y2 = F.conv2d(x, w, None, padding=1, stride=(2, 1))
    np.testing.assert_allclose(y.squeeze(2).numpy(), y2.numpy(), rtol=1e-12, atol=1e-12)


def test_fold_is_the_adjoint_of_unfold():
    x, c = rand(2, 3, 6, 7), rand(2, 3 * 6, 12)
    kw = dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(2, 2))
    u = F.unfold(x, **kw)
    assert list(u.shape) == [2, 18, 12]
    lhs = float((u * c).sum())
    rhs = float((x * F.fold(c, (6, 7), **kw)).sum())
    assert abs(lhs - rhs) < 1e-9 * max(1.0, abs(lhs))
    m = nn.Fold((6, 7), **kw)
    np.testing.assert_array_equal(m(c).numpy(), F.fold(c, (6, 7), **kw).numpy())
    np.testing.assert_array_equal(nn.Unfold(**kw)(x).numpy(), u.numpy())


def test_functional_errors():
    with pytest.raises(RuntimeError, match="Expected 2D \\(unbatched\\) or 3D \\(batched\\) input to conv1d"):
        F.conv1d(rand(1, 2, 3, 4), rand(2, 2, 1))
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a list of 3 values"):
        F.conv3d(rand(1, 2, 3, 3, 3), rand(2, 2, 1, 1, 1), stride=(1, 2))
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.unfold(rand(1, 2, 3, 3), 0)
