"""torch's out= arguments, in-place variants and small aliases (issue 20).

out=: every glia function that torch 1.13 gives an out= argument takes one (``_OUT_NAMES``, probed
from torch by bindings/python/tests/golden/gen_out_inplace_golden.py; test_out_inplace.py checks
this list against it). The function computes its result as usual and glia_tensor_write_out writes
it into ``out`` with torch's rules: out is
resized when its shape differs (torch's deprecation warning when it had elements), the result's
dtype must be castable to out's ("result type Float can't be cast to the desired output type
Long"), out's version counter is bumped, elementwise functions refuse an out that partially
overlaps an input, and in grad mode a result that requires grad is torch's "functions with out=...
arguments don't support automatic differentiation". Factories take out's dtype when no dtype is
given. Functions with several results take a tuple of tensors (out=(values, indices)).

In place: the variants torch has and glia lacked (exp_, atan2_, eq_, cumsum_, ...) compute the
result out of place and write it back with glia_tensor_assign_ (torch's in-place rules; self's
history becomes the result's, Note [Generic in-place] in src/autograd/fn/out_inplace.cpp); the
metadata variants (t_, transpose_, squeeze_, unsqueeze_, swapaxes_) take a view's geometry with
glia_tensor_set_geometry_.
"""

import builtins
import collections
import functools
import sys
import warnings
from ctypes import byref, c_int32, c_int64

import numpy as np

from ._ffi import C, check
from ._tensor import Tensor, _handles

_pkg = sys.modules[__package__]

__all__ = []

# torch 1.13's public functions that take out= (see the module docstring).
_OUT_NAMES = (
    "abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr alias_copy all amax amin aminmax angle any "
    "arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin as_strided_copy asin asinh atan atan2 "
    "atanh baddbmm bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor "
    "bmm bucketize cat ceil chain_matmul cholesky cholesky_inverse cholesky_solve clamp clamp_max clamp_min clip "
    "col_indices_copy column_stack complex concat concatenate conj_physical copysign cos cosh cross crow_indices_copy "
    "cummax cummin cumprod cumsum deg2rad detach_copy diag diagonal_copy diff digamma div divide dot dstack empty eq "
    "erf erfc erfinv exp exp2 expand_copy expm1 eye fix float_power floor floor_divide fmax fmin fmod frac frexp full "
    "gather gcd ge geqrf ger greater greater_equal gt hardshrink heaviside histc histogram hspmm hstack hypot i0 "
    "igamma igammac index_add index_copy index_reduce index_select indices_copy inner inverse isin isneginf isposinf "
    "kron kthvalue lcm ldexp le lerp less less_equal lgamma linspace log log10 log1p log2 log_softmax logaddexp "
    "logaddexp2 logcumsumexp logical_and logical_not logical_or logical_xor logit logspace logsumexp lt lu_solve "
    "lu_unpack masked_select matmul matrix_power max maximum mean median min minimum mm mode msort mul multinomial "
    "multiply mv mvlgamma nan_to_num nanmean nanmedian nanquantile nansum narrow_copy ne neg negative nextafter "
    "nonzero norm normal not_equal nuclear_norm ones orgqr ormqr outer permute_copy polar polygamma pow prod qr "
    "quantile rad2deg rand randint randn randperm range reciprocal remainder renorm round row_stack rsqrt scatter "
    "scatter_add searchsorted select_copy sgn sigmoid sign signbit sin sinc sinh slice_copy slogdet softmax sort "
    "split_copy split_with_sizes_copy sqrt square squeeze_copy sspaddmm stack std sub subtract sum svd symeig t_copy "
    "take take_along_dim tan tanh tensordot threshold topk transpose_copy triangular_solve tril triu true_divide "
    "trunc unbind_copy unfold_copy unsqueeze_copy values_copy var vdot view_as_complex_copy view_as_real_copy "
    "view_copy vstack where xlogy zeros"
).split()

# Factories: out's dtype when dtype is not given (torch's rule).
_FACTORIES = frozenset("arange empty eye full linspace logspace ones rand randint randn randperm range zeros".split())

# Reductions and scans that compute in out's dtype when no dtype is given (torch's rule for them).
_OUT_DTYPE_COMPUTE = frozenset("sum prod mean nansum nanmean cumsum cumprod".split())

# Elementwise functions: out must not partially overlap an input (torch's TensorIterator check).
_ELEMENTWISE = frozenset((
    "abs absolute acos acosh add addcdiv addcmul arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh "
    "atan atan2 atanh bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor ceil "
    "clamp clamp_max clamp_min clip copysign cos cosh deg2rad digamma div divide eq erf erfc erfinv exp exp2 expm1 "
    "fix float_power floor floor_divide fmax fmin fmod frac ge greater greater_equal gt heaviside hypot i0 igamma "
    "igammac ldexp le lerp less less_equal lgamma log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not "
    "logical_or logical_xor logit lt maximum minimum mul multiply nan_to_num ne neg negative nextafter not_equal "
    "polygamma pow rad2deg reciprocal remainder round rsqrt sgn sigmoid sign signbit sin sinc sinh sqrt square sub "
    "subtract tan tanh true_divide trunc where xlogy"
).split())


# Functions whose out must have the result's dtype exactly, with torch's message for each family.
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _dname(dtype, table):
    return table[str(dtype).replace("torch.", "")]


def _exact_mm(r, o):
    return "Expected out tensor to have dtype %s, but got %s instead" % (_dname(r.dtype, _CPP_NAMES),
                                                                       _dname(o.dtype, _CPP_NAMES))


def _exact_dot(r, o):
    return "result dtype %s does not match input dtype %s" % (_dname(o.dtype, _SCALAR_NAMES),
                                                              _dname(r.dtype, _SCALAR_NAMES))


def _exact_tensordot(r, o):
    return "tensordot: Expected the output tensor to have dtype %s, but got an output tensor with dtype %s" % (
        _dname(r.dtype, _SCALAR_NAMES), _dname(o.dtype, _SCALAR_NAMES))


_EXACT_DTYPE = dict(
    [(n, _exact_mm) for n in ("mm", "matmul", "bmm", "addmm", "baddbmm", "mv", "addmv", "cross")]
    + [(n, _exact_dot) for n in ("dot", "vdot")] + [(n, _exact_tensordot) for n in ("tensordot", "inner")])

# The concatenations: torch's message when the inputs' type cannot be cast to out's.
_CATS = frozenset("cat concat concatenate stack hstack vstack dstack column_stack row_stack".split())


def _castable(frm, to):
    if frm.is_floating_point and not to.is_floating_point:
        return False
    return not (str(frm) != "torch.bool" and str(to) == "torch.bool")


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _write1(out, result, name, inputs):
    if not isinstance(out, Tensor):
        raise TypeError("%s(): argument 'out' must be Tensor, not %s" % (name, type(out).__name__))
    if not isinstance(result, Tensor):
        raise TypeError("%s(): out= is not supported for a result of type %s" % (name, type(result).__name__))
    if _grad_enabled() and (result.requires_grad or out.requires_grad):  # torch checks this first
        raise RuntimeError("%s(): functions with out=... arguments don't support automatic differentiation, but one "
                           "of the arguments requires grad." % name)
    if name in _EXACT_DTYPE and out.dtype != result.dtype:
        raise RuntimeError(_EXACT_DTYPE[name](result, out))
    if name in _CATS and not _castable(result.dtype, out.dtype):
        raise RuntimeError("torch.cat(): input types can't be cast to the desired output type %s"
                           % _dname(out.dtype, _SCALAR_NAMES))
    old = list(out.shape)
    resized = c_int32(0)
    hs, n = _handles(inputs)
    check(C.glia_tensor_write_out(out._h, result._h, hs, n, name.encode(), byref(resized)))
    if resized.value:
        warnings.warn(
            "An output with one or more elements was resized since it had shape %s, which does not match the "
            "required output shape %s. This behavior is deprecated, and in a future PyTorch release outputs will "
            "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing "
            "it, inplace, to zero elements with t.resize_(0)." % (_shape_str(old), _shape_str(result.shape)),
            UserWarning, stacklevel=4)


def _tensor_inputs(args, kwargs):
    ts = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            ts.append(a)
        elif isinstance(a, (list, tuple)):
            ts.extend(x for x in a if isinstance(x, Tensor))
    return ts


_OUT_TYPES = {}


def _out_type(name, cls):
    """torch returns torch.return_types.<name>_out (same fields) when out= is given."""
    t = _OUT_TYPES.get((name, cls))
    if t is None:
        t = collections.namedtuple(cls.__name__ + "_out", cls._fields)
        t.__module__ = cls.__module__
        _OUT_TYPES[(name, cls)] = t
    return t


def write_out(out, result, name, inputs=()):
    """Writes `result` (a tensor, or a tuple / list of tensors) into `out`; returns what the torch function
    returns with out= (out, or the result's tuple type holding the out tensors)."""
    if isinstance(result, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError("%s(): argument 'out' must be tuple of %d Tensors, not %s"
                            % (name, len(result), type(out).__name__))
        for o, r in zip(out, result):
            _write1(o, r, name, inputs)
        if hasattr(result, "_fields"):
            return _out_type(name, type(result))(*out)
        return type(out)(out) if isinstance(result, list) else tuple(out)
    _write1(out, result, name, inputs)
    return out


def with_out(fn, name=None):
    """fn with torch's out= keyword (the decorator every out= function of glia goes through)."""
    name = name or fn.__name__
    factory = name in _FACTORIES
    elementwise = name in _ELEMENTWISE
    compute_in_out = name in _OUT_DTYPE_COMPUTE

    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if (factory or compute_in_out) and kwargs.get("dtype") is None and isinstance(out, Tensor):
            kwargs["dtype"] = out.dtype
        result = fn(*args, **kwargs)
        return write_out(out, result, name, _tensor_inputs(args, kwargs) if elementwise else ())

    f._glia_with_out = True
    return f


# ---- Tensor._version -----------------------------------------------------------------------------

def _version(self):
    v = c_int64()
    check(C.glia_tensor_version(self._h, byref(v)))
    return v.value


Tensor._version = property(_version)


# ---- in-place variants ---------------------------------------------------------------------------

def _grad_enabled():
    return _pkg.is_grad_enabled()


def _assign(self, result, name):
    if not isinstance(result, Tensor):
        raise TypeError("%s: expected a Tensor result" % name)
    check(C.glia_tensor_assign_(self._h, result._h, name.encode()))
    return self


def inplace_of(compute, name):
    """Tensor.<name>: compute(self, ...) out of place, then written into self (glia_tensor_assign_)."""

    def method(self, *args, **kwargs):
        # A node of the result may save self's values (atan2_'s saves both operands): self is
        # cloned whenever a graph is recorded, so that the write leaves what it saved intact.
        recording = _grad_enabled() and (self.requires_grad or any(
            isinstance(x, Tensor) and x.requires_grad for x in list(args) + list(kwargs.values())))
        src = self.clone() if recording else self
        return _assign(self, compute(src, *args, **kwargs), name)

    method.__name__ = method.__qualname__ = name
    return method


def _geometry_of(compute, name):
    def method(self, *args, **kwargs):
        try:
            view = compute(self, *args, **kwargs)  # held while the call runs
        except RuntimeError as e:
            if str(e).startswith("Dimension out of range"):
                raise IndexError(str(e)) from None
            raise
        check(C.glia_tensor_set_geometry_(self._h, view._h, name.encode()))
        return self

    method.__name__ = method.__qualname__ = name
    return method


def _define(cls_or_mod, name, value):
    """Defines name unless glia has it already (an existing C in-place op stays)."""
    if isinstance(cls_or_mod, type):
        if name not in cls_or_mod.__dict__ and not hasattr(cls_or_mod, name):
            setattr(cls_or_mod, name, value)
            return True
        return False
    if not hasattr(cls_or_mod, name):
        setattr(cls_or_mod, name, value)
        return True
    return False


def _fill_diagonal(self, fill_value, wrap=False):
    # torch's fill_diagonal_: every dim the same size (2-D: any), the main diagonal; wrap continues
    # below a tall matrix's square every (cols + 1) rows.
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = list(self.shape)
    if self.dim() > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(shape, dtype=np.bool_)
    flat = mask.reshape(-1)
    if self.dim() == 2:
        rows, cols = shape
        n = builtins.min(rows, cols)
        step = cols + 1
        idx = np.arange(n) * step
        if wrap and rows > cols + 1:
            idx = np.arange(0, rows * cols, step)
        flat[idx] = True
    else:
        step = builtins.sum(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
        flat[np.arange(shape[0]) * step] = True
    return self.masked_fill(_pkg.tensor(mask), fill_value)


_UNARY_INPLACE = ("abs absolute neg negative exp expm1 log log1p sqrt rsqrt sigmoid tanh reciprocal square sign sgn "
                  "deg2rad rad2deg bitwise_not logical_not fix").split()
_BINARY_INPLACE = ("atan2 arctan2 hypot copysign fmod remainder xlogy bitwise_and bitwise_or bitwise_xor "
                   "bitwise_left_shift bitwise_right_shift floor_divide true_divide divide multiply subtract "
                   "logical_and logical_or logical_xor ldexp clamp_min clamp_max eq ne lt le gt ge greater "
                   "greater_equal less less_equal not_equal nextafter heaviside float_power fmax fmin igamma igammac "
                   "logaddexp").split()
_OTHER_INPLACE = ("nan_to_num cumsum cumprod addmm addmv addr addbmm baddbmm lerp renorm index_fill masked_scatter "
                  "index_add index_copy scatter scatter_add index_reduce scatter_reduce put index_put "
                  "polygamma mvlgamma i0 sinc").split()


def _install_inplace():
    # The metadata variants first (they never compute).
    geo = {
        "t_": lambda self: self.t(),
        "transpose_": lambda self, dim0, dim1: self.transpose(dim0, dim1),
        "swapaxes_": lambda self, axis0, axis1: self.transpose(axis0, axis1),
        "swapdims_": lambda self, dim0, dim1: self.transpose(dim0, dim1),
        "squeeze_": lambda self, *dim: self.squeeze(*dim),
        "unsqueeze_": lambda self, dim: self.unsqueeze(dim),
    }
    for n, fn in geo.items():
        _define(Tensor, n, _geometry_of(fn, n))
    for base in _UNARY_INPLACE + _BINARY_INPLACE + _OTHER_INPLACE:
        m = getattr(Tensor, base, None)
        if m is None:
            continue
        _define(Tensor, base + "_", inplace_of(m, base + "_"))
    fill = inplace_of(_fill_diagonal, "fill_diagonal_")

    def fill_diagonal_(self, fill_value, wrap=False):
        if self.requires_grad and self.is_leaf and _grad_enabled():  # torch writes through a view of self
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        return fill(self, fill_value, wrap)

    _define(Tensor, "fill_diagonal_", fill_diagonal_)


# ---- aliases and small names ---------------------------------------------------------------------

def _install_aliases():
    T = Tensor
    for alias, base in (("absolute", "abs"), ("negative", "neg"), ("divide", "div"), ("multiply", "mul"),
                        ("subtract", "sub"), ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                        ("less_equal", "le"), ("not_equal", "ne"), ("swapaxes", "transpose"),
                        ("swapdims", "transpose")):
        if hasattr(T, base):
            _define(T, alias, getattr(T, base))
        if hasattr(_pkg, base):
            _define(_pkg, alias, getattr(_pkg, base))

    _define(_pkg, "concatenate", getattr(_pkg, "cat"))
    _define(_pkg, "row_stack", getattr(_pkg, "vstack"))

    def type_as(self, other):
        return self.to(other.dtype)

    _define(T, "type_as", type_as)
    _define(T, "is_cpu", property(lambda self: self.device.type == "cpu"))
    _define(T, "is_complex", lambda self: False)
    _define(T, "is_signed", lambda self: self.dtype not in (_pkg.uint8, _pkg.bool))

    def is_nonzero(self):
        if self.numel() == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self.numel() > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self.item())

    _define(T, "is_nonzero", is_nonzero)
    _define(T, "is_same_size", lambda self, other: list(self.shape) == list(other.shape))
    for n in ("is_complex", "is_signed", "is_nonzero", "is_same_size", "type_as"):
        _define(_pkg, n, _pkg_method(n))

    def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
        if isinstance(s, Tensor):
            s = s.item()
        t = _pkg.tensor(builtins.float(s) if dtype is None else s, dtype=dtype, device=device)
        return t.requires_grad_(True) if requires_grad else t

    _define(_pkg, "scalar_tensor", scalar_tensor)

    def _promo_operand(x, fn):
        if isinstance(x, Tensor):
            # Same category as x for torch's promotion: 0-dim or dimensioned.
            return _pkg.empty(() if x.dim() == 0 else (0,), dtype=x.dtype)
        if isinstance(x, (builtins.bool, builtins.int, builtins.float)):
            return x
        raise TypeError("%s(): argument must be Tensor or Number, not %s" % (fn, type(x).__name__))

    def result_type(tensor1, tensor2):
        a, b = _promo_operand(tensor1, "result_type"), _promo_operand(tensor2, "result_type")
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            a = _pkg.tensor(a)  # two numbers: as a 0-dim tensor and a number
        return (a + b).dtype if isinstance(a, Tensor) else (b + a).dtype

    def promote_types(type1, type2):
        return _pkg.add(_pkg.empty((0,), dtype=type1), _pkg.empty((0,), dtype=type2)).dtype

    def can_cast(from_, to):
        if from_.is_floating_point and not to.is_floating_point:
            return False
        return not (from_ != _pkg.bool and to == _pkg.bool)

    def get_num_threads():
        return builtins.int(C.glia_get_num_threads())

    def set_num_threads(n):
        if not isinstance(n, builtins.int) or isinstance(n, builtins.bool):
            raise TypeError("set_num_threads(): argument 'int' (position 1) must be int, not %s" % type(n).__name__)
        if n <= 0:
            raise RuntimeError("set_num_threads expects a positive integer")
        check(C.glia_set_num_threads(n))

    for f in (result_type, promote_types, can_cast, get_num_threads, set_num_threads):
        _define(_pkg, f.__name__.rstrip("_"), f)

    # Methods torch also spells differently (unsafe_*: the same results, torch skips a view check).
    _define(T, "adjoint", lambda self: self.transpose(-2, -1))  # real dtypes: no conjugation
    _define(T, "get_device", lambda self: -1 if self.device.type == "cpu" else self.device.index)
    _define(T, "is_distributed", lambda self: False)
    _define(T, "unsafe_chunk", lambda self, chunks, dim=0: self.chunk(chunks, dim))
    _define(T, "unsafe_split", lambda self, split_size, dim=0: self.split(split_size, dim))
    _define(T, "unsafe_split_with_sizes", lambda self, split_sizes, dim=0: self.split(list(split_sizes), dim))
    for n in ("adjoint", "get_device", "is_distributed", "is_inference", "unsafe_chunk", "unsafe_split",
              "unsafe_split_with_sizes"):
        _define(_pkg, n, _pkg_method(n))

    # *_copy: the view ops' results copied (torch's functionalization variants).
    def _copy_of(view):
        def f(input, *args, **kwargs):  # noqa: A002
            r = view(input, *args, **kwargs)
            if isinstance(r, (tuple, list)):
                return type(r)(x.clone() for x in r) if not hasattr(r, "_fields") else type(r)(*(x.clone() for x in r))
            return r.clone()  # torch's *_copy keep the view's strides where dense (clone's preserve_format)
        return f

    for n, view in (("t_copy", lambda x: x.t()), ("transpose_copy", lambda x, d0, d1: x.transpose(d0, d1)),
                    ("permute_copy", lambda x, dims: x.permute(dims)),
                    ("squeeze_copy", lambda x, *dim: x.squeeze(*dim)),
                    ("unsqueeze_copy", lambda x, dim: x.unsqueeze(dim)),
                    ("select_copy", lambda x, dim, index: x.select(dim, index)),
                    ("diagonal_copy", lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2)),
                    ("detach_copy", lambda x: x.detach()), ("alias_copy", lambda x: x),
                    ("expand_copy", lambda x, size, *, implicit=False: x.expand(size)),
                    ("view_copy", lambda x, size: x.view(size)),
                    ("unfold_copy", lambda x, dimension, size, step: x.unfold(dimension, size, step)),
                    ("slice_copy", lambda x, dim=0, start=None, end=None, step=1:
                        x[(slice(None),) * (dim % builtins.max(x.dim(), 1)) + (slice(start, end, step),)]),
                    ("split_copy", lambda x, split_size, dim=0: x.split(split_size, dim)),
                    ("split_with_sizes_copy", lambda x, split_sizes, dim=0: x.split(list(split_sizes), dim)),
                    ("unbind_copy", lambda x, dim=0: x.unbind(dim))):
        _define(_pkg, n, _named(_copy_of(view), n))


def _named(f, n):
    f.__name__ = f.__qualname__ = n
    return f


def _pkg_method(name):
    def f(input, *args, **kwargs):  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s" % (name, type(input).__name__))
        return getattr(input, name)(*args, **kwargs)

    return _named(f, name)


def _install_torch_inplace():
    # torch.X_(input, ...) for the Tensor methods that torch also has as functions.
    for n in ("abs_ addmv_ celu_ clamp_ clamp_max_ clamp_min_ clip_ deg2rad_ detach_ exp_ expm1_ fill_ ldexp_ log1p_ "
              "log_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ rrelu_ rsqrt_ selu_ sigmoid_ sqrt_ square_ "
              "tanh_ threshold_ xlogy_ zero_ index_put_").split():
        if hasattr(Tensor, n):
            _define(_pkg, n, _pkg_method(n))


def _install_nn_inplace():
    # torch.celu_, selu_, threshold_, rrelu_ and the in-place dropouts: torch.nn.functional's forms
    # (glia.nn is imported after this module, hence the late look-up).
    def F():
        from .nn import functional
        return functional

    def celu_(input, alpha=1.0):  # noqa: A002
        return F().celu_(input, alpha)

    def selu_(input):  # noqa: A002
        return F().selu_(input)

    def threshold_(input, threshold, value):  # noqa: A002
        return F().threshold_(input, threshold, value)

    def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
        return F().rrelu_(input, lower, upper, training)

    def dropout_(input, p, train):  # noqa: A002
        return F().dropout(input, p, train, inplace=True)

    def alpha_dropout_(input, p, train):  # noqa: A002
        return F().alpha_dropout(input, p, train, inplace=True)

    def feature_alpha_dropout_(input, p, train):  # noqa: A002
        return F().feature_alpha_dropout(input, p, train, inplace=True)

    for f in (celu_, selu_, threshold_, rrelu_, dropout_, alpha_dropout_, feature_alpha_dropout_):
        _define(_pkg, f.__name__, f)


def _install_out():
    # The binding's modules that define torch functions: the wrapped function replaces the original
    # there too, so that every spelling (glia.special.sinc is glia.sinc) is the same object.
    mods = [m for m in (sys.modules.get(__package__ + "." + x) for x in
                        ("_tensor", "_sortscan", "_aliases", "_tensor_more", "_index_extra", "_special", "_stats",
                         "_random")) if m is not None]
    for n in _OUT_NAMES:
        f = getattr(_pkg, n, None)
        if f is None or not callable(f) or getattr(f, "_glia_with_out", False):
            continue
        w = with_out(f, n)
        setattr(_pkg, n, w)
        for m in mods:
            if getattr(m, n, None) is f:
                setattr(m, n, w)


def _install():
    _install_aliases()
    _install_inplace()
    _install_torch_inplace()
    _install_nn_inplace()
    _install_out()


_install()
