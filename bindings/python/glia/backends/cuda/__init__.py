"""torch.backends.cuda (h-cudnn): matmul.allow_tf32 (default False, as torch's): whether float32 matrix
products on CUDA devices may use TF32 tensor cores (glia_set_allow_tf32(GLIA_TF32_MATMUL, ...))."""
from .. import _flags

__all__ = ["matmul"]


class cuBLASModule:
    """torch.backends.cuda.matmul: reads and sets cuBLAS's switches."""

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _flags.get_tf32(_flags.TF32_MATMUL)
        raise AssertionError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            return _flags.set_tf32(_flags.TF32_MATMUL, "set_allow_tf32_cublas", value)
        raise AssertionError("Unknown attribute " + name)


matmul = cuBLASModule()
