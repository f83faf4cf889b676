"""Builds the glia wheel (metadata in pyproject.toml; this file adds what it cannot say).

- The version is the C library's: GLIA_VERSION_MAJOR/MINOR/PATCH of include/glia/glia_base.h, the
  header the library and glia/_cdefs.py are made from.
- build_py copies libglia.so.0, and libglia_cuda.so.0 when the CUDA backend was built, from the
  CMake build directory named by GLIA_BUILD_DIR into glia/_lib/ of the wheel, where
  glia/_ffi.py looks first (and libglia looks for its CUDA backend: next to itself). The
  library must report the header's version, so a stale or foreign build cannot be bundled.
- bdist_wheel tags the wheel py3-none-<platform> (linux_x86_64 here): any Python 3 can load
  the library through ctypes, but only on the platform it was compiled for. The wheel is not
  audited against a manylinux policy (docs/install.md, "Python wheel").

Editable installs (pip install -e) bundle nothing; the package then finds the library
through GLIA_LIBRARY or the system loader.
"""

import ctypes
import os
import re
import shutil

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "..", "include", "glia", "glia_base.h")  # GLIA_VERSION_*
CORE = "libglia.so.0"
CUDA = "libglia_cuda.so.0"  # present in the build when CMake found the CUDA toolkit (GLIA_CUDA)


def header_version():
    try:
        with open(HEADER, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit("glia wheel: cannot read the version from %s: %s (build the wheel from a glia checkout: "
                         "bindings/python of the same tree as the library)" % (os.path.normpath(HEADER), e))
    parts = []
    for key in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define GLIA_VERSION_%s (\d+)\s*$" % key, text, re.M)
        if not m:
            raise SystemExit("glia wheel: %s has no #define GLIA_VERSION_%s" % (os.path.normpath(HEADER), key))
        parts.append(m.group(1))
    return ".".join(parts)


VERSION = header_version()


def build_libraries():
    """The libraries to bundle, as paths in GLIA_BUILD_DIR: [libglia.so.0] or [libglia.so.0, libglia_cuda.so.0]."""
    build = os.environ.get("GLIA_BUILD_DIR")
    if not build:
        raise SystemExit("glia wheel: GLIA_BUILD_DIR is not set; set it to the CMake build directory whose "
                         "src/%s the wheel bundles, e.g. GLIA_BUILD_DIR=$PWD/build/release "
                         "(build it first: cmake --preset release && cmake --build build/release)" % CORE)
    build = os.path.abspath(build)
    # A CMake build keeps the libraries in src/; a directory holding them directly (an installed lib/) works too.
    for d in (os.path.join(build, "src"), build):
        core = os.path.join(d, CORE)
        if os.path.isfile(core):
            break
    else:
        raise SystemExit("glia wheel: GLIA_BUILD_DIR=%s has no src/%s (nor %s); build the library first: "
                         "cmake --build %s --target glia" % (build, CORE, CORE, build))
    try:
        got = ctypes.CDLL(core).glia_version_string
        got.restype = ctypes.c_char_p
        got = got().decode()
    except (OSError, AttributeError) as e:
        raise SystemExit("glia wheel: cannot load %s to check its version: %s" % (core, e))
    if got != VERSION:
        raise SystemExit("glia wheel: %s is version %s, but %s says %s: GLIA_BUILD_DIR is a build of another "
                         "checkout, or is stale (rebuild it)" % (core, got, os.path.normpath(HEADER), VERSION))
    cuda = os.path.join(d, CUDA)
    return [core, cuda] if os.path.isfile(cuda) else [core]


class BuildPyWithLibrary(build_py):
    """build_py, plus the libraries of GLIA_BUILD_DIR in glia/_lib/ of the build."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = os.path.join(self.build_lib, "glia", "_lib")
        libraries = build_libraries()
        if os.path.isdir(target) and not self.dry_run:
            shutil.rmtree(target)  # an earlier in-place build's libraries, maybe of another build directory
        os.makedirs(target, exist_ok=True)
        for src in libraries:
            # copyfile follows the build's symlinks (libglia.so.0 -> libglia.so.0.1.0): the wheel holds the file
            # under its SONAME, the name libglia loads its CUDA backend by.
            dst = os.path.join(target, os.path.basename(src))
            self.announce("bundling %s -> %s" % (os.path.realpath(src), dst), level=2)
            if not self.dry_run:
                shutil.copyfile(src, dst)
                shutil.copymode(src, dst)

    def get_outputs(self, include_bytecode=1):
        outputs = super().get_outputs(include_bytecode)
        target = os.path.join(self.build_lib, "glia", "_lib")
        if os.path.isdir(target):
            outputs += [os.path.join(target, n) for n in sorted(os.listdir(target))]
        return outputs


class PlatformDistribution(Distribution):
    """Says it has compiled code (the bundled library), so that the wheel is a platform wheel installed to platlib."""

    def has_ext_modules(self):
        return True


class BdistWheelPlatform(bdist_wheel):
    """A platform wheel that any Python 3 can use: py3-none-<platform>, e.g. py3-none-linux_x86_64."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    version=VERSION,
    distclass=PlatformDistribution,
    cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": BdistWheelPlatform},
)
