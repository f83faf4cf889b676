"""Golden fixtures of the normalisation layers and losses (tests/golden/modules/norm_loss.json).

Run from tests/golden with /usr/bin/python3 (torch 1.13). Each norm case sets
random weights, runs `steps` forward/backward calls (train or eval), and
records the outputs, input gradients, accumulated parameter gradients and
the buffers after every step. Each loss case records the loss and the input
gradient of sum(loss * w).
"""

import json
import os

import torch
import torch.nn as nn

from golden import DTYPES, NAMES, encode

HERE = os.path.dirname(os.path.abspath(__file__))
g = torch.Generator().manual_seed(2024)


def enc(t):
    t = t.detach()
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


def randn(shape, dtype):
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def norm_module(spec, dtype):
    k, a = spec["module"], spec["args"]
    if k == "batch_norm1d":
        return nn.BatchNorm1d(a["num_features"], eps=a["eps"], momentum=a["momentum"], affine=a["affine"],
                              track_running_stats=a["track_running_stats"], dtype=dtype)
    if k == "batch_norm2d":
        return nn.BatchNorm2d(a["num_features"], eps=a["eps"], momentum=a["momentum"], affine=a["affine"],
                              track_running_stats=a["track_running_stats"], dtype=dtype)
    if k == "layer_norm":
        m = nn.LayerNorm(a["normalized_shape"], eps=a["eps"], elementwise_affine=a["elementwise_affine"], dtype=dtype)
        if not a["bias"]:  # torch 2.1's bias=False
            m.bias = None
        return m
    if k == "group_norm":
        return nn.GroupNorm(a["num_groups"], a["num_channels"], eps=a["eps"], affine=a["affine"], dtype=dtype)
    raise KeyError(k)


def bn(n, shape, momentum=0.1, affine=True, track=True, eps=1e-5, dims=1, modes=(1, 1, 1, 0)):
    return {"module": "batch_norm%dd" % dims, "shape": shape, "modes": modes,
            "args": {"num_features": n, "eps": eps, "momentum": momentum, "affine": affine,
                     "track_running_stats": track}}


NORMS = [
    bn(3, [4, 3]),
    bn(3, [4, 3, 5], momentum=None),
    bn(4, [2, 4, 3, 3], dims=2),
    bn(4, [2, 4, 3, 3], dims=2, momentum=None, eps=1e-3),
    bn(3, [5, 3], affine=False),
    bn(3, [4, 3, 2], track=False),
    bn(2, [3, 2, 2, 2], dims=2, momentum=0.3, affine=False, track=False),
    {"module": "layer_norm", "shape": [3, 4], "modes": (1, 1),
     "args": {"normalized_shape": [4], "eps": 1e-5, "elementwise_affine": True, "bias": True}},
    {"module": "layer_norm", "shape": [2, 2, 3], "modes": (1,),
     "args": {"normalized_shape": [2, 3], "eps": 1e-3, "elementwise_affine": True, "bias": False}},
    {"module": "layer_norm", "shape": [2, 5], "modes": (1,),
     "args": {"normalized_shape": [5], "eps": 1e-5, "elementwise_affine": False, "bias": True}},
    {"module": "group_norm", "shape": [2, 6, 3], "modes": (1, 0),
     "args": {"num_groups": 3, "num_channels": 6, "eps": 1e-5, "affine": True}},
    {"module": "group_norm", "shape": [2, 4, 2, 2], "modes": (1,),
     "args": {"num_groups": 1, "num_channels": 4, "eps": 1e-5, "affine": False}},
]


def norm_cases():
    out = []
    for spec in NORMS:
        for dname in ("float64", "float32"):
            dtype = DTYPES[dname]
            m = norm_module(spec, dtype)
            init = {"params": {k: enc(v) for k, v in m.named_parameters()},
                    "buffers": {k: enc(v) for k, v in m.named_buffers()}}
            with torch.no_grad():
                for p in m.parameters():
                    p.copy_(randn(p.shape, dtype) * 0.5 + 1.0)
            case = {"name": "%s_%s_%d" % (spec["module"], dname, len(out)), "module": spec["module"],
                    "args": spec["args"], "dtype": dname, "repr": repr(m),
                    "keys": list(m.state_dict().keys()), "init": init,
                    "params": {k: enc(v) for k, v in m.named_parameters()}, "steps": []}
            for train in spec["modes"]:
                m.train(bool(train))
                x = (randn(spec["shape"], dtype) * 2 + 0.5).requires_grad_()
                y = m(x)
                w = randn(y.shape, dtype)
                (y * w).sum().backward()
                case["steps"].append({
                    "train": bool(train), "x": enc(x), "w": enc(w), "out": enc(y), "grad_x": enc(x.grad),
                    "grads": {k: enc(p.grad) for k, p in m.named_parameters()},
                    "buffers": {k: enc(v) for k, v in m.named_buffers()}})
            out.append(case)
    return out


def loss_cases():
    out = []
    N, C = 4, 3

    def add(name, module, args, make, x, t, dname):
        dtype = DTYPES[dname]
        m = make(dtype)
        x = x.detach().to(dtype).clone().requires_grad_()
        t = t.detach().to(dtype) if t.is_floating_point() else t
        y = m(x, t)
        w = randn(y.shape, dtype)
        (y * w).sum().backward()
        bufs = {k: enc(v) for k, v in m.named_buffers()}
        out.append({"name": "%s_%s" % (name, dname), "module": module, "args": args, "dtype": dname,
                    "buffers": bufs, "repr": repr(m), "keys": list(m.state_dict().keys()),
                    "input": enc(x), "target": enc(t), "w": enc(w), "out": enc(y), "grad_input": enc(x.grad)})

    red = {"none": 0, "mean": 1, "sum": 2}
    for dname in ("float64", "float32"):
        logits = randn([N, C], torch.float64)
        cls = torch.tensor([0, 2, 1, 2])
        cw = torch.rand(C, generator=g, dtype=torch.float64) + 0.5
        for r in ("mean", "sum", "none"):
            add("ce_" + r, "cross_entropy_loss", {"reduction": red[r]},
                lambda d, r=r: nn.CrossEntropyLoss(reduction=r), logits, cls, dname)
        add("ce_weighted", "cross_entropy_loss", {"reduction": 1, "weight": True, "ignore_index": 1,
                                                  "label_smoothing": 0.2},
            lambda d: nn.CrossEntropyLoss(weight=cw.to(d), ignore_index=1, label_smoothing=0.2), logits, cls, dname)
        add("ce_probs", "cross_entropy_loss", {"reduction": 1},
            lambda d: nn.CrossEntropyLoss(), logits, torch.softmax(randn([N, C], torch.float64), 1), dname)
        add("nll", "nll_loss", {"reduction": 1, "weight": True, "ignore_index": 0},
            lambda d: nn.NLLLoss(weight=cw.to(d), ignore_index=0), torch.log_softmax(logits, 1), cls, dname)
        add("nll_sum", "nll_loss", {"reduction": 2}, lambda d: nn.NLLLoss(reduction="sum"),
            torch.log_softmax(logits, 1), cls, dname)
        a, b = randn([3, 4], torch.float64), randn([3, 4], torch.float64)
        for r in ("mean", "sum", "none"):
            add("mse_" + r, "mse_loss", {"reduction": red[r]}, lambda d, r=r: nn.MSELoss(reduction=r), a, b, dname)
            add("l1_" + r, "l1_loss", {"reduction": red[r]}, lambda d, r=r: nn.L1Loss(reduction=r), a, b, dname)
        add("smooth_l1", "smooth_l1_loss", {"reduction": 1, "beta": 0.7},
            lambda d: nn.SmoothL1Loss(beta=0.7), a, b, dname)
        add("huber", "huber_loss", {"reduction": 2, "delta": 0.6},
            lambda d: nn.HuberLoss(reduction="sum", delta=0.6), a, b, dname)
        p = torch.sigmoid(randn([3, 4], torch.float64))
        tgt = torch.rand([3, 4], generator=g, dtype=torch.float64)
        bw = torch.rand(4, generator=g, dtype=torch.float64) + 0.5
        add("bce", "bce_loss", {"reduction": 1}, lambda d: nn.BCELoss(), p, tgt, dname)
        add("bce_weighted", "bce_loss", {"reduction": 0, "weight": True},
            lambda d: nn.BCELoss(weight=bw.to(d), reduction="none"), p, tgt, dname)
        add("bce_logits", "bce_with_logits_loss", {"reduction": 1, "pos_weight": True},
            lambda d: nn.BCEWithLogitsLoss(pos_weight=bw.to(d)), a, tgt, dname)
        add("bce_logits_w", "bce_with_logits_loss", {"reduction": 2, "weight": True, "pos_weight": True},
            lambda d: nn.BCEWithLogitsLoss(weight=bw.to(d), pos_weight=(bw * 2).to(d), reduction="sum"), a, tgt, dname)
    return out


def errors():
    out = []

    def err(name, f):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            out.append({"name": name, "message": str(e)})
            return
        raise AssertionError(name)

    err("bn1d_4d", lambda: nn.BatchNorm1d(3)(torch.zeros(2, 3, 2, 2)))
    err("bn2d_3d", lambda: nn.BatchNorm2d(3)(torch.zeros(2, 3, 2)))
    err("group_norm_divisible", lambda: nn.GroupNorm(4, 6))
    return out


if __name__ == "__main__":
    data = {"norms": norm_cases(), "losses": loss_cases(), "errors": errors()}
    os.makedirs(os.path.join(HERE, "modules"), exist_ok=True)
    with open(os.path.join(HERE, "modules", "norm_loss.json"), "w") as f:
        json.dump(data, f, separators=(",", ":"))
