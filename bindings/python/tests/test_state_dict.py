"""state_dict / load_state_dict: key names, sharing, keep_vars, strict errors with torch's text, round trips."""

import os
import sys
from collections import OrderedDict

import numpy as np
import pytest

import glia
from glia import nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "golden"))
from nn_golden import J  # noqa: E402


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(glia.relu(self.fc1(x)))


def test_keys_values_share_storage():
    m = TwoLayer()
    sd = m.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert not sd["fc1.weight"].requires_grad
    with glia.no_grad():
        m.fc1.weight.fill_(2.0)
    assert np.all(sd["fc1.weight"].numpy() == 2.0)  # detached views of the module's storage
    kv = m.state_dict(keep_vars=True)
    assert kv["fc1.weight"] is m.fc1.weight
    assert list(m.state_dict(prefix="model.")) == ["model." + k for k in sd]


def test_round_trip_into_fresh_model():
    a, b = TwoLayer(), TwoLayer()
    r = b.load_state_dict(a.state_dict())
    assert r.missing_keys == [] and r.unexpected_keys == []
    assert repr(r) == J["all_matched_repr"] == "<All keys matched successfully>"
    x = glia.randn(5, 4)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    w = b.fc1.weight
    b.load_state_dict(TwoLayer().state_dict())
    assert b.fc1.weight is w  # load copies into the existing parameters


def test_missing_and_unexpected_strict_error_text():
    m = TwoLayer()
    before = m.fc1.weight.detach().numpy().copy()
    sd = m.state_dict()
    bad = OrderedDict(sd)
    del bad["fc2.bias"]
    bad["extra.weight"] = glia.zeros(1)
    bad["fc1.weight"] = glia.zeros(3, 4)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(bad)
    assert str(info.value) == J["err_missing_unexpected"]
    np.testing.assert_array_equal(m.fc1.weight.detach().numpy(), before)  # all or nothing
    r = m.load_state_dict(bad, strict=False)
    assert r.missing_keys == J["nonstrict_missing"] and r.unexpected_keys == J["nonstrict_unexpected"]
    assert repr(r) == J["nonstrict_repr"]
    missing, unexpected = r
    assert missing == ["fc2.bias"]
    assert np.all(m.fc1.weight.detach().numpy() == 0)


def test_size_mismatch_error_text():
    m = TwoLayer()
    bad = OrderedDict(m.state_dict())
    bad["fc1.weight"] = glia.zeros(3, 5)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(bad)
    # torch prints torch.Size([3, 5]); glia prints the shape as a list (its own text).
    expected = J["err_size"].replace("torch.Size(", "").replace("])", "]")
    assert str(info.value) == expected


def test_buffers_persistent_and_non_persistent():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("a", glia.zeros(2))
            self.register_buffer("b", glia.ones(2), persistent=False)
            self.bn = nn.BatchNorm1d(2)

    m = M()
    assert list(m.state_dict()) == ["a", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
                                    "bn.num_batches_tracked"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b", "bn.running_mean", "bn.running_var",
                                                 "bn.num_batches_tracked"]
    m.b = glia.full((2,), 5.0)  # reassigning keeps it non-persistent
    assert "b" not in m.state_dict()


def test_shared_parameter_listed_once():
    lin = nn.Linear(2, 2)
    s = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(s.parameters())) == 2
    assert list(s.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_save_load_file(tmp_path):
    if not hasattr(glia, "save"):
        pytest.skip("glia.save not available")
    m = TwoLayer()
    path = str(tmp_path / "m.pt")
    glia.save(m.state_dict(), path)
    m2 = TwoLayer()
    m2.load_state_dict(glia.load(path))
    x = glia.randn(2, 4)
    np.testing.assert_array_equal(m(x).detach().numpy(), m2(x).detach().numpy())
