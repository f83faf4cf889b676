"""Golden values of torch.nn's legacy classes (CrossMapLRN2d forward) for test_legacy_modules.py.

Run: /usr/bin/python3 bindings/python/tests/golden/gen_legacy_golden.py  (torch 1.13) -> legacy_golden.json
"""

import json
import os

import torch

here = os.path.dirname(os.path.abspath(__file__))


def main():
    cases = []
    for i, (size, channels, alpha, beta, k) in enumerate(((1, 5, 1e-2, 0.75, 2.0), (2, 7, 1e-2, 0.75, 2.0),
                                                          (3, 7, 0.5, 0.6, 1.0), (5, 7, 1e-4, 0.75, 1.0),
                                                          (9, 4, 0.3, 1.2, 0.5))):
        x = torch.linspace(-2, 3, 2 * channels * 6, dtype=torch.float64).reshape(2, channels, 2, 3)
        x = x * torch.cos(torch.arange(x.numel(), dtype=torch.float64).reshape(x.shape) * (1.3 + i))
        y = torch.nn.CrossMapLRN2d(size, alpha, beta, k)(x)
        cases.append({"size": size, "alpha": alpha, "beta": beta, "k": k, "shape": list(x.shape),
                      "x": x.flatten().tolist(), "y": y.flatten().tolist()})
    reprs = {"CrossMapLRN2d(3)": repr(torch.nn.CrossMapLRN2d(3)),
             "CrossMapLRN2d(5, alpha=0.5, beta=2, k=3)": repr(torch.nn.CrossMapLRN2d(5, alpha=0.5, beta=2, k=3)),
             "NLLLoss2d()": repr(torch.nn.NLLLoss2d()),
             "DataParallel(Linear(2, 3))": repr(torch.nn.DataParallel(torch.nn.Linear(2, 3)))}
    with open(os.path.join(here, "legacy_golden.json"), "w") as f:
        json.dump({"cross_map_lrn2d": cases, "reprs": reprs}, f, indent=0)


if __name__ == "__main__":
    main()
