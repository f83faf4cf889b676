"""Golden fixtures for the LR schedulers of issue 21 (tests/optim/lr_scheduler_extra_test.cpp and
bindings/python/tests/test_lr_scheduler_extra.py).

Run from tests/golden/ with a Python that has torch 1.13 (/usr/bin/python3); writes
optim/lr_scheduler_extra.json, one case per line. Every case builds an optimizer with two groups
(p0 with lr 0.1, p1 with lr 0.05; "sgd" has momentum 0.9, "sgd0" none, "adam" torch's defaults),
then the scheduler `spec` ({"kind": torch's class name, "args": its keyword arguments}; lr_lambda
and scale_fn name functions of LAMBDAS and SCALES below, which the tests rebuild; SequentialLR's
and ChainedScheduler's "schedulers" are specs too), then runs `steps`: null is step(), a number
is step(epoch) (step(metrics) for ReduceLROnPlateau). Recorded after construction and after each
step: get_last_lr() ("lrs"; the groups' lrs for ReduceLROnPlateau before its first step) and the
groups' momentum or betas[0] ("momentum", where the optimizer has one). "mid" is the step after
which "state_mid" (the scheduler's state dict, flattened as glia's: nested schedulers under
"_schedulers.<i>.", strings and functions as glia's int64 codes, torch's verbose,
_get_lr_called_within_step, lr_lambdas, _scale_fn_ref, _scale_fn_custom left out) and "groups_mid"
(the optimizer's param_groups options, flattened as glia's optimizer state dict) are taken;
"state" and "groups" are the same after the last step. "py_state" is torch's final state dict as
JSON (for the Python binding: Counter, methods and functions as {"__counter__"|"__method__"|
"__function__": ...}). "errors" are torch's messages for bad arguments.
"""

import json
import math
import os
import types
import warnings
from collections import Counter

import torch

from golden import encode

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "optim")
L = torch.optim.lr_scheduler

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
CODES = {"min": 0, "max": 1, "rel": 0, "abs": 1, "triangular": 0, "triangular2": 1, "exp_range": 2, "cycle": 0,
         "iterations": 1}
SKIP = {"verbose", "_get_lr_called_within_step", "lr_lambdas", "_scale_fn_ref", "_scale_fn_custom"}


def make_optimizer(kind):
    p0 = torch.zeros(2, requires_grad=True)
    p1 = torch.zeros(2, requires_grad=True)
    if kind == "sgd":
        o = torch.optim.SGD([p0], lr=0.1, momentum=0.9)
    elif kind == "sgd0":
        o = torch.optim.SGD([p0], lr=0.1)
    else:
        o = torch.optim.Adam([p0], lr=0.1)
    o.add_param_group({"params": [p1], "lr": 0.05})
    return o


def fn_arg(v, table):
    return [table[x] for x in v] if isinstance(v, list) else table[v]


def build(spec, opt):
    args = dict(spec["args"])
    kind = spec["kind"]
    if "lr_lambda" in args:
        args["lr_lambda"] = fn_arg(args["lr_lambda"], LAMBDAS)
    if "scale_fn" in args:
        args["scale_fn"] = SCALES[args["scale_fn"]]
    if kind == "SequentialLR":
        args["schedulers"] = [build(s, opt) for s in args["schedulers"]]
        return L.SequentialLR(opt, **args)
    if kind == "ChainedScheduler":
        return L.ChainedScheduler([build(s, opt) for s in args["schedulers"]])
    return getattr(L, kind)(opt, **args)


def flatten(sd, prefix=""):
    out = {}
    for k, v in sd.items():
        key = prefix + k
        if k in SKIP:
            continue
        if k == "_schedulers":
            for i, s in enumerate(v):
                out.update(flatten(s, "%s.%d." % (key, i)))
        elif k == "_schedule_phases":
            for i, ph in enumerate(v):
                out["%s.%d.end_step" % (key, i)] = float(ph["end_step"])
        elif k == "anneal_func":
            out[key] = 0 if v.__name__ == "_annealing_cos" else 1
        elif k == "milestones":
            out[key] = sorted(v.elements())
        elif isinstance(v, str):
            out[key] = CODES[v]
        elif isinstance(v, bool):
            out[key] = int(v)
        elif isinstance(v, (list, tuple)):
            out[key] = [encode(float(x)) for x in v]
        else:
            out[key] = encode(v)
    return out


def groups_flat(opt):
    out = {}
    for g, group in enumerate(opt.param_groups):
        for k, v in group.items():
            if k in ("params", "foreach", "differentiable", "capturable", "fused") or v is None:
                continue
            out["param_groups.%d.%s" % (g, k)] = [float(x) for x in v] if isinstance(v, tuple) else float(v)
    return out


def py_json(v):
    if isinstance(v, Counter):
        return {"__counter__": sorted(v.elements())}
    if isinstance(v, dict):
        return {k: py_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [py_json(x) for x in v]
    if isinstance(v, types.MethodType):
        return {"__method__": v.__name__}
    if isinstance(v, types.FunctionType):
        return {"__function__": v.__name__}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return encode(v)
    return {"__object__": type(v).__name__}


def momentum_of(opt):
    d = opt.defaults
    if "momentum" in d:
        return [g["momentum"] for g in opt.param_groups]
    if "betas" in d:
        return [g["betas"][0] for g in opt.param_groups]
    return None


def run(spec, optimizer="sgd", steps=None, n=32, mid=15):
    steps = [None] * n if steps is None else steps
    opt = make_optimizer(optimizer)
    s = build(spec, opt)
    plateau = spec["kind"] == "ReduceLROnPlateau"

    def last():
        return list(s._last_lr) if hasattr(s, "_last_lr") else [g["lr"] for g in opt.param_groups]

    lrs, moms = [last()], [momentum_of(opt)]
    case = {"spec": spec, "optimizer": optimizer, "steps": steps, "mid": mid}
    for i, st in enumerate(steps):
        opt.step()
        if plateau:
            s.step(st)
        elif st is None:
            s.step()
        else:
            s.step(st)
        lrs.append(last())
        moms.append(momentum_of(opt))
        if i + 1 == mid:
            case["state_mid"] = flatten(s.state_dict())
            case["groups_mid"] = groups_flat(opt)
    case["lrs"] = lrs
    if moms[0] is not None:
        case["momentum"] = moms
    case["state"] = flatten(s.state_dict())
    case["groups"] = groups_flat(opt)
    case["py_state"] = py_json(s.state_dict())
    return case


def S(kind, **args):
    return {"kind": kind, "args": args}


def cases():
    out = []
    # ExponentialLR, PolynomialLR, ConstantLR: defaults and options; step(epoch) mixed in (closed forms).
    mixed = [None, None, None, 7, None, None, 2, None, 0, None] + [None] * 22
    for spec in [S("ExponentialLR", gamma=0.9), S("ExponentialLR", gamma=1.1),
                 S("PolynomialLR"), S("PolynomialLR", total_iters=20, power=2.0), S("PolynomialLR", total_iters=12,
                                                                                    power=0.5),
                 S("ConstantLR"), S("ConstantLR", factor=0.5, total_iters=4), S("ConstantLR", factor=1.0),
                 S("ConstantLR", factor=0.25, total_iters=0)]:
        out.append(run(spec, "sgd0"))
        out.append(run(spec, "sgd0", steps=mixed))
    # The existing four, stepped with an epoch (their closed forms).
    for spec in [S("StepLR", step_size=3, gamma=0.5), S("MultiStepLR", milestones=[3, 6, 6, 12], gamma=0.3),
                 S("CosineAnnealingLR", T_max=8, eta_min=0.001), S("LinearLR", start_factor=0.2, total_iters=6)]:
        out.append(run(spec, "sgd0", steps=mixed))
    # LambdaLR, MultiplicativeLR: one function for all groups or one per group.
    for kind in ("LambdaLR", "MultiplicativeLR"):
        for lam in ("pow", "step4", "warm", "const", "alt", ["pow", "warm"], ["alt", "step4"]):
            out.append(run(S(kind, lr_lambda=lam), "sgd0"))
        out.append(run(S(kind, lr_lambda=["pow", "alt"]), "sgd0", steps=mixed))
    # SequentialLR and ChainedScheduler over every kind of sub-scheduler.
    seqs = [
        S("SequentialLR", schedulers=[S("ConstantLR", factor=0.1, total_iters=2), S("ExponentialLR", gamma=0.9)],
          milestones=[2]),
        S("SequentialLR", schedulers=[S("LinearLR", start_factor=0.2, total_iters=5),
                                      S("CosineAnnealingLR", T_max=10, eta_min=0.001),
                                      S("StepLR", step_size=3, gamma=0.5)], milestones=[5, 15]),
        S("SequentialLR", schedulers=[S("LambdaLR", lr_lambda="warm"), S("PolynomialLR", total_iters=10, power=2.0),
                                      S("MultiplicativeLR", lr_lambda="const")], milestones=[4, 9]),
        S("SequentialLR", schedulers=[S("ExponentialLR", gamma=0.8),
                                      S("CosineAnnealingWarmRestarts", T_0=4, T_mult=2, eta_min=0.01)],
          milestones=[6]),
        S("SequentialLR", schedulers=[S("MultiStepLR", milestones=[2, 4], gamma=0.5),
                                      S("ConstantLR", factor=0.5, total_iters=3)], milestones=[3]),
    ]
    for spec in seqs:
        out.append(run(spec, "sgd0"))
    chains = [
        S("ChainedScheduler", schedulers=[S("ConstantLR", factor=0.1, total_iters=2), S("ExponentialLR", gamma=0.9)]),
        S("ChainedScheduler", schedulers=[S("StepLR", step_size=4, gamma=0.5), S("MultiplicativeLR", lr_lambda="alt"),
                                          S("LinearLR", start_factor=0.5, total_iters=6)]),
        S("ChainedScheduler", schedulers=[S("CosineAnnealingLR", T_max=6), S("PolynomialLR", total_iters=30)]),
        S("ChainedScheduler", schedulers=[S("ExponentialLR", gamma=0.95)]),
    ]
    for spec in chains:
        out.append(run(spec, "sgd0"))
    # ReduceLROnPlateau: a metric that improves, stalls, improves a little, stalls (every mode).
    metrics = [1.0 / (1 + t) if t < 6 else 0.15 + 0.0005 * math.sin(t) + (0.001 * (t - 20) if t > 20 else 0)
               for t in range(40)]
    up = [1 - m for m in metrics]
    for kw in [{}, dict(patience=2), dict(patience=1, cooldown=2), dict(patience=0, factor=0.5, min_lr=0.01),
               dict(patience=1, min_lr=[0.02, 0.001], factor=0.3), dict(patience=2, threshold=0.1),
               dict(patience=2, threshold_mode="abs", threshold=0.01), dict(patience=1, eps=0.005, factor=0.5)]:
        out.append(run(S("ReduceLROnPlateau", **kw), "sgd0", steps=metrics, mid=10))
        out.append(run(S("ReduceLROnPlateau", mode="max", **kw), "sgd0", steps=up, mid=10))
    # CyclicLR: every mode, scale_fn in both scale modes, momentum cycling, per-group bounds.
    for kw in [dict(base_lr=0.01, max_lr=0.1, step_size_up=4),
               dict(base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5, mode="triangular2"),
               dict(base_lr=[0.01, 0.002], max_lr=[0.1, 0.05], step_size_up=4, mode="exp_range", gamma=0.97),
               dict(base_lr=0.01, max_lr=0.1, step_size_up=5, scale_fn="inv"),
               dict(base_lr=0.01, max_lr=0.1, step_size_up=5, scale_fn="cosish", scale_mode="iterations"),
               dict(base_lr=0.01, max_lr=0.1, step_size_up=2.5, step_size_down=1.5, base_momentum=[0.7, 0.75],
                    max_momentum=[0.95, 0.9]),
               dict(base_lr=0.01, max_lr=0.1, step_size_up=4, mode="triangular2", cycle_momentum=False)]:
        out.append(run(S("CyclicLR", **kw), "sgd", n=40))
    out.append(run(S("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=4, cycle_momentum=False), "adam"))
    # OneCycleLR: cos and linear, two and three phases, SGD momentum and Adam betas.
    for opt, kw in [("sgd", dict(max_lr=1.0, total_steps=40)), ("sgd", dict(max_lr=[1.0, 0.5], epochs=4,
                                                                              steps_per_epoch=10,
                                                                              anneal_strategy="linear")),
                    ("sgd", dict(max_lr=0.5, total_steps=40, three_phase=True, pct_start=0.25)),
                    ("sgd", dict(max_lr=0.5, total_steps=40, three_phase=True, anneal_strategy="linear",
                                 div_factor=10.0, final_div_factor=100.0)),
                    ("adam", dict(max_lr=0.01, total_steps=40, base_momentum=0.8, max_momentum=[0.9, 0.95])),
                    ("adam", dict(max_lr=0.01, total_steps=40, cycle_momentum=False, pct_start=0.5)),
                    ("sgd0", dict(max_lr=0.3, total_steps=35, cycle_momentum=False))]:
        out.append(run(S("OneCycleLR", **kw), opt, n=kw.get("total_steps", 40)))
    # CosineAnnealingWarmRestarts: T_mult 1 and 2, eta_min, fractional step(epoch).
    frac = [None, None, 0.5, 1.25, 2.75, 3.0, 3.2, None, 7.5, None, 8, 20.25, None, None, 1.0, 0, None, 13.9,
            30.0, None, 45.5, 5, None, 2.0, 100.75, None, None, 11.0, 3.5, None, 6]
    for kw in [dict(T_0=5), dict(T_0=3, T_mult=2), dict(T_0=4, T_mult=3, eta_min=0.01), dict(T_0=1, T_mult=1)]:
        out.append(run(S("CosineAnnealingWarmRestarts", **kw), "sgd0", n=35))
        out.append(run(S("CosineAnnealingWarmRestarts", **kw), "sgd0", steps=frac))
    return out


def errors():
    def msg(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            return str(e).strip("'\"")
        raise AssertionError("no error")

    def E(spec, optimizer="sgd"):
        return {"spec": spec, "optimizer": optimizer, "message": msg(lambda: build(spec, make_optimizer(optimizer)))}

    out = [
        E(S("ConstantLR", factor=1.5)), E(S("ConstantLR", factor=-0.1)),
        E(S("CosineAnnealingWarmRestarts", T_0=-1)), E(S("CosineAnnealingWarmRestarts", T_0=0)),
        E(S("CosineAnnealingWarmRestarts", T_0=3, T_mult=0)),
        E(S("ReduceLROnPlateau", factor=1.0)), E(S("ReduceLROnPlateau", min_lr=[0.1, 0.2, 0.3])),
        E(S("CyclicLR", base_lr=[0.1, 0.2, 0.3], max_lr=1.0)), E(S("CyclicLR", base_lr=0.1, max_lr=[1.0, 2.0, 3.0])),
        E(S("CyclicLR", base_lr=0.1, max_lr=1.0), "adam"),
        E(S("CyclicLR", base_lr=0.1, max_lr=1.0, base_momentum=[0.1, 0.2, 0.3])),
        E(S("OneCycleLR", max_lr=1.0)), E(S("OneCycleLR", max_lr=1.0, total_steps=0)),
        E(S("OneCycleLR", max_lr=1.0, total_steps=-5)), E(S("OneCycleLR", max_lr=1.0, epochs=0, steps_per_epoch=3)),
        E(S("OneCycleLR", max_lr=1.0, epochs=2, steps_per_epoch=-1)),
        E(S("OneCycleLR", max_lr=1.0, total_steps=10, pct_start=1.5)),
        E(S("OneCycleLR", max_lr=1.0, total_steps=10, pct_start=-0.25)),
        E(S("OneCycleLR", max_lr=[1.0, 2.0, 3.0], total_steps=10)),
        E(S("SequentialLR", schedulers=[S("ExponentialLR", gamma=0.9), S("ExponentialLR", gamma=0.8)],
            milestones=[2, 3])),
        E(S("SequentialLR", schedulers=[S("ExponentialLR", gamma=0.9)], milestones=[2])),
    ]
    o1, o2 = make_optimizer("sgd"), make_optimizer("sgd")
    other = {
        "sequential_other_optimizer": msg(lambda: L.SequentialLR(
            o1, [L.ExponentialLR(o1, 0.9), L.ExponentialLR(o2, 0.9)], milestones=[3])),
        "chained_other_optimizer": msg(lambda: L.ChainedScheduler([L.ExponentialLR(o1, 0.9),
                                                                    L.ExponentialLR(o2, 0.9)])),
        "lambda_count": msg(lambda: L.LambdaLR(make_optimizer("sgd"), [LAMBDAS["pow"]] * 3)),
        "multiplicative_count": msg(lambda: L.MultiplicativeLR(make_optimizer("sgd"), [LAMBDAS["pow"]])),
        "plateau_mode": msg(lambda: L.ReduceLROnPlateau(make_optimizer("sgd"), mode="average")),
        "plateau_threshold_mode": msg(lambda: L.ReduceLROnPlateau(make_optimizer("sgd"), threshold_mode="pct")),
        "cyclic_mode": msg(lambda: L.CyclicLR(make_optimizer("sgd"), 0.1, 1.0, mode="square")),
        "one_cycle_anneal": msg(lambda: L.OneCycleLR(make_optimizer("sgd"), 1.0, total_steps=10,
                                                     anneal_strategy="exp")),
        "warm_restarts_epoch": msg(lambda: L.CosineAnnealingWarmRestarts(make_optimizer("sgd"), 3).step(-1.5)),
    }
    s = L.OneCycleLR(make_optimizer("sgd"), 1.0, total_steps=10)
    for _ in range(10):
        s.step()
    other["one_cycle_past_end"] = msg(s.step)
    return out, other


def main():
    warnings.simplefilter("ignore")
    os.makedirs(OUT, exist_ok=True)
    errs, other = errors()
    path = os.path.join(OUT, "lr_scheduler_extra.json")
    with open(path, "w") as f:
        f.write('{"cases": [\n')
        cs = cases()
        f.write(",\n".join(json.dumps(c, sort_keys=False) for c in cs))
        f.write('\n],\n"errors": [\n')
        f.write(",\n".join(json.dumps(e) for e in errs))
        f.write('\n],\n"other_errors": ')
        f.write(json.dumps(other, indent=1))
        f.write("\n}\n")
    print("wrote", path, len(cs), "cases")


if __name__ == "__main__":
    main()
