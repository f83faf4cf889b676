"""glia.nn.init: torch.nn.init's in-place initialisers over glia_nn_init_* (no autograd history)."""

import math
import warnings

from .._ffi import C, check, c_double, byref

__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_", "xavier_uniform_",
    "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_", "dirac_", "sparse_",
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
    "kaiming_normal", "orthogonal", "sparse",
]

_MODES = {"fan_in": 0, "fan_out": 1}


def calculate_gain(nonlinearity, param=None):
    out = c_double()
    if param is not None and not isinstance(param, (int, float)) or isinstance(param, bool):
        raise ValueError("negative_slope {} not a valid number".format(param))
    check(C.glia_nn_init_calculate_gain(nonlinearity.encode(), math.nan if param is None else float(param),
                                        byref(out)), ValueError)
    return out.value


def uniform_(tensor, a=0.0, b=1.0):
    check(C.glia_nn_init_uniform_(tensor._h, a, b))
    return tensor


def normal_(tensor, mean=0.0, std=1.0):
    check(C.glia_nn_init_normal_(tensor._h, mean, std))
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    check(C.glia_nn_init_trunc_normal_(tensor._h, mean, std, a, b))
    return tensor


def constant_(tensor, val):
    check(C.glia_nn_init_constant_(tensor._h, val))
    return tensor


def ones_(tensor):
    check(C.glia_nn_init_ones_(tensor._h))
    return tensor


def zeros_(tensor):
    check(C.glia_nn_init_zeros_(tensor._h))
    return tensor


def eye_(tensor):
    check(C.glia_nn_init_eye_(tensor._h), ValueError)
    return tensor


def xavier_uniform_(tensor, gain=1.0):
    check(C.glia_nn_init_xavier_uniform_(tensor._h, gain), ValueError)
    return tensor


def xavier_normal_(tensor, gain=1.0):
    check(C.glia_nn_init_xavier_normal_(tensor._h, gain), ValueError)
    return tensor


def _mode(mode):
    if mode not in _MODES:
        raise ValueError("Mode {} not supported, please use one of {}".format(mode, ["fan_in", "fan_out"]))
    return _MODES[mode]


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    check(C.glia_nn_init_kaiming_uniform_(tensor._h, a, _mode(mode), nonlinearity.encode()), ValueError)
    return tensor


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    check(C.glia_nn_init_kaiming_normal_(tensor._h, a, _mode(mode), nonlinearity.encode()), ValueError)
    return tensor


def orthogonal_(tensor, gain=1):
    check(C.glia_nn_init_orthogonal_(tensor._h, gain), ValueError)
    return tensor


def dirac_(tensor, groups=1):
    check(C.glia_nn_init_dirac_(tensor._h, groups), ValueError)
    return tensor


def sparse_(tensor, sparsity, std=0.01):
    check(C.glia_nn_init_sparse_(tensor._h, sparsity, std), ValueError)
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn("nn.init.{} is now deprecated in favor of nn.init.{}.".format(old_name, new_name), stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = "{}(...): deprecated, use {} (torch's alias).".format(old_name, new_name)
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
