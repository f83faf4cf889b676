"""glia.distributed.algorithms.ddp_comm_hooks: torch's default DDP communication hooks (default_hooks)."""

from . import default_hooks  # noqa: F401

__all__ = ["default_hooks"]
