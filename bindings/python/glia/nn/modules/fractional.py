"""torch.nn.FractionalMaxPool2d and FractionalMaxPool3d (torch 1.13's arguments, checks, buffer and repr),
written in Python over glia's fractional_max_pool2d / 3d (glia_fractional_max_pool2d / 3d)."""

import numbers

from .. import functional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(v, n, kind):
    if isinstance(v, numbers.Number):
        return (kind(v),) * n
    return tuple(kind(x) for x in v)


class _FractionalMaxPoolNd(Module):
    _k = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        k, name = self._k, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, k, int)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, k, int) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, k, float) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("%s requires specifying either an output size, or a pooling ratio" % name)
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < r < 1 for r in self.output_ratio):
                raise ValueError("output_ratio must be between 0 and 1 (got {})".format(output_ratio))

    def forward(self, input):  # noqa: A002
        fn = F.fractional_max_pool2d if self._k == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _k = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _k = 3
