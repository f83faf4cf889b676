"""Random sampling with torch's names (issue 20; glia_bernoulli & co. in glia.h): torch.bernoulli,
multinomial, normal (its four overloads), poisson, and the Tensor methods bernoulli, bernoulli_,
multinomial, uniform_, normal_, cauchy_, exponential_, geometric_, log_normal_, random_. Also the torch
functions of issue 20 that OpInfo and docs/coverage.md listed as missing: gcd, lcm, bincount, vander,
as_strided, as_strided_scatter, gradient, segment_reduce, native_batch_norm, native_layer_norm, histogram,
histogramdd, range, randint_like, empty_strided, frombuffer, asarray and Tensor.is_set_to.

Without ``generator=`` the draws come from glia's generator (glia.manual_seed). With a glia.Generator the
generator draws a 64-bit seed for the call and the values come from that seed's stream alone, so a seeded
Generator reproduces its sequence and does not disturb glia's generator. The values differ from torch's
(another generator); the distributions, dtypes, shapes and errors are torch's."""

import builtins
import collections
import numbers
from ctypes import byref, c_double, c_int64, c_uint64, c_void_p

import numpy as np

from ._ffi import C, check
from ._tensor import Tensor, _arg_error, _handles, _i64, _new, _options, _shape_args

__all__ = ["bernoulli", "multinomial", "normal", "poisson", "gcd", "lcm", "bincount", "vander", "as_strided",
           "as_strided_scatter", "gradient", "segment_reduce", "native_batch_norm", "native_layer_norm",
           "histogram", "histogramdd", "range", "randint_like", "empty_strided", "frombuffer", "asarray"]


def _seed(generator):
    """The seed argument of the C functions: NULL for glia's generator, else a draw of the Generator."""
    if generator is None:
        return None
    rng = getattr(generator, "_rng", None)
    if rng is None:
        raise TypeError("generator must be a glia.Generator, not %s" % type(generator).__name__)
    return byref(c_uint64(rng.getrandbits(64)))


def _check_out(out, op):
    if out is not None:
        raise TypeError("%s(): the out= argument is not supported by glia" % op)


def _t(x, op, arg, pos):
    if not isinstance(x, Tensor):
        raise _arg_error(op, arg, pos, x)
    return x


def _num(x):
    if isinstance(x, Tensor):
        return x.item()
    return x


# ---- functions

def bernoulli(input, p=None, *, generator=None, out=None):  # noqa: A002
    """torch.bernoulli(input): 1 with probability input (input's dtype); bernoulli(input, p): input's shape
    and dtype, 1 with probability p."""
    _check_out(out, "bernoulli")
    x = _t(input, "bernoulli", "input", 1)
    if p is None:
        return _new(C.glia_bernoulli, x._h, _seed(generator))
    return _new(C.glia_bernoulli_scalar, x._h, builtins.float(_num(p)), _seed(generator))


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):  # noqa: A002
    _check_out(out, "multinomial")
    x = _t(input, "multinomial", "input", 1)
    if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, builtins.bool):
        raise TypeError("multinomial(): argument 'num_samples' (position 2) must be int, not %s"
                        % type(num_samples).__name__)
    return _new(C.glia_multinomial, x._h, builtins.int(num_samples), 1 if replacement else 0, _seed(generator))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """torch.normal's overloads: (Tensor mean, Tensor std), (Tensor mean, float std=1), (float mean, Tensor
    std), (float mean, float std, size, dtype=..., device=...)."""
    _check_out(out, "normal")
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if mt and st:
        r = _new(C.glia_normal, mean._h, std._h, _seed(generator))
    elif mt:
        r = _new(C.glia_normal_tensor_scalar, mean._h, builtins.float(std), _seed(generator))
    elif st:
        r = _new(C.glia_normal_scalar_tensor, builtins.float(mean), std._h, _seed(generator))
    else:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected (float mean, float std, tuple of ints size, ...)")
        shape = _shape_args((size,), "normal")
        arr = (c_int64 * builtins.max(len(shape), 1))(*shape)
        opts = _options(dtype, device) if (dtype is not None or device is not None) else None
        r = _new(C.glia_normal_scalar, builtins.float(mean), builtins.float(std), arr, len(shape),
                 None if opts is None else byref(opts), _seed(generator))
    if requires_grad:
        r.requires_grad_(True)
    return r


def poisson(input, generator=None):  # noqa: A002
    x = _t(input, "poisson", "input", 1)
    return _new(C.glia_poisson, x._h, _seed(generator))


# ---- Tensor methods

def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        check(C.glia_bernoulli_(self._h, p._h, _seed(generator)))
    else:
        check(C.glia_bernoulli_scalar_(self._h, builtins.float(p), _seed(generator)))
    return self


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


def _from_to(args, kwargs, names, defaults):
    vals = list(defaults)
    if len(args) > len(names):
        raise TypeError("expected at most %d arguments, got %d" % (len(names), len(args)))
    for i, a in enumerate(args):
        vals[i] = a
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError("got an unexpected keyword argument '%s'" % k)
        vals[names.index(k)] = v
    return [builtins.float(_num(v)) for v in vals]


def _uniform_(self, *args, generator=None, **kwargs):
    a, b = _from_to(args, kwargs, ["from", "to"], [0.0, 1.0])
    check(C.glia_uniform_(self._h, a, b, _seed(generator)))
    return self


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    check(C.glia_normal_(self._h, builtins.float(_num(mean)), builtins.float(_num(std)), _seed(generator)))
    return self


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    check(C.glia_cauchy_(self._h, builtins.float(_num(median)), builtins.float(_num(sigma)), _seed(generator)))
    return self


def _exponential_(self, lambd=1.0, *, generator=None):
    check(C.glia_exponential_(self._h, builtins.float(_num(lambd)), _seed(generator)))
    return self


def _geometric_(self, p, *, generator=None):
    check(C.glia_geometric_(self._h, builtins.float(_num(p)), _seed(generator)))
    return self


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    check(C.glia_log_normal_(self._h, builtins.float(_num(mean)), builtins.float(_num(std)), _seed(generator)))
    return self


def _random_(self, *args, generator=None, **kwargs):
    """random_(), random_(to), random_(from, to=None)."""
    if "from" in kwargs or len(args) == 2:
        vals = list(args) + [None] * (2 - len(args))
        frm = kwargs.pop("from", vals[0])
        to = kwargs.pop("to", vals[1])
    else:
        frm = None
        to = kwargs.pop("to", args[0] if args else None)
    if kwargs:
        raise TypeError("random_() got an unexpected keyword argument '%s'" % next(iter(kwargs)))
    f = None if frm is None else byref(c_int64(builtins.int(_num(frm))))
    t = None if to is None else byref(c_int64(builtins.int(_num(to))))
    check(C.glia_random_(self._h, f, t, _seed(generator)))
    return self


for _n, _f in (("bernoulli", _bernoulli_method), ("bernoulli_", _bernoulli_), ("multinomial", _multinomial_method),
               ("uniform_", _uniform_), ("normal_", _normal_), ("cauchy_", _cauchy_),
               ("exponential_", _exponential_), ("geometric_", _geometric_), ("log_normal_", _log_normal_),
               ("random_", _random_)):
    _f.__name__ = _n
    _f.__qualname__ = "Tensor." + _n
    setattr(Tensor, _n, _f)



# ---- torch functions of issue 20 missing from OpInfo / coverage

def gcd(input, other, *, out=None):  # noqa: A002
    _check_out(out, "gcd")
    return _new(C.glia_gcd, _t(input, "gcd", "input", 1)._h, _t(other, "gcd", "other", 2)._h)


def lcm(input, other, *, out=None):  # noqa: A002
    _check_out(out, "lcm")
    return _new(C.glia_lcm, _t(input, "lcm", "input", 1)._h, _t(other, "lcm", "other", 2)._h)


def _gcd_(self, other):
    check(C.glia_gcd_(self._h, _t(other, "gcd_", "other", 1)._h))
    return self


def _lcm_(self, other):
    check(C.glia_lcm_(self._h, _t(other, "lcm_", "other", 1)._h))
    return self


def bincount(input, weights=None, minlength=0):  # noqa: A002
    x = _t(input, "bincount", "input", 1)
    return _new(C.glia_bincount, x._h, None if weights is None else weights._h, builtins.int(minlength))


def vander(x, N=None, increasing=False):  # noqa: N803
    x = _t(x, "vander", "x", 1)
    n = None if N is None else byref(c_int64(builtins.int(N)))
    return _new(C.glia_vander, x._h, n, 1 if increasing else 0)


def _ints(v, name):
    if isinstance(v, numbers.Integral):
        v = [v]
    return _i64(_shape_args((tuple(v),), name))


def _geometry(size, stride, name):
    sz, nsz = _ints(size, name)
    st, nst = _ints(stride, name)
    if nsz != nst:
        raise RuntimeError("mismatch in length of strides and shape")
    return sz, st, nsz


def as_strided(input, size, stride, storage_offset=None):  # noqa: A002
    x = _t(input, "as_strided", "input", 1)
    sz, st, n = _geometry(size, stride, "as_strided")
    off = None if storage_offset is None else byref(c_int64(builtins.int(storage_offset)))
    return _new(C.glia_as_strided, x._h, sz, st, n, off)


def as_strided_scatter(input, src, size, stride, storage_offset=None):  # noqa: A002
    x = _t(input, "as_strided_scatter", "input", 1)
    s_ = _t(src, "as_strided_scatter", "src", 2)
    sz, st, n = _geometry(size, stride, "as_strided_scatter")
    off = None if storage_offset is None else byref(c_int64(builtins.int(storage_offset)))
    return _new(C.glia_as_strided_scatter, x._h, s_._h, sz, st, n, off)


def _list_result(fn, *args):
    n = c_int64()
    check(fn(*args, None, 0, byref(n)))
    outs = (c_void_p * builtins.max(n.value, 1))()
    check(fn(*args, outs, n.value, byref(n)))
    return tuple(Tensor._wrap(outs[i]) for i in builtins.range(n.value))


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002
    """torch.gradient: a tuple with one tensor per differentiated dim."""
    x = _t(input, "gradient", "input", 1)
    sp, coords = [], []
    if spacing is None:
        pass
    elif isinstance(spacing, (list, tuple)):
        if spacing and all(isinstance(v, Tensor) for v in spacing):
            coords = list(spacing)
        else:
            sp = [builtins.float(_num(v)) for v in spacing]
    elif isinstance(spacing, Tensor) and spacing.dim() > 0:
        coords = [spacing]
    else:
        sp = [builtins.float(_num(spacing))]
    dims = None
    if dim is not None:
        dims = [builtins.int(dim)] if isinstance(dim, numbers.Integral) else [builtins.int(d) for d in dim]
        if len(sp) == 1 and len(dims) > 1:
            sp = sp * len(dims)
    spa = (c_double * builtins.max(len(sp), 1))(*sp)
    ca, nc = _handles(coords)
    da, nd = _i64(dims or [])
    return _list_result(C.glia_gradient, x._h, spa, len(sp), ca, nc, None if dims is None else da, nd,
                        builtins.int(edge_order))


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    x = _t(data, "segment_reduce", "data", 1)
    if indices is not None:
        raise NotImplementedError("segment_reduce(): indices based reduction is not supported yet.")
    init = None if initial is None else byref(c_double(builtins.float(initial)))
    return _new(C.glia_segment_reduce, x._h, str(reduce).encode(), None if lengths is None else lengths._h,
                None if offsets is None else offsets._h, builtins.int(axis), 1 if unsafe else 0, init)


def _h(t):
    return None if t is None else t._h


def _triple(fn, *args):
    a, b, c = c_void_p(), c_void_p(), c_void_p()
    check(fn(*args, byref(a), byref(b), byref(c)))
    return Tensor._wrap(a.value), Tensor._wrap(b.value), Tensor._wrap(c.value)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):  # noqa: A002
    x = _t(input, "native_batch_norm", "input", 1)
    return _triple(C.glia_native_batch_norm, x._h, _h(weight), _h(bias), _h(running_mean), _h(running_var),
                   1 if training else 0, builtins.float(momentum), builtins.float(eps))


def native_layer_norm(input, normalized_shape, weight, bias, eps):  # noqa: A002
    x = _t(input, "native_layer_norm", "input", 1)
    arr, n = _ints(normalized_shape, "native_layer_norm")
    return _triple(C.glia_native_layer_norm, x._h, arr, n, _h(weight), _h(bias), builtins.float(eps))


def _result_type(name, fields):
    base = collections.namedtuple(name, list(fields))

    def __repr__(self):
        body = ",\n".join("%s=%r" % (f, v) for f, v in zip(fields, self))
        return "torch.return_types.%s(\n%s)" % (name, body)

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


_histogram_result = _result_type("histogram", ("hist", "bin_edges"))
_histogramdd_result = _result_type("histogramdd", ("hist", "bin_edges"))


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    _check_out(out, "histogram")
    x = _t(input, "histogram", "input", 1)
    edges = bins if isinstance(bins, Tensor) else None
    nb = 0 if edges is not None else builtins.int(bins)
    rng = None if range is None else (c_double * 2)(*[builtins.float(v) for v in range])
    h, e = c_void_p(), c_void_p()
    check(C.glia_histogram(x._h, nb, _h(edges), rng, _h(weight), 1 if density else 0, byref(h), byref(e)))
    return _histogram_result(Tensor._wrap(h.value), Tensor._wrap(e.value))


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    x = _t(input, "histogramdd", "input", 1)
    d = x.shape[-1] if x.dim() > 0 else 0
    edges, counts = [], []
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        edges = list(bins)
    elif isinstance(bins, numbers.Integral):
        counts = [builtins.int(bins)] * builtins.max(d, 1)
    else:
        counts = [builtins.int(b) for b in bins]
    ba, nb = _i64(counts)
    ea, ne = _handles(edges)
    rv = [] if range is None else [builtins.float(v) for v in range]
    ra = (c_double * builtins.max(len(rv), 1))(*rv)
    hist = c_void_p()
    n = c_int64()
    args = (x._h, ba, nb, ea, ne, ra if rv else None, len(rv), _h(weight), 1 if density else 0)
    check(C.glia_histogramdd(*args, byref(hist), None, 0, byref(n)))
    Tensor._wrap(hist.value)  # released with the wrapper
    outs = (c_void_p * builtins.max(n.value, 1))()
    check(C.glia_histogramdd(*args, byref(hist), outs, n.value, byref(n)))
    edges = tuple(Tensor._wrap(outs[i]) for i in builtins.range(n.value))
    return _histogramdd_result(Tensor._wrap(hist.value), edges)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False):
    """torch.range (deprecated in torch): start, start + step, ... up to end inclusive; float32 by default."""
    from ._tensor import float32, tensor as mk

    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = builtins.int((end - start) / step) + 1
    vals = [start + i * step for i in builtins.range(n)]
    t = mk(vals, dtype=float32 if dtype is None else dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,  # noqa: A002
                 memory_format=None):
    """torch.randint_like(input, high) or (input, low, high): input's shape and dtype."""
    from ._tensor import randint

    if high is None:
        low, high = 0, low
    return randint(builtins.int(low), builtins.int(high), tuple(input.shape),
                   dtype=input.dtype if dtype is None else dtype,
                   device=input.device if device is None else device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """torch.empty_strided: a tensor with that geometry over new (uninitialised) memory."""
    from ._tensor import empty

    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    extent = 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride)) if all(s > 0 for s in size) else 0
    base = empty(extent, dtype=dtype, device=device)
    t = as_strided(base, size, stride, 0).detach()
    if requires_grad:
        t.requires_grad_(True)
    return t


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer: a 1-D tensor over the bytes of a Python buffer (copied: glia's tensors own their
    memory here; torch shares it)."""
    from ._tensor import _NP_TO_DTYPE, from_numpy

    npd = {v: k for k, v in _NP_TO_DTYPE.items()}.get(dtype)
    if npd is None:
        raise TypeError("frombuffer: dtype %s has no buffer layout in glia" % (dtype,))
    a = np.frombuffer(buffer, dtype=npd, count=count, offset=offset)
    t = from_numpy(a.copy())
    if requires_grad:
        t.requires_grad_(True)
    return t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    from ._tensor import as_tensor

    t = as_tensor(obj, dtype=dtype, device=device)
    if copy:
        t = t.clone()
    if requires_grad:
        t.requires_grad_(True)
    return t


def _is_set_to(self, tensor):
    """Tensor.is_set_to: the same storage, offset, sizes and strides."""
    def base(t):
        return t.data_ptr() - t.storage_offset() * t.element_size()

    return (self.dtype == tensor.dtype and self.device == tensor.device and base(self) == base(tensor)
            and self.storage_offset() == tensor.storage_offset() and tuple(self.shape) == tuple(tensor.shape)
            and tuple(self.stride()) == tuple(tensor.stride()))


def _method(name, fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    m.__name__ = name
    m.__qualname__ = "Tensor." + name
    return m


for _n, _f in (("gcd", gcd), ("lcm", lcm), ("bincount", bincount), ("as_strided", as_strided),
               ("as_strided_scatter", as_strided_scatter), ("histogram", histogram)):
    setattr(Tensor, _n, _method(_n, _f))
for _n, _f in (("gcd_", _gcd_), ("lcm_", _lcm_), ("is_set_to", _is_set_to)):
    _f.__name__ = _n
    _f.__qualname__ = "Tensor." + _n
    setattr(Tensor, _n, _f)
