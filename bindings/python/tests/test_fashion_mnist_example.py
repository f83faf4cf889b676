"""Runs examples/python/fashion_mnist.py on a slice of the data (skipped without the dataset)."""

import os
import re
import subprocess
import sys

import pytest

from _repo import ROOT, python_env

DATA = "/usr/share/datasets/fashion-mnist"


@pytest.mark.skipif(not os.path.isdir(DATA), reason="Fashion-MNIST not installed (Debian dataset-fashion-mnist)")
def test_fashion_mnist_one_epoch(tmp_path):
    env = python_env()
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "python", "fashion_mnist.py"), "--data", DATA,
         "--epochs", "1", "--limit", "1024", "--save", str(tmp_path / "lenet.safetensors")],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert re.fullmatch(r"test accuracy: 0\.\d{4}", lines[-1]), lines[-1]
    assert "reloaded model agrees" in out.stdout
    assert any(line.startswith("epoch 1 [1024/1024] loss") for line in lines)
    assert (tmp_path / "lenet.safetensors").exists()
    assert float(lines[-1].split(": ")[1]) > 0.1  # better than chance after one pass over 1024 images
