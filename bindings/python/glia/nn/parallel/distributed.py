"""torch.nn.parallel.DistributedDataParallel over glia_nn_distributed_data_parallel (docs/distributed.md).

The C module does the work: at construction it checks that every rank has the same parameters and
broadcasts rank 0's parameters and buffers; in backward it all-reduces the gradients bucket by bucket
while backward runs, and when backward() returns every .grad holds the average over the ranks. Its child
"module" is the wrapped module, so state-dict keys are "module.<name>" as torch's.
"""

import contextlib
import threading
import warnings

from ... import _ffi
from ..._ffi import C, c_void_p, byref
from ..modules.module import Module, _Frame, _tensors_of
from ... import distributed as _dist

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        if not isinstance(module, Module):
            raise TypeError("{} is not a Module subclass".format(type(module).__name__))
        params = list(module.parameters())
        if not any(p.requires_grad for p in params):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if device_ids or output_device:  # every glia module here is a CPU module
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids {}, output_device {}, "
                "and module parameters {}.".format(device_ids, output_device, {p.device for p in params}))
        if static_graph:
            raise RuntimeError("glia: DistributedDataParallel(static_graph=True) is not supported yet")
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is deprecated. "
                          "Please avoid using it.")
        group = _dist._group(process_group)  # the default group's error when none was initialised
        o = _ffi.glia_ddp_options()
        C.glia_ddp_options_init(byref(o))
        o.bucket_cap_mb = float(bucket_cap_mb)
        o.find_unused_parameters = int(bool(find_unused_parameters))
        o.broadcast_buffers = int(bool(broadcast_buffers))
        out = c_void_p()
        _dist._check(C.glia_nn_distributed_data_parallel(module._h, group._h, byref(o), byref(out)))
        self._adopt(out.value)
        self._modules["module"] = module  # the C module's child "module"
        d = self.__dict__
        d["process_group"] = group
        d["device_ids"] = None
        d["output_device"] = None
        d["dim"] = dim
        d["broadcast_buffers"] = bool(broadcast_buffers)
        d["find_unused_parameters"] = bool(find_unused_parameters)
        d["bucket_bytes_cap"] = int(bucket_cap_mb * 1024 * 1024)
        # Accepted for torch's signature; the gradients stay copies of the buckets (same values, more memory).
        d["gradient_as_bucket_view"] = bool(gradient_as_bucket_view)
        d["static_graph"] = False
        d["_sync"] = True

    @property
    def require_backward_grad_sync(self):
        return self.__dict__["_sync"]

    @require_backward_grad_sync.setter
    def require_backward_grad_sync(self, flag):
        _dist._check(C.glia_ddp_set_require_backward_grad_sync(self._h, int(bool(flag))))
        self.__dict__["_sync"] = bool(flag)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward inside only accumulates local gradients; the first synchronised backward after it
        averages the accumulated ones (torch's no_sync)."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def __call__(self, *args, **kwargs):
        # The call goes through the C module (buffers broadcast, then the child called from C); the
        # child's frame carries the Python arguments (keywords and non-tensors included) to its forward,
        # and its Python result comes back as it was.
        inner = self._modules["module"]
        frame = _Frame(args, kwargs)
        tid = threading.get_ident()
        frames = inner.__dict__["_frames"].setdefault(tid, [])
        frames.append(frame)
        try:
            res = Module.__call__(self, *args)
        finally:
            frames.pop()
            if not frames:
                inner.__dict__["_frames"].pop(tid, None)
        if frame.entered and frame.result_handles is not None:
            if [t._h if t is not None else None for t in _tensors_of(res)] == frame.result_handles or (
                    res is None and not frame.result_handles):
                return frame.result
        return res

    _call_impl = __call__

    def forward(self, *inputs, **kwargs):
        return self(*inputs, **kwargs)

    def __deepcopy__(self, memo):
        raise TypeError("glia: a DistributedDataParallel cannot be copied; copy its .module and wrap the copy")
