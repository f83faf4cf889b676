#!/usr/bin/env python3
"""Checks every ccall of the Julia binding against include/glia/glia.h, without Julia.

Julia is not packaged for Debian 12, so bindings/julia has never run on the CI
machine. A wrong ccall is not an exception but memory corruption, so this
script proves statically what can be proven: for every call of a C function in
bindings/julia/src/*.jl (plain `ccall(...)`, `@ccall`, and macros of the
binding whose body is a ccall, such as Glia.jl's `@g name Ret (Types...) args...`,
including names interpolated from `for` loops under `@eval`) it checks

  - that the function is declared GLIA_API in glia.h and listed in
    abi/glia.symbols (a static inline function of glia.h has no symbol);
  - that the number of argument types equals the number of C parameters (and
    the number of values passed equals the number of types);
  - that each Julia argument type and the return type have the C type's size
    and meaning on the LP64 ABI that glia targets: handles and other opaque
    pointers <-> Ptr{Cvoid}; integers and floats by kind, signedness and size
    (so Int32 for int64_t, UInt64 for int64_t, Bool for int32_t all fail); enums
    by their underlying type (int, or the fixed base the header gives them);
    `T **` <-> Ptr{Ptr{...}} / Ref{Ptr{...}}; `const char *` <-> Cstring or
    Ptr{UInt8}/Ptr{Cchar}; a writable `char *` buffer <-> Ptr{UInt8}/Ptr{Cchar}
    (never Cstring); function pointers <-> Ptr{Cvoid}; structs by value or by
    pointer <-> a Julia struct whose fields have the C struct's types, order,
    offsets and size (both follow C's alignment rules). Ptr{Cvoid} for a typed
    C pointer (int64_t *, an options struct) is accepted only where every value
    passed is C_NULL, since it would hide the pointee's type;
  - every `@cfunction(f, Ret, (Types...))` that flows into a C callback slot (a
    ccall argument, or a field of a Julia struct handed to C) against that C
    function-pointer type.

Mismatches are reported as `file:line: function: argument k (name): Julia T vs
C U: reason`; the exit status is 1 when there is any, 2 when an input cannot
be read or parsed. It also reports which glia.h functions the binding wraps
("wrapped N of M"); --coverage lists them by section of glia.h.

    /usr/bin/python3 bindings/julia/check_ccalls.py                 # bindings/julia/src
    /usr/bin/python3 bindings/julia/check_ccalls.py --coverage
    /usr/bin/python3 bindings/julia/check_ccalls.py bindings/julia/check_fixtures/broken.jl

Standard library only. check_ccalls_test.py runs it on a deliberately broken
fixture and on mutated copies of Glia.jl.
"""

import argparse
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_HEADER = os.path.join(ROOT, "include", "glia", "glia.h")
DEFAULT_SYMBOLS = os.path.join(ROOT, "abi", "glia.symbols")
DEFAULT_SOURCES = [os.path.join(HERE, "src")]


class ParseError(Exception):
    """An input the checker cannot read: exit status 2, never a silent pass."""


# =====================================================================================
# C: types of the LP64 ABI (Linux x86-64 and aarch64), glia's targets
# =====================================================================================


class CType:
    pass


class CPrim(CType):
    """A scalar: kind is 'int', 'float', 'char', 'bool' or 'void'."""

    def __init__(self, name, kind, signed, size):
        self.name, self.kind, self.signed, self.size = name, kind, signed, size


class CEnum(CType):
    def __init__(self, tag, line):
        self.tag, self.line = tag, line
        self.values = []
        self.base = None  # CPrim: int by C's rules, or the fixed base of C++
        self.fixed_base = None


class CStruct(CType):
    def __init__(self, tag):
        self.tag = tag
        self.fields = None  # [(name, CType)]; None while opaque
        self.line = None
        self.typedef_name = None


class CPtr(CType):
    def __init__(self, to):
        self.to = to


class CArray(CType):
    def __init__(self, elem, n):
        self.elem, self.n = elem, n


class CFunc(CType):
    def __init__(self, ret, params, variadic=False):
        self.ret, self.params, self.variadic = ret, params, variadic  # params: [(name, CType)]


class CConst(CType):
    def __init__(self, to):
        self.to = to


class CTypedef(CType):
    def __init__(self, name, to):
        self.name, self.to = name, to


def _prim_table():
    t = {}
    for name, kind, signed, size in [
        ("void", "void", False, 0),
        ("char", "char", True, 1),
        ("signed char", "int", True, 1),
        ("unsigned char", "int", False, 1),
        ("short", "int", True, 2),
        ("unsigned short", "int", False, 2),
        ("int", "int", True, 4),
        ("unsigned int", "int", False, 4),
        ("long", "int", True, 8),
        ("unsigned long", "int", False, 8),
        ("long long", "int", True, 8),
        ("unsigned long long", "int", False, 8),
        ("float", "float", True, 4),
        ("double", "float", True, 8),
        ("_Bool", "bool", False, 1),
        ("bool", "bool", False, 1),
        ("int8_t", "int", True, 1),
        ("uint8_t", "int", False, 1),
        ("int16_t", "int", True, 2),
        ("uint16_t", "int", False, 2),
        ("int32_t", "int", True, 4),
        ("uint32_t", "int", False, 4),
        ("int64_t", "int", True, 8),
        ("uint64_t", "int", False, 8),
        ("size_t", "int", False, 8),
        ("ssize_t", "int", True, 8),
        ("ptrdiff_t", "int", True, 8),
        ("intptr_t", "int", True, 8),
        ("uintptr_t", "int", False, 8),
        ("intmax_t", "int", True, 8),
        ("uintmax_t", "int", False, 8),
    ]:
        t[name] = CPrim(name, kind, signed, size)
    return t


C_PRIMS = _prim_table()
C_KEYWORD_TYPES = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool"}
C_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "static", "inline", "__inline", "extern", "register"}


def c_strip(t):
    """The type without typedef names and const."""
    while isinstance(t, (CTypedef, CConst)):
        t = t.to
    return t


def c_is_const(t):
    while isinstance(t, (CTypedef, CConst)):
        if isinstance(t, CConst):
            return True
        t = t.to
    return False


def c_str(t):
    """C spelling of a type, e.g. 'const glia_tensor *const *'."""
    if isinstance(t, CConst):
        inner = t.to
        if isinstance(c_strip(inner), CPtr) and not isinstance(inner, CTypedef):
            return c_str(inner) + "const"
        return "const " + c_str(inner)
    if isinstance(t, CTypedef):
        return t.name
    if isinstance(t, CPrim):
        return t.name
    if isinstance(t, CEnum):
        return "enum " + t.tag
    if isinstance(t, CStruct):
        return t.typedef_name or "struct " + t.tag
    if isinstance(t, CArray):
        return "%s[%d]" % (c_str(t.elem), t.n)
    if isinstance(t, CFunc):
        return "%s (%s)" % (c_str(t.ret), c_params_str(t))
    if isinstance(t, CPtr):
        f = c_strip(t.to)
        if isinstance(f, CFunc) and not isinstance(t.to, CTypedef):
            return "%s (*)(%s)" % (c_str(f.ret), c_params_str(f))
        inner = c_str(t.to)
        return inner + ("*" if inner.endswith("*") else " *")
    return "?"


def c_params_str(f):
    ps = [c_str(p) for _, p in f.params] or ["void"]
    if f.variadic:
        ps.append("...")
    return ", ".join(ps)


def c_decl(t, name):
    """A parameter as C writes it: 'const char *name', 'void (*free_user_data)(void *)'."""
    s = c_strip(t)
    if isinstance(s, CPtr) and not isinstance(t, CTypedef) and isinstance(c_strip(s.to), CFunc) \
            and not isinstance(s.to, CTypedef):
        f = c_strip(s.to)
        return "%s (*%s)(%s)" % (c_str(f.ret), name or "", c_params_str(f))
    text = c_str(t)
    return (text + ("" if text.endswith("*") else " ") + (name or "")).strip()


def c_proto(name, f):
    ret = c_str(f.ret)
    return "%s%s%s(%s)" % (ret, "" if ret.endswith("*") else " ", name,
                           ", ".join(c_decl(p, n) for n, p in f.params) or "void")


def c_size_align(t):
    t = c_strip(t)
    if isinstance(t, CPrim):
        if t.kind == "void":
            raise ParseError("sizeof(void)")
        return t.size, t.size
    if isinstance(t, CEnum):
        return t.base.size, t.base.size
    if isinstance(t, (CPtr, CFunc)):
        return 8, 8
    if isinstance(t, CArray):
        s, a = c_size_align(t.elem)
        return s * t.n, a
    if isinstance(t, CStruct):
        if t.fields is None:
            raise ParseError("sizeof(struct %s), an incomplete type" % t.tag)
        off, al = 0, 1
        for _, ft in t.fields:
            s, a = c_size_align(ft)
            off = _align(off, a) + s
            al = max(al, a)
        return _align(off, al), al
    raise ParseError("no size for %s" % c_str(t))


def _align(off, a):
    return (off + a - 1) // a * a


def c_scalar_key(t):
    """(kind, signed, size) of a scalar or enum, else None."""
    s = c_strip(t)
    if isinstance(s, CEnum):
        return (s.base.kind, s.base.signed, s.base.size)
    if isinstance(s, CPrim) and s.kind != "void":
        return (s.kind, s.signed, s.size)
    return None


def c_leaves(t, base=0, path=""):
    """The scalars and pointers a value of type t is made of: [(offset, key, C path, C type)]."""
    s = c_strip(t)
    if isinstance(s, CStruct):
        out, off = [], 0
        for name, ft in s.fields:
            _, a = c_size_align(ft)
            off = _align(off, a)
            out += c_leaves(ft, base + off, (path + "." if path else "") + name)
            off += c_size_align(ft)[0]
        return out
    if isinstance(s, CArray):
        out = []
        es, _ = c_size_align(s.elem)
        for k in range(s.n):
            out += c_leaves(s.elem, base + k * es, "%s[%d]" % (path, k))
        return out
    if isinstance(s, (CPtr, CFunc)):
        return [(base, ("ptr",), path, t)]
    key = c_scalar_key(t)
    if key is None:
        raise ParseError("no layout for %s" % c_str(t))
    return [(base, key, path, t)]


# =====================================================================================
# C: reading glia.h (a small preprocessor and declaration parser; the header is C99)
# =====================================================================================

C_COMMENT_RE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
C_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+) | (?P<nl>\n) |
    (?P<id>[A-Za-z_]\w*) |
    (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[uUlLfF]*) |
    (?P<str>"(?:[^"\\\n]|\\.)*") | (?P<chr>'(?:[^'\\\n]|\\.)*') |
    (?P<op>\.\.\.|->|<<|>>|[<>=!]=|&&|\|\||[-+*/%&|^~!<>=?:;,.(){}\[\]\#])
""", re.X)


def _strip_c_comments(text):
    def repl(m):
        s = m.group(0)
        if s.startswith("/"):
            return " " + "\n" * s.count("\n") if s.startswith("/*") else " "
        return s
    return C_COMMENT_RE.sub(repl, text)


def _eval_pp_condition(expr, macros, line):
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
                  lambda m: "1" if (m.group(1) or m.group(2)) in macros else "0", expr)

    def ident(m):
        v = macros.get(m.group(0), "0").strip()
        return v if re.fullmatch(r"\d+", v) else "0"
    expr = re.sub(r"\b[A-Za-z_]\w*\b", ident, expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    if not re.fullmatch(r"[\d\s()+\-*/<>=!%andort]*", expr):
        raise ParseError("glia.h:%d: cannot evaluate #if %s" % (line, expr))
    try:
        return bool(eval(expr, {"__builtins__": {}}, {}))  # digits and operators only (checked above)
    except Exception:
        raise ParseError("glia.h:%d: cannot evaluate #if %s" % (line, expr))


def preprocess(text, cplusplus):
    """Comments removed, conditionals evaluated for GCC on Linux (C or C++), object-like
    macros expanded except GLIA_API, which stays as the marker of exported functions.
    Line numbers are kept."""
    lines = _strip_c_comments(text).split("\n")
    macros = {"__GNUC__": "4", "__linux__": "1", "__x86_64__": "1", "__LP64__": "1"}
    if cplusplus:
        macros["__cplusplus"] = "201703"
    out = []
    stack = []  # [parent_active, branch_taken, active]
    active = True
    i = 0
    while i < len(lines):
        ln = lines[i]
        n_joined = 0
        while ln.endswith("\\") and i + 1 + n_joined < len(lines):
            n_joined += 1
            ln = ln[:-1] + " " + lines[i + n_joined]
        m = re.match(r"\s*#\s*(\w*)\s*(.*)$", ln)
        if m:
            d, rest = m.group(1), m.group(2).strip()
            lineno = i + 1
            if d in ("if", "ifdef", "ifndef"):
                if d == "ifdef":
                    cond = rest.split()[0] in macros
                elif d == "ifndef":
                    cond = rest.split()[0] not in macros
                else:
                    cond = _eval_pp_condition(rest, macros, lineno) if active else False
                stack.append([active, cond, active and cond])
                active = active and cond
            elif d == "elif":
                if not stack:
                    raise ParseError("glia.h:%d: #elif without #if" % lineno)
                top = stack[-1]
                cond = (not top[1]) and top[0] and _eval_pp_condition(rest, macros, lineno)
                top[1] = top[1] or cond
                top[2] = cond
                active = cond
            elif d == "else":
                if not stack:
                    raise ParseError("glia.h:%d: #else without #if" % lineno)
                top = stack[-1]
                top[2] = top[0] and not top[1]
                top[1] = True
                active = top[2]
            elif d == "endif":
                if not stack:
                    raise ParseError("glia.h:%d: #endif without #if" % lineno)
                active = stack.pop()[0]
            elif d == "define" and active:
                dm = re.match(r"(\w+)(\()?\s*(.*)$", rest)
                if dm.group(2):
                    macros[dm.group(1)] = None  # function-like: glia.h has none that types depend on
                else:
                    macros[dm.group(1)] = dm.group(3)
            elif d == "undef" and active:
                macros.pop(rest.split()[0], None)
            out.extend([""] * (1 + n_joined))
            i += 1 + n_joined
            continue
        out.append(lines[i] if active else "")
        i += 1
    if stack:
        raise ParseError("glia.h: unterminated #if")
    text = "\n".join(out)

    def expand(m, depth=0):
        s = m.group(0)
        if s[0] in "\"'" or s == "GLIA_API" or s not in macros or macros[s] is None:
            return s
        if depth > 16:
            raise ParseError("glia.h: recursive macro %s" % s)
        return re.sub(r'"(?:\\.|[^"\\])*"|\b[A-Za-z_]\w*\b', lambda mm: expand(mm, depth + 1), macros[s])
    return re.sub(r'"(?:\\.|[^"\\\n])*"|\b[A-Za-z_]\w*\b', expand, text), macros


class CTok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return self.text


def c_tokenize(text):
    toks, line, pos = [], 1, 0
    while pos < len(text):
        m = C_TOKEN_RE.match(text, pos)
        if not m:
            raise ParseError("glia.h:%d: unexpected character %r" % (line, text[pos]))
        kind = m.lastgroup
        if kind == "nl":
            line += 1
        elif kind != "ws":
            toks.append(CTok(kind, m.group(0), line))
        pos = m.end()
    # drop __attribute__((...)) and friends
    out, i = [], 0
    while i < len(toks):
        if toks[i].text in ("__attribute__", "__declspec") and i + 1 < len(toks) and toks[i + 1].text == "(":
            i = _c_match(toks, i + 1) + 1
            continue
        if toks[i].text == "__extension__":
            i += 1
            continue
        out.append(toks[i])
        i += 1
    return out


def _c_match(toks, i):
    pairs = {"(": ")", "[": "]", "{": "}"}
    o, c = toks[i].text, pairs[toks[i].text]
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == o:
            depth += 1
        elif toks[j].text == c:
            depth -= 1
            if depth == 0:
                return j
    raise ParseError("glia.h:%d: unbalanced %s" % (toks[i].line, o))


def _c_int(toks, consts):
    expr = " ".join(t.text for t in toks)
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(consts[m.group(0)]) if m.group(0) in consts else m.group(0), expr)
    if not re.fullmatch(r"[\dxXa-fA-F\s()+\-*/%<>|&~^]*", expr):
        raise ParseError("glia.h:%d: cannot evaluate %r" % (toks[0].line if toks else 0, expr))
    return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, {}))


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


class Header:
    """The functions, structs, enums and typedefs of glia.h."""

    def __init__(self, path, symbols_path):
        self.path = path
        try:
            with open(path, encoding="utf-8") as f:
                raw = _with_included(path, f.read())
        except OSError as e:
            raise ParseError("cannot read %s: %s" % (path, e))
        try:
            with open(symbols_path, encoding="utf-8") as f:
                self.symbols = {ln.strip() for ln in f if ln.strip() and not ln.startswith("#")}
        except OSError as e:
            raise ParseError("cannot read %s: %s" % (symbols_path, e))
        self.functions = {}  # name -> (CFunc, line, exported)
        self.static_inline = {}  # name -> line
        self.structs = {}  # tag -> CStruct
        self.enums = {}  # tag -> CEnum
        self.typedefs = {}  # name -> CTypedef
        self.enum_consts = {}
        self.problems = []  # header inconsistencies (reported as mismatches)
        text, self.macros = preprocess(raw, cplusplus=False)
        for name, val in self.macros.items():
            if val and re.fullmatch(r"\s*\(?\s*\d+[uUlL]*\s*\)?\s*", val):
                self.enum_consts[name] = int(re.sub(r"[^\d]", "", val))
        self._parse(c_tokenize(text))
        self._fixed_enum_bases(raw)
        self.sections = self._sections(raw)

    # ---- declarations --------------------------------------------------------------

    def _parse(self, toks):
        decl, i = [], 0
        while i < len(toks):
            t = toks[i]
            if t.text == "{":
                j = _c_match(toks, i)
                if decl and decl[-1].text == ")":  # a function definition (static inline)
                    self._function_definition(decl)
                    decl, i = [], j + 1
                    continue
                decl.extend(toks[i:j + 1])
                i = j + 1
                continue
            if t.text == ";":
                if decl:
                    self._declaration(decl)
                decl = []
                i += 1
                continue
            decl.append(t)
            i += 1
        if decl:
            raise ParseError("glia.h:%d: declaration without ';'" % decl[0].line)

    def _function_definition(self, decl):
        for k in range(len(decl) - 1):
            if decl[k].kind == "id" and decl[k + 1].text == "(" and decl[k].text.startswith("glia_"):
                self.static_inline[decl[k].text] = decl[k].line
                return

    def _declaration(self, decl):
        line = decl[0].line
        exported = False
        if decl[0].text == "GLIA_API":
            exported = True
            decl = decl[1:]
        if any(t.text == "GLIA_API" for t in decl):
            raise ParseError("glia.h:%d: GLIA_API in an unexpected place" % line)
        is_typedef = False
        if decl and decl[0].text == "typedef":
            is_typedef = True
            decl = decl[1:]
        base, i = self._specifiers(decl, 0)
        if i >= len(decl):
            return  # struct/enum definition or forward declaration only
        for d in _split_commas(decl[i:]):
            name, t = self._declarator(d, base)
            if name is None:
                raise ParseError("glia.h:%d: declaration without a name" % line)
            if is_typedef:
                td = CTypedef(name, t)
                self.typedefs[name] = td
                s = c_strip(t)
                if isinstance(s, CStruct) and s.typedef_name is None and not isinstance(t, CConst):
                    s.typedef_name = name
            elif isinstance(t, CFunc):
                self.functions[name] = (t, line, exported)
            elif exported:
                raise ParseError("glia.h:%d: GLIA_API on a non-function %s" % (line, name))

    def _specifiers(self, toks, i):
        const = False
        words = []
        base = None
        while i < len(toks):
            t = toks[i].text
            if t in C_QUALIFIERS:
                const = const or t == "const"
                i += 1
            elif t in ("struct", "union", "enum"):
                if t == "union":
                    raise ParseError("glia.h:%d: unions are not supported" % toks[i].line)
                i += 1
                tag = None
                if i < len(toks) and toks[i].kind == "id":
                    tag = toks[i].text
                    i += 1
                fixed = None
                if t == "enum" and i < len(toks) and toks[i].text == ":":
                    j = i + 1
                    while toks[j].text != "{":
                        j += 1
                    fixed = " ".join(x.text for x in toks[i + 1:j])
                    i = j
                if i < len(toks) and toks[i].text == "{":
                    j = _c_match(toks, i)
                    if t == "struct":
                        base = self._struct_body(tag, toks[i + 1:j], toks[i].line)
                    else:
                        base = self._enum_body(tag, toks[i + 1:j], toks[i].line, fixed)
                    i = j + 1
                else:
                    if tag is None:
                        raise ParseError("glia.h:%d: %s without tag or body" % (toks[i - 1].line, t))
                    if t == "struct":
                        base = self.structs.setdefault(tag, CStruct(tag))
                    else:
                        if tag not in self.enums:
                            raise ParseError("glia.h:%d: enum %s used before its definition" % (toks[i - 1].line, tag))
                        base = self.enums[tag]
            elif t in C_KEYWORD_TYPES:
                words.append(t)
                i += 1
            elif toks[i].kind == "id" and not words and base is None and (t in self.typedefs or t in C_PRIMS):
                base = self.typedefs.get(t) or C_PRIMS[t]
                i += 1
            else:
                break
        if words:
            if base is not None:
                raise ParseError("glia.h:%d: two base types" % toks[0].line)
            base = self._keyword_type(words, toks[0].line)
        if base is None:
            raise ParseError("glia.h:%d: unknown type %r" % (toks[min(i, len(toks) - 1)].line,
                                                             toks[min(i, len(toks) - 1)].text))
        return (CConst(base) if const else base), i

    @staticmethod
    def _keyword_type(words, line):
        w = [x for x in words if x != "signed"] or ["int"]
        unsigned = "unsigned" in w
        w = [x for x in w if x != "unsigned"] or ["int"]
        if "int" in w and len(w) > 1:
            w.remove("int")
        name = " ".join(w)
        if "signed" in words and name == "char":
            name = "signed char"
        elif unsigned:
            name = "unsigned " + name
        if name not in C_PRIMS:
            raise ParseError("glia.h:%d: unknown type %s" % (line, " ".join(words)))
        return C_PRIMS[name]

    def _declarator(self, toks, base):
        name, t, i = self._declarator_at(toks, 0, base)
        if i != len(toks):
            raise ParseError("glia.h:%d: cannot parse declarator near %r" % (toks[i].line, toks[i].text))
        return name, t

    def _declarator_at(self, toks, i, base):
        t = base
        while i < len(toks) and toks[i].text == "*":
            i += 1
            t = CPtr(t)
            while i < len(toks) and toks[i].text in ("const", "volatile", "restrict", "__restrict"):
                if toks[i].text == "const":
                    t = CConst(t)
                i += 1
        name, inner = None, None
        if i < len(toks) and toks[i].text == "(" and i + 1 < len(toks) and toks[i + 1].text in ("*", "("):
            j = _c_match(toks, i)
            inner = toks[i + 1:j]
            i = j + 1
        elif i < len(toks) and toks[i].kind == "id":
            name = toks[i].text
            i += 1
        suffixes = []
        while i < len(toks) and toks[i].text in ("[", "("):
            j = _c_match(toks, i)
            suffixes.append((toks[i].text, toks[i + 1:j], toks[i].line))
            i = j + 1
        for kind, content, line in reversed(suffixes):
            if kind == "[":
                if not content:
                    raise ParseError("glia.h:%d: array without a size" % line)
                t = CArray(t, _c_int(content, self.enum_consts))
            else:
                t = self._function_type(t, content, line)
        if inner is not None:
            name, t, k = self._declarator_at(inner, 0, t)
            if k != len(inner):
                raise ParseError("glia.h:%d: cannot parse declarator" % inner[0].line)
        return name, t, i

    def _function_type(self, ret, content, line):
        params, variadic = [], False
        if not (len(content) == 1 and content[0].text == "void") and content:
            for p in _split_commas(content):
                if len(p) == 1 and p[0].text == "...":
                    variadic = True
                    continue
                b, k = self._specifiers(p, 0)
                pname, pt, k2 = self._declarator_at(p, k, b)
                if k2 != len(p):
                    raise ParseError("glia.h:%d: cannot parse parameter %s" % (line, " ".join(x.text for x in p)))
                s = c_strip(pt)
                if isinstance(s, CArray):  # parameters decay
                    pt = CPtr(s.elem)
                elif isinstance(s, CFunc):
                    pt = CPtr(pt)
                params.append((pname, pt))
        return CFunc(ret, params, variadic)

    def _struct_body(self, tag, toks, line):
        s = self.structs.setdefault(tag, CStruct(tag)) if tag else CStruct(None)
        if s.fields is not None:
            raise ParseError("glia.h:%d: struct %s defined twice" % (line, tag))
        fields = []
        for member in _split_top(toks, ";"):
            if not member:
                continue
            base, i = self._specifiers(member, 0)
            for d in _split_commas(member[i:]):
                name, t = self._declarator(d, base)
                fields.append((name, t))
        s.fields, s.line = fields, line
        return s

    def _enum_body(self, tag, toks, line, fixed):
        e = CEnum(tag or "<anonymous>", line)
        if tag:
            if tag in self.enums:
                raise ParseError("glia.h:%d: enum %s defined twice" % (line, tag))
            self.enums[tag] = e
        nxt = 0
        for item in _split_commas(toks):
            if not item:
                continue
            name = item[0].text
            if len(item) > 2 and item[1].text == "=":
                nxt = _c_int(item[2:], self.enum_consts)
            e.values.append((name, nxt))
            self.enum_consts[name] = nxt
            nxt += 1
        vals = [v for _, v in e.values] or [0]
        if min(vals) >= -2 ** 31 and max(vals) < 2 ** 31:
            e.base = C_PRIMS["int"]
        elif min(vals) >= 0 and max(vals) < 2 ** 32:
            e.base = C_PRIMS["unsigned int"]
        else:
            e.base = C_PRIMS["long"]
        if fixed:
            e.fixed_base = fixed
            e.base = self._type_name(fixed, line)
        return e

    def _type_name(self, text, line):
        words = text.split()
        if len(words) == 1 and words[0] in C_PRIMS:
            return C_PRIMS[words[0]]
        if len(words) == 1 and words[0] in self.typedefs:
            return c_strip(self.typedefs[words[0]])
        return self._keyword_type(words, line)

    def _fixed_enum_bases(self, raw):
        """In C++ glia.h gives enums a fixed base (GLIA_ENUM_BASE); that base is the ABI, and
        it must agree with the C type of the same enum."""
        text, _ = preprocess(raw, cplusplus=True)
        for m in re.finditer(r"\benum\s+(\w+)\s*:\s*([A-Za-z_][\w\s]*?)\s*\{", text):
            tag, base = m.group(1), m.group(2)
            e = self.enums.get(tag)
            line = text.count("\n", 0, m.start()) + 1
            if e is None:
                continue
            b = self._type_name(base, line)
            if (b.kind, b.signed, b.size) != (e.base.kind, e.base.signed, e.base.size):
                self.problems.append("%s:%d: enum %s: its C++ base %s differs from its C type %s" % (
                    self.path, line, tag, b.name, e.base.name))
            e.fixed_base, e.base = base, b

    @staticmethod
    def _sections(raw):
        """[(line, title)] from the banner comments of glia.h."""
        out = []
        lines = raw.split("\n")
        for k, ln in enumerate(lines):
            m = re.match(r"/\* ([A-Za-z].*?)\s*\*/\s*$", ln)
            if m and k > 0 and re.match(r"/\* -{20,} \*/", lines[k - 1]):
                out.append((k + 1, m.group(1)))
        return out

    def section_of(self, line):
        title = "(top)"
        for ln, t in self.sections:
            if ln <= line:
                title = t
        return title

    def exported(self):
        return sorted(n for n, (_, _, e) in self.functions.items() if e)


def _split_top(toks, sep):
    out, cur, depth = [], [], 0
    for t in toks:
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        if t.text == sep and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    out.append(cur)
    return out


def _split_commas(toks):
    parts = _split_top(toks, ",")
    return [p for p in parts if p] if len(parts) > 1 else parts


# =====================================================================================
# Julia: tokens and structure
# =====================================================================================

JL_OPS = sorted("""... :: -> => === !== == != <= >= && || .+ .- .* ./ .^ .== .!= .< .> .<= .>= += -= *= /=
    ^= |= &= |> <| <: >: . : = + - * / ^ < > ! & | ~ ? $ \\ % ÷ ≈ ≠ ≤ ≥ ∈ ∉ ⊆ ∘ ×""".split(),
                key=len, reverse=True)
JL_OPENERS = {"function", "macro", "module", "baremodule", "struct", "if", "for", "while", "let", "begin",
              "quote", "try", "do"}
JL_CHAR_RE = re.compile(r"'(?:\\(?:u\{?[0-9a-fA-F]+\}?|U[0-9a-fA-F]+|x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)|[^\\'\n])'")
JL_NUM_RE = re.compile(r"0x[0-9a-fA-F_]+|0b[01_]+|0o[0-7_]+|(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eEf][+-]?\d+)?")


class JTok:
    __slots__ = ("kind", "text", "line", "sp")

    def __init__(self, kind, text, line, sp):
        self.kind, self.text, self.line, self.sp = kind, text, line, sp  # sp: whitespace before

    def __repr__(self):
        return self.text


def _is_id_start(c):
    return c == "_" or c.isalpha() or (ord(c) > 127 and c.isidentifier())


def _is_id_char(c):
    return c == "_" or c == "!" or c.isalnum() or (ord(c) > 127 and ("a" + c).isidentifier())


def jl_tokenize(text, path):
    toks, i, n, line, sp = [], 0, len(text), 1, True

    def fail(msg):
        raise ParseError("%s:%d: %s" % (path, line, msg))

    def scan_string(j, delim):
        k = j + len(delim)
        while k < n:
            c = text[k]
            if c == "\\":
                k += 2
                continue
            if text.startswith(delim, k):
                return k + len(delim)
            if c == "$" and text[k + 1:k + 2] == "(":
                k = scan_code(k + 1)
                continue
            k += 1
        fail("unterminated string")

    def scan_code(j):  # text[j] == "(": to after its match, strings and chars inside included
        depth, k = 0, j
        while k < n:
            c = text[k]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    return k + 1
            elif c == '"':
                k = scan_string(k, '"""' if text.startswith('"""', k) else '"')
                continue
            elif c == "'":
                m = JL_CHAR_RE.match(text, k)
                if m:
                    k = m.end()
                    continue
            k += 1
        fail("unterminated interpolation")

    while i < n:
        c = text[i]
        if c in " \t\r":
            i += 1
            sp = True
            continue
        if c == "\n":
            toks.append(JTok("nl", "\n", line, sp))
            line += 1
            i += 1
            sp = True
            continue
        if c == "#":
            if text.startswith("#=", i):
                depth, k = 0, i
                while k < n:
                    if text.startswith("#=", k):
                        depth += 1
                        k += 2
                    elif text.startswith("=#", k):
                        depth -= 1
                        k += 2
                        if depth == 0:
                            break
                    else:
                        k += 1
                else:
                    fail("unterminated #= comment")
                line += text.count("\n", i, k)
                i = k
            else:
                while i < n and text[i] != "\n":
                    i += 1
            sp = True
            continue
        start = i
        if c == '"' or c == "`":
            delim = c * 3 if text.startswith(c * 3, i) else c
            i = scan_string(i, delim)
            toks.append(JTok("str", text[start:i], line, sp))
            line += text.count("\n", start, i)
        elif c == "'":
            prev = toks[-1] if toks else None
            if prev is not None and not sp and (prev.kind in ("id", "num", "str") or prev.text in (")", "]", "}", "'")):
                toks.append(JTok("op", "'", line, sp))
                i += 1
            else:
                m = JL_CHAR_RE.match(text, i)
                if not m:
                    fail("bad character literal")
                i = m.end()
                toks.append(JTok("chr", text[start:i], line, sp))
        elif c == "@":
            i += 1
            if i < n and text[i] == ".":
                i += 1
            else:
                while i < n and _is_id_char(text[i]):
                    i += 1
            toks.append(JTok("macro", text[start:i], line, sp))
        elif _is_id_start(c):
            while i < n and _is_id_char(text[i]) and not (text[i] == "!" and text[i + 1:i + 2] == "="):
                i += 1
            toks.append(JTok("id", text[start:i], line, sp))
        elif c.isdigit() or (c == "." and text[i + 1:i + 2].isdigit()):
            m = JL_NUM_RE.match(text, i)
            i = m.end()
            toks.append(JTok("num", text[start:i], line, sp))
        elif c in "()[]{},;":
            toks.append(JTok("punct", c, line, sp))
            i += 1
        else:
            for op in JL_OPS:
                if text.startswith(op, i):
                    i += len(op)
                    break
            else:
                i += 1
            toks.append(JTok("op", text[start:i], line, sp))
        sp = False
    return toks


def _jl_brackets(toks, path):
    match, stack = {}, []
    pairs = {")": "(", "]": "[", "}": "{"}
    for k, t in enumerate(toks):
        if t.kind != "punct":
            continue
        if t.text in "([{":
            stack.append(k)
        elif t.text in ")]}":
            if not stack or toks[stack[-1]].text != pairs[t.text]:
                raise ParseError("%s:%d: unbalanced %s" % (path, t.line, t.text))
            o = stack.pop()
            match[o], match[k] = k, o
    if stack:
        raise ParseError("%s:%d: unclosed %s" % (path, toks[stack[-1]].line, toks[stack[-1]].text))
    return match


def _jl_blocks(toks, path):
    """opener token index -> index of its `end`."""
    blocks, stack, brackets = {}, [], []
    for k, t in enumerate(toks):
        if t.kind == "punct":
            if t.text in "([{":
                brackets.append([t.text, False])
            elif t.text in ")]}":
                brackets.pop()
            continue
        if t.kind != "id":
            continue
        if k > 0 and toks[k - 1].kind == "op" and toks[k - 1].text in (".", ":") and not t.sp:
            continue  # a field (x.end) or a quoted symbol (:end, :function), not a keyword
        w = t.text
        inner = brackets[-1] if brackets else None
        if inner is not None and inner[0] == "[":
            continue  # indexing (begin/end) and comprehensions
        if w == "for" and inner is not None:
            inner[1] = True  # a generator
            continue
        if w == "if" and inner is not None and inner[1]:
            continue  # a generator's filter
        if w in ("abstract", "primitive") and k + 1 < len(toks) and toks[k + 1].text == "type":
            stack.append(k)
        elif w in JL_OPENERS:
            stack.append(k)
        elif w == "end":
            if not stack:
                raise ParseError("%s:%d: `end` without a block" % (path, t.line))
            blocks[stack.pop()] = k
    if stack:
        raise ParseError("%s:%d: block `%s` without `end`" % (path, toks[stack[-1]].line, toks[stack[-1]].text))
    return blocks


class JT:
    """A Julia type expression: name{params...}; params are JT or int."""

    def __init__(self, name, params=()):
        self.name, self.params = name, tuple(params)

    def __str__(self):
        if not self.params:
            return self.name
        return "%s{%s}" % (self.name, ",".join(str(p) for p in self.params))

    def __eq__(self, o):
        return isinstance(o, JT) and self.name == o.name and self.params == o.params

    def __hash__(self):
        return hash((self.name, self.params))


class JStruct:
    def __init__(self, name, line, mutable, parametric):
        self.name, self.line, self.mutable, self.parametric = name, line, mutable, parametric
        self.fields = []  # [(name, JT or None, line)]
        self.opaque = False


JL_SCALARS = {
    "Int8": ("int", True, 1), "UInt8": ("int", False, 1), "Int16": ("int", True, 2), "UInt16": ("int", False, 2),
    "Int32": ("int", True, 4), "UInt32": ("int", False, 4), "Int64": ("int", True, 8), "UInt64": ("int", False, 8),
    "Int128": ("int", True, 16), "UInt128": ("int", False, 16), "Int": ("int", True, 8), "UInt": ("int", False, 8),
    "Bool": ("bool", False, 1), "Float16": ("float", True, 2), "Float32": ("float", True, 4),
    "Float64": ("float", True, 8), "Cchar": ("char", True, 1), "Cuchar": ("int", False, 1),
    "Cshort": ("int", True, 2), "Cushort": ("int", False, 2), "Cint": ("int", True, 4), "Cuint": ("int", False, 4),
    "Clong": ("int", True, 8), "Culong": ("int", False, 8), "Clonglong": ("int", True, 8),
    "Culonglong": ("int", False, 8), "Csize_t": ("int", False, 8), "Cssize_t": ("int", True, 8),
    "Cptrdiff_t": ("int", True, 8), "Cintmax_t": ("int", True, 8), "Cuintmax_t": ("int", False, 8),
    "Cfloat": ("float", True, 4), "Cdouble": ("float", True, 8), "Cwchar_t": ("int", True, 4),
}
JL_VOID = {"Cvoid", "Nothing"}
JL_POINTERS = {"Ptr", "Ref"}
JL_NULL_RE = re.compile(r"C_NULL|[A-Za-z_][\w.]*(\{[\w{},.]*\})?\(C_NULL\)|Ptr\{[\w{},.]*\}\(\)")


class Call:
    def __init__(self, path, line, form):
        self.path, self.line, self.form = path, line, form
        self.name = None
        self.note = ""  # e.g. "c = :glia_neg" for a name from a loop
        self.ret = None  # (text, JT)
        self.args = []  # [(text, JT or None)]
        self.values = None  # [text] or None
        self.problems = []


class Callback:
    def __init__(self, path, line, fname, ret, args, var):
        self.path, self.line, self.fname, self.ret, self.args, self.var = path, line, fname, ret, args, var


class JlSources:
    """The Julia files: their type aliases, structs, enums, ccalls and @cfunctions."""

    def __init__(self, paths):
        self.files = []
        for p in paths:
            if os.path.isdir(p):
                for dirpath, _, names in sorted(os.walk(p)):
                    self.files += [os.path.join(dirpath, x) for x in sorted(names) if x.endswith(".jl")]
            elif os.path.isfile(p):
                self.files.append(p)
            else:
                raise ParseError("no such file or directory: %s" % p)
        if not self.files:
            raise ParseError("no .jl files in %s" % ", ".join(paths))
        self.aliases = {}  # name -> (JT, path, line)
        self.structs = {}  # name -> JStruct
        self.enums = {}  # name -> JT base
        self.opaque = set()  # abstract types
        self.calls = []
        self.callbacks = []
        self.parsed = []
        self._br = {}
        for path in self.files:
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                raise ParseError("cannot read %s: %s" % (path, e))
            toks = jl_tokenize(text, path)
            brackets = _jl_brackets(toks, path)
            blocks = _jl_blocks(toks, path)
            self.parsed.append((path, toks, brackets, blocks))
            self._br[path] = brackets
            self._types(path, toks, brackets, blocks)
        for path, toks, brackets, blocks in self.parsed:
            self._calls(path, toks, brackets, blocks)

    # ---- types -----------------------------------------------------------------------

    def _types(self, path, toks, br, blocks):
        for k, t in enumerate(toks):
            if t.kind == "id" and t.text == "const" and k + 3 < len(toks) and toks[k + 1].kind == "id" \
                    and toks[k + 2].text == "=":
                end = _stmt_end(toks, br, k + 3)
                jt = _parse_type_all(toks, br, k + 3, end)
                if jt is not None and _type_like(jt):
                    self.aliases[toks[k + 1].text] = (jt, path, t.line)
            elif t.kind == "id" and t.text == "struct" and k in blocks:
                self._struct(path, toks, br, blocks, k)
            elif t.kind == "id" and t.text == "abstract" and k in blocks and k + 2 < len(toks):
                self.opaque.add(toks[k + 2].text)
            elif t.kind == "macro" and t.text == "@enum" and k + 1 < len(toks) and toks[k + 1].kind == "id":
                base = JT("Int32")
                if k + 3 < len(toks) and toks[k + 2].text == "::":
                    base = JT(toks[k + 3].text)
                self.enums[toks[k + 1].text] = base

    def _struct(self, path, toks, br, blocks, k):
        mutable = k > 0 and toks[k - 1].text == "mutable"
        name_tok = toks[k + 1]
        parametric = k + 2 < len(toks) and toks[k + 2].text == "{" and not toks[k + 2].sp
        s = JStruct(name_tok.text, name_tok.line, mutable, parametric)
        end = blocks[k]
        j = k + 2
        # skip the rest of the header line (type parameters, supertype)
        while j < end and toks[j].kind != "nl" and toks[j].text != ";":
            j = br.get(j, j) + 1 if toks[j].text in "([{" else j + 1
        while j < end:
            if toks[j].kind == "nl" or toks[j].text == ";":
                j += 1
                continue
            if j in blocks:  # an inner constructor (function ... end) or other block
                j = blocks[j] + 1
                continue
            stmt_end = j
            while stmt_end < end and toks[stmt_end].kind != "nl" and toks[stmt_end].text != ";":
                if stmt_end in blocks:
                    stmt_end = blocks[stmt_end]
                elif toks[stmt_end].text in "([{" and toks[stmt_end].kind == "punct":
                    stmt_end = br[stmt_end]
                stmt_end += 1
            st = toks[j:stmt_end]
            if st and st[0].kind == "id":
                if len(st) == 1:
                    s.fields.append((st[0].text, None, st[0].line))
                elif st[1].text == "::":
                    stop = next((q for q in range(2, len(st)) if st[q].text == "="), len(st))
                    jt = _parse_type_all(toks, br, j + 2, j + stop)
                    s.fields.append((st[0].text, jt, st[0].line))
            j = stmt_end
        s.opaque = not s.fields
        self.structs[s.name] = s

    def resolve(self, jt, depth=0):
        if not isinstance(jt, JT):
            return jt
        if depth > 20:
            return JT("<recursive alias>")
        if jt.name in self.aliases and not jt.params:
            return self.resolve(self.aliases[jt.name][0], depth + 1)
        return JT(jt.name, [self.resolve(p, depth + 1) for p in jt.params])

    # ---- calls -------------------------------------------------------------------------

    def _calls(self, path, toks, br, blocks):
        macros = {}  # name -> (roles, (start, end) of the definition)
        for k, t in enumerate(toks):
            if t.kind == "id" and t.text == "macro" and k in blocks and k + 2 < len(toks) \
                    and toks[k + 2].text == "(":
                spec = self._macro_spec(path, toks, br, k, blocks[k])
                if spec is not None:
                    macros["@" + toks[k + 1].text] = (spec, (k, blocks[k]))
        templates = [r for _, r in macros.values()]

        def in_template(k):
            return any(a < k < b for a, b in templates)

        for k, t in enumerate(toks):
            if in_template(k):
                continue
            if t.kind == "id" and t.text == "ccall" and k + 1 < len(toks) and toks[k + 1].text == "(" \
                    and not toks[k + 1].sp:
                self._add(path, toks, blocks, k, self._ccall(path, toks, br, k))
            elif t.kind == "macro" and t.text == "@ccall":
                self._add(path, toks, blocks, k, self._at_ccall(path, toks, br, k))
            elif t.kind == "macro" and t.text in macros:
                self._add(path, toks, blocks, k, self._macro_call(path, toks, br, k, macros[t.text][0]))
            elif t.kind == "macro" and t.text == "@cfunction":
                self._cfunction(path, toks, br, k)

    def _macro_spec(self, path, toks, br, k, end):
        params = [_text(p).rstrip(".").strip() for p in _split(toks, br, k + 3, br[k + 2], ",")]
        splat = {_text(p).rstrip(".").strip() for p in _split(toks, br, k + 3, br[k + 2], ",")
                 if _text(p).endswith("...")}
        for q in range(k, end):
            if toks[q].kind == "id" and toks[q].text == "ccall" and toks[q + 1].text == "(":
                parts = _split(toks, br, q + 2, br[q + 1], ",")
                if len(parts) < 3:
                    return None
                used = [[x.text for x in p if x.kind == "id" and x.text in params] for p in parts]
                if not used[0]:
                    return None  # a fixed function: an ordinary ccall inside a macro
                roles = {"name": params.index(used[0][0])}
                for key, idx in (("ret", 1), ("types", 2)):
                    if len(used[idx]) != 1:
                        raise ParseError("%s:%d: macro %s: cannot tell which parameter is the ccall's %s" % (
                            path, toks[k].line, toks[k + 1].text, key))
                    roles[key] = params.index(used[idx][0])
                rest = [u for p in used[3:] for u in p]
                roles["values"] = params.index(rest[0]) if len(rest) == 1 and rest[0] in splat else None
                if roles["values"] is None and rest:
                    raise ParseError("%s:%d: macro %s: cannot tell how values reach the ccall" % (
                        path, toks[k].line, toks[k + 1].text))
                roles["count"] = len(params)
                return roles
        return None

    def _add(self, path, toks, blocks, k, call):
        if call is None:
            return
        name_toks = call.name
        names = [(None, "")]
        if isinstance(name_toks, list):
            texts = [x for x in name_toks if x.kind != "nl"]
            ids = [x.text for x in texts if x.kind == "id"]
            if any(x.text == "$" for x in texts):
                names = self._loop_values(path, toks, self._br[path], blocks, k, ids, call)
            elif len(ids) == 1 and ids[0] not in ("QuoteNode",):
                names = [(ids[-1], "")]
            elif len(texts) == 1 and texts[0].kind == "str":
                names = [(texts[0].text.strip('"'), "")]
            else:
                call.problems.append("cannot tell which C function this calls (%s)" % _text(texts))
        for name, note in names:
            c = Call(call.path, call.line, call.form)
            c.name, c.note = name, note
            c.ret, c.args, c.values, c.problems = call.ret, call.args, call.values, list(call.problems)
            self.calls.append(c)

    def _loop_values(self, path, toks, br, blocks, k, ids, call):
        """Names interpolated ($c) from the for loop around the call: [(name, note)]."""
        for opener in sorted((o for o, e in blocks.items() if o < k < e and toks[o].text == "for"), reverse=True):
            hdr = [x for x in toks[opener + 1:_stmt_end(toks, br, opener + 1)] if x.kind != "nl"]
            sep = next((q for q, x in enumerate(hdr) if x.text in ("in", "=", "∈")), None)
            if sep is None:
                continue
            var_names = [x.text for x in hdr[:sep] if x.kind == "id"]
            var = next((v for v in ids if v in var_names), None)
            if var is None:
                continue
            try:
                values, _ = _jl_literal(hdr, sep + 1)
            except ValueError:
                call.problems.append("cannot read the values of loop variable %s" % var)
                return [(None, "")]
            pos = var_names.index(var)
            out = []
            for v in values:
                item = v if len(var_names) == 1 else (v[pos] if isinstance(v, tuple) and len(v) > pos else None)
                if not isinstance(item, str) or not item.startswith(":"):
                    call.problems.append("loop variable %s takes a value that is not a symbol" % var)
                    return [(None, "")]
                out.append((item[1:], "%s = %s" % (var, item)))
            return out
        call.problems.append("cannot tell which C function this calls ($-interpolated outside a literal loop)")
        return [(None, "")]

    def _ccall(self, path, toks, br, k):
        call = Call(path, toks[k].line, "ccall")
        parts = _split(toks, br, k + 2, br[k + 1], ",")
        # ccall(f, cconv, Ret, (Types...), values...): a calling convention is the 2nd argument
        if len(parts) >= 2 and _text(parts[1]) in ("cdecl", "stdcall", "fastcall", "thiscall", "llvmcall"):
            parts = [parts[0]] + parts[2:]
        if len(parts) < 3:
            call.problems.append("ccall needs a function, a return type and an argument-type tuple")
            call.name = []
            return call
        call.name = _fspec_name(parts[0])
        call.ret = (_text(parts[1]), _parse_type_toks(parts[1]))
        call.args = self._type_tuple(parts[2], call)
        call.values = [_text(p) for p in parts[3:]]
        return call

    def _at_ccall(self, path, toks, br, k):
        call = Call(path, toks[k].line, "@ccall")
        end = _expr_end(toks, br, k + 1)
        j = k + 1
        while j < end and not (toks[j].text == "(" and toks[j].kind == "punct" and not toks[j].sp):
            j += 1
        if j >= end:
            call.problems.append("cannot read this @ccall")
            call.name = []
            return call
        spec = toks[k + 1:j]
        if spec and spec[0].text == "$":
            call.name = spec
        else:
            ids = [x for x in spec if x.kind == "id"]
            call.name = ids[-1:] if ids else spec
        inner_end = br[j]
        args, values = [], []
        for p in _split(toks, br, j + 1, inner_end, ",", also=";"):
            cut = max((q for q, x in enumerate(p) if x.text == "::"), default=None)
            if cut is None:
                call.problems.append("@ccall argument %r has no ::Type" % _text(p))
                continue
            values.append(_text(p[:cut]))
            args.append((_text(p[cut + 1:]), _parse_type_toks(p[cut + 1:])))
        if any(x.text == ";" for x in toks[j + 1:inner_end]):
            call.problems.append("varargs (;) in @ccall: glia.h has no variadic function")
        call.args, call.values = args, values
        if inner_end + 1 < end and toks[inner_end + 1].text == "::":
            rt = toks[inner_end + 2:end]
            call.ret = (_text(rt), _parse_type_toks(rt))
        else:
            call.ret = ("Cvoid", JT("Cvoid"))
        return call

    def _macro_call(self, path, toks, br, k, roles):
        call = Call(path, toks[k].line, toks[k].text)
        if k + 1 < len(toks) and toks[k + 1].text == "(" and not toks[k + 1].sp:
            args = _split(toks, br, k + 2, br[k + 1], ",")
        else:
            args = _space_args(toks, br, k + 1, _expr_end(toks, br, k + 1))
        n_fixed = roles["count"] - (1 if roles["values"] is not None else 0)
        if len(args) < n_fixed:
            call.problems.append("%s needs at least %d arguments, got %d" % (toks[k].text, n_fixed, len(args)))
            call.name = []
            return call
        call.name = args[roles["name"]]
        call.ret = (_text(args[roles["ret"]]), _parse_type_toks(args[roles["ret"]]))
        call.args = self._type_tuple(args[roles["types"]], call)
        if roles["values"] is not None:
            call.values = [_text(a) for a in args[roles["values"]:]]
        return call

    def _type_tuple(self, toks, call):
        toks = [x for x in toks if x.kind != "nl"]
        if not toks or toks[0].text != "(" or toks[-1].text != ")":
            call.problems.append("the argument types %r are not a literal tuple" % _text(toks))
            return []
        br = _jl_brackets(toks, call.path)
        if br[0] != len(toks) - 1:
            call.problems.append("the argument types %r are not a literal tuple" % _text(toks))
            return []
        out = []
        for p in _split(toks, br, 1, len(toks) - 1, ","):
            if p and p[-1].text == "...":
                call.problems.append("varargs type %s: glia.h has no variadic function" % _text(p))
                p = p[:-1]
            out.append((_text(p), _parse_type_toks(p)))
        return out

    def _cfunction(self, path, toks, br, k):
        if k + 1 >= len(toks) or toks[k + 1].text != "(":
            return
        parts = _split(toks, br, k + 2, br[k + 1], ",")
        if len(parts) != 3:
            return
        types = Call(path, toks[k].line, "@cfunction")
        args = self._type_tuple(parts[2], types)
        var = None
        if k >= 2 and toks[k - 1].text == "=":
            if toks[k - 2].text == "]" and k >= 4 and toks[k - 3].text == "[" and toks[k - 4].kind == "id":
                var = toks[k - 4].text + "[]"
            elif toks[k - 2].kind == "id":
                var = toks[k - 2].text
        self.callbacks.append(Callback(path, toks[k].line, _text(parts[0]),
                                       (_text(parts[1]), _parse_type_toks(parts[1])), args, var))


def _text(toks):
    out = []
    for n, t in enumerate(toks):
        if t.kind == "nl":
            continue
        if n and t.sp and out:
            out.append(" ")
        out.append(t.text)
    return "".join(out).strip()


def _split(toks, br, a, b, sep, also=None):
    """toks[a:b] split at top-level `sep` (and `also`); empty trailing part dropped."""
    out, cur, j = [], [], a
    while j < b:
        t = toks[j]
        if t.kind == "punct" and t.text in "([{":
            cur.extend(toks[j:br[j] + 1])
            j = br[j] + 1
            continue
        if t.text == sep or (also and t.text == also):
            out.append(cur)
            cur = []
        elif t.kind != "nl":
            cur.append(t)
        j += 1
    if cur:
        out.append(cur)
    return out


def _stmt_end(toks, br, j):
    while j < len(toks) and toks[j].kind != "nl" and toks[j].text != ";":
        j = br[j] + 1 if toks[j].kind == "punct" and toks[j].text in "([{" else j + 1
    return j


STOP_WORDS = {"for", "if", "end", "else", "elseif", "catch", "finally", "in"}


def _expr_end(toks, br, j):
    """The end of a macro call's space-separated arguments starting at j."""
    while j < len(toks):
        t = toks[j]
        if t.kind == "nl" or (t.kind == "punct" and t.text in ";,)]}"):
            return j
        if t.kind == "id" and t.text in STOP_WORDS:
            return j
        if t.kind == "punct" and t.text in "([{":
            j = br[j] + 1
            continue
        j += 1
    return j


def _space_args(toks, br, a, b):
    """Julia's space-separated macro arguments in toks[a:b]."""
    atoms, j = [], a
    while j < b:
        t = toks[j]
        group = toks[j:br[j] + 1] if t.kind == "punct" and t.text in "([{" else [t]
        if atoms and not t.sp:
            atoms[-1].extend(group)
        else:
            atoms.append(list(group))
        j += len(group)
    # a binary operator with spaces on both sides joins its neighbours: `a - b` is one argument
    out = []
    k = 0
    while k < len(atoms):
        at = atoms[k]
        if len(at) == 1 and at[0].kind == "op" and at[0].text not in ("$", "...") and out and k + 1 < len(atoms):
            out[-1] = out[-1] + at + atoms[k + 1]
            k += 2
            continue
        out.append(at)
        k += 1
    return out


def _fspec_name(toks):
    """The function of a ccall's first argument: (:name, lib), :name, "name", or $interpolated."""
    toks = [x for x in toks if x.kind != "nl"]
    if any(x.text == "$" for x in toks):
        return toks
    for q in range(len(toks) - 1):
        if toks[q].text == ":" and toks[q + 1].kind == "id" and not toks[q + 1].sp:
            return [toks[q + 1]]
    strs = [x for x in toks if x.kind == "str"]
    if strs and (len(toks) == 1 or toks[0].text == "("):
        return strs[:1]
    return toks


def _parse_type_toks(toks):
    toks = [x for x in toks if x.kind != "nl"]
    if not toks:
        return None
    try:
        jt, k = _parse_type_at(toks, 0)
    except (ValueError, IndexError):
        return None
    return jt if k == len(toks) else None


def _parse_type_all(toks, br, a, b):
    return _parse_type_toks(toks[a:b])


def _parse_type_at(toks, k):
    t = toks[k]
    if t.kind == "num":
        return int(t.text), k + 1
    if t.kind != "id":
        raise ValueError(t.text)
    name = t.text
    k += 1
    while k + 1 < len(toks) and toks[k].text == "." and toks[k + 1].kind == "id" and not toks[k].sp:
        name = toks[k + 1].text  # Base.Cstring -> Cstring
        k += 2
    params = []
    if k < len(toks) and toks[k].text == "{" and not toks[k].sp:
        k += 1
        while toks[k].text != "}":
            p, k = _parse_type_at(toks, k)
            params.append(p)
            if toks[k].text == ",":
                k += 1
        k += 1
    return JT(name, params), k


def _type_like(jt):
    return isinstance(jt, JT) and (jt.name[:1].isupper() or jt.name in JL_SCALARS)


def _jl_literal(toks, k):
    """A literal tuple/vector of symbols, strings, numbers: (value, next index)."""
    t = toks[k]
    if t.text in ("(", "["):
        close = ")" if t.text == "(" else "]"
        items, k = [], k + 1
        while toks[k].text != close:
            v, k = _jl_literal(toks, k)
            items.append(v)
            if toks[k].text == ",":
                k += 1
            elif toks[k].text != close:
                raise ValueError(toks[k].text)
        return (tuple(items) if close == ")" else list(items)), k + 1
    if t.text == ":" and k + 1 < len(toks) and toks[k + 1].kind == "id":
        return ":" + toks[k + 1].text, k + 2
    if t.kind in ("str", "num"):
        return t.text, k + 1
    raise ValueError(t.text)


# =====================================================================================
# Matching Julia types against C types
# =====================================================================================


class Checker:
    def __init__(self, header, jl):
        self.h, self.jl = header, jl
        self.struct_map = {}  # Julia struct name -> CStruct (layouts that matched)
        self.errors = []  # (path, line, message)
        self.warnings = []

    def err(self, path, line, msg):
        self.errors.append((path, line, msg))

    # ---- Julia side -------------------------------------------------------------------

    def jl_scalar_key(self, jt):
        if isinstance(jt, JT) and not jt.params:
            if jt.name in JL_SCALARS:
                return JL_SCALARS[jt.name]
            if jt.name in self.jl.enums:
                return self.jl_scalar_key(self.jl.resolve(self.jl.enums[jt.name]))
        return None

    def jl_size_align(self, jt, seen=()):
        key = self.jl_scalar_key(jt)
        if key is not None:
            return key[2], key[2]
        if not isinstance(jt, JT):
            raise ValueError("no layout")
        if jt.name in ("Ptr", "Cstring", "Cwstring"):
            return 8, 8
        if jt.name == "NTuple" and len(jt.params) == 2 and isinstance(jt.params[0], int):
            s, a = self.jl_size_align(jt.params[1], seen)
            return s * jt.params[0], a
        fields = self.jl_fields(jt, seen)
        off, al = 0, 1
        for _, ft in fields:
            s, a = self.jl_size_align(ft, seen)
            off = _align(off, a) + s
            al = max(al, a)
        return _align(off, al), al

    def jl_fields(self, jt, seen=()):
        if jt.name == "Tuple":
            return [("[%d]" % k, p) for k, p in enumerate(jt.params)]
        s = self.jl.structs.get(jt.name)
        if s is None or jt.name in seen:
            raise ValueError("%s has no known layout" % jt)
        if s.parametric:
            raise ValueError("%s is parametric" % jt)
        out = []
        for fname, ftype, _ in s.fields:
            if ftype is None:
                raise ValueError("field %s of %s has no type (Any)" % (fname, s.name))
            out.append((fname, self.jl.resolve(ftype)))
        return out

    def jl_leaves(self, jt, base=0, path="", seen=()):
        key = self.jl_scalar_key(jt)
        if key is not None:
            return [(base, key, path, jt)]
        if not isinstance(jt, JT):
            raise ValueError("%s has no layout" % jt)
        if jt.name in ("Ptr", "Cstring", "Cwstring"):
            return [(base, ("ptr",), path, jt)]
        if jt.name == "NTuple" and len(jt.params) == 2 and isinstance(jt.params[0], int):
            es, _ = self.jl_size_align(jt.params[1])
            out = []
            for k in range(jt.params[0]):
                out += self.jl_leaves(jt.params[1], base + k * es, "%s[%d]" % (path, k + 1), seen)
            return out
        if jt.name in JL_VOID or jt.name == "Ref":
            raise ValueError("%s cannot be a field of a C struct" % jt)
        off, out = 0, []
        for fname, ft in self.jl_fields(jt, seen):
            _, a = self.jl_size_align(ft, seen + (jt.name,))
            off = _align(off, a)
            out += self.jl_leaves(ft, base + off, (path + "." if path else "") + fname, seen + (jt.name,))
            off += self.jl_size_align(ft, seen + (jt.name,))[0]
        return out

    # ---- comparison ------------------------------------------------------------------

    @staticmethod
    def scalar_ok(ckey, jkey):
        if ckey is None or jkey is None:
            return False
        if ckey[0] == "char" or jkey[0] == "char":  # char's signedness is the platform's
            return ckey[2] == jkey[2] == 1 and {ckey[0], jkey[0]} <= {"char", "int"}
        return ckey == jkey

    @staticmethod
    def key_str(key):
        kind, signed, size = key
        if kind == "int":
            return "%s %d-bit integer" % ("signed" if signed else "unsigned", size * 8)
        if kind == "float":
            return "%d-bit float" % (size * 8)
        return "%s of %d byte%s" % (kind, size, "s" if size > 1 else "")

    def struct_layout(self, cs, jt):
        """None when the Julia struct jt has the C struct's layout, else the first difference."""
        if jt.name not in self.jl.structs and jt.name != "Tuple":
            return "%s is not a Julia struct with fields" % jt
        js = self.jl.structs.get(jt.name)
        try:
            jleaves = self.jl_leaves(jt)
            jsize, jalign = self.jl_size_align(jt)
        except ValueError as e:
            return str(e)
        cleaves = c_leaves(cs)
        csize, calign = c_size_align(cs)
        # Field by field where the Julia struct has one field per C field (names may differ), so
        # that a difference is reported at the field it is in; then scalar by scalar, which also
        # accepts a Julia struct that spells a C array or nested struct as separate fields.
        cfields = cs.fields
        try:
            jfields = self.jl_fields(jt)
        except ValueError as e:
            return str(e)
        if len(cfields) == len(jfields):
            coff = joff = 0
            for (cn, ct), (jn, jft) in zip(cfields, jfields):
                cs_, ca = c_size_align(ct)
                try:
                    js_, ja = self.jl_size_align(jft)
                    jl_ = [(o, key) for o, key, _, _ in self.jl_leaves(jft)]
                except ValueError as e:
                    return "Julia field %s: %s" % (jn, e)
                coff, joff = _align(coff, ca), _align(joff, ja)
                cl_ = [(o, key) for o, key, _, _ in c_leaves(ct)]
                same = coff == joff and cs_ == js_ and len(cl_) == len(jl_) and all(
                    co == jo and ((ck == jk == ("ptr",)) or
                                  (ck != ("ptr",) and jk != ("ptr",) and self.scalar_ok(ck, jk)))
                    for (co, ck), (jo, jk) in zip(cl_, jl_))
                if not same:
                    return "C field %s is %s at offset %d (%d bytes), Julia field %s is %s at offset %d (%d bytes)" % (
                        cn, c_str(ct), coff, cs_, jn, jft, joff, js_)
                coff += cs_
                joff += js_
        for k in range(max(len(cleaves), len(jleaves))):
            if k >= len(cleaves):
                o, key, p, _ = jleaves[k]
                return "Julia field %s (%s) at offset %d is past the C struct's last field" % (p, jt, o)
            if k >= len(jleaves):
                o, key, p, ct = cleaves[k]
                return "C field %s (%s, offset %d) has no Julia field" % (p, c_str(ct), o)
            co, ckey, cp, ct = cleaves[k]
            jo, jkey, jp, jft = jleaves[k]
            same = (ckey == jkey == ("ptr",)) or (ckey != ("ptr",) and jkey != ("ptr",) and self.scalar_ok(ckey, jkey))
            if not same or co != jo:
                return "C field %s is %s at offset %d, Julia field %s is %s at offset %d" % (
                    cp, c_str(ct), co, jp, jft, jo)
        if (csize, calign) != (jsize, jalign):
            return "size/alignment %d/%d in C, %d/%d in Julia" % (csize, calign, jsize, jalign)
        if js is not None:
            self.struct_map[js.name] = cs
        return None

    def is_null(self, value):
        return bool(JL_NULL_RE.fullmatch(value.replace(" ", "")))

    def match(self, ct, jt, role, values=None):
        """None when Julia type jt may stand for C type ct, else why not.
        role: 'arg', 'ret' (ccall), 'cb-arg', 'cb-ret' (@cfunction)."""
        if jt is None:
            return "not a type expression the checker can read"
        if not isinstance(jt, JT):
            return "not a type"
        s = c_strip(ct)
        if isinstance(s, CPrim) and s.kind == "void":
            return None if jt.name in JL_VOID and not jt.params else "C returns nothing (void): use Cvoid"
        if jt.name in JL_VOID:
            return "Cvoid only stands for a C void return"
        if isinstance(s, (CPrim, CEnum)):
            ckey = c_scalar_key(ct)
            jkey = self.jl_scalar_key(jt)
            if jkey is None:
                return "a C %s needs a Julia %s" % (self.key_str(ckey), self._suggest(ckey))
            if not self.scalar_ok(ckey, jkey):
                return "C is a %s, Julia a %s" % (self.key_str(ckey), self.key_str(jkey))
            return None
        if isinstance(s, CStruct):
            if s.fields is None:
                return "an incomplete C type cannot be passed by value"
            if jt.name in JL_POINTERS or jt.name in ("Cstring",):
                return "the C struct is passed by value, not through a pointer"
            js = self.jl.structs.get(jt.name)
            if js is not None and js.mutable:
                return "a mutable struct is passed by reference; the C struct is passed by value"
            why = self.struct_layout(s, jt)
            return None if why is None else "layout differs from %s: %s" % (c_str(ct), why)
        if isinstance(s, CPtr):
            if jt.name == "Ref" and role in ("ret", "cb-ret"):
                return "Ref is not a valid return type (use Ptr)"
            return self._match_pointer(ct, s, jt, role, values, top=True)
        return "unsupported C type %s" % c_str(ct)

    @staticmethod
    def _suggest(ckey):
        kind, signed, size = ckey
        if kind == "float":
            return {4: "Cfloat/Float32", 8: "Cdouble/Float64"}.get(size, "float")
        if kind in ("char", "bool"):
            return "UInt8/Cchar" if kind == "char" else "Bool"
        return "%sInt%d" % ("" if signed else "U", size * 8)

    def _match_pointer(self, ct, s, jt, role, values, top):
        to = s.to
        target = c_strip(to)
        if isinstance(target, CFunc):
            if jt.name == "Ptr" and len(jt.params) == 1 and jt.params[0] in (JT("Cvoid"), JT("Nothing")):
                return None
            return "a C function pointer needs Ptr{Cvoid} (from @cfunction)"
        if jt.name in ("Cstring", "Cwstring"):
            if jt.name == "Cwstring" or c_scalar_key(to) is None or c_scalar_key(to)[0] != "char":
                return "Cstring only stands for a C char pointer"
            if not c_is_const(to) and role == "arg":
                return "Cstring passes a read-only NUL-terminated copy; C writes into this char buffer: " \
                       "use Ptr{UInt8}"
            return None
        if jt.name not in JL_POINTERS or len(jt.params) != 1:
            return "a C pointer needs Ptr{...}%s" % (" or Ref{...}" if role == "arg" else "")
        if jt.name == "Ref" and role not in ("arg", "cb-arg"):
            return "Ref is not valid here (use Ptr)"
        y = jt.params[0]
        if not isinstance(y, JT):
            return "%s is not a pointer type" % jt
        if isinstance(target, CPrim) and target.kind == "void":
            return None  # void *: any pointer
        if y.name in JL_VOID:
            if isinstance(target, CStruct) and target.fields is None:
                return None  # an opaque handle
            if top and role == "arg" and values is not None and values and all(self.is_null(v) for v in values):
                return None  # C_NULL for an optional typed pointer
            return "Ptr{Cvoid} hides the C pointee type %s (allowed only where the value is C_NULL): " \
                   "declare %s" % (c_str(to), self._pointer_hint(to, jt.name))
        if isinstance(target, CStruct) and target.fields is None:
            js = self.jl.structs.get(y.name)
            if (js is not None and js.opaque) or y.name in self.jl.opaque:
                return None
            return "the C type %s is an opaque handle: use Ptr{Cvoid}" % c_str(to)
        if isinstance(target, (CPrim, CEnum)):
            ckey, jkey = c_scalar_key(to), self.jl_scalar_key(y)
            if jkey is None:
                return "points to %s: needs %s{%s}" % (c_str(to), jt.name, self._suggest(ckey))
            if not self.scalar_ok(ckey, jkey):
                return "points to %s (a %s), Julia's pointee is a %s" % (c_str(to), self.key_str(ckey),
                                                                          self.key_str(jkey))
            return None
        if isinstance(target, CPtr):
            if y.name == "Cstring":
                return None if c_scalar_key(target.to) and c_scalar_key(target.to)[0] == "char" else \
                    "points to %s, not to a char pointer" % c_str(to)
            if y.name != "Ptr":
                return "points to a pointer (%s): needs %s{Ptr{...}}" % (c_str(to), jt.name)
            why = self._match_pointer(to, target, y, role, None, top=False)
            return None if why is None else "pointee: " + why
        if isinstance(target, CStruct):
            js = self.jl.structs.get(y.name)
            if js is None and y.name != "Tuple":
                return "points to struct %s: needs %s{<Julia struct with its layout>}" % (c_str(to), jt.name)
            why = self.struct_layout(target, y)
            return None if why is None else "%s vs Julia %s: %s" % (c_str(to), y, why)
        if isinstance(target, CArray):
            return "pointer to array unsupported"
        return "unsupported C pointee %s" % c_str(to)

    def _pointer_hint(self, to, head):
        key = c_scalar_key(to)
        if key is not None:
            return "%s{%s}" % (head, self._suggest(key))
        if isinstance(c_strip(to), CStruct):
            return "%s{<Julia struct matching %s>}" % (head, c_str(to))
        if isinstance(c_strip(to), CPtr):
            return "%s{Ptr{...}}" % head
        return head + "{...}"

    # ---- calls ---------------------------------------------------------------------------

    def check_calls(self):
        for call in self.jl.calls:
            self.check_call(call)
        for cb in self.jl.callbacks:
            self.check_callback(cb)

    def check_call(self, call):
        where = call.name or "?"
        if call.note:
            where += " (%s)" % call.note
        for p in call.problems:
            self.err(call.path, call.line, "%s: %s" % (where, p))
        if call.name is None:
            return
        h = self.h
        if call.name not in h.functions:
            if call.name in h.static_inline:
                self.err(call.path, call.line, "%s: a static inline function of glia.h (line %d): no symbol in "
                         "libglia to call" % (where, h.static_inline[call.name]))
            else:
                self.err(call.path, call.line, "%s: not declared in glia.h" % where)
            return
        f, cline, exported = h.functions[call.name]
        if not exported:
            self.err(call.path, call.line, "%s: declared without GLIA_API in glia.h (line %d)" % (where, cline))
        if call.name not in h.symbols:
            self.err(call.path, call.line, "%s: not exported (missing from abi/glia.symbols)" % where)
        if f.variadic:
            self.err(call.path, call.line, "%s: C function is variadic; the checker cannot verify it" % where)
        count_ok = len(call.args) == len(f.params)
        if not count_ok:
            self.err(call.path, call.line, "%s: %d argument types for %d C parameters (C: %s)" % (
                where, len(call.args), len(f.params), c_proto(call.name, f)))
        elif call.values is not None and len(call.values) != len(call.args):
            self.err(call.path, call.line, "%s: %d values passed for %d argument types" % (
                where, len(call.values), len(call.args)))
        if call.ret is not None:
            text, jt = call.ret
            why = self.match(f.ret, self.jl.resolve(jt), "ret")
            if why:
                self.err(call.path, call.line, "%s: return value: Julia %s vs C %s: %s" % (
                    where, self._jstr(text, jt), c_str(f.ret), why))
        for k, ((text, jt), (pname, ct)) in enumerate(zip(call.args, f.params) if count_ok else ()):
            vals = None
            if call.values is not None and len(call.values) == len(call.args):
                vals = [call.values[k]]
            why = self.match(ct, self.jl.resolve(jt), "arg", vals)
            if why:
                self.err(call.path, call.line, "%s: argument %d (%s): Julia %s vs C %s: %s" % (
                    where, k + 1, pname or "unnamed", self._jstr(text, jt), c_str(ct), why))

    def _jstr(self, text, jt):
        r = self.jl.resolve(jt)
        return text if r is None or str(r) == text.replace(" ", "") else "%s (= %s)" % (text, r)

    def callback_slots(self, cb):
        """The C function-pointer types the @cfunction flows into: [(C type, description, line)]."""
        if cb.var is None:
            return []
        out = []
        for call in self.jl.calls:
            if call.values is None or call.name not in self.h.functions:
                continue
            f = self.h.functions[call.name][0]
            for k, v in enumerate(call.values):
                if v.replace(" ", "") == cb.var and k < len(f.params):
                    out.append((f.params[k][1], "argument %d (%s) of %s at %s:%d" % (
                        k + 1, f.params[k][0], call.name, os.path.relpath(call.path), call.line)))
        for path, toks, br, _ in self.jl.parsed:
            for k, t in enumerate(toks):
                if t.kind != "id" or t.text not in self.struct_map or k + 1 >= len(toks) \
                        or toks[k + 1].text != "(" or toks[k + 1].sp:
                    continue
                parts = _split(toks, br, k + 2, br[k + 1], ",", also=";")
                js, cs = self.jl.structs[t.text], self.struct_map[t.text]
                for q, p in enumerate(parts):
                    if _text(p).replace(" ", "") != cb.var or q >= len(js.fields):
                        continue
                    try:
                        jl_off = self._field_offset(js, q)
                    except ValueError:
                        continue
                    cf = self._c_field_at(cs, jl_off)
                    if cf is not None:
                        out.append((cf[1], "field %s of %s (Julia %s) at %s:%d" % (
                            cf[0], c_str(cs), js.name, os.path.relpath(path), t.line)))
        return out

    def _field_offset(self, js, q):
        off = 0
        for n, (_, ft, _) in enumerate(js.fields):
            ft = self.jl.resolve(ft)
            s, a = self.jl_size_align(ft)
            off = _align(off, a)
            if n == q:
                return off
            off += s
        raise ValueError

    @staticmethod
    def _c_field_at(cs, off):
        o = 0
        for name, ft in cs.fields:
            s, a = c_size_align(ft)
            o = _align(o, a)
            if o == off:
                return name, ft
            o += s
        return None

    def check_callback(self, cb):
        slots = self.callback_slots(cb)
        if not slots:
            self.warnings.append("%s:%d: @cfunction(%s): not seen reaching a C callback slot; its signature "
                                 "is unchecked" % (cb.path, cb.line, cb.fname))
            return
        for ct, desc in slots:
            s = c_strip(ct)
            f = c_strip(s.to) if isinstance(s, CPtr) else None
            if not isinstance(f, CFunc):
                self.err(cb.path, cb.line, "@cfunction(%s) reaches %s, which is %s, not a function pointer" % (
                    cb.fname, desc, c_str(ct)))
                continue
            label = "@cfunction(%s) for %s [%s]" % (cb.fname, c_str(ct), desc)
            if len(cb.args) != len(f.params):
                self.err(cb.path, cb.line, "%s: %d argument types for %d C parameters" % (
                    label, len(cb.args), len(f.params)))
                continue
            text, jt = cb.ret
            why = self.match(f.ret, self.jl.resolve(jt), "cb-ret")
            if why:
                self.err(cb.path, cb.line, "%s: return value: Julia %s vs C %s: %s" % (
                    label, self._jstr(text, jt), c_str(f.ret), why))
            for k, ((text, jt), (pname, pt)) in enumerate(zip(cb.args, f.params)):
                why = self.match(pt, self.jl.resolve(jt), "cb-arg")
                if why:
                    self.err(cb.path, cb.line, "%s: argument %d (%s): Julia %s vs C %s: %s" % (
                        label, k + 1, pname or "unnamed", self._jstr(text, jt), c_str(pt), why))


# =====================================================================================
# Main
# =====================================================================================


def run(paths, header_path, symbols_path, coverage=False, verbose=False, out=None):
    """Returns the exit status: 0 clean, 1 mismatches, 2 unreadable input."""
    out = out or sys.stdout
    try:
        header = Header(header_path, symbols_path)
        jl = JlSources(paths)
    except ParseError as e:
        print("check_ccalls: error: %s" % e, file=out)
        return 2
    chk = Checker(header, jl)
    chk.check_calls()
    rel = lambda p: os.path.relpath(p)  # noqa: E731
    for p in header.problems:
        print(p, file=out)
    for path, line, msg in sorted(chk.errors, key=lambda e: (e[0], e[1])):
        print("%s:%d: %s" % (rel(path), line, msg), file=out)
    for w in chk.warnings:
        print("warning: " + w, file=out)
    if verbose:
        for c in jl.calls:
            if c.name in header.functions:
                print("  %s:%d %s%s -> %s" % (rel(c.path), c.line, c.name, " (%s)" % c.note if c.note else "",
                                              c_proto(c.name, header.functions[c.name][0])), file=out)
        for cb in jl.callbacks:
            for ct, desc in chk.callback_slots(cb):
                print("  %s:%d @cfunction(%s) -> %s, %s" % (rel(cb.path), cb.line, cb.fname, c_str(ct), desc),
                      file=out)
    exported = header.exported()
    wrapped = sorted({c.name for c in jl.calls if c.name in header.functions and header.functions[c.name][2]})
    missing = [n for n in exported if n not in set(wrapped)]
    n_errors = len(chk.errors) + len(header.problems)
    sites = len({(c.path, c.line, c.form) for c in jl.calls})
    checked_cb = len(jl.callbacks) - len(chk.warnings)
    print("check_ccalls: %d ccalls checked (at %d call sites, loops expanded) in %d file%s, "
          "%d @cfunction callback%s: %s" % (
              len(jl.calls), sites, len(jl.files), "" if len(jl.files) == 1 else "s",
              checked_cb, "" if checked_cb == 1 else "s",
              "%d mismatch%s" % (n_errors, "" if n_errors == 1 else "es") if n_errors else "no mismatches"),
          file=out)
    print("check_ccalls: wrapped %d of %d glia.h functions" % (len(wrapped), len(exported)), file=out)
    if coverage:
        by_section = {}
        for n in exported:
            by_section.setdefault(header.section_of(header.functions[n][1]), []).append(n)
        order = [t for _, t in header.sections if t in by_section] + \
            [t for t in by_section if t not in [s for _, s in header.sections]]
        for title in order:
            names = by_section[title]
            w = [n for n in names if n in wrapped]
            print("\n%s: wrapped %d of %d" % (title, len(w), len(names)), file=out)
            for label, items in (("wrapped", w), ("not wrapped", [n for n in names if n not in wrapped])):
                if items:
                    print(textwrap.fill("  %s: %s" % (label, " ".join(items)), width=110,
                                        subsequent_indent="    "), file=out)
    else:
        print(textwrap.fill("check_ccalls: not wrapped (%d, informational): %s" % (len(missing), " ".join(missing)),
                            width=110, subsequent_indent="    "), file=out)
    return 1 if n_errors else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", help=".jl files or folders (default: bindings/julia/src)")
    ap.add_argument("--header", default=DEFAULT_HEADER, help="glia.h (default: include/glia/glia.h)")
    ap.add_argument("--symbols", default=DEFAULT_SYMBOLS, help="exported names (default: abi/glia.symbols)")
    ap.add_argument("--coverage", action="store_true", help="list wrapped and unwrapped functions per section")
    ap.add_argument("--verbose", action="store_true", help="print every checked call with its C prototype")
    a = ap.parse_args(argv)
    return run(a.paths or DEFAULT_SOURCES, a.header, a.symbols, a.coverage, a.verbose)


if __name__ == "__main__":
    sys.exit(main())
