"""glia.optim: SGD, Adam, AdamW, RMSprop, Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam, Rprop,
LBFGS and glia.optim.lr_scheduler (torch.optim's API)."""

from .optimizer import Optimizer, SGD, Adam, AdamW, RMSprop  # noqa: F401
from .optimizer_extra import Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam, Rprop, LBFGS  # noqa: F401
from . import lr_scheduler  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adadelta", "Adagrad", "Adamax", "ASGD", "NAdam",
           "RAdam", "Rprop", "LBFGS", "lr_scheduler"]
