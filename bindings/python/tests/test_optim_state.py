"""param_groups as live views of the C optimizer's options, and scheduler state_dict /
load_state_dict (resume), vs torch 1.13 (expected values printed by torch 1.13, float32)."""

import collections

import numpy as np
import pytest

import glia
from glia import nn, optim


def _step(opt, p):
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()


def test_sgd_param_group_changes_take_effect():
    p = nn.Parameter(glia.tensor([1.0, -2.0]))
    opt = optim.SGD([p], lr=0.1)
    _step(opt, p)
    opt.param_groups[0]["momentum"] = 0.9
    _step(opt, p)
    _step(opt, p)
    opt.param_groups[0]["nesterov"] = True
    _step(opt, p)
    np.testing.assert_allclose(p.detach().numpy(), [0.007840026170015335, -0.01568005234003067], rtol=1e-5)
    g = opt.state_dict()["param_groups"][0]
    assert g["momentum"] == 0.9 and g["nesterov"] is True


def test_adam_betas_eps_and_rmsprop_alpha():
    p = nn.Parameter(glia.tensor([1.0, -2.0]))
    opt = optim.Adam([p], lr=0.1)
    _step(opt, p)
    opt.param_groups[0]["betas"] = (0.5, 0.6)
    opt.param_groups[0]["eps"] = 1e-3
    _step(opt, p)
    np.testing.assert_allclose(p.detach().numpy(), [0.8064552545547485, -1.8069043159484863], rtol=1e-6)
    assert opt.state_dict()["param_groups"][0]["betas"] == (0.5, 0.6)
    q = nn.Parameter(glia.tensor([1.0, -2.0]))
    rms = optim.RMSprop([q], lr=0.01)
    _step(rms, q)
    rms.param_groups[0]["alpha"] = 0.5
    rms.param_groups[0]["weight_decay"] = 0.1
    _step(rms, q)
    np.testing.assert_allclose(q.detach().numpy(), [0.885936439037323, -1.8859283924102783], rtol=1e-6)


def test_invalid_values_raise_and_change_nothing():
    p = nn.Parameter(glia.ones(1))
    opt = optim.SGD([p], lr=0.1)
    g = opt.param_groups[0]
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -1.0$"):
        g["lr"] = -1
    with pytest.raises(ValueError, match="Invalid momentum value: -0.5"):
        g["momentum"] = -0.5
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        g["nesterov"] = True
    assert (g["lr"], g["momentum"], g["nesterov"]) == (0.1, 0, False)
    assert opt.state_dict()["param_groups"][0]["nesterov"] is False
    adam = optim.Adam([nn.Parameter(glia.ones(1))])
    with pytest.raises(ValueError, match=r"Invalid beta parameter at index 1: 1.0"):
        adam.param_groups[0]["betas"] = (0.5, 1.0)
    assert adam.param_groups[0]["betas"] == (0.9, 0.999)
    assert adam.state_dict()["param_groups"][0]["betas"] == (0.9, 0.999)  # beta1 restored too
    g["custom"] = 1  # keys the optimizer does not have are plain entries, as in torch
    assert g["custom"] == 1


def test_scheduler_state_dict_matches_torch_and_resumes():
    p = nn.Parameter(glia.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.MultiStepLR(opt, [2, 4, 4], 0.5)
    for _ in range(3):
        opt.step()
        s.step()
    sd, osd = s.state_dict(), opt.state_dict()
    # torch 1.13:
    assert sd == {"milestones": collections.Counter({4: 2, 2: 1}), "gamma": 0.5, "base_lrs": [1.0], "last_epoch": 3,
                  "verbose": False, "_step_count": 4, "_get_lr_called_within_step": False, "_last_lr": [0.5]}
    assert list(sd) == ["milestones", "gamma", "base_lrs", "last_epoch", "verbose", "_step_count",
                        "_get_lr_called_within_step", "_last_lr"]
    p2 = nn.Parameter(glia.zeros(1))
    opt2 = optim.SGD([p2], lr=1.0)
    s2 = optim.lr_scheduler.MultiStepLR(opt2, [7], 0.1)
    opt2.load_state_dict(osd)
    s2.load_state_dict(sd)
    assert (s2.last_epoch, s2.get_last_lr(), s2.milestones) == (3, [0.5], collections.Counter({4: 2, 2: 1}))
    lrs, lrs2 = [], []
    for _ in range(3):
        for o, sc, out in ((opt, s, lrs), (opt2, s2, lrs2)):
            o.step()
            sc.step()
            out.append(sc.get_last_lr()[0])
    assert lrs == lrs2 == [0.125, 0.125, 0.125]  # torch 1.13
    assert opt2.param_groups[0]["lr"] == 0.125


@pytest.mark.parametrize("make", [
    lambda o: optim.lr_scheduler.StepLR(o, 2, 0.5),
    lambda o: optim.lr_scheduler.CosineAnnealingLR(o, 4, 0.1),
    lambda o: optim.lr_scheduler.LinearLR(o, 0.25, 1.0, 4),
])
def test_scheduler_round_trip(make):
    p = nn.Parameter(glia.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    s = make(opt)
    for _ in range(3):
        opt.step()
        s.step()
    sd = s.state_dict()
    p2 = nn.Parameter(glia.zeros(1))
    opt2 = optim.SGD([p2], lr=1.0)
    s2 = make(opt2)
    opt2.load_state_dict(opt.state_dict())
    s2.load_state_dict(sd)
    assert s2.state_dict() == sd
    for _ in range(4):
        s.step()
        s2.step()
        assert s.get_last_lr() == s2.get_last_lr()


def test_scheduler_load_errors():
    opt = optim.SGD([nn.Parameter(glia.zeros(1))], lr=1.0)
    s = optim.lr_scheduler.StepLR(opt, 2)
    sd = s.state_dict()
    del sd["gamma"]
    with pytest.raises(ValueError, match='loaded scheduler state dict is missing "gamma"'):
        s.load_state_dict(sd)
    sd = s.state_dict()
    sd["step_size"] = 0
    with pytest.raises(ValueError, match="StepLR: step_size must be a positive integer, got 0"):
        s.load_state_dict(sd)
    assert s.state_dict()["step_size"] == 2
