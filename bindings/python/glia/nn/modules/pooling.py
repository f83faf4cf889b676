"""The 1-D and 3-D pools of the C API (glia_nn_max_pool1d, ...), with torch's constructor signatures."""

from ... import _ffi
from ..._ffi import C, byref
from .builtin import _Builtin
from .module import Module

__all__ = ["MaxPool1d", "AvgPool1d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d"]


def _single(v):
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise ValueError("expected one int, got %r" % (v,))
        return int(v[0])
    return int(v)


def _triple(v):
    if isinstance(v, (tuple, list)):
        if len(v) != 3:
            raise ValueError("expected a triple, got %r" % (v,))
        return tuple(int(x) for x in v)
    return (int(v),) * 3


class MaxPool1d(_Builtin):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        if return_indices:
            raise NotImplementedError("glia: MaxPool1d(return_indices=True) is not supported by the module")
        o = _ffi.glia_max_pool1d_options()
        C.glia_max_pool1d_options_init(byref(o))
        o.kernel_size = _single(kernel_size)
        o.stride = _single(stride) if stride is not None else 0
        o.padding = _single(padding)
        o.dilation = _single(dilation)
        o.ceil_mode = int(bool(ceil_mode))
        self._make(C.glia_nn_max_pool1d, byref(o), None)
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.ceil_mode = padding, dilation, ceil_mode


class AvgPool1d(_Builtin):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        o = _ffi.glia_avg_pool1d_options()
        C.glia_avg_pool1d_options_init(byref(o))
        o.kernel_size = _single(kernel_size)
        o.stride = _single(stride) if stride is not None else 0
        o.padding = _single(padding)
        o.ceil_mode = int(bool(ceil_mode))
        o.count_include_pad = int(bool(count_include_pad))
        self._make(C.glia_nn_avg_pool1d, byref(o), None)
        k = _single(kernel_size)
        self.kernel_size, self.stride = (k,), (_single(stride) if stride is not None else k,)
        self.padding, self.ceil_mode, self.count_include_pad = (_single(padding),), ceil_mode, count_include_pad


class MaxPool3d(_Builtin):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        if return_indices:
            raise NotImplementedError("glia: MaxPool3d(return_indices=True) is not supported by the module")
        o = _ffi.glia_max_pool3d_options()
        C.glia_max_pool3d_options_init(byref(o))
        o.kernel_size[:] = _triple(kernel_size)
        o.stride[:] = _triple(stride) if stride is not None else (0, 0, 0)
        o.padding[:] = _triple(padding)
        o.dilation[:] = _triple(dilation)
        o.ceil_mode = int(bool(ceil_mode))
        self._make(C.glia_nn_max_pool3d, byref(o), None)
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.ceil_mode = padding, dilation, ceil_mode


class AvgPool3d(_Builtin):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        o = _ffi.glia_avg_pool3d_options()
        C.glia_avg_pool3d_options_init(byref(o))
        o.kernel_size[:] = _triple(kernel_size)
        o.stride[:] = _triple(stride) if stride is not None else (0, 0, 0)
        o.padding[:] = _triple(padding)
        o.ceil_mode = int(bool(ceil_mode))
        o.count_include_pad = int(bool(count_include_pad))
        o.divisor_override = divisor_override or 0
        self._make(C.glia_nn_avg_pool3d, byref(o), None)
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode, self.count_include_pad = padding, ceil_mode, count_include_pad
        self.divisor_override = divisor_override


class AdaptiveAvgPool1d(_Builtin):
    def __init__(self, output_size):
        self._make(C.glia_nn_adaptive_avg_pool1d, _single(output_size), None)
        self.output_size = output_size


class AdaptiveAvgPool3d(_Builtin):
    def __init__(self, output_size):
        if isinstance(output_size, (tuple, list)):
            t, h, w = output_size
        else:
            t = h = w = output_size
        self._make(C.glia_nn_adaptive_avg_pool3d, -1 if t is None else t, -1 if h is None else h,
                   -1 if w is None else w, None)
        self.output_size = output_size


__all__ += ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d"]


class AdaptiveMaxPool1d(_Builtin):
    def __init__(self, output_size, return_indices=False):
        if return_indices:
            raise NotImplementedError("glia: AdaptiveMaxPool1d(return_indices=True) is not supported by the module")
        self._make(C.glia_nn_adaptive_max_pool1d, _single(output_size), None)
        self.output_size, self.return_indices = output_size, return_indices


class AdaptiveMaxPool2d(_Builtin):
    def __init__(self, output_size, return_indices=False):
        if return_indices:
            raise NotImplementedError("glia: AdaptiveMaxPool2d(return_indices=True) is not supported by the module")
        h, w = output_size if isinstance(output_size, (tuple, list)) else (output_size, output_size)
        self._make(C.glia_nn_adaptive_max_pool2d, -1 if h is None else h, -1 if w is None else w, None)
        self.output_size, self.return_indices = output_size, return_indices


class AdaptiveMaxPool3d(_Builtin):
    def __init__(self, output_size, return_indices=False):
        if return_indices:
            raise NotImplementedError("glia: AdaptiveMaxPool3d(return_indices=True) is not supported by the module")
        t, h, w = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 3
        self._make(C.glia_nn_adaptive_max_pool3d, -1 if t is None else t, -1 if h is None else h,
                   -1 if w is None else w, None)
        self.output_size, self.return_indices = output_size, return_indices


class LPPool1d(_Builtin):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        self._make(C.glia_nn_lp_pool1d, float(norm_type), _single(kernel_size),
                   0 if stride is None else _single(stride), int(bool(ceil_mode)), None)
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode


class LPPool2d(_Builtin):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        pair = lambda v: tuple(int(x) for x in v) if isinstance(v, (tuple, list)) else (int(v), int(v))  # noqa: E731
        k = (_ffi.c_int64 * 2)(*pair(kernel_size))
        s = None if stride is None else (_ffi.c_int64 * 2)(*pair(stride))
        self._make(C.glia_nn_lp_pool2d, float(norm_type), k, s, int(bool(ceil_mode)), None)
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode


__all__ += ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _MaxUnpoolNd(Module):
    """torch's MaxUnpool1d/2d/3d: a Python module over F.max_unpool* (forward takes output_size)."""

    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        tup = lambda v: tuple(int(x) for x in v) if isinstance(v, (tuple, list)) else (int(v),) * self._n  # noqa: E731
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def forward(self, input, indices, output_size=None):  # noqa: A002
        from .. import functional as F

        fn = getattr(F, "max_unpool%dd" % self._n)
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class MaxUnpool1d(_MaxUnpoolNd):
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _n = 3
