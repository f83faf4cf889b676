"""torch.special: the names glia has (gammaln, digamma/psi, polygamma, multigammaln, erf, erfc, erfinv,
expit, logit, xlogy, i0, i1, sinc, gammainc, gammaincc, exp2, expm1, log1p, logsumexp ...)."""

from . import _special, _tensor

__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "erf", "erfc", "erfinv", "expit", "logit",
           "xlogy", "i0", "i1", "sinc", "gammainc", "gammaincc", "exp2", "expm1", "log1p", "logsumexp", "round"]

gammaln = _tensor.lgamma
digamma = psi = _tensor.digamma
polygamma = _special.polygamma
erf = _tensor.erf
erfc = _tensor.erfc
erfinv = _tensor.erfinv
expit = _tensor.sigmoid
xlogy = _tensor.xlogy
exp2 = _tensor.exp2
expm1 = _tensor.expm1
log1p = _tensor.log1p
logsumexp = _tensor.logsumexp
round = _tensor.round  # noqa: A001
i0 = _special.i0
i1 = _special._special_i1
sinc = _special.sinc
gammainc = _special.igamma
gammaincc = _special.igammac


def multigammaln(input, p):  # noqa: A002
    return _special.mvlgamma(input, p)


def logit(input, eps=None):  # noqa: A002
    return _tensor.logit(input, eps)
