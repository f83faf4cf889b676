"""The index and scatter family (issue 20): torch's index_add, index_copy, index_fill, scatter_reduce,
index_reduce, masked_scatter, put, index_put, nonzero, argwhere, diagonal_scatter, select_scatter, slice_scatter,
narrow_copy and split_with_sizes, as functions and Tensor methods with the in-place `_` forms torch has
(computed out of place, then copied in)."""

import builtins
import numbers

import numpy as np

from ._ffi import C
from ._tensor import Tensor, _arg_error, _handles, _i64, _new, _scalar

__all__ = ["index_add", "index_copy", "index_fill", "scatter_reduce", "index_reduce", "masked_scatter", "put", "index_put",
           "nonzero", "argwhere", "diagonal_scatter", "select_scatter", "slice_scatter", "narrow_copy",
           "split_with_sizes"]

_INT64_MAX = (1 << 63) - 1


# pos: the argument's 0-based place in torch.<op>(input, ...); messages count from 1 as torch's functions do.
def _tensor_arg(op, name, pos, v):
    if not isinstance(v, Tensor):
        raise _arg_error(op, name, pos + 1, v)
    return v


def _int_arg(op, name, pos, v):
    if isinstance(v, Tensor) and v.numel() == 1:
        v = v.item()
    if not isinstance(v, (numbers.Integral, np.integer)) or isinstance(v, builtins.bool):
        raise _arg_error(op, name, pos + 1, v, "int")
    return builtins.int(v)


def _number(op, name, pos, v):
    if isinstance(v, Tensor):
        if v.dim() != 0:
            raise RuntimeError("%s_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s)."
                               % (op, v.dim()))
        v = v.item()
    if not isinstance(v, (numbers.Number, np.number, np.bool_)):
        raise _arg_error(op, name, pos + 1, v, "Number")
    return v


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    _tensor_arg("index_add", "input", 0, input)
    return _new(C.glia_index_add, input._h, _int_arg("index_add", "dim", 1, dim),
                _tensor_arg("index_add", "index", 2, index)._h, _tensor_arg("index_add", "source", 3, source)._h,
                _scalar(_number("index_add", "alpha", 4, alpha)))


def index_copy(input, dim, index, source):  # noqa: A002
    _tensor_arg("index_copy", "input", 0, input)
    return _new(C.glia_index_copy, input._h, _int_arg("index_copy", "dim", 1, dim),
                _tensor_arg("index_copy", "index", 2, index)._h, _tensor_arg("index_copy", "source", 3, source)._h)


def index_fill(input, dim, index, value):  # noqa: A002
    _tensor_arg("index_fill", "input", 0, input)
    return _new(C.glia_index_fill, input._h, _int_arg("index_fill", "dim", 1, dim),
                _tensor_arg("index_fill", "index", 2, index)._h, _scalar(_number("index_fill", "value", 3, value)))


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    _tensor_arg("scatter_reduce", "input", 0, input)
    if not isinstance(reduce, str):
        raise _arg_error("scatter_reduce", "reduce", 5, reduce, "str")
    return _new(C.glia_scatter_reduce, input._h, _int_arg("scatter_reduce", "dim", 1, dim),
                _tensor_arg("scatter_reduce", "index", 2, index)._h, _tensor_arg("scatter_reduce", "src", 3, src)._h,
                reduce.encode(), 1 if include_self else 0)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):  # noqa: A002
    _tensor_arg("index_reduce", "input", 0, input)
    if not isinstance(reduce, str):
        raise _arg_error("index_reduce", "reduce", 5, reduce, "str")
    return _new(C.glia_index_reduce, input._h, _int_arg("index_reduce", "dim", 1, dim),
                _tensor_arg("index_reduce", "index", 2, index)._h,
                _tensor_arg("index_reduce", "source", 3, source)._h, reduce.encode(), 1 if include_self else 0)


def masked_scatter(input, mask, source):  # noqa: A002
    _tensor_arg("masked_scatter", "input", 0, input)
    return _new(C.glia_masked_scatter, input._h, _tensor_arg("masked_scatter", "mask", 1, mask)._h,
                _tensor_arg("masked_scatter", "source", 2, source)._h)


def put(input, index, source, accumulate=False):  # noqa: A002
    _tensor_arg("put", "input", 0, input)
    return _new(C.glia_put, input._h, _tensor_arg("put", "index", 1, index)._h,
                _tensor_arg("put", "source", 2, source)._h, 1 if accumulate else 0)


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    _tensor_arg("index_put", "input", 0, input)
    if not isinstance(indices, (tuple, list)):
        raise _arg_error("index_put", "indices", 2, indices, "tuple of Tensors")
    for i in indices:
        if not isinstance(i, Tensor):
            raise TypeError("index_put(): argument 'indices' must be tuple of Tensors, not %s" % type(i).__name__)
    arr, n = _handles(indices)
    return _new(C.glia_index_put, input._h, arr, n, _tensor_arg("index_put", "values", 2, values)._h,
                1 if accumulate else 0)


def nonzero(input, *, as_tuple=False):  # noqa: A002
    _tensor_arg("nonzero", "input", 0, input)
    r = _new(C.glia_nonzero, input._h)
    if not as_tuple:
        return r
    if input.dim() == 0:  # torch: one index tensor for a 0-dim input
        return (r.new_zeros((r.shape[0],)),)
    return tuple(r.select(1, d) for d in range(input.dim()))


def argwhere(input):  # noqa: A002
    _tensor_arg("argwhere", "input", 0, input)
    return _new(C.glia_nonzero, input._h)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    _tensor_arg("diagonal_scatter", "input", 0, input)
    return _new(C.glia_diagonal_scatter, input._h, _tensor_arg("diagonal_scatter", "src", 1, src)._h,
                _int_arg("diagonal_scatter", "offset", 2, offset), _int_arg("diagonal_scatter", "dim1", 3, dim1),
                _int_arg("diagonal_scatter", "dim2", 4, dim2))


def select_scatter(input, src, dim, index):  # noqa: A002
    _tensor_arg("select_scatter", "input", 0, input)
    return _new(C.glia_select_scatter, input._h, _tensor_arg("select_scatter", "src", 1, src)._h,
                _int_arg("select_scatter", "dim", 2, dim), _int_arg("select_scatter", "index", 3, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    _tensor_arg("slice_scatter", "input", 0, input)
    return _new(C.glia_slice_scatter, input._h, _tensor_arg("slice_scatter", "src", 1, src)._h,
                _int_arg("slice_scatter", "dim", 2, dim), 0 if start is None else _int_arg("slice_scatter", "start", 3,
                                                                                            start),
                _INT64_MAX if end is None else _int_arg("slice_scatter", "end", 4, end),
                _int_arg("slice_scatter", "step", 5, step))


def narrow_copy(input, dim, start, length):  # noqa: A002
    _tensor_arg("narrow_copy", "input", 0, input)
    return input.narrow(dim, start, length).clone()


def split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    _tensor_arg("split_with_sizes", "input", 0, input)
    if not isinstance(split_sizes, (tuple, list)):
        raise _arg_error("split_with_sizes", "split_sizes", 2, split_sizes, "tuple of ints")
    arr, k = _i64(split_sizes)
    return input._multi(C.glia_split_with_sizes, arr, k, _int_arg("split_with_sizes", "dim", 2, dim))


def _inplace(fn):
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))

    return method


def _masked_scatter_(self, mask, source):
    # In place, self keeps its shape: the mask broadcasts to it (torch's masked_scatter_).
    return self.copy_(masked_scatter(self, mask.expand_as(self), source))


for _f in (index_add, index_copy, index_fill, scatter_reduce, index_reduce, masked_scatter, put, index_put, nonzero, argwhere,
           diagonal_scatter, select_scatter, slice_scatter, narrow_copy, split_with_sizes):
    setattr(Tensor, _f.__name__, _f)
for _f in (index_add, index_copy, index_fill, scatter_reduce, index_reduce, put, index_put):
    _m = _inplace(_f)
    _m.__name__ = _f.__name__ + "_"
    _m.__qualname__ = "Tensor." + _m.__name__
    setattr(Tensor, _m.__name__, _m)
Tensor.masked_scatter_ = _masked_scatter_
del _f, _m
