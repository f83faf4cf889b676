"""The TF32 and cuDNN determinism flags of the C API, as torch's backends modules read and set them."""
from ctypes import byref, c_int32

from .._ffi import C, check

# glia_tf32_scope
TF32_MATMUL = 0
TF32_CUDNN = 1


def get_tf32(scope):
    v = c_int32(0)
    check(C.glia_get_allow_tf32(scope, byref(v)))
    return bool(v.value)


def set_tf32(scope, setter, value):
    if not isinstance(value, bool):
        # torch 1.13's words, including its name of the cuDNN setter (it says cublas for both).
        raise RuntimeError("%s expects a bool, but got %s" % (setter, type(value).__name__))
    check(C.glia_set_allow_tf32(scope, 1 if value else 0))


def get_cudnn_deterministic():
    return bool(C.glia_get_cudnn_deterministic())


def set_cudnn_deterministic(value):
    if not isinstance(value, bool):
        raise RuntimeError("set_deterministic_cudnn expects a bool, but got %s" % type(value).__name__)
    check(C.glia_set_cudnn_deterministic(1 if value else 0))
