"""torch 1.13's other optimizers (Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam, Rprop) vs torch:
the C tests' fixture tests/golden/optim/optim_extra.json (tests/golden/gen_optim_extra.py)."""

import json
import os

import numpy as np
import pytest

import glia
from glia import nn, optim
from _repo import ROOT

with open(os.path.join(ROOT, "tests", "golden", "optim", "optim_extra.json")) as _f:
    G = json.load(_f)

CLASSES = {"adadelta": "Adadelta", "adagrad": "Adagrad", "adamax": "Adamax", "asgd": "ASGD", "nadam": "NAdam",
           "radam": "RAdam", "rprop": "Rprop"}
_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64}
CASES = {c["name"]: c for c in G["cases"]}


def arr(t, dtype=None):
    v = [float(x) if isinstance(x, str) else x for x in t["values"]]
    return np.array(v, dtype=dtype or _NP[t["dtype"]]).reshape(t["shape"])


def kwargs_of(kw):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}


def params(dtype):
    return [nn.Parameter(glia.from_numpy(arr(t, dtype))) for t in G["initial"]]


def feed(ps, s, dtype):
    for p, gr in zip(ps, G["grads"][s]):
        p.grad = glia.from_numpy(arr(gr, dtype))


def torch_layout(flat, kind):
    """The generator's flattened torch state_dict back in torch's nested layout (Python values where
    torch 1.13 keeps them: Adadelta's and Rprop's int step, the groups' numbers and tuples)."""
    state, groups = {}, []
    for key, t in flat:
        parts = key.split(".")
        if parts[0] == "state":
            v = arr(t)
            if parts[2] == "step" and kind in ("adadelta", "rprop"):
                v = int(v)
            else:
                v = glia.from_numpy(v)
            state.setdefault(int(parts[1]), {})[parts[2]] = v
        else:
            g = int(parts[1])
            while len(groups) <= g:
                groups.append({})
            v = arr(t)
            if parts[2] == "params":
                groups[g]["params"] = [int(x) for x in v]
            elif v.ndim == 1:
                groups[g][parts[2]] = tuple(float(x) for x in v)
            elif parts[2] == "maximize":
                groups[g][parts[2]] = bool(v)
            else:
                groups[g][parts[2]] = float(v)
    for g in groups:
        g["foreach"] = False
    return {"state": state, "param_groups": groups}


def check_state(sd, flat, rtol):
    want = torch_layout(flat, None)
    assert list(sd["state"]) == list(want["state"])
    for i, entries in want["state"].items():
        assert list(sd["state"][i]) == list(entries)
        for name, v in entries.items():
            np.testing.assert_allclose(sd["state"][i][name].numpy(), v.numpy(), rtol=rtol, atol=rtol, err_msg=name)
    for g, w in zip(sd["param_groups"], want["param_groups"]):
        w = {k: v for k, v in w.items() if k != "foreach"}
        assert g == w


def tol(c):
    return 1e-9 if c["dtype"] == "float64" else 1e-5


@pytest.mark.parametrize("name", list(CASES))
def test_trajectory_matches_torch(name):
    c = CASES[name]
    dt = _NP[c["dtype"]]
    ps = params(dt)
    opt = getattr(optim, CLASSES[c["optimizer"]])(ps, **kwargs_of(c["options"]))
    p2 = ps[2].detach().numpy().copy()
    for s in range(20):
        opt.zero_grad()
        feed(ps, s, dt)
        opt.step()
        if str(s + 1) in c["checkpoints"]:
            for p, want in zip(ps, c["checkpoints"][str(s + 1)]):
                np.testing.assert_allclose(p.detach().numpy(), arr(want), rtol=tol(c), atol=tol(c))
    np.testing.assert_array_equal(ps[2].detach().numpy(), p2)
    check_state(opt.state_dict(), c["state"], tol(c))


@pytest.mark.parametrize("name", list(CASES))
def test_torch_state_dict_loads_and_resumes(name):
    c = CASES[name]
    dt = _NP[c["dtype"]]
    ps = [nn.Parameter(glia.from_numpy(arr(t, dt))) for t in c["checkpoints"]["10"]]
    opt = getattr(optim, CLASSES[c["optimizer"]])(ps)
    opt.load_state_dict(torch_layout(c["state10"], c["optimizer"]))
    assert opt.param_groups[0]["lr"] == c["options"].get("lr", opt.defaults["lr"])
    for s in range(10, 20):
        feed(ps, s, dt)
        opt.step()
    for p, want in zip(ps, c["checkpoints"]["20"]):
        np.testing.assert_allclose(p.detach().numpy(), arr(want), rtol=tol(c), atol=tol(c))
    check_state(opt.state_dict(), c["state"], tol(c))


@pytest.mark.parametrize("case", G["groups"], ids=[g["optimizer"] for g in G["groups"]])
def test_param_groups_keep_their_options(case):
    ps = params(np.float64)[:2]
    cls = getattr(optim, CLASSES[case["optimizer"]])
    opt = cls([{"params": [ps[0]]}, dict(params=[ps[1]], **kwargs_of(case["group1"]))], **kwargs_of(case["group0"]))
    assert len(opt.param_groups) == 2
    for s in range(case["steps"]):
        opt.zero_grad()
        feed(ps, s, np.float64)
        opt.step()
    for p, want in zip(ps, case["params"]):
        np.testing.assert_allclose(p.detach().numpy(), arr(want), rtol=1e-9, atol=1e-9)
    check_state(opt.state_dict(), case["state"], 1e-9)


@pytest.mark.parametrize("err", G["option_errors"], ids=[e["message"] for e in G["option_errors"]])
def test_errors_like_torch(err):
    p = nn.Parameter(glia.zeros(2))
    with pytest.raises(ValueError) as info:
        getattr(optim, CLASSES[err["optimizer"]])([p], **kwargs_of(err["options"]))
    assert str(info.value) == err["message"]


def test_pair_options_are_live_and_checked():
    p = nn.Parameter(glia.tensor([1.0, -2.0], dtype=glia.float64))
    opt = optim.Rprop([p], lr=0.01)
    g = opt.param_groups[0]
    assert g["etas"] == (0.5, 1.2) and g["step_sizes"] == (1e-6, 50)
    g["step_sizes"] = (1e-6, 0.25)
    g["etas"] = (0.5, 100.0)
    for _ in range(3):
        p.grad = glia.tensor([1.0, -1.0], dtype=glia.float64)
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), [1 - 0.51, -2 + 0.51], rtol=1e-15)
    with pytest.raises(ValueError, match=r"^Invalid eta values: 0.5, 0.9$"):
        g["etas"] = (0.5, 0.9)
    sd = opt.state_dict()["param_groups"][0]
    assert sd["etas"] == (0.5, 100.0) and sd["step_sizes"] == (1e-6, 0.25)
    a = optim.Adamax([nn.Parameter(glia.ones(1))])
    with pytest.raises(ValueError, match=r"^Invalid beta parameter at index 1: 1.0$"):
        a.param_groups[0]["betas"] = (0.5, 1.0)
    assert a.state_dict()["param_groups"][0]["betas"] == (0.9, 0.999)


def test_training_loop_loss_falls():
    glia.manual_seed(0)
    x = glia.randn(64, 4)
    y = x.sum(1, keepdim=True) * 0.5
    for cls, kw in ((optim.Adadelta, {}), (optim.Adagrad, dict(lr=0.1)), (optim.Adamax, dict(lr=0.02)),
                    (optim.ASGD, dict(lr=0.05)), (optim.NAdam, dict(lr=0.02)), (optim.RAdam, dict(lr=0.02)),
                    (optim.Rprop, {})):
        model = nn.Linear(4, 1)
        opt = cls(model.parameters(), **kw)
        losses = []
        for _ in range(60):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[-1] < 0.5 * losses[0], cls.__name__


LBFGS_CASES = {c["name"]: c for c in G["lbfgs"]}


def lbfgs_problem(dt):
    data = G["lbfgs_data"]
    wx, wy, b = (glia.from_numpy(arr(data[k], dt)) for k in ("wx", "wy", "b"))
    ps = params(dt)[:2]

    def loss_of(x, y):
        return ((wx * x * x).sum() + 0.05 * (x * x * x * x).sum() + (wy * (y - b) * (y - b)).sum()
                + 0.01 * (x.sum() * y.sum()) ** 2)

    return ps, loss_of


@pytest.mark.parametrize("name", list(LBFGS_CASES))
def test_lbfgs_matches_torch(name):
    c = LBFGS_CASES[name]
    dt = _NP[c["dtype"]]
    rtol = 1e-8 if c["dtype"] == "float64" else 2e-3
    ps, loss_of = lbfgs_problem(dt)
    opt = optim.LBFGS(ps, **c["options"])
    calls = []

    def closure():
        opt.zero_grad()
        loss = loss_of(*ps)
        loss.backward()
        calls.append(1)
        return loss

    for s in c["steps"]:
        loss = opt.step(closure)
        np.testing.assert_allclose(float(loss), s["loss"], rtol=rtol, atol=rtol)
        for p, want in zip(ps, s["params"]):
            np.testing.assert_allclose(p.detach().numpy(), arr(want), rtol=rtol, atol=rtol)
        st = opt.state_dict()["state"][0]
        assert (st["func_evals"], st["n_iter"]) == (s["func_evals"], s["n_iter"])
    assert len(calls) == c["steps"][-1]["func_evals"]
    sd = opt.state_dict()
    assert list(sd["state"][0]) == [k for k in c["keys"] if k != "al"]
    want = c["state"]
    st = sd["state"][0]
    assert len(st["old_dirs"]) == len(want["old_dirs"]) and len(st["ro"]) == len(want["ro"])
    np.testing.assert_allclose(st["d"].numpy(), arr(want["d"]), rtol=rtol, atol=rtol)
    np.testing.assert_allclose([float(r) for r in st["ro"]], want["ro"], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(st["t"], want["t"], rtol=rtol, atol=rtol)
    g = sd["param_groups"][0]
    assert g["line_search_fn"] == c["options"].get("line_search_fn")
    assert g["max_iter"] == c["options"].get("max_iter", 20) and isinstance(g["max_iter"], int)


def test_lbfgs_state_dict_round_trip_and_errors():
    c = LBFGS_CASES["lbfgs_strong_wolfe_h3_it5"]
    ps, loss_of = lbfgs_problem(np.float64)
    opt = optim.LBFGS(ps, **c["options"])

    def closure():
        opt.zero_grad()
        loss = loss_of(*ps)
        loss.backward()
        return loss

    opt.step(closure)
    opt.step(closure)
    sd = opt.state_dict()
    opt2 = optim.LBFGS(ps)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["line_search_fn"] == "strong_wolfe"
    opt = opt2
    loss = opt2.step(closure)
    np.testing.assert_allclose(float(loss), c["steps"][2]["loss"], rtol=1e-8, atol=1e-8)
    for p, want in zip(ps, c["steps"][2]["params"]):
        np.testing.assert_allclose(p.detach().numpy(), arr(want), rtol=1e-8, atol=1e-8)

    def bad():
        raise KeyError("from the closure")

    with pytest.raises(KeyError, match="from the closure"):
        opt2.step(bad)
    with pytest.raises(TypeError):
        opt2.step()
    with pytest.raises(ValueError, match="only 'strong_wolfe' is supported"):
        optim.LBFGS(ps, line_search_fn="armijo")
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options \(parameter groups\)$"):
        optim.LBFGS([{"params": [ps[0]]}, {"params": [ps[1]]}])
