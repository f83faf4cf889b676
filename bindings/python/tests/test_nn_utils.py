"""torch.nn.utils (issue 21): weight_norm, spectral_norm, prune, parametrize, parametrizations.spectral_norm,
stateless.functional_call, fusion, convert_parameters and skip_init against torch 1.13's values
(tests/golden/gen_nn_utils.py -> tests/golden/nn_utils/), on built-in modules and Python-defined ones."""

import json
import os

import numpy as np
import pytest

import glia
import glia.nn as nn
import glia.nn.functional as F
import glia.nn.utils.parametrize as P
from glia.nn.utils import prune, stateless
from glia.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

from _repo import ROOT

GOLDEN = os.path.join(ROOT, "tests", "golden", "nn_utils")
with open(os.path.join(GOLDEN, "cases.json")) as _f:
    CASES = {c["name"]: c for c in json.load(_f)}


def cases(kind):
    return [c for c in CASES.values() if c["kind"] == kind]


def T(spec):
    return glia.tensor(np.array(spec["values"], dtype=np.float64).reshape(spec["shape"]).astype(np.float32))


def close(got, spec, rtol=1e-5, atol=2e-6, what=""):
    assert got is not None, what
    g = np.array(got.detach().tolist(), dtype=np.float64).reshape(spec["shape"])
    np.testing.assert_allclose(g, np.array(spec["values"]).reshape(spec["shape"]), rtol=rtol, atol=atol, err_msg=what)


def make(kind, case):
    m = {"linear": lambda: nn.Linear(4, 3), "conv2d": lambda: nn.Conv2d(2, 3, 3),
         "conv_transpose2d": lambda: nn.ConvTranspose2d(3, 2, 3),
         "square_linear": lambda: nn.Linear(3, 3), "pylinear": lambda: PyLinear(4, 3)}[kind]()
    with glia.no_grad():
        m.weight.copy_(T(case["weight"]))
        m.bias.copy_(T(case["bias"]))
    return m


class PyLinear(nn.Module):
    """A Python-defined module reading self.weight in its forward."""

    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(glia.zeros(o, i))
        self.bias = nn.Parameter(glia.zeros(o))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


def run(m, case):
    out = m(T(case["x"]))
    (out * T(case["c"])).sum().backward()
    return out


# ---- module tensor attributes --------------------------------------------------------------------------
def test_tensor_attribute_is_what_a_builtin_forward_reads():
    m = nn.Linear(2, 2)
    w = glia.tensor([[1.0, 2.0], [3.0, 4.0]])
    del m.weight
    with pytest.raises(AttributeError):
        m.weight
    m.weight = w * 2  # a non-leaf, plain tensor attribute
    x = glia.tensor([[1.0, 1.0]])
    assert m(x).tolist() == F.linear(x, w * 2, m.bias).tolist()
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.register_buffer("weight", w)
    del m.weight
    with pytest.raises(RuntimeError, match="has no parameter `weight`"):
        m(x)


# ---- weight_norm ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", cases("weight_norm"), ids=lambda c: c["name"])
def test_weight_norm(case):
    m = make(case["module"], case)
    assert nn.utils.weight_norm(m, dim=case["dim"]) is m
    assert list(m.state_dict().keys()) == case["keys"]
    close(m.weight_g, case["weight_g"], what="g")
    close(m.weight_v, case["weight_v"], what="v")
    out = run(m, case)
    close(out, case["out"], what="out")
    close(m.weight_g.grad, case["grad_g"], what="grad g")
    close(m.weight_v.grad, case["grad_v"], what="grad v")
    close(m.bias.grad, case["grad_bias"], what="grad bias")
    assert m.weight.requires_grad and not m.weight.is_leaf
    nn.utils.remove_weight_norm(m)
    assert list(m.state_dict().keys()) == case["removed_keys"]
    assert isinstance(m.weight, nn.Parameter)
    close(m.weight, case["removed_weight"], what="removed")


def test_weight_norm_python_module():
    case = CASES["weight_norm_linear_0"]
    m = make("pylinear", case)
    nn.utils.weight_norm(m)
    assert list(m.state_dict().keys()) == case["keys"]
    close(run(m, case), case["out"])
    close(m.weight_g.grad, case["grad_g"])
    close(m.weight_v.grad, case["grad_v"])


def test_weight_norm_errors():
    case = CASES["weight_norm_errors"]
    m = nn.Linear(4, 3)
    nn.utils.weight_norm(m)
    with pytest.raises(RuntimeError) as e:
        nn.utils.weight_norm(m)
    assert str(e.value) == case["twice"]["message"]
    with pytest.raises(ValueError) as e:
        nn.utils.remove_weight_norm(m, "bias")
    assert str(e.value) == case["remove_missing"]["message"]
    assert list(m.state_dict().keys()) == ["bias", "weight_g", "weight_v"]


@pytest.mark.parametrize("kind", ["linear", "conv2d"])
def test_weight_norm_loads_torch_checkpoint(kind):
    case = CASES["weight_norm_%s_0" % kind]
    m = nn.utils.weight_norm(make(kind, case))
    with glia.no_grad():
        m.weight_g.zero_()
        m.weight_v.zero_()
    m.load_state_dict(glia.load(os.path.join(GOLDEN, "weight_norm_%s.pt" % kind)))
    close(m(T(case["x"])), case["out"])


# ---- spectral_norm -------------------------------------------------------------------------------------
def spectral(case):
    m = make(case["module"], case)
    nn.utils.spectral_norm(m, n_power_iterations=case["n_power_iterations"])
    assert list(m.state_dict().keys()) == case["keys"]
    m.load_state_dict({"bias": T(case["bias"]), "weight_orig": T(case["weight"]), "weight_u": T(case["u0"]),
                       "weight_v": T(case["v0"])})
    return m


@pytest.mark.parametrize("case", cases("spectral_norm"), ids=lambda c: c["name"])
def test_spectral_norm(case):
    m = spectral(case)
    out1 = run(m, case)
    close(out1, case["out1"], what="out1")
    close(m.weight_u, case["u1"], what="u1")
    close(m.weight_v, case["v1"], what="v1")
    close(m.weight_orig.grad, case["grad_orig"], rtol=1e-4, atol=1e-5, what="grad orig")
    close(m.bias.grad, case["grad_bias"], what="grad bias")
    close(m(T(case["x"])), case["out2"], what="out2")
    close(m.weight_u, case["u2"], what="u2")
    m.eval()
    close(m(T(case["x"])), case["out_eval"], what="eval")
    close(m.weight_u, case["u2"], what="eval keeps u")
    close(m.weight, case["weight_eval"], what="weight")
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict().keys()) == case["removed_keys"]
    close(m.weight, case["removed_weight"])


def test_spectral_norm_draws_normalised_vectors():
    m = nn.utils.spectral_norm(nn.Conv2d(2, 3, 3))
    assert isinstance(m.weight_orig, nn.Parameter)
    assert m.weight_u.shape == (3,) and m.weight_v.shape == (18,)
    assert abs(float(m.weight_u.norm()) - 1) < 1e-6 and abs(float(m.weight_v.norm()) - 1) < 1e-6
    assert nn.utils.spectral_norm(nn.ConvTranspose2d(3, 2, 3)).weight_u.shape == (2,)  # dim 1


def test_spectral_norm_errors():
    case = CASES["spectral_norm_errors"]
    m = nn.utils.spectral_norm(nn.Linear(4, 3))
    for fn, key, exc in ((lambda: nn.utils.spectral_norm(m), "twice", RuntimeError),
                         (lambda: nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0), "iterations",
                          ValueError),
                         (lambda: nn.utils.remove_spectral_norm(m, "bias"), "remove_missing", ValueError)):
        with pytest.raises(exc) as e:
            fn()
        assert str(e.value) == case[key]["message"]


@pytest.mark.parametrize("kind", ["linear", "conv2d"])
def test_spectral_norm_loads_torch_checkpoint(kind):
    case = CASES["spectral_norm_%s_1" % kind]
    m = nn.utils.spectral_norm(make(kind, case))
    m.load_state_dict(glia.load(os.path.join(GOLDEN, "spectral_norm_%s.pt" % kind)))
    close(m(T(case["x"])), case["out1"])
    close(m.weight_u, case["u1"])


# ---- prune ---------------------------------------------------------------------------------------------
def with_python_module(kind):
    """(case, False) for every case, and (case, True) where PyLinear can stand in for the built-in Linear(4, 3)."""
    return [pytest.param(c, py, id=c["name"] + ("-python" if py else ""))
            for c in cases(kind) for py in (False, True) if not py or c["module"] == "linear"]


@pytest.mark.parametrize("case,python_module", with_python_module("prune"))
def test_prune(case, python_module):
    m = make("pylinear" if python_module else case["module"], case)
    for fn, kwargs in case["steps"]:
        kwargs = {k: float(v) if v == "inf" else v for k, v in kwargs.items()}
        if "importance_scores" in kwargs:
            s = m.weight_orig if hasattr(m, "weight_orig") else m.weight
            n = s.numel()
            kwargs["importance_scores"] = glia.linspace(2.0, -1.0, n).reshape(s.shape).abs()
        getattr(prune, fn)(m, "weight", **kwargs)
    assert prune.is_pruned(m)
    assert list(m.state_dict().keys()) == case["keys"]
    close(m.weight_mask, case["mask"], what="mask")
    close(m.weight, case["pruned_weight"], what="weight")
    close(run(m, case), case["out"], what="out")
    close(m.weight_orig.grad, case["grad_orig"], what="grad orig")
    prune.remove(m, "weight")
    assert not prune.is_pruned(m)
    assert list(m.state_dict().keys()) == case["removed_keys"]
    assert isinstance(m.weight, nn.Parameter)
    close(m.weight, case["removed_weight"], what="removed")


def test_prune_container_and_custom_mask():
    case = CASES["prune_l1_then_ln_conv"]
    m = make("conv2d", case)
    prune.l1_unstructured(m, "weight", amount=0.2)
    prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    hooks = [h for h in m._forward_pre_hooks.values() if isinstance(h, prune.BasePruningMethod)]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer) and len(hooks[0]) == 2
    case = CASES["prune_custom_linear"]
    m = make("linear", case)
    prune.custom_from_mask(m, "weight", T(case["mask_in"]))
    assert list(m.state_dict().keys()) == case["keys"]
    close(m(T(case["x"])), case["out"])


def test_prune_random():
    m = nn.Linear(5, 4)
    prune.random_unstructured(m, "weight", amount=0.35)
    assert int((m.weight_mask == 0).sum()) == 7
    assert float((m.weight == 0).sum()) >= 7
    m = nn.Conv2d(2, 6, 3)
    prune.random_structured(m, "weight", amount=0.5, dim=0)
    kept = (m.weight_mask.sum(dim=[1, 2, 3]) != 0).tolist()
    assert kept.count(True) == 3
    assert all(v in (0.0, 18.0) for v in m.weight_mask.sum(dim=[1, 2, 3]).tolist())


def test_prune_global():
    case = CASES["prune_global"]
    m1, m2 = make("linear", case["linear"]), make("conv2d", case["conv2d"])
    prune.global_unstructured([(m1, "weight"), (m2, "weight")], pruning_method=prune.L1Unstructured, amount=0.4)
    close(m1.weight_mask, case["mask_linear"])
    close(m2.weight_mask, case["mask_conv2d"])
    prune.global_unstructured([(m1, "weight"), (m2, "weight")], pruning_method=prune.L1Unstructured, amount=10)
    close(m1.weight_mask, case["mask2_linear"])
    close(m2.weight_mask, case["mask2_conv2d"])


def test_prune_errors():
    case = CASES["prune_errors"]
    for fn, key in ((lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5), "amount_float"),
                    (lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount="a"), "amount_type"),
                    (lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5), "amount_big"),
                    (lambda: prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0), "structured_1d"),
                    (lambda: prune.remove(nn.Linear(2, 2), "weight"), "remove_unpruned")):
        with pytest.raises(getattr(__builtins__, case[key]["type"], None) or Exception) as e:
            fn()
        assert type(e.value).__name__ == case[key]["type"]
        assert str(e.value) == case[key]["message"]
    m = nn.Linear(2, 2)
    with pytest.raises(ValueError):
        prune.l1_unstructured(m, "weight", amount=5)
    assert list(m.state_dict().keys()) == ["bias", "weight"]  # restored (re-registered last, as torch)


@pytest.mark.parametrize("kind", ["linear", "conv2d"])
def test_prune_loads_torch_checkpoint(kind):
    case = CASES["prune_l1_linear" if kind == "linear" else "prune_ln2_dim0_conv"]
    m = prune.identity(make(kind, case), "weight")
    m.load_state_dict(glia.load(os.path.join(GOLDEN, "prune_%s.pt" % kind)))
    close(m(T(case["x"])), case["out"])


# ---- parametrize ---------------------------------------------------------------------------------------
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Affine(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, X):
        return X * self.scale + 1.0

    def right_inverse(self, A):
        return (A - 1.0) / self.scale


class Split(nn.Module):
    def forward(self, A, B):
        return A + 2.0 * B

    def right_inverse(self, X):
        return X * 0.5, X * 0.25


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = nn.Parameter(glia.tensor(1.5))

    def forward(self, X):
        return X * self.s


PARAMETRIZATIONS = {"symmetric": Symmetric, "affine2": lambda: Affine(2.0), "affine3": lambda: Affine(3.0),
                    "split": Split, "scaled": Scaled}


@pytest.mark.parametrize("case,python_module", with_python_module("parametrize"))
def test_parametrize(case, python_module):
    m = make("pylinear" if python_module else case["module"], case)
    for name in case["parametrizations"]:
        assert P.register_parametrization(m, "weight", PARAMETRIZATIONS[name]()) is m
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert type(m).__name__ == "Parametrized" + P.type_before_parametrizations(m).__name__
    sd = m.state_dict()
    assert list(sd.keys()) == case["keys"]
    for k, v in case["state"].items():
        close(sd[k], v, what=k)
    close(m.weight, case["param_weight"], what="weight")
    close(run(m, case), case["out"], what="out")
    grads = dict(m.named_parameters())
    assert sorted(grads) == sorted(case["grads"])
    for k, v in case["grads"].items():
        close(grads[k].grad, v, what="grad " + k)
    if "assigned_state" in case:
        shape = tuple(m.weight.shape)
        n = int(np.prod(shape))
        m.weight = glia.linspace(0.5, -0.5, n).reshape(shape)
        for k, v in case["assigned_state"].items():
            close(m.state_dict()[k], v, what="assigned " + k)
    w = m.weight.detach().clone()
    P.remove_parametrizations(m, "weight", leave_parametrized=True)
    assert type(m).__name__ in ("Linear", "Conv2d", "PyLinear")
    assert list(m.state_dict().keys()) == case["removed_keys"]
    assert isinstance(m.weight, nn.Parameter)
    assert m.weight.tolist() == w.tolist()
    x = T(case["x"])
    assert np.allclose(m(x).tolist(), F.linear(x, w, m.bias).tolist() if case["module"] != "conv2d"
                       else F.conv2d(x, w, m.bias).tolist(), atol=1e-6)


def test_parametrize_cached_computes_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2.0

    m = P.register_parametrization(nn.Linear(3, 3), "weight", Counting())
    calls.clear()
    with P.cached():
        a = m.weight
        b = m.weight
        m(glia.ones(1, 3))
    assert len(calls) == 1 and a is b
    m.weight
    assert len(calls) == 2


def test_parametrize_remove_unparametrized_and_unsafe():
    case = CASES["parametrize_remove_unparametrized"]
    m = nn.Linear(3, 3)
    with glia.no_grad():
        m.weight.copy_(T(case["weight"]))
    P.register_parametrization(m, "weight", Symmetric())
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert list(m.state_dict().keys()) == case["removed_keys"]
    close(m.weight, case["removed_weight"])

    class Rows(nn.Module):
        def forward(self, X):
            return X[:2]

    case = CASES["parametrize_unsafe"]
    m = make("linear", case)
    P.register_parametrization(m, "weight", Rows(), unsafe=True)
    close(m.weight, case["weight_after"])
    m.bias = None  # the built-in's forward then reads the [2, 4] weight alone
    close(m(T(case["x"])), case["out"])


def test_parametrize_errors():
    case = CASES["parametrize_errors"]

    class Rows(nn.Module):
        def forward(self, X):
            return X[:2]

    for fn, key in ((lambda: P.register_parametrization(nn.Linear(3, 3), "foo", Symmetric()), "missing"),
                    (lambda: P.register_parametrization(nn.Linear(4, 3), "weight", Rows()), "shape"),
                    (lambda: P.remove_parametrizations(nn.Linear(3, 3), "weight"), "remove_missing"),
                    (lambda: P.remove_parametrizations(P.register_parametrization(nn.Linear(4, 3), "weight",
                                                                                  Split()),
                                                       "weight", leave_parametrized=False), "remove_split")):
        with pytest.raises(ValueError) as e:
            fn()
        assert str(e.value) == case[key]["message"]


@pytest.mark.parametrize("kind", ["linear", "conv2d"])
def test_parametrize_loads_torch_checkpoint(kind):
    case = CASES["parametrize_symmetric" if kind == "linear" else "parametrize_affine_conv"]
    m = make("square_linear" if kind == "linear" else kind, case)
    P.register_parametrization(m, "weight", Symmetric() if kind == "linear" else Affine(2.0))
    with glia.no_grad():
        m.parametrizations.weight.original.zero_()
    m.load_state_dict(glia.load(os.path.join(GOLDEN, "parametrize_%s.pt" % kind)))
    close(m(T(case["x"])), case["out"])


# ---- parametrizations.spectral_norm --------------------------------------------------------------------
@pytest.mark.parametrize("case", cases("parametrizations_spectral_norm"), ids=lambda c: c["name"])
def test_parametrizations_spectral_norm(case):
    m = make(case["module"], case)
    nn.utils.parametrizations.spectral_norm(m)
    assert list(m.state_dict().keys()) == case["keys"]
    m.load_state_dict({k: T(v) for k, v in case["state"].items()})
    close(run(m, case), case["out1"], what="out1")
    close(m.parametrizations.weight[0]._u, case["u1"], what="u1")
    close(m.parametrizations.weight[0]._v, case["v1"], what="v1")
    close(m.parametrizations.weight.original.grad, case["grad_orig"], rtol=1e-4, atol=1e-5, what="grad")
    m.eval()
    close(m(T(case["x"])), case["out_eval"], what="eval")


# ---- stateless.functional_call -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["linear", "pylinear"])
def test_functional_call(kind):
    case = CASES["functional_call_linear"]
    m = make(kind, case)
    w = m.weight
    w2 = T(case["weight2"]).requires_grad_()
    out = stateless.functional_call(m, {"weight": w2 * 1.0}, (T(case["x"]),))
    close(out, case["out"])
    assert m.weight is w and list(m.state_dict().keys()) == ["weight", "bias"]
    out.sum().backward()
    assert w2.grad is not None and w.grad is None
    close(m(T(case["x"])), {"shape": [2, 3], "values": F.linear(T(case["x"]), w, m.bias).flatten().tolist()})
    seq = nn.Sequential(m)
    close(stateless.functional_call(seq, {"0.weight": T(case["weight2"])}, T(case["x"])), case["out"])

    class Boom(Exception):
        pass

    def hook(mod, inputs):
        raise Boom()

    h = m.register_forward_pre_hook(hook)
    with pytest.raises(Boom):
        stateless.functional_call(m, {"weight": T(case["weight2"])}, (T(case["x"]),))
    h.remove()
    assert m.weight is w
    assert m(T(case["x"])).tolist() == F.linear(T(case["x"]), w, m.bias).tolist()


def test_functional_call_buffers():
    case = CASES["functional_call_bn"]
    bn = nn.BatchNorm1d(4)
    bn.eval()
    out = stateless.functional_call(bn, {"running_mean": T(case["running_mean"]),
                                         "running_var": T(case["running_var"])}, T(case["x"]))
    close(out, case["out"])
    assert bn.running_mean.tolist() == [0.0] * 4 and bn.running_var.tolist() == [1.0] * 4


# ---- fusion, convert_parameters, skip_init -------------------------------------------------------------
@pytest.mark.parametrize("kind", ["conv", "linear"])
def test_fusion(kind):
    case = CASES["fuse_%s_bn" % kind]
    m = make("conv2d" if kind == "conv" else "linear", case)
    bn = nn.BatchNorm2d(3) if kind == "conv" else nn.BatchNorm1d(3)
    with glia.no_grad():
        bn.weight.copy_(T(case["bn_weight"]))
        bn.bias.copy_(T(case["bn_bias"]))
        bn.running_mean.copy_(T(case["running_mean"]))
        bn.running_var.copy_(T(case["running_var"]))
    m.eval()
    bn.eval()
    fused = (fuse_conv_bn_eval if kind == "conv" else fuse_linear_bn_eval)(m, bn)
    assert fused is not m and isinstance(fused.weight, nn.Parameter)
    close(fused.weight, case["fused_weight"])
    close(fused.bias, case["fused_bias"])
    close(fused(T(case["x"])), case["out"])
    close(m.weight, case["weight"])  # the original is unchanged
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_linear_bn_eval(nn.Linear(2, 3), nn.BatchNorm1d(3))


def test_convert_parameters():
    case = CASES["parameters_to_vector"]
    m = make("linear", case)
    vec = nn.utils.parameters_to_vector(m.parameters())
    close(vec, case["vector"])
    w = m.weight
    nn.utils.vector_to_parameters(vec * 2, m.parameters())
    assert m.weight is w
    close(m.weight, {"shape": [3, 4], "values": [2 * v for v in case["weight"]["values"]]})
    close(m.bias, {"shape": [3], "values": [2 * v for v in case["bias"]["values"]]})
    with pytest.raises(TypeError) as e:
        nn.utils.vector_to_parameters([1.0], m.parameters())
    assert str(e.value) == case["not_tensor"]["message"]
    with pytest.raises(RuntimeError):
        nn.utils.vector_to_parameters(glia.zeros(5), m.parameters())
    close(m.bias, {"shape": [3], "values": [2 * v for v in case["bias"]["values"]]})  # unchanged on error


def test_skip_init():
    glia.manual_seed(0)
    want = glia.rand(3).tolist()
    glia.manual_seed(0)
    m = nn.utils.skip_init(nn.Linear, 5, 4)
    assert isinstance(m, nn.Linear) and m.weight.shape == (4, 5)
    assert glia.rand(3).tolist() == want  # no draw consumed by an initialisation
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)


# ---- parametrizations.orthogonal -----------------------------------------------------------------------
@pytest.mark.parametrize("case", cases("orthogonal"), ids=lambda c: c["name"])
def test_orthogonal(case):
    m = nn.Linear(case["in_features"], case["out_features"])
    with glia.no_grad():
        m.weight.copy_(T(case["weight"]))
        m.bias.copy_(T(case["bias"]))
    nn.utils.parametrizations.orthogonal(m, orthogonal_map=case["map"])
    reg = case["registered"]
    close(m.parametrizations.weight.original, reg["parametrizations.weight.original"], what="original")
    if case["in_features"] == case["out_features"]:  # the square case's base is the QR of the weight (no random columns)
        close(m.parametrizations.weight[0].base, reg["parametrizations.weight.0.base"], atol=1e-5, what="base")
    w = m.weight
    eye = np.eye(min(w.shape))
    got = np.array((w @ w.mT if w.shape[0] <= w.shape[1] else w.mT @ w).tolist())
    np.testing.assert_allclose(got, eye, atol=1e-5)  # orthogonal rows / columns
    assert list(m.state_dict().keys()) == case["keys"]
    m.load_state_dict({k: T(v) for k, v in case["state"].items()})
    close(m.weight, case["param_weight"], atol=1e-5, what="weight")
    close(run(m, case), case["out"], atol=1e-5, what="out")
    close(m.parametrizations.weight.original.grad, case["grad_orig"], rtol=1e-4, atol=1e-5, what="grad")


def test_orthogonal_errors():
    case = CASES["orthogonal_errors"]
    for fn, key in ((lambda: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), "bias"), "vector"),
                    (lambda: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr"), "bad_map")):
        with pytest.raises(ValueError) as e:
            fn()
        assert str(e.value) == case[key]["message"]
    m = nn.Linear(3, 3)
    with pytest.raises(NotImplementedError, match="linalg.solve"):
        nn.utils.parametrizations.orthogonal(m, orthogonal_map="cayley")
    assert list(m.state_dict().keys()) == ["weight", "bias"]


def test_parametrized_buffer_reaches_builtin_forward():
    case = CASES["parametrize_buffer_bn"]
    bn = nn.BatchNorm1d(4)
    bn.eval()
    with glia.no_grad():
        bn.running_mean.copy_(T(case["running_mean"]))
    P.register_parametrization(bn, "running_mean", Affine(2.0))
    assert list(bn.state_dict().keys()) == case["keys"]
    close(bn.parametrizations.running_mean.original, case["original"])
    close(bn(T(case["x"])), case["out"])
