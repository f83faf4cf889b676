"""torch.nn's deprecated and legacy classes: Container, NLLLoss2d and CrossMapLRN2d (Lua torch's
cross-channel LRN, whose window differs from LocalResponseNorm's), written in Python over glia's ops."""

import warnings

from ... import _tensor as _t
from .builtin import NLLLoss
from .module import Module

__all__ = ["Container", "NLLLoss2d", "CrossMapLRN2d"]


class Container(Module):
    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("nn.Container is deprecated. All of it's functionality "
                      "is now implemented in nn.Module. Subclass that instead.")
        for key, value in kwargs.items():
            self.add_module(key, value)


class NLLLoss2d(NLLLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        warnings.warn("NLLLoss2d has been deprecated. "
                      "Please use NLLLoss instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/master/nn.html#torch.nn.NLLLoss for more details.")
        super().__init__(weight, size_average, ignore_index, reduce, reduction)

    def __repr__(self):
        return "NLLLoss2d" + super().__repr__()[len("NLLLoss"):]


class CrossMapLRN2d(Module):
    """torch.nn.CrossMapLRN2d: x * (k + alpha / size * S)^-beta over 4-D input, with S the running sum of
    squares over channels that torch's legacy implementation computes (its window recurrence, quirks
    included), differentiable through glia's autograd. The forward is torch's to the last bit; the
    gradient is the exact one of that forward, where torch 1.13's hand-written backward is not (it
    fails torch.autograd.gradcheck for size >= 2, and raises for size 1)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):  # noqa: A002
        if input.dim() != 4:
            raise ValueError("CrossMapLRN2d: Expected input to be 4D, got {}D instead.".format(input.dim()))
        channels = input.size(1)
        sq = input * input
        pre_pad = int((self.size - 1) / 2 + 1)
        first = sq.select(1, 0) * 0
        for c in range(min(pre_pad, channels)):
            first = first + sq.select(1, c)
        scales = [first]
        for c in range(1, channels):
            cur = scales[-1]
            if c < channels - pre_pad + 1:
                cur = cur + sq.select(1, c + pre_pad - 1)
            if c > pre_pad:
                cur = cur - sq.select(1, c - pre_pad)
            scales.append(cur)
        scale = _t.stack(scales, 1) * (self.alpha / self.size) + self.k
        return input * scale.pow(-self.beta)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(size=self.size, alpha=self.alpha, beta=self.beta,
                                                                   k=self.k)
