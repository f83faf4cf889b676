"""Shared fixture writer for the operator golden files (tests/golden/ops/*.json).

Each gen_<family>.py builds a Fixture, adds cases with torch doing the work,
and writes it. Run with a Python that has torch 1.13 (on the dev machine
/usr/bin/python3); the output is committed and CI needs no torch.

File format {"cases": [...], "errors": [...]}:

A case is {name, op, args, inputs, outs, w?, grads?, tol?, gradcheck?}:
  op: the C API name without the glia_ prefix (the op registry's name)
  args: whatever the op's adapter in tests/ops/ reads (keyword arguments)
  inputs: [{dtype, shape, values, transposed}]: values are row-major; with
        transposed the tensor is the transpose (dims 0 and 1 swapped) of a
        contiguous one of shape [shape[1], shape[0], ...] holding values, so
        the operand is not contiguous. An input may instead be null (an
        optional tensor argument that is absent).
  outs: [{dtype, shape, values}] one per output of the op (row-major)
  w, grads: when the op is differentiable and its floating inputs are all
        float64: w[k] (shape of outs[k], or null for outputs that carry no
        gradient such as indices) and grads[i], the gradient of
        sum_k sum(outs[k] * w[k]) w.r.t. input i (null for inputs that are not
        differentiable, such as integer indices).
  tol: optional relative tolerance overriding the per-dtype default
        (float64 1e-10, float32 1e-5, float16 1e-3, bfloat16 1e-2, exact
        otherwise): |glia - torch| <= tol * (1 + |torch|).
  signed_zeros: true when a zero output must have torch's sign.
  gradcheck: false turns off the finite-difference check of the case (for
        points where the function is not differentiable).
Floating values are JSON numbers holding the element's exact double value, or
"nan", "inf", "-inf"; integers are JSON integers and bools JSON booleans.

An error is {name, op, args, inputs, code, message}: message is str() of
torch's exception, which glia's message must contain (message may be null
when glia's wording legitimately differs; then only the code is checked);
code is glia's error code name.
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
    "int8": torch.int8,
    "int16": torch.int16,
}
NAMES = {v: k for k, v in DTYPES.items()}
FLOATS = ("float32", "float64", "float16", "bfloat16")

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


def rnd(shape, dtype="float64", lo=-5, hi=5):
    """Deterministic values: floats with a few bits (exact in every float dtype), ints in [lo, hi)."""
    if dtype in FLOATS:
        v = torch.randint(lo * 8, hi * 8, list(shape), generator=gen).to(torch.float64) / 8
        return v.to(DTYPES[dtype])
    if dtype == "bool":
        return torch.randint(0, 2, list(shape), generator=gen).to(torch.bool)
    if dtype == "uint8":
        lo = max(lo, 0)
    return torch.randint(lo, hi, list(shape), generator=gen).to(DTYPES[dtype])


def smooth(shape, dtype="float64", lo=-2.0, hi=2.0):
    """Uniform random floats in [lo, hi) (full precision; for smooth functions and gradchecks)."""
    v = torch.rand(list(shape), generator=gen, dtype=torch.float64) * (hi - lo) + lo
    return v.to(DTYPES[dtype])


def nonzero(t):
    """Replaces zeros (for divisors) by 1 or 0.5."""
    if t.dtype == torch.bool:
        return t
    return torch.where(t == 0, torch.ones_like(t) if not t.is_floating_point() else torch.full_like(t, 0.5), t)


class Operand:
    """An input; transposed=True makes it a non-contiguous view (the transpose of a contiguous tensor)."""

    def __init__(self, tensor, transposed=False):
        # tensor: the value; stored as the contiguous transpose when transposed.
        self.transposed = transposed
        self.base = tensor.transpose(0, 1).contiguous() if transposed else tensor.contiguous()

    def value(self):
        return self.base.transpose(0, 1) if self.transposed else self.base

    def encode(self):
        v = self.value()
        return {"dtype": NAMES[v.dtype], "shape": list(v.shape), "values": flat(self.base),
                "transposed": self.transposed}


def T(tensor):
    """A non-contiguous operand with the value `tensor` (at least 2-D)."""
    return Operand(tensor, True)


def _operands(xs):
    return [None if x is None else x if isinstance(x, Operand) else Operand(x) for x in xs]


def _outputs(r):
    if isinstance(r, (tuple, list)):
        return list(r)
    return [r]


class Fixture:
    """Cases and errors of one family. `ops` maps an op name to a function (inputs, args) -> tensor or tuple."""

    def __init__(self, ops, differentiable=(), signed_zeros=False):
        self.ops = ops
        self.signed_zeros = signed_zeros
        self.differentiable = set(differentiable)
        self.cases = []
        self.errors = []

    def case(self, name, op, xs, tol=None, gradcheck=True, grads=True, **args):
        """Adds a case; returns it. Gradients are recorded when op is differentiable and every floating
        input is float64 (at least one); grads=False skips them (e.g. a non-differentiable mode)."""
        ops = _operands(xs)
        vals = [None if o is None else o.value() for o in ops]
        outs = _outputs(self.ops[op](vals, args))
        c = {"name": name, "op": op, "args": args, "inputs": [None if o is None else o.encode() for o in ops],
             "outs": [{"dtype": NAMES[o.dtype], "shape": list(o.shape), "values": flat(o)} for o in outs]}
        if tol is not None:
            c["tol"] = tol
        if self.signed_zeros:
            c["signed_zeros"] = True
        if not gradcheck:
            c["gradcheck"] = False
        floating = [v for v in vals if v is not None and v.is_floating_point()]
        if grads and op in self.differentiable and floating and all(v.dtype == torch.float64 for v in floating):
            leaves = [None if v is None else v.detach().clone().requires_grad_(v.is_floating_point())
                      for v in vals]
            ys = _outputs(self.ops[op](leaves, args))
            ws = [rnd(list(y.shape), "float64") if y.is_floating_point() and y.requires_grad else None
                  for y in ys]
            total = sum((y * w).sum() for y, w in zip(ys, ws) if w is not None)
            wrt = [v for v in leaves if v is not None and v.requires_grad]
            grads = torch.autograd.grad(total, wrt, allow_unused=True)
            it = iter(grads)
            c["w"] = [None if w is None else flat(w) for w in ws]
            gl = []
            for v in leaves:
                if v is None or not v.requires_grad:
                    gl.append(None)
                else:
                    g = next(it)
                    gl.append(flat(torch.zeros_like(v) if g is None else g))
            c["grads"] = gl
        self.cases.append(c)
        return c

    def error(self, name, op, xs, code, message=True, **args):
        """Adds an error case; torch must fail too. message=False stores no message (code only)."""
        ops = _operands(xs)
        try:
            self.ops[op]([None if o is None else o.value() for o in ops], args)
        except (RuntimeError, IndexError, ValueError, ZeroDivisionError, TypeError) as e:
            msg = str(e).split("\n")[0] if message else None
        else:
            raise AssertionError(name + " did not fail in torch")
        self.errors.append({"name": name, "op": op, "args": args,
                            "inputs": [None if o is None else o.encode() for o in ops], "code": code,
                            "message": msg})

    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, filename), "w") as f:
            json.dump({"cases": self.cases, "errors": self.errors}, f, indent=None, separators=(",", ":"))
            f.write("\n")
