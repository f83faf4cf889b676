"""torch.nn.functional's named variants: *_with_indices (always a pair), native_channel_shuffle and
gumbel_softmax (the Gumbel-max property and the straight-through gradient)."""

import numpy as np
import pytest

import glia
from glia.nn import functional as F


def test_with_indices_always_return_pairs():
    x = glia.tensor(np.linspace(-1, 1, 2 * 3 * 8 * 8, dtype=np.float32).reshape(2, 3, 8, 8)[..., ::-1].copy())
    for fn, ref, inp, args in (
            (F.max_pool1d_with_indices, F.max_pool1d, x.reshape(2, 3, 64), (3, 2)),
            (F.max_pool2d_with_indices, F.max_pool2d, x, (3, 2, 1)),
            (F.max_pool3d_with_indices, F.max_pool3d, x.reshape(2, 3, 4, 4, 4), (2,)),
            (F.adaptive_max_pool1d_with_indices, F.adaptive_max_pool1d, x.reshape(2, 3, 64), (5,)),
            (F.adaptive_max_pool2d_with_indices, F.adaptive_max_pool2d, x, ((3, 2),)),
            (F.adaptive_max_pool3d_with_indices, F.adaptive_max_pool3d, x.reshape(2, 3, 4, 4, 4), (2,))):
        out, idx = fn(inp, *args)  # return_indices defaults to False, yet both come back (torch's rule)
        want, want_idx = ref(inp, *args, return_indices=True)
        np.testing.assert_array_equal(out.numpy(), want.numpy())
        np.testing.assert_array_equal(idx.numpy(), want_idx.numpy())
        assert idx.dtype == glia.int64


def test_native_channel_shuffle():
    x = glia.arange(12, dtype=glia.float32).reshape(1, 6, 2)
    got = F.native_channel_shuffle(x, 3).numpy()
    np.testing.assert_array_equal(got[0, :, 0], [0, 4, 8, 2, 6, 10])


def test_gumbel_softmax_samples_follow_softmax_and_pass_gradient():
    glia.manual_seed(5)
    logits = glia.tensor([[1.0, 0.0, -1.0, 0.5]]).expand(20000, 4).contiguous()
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.numpy().sum(1), 1.0, rtol=1e-5)
    hard = F.gumbel_softmax(logits, hard=True)
    h = hard.numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and np.all(h.sum(1) == 1)
    p = np.exp([1.0, 0.0, -1.0, 0.5])
    p /= p.sum()
    freq = h.mean(0)  # argmax of logits + Gumbel noise is distributed as softmax(logits)
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / 20000)), (freq, p)
    # straight-through: the hard sample carries the soft sample's gradient.
    lg = glia.tensor([[0.3, -0.2, 0.1]], requires_grad=True)
    glia.manual_seed(9)
    y = F.gumbel_softmax(lg, tau=2.0, hard=True)
    (y * glia.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    glia.manual_seed(9)
    lg2 = glia.tensor([[0.3, -0.2, 0.1]], requires_grad=True)
    ys = F.gumbel_softmax(lg2, tau=2.0)
    (ys * glia.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    np.testing.assert_allclose(lg.grad.numpy(), lg2.grad.numpy(), rtol=1e-6)
    assert np.abs(lg.grad.numpy()).sum() > 0
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(lg, eps=1e-5)
