"""glia.utils.data: torch.utils.data's datasets, samplers and DataLoader, for glia tensors.

Map-style and iterable datasets, TensorDataset, Subset, ConcatDataset, random_split (lengths or
fractions), the samplers (Sequential, Random, SubsetRandom, WeightedRandom, Batch, Distributed) and a
DataLoader with torch's arguments, checks and messages (batching, shuffling with a generator,
drop_last, collate_fn, batch_size=None). Loading runs in the calling process: num_workers is accepted
(so torch scripts run unchanged) and no worker processes are started (docs/python.md)."""

from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,  # noqa: F401
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler)
from .distributed import DistributedSampler  # noqa: F401
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info",
           "random_split"]
