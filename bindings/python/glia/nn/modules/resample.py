"""torch.nn's padding, upsampling and rearrangement modules over the C API (glia_nn_*_pad*d, glia_nn_upsample,
glia_nn_pixel_shuffle, ...)."""

from ... import _ffi
from ..._ffi import C
from .builtin import _Builtin

__all__ = [
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
]


def _padding(padding, dims):
    """torch's _ntuple(2 * dims): an int repeated, a sequence as given."""
    if isinstance(padding, (tuple, list)):
        return tuple(int(p) for p in padding)
    return (int(padding),) * (2 * dims)


class _PadNd(_Builtin):
    _dims = 1
    _fn = None

    def __init__(self, padding):
        padding = _padding(padding, self._dims)
        arr, n = _ffi.int64_array(padding)
        self._make(getattr(C, self._fn), arr, n, None)
        self.padding = padding


class _ConstantPadNd(_Builtin):
    _dims = 1
    _fn = None

    def __init__(self, padding, value):
        padding = _padding(padding, self._dims)
        arr, n = _ffi.int64_array(padding)
        self._make(getattr(C, self._fn), arr, n, float(value), None)
        self.padding, self.value = padding, value


class ConstantPad1d(_ConstantPadNd):
    _dims, _fn = 1, "glia_nn_constant_pad1d"

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad2d(_ConstantPadNd):
    _dims, _fn = 2, "glia_nn_constant_pad2d"

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad3d(_ConstantPadNd):
    _dims, _fn = 3, "glia_nn_constant_pad3d"

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ZeroPad2d(_PadNd):
    _dims, _fn = 2, "glia_nn_zero_pad2d"

    def __init__(self, padding):
        super().__init__(padding)
        self.value = 0.0


class ReflectionPad1d(_PadNd):
    _dims, _fn = 1, "glia_nn_reflection_pad1d"

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad2d(_PadNd):
    _dims, _fn = 2, "glia_nn_reflection_pad2d"

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad3d(_PadNd):
    _dims, _fn = 3, "glia_nn_reflection_pad3d"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad1d(_PadNd):
    _dims, _fn = 1, "glia_nn_replication_pad1d"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad2d(_PadNd):
    _dims, _fn = 2, "glia_nn_replication_pad2d"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad3d(_PadNd):
    _dims, _fn = 3, "glia_nn_replication_pad3d"

    def __init__(self, padding):
        super().__init__(padding)


class Upsample(_Builtin):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        from .. import functional as F

        if mode not in F._INTERPOLATE_MODES:
            raise NotImplementedError("glia: unknown interpolation mode %r" % (mode,))
        if isinstance(scale_factor, tuple):
            scale_factor = tuple(float(f) for f in scale_factor)
        else:
            scale_factor = float(scale_factor) if scale_factor else None
        s, ns, f, nf = F._resample_args(size, scale_factor)
        self._make(self._ctor_fn(), *self._ctor_args(s, ns, f, nf, F._INTERPOLATE_MODES[mode], F._flag(align_corners),
                                                     F._flag(recompute_scale_factor)), None)
        self.name = type(self).__name__
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def _ctor_fn(self):
        return C.glia_nn_upsample

    def _ctor_args(self, s, ns, f, nf, mode, align_corners, recompute):
        return (s, ns, f, nf, mode, align_corners, recompute)


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")

    def _ctor_fn(self):
        return C.glia_nn_upsampling_nearest2d

    def _ctor_args(self, s, ns, f, nf, mode, align_corners, recompute):
        return (s, ns, f, nf)


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)

    def _ctor_fn(self):
        return C.glia_nn_upsampling_bilinear2d

    def _ctor_args(self, s, ns, f, nf, mode, align_corners, recompute):
        return (s, ns, f, nf)


class PixelShuffle(_Builtin):
    def __init__(self, upscale_factor):
        self._make(C.glia_nn_pixel_shuffle, int(upscale_factor), None)
        self.upscale_factor = upscale_factor


class PixelUnshuffle(_Builtin):
    def __init__(self, downscale_factor):
        self._make(C.glia_nn_pixel_unshuffle, int(downscale_factor), None)
        self.downscale_factor = downscale_factor


class ChannelShuffle(_Builtin):
    def __init__(self, groups):
        self._make(C.glia_nn_channel_shuffle, int(groups), None)
        self.groups = groups
