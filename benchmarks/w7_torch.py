#!/usr/bin/python3
"""W7: the recipe of examples/c/fashion_mnist.c in PyTorch, for docs/performance.md.

LeNet on Fashion-MNIST: (x/255 - 0.2860)/0.3530, Conv2d(1,6,5,padding=2)-ReLU-MaxPool2d(2)-
Conv2d(6,16,5)-ReLU-MaxPool2d(2)-Flatten-Linear(400,120)-ReLU-Linear(120,84)-ReLU-Linear(84,10),
CrossEntropyLoss, SGD(lr=0.01, momentum=0.9), batches of 64 shuffled every epoch (the last
partial batch kept), evaluation under torch.no_grad() in batches of 1000. The data are
held in memory as one float tensor and batches are gathered by index, as the C example
does (no DataLoader workers). Prints one JSON line per epoch.

    /usr/bin/python3 benchmarks/w7_torch.py --threads 1 --epochs 5
"""
import argparse
import gzip
import json
import os
import time

import numpy as np
import torch
from torch import nn


def read_idx(path, header):
    with gzip.open(path, "rb") as f:
        data = f.read()
    return np.frombuffer(data, dtype=np.uint8, offset=header)


def load(data, split):
    x = read_idx(os.path.join(data, f"{split}-images-idx3-ubyte.gz"), 16).reshape(-1, 1, 28, 28)
    y = read_idx(os.path.join(data, f"{split}-labels-idx1-ubyte.gz"), 8)
    x = (torch.from_numpy(x.copy()).float() / 255 - 0.2860) / 0.3530
    return x, torch.from_numpy(y.astype(np.int64))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    x_train, y_train = load(args.data, "train")
    x_test, y_test = load(args.data, "t10k")
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                          nn.Linear(84, 10))
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(args.seed)
    n = x_train.shape[0]
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(n, generator=g)
        start = time.perf_counter()
        loss_sum = 0.0
        for first in range(0, n, 64):
            idx = order[first:first + 64]
            x, y = x_train[idx], y_train[idx]
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            loss_sum += loss.item() * len(idx)
        seconds = time.perf_counter() - start
        model.eval()
        correct = 0
        with torch.no_grad():
            for first in range(0, x_test.shape[0], 1000):
                pred = model(x_test[first:first + 1000]).argmax(1)
                correct += int((pred == y_test[first:first + 1000]).sum())
        print(json.dumps({"epoch": epoch, "threads": args.threads, "seconds": round(seconds, 3),
                          "images_per_s": round(n / seconds), "train_loss": round(loss_sum / n, 4),
                          "test_accuracy": round(correct / x_test.shape[0], 4), "torch": torch.__version__}),
              flush=True)


if __name__ == "__main__":
    main()
