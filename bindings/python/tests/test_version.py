"""glia.__version__ is the loaded C library's version, and the version of the header the binding and the
wheel (bindings/python/setup.py) are made from; the library is looked for bundled, then GLIA_LIBRARY, then
on the system (glia/_ffi.py)."""

import ctypes.util
import os
import re

import pytest

import glia
from glia import _cdefs, _ffi

from _repo import ROOT


def header_version():
    with open(os.path.join(ROOT, "include", "glia", "glia_base.h"), encoding="utf-8") as f:
        text = f.read()
    return tuple(int(re.search(r"^#define GLIA_VERSION_%s (\d+)\s*$" % k, text, re.M).group(1))
                 for k in ("MAJOR", "MINOR", "PATCH"))


def test_version_is_the_loaded_library():
    n = _ffi.C.glia_version()
    assert glia.__version__ == _ffi.C.glia_version_string().decode()
    assert glia.__version__ == "%d.%d.%d" % (n // 1000000, n // 1000 % 1000, n % 1000)


def test_version_is_the_header():
    major, minor, patch = header_version()
    assert glia.__version__ == "%d.%d.%d" % (major, minor, patch)
    assert (_cdefs.GLIA_VERSION_MAJOR, _cdefs.GLIA_VERSION_MINOR, _cdefs.GLIA_VERSION_PATCH) == (major, minor, patch)


def package(tmp_path, *libs):
    """A directory standing in for the installed package, holding `libs` (empty files: _find only looks)."""
    for lib in libs:
        (tmp_path / lib).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / lib).write_bytes(b"")
    return str(tmp_path)


def test_bundled_library_comes_first(tmp_path, monkeypatch):
    here = package(tmp_path, "_lib/libglia.so.0", "libglia.so")
    monkeypatch.setattr(_ffi, "_HERE", here)
    monkeypatch.setenv("GLIA_LIBRARY", "/elsewhere/libglia.so")
    assert _ffi._find() == (os.path.join(here, "_lib", "libglia.so.0"), "bundled with the package")


def test_library_next_to_the_package_comes_before_glia_library(tmp_path, monkeypatch):
    here = package(tmp_path, "libglia.so")
    monkeypatch.setattr(_ffi, "_HERE", here)
    monkeypatch.setenv("GLIA_LIBRARY", "/elsewhere/libglia.so")
    assert _ffi._find() == (os.path.join(here, "libglia.so"), "next to the package")


def test_glia_library_then_the_system(tmp_path, monkeypatch):
    monkeypatch.setattr(_ffi, "_HERE", package(tmp_path))
    monkeypatch.setenv("GLIA_LIBRARY", "/elsewhere/libglia.so")
    assert _ffi._find() == ("/elsewhere/libglia.so", "GLIA_LIBRARY")
    monkeypatch.delenv("GLIA_LIBRARY")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert _ffi._find() == ("libglia.so.0", "the system loader")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: "libglia.so.0.found" if name == "glia" else None)
    assert _ffi._find() == ("libglia.so.0.found", "the system loader")


def test_a_library_that_does_not_load_is_an_import_error_naming_it(tmp_path, monkeypatch):
    broken = package(tmp_path, "_lib/libglia.so.0")  # an empty file: found, but not a shared object
    monkeypatch.setattr(_ffi, "_HERE", broken)
    monkeypatch.setenv("GLIA_LIBRARY", _ffi.lib_path)  # a good one, not tried instead
    with pytest.raises(ImportError) as e:
        _ffi._load()
    path = os.path.join(broken, "_lib", "libglia.so.0")
    assert str(e.value).startswith("glia: cannot load libglia %s (bundled with the package): %s: " % (path, path))
    assert "set GLIA_LIBRARY to the path of libglia.so" in str(e.value)
