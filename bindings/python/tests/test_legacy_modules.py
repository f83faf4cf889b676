"""torch.nn's legacy and deprecated classes: CrossMapLRN2d (goldens from torch 1.13, gradient by finite
differences), NLLLoss2d, Container, DataParallel (torch's CPU pass-through), F.assert_int_or_pair."""

import json
import os

import numpy as np
import pytest

import glia
from glia import nn

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden", "legacy_golden.json")) as f:
    G = json.load(f)


def test_cross_map_lrn2d_matches_torch():
    for c in G["cross_map_lrn2d"]:
        x = glia.tensor(np.array(c["x"]).reshape(c["shape"]))
        y = nn.CrossMapLRN2d(c["size"], c["alpha"], c["beta"], c["k"])(x)
        np.testing.assert_allclose(y.numpy().ravel(), c["y"], rtol=1e-12, atol=1e-14)
    for ctor, text in G["reprs"].items():
        if ctor.startswith("CrossMapLRN2d"):
            assert repr(eval("nn." + ctor)) == text  # noqa: S307 - the generator's constructor calls
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        nn.CrossMapLRN2d(3)(glia.ones(2, 3, 4))


def test_cross_map_lrn2d_gradient_by_finite_differences():
    c = G["cross_map_lrn2d"][2]
    x0 = np.array(c["x"]).reshape(c["shape"])
    m = nn.CrossMapLRN2d(c["size"], c["alpha"], c["beta"], c["k"])
    w = np.cos(np.arange(x0.size)).reshape(x0.shape)
    x = glia.tensor(x0, requires_grad=True)
    (m(x) * glia.tensor(w)).sum().backward()
    num = np.zeros_like(x0)
    h = 1e-6
    for i in range(x0.size):
        d = np.zeros(x0.size)
        d[i] = h
        d = d.reshape(x0.shape)
        fp = float((m(glia.tensor(x0 + d)) * glia.tensor(w)).sum())
        fm = float((m(glia.tensor(x0 - d)) * glia.tensor(w)).sum())
        num.flat[i] = (fp - fm) / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_nllloss2d_container_and_assert_int_or_pair():
    with pytest.warns(UserWarning, match="NLLLoss2d has been deprecated"):
        loss = nn.NLLLoss2d()
    assert repr(loss) == G["reprs"]["NLLLoss2d()"]
    logp = glia.tensor(np.log(np.full((2, 3, 2, 2), 1 / 3)))
    t = glia.tensor(np.array([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]))
    assert float(loss(logp, t)) == pytest.approx(np.log(3))
    with pytest.warns(UserWarning, match="nn.Container is deprecated"):
        c = nn.Container(a=nn.Linear(2, 2), b=nn.ReLU())
    assert [n for n, _ in c.named_children()] == ["a", "b"]
    assert list(c.state_dict()) == ["a.weight", "a.bias"]
    nn.functional.assert_int_or_pair(3, "kernel_size", "{} must be int or pair")
    nn.functional.assert_int_or_pair((1, 2), "kernel_size", "{} must be int or pair")
    with pytest.raises(AssertionError, match="kernel_size must be int or pair"):
        nn.functional.assert_int_or_pair((1, 2, 3), "kernel_size", "{} must be int or pair")


def test_data_parallel_is_torchs_cpu_pass_through():
    lin = nn.Linear(2, 3)
    dp = nn.DataParallel(lin)
    assert dp.device_ids == [] and dp.module is lin
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert repr(dp) == G["reprs"]["DataParallel(Linear(2, 3))"]
    x = glia.ones(4, 2)
    np.testing.assert_array_equal(dp(x).detach().numpy(), lin(x).detach().numpy())
    with pytest.raises(RuntimeError, match="DataParallel over devices"):
        nn.DataParallel(lin, device_ids=[0, 1])
    assert nn.parallel.DataParallel is nn.DataParallel
