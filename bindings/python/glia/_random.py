"""torch.Generator and torch.randperm for the Python binding.

glia's C library has one generator per thread (glia_manual_seed). A ``Generator`` object here is a
separate, seedable stream held by Python (Python's Mersenne Twister) for the places torch scripts pass
one explicitly: randperm, the samplers of glia.utils.data and random_split. Its draws differ from
torch's; its guarantees are torch's: the same seed gives the same sequence, and get_state/set_state
resume it. Without a generator, randperm draws from glia's own generator (glia.manual_seed)."""

import builtins
import random as _pyrandom

from ._tensor import float64, int64, rand, tensor

__all__ = ["Generator", "randperm", "default_generator"]

_DEFAULT_SEED = 67280421310721  # torch's default seed


class Generator:
    """torch.Generator(device='cpu'): manual_seed, seed, initial_seed, get_state, set_state."""

    def __init__(self, device="cpu"):
        if str(device) not in ("cpu", "cpu:0"):
            raise RuntimeError("glia: a Generator lives on the CPU only (got device %s)" % (device,))
        self.device = device
        self._seed = _DEFAULT_SEED
        self._rng = _pyrandom.Random(self._seed)

    def manual_seed(self, seed):
        seed = builtins.int(seed)
        if seed < -0x8000000000000000 or seed > 0xFFFFFFFFFFFFFFFF:
            raise RuntimeError("Overflow when unpacking long")
        self._seed = seed & 0xFFFFFFFFFFFFFFFF
        self._rng.seed(self._seed)
        return self

    def seed(self):
        s = _pyrandom.SystemRandom().getrandbits(64)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return (self._seed, self._rng.getstate())

    def set_state(self, new_state):
        seed, state = new_state
        self._seed = seed
        self._rng.setstate(state)
        return self

    # draws used by glia.utils.data
    def _permutation(self, n):
        perm = list(range(n))
        self._rng.shuffle(perm)
        return perm

    def _uniform(self, n):
        return [self._rng.random() for _ in range(n)]


default_generator = None  # torch.default_generator's place: None means glia's own generator


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """torch.randperm(n): a random permutation of 0 .. n-1 (int64 unless dtype is given)."""
    n = builtins.int(n)
    if n < 0:
        raise RuntimeError("Trying to create tensor with negative dimension %d: [%d]" % (n, n))
    dtype = int64 if dtype is None else dtype
    if generator is not None:
        t = tensor(generator._permutation(n), dtype=dtype)
    elif n == 0:
        t = tensor([], dtype=dtype)
    else:
        t = rand(n, dtype=float64).argsort().to(dtype)  # float64 keys: ties have probability ~n^2 / 2^54
    if requires_grad:
        t.requires_grad_(True)
    if out is not None:
        return out.copy_(t)
    return t
