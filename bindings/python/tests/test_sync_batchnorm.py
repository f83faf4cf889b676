"""nn.SyncBatchNorm: torch 1.13's module surface in one process (BatchNorm without a process group or in a
world of one), and with 2 and 3 ranks on 127.0.0.1 (_dist_worker.py's "syncbn" scenario): outputs and
gradients equal BatchNorm1d's on the concatenated batch."""

from datetime import timedelta

import numpy as np
import pytest

import glia
import glia.distributed as dist
from glia import nn

from test_distributed import spawn


@pytest.mark.skipif(not dist.is_gloo_available(), reason="libglia was built without Gloo")
@pytest.mark.parametrize("world", [2, 3])
def test_sync_batch_norm_matches_batch_norm_on_the_whole_batch(world, tmp_path):
    spawn("syncbn", world, "file", str(tmp_path / "store"))


def _pair(**kw):
    ref = nn.BatchNorm2d(3, **kw)
    sbn = nn.SyncBatchNorm(3, **kw)
    with glia.no_grad():
        for m in (ref, sbn):
            if m.weight is not None:
                m.weight.copy_(glia.tensor([0.5, -1.0, 2.0]))
                m.bias.copy_(glia.tensor([0.1, 0.2, -0.3]))
    return ref, sbn


@pytest.mark.parametrize("kw", [{}, {"momentum": None}, {"affine": False}, {"track_running_stats": False}])
def test_without_a_process_group_it_is_batch_norm(kw):
    assert not dist.is_initialized()
    ref, sbn = _pair(**kw)
    assert repr(sbn) == repr(ref).replace("BatchNorm2d", "SyncBatchNorm")
    assert list(sbn.state_dict()) == list(ref.state_dict())
    x = glia.from_numpy(np.linspace(-2, 2, 2 * 3 * 4 * 4).reshape(2, 3, 4, 4).astype(np.float32))
    for _ in range(2):
        np.testing.assert_allclose(sbn(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    for (k, a), (k2, b) in zip(sbn.state_dict().items(), ref.state_dict().items()):
        assert k == k2
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    sbn.eval(), ref.eval()
    np.testing.assert_allclose(sbn(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_world_of_one_is_batch_norm(tmp_path):
    dist.init_process_group("gloo", store=dist.FileStore(str(tmp_path / "s"), 1), rank=0, world_size=1,
                            timeout=timedelta(seconds=10))
    try:
        ref, sbn = _pair()
        x = glia.ones(2, 3, 2, 2) * glia.arange(4.0).reshape(1, 1, 2, 2)
        np.testing.assert_allclose(sbn(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    finally:
        dist.destroy_process_group()


def test_checks_and_state_dict_loading():
    sbn = nn.SyncBatchNorm(3, process_group=None)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        sbn(glia.ones(3))
    with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(glia.ones(2, 0))
    ref = nn.BatchNorm2d(3)
    ref(glia.ones(2, 3, 2, 2) * 3)
    sbn.load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(sbn.running_mean.numpy(), ref.running_mean.numpy())
    assert sbn.num_batches_tracked.item() == 1


def test_convert_sync_batchnorm_replaces_every_batch_norm():
    net = nn.Sequential(nn.Conv2d(1, 3, 1), nn.BatchNorm2d(3, eps=1e-3), nn.Sequential(nn.BatchNorm1d(2)))
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert out is net
    assert type(net[1]) is nn.SyncBatchNorm and net[1].eps == 1e-3 and type(net[2][0]) is nn.SyncBatchNorm
    bn = nn.BatchNorm3d(5, affine=False)
    sbn = nn.SyncBatchNorm.convert_sync_batchnorm(bn, process_group="pg")
    assert type(sbn) is nn.SyncBatchNorm and sbn.weight is None and sbn.process_group == "pg"
    assert sbn.running_var is bn.running_var
