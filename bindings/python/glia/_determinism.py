"""torch.use_deterministic_algorithms and its queries (h-cudnn), over glia_set_deterministic_algorithms.

glia's CPU kernels are deterministic whatever the flag says; on CUDA it makes cuDNN's convolutions choose
deterministic algorithms only (docs/cuda.md, "Determinism and TF32").
"""
import builtins

from ._ffi import C, check

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled"]

_warn_only = False


def _bool_arg(fn, name, position, value):
    if not isinstance(value, builtins.bool):
        raise TypeError("%s(): argument '%s' (position %d) must be bool, not %s"
                        % (fn, name, position, type(value).__name__))


def use_deterministic_algorithms(mode, *, warn_only=False):
    """torch.use_deterministic_algorithms(mode, *, warn_only=False). glia raises no error for a
    nondeterministic op (it has none that it would refuse), so warn_only is only kept and reported."""
    global _warn_only
    _bool_arg("_set_deterministic_algorithms", "mode", 1, mode)
    _bool_arg("_set_deterministic_algorithms", "warn_only", 2, warn_only)
    check(C.glia_set_deterministic_algorithms(1 if mode else 0))
    _warn_only = warn_only


def are_deterministic_algorithms_enabled():
    """torch.are_deterministic_algorithms_enabled()."""
    return builtins.bool(C.glia_get_deterministic_algorithms())


def is_deterministic_algorithms_warn_only_enabled():
    """torch.is_deterministic_algorithms_warn_only_enabled()."""
    return _warn_only
