"""glia.nn.functional against torch 1.13's results (golden/tensor_golden.json)."""

import warnings

import numpy as np
import pytest

import glia
import glia.nn.functional as F
from _golden import GOLDEN, assert_matches, env


@pytest.mark.parametrize("expr", sorted(GOLDEN["functional"]))
def test_functional_matches_torch(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_matches(eval(expr, env()), GOLDEN["functional"][expr], expr)


def test_reduction_strings_and_errors():
    a, b = glia.ones(3), glia.zeros(3)
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.mse_loss(a, b, reduction="bad")
    assert F.mse_loss(a, b, size_average=False).item() == 3.0  # legacy arguments, as torch
    with pytest.raises(TypeError, match=r"^linear\(\): argument 'weight' \(position 2\) must be Tensor, not list$"):
        F.linear(a, [1, 2, 3])
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(a, 1.5)
    with pytest.raises(ValueError, match="Using a target size"):
        F.binary_cross_entropy(glia.ones(3) * 0.5, glia.ones(2))


def test_dropout_is_seeded_and_scaled():
    glia.manual_seed(0)
    x = glia.ones(1000)
    y = F.dropout(x, 0.25)
    vals = set(np.unique(y.numpy()).tolist())
    assert vals <= {0.0, float(np.float32(1 / 0.75))} and len(vals) == 2
    kept = (y > 0).sum().item()
    assert 650 < kept < 850
    glia.manual_seed(0)
    assert F.dropout(x, 0.25).tolist() == y.tolist()
    assert F.dropout(x, 0.25, training=False) is not None


def test_inplace_variants():
    x = glia.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x and x.tolist() == [0.0, 2.0]
    y = glia.tensor([-1.0, 2.0])
    F.leaky_relu(y, 0.5, inplace=True)
    assert y.tolist() == [-0.5, 2.0]


def test_batch_norm_updates_running_stats_like_torch():
    x = glia.tensor(np.arange(24, dtype=np.float32).reshape(4, 3, 2) / 10)
    rm, rv = glia.zeros(3), glia.ones(3)
    F.batch_norm(x, rm, rv, training=True, momentum=0.1)
    # torch: running_mean = 0.9 * 0 + 0.1 * batch mean, running_var uses the unbiased variance
    xs = x.numpy().transpose(1, 0, 2).reshape(3, -1)
    np.testing.assert_allclose(rm.numpy(), 0.1 * xs.mean(1), rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * xs.var(1, ddof=1), rtol=1e-5)


def test_max_pool_indices_dtype():
    out, idx = F.max_pool2d(glia.arange(16.0).reshape(1, 1, 4, 4), 2, return_indices=True)
    assert idx.dtype is glia.int64 and idx.flatten().tolist() == [5, 7, 13, 15]
    assert out.flatten().tolist() == [5.0, 7.0, 13.0, 15.0]
