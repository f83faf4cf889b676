#!/usr/bin/env python3
"""Fashion-MNIST with glia's Python binding: the LeNet of BENCHMARKS W4/W7, written as a PyTorch user would.

    GLIA_LIBRARY=build/release/src/libglia.so PYTHONPATH=bindings/python \
        /usr/bin/python3 examples/python/fashion_mnist.py --epochs 5

Data: the gzip'd IDX files of Debian's dataset-fashion-mnist (--data, default /usr/share/datasets/fashion-mnist).
Prints progress lines, the test accuracy after each epoch and, last, ``test accuracy: 0.XXXX``; saves the trained
state dict with glia.save and checks that a fresh model loaded from the file gives the same accuracy.
"""

import argparse
import gzip
import os
import sys
import tempfile
import time

import numpy as np

import glia
import glia.nn as nn
import glia.optim as optim

MEAN, STD = 0.2860, 0.3530


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big")
    ndim = magic & 0xFF
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_split(root, prefix, limit):
    images = read_idx(os.path.join(root, prefix + "-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(root, prefix + "-labels-idx1-ubyte.gz"))
    if limit:
        images, labels = images[:limit], labels[:limit]
    x = ((images.astype(np.float32) / 255.0 - MEAN) / STD).reshape(-1, 1, 28, 28)
    return x, labels.astype(np.int64)


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10),
    )


def accuracy(model, x, y, batch=1000):
    model.eval()
    correct = 0
    with glia.no_grad():
        for i in range(0, len(x), batch):
            logits = model(glia.from_numpy(x[i:i + batch]))
            correct += int((logits.argmax(1) == glia.from_numpy(y[i:i + batch])).sum())
    model.train()
    return correct / len(x)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N training and test images")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", default=None, help="where to save the state dict (default: a temp file)")
    args = ap.parse_args(argv)

    x_train, y_train = load_split(args.data, "train", args.limit)
    x_test, y_test = load_split(args.data, "t10k", args.limit)
    print("train %d images, test %d images" % (len(x_train), len(x_test)), flush=True)

    glia.manual_seed(args.seed)
    rng = np.random.RandomState(args.seed)
    model = lenet()
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    acc = 0.0
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        order = rng.permutation(len(x_train))
        running, seen = 0.0, 0
        n_batches = (len(order) + args.batch - 1) // args.batch
        for b in range(n_batches):
            idx = order[b * args.batch:(b + 1) * args.batch]
            xb, yb = glia.from_numpy(x_train[idx]), glia.from_numpy(y_train[idx])
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            running += loss.item() * len(idx)
            seen += len(idx)
            if (b + 1) % 200 == 0 or b + 1 == n_batches:
                print("epoch %d [%d/%d] loss %.4f" % (epoch, seen, len(order), running / seen), flush=True)
        acc = accuracy(model, x_test, y_test)
        print("epoch %d: %.2f s, test accuracy %.4f" % (epoch, time.time() - t0, acc), flush=True)

    path = args.save or os.path.join(tempfile.mkdtemp(prefix="glia-fmnist-"), "lenet.safetensors")
    glia.save(model.state_dict(), path)
    fresh = lenet()
    fresh.load_state_dict(glia.load(path))
    acc2 = accuracy(fresh, x_test, y_test)
    if acc2 != acc:
        print("reloaded model's accuracy %.4f differs from %.4f" % (acc2, acc), file=sys.stderr)
        return 1
    print("saved to %s; reloaded model agrees" % path)
    print("test accuracy: %.4f" % acc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
