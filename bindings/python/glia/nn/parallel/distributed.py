"""torch.nn.parallel.DistributedDataParallel over glia_nn_distributed_data_parallel (docs/distributed.md).

The C module does the work: at construction it checks that every rank has the same parameters and
broadcasts rank 0's parameters and buffers; in backward it all-reduces the gradients bucket by bucket
while backward runs, and when backward() returns every .grad holds the average over the ranks. Its child
"module" is the wrapped module, so state-dict keys are "module.<name>" as torch's.
"""

import contextlib
import ctypes
import inspect
import threading
import warnings
import weakref

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
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is deprecated. "
                          "Please avoid using it.")
        group = _dist._group(process_group)  # the default group's error when none was initialised
        o = _ffi.glia_ddp_options()
        C.glia_ddp_options_init(byref(o))
        o.bucket_cap_mb = float(bucket_cap_mb)
        o.find_unused_parameters = int(bool(find_unused_parameters))
        o.broadcast_buffers = int(bool(broadcast_buffers))
        o.gradient_as_bucket_view = int(bool(gradient_as_bucket_view))
        o.static_graph = int(bool(static_graph))
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
        d["gradient_as_bucket_view"] = bool(gradient_as_bucket_view)
        d["static_graph"] = bool(static_graph)
        d["_sync"] = True

    def _set_static_graph(self):
        """torch's _set_static_graph(): static_graph=True after construction, before the first iteration."""
        if self.static_graph:
            warnings.warn("You've set static_graph to be True, no need to set it again.")
            return
        _dist._check(C.glia_ddp_set_static_graph(self._h))
        self.__dict__["static_graph"] = True
        if self.find_unused_parameters:
            warnings.warn(
                "You passed find_unused_parameters=true to DistributedDataParallel, "
                "`_set_static_graph` will detect unused parameters automatically, so "
                "you do not need to set find_unused_parameters=true, just be sure these "
                "unused parameters will not change during training loop while calling "
                "`_set_static_graph`.")

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

    # -- communication hooks ---------------------------------------------------------
    def register_comm_hook(self, state, hook):
        """torch's register_comm_hook: hook(state, bucket) -> a glia.futures.Future of the bucket's averaged
        gradients, called for each bucket when it is ready (bucket: glia.distributed.GradBucket). Once only.
        torch's default_hooks (allreduce_hook, fp16_compress_hook, bf16_compress_hook) given as they are, with
        state None or this module's group, run as glia's built-in C hooks."""
        self._check_comm_hook(hook)
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks as dh

        builtin = {dh.allreduce_hook: _dist.BuiltinCommHookType.ALLREDUCE,
                   dh.fp16_compress_hook: _dist.BuiltinCommHookType.FP16_COMPRESS,
                   dh.bf16_compress_hook: _dist.BuiltinCommHookType.BF16_COMPRESS}.get(hook)
        if builtin is not None and (state is None or state is self.process_group):
            self._register_builtin_comm_hook(builtin)
            return
        params = [p for p in self._modules["module"].parameters() if p.requires_grad]
        key = _ffi.register((state, hook, params, weakref.ref(self)))
        _dist._check(C.glia_ddp_register_comm_hook(self._h, _comm_hook_trampoline, key, _ffi.free_user_data))

    def _register_builtin_comm_hook(self, comm_hook_type):
        if not isinstance(comm_hook_type, _dist.BuiltinCommHookType):
            raise TypeError("_register_builtin_comm_hook(): incompatible function arguments: expected a "
                            "BuiltinCommHookType, got {}".format(type(comm_hook_type).__name__))
        _dist._check(C.glia_ddp_register_builtin_comm_hook(self._h, comm_hook_type.value))

    def _check_comm_hook(self, hook):
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        try:
            sig = inspect.signature(hook)
        except (TypeError, ValueError):
            return
        from ...futures import Future

        bucket = sig.parameters.get("bucket")
        if bucket is not None and bucket.annotation not in (inspect.Parameter.empty, _dist.GradBucket):
            raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
        if sig.return_annotation not in (inspect.Signature.empty, Future):
            raise ValueError("Communication hook: return annotation should be torch.futures.Future[torch.Tensor].")

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



def _comm_hook_body(user_data, bucket_h, index, count):
    state, hook, params, ddp_ref = _ffi.lookup(user_data)
    from ..._tensor import Tensor

    _ffi.check(C.glia_tensor_retain(bucket_h))
    buffer = Tensor._wrap(bucket_h)
    ddp = ddp_ref()
    mine = []
    if ddp is not None:
        n = ctypes.c_int64()
        _dist._check(C.glia_ddp_bucket_parameters(ddp._h, index, None, 0, byref(n), None))
        idx = (ctypes.c_int64 * max(1, n.value))()
        _dist._check(C.glia_ddp_bucket_parameters(ddp._h, index, idx, n.value, byref(n), None))
        mine = [params[i] for i in idx[:n.value]]
    bucket = _dist.GradBucket(index, buffer, count, mine)
    fut = hook(state, bucket)
    result = fut.wait() if hasattr(fut, "wait") else fut
    if isinstance(result, (list, tuple)) and len(result) == 1:
        result = result[0]
    if not isinstance(result, Tensor):
        raise TypeError("the communication hook's future gave {}, expected a Tensor".format(type(result).__name__))
    if result._h != buffer._h:
        buffer.copy_(result.reshape(buffer.shape))


_comm_hook_trampoline = _ffi.glia_ddp_comm_hook_fn(_ffi.guard(_comm_hook_body))
