#!/usr/bin/python3
"""Golden fixtures of int8 and int16 (glia 0.2): ops/int_dtypes.json, one case per line.

The ops are those of the other generators (their tables are imported, so each op
means here exactly what it means in its family's fixture); the cases run every op
family torch 1.13's CPU kernels implement for int8 and int16 (arithmetic with
wrap-around, type promotion with every other dtype and with scalars,
comparisons, bitwise ops and shifts, rounding and clamping, reductions and scans,
sorting, indexing, shape ops, factories, in-place ops). Inputs come from a
generator of their own (seeded here), so these cases change no other fixture.
A case whose op torch does not implement for the dtype becomes an error case
(glia must refuse it too, with torch's message) when glia refuses it as well;
see ERRORS.

    cd tests/golden && /usr/bin/python3 gen_int_dtypes.py
"""

import json
import os

import torch

import gen_elementwise
import gen_linalg
import gen_math
import gen_ops
import gen_reduce
import gen_shape
import gen_shape_ops
import gen_sortscan
from golden import DTYPES, OUT, Fixture, T, encode

OPS = {}
for table in (gen_ops.OPS, gen_elementwise.OPS, gen_math.OPS, gen_reduce.OPS, gen_shape.OPS, gen_shape_ops.FACTORY_OPS,
              gen_shape_ops.LAYOUT_OPS, gen_sortscan.OPS, gen_linalg.LINALG):
    for k, v in table.items():
        OPS.setdefault(k, v)

gen = torch.Generator().manual_seed(816)
I8, I16 = "int8", "int16"
INTS = (I8, I16)


def ints(shape, dtype, lo=None, hi=None):
    """Deterministic integers in [lo, hi) (default: the dtype's whole range)."""
    info = torch.iinfo(DTYPES[dtype])
    lo = info.min if lo is None else lo
    hi = info.max + 1 if hi is None else hi
    return torch.randint(lo, hi, list(shape), generator=gen, dtype=torch.int64).to(DTYPES[dtype])


def edges(dtype):
    """The extremes and their neighbours, and small values."""
    info = torch.iinfo(DTYPES[dtype])
    return torch.tensor([info.min, info.min + 1, -2, -1, 0, 1, 2, info.max - 1, info.max], dtype=DTYPES[dtype])


class IntFixture(Fixture):
    """No gradients (integer cases); written one case per line."""

    def __init__(self):
        super().__init__(OPS, ())

    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        os.makedirs(OUT, exist_ok=True)

        def rows(items):
            for c in items:
                c["args"] = {k: encode(v) if isinstance(v, float) else v for k, v in c["args"].items()}
            return ",\n".join(json.dumps(c, separators=(",", ":"), allow_nan=False) for c in items)

        with open(os.path.join(OUT, filename), "w") as f:
            f.write('{"cases":[\n' + rows(self.cases) + '\n],\n"errors":[\n' + rows(self.errors) + "\n]}\n")


def arithmetic(fx):
    for dt in INTS:
        e = edges(dt)
        fx.case(f"add {dt} wraps", "add", [e, e.flip(0)])
        fx.case(f"add {dt} alpha", "add", [ints([2, 3], dt, -50, 50), ints([2, 3], dt, -50, 50)], alpha=3)
        fx.case(f"sub {dt} wraps", "sub", [e, e.roll(1)])
        fx.case(f"mul {dt} wraps", "mul", [e, e.roll(3)])
        fx.case(f"mul {dt} transposed", "mul", [T(ints([3, 4], dt)), ints([3, 4], dt)])
        fx.case(f"neg {dt} wraps", "neg", [e])
        fx.case(f"div {dt} true", "div", [ints([6], dt), ints([6], dt, 1, 100)])
        for mode in ("trunc", "floor"):
            num = torch.tensor([7, -7, 7, -7, 0, -128, -128, 127], dtype=DTYPES[dt])
            den = torch.tensor([2, 2, -2, -2, 3, -1, 3, -3], dtype=DTYPES[dt])
            fx.case(f"div {mode} {dt} signs", "div", [num, den], rounding_mode=mode)
        fx.case(f"sum {dt} -> int64", "sum", [ints([3, 50], dt)], dims=[1], keepdim=False)
        fx.case(f"sum {dt} all", "sum", [ints([4, 5], dt)])
        fx.case(f"add_scalar {dt} int", "add_scalar", [e], s=3, alpha=2)
        fx.case(f"add_scalar {dt} float -> float32", "add_scalar", [e], s=1.5, alpha=1)
        fx.case(f"mul_scalar {dt} int wraps", "mul_scalar", [e], s=3)
        fx.case(f"mul_scalar {dt} float", "mul_scalar", [e], s=0.5)
        fx.case(f"rsub_scalar {dt}", "rsub_scalar", [e], s=5, alpha=1)
        fx.case(f"div_scalar {dt} floor", "div_scalar", [e], s=3, rounding_mode="floor")
        fx.case(f"abs {dt} (min stays min)", "abs", [e])
        fx.case(f"sign {dt}", "sign", [e])
        fx.case(f"sqrt {dt} -> float32", "sqrt", [ints([5], dt, 0, 100)])
        fx.case(f"exp {dt} -> float32", "exp", [ints([5], dt, -5, 5)])
        fx.case(f"sin {dt} -> float32", "sin", [ints([5], dt)])
        fx.case(f"pow {dt} wraps", "pow", [ints([6], dt, -5, 5), ints([6], dt, 0, 9)])
        fx.case(f"pow_scalar {dt}", "pow_scalar", [ints([6], dt, -9, 9)], exponent=3)
        big = [127, -128, 100, -99, 3] if dt == I8 else [300, -300, 181, 255, -32768]
        fx.case(f"pow {dt} large bases wrap", "pow", [torch.tensor(big, dtype=DTYPES[dt]),
                                                      torch.tensor([3, 2, 5, 4, 2], dtype=DTYPES[dt])])
        fx.case(f"clamp {dt}", "clamp", [e], min=-5, max=100)
        fx.case(f"clamp_tensor {dt}", "clamp_tensor", [ints([6], dt), ints([6], dt, -100, 0), ints([6], dt, 0, 100)])
        fx.case(f"maximum {dt}", "maximum", [ints([6], dt), ints([6], dt)])
        fx.case(f"minimum {dt}", "minimum", [ints([6], dt), ints([6], dt)])
        fx.case(f"relu {dt}", "relu", [e])
        for op in ("floor", "ceil", "round", "trunc"):
            fx.case(f"{op} {dt} (identity)", op, [e])
        for op in ("fmod", "remainder"):
            fx.case(f"{op} {dt} signs", op, [torch.tensor([7, -7, 7, -7, 0], dtype=DTYPES[dt]),
                                             torch.tensor([3, 3, -3, -3, 5], dtype=DTYPES[dt])])
        for op in ("fmax", "fmin"):
            fx.case(f"{op} {dt}", op, [ints([5], dt), ints([5], dt)])
        fx.case(f"atan2 {dt} -> float32", "atan2", [ints([5], dt), ints([5], dt)])
        fx.case(f"nan_to_num {dt}", "nan_to_num", [e])
        fx.case(f"isnan {dt}", "isnan", [e])
        fx.case(f"isfinite {dt}", "isfinite", [e])


def promotion(fx):
    # Every pair of the 10 dtypes through add (the promotion table), both orders for int8 / int16.
    for a in INTS:
        for b in DTYPES:
            x = ints([4], a, -3, 4)
            y = torch.tensor([1, 0, 1, 1]).to(DTYPES[b]) if b == "bool" else torch.tensor([1, 2, 3, 4]).to(DTYPES[b])
            fx.case(f"add {a}+{b}", "add", [x, y])
            fx.case(f"add {b}+{a}" + (" (other values)" if b in INTS else ""), "add", [y, x])
            # 0-dim tensors take part in promotion only across categories.
            fx.case(f"add {a}+0-dim {b}", "add", [x, y[1].clone()])
            fx.case(f"add 0-dim {b}+{a}", "add", [y[1].clone(), x])
    for a in INTS:
        fx.case(f"mul_scalar {a} bool", "mul_scalar", [ints([4], a, -3, 4)], s=True)
        fx.case(f"eq_scalar {a} out of range wraps", "eq_scalar", [torch.tensor([44, 0, 1], dtype=DTYPES[a])],
                s=300)
        fx.case(f"lt_scalar {a} float", "lt_scalar", [edges(a)], s=0.5)
        fx.case(f"where {a}/uint8", "where", [torch.tensor([True, False, True]), ints([3], a), ints([3], "uint8", 0, 9)])
        fx.case(f"where {a}/float32", "where", [torch.tensor([True, False, True]), ints([3], a),
                                                torch.tensor([0.5, 1.5, 2.5])])
        fx.case(f"where uint8 mask {a}", "where", [torch.tensor([1, 0, 1], dtype=torch.uint8), ints([3], a),
                                                   ints([3], a)])
        fx.case(f"cat {a}+uint8", "cat", [ints([2], a), ints([3], "uint8", 0, 255)], dim=0)
        fx.case(f"cat {a}+bool", "cat", [ints([2], a), torch.tensor([True, False])], dim=0)
        fx.case(f"cat {a}+float16", "cat", [ints([2], a, -9, 9), torch.tensor([0.5], dtype=torch.float16)], dim=0)
    fx.case("cat int8+int16", "cat", [ints([2], I8), ints([2], I16)], dim=0)


def comparisons_bitwise(fx):
    for dt in INTS:
        e = edges(dt)
        for op in ("eq", "ne", "lt", "le", "gt", "ge"):
            fx.case(f"{op} {dt}", op, [e, e.roll(2)])
            fx.case(f"{op}_scalar {dt}", op + "_scalar", [e], s=-1)
        fx.case(f"lt {dt} vs uint8", "lt", [e, torch.arange(9, dtype=torch.uint8) * 30])
        fx.case(f"eq int8 vs {dt}", "eq", [edges(I8), e])
        for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            fx.case(f"{op} {dt}", op, [ints([7], dt), ints([7], dt)])
        fx.case(f"bitwise_not {dt}", "bitwise_not", [e])
        fx.case(f"bitwise_not {dt} transposed", "bitwise_not", [T(ints([3, 4], dt))])
        bits = 8 if dt == I8 else 16
        x = torch.tensor([1, -1, 5, -5, 3, 1, -128, 64], dtype=DTYPES[dt])
        s = torch.tensor([0, 1, 2, 3, bits - 1, bits, bits + 3, 1], dtype=DTYPES[dt])
        fx.case(f"bitwise_left_shift {dt}", "bitwise_left_shift", [x, s])
        fx.case(f"bitwise_right_shift {dt}", "bitwise_right_shift", [x, s])
        fx.case(f"logical_and {dt}", "logical_and", [e, e.roll(1)])
        fx.case(f"logical_not {dt}", "logical_not", [e])


def reductions(fx):
    for dt in INTS:
        x = ints([3, 5], dt)
        fx.case(f"prod {dt} -> int64", "prod", [ints([3, 4], dt, -4, 5)])
        fx.case(f"prod {dt} dims", "prod", [ints([3, 4], dt, -4, 5)], dims=[1])
        for op in ("amax", "amin"):
            fx.case(f"{op} {dt}", op, [x], dims=[1])
        for op in ("max", "min"):
            fx.case(f"{op} {dt} dim", op, [x], dim=1)
        for op in ("argmax", "argmin"):
            fx.case(f"{op} {dt}", op, [x], dim=0)
        fx.case(f"all {dt}", "all", [torch.tensor([[1, 0], [2, -3]], dtype=DTYPES[dt])], dims=[1])
        fx.case(f"any {dt}", "any", [torch.tensor([[0, 0], [2, -3]], dtype=DTYPES[dt])], dims=[1])
        fx.case(f"count_nonzero {dt}", "count_nonzero", [ints([3, 4], dt, -1, 2)])
        fx.case(f"aminmax {dt}", "aminmax", [x])
        fx.case(f"nansum {dt}", "nansum", [x])
        fx.case(f"cumsum {dt} -> int64", "cumsum", [x], dim=1)
        fx.case(f"cumprod {dt} -> int64", "cumprod", [ints([2, 5], dt, -3, 4)], dim=1)
        fx.case(f"cummax {dt}", "cummax", [x], dim=1)
        fx.case(f"cummin {dt}", "cummin", [x], dim=0)
        fx.case(f"sort {dt}", "sort", [ints([3, 6], dt, -4, 4)], dim=1, descending=False, stable=True)
        fx.case(f"sort {dt} descending", "sort", [ints([3, 6], dt, -4, 4)], dim=1, descending=True, stable=True)
        fx.case(f"argsort {dt}", "argsort", [ints([8], dt, -3, 3)], dim=0, descending=False, stable=True)
        fx.case(f"msort {dt}", "msort", [x])
        fx.case(f"topk {dt}", "topk", [edges(dt)], k=3)
        fx.case(f"kthvalue {dt}", "kthvalue", [edges(dt)], k=4)
        fx.case(f"median {dt}", "median", [edges(dt)])
        fx.case(f"median_dim {dt}", "median_dim", [x], dim=1)
        fx.case(f"mode {dt}", "mode", [ints([3, 6], dt, -2, 2)], dim=1)


def shape_index(fx):
    for dt in INTS:
        x = ints([3, 4], dt)
        idx = torch.tensor([2, 0, 2])
        fx.case(f"reshape {dt} transposed", "reshape", [T(ints([4, 3], dt))], shape=[12])
        fx.case(f"select {dt}", "select", [x], dim=1, index=2)
        fx.case(f"index_select {dt}", "index_select", [x, idx], dim=0)
        fx.case(f"gather {dt}", "gather", [x, torch.tensor([[0, 3], [1, 1], [2, 0]])], dim=1)
        fx.case(f"scatter {dt}", "scatter", [x, torch.tensor([[0, 3], [1, 2], [2, 0]]), ints([3, 2], dt)], dim=1)
        fx.case(f"scatter_add {dt} wraps", "scatter_add", [x, torch.tensor([[0, 0], [1, 1], [2, 2]]), ints([3, 2], dt)],
                dim=1)
        fx.case(f"scatter_value {dt}", "scatter_value", [x, torch.tensor([[0], [1], [3]])], dim=1, value=-7)
        fx.case(f"masked_select {dt}", "masked_select", [x, x > 0])
        fx.case(f"cat {dt}", "cat", [x, ints([1, 4], dt)], dim=0)
        fx.case(f"stack {dt}", "stack", [x, x.flip(0)], dim=1)
        fx.case(f"split {dt}", "split", [x], split_size=2, dim=1)
        fx.case(f"flip {dt}", "flip", [x], dims=[0, 1])
        fx.case(f"roll {dt}", "roll", [x], shifts=[1], dims=[1])
        fx.case(f"tril {dt}", "tril", [x])
        fx.case(f"diag {dt}", "diag", [x])
        fx.case(f"trace {dt} -> int64", "trace", [x])
        fx.case(f"repeat {dt}", "repeat", [x], repeats=[2, 1])
        fx.case(f"take {dt}", "take", [x, torch.tensor([0, 11, 5])])
        fx.case(f"pad {dt}", "pad", [x], pad=[1, 2], value=-3)
        fx.case(f"matmul {dt} wraps", "matmul", [ints([2, 3], dt), ints([3, 2], dt)])


def factories_inplace(fx):
    for dt in INTS:
        fx.case(f"eye {dt}", "tensor_eye", [], n=2, m=3, dtype=dt)
        fx.case(f"linspace {dt}", "tensor_linspace", [], start=-3, end=10, steps=7, dtype=dt)
        fx.case(f"zeros_like {dt}", "tensor_zeros_like", [ints([2, 3], dt)])
        fx.case(f"ones_like float32 -> {dt}", "tensor_ones_like", [torch.zeros(2, 2)], dtype=dt)
        fx.case(f"full_like {dt}", "tensor_full_like", [ints([2], dt)], value=-100)
        e = edges(dt)
        fx.case(f"add_ {dt} wraps", "add_", [e, e.roll(1)], alpha=1)
        fx.case(f"mul_scalar_ {dt}", "mul_scalar_", [e], s=3)
        fx.case(f"fill_ {dt}", "fill_", [e], value=-7)
        fx.case(f"zero_ {dt}", "zero_", [e])
        fx.case(f"clamp_ {dt}", "clamp_", [e], min=-3, max=3)
        fx.case(f"copy_ float32 -> {dt} (truncates, wraps)", "copy_",
                [e, torch.tensor([0.5, -1.5, 127.9, -128.9, 300.0, -300.0, 40000.0, 2.5, -2.5])])
        fx.case(f"copy_ {dt} -> float64", "copy_", [torch.zeros(9, dtype=torch.float64), e])
        fx.case(f"copy_ int8 -> {dt} (sign-extends)", "copy_", [e, edges(I8)])
        fx.case(f"copy_ int64 -> {dt} (low bits)", "copy_",
                [e, torch.tensor([2**40 + 5, -(2**40) - 5, 255, 256, 32768, -32769, 65535, 70000, -1])])
    fx.error("full_like int8 overflow", "tensor_full_like", [ints([2], I8)], "GLIA_ERR_INVALID_ARGUMENT", value=200)
    fx.error("full_like int16 overflow", "tensor_full_like", [ints([2], I16)], "GLIA_ERR_INVALID_ARGUMENT",
             value=40000)


# Ops torch 1.13's CPU kernels do not implement for int8/int16: error cases with torch's message.
ERRORS = [
    ("tensor_tril_indices", [], dict(row=3, col=3)),
    ("tensor_triu_indices", [], dict(row=3, col=3)),
]


def errors(fx):
    for dt in INTS:
        for op, xs, args in ERRORS:
            fx.error(f"{op} {dt}", op, xs, "GLIA_ERR_DTYPE", dtype=dt, **args)
        x = ints([4], dt)
        fx.error(f"mean {dt}", "mean", [x], "GLIA_ERR_DTYPE")
        fx.error(f"var {dt}", "var", [x], "GLIA_ERR_DTYPE")
        fx.error(f"bitwise_left_shift {dt} float", "bitwise_left_shift", [x, torch.ones(4)], "GLIA_ERR_DTYPE")


def main():
    fx = IntFixture()
    arithmetic(fx)
    promotion(fx)
    comparisons_bitwise(fx)
    reductions(fx)
    shape_index(fx)
    factories_inplace(fx)
    errors(fx)
    fx.write("int_dtypes.json")
    print("int_dtypes.json: %d cases, %d errors" % (len(fx.cases), len(fx.errors)))


if __name__ == "__main__":
    main()
