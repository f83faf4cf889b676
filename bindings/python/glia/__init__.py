"""glia for Python: torch.nn's API over libglia's C ABI (ctypes, no compile step).

    import glia
    x = glia.randn(4, 3, requires_grad=True)
    model = glia.nn.Sequential(glia.nn.Linear(3, 8), glia.nn.ReLU(), glia.nn.Linear(8, 1))
    loss = model(x).pow(2).mean()
    loss.backward()

A PyTorch script runs with ``import glia as torch`` (see docs/python.md).
"""

from . import _ffi  # noqa: F401  (loads libglia; ImportError with the paths tried otherwise)
from ._tensor import *  # noqa: F401,F403  Tensor, dtypes, factories, operators
from ._sortscan import *  # noqa: F401,F403  all, any, cumsum, sort, topk, median, ... (torch's return types)
from ._aliases import *  # noqa: F401,F403  clamp_max, ravel, unbind, ...: torch functions that are Tensor methods
from ._tensor_more import *  # noqa: F401,F403  positive, sgn, signbit, ...; Tensor.H, mH, sum_to_size, ...
from ._index_extra import *  # noqa: F401,F403  index_add, scatter_reduce, index_put, nonzero, ...: the index family
from ._special import *  # noqa: F401,F403  logaddexp, heaviside, frexp, polygamma, i0, sinc, igamma, ...
from ._stats import *  # noqa: F401,F403  searchsorted, unique, histc, diff, cross, cov, cdist, einsum, ...
from ._autograd import *  # noqa: F401,F403  no_grad, enable_grad, inference_mode, ...
from ._random import *  # noqa: F401,F403  Generator, randperm, default_generator
from ._sampling import *  # noqa: F401,F403  bernoulli, multinomial, normal, poisson; Tensor.random_, cauchy_, ...
from ._serialization import *  # noqa: F401,F403  save, load
from . import _out_inplace  # noqa: F401,E402  out= everywhere torch has it, in-place variants, aliases (issue 20)
from . import autograd, nn, optim, distributed  # noqa: F401,E402
from . import special  # noqa: F401,E402  torch.special
from . import utils  # noqa: F401,E402  torch.utils.data
from .nn.functional import conv_tbc  # noqa: F401,E402  torch.conv_tbc (h-grid)
from ._determinism import *  # noqa: F401,F403,E402  use_deterministic_algorithms, ... (h-cudnn)
from . import backends  # noqa: F401,E402  torch.backends.cuda.matmul / cudnn switches (h-cudnn)

__version__ = _ffi.C.glia_version_string().decode()
