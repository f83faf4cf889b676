from .module import Module, RemovableHandle  # noqa: F401
from .builtin import *  # noqa: F401,F403
from .builtin import __all__ as _builtin_all
from .container import *  # noqa: F401,F403
from .container import __all__ as _container_all
from .rnn import *  # noqa: F401,F403
from .rnn import __all__ as _rnn_all
from .resample import *  # noqa: F401,F403
from .resample import __all__ as _resample_all
from .loss import *  # noqa: F401,F403
from .loss import __all__ as _loss_all
from .pooling import *  # noqa: F401,F403
from .pooling import __all__ as _pooling_all
from .activation import *  # noqa: F401,F403
from .activation import __all__ as _activation_all
from .conv_nd import *  # noqa: F401,F403
from .conv_nd import __all__ as _conv_nd_all
from .misc_nd import *  # noqa: F401,F403
from .misc_nd import __all__ as _misc_nd_all

__all__ = (["Module"] + _builtin_all + _container_all + _rnn_all + _resample_all + _loss_all + _pooling_all
           + _activation_all + _conv_nd_all + _misc_nd_all)
from .transformer import *  # noqa: F401,F403,E402
from .transformer import __all__ as _transformer_all  # noqa: E402
__all__ += _transformer_all
from .legacy import *  # noqa: F401,F403,E402
from .legacy import __all__ as _legacy_all  # noqa: E402
__all__ += _legacy_all
from .lazy import *  # noqa: F401,F403,E402
from .lazy import __all__ as _lazy_all  # noqa: E402
__all__ += _lazy_all
from .sync_batchnorm import *  # noqa: F401,F403,E402
from .sync_batchnorm import __all__ as _sync_batchnorm_all  # noqa: E402
__all__ += _sync_batchnorm_all
from .sparse_ctc import *  # noqa: F401,F403,E402
from .sparse_ctc import __all__ as _sparse_ctc_all  # noqa: E402
__all__ += _sparse_ctc_all
from .fractional import *  # noqa: F401,F403,E402
from .fractional import __all__ as _fractional_all  # noqa: E402
__all__ += _fractional_all
