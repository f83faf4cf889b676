"""Small helpers of the nn/optim binding over the C ABI (no dependency on Tensor's operators)."""

import ctypes

import numpy as np

from .. import _ffi
from .._ffi import C, check, c_void_p, c_int64, byref
from .._tensor import Tensor

_NP_OF = {0: np.float32, 1: np.float64, 4: np.int64, 5: np.int32, 6: np.uint8, 7: np.bool_, 8: np.int8, 9: np.int16}
_CODE_OF = {np.dtype(v): k for k, v in _NP_OF.items()}


def wrap(handle, cls=None):
    """A Tensor (or `cls`) owning one reference to `handle` (None for NULL)."""
    h = handle.value if isinstance(handle, c_void_p) else handle
    if not h:
        return None
    return (cls or Tensor)._wrap(h)


def retained(h):
    """A new reference to the borrowed handle `h` (an int)."""
    check(C.glia_tensor_retain(h))
    return h


def wrap_borrowed(h, cls=None):
    if not h:
        return None
    return wrap(retained(h), cls)


def from_numpy(a):
    a = np.ascontiguousarray(a)
    code = _CODE_OF[a.dtype]
    shape, nd = _ffi.int64_array(a.shape)
    out = c_void_p()
    check(C.glia_tensor_from_data(a.ctypes.data_as(c_void_p), a.nbytes, shape, nd, code, byref(out)))
    return wrap(out)


def to_numpy(t):
    h = t._h if isinstance(t, Tensor) else t
    ndim = c_int64()
    check(C.glia_tensor_ndim(h, byref(ndim)))
    n = ndim.value
    shape = (c_int64 * max(1, n))()
    check(C.glia_tensor_shape(h, n, shape))
    dt = ctypes.c_int()
    check(C.glia_tensor_dtype(h, byref(dt)))
    arr = np.empty(tuple(shape[:n]), dtype=_NP_OF[dt.value])
    check(C.glia_tensor_copy_to_host(h, arr.ctypes.data_as(c_void_p), arr.nbytes))
    return arr


def tensor_dtype_code(h):
    dt = ctypes.c_int()
    check(C.glia_tensor_dtype(h, byref(dt)))
    return dt.value


def dict_to_py(dh):
    """OrderedDict of name -> Tensor from a glia_tensor_dict handle (released)."""
    from collections import OrderedDict

    out = OrderedDict()
    try:
        n = c_int64()
        check(C.glia_tensor_dict_size(dh, byref(n)))
        for i in range(n.value):
            key = _ffi.read_string(C.glia_tensor_dict_key_at, dh, i)
            v = c_void_p()
            check(C.glia_tensor_dict_value_at(dh, i, byref(v)))
            out[key] = wrap(v)
    finally:
        C.glia_error_free(C.glia_tensor_dict_release(dh))
    return out


def py_to_dict(mapping):
    """A new glia_tensor_dict handle (int) holding mapping's tensors; the caller releases it."""
    d = c_void_p()
    check(C.glia_tensor_dict_create(byref(d)))
    try:
        for k, v in mapping.items():
            if not isinstance(v, Tensor):
                v = from_numpy(np.asarray(v))
            check(C.glia_tensor_dict_set(d, str(k).encode(), v._h))
    except BaseException:
        C.glia_error_free(C.glia_tensor_dict_release(d))
        raise
    return d.value


def handles(tensors):
    ts = list(tensors)
    arr = (c_void_p * max(1, len(ts)))(*[t._h for t in ts])
    return arr, len(ts)
