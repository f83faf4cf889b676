"""torch.nn.utils.skip_init: a module built without running its parameters' initialisation (torch builds
it on the meta device and calls to_empty; glia's built-ins take the factory option skip_init)."""

import inspect

from ..modules import builtin as _builtin
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    if not isinstance(module_cls, type) or not issubclass(module_cls, Module):
        raise RuntimeError("Expected a Module; got {}".format(module_cls))
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    with _builtin.skipping_init():
        return module_cls(*args, **kwargs)
