#!/usr/bin/env python3
"""Prints W9's results (the JSON lines of w9_torch.py, w9_cublas and, once issue 16 lands, glia's
side) as a markdown table, one row per workload and timing mode, one column per implementation.

    python3 benchmarks/gpu/w9_table.py w9.jsonl [more.jsonl ...]

Each line is {"id", "workload", "impl": "cublas"|"torch"|"glia", "value", "unit", "mode"?, ...}, or
{"meta": NAME, ...} for the header. The ratio column appears once glia has figures: for TFLOP/s,
glia / cuBLAS (W9a's target: >= 0.90); for times, PyTorch / glia (a speedup: > 1 means glia is
faster; W9b/W9c's target on small batches: >= 1).
"""
import json
import sys

IMPLS = [("cublas", "cuBLAS direct"), ("torch", "PyTorch eager"), ("glia", "glia")]


def fmt(v):
    if v is None:
        return "—"
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"


def main(paths):
    rows, order, metas = {}, [], []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                rec = json.loads(line)
                if "meta" in rec:
                    metas.append(rec)
                    continue
                key = (rec["id"], rec["workload"], rec.get("mode", ""), rec["unit"])
                if key not in rows:
                    rows[key] = {}
                    order.append(key)
                rows[key][rec["impl"]] = rec["value"]
    for m in metas:
        print("- " + ", ".join(f"{k}: {v}" for k, v in m.items()))
    if metas:
        print()
    have_glia = any("glia" in r for r in rows.values())
    head = ["id", "workload", "timing", "unit"] + [name for _, name in IMPLS] + (["ratio"] if have_glia else [])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in sorted(order, key=lambda k: (k[0], order.index(k))):
        wid, workload, mode, unit = key
        r = rows[key]
        cells = [wid, workload, mode or "—", unit] + [fmt(r.get(impl)) for impl, _ in IMPLS]
        if have_glia:
            ratio = None
            if "glia" in r:
                if unit.startswith("TFLOP") and r.get("cublas"):
                    ratio = f"{r['glia'] / r['cublas']:.2f} of cuBLAS"
                elif not unit.startswith("TFLOP") and r.get("torch") and r["glia"]:
                    ratio = f"{r['torch'] / r['glia']:.2f}x PyTorch"
            cells.append(ratio or "—")
        print("| " + " | ".join(cells) + " |")
    if not rows:
        print("| (no W9 results) |" + " |" * (len(head) - 1))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
