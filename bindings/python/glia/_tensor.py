"""glia.Tensor, dtypes, devices and the tensor factories (owned by the tensor work).

Reprs follow torch exactly (``torch.float32``, ``torch.Size([2, 3])``,
``device(type='cpu')``), as the C library's tensor repr already prints
``dtype=torch.float16``: a script run with ``import glia as torch`` prints
what it printed under torch.
"""

import builtins
import collections
import ctypes
import numbers

import numpy as np

from ._cdefs import (
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_void_p,
    glia_blob_deleter,
    glia_device,
    glia_scalar,
    glia_tensor_options,
    GLIA_CPU,
    GLIA_CUDA,
    GLIA_SCALAR_BOOL,
    GLIA_SCALAR_FLOAT,
    GLIA_SCALAR_INT,
)
from ._ffi import C, byref, check, read_string, register, unregister

__all__ = [
    "Tensor", "Size", "dtype", "device",
    "float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool", "int8", "int16",
    "float", "double", "half", "long", "int", "short", "get_default_dtype", "is_tensor", "is_floating_point", "numel",
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "randn", "rand", "arange", "linspace",
    "zeros_like", "ones_like", "empty_like", "full_like", "randn_like", "rand_like", "manual_seed", "seed",
    "cat", "concat", "stack", "where", "matmul", "mm", "bmm", "addmm", "maximum", "minimum", "clamp", "clip",
    "abs", "neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "sign", "pow",
    "softmax", "log_softmax", "sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std",
    "var", "norm", "logsumexp", "add", "sub", "mul", "div", "true_divide", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_xor", "logical_not", "reshape", "flatten", "unflatten", "squeeze",
    "unsqueeze", "permute", "transpose", "t", "narrow", "select", "index_select", "gather", "scatter",
    "scatter_add", "masked_select", "split", "chunk", "clone", "detach", "allclose", "equal", "isnan",
    "square", "floor_divide", "remainder", "rsub",
    "memory_format", "preserve_format", "contiguous_format", "channels_last", "channels_last_3d",
]

_builtin_bool = builtins.bool
_builtin_int = builtins.int
_builtin_float = builtins.float
_builtin_max = builtins.max
_builtin_min = builtins.min
_builtin_sum = builtins.sum
_builtin_abs = builtins.abs
_INT64_MAX = (1 << 63) - 1


# ---------------------------------------------------------------------------
# dtypes, devices, Size


class dtype:
    """A tensor element type (torch.dtype). Prints as torch does: ``torch.float32``."""

    __slots__ = ("_code", "_name", "_np", "is_floating_point", "is_signed", "itemsize")

    def __init__(self, code, name, np_dtype, is_floating, is_signed):
        self._code = code
        self._name = name
        self._np = np_dtype
        self.is_floating_point = is_floating
        self.is_signed = is_signed
        self.itemsize = C.glia_dtype_size(code)

    @property
    def is_complex(self):
        return False

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return (_dtype_by_name, (self._name,))

    def to_numpy(self):
        return self._np


float32 = dtype(0, "float32", np.float32, True, True)
float64 = dtype(1, "float64", np.float64, True, True)
float16 = dtype(2, "float16", np.float16, True, True)
bfloat16 = dtype(3, "bfloat16", None, True, True)
int64 = dtype(4, "int64", np.int64, False, True)
int32 = dtype(5, "int32", np.int32, False, True)
uint8 = dtype(6, "uint8", np.uint8, False, False)
bool = dtype(7, "bool", np.bool_, False, False)  # noqa: A001  (torch.bool)
int8 = dtype(8, "int8", np.int8, False, True)
int16 = dtype(9, "int16", np.int16, False, True)
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

_DTYPES = {d._code: d for d in (float32, float64, float16, bfloat16, int64, int32, uint8, bool, int8, int16)}


def _dtype_by_name(name):
    return globals()[name]


_NP_TO_DTYPE = {
    np.dtype(np.float32): float32,
    np.dtype(np.float64): float64,
    np.dtype(np.float16): float16,
    np.dtype(np.int64): int64,
    np.dtype(np.int32): int32,
    np.dtype(np.uint8): uint8,
    np.dtype(np.bool_): bool,
    np.dtype(np.int8): int8,
    np.dtype(np.int16): int16,
}


def get_default_dtype():
    return float32


def _as_dtype(d, what="dtype"):
    if d is None or isinstance(d, dtype):
        return d
    if isinstance(d, str):
        d = d.replace("torch.", "")
        if d in _ALIASES:
            return _ALIASES[d]
    try:
        return _NP_TO_DTYPE[np.dtype(d)]
    except Exception:
        pass
    if d is builtins.float:
        return float32
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    raise TypeError("argument '%s' must be torch.dtype, not %s" % (what, type(d).__name__))


_ALIASES = {
    "float32": float32, "float": float32, "float64": float64, "double": float64, "float16": float16,
    "half": float16, "bfloat16": bfloat16, "int64": int64, "long": int64, "int32": int32, "int": int32,
    "uint8": uint8, "bool": bool, "int8": int8, "int16": int16, "short": int16,
}


class memory_format:
    """torch.memory_format. glia's tensors are strided views, so the formats are layouts of the
    strides: preserve_format keeps a dense tensor's order of strides, contiguous_format is row-major,
    channels_last (4-D) and channels_last_3d (5-D) put the channels last in memory, with torch's
    strides (N, C, H, W) -> (H*W*C, 1, W*C, C)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

# The channels-last formats: rank, the order of the dims in memory (outermost first) and its inverse.
_CHANNELS_LAST = {channels_last: (4, (0, 2, 3, 1), (0, 3, 1, 2)),
                  channels_last_3d: (5, (0, 2, 3, 4, 1), (0, 4, 1, 2, 3))}


def _check_memory_format(fmt, fn):
    if fmt is None or isinstance(fmt, memory_format):
        return preserve_format if fmt is None else fmt
    raise TypeError("%s(): argument 'memory_format' must be torch.memory_format, not %s" % (fn, type(fmt).__name__))


def _check_rank(t, fmt):
    if fmt in _CHANNELS_LAST and t.ndim != _CHANNELS_LAST[fmt][0]:
        raise RuntimeError("required rank %d tensor to use %s format" % (_CHANNELS_LAST[fmt][0], fmt._name))


def _is_contiguous_as(shape, strides, fmt):
    """torch's is_contiguous(memory_format=fmt) for channels_last / channels_last_3d."""
    rank, order, _ = _CHANNELS_LAST[fmt]
    if len(shape) != rank:
        return False
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _strides_like(shape, strides, fmt):
    """torch's is_channels_last_strides_2d_s4 / _3d_s5 (behind suggest_memory_format)."""
    rank, order, _ = _CHANNELS_LAST[fmt]
    if len(shape) != rank or strides[1] == 0:
        return False
    lo = 0
    for d in (1,) + tuple(reversed(order[1:-1])) + (0,):
        if shape[d] == 0 or strides[d] < lo:
            return False
        if d == 0 and lo == strides[1]:
            return False
        lo = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def _suggest_memory_format(t):
    shape, strides = t.shape, t.stride()
    for fmt in (channels_last, channels_last_3d):
        if _strides_like(shape, strides, fmt):
            return fmt
    return contiguous_format


def _dense_order(t):
    """The dims of `t` outermost first when its elements are dense and do not overlap (torch's
    is_non_overlapping_and_dense), else None."""
    shape, strides = t.shape, t.stride()
    order = sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d]))
    expected = 1
    for d in order:
        if shape[d] < 2:
            break
        if strides[d] != expected:
            return None
        expected *= shape[d]
    return tuple(reversed(order))


def _convert_in_order(t, order, dev_c, dt_c):
    """A copy of `t` converted as glia_tensor_to converts it, laid out row-major in the dims' `order`."""
    p = t.permute(*order)
    r = _new(C.glia_tensor_to, p._h, dev_c, dt_c)
    if r._h == p._h or not r.is_contiguous():
        r = _new(C.glia_tensor_clone, r._h)
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return r.permute(*inverse)


def _convert(t, dev_c, dt_c, fmt, copy):
    """torch's Tensor.to(device, dtype, copy=copy, memory_format=fmt): `t` itself where nothing changes."""
    _check_rank(t, fmt)
    r = _new(C.glia_tensor_to, t._h, dev_c, dt_c)
    aliases = r._h == t._h
    if aliases and not copy and (fmt is preserve_format or _suggest_memory_format(t) is fmt):
        return t
    if fmt is preserve_format:
        order = None if t.is_contiguous() else _dense_order(t)
        if order is None:
            return _new(C.glia_tensor_clone, t._h) if aliases else r
        return _convert_in_order(t, order, dev_c, dt_c)
    if fmt is contiguous_format:
        return _new(C.glia_tensor_clone, r._h) if aliases or not r.is_contiguous() else r
    if fmt in _CHANNELS_LAST:
        return _convert_in_order(t, _CHANNELS_LAST[fmt][1], dev_c, dt_c)
    raise RuntimeError("unsupported memory format %r" % (fmt,))


class device:
    """torch.device: ``device("cpu")``, ``device("cuda:0")``, ``device("cuda", 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, builtins.int) and not isinstance(type, builtins.bool):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError("device() received an invalid combination of arguments")
        if ":" in type:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed explicitly: " + type)
            type, _, idx = type.partition(":")
            try:
                index = builtins.int(idx)
            except ValueError:
                raise RuntimeError("Invalid device string: '%s:%s'" % (type, idx)) from None
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                "Expected one of cpu, cuda device type at start of device string: " + type
            )
        self.type = type
        self.index = index

    def _c(self):
        d = glia_device()
        d.type = GLIA_CPU if self.type == "cpu" else GLIA_CUDA
        d.index = -1 if self.index is None else self.index
        return d

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


_CPU = device("cpu")


def _as_device(d):
    if d is None or isinstance(d, device):
        return d
    return device(d)


class Size(tuple):
    """torch.Size: a tuple of ints printing as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return "torch.Size([%s])" % ", ".join(str(s) for s in self)

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


# ---------------------------------------------------------------------------
# helpers


def _sequence_is_tuple(seq):
    """torch 1.13's treatSequenceAsTuple (NumPy's legacy rule): a list of fewer than 32 items
    that holds a tensor, a sequence, a slice, Ellipsis or None indexes like a tuple of them
    (x[[0:1, 1:3]] is x[0:1, 1:3]; x[[[0, 1], [1, 2]]] is x[[0, 1], [1, 2]])."""
    if len(seq) >= 32:
        return False
    return builtins.any(
        isinstance(k, (Tensor, list, tuple, slice, np.ndarray)) or k is Ellipsis or k is None for k in seq
    )


def _is_number(x):
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, (complex, np.complexfloating))


def _scalar(v):
    s = glia_scalar()
    if isinstance(v, (builtins.bool, np.bool_)):
        s.type = GLIA_SCALAR_BOOL
        s.i = 1 if v else 0
    elif isinstance(v, (numbers.Integral, np.integer)):
        s.type = GLIA_SCALAR_INT
        s.i = builtins.int(v)
    else:
        s.type = GLIA_SCALAR_FLOAT
        s.f = builtins.float(v)
    return s


def _new(fn, *args):
    out = c_void_p()
    check(fn(*args, byref(out)))
    return Tensor._wrap(out.value)


def _handles(tensors):
    tensors = list(tensors)
    return (c_void_p * builtins.max(len(tensors), 1))(*[None if t is None else t._h for t in tensors]), len(tensors)


def _i64(values):
    values = [builtins.int(v) for v in values]
    return (c_int64 * builtins.max(len(values), 1))(*values), len(values)


def _shape_args(size, name="size"):
    """(2, 3), ((2, 3),), ([2, 3],), (Size,) -> list of ints."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (numbers.Integral, np.integer)) or isinstance(s, builtins.bool):
            raise TypeError(
                "%s(): argument 'size' must be tuple of ints, but found element of type %s at pos %d"
                % (name, type(s).__name__, len(out))
            )
        out.append(builtins.int(s))
    return out


def _dims(dim):
    if dim is None:
        return None, 0
    if isinstance(dim, (tuple, list)):
        return _i64(dim)
    return _i64([dim])


def _type_name(x):
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _arg_error(op, arg, pos, value, want="Tensor"):
    return TypeError(
        "%s(): argument '%s' (position %d) must be %s, not %s" % (op, arg, pos, want, _type_name(value))
    )


def _to_tensor_like(x, ref, op, arg="other", pos=1):
    """A Tensor for `x` (a Tensor, a number, or an ndarray) in a binary op with `ref`."""
    if isinstance(x, Tensor):
        return x
    if _is_number(x):
        # A 0-dim tensor takes part in promotion as torch's wrapped numbers do.
        if isinstance(x, (builtins.bool, np.bool_)):
            d = bool
        elif isinstance(x, (numbers.Integral, np.integer)):
            d = int64
        else:
            d = ref.dtype if ref.dtype.is_floating_point else float32
        return full((), x, dtype=d)
    if isinstance(x, np.ndarray):
        return from_numpy(np.ascontiguousarray(x))
    raise _arg_error(op, arg, pos, x)


class _NumpyHolder:
    """The base object of a numpy view of a Tensor: keeps the Tensor alive."""

    __slots__ = ("__array_interface__", "_tensor")

    def __init__(self, tensor, interface):
        self._tensor = tensor
        self.__array_interface__ = interface


@glia_blob_deleter
def _blob_deleter(context, data):
    """The one deleter trampoline of from_numpy: drops the registry's reference to the ndarray."""
    if context:
        unregister(context)


class GradFn:
    """A tensor's grad_fn: its name (``t.grad_fn.name()``); prints as torch's node objects."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name

    def __repr__(self):
        return "<%s object at 0x%x>" % (self._name, id(self))

    def __eq__(self, other):
        return isinstance(other, GradFn) and other._name == self._name

    __hash__ = object.__hash__


def _return_type(name):
    base = collections.namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return "torch.return_types.%s(\nvalues=%r,\nindices=%r)" % (name, self.values, self.indices)

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


_max_result = _return_type("max")
_min_result = _return_type("min")


class RemovableHandle:
    """What register_hook returns: ``.remove()`` detaches the hook (idempotent)."""

    def __init__(self, tensor, hook_id):
        self._tensor = tensor
        self.id = hook_id

    def remove(self):
        t, self._tensor = self._tensor, None
        if t is not None and t._h:
            check(C.glia_tensor_remove_hook(t._h, self.id))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _hook_body(user_data, grad, out_replacement):
    try:
        fn = _hook_lookup(user_data)
        check(C.glia_tensor_retain(grad))
        g = Tensor._wrap(grad)
        r = fn(g)
        if r is not None:
            if not isinstance(r, Tensor):
                raise TypeError("hook returned %s, expected a Tensor or None" % type(r).__name__)
            check(C.glia_tensor_retain(r._h))
            out_replacement[0] = r._h
        return None
    except BaseException as e:  # noqa: B902 - nothing may unwind through C frames
        from ._ffi import _park

        return _park(e)


def _hook_lookup(user_data):
    from ._ffi import lookup

    return lookup(user_data)


from ._cdefs import glia_tensor_hook_fn  # noqa: E402
from ._ffi import free_user_data as _free_user_data  # noqa: E402

_hook_trampoline = glia_tensor_hook_fn(_hook_body)


# ---------------------------------------------------------------------------
# Tensor


class Tensor:
    """A glia tensor: owns one reference to a C glia_tensor handle."""

    __slots__ = ("_h", "__weakref__", "__dict__")
    __array_priority__ = 1000  # ndarray (op) Tensor defers to Tensor's reflected op

    @classmethod
    def _wrap(cls, handle):
        """A Tensor that takes over one reference to `handle` (an int or c_void_p)."""
        t = object.__new__(cls)
        t._h = handle.value if isinstance(handle, c_void_p) else handle
        return t

    def __new__(cls, *args, **kwargs):
        # torch.Tensor(2, 3) / torch.Tensor([1, 2]): float32 data or an uninitialised shape.
        if len(args) == 1 and isinstance(args[0], Tensor):
            return args[0]
        if args and not all(isinstance(a, (numbers.Integral, np.integer)) for a in args):
            t = tensor(args[0], dtype=float32)
        else:
            t = empty(*args, dtype=float32)
        h, t._h = t._h, None
        return cls._wrap(h)

    def __init__(self, *args, **kwargs):
        pass

    def __del__(self, _release=C.glia_tensor_release, _free=C.glia_error_free):
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            _free(_release(h))

    # ---- metadata --------------------------------------------------------

    @property
    def shape(self):
        n = c_int64()
        check(C.glia_tensor_ndim(self._h, byref(n)))
        buf = (c_int64 * builtins.max(n.value, 1))()
        check(C.glia_tensor_shape(self._h, n.value, buf))
        return Size(buf[: n.value])

    def size(self, dim=None):
        s = self.shape
        if dim is None:
            return s
        return s[self._wrap_dim(dim, len(s))]

    def stride(self, dim=None):
        n = self.ndim
        buf = (c_int64 * builtins.max(n, 1))()
        check(C.glia_tensor_strides(self._h, n, buf))
        s = tuple(buf[:n])
        return s if dim is None else s[self._wrap_dim(dim, n)]

    def storage_offset(self):
        v = c_int64()
        check(C.glia_tensor_storage_offset(self._h, byref(v)))
        return v.value

    @property
    def ndim(self):
        n = c_int64()
        check(C.glia_tensor_ndim(self._h, byref(n)))
        return n.value

    def dim(self):
        return self.ndim

    ndimension = dim

    def numel(self):
        n = c_int64()
        check(C.glia_tensor_numel(self._h, byref(n)))
        return n.value

    nelement = numel

    @property
    def dtype(self):
        d = c_int()
        check(C.glia_tensor_dtype(self._h, byref(d)))
        return _DTYPES[d.value]

    @property
    def device(self):
        d = glia_device()
        check(C.glia_tensor_device(self._h, byref(d)))
        if d.type == GLIA_CPU:
            return device("cpu")
        return device("cuda", d.index)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def element_size(self):
        return self.dtype.itemsize

    def is_contiguous(self, memory_format=contiguous_format):
        fmt = contiguous_format if memory_format is None else _check_memory_format(memory_format, "is_contiguous")
        if fmt in _CHANNELS_LAST:
            return _is_contiguous_as(self.shape, self.stride(), fmt)
        if fmt is preserve_format:
            raise RuntimeError("is_contiguous(): unsupported memory format torch.preserve_format")
        v = c_int32()
        check(C.glia_tensor_is_contiguous(self._h, byref(v)))
        return v.value != 0

    def data_ptr(self):
        p = c_void_p()
        check(C.glia_tensor_data(self._h, byref(p)))
        return p.value or 0

    @staticmethod
    def _wrap_dim(dim, ndim):
        n = builtins.max(ndim, 1)
        if not -n <= dim < n:
            raise IndexError(
                "Dimension out of range (expected to be in range of [%d, %d], but got %d)" % (-n, n - 1, dim)
            )
        return dim + n if dim < 0 else dim

    # ---- autograd --------------------------------------------------------

    @property
    def requires_grad(self):
        v = c_int32()
        check(C.glia_tensor_requires_grad(self._h, byref(v)))
        return v.value != 0

    @requires_grad.setter
    def requires_grad(self, flag):
        check(C.glia_tensor_set_requires_grad(self._h, 1 if flag else 0))

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        v = c_int32()
        check(C.glia_tensor_is_leaf(self._h, byref(v)))
        return v.value != 0

    def is_inference(self):
        v = c_int32()
        check(C.glia_tensor_is_inference(self._h, byref(v)))
        return v.value != 0

    @property
    def grad(self):
        out = c_void_p()
        check(C.glia_tensor_grad(self._h, byref(out)))
        return Tensor._wrap(out.value) if out.value else None

    @grad.setter
    def grad(self, g):
        if g is not None and not isinstance(g, Tensor):
            raise TypeError("assigned grad expected to be a Tensor or None but got grad of type " + type(g).__name__)
        check(C.glia_tensor_set_grad(self._h, None if g is None else g._h))

    @grad.deleter
    def grad(self):
        self.grad = None

    @property
    def grad_fn(self):
        name = read_string(C.glia_tensor_grad_fn_name, self._h)
        return GradFn(name) if name else None

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, other):
        with _no_grad():
            self.copy_(other)

    def retain_grad(self):
        check(C.glia_tensor_retain_grad(self._h))

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if inputs is not None:
            raise NotImplementedError("backward(inputs=...) is not supported by glia")
        if retain_graph is None:
            retain_graph = create_graph
        if gradient is not None and not isinstance(gradient, Tensor):
            gradient = tensor(gradient, dtype=self.dtype)
        if create_graph:
            arr, n = _handles([self])
            garr, _ = _handles([gradient])
            check(C.glia_autograd_backward(arr, 1, garr, 1 if retain_graph else 0, 1))
        else:
            check(C.glia_tensor_backward(self._h, None if gradient is None else gradient._h, 1 if retain_graph else 0))

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        key = register(hook)
        hid = ctypes.c_uint64()
        check(C.glia_tensor_register_hook(self._h, _hook_trampoline, key, _free_user_data, byref(hid)))
        return RemovableHandle(self, hid.value)

    def detach(self):
        return _new(C.glia_tensor_detach, self._h)

    def detach_(self):
        d = self.detach()
        self._h, d._h = d._h, self._h
        return self

    # ---- conversion ------------------------------------------------------

    def item(self):
        d = self.dtype
        if d.is_floating_point:
            v = c_double()
            check(C.glia_tensor_item_double(self._h, byref(v)))
            return v.value
        v = c_int64()
        check(C.glia_tensor_item_int64(self._h, byref(v)))
        return v.value != 0 if d is bool else v.value

    def tolist(self):
        if self.dtype is bfloat16:
            return self.float().tolist()
        return self._host_array().tolist()

    def _host_array(self):
        """A numpy copy of the values (any strides, device; not bfloat16)."""
        npd = self.dtype._np
        if npd is None:
            raise TypeError("Got unsupported ScalarType BFloat16")
        arr = np.empty(tuple(self.shape), dtype=npd)
        check(C.glia_tensor_copy_to_host(self._h, arr.ctypes.data_as(c_void_p), arr.nbytes))
        return arr

    def numpy(self, force=False):
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        t = self.detach() if self.requires_grad else self
        if t.device.type != "cpu":
            if force:
                return t._host_array()
            raise TypeError(
                "can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
                % t.device
            )
        d = t.dtype
        if d._np is None:
            raise TypeError("Got unsupported ScalarType BFloat16")
        shape = tuple(t.shape)
        item = d.itemsize
        if t.numel() == 0:
            return np.empty(shape, dtype=d._np)
        strides = tuple(s * item for s in t.stride())
        interface = {
            "version": 3,
            "shape": shape,
            "typestr": np.dtype(d._np).str,
            "data": (t.data_ptr(), False),
            "strides": strides,
        }
        return np.asarray(_NumpyHolder(t, interface))

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __array_wrap__(self, array):
        if array.dtype == np.bool_ or array.dtype in _NP_TO_DTYPE:
            return from_numpy(np.ascontiguousarray(array))
        return array

    def to(self, *args, **kwargs):
        # torch's three forms: to(dtype, non_blocking=False, copy=False, *, memory_format=...),
        # to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=...) and
        # to(other, non_blocking=False, copy=False, *, memory_format=...).
        args = list(args)
        flags = []
        while args and isinstance(args[-1], (builtins.bool, np.bool_)) and len(flags) < 2:
            flags.insert(0, builtins.bool(args.pop()))
        if len(args) > 2 or (len(args) == 2 and not isinstance(args[1], (dtype, type(None)))):
            raise TypeError("to() received an invalid combination of arguments - got (%s)"
                            % ", ".join(_type_name(a) for a in list(args) + flags))
        if "non_blocking" in kwargs and flags:
            raise TypeError("to() got multiple values for argument 'non_blocking'")
        if "copy" in kwargs and len(flags) > 1:
            raise TypeError("to() got multiple values for argument 'copy'")
        copy = builtins.bool(kwargs.pop("copy", flags[1] if len(flags) > 1 else False))
        kwargs.pop("non_blocking", None)
        fmt = _check_memory_format(kwargs.pop("memory_format", None), "to")
        dev, dt = None, None
        for a in args + [kwargs.pop("device", None), kwargs.pop("dtype", None)]:
            if a is None:
                continue
            if isinstance(a, dtype):
                dt = a
            elif isinstance(a, Tensor):
                dev, dt = a.device, a.dtype
            elif isinstance(a, (str, device, builtins.int)):
                dev = _as_device(a)
            else:
                raise TypeError("to() received an invalid combination of arguments: " + type(a).__name__)
        if kwargs:
            raise TypeError("to() got an unexpected keyword argument '%s'" % next(iter(kwargs)))
        dev_c = None if dev is None else ctypes.byref(dev._c())
        dt_c = None if dt is None else ctypes.byref(ctypes.c_int(dt._code))
        return _convert(self, dev_c, dt_c, fmt, copy)

    def type(self, dtype=None):
        if dtype is None:
            return "torch." + {
                "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                "uint8": "ByteTensor", "bool": "BoolTensor", "int8": "CharTensor", "int16": "ShortTensor",
            }[self.dtype._name]
        return self.to(_as_dtype(dtype))

    def float(self, *, memory_format=preserve_format):
        return self.to(float32, memory_format=_check_memory_format(memory_format, "float"))

    def double(self, *, memory_format=preserve_format):
        return self.to(float64, memory_format=_check_memory_format(memory_format, "double"))

    def half(self, *, memory_format=preserve_format):
        return self.to(float16, memory_format=_check_memory_format(memory_format, "half"))

    def bfloat16(self, *, memory_format=preserve_format):
        return self.to(bfloat16, memory_format=_check_memory_format(memory_format, "bfloat16"))

    def long(self, *, memory_format=preserve_format):
        return self.to(int64, memory_format=_check_memory_format(memory_format, "long"))

    def int(self, *, memory_format=preserve_format):
        return self.to(int32, memory_format=_check_memory_format(memory_format, "int"))

    def byte(self, *, memory_format=preserve_format):
        return self.to(uint8, memory_format=_check_memory_format(memory_format, "byte"))

    def char(self, *, memory_format=preserve_format):
        return self.to(int8, memory_format=_check_memory_format(memory_format, "char"))

    def short(self, *, memory_format=preserve_format):
        return self.to(int16, memory_format=_check_memory_format(memory_format, "short"))

    def bool(self, *, memory_format=preserve_format):
        return self.to(bool, memory_format=_check_memory_format(memory_format, "bool"))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):  # noqa: F811
        if device is None:
            return self.to("cuda")
        return self.to(device if not isinstance(device, builtins.int) else "cuda:%d" % device)

    def contiguous(self, memory_format=contiguous_format):
        fmt = contiguous_format if memory_format is None else _check_memory_format(memory_format, "contiguous")
        if fmt is preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        if fmt in _CHANNELS_LAST:
            _check_rank(self, fmt)
            if _is_contiguous_as(self.shape, self.stride(), fmt):
                return self
            return _convert_in_order(self, _CHANNELS_LAST[fmt][1], None, None)
        return _new(C.glia_tensor_contiguous, self._h)

    def clone(self, *, memory_format=preserve_format):
        fmt = _check_memory_format(memory_format, "clone")
        return _convert(self, None, None, fmt, True)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return zeros(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return ones(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return empty(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    # ---- Python protocol -------------------------------------------------

    def __repr__(self, *, tensor_contents=None):
        return read_string(C.glia_tensor_to_string, self._h)

    __str__ = __repr__

    def __format__(self, spec):
        if self.ndim == 0 and spec:
            return self.item().__format__(spec)
        return object.__format__(repr(self), spec) if spec else repr(self)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self.shape[0]))

    def __bool__(self):
        n = self.numel()
        if n != 1:
            if n == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self.item())

    def __float__(self):
        self._one_element("float")
        return builtins.float(self.item())

    def __int__(self):
        self._one_element("int")
        return builtins.int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def _one_element(self, what):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")

    __hash__ = object.__hash__

    def __reduce_ex__(self, proto):
        return (_rebuild, (self.detach()._host_array_any(), self.dtype._name, self.requires_grad))

    def _host_array_any(self):
        if self.dtype is bfloat16:
            return self.float()._host_array()
        return self._host_array()

    def __deepcopy__(self, memo):
        r = self.detach().clone()
        if self.requires_grad:
            r.requires_grad_(True)
        memo[id(self)] = r
        return r

    # ---- arithmetic ------------------------------------------------------

    def _binop(self, other, tfn, sfn, name):
        if isinstance(other, Tensor):
            return _new(tfn, self._h, other._h)
        if _is_number(other):
            return _new(sfn, self._h, _scalar(other))
        raise _arg_error(name, "other", 1, other)

    def add(self, other, *, alpha=1):
        if isinstance(other, Tensor):
            return _new(C.glia_add, self._h, other._h, builtins.float(alpha))
        if _is_number(other):
            return _new(C.glia_add_scalar, self._h, _scalar(other), builtins.float(alpha))
        raise _arg_error("add", "other", 1, other)

    def sub(self, other, *, alpha=1):
        if isinstance(other, Tensor):
            return _new(C.glia_sub, self._h, other._h, builtins.float(alpha))
        if _is_number(other):
            return _new(C.glia_sub_scalar, self._h, _scalar(other), builtins.float(alpha))
        raise _arg_error("sub", "other", 1, other)

    subtract = sub

    def rsub(self, other, *, alpha=1):
        if isinstance(other, Tensor):
            return other.sub(self, alpha=alpha)
        if _is_number(other):
            return _new(C.glia_rsub_scalar, self._h, _scalar(other), builtins.float(alpha))
        raise _arg_error("rsub", "other", 1, other)

    def mul(self, other):
        if isinstance(other, Tensor):
            return _new(C.glia_mul, self._h, other._h)
        if _is_number(other):
            return _new(C.glia_mul_scalar, self._h, _scalar(other))
        raise _arg_error("mul", "other", 1, other)

    multiply = mul

    def div(self, other, *, rounding_mode=None):
        rm = None if rounding_mode is None else rounding_mode.encode()
        if isinstance(other, Tensor):
            return _new(C.glia_div, self._h, other._h, rm)
        if _is_number(other):
            return _new(C.glia_div_scalar, self._h, _scalar(other), rm)
        raise _arg_error("div", "other", 1, other)

    divide = true_divide = div

    def floor_divide(self, other):
        return self.div(other, rounding_mode="floor")

    def remainder(self, other):
        other = _to_tensor_like(other, self, "remainder")  # kept alive across the call
        return _new(C.glia_remainder, self._h, other._h)

    def pow(self, exponent):
        if isinstance(exponent, Tensor):
            return _new(C.glia_pow, self._h, exponent._h)
        if _is_number(exponent):
            return _new(C.glia_pow_scalar, self._h, _scalar(exponent))
        raise _arg_error("pow", "exponent", 1, exponent)

    def square(self):
        return self * self

    def matmul(self, other):
        if not isinstance(other, Tensor):
            raise _arg_error("matmul", "other", 1, other)
        return _new(C.glia_matmul, self._h, other._h)

    def mm(self, mat2):
        if not isinstance(mat2, Tensor):
            raise _arg_error("mm", "mat2", 1, mat2)
        return _new(C.glia_mm, self._h, mat2._h)

    def bmm(self, mat2):
        if not isinstance(mat2, Tensor):
            raise _arg_error("bmm", "mat2", 1, mat2)
        return _new(C.glia_bmm, self._h, mat2._h)

    def __add__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.add(other)
        return NotImplemented

    # The reflected operators as torch 1.13 defines them (torch/_tensor.py); they are called with a
    # Tensor `other` explicitly (x.__radd__(y) is y + x), which torch computes too.
    def __radd__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.add(other)
        return NotImplemented

    def __sub__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.sub(other)
        return NotImplemented

    def __rsub__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.rsub(other)
        return NotImplemented

    def __mul__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.mul(other)
        return NotImplemented

    def __rmul__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.mul(other)
        return NotImplemented

    def __truediv__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.div(other)
        return NotImplemented

    def __rtruediv__(self, other):
        if isinstance(other, Tensor):
            return self.reciprocal().mul(other)  # torch's formula
        if _is_number(other):
            return _to_tensor_like(other, self, "div").div(self)
        return NotImplemented

    __rdiv__ = __rtruediv__

    def __floordiv__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.div(other, rounding_mode="floor")
        return NotImplemented

    def __rfloordiv__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return _to_tensor_like(other, self, "floor_divide").div(self, rounding_mode="floor")
        return NotImplemented

    def __mod__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.remainder(other)
        return NotImplemented

    def __rmod__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return _to_tensor_like(other, self, "remainder").remainder(self)
        return NotImplemented

    def __pow__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.pow(other)
        return NotImplemented

    def __rpow__(self, other):
        if _is_number(other):
            return _new(C.glia_scalar_pow, _scalar(other), self._h)
        if isinstance(other, Tensor):
            # torch: torch.tensor(other, dtype=result_type(other, self)) ** self, a copy of `other`
            # outside the graph (no gradient flows to it).
            return other.detach().pow(self)
        return NotImplemented

    def __matmul__(self, other):
        if isinstance(other, Tensor):
            return self.matmul(other)
        return NotImplemented

    def __rmatmul__(self, other):
        if isinstance(other, Tensor):
            return other.matmul(self)
        return NotImplemented

    def __neg__(self):
        return _new(C.glia_neg, self._h)

    neg = negative = __neg__

    def __pos__(self):
        return self

    def __abs__(self):
        return _new(C.glia_abs, self._h)

    abs = absolute = __abs__

    # comparisons
    def _cmp(self, other, tfn, sfn, name):
        if isinstance(other, Tensor):
            return _new(tfn, self._h, other._h)
        if _is_number(other):
            return _new(sfn, self._h, _scalar(other))
        raise _arg_error(name, "other", 1, other)

    def eq(self, other):
        return self._cmp(other, C.glia_eq, C.glia_eq_scalar, "eq")

    def ne(self, other):
        return self._cmp(other, C.glia_ne, C.glia_ne_scalar, "ne")

    def lt(self, other):
        return self._cmp(other, C.glia_lt, C.glia_lt_scalar, "lt")

    def le(self, other):
        return self._cmp(other, C.glia_le, C.glia_le_scalar, "le")

    def gt(self, other):
        return self._cmp(other, C.glia_gt, C.glia_gt_scalar, "gt")

    def ge(self, other):
        return self._cmp(other, C.glia_ge, C.glia_ge_scalar, "ge")

    def __eq__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.eq(other)
        return False if other is None else NotImplemented

    def __ne__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.ne(other)
        return True if other is None else NotImplemented

    def __lt__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.lt(other)
        return NotImplemented

    def __le__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.le(other)
        return NotImplemented

    def __gt__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.gt(other)
        return NotImplemented

    def __ge__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self.ge(other)
        return NotImplemented

    greater = gt
    less = lt
    greater_equal = ge
    less_equal = le
    not_equal = ne

    def equal(self, other):
        return self.shape == other.shape and builtins.bool(self.eq(other).all())

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return np.allclose(self.detach()._host_array_any(), other.detach()._host_array_any(), rtol, atol, equal_nan)

    def isnan(self):
        return _new(C.glia_isnan, self._h)

    # logic
    def _logic(self, other, fn, name, bitwise):
        if _is_number(other) and isinstance(other, (builtins.bool, np.bool_, numbers.Integral)):
            other = _to_tensor_like(other, self, name)
        if not isinstance(other, Tensor):
            raise _arg_error(name, "other", 1, other)
        return _new(fn, self._h, other._h)

    def logical_and(self, other):
        return self._logic(other, C.glia_logical_and, "logical_and", False)

    def logical_or(self, other):
        return self._logic(other, C.glia_logical_or, "logical_or", False)

    def logical_xor(self, other):
        return self._logic(other, C.glia_logical_xor, "logical_xor", False)

    def logical_not(self):
        return _new(C.glia_logical_not, self._h)

    def __and__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self._logic(other, C.glia_bitwise_and, "bitwise_and", True)
        return NotImplemented

    def __or__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self._logic(other, C.glia_bitwise_or, "bitwise_or", True)
        return NotImplemented

    def __xor__(self, other):
        if isinstance(other, Tensor) or _is_number(other):
            return self._logic(other, C.glia_bitwise_xor, "bitwise_xor", True)
        return NotImplemented

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __invert__(self):
        return _new(C.glia_bitwise_not, self._h)

    bitwise_not = __invert__

    # in place
    def _inplace(self, other, tfn, sfn, name, *extra):
        if isinstance(other, Tensor):
            check(tfn(self._h, other._h, *extra))
        elif _is_number(other):
            check(sfn(self._h, _scalar(other), *extra))
        else:
            raise _arg_error(name, "other", 1, other)
        return self

    def add_(self, other, *, alpha=1):
        return self._inplace(other, C.glia_add_, C.glia_add_scalar_, "add_", builtins.float(alpha))

    def sub_(self, other, *, alpha=1):
        if _is_number(other):
            check(C.glia_add_scalar_(self._h, _scalar(other), -builtins.float(alpha)))
            return self
        return self._inplace(other, C.glia_sub_, None, "sub_", builtins.float(alpha))

    def mul_(self, other):
        return self._inplace(other, C.glia_mul_, C.glia_mul_scalar_, "mul_")

    def div_(self, other):
        if _is_number(other):
            other = _to_tensor_like(other, self, "div_")
        return self._inplace(other, C.glia_div_, None, "div_")

    def pow_(self, exponent):
        return self.copy_(self.pow(exponent))

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __ipow__(self, other):
        return self.pow_(other)

    def __imatmul__(self, other):
        return self.copy_(self.matmul(other))

    def zero_(self):
        check(C.glia_zero_(self._h))
        return self

    def fill_(self, value):
        if isinstance(value, Tensor):
            value = value.item()
        if not _is_number(value):
            raise _arg_error("fill_", "value", 1, value, "Number")
        check(C.glia_fill_(self._h, _scalar(value)))
        return self

    def copy_(self, src, non_blocking=False):
        if not isinstance(src, Tensor):
            if _is_number(src) or isinstance(src, (list, tuple, np.ndarray)):
                src = tensor(src, dtype=self.dtype)
            else:
                raise _arg_error("copy_", "src", 1, src)
        check(C.glia_copy_(self._h, src._h))
        return self

    def clamp_(self, min=None, max=None):  # noqa: A002
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            return self.copy_(self.clamp(min, max))
        lo, hi = _clamp_bounds(min, max)
        check(C.glia_clamp_(self._h, lo, hi))
        return self

    clip_ = clamp_

    def relu_(self):
        check(C.glia_relu_(self._h))
        return self

    def addcmul_(self, tensor1, tensor2, *, value=1):
        check(C.glia_addcmul_(self._h, tensor1._h, tensor2._h, _scalar(value)))
        return self

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        check(C.glia_addcdiv_(self._h, tensor1._h, tensor2._h, _scalar(value)))
        return self

    def uniform_(self, a=0.0, b=1.0):
        check(C.glia_nn_init_uniform_(self._h, a, b))
        return self

    def normal_(self, mean=0.0, std=1.0):
        check(C.glia_nn_init_normal_(self._h, mean, std))
        return self

    # ---- math ------------------------------------------------------------

    def exp(self):
        return _new(C.glia_exp, self._h)

    def log(self):
        return _new(C.glia_log, self._h)

    def log1p(self):
        return _new(C.glia_log1p, self._h)

    def expm1(self):
        return _new(C.glia_expm1, self._h)

    def sqrt(self):
        return _new(C.glia_sqrt, self._h)

    def rsqrt(self):
        return _new(C.glia_rsqrt, self._h)

    def sign(self):
        return _new(C.glia_sign, self._h)

    def sigmoid(self):
        return _new(C.glia_sigmoid, self._h)

    def tanh(self):
        return _new(C.glia_tanh, self._h)

    def relu(self):
        return _new(C.glia_relu, self._h)

    def reciprocal(self):
        return 1.0 / self

    def clamp(self, min=None, max=None):  # noqa: A002
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            if min is not None and not isinstance(min, Tensor):
                min = full((), min, dtype=self.dtype)
            if max is not None and not isinstance(max, Tensor):
                max = full((), max, dtype=self.dtype)
            if min is None and max is None:
                raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
            return _new(C.glia_clamp_tensor, self._h, None if min is None else min._h, None if max is None else max._h)
        lo, hi = _clamp_bounds(min, max)
        return _new(C.glia_clamp, self._h, lo, hi)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002
        return self.clamp(min=min)

    def clamp_max(self, max):  # noqa: A002
        return self.clamp(max=max)

    def maximum(self, other):
        return _new(C.glia_maximum, self._h, _to_tensor_like(other, self, "maximum")._h)

    def minimum(self, other):
        return _new(C.glia_minimum, self._h, _to_tensor_like(other, self, "minimum")._h)

    def where(self, condition, other):
        return where(condition, self, other)

    def softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(_as_dtype(dtype))
        return _new(C.glia_softmax, x._h, dim)

    def log_softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(_as_dtype(dtype))
        return _new(C.glia_log_softmax, x._h, dim)

    # ---- reductions ------------------------------------------------------

    def _reduce(self, fn, dim, keepdim, dtype=None):
        x = self if dtype is None else self.to(_as_dtype(dtype))
        dims, n = _dims(dim)
        return _new(fn, x._h, dims, n, 1 if keepdim else 0)

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return self._reduce(C.glia_sum, dim, keepdim, dtype)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return self._reduce(C.glia_mean, dim, keepdim, dtype)

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return self._reduce(C.glia_prod, dim, keepdim, dtype)

    def amax(self, dim=(), keepdim=False):
        return self._reduce(C.glia_amax, dim if dim != () else None, keepdim)

    def amin(self, dim=(), keepdim=False):
        return self._reduce(C.glia_amin, dim if dim != () else None, keepdim)

    def logsumexp(self, dim, keepdim=False):
        return self._reduce(C.glia_logsumexp, dim, keepdim)

    def _maxmin(self, dim, keepdim, fn, afn, minmax, result):
        if isinstance(dim, Tensor):
            return minmax(self, dim)
        if dim is None:
            if self.numel() == 0:
                raise RuntimeError(
                    "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
                    "with the 'dim' argument." % ("max" if fn is C.glia_max else "min")
                )
            return self._reduce(afn, None, False)
        v, i = c_void_p(), c_void_p()
        check(fn(self._h, dim, 1 if keepdim else 0, byref(v), byref(i)))
        return result(Tensor._wrap(v.value), Tensor._wrap(i.value))

    def max(self, dim=None, keepdim=False):
        return self._maxmin(dim, keepdim, C.glia_max, C.glia_amax, Tensor.maximum, _max_result)

    def min(self, dim=None, keepdim=False):
        return self._maxmin(dim, keepdim, C.glia_min, C.glia_amin, Tensor.minimum, _min_result)

    def argmax(self, dim=None, keepdim=False):
        d = None if dim is None else byref(c_int64(dim))
        return _new(C.glia_argmax, self._h, d, 1 if keepdim else 0)

    def argmin(self, dim=None, keepdim=False):
        d = None if dim is None else byref(c_int64(dim))
        return _new(C.glia_argmin, self._h, d, 1 if keepdim else 0)

    def _varstd(self, fn, dim, unbiased, keepdim, correction):
        if isinstance(dim, builtins.bool):  # var(unbiased) positional form
            dim, unbiased = None, dim
        if correction is None:
            correction = 1.0 if unbiased is None or unbiased else 0.0
        dims, n = _dims(dim)
        return _new(fn, self._h, dims, n, builtins.float(correction), 1 if keepdim else 0)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return self._varstd(C.glia_var, dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return self._varstd(C.glia_std, dim, unbiased, keepdim, correction)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        if p == "fro" or p is None:
            p = 2.0
        elif p == "nuc":
            raise NotImplementedError("glia: the nuclear norm is not supported")
        x = self if dtype is None else self.to(_as_dtype(dtype))
        dims, n = _dims(dim)
        return _new(C.glia_norm, x._h, builtins.float(p), dims, n, 1 if keepdim else 0)

    # ---- shape -----------------------------------------------------------

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtype):
            raise NotImplementedError("glia: view(dtype) is not supported")
        arr, n = _i64(_shape_args(shape, "view"))
        return _new(C.glia_view, self._h, arr, n)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape(self, *shape):
        arr, n = _i64(_shape_args(shape, "reshape"))
        return _new(C.glia_reshape, self._h, arr, n)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        return _new(C.glia_flatten, self._h, start_dim, end_dim)

    def ravel(self):
        return self.reshape(-1)

    def unflatten(self, dim, sizes):
        arr, n = _i64(sizes)
        return _new(C.glia_unflatten, self._h, dim, arr, n)

    def squeeze(self, dim=None):
        dims, n = _dims(dim)
        return _new(C.glia_squeeze, self._h, dims, n)

    def unsqueeze(self, dim):
        return _new(C.glia_unsqueeze, self._h, dim)

    def permute(self, *dims):
        arr, n = _i64(_shape_args(dims, "permute"))
        return _new(C.glia_permute, self._h, arr, n)

    def transpose(self, dim0, dim1):
        return _new(C.glia_transpose, self._h, dim0, dim1)

    swapaxes = swapdims = transpose

    def t(self):
        if self.ndim > 2:
            raise RuntimeError("t() expects a tensor with <= 2 dimensions, but self is %dD" % self.ndim)
        return self if self.ndim < 2 else self.transpose(0, 1)

    @property
    def T(self):
        n = self.ndim
        return self if n < 2 else self.permute(*range(n - 1, -1, -1))

    @property
    def mT(self):
        if self.ndim == 0:  # torch 1.13 gives the scalar back
            return self.view(())
        if self.ndim == 1:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
        return self.transpose(-2, -1)

    def expand(self, *sizes):
        arr, n = _i64(_shape_args(sizes, "expand"))
        return _new(C.glia_expand, self._h, arr, n)

    def expand_as(self, other):
        return self.expand(other.shape)

    def narrow(self, dim, start, length):
        return _new(C.glia_narrow, self._h, dim, builtins.int(start), builtins.int(length))

    def select(self, dim, index):
        n = self.ndim
        if n == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        d = self._wrap_dim(dim, n)
        size = self.shape[d]
        if not -size <= index < size:
            raise IndexError(
                "index %d is out of bounds for dimension %d with size %d" % (index, d, size)
            )
        return _new(C.glia_select, self._h, d, builtins.int(index))

    def index_select(self, dim, index):
        if not isinstance(index, Tensor):
            raise _arg_error("index_select", "index", 2, index)
        return _new(C.glia_index_select, self._h, dim, index._h)

    def gather(self, dim, index):
        return _new(C.glia_gather, self._h, dim, index._h)

    def scatter(self, dim, index, src=None, *, value=None):
        if src is None:
            src = value
        if isinstance(src, Tensor):
            return _new(C.glia_scatter, self._h, dim, index._h, src._h)
        return _new(C.glia_scatter_value, self._h, dim, index._h, _scalar(src))

    def scatter_(self, dim, index, src=None, *, value=None):
        return self.copy_(self.scatter(dim, index, src, value=value))

    def scatter_add(self, dim, index, src):
        return _new(C.glia_scatter_add, self._h, dim, index._h, src._h)

    def scatter_add_(self, dim, index, src):
        return self.copy_(self.scatter_add(dim, index, src))

    def masked_select(self, mask):
        return _new(C.glia_masked_select, self._h, mask._h)

    def masked_fill(self, mask, value):
        if not isinstance(value, Tensor):
            value = full((), value, dtype=self.dtype)
        return where(mask, value.to(self.dtype), self)

    def masked_fill_(self, mask, value):
        return self.copy_(self.masked_fill(mask, value))

    def _multi(self, fn, *args):
        n = c_int64()
        check(fn(self._h, *args, None, 0, byref(n)))
        outs = (c_void_p * builtins.max(n.value, 1))()
        check(fn(self._h, *args, outs, n.value, byref(n)))
        return tuple(Tensor._wrap(outs[i]) for i in range(n.value))

    def split(self, split_size_or_sections, dim=0):
        if isinstance(split_size_or_sections, (list, tuple)):
            arr, k = _i64(split_size_or_sections)
            return self._multi(C.glia_split_with_sizes, arr, k, dim)
        return self._multi(C.glia_split, builtins.int(split_size_or_sections), dim)

    def chunk(self, chunks, dim=0):
        return self._multi(C.glia_chunk, builtins.int(chunks), dim)

    def unbind(self, dim=0):
        return tuple(self.select(dim, i) for i in range(self.shape[dim]))

    def repeat(self, *sizes):
        arr, n = _i64(_shape_args(sizes, "repeat"))
        return _new(C.glia_repeat, self._h, arr, n)

    # ---- indexing --------------------------------------------------------

    def _index(self, key):
        """(view, advanced) for key: view after basic indexing; advanced = (dim, index tensor) or None."""
        if isinstance(key, list) and _sequence_is_tuple(key):
            key = tuple(key)
        if not isinstance(key, tuple):
            key = (key,)
        n_used = builtins.sum(
            0 if (k is None or k is Ellipsis or isinstance(k, builtins.bool)) else
            (k.ndim if isinstance(k, Tensor) and k.dtype is bool else 1)
            for k in key
        )
        ndim = self.ndim
        if n_used > ndim:
            raise IndexError("too many indices for tensor of dimension %d" % ndim)
        if builtins.sum(1 for k in key if k is Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        x = self
        d = 0
        advanced = []
        for k in key:
            if k is None:
                x = x.unsqueeze(d)
                d += 1
            elif k is Ellipsis:
                d += ndim - n_used
            elif isinstance(k, slice):
                size = x.shape[d]
                start, stop, step = k.start, k.stop, k.step
                step = 1 if step is None else builtins.int(step)
                if step <= 0:
                    raise ValueError("step must be greater than zero")
                start = 0 if start is None else builtins.int(start)
                stop = _INT64_MAX if stop is None else builtins.int(stop)
                if not (start == 0 and stop >= size and step == 1):
                    x = _new(C.glia_slice, x._h, d, start, stop, step)
                d += 1
            elif isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, (builtins.bool, np.bool_)):
                size = x.shape[d]
                k = builtins.int(k)
                if not -size <= k < size:
                    raise IndexError(
                        "index %d is out of bounds for dimension %d with size %d" % (k, d, size)
                    )
                x = _new(C.glia_select, x._h, d, k)
            elif isinstance(k, Tensor) or isinstance(k, (list, np.ndarray)):
                if not isinstance(k, Tensor):
                    k = tensor(k)
                if k.dtype is bool:
                    advanced.append(("mask", d, k))
                    d += k.ndim
                elif k.dtype in (int64, int32, uint8) or k.dtype is int64:
                    if k.dtype is uint8:
                        advanced.append(("mask", d, k.to(bool)))
                        d += k.ndim
                    else:
                        advanced.append(("index", d, k))
                        d += 1
                else:
                    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            elif isinstance(k, builtins.bool):
                x = x.unsqueeze(d)
                if not k:
                    x = x.narrow(d, 0, 0)
                d += 1
            else:
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                    "indices (got %s)" % type(k).__name__
                )
        return x, advanced

    @staticmethod
    def _advanced_positions(x, adv):
        """For one advanced index, the flat positions tensor and (dim, n_dims_replaced)."""
        kind, d, k = adv
        if kind == "index":
            return d, 1, k
        shape = x.shape
        want = tuple(shape[d:d + k.ndim])
        if tuple(k.shape) != want:
            for i, (a, b) in enumerate(zip(k.shape, want)):
                if a != b:
                    raise IndexError(
                        "The shape of the mask [%s] at index %d does not match the shape of the indexed tensor "
                        "[%s] at index %d" % (", ".join(map(str, k.shape)), i, ", ".join(map(str, shape)), d + i)
                    )
        flat = np.flatnonzero(k.numpy().reshape(-1))
        return d, k.ndim, tensor(flat.astype(np.int64))

    def _multi_index(self, advanced):
        """self[..., i0, ..., i1, ...] for several index tensors (masks count as their nonzero() index
        tensors), after torch's basic indexing: the indices broadcast together to a shape B that replaces
        the indexed dims, in their place when they are adjacent, else first (NumPy's rule, as torch's)."""
        dims, arrays = [], []
        for kind, d, k in advanced:
            if kind == "index":
                dims.append(d)
                arrays.append(np.asarray(k.numpy(), dtype=np.int64))
                continue
            self._advanced_positions(self, (kind, d, k))  # the mask's shape check and message
            for j, a in enumerate(np.nonzero(k.numpy())):
                dims.append(d + j)
                arrays.append(a.astype(np.int64))
        try:
            arrays = np.broadcast_arrays(*arrays)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes %s"
                             % ", ".join("[%s]" % ", ".join(map(str, a.shape)) for a in arrays)) from None
        shape = list(self.shape)
        sizes = [shape[d] for d in dims]
        for a, d, size in zip(arrays, dims, sizes):
            bad = a[(a >= size) | (a < -size)]
            if bad.size:
                raise IndexError("index %d is out of bounds for dimension %d with size %d" % (bad.flat[0], d, size))
        flat = np.zeros(arrays[0].shape, dtype=np.int64)
        for a, size in zip(arrays, sizes):
            flat = flat * size + np.where(a < 0, a + size, a)
        rest = [d for d in range(len(shape)) if d not in dims]
        x = self.permute(*(dims + rest)).reshape([-1] + [shape[d] for d in rest])
        r = x.index_select(0, tensor(flat.reshape(-1))).reshape(list(flat.shape) + [shape[d] for d in rest])
        adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
        if adjacent and dims[0] > 0:
            nb = flat.ndim
            # B's dims go where the indexed dims were: after the `dims[0]` leading rest dims.
            order = list(range(nb, nb + dims[0])) + list(range(nb)) + list(range(nb + dims[0], r.ndim))
            r = r.permute(*order)
        return r

    def __getitem__(self, key):
        x, advanced = self._index(key)
        if not advanced:
            return x
        if len(advanced) > 1:
            return x._multi_index(advanced)
        d, nd, idx = self._advanced_positions(x, advanced[0])
        if nd != 1:
            x = x.flatten(d, d + nd - 1)
        shape = list(x.shape)
        size = shape[d]
        if idx.numel():
            lo, hi = builtins.int(idx.min()), builtins.int(idx.max())
            bad = hi if hi >= size else lo if lo < -size else None
            if bad is not None:
                raise IndexError("index %d is out of bounds for dimension %d with size %d" % (bad, d, size))
            if lo < 0:
                idx = where(idx < 0, idx + size, idx)
        flat = idx.reshape(-1)
        r = x.index_select(d, flat)
        if idx.ndim != 1:
            r = r.reshape(shape[:d] + list(idx.shape) + shape[d + 1:])
        return r

    def __setitem__(self, key, value):
        x, advanced = self._index(key)
        if not advanced:
            if isinstance(value, Tensor):
                x.copy_(value)
            elif _is_number(value):
                x.fill_(value)
            else:
                x.copy_(tensor(value, dtype=self.dtype))
            return
        if len(advanced) > 1:
            raise NotImplementedError("glia: indexing with more than one index tensor is not supported")
        kind, d, k = advanced[0]
        if not isinstance(value, Tensor):
            value = tensor(value, dtype=x.dtype)
        if kind == "mask":
            # x[mask] = value: a bool mask over dims d..d+k.ndim; broadcast it over the rest.
            m = k
            for _ in range(d):
                m = m.unsqueeze(0)
            while m.ndim < x.ndim:
                m = m.unsqueeze(-1)
            if value.ndim == 1 and value.numel() > 1:
                # one value per selected element (torch's x[mask] = values)
                pos = np.flatnonzero(m.expand(x.shape).numpy().reshape(-1))
                flat = x.reshape(-1).clone()
                flat = flat.scatter(0, tensor(pos.astype(np.int64)), value.to(x.dtype))
                x.copy_(flat.reshape(x.shape))
            else:
                x.copy_(where(m, value.to(x.dtype), x))
            return
        # x[..., idx, ...] = value along dim d
        size = x.shape[d]
        idx = k.reshape(-1)
        idx = where(idx < 0, idx + size, idx)
        shape = list(x.shape)
        target_shape = shape[:d] + [idx.numel()] + shape[d + 1:]
        v = value.to(x.dtype).expand(*target_shape) if value.shape != Size(target_shape) else value.to(x.dtype)
        view_shape = [1] * len(shape)
        view_shape[d] = idx.numel()
        index = idx.reshape(view_shape).expand(*target_shape)
        x.copy_(x.scatter(d, index.contiguous(), v.contiguous()))


def _type_label(d):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "uint8": "Byte", "bool": "Bool", "int8": "Char",
            "int16": "Short"}[d._name]


def _clamp_bounds(lo, hi):
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return (None if lo is None else byref(_scalar(lo))), (None if hi is None else byref(_scalar(hi)))


def _rebuild(array, dtype_name, requires_grad):
    t = tensor(array, dtype=_dtype_by_name(dtype_name))
    if requires_grad:
        t.requires_grad_(True)
    return t


class _no_grad:
    def __enter__(self):
        self.prev = C.glia_grad_mode_enabled()
        C.glia_grad_mode_set(0)

    def __exit__(self, *exc):
        C.glia_grad_mode_set(self.prev)


# ---------------------------------------------------------------------------
# factories


def _options(dtype_, device_):
    o = glia_tensor_options()
    C.glia_tensor_options_init(byref(o))
    if dtype_ is not None:
        o.dtype = _as_dtype(dtype_)._code
    if device_ is not None:
        o.device = _as_device(device_)._c()
    return o


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _factory(fn, size, dtype, device, requires_grad, name):
    arr, n = _i64(_shape_args(size, name))
    o = _options(dtype, device)
    return _finish(_new(fn, arr, n, byref(o)), requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _factory(C.glia_tensor_zeros, size, dtype, device, requires_grad, "zeros")


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _factory(C.glia_tensor_ones, size, dtype, device, requires_grad, "ones")


def _in_format(t, memory_format, fn):
    """`t` (a new tensor, no graph) laid out in `memory_format`; preserve_format keeps its layout."""
    fmt = _check_memory_format(memory_format, fn)
    if fmt is preserve_format:
        return t
    _check_rank(t, fmt)
    return t.contiguous(memory_format=fmt)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    t = _factory(C.glia_tensor_empty, size, dtype, device, False, "empty")
    return _finish(_in_format(t, memory_format, "empty"), requires_grad)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _factory(C.glia_tensor_rand, size, dtype, device, requires_grad, "rand")


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _factory(C.glia_tensor_randn, size, dtype, device, requires_grad, "randn")


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        if isinstance(fill_value, (builtins.bool, np.bool_)):
            dtype = bool
        elif isinstance(fill_value, (numbers.Integral, np.integer)):
            dtype = int64
        else:
            dtype = float32
    if isinstance(size, (numbers.Integral, np.integer)):
        size = (size,)
    arr, n = _i64(_shape_args((tuple(size),), "full"))
    o = _options(dtype, device)
    return _finish(_new(C.glia_tensor_full, arr, n, builtins.float(fill_value), byref(o)), requires_grad)


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        # torch's rule for Python numbers: int64 when all three are ints, else the default float dtype
        whole = all(isinstance(v, (numbers.Integral, np.integer)) for v in vals)
        dtype = int64 if whole else float32
    o = byref(_options(dtype, device))
    return _finish(_new(C.glia_tensor_arange, *[builtins.float(v) for v in vals], o), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    o = byref(_options(dtype, device))
    return _finish(_new(C.glia_tensor_linspace, builtins.float(vals[0]), builtins.float(vals[1]),
                        builtins.int(steps), o), requires_grad)


def _like(fn, t, dtype, device, requires_grad, *extra, memory_format=None, name="empty_like"):
    # NULL options: the input's dtype and device; otherwise both come from the options. The C
    # functions keep a dense input's strides (preserve_format).
    o = None if dtype is None and device is None else byref(_options(dtype or t.dtype, device or t.device))
    return _finish(_in_format(_new(fn, t._h, *extra, o), memory_format, name), requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):  # noqa: A002
    return _like(C.glia_tensor_zeros_like, input, dtype, device, requires_grad, memory_format=memory_format,
                 name="zeros_like")


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):  # noqa: A002
    return _like(C.glia_tensor_ones_like, input, dtype, device, requires_grad, memory_format=memory_format,
                 name="ones_like")


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):  # noqa: A002
    return _like(C.glia_tensor_empty_like, input, dtype, device, requires_grad, memory_format=memory_format,
                 name="empty_like")


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):  # noqa: A002
    return _like(C.glia_tensor_rand_like, input, dtype, device, requires_grad, memory_format=memory_format,
                 name="rand_like")


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):  # noqa: A002
    return _like(C.glia_tensor_randn_like, input, dtype, device, requires_grad, memory_format=memory_format,
                 name="randn_like")


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):  # noqa: A002,E501
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _like(C.glia_tensor_full_like, input, dtype, device, requires_grad, builtins.float(fill_value),
                 memory_format=memory_format, name="full_like")


def manual_seed(seed):
    C.glia_manual_seed(builtins.int(seed) & 0xFFFFFFFFFFFFFFFF)


def seed():
    s = np.random.SeedSequence().entropy & 0xFFFFFFFFFFFFFFFF
    manual_seed(s)
    return s


def _infer_dtype(data):
    """torch's dtype for Python data: bool < int64 < float32 by the kinds present."""
    kinds = set()

    def walk(x):
        if isinstance(x, Tensor):
            kinds.add("f" if x.dtype.is_floating_point else "b" if x.dtype is bool else "i")
        elif isinstance(x, (builtins.bool, np.bool_)):
            kinds.add("b")
        elif isinstance(x, (numbers.Integral, np.integer)):
            kinds.add("i")
        elif isinstance(x, (numbers.Real, np.floating)):
            kinds.add("f")
        elif isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, np.ndarray):
            kinds.add({"b": "b", "i": "i", "u": "i", "f": "f"}.get(x.dtype.kind, "?"))
        else:
            raise TypeError("new(): invalid data type '%s'" % type(x).__name__)

    walk(data)
    if "?" in kinds:
        raise TypeError("can't convert np.ndarray of this type to a tensor")
    if "f" in kinds:
        return float32
    if "i" in kinds:
        return int64
    if "b" in kinds:
        return bool
    return float32


def _to_nested(data):
    if isinstance(data, Tensor):
        return data.detach()._host_array_any()
    if isinstance(data, (list, tuple)):
        return [_to_nested(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """torch.tensor: a copy of `data` (nested lists / numbers / ndarray / Tensor)."""
    dtype = _as_dtype(dtype)
    if isinstance(data, Tensor):
        t = data.detach().clone()
        if dtype is not None or device is not None:
            t = t.to(dtype=dtype or t.dtype, device=device or t.device)
        return _finish(t, requires_grad)
    if isinstance(data, np.generic):  # a numpy scalar keeps its dtype, as torch's does
        data = np.asarray(data)
    if isinstance(data, np.ndarray):
        src = data
        if dtype is None:
            if data.dtype not in _NP_TO_DTYPE:
                raise TypeError(
                    "can't convert np.ndarray of type numpy.%s. The only supported types are: float64, float32, "
                    "float16, int64, int32, int16, int8, uint8, and bool." % data.dtype.name
                )
            dtype = _NP_TO_DTYPE[data.dtype]
    else:
        if isinstance(data, str) or not (_is_number(data) or isinstance(data, (list, tuple))):
            raise TypeError("new(): invalid data type '%s'" % type(data).__name__)
        inferred = _infer_dtype(data)
        if dtype is None:
            dtype = inferred
        nested = _to_nested(data)
        npd = {float32: np.float64, bool: np.bool_, int64: np.int64}[inferred]
        try:
            src = np.array(nested, dtype=npd)
        except ValueError as e:
            raise ValueError(str(e)) from None
        if src.dtype == object:
            raise ValueError("expected sequence of equal-length lists")
        _check_fits(src, dtype)
    target = dtype if dtype._np is not None else float32
    arr = np.asarray(src, dtype=target._np, order="C")
    shape, n = _i64(arr.shape)
    t = _new(C.glia_tensor_from_data, arr.ctypes.data_as(c_void_p), arr.nbytes, shape, n, target._code)
    if target is not dtype:
        t = t.to(dtype)
    if device is not None and _as_device(device) != t.device:
        t = t.to(_as_device(device))
    return _finish(t, requires_grad)


def _check_fits(src, dtype):
    """torch.tensor's check of Python numbers against an integer dtype (c10::checked_convert): a value out
    of the dtype's range, or NaN, is an error, not a wrap-around (uint8 takes ints down to -255, as torch)."""
    if dtype.is_floating_point or dtype is bool or src.size == 0 or src.dtype == np.bool_:
        return
    info = np.iinfo(dtype._np)
    if src.dtype.kind == "f":
        bad = np.isnan(src).any() or (src < info.min).any() or (src > info.max).any()
    else:
        bad = (src < (-info.max if dtype is uint8 else info.min)).any() or (src > info.max).any()
    if bad:
        raise RuntimeError("value cannot be converted to type %s without overflow" % dtype._name)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and dtype in (None, data.dtype):
        return data
    if isinstance(data, np.ndarray) and dtype in (None, _NP_TO_DTYPE.get(data.dtype)) and data.dtype in _NP_TO_DTYPE:
        try:
            return from_numpy(data)
        except (TypeError, ValueError):
            pass
    return tensor(data, dtype=dtype, device=device)


def from_numpy(a):
    """torch.from_numpy: a Tensor sharing `a`'s memory (writes show through both ways)."""
    if not isinstance(a, np.ndarray):
        raise TypeError("expected np.ndarray (got %s)" % type(a).__name__)
    if a.dtype not in _NP_TO_DTYPE:
        raise TypeError(
            "can't convert np.ndarray of type numpy.%s. The only supported types are: float64, float32, float16, "
            "int64, int32, int16, int8, uint8, and bool." % a.dtype.name
        )
    if not a.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion "
                         "between byte orders is currently not supported.")
    item = a.dtype.itemsize
    if any(s < 0 for s in a.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) "
        )
    if any(s % item for s in a.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate "
            "the memory."
        )
    if not a.flags.writeable:
        import warnings

        warnings.warn(
            "The given NumPy array is not writable, and glia does not support non-writable tensors. This means "
            "writing to this tensor will result in undefined behavior. You may want to copy the array to protect "
            "its data or make it writable before converting it to a tensor.",
            UserWarning,
            stacklevel=2,
        )
    shape, n = _i64(a.shape)
    strides, _ = _i64([s // item for s in a.strides])
    key = register(a)
    out = c_void_p()
    data = a.ctypes.data if a.size else (a.ctypes.data or 0)
    if not data:
        # an empty array may have no buffer: a fresh empty tensor shares nothing
        unregister(key)
        return empty(*a.shape, dtype=_NP_TO_DTYPE[a.dtype])
    d = glia_device()
    d.type = GLIA_CPU
    d.index = -1
    check(C.glia_tensor_from_blob(data, shape, strides, n, _NP_TO_DTYPE[a.dtype]._code, d, _blob_deleter, key,
                                  byref(out)))
    return Tensor._wrap(out.value)


# ---------------------------------------------------------------------------
# module functions (torch.xxx)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):  # noqa: A002
    return input.dtype.is_floating_point


def numel(input):  # noqa: A002
    return input.numel()


def cat(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                "expected Tensor as element %d in argument 0, but got %s" % (i, type(t).__name__)
            )
    arr, n = _handles(tensors)
    return _new(C.glia_cat, arr, n, dim)


concat = cat


def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                "expected Tensor as element %d in argument 0, but got %s" % (i, type(t).__name__)
            )
    arr, n = _handles(tensors)
    return _new(C.glia_stack, arr, n, dim)


def where(condition, input=None, other=None):  # noqa: A002
    if input is None and other is None:
        return tuple(tensor(i) for i in np.nonzero(condition.numpy()))
    ref = input if isinstance(input, Tensor) else other if isinstance(other, Tensor) else None
    if ref is None:
        ref = full((), input)
    a = _to_tensor_like(input, ref, "where", "input", 1)
    b = _to_tensor_like(other, ref, "where", "other", 2)
    return _new(C.glia_where, condition._h, a._h, b._h)


def _method(name):
    def f(input, *args, **kwargs):  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s" % (name, type(input).__name__))
        return getattr(input, name)(*args, **kwargs)

    f.__name__ = name
    f.__qualname__ = name
    return f


for _n in ("matmul", "mm", "bmm", "maximum", "minimum", "clamp", "clip", "abs", "neg", "exp", "log", "log1p",
           "expm1", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "sign", "softmax", "log_softmax", "sum", "mean",
           "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var", "norm", "logsumexp", "add",
           "sub", "mul", "div", "true_divide", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
           "logical_xor", "logical_not", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "permute",
           "transpose", "t", "narrow", "select", "index_select", "gather", "scatter", "scatter_add",
           "masked_select", "split", "chunk", "clone", "detach", "allclose", "equal", "isnan", "square",
           "floor_divide", "remainder", "rsub"):
    globals()[_n] = _method(_n)


def pow(input, exponent):  # noqa: A001,A002
    if isinstance(input, Tensor):
        return input.pow(exponent)
    if _is_number(input) and isinstance(exponent, Tensor):
        return _new(C.glia_scalar_pow, _scalar(input), exponent._h)
    raise TypeError("pow() received an invalid combination of arguments")


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    return _new(C.glia_addmm, input._h, mat1._h, mat2._h, builtins.float(beta), builtins.float(alpha))


def permute(input, dims):  # noqa: A002,F811
    return input.permute(*dims)


# ---- unary floating math and rounding (torch.sin ... torch.round): functions, methods and
# their in-place forms (x.sin_()), through glia_<op> and glia_<op>_.

_MATH_OPS = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "exp2",
             "log2", "log10", "erf", "erfc", "erfinv", "lgamma", "digamma", "trunc", "frac", "floor", "ceil")
# torch's aliases: torch.arcsin is torch.asin, torch.fix is torch.trunc ...
_MATH_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
                 "arctanh": "atanh", "fix": "trunc"}


def _math_methods(name):
    fn, fn_ = getattr(C, "glia_" + name), getattr(C, "glia_" + name + "_")

    def op(self):
        return _new(fn, self._h)

    def op_(self):
        check(fn_(self._h))
        return self

    op.__name__ = op.__qualname__ = name
    op_.__name__ = op_.__qualname__ = name + "_"
    return op, op_


for _n in _MATH_OPS:
    _m, _m_ = _math_methods(_n)
    setattr(Tensor, _n, _m)
    setattr(Tensor, _n + "_", _m_)
for _a, _n in _MATH_ALIASES.items():
    setattr(Tensor, _a, getattr(Tensor, _n))
    setattr(Tensor, _a + "_", getattr(Tensor, _n + "_"))


def _round(self, *, decimals=0):
    return _new(C.glia_round, self._h, _builtin_int(decimals))


def _round_(self, *, decimals=0):
    check(C.glia_round_(self._h, _builtin_int(decimals)))
    return self


def _logit(self, eps=None):
    return _new(C.glia_logit, self._h, -1.0 if eps is None else _builtin_float(eps))


def _logit_(self, eps=None):
    check(C.glia_logit_(self._h, -1.0 if eps is None else _builtin_float(eps)))
    return self


Tensor.round, Tensor.round_, Tensor.logit, Tensor.logit_ = _round, _round_, _logit, _logit_
_round.__name__, _round_.__name__, _logit.__name__, _logit_.__name__ = "round", "round_", "logit", "logit_"

for _n in _MATH_OPS + tuple(_MATH_ALIASES) + ("round", "logit"):
    globals()[_n] = _method(_n)
    globals()[_n + "_"] = _method(_n + "_")
    __all__ += [_n, _n + "_"]


# ---- binary math, bitwise ops and predicates

def _binary_method(name, fn):
    def op(self, other):
        other = _to_tensor_like(other, self, name)  # kept alive across the call
        return _new(fn, self._h, other._h)

    op.__name__ = op.__qualname__ = name
    return op


for _n in ("atan2", "hypot", "copysign", "xlogy", "fmod", "fmax", "fmin", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_left_shift", "bitwise_right_shift"):
    setattr(Tensor, _n, _binary_method(_n, getattr(C, "glia_" + _n)))
Tensor.arctan2 = Tensor.atan2
Tensor.__lshift__ = Tensor.bitwise_left_shift
Tensor.__rshift__ = Tensor.bitwise_right_shift
Tensor.__rlshift__ = lambda self, other: _to_tensor_like(other, self, "bitwise_left_shift").bitwise_left_shift(self)
Tensor.__rrshift__ = lambda self, other: _to_tensor_like(other, self, "bitwise_right_shift").bitwise_right_shift(self)

for _n in ("isinf", "isfinite", "isposinf", "isneginf"):
    setattr(Tensor, _n, (lambda fn: lambda self: _new(fn, self._h))(getattr(C, "glia_" + _n)))


def _isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _new(C.glia_isclose, self._h, other._h, _builtin_float(rtol), _builtin_float(atol),
                1 if equal_nan else 0)


def _nan_to_num(self, nan=0.0, posinf=None, neginf=None):
    p = None if posinf is None else byref(ctypes.c_double(posinf))
    n = None if neginf is None else byref(ctypes.c_double(neginf))
    return _new(C.glia_nan_to_num, self._h, _builtin_float(nan), p, n)


Tensor.isclose, Tensor.nan_to_num = _isclose, _nan_to_num
_isclose.__name__, _nan_to_num.__name__ = "isclose", "nan_to_num"

for _n in ("atan2", "arctan2", "hypot", "copysign", "fmod", "fmax", "fmin", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "bitwise_not", "isinf", "isfinite",
           "isposinf", "isneginf", "isclose", "nan_to_num"):
    globals()[_n] = _method(_n)
    __all__.append(_n)


def xlogy(input, other):  # noqa: A002
    if _is_number(input) and isinstance(other, Tensor):
        input = _to_tensor_like(input, other, "xlogy", "input", 0)
    return input.xlogy(other)


__all__.append("xlogy")


def _lerp(self, end, weight):
    if isinstance(weight, Tensor):
        return _new(C.glia_lerp, self._h, end._h, weight._h)
    if _is_number(weight):
        return _new(C.glia_lerp_scalar, self._h, end._h, _builtin_float(weight))
    raise _arg_error("lerp", "weight", 2, weight)


def _lerp_(self, end, weight):
    return self.copy_(self.lerp(end, weight))


Tensor.lerp, Tensor.lerp_ = _lerp, _lerp_
_lerp.__name__, _lerp_.__name__ = "lerp", "lerp_"
globals()["lerp"] = _method("lerp")
__all__.append("lerp")
# ---------------------------------------------------------------------------
# issue 20: factories (eye, logspace, randint, tril_indices) and shape ops (tril, triu,
# diagonal, diag, diag_embed, trace, flip, fliplr, flipud, roll)

__all__ += ["eye", "logspace", "randint", "tril_indices", "triu_indices", "tril", "triu", "diagonal", "diag",
            "diag_embed", "trace", "flip", "fliplr", "flipud", "roll"]


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    o = byref(_options(dtype, device))
    return _finish(_new(C.glia_tensor_eye, builtins.int(n), builtins.int(n if m is None else m), o), requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    o = byref(_options(dtype, device))
    return _finish(_new(C.glia_tensor_logspace, builtins.float(vals[0]), builtins.float(vals[1]),
                        builtins.int(steps), builtins.float(base), o), requires_grad)


def randint(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False):
    """torch.randint(high, size) or torch.randint(low, high, size): int64 unless dtype is given."""
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list, Size)):
        size = args.pop()
    if size is None or len(args) not in (1, 2):
        raise TypeError("randint() received an invalid combination of arguments")
    low, high = (0, args[0]) if len(args) == 1 else args
    arr, n = _i64(_shape_args((tuple(size),), "randint"))
    o = byref(_options(int64 if dtype is None else dtype, device))
    return _finish(_new(C.glia_tensor_randint, builtins.int(low), builtins.int(high), arr, n, o), requires_grad)


def _tri_indices(fn, row, col, offset, dtype, device):
    o = byref(_options(int64 if dtype is None else dtype, device))
    return _new(fn, builtins.int(row), builtins.int(col), builtins.int(offset), o)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(C.glia_tensor_tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(C.glia_tensor_triu_indices, row, col, offset, dtype, device)


def _new_dim(fn, *args):
    """_new, with torch's IndexError for a dim out of range."""
    try:
        return _new(fn, *args)
    except RuntimeError as e:
        if str(e).startswith("Dimension "):
            raise IndexError(str(e)) from None
        raise


def _tensor_tril(self, diagonal=0):
    return _new_dim(C.glia_tril, self._h, builtins.int(diagonal))


def _tensor_triu(self, diagonal=0):
    return _new_dim(C.glia_triu, self._h, builtins.int(diagonal))


def _tensor_diagonal(self, offset=0, dim1=0, dim2=1):
    return _new_dim(C.glia_diagonal, self._h, builtins.int(offset), builtins.int(dim1), builtins.int(dim2))


def _tensor_diag(self, diagonal=0):
    return _new(C.glia_diag, self._h, builtins.int(diagonal))


def _tensor_diag_embed(self, offset=0, dim1=-2, dim2=-1):
    return _new_dim(C.glia_diag_embed, self._h, builtins.int(offset), builtins.int(dim1), builtins.int(dim2))


def _tensor_trace(self):
    return _new(C.glia_trace, self._h)


def _tensor_flip(self, *dims, **kwargs):
    if kwargs:  # torch: flip(dims) may name its argument
        if dims or list(kwargs) != ["dims"]:
            raise TypeError("flip() received an invalid combination of arguments: use flip(*dims) or flip(dims=...)")
        dims = (kwargs["dims"],)
    arr, n = _i64(_shape_args(dims, "flip"))
    return _new_dim(C.glia_flip, self._h, arr, n)


def _tensor_fliplr(self):
    return _new(C.glia_fliplr, self._h)


def _tensor_flipud(self):
    return _new(C.glia_flipud, self._h)


def _tensor_roll(self, shifts, dims=None):
    s_arr, ns = _i64(shifts if isinstance(shifts, (tuple, list)) else [shifts])
    d_arr, nd = _dims(dims)
    return _new_dim(C.glia_roll, self._h, s_arr, ns, d_arr, nd)


def _tensor_tril_(self, diagonal=0):
    return self.copy_(self.tril(diagonal))


def _tensor_triu_(self, diagonal=0):
    return self.copy_(self.triu(diagonal))


for _n, _f in (("tril", _tensor_tril), ("triu", _tensor_triu), ("tril_", _tensor_tril_), ("triu_", _tensor_triu_),
               ("diagonal", _tensor_diagonal), ("diag", _tensor_diag), ("diag_embed", _tensor_diag_embed),
               ("trace", _tensor_trace), ("flip", _tensor_flip), ("fliplr", _tensor_fliplr),
               ("flipud", _tensor_flipud), ("roll", _tensor_roll)):
    _f.__name__ = _n
    _f.__qualname__ = "Tensor." + _n
    setattr(Tensor, _n, _f)

for _n in ("tril", "triu", "diagonal", "diag", "diag_embed", "trace", "fliplr", "flipud", "roll"):
    globals()[_n] = _method(_n)


def flip(input, dims):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError("flip(): argument 'input' (position 1) must be Tensor, not %s" % type(input).__name__)
    return input.flip(*dims) if isinstance(dims, (tuple, list)) else input.flip(dims)


# ---- issue 20, continued: movedim, unfold, rot90, tile, repeat_interleave, tensor_split and the
# compositions torch spells on top of them (moveaxis, atleast_*d, *stack, *split, broadcast_*,
# meshgrid, cartesian_prod)

__all__ += ["movedim", "moveaxis", "rot90", "tile", "repeat_interleave", "tensor_split", "hsplit", "vsplit",
            "dsplit", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack",
            "broadcast_to", "broadcast_tensors", "broadcast_shapes", "meshgrid", "cartesian_prod"]


def _int_list(x):
    return list(x) if isinstance(x, (tuple, list, Size)) else [x]


def _tensor_movedim(self, source, destination):
    s_arr, ns = _i64(_int_list(source))
    d_arr, nd = _i64(_int_list(destination))
    return _new_dim(C.glia_movedim, self._h, s_arr, ns, d_arr, nd)


def _tensor_unfold(self, dimension, size, step):
    return _new_dim(C.glia_unfold, self._h, builtins.int(dimension), builtins.int(size), builtins.int(step))


def _tensor_rot90(self, k=1, dims=(0, 1)):
    arr, n = _i64(list(dims))
    return _new(C.glia_rot90, self._h, builtins.int(k), arr, n)


def _tensor_tile(self, *dims):
    arr, n = _i64(_shape_args(dims, "tile"))
    return _new(C.glia_tile, self._h, arr, n)


def _tensor_repeat_interleave(self, repeats, dim=None, *, output_size=None):
    d = None if dim is None else byref(c_int64(builtins.int(dim)))
    if isinstance(repeats, Tensor):
        return _new_dim(C.glia_repeat_interleave_tensor, self._h, repeats._h, d)
    return _new_dim(C.glia_repeat_interleave, self._h, builtins.int(repeats), d)


def _tensor_tensor_split(self, indices_or_sections, dim=0):
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, (tuple, list)):
        arr, n = _i64(indices_or_sections)
        return self._multi(C.glia_tensor_split_indices, arr, n, builtins.int(dim))
    return self._multi(C.glia_tensor_split, builtins.int(indices_or_sections), builtins.int(dim))


def _split_dim(t, sections, dim, name, need):
    if t.ndim < need:
        raise RuntimeError("torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
                           "dimensions!" % (name, need, t.ndim))
    if not isinstance(sections, (tuple, list)) and t.shape[dim] % sections != 0:
        raise RuntimeError("torch.%s attempted to split along dimension %d, but the size of the dimension %d is "
                           "not divisible by the split_size %d!" % (name, dim, t.shape[dim], sections))
    return t.tensor_split(sections, dim)


def _tensor_hsplit(self, sections):
    return _split_dim(self, sections, 1 if self.ndim > 1 else 0, "hsplit", 1)


def _tensor_vsplit(self, sections):
    return _split_dim(self, sections, 0, "vsplit", 2)


def _tensor_dsplit(self, sections):
    return _split_dim(self, sections, 2, "dsplit", 3)


for _n, _f in (("movedim", _tensor_movedim), ("moveaxis", _tensor_movedim), ("unfold", _tensor_unfold),
               ("rot90", _tensor_rot90), ("tile", _tensor_tile), ("repeat_interleave", _tensor_repeat_interleave),
               ("tensor_split", _tensor_tensor_split), ("hsplit", _tensor_hsplit), ("vsplit", _tensor_vsplit),
               ("dsplit", _tensor_dsplit)):
    _f2 = (lambda f: lambda *a, **k: f(*a, **k))(_f)
    _f2.__name__ = _n
    _f2.__qualname__ = "Tensor." + _n
    setattr(Tensor, _n, _f2)

for _n in ("movedim", "moveaxis", "rot90", "tile", "repeat_interleave", "tensor_split", "hsplit", "vsplit",
           "dsplit"):
    globals()[_n] = _method(_n)


def _atleast(n, tensors):
    def one(t):
        while t.ndim < n:
            # torch: 1-D [n] -> [1, n]; 2-D [a, b] -> [a, b, 1]; 0-dim -> all ones
            t = t.unsqueeze(-1) if t.ndim == 2 else t.unsqueeze(0)
        return t

    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        return tuple(one(t) for t in tensors[0])
    if len(tensors) == 1:
        return one(tensors[0])
    return tuple(one(t) for t in tensors)


def atleast_1d(*tensors):
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    return _atleast(3, tensors)


def hstack(tensors, *, out=None):
    ts = atleast_1d(list(tensors))
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors, *, out=None):
    return cat(atleast_2d(list(tensors)), 0)


def dstack(tensors, *, out=None):
    return cat(atleast_3d(list(tensors)), 2)


def column_stack(tensors, *, out=None):
    ts = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors]
    return cat(ts, 1)


def _broadcast(shapes, for_tensors):
    out = []
    for s in shapes:
        s = _int_list(s)
        n = builtins.max(len(out), len(s))
        a = [1] * (n - len(out)) + out
        b = [1] * (n - len(s)) + s
        for i in range(n):
            if b[i] < 0:
                raise RuntimeError("Trying to create tensor with negative dimension (%d): (%d)" % (b[i], b[i]))
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                if for_tensors:  # torch's infer_size (broadcast_tensors)
                    raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) at "
                                       "non-singleton dimension %d" % (a[i], b[i], i))
                raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape")
        out = [b[i] if a[i] == 1 else a[i] for i in range(n)]
    return Size(out)


def broadcast_shapes(*shapes):
    return _broadcast(shapes, False)


def broadcast_to(input, size):  # noqa: A002
    return input.expand(*_shape_args((tuple(size),), "broadcast_to"))


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    shape = _broadcast([t.shape for t in tensors], True)
    return tuple(t.expand(*shape) for t in tensors)


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: %s' % indexing)
    for t in tensors:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %r" % t)
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.view(*view).expand(*shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


__all__ += ["take", "take_along_dim"]


def _tensor_take(self, index):
    try:
        return _new(C.glia_take, self._h, index._h)
    except RuntimeError as e:
        if "out of bounds" in str(e):
            raise IndexError(str(e)) from None
        raise


def _tensor_take_along_dim(self, indices, dim=None):
    d = None if dim is None else byref(c_int64(builtins.int(dim)))
    return _new_dim(C.glia_take_along_dim, self._h, indices._h, d)


for _n, _f in (("take", _tensor_take), ("take_along_dim", _tensor_take_along_dim)):
    _f.__name__ = _n
    _f.__qualname__ = "Tensor." + _n
    setattr(Tensor, _n, _f)
    globals()[_n] = _method(_n)


# ---- products of issue 20 (glia_addcmul ... glia_addbmm): torch.<name> and Tensor.<name>.
__all__ += ["addcmul", "addcdiv", "dot", "vdot", "inner", "outer", "ger", "mv", "addmv", "addr", "baddbmm", "addbmm"]


def _tensors(name, pos, named):
    """torch's TypeError for a non-Tensor argument; pos: the position of the first one (1 for a method)."""
    for i, (k, v) in enumerate(named):
        if not isinstance(v, Tensor):
            raise _arg_error(name, k, pos + i, v)


def _issue20(name, args, kind):
    """The method and the function of one op: kind "addc" (value=), "pair" or "scaled" (beta=, alpha=)."""
    fn = getattr(C, "glia_" + name)

    def call(self, xs, pos, value=1, beta=1, alpha=1):
        _tensors(name, pos, zip(args, xs))
        hs = [x._h for x in xs]
        if kind == "addc":
            return _new(fn, self._h, *hs, _scalar(value))
        if kind == "scaled":
            return _new(fn, self._h, *hs, builtins.float(beta), builtins.float(alpha))
        return _new(fn, self._h, *hs)

    if kind == "addc":
        def method(self, tensor1, tensor2, *, value=1):
            return call(self, (tensor1, tensor2), 1, value=value)

        def function(input, tensor1, tensor2, *, value=1):  # noqa: A002
            _tensors(name, 1, [("input", input)])
            return call(input, (tensor1, tensor2), 2, value=value)
    elif kind == "scaled":
        def method(self, x, y, *, beta=1, alpha=1):
            return call(self, (x, y), 1, beta=beta, alpha=alpha)

        def function(input, x, y, *, beta=1, alpha=1):  # noqa: A002
            _tensors(name, 1, [("input", input)])
            return call(input, (x, y), 2, beta=beta, alpha=alpha)
    else:
        def method(self, other):
            return call(self, (other,), 1)

        def function(input, other):  # noqa: A002
            _tensors(name, 1, [("input", input)])
            return call(input, (other,), 2)
    method.__name__ = function.__name__ = function.__qualname__ = name
    method.__qualname__ = "Tensor." + name
    return method, function


for _n, _a, _k in (("addcmul", ("tensor1", "tensor2"), "addc"), ("addcdiv", ("tensor1", "tensor2"), "addc"),
                   ("dot", ("tensor",), "pair"), ("vdot", ("other",), "pair"), ("inner", ("other",), "pair"),
                   ("outer", ("vec2",), "pair"), ("ger", ("vec2",), "pair"), ("mv", ("vec",), "pair"),
                   ("addmv", ("mat", "vec"), "scaled"), ("addr", ("vec1", "vec2"), "scaled"),
                   ("baddbmm", ("batch1", "batch2"), "scaled"), ("addbmm", ("batch1", "batch2"), "scaled")):
    _m, _f = _issue20(_n, _a, _k)
    setattr(Tensor, _n, _m)
    globals()[_n] = _f
