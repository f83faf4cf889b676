#!/usr/bin/env python3
"""Build checks of the CUDA backend, run on every machine that builds it (no GPU needed).

  check_backend_library.py --library libglia_cuda.so.0 [--no-device-code]
      the library exports exactly the backend entry point, needs only allowed libraries (never libcudart:
      it is linked statically; cuBLAS and cuDNN through the loader, and it does need both: libcudnn.so.9,
      never a cuDNN sub-library directly), has a RUNPATH holding $ORIGIN (no old-style RPATH, so
      LD_LIBRARY_PATH still wins) when it needs cuBLAS or cuDNN, and the SONAME libglia_cuda.so.<major>;
      --no-device-code: it holds no device code
  check_backend_library.py --library libglia_cuda.so.0 --device-code libglia_cuda.so.0 --architectures ...
      both checks on the library (what ctest's cuda.backend_library runs)
  check_backend_library.py --device-code host_device_check.o --architectures "75-virtual;80-real;90-real"
      the object's fatbinary holds exactly the listed architectures: PTX for N-virtual, SASS for N-real, both
      for N (CMake's CUDA_ARCHITECTURES spelling)

The fatbinary (the .nv_fatbin section) is read directly, so no cuobjdump is needed: a 16-byte container header
(magic 0xBA55ED50, version, header size, size of the entries) followed by entries, each with a 16-bit kind
(1 PTX, 2 ELF/SASS) at offset 0, its header size at 4, its payload size at 8 and the SM version at 28.
"""

import argparse
import re
import struct
import subprocess
import sys

EXPORTS = {"glia_backend_v2"}
# The C/C++ runtime, and the CUDA libraries the backend will load through the loader (cuBLAS, cuBLASLt, cuDNN).
ALLOWED_NEEDED = [
    r"libc\.so\.6",
    r"libm\.so\.6",
    r"libdl\.so\.2",
    r"libpthread\.so\.0",
    r"librt\.so\.1",
    r"ld-linux-x86-64\.so\.2",
    r"ld-linux-aarch64\.so\.1",
    r"libstdc\+\+\.so\.6",
    r"libgcc_s\.so\.1",
    r"libcublas\.so\.\d+",
    r"libcublasLt\.so\.\d+",
    r"libcudnn\.so\.\d+",
]
# What the backend must need: cuBLAS (blas.cpp) and cuDNN's shim library (conv.cpp), which loads cuDNN's
# sub-libraries (libcudnn_cnn.so.9...) itself: those are never needed directly (not in the allow-list).
REQUIRED_NEEDED = {"libcublas.so.<N>": r"libcublas\.so\.\d+", "libcudnn.so.<N>": r"libcudnn\.so\.\d+"}
FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def elf_sections(data):
    """{name: bytes} of a 64-bit little-endian ELF file's sections."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    sections = {}
    for name_off, kind, _, _, offset, size, *_ in headers:
        name = data[strtab + name_off : data.index(b"\0", strtab + name_off)].decode()
        sections[name] = b"" if kind == 8 else data[offset : offset + size]  # SHT_NOBITS holds no bytes
    return sections


def fatbin_entries(fatbin):
    """[(kind, sm)] of every entry of every container in a .nv_fatbin section."""
    entries, pos = [], 0
    while pos + 16 <= len(fatbin):
        if struct.unpack_from("<I", fatbin, pos)[0] == 0:  # alignment padding between the objects' containers
            pos += 4
            continue
        magic, _, header_size, size = struct.unpack_from("<IHHQ", fatbin, pos)
        if magic != FATBIN_MAGIC:
            raise ValueError("bad fatbinary magic 0x%08x at offset %d" % (magic, pos))
        entry, end = pos + header_size, pos + header_size + size
        while entry < end:
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", fatbin, entry)
            sm = struct.unpack_from("<I", fatbin, entry + 28)[0]
            entries.append((kind, sm))
            entry += entry_header + payload
        pos = end
    return entries


def expected_entries(architectures):
    want = set()
    for arch in filter(None, architectures.split(";")):
        m = re.fullmatch(r"(\d+)(-real|-virtual)?", arch)
        if not m:
            raise ValueError("bad architecture %r (expected N, N-real or N-virtual)" % arch)
        sm = int(m.group(1))
        if m.group(2) != "-virtual":
            want.add((KIND_ELF, sm))
        if m.group(2) != "-real":
            want.add((KIND_PTX, sm))
    return want


def describe(entries):
    return ", ".join(sorted("%s sm_%d" % ("PTX" if k == KIND_PTX else "SASS", sm) for k, sm in entries)) or "none"


def check_library(args, errors):
    symbols = set()
    for line in run([args.nm, "-D", "--defined-only", args.library]).splitlines():
        fields = line.split()
        if len(fields) >= 2:
            symbols.add(fields[-1].split("@")[0])
    if symbols != EXPORTS:
        errors.append(
            "exported symbols: want exactly %s; extra %s, missing %s"
            % (sorted(EXPORTS), sorted(symbols - EXPORTS), sorted(EXPORTS - symbols))
        )
    dynamic = run([args.readelf, "-d", args.library])
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    for lib in needed:
        if lib.startswith("libcudart"):
            errors.append("needs %s: cudart must be linked statically" % lib)
        elif not any(re.fullmatch(p, lib) for p in ALLOWED_NEEDED):
            errors.append("needs %s, which is not in the allow-list" % lib)
    for name, pattern in REQUIRED_NEEDED.items():
        if not any(re.fullmatch(pattern, lib) for lib in needed):
            errors.append("does not need %s (NEEDED: %s)" % (name, ", ".join(needed)))
    if any(lib.startswith("libcublas") or lib.startswith("libcudnn") for lib in needed):
        runpath = re.findall(r"\(RUNPATH\)\s+Library runpath: \[([^\]]*)\]", dynamic)
        rpath = re.findall(r"\(RPATH\)\s+Library rpath: \[([^\]]*)\]", dynamic)
        if rpath:
            errors.append("has an RPATH %s: want a RUNPATH (--enable-new-dtags)" % rpath)
        if "$ORIGIN" not in [p for r in runpath for p in r.split(":")]:
            errors.append("RUNPATH %s lacks $ORIGIN" % (runpath or "missing"))
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dynamic)
    if not m or not re.fullmatch(r"libglia_cuda\.so\.\d+", m.group(1)):
        errors.append("SONAME is %s, want libglia_cuda.so.<major>" % (m.group(1) if m else "missing"))
    if args.no_device_code:
        with open(args.library, "rb") as f:
            entries = fatbin_entries(elf_sections(f.read()).get(".nv_fatbin", b""))
        if entries:
            errors.append(
                "the library now holds device code (%s): check its architectures with --architectures"
                % describe(entries)
            )


def check_device_code(args, errors):
    with open(args.device_code, "rb") as f:
        entries = set(fatbin_entries(elf_sections(f.read()).get(".nv_fatbin", b"")))
    want = expected_entries(args.architectures)
    if entries != want:
        errors.append(
            "%s: device code for %s, want %s" % (args.device_code, describe(entries), describe(want))
        )


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--library", help="libglia_cuda.so to check")
    p.add_argument("--no-device-code", action="store_true", help="the library must hold no fatbinary")
    p.add_argument("--device-code", help="an object or library whose fatbinary to check")
    p.add_argument("--architectures", help="CMake CUDA_ARCHITECTURES list the device code must hold exactly")
    p.add_argument("--nm", default="nm")
    p.add_argument("--readelf", default="readelf")
    args = p.parse_args()
    if not args.library and not args.device_code:
        p.error("give --library or --device-code")
    if args.device_code and not args.architectures:
        p.error("--device-code needs --architectures")
    errors = []
    if args.library:
        check_library(args, errors)
    if args.device_code:
        check_device_code(args, errors)
    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print("ok: " + ", ".join(filter(None, [args.library, args.device_code])))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
