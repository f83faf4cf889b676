"""Shared helpers: the torch golden file and comparisons (tests run without torch)."""

import json
import math
import os

import numpy as np

import glia
import glia.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden", "tensor_golden.json")) as _f:
    GOLDEN = json.load(_f)

_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
       "int32": np.int32, "uint8": np.uint8, "bool": np.bool_, "int8": np.int8, "int16": np.int16}


def env():
    """Fresh inputs for one case, named as in the generator; `torch` is glia."""
    e = {"torch": glia, "F": F}
    for name, spec in GOLDEN["inputs"].items():
        arr = np.array(spec["data"], dtype=_NP[spec["dtype"]]).reshape(spec["shape"])
        e[name] = glia.tensor(arr)
    return e


def tol(dtype):
    return {"float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2), "float64": (1e-10, 1e-12)}.get(dtype, (1e-5, 2e-6))


def assert_matches(got, want, where=""):
    if "tensor" in want:
        assert isinstance(got, glia.Tensor), "%s: expected a Tensor, got %r" % (where, got)
        assert str(got.dtype) == "torch." + want["dtype"], "%s: dtype %s != %s" % (where, got.dtype, want["dtype"])
        assert list(got.shape) == want["shape"], "%s: shape %s != %s" % (where, list(got.shape), want["shape"])
        g = np.array(got.detach().float().tolist() if want["dtype"] == "bfloat16" else got.detach().tolist())
        w = np.array(want["tensor"])
        if want["dtype"] in ("float32", "float64", "float16", "bfloat16"):
            rtol, atol = tol(want["dtype"])
            np.testing.assert_allclose(g.reshape(w.shape).astype(np.float64), w.astype(np.float64), rtol=rtol,
                                       atol=atol, err_msg=where)
        else:
            np.testing.assert_array_equal(g.reshape(w.shape), w, err_msg=where)
    elif "tuple" in want:
        assert len(got) == len(want["tuple"]), where
        for i, (g, w) in enumerate(zip(got, want["tuple"])):
            assert_matches(g, w, "%s[%d]" % (where, i))
    elif "size" in want:
        assert isinstance(got, glia.Size) and list(got) == want["size"], "%s: %r != %r" % (where, got, want["size"])
    elif "dtype_value" in want:
        assert repr(got) == want["dtype_value"], where
    elif "float" in want:
        w = float(want["float"])
        assert (math.isnan(got) and math.isnan(w)) or got == w, where
    elif "pytuple" in want:
        assert tuple(got) == tuple(want["pytuple"]), "%s: %r != %r" % (where, got, want["pytuple"])
    else:
        w = want["value"]
        if isinstance(w, float):
            assert abs(got - w) <= 1e-5 * max(1.0, abs(w)), "%s: %r != %r" % (where, got, w)
        else:
            assert got == w and type(got) is type(w), "%s: %r (%s) != %r" % (where, got, type(got).__name__, w)
