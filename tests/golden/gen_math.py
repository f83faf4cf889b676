#!/usr/bin/python3
"""Golden fixtures of the unary floating math and rounding ops (and their
in-place forms): ops/math.json, one case per line. Format: see golden.py.

    cd tests/golden && /usr/bin/python3 gen_math.py
"""

import json
import os

import torch

from gen_elementwise import Fx, SPECIALS, _inplace, maybe
from golden import OUT, T, rnd, smooth

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
DIFF = set(OPS)

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
    return fx


if __name__ == "__main__":
    math().write("math.json")
