#!/usr/bin/python3
"""Golden fixtures of torch.nn.utils (issue 21, torch 1.13): weight_norm, spectral_norm, prune,
parametrize, parametrizations.spectral_norm, stateless.functional_call, fusion, convert_parameters.

  nn_utils/cases.json  one case per line: {"name", "kind", ...}; tensors as {"shape", "dtype", "data"}.
                       Module inputs (weights, x, the loss weights c) are in the case, so a reader builds
                       the same module; values after forward/backward, state-dict keys, error messages.
  nn_utils/*.pt        torch.save(module.state_dict()) of a weight-normed, spectral-normed, pruned and
                       parametrized Linear and Conv2d, for load tests.

Inputs are deterministic (linspace); the random u, v of spectral_norm come from torch.manual_seed and are
recorded in the case. Append new cases at the end.

    cd tests/golden && /usr/bin/python3 gen_nn_utils.py
"""

import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as P
from torch.nn.utils import prune
from torch.nn.utils import stateless
from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nn_utils")
os.makedirs(OUT, exist_ok=True)
CASES = []


def enc(t):
    if t is None:
        return None
    t = t.detach()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "values": t.double().flatten().tolist()}


def lin(shape, lo=-1.0, hi=1.3):
    n = math.prod(shape)
    return torch.linspace(lo, hi, n).reshape(shape)


def add(**case):
    CASES.append(case)


def make(kind):
    """A module of `kind` with linspace weights, an input x and loss weights c for its output."""
    if kind == "linear":
        m, x = nn.Linear(4, 3), lin((2, 4), -2.0, 2.0)
    elif kind == "conv2d":
        m, x = nn.Conv2d(2, 3, 3), lin((1, 2, 5, 5), -1.5, 1.0)
    elif kind == "conv_transpose2d":
        m, x = nn.ConvTranspose2d(3, 2, 3), lin((1, 3, 3, 3), -1.0, 1.5)
    else:
        raise ValueError(kind)
    with torch.no_grad():
        m.weight.copy_(lin(m.weight.shape))
        m.bias.copy_(lin(m.bias.shape, -0.5, 0.5))
    c = lin(m(x).shape, 0.3, -0.9)
    return m, x, c


def inputs(m, x, c):
    return {"weight": enc(m.weight), "bias": enc(m.bias), "x": enc(x), "c": enc(c)}


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return {"type": type(e).__name__, "message": str(e)}
    raise AssertionError("no error")


# ---- weight_norm --------------------------------------------------------------------------------------
for kind, dims in (("linear", [0, 1, None, -1, -2]), ("conv2d", [0, 1, 2, 3, None, -3])):
    for dim in dims:
        m, x, c = make(kind)
        case = {"name": "weight_norm_%s_%s" % (kind, dim), "kind": "weight_norm", "module": kind, "dim": dim}
        case.update(inputs(m, x, c))
        nn.utils.weight_norm(m, dim=dim)
        case["keys"] = list(m.state_dict().keys())
        case["weight_g"], case["weight_v"] = enc(m.weight_g), enc(m.weight_v)
        out = m(x)
        (out * c).sum().backward()
        case.update(out=enc(out), grad_g=enc(m.weight_g.grad), grad_v=enc(m.weight_v.grad),
                    grad_bias=enc(m.bias.grad))
        if dim == 0:
            torch.save(m.state_dict(), os.path.join(OUT, "weight_norm_%s.pt" % kind))
        nn.utils.remove_weight_norm(m)
        case["removed_keys"] = list(m.state_dict().keys())
        case["removed_weight"] = enc(m.weight)
        add(**case)

m, _, _ = make("linear")
nn.utils.weight_norm(m)
add(name="weight_norm_errors", kind="weight_norm_errors",
    twice=err(lambda: nn.utils.weight_norm(m)),
    remove_missing=err(lambda: nn.utils.remove_weight_norm(m, "bias")))

# ---- spectral_norm (the hook form) ------------------------------------------------------------------------
for kind, iters in (("linear", 1), ("linear", 3), ("conv2d", 1), ("conv_transpose2d", 2)):
    torch.manual_seed(0)
    m, x, c = make(kind)
    case = {"name": "spectral_norm_%s_%d" % (kind, iters), "kind": "spectral_norm", "module": kind,
            "n_power_iterations": iters}
    case.update(inputs(m, x, c))
    nn.utils.spectral_norm(m, n_power_iterations=iters)
    case["keys"] = list(m.state_dict().keys())
    case["u0"], case["v0"] = enc(m.weight_u.clone()), enc(m.weight_v.clone())
    if iters == 1 and kind in ("linear", "conv2d"):
        torch.save(m.state_dict(), os.path.join(OUT, "spectral_norm_%s.pt" % kind))
    out1 = m(x)
    (out1 * c).sum().backward()
    case.update(out1=enc(out1), u1=enc(m.weight_u.clone()), v1=enc(m.weight_v.clone()),
                grad_orig=enc(m.weight_orig.grad), grad_bias=enc(m.bias.grad))
    out2 = m(x)
    case.update(out2=enc(out2), u2=enc(m.weight_u.clone()), v2=enc(m.weight_v.clone()))
    m.eval()
    case["out_eval"] = enc(m(x))
    case["weight_eval"] = enc(m.weight)
    nn.utils.remove_spectral_norm(m)
    case["removed_keys"] = list(m.state_dict().keys())
    case["removed_weight"] = enc(m.weight)
    add(**case)

m, _, _ = make("linear")
nn.utils.spectral_norm(m)
add(name="spectral_norm_errors", kind="spectral_norm_errors",
    twice=err(lambda: nn.utils.spectral_norm(m)),
    iterations=err(lambda: nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)),
    remove_missing=err(lambda: nn.utils.remove_spectral_norm(m, "bias")))


# ---- prune ------------------------------------------------------------------------------------------------
def pruned(name, kind, steps, save=None):
    m, x, c = make(kind)
    case = {"name": name, "kind": "prune", "module": kind, "steps": steps}
    case.update(inputs(m, x, c))
    for step in steps:
        fn, kwargs = step[0], {k: float(v) if v == "inf" else v for k, v in step[1].items()}  # JSON has no inf
        if "importance_scores" in kwargs:
            kwargs["importance_scores"] = lin(m.weight_orig.shape if hasattr(m, "weight_orig") else m.weight.shape,
                                              2.0, -1.0).abs()
        getattr(prune, fn)(m, "weight", **kwargs)
    case["keys"] = list(m.state_dict().keys())
    case["mask"] = enc(m.weight_mask)
    case["pruned_weight"] = enc(m.weight)
    out = m(x)
    (out * c).sum().backward()
    case.update(out=enc(out), grad_orig=enc(m.weight_orig.grad), grad_bias=enc(m.bias.grad))
    if save:
        torch.save(m.state_dict(), os.path.join(OUT, save))
    prune.remove(m, "weight")
    case["removed_keys"] = list(m.state_dict().keys())
    case["removed_weight"] = enc(m.weight)
    add(**case)


pruned("prune_l1_linear", "linear", [("l1_unstructured", {"amount": 0.3})], save="prune_linear.pt")
pruned("prune_l1_int_linear", "linear", [("l1_unstructured", {"amount": 5})])
pruned("prune_l1_scores_linear", "linear", [("l1_unstructured", {"amount": 0.5, "importance_scores": True})])
pruned("prune_identity_linear", "linear", [("identity", {})])
pruned("prune_ln2_dim0_conv", "conv2d", [("ln_structured", {"amount": 0.34, "n": 2, "dim": 0})],
       save="prune_conv2d.pt")
pruned("prune_ln1_dim1_conv", "conv2d", [("ln_structured", {"amount": 1, "n": 1, "dim": 1})])
pruned("prune_lninf_last_conv", "conv2d", [("ln_structured", {"amount": 0.5, "n": "inf", "dim": -1})])
pruned("prune_l1_then_ln_conv", "conv2d", [("l1_unstructured", {"amount": 0.2}),
                                            ("ln_structured", {"amount": 1, "n": 2, "dim": 0}),
                                            ("l1_unstructured", {"amount": 0.25})])

m, x, c = make("linear")
mask = (lin((3, 4), 0.0, 1.0) > 0.4).float()
case = {"name": "prune_custom_linear", "kind": "prune_custom", "module": "linear", "mask_in": enc(mask)}
case.update(inputs(m, x, c))
prune.custom_from_mask(m, "weight", mask)
case.update(keys=list(m.state_dict().keys()), out=enc(m(x)))
add(**case)

m1, x1, c1 = make("linear")
m2, x2, c2 = make("conv2d")
with torch.no_grad():
    m2.weight.copy_(lin(m2.weight.shape, 0.9, -1.7))
case = {"name": "prune_global", "kind": "prune_global", "linear": inputs(m1, x1, c1), "conv2d": inputs(m2, x2, c2)}
prune.global_unstructured([(m1, "weight"), (m2, "weight")], pruning_method=prune.L1Unstructured, amount=0.4)
case.update(mask_linear=enc(m1.weight_mask), mask_conv2d=enc(m2.weight_mask))
prune.global_unstructured([(m1, "weight"), (m2, "weight")], pruning_method=prune.L1Unstructured, amount=10)
case.update(mask2_linear=enc(m1.weight_mask), mask2_conv2d=enc(m2.weight_mask))
add(**case)

m, _, _ = make("linear")
add(name="prune_errors", kind="prune_errors",
    amount_float=err(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5)),
    amount_type=err(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount="a")),
    amount_big=err(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5)),
    structured_1d=err(lambda: prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0)),
    remove_unpruned=err(lambda: prune.remove(nn.Linear(2, 2), "weight")))


# ---- parametrize ------------------------------------------------------------------------------------------
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
    """A parametrization with a parameter of its own (state-dict key parametrizations.weight.0.s)."""

    def __init__(self):
        super().__init__()
        self.s = nn.Parameter(torch.tensor(1.5))

    def forward(self, X):
        return X * self.s


def square_linear():
    m = nn.Linear(3, 3)
    with torch.no_grad():
        m.weight.copy_(lin((3, 3)))
        m.bias.copy_(lin((3,), -0.5, 0.5))
    x = lin((2, 3), -2.0, 2.0)
    return m, x, lin((2, 3), 0.3, -0.9)


def parametrized(name, kind, plist, save=None, unsafe=False):
    if kind == "square_linear":
        m, x, c = square_linear()
    else:
        m, x, c = make(kind)
    case = {"name": name, "kind": "parametrize", "module": kind, "parametrizations": [p[0] for p in plist]}
    case.update(inputs(m, x, c))
    for _, p in plist:
        P.register_parametrization(m, "weight", p, unsafe=unsafe)
    sd = m.state_dict()
    case["keys"] = list(sd.keys())
    case["state"] = {k: enc(v) for k, v in sd.items()}
    case["param_weight"] = enc(m.weight)
    out = m(x)
    (out * c).sum().backward()
    case["out"] = enc(out)
    case["grads"] = {k: enc(p.grad) for k, p in m.named_parameters()}
    if save:
        torch.save(sd, os.path.join(OUT, save))
    # assignment goes through right_inverse
    if all(hasattr(p, "right_inverse") for _, p in plist) and plist[0][0] != "split":
        m.weight = lin(m.weight.shape, 0.5, -0.5) @ torch.eye(m.weight.shape[-1]) if m.weight.dim() == 2 \
            else lin(m.weight.shape, 0.5, -0.5)
        case["assigned_state"] = {k: enc(v) for k, v in m.state_dict().items()}
    w = m.weight.detach().clone()
    P.remove_parametrizations(m, "weight", leave_parametrized=True)
    case["removed_keys"] = list(m.state_dict().keys())
    case["removed_weight"] = enc(m.weight)
    assert torch.equal(m.weight.detach(), w)
    add(**case)


parametrized("parametrize_symmetric", "square_linear", [("symmetric", Symmetric())], save="parametrize_linear.pt")
parametrized("parametrize_affine_conv", "conv2d", [("affine2", Affine(2.0))], save="parametrize_conv2d.pt")
parametrized("parametrize_two", "square_linear", [("symmetric", Symmetric()), ("affine3", Affine(3.0))])
parametrized("parametrize_split", "linear", [("split", Split())])
parametrized("parametrize_scaled", "linear", [("scaled", Scaled())])

m, x, c = square_linear()
P.register_parametrization(m, "weight", Symmetric())
P.remove_parametrizations(m, "weight", leave_parametrized=False)
add(name="parametrize_remove_unparametrized", kind="parametrize_remove", weight=enc(lin((3, 3))),
    bias=enc(m.bias), removed_weight=enc(m.weight), removed_keys=list(m.state_dict().keys()))


class Rows(nn.Module):
    def forward(self, X):
        return X[:2]


m, x, c = make("linear")
case = {"name": "parametrize_unsafe", "kind": "parametrize_unsafe"}
case.update(inputs(m, x, c))
P.register_parametrization(m, "weight", Rows(), unsafe=True)
case.update(weight_after=enc(m.weight), out=enc(F.linear(x, m.weight)))
add(**case)

m, _, _ = square_linear()
add(name="parametrize_errors", kind="parametrize_errors",
    missing=err(lambda: P.register_parametrization(nn.Linear(3, 3), "foo", Symmetric())),
    shape=err(lambda: P.register_parametrization(nn.Linear(4, 3), "weight", Rows())),
    remove_missing=err(lambda: P.remove_parametrizations(nn.Linear(3, 3), "weight")),
    remove_split=err(lambda: P.remove_parametrizations(
        P.register_parametrization(nn.Linear(4, 3), "weight", Split()), "weight", leave_parametrized=False)))

# ---- parametrizations.spectral_norm -----------------------------------------------------------------------
for kind in ("linear", "conv2d", "conv_transpose2d"):
    torch.manual_seed(0)
    m, x, c = make(kind)
    case = {"name": "parametrizations_spectral_norm_%s" % kind, "kind": "parametrizations_spectral_norm",
            "module": kind}
    case.update(inputs(m, x, c))
    nn.utils.parametrizations.spectral_norm(m)
    sd = m.state_dict()
    case["keys"] = list(sd.keys())
    case["state"] = {k: enc(v) for k, v in sd.items()}
    out1 = m(x)
    (out1 * c).sum().backward()
    case.update(out1=enc(out1), u1=enc(m.parametrizations.weight[0]._u), v1=enc(m.parametrizations.weight[0]._v),
                grad_orig=enc(m.parametrizations.weight.original.grad))
    m.eval()
    case["out_eval"] = enc(m(x))
    add(**case)

# ---- stateless.functional_call ----------------------------------------------------------------------------
m, x, c = make("linear")
case = {"name": "functional_call_linear", "kind": "functional_call"}
case.update(inputs(m, x, c))
w2 = lin((3, 4), 0.7, -0.4)
case["weight2"] = enc(w2)
case["out"] = enc(stateless.functional_call(m, {"weight": w2}, (x,)))
add(**case)

bn = nn.BatchNorm1d(4)
bn.eval()
case = {"name": "functional_call_bn", "kind": "functional_call_bn", "x": enc(lin((3, 4), -1.0, 2.0)),
        "running_mean": enc(lin((4,), 0.1, 0.4)), "running_var": enc(lin((4,), 0.5, 2.0))}
case["out"] = enc(stateless.functional_call(bn, {"running_mean": lin((4,), 0.1, 0.4),
                                                 "running_var": lin((4,), 0.5, 2.0)}, lin((3, 4), -1.0, 2.0)))
add(**case)

# ---- fusion ------------------------------------------------------------------------------------------------
conv, x, _ = make("conv2d")
bn = nn.BatchNorm2d(3)
with torch.no_grad():
    bn.weight.copy_(lin((3,), 0.5, 1.5))
    bn.bias.copy_(lin((3,), -0.2, 0.3))
    bn.running_mean.copy_(lin((3,), 0.1, -0.3))
    bn.running_var.copy_(lin((3,), 0.7, 1.9))
conv.eval()
bn.eval()
fused = fuse_conv_bn_eval(conv, bn)
case = {"name": "fuse_conv_bn", "kind": "fuse_conv_bn", "bn_weight": enc(bn.weight), "bn_bias": enc(bn.bias),
        "running_mean": enc(bn.running_mean), "running_var": enc(bn.running_var)}
case.update(inputs(conv, x, lin((1,), 0, 0)))
case.update(fused_weight=enc(fused.weight), fused_bias=enc(fused.bias), out=enc(fused(x)), ref=enc(bn(conv(x))))
add(**case)

linear, x, _ = make("linear")
bn = nn.BatchNorm1d(3)
with torch.no_grad():
    bn.weight.copy_(lin((3,), 0.5, 1.5))
    bn.bias.copy_(lin((3,), -0.2, 0.3))
    bn.running_mean.copy_(lin((3,), 0.1, -0.3))
    bn.running_var.copy_(lin((3,), 0.7, 1.9))
linear.eval()
bn.eval()
fused = fuse_linear_bn_eval(linear, bn)
case = {"name": "fuse_linear_bn", "kind": "fuse_linear_bn", "bn_weight": enc(bn.weight), "bn_bias": enc(bn.bias),
        "running_mean": enc(bn.running_mean), "running_var": enc(bn.running_var)}
case.update(inputs(linear, x, lin((1,), 0, 0)))
case.update(fused_weight=enc(fused.weight), fused_bias=enc(fused.bias), out=enc(fused(x)), ref=enc(bn(linear(x))))
add(**case)

# ---- convert_parameters ------------------------------------------------------------------------------------
m, _, _ = make("linear")
add(name="parameters_to_vector", kind="convert_parameters", weight=enc(m.weight), bias=enc(m.bias),
    vector=enc(nn.utils.parameters_to_vector(m.parameters())),
    not_tensor=err(lambda: nn.utils.vector_to_parameters([1.0], m.parameters())))

# ---- parametrizations.orthogonal --------------------------------------------------------------------------
for name, (i, o), omap in (("orthogonal_square_matrix_exp", (3, 3), None), ("orthogonal_wide_householder", (5, 3), None),
                           ("orthogonal_tall_householder", (3, 5), None),
                           ("orthogonal_wide_matrix_exp", (5, 3), "matrix_exp")):
    torch.manual_seed(0)
    m = nn.Linear(i, o)
    with torch.no_grad():
        m.weight.copy_(lin((o, i)) + torch.eye(o, i))  # full rank: QR's signs well defined
        m.bias.copy_(lin((o,), -0.5, 0.5))
    x, c = lin((2, i), -2.0, 2.0), lin((2, o), 0.3, -0.9)
    case = {"name": name, "kind": "orthogonal", "in_features": i, "out_features": o, "map": omap}
    case.update(inputs(m, x, c))
    nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap)
    case["registered"] = {k: enc(v) for k, v in m.state_dict().items()}
    orig = m.parametrizations.weight.original
    with torch.no_grad():  # a point away from the identity, diagonal kept (householder reads its signs)
        off = lin(orig.shape, -0.3, 0.4)
        off.diagonal(dim1=-2, dim2=-1).zero_()
        orig.add_(off)
    sd = m.state_dict()
    case["keys"] = list(sd.keys())
    case["state"] = {k: enc(v) for k, v in sd.items()}
    case["param_weight"] = enc(m.weight)
    out = m(x)
    (out * c).sum().backward()
    case.update(out=enc(out), grad_orig=enc(orig.grad))
    add(**case)

add(name="orthogonal_errors", kind="orthogonal_errors",
    vector=err(lambda: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), "bias")),
    bad_map=err(lambda: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")))

# ---- a parametrized buffer (BatchNorm1d's running_mean), eval mode ------------------------------------------
bn = nn.BatchNorm1d(4)
bn.eval()
with torch.no_grad():
    bn.running_mean.copy_(lin((4,), -0.2, 0.3))
P.register_parametrization(bn, "running_mean", Affine(2.0))
xb = lin((3, 4), -1.0, 2.0)
add(name="parametrize_buffer_bn", kind="parametrize_buffer", running_mean=enc(lin((4,), -0.2, 0.3)), x=enc(xb),
    keys=list(bn.state_dict().keys()), original=enc(bn.parametrizations.running_mean.original), out=enc(bn(xb)))

if __name__ == "__main__":
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c, sort_keys=True) for c in CASES) + "\n]\n")
