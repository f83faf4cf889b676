"""Golden fixtures for the optimizers, LR schedulers and clip_grad_* (tests/optim/).

Run from tests/golden/ with a Python that has torch 1.13 (/usr/bin/python3);
writes optim/optim.json. Every optimizer case starts from the same float64
parameters and is fed the same grads (from torch, fixed): p0 [3, 4] and p1 [5]
get grads every step, p2 [2, 2] never has a grad (it must stay unchanged and
stateless). checkpoints hold the parameters after steps 1, 5, 10 and 20;
state the flattened state_dict after 20 steps (key order as torch's, torch's
flags foreach/differentiable/capturable/fused left out, None values left out).
"""

import itertools
import json
import math
import os

import torch

from golden import encode

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "optim")
STEPS = 20
CHECK = [1, 5, 10, 20]
IGNORED = {"foreach", "differentiable", "capturable", "fused"}

g = torch.Generator().manual_seed(4321)
P0 = [torch.randn(3, 4, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64),
      torch.randn(2, 2, generator=g, dtype=torch.float64)]
GRADS = [[torch.randn(3, 4, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64)]
         for _ in range(STEPS)]


def T(t):
    t = t.detach()
    names = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64"}
    return {"dtype": names[t.dtype], "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


def flat_state_dict(sd):
    out = []
    for idx, st in sd["state"].items():
        for name, v in st.items():
            if v is None:
                continue
            if not isinstance(v, torch.Tensor):
                v = torch.tensor(float(v), dtype=torch.float32)
            out.append([f"state.{idx}.{name}", T(v)])
    for gi, group in enumerate(sd["param_groups"]):
        for k, v in group.items():
            if k in IGNORED:
                continue
            if k == "params":
                v = torch.tensor(v, dtype=torch.int64)
            elif isinstance(v, tuple):
                v = torch.tensor(v, dtype=torch.float64)
            else:
                v = torch.tensor(float(v), dtype=torch.float64)
            out.append([f"param_groups.{gi}.{k}", T(v)])
    return out


def make(kind, params, opts):
    cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
           "rmsprop": torch.optim.RMSprop}[kind]
    opts = dict(opts)
    if "betas" in opts:
        opts["betas"] = tuple(opts["betas"])
    return cls(params, foreach=False, **opts)


def trajectory(name, kind, opts, dtype=torch.float64):
    params = [p.clone().to(dtype).requires_grad_(True) for p in P0]
    opt = make(kind, params, opts)
    checkpoints = {}
    for s in range(1, STEPS + 1):
        opt.zero_grad(set_to_none=True)
        for p, gr in zip(params, GRADS[s - 1]):
            p.grad = gr.to(dtype)
        opt.step()
        if s in CHECK:
            checkpoints[str(s)] = [T(p) for p in params]
    return {"name": name, "optimizer": kind, "options": opts, "dtype": "float32" if dtype == torch.float32 else "float64",
            "checkpoints": checkpoints, "state": flat_state_dict(opt.state_dict())}


def cases():
    out = []
    for m, d, n, wd, mx in itertools.product([0.0, 0.9], [0.0, 0.1], [False, True], [0.0, 0.01], [False, True]):
        if n and (m <= 0 or d != 0):
            continue
        opts = dict(lr=0.05, momentum=m, dampening=d, nesterov=n, weight_decay=wd, maximize=mx)
        out.append(trajectory(f"sgd_m{m}_d{d}_n{int(n)}_wd{wd}_max{int(mx)}", "sgd", opts))
    for kind, wds in (("adam", [0.0, 0.1]), ("adamw", [0.0, 0.1])):
        for ams, wd, mx in itertools.product([False, True], wds, [False, True]):
            opts = dict(lr=0.01, amsgrad=ams, weight_decay=wd, maximize=mx)
            out.append(trajectory(f"{kind}_ams{int(ams)}_wd{wd}_max{int(mx)}", kind, opts))
        out.append(trajectory(f"{kind}_betas_eps", kind, dict(lr=0.02, betas=[0.8, 0.9], eps=1e-3, weight_decay=0.05)))
    for m, c, wd in itertools.product([0.0, 0.9], [False, True], [0.0, 0.01]):
        out.append(trajectory(f"rmsprop_m{m}_c{int(c)}_wd{wd}", "rmsprop", dict(lr=0.01, momentum=m, centered=c,
                                                                                weight_decay=wd)))
    out.append(trajectory("rmsprop_alpha_eps_max", "rmsprop", dict(lr=0.005, alpha=0.9, eps=1e-4, maximize=True,
                                                                     momentum=0.5, centered=True)))
    out.append(trajectory("sgd_float32", "sgd", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
                          torch.float32))
    out.append(trajectory("adam_float32", "adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1), torch.float32))
    out.append(trajectory("rmsprop_float32", "rmsprop", dict(lr=0.01, momentum=0.9, centered=True), torch.float32))
    return out


# torch's defaults in its order (what glia_<x>_options_init gives; SGD's lr as in torch 2.x).
DEFAULTS = {
    "sgd": dict(lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False),
    "adam": dict(lr=1e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False),
    "rmsprop": dict(lr=1e-2, momentum=0.0, alpha=0.99, eps=1e-8, centered=False, weight_decay=0.0, maximize=False),
}


def groups():
    """Two param groups with their own options (p0 in group 0, p1 in group 1). The second group
    passes every option (a C options struct has them all), in torch's defaults order."""
    out = []
    for kind, g0, g1 in (("sgd", dict(lr=0.1, momentum=0.9), dict(lr=0.01, weight_decay=0.1)),
                         ("adam", dict(lr=0.01), dict(lr=0.05, betas=[0.5, 0.6], amsgrad=True)),
                         ("rmsprop", dict(lr=0.01), dict(lr=0.002, momentum=0.3, centered=True))):
        params = [p.clone().requires_grad_(True) for p in P0[:2]]
        opt = make(kind, [params[0]], g0)
        g1t = dict(DEFAULTS[kind])
        g1t.update(g1)
        if "betas" in g1t:
            g1t["betas"] = tuple(g1t["betas"])
        opt.add_param_group(dict(params=[params[1]], **g1t))
        for s in range(10):
            opt.zero_grad()
            for p, gr in zip(params, GRADS[s]):
                p.grad = gr.clone()
            opt.step()
        out.append({"optimizer": kind, "group0": g0, "group1": g1, "steps": 10, "params": [T(p) for p in params],
                    "state": flat_state_dict(opt.state_dict())})
    return out


def schedulers():
    out = []
    configs = [("step_lr", dict(step_size=7, gamma=0.5)), ("step_lr", dict(step_size=1, gamma=0.9)),
               ("multi_step_lr", dict(milestones=[5, 12, 12, 20], gamma=0.3)),
               ("cosine_annealing_lr", dict(T_max=10, eta_min=0.001)), ("cosine_annealing_lr", dict(T_max=7)),
               ("linear_lr", dict()), ("linear_lr", dict(start_factor=0.5, end_factor=0.9, total_iters=8))]
    cls = {"step_lr": torch.optim.lr_scheduler.StepLR, "multi_step_lr": torch.optim.lr_scheduler.MultiStepLR,
           "cosine_annealing_lr": torch.optim.lr_scheduler.CosineAnnealingLR,
           "linear_lr": torch.optim.lr_scheduler.LinearLR}
    for kind, args in configs:
        p0 = torch.zeros(2, requires_grad=True)
        p1 = torch.zeros(2, requires_grad=True)
        opt = torch.optim.SGD([p0], lr=0.1)
        opt.add_param_group({"params": [p1], "lr": 0.05})
        sched = cls[kind](opt, **args)
        lrs = [list(sched.get_last_lr())]
        for _ in range(30):
            opt.step()
            sched.step()
            lrs.append(list(sched.get_last_lr()))
        out.append({"scheduler": kind, "args": args, "lrs": lrs})
    return out


def clipping():
    out = []
    for norm_type, max_norm in ((2.0, 1.0), (1.0, 2.0), (math.inf, 0.5), (3.0, 1.5), (0.5, 4.0), (2.0, 100.0),
                                (math.inf, 100.0)):
        grads = [torch.randn(3, 4, generator=g, dtype=torch.float64),
                 torch.randn(5, generator=g, dtype=torch.float64) * 0.3]
        params = [torch.zeros(3, 4, dtype=torch.float64, requires_grad=True),
                  torch.zeros(5, dtype=torch.float64, requires_grad=True),
                  torch.zeros(2, dtype=torch.float64, requires_grad=True)]
        for p, gr in zip(params, grads):
            p.grad = gr.clone()
        total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
        out.append({"norm_type": encode(norm_type), "max_norm": max_norm, "grads": [T(x) for x in grads],
                    "total": total.item(), "clipped": [T(p.grad) for p in params[:2]]})
    grads = [torch.randn(3, 4, generator=g, dtype=torch.float64)]
    p = torch.zeros(3, 4, dtype=torch.float64, requires_grad=True)
    p.grad = grads[0].clone()
    torch.nn.utils.clip_grad_value_([p], 0.7)
    value = {"clip_value": 0.7, "grad": T(grads[0]), "clipped": T(p.grad)}
    return out, value


def errors():
    def msg(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            return str(e).strip("'\"")
        raise AssertionError("no error")

    p = [torch.zeros(2, requires_grad=True)]
    S, A, W, R = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop
    out = [
        {"optimizer": "sgd", "options": dict(lr=-1.0), "message": msg(lambda: S(p, lr=-1.0))},
        {"optimizer": "sgd", "options": dict(lr=0.1, momentum=-0.5), "message": msg(lambda: S(p, lr=0.1, momentum=-0.5))},
        {"optimizer": "sgd", "options": dict(lr=0.1, weight_decay=-0.001),
         "message": msg(lambda: S(p, lr=0.1, weight_decay=-0.001))},
        {"optimizer": "sgd", "options": dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
         "message": msg(lambda: S(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True))},
        {"optimizer": "sgd", "options": dict(lr=0.1, nesterov=True), "message": msg(lambda: S(p, lr=0.1, nesterov=True))},
        {"optimizer": "adam", "options": dict(betas=[1.0, 0.999]), "message": msg(lambda: A(p, betas=(1.0, 0.999)))},
        {"optimizer": "adam", "options": dict(betas=[0.9, 1.5]), "message": msg(lambda: A(p, betas=(0.9, 1.5)))},
        {"optimizer": "adam", "options": dict(eps=-1e-8), "message": msg(lambda: A(p, eps=-1e-8))},
        {"optimizer": "adam", "options": dict(lr=-0.001), "message": msg(lambda: A(p, lr=-0.001))},
        {"optimizer": "adamw", "options": dict(weight_decay=-0.01), "message": msg(lambda: W(p, weight_decay=-0.01))},
        {"optimizer": "rmsprop", "options": dict(alpha=-0.1), "message": msg(lambda: R(p, alpha=-0.1))},
        {"optimizer": "rmsprop", "options": dict(momentum=-1.0), "message": msg(lambda: R(p, momentum=-1.0))},
        {"optimizer": "rmsprop", "options": dict(eps=-1e-05), "message": msg(lambda: R(p, eps=-1e-05))},
    ]
    other = {
        "empty": msg(lambda: S([], lr=0.1)),
        "duplicate_group": msg(lambda: S(p, lr=0.1).add_param_group({"params": p})),
        "groups_count": msg(lambda: S(p, lr=0.1).load_state_dict(
            {"state": {}, "param_groups": S(p, lr=0.1).state_dict()["param_groups"] * 2})),
        "group_size": msg(lambda: S(p, lr=0.1).load_state_dict(
            S([p[0], torch.zeros(1, requires_grad=True)], lr=0.1).state_dict())),
        "linear_start": msg(lambda: torch.optim.lr_scheduler.LinearLR(S(p, lr=0.1), start_factor=1.5)),
        "linear_end": msg(lambda: torch.optim.lr_scheduler.LinearLR(S(p, lr=0.1), end_factor=-0.5)),
    }
    q = torch.zeros(2, requires_grad=True)
    q.grad = torch.tensor([float("inf"), 1.0])
    other["nonfinite"] = msg(lambda: torch.nn.utils.clip_grad_norm_([q], 1.0, error_if_nonfinite=True))
    return out, other


def main():
    os.makedirs(OUT, exist_ok=True)
    clip, clip_value = clipping()
    errs, other = errors()
    doc = {"initial": [T(p) for p in P0], "grads": [[T(x) for x in step] for step in GRADS], "cases": cases(),
           "groups": groups(), "schedulers": schedulers(), "clip_grad_norm": clip, "clip_grad_value": clip_value,
           "option_errors": errs, "errors": other}
    path = os.path.join(OUT, "optim.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
