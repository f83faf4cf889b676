"""DDP bucket rebuild and static_graph goldens from torch 1.13 (2 ranks, Gloo on 127.0.0.1, CPU).

For each case, the buckets every rank reduces in each of three iterations, recorded by a
communication hook (bucket.index(), bucket.parameters() as indices among the module's parameters),
or the error the backward raised. Writes tests/golden/distributed/ddp_rebuild.json, one case per line.
Run: /usr/bin/python3 tests/golden/gen_ddp_rebuild.py
"""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.utils.checkpoint as cp


class Reordered(nn.Module):
    """Registered a, b, c; applied a(relu(c(relu(b(x))))). big: c's weight (512 x 600) is over 1 MiB."""

    def __init__(self, big=False):
        super().__init__()
        h, w = (600, 512) if big else (8, 8)
        self.a = nn.Linear(h, 3)
        self.b = nn.Linear(4, w)
        self.c = nn.Linear(w, h)

    def forward(self, x):
        return self.a(torch.relu(self.c(torch.relu(self.b(x)))))


class Swapped(nn.Module):
    """a(x) + b(x) on rank 0, b(x) + a(x) on rank 1: the ranks' gradients arrive in different orders."""

    def __init__(self, rank):
        super().__init__()
        self.a = nn.Linear(4, 3)
        self.b = nn.Linear(4, 3)
        self.rank = rank

    def forward(self, x):
        return self.a(x) + self.b(x) if self.rank == 0 else self.b(x) + self.a(x)


class Twice(nn.Module):
    """l1 applied twice, each under a reentrant checkpoint: its gradient arrives in two backwards."""

    def __init__(self):
        super().__init__()
        self.l0 = nn.Linear(4, 4)
        self.l1 = nn.Linear(4, 4)
        self.l2 = nn.Linear(4, 3)

    def forward(self, x):
        h = cp.checkpoint(self.l1, self.l0(x), use_reentrant=True)
        h = cp.checkpoint(self.l1, torch.relu(h), use_reentrant=True)
        return self.l2(torch.relu(h))


CASES = [
    # name, model, bucket_cap_mb, static_graph, find_unused_parameters
    ("reordered", "reordered", 25, False, False),
    ("reordered_tiny", "reordered", 1e-6, False, False),
    ("big_tiny", "big", 1e-6, False, False),
    ("big", "big", 25, False, False),
    ("swapped", "swapped", 1e-6, False, False),
    ("reordered_find_unused", "reordered", 1e-6, False, True),
    ("reordered_static", "reordered", 1e-6, True, False),
    ("reordered_static_find_unused", "reordered", 1e-6, True, True),
    ("twice", "twice", 25, False, False),
    ("twice_static", "twice", 25, True, False),
]


def worker(rank, world, case, port, out):
    name, kind, cap, static, unused = case
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = {"reordered": lambda: Reordered(), "big": lambda: Reordered(True), "swapped": lambda: Swapped(rank),
             "twice": Twice}[kind]()
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap, static_graph=static,
                                              find_unused_parameters=unused)
    params = list(model.parameters())
    seen = []

    def hook(state, bucket):
        seen.append([next(i for i, p in enumerate(params) if p is q) for q in bucket.parameters()])
        fut = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
        return fut.then(lambda f: f.value()[0] / world)

    ddp.register_comm_hook(None, hook)
    x = torch.linspace(-1, 1, 24).reshape(6, 4).requires_grad_(kind == "twice")
    iterations, error = [], None
    for _ in range(3):
        seen.clear()
        try:
            ddp(x).sum().backward()
        except RuntimeError as e:
            error = str(e)
            break
        iterations.append(list(seen))
    out[rank] = {"iterations": iterations, "error": error}
    dist.destroy_process_group()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    lines = []
    for k, case in enumerate(CASES):
        with mp.Manager() as m:
            out = m.dict()
            mp.spawn(worker, args=(2, case, 29600 + k, out), nprocs=2)
            ranks = [out[0], out[1]]
        name, kind, cap, static, unused = case
        lines.append(json.dumps({"name": name, "model": kind, "bucket_cap_mb": cap, "static_graph": static,
                                 "find_unused_parameters": unused, "ranks": ranks}))
    path = os.path.join(here, "distributed", "ddp_rebuild.json")
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(lines) + "\n]\n")
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
