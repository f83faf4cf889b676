"""glia.distributed.algorithms: torch.distributed.algorithms' DDP communication hooks."""
