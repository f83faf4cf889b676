"""No leaks across the binding: 10,000 training steps keep the library's bytes_in_use and Python's object
count flat; dropping a module releases its C handle without gc.collect()."""

import ctypes
import gc
import time
import weakref

import glia
from glia import nn, optim
from glia._ffi import C, check, byref
from glia import _ffi


def bytes_in_use():
    s = _ffi.glia_memory_stats()
    s.struct_size = ctypes.sizeof(s)
    check(C.glia_memory_stats_get(byref(s)))
    return s.bytes_in_use


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        self.register_buffer("calls", glia.zeros(1))

    def forward(self, x, scale=1.0):
        return self.body(x) * scale


def test_training_steps_do_not_grow_memory():
    glia.manual_seed(0)
    model = MLP()
    hook_calls = []
    model.register_forward_hook(lambda m, args, out: hook_calls.append(1) if len(hook_calls) < 1 else None)
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = glia.randn(8, 4)
    y = glia.tensor([0, 1, 0, 1, 1, 0, 0, 1])
    t0 = time.time()
    marks = {}
    for step in range(1, 10001):
        opt.zero_grad()
        loss = loss_fn(model(x, scale=0.5), y)
        loss.backward()
        opt.step()
        if step in (1000, 10000):
            del loss
            gc.collect()
            marks[step] = (bytes_in_use(), len(gc.get_objects()))
    elapsed = time.time() - t0
    assert marks[1000][0] == marks[10000][0], marks
    assert abs(marks[10000][1] - marks[1000][1]) < 50, marks
    assert elapsed < 60, elapsed


def test_dropping_module_releases_handle_without_gc():
    gc.collect()
    before = bytes_in_use()
    gc.disable()
    try:
        m = MLP()
        big = nn.Linear(256, 256)
        m.extra = big
        m.register_forward_pre_hook(lambda mod, args: None)
        m(glia.ones(1, 4))
        ref = weakref.ref(m)
        ref_big = weakref.ref(big)
        assert bytes_in_use() > before + 256 * 256 * 4
        del m, big
        assert ref() is None and ref_big() is None  # no cycle keeps them: reference counting frees them
        assert bytes_in_use() <= before
    finally:
        gc.enable()


def test_registry_entries_are_dropped():
    n0 = len(_ffi._registry)
    for _ in range(100):
        m = MLP()
        h = m.register_forward_hook(lambda *a: None)
        m.register_full_backward_hook(lambda *a: None)
        m(glia.ones(1, 4))
        h.remove()
        del m, h
    assert len(_ffi._registry) <= n0 + 1
