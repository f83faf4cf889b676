#!/usr/bin/env python3
"""Rewrites tests/testdevice/unsupported_ops.txt from what ops_tests reports
(Note [Golden cases on every device] in tests/ops/golden_support.cpp): drops the
entries that now run on the test device, adds the ones that cannot. Review the
diff like any test change.

  tests/testdevice/update_unsupported.py build/release/tests/ops_tests
"""
import os
import re
import subprocess
import sys

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unsupported_ops.txt")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for _ in range(5):  # an added op can reveal its backward entry on the next run
        with open(LIST, encoding="utf-8") as f:
            lines = f.read().splitlines()
        header = [l for l in lines if l.startswith("#")]
        entries = {l for l in lines if l and not l.startswith("#")}
        out = subprocess.run([sys.argv[1]], capture_output=True, text=True).stdout
        drop = set(re.findall(r'"([^"]+)" runs on the test device in every case', out))
        add = set(re.findall(r'list "([^"]+)" in tests/testdevice/unsupported_ops.txt', out))
        add |= {m for m in re.findall(r"^(\w+): an output is not on the test device", out, flags=re.M)}
        new = (entries - drop) | add
        if new == entries:
            print(f"update_unsupported: {len(entries)} entries, stable")
            return 0
        with open(LIST, "w", encoding="utf-8") as f:
            f.write("\n".join(header + sorted(new)) + "\n")
        print(f"update_unsupported: -{len(entries - new)} +{len(new - entries)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
