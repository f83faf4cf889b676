"""torch.nn's other losses (issue 21) over the C API's modules (glia_nn_kl_div_loss ...), with torch's
constructor signatures, defaults and attributes."""

import warnings

from ..._ffi import C, free_user_data, register
from .. import functional as _F
from .builtin import _Builtin, _reduction

__all__ = [
    "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
    "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
    "TripletMarginLoss", "TripletMarginWithDistanceLoss",
]


def _h(t):
    return t._h if t is not None else None


def _checked(reduction, size_average=None, reduce=None):
    """The reduction of the losses whose functional says "<reduction> is not valid"."""
    if size_average is None and reduce is None and reduction not in ("none", "mean", "sum"):
        raise ValueError(str(reduction) + " is not valid")
    return _reduction(reduction, size_average, reduce)


class KLDivLoss(_Builtin):
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        if size_average is None and reduce is None and reduction == "batchmean":
            r = _F._BATCHMEAN
        else:
            r = _reduction(reduction, size_average, reduce)
        self._make(C.glia_nn_kl_div_loss, r, int(bool(log_target)), None)
        self.reduction, self.log_target = reduction, log_target

    def __call__(self, *args, **kwargs):
        if self.reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release."
            )
        return super().__call__(*args, **kwargs)


class PoissonNLLLoss(_Builtin):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        self._make(C.glia_nn_poisson_nll_loss, int(bool(log_input)), int(bool(full)), float(eps),
                   _checked(reduction, size_average, reduce), None)
        self.log_input, self.full, self.eps, self.reduction = log_input, full, eps, reduction


class GaussianNLLLoss(_Builtin):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        self._make(C.glia_nn_gaussian_nll_loss, int(bool(full)), float(eps), _checked(reduction), None)
        self.full, self.eps, self.reduction = full, eps, reduction


class MarginRankingLoss(_Builtin):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_margin_ranking_loss, float(margin), _reduction(reduction, size_average, reduce), None)
        self.margin, self.reduction = margin, reduction


class HingeEmbeddingLoss(_Builtin):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_hinge_embedding_loss, float(margin), _reduction(reduction, size_average, reduce), None)
        self.margin, self.reduction = margin, reduction


class SoftMarginLoss(_Builtin):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_soft_margin_loss, _reduction(reduction, size_average, reduce), None)
        self.reduction = reduction


class MultiLabelSoftMarginLoss(_Builtin):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_multilabel_soft_margin_loss, _h(weight), _checked(reduction, size_average, reduce),
                   None)
        self.reduction = reduction


class CosineEmbeddingLoss(_Builtin):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_cosine_embedding_loss, float(margin), _reduction(reduction, size_average, reduce), None)
        self.margin, self.reduction = margin, reduction


class MultiMarginLoss(_Builtin):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
        self._make(C.glia_nn_multi_margin_loss, int(p), float(margin), _h(weight),
                   _reduction(reduction, size_average, reduce), None)
        self.p, self.margin, self.reduction = p, margin, reduction


class MultiLabelMarginLoss(_Builtin):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_multilabel_margin_loss, _reduction(reduction, size_average, reduce), None)
        self.reduction = reduction


class TripletMarginLoss(_Builtin):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        self._make(C.glia_nn_triplet_margin_loss, float(margin), float(p), float(eps), int(bool(swap)),
                   _reduction(reduction, size_average, reduce), None)
        self.margin, self.p, self.eps, self.swap, self.reduction = margin, p, eps, swap, reduction


class TripletMarginWithDistanceLoss(_Builtin):
    """distance_function: a callable on two glia Tensors (None: pairwise_distance), called by the
    library during forward; the module keeps it until the C module is destroyed."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        r = _reduction(reduction)
        if distance_function is None:
            self._make(C.glia_nn_triplet_margin_with_distance_loss, _F._no_distance, None, type(free_user_data)(),
                       float(margin), int(bool(swap)), r, None)
        else:
            key = register(distance_function)  # freed by free_user_data, also when this call fails
            self._make(C.glia_nn_triplet_margin_with_distance_loss, _F._distance_trampoline, key, free_user_data,
                       float(margin), int(bool(swap)), r, None)
        self.distance_function, self.margin, self.swap, self.reduction = distance_function, margin, swap, reduction
