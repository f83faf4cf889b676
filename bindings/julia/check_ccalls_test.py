#!/usr/bin/env python3
"""Self-test of check_ccalls.py: proof that it can fail, and that it passes the real binding.

1. The header model: the GLIA_API functions it reads from glia.h are exactly the names of
   abi/glia.symbols.
2. The real binding (bindings/julia/src): exit status 0, no mismatches, "wrapped N of M" with M
   the number of exported functions.
3. The deliberately broken fixture (check_fixtures/broken.jl): exit status 1 and exactly the
   mismatches its `# EXPECT: function | where | text` markers name, at their lines: none missed,
   none extra (the fixture's right calls must pass).
4. Mutations of the real Glia.jl (one wrong type, a swapped struct field, a dropped argument, a
   wrong callback signature, ...): each one alone must make the checker fail with the expected
   message. A mutation that no longer applies to Glia.jl fails this test: update it here.
5. Where a C compiler is found ($CC, cc, gcc, clang), the struct sizes, alignments and field
   offsets and the enum sizes the checker computes for glia.h are compared with the compiler's.

    /usr/bin/python3 bindings/julia/check_ccalls_test.py      # exit 0 when all hold

Standard library only; ctest runs it as julia.ccalls_self_test.
"""

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECKER = os.path.join(HERE, "check_ccalls.py")
FIXTURE = os.path.join(HERE, "check_fixtures", "broken.jl")
SOURCES = os.path.join(HERE, "src")
GLIA_JL = os.path.join(SOURCES, "Glia.jl")
HEADER = os.path.join(ROOT, "include", "glia", "glia.h")
SYMBOLS = os.path.join(ROOT, "abi", "glia.symbols")

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import check_ccalls  # noqa: E402

ERR_RE = re.compile(r"^(?P<path>\S+?\.jl):(?P<line>\d+): (?P<msg>.*)$")
MARK_RE = re.compile(r"#\s*EXPECT:\s*(?P<func>[^|]+?)\s*\|\s*(?P<where>[^|]+?)\s*\|\s*(?P<text>.+?)\s*$")

failures = []
passed = []


def check(cond, what, detail=""):
    if cond:
        passed.append(what)
    else:
        failures.append(what + (("\n      " + detail.replace("\n", "\n      ")) if detail else ""))


def run_checker(*args):
    p = subprocess.run([sys.executable, CHECKER, "--header", HEADER, "--symbols", SYMBOLS] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, cwd=ROOT)
    return p.returncode, p.stdout


def run_in_process(*args):
    """check_ccalls.main without a new interpreter (the mutations run it many times)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = check_ccalls.main(["--header", HEADER, "--symbols", SYMBOLS] + list(args))
    return rc, buf.getvalue()


def errors_of(output):
    out = []
    for ln in output.splitlines():
        m = ERR_RE.match(ln)
        if m:
            out.append((os.path.realpath(os.path.join(ROOT, m.group("path"))), int(m.group("line")), m.group("msg")))
    return out


def test_header():
    h = check_ccalls.Header(HEADER, SYMBOLS)
    exported = set(h.exported())
    check(exported == h.symbols, "header: the GLIA_API functions read from glia.h are abi/glia.symbols",
          "only in glia.h: %s\nonly in glia.symbols: %s" % (sorted(exported - h.symbols)[:10],
                                                           sorted(h.symbols - exported)[:10]))
    check(not h.problems, "header: no C/C++ enum base disagreement", "\n".join(h.problems))
    check("glia_scalar_float" in h.static_inline, "header: static inline helpers are known as such")
    return h


def test_real(h):
    rc, out = run_checker(SOURCES)
    check(rc == 0, "real binding: exit status 0", "status %d\n%s" % (rc, out[-3000:]))
    check("no mismatches" in out and not errors_of(out), "real binding: no mismatches", out[-3000:])
    check("warning:" not in out, "real binding: every @cfunction reaches a checked C callback slot", out[-3000:])
    m = re.search(r"wrapped (\d+) of (\d+) glia.h functions", out)
    check(m is not None and int(m.group(2)) == len(h.symbols) and 0 < int(m.group(1)) <= int(m.group(2)),
          "real binding: reports wrapped N of M (M = %d exported functions)" % len(h.symbols), out[-2000:])
    m2 = re.search(r"(\d+) ccalls checked", out)
    check(m2 is not None and int(m2.group(1)) > 50, "real binding: the ccalls were found (%s)" % (
        m2.group(1) if m2 else "?"))
    rc, out = run_checker("--coverage", SOURCES)
    check(rc == 0 and "Tensors: wrapped" in out, "real binding: --coverage lists the sections of glia.h", out[-2000:])
    if m:
        print("  real binding: %s; %s" % (m2.group(0) if m2 else "?", m.group(0)))


def test_fixture():
    marks = {}
    with open(FIXTURE, encoding="utf-8") as f:
        for n, ln in enumerate(f, 1):
            m = MARK_RE.search(ln)
            if m:
                marks[n] = m
    check(len(marks) >= 15, "fixture: has its EXPECT markers (%d)" % len(marks))
    rc, out = run_checker(FIXTURE)
    check(rc == 1, "fixture: exit status 1", "status %d\n%s" % (rc, out[-3000:]))
    errs = [(ln, msg) for path, ln, msg in errors_of(out) if path == os.path.realpath(FIXTURE)]
    check(len(errs) == len(errors_of(out)), "fixture: every error names the fixture")
    by_line = {}
    for ln, msg in errs:
        by_line.setdefault(ln, []).append(msg)
    for ln, m in sorted(marks.items()):
        func, where, text = m.group("func"), m.group("where"), m.group("text")
        got = by_line.get(ln, [])

        def fits(msg):
            if not (msg.startswith(func + ":") or msg.startswith(func + " (") or msg.startswith(func + " for ")):
                return False
            if where == "count" and not re.search(r"\d+ (argument types|values passed) for \d+", msg):
                return False
            if where.startswith("argument") and (where + " (") not in msg:
                return False
            if where == "return value" and "return value:" not in msg:
                return False
            return text in msg
        hits = [msg for msg in got if fits(msg)]
        check(len(hits) == 1 and len(got) == 1, "fixture line %d: %s | %s | %s" % (ln, func, where, text),
              "reported at this line:\n" + ("\n".join(got) or "(nothing)"))
    extra = [(ln, msg) for ln, msg in errs if ln not in marks]
    check(not extra, "fixture: no mismatch reported for a right call",
          "\n".join("line %d: %s" % e for e in extra))
    check(re.search(r": %d mismatches" % len(marks), out) is not None,
          "fixture: the summary counts %d mismatches" % len(marks), out[-1500:])
    print("  fixture: %d expected mismatches, %d reported" % (len(marks), len(errs)))


# (what, text in Glia.jl, replacement, text expected in the checker's output)
MUTATIONS = [
    ("Int32 for int64_t", "@g glia_softmax P (P, Int64, Ref{P})", "@g glia_softmax P (P, Int32, Ref{P})",
     "glia_softmax: argument 2 (dim): Julia Int32 vs C int64_t"),
    ("swapped struct fields", "    weight_decay::Cdouble\n    nesterov::Int32\n",
     "    nesterov::Int32\n    weight_decay::Cdouble\n",
     "glia_optim_sgd: argument 3 (options): Julia Ref{SGDOptions}"),
    ("dropped argument", "@g glia_module_load P (P, Cstring, Int32, P)", "@g glia_module_load P (P, Cstring, P)",
     "glia_module_load: 3 argument types for 4 C parameters"),
    ("callback missing a parameter", "@cfunction(_tensor_hook_tramp, P, (P, P, Ptr{P}))",
     "@cfunction(_tensor_hook_tramp, P, (P, P))", "@cfunction(_tensor_hook_tramp) for glia_tensor_hook_fn"),
    ("callback with Int32 for int64_t", "@cfunction(_forward_tramp, P, (P, P, Ptr{P}, Int64,",
     "@cfunction(_forward_tramp, P, (P, P, Ptr{P}, Int32,", "argument 4 (n_inputs): Julia Int32 vs C int64_t"),
    ("struct missing a field", "    get_extra_state::P\n", "",
     "glia_module_create: argument 2 (def): Julia Ref{ModuleDef}"),
    ("by-value struct with a 64-bit tag", "    kind::Cint\n", "    kind::Int64\n",
     "glia_add_scalar: argument 2 (s): Julia GliaScalar vs C glia_scalar"),
    ("unknown name in a loop", "(:neg, :glia_neg)", "(:neg, :glia_negate)",
     "glia_negate (c = :glia_negate): not declared in glia.h"),
    ("Cstring for a writable buffer", "@g glia_tensor_to_string P (P, Ptr{UInt8},",
     "@g glia_tensor_to_string P (P, Cstring,", "C writes into this char buffer"),
    ("Int64 for an enum out-parameter", "@g glia_tensor_dtype P (P, Ref{Cint})",
     "@g glia_tensor_dtype P (P, Ref{Int64})", "glia_tensor_dtype: argument 2 (out_dtype): Julia Ref{Int64}"),
    ("UInt32 for uint64_t", "@g glia_manual_seed Cvoid (UInt64,)", "@g glia_manual_seed Cvoid (UInt32,)",
     "glia_manual_seed: argument 1 (seed): Julia UInt32 vs C uint64_t"),
]


def test_mutations():
    with open(GLIA_JL, encoding="utf-8") as f:
        original = f.read()
    tmp = tempfile.mkdtemp(prefix="check_ccalls_test.")
    try:
        src = os.path.join(tmp, "src")
        os.mkdir(src)
        for what, old, new, expected in MUTATIONS:
            n = original.count(old)
            if n != 1:
                check(False, "mutation '%s' applies to Glia.jl" % what,
                      "%r occurs %d times in Glia.jl: update MUTATIONS in check_ccalls_test.py" % (old, n))
                continue
            with open(os.path.join(src, "Glia.jl"), "w", encoding="utf-8") as f:
                f.write(original.replace(old, new))
            rc, out = run_in_process(src)
            check(rc == 1 and expected in out, "mutation '%s' is caught" % what,
                  "status %d, expected %r in:\n%s" % (rc, expected, "\n".join(
                      ln for ln in out.splitlines() if ERR_RE.match(ln)) or out[-1500:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def find_cc():
    for c in ([os.environ["CC"]] if os.environ.get("CC") else []) + ["cc", "gcc", "clang"]:
        if shutil.which(c.split()[0]):
            return c.split()
    return None


def test_layout_with_cc(h):
    cc = find_cc()
    if cc is None:
        print("  layout cross-check: skipped (no C compiler found)")
        return
    structs = [s for s in h.structs.values() if s.fields is not None and s.typedef_name]
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <glia/glia.h>", "int main(void) {"]
    expected = []
    for s in structs:
        n = s.typedef_name
        lines.append('  printf("%s %%zu %%zu\\n", sizeof(%s), _Alignof(%s));' % (n, n, n))
        size, align = check_ccalls.c_size_align(s)
        expected.append("%s %d %d" % (n, size, align))
        off = 0
        for fname, ft in s.fields:
            fs, fa = check_ccalls.c_size_align(ft)
            off = check_ccalls._align(off, fa)
            lines.append('  printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (n, fname, n, fname))
            expected.append("%s.%s %d" % (n, fname, off))
            off += fs
    for tag, e in h.enums.items():
        lines.append('  printf("enum %s %%zu\\n", sizeof(enum %s));' % (tag, tag))
        expected.append("enum %s %d" % (tag, e.base.size))
    lines += ["  return 0;", "}"]
    tmp = tempfile.mkdtemp(prefix="check_ccalls_cc.")
    try:
        c_file, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(c_file, "w") as f:
            f.write("\n".join(lines) + "\n")
        p = subprocess.run(cc + ["-std=c11", "-I", os.path.join(ROOT, "include"), c_file, "-o", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if p.returncode != 0:
            check(False, "layout cross-check: %s compiles the probe" % " ".join(cc), p.stdout[-2000:])
            return
        got = subprocess.run([exe], stdout=subprocess.PIPE, universal_newlines=True).stdout.split("\n")
        got = [g for g in got if g]
        diff = [(e, g) for e, g in zip(expected, got) if e != g]
        check(len(got) == len(expected) and not diff,
              "layout cross-check: %d struct sizes/offsets and enum sizes agree with %s" % (len(expected), cc[0]),
              "\n".join("checker %s, compiler %s" % d for d in diff[:10]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    h = test_header()
    test_real(h)
    test_fixture()
    test_mutations()
    test_layout_with_cc(h)
    for p in passed:
        print("ok   " + p)
    for f in failures:
        print("FAIL " + f)
    print("check_ccalls_test: %d passed, %d failed" % (len(passed), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
