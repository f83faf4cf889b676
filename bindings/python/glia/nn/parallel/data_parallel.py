"""torch.nn.DataParallel for glia's Python binding.

torch's DataParallel replicates a module over the visible CUDA devices of one process; with no GPU it
keeps the module and calls it directly (device_ids == []). glia's Python binding runs on the CPU only
(CUDA tensors are reached through the C API, docs/cuda.md), so this DataParallel is always that
pass-through: the same `module.` prefix in state dicts, the same forward, `device_ids == []`. For
several processes use DistributedDataParallel."""

from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if device_ids:
            raise RuntimeError("glia: DataParallel over devices {} is not available in the Python binding "
                               "(CPU only); pass no device_ids, or use DistributedDataParallel".format(device_ids))
        self.module = module
        self.device_ids = []
        self.dim = dim
        self.output_device = output_device

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
