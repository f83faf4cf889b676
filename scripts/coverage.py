#!/usr/bin/python3
"""docs/coverage.md: how much of torch 1.13's API glia's Python binding has, and how much passes OpInfo.

    python3 scripts/coverage.py            # write docs/coverage.md from the committed results
    python3 scripts/coverage.py --check    # exit 1 when docs/coverage.md differs from what it would write
    python3 scripts/coverage.py --update   # replay the OpInfo samples on the build, rewrite
                                           # tests/golden/opinfo/expected.txt, then docs/coverage.md

Inputs: tests/golden/opinfo/names.json (torch 1.13's public names per namespace) and index.json (the
OpInfo entries), both from tests/golden/gen_opinfo.py; tests/golden/opinfo/expected.txt (the replay's
status of every sample, rewritten by --update); and glia's Python binding (which names exist), imported
from bindings/python with the library of $GLIA_LIBRARY or $GLIA_BUILD_DIR (default build/release).
--update also writes the replay's messages to $GLIA_BUILD_DIR/opinfo_results.json.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FIXTURES = os.path.join(ROOT, "tests", "golden", "opinfo")
DOC = os.path.join(ROOT, "docs", "coverage.md")
TARGET = 90.0

NAMESPACES = [  # (torch namespace, glia object path, OpInfo namespace)
    ("torch", "glia", "torch"),
    ("torch.Tensor", "glia.Tensor", "Tensor"),
    ("torch.nn", "glia.nn", None),
    ("torch.nn.functional", "glia.nn.functional", "nn.functional"),
    ("torch.nn.init", "glia.nn.init", None),
    ("torch.nn.utils", "glia.nn.utils", None),
    ("torch.optim", "glia.optim", None),
    ("torch.optim.lr_scheduler", "glia.optim.lr_scheduler", None),
]

# Names torch.nn needs although they fall in an out-of-scope category.
NEEDED_BY_NN = {
    "qr": "nn.init.orthogonal_", "softmax": "nn.Softmax", "log_softmax": "nn.LogSoftmax", "erf": "nn.GELU",
    "erfc": "nn.GELU", "expm1": "nn.ELU", "log1p": "nn.Softplus", "logsumexp": "nn.CrossEntropyLoss",
    "exp2": "elementwise math", "round": "elementwise math", "sigmoid": "nn.Sigmoid", "expit": "nn.Sigmoid",
    "xlogy": "nn.KLDivLoss", "real": "nn.Module.to (is_complex checks)", "is_complex": "nn.Module.to",
    "is_floating_point": "nn.Module.to",
}

OUT_OF_SCOPE = [  # (category, reason, pattern on the name)
    ("complex dtypes", "glia has no complex dtypes (docs/architecture.md: real floating and integer dtypes only)",
     r"complex|conj|^real$|imag|^angle|polar|view_as_real|chalf|cfloat|cdouble|^is_neg$|resolve_neg"),
    ("sparse layouts", "glia's tensors are dense and strided",
     r"sparse|coalesce|to_dense|^indices$|^values$|^(crow|ccol|col|row)_indices|^smm$|sspaddmm|hspmm|spmm|"
     r"saddmm|^dense_dim$|^sparse_dim$|^nnz$|_nnz|to_sparse|sparse_mask|^is_coalesced$|^layout$|^SparseAdam$"),
    ("quantization", "quantized dtypes and observers are not in glia's scope",
     r"quantiz|^q_|int_repr|qscheme|fbgemm|dequantize|fake_quant|^is_quantized$|^qint|^quint|_qparams"),
    ("fft and spectral", "torch.fft and the spectral ops (stft, window functions) are outside torch.nn's needs",
     r"fft|stft|^istft$|_window$"),
    ("linalg decompositions", "matrix decompositions and solvers (torch.linalg) are outside torch.nn's needs",
     r"svd|^qr$|^lu|cholesky|(^|sym)eig|lstsq|geqrf|ormqr|orgqr|householder|triangular_solve|solve|inverse|^det$|"
     r"slogdet|logdet|pinverse|matrix_power|matrix_rank|lobpcg|lowrank|matrix_exp|^linalg"),
    ("special functions", "torch.special's functions (Bessel, gamma family, ...) are outside torch.nn's needs",
     None),  # names of torch.special (names.json), and special_*
    ("backend-specific entry points", "cuDNN, MIOpen, MKL-DNN, NNPACK, Vulkan, ... internals of torch's backends "
     "(and nn.utils.convert_conv2d_weight_memory_format, cuDNN's channels_last helper)",
     r"cudnn|miopen|mkldnn|nnpack|xnnpack|vulkan|fbgemm|^(is_)?(mps|ipu|xpu|hpu|ort|meta|mlc)$|^is_vulkan|nested|"
     r"^pin_memory$|^is_pinned$|share_memory|^record_stream$|^is_shared$|^storage|^untyped_storage$|"
     r"^convert_conv2d_weight_memory_format$"),  # cuDNN's channels_last conv weights
]


# ---------------------------------------------------------------------------
# inputs


def load_json(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def import_glia():
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "tests"))
    if "GLIA_LIBRARY" not in os.environ:
        build = os.environ.get("GLIA_BUILD_DIR", os.path.join(ROOT, "build", "release"))
        os.environ["GLIA_LIBRARY"] = os.path.join(build, "src", "libglia.so")
    import glia  # noqa: F401
    import glia.nn.functional  # noqa: F401
    import glia.nn.init  # noqa: F401
    import glia.optim.lr_scheduler  # noqa: F401
    return glia


def glia_object(glia, path):
    obj = glia
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def has_name(obj, dotted):
    """hasattr along a dotted name (torch.nn.utils' "prune.l1_unstructured")."""
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def entry_headers():
    out = {}
    for f in sorted(os.listdir(FIXTURES)):
        if f.endswith(".jsonl"):
            with open(os.path.join(FIXTURES, f)) as fh:
                h = json.loads(fh.readline())
            out[h["op"]] = h
    return out


def status_of(codes):
    """One entry's status from its codes (all dtypes): pass, skipped, or the first failing cause."""
    allc = "".join(codes.values())
    real = allc.replace("S", "")
    if not real:
        return "no comparable sample"
    if set(real) == {"."}:
        return "pass"
    for c, name in (("M", "missing op"), ("K", "missing keyword or signature"), ("E", "error raised"),
                    ("R", "wrong result"), ("G", "wrong gradient")):
        if c in real:
            return name
    return "other"


def category_of(name, special):
    base = name[:-1] if name.endswith("_") and not name.endswith("__") else name
    if base in NEEDED_BY_NN or name in NEEDED_BY_NN:
        return None
    for cat, reason, pat in OUT_OF_SCOPE:
        if pat is None:
            if base in special or base.startswith("special_"):
                return cat
        elif re.search(pat, base) or re.search(pat, name):
            return cat
    return None


def in_scope_group(ns, name):
    if name.endswith("_") and not name.endswith("__"):
        return "in-place variants"
    if name.startswith("__") and name.endswith("__"):
        return "operators and Python protocol"
    if ns == "torch.Tensor" and name.startswith("is_"):
        return "predicates"
    if ns == "torch" and re.search(r"_like$|^(zeros|ones|empty|full|rand|randn|randint|randperm|arange|range|"
                                   r"linspace|logspace|eye|tensor|as_tensor|from_numpy|frombuffer|asarray|"
                                   r"empty_strided|normal|bernoulli|poisson|multinomial|tril_indices|triu_indices)$",
                                   name):
        return "factories and random sampling"
    return "other"


# ---------------------------------------------------------------------------
# the document


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def codes_text(codes):
    return " ".join("%s `%s`" % (d, c) for d, c in codes.items())


def build(glia, expected):
    names = load_json("names.json")
    index = load_json("index.json")
    headers = entry_headers()
    special = set(names.get("torch.special", []))
    M = "method."
    status = {op: status_of({k: v for k, v in expected.get(op, {}).items() if not k.startswith(M)})
              for op in headers}
    # a torch entry's Tensor method variant (method.<dtype> codes) counts for the torch.Tensor name
    mstatus = {op: status_of({k: v for k, v in expected.get(op, {}).items() if k.startswith(M)})
               for op, h in headers.items() if h.get("method_variant")}
    st = dict(status)
    st.update({op + "#method": s for op, s in mstatus.items()})

    # OpInfo entries (and method variants) per (OpInfo namespace, name)
    by_name = collections.defaultdict(list)
    for op, h in headers.items():
        n = h["name"][len("nn.functional."):] if h["namespace"] == "nn.functional" else h["name"]
        by_name[(h["namespace"], n)].append(op)
        if h.get("method_variant"):
            by_name[("Tensor", h["method_variant"])].append(op + "#method")

    L = []
    w = L.append
    w("# Coverage of torch 1.13's API")
    w("")
    w("Generated by `scripts/coverage.py` (do not edit; `python3 scripts/coverage.py --update` replays the "
      "OpInfo samples on the build and rewrites this page; docs/testing.md, \"OpInfo coverage\"). Inputs: torch "
      "1.13's public names and OpInfo samples (`tests/golden/opinfo/`, from `tests/golden/gen_opinfo.py`), the "
      "replay's status of every sample (`tests/golden/opinfo/expected.txt`) and the names glia's Python binding "
      "defines.")
    w("")

    # --- issue 20's target
    def oos(op):
        h = headers[op]
        n = h["name"][len("nn.functional."):] if h["namespace"] == "nn.functional" else h["name"]
        return category_of(n, special)

    target_ops = [op for op, h in headers.items() if h["namespace"] in ("torch", "nn.functional")]
    comparable = [op for op in target_ops if status[op] != "no comparable sample"]
    passing = [op for op in comparable if status[op] == "pass"]
    # An entry of an out-of-scope category that glia covers anyway (it passes) stays in the second row.
    scoped = [op for op in comparable if not oos(op) or status[op] == "pass"]
    scoped_pass = [op for op in scoped if status[op] == "pass"]
    w("## OpInfo target (issue 20)")
    w("")
    w("OpInfo entries of torch 1.13 in the `torch` and `torch.nn.functional` namespaces with float32 CPU samples "
      "(an entry is a name or a name's variant, e.g. `div.floor_rounding`): %d, of which %d have a sample the "
      "fixtures can hold (the others: complex or sparse only, or over the size cap). An entry passes when every "
      "sample, in float32 and in float64, gives torch's value and torch's gradients within torch's default "
      "tolerances (float32 rtol 1.3e-6 atol 1e-5, or that close to torch's float64 result; float64 rtol 1e-7 "
      "atol 1e-7; where torch raises, glia must raise)." % (len(target_ops), len(comparable)))
    w("")
    w("| | entries | passing | % passing | target |")
    w("|---|---|---|---|---|")
    def mark(p, n):
        return "met" if n and 100.0 * p / n >= TARGET else "not met"

    w("| torch + nn.functional | %d | %d | **%s** | >= %.0f%% (%s) |" % (
        len(comparable), len(passing), pct(len(passing), len(comparable)), TARGET,
        mark(len(passing), len(comparable))))
    w("| torch + nn.functional, without the out-of-scope categories (below) | %d | %d | **%s** | >= %.0f%% (%s) |"
      % (len(scoped), len(scoped_pass), pct(len(scoped_pass), len(scoped)), TARGET,
         mark(len(scoped_pass), len(scoped))))
    for ns in ("torch", "nn.functional", "Tensor"):
        ops = [op for op, h in headers.items() if h["namespace"] == ns and status[op] != "no comparable sample"]
        p = [op for op in ops if status[op] == "pass"]
        w("| %s%s | %d | %d | %s | |" % (ns, " (method-only entries; not in the target)" if ns == "Tensor" else "",
                                         len(ops), len(p), pct(len(p), len(ops))))
    mops = [op for op, s in mstatus.items() if s != "no comparable sample"]
    w("| Tensor-method variants of torch entries (not in the target) | %d | %d | %s | |" % (
        len(mops), len([op for op in mops if mstatus[op] == "pass"]),
        pct(len([op for op in mops if mstatus[op] == "pass"]), len(mops))))
    w("")
    w("Out-of-scope entries left out of the second row (those of these categories that pass count in it): %s."
      % (", ".join("`%s` (%s)" % (op, oos(op)) for op in sorted(comparable) if op not in scoped) or "none"))
    w("")
    counts = collections.Counter(status[op] for op in headers)
    w("Entries (function forms) by the first cause that keeps them from passing (all three namespaces; an entry "
      "with several "
      "causes counts under the first of: missing op, missing keyword or signature, error raised, wrong result, "
      "wrong gradient):")
    w("")
    w("| status | entries |")
    w("|---|---|")
    for s in ("pass", "missing op", "missing keyword or signature", "error raised", "wrong result",
              "wrong gradient", "no comparable sample"):
        w("| %s | %d |" % (s, counts.get(s, 0)))
    w("")
    samples = collections.Counter(c for op in headers for codes in expected.get(op, {}).values() for c in codes)
    w("Samples (one per sample, dtype and form, method variants included): " + ", ".join(
        "%s %d" % (name, samples.get(c, 0)) for c, name in (
            (".", "pass"), ("M", "missing op"), ("K", "missing keyword or signature"), ("E", "error raised"),
            ("R", "wrong result"), ("G", "wrong gradient"), ("S", "skipped in the fixture"))) + ".")
    w("")

    # --- per namespace
    w("## Per namespace")
    w("")
    w("Names are torch 1.13's public names (`dir()`; for torch.nn the module classes, for torch.optim the "
      "optimizers, for lr_scheduler the schedulers, for torch.nn.utils its functions and its submodules' names, "
      "e.g. `prune.l1_unstructured`). Present: glia's binding defines the same name there. "
      "Passing OpInfo: present, has OpInfo entries, and every entry passes. Absent, out of scope: a category "
      "below that glia does not cover.")
    w("")
    w("| namespace | torch names | present | % | with OpInfo entries | passing OpInfo | absent | absent, out of "
      "scope |")
    w("|---|---|---|---|---|---|---|---|")
    absent_lists = {}
    for ns, gpath, ons in NAMESPACES:
        obj = glia_object(glia, gpath)
        lst = names.get(ns, [])
        present = [n for n in lst if has_name(obj, n)]
        absent = [n for n in lst if not has_name(obj, n)]
        with_op = [n for n in lst if ons and by_name.get((ons, n))]
        passing_n = [n for n in with_op if n in present and all(st[op] == "pass" for op in by_name[(ons, n)])]
        oos = [n for n in absent if category_of(n, special)]
        absent_lists[ns] = absent
        w("| %s | %d | %d | %s | %s | %s | %d | %d |" % (
            ns, len(lst), len(present), pct(len(present), len(lst)), len(with_op) if ons else "-",
            len(passing_n) if ons else "-", len(absent), len(oos)))
    w("")

    # --- failing entries
    w("## OpInfo entries that do not pass")
    w("")
    w("Codes, one letter per sample (`tests/golden/opinfo/expected.txt`): `.` pass, `M` missing op, `K` missing "
      "keyword or signature, `E` error raised, `R` wrong result, `G` wrong gradient, `S` skipped in the fixture. "
      "The messages of a run are in `$GLIA_BUILD_DIR/opinfo_results.json`.")
    w("")
    for s in ("missing op", "missing keyword or signature", "error raised", "wrong result", "wrong gradient",
              "no comparable sample"):
        ops = sorted(op for op in headers if status[op] == s)
        if not ops:
            continue
        w("### %s (%d)" % (s[0].upper() + s[1:], len(ops)))
        w("")
        if s == "missing op":
            by_ns = collections.defaultdict(list)
            for op in ops:
                by_ns[headers[op]["namespace"]].append(op)
            for ns in sorted(by_ns):
                w("- %s: %s" % (ns, ", ".join("`%s`" % op for op in by_ns[ns])))
        else:
            for op in ops:
                w("- `%s`: %s" % (op, codes_text(expected.get(op, {}))))
        w("")

    bad_m = sorted(op for op, s in mstatus.items() if s not in ("pass", "no comparable sample"))
    if bad_m:
        w("### Tensor-method variants that do not pass (%d)" % len(bad_m))
        w("")
        w("Torch entries whose method form (`input.name(*args, **kwargs)`) fails, with the first cause: " + ", ".join(
            "`%s` (%s)" % (headers[op]["method_variant"] if headers[op]["variant"] == "" else op, mstatus[op])
            for op in bad_m) + ".")
        w("")

    # --- absent names
    w("## Absent names")
    w("")
    w("Out-of-scope categories and their reasons (a name torch.nn needs stays in scope: %s):" % ", ".join(
        "`%s` (%s)" % (k, v) for k, v in sorted(NEEDED_BY_NN.items())))
    w("")
    for cat, reason, _ in OUT_OF_SCOPE:
        w("- **%s**: %s." % (cat, reason))
    w("")
    for ns, _, _ in NAMESPACES:
        absent = absent_lists[ns]
        if not absent:
            continue
        w("### %s (%d absent)" % (ns, len(absent)))
        w("")
        groups = collections.defaultdict(list)
        for n in absent:
            cat = category_of(n, special)
            groups[("out of scope: " + cat) if cat else in_scope_group(ns, n)].append(n)
        order = ["other", "factories and random sampling", "predicates", "operators and Python protocol",
                 "in-place variants"] + ["out of scope: " + c for c, _, _ in OUT_OF_SCOPE]
        for g in order:
            if groups.get(g):
                w("- %s (%d): %s" % (g, len(groups[g]), ", ".join("`%s`" % n for n in groups[g])))
        w("")

    # --- OpInfo entries without fixture
    w("## OpInfo entries without a fixture")
    w("")
    outs = collections.defaultdict(list)
    for e in index:
        if "out" in e:
            outs[e["out"]].append(e["op"])
    for why in sorted(outs):
        w("- %s (%d): %s" % (why, len(outs[why]), ", ".join("`%s`" % op for op in outs[why])))
    w("")
    return "\n".join(L)


def main():
    try:
        import numpy  # noqa: F401  (glia's binding needs it, as bindings/python/test.sh does)
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        raise
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare with docs/coverage.md instead of writing it")
    ap.add_argument("--update", action="store_true", help="replay OpInfo first and rewrite expected.txt")
    a = ap.parse_args()
    if a.update:
        env = dict(os.environ, GLIA_OPINFO_UPDATE="1")
        rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              os.path.join(ROOT, "bindings", "python", "tests", "test_opinfo.py"),
                              "-k", "replay"], env=env)
        if rc != 0:
            print("coverage.py: the replay reported regressions (above); expected.txt was rewritten anyway: "
                  "review its diff", file=sys.stderr)
    glia = import_glia()
    import _opinfo
    text = build(glia, _opinfo.read_expected())
    if a.check:
        with open(DOC) as f:
            old = f.read()
        if old != text:
            import difflib
            diff = "".join(list(difflib.unified_diff(old.splitlines(True), text.splitlines(True), "docs/coverage.md",
                                                     "generated"))[:80])
            print("docs/coverage.md is out of date: run python3 scripts/coverage.py --update\n" + diff,
                  file=sys.stderr)
            return 1
        return 0
    with open(DOC, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
