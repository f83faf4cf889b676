"""The report of scripts/bench.sh: reads its raw lines ("<profile> <threads> <side> <id> <value> <unit>",
one per run), keeps the median of the runs' medians per (id, profile, threads, side), and
  - prints the table of medians and ratios,
  - writes JSON lines: {"workload","profile","threads","glia","libtorch","unit","ratio"} per row,
  - draws the chart of the ratios (gnuplot, when installed),
  - regenerates the block between <!-- bench:begin --> and <!-- bench:end --> of docs/performance.md.
ratio is a speedup: how many times glia is better (faster, higher GFLOP/s, smaller), > 1 glia ahead.
Standard library only (any python3).
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import tempfile

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

# (row, label, glia id, libtorch id, better): libtorch id None = the baseline is glia_bench's own line.
ROWS = [
    ("W1-1", "W1 add, 1 element", "W1-1", "W1-1", "lower"),
    ("W1-1000", "W1 add, 1000 elements", "W1-1000", "W1-1000", "lower"),
    ("W2", "W2 tiny autograd", "W2", "W2", "lower"),
    ("W3", "W3 MLP train step", "W3", "W3", "lower"),
    ("W4", "W4 LeNet train step", "W4", "W4", "lower"),
    ("W5-fwd", "W5 conv 3x3 64→64, forward", "W5-fwd", "W5-fwd", "higher"),
    ("W5-bwd", "W5 conv 3x3 64→64, backward", "W5-bwd", "W5-bwd", "higher"),
    ("W6", "W6 matmul 1024³", "W6-glia_matmul", "W6-torch_matmul", "higher"),
    ("W6-cblas", "W6 glia_matmul vs cblas_sgemm (baseline: cblas)", "W6-glia_matmul", None, "higher"),
    ("W7", "W7 Fashion-MNIST epoch", "W7", "W7", "lower"),
    ("W7-accuracy", "W7 test accuracy, last epoch", "W7-accuracy", "W7-accuracy", "higher"),
    ("W8-lib", "W8 the library's own files, stripped", "W8-lib", "W8-lib", "lower"),
    ("W8-closure", "W8 ldd closure of a minimal program", "W8-closure", "W8-closure", "lower"),
    ("W8-libraries", "W8 libraries in that closure", "W8-libraries", "W8-libraries", "lower"),
    ("W8-cold", "W8 cold start (exec, add 2x2, exit)", "W8-cold", "W8-cold", "lower"),
    ("W8-rss", "W8 peak RSS, 200 W4 steps", "W8-rss", "W8-rss", "lower"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chart")
    ap.add_argument("--docs")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--mode", default="")
    ap.add_argument("--load-start", default="")
    a = ap.parse_args()

    runs, units = {}, {}
    with open(a.raw) as f:
        for line in f:
            p = line.split()
            if len(p) != 6:
                continue
            profile, threads, side, ident, value, unit = p
            runs.setdefault((ident, profile, int(threads), side), []).append(float(value))
            units[ident] = unit
    med = {k: statistics.median(v) for k, v in runs.items()}
    combos = sorted({(k[1], k[2]) for k in med}, key=lambda c: (c[0] != "as-is", c[1]))

    results = []  # dicts, the JSON lines
    for row, label, gid, tid, better in ROWS:
        for profile, threads in combos:
            g = med.get((gid, profile, threads, "glia"))
            if g is None:
                continue
            if tid is None:
                t = med.get(("W6-cblas_sgemm", profile, threads, "glia"))
            else:
                t = med.get((tid, profile, threads, "torch"))
            ratio = None
            if t and g:
                ratio = (g / t) if better == "higher" else (t / g)
            r = {"workload": row, "profile": profile, "threads": threads, "glia": g,
                 "libtorch": t if tid else None, "unit": units.get(gid, ""),
                 "ratio": round(ratio, 3) if ratio is not None else None}
            if tid is None:
                r["baseline"] = "cblas_sgemm"
                r["cblas_sgemm"] = t
            results.append(r)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")

    by = {(r["workload"], r["profile"], r["threads"]): r for r in results}
    table = markdown_table(by, combos)
    targets = target_lines(by, combos, a.epochs)
    print()
    print(table)
    print()
    for line in targets:
        print(line)
    print(f"\nJSON lines: {a.out}")

    chart_ok = False
    if a.chart:
        chart_ok = draw_chart(results, combos, a.chart)
        print(f"chart: {a.chart}" if chart_ok else "chart: gnuplot not installed (apt-get install gnuplot-nox), none drawn")
    if a.docs:
        write_docs(a, table, targets, chart_ok)
        print(f"regenerated the bench block of {a.docs}")


def fmt(v, unit=""):
    if v is None:
        return "–"
    if unit == "count":
        return f"{v:.0f}"
    if v is None:
        return "–"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def markdown_table(by, combos):
    head = "| workload | unit | " + " | ".join(f"{p} {t}T: glia / libtorch (ratio)" for p, t in combos) + " |"
    lines = [head, "|" + "---|" * (2 + len(combos))]
    for row, label, _, tid, _ in ROWS:
        cells, unit = [], None
        for p, t in combos:
            r = by.get((row, p, t))
            if not r:
                cells.append("")
                continue
            unit = r["unit"]
            other = r["libtorch"] if tid else r.get("cblas_sgemm")
            ratio = f" ({r['ratio']:.2f}x)" if r["ratio"] is not None else ""
            cells.append(f"{fmt(r['glia'], unit)} / {fmt(other, unit)}{ratio}")
        if unit is not None:
            lines.append(f"| {label} | {unit} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def target_lines(by, combos, epochs):
    """One line per workload: its target (BENCHMARKS.md) and whether this run meets it."""
    def get(row, p, t, key="glia"):
        r = by.get((row, p, t))
        return r[key] if r else None

    def verdict(checks):
        """checks: (what, where, ok or None); failures grouped by what."""
        if not checks:
            return "not measured"
        failed, unknown = {}, {}
        for what, where, ok in checks:
            if ok is None:
                unknown.setdefault(what, []).append(where)
            elif not ok:
                failed.setdefault(what, []).append(where)
        total = {}
        for what, where, _ in checks:
            total.setdefault(what, []).append(where)

        def group(d):
            def where(w, v):
                if not any(v):
                    return ""
                return " (everywhere)" if len(v) == len(total[w]) and len(v) > 1 else f" ({', '.join(v)})"
            return "; ".join(w + where(w, v) for w, v in d.items())
        text = "met" if not failed else "missed: " + group(failed)
        if unknown:
            text += ("; " if failed else " where measured; ") + "no figure: " + group(unknown)
        return text

    def le(v, bound):
        return None if v is None else v <= bound

    def ge(v, bound):
        return None if v is None else v >= bound

    out = []
    profiles = sorted({p for p, _ in combos}, key=lambda p: p != "as-is")
    if any(k[0] == "W1-1" for k in by):
        c = []
        for row in ("W1-1", "W1-1000"):
            for p, t in combos:
                c.append((f"{row} ≤ 100 ns", f"{p} {t}T", le(get(row, p, t), 100)))
                c.append((f"{row} ≥ 5x", f"{p} {t}T", ge(get(row, p, t, "ratio"), 5)))
        out.append(("W1", "≤ 100 ns per op (≥ 5x faster)", verdict(c)))
    if any(k[0] == "W2" for k in by):
        c = []
        for p, t in combos:
            c.append(("≤ 2 us", f"{p} {t}T", le(get("W2", p, t), 2)))
            c.append(("≥ 8x", f"{p} {t}T", ge(get("W2", p, t, "ratio"), 8)))
        out.append(("W2", "≤ 2 us per iteration (≥ 8x faster)", verdict(c)))
    if any(k[0] == "W3" for k in by):
        c = []
        for p in profiles:
            c.append(("≥ 1.4x at 1T", p, ge(get("W3", p, 1, "ratio"), 1.4)))
            c.append((f"{p} 1T ≤ {650 if p == 'as-is' else 450} us", "", le(get("W3", p, 1), 650 if p == "as-is" else 450)))
            g1, g2 = get("W3", p, 1), get("W3", p, 2)
            if g1 is not None and g2 is not None:
                c.append(("2T faster than 1T", p, g2 < g1))
        out.append(("W3", "≥ 1.4x at 1T in each profile (as-is ≤ 650 us, best ≤ 450 us); 2T faster than 1T", verdict(c)))
    if any(k[0] == "W4" for k in by):
        c = [("≥ 2x", f"{p} {t}T", ge(get("W4", p, t, "ratio"), 2)) for p, t in combos]
        if "best" in profiles:
            c.append(("≤ 2.4 ms", "best 1T", le(get("W4", "best", 1), 2.4)))
        out.append(("W4", "≥ 2x faster in each profile (best ≤ 2.4 ms at 1T)", verdict(c)))
    if any(k[0] == "W5-fwd" for k in by):
        c = []
        for row in ("W5-fwd", "W5-bwd"):
            c += [(f"{row[3:]} ≥ libtorch", f"{p} {t}T", ge(get(row, p, t, "ratio"), 1)) for p, t in combos]
        if "best" in profiles:
            c.append(("fwd ≥ 183 GFLOP/s", "best 1T", ge(get("W5-fwd", "best", 1), 183)))
        out.append(("W5", "forward and backward ≥ libtorch in each profile (best ≥ 183 GFLOP/s forward at 1T)", verdict(c)))
    if any(k[0] == "W6-cblas" for k in by):
        c = [("≥ 0.95 of cblas", f"{p} {t}T", ge(get("W6-cblas", p, t, "ratio"), 0.95)) for p, t in combos]
        out.append(("W6", "glia_matmul ≥ 95% of cblas_sgemm in each profile", verdict(c)))
    if any(k[0] == "W7" for k in by):
        c = [("≤ 2.0 s/epoch at 1T", p, le(get("W7", p, 1), 2.0)) for p in profiles]
        if epochs >= 5:
            c += [(f"accuracy ≥ 0.88 after {epochs} epochs", f"{p} {t}T", ge(get("W7-accuracy", p, t), 0.88)) for p, t in combos]
            note = ""
        else:
            note = f" (accuracy after {epochs} epoch(s) only: the 0.88 check needs --full)"
        out.append(("W7", "≤ 2.0 s per epoch at 1T, same accuracy curve (≥ 0.88 after 5 epochs)", verdict(c) + note))
    if any(k[0] == "W8-lib" for k in by):
        p0, t0 = combos[0]
        c = [("libglia.so ≤ 5 MiB", "", le(get("W8-lib", p0, t0), 5)),
             ("closure ≤ 60 MiB", "", le(get("W8-closure", p0, t0), 60))]
        for p, t in combos:
            c.append(("cold start ≤ 20 ms", f"{p} {t}T", le(get("W8-cold", p, t), 20)))
            c.append(("cold start ≥ 30x", f"{p} {t}T", ge(get("W8-cold", p, t, "ratio"), 30)))
            c.append(("peak RSS ≤ libtorch's", f"{p} {t}T", ge(get("W8-rss", p, t, "ratio"), 1)))
        out.append(("W8", "libglia.so ≤ 5 MiB, closure ≤ 60 MiB, cold start ≤ 20 ms (≥ 30x), peak RSS ≤ libtorch's", verdict(c)))
    return [f"| {w} | {target} | {v} |" for w, target, v in out]


def draw_chart(results, combos, path):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return False
    rows = [row for row, *_ in ROWS if row not in ("W8-libraries",)]
    present = [row for row in rows if any(r["workload"] == row and r["ratio"] is not None for r in results)]
    if not present:
        return False
    by = {(r["workload"], r["profile"], r["threads"]): r for r in results}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "ratios.dat")
        with open(data, "w") as f:
            f.write("row " + " ".join(f'"{p} {t}T"' for p, t in combos) + "\n")
            for row in present:
                vals = []
                for p, t in combos:
                    r = by.get((row, p, t))
                    vals.append(str(r["ratio"]) if r and r["ratio"] else "NaN")
                f.write(f'"{row}" ' + " ".join(vals) + "\n")
        plots = ", ".join(
            f"'{data}' using {i + 2}:xtic(1) title columnheader({i + 2})" for i in range(len(combos)))
        script = f"""
set terminal pngcairo size 1100,520 font "sans,10"
set output '{os.path.abspath(path)}'
set title "glia vs libtorch 1.13: speedup (ratio > 1: glia faster / smaller; log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y 10
set yrange [0.1:*]
set grid ytics
set key top left
set xtics rotate by -35
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "black"
set ylabel "speedup (x)"
plot {plots}
"""
        res = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
        if res.returncode != 0:
            print(res.stderr)
            return False
    return True


def machine():
    model, cores = "unknown CPU", os.cpu_count()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f", {kb / 1048576:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{model}, {cores} cores{mem}, Linux {platform.release()}"


def write_docs(a, table, targets, chart_ok):
    try:
        with open("/proc/loadavg") as f:
            load_end = " ".join(f.read().split()[:3])
    except OSError:
        load_end = "?"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rel_chart = os.path.relpath(os.path.abspath(a.chart), os.path.dirname(os.path.abspath(a.docs))) if a.chart else ""
    block = [BEGIN,
             "<!-- Generated by scripts/bench.sh (benchmarks/bench_report.py); edits here are overwritten. -->",
             "",
             f"## Latest suite run: glia vs libtorch, {now}",
             "",
             "Generated by `scripts/bench.sh` (the suite of `../shared/design/BENCHMARKS.md`): it builds",
             "the Release preset, runs `benchmarks/glia_bench` (W7: the demo `examples/fashion_mnist`) and",
             "`benchmarks/torch_bench` (libtorch 1.13 C++, Debian's libtorch-dev) alternately, glia then",
             "libtorch, for each workload, profile (as-is: `OPENBLAS_CORETYPE=Haswell` and",
             "`OPENBLAS_NUM_THREADS` = threads; best: `OPENBLAS_CORETYPE` unset, `OPENBLAS_NUM_THREADS=1`,",
             "one BLAS thread per intra-op thread) and thread count (`OMP_NUM_THREADS`,",
             "`glia_set_num_threads`, `torch::set_num_threads`), and keeps the median of the runs'",
             "medians. Ratio = speedup of glia (> 1: glia faster, or smaller for W8). W6's second row",
             "compares `glia_matmul` with `cblas_sgemm` called directly (at the same thread count).",
             "Everything below the end of this block is written by hand.",
             "",
             f"- Machine: {machine()}; load average {a.load_start or '?'} at the start, {load_end} at the end",
             f"- Mode: {a.mode}; {a.rounds} rounds of glia/libtorch pairs, {a.reps} repetitions per run; "
             f"W7: {a.epochs} epoch(s) per run; took {a.seconds // 60} min {a.seconds % 60} s",
             f"- JSON lines: `{os.path.relpath(a.out)}`",
             "",
             table,
             "",
             "| id | target | this run |",
             "|---|---|---|",
             *targets,
             ""]
    if chart_ok:
        block += [f"![glia/libtorch speedups]({rel_chart})", ""]
    block.append(END)
    text = ""
    if os.path.exists(a.docs):
        with open(a.docs) as f:
            text = f.read()
    new = "\n".join(block)
    # The markers count only on lines of their own (prose may quote them).
    b = re.search("^" + re.escape(BEGIN) + "$", text, re.M)
    e = re.search("^" + re.escape(END) + "$", text, re.M)
    if b and e and b.start() < e.start():
        text = text[: b.start()] + new + text[e.end():]
    else:
        m = re.match(r"(# [^\n]*\n\n?)", text)
        head = m.group(1) if m else "# Performance\n\n"
        text = head + new + "\n\n" + (text[len(m.group(1)):] if m else text)
    with open(a.docs, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
