"""torch's lazy modules (torch.nn.modules.lazy, 1.13) over the C API's glia_nn_lazy_* (docs/python.md).

A lazy module is the C library's (Note [Lazy modules] in src/nn/modules/lazy.h): its placeholders, the
inference of in_features / in_channels / num_features at the first forward, the materialisation in place
and the loading of checkpoints happen in C, so a lazy module inside a C container works the same. This
file mirrors the state on the Python objects as torch shows it: the placeholders are
UninitializedParameter / UninitializedBuffer objects that turn into Parameter / Tensor (the same objects,
as torch's materialize keeps them), the inferred size is set as torch sets it, and the module's class
becomes cls_to_become (LazyLinear -> Linear).
"""

import ctypes
import itertools
import warnings

from ..._ffi import C, check, byref, c_void_p
from ..._tensor import Tensor
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter, is_lazy
from .builtin import BatchNorm1d, BatchNorm2d, Conv2d, ConvTranspose2d, Linear
from .conv_nd import Conv1d, Conv3d, ConvTranspose1d, ConvTranspose3d
from .misc_nd import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = [
    "LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
    "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]


class _Handle:
    """torch's RemovableHandle of _load_hook (glia's lazy loading is part of load_state_dict in C)."""

    def remove(self):
        pass


class LazyModuleMixin:
    """torch.nn.modules.lazy.LazyModuleMixin for the built-in lazy modules."""

    cls_to_become = None

    def _make(self, fn, *args, none_params=(), none_buffers=()):
        # The ordinary constructor's call with its first argument (the size, 0) dropped, to the lazy one.
        lazy = getattr(C, fn.__name__.replace("glia_nn_", "glia_nn_lazy_", 1))
        super()._make(lazy, *args[1:], none_params=none_params, none_buffers=none_buffers)
        self._sync_lazy_entries()
        self.__dict__["_load_hook"] = _Handle()
        self.__dict__["_initialize_hook"] = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters)
        # Before the C module's own inferring hook: torch's exception classes for a bad first input.
        self.__dict__["_check_hook"] = self.register_forward_pre_hook(LazyModuleMixin._check_first_input,
                                                                      prepend=True)
        warnings.warn("Lazy modules are a new feature under heavy development so changes to the API or "
                      "functionality can happen at any moment.")

    def _sync_lazy_entries(self):
        """Gives each parameter and buffer object the class of its C state (placeholder or not)."""
        flag = ctypes.c_int32()
        for store, lazy_cls, plain_cls in (("_parameters", UninitializedParameter, Parameter),
                                           ("_buffers", UninitializedBuffer, Tensor)):
            for name, t in self.__dict__[store].items():
                if t is None or type(t) not in (lazy_cls, plain_cls):
                    continue
                check(C.glia_module_is_uninitialized(self._h, name.encode(), byref(flag)))
                t.__class__ = lazy_cls if flag.value else plain_cls

    def has_uninitialized_params(self):
        for t in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(t):
                return True
        return False

    def initialize_parameters(self, *args, **kwargs):
        """torch's initialize_parameters(input): infers the size from the input and materialises."""
        had = self.has_uninitialized_params()
        hs = (c_void_p * max(len(args), 1))(*[a._h if isinstance(a, Tensor) else None for a in args])
        check(C.glia_module_initialize_parameters(self._h, hs, len(args)))
        if had:
            self._set_inferred_size(args[0])
        self._sync_lazy_entries()

    @staticmethod
    def _check_first_input(module, input):  # noqa: A002
        if module.has_uninitialized_params() and input and isinstance(input[0], Tensor):
            module._check_lazy_input(input[0])

    def _check_lazy_input(self, x):
        if x.dim() < self._min_dims:
            raise IndexError("tuple index out of range")

    _min_dims = 1

    @staticmethod
    def _infer_parameters(module, input):  # noqa: A002 - torch's name
        # Runs after the C module's own pre-hook has materialised the placeholders.
        if module.has_uninitialized_params():  # the Python objects still show the state before the call
            module._set_inferred_size(input[0])
        module._sync_lazy_entries()
        module._initialize_hook.remove()
        module._check_hook.remove()
        module._load_hook.remove()
        del module.__dict__["_check_hook"]
        del module.__dict__["_initialize_hook"]
        del module.__dict__["_load_hook"]
        if module.cls_to_become is not None:
            ctor = module.__dict__.get("_ctor")
            if ctor is not None:  # copy.deepcopy rebuilds the ordinary class: its size comes first
                module.__dict__["_ctor"] = ((module._inferred_size(),) + tuple(ctor[0]), ctor[1])
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """torch.nn.LazyLinear(out_features, bias=True, device=None, dtype=None)."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__.__wrapped__(self, 0, out_features, bias, device, dtype)

    def _set_inferred_size(self, x):
        self.in_features = x.shape[-1]

    def _inferred_size(self):
        return self.in_features


class _LazyConvXdMixin(LazyModuleMixin):
    def _check_lazy_input(self, x):
        n = len(self.kernel_size)
        if x.dim() not in (n + 1, n + 2):
            raise RuntimeError("Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: "
                               "torch.Size({})".format(n + 1, n + 2, type(self).__name__, list(x.shape)))
        if self._in_channels_of(x) % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")

    def _in_channels_of(self, x):
        return x.shape[1] if x.dim() == len(self.kernel_size) + 2 else x.shape[0]

    def _set_inferred_size(self, x):
        self.in_channels = self._in_channels_of(x)

    def _inferred_size(self):
        return self.in_channels


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    cls_to_become = Conv1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        Conv1d.__init__.__wrapped__(self, 0, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                                    padding_mode, device, dtype)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        Conv2d.__init__.__wrapped__(self, 0, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                                    padding_mode, device, dtype)


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    cls_to_become = Conv3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        Conv3d.__init__.__wrapped__(self, 0, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                                    padding_mode, device, dtype)


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        ConvTranspose1d.__init__.__wrapped__(self, 0, out_channels, kernel_size, stride, padding, output_padding,
                                             groups, bias, dilation, padding_mode, device, dtype)


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        ConvTranspose2d.__init__.__wrapped__(self, 0, out_channels, kernel_size, stride, padding, output_padding,
                                             groups, bias, dilation, padding_mode, device, dtype)
        # torch's attributes that glia's ConvTranspose2d binding does not set (its first-input check reads groups)
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation, self.padding_mode = groups, dilation, padding_mode


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    cls_to_become = ConvTranspose3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        ConvTranspose3d.__init__.__wrapped__(self, 0, out_channels, kernel_size, stride, padding, output_padding,
                                             groups, bias, dilation, padding_mode, device, dtype)


class _LazyNormBase(LazyModuleMixin):
    _min_dims = 2

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        self.cls_to_become.__init__.__wrapped__(self, 0, eps, momentum, affine, track_running_stats, device,
                                                dtype)

    def _set_inferred_size(self, x):
        self.num_features = x.shape[1]

    def _inferred_size(self):
        return self.num_features


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    cls_to_become = BatchNorm1d
    __init__ = _LazyNormBase.__init__  # here, so that the binding records its arguments


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    cls_to_become = BatchNorm2d
    __init__ = _LazyNormBase.__init__  # here, so that the binding records its arguments


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    cls_to_become = BatchNorm3d
    __init__ = _LazyNormBase.__init__  # here, so that the binding records its arguments


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    cls_to_become = InstanceNorm1d
    __init__ = _LazyNormBase.__init__  # here, so that the binding records its arguments


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    cls_to_become = InstanceNorm2d
    __init__ = _LazyNormBase.__init__  # here, so that the binding records its arguments


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
    __init__ = _LazyNormBase.__init__  # here, so that the binding records its arguments
