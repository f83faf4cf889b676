#!/usr/bin/python3
"""Golden fixtures of the activations of issue 21 (torch 1.13):

- ops/activation_extra.json: the ops (prelu, rrelu, glu, celu, selu, softmin,
  softshrink, hardshrink, tanhshrink, threshold, relu6, hardsigmoid, mish,
  logsigmoid) and the in-place activations (leaky_relu_ ... silu_); format:
  see golden.py; adapters in tests/ops/activation_extra_test.cpp.
- modules/activation_extra.json: the modules (PReLU ... LogSigmoid, and the
  inplace=True forms); format: see gen_layers.py, plus "inplace": the input
  is cloned before the call (an in-place module cannot take a leaf that
  requires grad); run by tests/nn/activation_extra_module_test.cpp.

One case per line. Inputs are deterministic (golden.py's seeded generator
and linspace): new cases go at the end of their function so that the values
of the cases before them stay as they are.

    cd tests/golden && /usr/bin/python3 gen_activation_extra.py
"""

import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden import OUT, Fixture, T, encode, rnd, smooth

HERE = os.path.dirname(os.path.abspath(__file__))
f64, f32, f16, bf16 = "float64", "float32", "float16", "bfloat16"
NAN, INF = float("nan"), float("inf")
SPECIALS = torch.tensor([0.0, -0.0, 1.5, -2.5, NAN, INF, -INF, 1e-3, -0.4, 0.6, 4.0, -4.0])


def _inplace(fn):
    """torch's in-place op on a clone (what the C adapters do)."""
    def run(xs, a):
        y = xs[0].clone()
        fn(y, xs, a)
        return y
    return run


OPS = {
    "prelu": lambda xs, a: F.prelu(xs[0], xs[1]),
    "rrelu": lambda xs, a: F.rrelu(xs[0], a.get("lower", 1.0 / 8), a.get("upper", 1.0 / 3), training=False),
    "glu": lambda xs, a: F.glu(xs[0], a.get("dim", -1)),
    "celu": lambda xs, a: F.celu(xs[0], a.get("alpha", 1.0)),
    "selu": lambda xs, a: F.selu(xs[0]),
    "softmin": lambda xs, a: F.softmin(xs[0], a["dim"]),
    "softshrink": lambda xs, a: F.softshrink(xs[0], a.get("lambd", 0.5)),
    "hardshrink": lambda xs, a: F.hardshrink(xs[0], a.get("lambd", 0.5)),
    "tanhshrink": lambda xs, a: F.tanhshrink(xs[0]),
    "threshold": lambda xs, a: F.threshold(xs[0], a["threshold"], a["value"]),
    "relu6": lambda xs, a: F.relu6(xs[0]),
    "hardsigmoid": lambda xs, a: F.hardsigmoid(xs[0]),
    "mish": lambda xs, a: F.mish(xs[0]),
    "logsigmoid": lambda xs, a: F.logsigmoid(xs[0]),
    "leaky_relu_": _inplace(lambda y, xs, a: F.leaky_relu_(y, a.get("negative_slope", 0.01))),
    "elu_": _inplace(lambda y, xs, a: torch._C._nn.elu_(y, a.get("alpha", 1.0), a.get("scale", 1.0),
                                                         a.get("input_scale", 1.0))),
    "celu_": _inplace(lambda y, xs, a: F.celu_(y, a.get("alpha", 1.0))),
    "selu_": _inplace(lambda y, xs, a: F.selu_(y)),
    "hardtanh_": _inplace(lambda y, xs, a: F.hardtanh_(y, a.get("min_val", -1.0), a.get("max_val", 1.0))),
    "threshold_": _inplace(lambda y, xs, a: F.threshold_(y, a["threshold"], a["value"])),
    "rrelu_": _inplace(lambda y, xs, a: F.rrelu_(y, a.get("lower", 1.0 / 8), a.get("upper", 1.0 / 3), training=False)),
    "hardsigmoid_": _inplace(lambda y, xs, a: F.hardsigmoid(y, inplace=True)),
    "hardswish_": _inplace(lambda y, xs, a: F.hardswish(y, inplace=True)),
    "mish_": _inplace(lambda y, xs, a: F.mish(y, inplace=True)),
    "silu_": _inplace(lambda y, xs, a: F.silu(y, inplace=True)),
}


class Fx(Fixture):
    """One case per line; skips cases torch 1.13 does not implement on CPU (float16 kernels)."""

    def case(self, *args, **kw):
        try:
            return super().case(*args, **kw)
        except RuntimeError as e:
            if "not implemented for 'Half'" not in str(e) and "not implemented for 'BFloat16'" not in str(e):
                raise
            return None

    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(OUT, filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n], "errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def unary_cases(fx, op, lo=-3.0, hi=3.0, half=True, **args):
    """The usual set: float64 (gradients, finite differences), transposed, 0-dim, zero size, float32, specials,
    float16 and bfloat16."""
    tag = op + "".join(" %s=%s" % kv for kv in args.items())
    fx.case(tag + " f64", op, [smooth([3, 4], f64, lo, hi)], **args)
    fx.case(tag + " f64 transposed", op, [T(smooth([3, 4], f64, lo, hi))], **args)
    fx.case(tag + " f64 0-dim", op, [smooth([], f64, lo, hi)], **args)
    fx.case(tag + " zero-size", op, [smooth([0, 3])], **args)
    fx.case(tag + " f32", op, [torch.linspace(lo - 0.05, hi + 0.05, 9)], **args)
    fx.case(tag + " f32 specials", op, [SPECIALS.clone()], **args)
    if half:
        fx.case(tag + " float16", op, [rnd([6], f16, -3, 3)], tol=2e-3, **args)
        fx.case(tag + " bfloat16", op, [rnd([6], bf16, -3, 3)], tol=2e-2, **args)


def activation_extra():
    fx = Fx(OPS, OPS.keys())
    # ---- elementwise
    unary_cases(fx, "hardshrink")
    unary_cases(fx, "hardshrink", lambd=1.25)
    unary_cases(fx, "softshrink")
    unary_cases(fx, "softshrink", lambd=0.0)
    unary_cases(fx, "softshrink", lambd=1.5)
    unary_cases(fx, "tanhshrink", half=False)
    unary_cases(fx, "threshold", threshold=0.5, value=-2.0)
    unary_cases(fx, "threshold", threshold=-1.0, value=20.0)
    unary_cases(fx, "relu6", lo=-2.0, hi=8.0)
    unary_cases(fx, "hardsigmoid", lo=-5.0, hi=5.0)
    unary_cases(fx, "mish", lo=-5.0, hi=5.0)
    unary_cases(fx, "logsigmoid", lo=-6.0, hi=6.0)
    unary_cases(fx, "celu")
    unary_cases(fx, "celu", alpha=0.5)
    unary_cases(fx, "celu", alpha=-2.0)
    unary_cases(fx, "selu")
    unary_cases(fx, "rrelu")
    unary_cases(fx, "rrelu", lower=0.2, upper=0.7)
    # the points where the derivative jumps: torch's one-sided choice, no finite differences
    kinks = torch.tensor([-0.5, 0.5, 0.0, -1.25, 1.25], dtype=torch.float64)
    fx.case("hardshrink at +-lambd", "hardshrink", [kinks], gradcheck=False)
    fx.case("softshrink at +-lambd", "softshrink", [kinks], gradcheck=False)
    fx.case("threshold at the threshold", "threshold", [kinks], gradcheck=False, threshold=0.5, value=3.0)
    fx.case("relu6 at 0 and 6", "relu6", [torch.tensor([0.0, 6.0, -0.0, 3.0], dtype=torch.float64)],
            gradcheck=False)
    fx.case("hardsigmoid at +-3", "hardsigmoid", [torch.tensor([-3.0, 3.0, 0.0], dtype=torch.float64)],
            gradcheck=False)
    fx.case("celu at 0", "celu", [kinks], gradcheck=False, alpha=2.0)
    fx.case("rrelu at 0", "rrelu", [kinks], gradcheck=False)
    fx.case("logsigmoid saturates", "logsigmoid", [torch.tensor([-800.0, 800.0, -40.0, 40.0], dtype=torch.float64)])
    fx.case("mish saturates", "mish", [torch.tensor([-800.0, 800.0, -40.0, 40.0], dtype=torch.float64)])
    # integer inputs: threshold, relu6 and tanhshrink take them
    fx.case("threshold int64 (numbers cast to int)", "threshold", [torch.arange(-3, 5)], threshold=1.5, value=7.9)
    fx.case("threshold uint8", "threshold", [torch.arange(0, 6, dtype=torch.uint8)], threshold=2, value=9)
    fx.case("relu6 int64", "relu6", [torch.arange(-3, 10)])
    fx.case("tanhshrink int64 -> float32", "tanhshrink", [torch.arange(-2, 3)])
    for op in ("hardshrink", "softshrink", "hardsigmoid", "mish", "logsigmoid", "celu", "selu"):
        fx.error(op + " int64", op, [torch.arange(3)], "GLIA_ERR_DTYPE")
    fx.error("threshold bool", "threshold", [torch.tensor([True, False])], "GLIA_ERR_DTYPE", threshold=0.5, value=1.0)
    fx.error("softshrink negative lambd", "softshrink", [torch.ones(2)], "GLIA_ERR_INVALID_ARGUMENT", lambd=-1.0)
    fx.error("celu alpha 0", "celu", [torch.ones(2)], "GLIA_ERR_INVALID_ARGUMENT", alpha=0.0)
    fx.error("rrelu lower > upper", "rrelu", [torch.ones(2)], "GLIA_ERR_INVALID_ARGUMENT", lower=0.5, upper=0.1)
    fx.error("rrelu int64", "rrelu", [torch.arange(3)], "GLIA_ERR_DTYPE")

    # ---- glu
    x = smooth([4, 6], f64, -3, 3)
    fx.case("glu f64 dim -1", "glu", [x], dim=-1)
    fx.case("glu f64 dim 0", "glu", [x], dim=0)
    fx.case("glu f64 transposed", "glu", [T(smooth([6, 4], f64, -3, 3))], dim=1)
    fx.case("glu f64 3-d middle dim", "glu", [smooth([2, 4, 3], f64, -3, 3)], dim=1)
    fx.case("glu f64 1-d", "glu", [smooth([8], f64, -3, 3)], dim=0)
    fx.case("glu zero-size", "glu", [smooth([0, 4])], dim=1)
    fx.case("glu f32", "glu", [torch.linspace(-4, 4, 12).reshape(3, 4)], dim=-1)
    fx.case("glu f32 specials", "glu", [SPECIALS.clone()], dim=0)
    fx.case("glu bfloat16", "glu", [rnd([2, 4], bf16, -3, 3)], tol=2e-2, dim=1)
    fx.error("glu odd size", "glu", [torch.ones(2, 3)], "GLIA_ERR_INVALID_ARGUMENT", dim=1)
    fx.error("glu 0-dim", "glu", [torch.tensor(1.0)], "GLIA_ERR_INVALID_ARGUMENT", dim=0)
    fx.error("glu dim out of range", "glu", [torch.ones(2, 4)], "GLIA_ERR_INVALID_ARGUMENT", dim=5)
    fx.error("glu int64", "glu", [torch.arange(4)], "GLIA_ERR_DTYPE", dim=0)

    # ---- softmin
    fx.case("softmin f64 dim 1", "softmin", [smooth([3, 4], f64, -3, 3)], dim=1)
    fx.case("softmin f64 dim 0 transposed", "softmin", [T(smooth([4, 3], f64, -3, 3))], dim=0)
    fx.case("softmin f64 dim -1 3-d", "softmin", [smooth([2, 3, 4], f64, -3, 3)], dim=-1)
    fx.case("softmin f64 0-dim", "softmin", [smooth([], f64, -3, 3)], dim=0)
    fx.case("softmin f32", "softmin", [torch.linspace(-4, 4, 12).reshape(3, 4)], dim=1)
    fx.case("softmin f32 large", "softmin", [torch.tensor([[-1000.0, 0.0, 1000.0], [5.0, 5.0, 5.0]])], dim=1)
    fx.error("softmin int64", "softmin", [torch.arange(4)], "GLIA_ERR_DTYPE", message=False, dim=0)

    # ---- prelu
    fx.case("prelu f64 per channel", "prelu", [smooth([2, 3, 4], f64, -3, 3), smooth([3], f64, 0, 1)])
    fx.case("prelu f64 one weight", "prelu", [smooth([2, 3, 4], f64, -3, 3), smooth([1], f64, 0, 1)])
    fx.case("prelu f64 0-dim weight", "prelu", [smooth([3, 2], f64, -3, 3), smooth([], f64, 0, 1)])
    fx.case("prelu f64 4-d", "prelu", [smooth([2, 3, 2, 2], f64, -3, 3), smooth([3], f64, -1, 1)])
    fx.case("prelu f64 transposed", "prelu", [T(smooth([4, 3], f64, -3, 3)), smooth([3], f64, 0, 1)])
    fx.case("prelu f64 1-d input", "prelu", [smooth([5], f64, -3, 3), smooth([1], f64, 0, 1)])
    fx.case("prelu f64 0-dim input", "prelu", [smooth([], f64, -3, -1), smooth([1], f64, 0, 1)])
    fx.case("prelu zero-size", "prelu", [smooth([0, 3]), smooth([3])])
    fx.case("prelu f32", "prelu", [torch.linspace(-4, 4, 12).reshape(2, 3, 2), torch.tensor([0.25, -0.5, 2.0])])
    fx.case("prelu f32 specials", "prelu", [SPECIALS.clone(), torch.tensor([0.25])])
    fx.case("prelu at 0", "prelu", [torch.tensor([[0.0, -0.0, 1.0]], dtype=torch.float64),
                                    torch.tensor([0.5], dtype=torch.float64)], gradcheck=False)
    fx.error("prelu weight count", "prelu", [torch.ones(2, 4), torch.ones(3)], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("prelu 1-d input, 4 weights", "prelu", [torch.ones(4), torch.ones(4)], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("prelu 2-d weight", "prelu", [torch.ones(2, 4), torch.ones(2, 2)], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("prelu dtypes differ", "prelu", [torch.ones(2, dtype=torch.float64), torch.ones(1)], "GLIA_ERR_DTYPE")

    # ---- in place (on a clone: the gradient flows to the original)
    for op, args in [("leaky_relu_", {"negative_slope": 0.2}), ("elu_", {"alpha": 1.0, "scale": 1.0, "input_scale": 1.0}),
                     ("elu_", {"alpha": 0.5, "scale": 1.5, "input_scale": 2.0}), ("celu_", {"alpha": 0.5}),
                     ("selu_", {}), ("hardtanh_", {"min_val": -1.0, "max_val": 1.0}),
                     ("hardtanh_", {"min_val": 0.0, "max_val": 6.0}), ("threshold_", {"threshold": 0.5, "value": -2.0}),
                     ("rrelu_", {"lower": 0.2, "upper": 0.7}), ("hardsigmoid_", {}), ("hardswish_", {}),
                     ("mish_", {}), ("silu_", {})]:
        tag = op + "".join(" %s=%s" % kv for kv in args.items())
        fx.case(tag + " f64", op, [smooth([3, 4], f64, -4, 4)], **args)
        fx.case(tag + " f64 transposed", op, [T(smooth([3, 4], f64, -4, 4))], **args)
        fx.case(tag + " f32 specials", op, [SPECIALS.clone()], **args)
        fx.case(tag + " zero-size", op, [smooth([0, 2])], **args)
    fx.case("hardtanh_ int64", "hardtanh_", [torch.arange(-3, 4)], min_val=-1.0, max_val=2.0)
    fx.case("threshold_ int64", "threshold_", [torch.arange(-3, 4)], threshold=1.0, value=5.5)
    for op in ("leaky_relu_", "elu_", "celu_", "selu_", "hardsigmoid_", "hardswish_", "mish_", "silu_", "rrelu_"):
        fx.error(op + " int64", op, [torch.arange(3)], "GLIA_ERR_DTYPE")
    fx.error("threshold_ bool", "threshold_", [torch.tensor([True])], "GLIA_ERR_DTYPE", threshold=0.5, value=1.0)
    return fx


# ---- modules (format of gen_layers.py)

mgen = torch.Generator().manual_seed(2121)


def randn(*shape, dtype=torch.float64):
    return torch.randn(*shape, generator=mgen, dtype=torch.float64).to(dtype)


def enc(t):
    t = t.detach()
    name = str(t.dtype).replace("torch.", "")
    return {"dtype": name, "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


mcases = []
merrors = []


def mcase(name, module, args, make, inputs, dtype=torch.float64, train=False):
    m = make().to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(randn(*p.shape, dtype=dtype) * 0.5)
    m.train(train)
    inplace = bool(args.get("inplace", False))
    xs = [x.to(dtype).clone().requires_grad_(True) for x in inputs]
    params0 = [{"name": n, "value": enc(p)} for n, p in m.named_parameters()]
    out = m(*[x.clone() if inplace else x for x in xs])
    w = randn(*out.shape, dtype=dtype)
    gs = torch.autograd.grad((out * w).sum(), xs + list(m.parameters()), allow_unused=True)
    grads = {f"input{i}": enc(g) for i, g in enumerate(gs[:len(xs)])}
    for (n, _), g in zip(m.named_parameters(), gs[len(xs):]):
        grads[n] = enc(g)
    mcases.append({
        "name": name + ("" if dtype == torch.float64 else "_f32"), "module": module, "args": args,
        "dtype": str(dtype).replace("torch.", ""), "train": train, "inplace": inplace, "params": params0,
        "inputs": [enc(x) for x in xs], "out": enc(out), "w": enc(w), "grads": grads, "repr": repr(m),
        "keys": list(m.state_dict().keys()), "tol": 1e-10 if dtype == torch.float64 else 2e-5,
    })


def both(name, module, args, make, inputs, **kw):
    mcase(name, module, args, make, inputs, torch.float64, **kw)
    mcase(name, module, args, make, inputs, torch.float32, **kw)


def merror(name, module, args, make):
    try:
        make()
    except (RuntimeError, ValueError, AssertionError) as e:
        merrors.append({"name": name, "module": module, "args": args, "message": str(e)})
    else:
        raise AssertionError(name + " did not fail in torch")


def modules():
    ax = lambda: randn(3, 6) * 2
    both("prelu", "PReLU", {}, nn.PReLU, [randn(2, 3, 4) * 2])
    both("prelu_3", "PReLU", {"num_parameters": 3, "init": 0.1}, lambda: nn.PReLU(3, 0.1), [randn(2, 3, 4) * 2])
    both("rrelu_eval", "RReLU", {}, nn.RReLU, [ax()])
    mcase("rrelu_eval_args", "RReLU", {"lower": 0.2, "upper": 0.5}, lambda: nn.RReLU(0.2, 0.5), [ax()])
    both("glu", "GLU", {}, nn.GLU, [ax()])
    mcase("glu_dim0", "GLU", {"dim": 0}, lambda: nn.GLU(0), [randn(4, 3)])
    both("celu", "CELU", {}, nn.CELU, [ax()])
    mcase("celu_alpha", "CELU", {"alpha": 0.5}, lambda: nn.CELU(0.5), [ax()])
    both("selu", "SELU", {}, nn.SELU, [ax()])
    both("softmin", "Softmin", {"dim": 1}, lambda: nn.Softmin(1), [ax()])
    both("softmax2d", "Softmax2d", {}, nn.Softmax2d, [randn(2, 3, 2, 2)])
    mcase("softmax2d_3d", "Softmax2d", {}, nn.Softmax2d, [randn(3, 2, 2)])
    both("softplus", "Softplus", {}, nn.Softplus, [ax()])
    mcase("softplus_args", "Softplus", {"beta": 2.0, "threshold": 1.5}, lambda: nn.Softplus(2.0, 1.5), [ax()])
    both("softshrink", "Softshrink", {}, nn.Softshrink, [ax()])
    mcase("softshrink_lambd", "Softshrink", {"lambd": 1.25}, lambda: nn.Softshrink(1.25), [ax()])
    both("hardshrink", "Hardshrink", {}, nn.Hardshrink, [ax()])
    mcase("hardshrink_lambd", "Hardshrink", {"lambd": 1.25}, lambda: nn.Hardshrink(1.25), [ax()])
    both("tanhshrink", "Tanhshrink", {}, nn.Tanhshrink, [ax()])
    both("threshold", "Threshold", {"threshold": 0.1, "value": 20.0}, lambda: nn.Threshold(0.1, 20.0), [ax()])
    both("hardtanh", "Hardtanh", {}, nn.Hardtanh, [ax()])
    mcase("hardtanh_args", "Hardtanh", {"min_val": -0.5, "max_val": 2.0}, lambda: nn.Hardtanh(-0.5, 2.0), [ax()])
    both("relu6", "ReLU6", {}, nn.ReLU6, [randn(3, 6) * 5])
    both("hardsigmoid", "Hardsigmoid", {}, nn.Hardsigmoid, [randn(3, 6) * 4])
    both("hardswish", "Hardswish", {}, nn.Hardswish, [randn(3, 6) * 4])
    both("mish", "Mish", {}, nn.Mish, [ax()])
    both("logsigmoid", "LogSigmoid", {}, nn.LogSigmoid, [ax()])
    # inplace=True (the input is a non-leaf clone)
    for name, module, args, make in [
            ("relu", "ReLU", {}, nn.ReLU), ("leaky_relu", "LeakyReLU", {"negative_slope": 0.2},
                                            lambda **k: nn.LeakyReLU(0.2, **k)),
            ("elu", "ELU", {"alpha": 0.5}, lambda **k: nn.ELU(0.5, **k)), ("silu", "SiLU", {}, nn.SiLU),
            ("celu", "CELU", {"alpha": 0.5}, lambda **k: nn.CELU(0.5, **k)), ("selu", "SELU", {}, nn.SELU),
            ("hardtanh", "Hardtanh", {}, nn.Hardtanh), ("relu6", "ReLU6", {}, nn.ReLU6),
            ("hardsigmoid", "Hardsigmoid", {}, nn.Hardsigmoid), ("hardswish", "Hardswish", {}, nn.Hardswish),
            ("mish", "Mish", {}, nn.Mish), ("rrelu", "RReLU", {}, nn.RReLU),
            ("threshold", "Threshold", {"threshold": 0.1, "value": 20.0},
             lambda **k: nn.Threshold(0.1, 20.0, **k))]:
        a = dict(args, inplace=True)
        mcase(name + "_inplace", module, a, (lambda mk: lambda: mk(inplace=True))(make), [randn(3, 6) * 4])
    merror("hardtanh_min_above_max", "Hardtanh", {"min_val": 2.0, "max_val": 1.0}, lambda: nn.Hardtanh(2.0, 1.0))
    merror("rrelu_lower_above_upper", "RReLU", {"lower": 0.5, "upper": 0.1}, lambda: nn.RReLU(0.5, 0.1)(torch.ones(2)))
    merror("softshrink_negative", "Softshrink", {"lambd": -1.0}, lambda: nn.Softshrink(-1.0)(torch.ones(2)))
    merror("celu_alpha_0", "CELU", {"alpha": 0.0}, lambda: nn.CELU(0.0)(torch.ones(2)))
    fwd = []
    for name, module, args, x in [("softmax2d_2d", "Softmax2d", {}, torch.ones(2, 2)),
                                  ("glu_odd", "GLU", {}, torch.ones(2, 3)),
                                  ("prelu_channels", "PReLU", {"num_parameters": 3}, torch.ones(2, 4))]:
        try:
            {"Softmax2d": nn.Softmax2d(), "GLU": nn.GLU(), "PReLU": nn.PReLU(3)}[module](x)
        except (RuntimeError, AssertionError) as e:
            fwd.append({"name": name, "module": module, "args": args, "inputs": [enc(x)], "message": str(e)})
        else:
            raise AssertionError(name)
    return fwd


def write_modules(fwd):
    with open(os.path.join(HERE, "modules", "activation_extra.json"), "w") as f:
        f.write('{"cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in mcases))
        f.write('\n], "errors": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in merrors))
        f.write('\n], "forward_errors": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in fwd))
        f.write("\n]}\n")


if __name__ == "__main__":
    activation_extra().write("activation_extra.json")
    write_modules(modules())
