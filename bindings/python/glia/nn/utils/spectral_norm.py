"""torch.nn.utils.spectral_norm / remove_spectral_norm (torch 1.13's hook form) over
glia_nn_utils_spectral_norm: parameter name_orig, buffers name_u and name_v, and a forward pre-hook in the C
module (power iteration in training mode) that recomputes `name` before every call."""

from ..._ffi import C, check
from . import _sync
from .weight_norm import _call

__all__ = ["spectral_norm", "remove_spectral_norm"]


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    weight = module._parameters.get(name)
    _call(module, name, C.glia_nn_utils_spectral_norm(module._h, name.encode(), int(n_power_iterations), float(eps),
                                                      0 if dim is None else 1, 0 if dim is None else int(dim)))
    _sync.sync(module, (name, name + "_orig", name + "_u", name + "_v"), same={name + "_orig": weight})
    module.__dict__.pop(name, None)
    return module


def remove_spectral_norm(module, name="weight"):
    check(C.glia_nn_utils_remove_spectral_norm(module._h, name.encode()), ValueError)
    _sync.sync(module, (name, name + "_orig", name + "_u", name + "_v"))
    return module
