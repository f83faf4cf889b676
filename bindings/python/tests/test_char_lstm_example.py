"""Runs examples/python/char_lstm.py (a PyTorch script with only its imports changed to glia)."""

import os
import re
import subprocess
import sys

from _repo import ROOT, python_env

WORDS = set("the a cat dog mat log sat on and".split())


def test_char_lstm_learns_and_generates():
    env = python_env()
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "char_lstm.py")], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "(lstm): LSTM(16, 64, num_layers=2, batch_first=True, dropout=0.1)" in out.stdout
    first = float(re.fullmatch(r"step 25 loss (\d+\.\d+)", lines[-8]).group(1))
    final = float(re.fullmatch(r"final loss: (\d+\.\d+)", lines[-2]).group(1))
    assert final < 0.2 and final < first
    generated = lines[-1][len("generated: "):]
    assert lines[-1].startswith("generated: t") and generated.endswith(".")
    assert set(generated[:-1].split()) <= WORDS, generated
