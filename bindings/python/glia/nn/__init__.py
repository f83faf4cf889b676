"""glia.nn: Module, Parameter, the built-in modules and containers, init and utils (torch.nn's API)."""

from .parameter import Parameter  # noqa: F401
from .parameter import UninitializedParameter, UninitializedBuffer  # noqa: F401  (lazy modules, issue 21)
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401  torch.nn.DataParallel

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "functional", "init", "utils", "parallel", "DataParallel"] + _modules_all
