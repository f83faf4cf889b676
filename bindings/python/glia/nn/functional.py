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
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("glia: embedding(scale_grad_by_freq=True / sparse=True) is not supported")
    pi = None if padding_idx is None else byref(c_int64(int(padding_idx)))
    mn = None if max_norm is None else byref(c_double(float(max_norm)))
    return _new(C.glia_embedding, _tensor_arg("embedding", "weight", 2, weight),
                _tensor_arg("embedding", "input", 1, input), pi, mn, float(norm_type))


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
