"""Optimizers and LR schedulers vs PyTorch 1.13 (same initial parameters, same grads)."""

import os
import sys

import numpy as np
import pytest

import glia
from glia import nn, optim

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "golden"))
from nn_golden import A, J  # noqa: E402


def kwargs_of(kw):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}


def run(name, steps=None):
    cls_name, kw = J["opt_cfgs"][name]
    p = nn.Parameter(glia.from_numpy(A["opt_p0"].copy()))
    opt = getattr(optim, cls_name)([p], **kwargs_of(kw))
    traj = []
    for g in A["opt_grads"][:steps]:
        opt.zero_grad()
        (p * glia.from_numpy(g.copy())).sum().backward()
        opt.step()
        traj.append(p.detach().numpy().copy())
    return p, opt, np.stack(traj)


@pytest.mark.parametrize("name", list(J["opt_cfgs"]))
def test_trajectory_matches_torch(name):
    _, opt, traj = run(name)
    np.testing.assert_allclose(traj, A["opt_" + name], rtol=1e-5, atol=1e-6)
    sd = opt.state_dict()
    if name == "sgd":  # torch keeps {'momentum_buffer': None}; glia leaves the None out (documented)
        assert sd["state"] == {} and J["opt_state_names_" + name] == ["momentum_buffer"]
    else:
        assert sorted(sd["state"][0]) == J["opt_state_names_" + name]
    assert sd["param_groups"][0]["params"] == [0]


@pytest.mark.parametrize("name", ["sgd_mom", "adam_ams", "rmsprop_c"])
def test_state_dict_round_trip_resumes(name):
    p, opt, _ = run(name, steps=3)
    sd = opt.state_dict()
    cls_name, kw = J["opt_cfgs"][name]
    q = nn.Parameter(p.detach().clone())
    opt2 = getattr(optim, cls_name)([q], **kwargs_of(kw))
    opt2.load_state_dict(sd)
    for g in A["opt_grads"][3:]:
        for o, t in ((opt, p), (opt2, q)):
            o.zero_grad()
            (t * glia.from_numpy(g.copy())).sum().backward()
            o.step()
    np.testing.assert_allclose(q.detach().numpy(), A["opt_" + name][-1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(p.detach().numpy(), A["opt_" + name][-1], rtol=1e-5, atol=1e-6)


def test_param_groups_and_lr():
    a, b = nn.Parameter(glia.ones(2)), nn.Parameter(glia.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[0]["params"][0] is a
    (a.sum() + b.sum()).backward()
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), [0.9, 0.9])
    np.testing.assert_allclose(b.detach().numpy(), [0.5, 0.5])
    opt.param_groups[0]["lr"] = 1.0
    opt.step()  # grads unchanged: momentum buffer 1.9
    np.testing.assert_allclose(a.detach().numpy(), [0.9 - 1.9, 0.9 - 1.9], rtol=1e-6)
    assert opt.state_dict()["param_groups"][0]["lr"] == 1.0
    opt.zero_grad()
    assert a.grad is None
    opt.add_param_group({"params": [nn.Parameter(glia.ones(1))], "lr": 0.01})
    assert len(opt.param_groups) == 3


def test_errors_like_torch():
    p = nn.Parameter(glia.ones(1))
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD([p], lr=-1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
        optim.Adam([p], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


@pytest.mark.parametrize("name", list(J["sched_cfgs"]))
def test_schedulers_match_torch(name):
    p = nn.Parameter(glia.zeros(1))
    opt = optim.SGD([p], lr=0.1)
    s = getattr(optim.lr_scheduler, name)(opt, **J["sched_cfgs"][name])
    lrs = [s.get_last_lr()[0]]
    for _ in range(7):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
        assert opt.param_groups[0]["lr"] == pytest.approx(lrs[-1])
    np.testing.assert_allclose(lrs, J["sched_lrs"][name], rtol=1e-12, atol=1e-15)


def test_training_loop_loss_falls():
    glia.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    x = glia.randn(64, 4)
    y = (x * glia.tensor([1.0, -2.0, 0.5, 3.0])).sum(1, keepdim=True)
    opt = optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    losses = []
    for _ in range(200):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.05 * losses[0]
