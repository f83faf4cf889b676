"""Golden values for the Module core (tests/nn/module_*_test.cpp): host modules
built through the C API are compared with the same tree built in torch.

Run from tests/golden/ with /usr/bin/python3 (torch 1.13); writes
modules/core.json. torch 1.13 lacks register_full_backward_pre_hook: the
generator emulates a backward pre-hook with a tensor hook on the module's
output, which is what torch 2.x's BackwardHook does with the grad_output.
"""

import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden import NAMES, flat


def T(t):
    t = t.detach()
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "values": flat(t)}

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


class Affine(nn.Module):
    """y = tanh(x W^T + b)."""

    def __init__(self, i, o):
        super().__init__()
        self.i, self.o = i, o
        self.weight = nn.Parameter(torch.randn(o, i, dtype=torch.float64))
        self.bias = nn.Parameter(torch.randn(o, dtype=torch.float64))

    def forward(self, x):
        return torch.tanh(F.linear(x, self.weight, self.bias))

    def extra_repr(self):
        return f"in_features={self.i}, out_features={self.o}"


class Act(nn.Module):
    def forward(self, x):
        return torch.tanh(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Affine(3, 2)

    def extra_repr(self):
        return "depth=1\nwidth=2"

    def forward(self, x):
        return self.inner(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = Affine(4, 3)
        self.act = Act()
        self.block = Block()
        self.register_buffer("steps", torch.zeros(2, dtype=torch.float64))

    def forward(self, x):
        return self.block(self.act(self.fc(x)))


out = {}
fc = Affine(4, 3)
x = torch.randn(2, 4, dtype=torch.float64)
wy = torch.randn(2, 3, dtype=torch.float64)
out["weight"], out["bias"], out["x"], out["w"] = T(fc.weight), T(fc.bias), T(x), T(wy)

# Plain call: outputs and grads of sum(y * w).
xa = x.clone().requires_grad_()
y = fc(xa)
(y * wy).sum().backward()
out["plain"] = {"y": T(y), "x_grad": T(xa.grad), "weight_grad": T(fc.weight.grad), "bias_grad": T(fc.bias.grad)}
fc.zero_grad()

# Hooks: pre-hook doubles the input, forward hook adds 1 to the output,
# backward pre-hook triples grad_output, full backward hook records.
seen = {}
h1 = fc.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
h2 = fc.register_forward_hook(lambda m, args, res: res + 1)


def full_hook(m, gi, go):
    seen["grad_input"], seen["grad_output"] = gi[0].clone(), go[0].clone()


h3 = fc.register_full_backward_hook(full_hook)
xa = x.clone().requires_grad_()
y = fc(xa)
y.register_hook(lambda g: g * 3)  # the backward pre-hook of torch 2.x
(y * wy).sum().backward()
out["hooked"] = {"y": T(y), "x_grad": T(xa.grad), "weight_grad": T(fc.weight.grad),
                 "grad_input": T(seen["grad_input"]), "grad_output": T(seen["grad_output"])}
for h in (h1, h2, h3):
    h.remove()
fc.zero_grad()

# The modules note: a full backward hook returning 42s makes x.grad all 42.
fc.register_full_backward_hook(lambda m, gi, go: (torch.ones_like(gi[0]) * 42.0,))
xa = x.clone().requires_grad_()
fc(xa).sum().backward()
out["forty_two"] = T(xa.grad)

# repr of a tree of host modules.
net = Net()
out["repr"] = repr(net)
out["state_keys"] = list(net.state_dict().keys())


def strip_size(msg):
    return msg.replace("torch.Size([", "[").replace("])", "]")


def load_error(sd, strict=True):
    try:
        Net().load_state_dict(sd, strict=strict)
    except RuntimeError as e:
        return strip_size(str(e))
    return None


sd = Net().state_dict()
bad = dict(sd)
del bad["fc.bias"]
bad["fc.extra"] = torch.zeros(1)
bad["other.w"] = torch.zeros(1)
out["strict_error"] = load_error(bad)
r = Net().load_state_dict(bad, strict=False)
out["nonstrict"] = {"missing": r.missing_keys, "unexpected": r.unexpected_keys}
mism = dict(sd)
mism["fc.weight"] = torch.zeros(3, 5, dtype=torch.float64)
out["size_error"] = load_error(mism)
both = dict(bad)
both["fc.weight"] = torch.zeros(3, 5, dtype=torch.float64)
out["size_and_strict_error"] = load_error(both)


def attr_error(f):
    try:
        f()
    except AttributeError as e:
        return str(e)
    return None


net = Net()
out["get_errors"] = {
    "block.nope": attr_error(lambda: net.get_submodule("block.nope")),
    "fc.weight": attr_error(lambda: net.get_submodule("fc.weight")),
    "param:fc.nope": attr_error(lambda: net.get_parameter("fc.nope")),
    "param:fc": attr_error(lambda: net.get_parameter("block")),
    "buffer:fc.weight": attr_error(lambda: net.get_buffer("fc.weight")),
}
out["named_modules"] = [n for n, _ in net.named_modules(prefix="root")]

with open(os.path.join(HERE, "modules", "core.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
