"""Loads nn_golden.npz / nn_golden.json (written by gen_nn_golden.py with PyTorch 1.13)."""

import json
import os

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
A = dict(np.load(os.path.join(_here, "nn_golden.npz")))
J = json.load(open(os.path.join(_here, "nn_golden.json")))


def weights(prefix):
    """The state dict stored under `prefix/` as name -> glia tensor."""
    import glia

    return {k[len(prefix) + 1:]: glia.from_numpy(v.copy()) for k, v in A.items() if k.startswith(prefix + "/")}
