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
    fx.write("layout.json")


if __name__ == "__main__":
    factory_fixture()
    layout_fixture()
