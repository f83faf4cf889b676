"""torch.nn.SyncBatchNorm (torch 1.13's constructor, attributes, state-dict layout and repr) over the C
API's glia_nn_sync_batch_norm (docs/distributed.md, "SyncBatchNorm").

In training with a process group of more than one rank, the batch statistics are those of the batch
of all ranks together (the C module all-gathers each rank's per-channel mean, sum of squared
deviations and count, and backward all-reduces their gradients, torch's sum_dy / sum_dy_xmu
all-reduce), so outputs and input gradients equal those of BatchNorm on the concatenated batch (weight
and bias gradients are this rank's share, summed by DDP's all-reduce). Unlike torch 1.13, which
refuses CPU input, glia synchronises CPU tensors over Gloo. Otherwise (eval, world size 1, or no
initialised process group) the module is BatchNorm. The group is resolved at each call as torch
does (`process_group`, else the default group) and handed to the C module by a forward pre-hook.
"""

from ... import distributed as dist
from ..._ffi import C, check, byref
from .builtin import _BatchNorm, _bn_options, _factory

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """torch.nn.SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
    process_group=None, device=None, dtype=None)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        o = _bn_options(eps, momentum, affine, track_running_stats)
        self._make(C.glia_nn_sync_batch_norm, num_features, byref(o), None, _factory(device, dtype),
                   none_params=() if affine else ("weight", "bias"),
                   none_buffers=() if track_running_stats else ("running_mean", "running_var",
                                                                "num_batches_tracked"))
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.process_group = process_group
        self.__dict__["_c_group"] = None
        self.__dict__["_group_hook"] = self.register_forward_pre_hook(SyncBatchNorm._before_forward, prepend=True)

    @staticmethod
    def _before_forward(module, input):  # noqa: A002
        x = input[0] if input else None
        if x is not None:
            module._check_input_dim(x)
            module._check_non_zero_input_channels(x)
        group = None
        if module.training and dist.is_initialized():
            group = dist._group(module.process_group or dist.group.WORLD)
        if group is not module.__dict__["_c_group"]:
            check(C.glia_nn_sync_batch_norm_set_process_group(module._h, group._h if group is not None else None))
            module.__dict__["_c_group"] = group  # also keeps the group alive while the C module holds it

    def _check_input_dim(self, input):  # noqa: A002
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got {}D input)".format(input.dim()))

    def _check_non_zero_input_channels(self, input):  # noqa: A002
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """torch's SyncBatchNorm.convert_sync_batchnorm: every BatchNorm*d of the tree (module itself
        included) replaced by a SyncBatchNorm sharing its parameters and buffers."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group)
            if module.affine:
                module_output.weight = module.weight
                module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
