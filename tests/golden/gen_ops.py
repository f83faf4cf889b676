#!/usr/bin/python3
"""Golden fixtures of the first operators: ops/binary.json (add, sub, mul, div,
neg) and ops/reduce.json (sum). Format: see golden.py.

    /usr/bin/python3 tests/golden/gen_ops.py
"""

import torch

from golden import Fixture, T, nonzero, rnd


def _sum(xs, a):
    if "dims" in a:
        return torch.sum(xs[0], dim=a["dims"], keepdim=a.get("keepdim", False))
    return torch.sum(xs[0])


OPS = {
    "add": lambda xs, a: torch.add(xs[0], xs[1], alpha=a.get("alpha", 1)),
    "sub": lambda xs, a: torch.sub(xs[0], xs[1], alpha=a.get("alpha", 1)),
    "mul": lambda xs, a: torch.mul(xs[0], xs[1]),
    "div": lambda xs, a: torch.div(xs[0], xs[1], rounding_mode=a.get("rounding_mode")),
    "neg": lambda xs, a: torch.neg(xs[0]),
    "sum": _sum,
}
DIFFERENTIABLE = ("add", "sub", "mul", "neg", "sum", "div")


def binary():
    fx = Fixture(OPS, DIFFERENTIABLE, signed_zeros=True)
    f64, f32 = "float64", "float32"
    for op in ("add", "sub", "mul", "div"):
        def div_safe(t):
            return nonzero(t) if op == "div" else t
        fx.case(op + " same shape f64", op, [rnd([2, 3], f64), div_safe(rnd([2, 3], f64))])
        fx.case(op + " broadcast [3,1]+[1,4]", op, [rnd([3, 1], f64), div_safe(rnd([1, 4], f64))])
        fx.case(op + " broadcast [2,3]+[3]", op, [rnd([2, 3], f64), div_safe(rnd([3], f64))])
        fx.case(op + " 0-dim + matrix", op, [rnd([], f64), div_safe(rnd([2, 3], f64))])
        fx.case(op + " matrix + 0-dim", op, [rnd([2, 3], f64), div_safe(rnd([], f64))])
        fx.case(op + " transposed", op, [T(rnd([2, 3], f64)), div_safe(rnd([2, 3], f64))])
        fx.case(op + " both transposed", op,
             [T(rnd([3, 4], f64)), T(div_safe(rnd([3, 4], f64)))])
        fx.case(op + " zero-size [0,3]", op, [rnd([0, 3], f64), rnd([0, 3], f64)])
        fx.case(op + " zero-size broadcast", op, [rnd([0, 1], f64), div_safe(rnd([3], f64))])
        fx.case(op + " f32", op, [rnd([2, 3], f32), div_safe(rnd([2, 3], f32))])
        fx.case(op + " int32+float32", op, [rnd([2, 3], "int32"), div_safe(rnd([2, 3], f32))])
        fx.case(op + " uint8+int64", op, [rnd([2, 3], "uint8", 0, 9), div_safe(rnd([3], "int64", 1, 9))])
        fx.case(op + " int32 + 0-dim float64", op, [rnd([2, 3], "int32"), div_safe(rnd([], f64))])
        fx.case(op + " float16 + 0-dim float64", op, [rnd([2, 3], "float16"), div_safe(rnd([], f64))])
        fx.case(op + " int32 + 0-dim int64", op, [rnd([2, 3], "int32"), div_safe(rnd([], "int64", 1, 5))])
        if op != "sub":
            fx.case(op + " bool + 0-dim int64", op, [rnd([2, 3], "bool"), div_safe(rnd([], "int64", 1, 5))])
        fx.case(op + " float16+float32", op, [rnd([2, 3], "float16"), div_safe(rnd([2, 3], f32))])
        fx.case(op + " float16+float16", op, [rnd([2, 3], "float16"), div_safe(rnd([2, 3], "float16"))])
        fx.case(op + " bfloat16+int64", op, [rnd([2, 3], "bfloat16"), div_safe(rnd([3], "int64", 1, 5))])
        fx.case(op + " int64+int64", op, [rnd([2, 3], "int64"), div_safe(rnd([2, 3], "int64"))])
    # Above the parallel grain (32768 elements).
    fx.case("add large contiguous f32", "add", [rnd([200, 170], f32), rnd([200, 170], f32)])
    fx.case("mul large broadcast f64", "mul", [rnd([300, 1], f64), rnd([1, 130], f64)])
    for op in ("add", "sub"):
        fx.case(op + " alpha 2.5 f64", op, [rnd([2, 3], f64), rnd([3], f64)], alpha=2.5)
        fx.case(op + " alpha -3 int64", op, [rnd([2, 3], "int64"), rnd([2, 3], "int64")], alpha=-3)
        fx.case(op + " alpha 0.5 f32 transposed", op, [T(rnd([2, 3], f32)), rnd([2, 3], f32)],
             alpha=0.5)
    fx.case("add bool+bool", "add", [torch.tensor([True, True, False, False]),
                                         torch.tensor([True, False, True, False])])
    fx.case("mul bool+bool", "mul", [torch.tensor([True, True, False, False]),
                                         torch.tensor([True, False, True, False])])
    fx.case("add bool+int32", "add", [rnd([4], "bool"), rnd([4], "int32")])
    fx.case("mul uint8 wraps", "mul", [torch.tensor([200, 16, 3], dtype=torch.uint8),
                                           torch.tensor([2, 16, 5], dtype=torch.uint8)])

    num = torch.tensor([7.0, -7.0, 7.0, -7.0, 7.5, -7.5, 0.0, -0.0, 1.0, -1.0, 0.0, 6.0], dtype=torch.float64)
    den = torch.tensor([2.0, 2.0, -2.0, -2.0, 2.0, 2.0, 3.0, 3.0, 0.0, 0.0, 0.0, -3.0], dtype=torch.float64)
    inum = torch.tensor([7, -7, 7, -7, 0, 6, -6, 1], dtype=torch.int64)
    iden = torch.tensor([2, 2, -2, -2, 3, -3, 4, 5], dtype=torch.int64)
    for mode in (None, "trunc", "floor"):
        tag = mode or "true"
        fx.case("div %s signs f64 incl. /0" % tag, "div", [num, den], grads=mode is None, gradcheck=False,
                rounding_mode=mode)
        fx.case("div %s signs f32 incl. /0" % tag, "div", [num.float(), den.float()], rounding_mode=mode)
        fx.case("div %s signs int64" % tag, "div", [inum, iden], rounding_mode=mode)
        fx.case("div %s int32 broadcast" % tag, "div",
             [inum.to(torch.int32).reshape(2, 4), torch.tensor([3], dtype=torch.int32)], rounding_mode=mode)
        fx.case("div %s f32 transposed" % tag, "div",
             [T(rnd([2, 3], f32)), nonzero(rnd([2, 3], f32))], rounding_mode=mode)
        fx.case("div %s uint8" % tag, "div",
             [torch.tensor([7, 200, 9], dtype=torch.uint8), torch.tensor([2, 7, 3], dtype=torch.uint8)],
             rounding_mode=mode)

    fx.case("neg f64", "neg", [rnd([2, 3], f64)])
    fx.case("neg f64 transposed", "neg", [T(rnd([2, 3], f64))])
    fx.case("neg f64 0-dim", "neg", [rnd([], f64)])
    fx.case("neg zero-size", "neg", [rnd([0, 3], f64)])
    fx.case("neg f32", "neg", [rnd([5], f32)])
    fx.case("neg float16", "neg", [rnd([5], "float16")])
    fx.case("neg int32", "neg", [rnd([5], "int32")])
    fx.case("neg int64", "neg", [rnd([2, 2], "int64")])
    fx.case("neg uint8 wraps", "neg", [torch.tensor([0, 1, 200], dtype=torch.uint8)])

    fx.error("add shape mismatch", "add", [rnd([2, 3], f32), rnd([2, 4], f32)], "GLIA_ERR_SHAPE")
    fx.error("mul shape mismatch", "mul", [rnd([3], f32), rnd([4], f32)], "GLIA_ERR_SHAPE")
    fx.error("sub shape mismatch", "sub", [rnd([5, 2, 3], f64), rnd([4, 1, 3], f64)], "GLIA_ERR_SHAPE")
    fx.error("sub of two bools", "sub", [rnd([3], "bool"), rnd([3], "bool")], "GLIA_ERR_DTYPE")
    fx.error("sub bool and 0-dim bool", "sub", [rnd([3], "bool"), rnd([], "bool")], "GLIA_ERR_DTYPE")
    fx.error("sub bool and int", "sub", [rnd([3], "bool"), rnd([3], "int64")], "GLIA_ERR_DTYPE")
    fx.error("sub int and 0-dim bool", "sub", [rnd([3], "int64"), rnd([], "bool")], "GLIA_ERR_DTYPE")
    fx.error("neg bool", "neg", [rnd([3], "bool")], "GLIA_ERR_DTYPE")
    fx.error("int div trunc by zero", "div",
          [torch.tensor([1, 2], dtype=torch.int64), torch.tensor([1, 0], dtype=torch.int64)],
          "GLIA_ERR_INVALID_ARGUMENT", rounding_mode="trunc")
    fx.error("int div floor by zero", "div",
          [torch.tensor([1, 2], dtype=torch.int32), torch.tensor([0], dtype=torch.int32)],
          "GLIA_ERR_INVALID_ARGUMENT", rounding_mode="floor")
    fx.error("div bad rounding mode", "div", [rnd([2], f32), rnd([2], f32)], "GLIA_ERR_INVALID_ARGUMENT",
          rounding_mode="round")
    fx.error("add int with float alpha", "add", [rnd([2], "int64"), rnd([2], "int64")],
          "GLIA_ERR_INVALID_ARGUMENT", alpha=0.5)
    return fx


def reduce():
    fx = Fixture(OPS, DIFFERENTIABLE)
    f64 = "float64"
    x = rnd([2, 3, 4], f64)
    fx.case("sum all f64", "sum", [x])
    fx.case("sum dim 1", "sum", [x], dims=[1], keepdim=False)
    fx.case("sum dim 1 keepdim", "sum", [x], dims=[1], keepdim=True)
    fx.case("sum dim -1", "sum", [x], dims=[-1], keepdim=False)
    fx.case("sum dims [0,2]", "sum", [x], dims=[0, 2], keepdim=False)
    fx.case("sum dims [-1,0] keepdim", "sum", [x], dims=[-1, 0], keepdim=True)
    fx.case("sum dims [0,1,2]", "sum", [x], dims=[0, 1, 2], keepdim=False)
    fx.case("sum dims [] keepdim", "sum", [x], dims=[], keepdim=True)
    fx.case("sum transposed dim 0", "sum", [T(rnd([3, 4], f64))], dims=[0], keepdim=False)
    fx.case("sum transposed dim 1 keepdim", "sum", [T(rnd([3, 4], f64))], dims=[1], keepdim=True)
    fx.case("sum transposed all", "sum", [T(rnd([3, 4], f64))])
    fx.case("sum 0-dim", "sum", [rnd([], f64)])
    fx.case("sum 0-dim dim 0", "sum", [rnd([], f64)], dims=[0], keepdim=False)
    fx.case("sum 0-dim dim -1 keepdim", "sum", [rnd([], f64)], dims=[-1], keepdim=True)
    fx.case("sum zero-size all", "sum", [rnd([0, 3], f64)])
    fx.case("sum zero-size dim 0", "sum", [rnd([0, 3], f64)], dims=[0], keepdim=False)
    fx.case("sum zero-size dim 1", "sum", [rnd([0, 3], f64)], dims=[1], keepdim=True)
    fx.case("sum f32 all", "sum", [rnd([5, 7], "float32")])
    fx.case("sum f32 dim 0", "sum", [rnd([5, 7], "float32")], dims=[0], keepdim=False)
    fx.case("sum f32 large", "sum", [rnd([300, 120], "float32")], dims=[1], keepdim=False)
    fx.case("sum float16 dim 1", "sum", [rnd([3, 4], "float16")], dims=[1], keepdim=False)
    fx.case("sum bfloat16 all", "sum", [rnd([3, 4], "bfloat16")])
    fx.case("sum int32 -> int64", "sum", [rnd([3, 4], "int32")])
    fx.case("sum int32 dim 0 -> int64", "sum", [rnd([3, 4], "int32")], dims=[0], keepdim=False)
    fx.case("sum uint8 -> int64", "sum", [rnd([3, 100], "uint8", 0, 255)], dims=[1], keepdim=False)
    fx.case("sum bool -> int64", "sum", [rnd([3, 4], "bool")], dims=[-1], keepdim=True)
    fx.case("sum int64 all", "sum", [rnd([6], "int64")])

    fx.error("sum dim out of range", "sum", [rnd([2, 3], f64)], "GLIA_ERR_INVALID_ARGUMENT", dims=[2])
    fx.error("sum negative dim out of range", "sum", [rnd([2, 3], f64)], "GLIA_ERR_INVALID_ARGUMENT",
          dims=[-3])
    fx.error("sum 0-dim dim 1", "sum", [rnd([], f64)], "GLIA_ERR_INVALID_ARGUMENT", dims=[1])
    fx.error("sum repeated dim", "sum", [rnd([2, 3], f64)], "GLIA_ERR_INVALID_ARGUMENT", dims=[1, -1])
    return fx


if __name__ == "__main__":
    binary().write("binary.json")
    reduce().write("reduce.json")
