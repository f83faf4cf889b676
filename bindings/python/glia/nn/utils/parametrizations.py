"""torch.nn.utils.parametrizations (torch 1.13): spectral_norm as a parametrization (state-dict keys
parametrizations.weight.original, parametrizations.weight.0._u and ._v).

orthogonal is absent: its maps and its right_inverse need QR (torch.geqrf,
torch.linalg.householder_product), torch.linalg.solve (cayley) and torch.matrix_exp, which glia's binding
does not have."""

from ..._autograd import no_grad
from ..._tensor import Tensor
from ..modules.module import Module
from . import parametrize

__all__ = ["spectral_norm"]


def _glia():
    import glia

    return glia


def _normalize(x, eps):
    """F.normalize(x, dim=0, eps=eps)."""
    return x / _glia().clamp(x.norm(2, dim=0, keepdim=True), min=eps)


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             "got n_power_iterations={}".format(n_power_iterations))
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            with no_grad():
                u = weight_mat.new_empty(h).normal_(0, 1)
                v = weight_mat.new_empty(w).normal_(0, 1)
                self.register_buffer("_u", _normalize(u, self.eps))
                self.register_buffer("_v", _normalize(v, self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        assert weight.ndim > 1
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        assert weight_mat.ndim > 1
        torch = _glia()
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(_normalize(torch.mv(weight_mat, self._v), self.eps))
                self._v.copy_(_normalize(torch.mv(weight_mat.t(), self._u), self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return _normalize(weight, self.eps)
        torch = _glia()
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = torch.dot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'".format(module, name))
    if dim is None:
        dim = 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
