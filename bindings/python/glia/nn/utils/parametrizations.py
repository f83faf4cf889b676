"""torch.nn.utils.parametrizations (torch 1.13): orthogonal and spectral_norm as parametrizations
(state-dict keys parametrizations.weight.original, parametrizations.weight.0.base / ._u and ._v).

orthogonal's maps are composed of differentiable ops: matrix_exp by scaling and squaring of a Taylor
polynomial (matrix products only), householder as the product of the Householder reflections (torch's
linalg.householder_product); its right_inverse orthogonalises with a QR of the host copy (no gradient flows
there, as in torch), with torch's sign convention (Q * sgn(diag(R))). The "cayley" map needs
torch.linalg.solve, which glia does not have: orthogonal() refuses it with NotImplementedError."""

import enum
import math

import numpy as np

from ..._autograd import no_grad
from ..._tensor import Tensor
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm"]


def _glia():
    import glia

    return glia


def _normalize(x, eps):
    """F.normalize(x, dim=0, eps=eps)."""
    return x / _glia().clamp(x.norm(2, dim=0, keepdim=True), min=eps)


def _is_orthogonal(Q, eps=None):
    n, k = Q.size(-2), Q.size(-1)
    Id = _glia().eye(k, dtype=Q.dtype)
    eps = 10.0 * n * float(np.finfo(np.float32 if str(Q.dtype) == "torch.float32" else np.float64).eps)
    return _glia().allclose(Q.mT @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """Q of A's QR with torch's signs (Q * sgn(diag(R))), computed on the host without a gradient."""
    a = A.detach().numpy().astype(np.float64)
    q, r = np.linalg.qr(a)
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    q = q * np.expand_dims(d, -2)
    return _glia().from_numpy(np.ascontiguousarray(q)).to(A.dtype)


def _matrix_exp(A):
    """exp(A) of a square matrix (or batch): scaling and squaring of an 18-term Taylor polynomial, made of
    matrix products, so gradients flow as through torch.matrix_exp."""
    torch = _glia()
    n = A.size(-1)
    norm = float(A.detach().abs().sum(dim=-2).max()) if A.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0.5 else 0
    X = A / float(2 ** s)
    Id = torch.eye(n, dtype=A.dtype).expand(*A.shape)
    term = Id
    out = Id
    for i in range(1, 19):
        term = (term @ X) / float(i)
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def _householder_product(A, tau):
    """torch.linalg.householder_product(A, tau): the first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T
    with v_i = (0, ..., 0, 1, A[i+1:, i])."""
    torch = _glia()
    n, k = A.size(-2), A.size(-1)
    Q = torch.eye(n, dtype=A.dtype).expand(*A.shape[:-2], n, n)
    rows = torch.arange(n).unsqueeze(-1)
    for i in reversed(range(k)):
        below = (rows > i).to(A.dtype)
        unit = (rows == i).to(A.dtype)
        v = A[..., :, i:i + 1] * below + unit  # [..., n, 1]
        t = tau[..., i:i + 1].unsqueeze(-1)  # [..., 1, 1]
        Q = Q - (v * t) @ (v.mT @ Q)
    return Q[..., :, :k]


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        torch = _glia()
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == _OrthMaps.matrix_exp or self.orthogonal_map == _OrthMaps.cayley:
            X = X.tril()
            if n != k:
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            Q = _matrix_exp(A)  # cayley is refused by orthogonal()
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().to(Q.dtype).unsqueeze(-2)
        if "base" in self._buffers:
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map == _OrthMaps.cayley or self.orthogonal_map == _OrthMaps.matrix_exp:
                    raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                              "or the Cayley parametrizations when use_trivialization=False.")
                raise NotImplementedError("orthogonal(use_trivialization=False) with householder needs "
                                          "torch.geqrf, which glia does not have")
            if n == k:
                if not _is_orthogonal(Q):
                    Q = _make_orthogonal(Q)
                else:
                    Q = Q.clone()
            else:
                N = _glia().randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _glia().cat([Q, N], dim=-1)
                Q = _make_orthogonal(Q)
            self.base = Q
            neg_Id = _glia().zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'".format(module, name))
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    if orth_enum == _OrthMaps.cayley:
        raise NotImplementedError("orthogonal_map='cayley' needs torch.linalg.solve, which glia does not have; "
                                  "use 'matrix_exp' or 'householder'")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


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
