#!/usr/bin/python3
"""Golden fixtures of the unary floating math and rounding ops (and their
in-place forms): ops/math.json, one case per line. Format: see golden.py.

    cd tests/golden && /usr/bin/python3 gen_math.py
"""

import json
import os

import torch

from gen_elementwise import Fx, SPECIALS, _inplace, maybe
from golden import DTYPES as DT, OUT, T, rnd, smooth

f64, f32, f16, bf16 = "float64", "float32", "float16", "bfloat16"
NAN, INF = float("nan"), float("inf")

UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "exp2", "log2",
         "log10", "erf", "erfc", "erfinv", "lgamma", "digamma", "trunc", "frac", "floor", "ceil"]
ROUNDING = ("trunc", "floor", "ceil", "round")

OPS = {}
for _n in UNARY:
    OPS[_n] = (lambda n: lambda xs, a: getattr(torch, n)(xs[0]))(_n)
    OPS[_n + "_"] = (lambda n: _inplace(lambda y, xs, a: getattr(y, n + "_")()))(_n)
# torch.round(x, decimals=0) is the decimals overload (it refuses integers); decimals absent: torch.round(x).
# torch 1.13 has no derivative for asinh_, acosh_ and atanh_ (NotImplementedError at backward): their
# gradient cases take torch's out-of-place op, whose derivative is the same function's.
for _n in ("asinh", "acosh", "atanh"):
    OPS[_n + "_"] = (lambda n, f: lambda xs, a: getattr(torch, n)(xs[0]) if xs[0].requires_grad else f(xs, a))(
        _n, OPS[_n + "_"])
OPS["round"] = lambda xs, a: torch.round(xs[0], decimals=a["decimals"]) if "decimals" in a else torch.round(xs[0])
OPS["round_"] = _inplace(lambda y, xs, a: y.round_(decimals=a["decimals"]) if "decimals" in a else y.round_())
OPS["logit"] = lambda xs, a: torch.logit(xs[0], a.get("eps"))
OPS["logit_"] = _inplace(lambda y, xs, a: y.logit_(a.get("eps")))
BINARY = {"atan2": torch.atan2, "hypot": torch.hypot, "copysign": torch.copysign, "xlogy": torch.xlogy,
          "fmod": torch.fmod, "remainder": torch.remainder, "fmax": torch.fmax, "fmin": torch.fmin}
BITWISE = {"bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor,
           "bitwise_left_shift": torch.bitwise_left_shift, "bitwise_right_shift": torch.bitwise_right_shift}
for _n, _f in list(BINARY.items()) + list(BITWISE.items()):
    OPS[_n] = (lambda f: lambda xs, a: f(xs[0], xs[1]))(_f)
OPS["nan_to_num"] = lambda xs, a: torch.nan_to_num(xs[0], a.get("nan", 0.0), a.get("posinf"), a.get("neginf"))
PREDICATES = ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "bitwise_not")
for _n in PREDICATES:
    OPS[_n] = (lambda n: lambda xs, a: getattr(torch, n)(xs[0]))(_n)
OPS["isclose"] = lambda xs, a: torch.isclose(xs[0], xs[1], a.get("rtol", 1e-05), a.get("atol", 1e-08),
                                             a.get("equal_nan", False))
OPS["lerp"] = lambda xs, a: torch.lerp(xs[0], xs[1], xs[2])
OPS["lerp_scalar"] = lambda xs, a: torch.lerp(xs[0], xs[1], a["weight"])
DIFF = set(OPS) - set(BITWISE) - set(PREDICATES) - {"isclose"}

# Where each op is smooth (finite-difference checks) and defined.
DOMAINS = {"asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9), "erfinv": (-0.9, 0.9),
           "acosh": (1.1, 3.0), "log2": (0.1, 3.0), "log10": (0.1, 3.0), "lgamma": (0.2, 4.0),
           "digamma": (0.2, 4.0), "logit": (0.05, 0.95), "tan": (-1.2, 1.2), "round": (-3.0, 3.0)}
# Domain edges and poles, beside SPECIALS.
EDGES = {"asin": [2.0, -2.0, 1.0, -1.0, 0.5], "acos": [2.0, -2.0, 1.0, -1.0, 0.5],
         "atanh": [1.0, -1.0, 2.0, -0.5], "acosh": [1.0, 0.5, -1.0, 2.0], "log2": [0.0, -1.0, 1.0, 8.0, 1000.0],
         "log10": [0.0, -1.0, 1.0, 8.0, 1000.0], "erfinv": [1.0, -1.0, 1.5, 0.0, 0.99, -0.999],
         "lgamma": [0.0, -1.0, -2.5, 1.0, 2.0, 0.5, 100.0], "digamma": [0.0, -1.0, -2.5, 1.0, 10.0, 1e-3, 30.0],
         "erfc": [-3.0, 5.0, 10.0, 30.0], "exp2": [-200.0, 127.5, 130.0, 0.5], "tan": [1.5707963, -1.5707963, 3.0],
         "sinh": [90.0, -90.0, 1e-5], "cosh": [90.0, -90.0, 1e-5], "frac": [2.5, -2.5, 1e20, -0.25],
         "round": [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.4999], "trunc": [2.5, -2.5, -0.3, 1e20],
         "floor": [2.5, -2.5, -0.3, 1e20], "ceil": [2.5, -2.5, -0.3, 1e20]}


class MathFx(Fx):
    def write(self, filename):
        """One case per line (reviewable diffs)."""
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(OUT, filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n],\n"errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def unary_cases(fx, op, **args):
    lo, hi = DOMAINS.get(op, (-2.0, 2.0))
    fx.case(op + " f64", op, [smooth([2, 3], f64, lo, hi)], **args)
    fx.case(op + " f64 transposed", op, [T(smooth([3, 4], f64, lo, hi))], **args)
    fx.case(op + " f64 0-dim", op, [smooth([], f64, lo, hi)], **args)
    fx.case(op + " zero-size", op, [smooth([0, 2], f64, lo, hi)], **args)
    fx.case(op + " f32", op, [smooth([7], f32, lo, hi)], **args)
    fx.case(op + " f32 transposed", op, [T(smooth([3, 5], f32, lo, hi))], **args)
    maybe(fx, op + " float16", op, [smooth([6], f16, lo, hi)], tol=2e-3, **args)
    fx.case(op + " bfloat16", op, [smooth([6], bf16, lo, hi)], tol=1e-2, **args)
    fx.case(op + " specials f64", op, [SPECIALS], gradcheck=False, **args)
    fx.case(op + " specials f32", op, [SPECIALS.float()], **args)
    if op in EDGES:
        fx.case(op + " domain edges f64", op, [torch.tensor(EDGES[op], dtype=torch.float64)], gradcheck=False,
                **args)
        fx.case(op + " domain edges f32", op, [torch.tensor(EDGES[op])], **args)
    if op == "frac":
        fx.error("frac int64", op, [rnd([3], "int64")], "GLIA_ERR_DTYPE")
        fx.error("frac bool", op, [rnd([3], "bool")], "GLIA_ERR_DTYPE")
        return
    if op in ROUNDING and not args.get("decimals"):
        fx.error(op + " bool", op, [rnd([3], "bool")], "GLIA_ERR_DTYPE", **args)
    elif op in ROUNDING:
        fx.error(op + " int64 with decimals", op, [rnd([3], "int64")], "GLIA_ERR_DTYPE", **args)
        return
    else:
        fx.case(op + " bool -> float32", op, [rnd([5], "bool")], **args)
    ilo = 1 if op in DOMAINS and DOMAINS[op][0] > 0 else -3
    fx.case(op + " int64", op, [rnd([2, 3], "int64", ilo, 5)], **args)
    fx.case(op + " int32", op, [rnd([5], "int32", ilo, 5)], **args)
    fx.case(op + " uint8", op, [rnd([5], "uint8", 0, 6)], **args)


def inplace_cases(fx, op, **args):
    lo, hi = DOMAINS.get(op, (-2.0, 2.0))
    name = op + "_"
    fx.case(name + " f64", name, [smooth([2, 3], f64, lo, hi)], **args)
    fx.case(name + " f64 transposed", name, [T(smooth([3, 4], f64, lo, hi))], **args)
    fx.case(name + " f32", name, [smooth([5], f32, lo, hi)], **args)
    fx.case(name + " zero-size", name, [smooth([0], f64, lo, hi)], **args)
    if op in ROUNDING and not args.get("decimals"):
        fx.case(name + " int64 stays", name, [rnd([4], "int64")], **args)
    else:
        fx.error(name + " int64", name, [rnd([3], "int64", 1, 5)], "GLIA_ERR_DTYPE", **args)


def math():
    fx = MathFx(OPS, DIFF)
    for op in UNARY:
        unary_cases(fx, op)
    unary_cases(fx, "round")
    for d in (2, -1):
        unary_cases(fx, "round", decimals=d)
    fx.case("round decimals 3 f32", "round", [torch.tensor([1.23456, -0.0005, 2.5e-3, 1234.5678])], decimals=3)
    fx.case("round decimals -2 f64", "round", [torch.tensor([1250.0, 1350.0, -49.9, 12345.6], dtype=torch.float64)],
            decimals=-2, gradcheck=False)
    lo, hi = DOMAINS["logit"]
    x = torch.linspace(-0.5, 1.5, 9, dtype=torch.float64)
    # (eps > 0.5 is left out: torch's vectorised and scalar paths disagree there.)
    for eps in (None, 0.1, 0.0, 0.5):
        e = {} if eps is None else {"eps": eps}
        tag = "eps None" if eps is None else "eps %r" % eps
        fx.case("logit %s f64" % tag, "logit", [smooth([2, 3], f64, lo, hi)], **e)
        fx.case("logit %s across the edges" % tag, "logit", [x], gradcheck=False, **e)
        fx.case("logit %s f32 specials" % tag, "logit", [SPECIALS.float()], **e)
    fx.case("logit f64 transposed", "logit", [T(smooth([3, 4], f64, lo, hi))], eps=0.2)
    fx.case("logit f64 0-dim", "logit", [smooth([], f64, lo, hi)])
    fx.case("logit zero-size", "logit", [smooth([0, 3], f64, lo, hi)])
    fx.case("logit f32", "logit", [smooth([7], f32, lo, hi)], eps=1e-6)
    fx.case("logit bfloat16", "logit", [smooth([6], bf16, lo, hi)], tol=1e-2)
    fx.case("logit int64 -> float32", "logit", [rnd([4], "int64", 0, 2)], eps=0.25)
    fx.case("logit bool -> float32", "logit", [rnd([4], "bool")])
    # in place
    for op in UNARY:
        inplace_cases(fx, op)
    inplace_cases(fx, "round")
    inplace_cases(fx, "round", decimals=1)
    inplace_cases(fx, "logit", eps=0.1)
    inplace_cases(fx, "logit")
    fx.error("floor_ bool", "floor_", [rnd([3], "bool")], "GLIA_ERR_DTYPE")
    binary(fx)
    lerp(fx)
    return fx


def lerp(fx):
    sm = smooth
    fx.case("lerp f64", "lerp", [sm([2, 3]), sm([2, 3]), sm([2, 3], f64, 0, 1)])
    fx.case("lerp f64 broadcast", "lerp", [sm([3, 1]), sm([4]), sm([3, 4], f64, 0, 1)])
    fx.case("lerp f64 weight broadcast", "lerp", [sm([2, 3]), sm([2, 3]), sm([3], f64, -0.5, 1.5)])
    fx.case("lerp f64 transposed", "lerp", [T(sm([3, 4])), sm([3, 4]), T(sm([3, 4], f64, 0, 1))])
    fx.case("lerp f64 0-dim weight", "lerp", [sm([4]), sm([4]), sm([], f64, 0, 1)])
    fx.case("lerp zero-size", "lerp", [sm([0, 2]), sm([2]), sm([2])])
    fx.case("lerp f32", "lerp", [sm([7], f32), sm([7], f32), sm([7], f32, 0, 1)])
    fx.case("lerp f32 weight 0, 0.5, 1 and outside", "lerp",
            [torch.full([5], 1.5), torch.full([5], -4.0), torch.tensor([0.0, 0.5, 1.0, 2.0, -1.0])])
    fx.case("lerp f32 specials", "lerp", [SPECIALS.float(), torch.ones(8), torch.full([8], 0.25)])
    fx.case("lerp bfloat16", "lerp", [sm([5], bf16), sm([5], bf16), sm([5], bf16, 0, 1)], tol=1e-2)
    maybe(fx, "lerp float16", "lerp", [sm([5], f16), sm([5], f16), sm([5], f16, 0, 1)], tol=2e-3)
    fx.error("lerp end dtype", "lerp", [rnd([3], f32), rnd([3], f64), rnd([3], f32)], "GLIA_ERR_DTYPE")
    fx.error("lerp weight dtype", "lerp", [rnd([3], f32), rnd([3], f32), rnd([3], f64)], "GLIA_ERR_DTYPE")
    fx.error("lerp int64", "lerp", [rnd([3], "int64"), rnd([3], "int64"), rnd([3], "int64")], "GLIA_ERR_DTYPE")
    fx.error("lerp shape mismatch", "lerp", [rnd([2]), rnd([3]), rnd([3])], "GLIA_ERR_SHAPE", message=False)
    for w in (0.25, 0.75, 1.0, -0.5):
        fx.case("lerp_scalar f64 weight %r" % w, "lerp_scalar", [sm([2, 3]), sm([2, 3])], weight=w)
    fx.case("lerp_scalar f64 broadcast", "lerp_scalar", [sm([3, 1]), sm([4])], weight=0.3)
    fx.case("lerp_scalar f64 transposed", "lerp_scalar", [T(sm([3, 4])), sm([3, 4])], weight=0.6)
    fx.case("lerp_scalar 0-dim", "lerp_scalar", [sm([]), sm([])], weight=0.4)
    fx.case("lerp_scalar zero-size", "lerp_scalar", [sm([0]), sm([0])], weight=0.4)
    fx.case("lerp_scalar f32", "lerp_scalar", [sm([7], f32), sm([7], f32)], weight=0.7)
    fx.case("lerp_scalar f32 specials", "lerp_scalar", [SPECIALS.float(), SPECIALS.flip(0).float()], weight=0.5)
    fx.case("lerp_scalar bfloat16", "lerp_scalar", [sm([5], bf16), sm([5], bf16)], weight=0.3, tol=1e-2)
    fx.error("lerp_scalar end dtype", "lerp_scalar", [rnd([3], f32), rnd([3], f64)], "GLIA_ERR_DTYPE", weight=0.5)
    fx.error("lerp_scalar int64", "lerp_scalar", [rnd([3], "int64"), rnd([3], "int64")], "GLIA_ERR_DTYPE",
             weight=0.5)


def binary(fx):
    """Binary math, bitwise ops and predicates (added after the cases above: their random inputs stay)."""
    sm = smooth
    pos = {"hypot": None, "xlogy": (0.1, 3.0)}
    for op in BINARY:
        lo, hi = pos.get(op) or (-2.0, 2.0)
        a, b = (lambda sh, dt=f64: sm(sh, dt)), (lambda sh, dt=f64: sm(sh, dt, lo, hi))
        if op in ("fmod", "remainder"):  # divisors away from 0; quotients away from the jumps
            b = lambda sh, dt=f64: sm(sh, dt, 0.7, 1.3) * torch.where(sm(sh) < 0, -1.0, 1.0).to(DT[dt])
        fx.case(op + " f64", op, [a([2, 3]), b([2, 3])])
        fx.case(op + " f64 broadcast", op, [a([3, 1]), b([4])])
        fx.case(op + " f64 transposed", op, [T(a([3, 4])), b([3, 4])])
        fx.case(op + " f64 0-dim", op, [a([]), b([2])])
        fx.case(op + " zero-size", op, [a([0, 2]), b([2])])
        fx.case(op + " f32", op, [a([7], f32), b([7], f32)])
        maybe(fx, op + " float16", op, [a([5], f16), b([5], f16)], tol=2e-3)
        maybe(fx, op + " bfloat16", op, [a([5], bf16), b([5], bf16)], tol=1e-2)
        sp = SPECIALS.float()
        fx.case(op + " specials f32", op, [sp, sp.flip(0)])
        fx.case(op + " specials f64", op, [SPECIALS, SPECIALS.flip(0)], gradcheck=False, grads=False)
        if op == "hypot":
            fx.error("hypot int64", op, [rnd([3], "int64"), rnd([3], "int64")], "GLIA_ERR_DTYPE")
        elif op in ("fmod", "remainder"):
            fx.case(op + " int64 signs", op, [torch.tensor([7, -7, 7, -7, 0, 6]), torch.tensor([3, 3, -3, -3, 5, -4])])
            fx.case(op + " int32 + float32", op, [rnd([5], "int32"), torch.tensor([1.5, -2.0, 0.75, -1.25, 3.0])])
            fx.case(op + " uint8", op, [rnd([5], "uint8", 0, 50), rnd([5], "uint8", 1, 9)])
            fx.case(op + " f32 by zero", op, [torch.tensor([1.0, -1.0, 0.0]), torch.zeros(3)])
            fx.error(op + " int64 by zero", op, [torch.tensor([1, 2, 3]), torch.tensor([1, 0, 1])],
                     "GLIA_ERR_INVALID_ARGUMENT")
            fx.error(op + " bool", op, [rnd([3], "bool"), rnd([3], "bool")], "GLIA_ERR_DTYPE")
        else:
            fx.case(op + " int64 + int64", op, [rnd([5], "int64", 1, 5), rnd([5], "int64", 1, 5)])
            fx.case(op + " int64 + float32", op, [rnd([5], "int64", 1, 5), sm([5], f32, 0.5, 2)])
        if op in ("fmax", "fmin"):
            fx.case(op + " NaN ignored", op, [torch.tensor([NAN, 1.0, NAN, -INF]), torch.tensor([2.0, NAN, NAN, 3.0])])
            fx.case(op + " ties", op, [torch.tensor([1.0, 2.0], dtype=torch.float64),
                                       torch.tensor([1.0, 3.0], dtype=torch.float64)], gradcheck=False)
            fx.case(op + " NaN f64 grads", op, [torch.tensor([NAN, 1.0, 0.5], dtype=torch.float64),
                                                torch.tensor([2.0, NAN, -1.0], dtype=torch.float64)], gradcheck=False)
            fx.case(op + " bool", op, [rnd([5], "bool"), rnd([5], "bool")])
        if op == "xlogy":
            fx.case("xlogy zeros f64", op, [torch.tensor([0.0, 0.0, 0.0, 2.0], dtype=torch.float64),
                                            torch.tensor([0.0, -1.0, NAN, 0.0], dtype=torch.float64)],
                    gradcheck=False)
        if op == "copysign":
            fx.case("copysign zeros f64", op, [torch.tensor([0.0, -0.0, 1.5, -2.0], dtype=torch.float64),
                                               torch.tensor([-1.0, 1.0, -0.0, 0.0], dtype=torch.float64)],
                    gradcheck=False)
        fx.error(op + " shape mismatch", op, [rnd([2, 3]), rnd([2, 4])], "GLIA_ERR_SHAPE")
    # nan_to_num
    x = torch.tensor([NAN, INF, -INF, 1.5, -0.0], dtype=torch.float64)
    fx.case("nan_to_num f64 defaults", "nan_to_num", [x], gradcheck=False)
    fx.case("nan_to_num f64", "nan_to_num", [sm([2, 3])], nan=1.0, posinf=2.0, neginf=-3.0)
    fx.case("nan_to_num f64 transposed", "nan_to_num", [T(sm([3, 4]))])
    fx.case("nan_to_num zero-size", "nan_to_num", [sm([0])])
    fx.case("nan_to_num f32 defaults", "nan_to_num", [x.float()])
    fx.case("nan_to_num f32 values", "nan_to_num", [x.float()], nan=-1.0, posinf=1e30, neginf=-7.0)
    fx.case("nan_to_num f32 posinf only", "nan_to_num", [x.float()], posinf=5.0)
    fx.case("nan_to_num float16 defaults", "nan_to_num", [x.half()])
    fx.case("nan_to_num bfloat16 defaults", "nan_to_num", [x.bfloat16()])
    fx.case("nan_to_num int64 copies", "nan_to_num", [rnd([4], "int64")], nan=1.0)
    # bitwise
    i1, i2 = torch.tensor([12, -7, 0, 255, 1 << 40]), torch.tensor([10, 3, -1, 15, 3])
    for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        fx.case(op + " int64", op, [i1, i2])
        fx.case(op + " bool", op, [torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])])
        fx.case(op + " uint8", op, [rnd([5], "uint8", 0, 250), rnd([5], "uint8", 0, 250)])
        fx.case(op + " int32 + int64 broadcast", op, [rnd([3, 1], "int32", -50, 50), rnd([4], "int64", -50, 50)])
        fx.case(op + " transposed", op, [T(rnd([3, 4], "int64", -50, 50)), rnd([3, 4], "int64", -50, 50)])
        fx.case(op + " bool + int64", op, [torch.tensor([True, False]), torch.tensor([6, 7])])
        fx.case(op + " zero-size", op, [rnd([0], "int64"), rnd([1], "int64")])
        fx.error(op + " float32", op, [rnd([3], f32), rnd([3], f32)], "GLIA_ERR_DTYPE")
        fx.error(op + " int64 + float64", op, [rnd([3], "int64"), rnd([3], f64)], "GLIA_ERR_DTYPE")
    # Counts within the width only: torch 1.13 leaves larger or negative counts to the hardware.
    for op in ("bitwise_left_shift", "bitwise_right_shift"):
        fx.case(op + " int64", op, [torch.tensor([1, -8, 5, -1, 1 << 40]), torch.tensor([3, 2, 0, 63, 20])])
        fx.case(op + " int32", op, [torch.tensor([1, -8, 5, 7], dtype=torch.int32),
                                    torch.tensor([31, 1, 4, 2], dtype=torch.int32)])
        fx.case(op + " uint8", op, [torch.tensor([1, 200, 5], dtype=torch.uint8),
                                    torch.tensor([7, 1, 2], dtype=torch.uint8)])
        fx.case(op + " broadcast", op, [rnd([3, 1], "int64", -50, 50), rnd([4], "int64", 0, 8)])
        fx.error(op + " float32", op, [rnd([3], f32), rnd([3], "int64", 0, 3)], "GLIA_ERR_DTYPE")
        fx.error(op + " bool", op, [rnd([3], "bool"), rnd([3], "bool")], "GLIA_ERR_DTYPE")
    fx.case("bitwise_not int64", "bitwise_not", [i1])
    fx.case("bitwise_not bool", "bitwise_not", [torch.tensor([True, False])])
    fx.case("bitwise_not uint8 transposed", "bitwise_not", [T(rnd([3, 4], "uint8", 0, 250))])
    fx.case("bitwise_not int32", "bitwise_not", [rnd([5], "int32", -50, 50)])
    fx.error("bitwise_not float32", "bitwise_not", [rnd([3], f32)], "GLIA_ERR_DTYPE")
    # predicates
    for op in ("isnan", "isinf", "isfinite", "isposinf", "isneginf"):
        fx.case(op + " f32 specials", op, [SPECIALS.float()])
        fx.case(op + " f64 specials", op, [SPECIALS])
        fx.case(op + " float16", op, [SPECIALS.half()])
        fx.case(op + " bfloat16", op, [SPECIALS.bfloat16()])
        fx.case(op + " transposed", op, [T(torch.tensor([[NAN, 1.0, INF], [-INF, 0.0, 2.0]]))])
        fx.case(op + " int64", op, [rnd([4], "int64")])
        fx.case(op + " bool", op, [rnd([4], "bool")])
        fx.case(op + " zero-size", op, [rnd([0, 2], f32)])
    # isclose
    a = torch.tensor([1.0, 1.0 + 1e-6, 1.0 + 1e-3, NAN, INF, INF, 0.0, -0.0])
    b = torch.tensor([1.0, 1.0, 1.0, NAN, INF, -INF, 1e-9, 0.0])
    fx.case("isclose f32 defaults", "isclose", [a, b])
    fx.case("isclose f32 equal_nan", "isclose", [a, b], equal_nan=True)
    fx.case("isclose f32 rtol", "isclose", [a, b], rtol=1e-2, atol=0.0)
    fx.case("isclose f32 zero tolerances", "isclose", [a, b], rtol=0.0, atol=0.0)
    fx.case("isclose f64 broadcast", "isclose", [a.double().reshape(2, 4), b.double()[:4]], atol=1e-4)
    fx.case("isclose transposed", "isclose", [T(a.reshape(2, 4)), b.reshape(2, 4)])
    fx.case("isclose int64", "isclose", [torch.tensor([1, 100, -5]), torch.tensor([1, 101, -5])], rtol=0.01)
    fx.case("isclose bool", "isclose", [torch.tensor([True, False]), torch.tensor([True, True])])
    fx.case("isclose zero-size", "isclose", [rnd([0], f32), rnd([0], f32)])
    fx.error("isclose dtype mismatch", "isclose", [rnd([3], f32), rnd([3], f64)], "GLIA_ERR_DTYPE")
    fx.error("isclose negative rtol", "isclose", [rnd([3], f32), rnd([3], f32)], "GLIA_ERR_INVALID_ARGUMENT",
             rtol=-1.0)
    fx.error("isclose negative atol", "isclose", [rnd([3], f32), rnd([3], f32)], "GLIA_ERR_INVALID_ARGUMENT",
             atol=-1.0)


if __name__ == "__main__":
    math().write("math.json")
