#!/usr/bin/python3
"""Golden fixtures of the elementwise and special functions (logaddexp, logaddexp2, heaviside,
nextafter, igamma, igammac, ldexp, float_power, dist, frexp, polygamma, mvlgamma, i0, special_i1,
sinc, renorm): ops/special.json, one case per line. Format: see golden.py.

    cd tests/golden && /usr/bin/python3 gen_special.py

New cases go at the end of their op's block or of the file; every input is drawn from golden.py's
seeded generator or written out, so a case's values depend only on the cases before it.
"""

import torch

from gen_elementwise import SPECIALS, maybe
from gen_math import MathFx
from golden import T, rnd, smooth

f64, f32, f16, bf16 = "float64", "float32", "float16", "bfloat16"
NAN, INF = float("nan"), float("inf")


def _igamma(f):
    # torch has no derivative for the first argument: the gradient cases leave it out (grads null).
    return lambda xs, a: f(xs[0].detach(), xs[1])


OPS = {
    "logaddexp": lambda xs, a: torch.logaddexp(xs[0], xs[1]),
    "logaddexp2": lambda xs, a: torch.logaddexp2(xs[0], xs[1]),
    "heaviside": lambda xs, a: torch.heaviside(xs[0], xs[1]),
    "nextafter": lambda xs, a: torch.nextafter(xs[0], xs[1]),
    "igamma": _igamma(torch.igamma),
    "igammac": _igamma(torch.igammac),
    "ldexp": lambda xs, a: torch.ldexp(xs[0], xs[1]),
    "float_power": lambda xs, a: torch.float_power(xs[0], xs[1]),
    "dist": lambda xs, a: torch.dist(xs[0], xs[1], a["p"]),
    "frexp": lambda xs, a: tuple(torch.frexp(xs[0])),
    "polygamma": lambda xs, a: torch.polygamma(a["n"], xs[0]),
    "mvlgamma": lambda xs, a: torch.mvlgamma(xs[0], a["p"]),
    "i0": lambda xs, a: torch.i0(xs[0]),
    "special_i1": lambda xs, a: torch.special.i1(xs[0]),
    "sinc": lambda xs, a: torch.sinc(xs[0]),
    "renorm": lambda xs, a: torch.renorm(xs[0], a["p"], a["dim"], a["maxnorm"]),
}
DIFF = set(OPS) - {"heaviside", "nextafter"}


class SpecialFx(MathFx):
    def case(self, *args, **kw):
        c = super().case(*args, **kw)
        if c is not None and c["op"] in ("igamma", "igammac") and "grads" in c:
            c["grads"][0] = None
        return c


def binary_common(fx, op, lo=-2.0, hi=2.0, blo=None, bhi=None):
    sm = smooth
    blo = lo if blo is None else blo
    bhi = hi if bhi is None else bhi
    a, b = (lambda sh, dt=f64: sm(sh, dt, lo, hi)), (lambda sh, dt=f64: sm(sh, dt, blo, bhi))
    fx.case(op + " f64", op, [a([2, 3]), b([2, 3])])
    fx.case(op + " f64 broadcast", op, [a([3, 1]), b([4])])
    fx.case(op + " f64 transposed", op, [T(a([3, 4])), b([3, 4])])
    fx.case(op + " f64 0-dim", op, [a([]), b([2])])
    fx.case(op + " zero-size", op, [a([0, 2]), b([2])])
    fx.case(op + " f32", op, [a([7], f32), b([7], f32)])
    fx.case(op + " f32 transposed", op, [T(a([3, 5], f32)), b([5], f32)])
    maybe(fx, op + " float16", op, [a([5], f16), b([5], f16)], tol=2e-3)
    maybe(fx, op + " bfloat16", op, [a([5], bf16), b([5], bf16)], tol=1e-2)
    fx.case(op + " f32 + f64 promotes", op, [a([4], f32), b([4])], grads=False)
    fx.error(op + " shape mismatch", op, [rnd([2, 3]), rnd([2, 4])], "GLIA_ERR_SHAPE")


def binary(fx):
    sp = SPECIALS
    for op in ("logaddexp", "logaddexp2"):
        binary_common(fx, op, -3.0, 3.0)
        fx.case(op + " specials f32", op, [sp.float(), sp.flip(0).float()])
        fx.case(op + " specials f64", op, [sp, sp.flip(0)], gradcheck=False, grads=False)
        fx.case(op + " equal infinities", op, [torch.tensor([INF, -INF, INF, -INF], dtype=torch.float64),
                                                torch.tensor([INF, -INF, -INF, INF], dtype=torch.float64)],
                gradcheck=False, grads=False)
        fx.case(op + " far apart f64", op, [torch.tensor([1000.0, -1000.0, 30.0, -745.0], dtype=torch.float64),
                                             torch.tensor([-1000.0, 999.0, 30.0, -746.0], dtype=torch.float64)],
                gradcheck=False)  # exp(1999) overflows in the second derivative (torch's formula too)
        fx.error(op + " int64", op, [rnd([3], "int64"), rnd([3], "int64")], "GLIA_ERR_DTYPE")
        fx.error(op + " bool", op, [rnd([3], "bool"), rnd([3], "bool")], "GLIA_ERR_DTYPE")
    # heaviside: not differentiable; zeros take `values`
    h = "heaviside"
    x = torch.tensor([-1.5, 0.0, -0.0, 2.0, NAN, INF, -INF, 0.0], dtype=torch.float64)
    fx.case(h + " f64", h, [x, torch.tensor([0.5, 0.25, 0.75, 9.0, 1.0, 1.0, 1.0, NAN], dtype=torch.float64)])
    fx.case(h + " f32 broadcast", h, [rnd([3, 1], f32, -2, 2), rnd([4], f32)])
    fx.case(h + " f32 0-dim values", h, [x.float(), torch.tensor(0.5)])
    fx.case(h + " transposed", h, [T(rnd([3, 4], f64, -2, 2)), rnd([3, 4], f64)])
    fx.case(h + " int64", h, [rnd([6], "int64", -2, 3), rnd([6], "int64")])
    fx.case(h + " uint8", h, [rnd([6], "uint8", 0, 3), rnd([6], "uint8")])
    fx.case(h + " bool", h, [torch.tensor([True, False, False]), torch.tensor([False, True, False])])
    fx.case(h + " bfloat16", h, [rnd([5], bf16, -2, 2), rnd([5], bf16)])
    fx.case(h + " zero-size", h, [rnd([0, 3], f32), rnd([3], f32)])
    fx.error(h + " dtype mismatch", h, [rnd([3], f32), rnd([3], f64)], "GLIA_ERR_DTYPE")
    fx.error(h + " int64 and float32", h, [rnd([3], "int64"), rnd([3], f32)], "GLIA_ERR_DTYPE")
    # nextafter: not differentiable
    n = "nextafter"
    a = torch.tensor([1.0, 1.0, 0.0, 0.0, -0.0, 2.5, NAN, 1.0, INF, -INF, 1e-300, 5.0], dtype=torch.float64)
    b = torch.tensor([2.0, 0.0, 1.0, -1.0, 1.0, 2.5, 1.0, NAN, 0.0, 0.0, 0.0, INF], dtype=torch.float64)
    fx.case(n + " f64", n, [a, b])
    fx.case(n + " f32", n, [a.float(), b.float()])
    fx.case(n + " bfloat16", n, [a.bfloat16(), b.bfloat16()], tol=0.0)
    fx.case(n + " f64 broadcast", n, [smooth([3, 1]), smooth([4])])
    fx.case(n + " f32 transposed", n, [T(smooth([3, 4], f32)), smooth([3, 4], f32)])
    fx.case(n + " zero-size", n, [smooth([0]), smooth([1])])
    fx.case(n + " f32 + f64 promotes", n, [smooth([4], f32), smooth([4])])
    fx.error(n + " int64", n, [rnd([3], "int64"), rnd([3], "int64")], "GLIA_ERR_DTYPE")
    # igamma / igammac: a in (0, 20) (torch 1.13's asymptotic branch for a > 20 near a == x is
    # accurate to about 1e-9 only), gradients for x
    for op in ("igamma", "igammac"):
        binary_common(fx, op, 0.3, 6.0, 0.1, 8.0)
        grid_a = torch.tensor([0.5, 1.0, 2.5, 7.0, 15.0, 19.0], dtype=torch.float64)
        grid_x = torch.tensor([0.01, 0.5, 1.0, 3.0, 9.0, 18.0, 30.0], dtype=torch.float64)
        fx.case(op + " grid f64", op, [grid_a.reshape(6, 1), grid_x])
        fx.case(op + " edges f64", op,
                [torch.tensor([0.0, 0.0, 1.0, -1.0, 1.0, INF, INF, 1.0, NAN, 2.0, 1e-3], dtype=torch.float64),
                 torch.tensor([1.0, 0.0, 0.0, 1.0, -1.0, 1.0, INF, INF, 1.0, NAN, 1e3], dtype=torch.float64)],
                gradcheck=False, grads=False)
        fx.case(op + " int64 + float32", op, [rnd([5], "int64", 1, 5), smooth([5], f32, 0.1, 4.0)])
        fx.error(op + " int64", op, [rnd([3], "int64", 1, 4), rnd([3], "int64", 1, 4)], "GLIA_ERR_DTYPE")
    # ldexp, float_power: torch's compositions
    binary_common(fx, "ldexp", -2.0, 2.0)
    fx.case("ldexp f64 int64 exponent", "ldexp", [smooth([5]), torch.tensor([0, 1, -2, 10, -1074])])
    fx.case("ldexp int64 int64 -> float32", "ldexp", [rnd([4], "int64"), rnd([4], "int64", -3, 3)])
    fx.case("ldexp int32 + f64", "ldexp", [rnd([4], "int32"), smooth([4])])
    fx.case("ldexp f32 specials", "ldexp", [SPECIALS.float(), torch.tensor([1.0, 2.0, 3.0, 1.0, 2.0, -1.0, 1.0, 300.0])])
    binary_common(fx, "float_power", 0.2, 3.0, -2.0, 2.0)
    fx.case("float_power int64", "float_power", [rnd([5], "int64", -3, 4), rnd([5], "int64", 0, 3)])
    fx.case("float_power negative base, whole exponents", "float_power",
            [torch.tensor([-2.0, -1.5, -0.5]), torch.tensor([2.0, 3.0, -1.0], dtype=torch.float64)])
    fx.case("float_power f32 base, 0-dim exponent", "float_power", [smooth([2, 3], f32, 0.2, 3.0),
                                                                    torch.tensor(2.5, dtype=torch.float64)])
    fx.case("float_power bool", "float_power", [rnd([4], "bool"), rnd([4], "bool")])
    # dist
    for p in (2.0, 1.0, 3.0, 0.5, INF, 0.0):
        fx.case("dist p=%r f64" % p, "dist", [smooth([3, 4]), smooth([4])], gradcheck=p != 0.0, grads=p != 0.0, p=p)
    fx.case("dist f64 transposed", "dist", [T(smooth([3, 4])), smooth([3, 4])], p=2.0)
    fx.case("dist f32", "dist", [smooth([7], f32), smooth([7], f32)], p=2.0)
    fx.case("dist f32 + f64", "dist", [smooth([5], f32), smooth([5])], p=3.0, grads=False)
    fx.case("dist 0-dim", "dist", [smooth([]), smooth([])], p=2.0)
    fx.case("dist zero-size", "dist", [smooth([0, 2]), smooth([2])], p=2.0)
    fx.case("dist equal inputs", "dist", [torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)],
            gradcheck=False, p=2.0)
    fx.error("dist int64", "dist", [rnd([3], "int64"), rnd([3], "int64")], "GLIA_ERR_DTYPE", p=2.0)
    fx.error("dist shape mismatch", "dist", [rnd([2]), rnd([3])], "GLIA_ERR_SHAPE", p=2.0)


def unary(fx):
    # frexp: (mantissa, int32 exponent)
    fx.case("frexp f64", "frexp", [smooth([2, 3], f64, -40.0, 40.0)])
    fx.case("frexp f64 transposed", "frexp", [T(smooth([3, 4], f64, -5.0, 5.0))])
    fx.case("frexp f64 0-dim", "frexp", [smooth([])])
    fx.case("frexp zero-size", "frexp", [smooth([0, 2])])
    fx.case("frexp f32", "frexp", [smooth([7], f32, -100.0, 100.0)])
    sp = torch.tensor([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 1e-310, -2.5e300, INF, -INF, NAN], dtype=torch.float64)
    fx.case("frexp specials f64", "frexp", [sp], gradcheck=False, grads=False)
    fx.case("frexp specials f32", "frexp", [sp.float()])
    fx.case("frexp bfloat16", "frexp", [rnd([5], bf16)], tol=0.0)
    fx.case("frexp float16", "frexp", [rnd([5], f16)], tol=0.0)
    fx.error("frexp int64", "frexp", [rnd([3], "int64")], "GLIA_ERR_DTYPE")
    fx.error("frexp bool", "frexp", [rnd([3], "bool")], "GLIA_ERR_DTYPE")
    # polygamma
    for n in range(5):
        fx.case("polygamma n=%d f64" % n, "polygamma", [smooth([2, 3], f64, 0.3, 4.0)], n=n)
        fx.case("polygamma n=%d f64 negative" % n, "polygamma", [smooth([5], f64, -4.0, -0.1)],
                gradcheck=False, n=n)
        fx.case("polygamma n=%d f32" % n, "polygamma", [smooth([6], f32, -3.0, 8.0)], n=n)
        fx.case("polygamma n=%d edges" % n, "polygamma",
                [torch.tensor([0.0, -1.0, -2.0, 1.0, 1e-3, 30.0, 1e6, INF, -INF, NAN], dtype=torch.float64)],
                gradcheck=False, grads=False, n=n)
    fx.case("polygamma n=6 f64", "polygamma", [smooth([4], f64, 0.5, 5.0)], n=6)
    fx.case("polygamma f64 transposed", "polygamma", [T(smooth([3, 4], f64, 0.5, 3.0))], n=2)
    fx.case("polygamma 0-dim", "polygamma", [smooth([], f64, 0.5, 3.0)], n=3)
    fx.case("polygamma zero-size", "polygamma", [smooth([0])], n=2)
    fx.case("polygamma int64 -> float32", "polygamma", [rnd([4], "int64", 1, 6)], n=2)
    fx.case("polygamma bfloat16", "polygamma", [smooth([4], bf16, 0.5, 3.0)], tol=2e-2, n=2)
    fx.error("polygamma negative n", "polygamma", [smooth([3])], "GLIA_ERR_INVALID_ARGUMENT", n=-1)
    # mvlgamma: defined for x > (p - 1) / 2
    for p in (1, 3, 5):
        lo = (p - 1) / 2 + 0.2
        fx.case("mvlgamma p=%d f64" % p, "mvlgamma", [smooth([2, 3], f64, lo, lo + 5.0)], p=p)
        fx.case("mvlgamma p=%d f32" % p, "mvlgamma", [smooth([6], f32, lo, lo + 8.0)], p=p)
    fx.case("mvlgamma f64 transposed", "mvlgamma", [T(smooth([3, 4], f64, 1.5, 4.0))], p=2)
    fx.case("mvlgamma 0-dim", "mvlgamma", [smooth([], f64, 1.5, 4.0)], p=2)
    fx.case("mvlgamma zero-size", "mvlgamma", [smooth([0])], p=2)
    fx.case("mvlgamma int64 -> float32", "mvlgamma", [rnd([4], "int64", 2, 9)], p=3)
    fx.case("mvlgamma below the domain", "mvlgamma", [torch.tensor([0.5, 1.0, 0.25, -0.5, INF, NAN],
                                                                    dtype=torch.float64)],
            gradcheck=False, grads=False, p=3)
    fx.error("mvlgamma p=0", "mvlgamma", [smooth([3], f64, 2.0, 3.0)], "GLIA_ERR_INVALID_ARGUMENT", p=0)
    fx.error("mvlgamma bool", "mvlgamma", [rnd([3], "bool")], "GLIA_ERR_DTYPE", p=1)
    # i0, special_i1 (Bessel), sinc
    for op in ("i0", "special_i1", "sinc"):
        fx.case(op + " f64", op, [smooth([2, 3], f64, -4.0, 4.0)])
        # values up to 1e25: finite differences are too coarse there; the gradients are torch's
        fx.case(op + " f64 wide", op, [smooth([8], f64, -60.0, 60.0)], gradcheck=False)
        fx.case(op + " f64 transposed", op, [T(smooth([3, 4], f64, -3.0, 3.0))])
        fx.case(op + " f64 0-dim", op, [smooth([], f64, -3.0, 3.0)])
        fx.case(op + " zero-size", op, [smooth([0, 2])])
        fx.case(op + " f32", op, [smooth([9], f32, -12.0, 12.0)])
        fx.case(op + " f32 transposed", op, [T(smooth([3, 5], f32, -3.0, 3.0))])
        maybe(fx, op + " bfloat16", op, [smooth([6], bf16, -3.0, 3.0)], tol=2e-2)
        fx.case(op + " int64 -> float32", op, [rnd([6], "int64", -4, 5)])
        fx.case(op + " bool -> float32", op, [rnd([4], "bool")])
        edges = [0.0, -0.0, 1e-8, -1e-8, 29.9, 30.1, -30.1, 100.0, 700.0, -700.0, 720.0, INF, -INF, NAN]
        if op == "sinc":
            edges = [0.0, -0.0, 1e-8, 1.0, -2.0, 0.5, 1e10, 2.5, INF, -INF, NAN]
        fx.case(op + " edges f64", op, [torch.tensor(edges, dtype=torch.float64)], gradcheck=False, grads=False)
        fx.case(op + " edges f32", op, [torch.tensor([e for e in edges if abs(e) < 90 or e != e or abs(e) == INF])])
    fx.case("sinc at 0 f64", "sinc", [torch.tensor([0.0, 0.25], dtype=torch.float64)], gradcheck=False)
    # renorm
    for p, dim, maxnorm in ((2.0, 0, 1.5), (1.0, 1, 2.0), (3.0, -1, 1.0), (2.0, 2, 100.0), (0.5, 0, 3.0)):
        fx.case("renorm p=%r dim=%d maxnorm=%r f64" % (p, dim, maxnorm), "renorm", [smooth([3, 4, 2])],
                p=p, dim=dim, maxnorm=maxnorm)
    fx.case("renorm f64 transposed", "renorm", [T(smooth([4, 3]))], p=2.0, dim=1, maxnorm=0.8)
    fx.case("renorm f32", "renorm", [smooth([5, 3], f32)], p=2.0, dim=0, maxnorm=1.0)
    fx.case("renorm zero maxnorm", "renorm", [smooth([2, 3])], p=2.0, dim=0, maxnorm=0.0)
    fx.case("renorm zero-size", "renorm", [smooth([0, 3])], p=2.0, dim=1, maxnorm=1.0)
    fx.error("renorm p=0", "renorm", [smooth([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", p=0.0, dim=0, maxnorm=1.0)
    fx.error("renorm negative maxnorm", "renorm", [smooth([2, 3])], "GLIA_ERR_INVALID_ARGUMENT",
             p=2.0, dim=0, maxnorm=-1.0)
    fx.error("renorm 1-D", "renorm", [smooth([3])], "GLIA_ERR_SHAPE", p=2.0, dim=0, maxnorm=1.0)
    fx.error("renorm dim out of range", "renorm", [smooth([2, 3])], "GLIA_ERR_INVALID_ARGUMENT",
             p=2.0, dim=2, maxnorm=1.0)


def special():
    fx = SpecialFx(OPS, DIFF)
    binary(fx)
    unary(fx)
    return fx


if __name__ == "__main__":
    special().write("special.json")
