"""glia.distributed: torch.distributed's process groups and collectives over libglia's C API.

    import glia.distributed as dist
    dist.init_process_group("gloo")            # env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE (glia-run sets them)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)   # in place on every rank

The stores (FileStore, TCPStore, PrefixStore) are glia_store_*, the process group glia_process_group_*
(backend Gloo, CPU tensors), an asynchronous collective's handle glia_work_*; docs/distributed.md,
section "Python". new_group makes groups of the whole world only (the C API has no subgroups). The C
API's NCCL backend needs CUDA tensors, which this binding does not have (its tensors live on the CPU),
so here "nccl" is refused with torch's message for a backend a build lacks.
"""

import ctypes
import enum
import os
from datetime import timedelta
from urllib.parse import urlparse, parse_qs

from .. import _ffi
from .._ffi import C, c_void_p, c_int32, c_int64, c_size_t, byref
from .._tensor import Tensor

__all__ = [
    "Backend", "ReduceOp", "Store", "FileStore", "TCPStore", "PrefixStore", "ProcessGroup", "Work", "GroupMember",
    "group", "default_pg_timeout", "is_available", "is_gloo_available", "is_nccl_available", "is_mpi_available",
    "is_initialized", "init_process_group", "new_group", "destroy_process_group", "get_rank", "get_world_size", "get_backend",
    "all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter", "barrier", "BuiltinCommHookType",
    "GradBucket",
]

default_pg_timeout = timedelta(minutes=30)  # torch's (the C API's own default is 5 minutes)

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


def _check(err):
    """glia errors as torch.distributed raises them: RuntimeError (a timeout or a lost peer too)."""
    _ffi.check(err, codes={_ffi.GLIA_ERR_IO: RuntimeError})


def _ms(timeout):
    if timeout is None:
        return -1
    if not isinstance(timeout, timedelta):
        raise RuntimeError("Expected timeout argument to be of typedatetime.timedelta")
    return int(timeout.total_seconds() * 1000)


def is_available():
    return True


def is_gloo_available():
    v = c_int32()
    _check(C.glia_dist_is_gloo_available(byref(v)))
    return bool(v.value)


def is_nccl_available():
    return False  # the C API has NCCL process groups, but this binding's tensors are CPU tensors only


def is_mpi_available():
    return False


class Backend(str):
    """torch.distributed.Backend: Backend("GLOO") == "gloo"."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    TCP = "tcp"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend name must be a string, but got: {}".format(name))
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.TCP:
            raise ValueError(
                "TCP backend has been deprecated. Please use Gloo or MPI backend for collective operations on CPU "
                "tensors.")
        if value == Backend.UNDEFINED:
            raise ValueError("Invalid backend: '{}'".format(name))
        return value


class ReduceOp:
    """torch.distributed.ReduceOp (SUM, AVG, PRODUCT, MIN, MAX; the values are glia_reduce_op's)."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX


def _op(op):
    if isinstance(op, ReduceOp.RedOpType):
        return int(op)
    raise TypeError("op must be a torch.distributed.ReduceOp (SUM, AVG, PRODUCT, MIN or MAX), got {!r}".format(op))


# ---------------------------------------------------------------------------
# Stores


class Store:
    """torch.distributed.Store over a glia_store (FileStore, TCPStore, PrefixStore)."""

    _h = None

    def __del__(self, _release=C.glia_store_release, _free=C.glia_error_free):
        h, self._h = self._h, None
        if h:
            _free(_release(h))

    def set(self, key, value):
        if isinstance(value, str):
            value = value.encode()
        value = bytes(value)
        _check(C.glia_store_set(self._h, key.encode(), value, len(value)))

    def get(self, key):
        n = c_size_t(0)
        _check(C.glia_store_get(self._h, key.encode(), None, 0, byref(n)))
        buf = ctypes.create_string_buffer(max(1, n.value))
        _check(C.glia_store_get(self._h, key.encode(), buf, len(buf), byref(n)))
        return buf.raw[: n.value]

    def add(self, key, amount):
        out = c_int64()
        _check(C.glia_store_add(self._h, key.encode(), int(amount), byref(out)))
        return out.value

    def compare_set(self, key, expected_value, desired_value):
        e = expected_value.encode() if isinstance(expected_value, str) else bytes(expected_value)
        d = desired_value.encode() if isinstance(desired_value, str) else bytes(desired_value)
        n = c_size_t(0)
        buf = ctypes.create_string_buffer(max(len(e), len(d), 256))
        _check(C.glia_store_compare_set(self._h, key.encode(), e, len(e), d, len(d), buf, len(buf), byref(n)))
        if n.value > len(buf):  # the key held a longer value than both
            return self.get(key)
        return buf.raw[: n.value]

    @staticmethod
    def _keys(keys):
        if isinstance(keys, str):
            keys = [keys]
        raw = [k.encode() for k in keys]
        arr = (ctypes.POINTER(ctypes.c_char) * max(1, len(raw)))(
            *[ctypes.cast(ctypes.c_char_p(k), ctypes.POINTER(ctypes.c_char)) for k in raw])
        return arr, len(raw), raw  # raw keeps the bytes alive

    def wait(self, keys, timeout=None):
        arr, n, _raw = self._keys(keys)
        _check(C.glia_store_wait(self._h, arr, n, _ms(timeout)))

    def check(self, keys):
        arr, n, _raw = self._keys(keys)
        out = c_int32()
        _check(C.glia_store_check(self._h, arr, n, byref(out)))
        return bool(out.value)

    def delete_key(self, key):
        out = c_int32()
        _check(C.glia_store_delete_key(self._h, key.encode(), byref(out)))
        return bool(out.value)

    def num_keys(self):
        out = c_int64()
        _check(C.glia_store_num_keys(self._h, byref(out)))
        return out.value

    def set_timeout(self, timeout):
        _check(C.glia_store_set_timeout(self._h, _ms(timeout)))


class FileStore(Store):
    """torch.distributed.FileStore(file_name, world_size=-1): the last of world_size stores removes the file."""

    def __init__(self, file_name, world_size=-1):
        out = c_void_p()
        _check(C.glia_store_file_create(os.fsencode(file_name), int(world_size), byref(out)))
        self._h = out.value
        self.path = file_name


class TCPStore(Store):
    """torch.distributed.TCPStore(host_name, port, world_size=None, is_master=False, timeout=300 s):
    the master serves the keys (port 0: a free port, read back with .port)."""

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
                 wait_for_workers=True, multi_tenant=False):
        out = c_void_p()
        _check(C.glia_store_tcp_create(host_name.encode(), int(port), int(bool(is_master)), _ms(timeout), byref(out)))
        self._h = out.value
        self.host = host_name

    @property
    def port(self):
        p = c_int32()
        _check(C.glia_store_tcp_port(self._h, byref(p)))
        return p.value


class PrefixStore(Store):
    """torch.distributed.PrefixStore(prefix, store): keys become "<prefix>/<key>" in store."""

    def __init__(self, prefix, store):
        if not isinstance(store, Store):
            raise TypeError("PrefixStore: store must be a torch.distributed.Store, got {}".format(type(store).__name__))
        out = c_void_p()
        _check(C.glia_store_prefix_create(prefix.encode(), store._h, byref(out)))
        self._h = out.value
        self.underlying_store = store


# ---------------------------------------------------------------------------
# Process groups and work


class Work:
    """torch.distributed.Work: the handle of an asynchronous collective (async_op=True)."""

    def __init__(self, h, tensors):
        self._h = h
        self._tensors = tensors  # kept alive until the collective is done

    def __del__(self, _release=C.glia_work_release, _free=C.glia_error_free):
        h, self._h = self.__dict__.get("_h"), None
        if h:
            _free(_release(h))

    def wait(self, timeout=None):
        """Waits for the collective (timeout: a timedelta; None or 0 waits as long as it runs) and raises its error."""
        ms = _ms(timeout)
        _check(C.glia_work_wait(self._h, -1 if ms == 0 else ms))
        return True

    def is_completed(self):
        out = c_int32()
        _check(C.glia_work_is_completed(self._h, byref(out)))
        return bool(out.value)

    def is_success(self):
        if not self.is_completed():
            return False
        try:
            self.wait()
        except RuntimeError:
            return False
        return True

    def get_future(self):
        """A glia.futures.Future completed with the collective: its value is the list of the collective's
        tensors (torch's Work.get_future for allreduce-like collectives)."""
        from ..futures import Future

        tensors = self._tensors

        def waiter():
            self.wait()
            return list(tensors)

        waiter.is_completed = self.is_completed
        return Future._from_waiter(waiter)


class ProcessGroup:
    """torch's ProcessGroup over a glia_process_group (made by init_process_group)."""

    def __init__(self, h, backend, store):
        self._h = h
        self._backend = backend
        self._store = store

    def __del__(self, _release=C.glia_process_group_release, _free=C.glia_error_free):
        h, self._h = self.__dict__.get("_h"), None
        if h:
            _free(_release(h))

    def rank(self):
        out = c_int64()
        _check(C.glia_process_group_rank(self._h, byref(out)))
        return out.value

    def size(self):
        out = c_int64()
        _check(C.glia_process_group_size(self._h, byref(out)))
        return out.value

    def name(self):
        return str(self._backend).upper()

    def __repr__(self):
        return "<glia.distributed.ProcessGroup backend={} rank={} size={}>".format(self._backend, self.rank(),
                                                                                 self.size())


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = object()


group = GroupMember  # torch's dist.group.WORLD


def is_initialized():
    return GroupMember.WORLD is not None


def _get_default_group():
    if not is_initialized():
        raise RuntimeError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def _group(g):
    if g is None:
        return _get_default_group()
    if not isinstance(g, ProcessGroup):
        raise RuntimeError("Invalid process group specified")
    if g._h is None:
        raise RuntimeError("Invalid process group specified")
    return g


def _rendezvous(init_method, rank, world_size, timeout):
    """(store, rank, world_size) for an init_method URL, as torch's rendezvous handlers."""
    if not isinstance(init_method, str):
        raise RuntimeError("`url` must be a string. {}: {}".format(type(init_method), init_method))
    url = urlparse(init_method)
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    if rank != -1 or world_size != -1:
        if "rank" in query or "world_size" in query:
            raise AssertionError(
                "The url: {} has node-specific arguments(rank, world_size) already.".format(init_method))
        if rank != -1:
            query["rank"] = rank
        if world_size != -1:
            query["world_size"] = world_size

    def error(scheme, msg):
        return ValueError("Error initializing torch.distributed using {}:// rendezvous: {}".format(scheme, msg))

    if url.scheme == "env":
        def env(var):
            v = os.environ.get(var)
            if not v:
                raise error("env", "environment variable %s expected, but not set" % var)
            return v

        rank = int(query["rank"]) if "rank" in query else int(env("RANK"))
        world_size = int(query["world_size"]) if "world_size" in query else int(env("WORLD_SIZE"))
        host, port = env("MASTER_ADDR"), int(env("MASTER_PORT"))
    elif url.scheme == "tcp":
        if not url.port:
            raise error("tcp", "port number missing")
        if "rank" not in query:
            raise error("tcp", "rank parameter missing")
        if "world_size" not in query:
            raise error("tcp", "world size parameter missing")
        rank, world_size, host, port = int(query["rank"]), int(query["world_size"]), url.hostname, url.port
    elif url.scheme == "file":
        if not url.path:
            raise error("file", "path missing")
        if "rank" not in query:
            raise error("file", "rank parameter missing")
        if "world_size" not in query:
            raise error("file", "world size parameter missing")
        world_size = int(query["world_size"])
        return FileStore(url.path, world_size), int(query["rank"]), world_size
    else:
        raise RuntimeError("No rendezvous handler for {}://".format(url.scheme))
    if not 0 <= port < 2 ** 16:
        raise ValueError("port must have value from 0 to 65535 but was {}.".format(port))
    return TCPStore(host, port, world_size, rank == 0, timeout), rank, world_size


def init_process_group(backend, init_method=None, timeout=default_pg_timeout, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None):
    """torch.distributed.init_process_group: rendezvous through `store` (with rank and world_size) or
    `init_method` ("env://" by default, "tcp://host:port", "file:///path"), then connect to every rank."""
    if not isinstance(timeout, timedelta):
        raise RuntimeError("Expected timeout argument to be of typedatetime.timedelta")
    if GroupMember.WORLD is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    elif init_method is None:
        init_method = "env://"
    backend = Backend(backend)
    if backend != Backend.GLOO:  # torch's message for a backend this build lacks (NCCL needs CUDA tensors)
        raise RuntimeError("Distributed package doesn't have {} built in".format(backend.upper()))
    if pg_options is not None:
        raise RuntimeError("GLOO options not supported")
    if store is None:
        store, rank, world_size = _rendezvous(init_method, rank, world_size, timeout)
        store.set_timeout(timeout)
        store = PrefixStore("default_pg", store)  # as torch: room for other users of the same store
    GroupMember.WORLD = _create_group(store, rank, world_size, backend, timeout, group_name)


def _create_group(store, rank, world_size, backend, timeout, group_name):
    o = _ffi.glia_process_group_options()
    C.glia_process_group_options_init(byref(o))
    o.backend = _ffi.GLIA_DIST_BACKEND_GLOO
    o.timeout_ms = _ms(timeout)
    name = (group_name or "").encode() or None
    o.group_name = name
    out = c_void_p()
    _check(C.glia_process_group_create(store._h, int(rank), int(world_size), byref(o), byref(out)))
    pg = ProcessGroup(out.value, backend, store)
    _groups.append(pg)
    return pg


_groups = []  # every live group, the default one first
_group_count = 0  # names the groups of new_group, as torch's


def new_group(ranks=None, timeout=default_pg_timeout, backend=None, pg_options=None):
    """torch.distributed.new_group over the whole world (ranks None or every rank): a second group with
    its own connections, made through the default group's store; every rank calls it, in the same order.
    A subset of the ranks raises (the C API has no subgroups yet)."""
    global _group_count
    default = _get_default_group()
    world, rank = default.size(), default.rank()
    if ranks is not None:
        ranks = sorted(ranks)
        if len(ranks) > world:
            raise RuntimeError(
                "the new group's world size should be less or equal to the world size set by init_process_group")
        for r in ranks:
            if r < 0 or r >= world:
                raise RuntimeError("The new group's rank should be within the the world_size set by "
                                   "init_process_group")
        if ranks != list(range(world)):
            raise RuntimeError("glia: new_group supports the whole world only (ranks=None or all {} ranks), got "
                               "ranks {}: the C API has no subgroups yet".format(world, ranks))
    backend = Backend(backend or default._backend)
    if backend != Backend.GLOO:
        raise RuntimeError("Distributed package doesn't have {} built in".format(backend.upper()))
    if pg_options is not None:
        raise RuntimeError("GLOO options not supported")
    _group_count += 1
    return _create_group(default._store, rank, world, backend, timeout, str(_group_count))


def destroy_process_group(group=None):
    """Releases a group (waiting for its queued collectives and closing its connections); the default
    one (group None or group.WORLD) and with it every group, as torch's."""
    global _group_count
    if group is None or group is GroupMember.WORLD:
        if GroupMember.WORLD is None:
            raise RuntimeError("Invalid process group specified")
        victims = list(_groups)
        GroupMember.WORLD = None
        _group_count = 0
    else:
        victims = [_group(group)]
    for pg in victims:
        if pg in _groups:
            _groups.remove(pg)
        h, pg._h = pg._h, None
        _check(C.glia_process_group_release(h))


def get_rank(group=None):
    return _group(group).rank()


def get_world_size(group=None):
    return _group(group).size()


def get_backend(group=None):
    return _group(group)._backend


# ---------------------------------------------------------------------------
# Collectives


def _check_single_tensor(param, name):
    if not isinstance(param, Tensor):
        raise RuntimeError(
            "Invalid function argument. Expected parameter `{}` to be of type torch.Tensor.".format(name))


def _check_tensor_list(param, name):
    if not isinstance(param, list) or not all(isinstance(p, Tensor) for p in param):
        raise RuntimeError(
            "Invalid function argument. Expected parameter `{}` to be of type List[torch.Tensor].".format(name))


def _finish(fn, args, tensors, async_op):
    if not async_op:
        _check(fn(*args, None))
        return None
    out = c_void_p()
    _check(fn(*args, byref(out)))
    return Work(out.value, tensors)


def _handles(tensors):
    return (c_void_p * max(1, len(tensors)))(*[t._h for t in tensors]), len(tensors)


class BuiltinCommHookType(enum.Enum):
    """torch's dist.BuiltinCommHookType, for DistributedDataParallel._register_builtin_comm_hook (BF16_COMPRESS is
    glia's addition: torch 1.13 has it as a Python hook only)."""

    ALLREDUCE = 0
    FP16_COMPRESS = 1
    BF16_COMPRESS = 2


class GradBucket:
    """torch's dist.GradBucket: what a DDP communication hook receives. buffer() is the bucket's flat
    gradient tensor (this rank's values; the hook's future must yield the averaged ones)."""

    def __init__(self, index, buffer, count, parameters):
        self._index = index
        self._buffer = buffer
        self._count = count
        self._parameters = parameters

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, buffer):
        self._buffer.copy_(buffer)

    def is_last(self):
        return self._index == self._count - 1

    def parameters(self):
        return list(self._parameters)

    def gradients(self):
        """Views of buffer() shaped as each parameter (torch's gradients())."""
        out, at = [], 0
        for p in self._parameters:
            n = p.numel()
            out.append(self._buffer[at:at + n].view(p.shape))
            at += n
        return out


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` over every rank, in place on each."""
    _check_single_tensor(tensor, "tensor")
    g = _group(group)
    return _finish(C.glia_process_group_all_reduce, (g._h, tensor._h, _op(op)), [tensor], async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Copies rank `src`'s tensor into every rank's."""
    _check_single_tensor(tensor, "tensor")
    g = _group(group)
    return _finish(C.glia_process_group_broadcast, (g._h, tensor._h, int(src)), [tensor], async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank `dst`'s tensor receives the reduction; the others' are unchanged."""
    _check_single_tensor(tensor, "tensor")
    g = _group(group)
    return _finish(C.glia_process_group_reduce, (g._h, tensor._h, int(dst), _op(op)), [tensor], async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] (world size of them) receives rank r's tensor."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    g = _group(group)
    arr, n = _handles(tensor_list)
    return _finish(C.glia_process_group_all_gather, (g._h, arr, n, tensor._h), list(tensor_list) + [tensor], async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """output receives the reduction over the ranks of their input_list[rank]."""
    _check_single_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    g = _group(group)
    arr, n = _handles(input_list)
    return _finish(C.glia_process_group_reduce_scatter, (g._h, output._h, arr, n, _op(op)),
                   [output] + list(input_list), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Returns (or completes) when every rank has entered it."""
    if device_ids is not None:
        raise RuntimeError("Function argument device_ids not supported for the selected backend gloo")
    g = _group(group)
    return _finish(C.glia_process_group_barrier, (g._h,), [], async_op)
