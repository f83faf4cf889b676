"""The modules of issue 21's norms, dropouts and distances (glia_nn_batch_norm3d, glia_nn_instance_norm1d ...
glia_nn_feature_alpha_dropout) with torch 1.13's constructor signatures and defaults; forward, repr,
parameters and buffers are the library's."""

from ... import _ffi
from ..._ffi import C, byref
from .builtin import _BatchNorm, _Builtin, _factory

__all__ = [
    "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "CosineSimilarity",
    "PairwiseDistance", "Softsign", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
]


class BatchNorm3d(_BatchNorm):
    _fn = staticmethod(lambda: C.glia_nn_batch_norm3d)


class _InstanceNorm(_Builtin):
    _fn = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        o = _ffi.glia_instance_norm_options()
        C.glia_instance_norm_options_init(byref(o))
        o.eps = eps
        o.momentum = momentum
        o.affine = int(bool(affine))
        o.track_running_stats = int(bool(track_running_stats))
        self._make(type(self)._fn(), num_features, byref(o), _factory(device, dtype),
                   none_params=() if affine else ("weight", "bias"),
                   none_buffers=() if track_running_stats else ("running_mean", "running_var",
                                                                "num_batches_tracked"))
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats


class InstanceNorm1d(_InstanceNorm):
    _fn = staticmethod(lambda: C.glia_nn_instance_norm1d)


class InstanceNorm2d(_InstanceNorm):
    _fn = staticmethod(lambda: C.glia_nn_instance_norm2d)


class InstanceNorm3d(_InstanceNorm):
    _fn = staticmethod(lambda: C.glia_nn_instance_norm3d)


class LocalResponseNorm(_Builtin):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        self._make(C.glia_nn_local_response_norm, int(size), float(alpha), float(beta), float(k), None)
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k


class CosineSimilarity(_Builtin):
    def __init__(self, dim=1, eps=1e-8):
        self._make(C.glia_nn_cosine_similarity, int(dim), float(eps), None)
        self.dim, self.eps = dim, eps


class PairwiseDistance(_Builtin):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        self._make(C.glia_nn_pairwise_distance, float(p), float(eps), int(bool(keepdim)), None)
        self.norm, self.eps, self.keepdim = p, eps, keepdim


class Softsign(_Builtin):
    def __init__(self):
        self._make(C.glia_nn_softsign, None)


class _DropoutNd(_Builtin):
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self._make(type(self)._fn(), float(p), int(bool(inplace)), None)
        self.p, self.inplace = p, inplace


class Dropout1d(_DropoutNd):
    _fn = staticmethod(lambda: C.glia_nn_dropout1d)


class Dropout2d(_DropoutNd):
    _fn = staticmethod(lambda: C.glia_nn_dropout2d)


class Dropout3d(_DropoutNd):
    _fn = staticmethod(lambda: C.glia_nn_dropout3d)


class AlphaDropout(_DropoutNd):
    _fn = staticmethod(lambda: C.glia_nn_alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    _fn = staticmethod(lambda: C.glia_nn_feature_alpha_dropout)
