"""torch's lazy modules through glia.nn against torch 1.13 (tests/golden/gen_lazy.py -> modules/lazy.json):
classes, reprs and state-dict entries before and after the first forward, outputs after loading a
checkpoint, loading before any forward; UninitializedParameter / UninitializedBuffer behaviour and texts;
seeded initialisation equal to the ordinary class's; lazy modules inside containers."""

import builtins
import json
import os
import warnings

import numpy as np
import pytest

import glia
from glia import nn
from glia.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

from _repo import ROOT

with open(os.path.join(ROOT, "tests", "golden", "modules", "lazy.json")) as _f:
    FIX = json.load(_f)

_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64}
_DT = {"float32": glia.float32, "float64": glia.float64}

pytestmark = pytest.mark.filterwarnings("ignore:Lazy modules are a new feature")


def _t(values, shape, dtype):
    return glia.tensor(np.array(values, dtype=_NP[dtype]).reshape(shape))


def _build(name, args, dtype=None):
    a = dict(args)
    if isinstance(a.get("kernel_size"), list):
        a["kernel_size"] = tuple(a["kernel_size"])
    return getattr(nn, name)(**a, dtype=dtype)


def _entries(m):
    return [[k, None if is_lazy(v) else list(v.size())] for k, v in m.state_dict().items()]


def _close(got, want, dtype):
    tol = 1e-10 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(np.asarray(got.detach().numpy(), np.float64).reshape(-1), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", FIX["cases"], ids=lambda c: c["module"] + json.dumps(c["args"]))
def test_lazy_module_matches_torch(case):
    dt = case["dtype"]
    x = _t(case["input"]["values"], case["input"]["shape"], dt)
    m = _build(case["module"], case["args"], _DT[dt])
    assert type(m).__name__ == case["before"]["type"]
    assert repr(m) == case["before"]["repr"]
    assert _entries(m) == case["before"]["entries"]
    assert m.has_uninitialized_params() == any(e[1] is None for e in case["before"]["entries"])
    m(x)
    assert type(m).__name__ == case["forward"]["type"]
    assert type(m) is getattr(nn, case["forward"]["type"])
    assert repr(m) == case["forward"]["repr"]
    assert _entries(m) == case["forward"]["entries"]
    for p in m.parameters():
        assert type(p) is nn.Parameter and p.dtype == _DT[dt] and p.requires_grad
    state = {k: _t(v["values"], v["shape"], v["dtype"]) for k, v in case["loaded"]["state"].items()}
    assert repr(m.load_state_dict(state)) == "<All keys matched successfully>"
    y = m(x)
    assert list(y.shape) == case["loaded"]["out_shape"]
    _close(y, case["loaded"]["out"], dt)
    for k, b in case["loaded"]["buffers"].items():
        _close(getattr(m, k), b["values"], "float64" if k == "num_batches_tracked" else dt)

    m2 = _build(case["module"], case["args"], _DT[dt])
    m2.load_state_dict(state)
    assert type(m2).__name__ == case["load_first"]["type"]
    assert repr(m2) == case["load_first"]["repr"]
    assert not m2.has_uninitialized_params()
    assert all(not is_lazy(t) for t in list(m2.parameters()) + list(m2.buffers()))
    y2 = m2(x)
    assert type(m2).__name__ == case["load_first"]["type_after"]
    assert repr(m2) == case["load_first"]["repr_after"]
    _close(y2, case["load_first"]["out"], dt)


@pytest.mark.parametrize("err", FIX["errors"], ids=lambda e: e["module"])
def test_first_forward_errors_are_torchs(err):
    m = _build(err["module"], err["args"])
    with pytest.raises(getattr(builtins, err["type"])) as e:
        m(glia.zeros(err["input_shape"]))
    assert err["message"] in str(e.value)
    assert type(m).__name__ == err["module"] and m.has_uninitialized_params()


def test_uninitialized_parameter_texts_and_allowed_methods():
    m = nn.LazyLinear(3)
    w = m.weight
    assert type(w) is UninitializedParameter and isinstance(w, nn.Parameter)
    assert repr(w) == "<UninitializedParameter>"
    assert repr(m.state_dict()["weight"]) == "<UninitializedParameter>"
    assert m.state_dict()["weight"] is w  # torch lists the placeholder itself
    assert tuple(w.size()) == (0,) and w.dtype == glia.float32 and w.requires_grad
    with pytest.raises(RuntimeError, match=r"Can't access the shape of an uninitialized parameter or buffer"):
        w.shape
    with pytest.raises(ValueError) as e:
        w.numel()
    assert str(e.value) == (
        "Attempted to use an uninitialized parameter in <method 'numel' of 'torch._C._TensorBase' objects>. "
        "This error happens when you are using a `LazyModule` or explicitly manipulating "
        "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call `forward` with a "
        "dummy batch to initialize the parameters before calling torch functions")
    with pytest.raises(ValueError, match="in <method 'add' of"):
        w + 1
    b = nn.LazyBatchNorm1d().running_mean
    assert type(b) is UninitializedBuffer and repr(b) == "<UninitializedBuffer>" and not b.requires_grad
    assert repr(UninitializedParameter()) == "<UninitializedParameter>"
    assert UninitializedBuffer(dtype=glia.float64).dtype == glia.float64
    m(glia.ones(2, 4))
    assert type(w) is nn.Parameter and m.weight is w and tuple(w.shape) == (3, 4)


def test_construction_warns_as_torch_and_keeps_torchs_attributes():
    with pytest.warns(UserWarning, match="Lazy modules are a new feature under heavy development"):
        m = nn.LazyConv2d(4, 3, stride=2)
    assert (m.in_channels, m.out_channels, m.kernel_size, m.stride) == (0, 4, (3, 3), (2, 2))
    assert isinstance(m, nn.Conv2d) and isinstance(m, nn.modules.lazy.LazyModuleMixin)
    assert m.cls_to_become is nn.Conv2d
    m(glia.ones(1, 5, 7, 7))
    assert m.in_channels == 5 and tuple(m.weight.shape) == (4, 5, 3, 3)
    assert not hasattr(m, "_initialize_hook") and not hasattr(m, "_check_hook")


def test_seeded_initialisation_equals_the_ordinary_class():
    glia.manual_seed(7)
    lazy = nn.LazyLinear(3)
    lazy(glia.ones(2, 5))
    glia.manual_seed(7)
    plain = nn.Linear(5, 3)
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), plain.weight.detach().numpy())
    np.testing.assert_array_equal(lazy.bias.detach().numpy(), plain.bias.detach().numpy())


def test_lazy_modules_inside_sequential_materialise_and_change_class():
    seq = nn.Sequential(nn.LazyConv1d(4, 3), nn.LazyBatchNorm1d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    y = seq(glia.ones(2, 3, 6))
    assert tuple(y.shape) == (2, 2)
    assert [type(c).__name__ for c in seq] == ["Conv1d", "BatchNorm1d", "ReLU", "Flatten", "Linear"]
    assert (seq[0].in_channels, seq[1].num_features, seq[4].in_features) == (3, 4, 16)
    assert [k for k, v in seq.state_dict().items() if is_lazy(v)] == []
    y.sum().backward()
    assert tuple(seq[4].weight.grad.shape) == (2, 16)


def test_loading_placeholders_and_into_ordinary_modules():
    lazy = nn.LazyLinear(2)
    lazy.load_state_dict(nn.LazyLinear(2).state_dict())  # placeholders into placeholders: still lazy
    assert lazy.has_uninitialized_params() and is_lazy(lazy.weight)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        nn.Linear(3, 2).load_state_dict(nn.LazyLinear(2).state_dict())
    # all-or-nothing: a size mismatch elsewhere leaves the lazy module untouched
    seq = nn.Sequential(nn.LazyLinear(2), nn.Linear(3, 2))
    bad = {"0.weight": glia.ones(2, 3), "0.bias": glia.ones(2), "1.weight": glia.ones(1, 2), "1.bias": glia.ones(2)}
    with pytest.raises(RuntimeError, match="size mismatch for 1.weight"):
        seq.load_state_dict(bad)
    assert seq[0].has_uninitialized_params() and type(seq[0]) is nn.LazyLinear


def test_initialize_parameters():
    m = nn.LazyBatchNorm2d(affine=False)
    m.initialize_parameters(glia.ones(2, 3, 4, 4))
    assert m.num_features == 3 and not m.has_uninitialized_params()
    assert type(m) is nn.LazyBatchNorm2d  # becomes BatchNorm2d at its next forward, as in torch
    np.testing.assert_array_equal(m.running_var.numpy(), np.ones(3, np.float32))
    m(glia.ones(2, 3, 4, 4))
    assert type(m) is nn.BatchNorm2d
    assert repr(m) == "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=True)"


@pytest.mark.parametrize("make", [lambda: nn.LazyLinear(3), lambda: nn.LazyConv2d(2, 3, padding=1),
                                  lambda: nn.LazyBatchNorm1d(momentum=0.2)])
def test_deepcopy_before_and_after_the_first_forward(make):
    import copy

    x = glia.ones(2, 4, 5, 5) if isinstance(make(), nn.LazyConv2d) else glia.ones(2, 4)
    m = make()
    target = type(m).cls_to_become
    c = copy.deepcopy(m)
    assert type(c) is type(m) and c.has_uninitialized_params() and is_lazy(c.weight) and c.weight is not m.weight
    y = c(x)
    assert type(c) is target
    m(x)
    d = copy.deepcopy(m)
    assert type(d) is type(m) and repr(d) == repr(m)
    assert all(type(p) is nn.Parameter for p in d.parameters())
    for (k, a), (k2, b) in zip(m.state_dict().items(), d.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert tuple(d(x).shape) == tuple(y.shape)


def test_to_keeps_placeholders_and_their_new_dtype():
    m = nn.LazyBatchNorm1d().double()
    assert type(m.running_mean) is UninitializedBuffer and m.running_mean.dtype == glia.float64
    assert type(m.weight) is UninitializedParameter and m.weight.dtype == glia.float64
    m(glia.ones(4, 3, dtype=glia.float64))
    assert type(m.running_mean) is glia.Tensor and m.running_mean.dtype == glia.float64
    assert tuple(m.running_mean.shape) == (3,) and type(m) is nn.BatchNorm1d
