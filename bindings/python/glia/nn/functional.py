"""glia.nn.functional: the stateless ops (owned by the tensor work).

torch.nn.functional's names, argument names and defaults over glia's C
operators (glia_<name>, with glia_<name>_options_init for the option structs).
"""

import numbers
import warnings

from .._cdefs import (
    GLIA_PAD_CIRCULAR,
    GLIA_PAD_CONSTANT,
    GLIA_PAD_REFLECT,
    GLIA_PAD_REPLICATE,
    GLIA_PADDING_EXPLICIT,
    GLIA_PADDING_SAME,
    GLIA_PADDING_VALID,
    GLIA_REDUCTION_MEAN,
    GLIA_REDUCTION_NONE,
    GLIA_REDUCTION_SUM,
    c_double,
    c_int64,
    glia_avg_pool2d_options,
    glia_conv2d_options,
    glia_conv_transpose2d_options,
    glia_cross_entropy_options,
    glia_max_pool2d_options,
    glia_nll_loss_options,
)
from .._ffi import C, byref, check
from .._tensor import Tensor, _i64, _new, c_void_p

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "elu", "gelu", "silu", "sigmoid", "tanh", "softplus", "hardtanh",
    "softmax", "log_softmax", "linear", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
    "adaptive_avg_pool2d", "batch_norm", "layer_norm", "group_norm", "dropout", "embedding", "pad", "normalize",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "one_hot",
]

_REDUCTIONS = {"none": GLIA_REDUCTION_NONE, "mean": GLIA_REDUCTION_MEAN, "sum": GLIA_REDUCTION_SUM}


def _tensor_arg(fn, name, pos, x, optional=False):
    if x is None and optional:
        return None
    if not isinstance(x, Tensor):
        raise TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s" % (fn, name, pos, type(x).__name__))
    return x._h


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError("%s is not a valid value for reduction" % reduction) from None


def _pair(v, name="argument"):
    if isinstance(v, numbers.Integral):
        return (int(v), int(v))
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return (v[0], v[0])
    if len(v) != 2:
        raise ValueError("%s must be an int or a pair of ints, got %r" % (name, v))
    return v


# ---- activations ------------------------------------------------------------


def relu(input, inplace=False):  # noqa: A002
    if inplace:
        return input.relu_()
    return _new(C.glia_relu, _tensor_arg("relu", "input", 1, input))


def relu_(input):  # noqa: A002
    return input.relu_()


def relu6(input, inplace=False):  # noqa: A002
    return hardtanh(input, 0.0, 6.0, inplace)


def _maybe_inplace(input, result, inplace):  # noqa: A002
    if inplace:
        input.copy_(result)
        return input
    return result


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _new(C.glia_leaky_relu, _tensor_arg("leaky_relu", "input", 1, input), float(negative_slope))


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    if inplace:
        return elu_(input, alpha)
    return _new(C.glia_elu, _tensor_arg("elu", "input", 1, input), float(alpha), 1.0, 1.0)


def selu(input, inplace=False):  # noqa: A002
    if inplace:
        return selu_(input)
    return _new(C.glia_selu, _tensor_arg("selu", "input", 1, input))


def gelu(input, approximate="none"):  # noqa: A002
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _new(C.glia_gelu, _tensor_arg("gelu", "input", 1, input), approximate.encode())


def silu(input, inplace=False):  # noqa: A002
    if inplace:
        check(C.glia_silu_(_tensor_arg("silu", "input", 1, input)))
        return input
    return _new(C.glia_silu, _tensor_arg("silu", "input", 1, input))


def sigmoid(input):  # noqa: A002
    return _new(C.glia_sigmoid, _tensor_arg("sigmoid", "input", 1, input))


def tanh(input):  # noqa: A002
    return _new(C.glia_tanh, _tensor_arg("tanh", "input", 1, input))


def softplus(input, beta=1, threshold=20):  # noqa: A002
    return _new(C.glia_softplus, _tensor_arg("softplus", "input", 1, input), float(beta), float(threshold))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return _new(C.glia_hardtanh, _tensor_arg("hardtanh", "input", 1, input), float(min_val), float(max_val))


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include "
                      "dim=X as an argument.", stacklevel=_stacklevel)
        dim = _softmax_dim(input.ndim)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        warnings.warn("Implicit dimension choice for log_softmax has been deprecated. Change the call to include "
                      "dim=X as an argument.", stacklevel=_stacklevel)
        dim = _softmax_dim(input.ndim)
    return input.log_softmax(dim, dtype=dtype)


# ---- linear, convolution, pooling ----------------------------------------------


def linear(input, weight, bias=None):  # noqa: A002
    return _new(C.glia_linear, _tensor_arg("linear", "input", 1, input), _tensor_arg("linear", "weight", 2, weight),
                _tensor_arg("linear", "bias", 3, bias, True))


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    o = glia_conv2d_options()
    C.glia_conv2d_options_init(byref(o))
    o.stride[:] = _pair(stride, "stride")
    o.dilation[:] = _pair(dilation, "dilation")
    o.groups = int(groups)
    if isinstance(padding, str):
        if padding == "valid":
            o.padding_kind = GLIA_PADDING_VALID
        elif padding == "same":
            o.padding_kind = GLIA_PADDING_SAME
        else:
            raise ValueError("Invalid padding string '%s', should be one of {'valid', 'same'}" % padding)
    else:
        o.padding_kind = GLIA_PADDING_EXPLICIT
        o.padding[:] = _pair(padding, "padding")
    return _new(C.glia_conv2d, _tensor_arg("conv2d", "input", 1, input), _tensor_arg("conv2d", "weight", 2, weight),
                _tensor_arg("conv2d", "bias", 3, bias, True), byref(o))


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    o = glia_conv_transpose2d_options()
    C.glia_conv_transpose2d_options_init(byref(o))
    o.stride[:] = _pair(stride, "stride")
    o.padding[:] = _pair(padding, "padding")
    o.output_padding[:] = _pair(output_padding, "output_padding")
    o.dilation[:] = _pair(dilation, "dilation")
    o.groups = int(groups)
    return _new(C.glia_conv_transpose2d, _tensor_arg("conv_transpose2d", "input", 1, input),
                _tensor_arg("conv_transpose2d", "weight", 2, weight),
                _tensor_arg("conv_transpose2d", "bias", 3, bias, True), byref(o))


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    o = glia_max_pool2d_options()
    C.glia_max_pool2d_options_init(byref(o))
    o.kernel_size[:] = _pair(kernel_size, "kernel_size")
    if stride is not None and not (not isinstance(stride, numbers.Integral) and len(stride) == 0):
        o.stride[:] = _pair(stride, "stride")
    o.padding[:] = _pair(padding, "padding")
    o.dilation[:] = _pair(dilation, "dilation")
    o.ceil_mode = 1 if ceil_mode else 0
    out, idx = c_void_p(), c_void_p()
    check(C.glia_max_pool2d(_tensor_arg("max_pool2d", "input", 1, input), byref(o), byref(out),
                            byref(idx) if return_indices else None))
    r = Tensor._wrap(out.value)
    return (r, Tensor._wrap(idx.value)) if return_indices else r


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    o = glia_avg_pool2d_options()
    C.glia_avg_pool2d_options_init(byref(o))
    o.kernel_size[:] = _pair(kernel_size, "kernel_size")
    if stride is not None and not (not isinstance(stride, numbers.Integral) and len(stride) == 0):
        o.stride[:] = _pair(stride, "stride")
    o.padding[:] = _pair(padding, "padding")
    o.ceil_mode = 1 if ceil_mode else 0
    o.count_include_pad = 1 if count_include_pad else 0
    o.divisor_override = 0 if divisor_override is None else int(divisor_override)
    return _new(C.glia_avg_pool2d, _tensor_arg("avg_pool2d", "input", 1, input), byref(o))


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    if isinstance(output_size, numbers.Integral):
        oh = ow = int(output_size)
    else:
        oh, ow = output_size
        oh = input.shape[-2] if oh is None else int(oh)
        ow = input.shape[-1] if ow is None else int(ow)
    return _new(C.glia_adaptive_avg_pool2d, _tensor_arg("adaptive_avg_pool2d", "input", 1, input), oh, ow)


# ---- normalisation, dropout, embedding, pad ------------------------------------


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-05):
    return _new(C.glia_batch_norm, _tensor_arg("batch_norm", "input", 1, input),
                _tensor_arg("batch_norm", "running_mean", 2, running_mean, True),
                _tensor_arg("batch_norm", "running_var", 3, running_var, True),
                _tensor_arg("batch_norm", "weight", 4, weight, True), _tensor_arg("batch_norm", "bias", 5, bias, True),
                1 if training else 0, 0.0 if momentum is None else float(momentum), float(eps))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    arr, n = _i64(normalized_shape)
    return _new(C.glia_layer_norm, _tensor_arg("layer_norm", "input", 1, input), arr, n,
                _tensor_arg("layer_norm", "weight", 3, weight, True), _tensor_arg("layer_norm", "bias", 4, bias, True),
                float(eps))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    return _new(C.glia_group_norm, _tensor_arg("group_norm", "input", 1, input), int(num_groups),
                _tensor_arg("group_norm", "weight", 3, weight, True), _tensor_arg("group_norm", "bias", 4, bias, True),
                float(eps))


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    r = _new(C.glia_dropout, _tensor_arg("dropout", "input", 1, input), float(p), 1 if training else 0)
    return _maybe_inplace(input, r, inplace and training)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,  # noqa: A002
              sparse=False):
    if sparse:
        raise NotImplementedError("glia: embedding(sparse=True) is not supported")
    pi = None if padding_idx is None else byref(c_int64(int(padding_idx)))
    mn = None if max_norm is None else byref(c_double(float(max_norm)))
    return _new(C.glia_embedding_ex, _tensor_arg("embedding", "weight", 2, weight),
                _tensor_arg("embedding", "input", 1, input), pi, mn, float(norm_type), int(bool(scale_grad_by_freq)))


_PAD_MODES = {"constant": GLIA_PAD_CONSTANT, "reflect": GLIA_PAD_REFLECT, "replicate": GLIA_PAD_REPLICATE,
              "circular": GLIA_PAD_CIRCULAR}


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    if mode not in _PAD_MODES:
        raise NotImplementedError("Unrecognised padding mode " + str(mode))
    arr, n = _i64(pad)
    return _new(C.glia_pad, _tensor_arg("pad", "input", 1, input), arr, n, _PAD_MODES[mode],
                0.0 if value is None else float(value))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
    """torch.nn.functional.normalize: input / max(||input||_p over dim, eps)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def one_hot(tensor, num_classes=-1):
    if num_classes < 0:
        num_classes = int(tensor.max().item()) + 1
    from .._tensor import arange

    return tensor.unsqueeze(-1).eq(arange(num_classes)).long()


# ---- losses ---------------------------------------------------------------------


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    return _new(C.glia_mse_loss, _tensor_arg("mse_loss", "input", 1, input),
                _tensor_arg("mse_loss", "target", 2, target), _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    return _new(C.glia_l1_loss, _tensor_arg("l1_loss", "input", 1, input),
                _tensor_arg("l1_loss", "target", 2, target), _reduction(reduction, size_average, reduce))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):  # noqa: A002
    return _new(C.glia_smooth_l1_loss, _tensor_arg("smooth_l1_loss", "input", 1, input),
                _tensor_arg("smooth_l1_loss", "target", 2, target), _reduction(reduction, size_average, reduce),
                float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002
    return _new(C.glia_huber_loss, _tensor_arg("huber_loss", "input", 1, input),
                _tensor_arg("huber_loss", "target", 2, target), _reduction(reduction), float(delta))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    if target.shape != input.shape:
        raise ValueError(
            "Using a target size ({}) that is different to the input size ({}) is deprecated. Please ensure they "
            "have the same size.".format(target.shape, input.shape)
        )
    return _new(C.glia_binary_cross_entropy, _tensor_arg("binary_cross_entropy", "input", 1, input),
                _tensor_arg("binary_cross_entropy", "target", 2, target),
                _tensor_arg("binary_cross_entropy", "weight", 3, weight, True),
                _reduction(reduction, size_average, reduce))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction="mean", pos_weight=None):
    if target.shape != input.shape:
        raise ValueError(
            "Target size ({}) must be the same as input size ({})".format(target.shape, input.shape)
        )
    return _new(C.glia_binary_cross_entropy_with_logits,
                _tensor_arg("binary_cross_entropy_with_logits", "input", 1, input),
                _tensor_arg("binary_cross_entropy_with_logits", "target", 2, target),
                _tensor_arg("binary_cross_entropy_with_logits", "weight", 3, weight, True),
                _tensor_arg("binary_cross_entropy_with_logits", "pos_weight", 7, pos_weight, True),
                _reduction(reduction, size_average, reduce))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
             reduction="mean"):
    o = glia_nll_loss_options()
    C.glia_nll_loss_options_init(byref(o))
    o.weight = _tensor_arg("nll_loss", "weight", 3, weight, True)
    o.ignore_index = int(ignore_index)
    o.reduction = _reduction(reduction, size_average, reduce)
    return _new(C.glia_nll_loss, _tensor_arg("nll_loss", "input", 1, input),
                _tensor_arg("nll_loss", "target", 2, target), byref(o))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
                  reduction="mean", label_smoothing=0.0):
    o = glia_cross_entropy_options()
    C.glia_cross_entropy_options_init(byref(o))
    o.weight = _tensor_arg("cross_entropy", "weight", 3, weight, True)
    o.ignore_index = int(ignore_index)
    o.reduction = _reduction(reduction, size_average, reduce)
    o.label_smoothing = float(label_smoothing)
    return _new(C.glia_cross_entropy, _tensor_arg("cross_entropy", "input", 1, input),
                _tensor_arg("cross_entropy", "target", 2, target), byref(o))


# ---- padding, upsampling and rearrangement (h-pad, issue 21) ---------------------------------------------------

from .. import _cdefs as _cd  # noqa: E402
from .._ffi import c_double as _c_double  # noqa: E402

_INTERPOLATE_MODES = {
    "nearest": _cd.GLIA_INTERPOLATE_NEAREST, "linear": _cd.GLIA_INTERPOLATE_LINEAR,
    "bilinear": _cd.GLIA_INTERPOLATE_BILINEAR, "bicubic": _cd.GLIA_INTERPOLATE_BICUBIC,
    "trilinear": _cd.GLIA_INTERPOLATE_TRILINEAR, "area": _cd.GLIA_INTERPOLATE_AREA,
    "nearest-exact": _cd.GLIA_INTERPOLATE_NEAREST_EXACT,
}
# torch raises ValueError for interpolate's argument checks and NotImplementedError for a mode that does not
# fit the input's dims.
_INTERPOLATE_ERRORS = {_cd.GLIA_ERR_INVALID_ARGUMENT: ValueError, _cd.GLIA_ERR_UNSUPPORTED: NotImplementedError}


def _resample_args(size, scale_factor):
    if size is None:
        s, ns = None, 0
    else:
        s, ns = _i64(size if isinstance(size, (list, tuple)) else [size])
    if scale_factor is None:
        f, nf = None, 0
    else:
        vals = [float(v) for v in (scale_factor if isinstance(scale_factor, (list, tuple)) else [scale_factor])]
        f, nf = (_c_double * max(len(vals), 1))(*vals), len(vals)
    return s, ns, f, nf


def _flag(v):
    return -1 if v is None else int(bool(v))


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    if antialias:
        raise NotImplementedError("glia: interpolate(antialias=True) is not supported")
    if mode not in _INTERPOLATE_MODES:
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: nearest | linear | "
            "bilinear | bicubic | trilinear | area | nearest-exact (got {})".format(input.dim(), mode))
    s, ns, f, nf = _resample_args(size, scale_factor)
    out = c_void_p()
    check(C.glia_interpolate(_tensor_arg("interpolate", "input", 1, input), s, ns, f, nf, _INTERPOLATE_MODES[mode],
                             _flag(align_corners), _flag(recompute_scale_factor), byref(out)),
          codes=_INTERPOLATE_ERRORS)
    return Tensor._wrap(out.value)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    return _new(C.glia_pixel_shuffle, _tensor_arg("pixel_shuffle", "input", 1, input), int(upscale_factor))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    return _new(C.glia_pixel_unshuffle, _tensor_arg("pixel_unshuffle", "input", 1, input), int(downscale_factor))


def channel_shuffle(input, groups):  # noqa: A002
    return _new(C.glia_channel_shuffle, _tensor_arg("channel_shuffle", "input", 1, input), int(groups))


__all__ += ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
            "channel_shuffle"]
# ---- losses: kl_div ... triplet_margin_with_distance_loss (issue 21) -------------
# torch.nn.functional's signatures; the C functions are glia_<name>.

from .._cdefs import GLIA_ERR_INVALID_ARGUMENT as _ERR_INVALID  # noqa: E402
from .._cdefs import GLIA_REDUCTION_BATCHMEAN as _BATCHMEAN  # noqa: E402
from .._cdefs import glia_distance_fn as _glia_distance_fn  # noqa: E402
from .._ffi import _park  # noqa: E402
from .._ffi import free_user_data as _free_user_data  # noqa: E402
from .._ffi import lookup as _lookup  # noqa: E402

__all__ += [
    "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "soft_margin_loss", "multilabel_soft_margin_loss", "cosine_embedding_loss", "multi_margin_loss",
    "multilabel_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
]


def _checked_reduction(reduction, size_average=None, reduce=None):
    """The reduction of the losses torch checks with "<reduction> is not valid"."""
    if size_average is None and reduce is None and reduction not in _REDUCTIONS:
        raise ValueError(str(reduction) + " is not valid")
    return _reduction(reduction, size_average, reduce)


def _distance_body(user_data, x1, x2, out):
    try:
        fn = _lookup(user_data)
        check(C.glia_tensor_retain(x1))
        a = Tensor._wrap(x1)
        check(C.glia_tensor_retain(x2))
        b = Tensor._wrap(x2)
        r = fn(a, b)
        if not isinstance(r, Tensor):
            raise TypeError("distance_function returned %s, expected a Tensor" % type(r).__name__)
        check(C.glia_tensor_retain(r._h))
        out[0] = r._h
        return None
    except BaseException as e:  # noqa: B902 - nothing may unwind through C frames
        return _park(e)


# glia_distance_fn over a Python callable registered with glia._ffi.register (user_data is its key).
_distance_trampoline = _glia_distance_fn(_distance_body)
_no_distance = _glia_distance_fn()  # NULL: the library's pairwise_distance


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002
    if size_average is not None or reduce is not None:
        r = _reduction(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release."
            )
        r = _BATCHMEAN if reduction == "batchmean" else _reduction(reduction)
    return _new(C.glia_kl_div, _tensor_arg("kl_div", "input", 1, input), _tensor_arg("kl_div", "target", 2, target),
                r, int(bool(log_target)))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,  # noqa: A002
                     reduce=None, reduction="mean"):
    r = _checked_reduction(reduction, size_average, reduce)
    return _new(C.glia_poisson_nll_loss, _tensor_arg("poisson_nll_loss", "input", 1, input),
                _tensor_arg("poisson_nll_loss", "target", 2, target), int(bool(log_input)), int(bool(full)),
                float(eps), r)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):  # noqa: A002
    r = _checked_reduction(reduction)
    out = c_void_p()
    check(C.glia_gaussian_nll_loss(_tensor_arg("gaussian_nll_loss", "input", 1, input),
                                   _tensor_arg("gaussian_nll_loss", "target", 2, target),
                                   _tensor_arg("gaussian_nll_loss", "var", 3, var), int(bool(full)), float(eps), r,
                                   byref(out)), codes={_ERR_INVALID: ValueError})
    return Tensor._wrap(out.value)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _new(C.glia_margin_ranking_loss, _tensor_arg("margin_ranking_loss", "input1", 1, input1),
                _tensor_arg("margin_ranking_loss", "input2", 2, input2),
                _tensor_arg("margin_ranking_loss", "target", 3, target), float(margin),
                _reduction(reduction, size_average, reduce))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    return _new(C.glia_hinge_embedding_loss, _tensor_arg("hinge_embedding_loss", "input", 1, input),
                _tensor_arg("hinge_embedding_loss", "target", 2, target), float(margin),
                _reduction(reduction, size_average, reduce))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    return _new(C.glia_soft_margin_loss, _tensor_arg("soft_margin_loss", "input", 1, input),
                _tensor_arg("soft_margin_loss", "target", 2, target), _reduction(reduction, size_average, reduce))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                reduction="mean"):
    r = _checked_reduction(reduction, size_average, reduce)
    return _new(C.glia_multilabel_soft_margin_loss, _tensor_arg("multilabel_soft_margin_loss", "input", 1, input),
                _tensor_arg("multilabel_soft_margin_loss", "target", 2, target),
                _tensor_arg("multilabel_soft_margin_loss", "weight", 3, weight, True), r)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _new(C.glia_cosine_embedding_loss, _tensor_arg("cosine_embedding_loss", "input1", 1, input1),
                _tensor_arg("cosine_embedding_loss", "input2", 2, input2),
                _tensor_arg("cosine_embedding_loss", "target", 3, target), float(margin),
                _reduction(reduction, size_average, reduce))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,  # noqa: A002
                      reduction="mean"):
    r = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _new(C.glia_multi_margin_loss, _tensor_arg("multi_margin_loss", "input", 1, input),
                _tensor_arg("multi_margin_loss", "target", 2, target), int(p), float(margin),
                _tensor_arg("multi_margin_loss", "weight", 5, weight, True), r)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    return _new(C.glia_multilabel_margin_loss, _tensor_arg("multilabel_margin_loss", "input", 1, input),
                _tensor_arg("multilabel_margin_loss", "target", 2, target), _reduction(reduction, size_average, reduce))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    return _new(C.glia_triplet_margin_loss, _tensor_arg("triplet_margin_loss", "anchor", 1, anchor),
                _tensor_arg("triplet_margin_loss", "positive", 2, positive),
                _tensor_arg("triplet_margin_loss", "negative", 3, negative), float(margin), float(p), float(eps),
                int(bool(swap)), _reduction(reduction, size_average, reduce))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    from .._ffi import register, unregister

    r = _reduction(reduction)
    key = register(distance_function) if distance_function is not None else None
    try:
        return _new(C.glia_triplet_margin_with_distance_loss,
                    _tensor_arg("triplet_margin_with_distance_loss", "anchor", 1, anchor),
                    _tensor_arg("triplet_margin_with_distance_loss", "positive", 2, positive),
                    _tensor_arg("triplet_margin_with_distance_loss", "negative", 3, negative),
                    _distance_trampoline if key is not None else _no_distance, key, float(margin), int(bool(swap)), r)
    finally:
        if key is not None:
            unregister(key)
# ---- 1-D and 3-D pooling (h-pool: issue 21) --------------------------------------

from .. import _cdefs as _pool_cdefs  # noqa: E402

__all__ += ["max_pool1d", "avg_pool1d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool3d"]


def _single(v, name="argument"):
    if isinstance(v, numbers.Integral):
        return int(v)
    v = tuple(int(x) for x in v)
    if len(v) != 1:
        raise ValueError("%s must be an int or a tuple of one int, got %r" % (name, v))
    return v[0]


def _triple(v, name="argument"):
    if isinstance(v, numbers.Integral):
        return (int(v),) * 3
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * 3
    if len(v) != 3:
        raise ValueError("%s must be an int or a triple of ints, got %r" % (name, v))
    return v


def _no_stride(stride):
    return stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    o = _pool_cdefs.glia_max_pool1d_options()
    C.glia_max_pool1d_options_init(byref(o))
    o.kernel_size = _single(kernel_size, "kernel_size")
    if not _no_stride(stride):
        o.stride = _single(stride, "stride")
    o.padding = _single(padding, "padding")
    o.dilation = _single(dilation, "dilation")
    o.ceil_mode = 1 if ceil_mode else 0
    out, idx = c_void_p(), c_void_p()
    check(C.glia_max_pool1d(_tensor_arg("max_pool1d", "input", 1, input), byref(o), byref(out),
                            byref(idx) if return_indices else None))
    r = Tensor._wrap(out.value)
    return (r, Tensor._wrap(idx.value)) if return_indices else r


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    o = _pool_cdefs.glia_avg_pool1d_options()
    C.glia_avg_pool1d_options_init(byref(o))
    o.kernel_size = _single(kernel_size, "kernel_size")
    if not _no_stride(stride):
        o.stride = _single(stride, "stride")
    o.padding = _single(padding, "padding")
    o.ceil_mode = 1 if ceil_mode else 0
    o.count_include_pad = 1 if count_include_pad else 0
    return _new(C.glia_avg_pool1d, _tensor_arg("avg_pool1d", "input", 1, input), byref(o))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    o = _pool_cdefs.glia_max_pool3d_options()
    C.glia_max_pool3d_options_init(byref(o))
    o.kernel_size[:] = _triple(kernel_size, "kernel_size")
    if not _no_stride(stride):
        o.stride[:] = _triple(stride, "stride")
    o.padding[:] = _triple(padding, "padding")
    o.dilation[:] = _triple(dilation, "dilation")
    o.ceil_mode = 1 if ceil_mode else 0
    out, idx = c_void_p(), c_void_p()
    check(C.glia_max_pool3d(_tensor_arg("max_pool3d", "input", 1, input), byref(o), byref(out),
                            byref(idx) if return_indices else None))
    r = Tensor._wrap(out.value)
    return (r, Tensor._wrap(idx.value)) if return_indices else r


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    o = _pool_cdefs.glia_avg_pool3d_options()
    C.glia_avg_pool3d_options_init(byref(o))
    o.kernel_size[:] = _triple(kernel_size, "kernel_size")
    if not _no_stride(stride):
        o.stride[:] = _triple(stride, "stride")
    o.padding[:] = _triple(padding, "padding")
    o.ceil_mode = 1 if ceil_mode else 0
    o.count_include_pad = 1 if count_include_pad else 0
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    o.divisor_override = 0 if divisor_override is None else int(divisor_override)
    return _new(C.glia_avg_pool3d, _tensor_arg("avg_pool3d", "input", 1, input), byref(o))


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    return _new(C.glia_adaptive_avg_pool1d, _tensor_arg("adaptive_avg_pool1d", "input", 1, input),
                _single(output_size, "output_size"))


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    x = _tensor_arg("adaptive_avg_pool3d", "input", 1, input)
    if isinstance(output_size, numbers.Integral):
        size = (int(output_size),) * 3
    else:
        size = tuple(output_size)
        if len(size) != 3:
            raise ValueError("output_size must be an int or a triple, got %r" % (size,))
        if len(input.shape) < 4:
            raise ValueError("Input dimension should be at least 4")
        size = tuple(int(input.shape[d - 3]) if v is None else int(v) for d, v in enumerate(size))
    return _new(C.glia_adaptive_avg_pool3d, x, *size)


__all__ += ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d",
            "max_unpool3d", "lp_pool1d", "lp_pool2d"]


def _adaptive_sizes(input, output_size, n, fn):  # noqa: A002
    if isinstance(output_size, numbers.Integral):
        return (int(output_size),) * n
    size = tuple(output_size)
    if len(size) != n:
        raise ValueError("%s: output_size must be an int or %d ints, got %r" % (fn, n, size))
    if len(input.shape) <= n:
        raise ValueError("Input dimension should be at least %d" % (n + 1))
    return tuple(int(input.shape[d - n]) if v is None else int(v) for d, v in enumerate(size))


def _adaptive_max(fn, input, sizes, return_indices):  # noqa: A002
    out, idx = c_void_p(), c_void_p()
    check(getattr(C, "glia_" + fn)(_tensor_arg(fn, "input", 1, input), *sizes, byref(out),
                                   byref(idx) if return_indices else None))
    r = Tensor._wrap(out.value)
    return (r, Tensor._wrap(idx.value)) if return_indices else r


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    return _adaptive_max("adaptive_max_pool1d", input, (_single(output_size, "output_size"),), return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    sizes = _adaptive_sizes(input, output_size, 2, "adaptive_max_pool2d")
    return _adaptive_max("adaptive_max_pool2d", input, sizes, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    sizes = _adaptive_sizes(input, output_size, 3, "adaptive_max_pool3d")
    return _adaptive_max("adaptive_max_pool3d", input, sizes, return_indices)


def _max_unpool(fn, n, input, indices, kernel_size, stride, padding, output_size):  # noqa: A002
    one = _single if n == 1 else (lambda v, name: _pair(v, name) if n == 2 else _triple(v, name))
    o = _pool_cdefs.glia_max_unpool_options()
    C.glia_max_unpool_options_init(byref(o))
    k = (one(kernel_size, "kernel_size"),) if n == 1 else one(kernel_size, "kernel_size")
    s = k if _no_stride(stride) else ((one(stride, "stride"),) if n == 1 else one(stride, "stride"))
    p = (one(padding, "padding"),) if n == 1 else one(padding, "padding")
    o.kernel_size[:n], o.stride[:n], o.padding[:n] = k, s, p
    if output_size is not None:
        # torch's _unpool_output_size (its ValueErrors; the library checks the range again).
        size = list(output_size)
        if len(size) == n + 2:
            size = size[2:]
        if len(size) != n:
            raise ValueError("output_size should be a sequence containing {} or {} elements, but it has a length of "
                             "'{}'".format(n, n + 2, len(size)))
        shape = input.shape
        for d in range(n):
            default = (shape[len(shape) - n + d] - 1) * s[d] + k[d] - 2 * p[d]
            if not (default - s[d] < size[d] < default + s[d]):
                raise ValueError('invalid output_size "{}" (dim {} must be between {} and {})'.format(
                    output_size, d, default - s[d], default + s[d]))
        o.output_size[:n] = [int(v) for v in size]
    return _new(getattr(C, "glia_" + fn), _tensor_arg(fn, "input", 1, input), _tensor_arg(fn, "indices", 2, indices),
                byref(o))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding, output_size)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    s = 0 if _no_stride(stride) else _single(stride, "stride")
    return _new(C.glia_lp_pool1d, _tensor_arg("lp_pool1d", "input", 1, input), float(norm_type),
                _single(kernel_size, "kernel_size"), s, 1 if ceil_mode else 0)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    k = (c_int64 * 2)(*_pair(kernel_size, "kernel_size"))
    s = None if _no_stride(stride) else (c_int64 * 2)(*_pair(stride, "stride"))
    return _new(C.glia_lp_pool2d, _tensor_arg("lp_pool2d", "input", 1, input), float(norm_type), k, s,
                1 if ceil_mode else 0)
# ---- activations of issue 21 (h-act): torch.nn.functional's remaining activations and the in-place forms
# (glia_<name>_: the input is overwritten, its version moves, autograd records torch's node).

__all__ += [
    "prelu", "rrelu", "rrelu_", "glu", "celu", "celu_", "selu", "selu_", "softmin", "softshrink", "hardshrink",
    "tanhshrink", "threshold", "threshold_", "hardtanh_", "hardsigmoid", "hardswish", "mish", "logsigmoid",
    "leaky_relu_", "elu_",
]


def _inplace_call(fn, name, input, *args):  # noqa: A002
    check(fn(_tensor_arg(name, "input", 1, input), *args))
    return input


def leaky_relu_(input, negative_slope=0.01):  # noqa: A002
    return _inplace_call(C.glia_leaky_relu_, "leaky_relu_", input, float(negative_slope))


def elu_(input, alpha=1.0):  # noqa: A002
    return _inplace_call(C.glia_elu_, "elu_", input, float(alpha), 1.0, 1.0)


def selu_(input):  # noqa: A002
    return _inplace_call(C.glia_selu_, "selu_", input)


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    if inplace:
        return celu_(input, alpha)
    return _new(C.glia_celu, _tensor_arg("celu", "input", 1, input), float(alpha))


def celu_(input, alpha=1.0):  # noqa: A002
    return _inplace_call(C.glia_celu_, "celu_", input, float(alpha))


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    return _inplace_call(C.glia_hardtanh_, "hardtanh_", input, float(min_val), float(max_val))


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    if inplace:
        return threshold_(input, threshold, value)
    return _new(C.glia_threshold, _tensor_arg("threshold", "input", 1, input), float(threshold), float(value))


def threshold_(input, threshold, value):  # noqa: A002
    return _inplace_call(C.glia_threshold_, "threshold_", input, float(threshold), float(value))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):  # noqa: A002
    if inplace:
        return rrelu_(input, lower, upper, training)
    return _new(C.glia_rrelu, _tensor_arg("rrelu", "input", 1, input), float(lower), float(upper), int(bool(training)))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):  # noqa: A002
    return _inplace_call(C.glia_rrelu_, "rrelu_", input, float(lower), float(upper), int(bool(training)))


def prelu(input, weight):  # noqa: A002
    return _new(C.glia_prelu, _tensor_arg("prelu", "input", 1, input), _tensor_arg("prelu", "weight", 2, weight))


def glu(input, dim=-1):  # noqa: A002
    return _new(C.glia_glu, _tensor_arg("glu", "input", 1, input), int(dim))


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call to include "
                      "dim=X as an argument.", stacklevel=_stacklevel)
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)  # noqa: A001
    return _new(C.glia_softmin, _tensor_arg("softmin", "input", 1, input), int(dim))


def softshrink(input, lambd=0.5):  # noqa: A002
    return _new(C.glia_softshrink, _tensor_arg("softshrink", "input", 1, input), float(lambd))


def hardshrink(input, lambd=0.5):  # noqa: A002
    return _new(C.glia_hardshrink, _tensor_arg("hardshrink", "input", 1, input), float(lambd))


def tanhshrink(input):  # noqa: A002
    return _new(C.glia_tanhshrink, _tensor_arg("tanhshrink", "input", 1, input))


def hardsigmoid(input, inplace=False):  # noqa: A002
    if inplace:
        return _inplace_call(C.glia_hardsigmoid_, "hardsigmoid", input)
    return _new(C.glia_hardsigmoid, _tensor_arg("hardsigmoid", "input", 1, input))


def hardswish(input, inplace=False):  # noqa: A002
    if inplace:
        return _inplace_call(C.glia_hardswish_, "hardswish", input)
    return _new(C.glia_hardswish, _tensor_arg("hardswish", "input", 1, input))


def mish(input, inplace=False):  # noqa: A002
    if inplace:
        return _inplace_call(C.glia_mish_, "mish", input)
    return _new(C.glia_mish, _tensor_arg("mish", "input", 1, input))


def logsigmoid(input):  # noqa: A002
    return _new(C.glia_logsigmoid, _tensor_arg("logsigmoid", "input", 1, input))


# ---- torch's named variants: *_with_indices, native_channel_shuffle, gumbel_softmax (issue 21) ----
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """torch's max_pool1d_with_indices: always (output, indices), whatever return_indices says."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    return adaptive_max_pool3d(input, output_size, return_indices=True)


def native_channel_shuffle(input, groups):  # noqa: A002
    return channel_shuffle(input, groups)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """torch's gumbel_softmax: softmax((logits + g) / tau) with g ~ Gumbel(0, 1) drawn from glia's generator
    (so the draws differ from torch's); hard=True returns the one-hot of the argmax with the soft sample's
    gradient (straight-through). eps is unused, as in torch."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    u = logits.detach().new_empty(logits.shape).uniform_().clamp_min(1.1754943508222875e-38)
    gumbels = -((-u.log()).log())  # -log(E) with E = -log(U) ~ Exp(1), never 0 since U < 1
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


__all__ += ["max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
            "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
            "adaptive_max_pool3d_with_indices", "native_channel_shuffle", "gumbel_softmax"]
# ---- convolutions 1d/3d and fold/unfold ------------------------------------------

from .._cdefs import glia_conv_transposend_options, glia_convnd_options, glia_fold_options  # noqa: E402

__all__ += ["conv1d", "conv3d", "conv_transpose1d", "conv_transpose3d", "unfold", "fold"]


def _ntuple(v, n, name):
    if isinstance(v, numbers.Integral):
        return (int(v),) * n
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError("expected %s to be a single integer value or a list of %d values to match the "
                           "convolution dimensions, but got %s=%s" % (name, n, name, list(v)))
    return v


def _convnd(fn, name, n, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    o = glia_convnd_options()
    C.glia_convnd_options_init(byref(o))
    o.stride[:n] = _ntuple(stride, n, "stride")
    o.dilation[:n] = _ntuple(dilation, n, "dilation")
    o.groups = int(groups)
    if isinstance(padding, str):
        if padding == "valid":
            o.padding_kind = GLIA_PADDING_VALID
        elif padding == "same":
            o.padding_kind = GLIA_PADDING_SAME
        else:
            raise RuntimeError("Invalid padding string: '%s'" % padding)
    else:
        o.padding_kind = GLIA_PADDING_EXPLICIT
        o.padding[:n] = _ntuple(padding, n, "padding")
    return _new(fn, _tensor_arg(name, "input", 1, input), _tensor_arg(name, "weight", 2, weight),
                _tensor_arg(name, "bias", 3, bias, True), byref(o))


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _convnd(C.glia_conv1d, "conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _convnd(C.glia_conv3d, "conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(fn, name, n, input, weight, bias, stride, padding, output_padding, groups,  # noqa: A002
                      dilation):
    o = glia_conv_transposend_options()
    C.glia_conv_transposend_options_init(byref(o))
    o.stride[:n] = _ntuple(stride, n, "stride")
    o.padding[:n] = _ntuple(padding, n, "padding")
    o.output_padding[:n] = _ntuple(output_padding, n, "output_padding")
    o.dilation[:n] = _ntuple(dilation, n, "dilation")
    o.groups = int(groups)
    return _new(fn, _tensor_arg(name, "input", 1, input), _tensor_arg(name, "weight", 2, weight),
                _tensor_arg(name, "bias", 3, bias, True), byref(o))


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    return _conv_transposend(C.glia_conv_transpose1d, "conv_transpose1d", 1, input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    return _conv_transposend(C.glia_conv_transpose3d, "conv_transpose3d", 3, input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


def _fold_options(kernel_size, dilation, padding, stride):
    o = glia_fold_options()
    C.glia_fold_options_init(byref(o))
    o.kernel_size[:] = _pair(kernel_size, "kernel_size")
    o.dilation[:] = _pair(dilation, "dilation")
    o.padding[:] = _pair(padding, "padding")
    o.stride[:] = _pair(stride, "stride")
    return o


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    o = _fold_options(kernel_size, dilation, padding, stride)
    return _new(C.glia_im2col, _tensor_arg("unfold", "input", 1, input), byref(o))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    o = _fold_options(kernel_size, dilation, padding, stride)
    oh, ow = _pair(output_size, "output_size")
    return _new(C.glia_col2im, _tensor_arg("fold", "input", 1, input), oh, ow, byref(o))


# ---- norms, dropouts and distances (h-nnmisc, issue 21) -------------------------------------------------------------

__all__ += ["instance_norm", "local_response_norm", "cosine_similarity", "pairwise_distance", "pdist", "bilinear",
            "softsign", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,  # noqa: A002
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if use_input_stats:
        size = tuple(input.shape)
        prod = 1
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input size torch.Size({})"
                             .format(list(size)))
    return _new(C.glia_instance_norm, _tensor_arg("instance_norm", "input", 1, input),
                _tensor_arg("instance_norm", "running_mean", 2, running_mean, True),
                _tensor_arg("instance_norm", "running_var", 3, running_var, True),
                _tensor_arg("instance_norm", "weight", 4, weight, True),
                _tensor_arg("instance_norm", "bias", 5, bias, True), 1 if use_input_stats else 0, float(momentum),
                float(eps))


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):  # noqa: A002
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input (got {} dimensions)"
                         .format(dim))
    return _new(C.glia_local_response_norm, _tensor_arg("local_response_norm", "input", 1, input), int(size),
                float(alpha), float(beta), float(k))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return _new(C.glia_cosine_similarity, _tensor_arg("cosine_similarity", "x1", 1, x1),
                _tensor_arg("cosine_similarity", "x2", 2, x2), int(dim), float(eps))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _new(C.glia_pairwise_distance, _tensor_arg("pairwise_distance", "x1", 1, x1),
                _tensor_arg("pairwise_distance", "x2", 2, x2), float(p), float(eps), 1 if keepdim else 0)


def pdist(input, p=2):  # noqa: A002
    return _new(C.glia_pdist, _tensor_arg("pdist", "input", 1, input), float(p))


def bilinear(input1, input2, weight, bias=None):
    return _new(C.glia_bilinear, _tensor_arg("bilinear", "input1", 1, input1),
                _tensor_arg("bilinear", "input2", 2, input2), _tensor_arg("bilinear", "weight", 3, weight),
                _tensor_arg("bilinear", "bias", 4, bias, True))


def softsign(input):  # noqa: A002
    return _new(C.glia_softsign, _tensor_arg("softsign", "input", 1, input))


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))


def _dropout_call(fn, name, input, p, training, inplace):  # noqa: A002
    _check_p(p)
    r = _new(fn, _tensor_arg(name, "input", 1, input), float(p), 1 if training else 0)
    if not inplace:
        return r
    if r.data_ptr() != input.data_ptr():  # eval and p = 0 give the input itself
        input.copy_(r)
    return input


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError("dropout1d: Expected 2D or 3D input, but received a {}D input. Note that dropout1d exists "
                           "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).".format(input.dim()))
    return _dropout_call(C.glia_dropout1d, "dropout1d", input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn("dropout2d: Received a {}-D input to dropout2d, which is deprecated and will result in an error "
                      "in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs)."
                      .format(inp_dim))
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.")
    return _dropout_call(C.glia_dropout2d, "dropout2d", input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn("dropout3d: Received a {}-D input to dropout3d, which is deprecated and will result in an error "
                      "in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs)."
                      .format(inp_dim))
    return _dropout_call(C.glia_dropout3d, "dropout3d", input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    return _dropout_call(C.glia_alpha_dropout, "alpha_dropout", input, p, training, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    return _dropout_call(C.glia_feature_alpha_dropout, "feature_alpha_dropout", input, p, training, inplace)
# ---- multi-head attention (h-mha, issue 21) ---------------------------------------------------------------------
# F.multi_head_attention_forward over glia_multi_head_attention_forward (composed in C from linear, bmm, baddbmm,
# softmax and dropout). torch raises AssertionError for its asserts (glia: GLIA_ERR_INVALID_ARGUMENT) and
# RuntimeError for the attn_mask shapes (GLIA_ERR_SHAPE).

_MHA_ERRORS = {_cd.GLIA_ERR_INVALID_ARGUMENT: AssertionError}


def _opt_handle(fn, name, pos, x):
    return _tensor_arg(fn, name, pos, x, True)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True):
    fn = "multi_head_attention_forward"
    o = _cd.glia_multi_head_attention_options()
    C.glia_multi_head_attention_options_init(byref(o))
    o.bias_k = _opt_handle(fn, "bias_k", 8, bias_k)
    o.bias_v = _opt_handle(fn, "bias_v", 9, bias_v)
    o.add_zero_attn = int(bool(add_zero_attn))
    o.dropout_p = float(dropout_p)
    o.training = int(bool(training))
    o.key_padding_mask = _opt_handle(fn, "key_padding_mask", 15, key_padding_mask)
    o.need_weights = int(bool(need_weights))
    o.attn_mask = _opt_handle(fn, "attn_mask", 17, attn_mask)
    o.use_separate_proj_weight = int(bool(use_separate_proj_weight))
    o.q_proj_weight = _opt_handle(fn, "q_proj_weight", 19, q_proj_weight)
    o.k_proj_weight = _opt_handle(fn, "k_proj_weight", 20, k_proj_weight)
    o.v_proj_weight = _opt_handle(fn, "v_proj_weight", 21, v_proj_weight)
    o.static_k = _opt_handle(fn, "static_k", 22, static_k)
    o.static_v = _opt_handle(fn, "static_v", 23, static_v)
    o.average_attn_weights = int(bool(average_attn_weights))
    if attn_mask is not None and str(attn_mask.dtype) == "torch.uint8":
        warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.")
    out, w = c_void_p(), c_void_p()
    check(C.glia_multi_head_attention_forward(
        _tensor_arg(fn, "query", 1, query), _tensor_arg(fn, "key", 2, key), _tensor_arg(fn, "value", 3, value),
        int(embed_dim_to_check), int(num_heads), _opt_handle(fn, "in_proj_weight", 6, in_proj_weight),
        _opt_handle(fn, "in_proj_bias", 7, in_proj_bias), _tensor_arg(fn, "out_proj_weight", 12, out_proj_weight),
        _opt_handle(fn, "out_proj_bias", 13, out_proj_bias), byref(o), byref(out), byref(w)), codes=_MHA_ERRORS)
    return Tensor._wrap(out.value), (Tensor._wrap(w.value) if w.value else None)


def assert_int_or_pair(arg, arg_name, message):
    """torch's helper of unfold/fold's argument checks."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


__all__ += ["assert_int_or_pair"]


# ---- out= (issue 20, branch h-out): normalize is torch.nn.functional's one function with out= ----
from .._out_inplace import write_out as _write_out  # noqa: E402

_normalize_without_out = normalize


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002,F811
    """torch.nn.functional.normalize: input / max(||input||_p over dim, eps); out= as in torch (its div writes it)."""
    r = _normalize_without_out(input, p, dim, eps)
    return r if out is None else _write_out(out, r, "div")
# ---- EmbeddingBag and CTC loss (h-embctc, issue 21): glia_embedding_bag, glia_ctc_loss; torch's Python-level
# checks (its ValueErrors) here, ATen's in C.

def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,  # noqa: A002
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    fn = "embedding_bag"
    if (isinstance(weight, Tensor) and isinstance(input, Tensor) and str(weight.dtype) == "torch.int64"
            and input.is_floating_point()):
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. "
                      "Usage `embedding_bag(weight, input, ...)` is deprecated, "
                      "and should now be `embedding_bag(input, weight, ...)`.")
        weight, input = input, weight
    _tensor_arg(fn, "input", 1, input)
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError("embedding_bag: If per_sample_weights ({}) is not None, then it must have the same shape as "
                         "the input ({})".format(per_sample_weights.shape, input.shape))
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type {}".format(str(type(offsets))))
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension {}".format(input.dim()))
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  "supported for mode='sum' (got mode='{}'). Please open a feature request on "
                                  "GitHub.".format(mode))
    if sparse:
        raise NotImplementedError("glia: embedding_bag(sparse=True) is not supported")
    mn = None if max_norm is None else byref(c_double(float(max_norm)))
    pi = None if padding_idx is None else byref(c_int64(int(padding_idx)))
    return _new(C.glia_embedding_bag, _tensor_arg(fn, "weight", 2, weight), input._h,
                _tensor_arg(fn, "offsets", 3, offsets, True), mn, float(norm_type), int(bool(scale_grad_by_freq)),
                mode.encode(), _tensor_arg(fn, "per_sample_weights", 9, per_sample_weights, True),
                int(bool(include_last_offset)), pi)


def _ctc_lengths(v, what):
    if isinstance(v, Tensor):
        if v.is_floating_point() or str(v.dtype) == "torch.bool":
            raise RuntimeError("%s must be integral" % what)
        v = v.reshape(-1).tolist()
    elif isinstance(v, numbers.Integral):
        v = [v]
    return [int(x) for x in v]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",  # noqa: A002
             zero_infinity=False):
    fn = "ctc_loss"
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError("ctc_loss() received an invalid combination of arguments: input_lengths and "
                        "target_lengths must both be Tensors or both be lists of ints")
    il = _ctc_lengths(input_lengths, "input_lengths")
    tl = _ctc_lengths(target_lengths, "target_lengths")
    il_a, n_il = _i64(il)
    tl_a, n_tl = _i64(tl)
    return _new(C.glia_ctc_loss, _tensor_arg(fn, "log_probs", 1, log_probs), _tensor_arg(fn, "targets", 2, targets),
                il_a, n_il, tl_a, n_tl, int(blank), _reduction(reduction), int(bool(zero_infinity)))


__all__ += ["embedding_bag", "ctc_loss"]
# ---- grid sampling and fractional max pooling (h-grid, issue 21) ------------------------------------------------
# F.grid_sample / F.affine_grid over glia_grid_sample / glia_affine_grid and F.fractional_max_pool2d / 3d(_with_indices)
# over glia_fractional_max_pool2d / 3d, with torch's Python-level checks, warnings and defaults (align_corners None
# warns and is False; output_ratio gives int(size * ratio); no _random_samples: uniform draws from glia's generator).

_GRID_MODES = {"bilinear": _cd.GLIA_GRID_SAMPLE_BILINEAR, "nearest": _cd.GLIA_GRID_SAMPLE_NEAREST,
               "bicubic": _cd.GLIA_GRID_SAMPLE_BICUBIC}
_GRID_PADDINGS = {"zeros": _cd.GLIA_GRID_PADDING_ZEROS, "border": _cd.GLIA_GRID_PADDING_BORDER,
                  "reflection": _cd.GLIA_GRID_PADDING_REFLECTION}
_GRID_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                       "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                       "grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    if mode not in _GRID_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         "got: '{}'".format(mode))
    if padding_mode not in _GRID_PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         "'reflection', but got: '{}'".format(padding_mode))
    if align_corners is None:
        warnings.warn(_GRID_ALIGN_WARNING)
        align_corners = False
    return _new(C.glia_grid_sample, _tensor_arg("grid_sample", "input", 1, input),
                _tensor_arg("grid_sample", "grid", 2, grid), _GRID_MODES[mode], _GRID_PADDINGS[padding_mode],
                int(bool(align_corners)))


def affine_grid(theta, size, align_corners=None):
    _tensor_arg("affine_grid", "theta", 1, theta)
    if align_corners is None:
        warnings.warn(_GRID_ALIGN_WARNING)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError("Expected theta to have floating point type, but got {}".format(theta.dtype))
    size = list(size)
    shown = "torch.Size({})".format(list(theta.shape))
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size {}. Got {}."
                             .format(size, shown))
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size {}. Got {}."
                             .format(size, shown))
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  "respectively. Got size {}.".format(size))
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError("Expected non-zero, positive output size. Got {}".format(size))
    s, n = _i64(size)
    out = c_void_p()
    # align_corners is passed as given (the unit-size warning was issued here).
    check(C.glia_affine_grid(theta._h, s, n, int(bool(align_corners)), byref(out)),
          codes={_cd.GLIA_ERR_UNSUPPORTED: NotImplementedError})
    return Tensor._wrap(out.value)


def _fractional(k, input, kernel_size, output_size, output_ratio, return_indices, _random_samples):  # noqa: A002
    fn = "fractional_max_pool%dd" % k
    x = _tensor_arg(fn, "input", 1, input)
    if output_size is None and output_ratio is None:
        raise ValueError("%s requires specifying either an output_size or an output_ratio" % fn)
    if output_size is None:
        if isinstance(output_ratio, numbers.Number):
            ratio = (float(output_ratio),) * k
        else:
            ratio = tuple(float(r) for r in output_ratio)
            if len(ratio) == 1:
                ratio = ratio * k
        output_size = [int(input.size(j - k) * ratio[j]) for j in range(k)]
    ks = [int(kernel_size)] if isinstance(kernel_size, numbers.Integral) else [int(v) for v in kernel_size]
    os_ = [int(output_size)] if isinstance(output_size, numbers.Integral) else [int(v) for v in output_size]
    what = "Ints" if k == 2 else "three Ints"
    # torch's list arguments: one int, or exactly k of them.
    if not isinstance(kernel_size, numbers.Integral) and len(ks) != k:
        raise RuntimeError("%s: kernel_size must either be a single Int or tuple of %s" % (fn, what))
    if not isinstance(output_size, numbers.Integral) and len(os_) != k:
        raise RuntimeError("%s: output_size must either be a single Int or tuple of %s" % (fn, what))
    kp, kn = _i64(ks)
    op, on = _i64(os_)
    samples = _tensor_arg(fn, "_random_samples", 6, _random_samples, True)
    out, idx = c_void_p(), c_void_p()
    check(getattr(C, "glia_" + fn)(x, kp, kn, op, on, None, 0, samples, byref(out),
                                   byref(idx) if return_indices else None))
    r = Tensor._wrap(out.value)
    return (r, Tensor._wrap(idx.value)) if return_indices else r


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                                       return_indices=False, _random_samples=None):
    return _fractional(2, input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                                       return_indices=False, _random_samples=None):
    return _fractional(3, input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def conv_tbc(input, weight, bias, pad=0):  # noqa: A002
    """torch.conv_tbc (also torch.nn.functional.conv_tbc): input [T, B, Cin], weight [K, Cin, Cout], bias [Cout]."""
    return _new(C.glia_conv_tbc, _tensor_arg("conv_tbc", "input", 1, input), _tensor_arg("conv_tbc", "weight", 2, weight),
                _tensor_arg("conv_tbc", "bias", 3, bias), int(pad))


__all__ += ["grid_sample", "affine_grid", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
            "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "conv_tbc"]
