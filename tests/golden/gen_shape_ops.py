#!/usr/bin/python3
"""Golden fixtures of issue 20's factories and shape ops: ops/factory.json (eye, linspace, logspace,
zeros_like, ones_like, full_like, tril_indices, triu_indices) and ops/layout.json (tril, triu,
diagonal, diag, diag_embed, trace, flip, fliplr, flipud, roll). Format: see golden.py; these files
hold one case per line.

    cd tests/golden && /usr/bin/python3 gen_shape_ops.py
"""

import json
import os

import torch

from golden import DTYPES, OUT, Fixture, T, encode, rnd, smooth

f64, f32, f16, bf16 = "float64", "float32", "float16", "bfloat16"


class LineFixture(Fixture):
    """A Fixture written one case (and one error) per line, for reviewable diffs."""

    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        os.makedirs(OUT, exist_ok=True)

        def rows(items):
            # Non-finite numbers in args as golden.py writes values ("nan", "inf", "-inf"): strict JSON.
            for c in items:
                c["args"] = {k: encode(v) if isinstance(v, float) else v for k, v in c["args"].items()}
            return ",\n".join(json.dumps(c, separators=(",", ":"), allow_nan=False) for c in items)

        with open(os.path.join(OUT, filename), "w") as f:
            f.write('{"cases":[\n' + rows(self.cases) + '\n],\n"errors":[\n' + rows(self.errors) + "\n]}\n")


def dt(a, default="float32"):
    return DTYPES[a.get("dtype", default)]


def like_dtype(a):
    return {"dtype": DTYPES[a["dtype"]]} if "dtype" in a else {}


FACTORY_OPS = {
    "tensor_eye": lambda xs, a: torch.eye(a["n"], a["m"], dtype=dt(a)),
    "tensor_linspace": lambda xs, a: torch.linspace(a["start"], a["end"], a["steps"], dtype=dt(a)),
    "tensor_logspace": lambda xs, a: torch.logspace(a["start"], a["end"], a["steps"], a.get("base", 10.0),
                                                    dtype=dt(a)),
    "tensor_zeros_like": lambda xs, a: torch.zeros_like(xs[0], **like_dtype(a)),
    "tensor_ones_like": lambda xs, a: torch.ones_like(xs[0], **like_dtype(a)),
    "tensor_full_like": lambda xs, a: torch.full_like(xs[0], a["value"], **like_dtype(a)),
    "tensor_tril_indices": lambda xs, a: torch.tril_indices(a["row"], a["col"], a.get("offset", 0),
                                                            dtype=dt(a, "int64")),
    "tensor_triu_indices": lambda xs, a: torch.triu_indices(a["row"], a["col"], a.get("offset", 0),
                                                            dtype=dt(a, "int64")),
}


def factory_fixture():
    fx = LineFixture(FACTORY_OPS)
    # eye
    fx.case("eye 3", "tensor_eye", [], n=3, m=3)
    fx.case("eye wide", "tensor_eye", [], n=2, m=4)
    fx.case("eye tall f64", "tensor_eye", [], n=4, m=2, dtype=f64)
    fx.case("eye 0", "tensor_eye", [], n=0, m=0)
    fx.case("eye 0 rows", "tensor_eye", [], n=0, m=3)
    fx.case("eye 1", "tensor_eye", [], n=1, m=1, dtype="int32")
    fx.case("eye int64", "tensor_eye", [], n=3, m=2, dtype="int64")
    fx.case("eye uint8", "tensor_eye", [], n=2, m=3, dtype="uint8")
    fx.case("eye bool", "tensor_eye", [], n=3, m=3, dtype="bool")
    fx.case("eye f16", "tensor_eye", [], n=2, m=2, dtype=f16)
    fx.error("eye bf16", "tensor_eye", [], "GLIA_ERR_DTYPE", n=2, m=3, dtype=bf16)
    fx.error("eye negative n", "tensor_eye", [], "GLIA_ERR_INVALID_ARGUMENT", n=-1, m=2)
    fx.error("eye negative m", "tensor_eye", [], "GLIA_ERR_INVALID_ARGUMENT", n=2, m=-1)
    # linspace
    fx.case("linspace 0..1 5", "tensor_linspace", [], start=0.0, end=1.0, steps=5)
    fx.case("linspace f64", "tensor_linspace", [], start=-2.0, end=3.0, steps=7, dtype=f64)
    fx.case("linspace f64 101", "tensor_linspace", [], start=-1.0, end=2.5, steps=101, dtype=f64)
    fx.case("linspace f32 33", "tensor_linspace", [], start=-3.25, end=7.5, steps=33)
    fx.case("linspace decreasing", "tensor_linspace", [], start=1.0, end=-1.0, steps=4, dtype=f64)
    fx.case("linspace equal bounds", "tensor_linspace", [], start=2.0, end=2.0, steps=3)
    fx.case("linspace one step", "tensor_linspace", [], start=3.0, end=10.0, steps=1)
    fx.case("linspace zero steps", "tensor_linspace", [], start=0.0, end=1.0, steps=0)
    fx.case("linspace int64", "tensor_linspace", [], start=0.0, end=10.0, steps=4, dtype="int64")
    fx.case("linspace int64 negative", "tensor_linspace", [], start=-7.0, end=5.0, steps=6, dtype="int64")
    fx.case("linspace int32", "tensor_linspace", [], start=1.0, end=100.0, steps=9, dtype="int32")
    fx.case("linspace uint8 wraps start", "tensor_linspace", [], start=-3, end=10, steps=7, dtype="uint8")
    fx.error("linspace uint8 fractional start", "tensor_linspace", [], "GLIA_ERR_INVALID_ARGUMENT", start=-3.5,
             end=10, steps=7, dtype="uint8")
    fx.error("linspace f32 overflow", "tensor_linspace", [], "GLIA_ERR_INVALID_ARGUMENT", start=0.0, end=1e300,
             steps=3)
    fx.case("linspace f16", "tensor_linspace", [], start=-1.0, end=1.0, steps=9, dtype=f16)
    fx.case("linspace bf16", "tensor_linspace", [], start=0.0, end=4.0, steps=6, dtype=bf16)
    fx.case("linspace nan", "tensor_linspace", [], start=float("nan"), end=1.0, steps=3)
    fx.error("linspace negative steps", "tensor_linspace", [], "GLIA_ERR_INVALID_ARGUMENT", start=0.0, end=1.0,
             steps=-1)
    fx.error("linspace bool", "tensor_linspace", [], "GLIA_ERR_DTYPE", start=0.0, end=1.0, steps=3, dtype="bool")
    # logspace
    fx.case("logspace 0..2 3", "tensor_logspace", [], start=0.0, end=2.0, steps=3)
    fx.case("logspace f64", "tensor_logspace", [], start=-1.0, end=1.0, steps=5, dtype=f64)
    fx.case("logspace base 2 f64", "tensor_logspace", [], start=0.5, end=-3.0, steps=8, base=2.0, dtype=f64)
    fx.case("logspace base e f32", "tensor_logspace", [], start=-2.0, end=2.0, steps=11, base=2.718281828459045)
    fx.case("logspace int64 base 2", "tensor_logspace", [], start=0.0, end=10.0, steps=11, base=2.0,
            dtype="int64")
    fx.case("logspace one step", "tensor_logspace", [], start=2.0, end=5.0, steps=1, dtype=f64)
    fx.case("logspace zero steps", "tensor_logspace", [], start=2.0, end=5.0, steps=0)
    fx.case("logspace bf16", "tensor_logspace", [], start=0.0, end=1.0, steps=4, dtype=bf16)
    fx.error("logspace f16", "tensor_logspace", [], "GLIA_ERR_DTYPE", start=0.0, end=1.0, steps=4, dtype=f16)
    fx.error("logspace negative steps", "tensor_logspace", [], "GLIA_ERR_INVALID_ARGUMENT", start=0.0, end=1.0,
             steps=-2)
    fx.error("logspace bool", "tensor_logspace", [], "GLIA_ERR_DTYPE", start=0.0, end=1.0, steps=3, dtype="bool")
    # *_like
    fx.case("zeros_like f32", "tensor_zeros_like", [rnd([2, 3], f32)])
    fx.case("zeros_like transposed", "tensor_zeros_like", [T(rnd([3, 2]))])
    fx.case("zeros_like 0-dim", "tensor_zeros_like", [rnd([], "int64")])
    fx.case("zeros_like zero-size", "tensor_zeros_like", [rnd([0, 3])])
    fx.case("zeros_like to int64", "tensor_zeros_like", [rnd([2, 2], f32)], dtype="int64")
    fx.case("zeros_like bool", "tensor_zeros_like", [rnd([3], "bool")])
    fx.case("ones_like f64", "tensor_ones_like", [rnd([2, 3])])
    fx.case("ones_like transposed f16", "tensor_ones_like", [T(rnd([3, 2], f16))])
    fx.case("ones_like to bool", "tensor_ones_like", [rnd([4], "int32")], dtype="bool")
    fx.case("ones_like zero-size", "tensor_ones_like", [rnd([2, 0], "uint8")])
    fx.case("full_like f32", "tensor_full_like", [rnd([2, 3], f32)], value=2.5)
    fx.case("full_like transposed", "tensor_full_like", [T(rnd([3, 2]))], value=-1.25)
    fx.case("full_like int64 truncates", "tensor_full_like", [rnd([3], "int64")], value=2.75)
    fx.case("full_like to f64", "tensor_full_like", [rnd([2], "int32")], value=0.1, dtype=f64)
    fx.case("full_like inf", "tensor_full_like", [rnd([2], f32)], value=float("inf"))
    fx.case("full_like bool", "tensor_full_like", [rnd([2], "bool")], value=1.0)
    fx.case("full_like 0-dim", "tensor_full_like", [rnd([], bf16)], value=3.0)
    fx.error("full_like uint8 overflow", "tensor_full_like", [rnd([2], "uint8")], "GLIA_ERR_INVALID_ARGUMENT",
             value=300.0)
    fx.error("full_like inf in int64", "tensor_full_like", [rnd([2], f32)], "GLIA_ERR_INVALID_ARGUMENT",
             value=float("inf"), dtype="int64")
    # tril_indices / triu_indices
    for op, short in (("tensor_tril_indices", "tril_indices"), ("tensor_triu_indices", "triu_indices")):
        fx.case(short + " 3x3", op, [], row=3, col=3)
        fx.case(short + " 3x4 offset 1", op, [], row=3, col=4, offset=1)
        fx.case(short + " 4x3 offset -1", op, [], row=4, col=3, offset=-1)
        fx.case(short + " far offset", op, [], row=3, col=3, offset=-10)
        fx.case(short + " far positive offset", op, [], row=2, col=3, offset=10)
        fx.case(short + " 0 rows", op, [], row=0, col=3)
        fx.case(short + " int32", op, [], row=4, col=4, offset=2, dtype="int32")
        fx.error(short + " negative row", op, [], "GLIA_ERR_INVALID_ARGUMENT", row=-1, col=2)
        fx.error(short + " negative col", op, [], "GLIA_ERR_INVALID_ARGUMENT", row=2, col=-1)
        fx.error(short + " float32", op, [], "GLIA_ERR_DTYPE", row=2, col=2, dtype=f32)
        fx.error(short + " uint8", op, [], "GLIA_ERR_DTYPE", row=2, col=2, dtype="uint8")
    fx.write("factory.json")


def idx(values, dtype=torch.int64):
    return torch.tensor(values, dtype=dtype)


def _roll(xs, a):
    return torch.roll(xs[0], a["shifts"], a.get("dims", []))


LAYOUT_OPS = {
    "tril": lambda xs, a: torch.tril(xs[0], a.get("diagonal", 0)),
    "triu": lambda xs, a: torch.triu(xs[0], a.get("diagonal", 0)),
    "diagonal": lambda xs, a: torch.diagonal(xs[0], a.get("offset", 0), a.get("dim1", 0), a.get("dim2", 1)),
    "diag": lambda xs, a: torch.diag(xs[0], a.get("diagonal", 0)),
    "diag_embed": lambda xs, a: torch.diag_embed(xs[0], a.get("offset", 0), a.get("dim1", -2), a.get("dim2", -1)),
    "trace": lambda xs, a: torch.trace(xs[0]),
    "flip": lambda xs, a: torch.flip(xs[0], a["dims"]),
    "fliplr": lambda xs, a: torch.fliplr(xs[0]),
    "flipud": lambda xs, a: torch.flipud(xs[0]),
    "roll": _roll,
    "movedim": lambda xs, a: torch.movedim(xs[0], a["source"], a["destination"]),
    "unfold": lambda xs, a: xs[0].unfold(a["dimension"], a["size"], a["step"]),
    "rot90": lambda xs, a: torch.rot90(xs[0], a.get("k", 1), a["dims"]),
    "repeat": lambda xs, a: xs[0].repeat(a["repeats"]),
    "tile": lambda xs, a: torch.tile(xs[0], a["dims"]),
    "repeat_interleave": lambda xs, a: torch.repeat_interleave(xs[0], a["repeats"], a.get("dim")),
    "repeat_interleave_tensor": lambda xs, a: torch.repeat_interleave(xs[0], xs[1], a.get("dim")),
    "tensor_split": lambda xs, a: tuple(torch.tensor_split(xs[0], a["sections"], a.get("dim", 0))),
    "tensor_split_indices": lambda xs, a: tuple(torch.tensor_split(xs[0], a["indices"], a.get("dim", 0))),
    "take": lambda xs, a: torch.take(xs[0], xs[1]),
    "take_along_dim": lambda xs, a: torch.take_along_dim(xs[0], xs[1], a.get("dim")),
}


def layout_fixture():
    fx = LineFixture(LAYOUT_OPS, list(LAYOUT_OPS))
    for op in ("tril", "triu"):
        fx.case(op + " [3,4]", op, [smooth([3, 4])])
        fx.case(op + " diagonal 1", op, [smooth([3, 4])], diagonal=1)
        fx.case(op + " diagonal -1", op, [smooth([4, 3])], diagonal=-1)
        fx.case(op + " diagonal past the matrix", op, [smooth([3, 4])], diagonal=5)
        fx.case(op + " diagonal below the matrix", op, [smooth([3, 4])], diagonal=-5)
        fx.case(op + " batched", op, [smooth([2, 3, 3])], diagonal=-1)
        fx.case(op + " batched 4-D", op, [smooth([2, 1, 2, 3])], diagonal=1)
        fx.case(op + " transposed", op, [T(smooth([4, 3]))])
        fx.case(op + " transposed batch", op, [T(smooth([3, 2, 4]))], diagonal=1)
        fx.case(op + " zero-size", op, [smooth([0, 3])])
        fx.case(op + " zero batch", op, [smooth([2, 0, 3])])
        fx.case(op + " int64 large diagonal", op, [rnd([3, 3], "int64")], diagonal=1000)
        fx.case(op + " int64 min diagonal", op, [rnd([3, 3], "int64")], diagonal=-2 ** 63)
        fx.case(op + " f32", op, [rnd([3, 5], f32)], diagonal=2)
        fx.case(op + " f16", op, [rnd([4, 4], f16)])
        fx.case(op + " bf16", op, [rnd([2, 3], bf16)], diagonal=-1)
        fx.case(op + " int32", op, [rnd([3, 3], "int32")])
        fx.case(op + " uint8", op, [rnd([2, 4], "uint8")], diagonal=1)
        fx.case(op + " bool", op, [rnd([3, 3], "bool")])
        fx.error(op + " 1-D", op, [rnd([3])], "GLIA_ERR_INVALID_ARGUMENT")
        fx.error(op + " 0-dim", op, [rnd([])], "GLIA_ERR_INVALID_ARGUMENT")
    # diagonal
    fx.case("diagonal [3,4]", "diagonal", [smooth([3, 4])])
    fx.case("diagonal offset 1", "diagonal", [smooth([3, 4])], offset=1)
    fx.case("diagonal offset -2", "diagonal", [smooth([4, 3])], offset=-2)
    fx.case("diagonal offset past the end", "diagonal", [smooth([3, 4])], offset=5)
    fx.case("diagonal offset below", "diagonal", [smooth([3, 4])], offset=-4)
    fx.case("diagonal dims 0,2", "diagonal", [smooth([3, 2, 4])], offset=1, dim1=0, dim2=2)
    fx.case("diagonal dims swapped", "diagonal", [smooth([3, 2, 4])], offset=1, dim1=2, dim2=0)
    fx.case("diagonal negative dims", "diagonal", [smooth([2, 3, 3])], dim1=-1, dim2=-2)
    fx.case("diagonal transposed", "diagonal", [T(smooth([4, 3]))], offset=-1)
    fx.case("diagonal zero-size", "diagonal", [smooth([0, 3])])
    fx.case("diagonal f32", "diagonal", [rnd([3, 3], f32)])
    fx.case("diagonal int64", "diagonal", [rnd([2, 3, 4], "int64")], dim1=1, dim2=2)
    fx.case("diagonal bool", "diagonal", [rnd([3, 3], "bool")], offset=1)
    fx.error("diagonal identical dims", "diagonal", [rnd([3, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim1=0, dim2=0)
    fx.error("diagonal dims alias", "diagonal", [rnd([3, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim1=1, dim2=-1)
    fx.error("diagonal dim out of range", "diagonal", [rnd([3, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim1=0, dim2=2)
    fx.error("diagonal 1-D", "diagonal", [rnd([3])], "GLIA_ERR_INVALID_ARGUMENT")
    # diag
    fx.case("diag vector", "diag", [smooth([3])])
    fx.case("diag vector above", "diag", [smooth([3])], diagonal=1)
    fx.case("diag vector below", "diag", [smooth([2])], diagonal=-2)
    fx.case("diag matrix", "diag", [smooth([3, 4])])
    fx.case("diag matrix above", "diag", [smooth([3, 4])], diagonal=2)
    fx.case("diag matrix below", "diag", [smooth([4, 3])], diagonal=-1)
    fx.case("diag matrix just past the end", "diag", [smooth([3, 4])], diagonal=4)
    fx.error("diag matrix past the end", "diag", [rnd([3, 4])], "GLIA_ERR_INVALID_ARGUMENT", diagonal=7)
    fx.error("diag matrix below the end", "diag", [rnd([3, 4])], "GLIA_ERR_INVALID_ARGUMENT", diagonal=-4)
    fx.case("diag transposed", "diag", [T(smooth([4, 3]))], diagonal=1)
    fx.case("diag empty vector", "diag", [smooth([0])])
    fx.case("diag empty vector offset", "diag", [smooth([0])], diagonal=2)
    fx.case("diag f32", "diag", [rnd([4], f32)])
    fx.case("diag int32", "diag", [rnd([3], "int32")], diagonal=-1)
    fx.case("diag bool matrix", "diag", [rnd([3, 3], "bool")])
    fx.error("diag 3-D", "diag", [rnd([2, 2, 2])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("diag 0-dim", "diag", [rnd([])], "GLIA_ERR_INVALID_ARGUMENT")
    # diag_embed
    fx.case("diag_embed vector", "diag_embed", [smooth([3])])
    fx.case("diag_embed batch offset 1", "diag_embed", [smooth([2, 3])], offset=1)
    fx.case("diag_embed offset -2", "diag_embed", [smooth([2, 3])], offset=-2)
    fx.case("diag_embed dims 0,2", "diag_embed", [smooth([2, 3])], dim1=0, dim2=2)
    fx.case("diag_embed dims 2,0", "diag_embed", [smooth([2, 3])], offset=1, dim1=2, dim2=0)
    fx.case("diag_embed negative dims", "diag_embed", [smooth([2, 3])], dim1=-1, dim2=-3)
    fx.case("diag_embed transposed", "diag_embed", [T(smooth([3, 2]))])
    fx.case("diag_embed zero-size", "diag_embed", [smooth([2, 0])])
    fx.case("diag_embed f32", "diag_embed", [rnd([3], f32)])
    fx.case("diag_embed int64", "diag_embed", [rnd([2, 2], "int64")], offset=-1)
    fx.error("diag_embed identical dims", "diag_embed", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim1=1, dim2=1)
    fx.error("diag_embed dim out of range", "diag_embed", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", dim1=0,
             dim2=3)
    # trace
    fx.case("trace [3,4]", "trace", [smooth([3, 4])])
    fx.case("trace [4,3]", "trace", [smooth([4, 3])])
    fx.case("trace transposed", "trace", [T(smooth([3, 3]))])
    fx.case("trace zero-size", "trace", [smooth([0, 3])])
    fx.case("trace f32", "trace", [rnd([3, 3], f32)])
    fx.case("trace int32 gives int64", "trace", [rnd([3, 3], "int32")])
    fx.case("trace uint8", "trace", [rnd([2, 2], "uint8")])
    fx.error("trace 1-D", "trace", [rnd([3])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("trace 3-D", "trace", [rnd([2, 2, 2])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("trace bool", "trace", [rnd([2, 2], "bool")], "GLIA_ERR_DTYPE")
    # flip
    fx.case("flip dims 0,2", "flip", [smooth([2, 3, 4])], dims=[0, 2])
    fx.case("flip last", "flip", [smooth([2, 3, 4])], dims=[-1])
    fx.case("flip all", "flip", [smooth([2, 3, 4])], dims=[2, 1, 0])
    fx.case("flip no dims", "flip", [smooth([2, 3])], dims=[])
    fx.case("flip size-1 dim", "flip", [smooth([1, 3])], dims=[0])
    fx.case("flip transposed", "flip", [T(smooth([3, 4]))], dims=[1])
    fx.case("flip transposed both", "flip", [T(smooth([3, 4]))], dims=[0, 1])
    fx.case("flip 0-dim", "flip", [smooth([])], dims=[0])
    fx.case("flip zero-size", "flip", [smooth([0, 3])], dims=[1])
    fx.case("flip f32", "flip", [rnd([5], f32)], dims=[0])
    fx.case("flip f16", "flip", [rnd([2, 3], f16)], dims=[0])
    fx.case("flip int64", "flip", [rnd([3, 2], "int64")], dims=[0, 1])
    fx.case("flip uint8", "flip", [rnd([7], "uint8")], dims=[0])
    fx.case("flip bool", "flip", [rnd([2, 3], "bool")], dims=[1])
    fx.error("flip duplicate dims", "flip", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", dims=[0, -2])
    fx.error("flip dim out of range", "flip", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", dims=[2])
    fx.case("fliplr", "fliplr", [smooth([3, 4])])
    fx.case("fliplr 3-D", "fliplr", [smooth([2, 3, 2])])
    fx.case("fliplr int32", "fliplr", [rnd([2, 3], "int32")])
    fx.error("fliplr 1-D", "fliplr", [rnd([3])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.case("flipud", "flipud", [smooth([3, 4])])
    fx.case("flipud 1-D", "flipud", [smooth([5])])
    fx.case("flipud transposed", "flipud", [T(smooth([3, 2]))])
    fx.case("flipud bool", "flipud", [rnd([4], "bool")])
    fx.error("flipud 0-dim", "flipud", [rnd([])], "GLIA_ERR_INVALID_ARGUMENT")
    # roll
    fx.case("roll dim 0", "roll", [smooth([4, 3])], shifts=[1], dims=[0])
    fx.case("roll two dims", "roll", [smooth([4, 3])], shifts=[-1, 2], dims=[0, 1])
    fx.case("roll negative dim", "roll", [smooth([2, 5])], shifts=[3], dims=[-1])
    fx.case("roll large shift", "roll", [smooth([2, 5])], shifts=[-13], dims=[1])
    fx.case("roll shift multiple of size", "roll", [smooth([2, 5])], shifts=[10], dims=[1])
    fx.case("roll flattened", "roll", [smooth([3, 4])], shifts=[5])
    fx.case("roll flattened transposed", "roll", [T(smooth([4, 3]))], shifts=[-2])
    fx.case("roll transposed", "roll", [T(smooth([4, 3]))], shifts=[1, 1], dims=[0, 1])
    fx.case("roll same dim twice", "roll", [smooth([5])], shifts=[1, 2], dims=[0, 0])
    fx.case("roll 0-dim flattened", "roll", [smooth([])], shifts=[3])
    fx.case("roll zero-size", "roll", [smooth([0, 3])], shifts=[1], dims=[0])
    fx.case("roll zero-size flattened", "roll", [smooth([2, 0])], shifts=[1])
    fx.case("roll f32", "roll", [rnd([6], f32)], shifts=[2], dims=[0])
    fx.case("roll int64", "roll", [rnd([2, 3], "int64")], shifts=[1], dims=[1])
    fx.case("roll bool", "roll", [rnd([5], "bool")], shifts=[-1])
    fx.error("roll no shifts", "roll", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", shifts=[], dims=[])
    fx.error("roll shifts and dims disagree", "roll", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", shifts=[1, 2],
             dims=[0])
    fx.error("roll two shifts no dims", "roll", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", shifts=[1, 2])
    fx.error("roll dim out of range", "roll", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", shifts=[1], dims=[2])
    fx.error("roll 0-dim with dim", "roll", [rnd([])], "GLIA_ERR_INVALID_ARGUMENT", shifts=[1], dims=[0])
    # movedim
    fx.case("movedim one", "movedim", [smooth([2, 3, 4])], source=[0], destination=[2])
    fx.case("movedim two", "movedim", [smooth([2, 3, 4])], source=[0, 1], destination=[2, 0])
    fx.case("movedim negative", "movedim", [smooth([2, 3, 4])], source=[-1], destination=[-3])
    fx.case("movedim none", "movedim", [smooth([2, 3])], source=[], destination=[])
    fx.case("movedim transposed", "movedim", [T(smooth([3, 2, 2]))], source=[2], destination=[0])
    fx.case("movedim 0-dim", "movedim", [smooth([])], source=[0], destination=[-1])
    fx.case("movedim int32", "movedim", [rnd([2, 3], "int32")], source=[1], destination=[0])
    fx.error("movedim lengths differ", "movedim", [rnd([2, 3, 4])], "GLIA_ERR_INVALID_ARGUMENT", source=[0, 1],
             destination=[0])
    fx.error("movedim repeated source", "movedim", [rnd([2, 3, 4])], "GLIA_ERR_INVALID_ARGUMENT", source=[0, -3],
             destination=[1, 2])
    fx.error("movedim repeated destination", "movedim", [rnd([2, 3, 4])], "GLIA_ERR_INVALID_ARGUMENT",
             source=[0, 1], destination=[2, 2])
    fx.error("movedim out of range", "movedim", [rnd([2, 3, 4])], "GLIA_ERR_INVALID_ARGUMENT", source=[3],
             destination=[0])
    # unfold
    fx.case("unfold windows", "unfold", [smooth([7])], dimension=0, size=3, step=2)
    fx.case("unfold overlapping", "unfold", [smooth([2, 5])], dimension=1, size=3, step=1)
    fx.case("unfold step past", "unfold", [smooth([2, 6])], dimension=-1, size=2, step=4)
    fx.case("unfold dim 0", "unfold", [smooth([4, 3])], dimension=0, size=2, step=2)
    fx.case("unfold whole dim", "unfold", [smooth([3, 4])], dimension=1, size=4, step=1)
    fx.case("unfold size 0", "unfold", [smooth([3, 4])], dimension=1, size=0, step=2)
    fx.case("unfold transposed", "unfold", [T(smooth([5, 3]))], dimension=1, size=2, step=1)
    fx.case("unfold 0-dim", "unfold", [smooth([])], dimension=0, size=1, step=1)
    fx.case("unfold zero-size", "unfold", [smooth([0, 4])], dimension=1, size=2, step=1)
    fx.case("unfold int64", "unfold", [rnd([6], "int64")], dimension=0, size=2, step=2)
    fx.case("unfold f32", "unfold", [rnd([2, 4], f32)], dimension=1, size=3, step=1)
    fx.error("unfold size too large", "unfold", [rnd([2, 4])], "GLIA_ERR_INVALID_ARGUMENT", dimension=1, size=5,
             step=1)
    fx.error("unfold step 0", "unfold", [rnd([2, 4])], "GLIA_ERR_INVALID_ARGUMENT", dimension=1, size=2, step=0)
    fx.error("unfold dim out of range", "unfold", [rnd([2, 4])], "GLIA_ERR_INVALID_ARGUMENT", dimension=2, size=1,
             step=1)
    fx.error("unfold 0-dim size 2", "unfold", [rnd([])], "GLIA_ERR_INVALID_ARGUMENT", dimension=0, size=2, step=1)
    # rot90
    for k in (1, 2, 3, 0, -1, 5):
        fx.case("rot90 k=%d" % k, "rot90", [smooth([2, 3])], k=k, dims=[0, 1])
    fx.case("rot90 3-D dims 2,0", "rot90", [smooth([2, 3, 4])], k=1, dims=[2, 0])
    fx.case("rot90 negative dims", "rot90", [smooth([2, 3, 4])], k=3, dims=[-1, -2])
    fx.case("rot90 transposed", "rot90", [T(smooth([3, 4]))], k=1, dims=[0, 1])
    fx.case("rot90 zero-size", "rot90", [smooth([0, 3])], k=1, dims=[0, 1])
    fx.case("rot90 int64", "rot90", [rnd([2, 3], "int64")], k=2, dims=[1, 0])
    fx.case("rot90 bool", "rot90", [rnd([2, 3], "bool")], k=1, dims=[0, 1])
    fx.error("rot90 three dims", "rot90", [rnd([2, 3, 4])], "GLIA_ERR_INVALID_ARGUMENT", k=1, dims=[0, 1, 2])
    fx.error("rot90 1-D", "rot90", [rnd([3])], "GLIA_ERR_INVALID_ARGUMENT", k=1, dims=[0, 1])
    fx.error("rot90 same dims", "rot90", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", k=1, dims=[1, 1])
    fx.error("rot90 aliasing dims", "rot90", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", k=1, dims=[0, 2])
    fx.error("rot90 dim0 out of range", "rot90", [rnd([2, 3, 4])], "GLIA_ERR_INVALID_ARGUMENT", k=1, dims=[-4, 0])
    fx.error("rot90 dim1 out of range", "rot90", [rnd([2, 3, 4])], "GLIA_ERR_INVALID_ARGUMENT", k=1, dims=[0, 4])
    # repeat / tile
    fx.case("repeat", "repeat", [smooth([2, 3])], repeats=[2, 3])
    fx.case("repeat new dims", "repeat", [smooth([2, 3])], repeats=[2, 1, 2])
    fx.case("repeat ones", "repeat", [smooth([2, 3])], repeats=[1, 1])
    fx.case("repeat zero", "repeat", [smooth([2, 3])], repeats=[0, 2])
    fx.case("repeat transposed", "repeat", [T(smooth([3, 2]))], repeats=[2, 2])
    fx.case("repeat 0-dim", "repeat", [smooth([])], repeats=[3])
    fx.case("repeat 0-dim no repeats", "repeat", [smooth([])], repeats=[])
    fx.case("repeat int32", "repeat", [rnd([3], "int32")], repeats=[2, 2])
    fx.case("repeat bool", "repeat", [rnd([2], "bool")], repeats=[3])
    fx.error("repeat too few", "repeat", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", repeats=[2])
    fx.error("repeat negative", "repeat", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", repeats=[2, -1])
    fx.case("tile", "tile", [smooth([2, 3])], dims=[2, 2])
    fx.case("tile fewer dims", "tile", [smooth([2, 3])], dims=[3])
    fx.case("tile more dims", "tile", [smooth([3])], dims=[2, 1, 2])
    fx.case("tile empty dims", "tile", [smooth([2, 2])], dims=[])
    fx.case("tile transposed", "tile", [T(smooth([2, 3]))], dims=[1, 2])
    fx.case("tile uint8", "tile", [rnd([2, 2], "uint8")], dims=[2])
    fx.error("tile negative", "tile", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", dims=[-2])
    # repeat_interleave
    fx.case("repeat_interleave flat", "repeat_interleave", [smooth([2, 3])], repeats=2)
    fx.case("repeat_interleave dim 0", "repeat_interleave", [smooth([2, 3])], repeats=3, dim=0)
    fx.case("repeat_interleave dim -1", "repeat_interleave", [smooth([2, 3])], repeats=2, dim=-1)
    fx.case("repeat_interleave zero", "repeat_interleave", [smooth([2, 3])], repeats=0, dim=1)
    fx.case("repeat_interleave transposed", "repeat_interleave", [T(smooth([3, 2]))], repeats=2, dim=0)
    fx.case("repeat_interleave 0-dim", "repeat_interleave", [smooth([])], repeats=3)
    fx.case("repeat_interleave zero-size", "repeat_interleave", [smooth([0, 2])], repeats=2, dim=0)
    fx.case("repeat_interleave int64", "repeat_interleave", [rnd([4], "int64")], repeats=2, dim=0)
    fx.error("repeat_interleave negative", "repeat_interleave", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT",
             repeats=-1, dim=0)
    fx.error("repeat_interleave dim out of range", "repeat_interleave", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT",
             repeats=1, dim=2)
    fx.case("repeat_interleave tensor dim 1", "repeat_interleave_tensor", [smooth([2, 3]), idx([1, 0, 2])], dim=1)
    fx.case("repeat_interleave tensor flat", "repeat_interleave_tensor", [smooth([2, 2]), idx([2, 1, 0, 3])])
    fx.case("repeat_interleave tensor 0-dim", "repeat_interleave_tensor", [smooth([2, 3]), idx(2)], dim=0)
    fx.case("repeat_interleave tensor int32", "repeat_interleave_tensor",
            [smooth([3, 2]), idx([1, 2, 1], torch.int32)], dim=0)
    fx.case("repeat_interleave tensor transposed", "repeat_interleave_tensor", [T(smooth([3, 2])), idx([0, 3])],
            dim=1)
    fx.case("repeat_interleave tensor f32", "repeat_interleave_tensor", [rnd([3], f32), idx([1, 1, 2])], dim=0)
    fx.error("repeat_interleave tensor 2-D repeats", "repeat_interleave_tensor", [rnd([2, 3]), idx([[1]])],
             "GLIA_ERR_INVALID_ARGUMENT", dim=1)
    fx.error("repeat_interleave tensor wrong size", "repeat_interleave_tensor", [rnd([2, 3]), idx([1, 2])],
             "GLIA_ERR_INVALID_ARGUMENT", dim=1)
    fx.error("repeat_interleave tensor negative", "repeat_interleave_tensor", [rnd([2, 3]), idx([1, -1, 2])],
             "GLIA_ERR_INVALID_ARGUMENT", dim=1)
    fx.error("repeat_interleave tensor float", "repeat_interleave_tensor",
             [rnd([2, 3]), torch.tensor([1.0, 2.0, 2.0])], "GLIA_ERR_DTYPE", dim=1)
    # tensor_split
    fx.case("tensor_split sections", "tensor_split", [smooth([7, 2])], sections=3)
    fx.case("tensor_split more sections than size", "tensor_split", [smooth([2, 3])], sections=4, dim=1)
    fx.case("tensor_split dim -1", "tensor_split", [smooth([2, 6])], sections=2, dim=-1)
    fx.case("tensor_split transposed", "tensor_split", [T(smooth([4, 3]))], sections=2, dim=1)
    fx.case("tensor_split int64", "tensor_split", [rnd([5], "int64")], sections=2)
    fx.error("tensor_split 0 sections", "tensor_split", [rnd([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", sections=0)
    fx.error("tensor_split 0-dim", "tensor_split", [rnd([])], "GLIA_ERR_INVALID_ARGUMENT", sections=2)
    fx.case("tensor_split indices", "tensor_split_indices", [smooth([6, 2])], indices=[1, 4])
    fx.case("tensor_split indices past the end", "tensor_split_indices", [smooth([2, 4])], indices=[1, 5], dim=1)
    fx.case("tensor_split indices decreasing", "tensor_split_indices", [smooth([5])], indices=[3, 1])
    fx.case("tensor_split indices negative", "tensor_split_indices", [smooth([5, 2])], indices=[-2])
    fx.case("tensor_split no indices", "tensor_split_indices", [smooth([3])], indices=[])
    fx.case("tensor_split indices bool", "tensor_split_indices", [rnd([4], "bool")], indices=[2])
    fx.error("tensor_split indices 0-dim", "tensor_split_indices", [rnd([])], "GLIA_ERR_INVALID_ARGUMENT",
             indices=[1])
    # take / take_along_dim
    fx.case("take", "take", [smooth([3, 4]), idx([[0, 5], [11, 2]])])
    fx.case("take negative", "take", [smooth([3, 4]), idx([-1, -12, 3])])
    fx.case("take repeated", "take", [smooth([2, 2]), idx([1, 1, 1])])
    fx.case("take transposed", "take", [T(smooth([4, 3])), idx([0, 1, 2, 5])])
    fx.case("take 0-dim index", "take", [smooth([3]), idx(2)])
    fx.case("take 0-dim input", "take", [smooth([]), idx([0, -1])])
    fx.case("take empty index", "take", [smooth([2, 3]), idx([], torch.int64)])
    fx.case("take int32", "take", [rnd([5], "int32"), idx([4, 0])])
    fx.error("take out of range", "take", [rnd([3, 4]), idx([12])], "GLIA_ERR_INVALID_ARGUMENT", message=False)
    fx.error("take out of range negative", "take", [rnd([3, 4]), idx([-13])], "GLIA_ERR_INVALID_ARGUMENT",
             message=False)
    fx.error("take int32 index", "take", [rnd([3, 4]), idx([1], torch.int32)], "GLIA_ERR_DTYPE")
    fx.case("take_along_dim dim 1", "take_along_dim", [smooth([3, 4]), idx([[0], [2], [1]])], dim=1)
    fx.case("take_along_dim broadcast", "take_along_dim", [smooth([3, 4]), idx([[0, 1, 2, 0]])], dim=0)
    fx.case("take_along_dim broadcast input", "take_along_dim", [smooth([1, 4]), idx([[0], [0], [0]])], dim=1)
    fx.case("take_along_dim flat", "take_along_dim", [smooth([3, 4]), idx([[0, 11, 3]])])
    fx.case("take_along_dim negative dim", "take_along_dim", [T(smooth([4, 3])), idx([[3, 0, 1]])], dim=-2)
    fx.case("take_along_dim int64", "take_along_dim", [rnd([2, 3], "int64"), idx([[2, 2], [0, 1]])], dim=1)
    fx.error("take_along_dim dims differ", "take_along_dim", [rnd([3, 4]), idx([0, 1])], "GLIA_ERR_INVALID_ARGUMENT",
             dim=1)
    fx.error("take_along_dim int32", "take_along_dim", [rnd([3, 4]), idx([[0, 1]], torch.int32)], "GLIA_ERR_DTYPE",
             dim=1)
    fx.error("take_along_dim no broadcast", "take_along_dim", [rnd([3, 4]), idx([[0, 1], [0, 1]])],
             "GLIA_ERR_SHAPE", dim=1)
    fx.error("take_along_dim out of range", "take_along_dim", [rnd([3, 4]), idx([[0, 5]])],
             "GLIA_ERR_INVALID_ARGUMENT", dim=1)
    fx.error("take_along_dim dim out of range", "take_along_dim", [rnd([3, 4]), idx([[0, 1]])],
             "GLIA_ERR_INVALID_ARGUMENT", dim=2)
    fx.write("layout.json")


if __name__ == "__main__":
    factory_fixture()
    layout_fixture()
