"""glia.save and glia.load (owned by the tensor work).

``glia.save(state_dict, path)`` writes a dict (or OrderedDict) of name ->
Tensor as safetensors (glia's default) or, with ``format="torch"``, as the zip
file torch.save writes (torch.load(path, weights_only=True) reads it).
``glia.load(path)`` reads either format, detected from the content, into an
OrderedDict of name -> Tensor. Both go through a C glia_tensor_dict.
"""

import collections
import os

from ._cdefs import GLIA_FORMAT_AUTO, GLIA_FORMAT_SAFETENSORS, GLIA_FORMAT_TORCH, GLIA_ERR_IO, c_int64, c_void_p
from ._ffi import C, byref, check, read_string
from ._tensor import Tensor

__all__ = ["save", "load", "load_metadata"]

_FORMATS = {"safetensors": GLIA_FORMAT_SAFETENSORS, "torch": GLIA_FORMAT_TORCH}


class _Dict:
    """Owns one glia_tensor_dict reference."""

    def __init__(self, handle):
        self.h = handle

    def __del__(self, _release=C.glia_tensor_dict_release, _free=C.glia_error_free):
        h, self.h = self.h, None
        if h:
            _free(_release(h))


def _path(f):
    if isinstance(f, (str, bytes, os.PathLike)):
        p = os.fsencode(f)
        return p
    raise TypeError("glia.save/load take a file path (str or os.PathLike), not %s" % type(f).__name__)


def _io_check(err, path):
    """check() with torch's exception for a missing file (FileNotFoundError)."""
    if not err:
        return
    from ._ffi import error_info, raise_error

    code, message = error_info(err)
    if code == GLIA_ERR_IO and not os.path.exists(path):
        e = FileNotFoundError(2, "No such file or directory", os.fsdecode(path))
        e.glia_message = message
        raise e
    raise_error(code, message)


def save(obj, f, format="safetensors", metadata=None):  # noqa: A002
    """Saves a state dict (a mapping of str -> Tensor) to the path `f`."""
    if format not in _FORMATS:
        raise ValueError("format must be 'safetensors' or 'torch', not %r" % (format,))
    if not isinstance(obj, collections.abc.Mapping):
        raise TypeError("glia.save saves a dict of name -> Tensor (a state dict), not %s" % type(obj).__name__)
    path = _path(f)
    out = c_void_p()
    check(C.glia_tensor_dict_create(byref(out)))
    d = _Dict(out.value)
    for key, value in obj.items():
        if not isinstance(key, str):
            raise TypeError("glia.save: keys must be str, got %s (%r)" % (type(key).__name__, key))
        if not isinstance(value, Tensor):
            raise TypeError("glia.save: the value of key '%s' is %s, not a Tensor" % (key, type(value).__name__))
        check(C.glia_tensor_dict_set(d.h, key.encode("utf-8"), value._h))
    if metadata:
        if format != "safetensors":
            raise ValueError("metadata can be saved only in the safetensors format")
        for k, v in metadata.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("metadata must map str to str")
            check(C.glia_tensor_dict_set_metadata(d.h, k.encode("utf-8"), v.encode("utf-8")))
    _io_check(C.glia_tensor_dict_save(d.h, path, _FORMATS[format]), path)


def _read(f, format):  # noqa: A002
    fmt = GLIA_FORMAT_AUTO if format is None else _FORMATS.get(format)
    if fmt is None:
        raise ValueError("format must be None, 'safetensors' or 'torch', not %r" % (format,))
    path = _path(f)
    out = c_void_p()
    _io_check(C.glia_tensor_dict_load(path, fmt, byref(out)), path)
    return _Dict(out.value)


def load(f, map_location=None, weights_only=None, format=None, **kwargs):  # noqa: A002
    """Loads a checkpoint (safetensors or torch.save's formats, by content) as an OrderedDict name -> Tensor."""
    if map_location not in (None, "cpu") and str(map_location) != "cpu":
        raise RuntimeError("glia.load: only map_location='cpu' is supported")
    d = _read(f, format)
    n = c_int64()
    check(C.glia_tensor_dict_size(d.h, byref(n)))
    result = collections.OrderedDict()
    for i in range(n.value):
        key = read_string(C.glia_tensor_dict_key_at, d.h, i)
        t = c_void_p()
        check(C.glia_tensor_dict_value_at(d.h, i, byref(t)))
        result[key] = Tensor._wrap(t.value)
    return result


def load_metadata(f):
    """The safetensors "__metadata__" of a checkpoint as a dict (empty for torch files)."""
    d = _read(f, None)
    n = c_int64()
    check(C.glia_tensor_dict_metadata_count(d.h, byref(n)))
    meta = {}
    for i in range(n.value):
        k = read_string(C.glia_tensor_dict_metadata_key_at, d.h, i)
        meta[k] = read_string(C.glia_tensor_dict_get_metadata, d.h, k.encode("utf-8"))
    return meta
