"""glia/_cdefs.py declares exactly the functions of include/glia/glia.h, each with its arity."""

import os
import re

from glia import _cdefs

from _repo import ROOT

HEADER = os.path.join(ROOT, "include", "glia", "glia.h")


def header_functions():
    text = ""
    for path in (os.path.join(os.path.dirname(HEADER), "glia_base.h"), HEADER):  # glia.h includes glia_base.h
        with open(path, encoding="utf-8") as f:
            text += f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    out = {}
    for m in re.finditer(r"\bGLIA_API\b[^;{}]*?\b(glia_\w+)\s*\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        params = text[m.end() : i - 1]
        parts, depth, cur = [], 0, ""
        for ch in params:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        parts = [p.strip() for p in parts if p.strip()]
        out[m.group(1)] = 0 if parts == ["void"] else len(parts)
    return out


def test_every_function_declared_with_its_arity():
    declared = header_functions()
    generated = {name: len(v[1]) for name, v in _cdefs.FUNCTIONS.items()}
    assert len(declared) > 300
    assert sorted(set(declared) - set(generated)) == [], "missing: run bindings/python/gen_cdefs.py"
    assert sorted(set(generated) - set(declared)) == [], "stale: run bindings/python/gen_cdefs.py"
    assert {n: a for n, a in generated.items() if declared[n] != a} == {}


def test_version_matches_header():
    with open(os.path.join(os.path.dirname(HEADER), "glia_base.h"), encoding="utf-8") as f:
        major = re.search(r"#define\s+GLIA_VERSION_MAJOR\s+(\d+)", f.read()).group(1)
    assert _cdefs.GLIA_VERSION_MAJOR == int(major)
