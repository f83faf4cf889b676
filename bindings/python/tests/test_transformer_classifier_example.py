"""Runs examples/python/transformer_classifier.py (a PyTorch script with only its imports changed to glia):
a few training steps on its synthetic sentences must make the loss fall and classify held-out ones."""

import os
import re
import subprocess
import sys

from _repo import ROOT, python_env


def test_transformer_classifier_learns():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "transformer_classifier.py"),
                          "--steps", "30"], env=python_env(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "(self_attn): MultiheadAttention(" in out.stdout
    assert "(out_proj): NonDynamicallyQuantizableLinear(in_features=32, out_features=32, bias=True)" in out.stdout
    first = float(re.fullmatch(r"step 10 loss (\d+\.\d+)", lines[-5]).group(1))
    final = float(re.fullmatch(r"final loss: (\d+\.\d+)", lines[-2]).group(1))
    accuracy = float(re.fullmatch(r"accuracy: (\d\.\d+)", lines[-1]).group(1))
    assert final < first and final < 0.2, (first, final)
    assert accuracy >= 0.8, accuracy
