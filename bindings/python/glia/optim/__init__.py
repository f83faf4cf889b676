"""glia.optim: SGD, Adam, AdamW, RMSprop and glia.optim.lr_scheduler (torch.optim's API)."""

from .optimizer import Optimizer, SGD, Adam, AdamW, RMSprop  # noqa: F401
from . import lr_scheduler  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]
