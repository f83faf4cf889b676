"""Writes small_state.pt with torch.save (torch 1.13) for test_serialization.py: glia must load it and
write the same dict byte for byte. Run with /usr/bin/python3."""

import collections
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def state():
    return collections.OrderedDict(
        [
            ("weight", torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4),
            ("bias", torch.tensor([1, -2], dtype=torch.int64)),
            ("mask", torch.tensor([True, False, True])),
            ("half", torch.tensor([0.5, -1.25], dtype=torch.float16)),
        ]
    )


if __name__ == "__main__":
    torch.save(state(), os.path.join(HERE, "small_state.pt"))
