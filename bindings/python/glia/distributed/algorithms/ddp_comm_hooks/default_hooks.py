"""torch.distributed.algorithms.ddp_comm_hooks.default_hooks over glia.distributed.

The hooks take (process_group, bucket) as torch's: process_group None means the default group. Given
to DistributedDataParallel.register_comm_hook as they are (not wrapped), allreduce_hook,
fp16_compress_hook and bf16_compress_hook run as glia's built-in C hooks (the same arithmetic, without
a Python call per bucket); called from a hook of your own they run here.
"""

from ... import all_reduce, _group

# torch's fp16_compress_wrapper / bf16_compress_wrapper (which swap the bucket's buffer for a 16-bit one)
# are not here: glia's buckets keep their dtype.
__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


def _world(process_group):
    return _group(process_group)


def _allreduce_fut(process_group, tensor):
    """Averages `tensor` by an all-reduce; a future of the averaged tensor."""
    g = _world(process_group)
    tensor.div_(g.size())
    return all_reduce(tensor, group=g, async_op=True).get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """DDP's default: the bucket averaged over the group."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    import glia

    g = _world(process_group)
    compressed = bucket.buffer().to(getattr(glia, dtype)).div_(g.size())
    fut = all_reduce(compressed, group=g, async_op=True).get_future()

    def decompress(fut):
        decompressed = bucket.buffer()
        decompressed.copy_(fut.value()[0])
        return decompressed

    return fut.then(decompress)


def fp16_compress_hook(process_group, bucket):
    """The bucket cast to float16 and divided by the world size, summed over the group, cast back."""
    return _compress_hook("float16", process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """fp16_compress_hook with bfloat16 (torch needs NCCL for it; glia's Gloo group reduces bfloat16 too)."""
    return _compress_hook("bfloat16", process_group, bucket)
