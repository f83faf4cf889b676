"""The activation modules of issue 21 (glia_nn_prelu ... glia_nn_logsigmoid) with torch 1.13's
constructor signatures and defaults; forward, repr and parameters are the library's."""

import warnings

from ..._ffi import C
from .builtin import _Builtin, _factory

__all__ = [
    "PReLU", "RReLU", "GLU", "CELU", "SELU", "Softmin", "Softmax2d", "Softplus", "Softshrink", "Hardshrink",
    "Tanhshrink", "Threshold", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish", "LogSigmoid",
]


class PReLU(_Builtin):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self._make(C.glia_nn_prelu, int(num_parameters), float(init), _factory(device, dtype))
        self.num_parameters, self.init = num_parameters, init


class RReLU(_Builtin):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        self._make(C.glia_nn_rrelu, float(lower), float(upper), int(bool(inplace)), None)
        self.lower, self.upper, self.inplace = lower, upper, inplace


class GLU(_Builtin):
    def __init__(self, dim=-1):
        self._make(C.glia_nn_glu, int(dim), None)
        self.dim = dim


class CELU(_Builtin):
    def __init__(self, alpha=1.0, inplace=False):
        self._make(C.glia_nn_celu, float(alpha), int(bool(inplace)), None)
        self.alpha, self.inplace = alpha, inplace


class SELU(_Builtin):
    def __init__(self, inplace=False):
        self._make(C.glia_nn_selu, int(bool(inplace)), None)
        self.inplace = inplace


class Softmin(_Builtin):
    def __init__(self, dim=None):
        if dim is None:
            raise NotImplementedError("glia: Softmin needs dim (torch's implicit dim is deprecated)")
        self._make(C.glia_nn_softmin, int(dim), None)
        self.dim = dim


class Softmax2d(_Builtin):
    def __init__(self):
        self._make(C.glia_nn_softmax2d, None)


class Softplus(_Builtin):
    def __init__(self, beta=1, threshold=20):
        self._make(C.glia_nn_softplus, float(beta), float(threshold), None)
        self.beta, self.threshold = beta, threshold


class Softshrink(_Builtin):
    def __init__(self, lambd=0.5):
        self._make(C.glia_nn_softshrink, float(lambd), None)
        self.lambd = lambd


class Hardshrink(_Builtin):
    def __init__(self, lambd=0.5):
        self._make(C.glia_nn_hardshrink, float(lambd), None)
        self.lambd = lambd


class Tanhshrink(_Builtin):
    def __init__(self):
        self._make(C.glia_nn_tanhshrink, None)


class Threshold(_Builtin):
    def __init__(self, threshold, value, inplace=False):
        self._make(C.glia_nn_threshold, float(threshold), float(value), int(bool(inplace)), None)
        self.threshold, self.value, self.inplace = threshold, value, inplace


class Hardtanh(_Builtin):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        if min_value is not None:
            warnings.warn("keyword argument min_value is deprecated and rename to min_val")
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument max_value is deprecated and rename to max_val")
            max_val = max_value
        self._make(C.glia_nn_hardtanh, float(min_val), float(max_val), int(bool(inplace)), None)
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace


class ReLU6(_Builtin):
    def __init__(self, inplace=False):
        self._make(C.glia_nn_relu6, int(bool(inplace)), None)
        self.inplace = inplace


class Hardsigmoid(_Builtin):
    def __init__(self, inplace=False):
        self._make(C.glia_nn_hardsigmoid, int(bool(inplace)), None)
        self.inplace = inplace


class Hardswish(_Builtin):
    def __init__(self, inplace=False):
        self._make(C.glia_nn_hardswish, int(bool(inplace)), None)
        self.inplace = inplace


class Mish(_Builtin):
    def __init__(self, inplace=False):
        self._make(C.glia_nn_mish, int(bool(inplace)), None)
        self.inplace = inplace


class LogSigmoid(_Builtin):
    def __init__(self):
        self._make(C.glia_nn_logsigmoid, None)
