"""Generates conv_nd_golden.json (test_conv_nd.py's expected values) with PyTorch 1.13: reprs, state-dict
keys and shapes of Conv1d, Conv3d, ConvTranspose1d, ConvTranspose3d, Unfold and Fold, and forward values
of modules whose torch state dicts the tests load into glia.

Run: /usr/bin/python3 bindings/python/tests/golden/gen_conv_nd_golden.py
"""

import json
import os

import torch
from torch import nn

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)

CONSTRUCTORS = [
    "Conv1d(3, 4, 3)",
    "Conv1d(4, 6, 2, stride=2, padding=1, dilation=2, groups=2, bias=False)",
    "Conv1d(2, 2, 4, padding='same', padding_mode='reflect')",
    "Conv1d(2, 3, 3, padding='valid')",
    "Conv1d(2, 3, 3, padding=2, padding_mode='circular')",
    "Conv3d(2, 3, 2)",
    "Conv3d(2, 4, (1, 2, 3), stride=(1, 2, 1), padding=(0, 1, 1), groups=2)",
    "Conv3d(2, 2, 3, padding='same', padding_mode='replicate', bias=False)",
    "ConvTranspose1d(3, 4, 3)",
    "ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=1, bias=False)",
    "ConvTranspose3d(2, 3, 2)",
    "ConvTranspose3d(2, 4, (2, 1, 3), stride=2, padding=(1, 0, 0), output_padding=(1, 0, 1), groups=2)",
    "Unfold(2)",
    "Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))",
    "Fold(4, 2)",
    "Fold((4, 5), (2, 3), dilation=1, padding=(1, 0), stride=2)",
]

INPUTS = {
    "Conv1d": [2, 3, 7], "Conv3d": [2, 2, 4, 5, 5], "ConvTranspose1d": [2, 3, 5], "ConvTranspose3d": [2, 2, 3, 3, 3],
}


def flat(t):
    return t.detach().reshape(-1).tolist()


out = {"reprs": {}, "state_keys": {}, "param_shapes": {}, "forward": {}}
for expr in CONSTRUCTORS:
    m = eval(expr, {}, vars(nn))
    out["reprs"][expr] = repr(m)
    out["state_keys"][expr] = list(m.state_dict())
    out["param_shapes"][expr] = {n: list(p.shape) for n, p in m.named_parameters()}
    cls = expr.split("(")[0]
    if cls in ("Unfold", "Fold"):
        continue
    shape = list(INPUTS[cls])
    shape[1] = m.in_channels
    x = torch.randn(shape, dtype=torch.float64)
    m = m.double()
    y = m(x)
    y.backward(torch.ones_like(y))
    out["forward"][expr] = {
        "state": {k: {"shape": list(v.shape), "values": flat(v)} for k, v in m.state_dict().items()},
        "x": {"shape": list(x.shape), "values": flat(x)},
        "y": {"shape": list(y.shape), "values": flat(y)},
        "grads": {n: flat(p.grad) for n, p in m.named_parameters()},
    }

# ConvTranspose forward(input, output_size).
m = nn.ConvTranspose1d(2, 3, 3, stride=3).double()
x = torch.randn(1, 2, 4, dtype=torch.float64)
out["output_size"] = {"state": {k: {"shape": list(v.shape), "values": flat(v)} for k, v in m.state_dict().items()},
                      "x": {"shape": list(x.shape), "values": flat(x)},
                      "y": {"shape": list(m(x, output_size=[13]).shape), "values": flat(m(x, output_size=[13]))}}

with open(os.path.join(here, "conv_nd_golden.json"), "w") as f:
    json.dump(out, f, indent=None, separators=(",", ":"))
    f.write("\n")
