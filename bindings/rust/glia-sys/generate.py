#!/usr/bin/env python3
"""Generates glia-sys/src/lib.rs from include/glia/glia.h.

Run from anywhere: python3 bindings/rust/glia-sys/generate.py. The output is
plain Rust and is committed; the crate does not run this script. Enums become
`c_int` type aliases plus constants (a C enum that returns a value unknown to
this version must not be undefined behaviour in Rust), structs `#[repr(C)]`
structs, opaque handles zero-sized `#[repr(C)]` structs, callbacks
`Option<unsafe extern "C" fn ...>`.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "..", "..", "include", "glia", "glia.h")
OUT = os.path.join(HERE, "src", "lib.rs")

PRIMS = {
    "int64_t": "i64", "int32_t": "i32", "uint64_t": "u64", "uint32_t": "u32", "uint8_t": "u8",
    "size_t": "usize", "double": "f64", "float": "f32", "char": "c_char", "void": "c_void",
    "int": "c_int", "unsigned": "c_uint",
}


def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
    s = re.sub(r"//[^\n]*", " ", s)
    return s


def rust_type(ctype):
    """C type text (no name) -> Rust type."""
    ctype = ctype.replace("*", " * ").replace("struct ", "").replace("enum ", "")
    toks = ctype.split()
    base_const = False
    base = None
    i = 0
    while i < len(toks) and toks[i] != "*":
        if toks[i] == "const":
            base_const = True
        else:
            assert base is None, ctype
            base = toks[i]
        i += 1
    ptrs = []  # trailing-const flags of each '*'
    while i < len(toks):
        assert toks[i] == "*", ctype
        c = i + 1 < len(toks) and toks[i + 1] == "const"
        ptrs.append(c)
        i += 2 if c else 1
    r = PRIMS.get(base, base)
    if not ptrs:
        return "()" if r == "c_void" else r
    const = base_const
    for c in ptrs:
        r = ("*const " if const else "*mut ") + r
        const = c
    return r


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


RUST_KEYWORDS = {"type", "fn", "ref", "mut", "self", "in", "match", "move", "box", "use", "where", "loop", "impl", "mod", "str", "dyn", "priv", "unsafe", "async", "await", "const", "static", "struct", "enum", "trait", "crate", "super", "extern", "let", "if", "else", "while", "for", "return", "break", "continue", "true", "false", "as", "pub", "yield", "macro", "override", "final", "virtual", "abstract", "become", "do", "typeof", "unsized", "try"}


def fnptr(ret, params):
    args = [param(p, i)[1] for i, p in enumerate(params) if p.strip() != "void"]
    r = rust_type(ret)
    tail = "" if r == "()" else " -> " + r
    return "Option<unsafe extern \"C\" fn(" + ", ".join(args) + ")" + tail + ">"


def param(p, index, field=False):
    """'const glia_tensor *a' -> (name, type). Handles function pointers and arrays (a struct field's array is
    an array; a parameter's decays to a pointer)."""
    m = re.match(r"^(.*?)\(\s*\*\s*(\w*)\s*\)\s*\((.*)\)$", p, re.S)
    if m:
        return (m.group(2) or "arg%d" % index), fnptr(m.group(1), split_params(m.group(3)))
    m = re.match(r"^(.*?)(\w+)\s*\[(\d+)\]$", p)
    if m and field:
        return m.group(2), "[%s; %s]" % (rust_type(m.group(1)), m.group(3))
    if m:  # an array parameter is a pointer in C's calling convention (it decays)
        return m.group(2), rust_type(m.group(1).strip() + " *")
    m = re.match(r"^(.*[\s*])(\w+)$", p)
    if m and m.group(2) not in PRIMS and m.group(2) not in ("const",) and not m.group(1).strip() in ("", "const", "struct", "enum"):
        return m.group(2), rust_type(m.group(1))
    return "arg%d" % index, rust_type(p)


def safe_name(n):
    return n + "_" if n in RUST_KEYWORDS else n


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


def main():
    text = _with_included(HEADER, open(HEADER).read())
    s = strip_comments(text)
    s = re.sub(r"static inline[^{]*\{.*?\n\}", " ", s, flags=re.S)
    defines = re.findall(r"#define\s+(GLIA_(?:VERSION_MAJOR|VERSION_MINOR|VERSION_PATCH|MODULE_MAX_OUTPUTS|HOOK_\w+))\s+(\w+)", s)
    s = re.sub(r"#[^\n]*", " ", s)
    s = s.replace("GLIA_ENUM_BASE", "").replace("GLIA_NODISCARD", "")
    s = re.sub(r'extern\s+"C"\s*\{', " ", s)
    s = re.sub(r"\s+", " ", s)

    out = []
    w = out.append
    w("// @generated by generate.py from include/glia/glia.h. Do not edit by hand: change the")
    w("// header and rerun `python3 bindings/rust/glia-sys/generate.py`.")
    w("//! Raw FFI declarations of libglia's C API (`include/glia/glia.h`).")
    w("//!")
    w("//! Every function of the header is declared here with the same name and parameters;")
    w("//! `tests/header.rs` checks that against the header. Read `docs/c-api.md` for the")
    w("//! ownership, error and threading rules; the safe wrapper is the `glia` crate.")
    w("//!")
    w("//! C enums are `c_int` type aliases with one constant per value, so that a value this")
    w("//! version does not know (the header only ever appends values) is not undefined behaviour.")
    w("#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, clippy::all)]")

    w("")
    w("pub use core::ffi::c_void;")
    w("pub use std::os::raw::{c_char, c_int, c_uint};")
    w("")
    for name, val in defines:
        v = val.rstrip("u")
        ty = "u32" if name.startswith("GLIA_HOOK") else ("i64" if name == "GLIA_MODULE_MAX_OUTPUTS" else "u32")
        w("pub const %s: %s = %s;" % (name, ty, v))
    w("pub const GLIA_VERSION_NUMBER: u32 = GLIA_VERSION_MAJOR * 1000000 + GLIA_VERSION_MINOR * 1000 + GLIA_VERSION_PATCH;")
    w("")

    funcs = []
    pos = 0
    stmt_re = re.compile(r"\s*([^;{]*(?:\{[^}]*\}[^;]*)?);")
    n_enums = n_structs = 0
    while True:
        m = stmt_re.match(s, pos)
        if not m:
            break
        pos = m.end()
        st = m.group(1).strip()
        if not st or st == "}":
            continue
        em = re.match(r"^(?:typedef )?enum (\w+) \{(.*)\}\s*(\w*)$", st)
        if em:
            name = em.group(1)
            w("pub type %s = c_int;" % name)
            for item in em.group(2).split(","):
                item = item.strip()
                if not item:
                    continue
                k, v = [x.strip() for x in item.split("=")]
                w("pub const %s: %s = %s;" % (k, name, v))
            w("")
            n_enums += 1
            continue
        sm = re.match(r"^typedef struct (\w+) \{(.*)\}\s*(\w+)$", st)
        if sm:
            name = sm.group(3)
            w("#[repr(C)]")
            w("#[derive(Copy, Clone)]")
            w("pub struct %s {" % name)
            for i, f in enumerate(x.strip() for x in sm.group(2).split(";")):
                if not f:
                    continue
                fname, fty = param(f, i, field=True)
                w("    pub %s: %s," % (safe_name(fname), fty))
            w("}")
            w("")
            n_structs += 1
            continue
        om = re.match(r"^(?:typedef )?struct (\w+)(?: (\w+))?$", st)
        if om:
            name = om.group(2) or om.group(1)
            w("#[repr(C)]")
            w("pub struct %s {" % name)
            w("    _private: [u8; 0],")
            w("    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,")
            w("}")
            w("")
            continue
        fm = re.match(r"^typedef (.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", st)
        if fm:
            w("pub type %s = %s;" % (fm.group(2), fnptr(fm.group(1), split_params(fm.group(3)))))
            w("")
            continue
        am = re.match(r"^typedef (\w+) (\w+)$", st)
        if am:
            w("pub type %s = %s;" % (am.group(2), am.group(1)))
            w("")
            continue
        gm = re.match(r"^GLIA_API (.*?)\b(glia_\w+)\s*\((.*)\)$", st)
        if gm:
            funcs.append((gm.group(1), gm.group(2), split_params(gm.group(3))))
            continue
        sys.exit("generate.py: cannot parse: " + st[:200])

    w("extern \"C\" {")
    for ret, name, params in funcs:
        args = []
        for i, p in enumerate(params):
            if p == "void":
                continue
            pn, pt = param(p, i)
            args.append("%s: %s" % (safe_name(pn), pt))
        r = rust_type(ret)
        tail = "" if r == "()" else " -> " + r
        w("    pub fn %s(%s)%s;" % (name, ", ".join(args), tail))
    w("}")
    w("")
    w(HELPERS)
    open(OUT, "w").write("\n".join(out))
    print("generate.py: %d functions, %d enums, %d structs -> %s" % (len(funcs), n_enums, n_structs, OUT))


HELPERS = '''/// `glia_scalar_float(v)` of the header (a `static inline` function there).
pub const fn glia_scalar_float(v: f64) -> glia_scalar {
    glia_scalar { type_: GLIA_SCALAR_FLOAT, reserved_: 0, f: v, i: 0 }
}

/// `glia_scalar_int(v)` of the header.
pub const fn glia_scalar_int(v: i64) -> glia_scalar {
    glia_scalar { type_: GLIA_SCALAR_INT, reserved_: 0, f: 0.0, i: v }
}

/// `glia_scalar_bool(v)` of the header.
pub const fn glia_scalar_bool(v: bool) -> glia_scalar {
    glia_scalar { type_: GLIA_SCALAR_BOOL, reserved_: 0, f: 0.0, i: v as i64 }
}
'''

if __name__ == "__main__":
    main()
