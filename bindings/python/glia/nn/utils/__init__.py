"""glia.nn.utils: clip_grad_norm_, clip_grad_value_ and rnn (packed sequences)."""

import ctypes

import numpy as np

from ..._ffi import C, check, byref
from ..._tensor import Tensor
from .. import _util
from . import rnn  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "rnn"]


def _params(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the grads in place so that their total norm is at most max_norm; returns the total norm (a 0-dim
    float32 tensor, as torch for float32 parameters)."""
    ps = _params(parameters)
    arr, n = _util.handles(ps)
    total = ctypes.c_double()
    check(C.glia_nn_utils_clip_grad_norm_(arr, n, float(max_norm), float(norm_type), int(bool(error_if_nonfinite)),
                                          byref(total)))
    return _util.from_numpy(np.array(total.value, dtype=np.float32))


def clip_grad_value_(parameters, clip_value):
    ps = _params(parameters)
    arr, n = _util.handles(ps)
    check(C.glia_nn_utils_clip_grad_value_(arr, n, float(clip_value)))
