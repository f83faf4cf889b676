"""Golden values for torch.nn.init (tests/nn/init_extra_test.cpp): calculate_gain and
torch's error texts. Statistics are checked against torch's formulas in the test.
Run from tests/golden/ with /usr/bin/python3 (torch 1.13); writes optim/init.json."""

import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def msg(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return str(e)
    raise AssertionError("no error")


def main():
    gains = []
    for nl, param in (("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None),
                      ("conv_transpose1d", None), ("conv_transpose2d", None), ("conv_transpose3d", None),
                      ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
                      ("leaky_relu", 0.0), ("selu", None)):
        gains.append({"nonlinearity": nl, "param": param, "gain": torch.nn.init.calculate_gain(nl, param)})
    errors = {
        "gain": msg(lambda: torch.nn.init.calculate_gain("foo")),
        "fan": msg(lambda: torch.nn.init.xavier_uniform_(torch.empty(5))),
        "eye": msg(lambda: torch.nn.init.eye_(torch.empty(2, 2, 2))),
        "orthogonal": msg(lambda: torch.nn.init.orthogonal_(torch.empty(5))),
        "kaiming_nl": msg(lambda: torch.nn.init.kaiming_uniform_(torch.empty(3, 4), nonlinearity="foo")),
        "dirac_dims": msg(lambda: torch.nn.init.dirac_(torch.empty(3, 4))),
        "sparse_dims": msg(lambda: torch.nn.init.sparse_(torch.empty(3, 4, 2), 0.5)),
        "dirac_groups": msg(lambda: torch.nn.init.dirac_(torch.empty(3, 2, 3), groups=2)),
    }
    dirac = []
    for shape, groups in (((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((2, 3, 1, 2, 3), 1), ((3, 3, 3), 3), ((2, 5, 4), 1),
                          ((4, 6, 2, 2), 4)):
        t = torch.full(shape, 7.0, dtype=torch.float64)
        torch.nn.init.dirac_(t, groups)
        dirac.append({"shape": list(shape), "groups": groups, "values": t.flatten().tolist()})
    path = os.path.join(HERE, "optim", "init.json")
    with open(path, "w") as f:
        json.dump({"gains": gains, "errors": errors, "dirac": dirac}, f, indent=1)
    print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
