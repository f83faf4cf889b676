"""glia.utils: torch.utils's data pipeline (glia.utils.data)."""

from . import data  # noqa: F401
