"""Generates pooling_golden.json: torch 1.13's results for issue 21's 1-D and 3-D pools as the binding
spells them (F.max_pool1d, nn.AvgPool3d, ...), evaluated with the inputs of gen_tensor_golden.py
(x4 [2, 3, 6, 6] reshaped to [2, 3, 36] and [2, 3, 4, 3, 3]). test_pooling.py evaluates the same text
with glia. Run with /usr/bin/python3:

    /usr/bin/python3 bindings/python/tests/golden/gen_pooling_golden.py
"""

import json
import os

import numpy as np
import torch

from gen_tensor_golden import HERE, encode, env

X1 = "x4.reshape(2, 3, 36)"
X3 = "x4.reshape(2, 3, 4, 3, 3)"

VALUES = [
    "F.max_pool1d(%s, 3)" % X1, "F.max_pool1d(%s, 4, 2, 1, ceil_mode=True)" % X1,
    "F.max_pool1d(%s, 3, 1, 1, 2, return_indices=True)" % X1, "F.max_pool1d(%s[0], (2,), stride=(3,))" % X1,
    "F.avg_pool1d(%s, 3)" % X1, "F.avg_pool1d(%s, 3, 2, 1, count_include_pad=False)" % X1,
    "F.avg_pool1d(%s[1], 4, 3, 2, ceil_mode=True)" % X1,
    "F.max_pool3d(%s, 2)" % X3, "F.max_pool3d(%s, (2, 3, 2), (1, 1, 1), (1, 1, 1), return_indices=True)" % X3,
    "F.max_pool3d(%s[0], 2, dilation=(1, 2, 1), padding=1, ceil_mode=True)" % X3,
    "F.avg_pool3d(%s, 2)" % X3, "F.avg_pool3d(%s, 3, 2, 1, count_include_pad=False)" % X3,
    "F.avg_pool3d(%s[1], (2, 2, 3), 1, (1, 0, 1), divisor_override=5)" % X3,
    "F.adaptive_avg_pool1d(%s, 5)" % X1, "F.adaptive_avg_pool1d(%s[0], 1)" % X1,
    "F.adaptive_avg_pool3d(%s, (2, 2, 1))" % X3, "F.adaptive_avg_pool3d(%s, (None, 2, None))" % X3,
    "F.adaptive_avg_pool3d(%s[0], 1)" % X3,
    "torch.nn.MaxPool1d(3, 2)(%s)" % X1, "torch.nn.AvgPool1d(2)(%s)" % X1, "torch.nn.MaxPool3d(2)(%s)" % X3,
    "torch.nn.AvgPool3d((2, 1, 3), padding=(1, 0, 1))(%s)" % X3, "torch.nn.AdaptiveAvgPool1d(4)(%s)" % X1,
    "torch.nn.AdaptiveAvgPool3d((3, None, 2))(%s)" % X3,
    "F.adaptive_max_pool1d(%s, 5, True)" % X1, "F.adaptive_max_pool2d(x4, (4, None), return_indices=True)",
    "F.adaptive_max_pool3d(%s, 2)" % X3, "torch.nn.AdaptiveMaxPool2d(3)(x4)", "torch.nn.AdaptiveMaxPool1d(4)(%s)" % X1,
    "torch.nn.AdaptiveMaxPool3d((None, 2, 2))(%s)" % X3,
    "F.max_unpool1d(*F.max_pool1d(%s, 3, return_indices=True), 3)" % X1,
    "F.max_unpool2d(*F.max_pool2d(x4, 2, return_indices=True), 2, output_size=(7, 7))",
    "F.max_unpool3d(*F.max_pool3d(%s, 2, return_indices=True), 2, output_size=[2, 3, 4, 3, 3])" % X3,
    "F.lp_pool1d(%s, 2, 3)" % X1, "F.lp_pool2d(x4.abs(), 3, (2, 3), stride=1)", "torch.nn.LPPool2d(2, 2)(x4)",
    "torch.nn.LPPool1d(1.5, 4, 2, ceil_mode=True)(%s.abs())" % X1,
    "torch.nn.MaxUnpool2d(2)(*F.max_pool2d(x4, 2, return_indices=True))",
    "torch.nn.MaxUnpool1d(3, 2)(*F.max_pool1d(%s, 3, 2, return_indices=True), output_size=[2, 3, 36])" % X1,
]

REPRS = [
    "torch.nn.MaxPool1d(2)", "torch.nn.MaxPool1d(3, 2, 1, 2, ceil_mode=True)", "torch.nn.AvgPool1d(2)",
    "torch.nn.AvgPool1d(3, 1, 1, True, False)", "torch.nn.MaxPool3d(2)", "torch.nn.MaxPool3d((1, 2, 3), (2, 1, 1))",
    "torch.nn.AvgPool3d(2)", "torch.nn.AvgPool3d((1, 2, 3), 1, 1, True, False, 3)", "torch.nn.AdaptiveAvgPool1d(3)",
    "torch.nn.AdaptiveAvgPool3d((2, None, 3))", "torch.nn.AdaptiveAvgPool3d(4)", "torch.nn.AdaptiveMaxPool1d(3)",
    "torch.nn.AdaptiveMaxPool2d((2, None))", "torch.nn.AdaptiveMaxPool3d(2)", "torch.nn.LPPool1d(2, 3)",
    "torch.nn.LPPool2d(2, (2, 3), stride=1, ceil_mode=True)", "torch.nn.LPPool2d(1.5, 2, 2)",
    "torch.nn.MaxUnpool1d(2)", "torch.nn.MaxUnpool2d(2, 1)", "torch.nn.MaxUnpool3d((1, 2, 2), padding=1)",
]

ERRORS = [
    "F.max_pool1d(x4, 2)", "F.max_pool1d(%s, 2, padding=2)" % X1, "F.avg_pool1d(v, 2)",
    "F.max_pool3d(a, 2)", "F.avg_pool3d(%s, 5)" % X3, "F.max_pool3d(%s, 3, padding=(0, 2, 0))" % X3,
    "F.adaptive_avg_pool3d(a, 2)", "F.max_pool3d(%s.long(), 2)" % X3, "F.adaptive_max_pool2d(a, 2)",
    "F.max_unpool2d(x4[:1, :1], torch.full((1, 1, 6, 6), 200), 2)", "F.max_unpool1d(*F.max_pool1d(%s, 2, return_indices=True), 2, output_size=[9])" % X1,
]

GRADS = [
    ("F.max_pool1d(%s, 3, 2, 1)" % X1, ["x4"]), ("F.avg_pool1d(%s, 4, 3, 2, ceil_mode=True)" % X1, ["x4"]),
    ("F.max_pool3d(%s, 2, 1, 1)" % X3, ["x4"]), ("F.avg_pool3d(%s, 3, 2, 1, count_include_pad=False)" % X3, ["x4"]),
    ("F.adaptive_avg_pool1d(%s, 7)" % X1, ["x4"]), ("F.adaptive_avg_pool3d(%s, (3, 2, 2))" % X3, ["x4"]),
    ("F.adaptive_max_pool2d(x4, 4)", ["x4"]), ("F.adaptive_max_pool3d(%s, (2, 2, 3))" % X3, ["x4"]),
    ("F.lp_pool2d(x4, 2, 3, 1)", ["x4"]), ("F.max_unpool2d(x4, torch.arange(36).reshape(1, 1, 6, 6).expand(2, 3, 6, 6), 2)", ["x4"]),
]


def main():
    out = {"values": {}, "reprs": {}, "errors": {}, "grads": {}}
    for expr in VALUES:
        out["values"][expr] = encode(eval(expr, env()))
    for expr in REPRS:
        out["reprs"][expr] = repr(eval(expr, env()))
    for expr in ERRORS:
        try:
            eval(expr, env())
        except Exception as e:  # noqa: BLE001
            out["errors"][expr] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
        else:
            raise SystemExit("torch accepts %r" % expr)
    for expr, leaves in GRADS:
        e = env()
        for n in leaves:
            e[n] = e[n].clone().requires_grad_(True)
        y = eval(expr, e)
        g = torch.from_numpy(np.random.RandomState(7).randn(*y.shape).astype(np.float32))
        (y * g).sum().backward()
        out["grads"][expr] = {"leaves": leaves, "weight": g.numpy().tolist(),
                              "grads": {n: e[n].grad.numpy().tolist() for n in leaves}}
    with open(os.path.join(HERE, "pooling_golden.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
