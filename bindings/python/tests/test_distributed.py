"""glia.distributed and glia.nn.parallel.DistributedDataParallel (torch.distributed's API over the C API).

Multi-process tests start 2 or 3 ranks of _dist_worker.py on 127.0.0.1 (each checks its own results
and exits 0); every rank has a deadline after which the test kills and reaps all of them, so nothing
hangs. The single-process reference of the DDP scenarios is the oracle (docs/distributed.md).
"""

import os
import shutil
import socket
import subprocess
import sys
from datetime import timedelta

import numpy as np
import pytest

import glia
import glia.distributed as dist
from _repo import python_env

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_dist_worker.py")
DEADLINE = 90  # seconds for a whole scenario

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="libglia was built without Gloo")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(scenario, world, how, address, extra_env=None):
    """Runs `world` ranks; fails with every rank's output when one fails or the deadline passes."""
    procs = []
    for rank in range(world):
        env = python_env()
        env["OMP_NUM_THREADS"] = "1"
        if extra_env:
            env.update(extra_env)
            env["RANK"] = str(rank)  # for env://
        procs.append(subprocess.Popen([sys.executable, WORKER, scenario, str(rank), str(world), how, str(address)],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    outputs, failed = [], []
    try:
        for rank, p in enumerate(procs):
            try:
                out, _ = p.communicate(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                failed.append("rank %d: did not finish within %d s" % (rank, DEADLINE))
                break
            outputs.append(out.decode(errors="replace"))
            if p.returncode != 0:
                failed.append("rank %d: exit status %d" % (rank, p.returncode))
    finally:
        for p in procs:  # nothing outlives the test
            if p.poll() is None:
                p.kill()
            p.wait()
    assert not failed, "\n".join(failed + ["--- rank %d ---\n%s" % r for r in enumerate(outputs)])


@pytest.fixture
def tcp_server():
    """A TCPStore served by the test on a port the kernel picked (port 0)."""
    server = dist.TCPStore("127.0.0.1", 0, None, True, timedelta(seconds=30))
    assert server.port > 0
    yield server


@pytest.mark.parametrize("world", [2, 3])
def test_collectives_file_store(world, tmp_path):
    spawn("collectives", world, "file", str(tmp_path / "store"))


@pytest.mark.parametrize("world", [2, 3])
def test_collectives_tcp_store(world, tcp_server):
    spawn("collectives", world, "tcp", tcp_server.port)


def test_collectives_env_init_method():
    port = _free_port()
    spawn("collectives", 2, "env", "-",
          extra_env={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "2"})


def test_collectives_tcp_and_file_urls(tmp_path):
    spawn("collectives", 2, "url", "tcp://127.0.0.1:%d" % _free_port())
    spawn("collectives", 3, "url", "file://" + str(tmp_path / "urlstore"))


@pytest.mark.parametrize("world,how", [(2, "file"), (3, "tcp")])
def test_ddp_matches_single_process(world, how, tmp_path, tcp_server):
    spawn("ddp", world, how, str(tmp_path / "store") if how == "file" else tcp_server.port)


def _netns_pair(tag):
    """Two network namespaces joined by a veth pair (10.77.N.1 and .2), or a reason why not."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return None, "needs root and iproute2's ip (CI runs as root)"
    a, b = "glia%sa%d" % (tag, os.getpid()), "glia%sb%d" % (tag, os.getpid())
    net = 77
    cmds = [["ip", "netns", "add", a], ["ip", "netns", "add", b],
            ["ip", "link", "add", "v" + a[-8:], "type", "veth", "peer", "name", "v" + b[-8:]],
            ["ip", "link", "set", "v" + a[-8:], "netns", a], ["ip", "link", "set", "v" + b[-8:], "netns", b],
            ["ip", "-n", a, "addr", "add", "10.%d.0.1/24" % net, "dev", "v" + a[-8:]],
            ["ip", "-n", b, "addr", "add", "10.%d.0.2/24" % net, "dev", "v" + b[-8:]],
            ["ip", "-n", a, "link", "set", "v" + a[-8:], "up"], ["ip", "-n", b, "link", "set", "v" + b[-8:], "up"],
            ["ip", "-n", a, "link", "set", "lo", "up"], ["ip", "-n", b, "link", "set", "lo", "up"]]
    for c in cmds:
        r = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            for ns in (a, b):
                subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return None, "`%s` failed: %s" % (" ".join(c), r.stdout.decode(errors="replace").strip())
    return [(a, "v" + a[-8:], "10.%d.0.1" % net), (b, "v" + b[-8:], "10.%d.0.2" % net)], None


def test_two_hosts_over_veth():
    """Two "machines": network namespaces joined by a veth pair, one glia-run per node (--nnodes 2), the
    TCP store and Gloo's connections over 10.77.0.x, not loopback: collectives and DDP."""
    runner = os.path.join(os.environ.get("GLIA_BUILD_DIR", ""), "tools", "glia-run", "glia-run")
    if not os.path.isfile(runner):
        pytest.skip("glia-run is not built in GLIA_BUILD_DIR (cmake --build build/release --target glia-run)")
    nodes, why = _netns_pair("n")
    if nodes is None:
        pytest.skip("two network namespaces are not available here: " + why)
    try:
        for scenario in ("collectives", "ddp"):
            procs = []
            for rank, (ns, ifname, _) in enumerate(nodes):
                env = python_env()
                env["GLOO_SOCKET_IFNAME"] = ifname  # Gloo's device on the veth, as on a real second host
                procs.append(subprocess.Popen(
                    ["ip", "netns", "exec", ns, runner, "--nnodes", "2", "--node-rank", str(rank),
                     "--nproc-per-node", "1", "--master-addr", nodes[0][2], "--master-port", "29511",
                     "--grace-period", "2", "--", sys.executable, WORKER, scenario, "-", "-", "env", "-"],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
            outs = []
            try:
                for p in procs:
                    outs.append(p.communicate(timeout=DEADLINE)[0].decode(errors="replace"))
            finally:
                for p in procs:
                    if p.poll() is None:
                        p.kill()
                    p.wait()
            assert all(p.returncode == 0 for p in procs), "\n".join(
                "--- node %d (exit %s) ---\n%s" % (i, p.returncode, o) for i, (p, o) in enumerate(zip(procs, outs)))
    finally:
        for ns, _, _ in nodes:
            subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_ddp_comm_hooks(tmp_path):
    spawn("ddp_hooks", 2, "file", str(tmp_path / "store"))


def test_under_glia_run():
    """A Python program under glia-run (torch's torchrun): init_process_group("gloo") from its environment."""
    runner = os.path.join(os.environ.get("GLIA_BUILD_DIR", ""), "tools", "glia-run", "glia-run")
    if not os.path.isfile(runner):
        pytest.skip("glia-run is not built in GLIA_BUILD_DIR (cmake --build build/release --target glia-run)")
    r = subprocess.run([runner, "--nproc-per-node", "3", "--", sys.executable, WORKER, "collectives", "-", "-", "env",
                        "-"], env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=DEADLINE)
    assert r.returncode == 0, r.stdout.decode(errors="replace")


def test_missing_rank_fails_within_timeout(tmp_path):
    spawn("fault", 2, "file", str(tmp_path / "store"), extra_env={"GLIA_TEST_DIST_TIMEOUT": "3"})


# ---------------------------------------------------------------------------
# One process: stores, errors, the DDP module's surface


@pytest.fixture
def group1(tmp_path):
    store = dist.FileStore(str(tmp_path / "g1"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=timedelta(seconds=10))
    try:
        yield
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


def test_not_initialized_errors():
    with pytest.raises(RuntimeError, match="^" + NOT_INIT):
        dist.new_group()
    assert not dist.is_initialized()
    for call in (dist.get_rank, dist.get_world_size, dist.get_backend, dist.barrier,
                 lambda: dist.all_reduce(glia.ones(2)), lambda: dist.broadcast(glia.ones(2), 0),
                 lambda: glia.nn.parallel.DistributedDataParallel(glia.nn.Linear(2, 2))):
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == NOT_INIT


def test_backend_errors(tmp_path):
    store = dist.FileStore(str(tmp_path / "b"), 1)
    with pytest.raises(RuntimeError, match="^Distributed package doesn't have NCCL built in$"):
        dist.init_process_group("nccl", store=store, rank=0, world_size=1)
    with pytest.raises(ValueError, match="^Invalid backend: 'foo'$"):
        dist.init_process_group("foo", store=store, rank=0, world_size=1)
    assert dist.Backend("GLOO") == "gloo" and dist.Backend.NCCL == "nccl"
    assert not dist.is_initialized()


def test_init_argument_errors(tmp_path, monkeypatch):
    store = dist.FileStore(str(tmp_path / "a"), 1)
    with pytest.raises(AssertionError, match="Cannot specify both init_method and store."):
        dist.init_process_group("gloo", init_method="env://", store=store, rank=0, world_size=1)
    with pytest.raises(AssertionError, match="world_size must be positive if using store"):
        dist.init_process_group("gloo", store=store, rank=0)
    with pytest.raises(AssertionError, match="rank must be non-negative if using store"):
        dist.init_process_group("gloo", store=store, world_size=1)
    with pytest.raises(RuntimeError, match="Expected timeout argument to be of type"):
        dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=5)
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError) as e:
        dist.init_process_group("gloo")
    assert str(e.value) == ("Error initializing torch.distributed using env:// rendezvous: environment variable "
                            "RANK expected, but not set")
    with pytest.raises(ValueError, match="tcp:// rendezvous: port number missing"):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1", rank=0, world_size=1)
    with pytest.raises(ValueError, match="file:// rendezvous: world size parameter missing"):
        dist.init_process_group("gloo", init_method="file://" + str(tmp_path / "f"), rank=0)
    with pytest.raises(RuntimeError, match=r"No rendezvous handler for udp://"):
        dist.init_process_group("gloo", init_method="udp://x:1", rank=0, world_size=1)
    # a rank outside the world: the C API's message, nothing initialised
    with pytest.raises(RuntimeError, match="rank"):
        dist.init_process_group("gloo", store=store, rank=1, world_size=1)
    assert not dist.is_initialized()


def test_init_twice_and_destroy(group1, tmp_path):
    assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
    with pytest.raises(RuntimeError, match="^trying to initialize the default process group twice!$"):
        dist.init_process_group("gloo", store=dist.FileStore(str(tmp_path / "x"), 1), rank=0, world_size=1)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match=NOT_INIT):
        dist.get_rank()


def test_collective_argument_errors(group1):
    with pytest.raises(RuntimeError, match="Expected parameter `tensor` to be of type torch.Tensor"):
        dist.all_reduce([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"Expected parameter `tensor_list` to be of type List\[torch.Tensor\]"):
        dist.all_gather((glia.ones(2),), glia.ones(2))
    with pytest.raises(TypeError, match="ReduceOp"):
        dist.all_reduce(glia.ones(2), op="sum")
    with pytest.raises(RuntimeError):  # broadcast from a rank that does not exist: C's check, tensor unchanged
        t = glia.ones(2)
        dist.broadcast(t, src=3)
    assert t.tolist() == [1.0, 1.0]


def test_world_of_one(group1):
    t = glia.tensor([1.0, -2.0])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX):
        dist.all_reduce(t, op=op)
        assert t.tolist() == [1.0, -2.0]
    work = dist.all_reduce(t, async_op=True)
    assert work.wait(timedelta(seconds=5)) and work.is_completed() and work.is_success()


def test_stores(tmp_path, tcp_server):
    fs = dist.FileStore(str(tmp_path / "kv"), 1)
    client = dist.TCPStore("127.0.0.1", tcp_server.port, None, False, timedelta(seconds=5))
    for i, store in enumerate((fs, tcp_server, client)):
        pre = "pre%d" % i
        p = dist.PrefixStore(pre, store)
        p.set("k", "v")
        p.set("b", b"\x00\x01")
        assert p.get("k") == b"v" and p.get("b") == b"\x00\x01"
        assert store.get(pre + "/k") == b"v"
        assert p.add("n", 5) == 5 and p.add("n", -2) == 3 and p.get("n") == b"3"
        assert p.compare_set("k", "v", "w") == b"w" and p.compare_set("k", "v", "x") == b"w"
        p.wait(["k", "n"])
        assert p.check(["k"]) and not p.check(["absent"])
        assert p.delete_key("b") and not p.delete_key("b")
        assert store.num_keys() >= 2
        p.set_timeout(timedelta(milliseconds=100))
        with pytest.raises(RuntimeError, match="absent"):
            p.get("absent")
        with pytest.raises(RuntimeError, match="absent"):
            p.wait(["absent"], timedelta(milliseconds=50))
        store.set_timeout(timedelta(seconds=30))
    fs2 = dist.FileStore(str(tmp_path / "kv"), 1)  # the same file: the same keys
    assert fs2.get("pre0/k") == b"w"
    assert tcp_server.get("pre2/k") == b"w"  # the client's keys live in the server


class Scaled(glia.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = glia.nn.Linear(3, 2)

    def forward(self, x, scale=1.0, extra=None):
        return {"out": self.lin(x) * scale, "extra": extra}


def test_ddp_module_surface(group1):
    glia.manual_seed(0)
    inner = Scaled()
    ddp = glia.nn.parallel.DistributedDataParallel(inner, bucket_cap_mb=1, gradient_as_bucket_view=True)
    assert ddp.module is inner
    assert list(ddp.state_dict()) == ["module.lin.weight", "module.lin.bias"]
    assert [n for n, _ in ddp.named_parameters()] == ["module.lin.weight", "module.lin.bias"]
    x = glia.ones(4, 3)
    # keywords and non-tensor values reach the wrapped module's forward; its result comes back as it was
    out = ddp(x, scale=2.0, extra="tag")
    assert out["extra"] == "tag"
    np.testing.assert_allclose(out["out"].detach().numpy(), (inner.lin(x) * 2.0).detach().numpy())
    out["out"].sum().backward()
    np.testing.assert_allclose(inner.lin.weight.grad.numpy(), np.full((2, 3), 8.0, np.float32))
    assert ddp.require_backward_grad_sync
    with ddp.no_sync():
        assert not ddp.require_backward_grad_sync
    assert ddp.require_backward_grad_sync
    sd = {k: v.clone() for k, v in ddp.state_dict().items()}
    assert not ddp.load_state_dict(sd).missing_keys
    with pytest.raises(ValueError, match="device_ids and output_device arguments only work"):
        glia.nn.parallel.DistributedDataParallel(glia.nn.Linear(2, 2), device_ids=[0])
    frozen = glia.nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="DistributedDataParallel is not needed when a module doesn't have any "
                                           "parameter that requires a gradient."):
        glia.nn.parallel.DistributedDataParallel(frozen)
    # DataParallel is torch's CPU behaviour (a pass-through; test_legacy_modules.py), not a multi-device one.
    assert glia.nn.DataParallel(glia.nn.Linear(2, 2)).device_ids == []


def test_ddp_comm_hook_surface(group1):
    from glia.distributed.algorithms.ddp_comm_hooks import default_hooks as dh
    from glia.futures import Future

    ddp = glia.nn.parallel.DistributedDataParallel(glia.nn.Linear(3, 2))
    with pytest.raises(TypeError, match="Communication hook must be callable."):
        ddp.register_comm_hook(None, 3)

    def bad_bucket(state, bucket: int):
        return None

    with pytest.raises(ValueError, match="bucket annotation should be dist.GradBucket"):
        ddp.register_comm_hook(None, bad_bucket)

    def bad_return(state, bucket) -> int:
        return None

    with pytest.raises(ValueError, match="return annotation should be torch.futures.Future"):
        ddp.register_comm_hook(None, bad_return)

    class Boom(Exception):
        pass

    def boom(state, bucket: dist.GradBucket) -> Future[glia.Tensor]:
        raise Boom("no network today")

    ddp.register_comm_hook(None, boom)
    with pytest.raises(RuntimeError, match="register_comm_hook or register_builtin_comm_hook can only be called once."):
        ddp.register_comm_hook(None, dh.allreduce_hook)
    with pytest.raises(RuntimeError, match="can only be called once"):
        ddp._register_builtin_comm_hook(dist.BuiltinCommHookType.FP16_COMPRESS)
    with pytest.raises(Boom, match="no network today"):  # the hook's own exception comes out of backward
        ddp(glia.ones(2, 3)).sum().backward()

    # the built-in fp16 hook on one rank: the gradient rounded to float16
    lin = glia.nn.Linear(3, 1)
    ddp = glia.nn.parallel.DistributedDataParallel(lin)
    ddp._register_builtin_comm_hook(dist.BuiltinCommHookType.FP16_COMPRESS)
    with pytest.raises(TypeError, match="expected a BuiltinCommHookType"):
        ddp._register_builtin_comm_hook(1)
    x = glia.tensor([[0.1, 0.2, 0.3]])
    (ddp(x) * 1.0001).sum().backward()
    np.testing.assert_array_equal(lin.weight.grad.numpy(),
                                  (x.numpy() * np.float32(1.0001)).astype(np.float16).astype(np.float32))


def test_futures():
    from glia.futures import Future, collect_all, wait_all

    f = Future()
    assert not f.done()
    g = f.then(lambda fut: fut.value() * 2)
    f.set_result(21)
    assert f.done() and f.value() == 21 and g.wait() == 42
    with pytest.raises(RuntimeError, match="Future can only be marked completed once."):
        f.set_result(1)
    e = Future()
    e.set_exception(ValueError("bad"))
    with pytest.raises(ValueError, match="bad"):
        e.wait()
    with pytest.raises(ValueError, match="bad"):  # a callback reading a failed future fails its own
        e.then(lambda fut: fut.value()).wait()
    assert e.then(lambda fut: "handled").wait() == "handled"
    with pytest.raises(TypeError, match="not an Exception"):
        Future().set_exception("text")
    assert wait_all([g, f]) == [42, 21]
    assert collect_all([f, g]).wait() == [f, g]
    calls = []
    h = Future()
    h.add_done_callback(lambda fut: calls.append(fut.value()))
    h.set_result(5)
    assert calls == [5]


class TwoHeads(glia.nn.Module):
    def __init__(self):
        super().__init__()
        self.used = glia.nn.Linear(2, 1)
        self.unused = glia.nn.Linear(2, 1)

    def forward(self, x):
        return self.used(x)


def test_ddp_unused_parameters(group1):
    ddp = glia.nn.parallel.DistributedDataParallel(TwoHeads())
    with pytest.raises(RuntimeError, match="Expected to have finished reduction in the prior iteration"):
        ddp(glia.ones(3, 2)).sum().backward()
    model = TwoHeads()
    ddp = glia.nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
    ddp(glia.ones(3, 2)).sum().backward()
    assert model.used.weight.grad.tolist() == [[3.0, 3.0]]
    # unused on every rank: its grad stays None, as torch's Reducer leaves it
    assert model.unused.weight.grad is None


def test_ddp_static_graph(group1):
    # the parameter unused in the first iteration is ready at once afterwards: no error, as
    # find_unused_parameters gives
    for make in (lambda m: glia.nn.parallel.DistributedDataParallel(m, static_graph=True),
                 lambda m: glia.nn.parallel.DistributedDataParallel(m)):
        model = TwoHeads()
        ddp = make(model)
        if not ddp.static_graph:
            ddp._set_static_graph()
        assert ddp.static_graph
        for _ in range(3):
            model.zero_grad()
            ddp(glia.ones(3, 2)).sum().backward()
            assert model.used.weight.grad.tolist() == [[3.0, 3.0]]
            assert model.unused.weight.grad is None
        with pytest.warns(UserWarning, match="You've set static_graph to be True, no need to set it again."):
            ddp._set_static_graph()
    ddp = glia.nn.parallel.DistributedDataParallel(glia.nn.Linear(2, 1))
    ddp(glia.ones(3, 2)).sum().backward()
    with pytest.raises(RuntimeError, match=r"set_static_graph\(\) should be called before training loop starts"):
        ddp._set_static_graph()
    assert not ddp.static_graph


def test_new_group(group1):
    g = dist.new_group()
    assert g is not dist.group.WORLD and dist.get_world_size(g) == 1 and dist.get_rank(g) == 0
    g2 = dist.new_group(ranks=[0], timeout=timedelta(seconds=5))
    t = glia.tensor([2.0])
    dist.all_reduce(t, op=dist.ReduceOp.PRODUCT, group=g2)
    assert t.tolist() == [2.0]
    with pytest.raises(RuntimeError, match="^the new group's world size should be less or equal to the world size"):
        dist.new_group([0, 1])
    with pytest.raises(RuntimeError, match="^The new group's rank should be within the the world_size"):
        dist.new_group([3])
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        dist.new_group(backend="nccl")
    dist.destroy_process_group(g2)
    with pytest.raises(RuntimeError, match="^Invalid process group specified$"):
        dist.get_rank(g2)
    dist.destroy_process_group()  # the default group and every other
    with pytest.raises(RuntimeError, match="^Invalid process group specified$"):
        dist.get_rank(g)
