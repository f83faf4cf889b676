"""Runs the PyTorch script of docs/python.md (imports renamed to glia) so that the document cannot rot."""

import os
import re
import subprocess
import sys

from _repo import ROOT, python_env


def script():
    text = open(os.path.join(ROOT, "docs", "python.md")).read()
    m = re.search(r"<!-- torch-script:begin -->\n```python\n(.*?)```\n<!-- torch-script:end -->", text, re.S)
    assert m, "docs/python.md lost its torch-script block"
    return m.group(1)


def test_script_only_renames_imports():
    imports = [line for line in script().splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["import glia as torch", "import glia.nn as nn", "import glia.nn.functional as F",
                       "import glia.optim as optim"]


def test_doc_script_runs(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(script())
    env = python_env()
    out = subprocess.run([sys.executable, str(path)], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("MLP(\n  (fc1): Linear(in_features=2, out_features=32, bias=True)")
    assert re.search(r"train accuracy: (0\.9\d\d|1\.000)", out.stdout)
    assert (tmp_path / "mlp.pt").exists()
