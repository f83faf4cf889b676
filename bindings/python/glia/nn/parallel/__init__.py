"""glia.nn.parallel: DistributedDataParallel (torch.nn.parallel's), over glia_nn_distributed_data_parallel.

DataParallel is not here: the C API has no glia_data_parallel yet (issue 17).
"""

from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DistributedDataParallel"]
