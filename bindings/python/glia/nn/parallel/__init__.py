"""glia.nn.parallel: DistributedDataParallel (torch.nn.parallel's, over glia_nn_distributed_data_parallel)
and DataParallel (torch's CPU behaviour: a pass-through wrapper, data_parallel.py)."""

from .data_parallel import DataParallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel"]
