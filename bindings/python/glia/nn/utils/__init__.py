"""glia.nn.utils: clip_grad_norm_, clip_grad_value_, rnn (packed sequences), weight_norm, spectral_norm,
convert_parameters, skip_init, parametrize, parametrizations, prune, stateless and fusion (torch 1.13's layout)."""

import ctypes
import warnings

import numpy as np

from ..._ffi import C, check, byref
from ..._tensor import Tensor
from .. import _util
from . import rnn  # noqa: F401
from . import parametrize, parametrizations, prune, stateless, fusion  # noqa: F401
from .weight_norm import weight_norm, remove_weight_norm
from .spectral_norm import spectral_norm, remove_spectral_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights
from .init import skip_init

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "rnn", "weight_norm", "remove_weight_norm",
           "spectral_norm", "remove_spectral_norm", "parameters_to_vector", "vector_to_parameters",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "skip_init", "parametrize", "parametrizations", "prune",
           "stateless", "fusion"]


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


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """torch's deprecated spelling of clip_grad_norm_."""
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor "
                  "of torch.nn.utils.clip_grad_norm_.", stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)
