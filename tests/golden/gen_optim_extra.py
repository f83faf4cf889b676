"""Golden fixtures for torch 1.13's other optimizers (tests/optim/optim_extra_test.cpp): Adadelta,
Adagrad, Adamax, ASGD, NAdam, RAdam and Rprop.

Run from tests/golden/ with a Python that has torch 1.13 (/usr/bin/python3); writes
optim/optim_extra.json, one case per line. As gen_optim.py: every case starts from the same
parameters and is fed the same grads: p0 [3, 4] and p1 [5] get grads every step, p2 [2, 2] never has
one (it must stay unchanged; only Adagrad gives it a state, at construction, as torch does).
checkpoints hold the parameters after steps 1, 5, 10 and 20; state10 and state the flattened
state_dict after 10 and 20 steps (torch's key order; torch's flag foreach left out; Python numbers as
float32 0-dim tensors, as glia keeps "step"). Appending cases leaves the others' values unchanged.
"""

import itertools
import json
import os

import torch

from golden import encode

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "optim")
STEPS = 20
CHECK = [1, 5, 10, 20]
IGNORED = {"foreach", "differentiable", "capturable", "fused"}

g = torch.Generator().manual_seed(2113)
P0 = [torch.randn(3, 4, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64),
      torch.randn(2, 2, generator=g, dtype=torch.float64)]
GRADS = [[torch.randn(3, 4, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64)]
         for _ in range(STEPS)]

CLASSES = {"adadelta": torch.optim.Adadelta, "adagrad": torch.optim.Adagrad, "adamax": torch.optim.Adamax,
           "asgd": torch.optim.ASGD, "nadam": torch.optim.NAdam, "radam": torch.optim.RAdam,
           "rprop": torch.optim.Rprop}
PAIRS = ("betas", "etas", "step_sizes")


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
    opts = dict(opts)
    for k in PAIRS:
        if k in opts:
            opts[k] = tuple(opts[k])
    return CLASSES[kind](params, foreach=False, **opts)


def trajectory(name, kind, opts, dtype=torch.float64):
    params = [p.clone().to(dtype).requires_grad_(True) for p in P0]
    opt = make(kind, params, opts)
    checkpoints = {}
    state10 = None
    for s in range(1, STEPS + 1):
        opt.zero_grad(set_to_none=True)
        for p, gr in zip(params, GRADS[s - 1]):
            p.grad = gr.to(dtype)
        opt.step()
        if s in CHECK:
            checkpoints[str(s)] = [T(p) for p in params]
        if s == 10:
            state10 = flat_state_dict(opt.state_dict())
    return {"name": name, "optimizer": kind, "options": opts,
            "dtype": "float32" if dtype == torch.float32 else "float64", "checkpoints": checkpoints, "state10": state10, "state": flat_state_dict(opt.state_dict())}


def cases():
    out = []
    for wd, mx in itertools.product([0.0, 0.1], [False, True]):
        out.append(trajectory(f"adadelta_wd{wd}_max{int(mx)}", "adadelta", dict(lr=0.5, weight_decay=wd, maximize=mx)))
    out.append(trajectory("adadelta_rho_eps", "adadelta", dict(rho=0.5, eps=1e-3, weight_decay=0.01)))
    for lrd, wd, iav, mx in itertools.product([0.0, 0.05], [0.0, 0.1], [0.0, 0.3], [False, True]):
        out.append(trajectory(f"adagrad_lrd{lrd}_wd{wd}_iav{iav}_max{int(mx)}", "adagrad",
                              dict(lr=0.05, lr_decay=lrd, weight_decay=wd, initial_accumulator_value=iav, maximize=mx)))
    out.append(trajectory("adagrad_eps", "adagrad", dict(lr=0.1, eps=1e-2)))
    for wd, mx in itertools.product([0.0, 0.1], [False, True]):
        out.append(trajectory(f"adamax_wd{wd}_max{int(mx)}", "adamax", dict(lr=0.01, weight_decay=wd, maximize=mx)))
    out.append(trajectory("adamax_betas_eps", "adamax", dict(lr=0.02, betas=[0.8, 0.9], eps=1e-3)))
    for wd, mx, t0 in itertools.product([0.0, 0.1], [False, True], [1e6, 5.0]):
        out.append(trajectory(f"asgd_wd{wd}_max{int(mx)}_t0{t0}", "asgd",
                              dict(lr=0.05, lambd=0.01, weight_decay=wd, maximize=mx, t0=t0)))
    out.append(trajectory("asgd_defaults", "asgd", dict()))
    out.append(trajectory("asgd_alpha", "asgd", dict(lr=0.1, lambd=0.05, alpha=0.5, t0=3.0)))
    for wd in [0.0, 0.1]:
        out.append(trajectory(f"nadam_wd{wd}", "nadam", dict(lr=0.01, weight_decay=wd)))
    out.append(trajectory("nadam_betas_eps_md", "nadam", dict(lr=0.02, betas=[0.8, 0.9], eps=1e-3, momentum_decay=0.1)))
    for wd in [0.0, 0.1]:
        out.append(trajectory(f"radam_wd{wd}", "radam", dict(lr=0.01, weight_decay=wd)))
    # beta2 0.9: rho_inf 19, rectified from step 4 on; beta2 0.5: never rectified.
    out.append(trajectory("radam_beta2_0.9", "radam", dict(lr=0.02, betas=[0.8, 0.9], eps=1e-3)))
    out.append(trajectory("radam_beta2_0.5", "radam", dict(lr=0.02, betas=[0.9, 0.5])))
    for mx in [False, True]:
        out.append(trajectory(f"rprop_max{int(mx)}", "rprop", dict(lr=0.01, maximize=mx)))
    out.append(trajectory("rprop_etas_step_sizes", "rprop", dict(lr=0.01, etas=[0.3, 1.5], step_sizes=[1e-3, 0.02])))
    f32 = torch.float32
    out.append(trajectory("adadelta_float32", "adadelta", dict(lr=0.5, weight_decay=0.1), f32))
    out.append(trajectory("adagrad_float32", "adagrad", dict(lr=0.05, lr_decay=0.05, initial_accumulator_value=0.3),
                          f32))
    out.append(trajectory("adamax_float32", "adamax", dict(lr=0.01, weight_decay=0.1), f32))
    out.append(trajectory("asgd_float32", "asgd", dict(lr=0.05, lambd=0.01, t0=5.0, weight_decay=0.1), f32))
    out.append(trajectory("nadam_float32", "nadam", dict(lr=0.01, weight_decay=0.1), f32))
    out.append(trajectory("radam_float32", "radam", dict(lr=0.01, weight_decay=0.1), f32))
    out.append(trajectory("rprop_float32", "rprop", dict(lr=0.01, maximize=True), f32))
    return out


# torch's defaults in its order (what glia_<x>_options_init gives).
DEFAULTS = {
    "adadelta": dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False),
    "adagrad": dict(lr=1e-2, lr_decay=0.0, eps=1e-10, weight_decay=0.0, initial_accumulator_value=0.0, maximize=False),
    "adamax": dict(lr=2e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0.0, maximize=False),
    "asgd": dict(lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False),
    "nadam": dict(lr=2e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0.0, momentum_decay=4e-3),
    "radam": dict(lr=1e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0.0),
    "rprop": dict(lr=1e-2, etas=[0.5, 1.2], step_sizes=[1e-6, 50.0], maximize=False),
}


def groups():
    """Two param groups with their own options (p0 in group 0, p1 in group 1). The second group
    passes every option (a C options struct has them all), in torch's defaults order. Adagrad's
    second group is left out: torch 1.13 creates Adagrad's state in the constructor only (a later
    group's step fails with a KeyError)."""
    out = []
    for kind, g0, g1 in (("adadelta", dict(lr=0.5), dict(lr=0.2, rho=0.8, weight_decay=0.1)),
                         ("adamax", dict(lr=0.01), dict(lr=0.05, betas=[0.5, 0.6], maximize=True)),
                         ("asgd", dict(lr=0.05, t0=3.0), dict(lr=0.02, lambd=0.01, t0=2.0)),
                         ("nadam", dict(lr=0.01), dict(lr=0.03, momentum_decay=0.01)),
                         ("radam", dict(lr=0.01), dict(lr=0.03, betas=[0.8, 0.9])),
                         ("rprop", dict(lr=0.01), dict(lr=0.02, etas=[0.4, 1.1], step_sizes=[1e-4, 1.0]))):
        params = [p.clone().requires_grad_(True) for p in P0[:2]]
        opt = make(kind, [params[0]], g0)
        g1t = dict(DEFAULTS[kind])
        g1t.update(g1)
        for k in PAIRS:
            if k in g1t:
                g1t[k] = tuple(g1t[k])
        opt.add_param_group(dict(params=[params[1]], **g1t))
        for s in range(10):
            opt.zero_grad()
            for p, gr in zip(params, GRADS[s]):
                p.grad = gr.clone()
            opt.step()
        out.append({"optimizer": kind, "group0": g0, "group1": g1, "steps": 10, "params": [T(p) for p in params],
                    "state": flat_state_dict(opt.state_dict())})
    return out


def errors():
    def msg(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            return str(e).strip("'\"")
        raise AssertionError("no error")

    configs = [
        ("adadelta", dict(lr=-1.0)), ("adadelta", dict(rho=1.5)), ("adadelta", dict(rho=-0.1)),
        ("adadelta", dict(eps=-1e-6)), ("adadelta", dict(weight_decay=-0.1)),
        ("adagrad", dict(lr=-0.01)), ("adagrad", dict(lr_decay=-0.5)), ("adagrad", dict(weight_decay=-0.1)),
        ("adagrad", dict(initial_accumulator_value=-1.0)), ("adagrad", dict(eps=-1e-10)),
        ("adamax", dict(lr=-0.002)), ("adamax", dict(eps=-1.0)), ("adamax", dict(betas=[1.0, 0.999])),
        ("adamax", dict(betas=[0.9, -0.5])), ("adamax", dict(weight_decay=-0.1)),
        ("asgd", dict(lr=-0.01)), ("asgd", dict(weight_decay=-0.1)),
        ("nadam", dict(lr=-1.0)), ("nadam", dict(eps=-1.0)), ("nadam", dict(betas=[0.9, 1.0])),
        ("nadam", dict(weight_decay=-0.1)), ("nadam", dict(momentum_decay=-0.1)),
        ("radam", dict(lr=-1.0)), ("radam", dict(eps=-1.0)), ("radam", dict(betas=[-0.1, 0.999])),
        ("radam", dict(weight_decay=-0.1)),
        ("rprop", dict(lr=-1.0)), ("rprop", dict(etas=[1.5, 1.2])), ("rprop", dict(etas=[0.5, 0.9])),
        ("rprop", dict(etas=[0.0, 1.2])),
    ]
    out = []
    for kind, opts in configs:
        p = [torch.zeros(2, requires_grad=True)]
        out.append({"optimizer": kind, "options": opts, "message": msg(lambda: make(kind, p, opts))})
    return out


# LBFGS minimises f(x, y) = sum(WX x^2) + 0.05 sum(x^4) + sum(WY (y - B)^2) + 0.01 (sum(x) sum(y))^2 over
# p0 (x, [3, 4]) and p1 (y, [5]) from the cases' initial values; step(closure) is called 3 times.
WX = torch.linspace(0.5, 3.0, 12, dtype=torch.float64).reshape(3, 4)
WY = torch.linspace(1.0, 2.0, 5, dtype=torch.float64)
B = torch.linspace(-1.0, 1.0, 5, dtype=torch.float64)


def lbfgs_loss(x, y):
    return ((WX.to(x.dtype) * x * x).sum() + 0.05 * (x * x * x * x).sum()
            + (WY.to(y.dtype) * (y - B.to(y.dtype)) * (y - B.to(y.dtype))).sum() + 0.01 * (x.sum() * y.sum()) ** 2)


def lbfgs_case(name, opts, dtype=torch.float64, steps=3):
    params = [p.clone().to(dtype).requires_grad_(True) for p in P0[:2]]
    opt = torch.optim.LBFGS(params, **opts)

    def closure():
        opt.zero_grad()
        loss = lbfgs_loss(*params)
        loss.backward()
        return loss

    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[params[0]]
        out.append({"loss": float(loss), "params": [T(p) for p in params], "func_evals": st["func_evals"],
                    "n_iter": st["n_iter"]})
    st = opt.state[params[0]]
    state = {"d": T(st["d"]), "t": float(st["t"]), "old_dirs": [T(v) for v in st["old_dirs"]],
             "old_stps": [T(v) for v in st["old_stps"]], "ro": [float(v) for v in st["ro"]],
             "H_diag": float(st["H_diag"]), "prev_flat_grad": T(st["prev_flat_grad"]),
             "prev_loss": float(st["prev_loss"])}
    return {"name": name, "options": opts, "dtype": "float32" if dtype == torch.float32 else "float64",
            "steps": out, "state": state, "keys": list(st.keys())}


def lbfgs():
    out = []
    for ls, hist, it in itertools.product([None, "strong_wolfe"], [100, 3], [20, 5]):
        opts = dict(lr=1.0 if ls else 0.2, history_size=hist, max_iter=it, line_search_fn=ls)
        out.append(lbfgs_case(f"lbfgs_{ls}_h{hist}_it{it}", opts))
    out.append(lbfgs_case("lbfgs_tolerances", dict(lr=0.2, tolerance_grad=1e-3, tolerance_change=1e-4, max_eval=7)))
    out.append(lbfgs_case("lbfgs_wolfe_lr", dict(lr=0.3, max_iter=8, line_search_fn="strong_wolfe")))
    out.append(lbfgs_case("lbfgs_float32", dict(lr=0.2, max_iter=6), torch.float32))
    out.append(lbfgs_case("lbfgs_wolfe_float32", dict(max_iter=6, line_search_fn="strong_wolfe"), torch.float32))
    return out


def dump(doc):
    """JSON with one case (or group, or error) per line."""
    lines = ["{"]
    keys = list(doc)
    for i, k in enumerate(keys):
        v = doc[k]
        end = "," if i + 1 < len(keys) else ""
        if isinstance(v, list) and k in ("cases", "groups", "option_errors", "lbfgs"):
            lines.append(json.dumps(k) + ":[")
            for j, item in enumerate(v):
                lines.append(json.dumps(item, separators=(",", ":")) + ("," if j + 1 < len(v) else ""))
            lines.append("]" + end)
        else:
            lines.append(json.dumps(k) + ":" + json.dumps(v, separators=(",", ":")) + end)
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    doc = {"initial": [T(p) for p in P0], "grads": [[T(x) for x in step] for step in GRADS], "cases": cases(),
           "groups": groups(), "option_errors": errors(), "lbfgs": lbfgs(),
           "lbfgs_data": {"wx": T(WX), "wy": T(WY), "b": T(B)}}
    path = os.path.join(OUT, "optim_extra.json")
    with open(path, "w") as f:
        f.write(dump(doc))
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
