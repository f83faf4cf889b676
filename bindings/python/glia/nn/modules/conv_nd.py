"""Conv1d, Conv3d, ConvTranspose1d, ConvTranspose3d, Unfold and Fold of the C API (glia_nn_conv1d, ...),
with torch's constructor signatures, checks and attributes."""

from ... import _ffi
from ..._ffi import C, byref
from .builtin import _Builtin, _factory, _pad_mode

__all__ = ["Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose3d", "Unfold", "Fold"]

_PAD_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v, n):
    if isinstance(v, (tuple, list)):
        if len(v) != n:
            raise ValueError("expected %d ints, got %r" % (n, v))
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _pair(v):
    return _ntuple(v, 2)


def _conv_checks(in_channels, out_channels, stride, padding, groups, padding_mode):
    # torch's _ConvNd.__init__, in its order.
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError("Invalid padding string {!r}, should be one of {}".format(padding, {"valid", "same"}))
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _PAD_MODES:
        raise ValueError("padding_mode must be one of {}, but got padding_mode='{}'".format(
            set(_PAD_MODES), padding_mode))


class _ConvNd(_Builtin):
    _nd = 1

    def _build(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
               device, dtype):
        n = self._nd
        k, s, d = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        _conv_checks(in_channels, out_channels, s, padding, groups, padding_mode)
        o = _ffi.glia_nn_convnd_options()
        C.glia_nn_convnd_options_init(byref(o))
        o.stride[:n] = s
        o.dilation[:n] = d
        o.groups = groups
        o.bias = int(bool(bias))
        if isinstance(padding, str):
            o.padding_kind = {"valid": _ffi.GLIA_PADDING_VALID, "same": _ffi.GLIA_PADDING_SAME}[padding]
        else:
            o.padding[:n] = _ntuple(padding, n)
        o.padding_mode = _pad_mode(padding_mode)
        if n == 1:
            self._make(C.glia_nn_conv1d, in_channels, out_channels, k[0], byref(o), _factory(device, dtype),
                       none_params=() if bias else ("bias",))
        else:
            self._make(C.glia_nn_conv3d, in_channels, out_channels, k[0], k[1], k[2], byref(o),
                       _factory(device, dtype), none_params=() if bias else ("bias",))
        self.in_channels, self.out_channels, self.kernel_size, self.stride = in_channels, out_channels, k, s
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation, self.groups, self.padding_mode = d, groups, padding_mode
        self.transposed, self.output_padding = False, (0,) * n


class Conv1d(_ConvNd):
    _nd = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        self._build(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                    device, dtype)


class Conv3d(_ConvNd):
    _nd = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        self._build(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                    device, dtype)


class _ConvTransposeNd(_Builtin):
    _nd = 1

    def _build(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
               dilation, padding_mode, device, dtype):
        n = self._nd
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(type(self).__name__))
        k, s, p = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(padding, n)
        op, d = _ntuple(output_padding, n), _ntuple(dilation, n)
        _conv_checks(in_channels, out_channels, s, p, groups, padding_mode)
        o = _ffi.glia_nn_conv_transposend_options()
        C.glia_nn_conv_transposend_options_init(byref(o))
        o.stride[:n], o.padding[:n], o.output_padding[:n], o.dilation[:n] = s, p, op, d
        o.groups = groups
        o.bias = int(bool(bias))
        if n == 1:
            self._make(C.glia_nn_conv_transpose1d, in_channels, out_channels, k[0], byref(o),
                       _factory(device, dtype), none_params=() if bias else ("bias",))
        else:
            self._make(C.glia_nn_conv_transpose3d, in_channels, out_channels, k[0], k[1], k[2], byref(o),
                       _factory(device, dtype), none_params=() if bias else ("bias",))
        self.in_channels, self.out_channels, self.kernel_size, self.stride = in_channels, out_channels, k, s
        self.padding, self.output_padding, self.dilation, self.groups = p, op, d, groups
        self.padding_mode, self.transposed = padding_mode, True

    def _output_padding(self, input, output_size):  # noqa: A002
        # torch's _ConvTransposeNd._output_padding.
        n = self._nd
        output_size = list(output_size)
        non_spatial = 2 if input.dim() == n + 2 else 1
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError("ConvTranspose{}D: for {}D input, output_size must have {} or {} elements (got {})".format(
                n, input.dim(), n, non_spatial + n, len(output_size)))
        mins, maxs = [], []
        for d in range(n):
            size = ((input.size(d + non_spatial) - 1) * self.stride[d] - 2 * self.padding[d] +
                    self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            mins.append(size)
            maxs.append(size + self.stride[d] - 1)
        for i, size in enumerate(output_size):
            if size < mins[i] or size > maxs[i]:
                raise ValueError("requested an output size of {}, but valid sizes range from {} to {} (for an input "
                                 "of {})".format(output_size, mins, maxs, input.size()[2:]))
        return [output_size[d] - mins[d] for d in range(n)]

    def __call__(self, input, output_size=None):  # noqa: A002
        if output_size is None:
            return super().__call__(input)
        from .. import functional as F
        f = F.conv_transpose1d if self._nd == 1 else F.conv_transpose3d
        return f(input, self.weight, self.bias, self.stride, self.padding, self._output_padding(input, output_size),
                 self.groups, self.dilation)

    def forward(self, input, output_size=None):  # noqa: A002
        return self(input, output_size)


class ConvTranspose1d(_ConvTransposeNd):
    _nd = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        self._build(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias, dilation,
                    padding_mode, device, dtype)


class ConvTranspose3d(_ConvTransposeNd):
    _nd = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        self._build(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias, dilation,
                    padding_mode, device, dtype)


def _fold_options(kernel_size, dilation, padding, stride):
    o = _ffi.glia_fold_options()
    C.glia_fold_options_init(byref(o))
    o.kernel_size[:] = _pair(kernel_size)
    o.dilation[:] = _pair(dilation)
    o.padding[:] = _pair(padding)
    o.stride[:] = _pair(stride)
    return o


class Unfold(_Builtin):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        o = _fold_options(kernel_size, dilation, padding, stride)
        self._make(C.glia_nn_unfold, byref(o), None)
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def extra_repr(self):
        return "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, stride={stride}".format(
            **self.__dict__)


class Fold(_Builtin):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        o = _fold_options(kernel_size, dilation, padding, stride)
        oh, ow = _pair(output_size)
        self._make(C.glia_nn_fold, oh, ow, byref(o), None)
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def extra_repr(self):
        return ("output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
                "stride={stride}").format(**self.__dict__)
