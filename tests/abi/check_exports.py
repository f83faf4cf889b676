#!/usr/bin/env python3
"""ABI check of libglia: what the library exports is exactly what glia.h declares and
what abi/glia.symbols records, and the SONAME carries the major version.

  check_exports.py --library build/release/src/libglia.so            check
  check_exports.py --library build/release/src/libglia.so --update   rewrite abi/glia.symbols
"""

import argparse
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def exported_symbols(nm, library):
    """{name: nm type letter} of the defined dynamic symbols, version suffixes stripped."""
    symbols = {}
    for line in run([nm, "-D", "--defined-only", library]).splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        symbols[fields[-1].split("@")[0]] = fields[-2]
    return symbols


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


def declared_functions(header):
    """Names of the functions that glia.h (and the headers it includes) declares with GLIA_API."""
    with open(header, encoding="utf-8") as f:
        text = _with_included(header, f.read())
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return {m.group(1) for m in re.finditer(r"\bGLIA_API\b[^;{}]*?\b(glia_\w+)\s*\(", text)}


def soname(readelf, library):
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", run([readelf, "-d", library]))
    return m.group(1) if m else None


def header_major(header):
    with open(header, encoding="utf-8") as f:
        m = re.search(r"#define\s+GLIA_VERSION_MAJOR\s+(\d+)", _with_included(header, f.read()))
    return m.group(1) if m else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--library", required=True, help="path of the built libglia.so")
    p.add_argument("--header", default=os.path.join(ROOT, "include", "glia", "glia.h"))
    p.add_argument("--symbols", default=os.path.join(ROOT, "abi", "glia.symbols"))
    p.add_argument("--nm", default="nm")
    p.add_argument("--readelf", default="readelf")
    p.add_argument("--update", action="store_true", help="rewrite the symbols file from the library")
    args = p.parse_args()

    problems = []
    exported = exported_symbols(args.nm, args.library)
    functions = sorted(n for n, kind in exported.items() if n.startswith("glia_") and kind in ("T", "W", "i"))
    for name in sorted(set(exported) - set(functions)):
        problems.append(f"exported symbol {name} (nm type {exported[name]}) is not a glia_ function: "
                        "only glia_* functions may leave the library (src/glia.map, hidden visibility)")

    declared = declared_functions(args.header)
    for name in sorted(declared - set(functions)):
        problems.append(f"{name} is declared GLIA_API in glia.h but not exported by the library")
    for name in sorted(set(functions) - declared):
        problems.append(f"{name} is exported but not declared GLIA_API in glia.h")

    major = header_major(args.header)
    expected_soname = f"libglia.so.{major}"
    actual_soname = soname(args.readelf, args.library)
    if actual_soname != expected_soname:
        problems.append(f"SONAME is {actual_soname}, expected {expected_soname} (GLIA_VERSION_MAJOR {major})")

    listing = "".join(f"{n}\n" for n in functions)
    if args.update:
        with open(args.symbols, "w", encoding="utf-8") as f:
            f.write(listing)
        print(f"wrote {len(functions)} symbols to {args.symbols}")
    else:
        try:
            with open(args.symbols, encoding="utf-8") as f:
                recorded = f.read()
        except FileNotFoundError:
            recorded = ""
        if recorded != listing:
            old, new = recorded.splitlines(), listing.splitlines()
            diff = "".join(f"  {line}\n" for line in difflib.unified_diff(
                old, new, os.path.relpath(args.symbols, ROOT), "exported by " + args.library, lineterm=""))
            removed = sorted(set(old) - set(new))
            note = ("Removing or renaming a symbol breaks the ABI: it needs a GLIA_VERSION_MAJOR bump and a "
                    "docs/CHANGELOG.md entry. " if removed else "")
            problems.append(f"the exported symbols differ from {os.path.relpath(args.symbols, ROOT)}:\n{diff}"
                            f"  {note}If the change is intended, update the list with:\n"
                            f"    {sys.executable} {os.path.relpath(__file__, ROOT)} --library {args.library} --update")

    for problem in problems:
        print("ABI: " + problem)
    if problems:
        return 1
    print(f"ABI: {len(functions)} glia_ functions exported, all declared in glia.h and recorded in "
          f"{os.path.relpath(args.symbols, ROOT)}; SONAME {actual_soname}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
