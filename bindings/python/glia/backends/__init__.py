"""torch.backends (h-cudnn): the switches of the CUDA backend's libraries, cuBLAS (backends.cuda.matmul)
and cuDNN (backends.cudnn)."""
from . import cuda, cudnn  # noqa: F401
