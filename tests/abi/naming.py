#!/usr/bin/env python3
"""The C API's naming rules (docs/c-api.md, "Reading the header"): one
spelling per concept. Parses the prototypes and structs of the public headers
and fails, naming function and argument, where a rule is broken:

  - out-parameters (T ** of a non-const T, and counts the library writes)
    are named out, out_<what> or outs;
  - an input array xs is followed by its length n_xs (a shape by ndim,
    <prefix>_shape by <prefix>_ndim); a filled array or buffer by capacity;
  - an optional argument is a pointer, so "device" and "dtype" of the .to()
    functions are pointers;
  - padding_mode is glia_pad_mode wherever it appears; glia_padding_kind
    only ever in a field or argument named padding_kind.

Usage: naming.py include/glia/glia.h [more headers]
"""
import re
import sys

# Arguments that are written by the library but are not results: in-place
# targets and handles a call modifies (their type says so), or callbacks'
# user data.
WRITABLE_INPUTS = {"self", "tensor", "module", "child", "seq", "list", "dict", "optimizer", "scheduler",
                   "report", "grad", "param", "ctx", "def", "options", "allocator", "error", "running_mean",
                   "running_var", "weight", "weight_or_null", "pos_weight_or_null", "managed", "s"}


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def split_args(args):
    out = []
    for a in args.split(","):
        a = " ".join(a.split())
        if not a or a == "void":
            continue
        m = re.match(r"(.*?)(\w+)$", a)
        if m:
            out.append((m.group(1).strip(), m.group(2)))
    return out


def check(path):
    src = strip_comments(open(path).read())
    errors = []
    protos = re.findall(r"GLIA_API[^;{]*?\b(glia_\w+)\s*\(([^;{]*?)\)\s*;", src, flags=re.S)
    for fn, raw in protos:
        args = split_args(raw)
        for i, (ty, name) in enumerate(args):
            where = f"{fn}: argument {i + 1} '{name}'"
            ptr_depth = ty.count("*")
            const_pointee = ty.startswith("const ")
            # Results: T ** (T not const) and written scalars.
            if ptr_depth == 2 and not const_pointee and "*const" not in ty.replace(" ", ""):
                if not re.fullmatch(r"out(_\w+)?|outs|replacement", name):
                    errors.append(f"{where}: a result is named out, out_<what> or outs")
            if ptr_depth == 1 and not const_pointee and re.fullmatch(r"(int64_t|int32_t|size_t|double)", ty.replace("*", "").strip()):
                if not re.fullmatch(r"out(_\w+)?|outs", name):
                    errors.append(f"{where}: a count or value the library writes is named out_<what>")
            if name in ("n", "count", "num", "len", "size_n", "out_n"):
                errors.append(f"{where}: counts are n_<array> for inputs and out_count for outputs")
            # Input arrays and their lengths.
            is_array = (re.fullmatch(r"const (int64_t|int32_t|double|float|uint8_t) \*", ty) is not None
                        or "*const *" in ty) and not name.endswith("_or_null")
            if is_array and i + 1 < len(args):
                nty, nname = args[i + 1]
                if nty in ("int64_t", "size_t") and not nname.startswith("out"):
                    if name.endswith("shape") or name == "strides":
                        prefix = name[: -len("shape")] if name.endswith("shape") else ""
                        ok = nname == prefix + "ndim"
                    else:
                        ok = nname == "n_" + name or nname == "capacity"
                    if not ok:
                        errors.append(f"{where}: its length is named "
                                      f"{'ndim' if name.endswith('shape') else 'n_' + name}, not '{nname}'")
            if fn in ("glia_tensor_to", "glia_module_to") and name in ("device", "dtype") and ptr_depth != 1:
                errors.append(f"{where}: optional arguments of the .to() functions are pointers (NULL: unchanged)")
            if name == "padding_mode" and "glia_pad_mode" not in ty:
                errors.append(f"{where}: padding_mode is a glia_pad_mode")
            if "glia_padding_kind" in ty and name != "padding_kind":
                errors.append(f"{where}: a glia_padding_kind is named padding_kind")
    for body, sname in re.findall(r"typedef struct \w+ \{(.*?)\}\s*(\w+);", src, flags=re.S):
        for ty, name in re.findall(r"([\w\s\*]+?)\s*\**(\w+)(?:\[\d+\])?;", body):
            if name == "padding_mode" and "glia_pad_mode" not in ty:
                errors.append(f"{sname}.{name}: padding_mode is a glia_pad_mode")
            if "glia_padding_kind" in ty and name != "padding_kind":
                errors.append(f"{sname}.{name}: a glia_padding_kind is named padding_kind")
    return len(protos), errors


def main():
    total, errors = 0, []
    for path in sys.argv[1:]:
        n, e = check(path)
        total += n
        errors += e
    for e in errors:
        print(e)
    print(f"naming: {total} functions checked, {len(errors)} violations")
    return 1 if errors or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
