#!/usr/bin/env python3
"""Writes the small IDX files under tests/examples/data/fashion_mnist/ that
tests/examples/fashion_mnist.cmake runs examples/c/fashion_mnist.c on: one
well-formed tiny data set and one malformed file per check of the reader.
Deterministic (gzip mtime 0); run from anywhere: python3 make_fashion_mnist_fixtures.py
"""
import gzip
import os
import shutil
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fashion_mnist")


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def images_idx(n, rows=28, cols=28, magic=2051, seed=0):
    # Image i shows a bright band whose position depends on its class (i % 10).
    body = bytearray()
    for i in range(n):
        c = (i + seed) % 10
        for r in range(rows):
            for col in range(cols):
                body.append(220 if 2 * c + 3 <= r < 2 * c + 8 else (col * 5 + i) % 40)
    return struct.pack(">IIII", magic, n, rows, cols) + bytes(body)


def labels_idx(n, magic=2049, seed=0, labels=None):
    labels = labels if labels is not None else [(i + seed) % 10 for i in range(n)]
    return struct.pack(">II", magic, n) + bytes(labels)


def write(case, name, data):
    d = os.path.join(ROOT, case)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


TI, TL = "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"
SI, SL = "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"

shutil.rmtree(ROOT, ignore_errors=True)
# A well-formed set: 200 training images, 50 test images.
write("tiny", TI, gz(images_idx(200)))
write("tiny", TL, gz(labels_idx(200)))
write("tiny", SI, gz(images_idx(50, seed=3)))
write("tiny", SL, gz(labels_idx(50, seed=3)))
# One defect each; the reader stops at the first, so only the files up to it exist.
write("bad_magic", TI, gz(images_idx(3, magic=2049)))
write("bad_label_magic", TI, gz(images_idx(3)))
write("bad_label_magic", TL, gz(labels_idx(3, magic=2051)))
write("bad_size", TI, gz(images_idx(3, rows=32)))
write("truncated", TI, gz(images_idx(3)[:1016]))
write("trailing", TI, gz(images_idx(3) + b"extra"))
write("short_header", TI, gz(images_idx(3)[:10]))
write("count_mismatch", TI, gz(images_idx(3)))
write("count_mismatch", TL, gz(labels_idx(2)))
write("bad_label", TI, gz(images_idx(3)))
write("bad_label", TL, gz(labels_idx(3, labels=[1, 10, 2])))
write("test_truncated", TI, gz(images_idx(3)))
write("test_truncated", TL, gz(labels_idx(3)))
write("test_truncated", SI, gz(images_idx(2)))
write("test_truncated", SL, gz(labels_idx(2))[:-12])  # the gzip stream cut short
write("not_gzip", TI, b"\x1f\x8b\x08\x00garbage that is not deflate data" * 3)
