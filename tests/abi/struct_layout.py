#!/usr/bin/env python3
"""ABI check of the public structs of glia.h and glia_backend.h (the backend ABI): the size, alignment and field offsets of every
`typedef struct name { ... } name;` compiled with the C compiler, against abi/glia.layout.

A reordered, resized or removed field fails; appending a field (the struct_size rule) changes
the file, which is then rewritten with --update and reviewed like any ABI change.

  struct_layout.py --cc cc --include include                  check
  struct_layout.py --cc cc --include include --update         rewrite abi/glia.layout

The layout recorded is the LP64 one (x86-64, aarch64 Linux); elsewhere the check is skipped
(exit status 77).
"""

import argparse
import difflib
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYOUT = os.path.join(ROOT, "abi", "glia.layout")
HEADERS = ("glia.h", "glia_backend.h")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def public_structs(header):
    """[(name, [field names in order])] of the structs glia.h defines."""
    with open(header, encoding="utf-8") as f:
        text = strip_comments(f.read())
    structs = []
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
        tag, body, name = m.group(1), m.group(2), m.group(3)
        if tag != name:
            sys.exit(f"struct_layout: typedef struct {tag} {{...}} {name}: tag and name differ")
        fields = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if fp:  # function pointer
                fields.append(fp.group(1))
                continue
            # "type a, b[2]": every declarator after the type.
            head, *rest = decl.split(",")
            first = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", head)
            if not first:
                sys.exit(f"struct_layout: cannot parse field '{decl}' of {name}")
            fields.append(first.group(1))
            for r in rest:
                d = re.match(r"\s*\**\s*(\w+)", r)
                fields.append(d.group(1))
        structs.append((name, fields))
    if not structs:
        sys.exit("struct_layout: no struct found in " + header)
    return structs


def layout_program(structs):
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <glia/glia.h>", "#include <glia/glia_backend.h>",
             "int main(void) {"]
    for name, fields in structs:
        lines.append(f'  printf("{name} size %zu align %zu\\n", sizeof({name}), _Alignof({name}));')
        for f in fields:
            lines.append(
                f'  printf("  {f} offset %zu size %zu\\n", offsetof({name}, {f}), sizeof((({name} *)0)->{f}));')
    lines += ["  return 0;", "}", ""]
    return "\n".join(lines)


def measured_layout(cc, include, structs):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "layout.c")
        exe = os.path.join(tmp, "layout")
        with open(src, "w", encoding="utf-8") as f:
            f.write(layout_program(structs))
        subprocess.run([cc, "-std=c11", "-I", include, src, "-o", exe], check=True)
        return subprocess.run([exe], check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--include", default=os.path.join(ROOT, "include"))
    ap.add_argument("--layout", default=LAYOUT)
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    if platform.machine() not in ("x86_64", "aarch64") or platform.system() != "Linux":
        print(f"struct_layout: skipped: {LAYOUT} records the LP64 Linux layout, this is "
              f"{platform.system()} {platform.machine()}")
        return 77
    structs = [s for h in HEADERS for s in public_structs(os.path.join(args.include, "glia", h))]
    got = "# Public struct layouts of glia.h and glia_backend.h (LP64 Linux), checked by " \
        "tests/abi/struct_layout.py.\n" + \
        measured_layout(args.cc, args.include, structs)
    if args.update:
        with open(args.layout, "w", encoding="utf-8") as f:
            f.write(got)
        print(f"struct_layout: wrote {args.layout} ({len(structs)} structs)")
        return 0
    try:
        with open(args.layout, encoding="utf-8") as f:
            want = f.read()
    except FileNotFoundError:
        print(f"struct_layout: {args.layout} is missing; run with --update", file=sys.stderr)
        return 1
    if got != want:
        sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True), args.layout,
                                                   "compiled headers"))
        print("struct_layout: the layout of the public structs changed. A field may only be appended; "
              "rerun with --update to record an intended change.", file=sys.stderr)
        return 1
    print(f"struct_layout: {len(structs)} structs, "
          f"{sum(len(f) for _, f in structs)} fields match {os.path.relpath(args.layout, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
