"""torch.utils.data.sampler for glia: the index samplers of the DataLoader."""

import numbers

from ..._random import randperm
from ..._stats import searchsorted
from ..._tensor import float64, rand, tensor

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


class Sampler:
    """Yields indices (or lists of indices) of a dataset."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation per pass (or num_samples draws with replacement). Without a generator the
    draws come from glia's generator, so glia.manual_seed makes the order reproducible."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            "replacement={}".format(self.replacement))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(self.num_samples))

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def _uniform_ints(self, n, high):
        if self.generator is not None:
            return [int(u * high) for u in self.generator._uniform(n)]
        return [min(int(u * high), high - 1) for u in rand(n, dtype=float64).tolist()]

    def __iter__(self):
        n = len(self.data_source)
        if self.replacement:
            yield from self._uniform_ints(self.num_samples, n)
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=self.generator).tolist()
        yield from randperm(n, generator=self.generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Indices 0 .. len(weights)-1 drawn with probabilities proportional to weights (torch.multinomial's
    rule: with replacement, or without, each index at most once)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(num_samples))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             "replacement={}".format(replacement))
        w = weights.tolist() if hasattr(weights, "tolist") else list(weights)
        if len(w) == 0 or any(x < 0 for x in w) or sum(w) <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > sum(1 for x in w if x > 0):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        self.weights = tensor(w, dtype=float64)
        self.num_samples = int(num_samples)
        self.replacement = replacement
        self.generator = generator

    def _uniform(self, n):
        return self.generator._uniform(n) if self.generator is not None else rand(n, dtype=float64).tolist()

    def __iter__(self):
        w = self.weights.tolist()
        if self.replacement:
            cdf = self.weights.cumsum(0)
            u = tensor(self._uniform(self.num_samples), dtype=float64) * float(cdf[-1])
            idx = searchsorted(cdf, u, right=True).clamp_max(len(w) - 1).tolist()
            yield from idx
            return
        w = list(w)
        for _ in range(self.num_samples):  # sequential draws without replacement
            total = sum(w)
            r = self._uniform(1)[0] * total
            acc, pick = 0.0, None
            for i, x in enumerate(w):
                if x <= 0:
                    continue
                acc += x
                pick = i
                if r < acc:
                    break
            w[pick] = 0.0
            yield pick

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, "
                             "but got batch_size={}".format(batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             "drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
