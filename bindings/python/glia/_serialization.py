"""glia.save and glia.load (owned by the tensor work).

``glia.load(f)`` returns what ``torch.load(f, weights_only=True)`` returns, for
a file of any top-level object: dicts (OrderedDict where the file has one),
lists, tuples (torch.Size too), int, float, str, bytes, None, bool, sets, glia
Tensors, glia dtype and device objects. ``glia.load(f, flatten=True)`` gives
the flattened OrderedDict of name -> Tensor that glia.load returned before
0.2 (nested keys joined with '.', numbers as 0-dim tensors).

``glia.save(obj, f)`` writes any such object. The format: ``format=`` when
given; else safetensors for a flat dict of str -> Tensor (glia's default, as
before 0.2) or a path ending in ".safetensors", and torch.save's zip format
for anything else. ``f`` is a path or a binary file object (read()/write()).
"""

import collections
import os

import builtins
import ctypes
import sys

from . import _cdefs as _k
from ._cdefs import GLIA_FORMAT_AUTO, GLIA_FORMAT_SAFETENSORS, GLIA_FORMAT_TORCH, GLIA_ERR_IO, c_int32, c_int64, c_size_t, c_void_p
from ._ffi import C, byref, check, read_string
from . import _tensor
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
    raise TypeError("glia.save/load take a file path (str or os.PathLike) or a binary file object, not %s"
                    % type(f).__name__)


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


class _Value:
    """Owns one glia_value reference."""

    def __init__(self, handle):
        self.h = handle

    def __del__(self, _release=C.glia_value_release, _free=C.glia_error_free):
        h, self.h = self.h, None
        if h:
            _free(_release(h))


def _is_file(f):
    return hasattr(f, "read") or hasattr(f, "write")


def _is_flat(obj):
    return isinstance(obj, collections.abc.Mapping) and all(
        isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())


def _save_flat(obj, f, fmt, metadata):
    """Today's path for a mapping of str -> Tensor (a glia_tensor_dict)."""
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
        if fmt != GLIA_FORMAT_SAFETENSORS:
            raise ValueError("metadata can be saved only in the safetensors format")
        for k, v in metadata.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("metadata must map str to str")
            check(C.glia_tensor_dict_set_metadata(d.h, k.encode("utf-8"), v.encode("utf-8")))
    if _is_file(f):
        data, size = c_void_p(), c_size_t()
        check(C.glia_tensor_dict_save_buffer(d.h, fmt, byref(data), byref(size)))
        _write_buffer(f, data, size)
    else:
        path = _path(f)
        _io_check(C.glia_tensor_dict_save(d.h, path, fmt), path)


def _write_buffer(f, data, size):
    try:
        f.write(ctypes.string_at(data.value, size.value))
    finally:
        C.glia_buffer_free(data)


def _new(fn, *args):
    out = c_void_p()
    check(fn(*args, byref(out)))
    return _Value(out.value)


def _to_value(obj, memo, building):
    """The glia_value for a Python object; the same object twice is one value (one object in the file)."""
    v = memo.get(id(obj))
    if v is not None:
        if id(obj) in building:
            raise ValueError("glia.save: the object contains itself (a cycle); torch's format cannot hold it")
        return v[0]
    if obj is None:
        v = _new(C.glia_value_new_none)
    elif isinstance(obj, builtins.bool):
        v = _new(C.glia_value_new_bool, 1 if obj else 0)
    elif isinstance(obj, builtins.int):
        if not -(2**63) <= obj < 2**63:
            raise OverflowError("glia.save: the int %d does not fit in 64 bits" % obj)
        v = _new(C.glia_value_new_int, obj)
    elif isinstance(obj, builtins.float):
        v = _new(C.glia_value_new_double, ctypes.c_double(obj))
    elif isinstance(obj, str):
        b = obj.encode("utf-8")
        v = _new(C.glia_value_new_string, b, len(b))
    elif isinstance(obj, (bytes, bytearray)):
        b = bytes(obj)
        v = _new(C.glia_value_new_bytes, b, len(b))
    elif isinstance(obj, Tensor):
        v = _new(C.glia_value_new_tensor, obj._h)
    elif isinstance(obj, _tensor.dtype):
        v = _new(C.glia_value_new_dtype, obj._name.encode())
    elif isinstance(obj, _tensor.device):
        v = _new(C.glia_value_new_device, str(obj).encode())
    elif isinstance(obj, (list, tuple)):
        v = _new(C.glia_value_new_list if isinstance(obj, list) else C.glia_value_new_tuple)
        memo[id(obj)] = (v, obj)
        building.add(id(obj))
        for item in obj:
            check(C.glia_value_append(v.h, _to_value(item, memo, building).h))
        building.discard(id(obj))
        return v
    elif isinstance(obj, collections.abc.Mapping):
        v = _new(C.glia_value_new_dict, 1 if isinstance(obj, collections.OrderedDict) else 0)
        memo[id(obj)] = (v, obj)
        building.add(id(obj))
        for key, item in obj.items():
            iv = _to_value(item, memo, building)
            if isinstance(key, str):
                check(C.glia_value_set(v.h, key.encode("utf-8"), iv.h))
            else:
                check(C.glia_value_set_item(v.h, _to_value(key, memo, building).h, iv.h), exc=TypeError)
        building.discard(id(obj))
        return v
    else:
        raise TypeError("glia.save: cannot save an object of type %s (glia saves tensors, dicts, lists, tuples, "
                        "str, bytes, int, float, bool, None, dtypes and devices; save a module's state_dict())"
                        % type(obj).__name__)
    memo[id(obj)] = (v, obj)
    return v


def save(obj, f, format=None, metadata=None):  # noqa: A002
    """Saves `obj` to the path or binary file object `f`, as torch.save would (see the module's docstring)."""
    if format is not None and format not in _FORMATS:
        raise ValueError("format must be 'safetensors' or 'torch', not %r" % (format,))
    if not _is_file(f):
        _path(f)  # TypeError for what is neither a path nor a file
    if format is None:
        as_safetensors = _is_flat(obj) or (not _is_file(f) and os.fsdecode(_path(f)).endswith(".safetensors"))
        format = "safetensors" if as_safetensors else "torch"  # noqa: A001
    fmt = _FORMATS[format]
    if fmt == GLIA_FORMAT_SAFETENSORS or _is_flat(obj):
        if not isinstance(obj, collections.abc.Mapping):
            raise TypeError("glia.save: a safetensors file holds a dict of name -> Tensor (a state dict), not %s"
                            % type(obj).__name__)
        _save_flat(obj, f, fmt, metadata)
        return
    if metadata:
        raise ValueError("metadata can be saved only in the safetensors format")
    v = _to_value(obj, {}, set())
    if _is_file(f):
        data, size = c_void_p(), c_size_t()
        check(C.glia_value_save_buffer(v.h, fmt, byref(data), byref(size)))
        _write_buffer(f, data, size)
    else:
        path = _path(f)
        _io_check(C.glia_value_save(v.h, path, fmt), path)


def _fmt_arg(format):  # noqa: A002
    fmt = GLIA_FORMAT_AUTO if format is None else _FORMATS.get(format)
    if fmt is None:
        raise ValueError("format must be None, 'safetensors' or 'torch', not %r" % (format,))
    return fmt


def _read(f, format):  # noqa: A002
    fmt = _fmt_arg(format)
    out = c_void_p()
    if _is_file(f):
        data = f.read()
        check(C.glia_tensor_dict_load_buffer(data, len(data), fmt, byref(out)))
    else:
        path = _path(f)
        _io_check(C.glia_tensor_dict_load(path, fmt, byref(out)), path)
    return _Dict(out.value)


def _raw_string(h):
    n = c_size_t(0)
    check(C.glia_value_as_string(h, None, 0, byref(n)))
    buf = ctypes.create_string_buffer(n.value + 1)
    check(C.glia_value_as_string(h, buf, len(buf), byref(n)))
    return buf.raw[: n.value]


def _device_of(name):
    try:
        return _tensor.device(name)
    except (RuntimeError, TypeError):
        return name  # a device glia has no object for ("mps", "meta"...): its string


def _dtype_of(name):
    d = getattr(_tensor, name, None)
    return d if isinstance(d, _tensor.dtype) else "torch." + name  # a dtype glia has no object for: its name


def _from_value(h, memo, keep):
    """The Python object of a glia_value handle (the same handle twice is the same object).

    `keep` holds the child handles until the whole tree is converted, so that no
    handle is freed and reused for another value while `memo` remembers it.
    """
    got = memo.get(h)
    if got is not None:
        return got
    k = c_int32()
    check(C.glia_value_get_kind(h, byref(k)))
    k = k.value
    if k == _k.GLIA_VALUE_NONE:
        return None
    if k == _k.GLIA_VALUE_BOOL:
        b = c_int32()
        check(C.glia_value_as_bool(h, byref(b)))
        return b.value != 0
    if k == _k.GLIA_VALUE_INT:
        i = c_int64()
        check(C.glia_value_as_int(h, byref(i)))
        return i.value
    if k == _k.GLIA_VALUE_BIG_INT:
        return builtins.int.from_bytes(_raw_string(h), "little", signed=True)
    if k == _k.GLIA_VALUE_FLOAT:
        d = ctypes.c_double()
        check(C.glia_value_as_double(h, byref(d)))
        return d.value
    if k == _k.GLIA_VALUE_STR:
        obj = _raw_string(h).decode("utf-8", "surrogatepass")
    elif k == _k.GLIA_VALUE_BYTES:
        obj = _raw_string(h)
    elif k == _k.GLIA_VALUE_DEVICE:
        obj = _device_of(_raw_string(h).decode())
    elif k == _k.GLIA_VALUE_DTYPE:
        obj = _dtype_of(_raw_string(h).decode())
    elif k == _k.GLIA_VALUE_TENSOR:
        t = c_void_p()
        check(C.glia_value_as_tensor(h, byref(t)))
        obj = Tensor._wrap(t.value)
    else:
        n = c_int64()
        check(C.glia_value_size(h, byref(n)))
        items, keys = [], []
        for i in range(n.value):
            c = _new(C.glia_value_item, h, i)
            keep.append(c)
            items.append(_from_value(c.h, memo, keep))
            if k == _k.GLIA_VALUE_DICT:
                kv = _new(C.glia_value_key_at, h, i)
                keep.append(kv)
                keys.append(_from_value(kv.h, memo, keep))
        if k == _k.GLIA_VALUE_DICT:
            ordered = c_int32()
            check(C.glia_value_dict_is_ordered(h, byref(ordered)))
            obj = (collections.OrderedDict if ordered.value else dict)(zip(keys, items))
        elif k == _k.GLIA_VALUE_LIST:
            obj = items
        elif k == _k.GLIA_VALUE_TUPLE:
            obj = tuple(items)
        else:
            obj = set(items)
    memo[h] = obj
    return obj


def load(f, map_location=None, weights_only=None, format=None, flatten=False, **kwargs):  # noqa: A002
    """Loads a checkpoint (safetensors or torch.save's formats, by content) from a path or binary file object.

    Returns what torch.load(f, weights_only=True) returns; with ``flatten=True``, an OrderedDict of
    name -> Tensor (nested keys joined with '.', numbers as 0-dim tensors).
    """
    if map_location not in (None, "cpu") and str(map_location) != "cpu":
        raise RuntimeError("glia.load: only map_location='cpu' is supported")
    if flatten:
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
    fmt = _fmt_arg(format)
    out = c_void_p()
    if _is_file(f):
        data = f.read()
        check(C.glia_value_load_buffer(data, len(data), fmt, byref(out)))
    else:
        path = _path(f)
        _io_check(C.glia_value_load(path, fmt, byref(out)), path)
    root = _Value(out.value)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4000))  # files nest containers up to 1000 deep
    try:
        return _from_value(root.h, {}, [])
    finally:
        sys.setrecursionlimit(limit)


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
