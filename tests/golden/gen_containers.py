"""Golden fixtures of the containers (tests/golden/modules/containers.json): reprs and
state-dict keys of nested containers, slices, a Sequential forward/backward, and the
state-dict order of the PyTorch modules note's StatefulModule. /usr/bin/python3 (torch 1.13)."""

import json
import os
from collections import OrderedDict

import torch
import torch.nn as nn

from golden import NAMES, encode

HERE = os.path.dirname(os.path.abspath(__file__))


def enc(t):
    t = t.detach()
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


def P(*shape, dtype=torch.float32):
    return nn.Parameter(torch.zeros(list(shape), dtype=dtype))


def nested():
    return nn.Sequential(
        nn.LayerNorm(4),
        nn.ModuleList([nn.GroupNorm(2, 4), nn.BatchNorm1d(4)]),
        nn.ModuleDict(OrderedDict([("b", nn.MSELoss()), ("a", nn.LayerNorm([2, 2]))])),
        nn.Sequential(nn.BatchNorm1d(4, affine=False)),
        nn.ParameterList([P(2, 3), P(3, dtype=torch.float64)]),
        nn.ParameterDict({"foo": P(2), "bar": P(3, dtype=torch.float64), "baz": P()}),
    )


class StatefulModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.param1 = nn.Parameter(torch.randn(2))
        self.register_parameter("param2", nn.Parameter(torch.randn(3)))
        self.register_parameter("param3", None)
        self.param_list = nn.ParameterList([nn.Parameter(torch.randn(10)) for _ in range(3)])
        self.param_dict = nn.ParameterDict({"foo": nn.Parameter(torch.randn(3)), "bar": nn.Parameter(torch.randn(4))})
        self.register_buffer("buffer1", torch.randn(4), persistent=True)
        self.register_buffer("buffer2", torch.randn(5), persistent=False)
        self.register_buffer("buffer3", None)
        self.linear = nn.Linear(2, 3)


def main():
    s = nested()
    out = {"nested_repr": repr(s), "nested_keys": list(s.state_dict().keys()),
           "nested_params": [k for k, _ in s.named_parameters()],
           "slices": [], "list_slices": []}
    for (a, b, c) in [(1, None, None), (None, None, 2), (-2, None, None), (None, None, -1), (4, 1, -2), (10, 20, 1)]:
        t = s[a:b:c]
        out["slices"].append({"start": a, "stop": b, "step": c, "keys": list(t._modules.keys()), "repr": repr(t)})
    ml = nn.ModuleList([nn.LayerNorm(i + 1) for i in range(5)])
    for (a, b, c) in [(1, 4, None), (None, None, -2)]:
        t = ml[a:b:c]
        out["list_slices"].append({"start": a, "stop": b, "step": c, "repr": repr(t)})
    out["module_list_repr"] = repr(nn.ModuleList([nn.LayerNorm(3), nn.LayerNorm(3), nn.LayerNorm(3)]))
    ins = nn.ModuleList([nn.LayerNorm(1), nn.LayerNorm(2)])
    ins.insert(1, nn.LayerNorm(9))
    ins.insert(0, nn.LayerNorm(8))
    out["insert_repr"] = repr(ins)
    sq = nn.Sequential(nn.LayerNorm(1), nn.LayerNorm(2))
    sq.insert(-1, nn.LayerNorm(7))
    sq.append(nn.LayerNorm(6))
    sq[0] = nn.GroupNorm(1, 1)
    out["sequential_edit_repr"] = repr(sq)
    out["empty"] = [repr(nn.Sequential()), repr(nn.ModuleList()), repr(nn.ModuleDict()), repr(nn.ParameterList()),
                    repr(nn.ParameterDict())]
    # forward / backward through a Sequential (default init is deterministic).
    torch.manual_seed(0)
    seq = nn.Sequential(nn.LayerNorm(4, dtype=torch.float64), nn.BatchNorm1d(4, dtype=torch.float64),
                        nn.GroupNorm(2, 4, dtype=torch.float64))
    with torch.no_grad():
        for p in seq.parameters():
            p.copy_(torch.randn(p.shape, dtype=torch.float64))
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    y = seq(x)
    w = torch.randn(y.shape, dtype=torch.float64)
    (y * w).sum().backward()
    out["forward"] = {"params": {k: enc(v) for k, v in seq.named_parameters()}, "x": enc(x), "w": enc(w),
                      "out": enc(y), "grad_x": enc(x.grad),
                      "grads": {k: enc(p.grad) for k, p in seq.named_parameters()},
                      "buffers": {k: enc(v) for k, v in seq.named_buffers()}}
    out["stateful_keys"] = list(StatefulModule().state_dict().keys())
    out["index_error"] = None
    try:
        s[6]
    except IndexError as e:
        out["index_error"] = str(e)
    try:
        nn.Sequential().insert(2, nn.LayerNorm(1))
    except IndexError as e:
        out["insert_error"] = str(e)
    try:
        nn.ParameterList()()
    except RuntimeError as e:
        out["parameter_list_call"] = str(e)
    os.makedirs(os.path.join(HERE, "modules"), exist_ok=True)
    with open(os.path.join(HERE, "modules", "containers.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
