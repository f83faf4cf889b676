"""Removing members and container elements, and the non-recursive training attribute, vs torch 1.13
(expected keys, reprs and error texts were printed by torch 1.13)."""

from collections import OrderedDict

import pytest

import glia
from glia import nn


def test_delattr_parameter_buffer_child():
    lin = nn.Linear(2, 3)
    lin.register_buffer("b", glia.zeros(1))
    del lin.weight
    assert list(lin.state_dict()) == ["bias", "b"]  # torch: ['bias', 'b']
    assert [n for n, _ in lin.named_parameters()] == ["bias"]
    with pytest.raises(AttributeError, match=r"^'Linear' object has no attribute 'weight'$"):
        lin.weight
    with pytest.raises(AttributeError, match=r"'Linear' object has no attribute 'weight'"):
        del lin.weight
    with pytest.raises(AttributeError, match=r"'Linear' object has no attribute 'foo'"):
        delattr(lin, "foo")
    # The name is free again, for any kind.
    lin.weight = nn.Parameter(glia.ones(3, 2))
    assert list(lin.state_dict()) == ["bias", "weight", "b"]  # torch: parameters first
    assert lin(glia.ones(1, 2)).shape == (1, 3)

    seq = nn.Sequential(nn.ReLU(), nn.Tanh())
    delattr(seq, "0")  # delattr does not renumber
    assert list(seq._modules) == ["1"] and repr(seq) == "Sequential(\n  (1): Tanh()\n)"


def test_reassigning_a_name_to_another_kind():
    m = nn.Module()
    m.register_buffer("x", glia.zeros(1), persistent=False)
    m.x = nn.Parameter(glia.ones(1))  # torch: the buffer goes, the parameter comes
    assert list(m.state_dict()) == ["x"] and [n for n, _ in m.named_buffers()] == []
    with pytest.raises(TypeError, match="cannot assign .* as parameter 'x'"):  # torch too
        m.x = nn.ReLU()
    del m.x
    m.x = nn.ReLU()
    assert list(m.state_dict()) == [] and [n for n, _ in m.named_children()] == ["x"]


def test_training_attribute_is_not_recursive():
    m = nn.Sequential(nn.Linear(1, 1))
    m.training = False
    assert (m.training, m[0].training) == (False, True)  # torch: False True
    m[0].training = False
    m.training = True
    assert (m.training, m[0].training) == (True, False)
    m.train()
    assert m[0].training


def test_sequential_delitem_and_pop_renumber():
    relu, tanh, sig, elu = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.ELU()
    s = nn.Sequential(relu, tanh, sig)
    del s[0]
    assert list(s._modules) == ["0", "1"] and list(s) == [tanh, sig]  # torch 1.13: ['0', '1']
    assert repr(s) == "Sequential(\n  (0): Tanh()\n  (1): Sigmoid()\n)"
    assert s.pop(-1) is sig and list(s) == [tanh]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        del s[5]
    s = nn.Sequential(relu, tanh, sig, elu)
    del s[::2]
    assert list(s._modules) == ["0", "1"] and list(s) == [tanh, elu]  # torch: ['0', '1']
    x = glia.tensor([-1.0, 2.0])
    assert s(x).tolist() == pytest.approx(elu(tanh(x)).tolist())
    s = nn.Sequential(OrderedDict([("a", relu), ("b", tanh), ("c", sig)]))
    del s[1]
    assert list(s._modules) == ["0", "1"] and list(s) == [relu, sig]


def test_module_list_delitem_and_pop():
    relu, tanh, sig, elu = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.ELU()
    ml = nn.ModuleList([relu, tanh, sig])
    assert ml.pop(1) is tanh and list(ml._modules) == ["0", "1"]  # torch: Tanh() ['0', '1']
    del ml[0]
    assert list(ml._modules) == ["0"] and list(ml) == [sig]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        ml.pop(5)
    ml = nn.ModuleList([relu, tanh, sig, elu])
    del ml[1:3]
    assert list(ml._modules) == ["0", "1"] and list(ml) == [relu, elu]
    assert repr(ml) == "ModuleList(\n  (0): ReLU()\n  (1): ELU(alpha=1.0)\n)"
    assert list(nn.Sequential(ml).state_dict()) == []


def test_module_dict_pop_delitem_clear():
    relu, tanh = nn.ReLU(), nn.Tanh()
    d = nn.ModuleDict({"a": relu, "b": tanh, "c": nn.Linear(1, 1)})
    assert d.pop("a") is relu and list(d.keys()) == ["b", "c"]
    with pytest.raises(KeyError, match="zz"):
        d.pop("zz")
    with pytest.raises(KeyError, match="zz"):
        del d["zz"]
    del d["b"]
    assert list(d.keys()) == ["c"] and list(d.state_dict()) == ["c.weight", "c.bias"]
    d.clear()
    assert len(d) == 0 and list(d.state_dict()) == [] and repr(d) == "ModuleDict()"


def test_parameter_dict_pop_delitem_clear():
    a, b = nn.Parameter(glia.zeros(1)), nn.Parameter(glia.ones(1))
    pd = nn.ParameterDict({"a": a, "b": b})
    assert pd.pop("a") is a and list(pd.keys()) == ["b"] and list(pd.state_dict()) == ["b"]
    with pytest.raises(AttributeError, match=r"'ParameterDict' object has no attribute 'zz'"):
        pd.pop("zz")
    with pytest.raises(AttributeError, match=r"'ParameterDict' object has no attribute 'zz'"):
        del pd["zz"]
    c = nn.Parameter(glia.ones(2))
    pd["c"] = c
    k, v = pd.popitem()  # torch: the last key
    assert k == "c" and v is c and list(pd.keys()) == ["b"]
    del pd["b"]
    assert len(pd) == 0 and list(pd.state_dict()) == []
    with pytest.raises(KeyError, match="popitem\\(\\): dictionary is empty"):
        pd.popitem()
    pd.update({"x": nn.Parameter(glia.ones(1)), "y": nn.Parameter(glia.ones(1))})
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []
