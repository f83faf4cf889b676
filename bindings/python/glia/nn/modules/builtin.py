"""The built-in modules of the C API (glia_nn_*), with torch's constructor signatures and defaults."""

import contextlib
import threading

from ... import _ffi
from ..._ffi import C, check, c_void_p, c_int64, c_double, byref
from .module import Module, _dtype_code

__all__ = [
    "Identity", "Linear", "Bilinear", "Conv2d", "ConvTranspose2d", "MaxPool2d", "AvgPool2d",
    "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "Dropout", "Embedding",
    "Flatten", "Unflatten", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax",
    "LogSoftmax", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "NLLLoss", "CrossEntropyLoss",
    "BCELoss", "BCEWithLogitsLoss",
]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _pair(v):
    if isinstance(v, (tuple, list)):
        if len(v) != 2:
            raise ValueError("expected a pair, got %r" % (v,))
        return tuple(int(x) for x in v)
    return (int(v), int(v))


_skip = threading.local()


@contextlib.contextmanager
def skipping_init():
    """torch.nn.utils.skip_init: built-ins made in this block leave their parameters uninitialised."""
    prev = getattr(_skip, "on", False)
    _skip.on = True
    try:
        yield
    finally:
        _skip.on = prev


def _factory(device=None, dtype=None):
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError("glia's Python binding creates modules on the CPU only (got %s)" % (device,))
    skip = getattr(_skip, "on", False)
    if dtype is None and not skip:
        return None
    f = _ffi.glia_factory_options()
    C.glia_factory_options_init(byref(f))
    if dtype is not None:
        f.dtype = _dtype_code(dtype)
    f.skip_init = 1 if skip else 0
    return byref(f)


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        if size_average is None:
            size_average = True
        if reduce is None:
            reduce = True
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise ValueError("{} is not a valid value for reduction".format(reduction))
    return _REDUCTIONS[reduction]


class _Builtin(Module):
    """A module whose forward is the library's."""

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        def __init__(self, *args, **kwargs):
            if "_ctor" not in self.__dict__:
                self.__dict__["_ctor"] = (args, kwargs)  # for copy.deepcopy
            init(self, *args, **kwargs)

        __init__.__doc__ = init.__doc__
        __init__.__wrapped__ = init
        cls.__init__ = __init__

    def _make(self, fn, *args, none_params=(), none_buffers=()):
        out = c_void_p()
        check(fn(*args, byref(out)))
        self._adopt(out.value, none_params, none_buffers)

    def forward(self, *args):
        return self(*args)


class Identity(_Builtin):
    def __init__(self, *args, **kwargs):
        self._make(C.glia_nn_identity, None)


class Linear(_Builtin):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        self._make(C.glia_nn_linear, in_features, out_features, int(bool(bias)), _factory(device, dtype),
                   none_params=() if bias else ("bias",))
        self.in_features = in_features
        self.out_features = out_features


class Bilinear(_Builtin):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        self._make(C.glia_nn_bilinear, in1_features, in2_features, out_features, int(bool(bias)),
                   _factory(device, dtype), none_params=() if bias else ("bias",))
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features


_PAD_MODES = {"zeros": 0, "reflect": 1, "replicate": 2, "circular": 3}


class Conv2d(_Builtin):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        o = _ffi.glia_nn_conv2d_options()
        C.glia_nn_conv2d_options_init(byref(o))
        o.stride[:] = _pair(stride)
        o.dilation[:] = _pair(dilation)
        o.groups = groups
        o.bias = int(bool(bias))
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    "Invalid padding string {!r}, should be one of {}".format(padding, {"valid", "same"}))
            o.padding_kind = {"valid": _ffi.GLIA_PADDING_VALID, "same": _ffi.GLIA_PADDING_SAME}[padding]
        else:
            o.padding[:] = _pair(padding)
        if padding_mode not in _PAD_MODES:
            raise ValueError("padding_mode must be one of {}, but got padding_mode='{}'".format(
                set(_PAD_MODES), padding_mode))
        o.padding_mode = _pad_mode(padding_mode)
        kh, kw = _pair(kernel_size)
        self._make(C.glia_nn_conv2d, in_channels, out_channels, kh, kw, byref(o), _factory(device, dtype),
                   none_params=() if bias else ("bias",))
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, (kh, kw)
        self.stride, self.padding, self.dilation, self.groups = _pair(stride), padding if isinstance(
            padding, str) else _pair(padding), _pair(dilation), groups
        self.padding_mode = padding_mode


def _pad_mode(name):
    table = {"zeros": "GLIA_PAD_CONSTANT", "reflect": "GLIA_PAD_REFLECT", "replicate": "GLIA_PAD_REPLICATE",
             "circular": "GLIA_PAD_CIRCULAR"}
    return getattr(_ffi, table[name])


class ConvTranspose2d(_Builtin):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for ConvTranspose2d')
        o = _ffi.glia_nn_conv_transpose2d_options()
        C.glia_nn_conv_transpose2d_options_init(byref(o))
        o.stride[:] = _pair(stride)
        o.padding[:] = _pair(padding)
        o.output_padding[:] = _pair(output_padding)
        o.dilation[:] = _pair(dilation)
        o.groups = groups
        o.bias = int(bool(bias))
        kh, kw = _pair(kernel_size)
        self._make(C.glia_nn_conv_transpose2d, in_channels, out_channels, kh, kw, byref(o),
                   _factory(device, dtype), none_params=() if bias else ("bias",))
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, (kh, kw)
        self.stride, self.padding, self.output_padding = _pair(stride), _pair(padding), _pair(output_padding)
        self.dilation, self.groups, self.padding_mode = _pair(dilation), groups, padding_mode
        self.transposed = True


class MaxPool2d(_Builtin):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        if return_indices:
            raise NotImplementedError("glia: MaxPool2d(return_indices=True) is not supported by the module")
        o = _ffi.glia_max_pool2d_options()
        C.glia_max_pool2d_options_init(byref(o))
        o.kernel_size[:] = _pair(kernel_size)
        o.stride[:] = _pair(stride) if stride is not None else (0, 0)
        o.padding[:] = _pair(padding)
        o.dilation[:] = _pair(dilation)
        o.ceil_mode = int(bool(ceil_mode))
        self._make(C.glia_nn_max_pool2d, byref(o), None)
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.ceil_mode = padding, dilation, ceil_mode


class AvgPool2d(_Builtin):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        o = _ffi.glia_avg_pool2d_options()
        C.glia_avg_pool2d_options_init(byref(o))
        o.kernel_size[:] = _pair(kernel_size)
        o.stride[:] = _pair(stride) if stride is not None else (0, 0)
        o.padding[:] = _pair(padding)
        o.ceil_mode = int(bool(ceil_mode))
        o.count_include_pad = int(bool(count_include_pad))
        o.divisor_override = divisor_override or 0
        self._make(C.glia_nn_avg_pool2d, byref(o), None)
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size


class AdaptiveAvgPool2d(_Builtin):
    def __init__(self, output_size):
        if isinstance(output_size, (tuple, list)):
            h, w = output_size
        else:
            h = w = output_size
        self._make(C.glia_nn_adaptive_avg_pool2d, -1 if h is None else h, -1 if w is None else w, None)
        self.output_size = output_size


def _bn_options(eps, momentum, affine, track_running_stats):
    o = _ffi.glia_batch_norm_options()
    C.glia_batch_norm_options_init(byref(o))
    o.eps = eps
    if momentum is None:
        o.momentum_none = 1
    else:
        o.momentum = momentum
    o.affine = int(bool(affine))
    o.track_running_stats = int(bool(track_running_stats))
    return o


class _BatchNorm(_Builtin):
    _fn = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        o = _bn_options(eps, momentum, affine, track_running_stats)
        self._make(type(self)._fn(), num_features, byref(o), _factory(device, dtype),
                   none_params=() if affine else ("weight", "bias"),
                   none_buffers=() if track_running_stats else ("running_mean", "running_var",
                                                                "num_batches_tracked"))
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats


class BatchNorm1d(_BatchNorm):
    _fn = staticmethod(lambda: C.glia_nn_batch_norm1d)


class BatchNorm2d(_BatchNorm):
    _fn = staticmethod(lambda: C.glia_nn_batch_norm2d)


class LayerNorm(_Builtin):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        shape, n = _ffi.int64_array(normalized_shape)
        self._make(C.glia_nn_layer_norm, shape, n, eps, int(bool(elementwise_affine)), 1, _factory(device, dtype),
                   none_params=() if elementwise_affine else ("weight", "bias"))
        self.normalized_shape, self.eps, self.elementwise_affine = tuple(normalized_shape), eps, elementwise_affine


class GroupNorm(_Builtin):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        self._make(C.glia_nn_group_norm, num_groups, num_channels, eps, int(bool(affine)), _factory(device, dtype),
                   none_params=() if affine else ("weight", "bias"))
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine


class Dropout(_Builtin):
    def __init__(self, p=0.5, inplace=False):
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self._make(C.glia_nn_dropout, p, None)
        self.p, self.inplace = p, inplace


class Embedding(_Builtin):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        if sparse:
            raise NotImplementedError("glia: Embedding(sparse=True) is not supported")
        pi = c_int64(padding_idx) if padding_idx is not None else None
        mn = c_double(max_norm) if max_norm is not None else None
        self._make(C.glia_nn_embedding, num_embeddings, embedding_dim, byref(pi) if pi is not None else None,
                   byref(mn) if mn is not None else None, norm_type, _factory(device, dtype))
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = padding_idx if padding_idx is None or padding_idx >= 0 else num_embeddings + padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if scale_grad_by_freq:
            check(C.glia_nn_embedding_set_scale_grad_by_freq(self._h, 1))
        if _weight is not None:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.load_state_dict({"weight": _weight})

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        embedding = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, padding_idx=padding_idx,
                        max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq,
                        sparse=sparse, dtype=embeddings.dtype)
        embedding.weight.requires_grad = not freeze
        return embedding


class Flatten(_Builtin):
    def __init__(self, start_dim=1, end_dim=-1):
        self._make(C.glia_nn_flatten, start_dim, end_dim, None)
        self.start_dim, self.end_dim = start_dim, end_dim


class Unflatten(_Builtin):
    def __init__(self, dim, unflattened_size):
        sizes, n = _ffi.int64_array(unflattened_size)
        self._make(C.glia_nn_unflatten, dim, sizes, n, None)
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)


def _set_inplace(module, inplace):
    """torch's inplace=True (glia_nn_activation_set_inplace: these constructors predate the flag)."""
    if inplace:
        check(C.glia_nn_activation_set_inplace(module._h, 1))


class ReLU(_Builtin):
    def __init__(self, inplace=False):
        self._make(C.glia_nn_relu, None)
        self.inplace = inplace
        _set_inplace(self, inplace)


class LeakyReLU(_Builtin):
    def __init__(self, negative_slope=0.01, inplace=False):
        self._make(C.glia_nn_leaky_relu, negative_slope, None)
        self.negative_slope, self.inplace = negative_slope, inplace
        _set_inplace(self, inplace)


class ELU(_Builtin):
    def __init__(self, alpha=1.0, inplace=False):
        self._make(C.glia_nn_elu, alpha, None)
        self.alpha, self.inplace = alpha, inplace
        _set_inplace(self, inplace)


class GELU(_Builtin):
    def __init__(self, approximate="none"):
        self._make(C.glia_nn_gelu, approximate.encode(), None)
        self.approximate = approximate


class SiLU(_Builtin):
    def __init__(self, inplace=False):
        self._make(C.glia_nn_silu, None)
        self.inplace = inplace
        _set_inplace(self, inplace)


class Sigmoid(_Builtin):
    def __init__(self):
        self._make(C.glia_nn_sigmoid, None)


class Tanh(_Builtin):
    def __init__(self):
        self._make(C.glia_nn_tanh, None)


class Softmax(_Builtin):
    def __init__(self, dim=None):
        if dim is None:
            raise NotImplementedError("glia: Softmax needs dim (torch's implicit dim is deprecated)")
        self._make(C.glia_nn_softmax, dim, None)
        self.dim = dim


class LogSoftmax(_Builtin):
    def __init__(self, dim=None):
        if dim is None:
            raise NotImplementedError("glia: LogSoftmax needs dim (torch's implicit dim is deprecated)")
        self._make(C.glia_nn_log_softmax, dim, None)
        self.dim = dim


class MSELoss(_Builtin):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_mse_loss, _reduction(reduction, size_average, reduce), None)
        self.reduction = reduction


class L1Loss(_Builtin):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_l1_loss, _reduction(reduction, size_average, reduce), None)
        self.reduction = reduction


class SmoothL1Loss(_Builtin):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        self._make(C.glia_nn_smooth_l1_loss, _reduction(reduction, size_average, reduce), beta, None)
        self.reduction, self.beta = reduction, beta


class HuberLoss(_Builtin):
    def __init__(self, reduction="mean", delta=1.0):
        self._make(C.glia_nn_huber_loss, _reduction(reduction), delta, None)
        self.reduction, self.delta = reduction, delta


class NLLLoss(_Builtin):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        o = _ffi.glia_nll_loss_options()
        C.glia_nll_loss_options_init(byref(o))
        o.weight = weight._h if weight is not None else None
        o.ignore_index = ignore_index
        o.reduction = _reduction(reduction, size_average, reduce)
        self._make(C.glia_nn_nll_loss, byref(o), None)
        self.ignore_index, self.reduction = ignore_index, reduction


class CrossEntropyLoss(_Builtin):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        o = _ffi.glia_cross_entropy_options()
        C.glia_cross_entropy_options_init(byref(o))
        o.weight = weight._h if weight is not None else None
        o.ignore_index = ignore_index
        o.reduction = _reduction(reduction, size_average, reduce)
        o.label_smoothing = label_smoothing
        self._make(C.glia_nn_cross_entropy_loss, byref(o), None)
        self.ignore_index, self.reduction, self.label_smoothing = ignore_index, reduction, label_smoothing


class BCELoss(_Builtin):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_bce_loss, weight._h if weight is not None else None,
                   _reduction(reduction, size_average, reduce), None)
        self.reduction = reduction


class BCEWithLogitsLoss(_Builtin):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        self._make(C.glia_nn_bce_with_logits_loss, weight._h if weight is not None else None,
                   pos_weight._h if pos_weight is not None else None,
                   _reduction(reduction, size_average, reduce), None)
        self.reduction = reduction
