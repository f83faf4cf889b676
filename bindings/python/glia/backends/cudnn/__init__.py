"""torch.backends.cudnn (h-cudnn): allow_tf32 (default True, as torch's: float32 convolutions on CUDA may use
TF32 tensor cores) and deterministic (default False: with True, cuDNN's convolutions choose deterministic
algorithms only, as with glia.use_deterministic_algorithms(True)). Process-wide, over the C API's
glia_set_allow_tf32(GLIA_TF32_CUDNN, ...) and glia_set_cudnn_deterministic."""
import sys
import types

from .. import _flags


class CudnnModule(types.ModuleType):
    """The module itself, with torch's flags as properties."""

    @property
    def allow_tf32(self):
        return _flags.get_tf32(_flags.TF32_CUDNN)

    @allow_tf32.setter
    def allow_tf32(self, value):
        # torch 1.13 names the cuBLAS setter in this message too.
        _flags.set_tf32(_flags.TF32_CUDNN, "set_allow_tf32_cublas", value)

    @property
    def deterministic(self):
        return _flags.get_cudnn_deterministic()

    @deterministic.setter
    def deterministic(self, value):
        _flags.set_cudnn_deterministic(value)


sys.modules[__name__].__class__ = CudnnModule
