#!/usr/bin/python3
"""Golden fixtures of the index and scatter family (issue 20): index_add, index_copy, index_fill,
scatter_reduce, masked_scatter, put, index_put, nonzero, diagonal_scatter, select_scatter, slice_scatter
-> ops/index_extra.json. Format: see golden.py. One case per line; append new cases at the end.

Index tensors are inputs (int64; no gradient). index_put's inputs are [a, values, index0, index1, ...].

    cd tests/golden && /usr/bin/python3 gen_index_extra.py
"""

import json
import os
import warnings

import torch

from golden import OUT, Fixture, T, rnd, smooth

warnings.filterwarnings("ignore")  # scatter_reduce() is in beta

f64, f32 = "float64", "float32"
SH, DT, IA = "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE", "GLIA_ERR_INVALID_ARGUMENT"
NAN = float("nan")


def L(*v):
    return torch.tensor(list(v), dtype=torch.int64)


OPS = {
    "index_add": lambda xs, a: torch.index_add(xs[0], a["dim"], xs[1], xs[2], alpha=a.get("alpha", 1)),
    "index_copy": lambda xs, a: torch.index_copy(xs[0], a["dim"], xs[1], xs[2]),
    # a NaN value is the string "nan" in the fixture (JSON has no NaN)
    "index_fill": lambda xs, a: torch.index_fill(xs[0], a["dim"], xs[1],
                                                 float(a["value"]) if isinstance(a["value"], str) else a["value"]),
    "scatter_reduce": lambda xs, a: torch.scatter_reduce(xs[0], a["dim"], xs[1], xs[2], a["reduce"],
                                                         include_self=a.get("include_self", True)),
    "masked_scatter": lambda xs, a: torch.masked_scatter(xs[0], xs[1], xs[2]),
    "put": lambda xs, a: torch.put(xs[0], xs[1], xs[2], accumulate=a.get("accumulate", False)),
    "index_put": lambda xs, a: torch.index_put(xs[0], tuple(xs[2:]), xs[1], accumulate=a.get("accumulate", False)),
    "nonzero": lambda xs, a: torch.nonzero(xs[0]),
    "index_reduce": lambda xs, a: torch.index_reduce(xs[0], a["dim"], xs[1], xs[2], a["reduce"],
                                                     include_self=a.get("include_self", True)),
    "diagonal_scatter": lambda xs, a: torch.diagonal_scatter(xs[0], xs[1], a.get("offset", 0), a.get("dim1", 0),
                                                             a.get("dim2", 1)),
    "select_scatter": lambda xs, a: torch.select_scatter(xs[0], xs[1], a["dim"], a["index"]),
    "slice_scatter": lambda xs, a: torch.slice_scatter(xs[0], xs[1], a["dim"], a["start"], a["end"], a["step"]),
}
DIFF = [k for k in OPS if k != "nonzero"]


class LineFixture(Fixture):
    """golden.py's Fixture writing one case (and one error) per line."""

    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(OUT, filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n], "errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def build():
    fx = LineFixture(OPS, DIFF)
    s = smooth
    c, e = fx.case, fx.error

    c("index_add f64 dim 0", "index_add", [s([5, 3]), L(0, 4, 2), s([3, 3])], dim=0)
    c("index_add dim 1 alpha", "index_add", [s([3, 5]), L(4, 0, 4, 1), s([3, 4])], dim=1, alpha=-1.5)
    c("index_add transposed", "index_add", [T(s([4, 3])), L(1, 1), T(s([2, 3]))], dim=0, alpha=2.0)
    c("index_add 0-dim", "index_add", [s([]), L(0), s([])], dim=0, alpha=2.0)
    c("index_add 1-D", "index_add", [s([1]), L(0), s([1])], dim=0, alpha=0.0)
    c("index_add 0-dim index", "index_add", [s([4]), torch.tensor(2), s([1])], dim=-1)
    c("index_add empty index", "index_add", [s([3, 2]), L(), s([0, 2])], dim=0)
    c("index_add f32", "index_add", [rnd([4, 3], f32), L(3, 0), rnd([2, 3], f32)], dim=0, alpha=0.5)
    c("index_add int64", "index_add", [rnd([3, 4], "int64"), L(1, 2, 1), rnd([3, 3], "int64")], dim=1, alpha=3)
    e("index_add index 2-D", "index_add", [rnd([3, 4], f32), L(0, 2).view(2, 1), rnd([3, 2], f32)], IA, dim=1)
    e("index_add index float", "index_add", [rnd([3, 4], f32), torch.tensor([0.0, 2.0]), rnd([3, 2], f32)], DT,
      dim=1)
    e("index_add dtype", "index_add", [rnd([3, 4], f32), L(0, 2), rnd([3, 2], f64)], DT, dim=1)
    e("index_add count", "index_add", [rnd([3, 4], f32), L(0, 2), rnd([3, 3], f32)], IA, dim=1)
    e("index_add source dim", "index_add", [rnd([3, 4], f32), L(0, 2), rnd([2], f32)], IA, dim=1)
    e("index_add bounds", "index_add", [rnd([3, 4], f32), L(0, 4), rnd([3, 2], f32)], IA, dim=1)
    e("index_add negative", "index_add", [rnd([3, 4], f32), L(0, -1), rnd([3, 2], f32)], IA, dim=1)
    e("index_add dim", "index_add", [rnd([3, 4], f32), L(0, 2), rnd([3, 2], f32)], IA, dim=2)
    e("index_add slice shape", "index_add", [rnd([3, 4], f32), L(0, 2), rnd([2, 2], f32)], SH, message=False, dim=1)

    c("index_copy f64 dim 0", "index_copy", [s([5, 3]), L(4, 0, 2), s([3, 3])], dim=0)
    c("index_copy dim 1", "index_copy", [s([3, 5]), L(3, 4, 0, 2, 1), s([3, 5])], dim=1)
    c("index_copy transposed", "index_copy", [T(s([4, 3])), L(2, 0), T(s([2, 3]))], dim=-2)
    c("index_copy 0-dim", "index_copy", [s([]), L(0), s([])], dim=0)
    c("index_copy 1-D", "index_copy", [s([1]), L(0), s([1])], dim=0)
    c("index_copy empty", "index_copy", [s([3, 2]), L(), s([0, 2])], dim=0)
    c("index_copy f32", "index_copy", [rnd([4, 3], f32), L(3, 1), rnd([2, 3], f32)], dim=0)
    c("index_copy int64", "index_copy", [rnd([3, 4], "int64"), L(1, 3), rnd([3, 2], "int64")], dim=1)
    e("index_copy count", "index_copy", [rnd([3, 4], f32), L(0, 2), rnd([3, 3], f32)], IA, dim=1)
    e("index_copy index float", "index_copy", [rnd([3, 4], f32), torch.tensor([0.0, 2.0]), rnd([3, 2], f32)], DT,
      dim=1)
    e("index_copy index 2-D", "index_copy", [rnd([3, 4], f32), L(0, 2).view(2, 1), rnd([3, 2], f32)], IA, dim=1)
    e("index_copy dtype", "index_copy", [rnd([3, 4], f32), L(0, 2), rnd([3, 2], f64)], DT, dim=1)
    e("index_copy bounds", "index_copy", [rnd([3, 4], f32), L(0, 5), rnd([3, 2], f32)], IA, dim=1)
    e("index_copy negative", "index_copy", [rnd([3, 4], f32), L(0, -1), rnd([3, 2], f32)], IA, dim=1)
    e("index_copy slice shape", "index_copy", [rnd([3, 4], f32), L(0, 2), rnd([2, 2], f32)], SH, dim=1)
    e("index_copy dims", "index_copy", [rnd([3, 4], f32), L(0, 2), rnd([3, 2, 1], f32)], IA, dim=1)

    c("index_fill f64", "index_fill", [s([5, 5]), L(2, 0, 2, 0, 2)], dim=1, value=-4.25)
    c("index_fill negative index", "index_fill", [s([3, 2]), L(0, -1)], dim=0, value=2.0)
    c("index_fill transposed", "index_fill", [T(s([4, 3])), L(1)], dim=0, value=1.5)
    c("index_fill 0-dim", "index_fill", [s([]), L(0)], dim=0, value=8.5)
    c("index_fill 0-dim index", "index_fill", [s([3]), torch.tensor(1)], dim=0, value=2.0)
    c("index_fill empty", "index_fill", [s([0, 3]), L(1)], dim=1, value=2.0)
    c("index_fill f32 nan", "index_fill", [rnd([2, 3], f32), L(2)], dim=1, value="nan")
    c("index_fill int64", "index_fill", [rnd([3, 4], "int64"), L(3, 0)], dim=1, value=7)
    e("index_fill index float", "index_fill", [rnd([3, 4], f32), torch.tensor([0.0])], DT, dim=1, value=1.0)
    e("index_fill index 2-D", "index_fill", [rnd([3, 4], f32), L(0, 2).view(2, 1)], IA, dim=1, value=1.0)
    e("index_fill bounds", "index_fill", [rnd([3, 4], f32), L(0, 5)], IA, dim=1, value=1.0)
    e("index_fill negative bounds", "index_fill", [rnd([3, 4], f32), L(0, -5)], IA, dim=1, value=1.0)
    e("index_fill dim", "index_fill", [rnd([3, 4], f32), L(0)], IA, dim=2, value=1.0)

    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            c("scatter_reduce %s include_self=%s dim 0" % (red, inc), "scatter_reduce",
              [s([4, 3]), rnd([5, 3], "int64", 0, 4), s([5, 3])], dim=0, reduce=red, include_self=inc)
            c("scatter_reduce %s include_self=%s dim 1" % (red, inc), "scatter_reduce",
              [s([3, 4]), rnd([3, 5], "int64", 0, 4), s([3, 5])], dim=1, reduce=red, include_self=inc)
        c("scatter_reduce %s f32" % red, "scatter_reduce", [rnd([4, 3], f32), rnd([5, 3], "int64", 0, 4),
                                                           rnd([5, 3], f32)], dim=0, reduce=red, include_self=False)
        c("scatter_reduce %s int64" % red, "scatter_reduce", [rnd([4, 3], "int64"), rnd([5, 3], "int64", 0, 4),
                                                             rnd([5, 3], "int64")], dim=0, reduce=red)
        c("scatter_reduce %s 0-dim" % red, "scatter_reduce", [s([]), torch.tensor(0), s([])], dim=0, reduce=red)
        c("scatter_reduce %s empty index" % red, "scatter_reduce", [s([3, 2]), L().view(0, 2), s([0, 2])], dim=0,
          reduce=red)
        c("scatter_reduce %s transposed" % red, "scatter_reduce", [T(s([3, 4])), rnd([2, 3], "int64", 0, 3),
                                                                  T(s([2, 3]))], dim=0, reduce=red)
    # ties (amax / amin: the gradient split evenly) and zeros (prod: one zero, two zeros in a slot)
    tie_self = torch.tensor([[1.0, 2.0], [3.0, 0.5]], dtype=torch.float64)
    tie_src = torch.tensor([[1.0, 2.0], [3.0, 2.0], [1.0, 0.5]], dtype=torch.float64)
    tie_idx = L(0, 0, 1, 0, 0, 1).view(3, 2)
    c("scatter_reduce amax ties", "scatter_reduce", [tie_self, tie_idx, tie_src], dim=0, reduce="amax",
      gradcheck=False)
    c("scatter_reduce amin ties", "scatter_reduce", [tie_self, tie_idx, tie_src], dim=0, reduce="amin",
      gradcheck=False)
    zero_self = torch.tensor([[2.0, 0.0], [1.5, 3.0]], dtype=torch.float64)
    zero_src = torch.tensor([[0.0, 2.0], [3.0, 0.0], [1.0, 0.0]], dtype=torch.float64)
    c("scatter_reduce prod zeros", "scatter_reduce", [zero_self, tie_idx, zero_src], dim=0, reduce="prod",
      gradcheck=False)
    c("scatter_reduce prod zeros include_self=False", "scatter_reduce", [zero_self, tie_idx, zero_src], dim=0,
      reduce="prod", include_self=False, gradcheck=False)
    c("scatter_reduce amax nan", "scatter_reduce", [rnd([3], f32), L(0, 1, 0), torch.tensor([NAN, 1.0, 2.0])],
      dim=0, reduce="amax")
    e("scatter_reduce reduce", "scatter_reduce", [rnd([3, 4], f32), L(0).view(1, 1), rnd([3, 4], f32)], IA, dim=0,
      reduce="foo")
    e("scatter_reduce bounds", "scatter_reduce", [rnd([3, 4], f32), L(5).view(1, 1), rnd([3, 4], f32)], IA, dim=0,
      reduce="sum")
    e("scatter_reduce negative", "scatter_reduce", [rnd([3, 4], f32), L(-1).view(1, 1), rnd([3, 4], f32)], IA,
      dim=0, reduce="amax")
    e("scatter_reduce dtype", "scatter_reduce", [rnd([3, 4], f32), L(0).view(1, 1), rnd([3, 4], f64)], DT, dim=0,
      reduce="sum")
    e("scatter_reduce index dtype", "scatter_reduce", [rnd([3, 4], f32), torch.tensor([[0]], dtype=torch.int32),
                                                       rnd([3, 4], f32)], DT, dim=0, reduce="sum")
    e("scatter_reduce index dims", "scatter_reduce", [rnd([3, 4], f32), L(0), rnd([3, 4], f32)], IA, dim=0,
      reduce="sum")

    m55 = rnd([5, 5], "bool")
    c("masked_scatter f64", "masked_scatter", [s([5, 5]), m55, s([5, 5])])
    c("masked_scatter broadcast mask", "masked_scatter", [s([5, 5]), torch.tensor([False, True, True, True, False]),
                                                          s([5, 5])])
    c("masked_scatter 0-dim mask", "masked_scatter", [s([5, 5]), torch.tensor(False), s([5, 5])])
    c("masked_scatter broadcast self", "masked_scatter", [s([5]), rnd([5, 5], "bool"), s([5, 5])])
    c("masked_scatter transposed", "masked_scatter", [T(s([3, 4])), rnd([3, 4], "bool"), s([13])])
    c("masked_scatter 0-dim", "masked_scatter", [s([]), torch.tensor(True), s([2])])
    c("masked_scatter empty", "masked_scatter", [s([0, 3]), rnd([0, 3], "bool"), s([2])])
    c("masked_scatter f32", "masked_scatter", [rnd([3, 4], f32), rnd([3, 4], "bool"), rnd([12], f32)])
    c("masked_scatter int64", "masked_scatter", [rnd([3, 4], "int64"), rnd([3, 4], "bool"), rnd([12], "int64")])
    e("masked_scatter source short", "masked_scatter", [rnd([3, 4], f32), torch.ones(3, 4, dtype=torch.bool),
                                                        rnd([5], f32)], IA)
    e("masked_scatter dtype", "masked_scatter", [rnd([3, 4], f32), rnd([3, 4], "bool"), rnd([12], f64)], DT)
    e("masked_scatter shapes", "masked_scatter", [rnd([3, 4], f32), rnd([2, 4], "bool"), rnd([12], f32)], SH)

    for acc in (False, True):
        c("put f64 accumulate=%s" % acc, "put", [s([3, 3]), L(1, 3, 5), s([3])], accumulate=acc)
        c("put negative accumulate=%s" % acc, "put", [s([3, 3]), L(-2, -4, -6), s([3])], accumulate=acc)
        c("put duplicates accumulate=%s" % acc, "put", [s([2, 3]), L(4, 4, 0).view(3, 1), s([3, 1])],
          accumulate=acc, grads=acc)
        c("put 0-dim accumulate=%s" % acc, "put", [s([]), torch.tensor(0), s([])], accumulate=acc)
    c("put transposed", "put", [T(s([3, 4])), L(0, 11, 5).view(1, 3), s([1, 3])])
    c("put empty index", "put", [s([2, 2]), L(), s([0])])
    c("put f32", "put", [rnd([3, 4], f32), L(7, 2), rnd([2], f32)], accumulate=True)
    c("put int64", "put", [rnd([3, 4], "int64"), L(7, 2), rnd([2], "int64")])
    e("put bounds", "put", [rnd([3, 4], f32), L(12), rnd([1], f32)], IA)
    e("put negative bounds", "put", [rnd([3, 4], f32), L(-13), rnd([1], f32)], IA)
    e("put count", "put", [rnd([3, 4], f32), L(1, 2), rnd([1], f32)], IA)
    e("put index dtype", "put", [rnd([3, 4], f32), torch.tensor([1], dtype=torch.int32), rnd([1], f32)], DT)
    e("put dtype", "put", [rnd([3, 4], f32), L(1), rnd([1], f64)], DT)
    e("put empty self", "put", [rnd([0], f32), L(0), rnd([1], f32)], IA)

    for acc in (False, True):
        c("index_put rows accumulate=%s" % acc, "index_put", [s([5, 5]), s([2, 5]), L(4, 2)], accumulate=acc)
        c("index_put mask accumulate=%s" % acc, "index_put",
          [s([5, 5]), s([5]), torch.tensor([False, False, False, True, True])], accumulate=acc)
        c("index_put duplicates accumulate=%s" % acc, "index_put", [s([5, 5]), s([2, 5]), L(0, 0)],
          accumulate=acc, grads=acc)
        c("index_put two indices accumulate=%s" % acc, "index_put", [s([4, 3, 2]), s([2]), L(3, 0).view(2, 1),
                                                                     L(2, -1)], accumulate=acc, grads=acc)
    c("index_put empty mask", "index_put", [s([5, 5]), s([5]), torch.zeros(5, dtype=torch.bool)], accumulate=True)
    c("index_put 2-D mask", "index_put", [s([3, 4]), s([]), rnd([3, 4], "bool")])
    c("index_put scalar value", "index_put", [s([4, 3]), s([]), L(1, 3)], accumulate=True)
    c("index_put transposed", "index_put", [T(s([4, 3])), s([3]), L(2)])
    c("index_put f32", "index_put", [rnd([4, 3], f32), rnd([2, 3], f32), L(0, 2)])
    c("index_put int64", "index_put", [rnd([4, 3], "int64"), rnd([2, 3], "int64"), L(0, 2)], accumulate=True)
    e("index_put bounds", "index_put", [rnd([5, 5], f32), rnd([5], f32), L(5)], IA)
    e("index_put second bounds", "index_put", [rnd([5, 5], f32), rnd([1], f32), L(0), L(-6)], IA)
    e("index_put mask shape", "index_put", [rnd([5, 5], f32), rnd([5], f32), torch.tensor([True, False])], IA)
    e("index_put index dtype", "index_put", [rnd([5, 5], f32), rnd([5], f32), torch.tensor([0.0])], DT)
    e("index_put values shape", "index_put", [rnd([5, 5], f32), rnd([3], f32), L(0, 1)], SH)
    e("index_put dtype", "index_put", [rnd([5, 5], f32), rnd([5], f64), L(0, 1)], DT)
    e("index_put broadcast", "index_put", [rnd([5, 5], f32), rnd([1], f32), L(0, 1), L(0, 1, 2)], IA)
    e("index_put too many", "index_put", [rnd([5, 5], f32), rnd([1], f32), L(0, 1), L(0, 1), L(0, 1)], IA)

    c("nonzero f32", "nonzero", [torch.tensor([[0.0, 1.0], [NAN, 0.0]])])
    c("nonzero 3-D", "nonzero", [rnd([3, 2, 4], "int64", -1, 2)])
    c("nonzero transposed", "nonzero", [T(rnd([3, 4], f64, -1, 2))])
    c("nonzero bool", "nonzero", [rnd([7], "bool")])
    c("nonzero 0-dim zero", "nonzero", [torch.tensor(0.0)])
    c("nonzero 0-dim", "nonzero", [torch.tensor(2.0)])
    c("nonzero empty", "nonzero", [torch.zeros(5, 0)])
    c("nonzero none", "nonzero", [torch.zeros(2, 3)])

    c("diagonal_scatter f64", "diagonal_scatter", [s([3, 5]), s([3])])
    c("diagonal_scatter offset 2", "diagonal_scatter", [s([3, 5]), s([3])], offset=2)
    c("diagonal_scatter offset -2", "diagonal_scatter", [s([3, 5]), s([1])], offset=-2)
    c("diagonal_scatter dims", "diagonal_scatter", [s([2, 3, 4]), s([4, 1])], offset=1, dim1=1, dim2=0)
    c("diagonal_scatter transposed", "diagonal_scatter", [T(s([5, 3])), s([2])], offset=1)
    c("diagonal_scatter empty", "diagonal_scatter", [s([3, 2]), s([0])], offset=3)
    c("diagonal_scatter f32", "diagonal_scatter", [rnd([4, 4], f32), rnd([4], f32)])
    c("diagonal_scatter int64", "diagonal_scatter", [rnd([4, 4], "int64"), rnd([3], "int64")], offset=-1)
    e("diagonal_scatter shape", "diagonal_scatter", [rnd([3, 4], f32), rnd([2], f32)], SH)
    e("diagonal_scatter 1-D", "diagonal_scatter", [rnd([3], f32), rnd([1], f32)], IA, message=False)

    c("select_scatter f64", "select_scatter", [s([5]), s([])], dim=0, index=2)
    c("select_scatter 2-D", "select_scatter", [s([3, 4]), s([3])], dim=1, index=-1)
    c("select_scatter transposed", "select_scatter", [T(s([4, 3])), s([3])], dim=0, index=1)
    c("select_scatter empty", "select_scatter", [s([2, 0]), s([0])], dim=0, index=1)
    c("select_scatter f32", "select_scatter", [rnd([3, 4], f32), rnd([4], f32)], dim=0, index=0)
    c("select_scatter int64", "select_scatter", [rnd([3, 4], "int64"), rnd([3], "int64")], dim=1, index=2)
    e("select_scatter shape", "select_scatter", [rnd([3, 4], f32), rnd([3], f32)], SH, dim=0, index=1)
    e("select_scatter index", "select_scatter", [rnd([3, 4], f32), rnd([4], f32)], IA, dim=0, index=5)

    c("slice_scatter f64", "slice_scatter", [s([3, 4]), s([2, 4])], dim=0, start=0, end=2, step=1)
    c("slice_scatter step", "slice_scatter", [s([3, 4]), s([3, 2])], dim=1, start=0, end=4, step=2)
    c("slice_scatter negative", "slice_scatter", [s([5, 2]), s([2, 2])], dim=0, start=-3, end=-1, step=1)
    c("slice_scatter transposed", "slice_scatter", [T(s([4, 3])), s([1, 3])], dim=0, start=3, end=10, step=1)
    c("slice_scatter empty", "slice_scatter", [s([3, 2]), s([0, 2])], dim=0, start=2, end=1, step=1)
    c("slice_scatter f32", "slice_scatter", [rnd([3, 4], f32), rnd([3, 1], f32)], dim=1, start=1, end=2, step=1)
    c("slice_scatter int64", "slice_scatter", [rnd([6], "int64"), rnd([2], "int64")], dim=0, start=1, end=6, step=3)
    e("slice_scatter shape", "slice_scatter", [rnd([3, 4], f32), rnd([2, 4], f32)], SH, message=False, dim=0,
      start=0, end=3, step=1)

    for red in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            c("index_reduce %s include_self=%s" % (red, inc), "index_reduce", [s([4, 3]), L(3, 0, 3, 1, 0),
                                                                                 s([5, 3])], dim=0, reduce=red,
              include_self=inc)
        c("index_reduce %s dim 1" % red, "index_reduce", [s([3, 4]), L(2, 2), s([3, 2])], dim=-1, reduce=red)
        c("index_reduce %s 0-dim" % red, "index_reduce", [s([]), L(0), s([])], dim=0, reduce=red,
          include_self=False)
        c("index_reduce %s transposed" % red, "index_reduce", [T(s([3, 4])), L(1, 0, 1), T(s([3, 3]))], dim=1,
          reduce=red)
        c("index_reduce %s f32" % red, "index_reduce", [rnd([4, 3], f32), L(0, 0, 2), rnd([3, 3], f32)], dim=0,
          reduce=red, include_self=False)
        c("index_reduce %s int64" % red, "index_reduce", [rnd([4, 3], "int64"), L(0, 0, 2), rnd([3, 3], "int64")],
          dim=0, reduce=red)
    c("index_reduce empty index", "index_reduce", [s([3, 2]), L(), s([0, 2])], dim=0, reduce="amax")
    c("index_reduce amax ties", "index_reduce", [tie_self, L(0, 0, 1), tie_src], dim=0, reduce="amax",
      gradcheck=False)
    c("index_reduce prod zeros", "index_reduce", [zero_self, L(1, 0, 1), zero_src], dim=0, reduce="prod",
      gradcheck=False)
    e("index_reduce sum", "index_reduce", [rnd([3, 4], f32), L(0, 2), rnd([3, 2], f32)], IA, dim=1, reduce="sum")
    e("index_reduce index 2-D", "index_reduce", [rnd([3, 4], f32), L(0, 2).view(2, 1), rnd([3, 2], f32)], IA, dim=1,
      reduce="prod")
    e("index_reduce index float", "index_reduce", [rnd([3, 4], f32), torch.tensor([0.0, 2.0]), rnd([3, 2], f32)],
      DT, dim=1, reduce="prod")
    e("index_reduce dtype", "index_reduce", [rnd([3, 4], f32), L(0, 2), rnd([3, 2], f64)], DT, dim=1, reduce="amin")
    e("index_reduce count", "index_reduce", [rnd([3, 4], f32), L(0, 2), rnd([3, 3], f32)], IA, dim=1,
      reduce="mean")
    e("index_reduce bounds", "index_reduce", [rnd([3, 4], f32), L(0, 4), rnd([3, 2], f32)], IA, dim=1,
      reduce="prod")
    e("index_reduce negative", "index_reduce", [rnd([3, 4], f32), L(0, -1), rnd([3, 2], f32)], IA, dim=1,
      reduce="amax")
    return fx


if __name__ == "__main__":
    build().write("index_extra.json")
