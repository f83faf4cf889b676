"""The LR schedulers of issue 21 vs PyTorch 1.13 (tests/golden/gen_lr_scheduler_extra.py): lr and momentum
trajectories, torch's state dicts (keys in torch's order, values, round trips), torch's errors, and Python
callables as lr_lambda / scale_fn (their exceptions propagate and change nothing)."""

import collections
import json
import math
import os
import re

import numpy as np
import pytest

import glia
from glia import optim
from glia.optim import lr_scheduler as L

from _repo import ROOT

with open(os.path.join(ROOT, "tests", "golden", "optim", "lr_scheduler_extra.json")) as _f:
    G = json.load(_f)

LAMBDAS = {
    "pow": lambda e: 0.95 ** e,
    "step4": lambda e: 0.5 ** (e // 4),
    "warm": lambda e: min(1.0, (e + 1) / 5),
    "const": lambda e: 0.9,
    "alt": lambda e: 1.05 if e % 3 == 0 else 0.9,
}
SCALES = {
    "inv": lambda x: 1.0 / (1 + 0.1 * x),
    "cosish": lambda x: 0.5 * (1 + math.cos(x * 0.3)),
}


def make_optimizer(kind):
    p0 = glia.zeros(2, requires_grad=True)
    p1 = glia.zeros(2, requires_grad=True)
    if kind == "adam":
        o = optim.Adam([p0], lr=0.1)
    else:
        o = optim.SGD([p0], lr=0.1, momentum=0.9 if kind == "sgd" else 0)
    o.add_param_group({"params": [p1], "lr": 0.05})
    return o


def build(spec, opt):
    args = dict(spec["args"])
    kind = spec["kind"]
    if "lr_lambda" in args:
        v = args["lr_lambda"]
        args["lr_lambda"] = [LAMBDAS[x] for x in v] if isinstance(v, list) else LAMBDAS[v]
    if "scale_fn" in args:
        args["scale_fn"] = SCALES[args["scale_fn"]]
    if kind == "SequentialLR":
        args["schedulers"] = [build(s, opt) for s in args["schedulers"]]
        return L.SequentialLR(opt, **args)
    if kind == "ChainedScheduler":
        return L.ChainedScheduler([build(s, opt) for s in args["schedulers"]])
    return getattr(L, kind)(opt, **args)


def num(v):
    return float(v) if isinstance(v, str) else v


def do_step(case, s, st):
    if case["spec"]["kind"] == "ReduceLROnPlateau":
        s.step(st)
    elif st is None:
        s.step()
    else:
        s.step(st)


def last_lr(case, s, opt):
    if hasattr(s, "_last_lr"):
        return s._last_lr
    return [g["lr"] for g in opt.param_groups]


def momentum(opt):
    if isinstance(opt, optim.Adam):
        return [g["betas"][0] for g in opt.param_groups]
    return [g["momentum"] for g in opt.param_groups]


def same(got, want, where):
    """got (glia's Python state) equals want (torch's, as the generator encoded it)."""
    if isinstance(want, dict) and "__counter__" in want:
        assert got == collections.Counter(want["__counter__"]), where
    elif isinstance(want, dict) and "__method__" in want:
        assert got.__name__ == want["__method__"] and hasattr(got, "__self__"), where
    elif isinstance(want, dict) and "__function__" in want:
        assert callable(got) and got.__name__ == want["__function__"], where
    elif isinstance(want, dict) and "__object__" in want:
        assert type(got).__name__ == want["__object__"], where
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), (where, list(got), list(want))
        for k in want:
            same(got[k], want[k], where + "." + k)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (a, b) in enumerate(zip(got, want)):
            same(a, b, "%s[%d]" % (where, i))
    elif want is None or isinstance(want, bool) or (isinstance(want, str) and want not in ("inf", "-inf", "nan")):
        assert got == want and type(got) is type(want), (where, got, want)
    else:
        w = num(want)
        if math.isinf(w):
            assert got == w, where
        else:
            assert got == pytest.approx(w, rel=1e-12, abs=1e-15), (where, got, w)


def decode(want):
    """torch's state dict back from the generator's JSON (methods and functions as stand-ins with their names)."""
    if isinstance(want, dict) and "__counter__" in want:
        return collections.Counter(want["__counter__"])
    if isinstance(want, dict) and ("__method__" in want or "__function__" in want or "__object__" in want):
        name = want.get("__method__") or want.get("__function__")

        def stand_in(*a):
            raise AssertionError("not called")

        stand_in.__name__ = name or "object"
        return stand_in if name else None
    if isinstance(want, dict):
        return {k: decode(v) for k, v in want.items()}
    if isinstance(want, list):
        return [decode(v) for v in want]
    if isinstance(want, str) and want in ("inf", "-inf", "nan"):
        return float(want)
    return want


CASES = G["cases"]
# step(epoch) warns as torch does (EPOCH_DEPRECATION_WARNING).
pytestmark = pytest.mark.filterwarnings("ignore:The epoch parameter")


def case_id(c):
    return "%s-%s" % (c["spec"]["kind"], abs(hash(json.dumps(c["spec"]) + str(c["steps"]))) % 10000)


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_trajectory_and_state_dict_match_torch(case):
    opt = make_optimizer(case["optimizer"])
    s = build(case["spec"], opt)
    rows = [last_lr(case, s, opt)]
    moms = [momentum(opt)]
    for st in case["steps"]:
        opt.step()
        do_step(case, s, st)
        rows.append(last_lr(case, s, opt))
        moms.append(momentum(opt))
    np.testing.assert_allclose(rows, case["lrs"], rtol=1e-12, atol=1e-15)
    if "momentum" in case:
        np.testing.assert_allclose(moms, case["momentum"], rtol=1e-12, atol=1e-15)
    assert [g["lr"] for g in opt.param_groups] == rows[-1]
    sd = s.state_dict()
    assert list(sd) == list(case["py_state"])  # torch's keys, in torch's order
    same(sd, case["py_state"], "state_dict")
    # torch's own state dict loads into a fresh scheduler and gives it back.
    opt2 = make_optimizer(case["optimizer"])
    s2 = build(case["spec"], opt2)
    s2.load_state_dict(decode(case["py_state"]))
    if case["spec"]["kind"] != "ReduceLROnPlateau" or hasattr(s, "_last_lr"):
        assert s2._last_lr == pytest.approx(rows[-1], rel=1e-12, abs=1e-15)
    same(s2.state_dict(), case["py_state"], "reloaded state_dict")


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_state_dict_round_trip_resumes(case):
    mid, steps = case["mid"], case["steps"]
    opt = make_optimizer(case["optimizer"])
    s = build(case["spec"], opt)
    for st in steps[:mid]:
        do_step(case, s, st)
    osd, ssd = opt.state_dict(), s.state_dict()
    opt2 = make_optimizer(case["optimizer"])
    s2 = build(case["spec"], opt2)
    opt2.load_state_dict(osd)
    s2.load_state_dict(ssd)
    rows = [last_lr(case, s2, opt2)]
    for st in steps[mid:]:
        do_step(case, s2, st)
        rows.append(last_lr(case, s2, opt2))
    np.testing.assert_allclose(rows, case["lrs"][mid:], rtol=1e-12, atol=1e-15)
    if "momentum" in case:
        np.testing.assert_allclose(momentum(opt2), case["momentum"][-1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("err", G["errors"], ids=[e["message"][:40] for e in G["errors"]])
def test_errors_are_torchs(err):
    opt = make_optimizer(err["optimizer"])
    with pytest.raises(ValueError, match="^" + re.escape(err["message"]) + "$"):
        build(err["spec"], opt)
    if err["spec"]["kind"] != "SequentialLR":  # (its sub-schedulers were made before)
        assert "initial_lr" not in opt.param_groups[0]
    assert opt.param_groups[1]["lr"] == 0.05


def test_other_errors_are_torchs():
    other = G["other_errors"]
    o1, o2 = make_optimizer("sgd"), make_optimizer("sgd")
    with pytest.raises(ValueError, match=re.escape(other["sequential_other_optimizer"])):
        L.SequentialLR(o1, [L.ExponentialLR(o1, 0.9), L.ExponentialLR(o2, 0.9)], milestones=[3])
    with pytest.raises(ValueError, match=re.escape(other["chained_other_optimizer"])):
        L.ChainedScheduler([L.ExponentialLR(o1, 0.9), L.ExponentialLR(o2, 0.9)])
    with pytest.raises(ValueError, match=re.escape(other["lambda_count"])):
        L.LambdaLR(make_optimizer("sgd"), [LAMBDAS["pow"]] * 3)
    with pytest.raises(ValueError, match=re.escape(other["multiplicative_count"])):
        L.MultiplicativeLR(make_optimizer("sgd"), [LAMBDAS["pow"]])
    with pytest.raises(ValueError, match=re.escape(other["plateau_mode"])):
        L.ReduceLROnPlateau(make_optimizer("sgd"), mode="average")
    with pytest.raises(ValueError, match=re.escape(other["plateau_threshold_mode"])):
        L.ReduceLROnPlateau(make_optimizer("sgd"), threshold_mode="pct")
    with pytest.raises(ValueError, match=re.escape(other["cyclic_mode"])):
        L.CyclicLR(make_optimizer("sgd"), 0.1, 1.0, mode="square")
    with pytest.raises(ValueError, match=re.escape(other["one_cycle_anneal"])):
        L.OneCycleLR(make_optimizer("sgd"), 1.0, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError, match=re.escape(other["warm_restarts_epoch"])):
        L.CosineAnnealingWarmRestarts(make_optimizer("sgd"), 3).step(-1.5)
    s = L.OneCycleLR(make_optimizer("sgd"), 1.0, total_steps=10)
    for _ in range(10):
        s.step()
    with pytest.raises(ValueError, match=re.escape(other["one_cycle_past_end"])):
        s.step()
    assert s.last_epoch == 10
    # torch 1.13's ReduceLROnPlateau has no get_last_lr, and no _last_lr before its first step.
    p = L.ReduceLROnPlateau(make_optimizer("sgd"))
    assert not hasattr(p, "get_last_lr") and not hasattr(p, "_last_lr")
    p.step(1.0)
    assert p._last_lr == [0.1, 0.05] and p.best == 1.0 and p.num_bad_epochs == 0 and not p.in_cooldown
    with pytest.raises(AttributeError):
        L.ChainedScheduler([L.ExponentialLR(o1, 0.9)]).last_epoch


def test_lambda_exception_propagates_and_changes_nothing():
    calls = []

    def fn(epoch):
        calls.append(epoch)
        if epoch == 3:
            raise ZeroDivisionError("host lambda failed")
        return 0.5 ** epoch

    opt = make_optimizer("sgd")
    s = L.LambdaLR(opt, fn)
    s.step()
    s.step()
    before = (s.last_epoch, s.get_last_lr(), [g["lr"] for g in opt.param_groups])
    with pytest.raises(ZeroDivisionError, match="host lambda failed"):
        s.step()
    assert (s.last_epoch, s.get_last_lr(), [g["lr"] for g in opt.param_groups]) == before
    # A callable object's __dict__ is state (torch's rule), a function is not.

    class Warm:
        def __init__(self):
            self.k = 2.0

        def __call__(self, e):
            return 1.0 / (1 + self.k * e)

    w = Warm()
    s = L.MultiplicativeLR(make_optimizer("sgd"), [w, LAMBDAS["pow"]])
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"k": 2.0}, None]
    sd["lr_lambdas"] = [{"k": 5.0}, None]
    s.load_state_dict(sd)
    assert w.k == 5.0


def test_scale_fn_exception_propagates_and_changes_nothing():
    n = {"calls": 0, "fail": False}

    def scale(x):
        n["calls"] += 1
        if n["fail"]:
            raise KeyError("scale")
        return 1.0 / x

    opt = make_optimizer("sgd")
    s = L.CyclicLR(opt, 0.01, 0.1, step_size_up=4, scale_fn=scale)
    s.step()
    before = ([g["lr"] for g in opt.param_groups], [g["momentum"] for g in opt.param_groups], s.last_epoch)
    n["fail"] = True
    with pytest.raises(KeyError):
        s.step()
    assert ([g["lr"] for g in opt.param_groups], [g["momentum"] for g in opt.param_groups], s.last_epoch) == before


def test_one_cycle_sets_torchs_group_keys():
    opt = make_optimizer("adam")
    L.OneCycleLR(opt, [1.0, 0.5], total_steps=20)
    g = opt.param_groups[1]
    assert (g["initial_lr"], g["max_lr"], g["min_lr"], g["max_momentum"], g["base_momentum"]) == (
        0.5 / 25, 0.5, 0.5 / 25 / 1e4, 0.95, 0.85)
    assert g["betas"] == (0.95, 0.999)
    pg = opt.state_dict()["param_groups"][1]
    assert pg["max_lr"] == 0.5 and pg["base_momentum"] == 0.85


def test_last_epoch_is_settable_as_in_torch():
    opt = make_optimizer("sgd0")
    s = L.LambdaLR(opt, lambda e: 0.5 ** e)
    s.last_epoch = 4
    s.step()
    assert s.last_epoch == 5
    assert s.get_last_lr() == [0.1 * 0.5 ** 5, 0.05 * 0.5 ** 5]
