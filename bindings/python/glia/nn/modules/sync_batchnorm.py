"""torch.nn.SyncBatchNorm (torch 1.13's constructor, attributes, state-dict layout and repr) over
glia.distributed (docs/distributed.md, "SyncBatchNorm").

In training with a process group of more than one rank, the batch statistics are those of the
batch of all ranks together: each rank all-reduces its per-channel sum, sum of squares and count,
normalises with the global mean and biased variance, and updates the running statistics with the
global unbiased variance; backward all-reduces sum(dy) and sum(dy * (x - mean)) as torch's
SyncBatchNorm backward does, so outputs and input gradients equal those of BatchNorm on the
concatenated batch (weight and bias gradients are this rank's share, summed by DDP's all-reduce).
Unlike torch 1.13, which refuses CPU input, glia synchronises CPU tensors over Gloo. Otherwise (eval,
world size 1, or no initialised process group) the module is BatchNorm.
"""

from ... import distributed as dist
from ..._autograd import no_grad
from ..._tensor import ones, zeros, tensor, int64, float64, cat
from ...autograd import Function
from .. import functional as F
from ..parameter import Parameter
from .builtin import _factory
from .module import Module

__all__ = ["SyncBatchNorm"]


def _dims(x):
    return [0] + list(range(2, x.dim()))


def _per_channel(v, x):
    """A [C] tensor shaped to broadcast over x ([N, C, *])."""
    return v.reshape([1, -1] + [1] * (x.dim() - 2))


class _SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, eps, momentum, group, world_size):
        c = x.size(1)
        x64 = x.to(float64)
        dims = _dims(x)
        count = float(x.numel() // c)
        stats = cat([x64.sum(dims), (x64 * x64).sum(dims), tensor([count], dtype=float64)])
        dist.all_reduce(stats, op=dist.ReduceOp.SUM, group=group)
        n = stats[2 * c].item()
        mean = stats[:c] / n
        var = (stats[c:2 * c] / n - mean * mean).clamp(min=0.0)
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            with no_grad():
                running_mean.mul_(1.0 - momentum).add_((mean * momentum).to(running_mean.dtype))
                unbiased = var * (n / (n - 1)) if n > 1 else var
                running_var.mul_(1.0 - momentum).add_((unbiased * momentum).to(running_var.dtype))
        mean, invstd = mean.to(x.dtype), invstd.to(x.dtype)
        y = (x - _per_channel(mean, x)) * _per_channel(invstd, x)
        if weight is not None:
            y = y * _per_channel(weight, x)
        if bias is not None:
            y = y + _per_channel(bias, x)
        ctx.save_for_backward(x, weight, mean, invstd)
        ctx.sync = (group, n, weight is not None, bias is not None)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, invstd = ctx.saved_tensors[:4]
        group, n, has_weight, has_bias = ctx.sync
        c = x.size(1)
        dims = _dims(x)
        xmu = x - _per_channel(mean, x)
        sum_dy = dy.sum(dims)
        sum_dy_xmu = (dy * xmu).sum(dims)
        grad_weight = sum_dy_xmu * invstd if has_weight else None
        grad_bias = sum_dy if has_bias else None
        grad_input = None
        if ctx.needs_input_grad[0]:
            combined = cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(combined, op=dist.ReduceOp.SUM, group=group)
            sum_dy, sum_dy_xmu = combined[:c], combined[c:]
            scale = invstd if weight is None else invstd * weight
            grad_input = (dy - _per_channel(sum_dy / n, x)
                          - xmu * _per_channel(invstd * invstd * sum_dy_xmu / n, x)) * _per_channel(scale, x)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


class SyncBatchNorm(Module):
    """torch.nn.SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
    process_group=None, device=None, dtype=None)."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__()
        _factory(device, dtype)  # the binding's device check
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {} if dtype is None else {"dtype": dtype}
        if affine:
            self.weight = Parameter(ones(num_features, **kw))
            self.bias = Parameter(zeros(num_features, **kw))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **kw))
            self.register_buffer("running_var", ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.process_group = process_group

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            with no_grad():
                self.weight.fill_(1)
                self.bias.zero_()

    def extra_repr(self):
        return "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, " \
               "track_running_stats={track_running_stats}".format(**self.__dict__)

    def _check_input_dim(self, input):  # noqa: A002
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got {}D input)".format(input.dim()))

    def _check_non_zero_input_channels(self, input):  # noqa: A002
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            factor = 1.0 / self.num_batches_tracked.item() if self.momentum is None else self.momentum
        bn_training = True if self.training else (self.running_mean is None and self.running_var is None)
        running_mean = self.running_mean if not self.training or self.track_running_stats else None
        running_var = self.running_var if not self.training or self.track_running_stats else None
        group, world_size = None, 1
        if bn_training and self.training and dist.is_initialized():
            group = self.process_group or dist.group.WORLD
            world_size = dist.get_world_size(group)
        if world_size <= 1:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training, factor,
                                self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean, running_var, self.eps,
                                            factor, group, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """torch's SyncBatchNorm.convert_sync_batchnorm: every BatchNorm*d of the tree (module itself
        included) replaced by a SyncBatchNorm sharing its parameters and buffers."""
        from .builtin import _BatchNorm

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
