"""The C ABI, loaded with ctypes: library lookup, error translation, callbacks.

Everything in the binding calls libglia through ``C.<glia function>``; the
prototypes come from ``_cdefs.py``, generated from include/glia/glia.h by
``gen_cdefs.py`` (never written by hand).

Errors. Every fallible C function returns ``glia_error *``; :func:`check`
turns a non-NULL one into the exception torch raises in the same situation
(``RuntimeError`` unless a call site says otherwise) and frees it.

Callbacks. C never holds a Python object: a registration passes an integer
``user_data`` that indexes :data:`_registry`, and ``free_user_data`` drops the
entry. One ctypes trampoline per callback signature lives for the life of the
process, so no ctypes thunk can be collected while C may still call it. An
exception raised inside a Python callback is parked in :data:`_pending` under
a token that travels in the GLIA_ERR_CALLBACK message; when that error comes
back out of the C call, :func:`check` re-raises the original exception object
(its type and traceback intact).
"""

import ctypes
import ctypes.util
import itertools
import os
import re
import threading

from . import _cdefs
from ._cdefs import *  # noqa: F401,F403  (constants and struct types)

__all__ = ["C", "check", "register", "lookup", "unregister", "guard", "handle_out", "lib_path", "lib_found_by"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_NAMES = ("libglia.so.0", "libglia.so", "libglia.dylib", "glia.dll")


def _find():
    """(path, how it was found) of the library to load; the first of:

    1. bundled: glia/_lib/ (what the wheel installs), or glia/ itself (put there by hand);
    2. GLIA_LIBRARY, a path to libglia.so (bindings/python/test.sh and the tests' conftest.py set it to
       the build tree's);
    3. the system's: ctypes.util.find_library("glia"), else the SONAME libglia.so.0 (the loader's search).
    A library that is found but does not load (a missing dependency, another architecture) is an error
    naming it, never a reason to go on to a different copy.
    """
    for where, how in ((os.path.join(_HERE, "_lib"), "bundled with the package"), (_HERE, "next to the package")):
        for name in _NAMES:
            p = os.path.join(where, name)
            if os.path.exists(p):
                return p, how
    env = os.environ.get("GLIA_LIBRARY")
    if env:
        return env, "GLIA_LIBRARY"
    return ctypes.util.find_library("glia") or "libglia.so.0", "the system loader"


def _load():
    path, how = _find()
    try:
        return ctypes.CDLL(path), path, how
    except OSError as e:
        raise ImportError(
            "glia: cannot load libglia %s (%s): %s. Install the glia wheel (it bundles the library), set GLIA_LIBRARY "
            "to the path of libglia.so, or install libglia0 where the system loader finds it (docs/install.md, "
            "\"When the library is not found\")." % (path, how, e)
        ) from None


_lib, lib_path, lib_found_by = _load()  # lib_found_by: how lib_path was found (_find)


class _Functions:
    """C.glia_add(...) and friends: ctypes functions with their prototypes set."""


C = _Functions()
for _name, (_restype, _argtypes, _names) in _cdefs.FUNCTIONS.items():
    try:
        _f = getattr(_lib, _name)
    except AttributeError:  # an older library: the function fails when called
        continue
    _f.restype = _restype
    _f.argtypes = _argtypes
    setattr(C, _name, _f)

_major = C.glia_version() // 1000000
_header_major = _cdefs.GLIA_VERSION_MAJOR  # of the header the binding was generated from
if _major != _header_major:
    raise ImportError(
        "glia: %s is version %s, but this binding was made for major version %d"
        % (lib_path, C.glia_version_string().decode(), _header_major)
    )

# ---------------------------------------------------------------------------
# Errors

_pending = {}  # token -> exception raised in a callback, waiting for its C call to return
_pending_lock = threading.Lock()
_tokens = itertools.count(1)
_TOKEN = re.compile(r"\[glia-python-exception (\d+)\]")

# Default Python exception for each glia error code (torch raises RuntimeError for most).
_EXCEPTIONS = {
    GLIA_ERR_INVALID_ARGUMENT: RuntimeError,
    GLIA_ERR_INVALID_HANDLE: RuntimeError,
    GLIA_ERR_SHAPE: RuntimeError,
    GLIA_ERR_DTYPE: RuntimeError,
    GLIA_ERR_DEVICE: RuntimeError,
    GLIA_ERR_OUT_OF_MEMORY: RuntimeError,
    GLIA_ERR_IO: OSError,
    GLIA_ERR_FORMAT: RuntimeError,
    GLIA_ERR_NOT_FOUND: RuntimeError,
    GLIA_ERR_STATE: RuntimeError,
    GLIA_ERR_CALLBACK: RuntimeError,
    GLIA_ERR_UNSUPPORTED: RuntimeError,
    GLIA_ERR_INTERNAL: RuntimeError,
}


def error_info(err):
    """(code, message) of a glia_error * (an int), which is then freed."""
    code = C.glia_error_code(err)
    message = C.glia_error_message(err).decode("utf-8", "replace")
    C.glia_error_free(err)
    return code, message


def check(err, exc=None, codes=None):
    """Raises for a non-NULL glia_error * (an int or None) and frees it.

    An exception parked by a Python callback is re-raised as it was. Otherwise
    the exception type is ``codes[code]`` when given, else ``exc`` when given,
    else the default for the code. The exception carries ``glia_code`` (the
    numeric code) and ``glia_code_name``.
    """
    if not err:
        return
    code, message = error_info(err)
    raise_error(code, message, exc, codes)


def raise_error(code, message, exc=None, codes=None):
    if code == GLIA_ERR_CALLBACK:
        m = _TOKEN.search(message)
        if m:
            with _pending_lock:
                original = _pending.pop(int(m.group(1)), None)
            if original is not None:
                raise original.with_traceback(original.__traceback__)
    cls = (codes or {}).get(code) or exc or _EXCEPTIONS.get(code, RuntimeError)
    if cls is OSError and "No such file" in message:
        cls = FileNotFoundError
    e = cls(message)
    e.glia_code = code
    e.glia_code_name = C.glia_error_code_name(code).decode()
    raise e


def _park(exc):
    """Parks `exc` and returns a glia_error * (int) for a callback to return."""
    token = next(_tokens)
    with _pending_lock:
        _pending[token] = exc
    text = "%s: %s [glia-python-exception %d]" % (type(exc).__name__, exc, token)
    return C.glia_error_new(GLIA_ERR_CALLBACK, text.encode("utf-8", "replace"))


def guard(fn):
    """Wraps a Python callback body so that it returns NULL, or a glia_error *
    carrying a parked exception: no exception may unwind through C frames."""

    def wrapped(*args):
        try:
            fn(*args)
            return None
        except BaseException as e:  # noqa: B902 - KeyboardInterrupt too must not unwind through C
            return _park(e)

    wrapped.__name__ = getattr(fn, "__name__", "callback")
    return wrapped


# ---------------------------------------------------------------------------
# The callback registry: C holds integers, never Python objects.

_registry = {}
_registry_lock = threading.Lock()
_ids = itertools.count(1)


def register(obj):
    """Stores `obj` and returns the integer to pass to C as user_data."""
    key = next(_ids)
    with _registry_lock:
        _registry[key] = obj
    return key


def lookup(user_data):
    return _registry[user_data]


def unregister(user_data):
    with _registry_lock:
        _registry.pop(user_data, None)


@CFUNCTYPE(None, c_void_p)
def free_user_data(user_data):
    """The one free_user_data trampoline: every registration passes it."""
    if user_data:
        unregister(user_data)


# ---------------------------------------------------------------------------
# Small helpers for call sites


def handle_out():
    """A c_void_p to receive an out-handle: ``C.f(..., byref(out))``."""
    return c_void_p()


def int64_array(values):
    values = list(values)
    return (c_int64 * len(values))(*values), len(values)


def read_string(fn, *args):
    """Calls a ``(..., char *buffer, size_t capacity, size_t *out_length)`` function and returns the str."""
    n = c_size_t(0)
    buf = ctypes.create_string_buffer(256)
    check(fn(*args, buf, len(buf), byref(n)))
    if n.value + 1 > len(buf):
        buf = ctypes.create_string_buffer(n.value + 1)
        check(fn(*args, buf, len(buf), byref(n)))
    return buf.raw[: n.value].decode("utf-8", "replace")
