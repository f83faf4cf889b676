#!/usr/bin/python3
"""W10: the W7 recipe (benchmarks/w7_torch.py) data-parallel with PyTorch's DistributedDataParallel
over Gloo, the torch side of `examples/fashion_mnist --ddp` under glia-run.

Every rank draws the same shuffled batches of 64 and trains on its slice of each (32 images with
2 ranks); DDP averages the gradients. Rank 0 prints one JSON line per epoch (the epoch's training
time, then the test accuracy). Run under torch's own launcher:

    /usr/bin/torchrun --standalone --nproc_per_node 2 benchmarks/w10_torch_ddp.py --threads 1 --epochs 1
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from w7_torch import load  # noqa: E402  (the same data loading as W7)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo")  # env://, from torchrun
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)
    x_train, y_train = load(args.data, "train")
    x_test, y_test = load(args.data, "t10k")
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                          nn.Linear(84, 10))
    ddp = DistributedDataParallel(model)
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(args.seed)
    n = x_train.shape[0]
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(n, generator=g)
        dist.barrier()
        start = time.perf_counter()
        loss_sum = 0.0
        for first in range(0, n, 64):
            idx = order[first:first + 64]
            lo, hi = rank * len(idx) // world, (rank + 1) * len(idx) // world
            x, y = x_train[idx[lo:hi]], y_train[idx[lo:hi]]
            opt.zero_grad()
            loss = loss_fn(ddp(x), y)
            loss.backward()
            opt.step()
            loss_sum += loss.item() * (hi - lo)
        seconds = time.perf_counter() - start
        total = torch.tensor([loss_sum], dtype=torch.float64)
        dist.all_reduce(total)
        if rank == 0:
            model.eval()
            correct = 0
            with torch.no_grad():
                for first in range(0, x_test.shape[0], 1000):
                    pred = model(x_test[first:first + 1000]).argmax(1)
                    correct += int((pred == y_test[first:first + 1000]).sum())
            print(json.dumps({"epoch": epoch, "processes": world, "threads": args.threads,
                              "seconds": round(seconds, 3), "images_per_s": round(n / seconds),
                              "train_loss": round(float(total[0]) / n, 4),
                              "test_accuracy": round(correct / x_test.shape[0], 4), "torch": torch.__version__}),
                  flush=True)
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
