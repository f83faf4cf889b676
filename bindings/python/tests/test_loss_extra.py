"""glia.nn.functional's and glia.nn's other losses (kl_div ... triplet_margin_with_distance_loss) against
torch 1.13's values in tests/golden/ops/loss_extra.json and modules/loss_extra.json
(tests/golden/gen_loss_extra.py), plus torch's Python-level errors, the legacy arguments and a
Python distance function."""

import json
import math
import os
import warnings

import numpy as np
import pytest

import glia
import glia.nn as nn
import glia.nn.functional as F
from _repo import ROOT

_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64}


def _load(*parts):
    with open(os.path.join(ROOT, "tests", "golden", *parts)) as f:
        return json.load(f)


def _decode(v):
    return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v) if isinstance(v, str) else v


def _tensor(spec):
    if spec is None:
        return None
    arr = np.array([_decode(v) for v in spec["values"]], dtype=_NP[spec["dtype"]])
    if spec.get("transposed"):
        s = spec["shape"]
        arr = np.ascontiguousarray(arr.reshape([s[1], s[0]] + s[2:]).swapaxes(0, 1))
    else:
        arr = arr.reshape(spec["shape"])  # (np.ascontiguousarray would make a 0-dim array 1-dim)
    return glia.tensor(arr)


def _close(got, want_values, shape, dtype, what):
    assert list(got.shape) == shape, what
    g = np.array(got.detach().tolist(), dtype=np.float64).reshape(-1)
    w = np.array([_decode(v) for v in want_values], dtype=np.float64)
    rtol = 1e-10 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True, err_msg=what)


def _call(op, xs, a):
    r = a.get("reduction", "mean")
    if op == "kl_div":
        return F.kl_div(xs[0], xs[1], reduction=r, log_target=a.get("log_target", False))
    if op == "poisson_nll_loss":
        return F.poisson_nll_loss(xs[0], xs[1], log_input=a.get("log_input", True), full=a.get("full", False),
                                  eps=a.get("eps", 1e-8), reduction=r)
    if op == "gaussian_nll_loss":
        return F.gaussian_nll_loss(xs[0], xs[1], xs[2], full=a.get("full", False), eps=a.get("eps", 1e-6),
                                   reduction=r)
    if op == "margin_ranking_loss":
        return F.margin_ranking_loss(xs[0], xs[1], xs[2], margin=a.get("margin", 0.0), reduction=r)
    if op == "hinge_embedding_loss":
        return F.hinge_embedding_loss(xs[0], xs[1], margin=a.get("margin", 1.0), reduction=r)
    if op == "soft_margin_loss":
        return F.soft_margin_loss(xs[0], xs[1], reduction=r)
    if op == "multilabel_soft_margin_loss":
        return F.multilabel_soft_margin_loss(xs[0], xs[1], weight=xs[2] if len(xs) > 2 else None, reduction=r)
    if op == "cosine_embedding_loss":
        return F.cosine_embedding_loss(xs[0], xs[1], xs[2], margin=a.get("margin", 0.0), reduction=r)
    if op == "multi_margin_loss":
        return F.multi_margin_loss(xs[0], xs[1], p=a.get("p", 1), margin=a.get("margin", 1.0),
                                   weight=xs[2] if len(xs) > 2 else None, reduction=r)
    if op == "multilabel_margin_loss":
        return F.multilabel_margin_loss(xs[0], xs[1], reduction=r)
    if op == "triplet_margin_loss":
        return F.triplet_margin_loss(xs[0], xs[1], xs[2], margin=a.get("margin", 1.0), p=a.get("p", 2.0),
                                     eps=a.get("eps", 1e-6), swap=a.get("swap", False), reduction=r)
    assert op == "triplet_margin_with_distance_loss"
    return F.triplet_margin_with_distance_loss(xs[0], xs[1], xs[2], margin=a.get("margin", 1.0),
                                               swap=a.get("swap", False), reduction=r)


FIXTURE = _load("ops", "loss_extra.json")


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["name"])
def test_functional_matches_torch(case):
    warnings.simplefilter("ignore")
    xs = [_tensor(s) for s in case["inputs"]]
    grads = case.get("grads")
    if grads:
        for x, g in zip(xs, grads):
            if g is not None:
                x.requires_grad_(True)
    y = _call(case["op"], xs, case["args"])
    out = case["outs"][0]
    _close(y, out["values"], out["shape"], out["dtype"], "loss")
    if grads:
        w = glia.tensor(np.array([_decode(v) for v in case["w"][0]], dtype=np.float64).reshape(out["shape"]))
        (y * w).sum().backward()
        for k, (x, g) in enumerate(zip(xs, grads)):
            if g is None:
                continue
            got = x.grad if x.grad is not None else glia.zeros(*x.shape, dtype=glia.float64)
            _close(got, g, list(x.shape), "float64", "grad %d" % k)


def _module(c):
    a, k = c["args"], c["module"]
    w = _tensor(c["buffers"]["weight"]) if "weight" in c["buffers"] else None
    r = a.get("reduction", "mean")
    if k == "kl_div_loss":
        return nn.KLDivLoss(reduction=r, log_target=a["log_target"])
    if k == "poisson_nll_loss":
        return nn.PoissonNLLLoss(log_input=a["log_input"], full=a["full"], eps=a["eps"], reduction=r)
    if k == "gaussian_nll_loss":
        return nn.GaussianNLLLoss(full=a["full"], eps=a["eps"], reduction=r)
    if k == "margin_ranking_loss":
        return nn.MarginRankingLoss(margin=a["margin"], reduction=r)
    if k == "hinge_embedding_loss":
        return nn.HingeEmbeddingLoss(margin=a["margin"], reduction=r)
    if k == "soft_margin_loss":
        return nn.SoftMarginLoss(reduction=r)
    if k == "multilabel_soft_margin_loss":
        return nn.MultiLabelSoftMarginLoss(weight=w, reduction=r)
    if k == "cosine_embedding_loss":
        return nn.CosineEmbeddingLoss(margin=a["margin"], reduction=r)
    if k == "multi_margin_loss":
        return nn.MultiMarginLoss(p=a["p"], margin=a["margin"], weight=w, reduction=r)
    if k == "multilabel_margin_loss":
        return nn.MultiLabelMarginLoss(reduction=r)
    if k == "triplet_margin_loss":
        return nn.TripletMarginLoss(margin=a["margin"], p=a["p"], eps=a["eps"], swap=a["swap"], reduction=r)
    return nn.TripletMarginWithDistanceLoss(margin=a["margin"], swap=a["swap"], reduction=r)


@pytest.mark.parametrize("case", _load("modules", "loss_extra.json")["losses"], ids=lambda c: c["name"])
def test_modules_match_torch(case):
    warnings.simplefilter("ignore")
    m = _module(case)
    assert type(m).__name__ == case["repr"].split("(")[0]
    assert list(m.state_dict().keys()) == case["keys"]
    xs = [_tensor(s) for s in case["inputs"]]
    xs[0].requires_grad_(True)
    y = m(*xs)
    _close(y, case["out"]["values"], case["out"]["shape"], case["dtype"], "loss")
    (y * _tensor(case["w"])).sum().backward()
    _close(xs[0].grad, case["grad_input"]["values"], case["grad_input"]["shape"], case["dtype"], "grad_input")


def test_torch_python_errors():
    x = glia.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=glia.float64)
    t = glia.tensor([0, 1])
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(x, t, p=3)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="weight must be one-dimensional"):
        F.multi_margin_loss(x, t, weight=glia.ones(2, 2, dtype=glia.float64))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(x, x, glia.ones(2, 3, dtype=glia.float64))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(x, x, -glia.ones(2, 2, dtype=glia.float64))
    for f in (lambda: F.poisson_nll_loss(x, x, reduction="batchmean"),
              lambda: F.gaussian_nll_loss(x, x, x.abs(), reduction="batchmean"),
              lambda: F.multilabel_soft_margin_loss(x, x, reduction="batchmean")):
        with pytest.raises(ValueError, match="batchmean is not valid"):
            f()
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.soft_margin_loss(x, x, reduction="foo")
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, glia.tensor([0, 2]))


def test_legacy_reduction_arguments():
    x = glia.tensor([0.5, -1.0, 2.0], dtype=glia.float64)
    y = glia.tensor([1.0, -1.0, -1.0], dtype=glia.float64)
    total = F.soft_margin_loss(x, y, reduction="sum").item()
    assert F.soft_margin_loss(x, y, size_average=False).item() == total
    assert list(F.soft_margin_loss(x, y, reduce=False).shape) == [3]
    assert nn.HingeEmbeddingLoss(size_average=False)(x, y).item() == F.hinge_embedding_loss(x, y,
                                                                                              reduction="sum").item()


def test_kl_div_batchmean_and_warning():
    x = glia.tensor([[-1.0, -2.0], [-0.5, -1.5]], dtype=glia.float64)
    t = glia.tensor([[0.25, 0.75], [0.5, 0.5]], dtype=glia.float64)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mean = F.kl_div(x, t).item()
        assert any("batchmean" in str(m.message) for m in w)
    s = F.kl_div(x, t, reduction="sum").item()
    assert F.kl_div(x, t, reduction="batchmean").item() == pytest.approx(s / 2, rel=1e-15)
    assert mean == pytest.approx(s / 4, rel=1e-15)
    assert nn.KLDivLoss(reduction="batchmean")(x, t).item() == pytest.approx(s / 2, rel=1e-15)


def test_python_distance_function():
    a = glia.tensor([[0.0, 0.0]], dtype=glia.float64, requires_grad=True)
    p = glia.tensor([[1.0, 2.0]], dtype=glia.float64)
    n = glia.tensor([[1.0, 0.0]], dtype=glia.float64)
    calls = []

    def l1(u, v):
        calls.append(1)
        return (u - v).abs().sum(-1)

    loss = F.triplet_margin_with_distance_loss(a, p, n, distance_function=l1, margin=0.5)
    assert loss.item() == 2.5 and len(calls) == 2
    loss.backward()
    assert a.grad.tolist() == [[0.0, -1.0]]  # d(|a-p|_1 - |a-n|_1) = sign(a-p) - sign(a-n), sign(0) = 0
    m = nn.TripletMarginWithDistanceLoss(distance_function=l1, margin=0.5, swap=True)
    assert m(a, p, n).item() == 2.5 and len(calls) == 5

    def broken(u, v):
        raise KeyError("no distance")

    with pytest.raises(KeyError, match="no distance"):
        F.triplet_margin_with_distance_loss(a, p, n, distance_function=broken)
