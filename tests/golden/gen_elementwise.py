#!/usr/bin/python3
"""Golden fixtures of the elementwise family: ops/elementwise.json (scalar
operands, math, pow, clamp, maximum/minimum, where, comparisons, logic),
ops/activation.json and ops/inplace.json. Format: see golden.py.

    cd tests/golden && /usr/bin/python3 gen_elementwise.py
"""

import torch
import torch.nn.functional as F

from golden import Fixture, T, encode, nonzero, rnd, smooth

f64, f32, f16, bf16 = "float64", "float32", "float16", "bfloat16"
NAN, INF = float("nan"), float("inf")


def _clamp(xs, a):
    return torch.clamp(xs[0], a.get("min"), a.get("max"))


def _inplace(fn):
    """torch's in-place op on a clone (what the C adapters do)."""
    def run(xs, a):
        y = xs[0].clone()
        fn(y, xs, a)
        return y
    return run


OPS = {
    "add_scalar": lambda xs, a: torch.add(xs[0], a["s"], alpha=a.get("alpha", 1)),
    "sub_scalar": lambda xs, a: torch.sub(xs[0], a["s"], alpha=a.get("alpha", 1)),
    "rsub_scalar": lambda xs, a: torch.rsub(xs[0], a["s"], alpha=a.get("alpha", 1)),
    "mul_scalar": lambda xs, a: torch.mul(xs[0], a["s"]),
    "div_scalar": lambda xs, a: torch.div(xs[0], a["s"], rounding_mode=a.get("rounding_mode")),
    "abs": lambda xs, a: torch.abs(xs[0]),
    "sign": lambda xs, a: torch.sign(xs[0]),
    "exp": lambda xs, a: torch.exp(xs[0]),
    "log": lambda xs, a: torch.log(xs[0]),
    "log1p": lambda xs, a: torch.log1p(xs[0]),
    "expm1": lambda xs, a: torch.expm1(xs[0]),
    "sqrt": lambda xs, a: torch.sqrt(xs[0]),
    "rsqrt": lambda xs, a: torch.rsqrt(xs[0]),
    "pow": lambda xs, a: torch.pow(xs[0], xs[1]),
    "pow_scalar": lambda xs, a: torch.pow(xs[0], a["exponent"]),
    "scalar_pow": lambda xs, a: torch.pow(a["base"], xs[0]),
    "clamp": _clamp,
    "clamp_tensor": lambda xs, a: torch.clamp(xs[0], xs[1], xs[2]),
    "maximum": lambda xs, a: torch.maximum(xs[0], xs[1]),
    "minimum": lambda xs, a: torch.minimum(xs[0], xs[1]),
    "where": lambda xs, a: torch.where(xs[0], xs[1], xs[2]),
    "logical_and": lambda xs, a: torch.logical_and(xs[0], xs[1]),
    "logical_or": lambda xs, a: torch.logical_or(xs[0], xs[1]),
    "logical_xor": lambda xs, a: torch.logical_xor(xs[0], xs[1]),
    "logical_not": lambda xs, a: torch.logical_not(xs[0]),
    # activations
    "relu": lambda xs, a: F.relu(xs[0]),
    "leaky_relu": lambda xs, a: F.leaky_relu(xs[0], a.get("negative_slope", 0.01)),
    "elu": lambda xs, a: torch._C._nn.elu(xs[0], a.get("alpha", 1.0), a.get("scale", 1.0), a.get("input_scale", 1.0)),
    "gelu": lambda xs, a: F.gelu(xs[0], approximate=a.get("approximate", "none")),
    "silu": lambda xs, a: F.silu(xs[0]),
    "hardswish": lambda xs, a: F.hardswish(xs[0]),
    "sigmoid": lambda xs, a: torch.sigmoid(xs[0]),
    "tanh": lambda xs, a: torch.tanh(xs[0]),
    "softplus": lambda xs, a: F.softplus(xs[0], a.get("beta", 1.0), a.get("threshold", 20.0)),
    "hardtanh": lambda xs, a: F.hardtanh(xs[0], a.get("min_val", -1.0), a.get("max_val", 1.0)),
    # in place
    "add_": _inplace(lambda y, xs, a: y.add_(xs[1], alpha=a.get("alpha", 1))),
    "sub_": _inplace(lambda y, xs, a: y.sub_(xs[1], alpha=a.get("alpha", 1))),
    "mul_": _inplace(lambda y, xs, a: y.mul_(xs[1])),
    "div_": _inplace(lambda y, xs, a: y.div_(xs[1])),
    "add_scalar_": _inplace(lambda y, xs, a: y.add_(a["s"], alpha=a.get("alpha", 1))),
    "mul_scalar_": _inplace(lambda y, xs, a: y.mul_(a["s"])),
    "addcmul_": _inplace(lambda y, xs, a: y.addcmul_(xs[1], xs[2], value=a.get("value", 1))),
    "addcdiv_": _inplace(lambda y, xs, a: y.addcdiv_(xs[1], xs[2], value=a.get("value", 1))),
    "zero_": _inplace(lambda y, xs, a: y.zero_()),
    "fill_": _inplace(lambda y, xs, a: y.fill_(a["value"])),
    "copy_": _inplace(lambda y, xs, a: y.copy_(xs[1])),
    "clamp_": _inplace(lambda y, xs, a: y.clamp_(a.get("min"), a.get("max"))),
    "relu_": _inplace(lambda y, xs, a: y.relu_()),
}
CMP = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge}
for _n, _f in CMP.items():
    OPS[_n] = (lambda f: lambda xs, a: f(xs[0], xs[1]))(_f)
    OPS[_n + "_scalar"] = (lambda f: lambda xs, a: f(xs[0], a["s"]))(_f)

DIFF = {k for k in OPS if k not in CMP and not k.endswith("_scalar") and not k.startswith("logical")}
DIFF |= {"add_scalar", "sub_scalar", "rsub_scalar", "mul_scalar", "div_scalar", "pow_scalar", "scalar_pow",
         "add_scalar_", "mul_scalar_"}
DIFF -= {"eq_scalar", "ne_scalar", "lt_scalar", "le_scalar", "gt_scalar", "ge_scalar"}

class Fx(Fixture):
    """Skips cases torch 1.13 does not implement on CPU (several float16 kernels); glia computes them."""

    def case(self, *args, **kw):
        try:
            c = super().case(*args, **kw)
        except RuntimeError as e:
            if "not implemented for 'Half'" not in str(e):
                raise
            return None
        c["args"] = {k: encode(v) for k, v in c["args"].items()}
        return c

    def error(self, *args, **kw):
        super().error(*args, **kw)
        e = self.errors[-1]
        e["args"] = {k: encode(v) for k, v in e["args"].items()}


def maybe(fx, *args, **kw):
    """A case torch 1.13 may not implement on CPU (several float16 kernels): skipped when torch fails."""
    try:
        fx.case(*args, **kw)
    except RuntimeError as e:
        assert "not implemented for" in str(e), e


SPECIALS = torch.tensor([0.0, -0.0, 1.5, -2.5, NAN, INF, -INF, 1e-3], dtype=torch.float64)


def elementwise():
    fx = Fx(OPS, DIFF)
    # ---- scalar operands
    for op in ("add_scalar", "sub_scalar", "rsub_scalar", "mul_scalar", "div_scalar"):
        alpha = {} if op in ("mul_scalar", "div_scalar") else {"alpha": 2}
        fx.case(op + " f64 float scalar", op, [smooth([2, 3])], s=1.5, **alpha)
        fx.case(op + " f64 int scalar transposed", op, [T(smooth([3, 4]))], s=3, **alpha)
        fx.case(op + " f64 0-dim", op, [smooth([])], s=-0.5)
        fx.case(op + " zero-size", op, [smooth([0, 3])], s=2)
        fx.case(op + " f32", op, [rnd([5], f32)], s=0.25)
        fx.case(op + " float16", op, [rnd([5], f16)], s=2.5)
        fx.case(op + " bfloat16 int scalar", op, [rnd([5], bf16)], s=3)
        fx.case(op + " int64 float scalar -> float32", op, [rnd([2, 3], "int64")], s=0.5)
        fx.case(op + " int32 int scalar stays int32", op, [rnd([2, 3], "int32", 1, 9)], s=3)
        fx.case(op + " uint8 int scalar", op, [rnd([4], "uint8", 1, 9)], s=2)
        if op != "div_scalar":
            fx.case(op + " f64 alpha float", op, [smooth([2, 3])], s=2, alpha=-0.5)
    fx.case("add_scalar bool tensor bool scalar", "add_scalar", [rnd([4], "bool")], s=True)
    fx.case("add_scalar bool tensor int scalar", "add_scalar", [rnd([4], "bool")], s=2)
    fx.case("mul_scalar bool tensor float scalar", "mul_scalar", [rnd([4], "bool")], s=1.5)
    for mode in ("trunc", "floor"):
        fx.case("div_scalar %s int64" % mode, "div_scalar", [torch.tensor([7, -7, 6, -1])], s=2, rounding_mode=mode)
        fx.case("div_scalar %s f32" % mode, "div_scalar", [torch.tensor([7.5, -7.5, 6.0, -1.0])], s=-2.0,
                rounding_mode=mode)
        fx.case("div_scalar %s f64 by 0" % mode, "div_scalar", [torch.tensor([1.0, -1.0, 0.0])], s=0.0,
                rounding_mode=mode, grads=False)
    fx.case("div_scalar true int by int -> float32", "div_scalar", [torch.tensor([7, -7, 6])], s=2)
    fx.case("div_scalar by zero -> inf", "div_scalar", [torch.tensor([1.0, -1.0, 0.0], dtype=torch.float64)], s=0,
            gradcheck=False)
    fx.error("sub_scalar bool", "sub_scalar", [rnd([3], "bool")], "GLIA_ERR_DTYPE", s=1)
    fx.error("rsub_scalar bool", "rsub_scalar", [rnd([3], "bool")], "GLIA_ERR_DTYPE", s=1)
    fx.error("add_scalar int float alpha", "add_scalar", [rnd([3], "int64")], "GLIA_ERR_INVALID_ARGUMENT", s=1,
             alpha=0.5)
    fx.error("div_scalar int trunc by zero", "div_scalar", [rnd([3], "int64")], "GLIA_ERR_INVALID_ARGUMENT", s=0,
             rounding_mode="trunc")
    fx.error("div_scalar bad rounding mode", "div_scalar", [rnd([3], f32)], "GLIA_ERR_INVALID_ARGUMENT", s=2,
             rounding_mode="round")

    # ---- unary math
    domains = {"log": (0.1, 3.0), "sqrt": (0.1, 3.0), "rsqrt": (0.1, 3.0), "log1p": (-0.9, 3.0)}
    for op in ("abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt"):
        lo, hi = domains.get(op, (-2.0, 2.0))
        fx.case(op + " f64", op, [smooth([2, 3], f64, lo, hi)])
        fx.case(op + " f64 transposed", op, [T(smooth([3, 4], f64, lo, hi))])
        fx.case(op + " f64 0-dim", op, [smooth([], f64, lo, hi)])
        fx.case(op + " zero-size", op, [smooth([0, 2], f64, lo, hi)])
        fx.case(op + " f32", op, [smooth([7], f32, lo, hi)])
        maybe(fx, op + " float16", op, [smooth([6], f16, lo, hi)], tol=2e-3)
        fx.case(op + " bfloat16", op, [smooth([6], bf16, lo, hi)], tol=1e-2)
        fx.case(op + " specials f64", op, [SPECIALS], gradcheck=False)
        fx.case(op + " specials f32", op, [SPECIALS.float()])
        fx.case(op + " int64", op, [rnd([2, 3], "int64", 0 if op in domains else -5, 9)])
        fx.case(op + " int32", op, [rnd([5], "int32", 0 if op in domains else -5, 9)])
        fx.case(op + " uint8", op, [rnd([5], "uint8", 0, 250)])
    fx.case("sign bool", "sign", [rnd([5], "bool")])
    for op in ("exp", "log", "sqrt", "log1p"):
        fx.case(op + " bool -> float32", op, [rnd([5], "bool")])
    fx.case("abs int64 min-ish", "abs", [torch.tensor([-5, 0, 7, -(2 ** 40)])])
    fx.error("abs bool", "abs", [rnd([3], "bool")], "GLIA_ERR_DTYPE")

    # ---- pow
    fx.case("pow f64", "pow", [smooth([2, 3], f64, 0.2, 2), smooth([2, 3])])
    fx.case("pow f64 broadcast", "pow", [smooth([3, 1], f64, 0.2, 2), smooth([4])])
    fx.case("pow f64 transposed", "pow", [T(smooth([3, 4], f64, 0.2, 2)), smooth([3, 4])])
    fx.case("pow f64 zero base and zero exponent", "pow",
            [torch.tensor([0.0, 0.0, 2.0, 0.0], dtype=torch.float64), torch.tensor([0.0, 2.0, 0.0, 1.5],
                                                                                   dtype=torch.float64)],
            gradcheck=False)
    fx.case("pow f32 specials", "pow", [SPECIALS.float(), torch.full([8], 0.5)])
    fx.case("pow f32 negative base", "pow", [torch.tensor([-2.0, -2.0, -8.0]), torch.tensor([2.0, 0.5, 3.0])])
    fx.case("pow int64", "pow", [torch.tensor([-3, -1, 0, 2, 3, 2]), torch.tensor([-1, -3, -2, -1, 3, 10])])
    fx.case("pow int32 + float32", "pow", [rnd([5], "int32", 1, 5), smooth([5], f32, 0, 2)])
    maybe(fx, "pow float16", "pow", [smooth([5], f16, 0.2, 2), smooth([5], f16)], tol=2e-3)
    fx.case("pow zero-size", "pow", [smooth([0, 2], f64, 0.2, 2), smooth([2])])
    fx.case("pow uint8 wraps", "pow", [torch.tensor([3, 2, 7], dtype=torch.uint8), torch.tensor([5, 9, 2],
                                                                                            dtype=torch.uint8)])
    fx.error("pow shape mismatch", "pow", [rnd([2, 3]), rnd([4])], "GLIA_ERR_SHAPE")
    for e in (2, 3, 0.5, -1, 2.5, -0.5, 0, 1, 0.0):
        fx.case("pow_scalar f64 ** %r" % (e,), "pow_scalar", [smooth([2, 3], f64, 0.2, 2)], exponent=e)
    fx.case("pow_scalar f64 transposed", "pow_scalar", [T(smooth([3, 4], f64, 0.2, 2))], exponent=1.5)
    fx.case("pow_scalar negative base ** 2", "pow_scalar", [smooth([4], f64)], exponent=2)
    fx.case("pow_scalar f32 specials ** 2", "pow_scalar", [SPECIALS.float()], exponent=2)
    maybe(fx, "pow_scalar float16", "pow_scalar", [smooth([5], f16, 0.2, 2)], exponent=3, tol=2e-3)
    fx.case("pow_scalar int64 ** 2", "pow_scalar", [rnd([2, 3], "int64")], exponent=2)
    fx.case("pow_scalar int64 ** 0.5 -> float32", "pow_scalar", [rnd([2, 3], "int64", 0, 9)], exponent=0.5)
    fx.case("pow_scalar bool ** 2 -> int64", "pow_scalar", [rnd([4], "bool")], exponent=2)
    fx.case("pow_scalar 0-dim", "pow_scalar", [smooth([], f64, 0.2, 2)], exponent=2)
    fx.error("pow_scalar int ** negative int", "pow_scalar", [rnd([3], "int64")], "GLIA_ERR_INVALID_ARGUMENT",
             exponent=-2)
    for b in (2, 2.5, 0.5):
        fx.case("scalar_pow %r ** f64" % (b,), "scalar_pow", [smooth([2, 3])], base=b)
    fx.case("scalar_pow 0 ** f64", "scalar_pow", [torch.tensor([-1.0, 0.0, 1.5], dtype=torch.float64)], base=0.0,
            gradcheck=False)
    fx.case("scalar_pow 2 ** int64", "scalar_pow", [rnd([5], "int64", 0, 9)], base=2)
    fx.case("scalar_pow 2.5 ** int64 -> float32", "scalar_pow", [rnd([5], "int64", 0, 5)], base=2.5)
    fx.case("scalar_pow f32 transposed", "scalar_pow", [T(smooth([3, 4], f32))], base=3)
    fx.case("scalar_pow zero-size", "scalar_pow", [smooth([0])], base=2)

    # ---- clamp
    x = smooth([3, 4], f64, -3, 3)
    fx.case("clamp both", "clamp", [x], min=-1.0, max=1.5)
    fx.case("clamp min only", "clamp", [x], min=-0.5)
    fx.case("clamp max only int bound", "clamp", [x], max=1)
    fx.case("clamp transposed", "clamp", [T(x)], min=-1.0, max=1.0)
    fx.case("clamp min > max", "clamp", [x], min=2.0, max=-1.0)
    fx.case("clamp f32 specials", "clamp", [SPECIALS.float()], min=-1.0, max=1.0)
    fx.case("clamp f32 NaN bound", "clamp", [SPECIALS.float()], min=NAN, max=1.0)
    fx.case("clamp f32 NaN max only (ignored)", "clamp", [SPECIALS.float()], max=NAN)
    fx.case("clamp f32 NaN min only (ignored)", "clamp", [SPECIALS.float()], min=NAN)
    fx.case("clamp f32 NaN min and max", "clamp", [SPECIALS.float()], min=NAN, max=NAN)
    fx.case("clamp float16", "clamp", [rnd([6], f16)], min=-1.5, max=2)
    fx.case("clamp bfloat16", "clamp", [rnd([6], bf16)], min=-1.5)
    fx.case("clamp int64 int bounds", "clamp", [rnd([2, 5], "int64")], min=-2, max=3)
    fx.case("clamp int64 float bound -> float32", "clamp", [rnd([2, 5], "int64")], min=-2.5)
    fx.case("clamp uint8", "clamp", [rnd([5], "uint8", 0, 20)], min=3, max=10)
    fx.case("clamp bool -> int64", "clamp", [rnd([5], "bool")], min=0, max=1)
    fx.case("clamp zero-size", "clamp", [smooth([0, 3])], min=0.0)
    fx.case("clamp 0-dim", "clamp", [smooth([])], min=-0.5, max=0.5)
    fx.case("clamp at the bounds", "clamp", [torch.tensor([-1.0, 1.0, 0.0, 2.0], dtype=torch.float64)], min=-1.0,
            max=1.0, gradcheck=False)
    fx.error("clamp without bounds", "clamp", [rnd([3], f32)], "GLIA_ERR_INVALID_ARGUMENT")
    lo, hi = smooth([3, 4], f64, -2, 0), smooth([4], f64, 0, 2)
    fx.case("clamp_tensor both broadcast", "clamp_tensor", [x, lo, hi])
    fx.case("clamp_tensor min only", "clamp_tensor", [x, lo, None])
    fx.case("clamp_tensor max only", "clamp_tensor", [x, None, hi])
    fx.case("clamp_tensor min > max", "clamp_tensor",
            [smooth([4], f64, -3, 3), smooth([4], f64, 0.5, 1), smooth([4], f64, -1, 0)])
    fx.case("clamp_tensor output broadcast", "clamp_tensor", [smooth([4], f64, -3, 3), smooth([3, 1], f64, -1, 0),
                                                              None])
    fx.case("clamp_tensor transposed", "clamp_tensor", [T(x), T(lo), None])
    fx.case("clamp_tensor int64 + float bound", "clamp_tensor", [rnd([4], "int64"), rnd([4], f32), None])
    fx.case("clamp_tensor f32 NaN", "clamp_tensor", [SPECIALS.float(), torch.zeros(8), torch.full([8], NAN)])
    fx.case("clamp_tensor zero-size", "clamp_tensor", [smooth([0, 4]), lo[0], None])
    fx.error("clamp_tensor without bounds", "clamp_tensor", [rnd([3], f32), None, None], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("clamp_tensor shape mismatch", "clamp_tensor", [rnd([3], f32), rnd([4], f32), None], "GLIA_ERR_SHAPE",
             message=False)  # glia names the shapes as "tensor a/b" of its pairwise broadcast

    # ---- maximum, minimum
    for op in ("maximum", "minimum"):
        fx.case(op + " f64", op, [smooth([2, 3]), smooth([2, 3])])
        fx.case(op + " f64 broadcast", op, [smooth([3, 1]), smooth([4])])
        fx.case(op + " f64 transposed", op, [T(smooth([3, 4])), smooth([3, 4])])
        fx.case(op + " f64 0-dim", op, [smooth([]), smooth([2])])
        fx.case(op + " ties", op, [torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64),
                                   torch.tensor([1.0, 3.0, -1.0], dtype=torch.float64)], gradcheck=False)
        fx.case(op + " NaN", op, [SPECIALS.float(), torch.tensor([NAN, 0, 2, -3, 1, 1, NAN, 0])])
        fx.case(op + " int32 + float32", op, [rnd([5], "int32"), rnd([5], f32)])
        fx.case(op + " int64", op, [rnd([5], "int64"), rnd([5], "int64")])
        fx.case(op + " bool", op, [rnd([5], "bool"), rnd([5], "bool")])
        maybe(fx, op + " float16", op, [rnd([5], f16), rnd([5], f16)])
        fx.case(op + " zero-size", op, [smooth([0, 2]), smooth([2])])
        fx.error(op + " shape mismatch", op, [rnd([2, 3]), rnd([2, 4])], "GLIA_ERR_SHAPE")

    # ---- where
    c = rnd([3, 4], "bool")
    fx.case("where f64", "where", [c, smooth([3, 4]), smooth([3, 4])])
    fx.case("where broadcast", "where", [rnd([3, 1], "bool"), smooth([4]), smooth([3, 4])])
    fx.case("where transposed", "where", [T(c), T(smooth([3, 4])), smooth([3, 4])])
    fx.case("where 0-dim operands", "where", [c, smooth([]), smooth([])])
    fx.case("where promotes int + float", "where", [rnd([4], "bool"), rnd([4], "int64"), rnd([4], f32)])
    fx.case("where int32", "where", [rnd([4], "bool"), rnd([4], "int32"), rnd([4], "int32")])
    fx.case("where float16", "where", [rnd([4], "bool"), rnd([4], f16), rnd([4], f16)])
    fx.case("where zero-size", "where", [rnd([0, 3], "bool"), smooth([0, 3]), smooth([3])])
    fx.error("where float condition", "where", [rnd([3], f32), rnd([3], f32), rnd([3], f32)], "GLIA_ERR_DTYPE")
    fx.error("where int64 condition", "where", [rnd([3], "int64"), rnd([3], f32), rnd([3], f32)], "GLIA_ERR_DTYPE")
    fx.error("where shape mismatch", "where", [rnd([3], "bool"), rnd([4], f32), rnd([3], f32)], "GLIA_ERR_SHAPE",
             message=False)  # torch words this as "The size of tensor a (4) must match ... b (3)" too, but its a/b differ

    # ---- comparisons and logic
    a = torch.tensor([1.0, 2.0, NAN, -INF, 0.0, -0.0, 3.5, 2.0])
    b = torch.tensor([1.0, 3.0, NAN, -INF, -0.0, 1.0, NAN, 1.5])
    for op in CMP:
        fx.case(op + " f32 incl. NaN", op, [a, b])
        fx.case(op + " broadcast", op, [rnd([3, 1], f64), rnd([4], f64)])
        fx.case(op + " transposed", op, [T(rnd([3, 4], f64)), rnd([3, 4], f64)])
        fx.case(op + " int64 vs float32", op, [rnd([6], "int64", -3, 3), rnd([6], f32, -3, 3)])
        fx.case(op + " uint8 vs int32", op, [rnd([6], "uint8", 0, 4), rnd([6], "int32", -1, 4)])
        fx.case(op + " bool", op, [rnd([6], "bool"), rnd([6], "bool")])
        fx.case(op + " float16", op, [rnd([6], f16, -2, 2), rnd([6], f16, -2, 2)])
        fx.case(op + " 0-dim", op, [rnd([], f64), rnd([2, 2], f64)])
        fx.case(op + " zero-size", op, [rnd([0, 2], f64), rnd([2], f64)])
        fx.error(op + " shape mismatch", op, [rnd([2, 3]), rnd([2, 2])], "GLIA_ERR_SHAPE")
        fx.case(op + "_scalar f64", op + "_scalar", [rnd([2, 3], f64, -2, 2)], s=0.5)
        fx.case(op + "_scalar f32 NaN", op + "_scalar", [a], s=2.0)
        fx.case(op + "_scalar f32 vs NaN", op + "_scalar", [a], s=NAN)
        fx.case(op + "_scalar int64 vs float", op + "_scalar", [rnd([6], "int64", -3, 3)], s=0.5)
        fx.case(op + "_scalar int64 vs int", op + "_scalar", [rnd([6], "int64", -3, 3)], s=1)
        fx.case(op + "_scalar uint8 vs negative", op + "_scalar", [rnd([4], "uint8", 0, 3)], s=-1)
        fx.case(op + "_scalar bool vs bool", op + "_scalar", [rnd([4], "bool")], s=True)
        fx.case(op + "_scalar transposed", op + "_scalar", [T(rnd([3, 4], f32))], s=0)
        fx.case(op + "_scalar zero-size", op + "_scalar", [rnd([0], f32)], s=0)
    for op in ("logical_and", "logical_or", "logical_xor"):
        fx.case(op + " bool", op, [torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])])
        fx.case(op + " f32 incl. NaN", op, [torch.tensor([0.0, NAN, -0.0, 2.0]), torch.tensor([1.0, 1.0, 1.0, 0.0])])
        fx.case(op + " int64 + float64 broadcast", op, [rnd([3, 1], "int64", -1, 2), rnd([4], f64, -1, 1)])
        fx.case(op + " transposed", op, [T(rnd([3, 4], "int32", 0, 2)), rnd([3, 4], "uint8", 0, 2)])
        fx.case(op + " zero-size", op, [rnd([0], "bool"), rnd([1], "bool")])
        fx.error(op + " shape mismatch", op, [rnd([2], "bool"), rnd([3], "bool")], "GLIA_ERR_SHAPE")
    fx.case("logical_not bool", "logical_not", [rnd([5], "bool")])
    fx.case("logical_not f32 incl. NaN", "logical_not", [torch.tensor([0.0, NAN, -0.0, 2.0])])
    fx.case("logical_not int64 transposed", "logical_not", [T(rnd([3, 4], "int64", -1, 2))])
    fx.case("logical_not zero-size", "logical_not", [rnd([0], f64)])
    return fx


def activation():
    fx = Fx(OPS, DIFF)
    cases = [("relu", {}), ("leaky_relu", {"negative_slope": 0.01}), ("leaky_relu", {"negative_slope": -0.3}),
             ("elu", {"alpha": 1.0, "scale": 1.0, "input_scale": 1.0}),
             ("elu", {"alpha": 0.5, "scale": 1.0507, "input_scale": 2.0}),
             ("gelu", {"approximate": "none"}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("sigmoid", {}),
             ("tanh", {}), ("softplus", {"beta": 1.0, "threshold": 20.0}),
             ("softplus", {"beta": 2.0, "threshold": 1.5}),
             ("hardtanh", {"min_val": -1.0, "max_val": 1.0}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0})]
    for op, args in cases:
        tag = op + " " + ",".join("%s=%s" % kv for kv in args.items())
        fx.case(tag + " f64", op, [smooth([3, 4], f64, -3, 3)], **args)
        fx.case(tag + " f64 transposed", op, [T(smooth([3, 4], f64, -3, 3))], **args)
        fx.case(tag + " f64 0-dim", op, [smooth([], f64, -3, 3)], **args)
        fx.case(tag + " zero-size", op, [smooth([0, 3])], **args)
        fx.case(tag + " f32", op, [smooth([9], f32, -4, 4)], **args)
        fx.case(tag + " f32 specials", op, [SPECIALS.float()], **args)
        maybe(fx, tag + " bfloat16", op, [rnd([6], bf16, -3, 3)], **args)
        if op in ("relu", "leaky_relu", "elu", "sigmoid", "tanh", "hardtanh"):
            fx.case(tag + " float16", op, [rnd([6], f16, -3, 3)], tol=2e-3, **args)
    # kinks: gradients as torch's at the points where the function is not differentiable
    kinks = torch.tensor([-1.0, 0.0, 1.0, 2.0, -0.5], dtype=torch.float64)
    fx.case("relu kink at 0", "relu", [kinks], gradcheck=False)
    fx.case("leaky_relu kink at 0", "leaky_relu", [kinks], gradcheck=False, negative_slope=0.2)
    fx.case("elu kink at 0", "elu", [kinks], gradcheck=False, alpha=2.0, scale=1.5, input_scale=1.0)
    fx.case("hardtanh at the bounds", "hardtanh", [kinks], gradcheck=False, min_val=-1.0, max_val=1.0)
    fx.case("softplus at the threshold", "softplus", [kinks], gradcheck=False, beta=1.0, threshold=1.0)
    fx.case("sigmoid saturates", "sigmoid", [torch.tensor([-40.0, 40.0, -800.0], dtype=torch.float64)])
    # integer inputs
    fx.case("relu int64", "relu", [rnd([6], "int64")])
    fx.case("relu uint8", "relu", [rnd([6], "uint8", 0, 9)])
    fx.case("hardtanh int64 keeps dtype", "hardtanh", [rnd([6], "int64")], min_val=-1.0, max_val=2.0)
    fx.case("sigmoid int64 -> float32", "sigmoid", [rnd([6], "int64")])
    fx.case("tanh int32 -> float32", "tanh", [rnd([6], "int32")])
    fx.case("sigmoid bool -> float32", "sigmoid", [rnd([6], "bool")])
    fx.error("relu bool", "relu", [rnd([3], "bool")], "GLIA_ERR_DTYPE")
    for op in ("gelu", "silu", "softplus", "leaky_relu", "elu"):
        fx.error(op + " int64", op, [rnd([3], "int64")], "GLIA_ERR_DTYPE")
    fx.error("gelu bad approximate", "gelu", [rnd([3], f32)], "GLIA_ERR_INVALID_ARGUMENT", approximate="fast")
    # hardswish (docs/contributing.md's worked example): deterministic inputs, so the random
    # stream of the cases above and of the other generators stays as it was.
    x = torch.linspace(-4.5, 4.5, 12, dtype=torch.float64).reshape(3, 4)
    fx.case("hardswish f64", "hardswish", [x])
    fx.case("hardswish f64 transposed", "hardswish", [T(x)])
    fx.case("hardswish f64 0-dim", "hardswish", [torch.tensor(1.25, dtype=torch.float64)])
    fx.case("hardswish zero-size", "hardswish", [torch.zeros(0, 3)])
    fx.case("hardswish f32", "hardswish", [torch.linspace(-5, 5, 9)])
    fx.case("hardswish f32 specials", "hardswish", [SPECIALS.float()])
    fx.case("hardswish float16", "hardswish", [torch.linspace(-4, 4, 6).half()], tol=2e-3)
    fx.case("hardswish at the kinks", "hardswish", [torch.tensor([-3.0, 3.0, -2.999, 2.999], dtype=torch.float64)],
            gradcheck=False)
    fx.error("hardswish int64", "hardswish", [torch.arange(3)], "GLIA_ERR_DTYPE")
    return fx


def inplace():
    fx = Fx(OPS, DIFF)
    s = smooth
    for op in ("add_", "sub_", "mul_", "div_"):
        other = (lambda sh: s(sh, f64, 0.5, 2)) if op == "div_" else (lambda sh: s(sh))
        alpha = {"alpha": 1.5} if op in ("add_", "sub_") else {}
        fx.case(op + " f64", op, [s([2, 3]), other([2, 3])], **alpha)
        fx.case(op + " f64 broadcast other", op, [s([3, 4]), other([4])])
        fx.case(op + " f64 transposed self", op, [T(s([3, 4])), other([3, 4])])
        fx.case(op + " 0-dim other", op, [s([2, 2]), other([])])
        fx.case(op + " f32 self, f64 other", op, [s([5], f32), other([5])])
        fx.case(op + " zero-size", op, [s([0, 2]), other([2])])
        fx.case(op + " float16", op, [rnd([5], f16), rnd([5], f16, 1, 4)], tol=2e-3)
        if op != "div_":
            fx.case(op + " int64", op, [rnd([5], "int64"), rnd([5], "int32")])
        fx.error(op + " broadcast changes self's shape", op, [rnd([3]), rnd([2, 3])], "GLIA_ERR_SHAPE")
        fx.error(op + " int self, float other", op, [rnd([3], "int64"), rnd([3], f32, 1, 4)], "GLIA_ERR_DTYPE")
    fx.error("div_ int self, int other", "div_", [rnd([3], "int64"), rnd([3], "int64", 1, 4)], "GLIA_ERR_DTYPE")
    fx.error("sub_ bool", "sub_", [rnd([3], "bool"), rnd([3], "bool")], "GLIA_ERR_DTYPE")
    fx.case("mul_ bool", "mul_", [rnd([4], "bool"), rnd([4], "bool")])
    for op in ("add_scalar_", "mul_scalar_"):
        alpha = {"alpha": -2.0} if op == "add_scalar_" else {}
        fx.case(op + " f64", op, [s([2, 3])], s=1.5, **alpha)
        fx.case(op + " f64 transposed", op, [T(s([3, 4]))], s=2, **alpha)
        fx.case(op + " f32", op, [rnd([5], f32)], s=0.5)
        fx.case(op + " int64 int scalar", op, [rnd([5], "int64")], s=3)
        fx.case(op + " bfloat16", op, [rnd([5], bf16)], s=3)
        fx.case(op + " zero-size", op, [s([0])], s=3)
        fx.error(op + " int64 float scalar", op, [rnd([3], "int64")], "GLIA_ERR_DTYPE", s=1.5)
    for op in ("addcmul_", "addcdiv_"):
        den = (lambda sh: s(sh, f64, 0.5, 2)) if op == "addcdiv_" else (lambda sh: s(sh))
        fx.case(op + " f64", op, [s([2, 3]), s([2, 3]), den([2, 3])], value=0.5)
        fx.case(op + " f64 default value", op, [s([2, 3]), s([2, 3]), den([2, 3])])
        fx.case(op + " f64 broadcast", op, [s([3, 4]), s([4]), den([3, 1])], value=-2)
        fx.case(op + " transposed", op, [T(s([3, 4])), T(s([3, 4])), den([3, 4])], value=1.5)
        fx.case(op + " f32", op, [rnd([5], f32), rnd([5], f32), rnd([5], f32, 1, 4)], value=2)
        fx.case(op + " zero-size", op, [s([0, 2]), s([2]), den([2])], value=2)
        fx.error(op + " broadcast changes self's shape", op, [rnd([3]), rnd([2, 3]), rnd([3], f64, 1, 3)],
                 "GLIA_ERR_SHAPE")
    fx.case("addcmul_ int64", "addcmul_", [rnd([5], "int64"), rnd([5], "int64"), rnd([5], "int64")], value=2)
    fx.error("addcdiv_ integer division", "addcdiv_", [rnd([3], f32), rnd([3], "int64"), rnd([3], "int64", 1, 3)],
             "GLIA_ERR_DTYPE")
    fx.case("zero_ f64", "zero_", [s([2, 3])])
    fx.case("zero_ transposed", "zero_", [T(s([3, 4]))])
    fx.case("zero_ int32", "zero_", [rnd([4], "int32")])
    fx.case("fill_ f64", "fill_", [s([2, 3])], value=2.5)
    fx.case("fill_ f64 transposed int value", "fill_", [T(s([3, 4]))], value=-3)
    fx.case("fill_ int64 big value", "fill_", [rnd([3], "int64")], value=2 ** 53 + 1)
    fx.case("fill_ int32 float value truncates", "fill_", [rnd([3], "int32")], value=2.7)
    fx.case("fill_ bool", "fill_", [rnd([3], "bool")], value=True)
    fx.case("fill_ float16 NaN", "fill_", [rnd([3], f16)], value=NAN)
    fx.case("fill_ zero-size", "fill_", [s([0])], value=1.0)
    fx.case("copy_ f64", "copy_", [s([2, 3]), s([2, 3])])
    fx.case("copy_ broadcast src", "copy_", [s([3, 4]), s([4])])
    fx.case("copy_ transposed self", "copy_", [T(s([3, 4])), s([3, 4])])
    fx.case("copy_ f32 self, f64 src", "copy_", [rnd([5], f32), s([5])])
    fx.case("copy_ f64 self, int64 src", "copy_", [s([5]), rnd([5], "int64")])
    fx.case("copy_ int32 self, f32 src truncates", "copy_", [rnd([4], "int32"), torch.tensor([1.7, -1.7, 2.5, 0.2])])
    fx.case("copy_ bool self, f32 src", "copy_", [rnd([4], "bool"), torch.tensor([0.0, 0.5, -0.0, NAN])])
    fx.case("copy_ zero-size", "copy_", [s([0, 2]), s([2])])
    fx.error("copy_ broadcast changes self's shape", "copy_", [rnd([3]), rnd([2, 3])], "GLIA_ERR_SHAPE")
    fx.error("copy_ shape mismatch", "copy_", [rnd([3]), rnd([2])], "GLIA_ERR_SHAPE")
    fx.case("clamp_ both", "clamp_", [s([3, 4], f64, -3, 3)], min=-1.0, max=1.0)
    fx.case("clamp_ min transposed", "clamp_", [T(s([3, 4], f64, -3, 3))], min=0.0)
    fx.case("clamp_ max int", "clamp_", [rnd([5], "int64")], max=2)
    fx.case("clamp_ f32 specials", "clamp_", [SPECIALS.float()], min=-1.0, max=1.0)
    fx.case("clamp_ f32 NaN max only", "clamp_", [SPECIALS.float()], max=NAN)
    # torch says "... desired output type long int" here (a C++ type name); glia says Long as elsewhere.
    fx.error("clamp_ int self float bound", "clamp_", [rnd([3], "int64")], "GLIA_ERR_DTYPE", message=False, min=0.5)
    fx.error("clamp_ without bounds", "clamp_", [rnd([3], f32)], "GLIA_ERR_INVALID_ARGUMENT")
    fx.case("relu_ f64", "relu_", [s([3, 4])])
    fx.case("relu_ transposed", "relu_", [T(s([3, 4]))])
    fx.case("relu_ f32 specials", "relu_", [SPECIALS.float()])
    fx.case("relu_ int64", "relu_", [rnd([5], "int64")])
    fx.error("relu_ bool", "relu_", [rnd([3], "bool")], "GLIA_ERR_DTYPE")
    return fx


if __name__ == "__main__":
    elementwise().write("elementwise.json")
    activation().write("activation.json")
    inplace().write("inplace.json")
