#!/usr/bin/env python3
"""Checks the include rules of design/ARCHITECTURE.md:
- a file in src/<layer>/ includes headers of its own layer or of earlier layers only;
- a file in cuda/ includes headers of cuda/ and src/core/ only;
- no file of src/ or cuda/ outside src/capi/ includes glia/glia.h (only capi knows the C ABI);
- no file outside src/ops/cpu/ includes a header of src/ops/cpu/: the CPU's loop helpers and kernels
  stay behind the kernel table (Note [Op = meta + kernel + rule] in core/dispatch.h);
- src/ reaches cuda/ only through the backend table, except that src/ops/cpu/ may include cuda/'s shared
  per-element headers ("cuda/optim_ops.h"): plain C++ for the host compiler (cuda/host_device.h), which
  include only standard headers and other shared headers, never the CUDA runtime or the backend's own.

  check_layers.py --root . --layers core ops autograd nn optim io distributed capi
"""

import argparse
import os
import re
import sys

SOURCE_EXTENSIONS = (".h", ".hpp", ".c", ".cc", ".cpp", ".cu", ".cuh", ".inl")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def sources(top):
    for dirpath, dirnames, files in os.walk(top):
        dirnames.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_EXTENSIONS):
                yield os.path.join(dirpath, name)


def classify(root, path, layers):
    """The layer, "cuda" or "abi" (the C ABI header) that a file belongs to; None for anything else."""
    rel = os.path.relpath(os.path.normpath(path), root).split(os.sep)
    if rel == ["include", "glia", "glia.h"]:
        return "abi"
    if rel[0] == "cuda":
        return "cuda"
    if rel[0] == "src" and len(rel) > 2 and rel[1] in layers:
        return rel[1]
    return None


def shared_header(path, seen=None):
    """Whether a cuda/ header is a shared per-element header: host_device.h itself, or a header that
    includes standard headers (<...>, none of CUDA's) and at least one shared header of cuda/ (so it reaches
    host_device.h), nothing else."""
    seen = set() if seen is None else seen
    if path in seen:
        return True
    seen.add(path)
    if not os.path.exists(path):
        return False
    if os.path.basename(path) == "host_device.h":
        return True
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    includes = INCLUDE.findall(text)
    if not any(quote == '"' for quote, _ in includes):
        return False
    for quote, header in includes:
        if quote == "<":
            if header.startswith(("cuda", "cub/", "thrust/", "cublas", "cudnn", "curand", "nccl")):
                return False
        elif not shared_header(os.path.join(os.path.dirname(path), header), seen):
            return False
    return True


def include_target(root, path, quote, header, layers):
    """What an include in `path` reaches, as classify() names it."""
    # The compiler looks a quoted include up next to the including file first, then on the
    # include path, whose project directories are src/ and include/.
    candidates = [os.path.join(os.path.dirname(path), header)] if quote == '"' else []
    candidates += [os.path.join(root, "src", header), os.path.join(root, "include", header)]
    if header.startswith("cuda/"):  # src/ops/cpu/ has the repository root on its include path (shared headers)
        candidates.append(os.path.join(root, header))
    for candidate in candidates:
        if os.path.exists(candidate):
            return classify(root, candidate, layers)
    # A header that does not exist (yet) is judged by its name.
    if header == "glia/glia.h":
        return "abi"
    return header.split("/")[0] if header.split("/")[0] in layers else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", required=True, help="repository root")
    p.add_argument("--layers", nargs="+", required=True, help="the layers of src/, earliest first")
    args = p.parse_args()
    root = os.path.abspath(args.root)
    order = {name: i for i, name in enumerate(args.layers)}

    problems = []
    checked = 0
    for top in ("src", "cuda"):
        for path in sources(os.path.join(root, top)):
            rel = os.path.relpath(path, root)
            parts = rel.split(os.sep)
            if top == "src" and len(parts) > 2 and parts[1] not in order:
                problems.append(f"{rel}: src/{parts[1]}/ is not a layer (known: {' '.join(args.layers)})")
                continue
            layer = parts[1] if top == "src" and len(parts) > 2 else None
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            checked += 1
            for m in INCLUDE.finditer(text):
                quote, header = m.group(1), m.group(2)
                line = text.count("\n", 0, m.start()) + 1
                target = include_target(root, path, quote, header, order)
                where = f"{rel}:{line}: #include {quote}{header}{'>' if quote == '<' else quote}"
                in_cpu = rel.startswith(os.path.join("src", "ops", "cpu") + os.sep)
                if header.startswith("ops/cpu/") and not in_cpu:
                    problems.append(f"{where}: only src/ops/cpu/ includes the CPU's loop helpers and kernels")
                if target == "abi":
                    if layer != "capi":
                        problems.append(f"{where}: only src/capi/ may include the C ABI header")
                elif top == "cuda":
                    if target is not None and target not in ("core", "cuda"):
                        problems.append(f"{where}: cuda/ may include cuda/ and src/core/ only")
                elif target == "cuda":
                    shared = header.startswith("cuda/") and shared_header(os.path.join(root, header))
                    if not (in_cpu and shared):
                        problems.append(f"{where}: the core reaches cuda/ only through the backend table "
                                        "(src/ops/cpu/ may include cuda/'s shared per-element headers)")
                elif target is not None and layer is not None and order[target] > order[layer]:
                    problems.append(f"{where}: layer {layer} includes the later layer {target}")

    for problem in problems:
        print("layering: " + problem)
    if problems:
        return 1
    print(f"layering: {checked} files of src/ and cuda/ follow the layer order {' < '.join(args.layers)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
