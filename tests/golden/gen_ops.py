#!/usr/bin/python3
"""Writes the golden fixtures of the first operators: ops/binary.json (add, sub,
mul, div, neg) and ops/reduce.json (sum).

Run with a Python that has torch 1.13 (on the dev machine /usr/bin/python3):
    /usr/bin/python3 tests/golden/gen_ops.py
The output is committed; CI has no torch.

Each file is {"cases": [...], "errors": [...]}.

A case is {name, op, args, inputs, out, w?, grads?}:
  op: add | sub | mul | div | neg | sum
  args: alpha (add/sub), rounding_mode (div: null, "trunc", "floor"),
        dims (sum; absent for a full reduction) and keepdim (sum)
  inputs: [{dtype, shape, values, transposed}]: values are row-major; with
        transposed the tensor is the transpose (dims 0 and 1 swapped) of a
        contiguous one of shape [shape[1], shape[0], ...] holding values, so
        the operand is not contiguous
  out: {dtype, shape, values} (row-major)
  w, grads: for cases whose inputs are all float64, w (shape of out) and the
        gradients of sum(out * w) w.r.t. each input (row-major)
Floating values are JSON numbers holding the element's exact double value, or
"nan", "inf", "-inf"; integers are JSON integers and bools JSON booleans.

An error is {name, op, args, inputs, code, message}: message is str() of
torch's exception, which glia's message must contain; code is glia's error
code name for it.
"""

import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "ops")

DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
NAMES = {v: k for k, v in DTYPES.items()}

gen = torch.Generator().manual_seed(1234)


def encode(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def flat(t):
    return [encode(v) for v in t.detach().reshape(-1).tolist()]


def rnd(shape, dtype, lo=-5, hi=5):
    """Deterministic values: floats with a few bits (exact in every float dtype), ints in [lo, hi)."""
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        v = torch.randint(lo * 8, hi * 8, shape, generator=gen).to(torch.float64) / 8
        return v.to(DTYPES[dtype])
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=gen).to(torch.bool)
    if dtype == "uint8":
        lo = max(lo, 0)
    return torch.randint(lo, hi, shape, generator=gen).to(DTYPES[dtype])


def nonzero(t):
    """Replaces zeros (for divisors) by 1 or 0.5."""
    if t.dtype == torch.bool:
        return t
    return torch.where(t == 0, torch.ones_like(t) if not t.is_floating_point() else torch.full_like(t, 0.5), t)


class Operand:
    def __init__(self, tensor, transposed=False):
        # tensor: the contiguous storage tensor; the operand is its transpose when transposed.
        self.base = tensor.contiguous()
        self.transposed = transposed

    def value(self):
        return self.base.transpose(0, 1) if self.transposed else self.base

    def encode(self):
        v = self.value()
        return {"dtype": NAMES[v.dtype], "shape": list(v.shape), "values": flat(self.base),
                "transposed": self.transposed}


def as_operands(xs):
    return [x if isinstance(x, Operand) else Operand(x) for x in xs]


def call(op, xs, args):
    if op == "add":
        return torch.add(xs[0], xs[1], alpha=args.get("alpha", 1))
    if op == "sub":
        return torch.sub(xs[0], xs[1], alpha=args.get("alpha", 1))
    if op == "mul":
        return torch.mul(xs[0], xs[1])
    if op == "div":
        return torch.div(xs[0], xs[1], rounding_mode=args.get("rounding_mode"))
    if op == "neg":
        return torch.neg(xs[0])
    if op == "sum":
        if "dims" in args:
            return torch.sum(xs[0], dim=args["dims"], keepdim=args.get("keepdim", False))
        return torch.sum(xs[0])
    raise ValueError(op)


def case(cases, name, op, xs, **args):
    ops = as_operands(xs)
    vals = [o.value() for o in ops]
    out = call(op, vals, args)
    c = {"name": name, "op": op, "args": args, "inputs": [o.encode() for o in ops],
         "out": {"dtype": NAMES[out.dtype], "shape": list(out.shape), "values": flat(out)}}
    differentiable = op != "div" or args.get("rounding_mode") is None
    if differentiable and all(v.dtype == torch.float64 for v in vals):
        leaves = [v.detach().clone().requires_grad_(True) for v in vals]
        y = call(op, leaves, args)
        w = rnd(list(y.shape), "float64")
        grads = torch.autograd.grad((y * w).sum(), leaves)
        c["w"] = flat(w)
        c["grads"] = [flat(g) for g in grads]
    cases.append(c)


def error(errors, name, op, xs, code, **args):
    ops = as_operands(xs)
    try:
        call(op, [o.value() for o in ops], args)
    except (RuntimeError, IndexError, ZeroDivisionError) as e:
        msg = str(e)
    else:
        raise AssertionError(name + " did not fail in torch")
    errors.append({"name": name, "op": op, "args": args, "inputs": [o.encode() for o in ops], "code": code,
                   "message": msg})


def binary():
    cases, errors = [], []
    f64, f32 = "float64", "float32"
    for op in ("add", "sub", "mul", "div"):
        def div_safe(t):
            return nonzero(t) if op == "div" else t
        case(cases, op + " same shape f64", op, [rnd([2, 3], f64), div_safe(rnd([2, 3], f64))])
        case(cases, op + " broadcast [3,1]+[1,4]", op, [rnd([3, 1], f64), div_safe(rnd([1, 4], f64))])
        case(cases, op + " broadcast [2,3]+[3]", op, [rnd([2, 3], f64), div_safe(rnd([3], f64))])
        case(cases, op + " 0-dim + matrix", op, [rnd([], f64), div_safe(rnd([2, 3], f64))])
        case(cases, op + " matrix + 0-dim", op, [rnd([2, 3], f64), div_safe(rnd([], f64))])
        case(cases, op + " transposed", op, [Operand(rnd([3, 2], f64), True), div_safe(rnd([2, 3], f64))])
        case(cases, op + " both transposed", op,
             [Operand(rnd([4, 3], f64), True), Operand(div_safe(rnd([4, 3], f64)), True)])
        case(cases, op + " zero-size [0,3]", op, [rnd([0, 3], f64), rnd([0, 3], f64)])
        case(cases, op + " zero-size broadcast", op, [rnd([0, 1], f64), div_safe(rnd([3], f64))])
        case(cases, op + " f32", op, [rnd([2, 3], f32), div_safe(rnd([2, 3], f32))])
        case(cases, op + " int32+float32", op, [rnd([2, 3], "int32"), div_safe(rnd([2, 3], f32))])
        case(cases, op + " uint8+int64", op, [rnd([2, 3], "uint8", 0, 9), div_safe(rnd([3], "int64", 1, 9))])
        case(cases, op + " int32 + 0-dim float64", op, [rnd([2, 3], "int32"), div_safe(rnd([], f64))])
        case(cases, op + " float16 + 0-dim float64", op, [rnd([2, 3], "float16"), div_safe(rnd([], f64))])
        case(cases, op + " int32 + 0-dim int64", op, [rnd([2, 3], "int32"), div_safe(rnd([], "int64", 1, 5))])
        if op != "sub":
            case(cases, op + " bool + 0-dim int64", op, [rnd([2, 3], "bool"), div_safe(rnd([], "int64", 1, 5))])
        case(cases, op + " float16+float32", op, [rnd([2, 3], "float16"), div_safe(rnd([2, 3], f32))])
        case(cases, op + " float16+float16", op, [rnd([2, 3], "float16"), div_safe(rnd([2, 3], "float16"))])
        case(cases, op + " bfloat16+int64", op, [rnd([2, 3], "bfloat16"), div_safe(rnd([3], "int64", 1, 5))])
        case(cases, op + " int64+int64", op, [rnd([2, 3], "int64"), div_safe(rnd([2, 3], "int64"))])
    # Above the parallel grain (32768 elements).
    case(cases, "add large contiguous f32", "add", [rnd([200, 170], f32), rnd([200, 170], f32)])
    case(cases, "mul large broadcast f64", "mul", [rnd([300, 1], f64), rnd([1, 130], f64)])
    for op in ("add", "sub"):
        case(cases, op + " alpha 2.5 f64", op, [rnd([2, 3], f64), rnd([3], f64)], alpha=2.5)
        case(cases, op + " alpha -3 int64", op, [rnd([2, 3], "int64"), rnd([2, 3], "int64")], alpha=-3)
        case(cases, op + " alpha 0.5 f32 transposed", op, [Operand(rnd([3, 2], f32), True), rnd([2, 3], f32)],
             alpha=0.5)
    case(cases, "add bool+bool", "add", [torch.tensor([True, True, False, False]),
                                         torch.tensor([True, False, True, False])])
    case(cases, "mul bool+bool", "mul", [torch.tensor([True, True, False, False]),
                                         torch.tensor([True, False, True, False])])
    case(cases, "add bool+int32", "add", [rnd([4], "bool"), rnd([4], "int32")])
    case(cases, "mul uint8 wraps", "mul", [torch.tensor([200, 16, 3], dtype=torch.uint8),
                                           torch.tensor([2, 16, 5], dtype=torch.uint8)])

    num = torch.tensor([7.0, -7.0, 7.0, -7.0, 7.5, -7.5, 0.0, -0.0, 1.0, -1.0, 0.0, 6.0], dtype=torch.float64)
    den = torch.tensor([2.0, 2.0, -2.0, -2.0, 2.0, 2.0, 3.0, 3.0, 0.0, 0.0, 0.0, -3.0], dtype=torch.float64)
    inum = torch.tensor([7, -7, 7, -7, 0, 6, -6, 1], dtype=torch.int64)
    iden = torch.tensor([2, 2, -2, -2, 3, -3, 4, 5], dtype=torch.int64)
    for mode in (None, "trunc", "floor"):
        tag = mode or "true"
        case(cases, "div %s signs f64 incl. /0" % tag, "div", [num, den], rounding_mode=mode)
        case(cases, "div %s signs f32 incl. /0" % tag, "div", [num.float(), den.float()], rounding_mode=mode)
        case(cases, "div %s signs int64" % tag, "div", [inum, iden], rounding_mode=mode)
        case(cases, "div %s int32 broadcast" % tag, "div",
             [inum.to(torch.int32).reshape(2, 4), torch.tensor([3], dtype=torch.int32)], rounding_mode=mode)
        case(cases, "div %s f32 transposed" % tag, "div",
             [Operand(rnd([3, 2], f32), True), nonzero(rnd([2, 3], f32))], rounding_mode=mode)
        case(cases, "div %s uint8" % tag, "div",
             [torch.tensor([7, 200, 9], dtype=torch.uint8), torch.tensor([2, 7, 3], dtype=torch.uint8)],
             rounding_mode=mode)

    case(cases, "neg f64", "neg", [rnd([2, 3], f64)])
    case(cases, "neg f64 transposed", "neg", [Operand(rnd([3, 2], f64), True)])
    case(cases, "neg f64 0-dim", "neg", [rnd([], f64)])
    case(cases, "neg zero-size", "neg", [rnd([0, 3], f64)])
    case(cases, "neg f32", "neg", [rnd([5], f32)])
    case(cases, "neg float16", "neg", [rnd([5], "float16")])
    case(cases, "neg int32", "neg", [rnd([5], "int32")])
    case(cases, "neg int64", "neg", [rnd([2, 2], "int64")])
    case(cases, "neg uint8 wraps", "neg", [torch.tensor([0, 1, 200], dtype=torch.uint8)])

    error(errors, "add shape mismatch", "add", [rnd([2, 3], f32), rnd([2, 4], f32)], "GLIA_ERR_SHAPE")
    error(errors, "mul shape mismatch", "mul", [rnd([3], f32), rnd([4], f32)], "GLIA_ERR_SHAPE")
    error(errors, "sub shape mismatch", "sub", [rnd([5, 2, 3], f64), rnd([4, 1, 3], f64)], "GLIA_ERR_SHAPE")
    error(errors, "sub of two bools", "sub", [rnd([3], "bool"), rnd([3], "bool")], "GLIA_ERR_DTYPE")
    error(errors, "sub bool and 0-dim bool", "sub", [rnd([3], "bool"), rnd([], "bool")], "GLIA_ERR_DTYPE")
    error(errors, "sub bool and int", "sub", [rnd([3], "bool"), rnd([3], "int64")], "GLIA_ERR_DTYPE")
    error(errors, "sub int and 0-dim bool", "sub", [rnd([3], "int64"), rnd([], "bool")], "GLIA_ERR_DTYPE")
    error(errors, "neg bool", "neg", [rnd([3], "bool")], "GLIA_ERR_DTYPE")
    error(errors, "int div trunc by zero", "div",
          [torch.tensor([1, 2], dtype=torch.int64), torch.tensor([1, 0], dtype=torch.int64)],
          "GLIA_ERR_INVALID_ARGUMENT", rounding_mode="trunc")
    error(errors, "int div floor by zero", "div",
          [torch.tensor([1, 2], dtype=torch.int32), torch.tensor([0], dtype=torch.int32)],
          "GLIA_ERR_INVALID_ARGUMENT", rounding_mode="floor")
    error(errors, "div bad rounding mode", "div", [rnd([2], f32), rnd([2], f32)], "GLIA_ERR_INVALID_ARGUMENT",
          rounding_mode="round")
    error(errors, "add int with float alpha", "add", [rnd([2], "int64"), rnd([2], "int64")],
          "GLIA_ERR_INVALID_ARGUMENT", alpha=0.5)
    return {"cases": cases, "errors": errors}


def reduce():
    cases, errors = [], []
    f64 = "float64"
    x = rnd([2, 3, 4], f64)
    case(cases, "sum all f64", "sum", [x])
    case(cases, "sum dim 1", "sum", [x], dims=[1], keepdim=False)
    case(cases, "sum dim 1 keepdim", "sum", [x], dims=[1], keepdim=True)
    case(cases, "sum dim -1", "sum", [x], dims=[-1], keepdim=False)
    case(cases, "sum dims [0,2]", "sum", [x], dims=[0, 2], keepdim=False)
    case(cases, "sum dims [-1,0] keepdim", "sum", [x], dims=[-1, 0], keepdim=True)
    case(cases, "sum dims [0,1,2]", "sum", [x], dims=[0, 1, 2], keepdim=False)
    case(cases, "sum dims [] keepdim", "sum", [x], dims=[], keepdim=True)
    case(cases, "sum transposed dim 0", "sum", [Operand(rnd([4, 3], f64), True)], dims=[0], keepdim=False)
    case(cases, "sum transposed dim 1 keepdim", "sum", [Operand(rnd([4, 3], f64), True)], dims=[1], keepdim=True)
    case(cases, "sum transposed all", "sum", [Operand(rnd([4, 3], f64), True)])
    case(cases, "sum 0-dim", "sum", [rnd([], f64)])
    case(cases, "sum 0-dim dim 0", "sum", [rnd([], f64)], dims=[0], keepdim=False)
    case(cases, "sum 0-dim dim -1 keepdim", "sum", [rnd([], f64)], dims=[-1], keepdim=True)
    case(cases, "sum zero-size all", "sum", [rnd([0, 3], f64)])
    case(cases, "sum zero-size dim 0", "sum", [rnd([0, 3], f64)], dims=[0], keepdim=False)
    case(cases, "sum zero-size dim 1", "sum", [rnd([0, 3], f64)], dims=[1], keepdim=True)
    case(cases, "sum f32 all", "sum", [rnd([5, 7], "float32")])
    case(cases, "sum f32 dim 0", "sum", [rnd([5, 7], "float32")], dims=[0], keepdim=False)
    case(cases, "sum f32 large", "sum", [rnd([300, 120], "float32")], dims=[1], keepdim=False)
    case(cases, "sum float16 dim 1", "sum", [rnd([3, 4], "float16")], dims=[1], keepdim=False)
    case(cases, "sum bfloat16 all", "sum", [rnd([3, 4], "bfloat16")])
    case(cases, "sum int32 -> int64", "sum", [rnd([3, 4], "int32")])
    case(cases, "sum int32 dim 0 -> int64", "sum", [rnd([3, 4], "int32")], dims=[0], keepdim=False)
    case(cases, "sum uint8 -> int64", "sum", [rnd([3, 100], "uint8", 0, 255)], dims=[1], keepdim=False)
    case(cases, "sum bool -> int64", "sum", [rnd([3, 4], "bool")], dims=[-1], keepdim=True)
    case(cases, "sum int64 all", "sum", [rnd([6], "int64")])

    error(errors, "sum dim out of range", "sum", [rnd([2, 3], f64)], "GLIA_ERR_INVALID_ARGUMENT", dims=[2])
    error(errors, "sum negative dim out of range", "sum", [rnd([2, 3], f64)], "GLIA_ERR_INVALID_ARGUMENT",
          dims=[-3])
    error(errors, "sum 0-dim dim 1", "sum", [rnd([], f64)], "GLIA_ERR_INVALID_ARGUMENT", dims=[1])
    error(errors, "sum repeated dim", "sum", [rnd([2, 3], f64)], "GLIA_ERR_INVALID_ARGUMENT", dims=[1, -1])
    return {"cases": cases, "errors": errors}


def write(name, data):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    assert torch.__version__.startswith("1.13"), torch.__version__
    write("binary.json", binary())
    write("reduce.json", reduce())
