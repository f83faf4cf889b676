#!/usr/bin/env python3
"""Writes glia/_cdefs.py, the ctypes declarations of include/glia/glia.h.

The header is parsed by clang (``clang -Xclang -ast-dump=json``), so every
enum, struct, callback type and function is read as the compiler reads it;
nothing is declared by hand. Run it after changing glia.h:

    python3 bindings/python/gen_cdefs.py            # rewrite glia/_cdefs.py
    python3 bindings/python/gen_cdefs.py --check    # exit 1 when it is stale

tests/test_cdefs.py checks, without clang, that the generated file declares
exactly the functions of glia.h with the same number of parameters.
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HEADER = os.path.join(ROOT, "include", "glia", "glia.h")
OUTPUT = os.path.join(HERE, "glia", "_cdefs.py")

SCALARS = {
    "void": "None",
    "char": "c_char",
    "int": "c_int",
    "unsigned int": "c_uint",
    "float": "c_float",
    "double": "c_double",
    "size_t": "c_size_t",
    "int8_t": "c_int8",
    "uint8_t": "c_uint8",
    "int16_t": "c_int16",
    "uint16_t": "c_uint16",
    "int32_t": "c_int32",
    "uint32_t": "c_uint32",
    "int64_t": "c_int64",
    "uint64_t": "c_uint64",
}


class Header:
    def __init__(self, ast):
        self.enums = {}  # tag -> [(name, value)]
        self.enum_typedefs = set()
        self.structs = {}  # name -> [(field, type string)] (complete definitions)
        self.opaque = set()  # struct names without a definition (handles)
        self.func_typedefs = {}  # name -> type string
        self.aliases = {}  # typedef name -> the struct typedef it renames
        self.functions = []  # (name, return type, [(param name, type string)])
        for node in ast["inner"]:
            kind, name = node["kind"], node.get("name", "")
            if not name.startswith(("glia_", "DL")) and kind != "EnumDecl":
                continue
            if kind == "EnumDecl" and name.startswith("glia_"):
                self.enums[name] = self._enum_values(node)
            elif kind == "RecordDecl" and name.startswith("glia_"):
                if node.get("completeDefinition"):
                    self.structs[name] = [
                        (f["name"], f["type"]["qualType"]) for f in node.get("inner", []) if f["kind"] == "FieldDecl"
                    ]
                    self.opaque.discard(name)
                elif name not in self.structs:
                    self.opaque.add(name)
            elif kind == "TypedefDecl" and name.startswith("glia_"):
                q = node["type"]["qualType"]
                if q.startswith("enum "):
                    self.enum_typedefs.add(name)
                elif "(*)" in q:
                    self.func_typedefs[name] = q
                elif not q.startswith("struct ") and q.startswith("glia_"):
                    self.aliases[name] = q  # typedef glia_adam_options glia_adamw_options;
            elif kind == "FunctionDecl" and name.startswith("glia_") and node.get("storageClass") != "static":
                ret = node["type"]["qualType"].split("(")[0].strip()
                params = [(p.get("name", ""), p["type"]["qualType"]) for p in node.get("inner", []) if p["kind"] == "ParmVarDecl"]
                self.functions.append((name, ret, params))

    @staticmethod
    def _enum_values(node):
        values, nxt = [], 0
        for c in node.get("inner", []):
            if c["kind"] != "EnumConstantDecl":
                continue
            v = nxt
            for e in c.get("inner", []):
                if e["kind"] == "ConstantExpr" and "value" in e:
                    v = int(e["value"])
            values.append((c["name"], v))
            nxt = v + 1
        return values

    def ctype(self, t, *, arg=False):
        """The ctypes expression of C type string `t`."""
        t = t.strip()
        m = re.fullmatch(r"(.*)\(\*\)\((.*)\)", t)
        if m:  # an inline function pointer
            ret = self.ctype(m.group(1))
            args = [a for a in split_params(m.group(2)) if a != "void"]
            return "CFUNCTYPE(%s)" % ", ".join([ret] + [self.ctype(a) for a in args])
        m = re.fullmatch(r"(.*)\[(\d+)\]", t)
        if m:
            return "(%s * %s)" % (self.ctype(m.group(1)), m.group(2))
        base = re.sub(r"\bconst\b", "", t).strip()
        stars = base.count("*")
        base = base.replace("*", "").strip()
        base = re.sub(r"^(struct|enum)\s+", "", base)
        base = self.aliases.get(base, base)
        if stars == 0:
            if base in SCALARS:
                return SCALARS[base]
            if base in self.enums or base in self.enum_typedefs:
                return "c_int"
            if base in self.func_typedefs:
                return base
            if base in self.structs:
                return base
            raise ValueError("no ctypes mapping for %r" % t)
        if base in ("char",) and stars == 1:
            # const char *: c_char_p (bytes). A writable char * is an out buffer: POINTER(c_char) for a
            # function parameter (pass create_string_buffer), c_void_p in a callback (ctypes would hand
            # a c_char_p to Python as an immutable copy).
            if "const" in t:
                return "c_char_p"
            return "POINTER(c_char)" if arg else "c_void_p"
        if base == "void" or base in self.opaque or base == "glia_error" or base.startswith("DL"):
            inner = "c_void_p"
        else:
            inner = self.ctype(base)
        for _ in range(stars - 1 if inner == "c_void_p" else stars):
            inner = "POINTER(%s)" % inner
        return inner


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def struct_order(h):
    """Structs in dependency order (a struct field needs its type defined first)."""
    done, order = set(), []

    def visit(name):
        if name in done:
            return
        done.add(name)
        for _, t in h.structs[name]:
            base = re.sub(r"^(struct|const)\s+", "", t.replace("*", "").strip())
            if base in h.structs and "*" not in t:
                visit(base)
        order.append(name)

    for name in h.structs:
        visit(name)
    return order


def _with_included(path, text):
    """`text` of a public header with its `#include "glia/..."` lines replaced by those headers' text
    (glia.h includes glia/glia_base.h)."""
    inc = os.path.dirname(os.path.dirname(os.path.abspath(path)))

    def one(m):
        with open(os.path.join(inc, m.group(1)), encoding="utf-8") as f:
            body = f.read()
        # its own extern "C" block is the includer's already
        return re.sub(r'#ifdef __cplusplus\n(?:extern "C" \{|\}[^\n]*)\n#endif\n', "", body)

    return re.sub(r'^#include "(glia/[A-Za-z0-9_]+\.h)"[ \t]*$', one, text, flags=re.M)


def generate(header=HEADER):
    ast = json.loads(
        subprocess.run(
            ["clang", "-x", "c", "-std=c99", "-I", os.path.dirname(os.path.dirname(os.path.abspath(header))),
             "-Xclang", "-ast-dump=json", "-fsyntax-only", header],
            check=True,
            capture_output=True,
        ).stdout
    )
    h = Header(ast)
    out = [
        "# Generated by bindings/python/gen_cdefs.py from include/glia/glia.h: do not edit.",
        "# ruff: noqa",
        "from ctypes import *  # noqa: F401,F403",
        "",
        "",
    ]
    with open(header, encoding="utf-8") as f:
        text = _with_included(header, f.read())
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"#define\s+GLIA_VERSION_%s\s+(\d+)" % part, text)
        out.append("GLIA_VERSION_%s = %s" % (part, m.group(1)))
    out += ["", "# Enums"]
    for tag, values in h.enums.items():
        out.append("# enum %s" % tag)
        for n, v in values:
            out.append("%s = %d" % (n, v))
    out += ["", "# Callback types (referenced by structs, so they come first)"]
    # Function typedefs may mention structs by pointer only; declare struct shells first.
    for name in struct_order(h):
        out.append("class %s(Structure):\n    pass" % name)
    for name, q in h.func_typedefs.items():
        out.append("%s = %s" % (name, h.ctype(q)))
    for name, target in h.aliases.items():
        out.append("%s = %s" % (name, target))
    out += ["", "# Structs"]
    for name in struct_order(h):
        fields = ", ".join('("%s", %s)' % (f, h.ctype(t)) for f, t in h.structs[name])
        out.append("%s._fields_ = [%s]" % (name, fields))
    out += [
        "",
        "# Functions: name -> (restype, [argtypes], [parameter names])",
        "FUNCTIONS = {",
    ]
    for name, ret, params in h.functions:
        r = "c_void_p" if ret.replace("const", "").strip() == "glia_error *" else h.ctype(ret)
        args = ", ".join(h.ctype(t, arg=True) for _, t in params)
        names = ", ".join('"%s"' % n for n, _ in params)
        out.append('    "%s": (%s, [%s], [%s]),' % (name, r, args, names))
    out.append("}")
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when glia/_cdefs.py is stale")
    args = ap.parse_args()
    text = generate()
    if args.check:
        with open(OUTPUT, encoding="utf-8") as f:
            if f.read() != text:
                print("gen_cdefs: %s is stale; run python3 bindings/python/gen_cdefs.py" % OUTPUT, file=sys.stderr)
                return 1
        return 0
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("gen_cdefs: wrote %s (%d functions)" % (OUTPUT, text.count('": (')))
    return 0


if __name__ == "__main__":
    sys.exit(main())
