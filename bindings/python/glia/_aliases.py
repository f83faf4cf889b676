"""torch functions that are Tensor methods in glia under the same name: torch.X(input, ...) is
input.X(...) (found missing by the OpInfo replay, docs/coverage.md)."""

from ._tensor import Tensor, _arg_error

__all__ = ["clamp_max", "clamp_min", "masked_fill", "ravel", "reciprocal", "unbind"]


def _check(fn, input):  # noqa: A002
    if not isinstance(input, Tensor):
        raise _arg_error(fn, "input", 1, input)


def clamp_max(input, max):  # noqa: A002
    _check("clamp_max", input)
    return input.clamp_max(max)


def clamp_min(input, min):  # noqa: A002
    _check("clamp_min", input)
    return input.clamp_min(min)


def masked_fill(input, mask, value):  # noqa: A002
    _check("masked_fill", input)
    return input.masked_fill(mask, value)


def ravel(input):  # noqa: A002
    _check("ravel", input)
    return input.ravel()


def reciprocal(input):  # noqa: A002
    _check("reciprocal", input)
    return input.reciprocal()


def unbind(input, dim=0):  # noqa: A002
    _check("unbind", input)
    return input.unbind(dim)
