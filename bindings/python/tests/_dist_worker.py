"""One rank of a test_distributed.py scenario, run as its own process.

    python _dist_worker.py SCENARIO RANK WORLD_SIZE INIT ADDRESS

RANK and WORLD_SIZE may be "-": the environment's (glia-run sets it).

INIT is "file" (ADDRESS: the store's path), "tcp" (ADDRESS: the port of a TCPStore the test serves),
"env" (init_method="env://", the variables set by the test) or "url" (ADDRESS: an init_method URL).
The rank checks its own results with assert and exits 0 when they hold.
"""

import os
import sys
from datetime import timedelta

import numpy as np

import glia
import glia.distributed as dist

TIMEOUT = timedelta(seconds=float(os.environ.get("GLIA_TEST_DIST_TIMEOUT", "30")))


def init(rank, world, how, address):
    if how == "file":
        store = dist.FileStore(address, world)
        dist.init_process_group("gloo", store=store, rank=rank, world_size=world, timeout=TIMEOUT)
    elif how == "tcp":
        store = dist.PrefixStore("run", dist.TCPStore("127.0.0.1", int(address), world, False, TIMEOUT))
        dist.init_process_group("gloo", store=store, rank=rank, world_size=world, timeout=TIMEOUT)
    elif how == "env":
        dist.init_process_group("gloo", timeout=TIMEOUT)
    else:
        dist.init_process_group("gloo", init_method=address, rank=rank, world_size=world, timeout=TIMEOUT)
    assert dist.is_initialized()
    assert dist.get_rank() == rank and dist.get_world_size() == world, (dist.get_rank(), dist.get_world_size())
    assert dist.get_backend() == "gloo"


def values(r):
    return np.array([r + 1.0, -0.5 * (r + 1), 2.0, 0.25 * r - 0.3], dtype=np.float32)


def collectives(rank, world):
    all_vals = np.stack([values(r) for r in range(world)])
    expected = {
        dist.ReduceOp.SUM: all_vals.sum(0), dist.ReduceOp.AVG: all_vals.mean(0),
        dist.ReduceOp.PRODUCT: all_vals.prod(0), dist.ReduceOp.MIN: all_vals.min(0),
        dist.ReduceOp.MAX: all_vals.max(0),
    }
    for op, want in expected.items():
        t = glia.from_numpy(values(rank))
        assert dist.all_reduce(t, op=op) is None
        np.testing.assert_allclose(t.numpy(), want, rtol=1e-6, err_msg=str(op))
    t = glia.tensor([rank + 1, 10 * rank], dtype=glia.int64)
    dist.all_reduce(t)
    assert t.tolist() == [sum(r + 1 for r in range(world)), sum(10 * r for r in range(world))], t.tolist()
    # async: the Work completes and the tensor then holds the sum
    t = glia.from_numpy(values(rank))
    work = dist.all_reduce(t, op=dist.ReduceOp.SUM, async_op=True)
    assert isinstance(work, dist.Work)
    assert work.wait() is True and work.is_completed()
    np.testing.assert_allclose(t.numpy(), all_vals.sum(0), rtol=1e-6)
    # broadcast from the last rank
    src = world - 1
    t = glia.from_numpy(values(rank))
    dist.broadcast(t, src=src)
    np.testing.assert_array_equal(t.numpy(), values(src))
    # reduce to rank 0: the others' tensors are unchanged
    t = glia.from_numpy(values(rank))
    dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
    np.testing.assert_array_equal(t.numpy(), all_vals.max(0) if rank == 0 else values(rank))
    # all_gather, synchronous and async
    outs = [glia.zeros(4) for _ in range(world)]
    dist.all_gather(outs, glia.from_numpy(values(rank)))
    for r in range(world):
        np.testing.assert_array_equal(outs[r].numpy(), values(r))
    outs = [glia.zeros(4) for _ in range(world)]
    dist.all_gather(outs, glia.from_numpy(values(rank)) * 2, async_op=True).wait()
    for r in range(world):
        np.testing.assert_array_equal(outs[r].numpy(), 2 * values(r))
    # reduce_scatter: rank r's input i is (r + 1) * (i + 1) * ones(3); rank i receives sum_r (r + 1) * (i + 1)
    out = glia.zeros(3)
    ins = [glia.full((3,), float((rank + 1) * (i + 1))) for i in range(world)]
    dist.reduce_scatter(out, ins, op=dist.ReduceOp.SUM)
    want = sum(r + 1 for r in range(world)) * (rank + 1)
    np.testing.assert_array_equal(out.numpy(), np.full(3, want, np.float32))
    # barrier, both ways
    dist.barrier()
    dist.barrier(async_op=True).wait()
    # a second group of the whole world, with its own connections; a subset is refused on every rank
    g = dist.new_group()
    assert dist.get_rank(g) == rank and dist.get_world_size(g) == world and dist.get_backend(g) == "gloo"
    t = glia.tensor([float(rank)])
    dist.all_reduce(t, group=g)
    assert t.tolist() == [float(sum(range(world)))]
    try:
        dist.new_group([0])
        raise AssertionError("new_group([0]) did not raise")
    except RuntimeError as e:
        assert "whole world only" in str(e), str(e)
    dist.destroy_process_group(g)
    dist.barrier()  # the default group goes on


def store_ops(rank, world, how, address):
    if how == "file":
        store = dist.FileStore(address + ".kv", world)
    else:
        store = dist.TCPStore("127.0.0.1", int(address), world, False, TIMEOUT)
    store = dist.PrefixStore("kv", store)
    store.set("rank%d" % rank, "value %d" % rank)
    assert store.add("arrived", 1) >= 1
    store.wait(["rank%d" % r for r in range(world)], timedelta(seconds=20))
    for r in range(world):
        assert store.get("rank%d" % r) == b"value %d" % r
    dist.barrier()
    assert int(store.get("arrived")) == world
    assert store.check(["rank0"]) and not store.check(["nobody"])


def make_model(seed):
    glia.manual_seed(seed)
    return glia.nn.Sequential(glia.nn.Linear(4, 8), glia.nn.Tanh(), glia.nn.Linear(8, 3))


def batch(n=12):
    x = glia.from_numpy(np.linspace(-1, 1, n * 4, dtype=np.float32).reshape(n, 4))
    y = glia.from_numpy(np.cos(np.linspace(0, 3, n * 3, dtype=np.float32)).reshape(n, 3))
    return x, y


def params_of(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def ddp_train(rank, world, bucket_cap_mb, steps=5, lr=0.1, hook=None, rtol=1e-5, as_view=False, static_graph=False):
    x, y = batch()
    n = x.shape[0] // world
    xs, ys = x[rank * n:(rank + 1) * n], y[rank * n:(rank + 1) * n]
    model = make_model(100 + rank)  # different on every rank: DDP broadcasts rank 0's
    ddp = glia.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb,
                                                   gradient_as_bucket_view=as_view, static_graph=static_graph)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    assert list(ddp.state_dict()) == ["module." + k for k in model.state_dict()]
    opt = glia.optim.SGD(ddp.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        glia.nn.functional.mse_loss(ddp(xs), ys).backward()
        opt.step()
    # the reference: one process, the whole batch, rank 0's initial weights
    ref = make_model(100)
    ropt = glia.optim.SGD(ref.parameters(), lr=lr)
    for _ in range(steps):
        ropt.zero_grad()
        glia.nn.functional.mse_loss(ref(x), y).backward()
        ropt.step()
    mine = params_of(model)
    for a, b in zip(mine, params_of(ref)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-2)
    # every rank's parameters identical (bitwise)
    for p in model.parameters():
        gathered = [glia.zeros_like(p.detach()) for _ in range(world)]
        dist.all_gather(gathered, p.detach())
        for g in gathered:
            np.testing.assert_array_equal(g.numpy(), p.detach().numpy())
    if as_view:  # the gradients are views of the bucket: their data one after the other, in the order
        # they arrived (the buckets were rebuilt after the first iteration): the last layer's bias first
        ps = list(model.parameters())[::-1]
        for a, b in zip(ps, ps[1:]):
            assert b.grad.data_ptr() == a.grad.data_ptr() + a.numel() * 4
    return mine


def ddp_hooks(rank, world):
    """Communication hooks: torch's default hooks as built-in C hooks and as Python hooks give the same
    bits; a Python hook of one's own sees each bucket in order; gradient_as_bucket_view."""
    from glia.distributed.algorithms.ddp_comm_hooks import default_hooks as dh
    from glia.futures import Future

    plain = ddp_train(rank, world, 25)
    # allreduce_hook through Python (wrapped, so not recognised as the built-in one)
    via_py = ddp_train(rank, world, 1e-5, hook=lambda s, b: dh.allreduce_hook(s, b))
    for a, b in zip(plain, via_py):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    for name in ("fp16_compress_hook", "bf16_compress_hook"):
        fn = getattr(dh, name)
        tol = 2e-3 if name.startswith("fp16") else 2e-2
        builtin = ddp_train(rank, world, 1e-5, hook=fn, rtol=tol)
        python = ddp_train(rank, world, 1e-5, hook=lambda s, b, fn=fn: fn(s, b), rtol=tol)
        for a, b in zip(builtin, python):
            np.testing.assert_array_equal(a, b)  # the same arithmetic in C and in Python
        assert any(not np.array_equal(a, b) for a, b in zip(builtin, plain)), name + " changed nothing"
    ddp_train(rank, world, 25, as_view=True)
    ddp_train(rank, world, 25, as_view=True, hook=dh.fp16_compress_hook, rtol=2e-3)

    seen = []

    def mine(state, bucket):
        seen.append((bucket.index(), bucket.is_last(), [tuple(g.shape) for g in bucket.gradients()],
                     [tuple(p.shape) for p in bucket.parameters()]))
        t = bucket.buffer()
        fut = dist.all_reduce(t, async_op=True).get_future()
        return fut.then(lambda f: f.value()[0] / state)

    model = make_model(3)
    ddp = glia.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1e-5)
    ddp.register_comm_hook(world, mine)
    x, y = batch()
    ref = make_model(3)
    # torch 1.13: the first iteration has one bucket in registration order; the buckets are then rebuilt in
    # the order the gradients arrived (the first bucket closes at 1 MiB whatever bucket_cap_mb)
    orders = [[(8, 4), (8,), (3, 8), (3,)], [(3,), (3, 8), (8,), (8, 4)]]
    for order in orders:
        seen.clear()
        model.zero_grad(), ref.zero_grad()
        glia.nn.functional.mse_loss(ddp(x), y).backward()
        glia.nn.functional.mse_loss(ref(x), y).backward()
        for p, q in zip(model.parameters(), ref.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)
        assert [s[0] for s in seen] == [0] and [s[1] for s in seen] == [True], seen
        assert seen[0][2] == seen[0][3] == order, seen
    assert Future is not None


def ddp_no_sync(rank, world):
    x, y = batch(24)
    n = x.shape[0] // world
    xs, ys = x[rank * n:(rank + 1) * n], y[rank * n:(rank + 1) * n]
    h = n // 2
    model = make_model(7)
    ddp = glia.nn.parallel.DistributedDataParallel(model)
    with ddp.no_sync():
        assert not ddp.require_backward_grad_sync
        (0.5 * glia.nn.functional.mse_loss(ddp(xs[:h]), ys[:h])).backward()
    # inside no_sync the gradient is this rank's own (its shards differ from the other ranks')
    local = make_model(7)
    (0.5 * glia.nn.functional.mse_loss(local(xs[:h]), ys[:h])).backward()
    for p, q in zip(model.parameters(), local.parameters()):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    assert ddp.require_backward_grad_sync
    (0.5 * glia.nn.functional.mse_loss(ddp(xs[h:]), ys[h:])).backward()
    ref = make_model(7)
    glia.nn.functional.mse_loss(ref(x), y).backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)


def fault(rank, world, how, address):
    """Rank 1 leaves without its collective: rank 0's fails within the group's timeout, naming it.
    Rank 1 leaves only once rank 0 says its group is connected (a key in a side store): leaving earlier
    could close a connection rank 0 was still setting up, and rank 0 would fail in init instead."""
    side = dist.FileStore(address + ".fault", world) if how == "file" else None
    if rank == 1:
        if side is not None:
            side.wait(["connected"], timedelta(seconds=20))
        os._exit(0)
    if side is not None:
        side.set("connected", "1")
    t = glia.ones(3)
    try:
        dist.all_reduce(t)
    except RuntimeError as e:
        assert "allreduce" in str(e), str(e)
        print("rank 0 got:", e)
        os._exit(0)
    raise AssertionError("all_reduce with a missing rank did not fail")


def syncbn(rank, world):
    """nn.SyncBatchNorm on this rank's rows of a batch against BatchNorm1d on the whole batch (float64):
    output, input gradient, the weight and bias gradients summed over the ranks, running statistics;
    eval mode; convert_sync_batchnorm."""
    import glia.nn as nn

    rng = np.random.default_rng(5)
    n, c, length = 3, 4, 5
    full = rng.standard_normal((n * world, c, length))
    w_out = rng.standard_normal((n * world, c, length))
    weight, bias = rng.standard_normal(c), rng.standard_normal(c)
    rows = slice(rank * n, (rank + 1) * n)

    ref = nn.BatchNorm1d(c, momentum=0.3, dtype=glia.float64)
    sbn = nn.SyncBatchNorm(c, momentum=0.3, dtype=glia.float64)
    assert repr(sbn) == "SyncBatchNorm(4, eps=1e-05, momentum=0.3, affine=True, track_running_stats=True)", repr(sbn)
    assert list(sbn.state_dict()) == list(ref.state_dict())
    with glia.no_grad():
        for m in (ref, sbn):
            m.weight.copy_(glia.from_numpy(weight))
            m.bias.copy_(glia.from_numpy(bias))
    x_full = glia.from_numpy(full.copy()).requires_grad_()
    y_ref = ref(x_full)
    (y_ref * glia.from_numpy(w_out)).sum().backward()
    for step in range(2):
        x = glia.from_numpy(full[rows].copy()).requires_grad_()
        y = sbn(x)
        np.testing.assert_allclose(y.detach().numpy(), y_ref.detach().numpy()[rows], rtol=1e-10, atol=1e-12)
        if step == 0:
            (y * glia.from_numpy(w_out[rows].copy())).sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), x_full.grad.numpy()[rows], rtol=1e-9, atol=1e-12)
            for name in ("weight", "bias"):
                g = getattr(sbn, name).grad.clone()
                dist.all_reduce(g)
                np.testing.assert_allclose(g.numpy(), getattr(ref, name).grad.numpy(), rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(sbn.running_mean.numpy(), ref.running_mean.numpy(), rtol=1e-10)
            np.testing.assert_allclose(sbn.running_var.numpy(), ref.running_var.numpy(), rtol=1e-10)
            ref(x_full)  # the same second step on the reference
    np.testing.assert_allclose(sbn.running_mean.numpy(), ref.running_mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(sbn.running_var.numpy(), ref.running_var.numpy(), rtol=1e-10)
    assert sbn.num_batches_tracked.item() == 2
    # eval: the running statistics, no communication
    sbn.eval(), ref.eval()
    x = glia.from_numpy(full[rows].copy())
    np.testing.assert_allclose(sbn(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-12)
    # convert_sync_batchnorm shares the parameters and buffers
    seq = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(seq)
    assert type(conv[1]) is nn.SyncBatchNorm and conv[1].weight is seq[1].weight
    assert conv[1].running_mean is seq[1].running_mean
    conv(glia.ones(2, 3) * (rank + 1))
    assert conv[1].num_batches_tracked.item() == 1


def main():
    scenario, rank, world, how, address = sys.argv[1:6]
    rank = int(os.environ["RANK"] if rank == "-" else rank)  # "-": from the launcher (glia-run)
    world = int(os.environ["WORLD_SIZE"] if world == "-" else world)
    init(rank, world, how, address)
    if scenario == "collectives":
        collectives(rank, world)
        if how in ("file", "tcp"):
            store_ops(rank, world, how, address)
    elif scenario == "fault":
        fault(rank, world, how, address)
    elif scenario == "ddp_hooks":
        ddp_hooks(rank, world)
    elif scenario == "syncbn":
        syncbn(rank, world)
    elif scenario == "ddp":
        ddp_train(rank, world, bucket_cap_mb=25)
        ddp_train(rank, world, bucket_cap_mb=1e-5)
        ddp_train(rank, world, bucket_cap_mb=1e-5, static_graph=True)
        ddp_no_sync(rank, world)
    else:
        raise SystemExit("unknown scenario " + scenario)
    dist.destroy_process_group()
    assert not dist.is_initialized()


if __name__ == "__main__":
    main()
