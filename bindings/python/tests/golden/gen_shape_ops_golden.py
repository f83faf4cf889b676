"""Generates shape_ops_golden.json: torch 1.13's results for issue 20's factories and shape ops as the
binding spells them (torch.eye, torch.tril, x.flip(...), torch.roll, ...), evaluated with the inputs
of gen_tensor_golden.py. test_shape_ops.py evaluates the same text with glia. Run with /usr/bin/python3:

    /usr/bin/python3 bindings/python/tests/golden/gen_shape_ops_golden.py
"""

import json
import os

import numpy as np
import torch

from gen_tensor_golden import HERE, encode, env

VALUES = [
    # factories
    "torch.eye(3)", "torch.eye(2, 4)", "torch.eye(3, dtype=torch.int64)", "torch.eye(2, m=3, dtype=torch.bool)",
    "torch.linspace(0, 1, 5)", "torch.linspace(-2, 3, 7, dtype=torch.float64)", "torch.linspace(0, 10, 4, dtype=torch.int64)",
    "torch.linspace(3, 3, 1)", "torch.logspace(0, 2, 3)", "torch.logspace(0, 3, 4, base=2)",
    "torch.logspace(-1, 1, 5, dtype=torch.float64)",
    "torch.zeros_like(a)", "torch.ones_like(i)", "torch.full_like(a, 2.5)", "torch.full_like(i, 7)",
    "torch.zeros_like(a, dtype=torch.int64)", "torch.ones_like(k, dtype=torch.float64)",
    "torch.empty_like(a).shape", "torch.rand_like(d).dtype", "torch.randn_like(a).shape",
    "torch.zeros_like(a.t()).stride()", "torch.randint(5, (3, 2)).dtype", "torch.randint(2, 5, (4,)).shape",
    "torch.tril_indices(3, 3)", "torch.triu_indices(3, 4, 1)", "torch.tril_indices(4, 3, -1, dtype=torch.int32)",
    # triangles and diagonals
    "torch.tril(a)", "torch.triu(a)", "a.tril(1)", "a.triu(-1)", "torch.tril(x4, -1)", "i.triu(1)", "k.tril()",
    "a.t().tril()", "torch.diagonal(a)", "a.diagonal(1)", "a.diagonal(-1, 1, 0)", "x4.diagonal(0, -2, -1)",
    "torch.diag(v)", "torch.diag(v, 1)", "torch.diag(a)", "a.diag(-1)", "torch.diag_embed(v)",
    "torch.diag_embed(a, 1)", "a.diag_embed(0, 0, 2)", "torch.trace(a)", "m.trace()", "i.trace()",
    # flips and rolls
    "torch.flip(a, [0])", "a.flip(0, 1)", "a.flip([-1])", "torch.flip(x4, (1, 3))", "torch.fliplr(a)",
    "torch.flipud(a)", "u.flipud()", "k.fliplr()", "torch.roll(a, 1, 0)", "torch.roll(a, -1, 1)",
    "torch.roll(a, 5)", "torch.roll(a, (1, 2), (0, 1))", "a.roll(shifts=2, dims=1)", "i.roll(1)",
    # moves, windows, rotations, repeats, splits
    "torch.movedim(x4, 0, -1)", "x4.movedim((0, 1), (3, 0))", "torch.moveaxis(x4, 1, 2)", "a.unfold(1, 2, 1)",
    "v.unfold(0, 3, 2)", "torch.rot90(a)", "torch.rot90(a, 2)", "a.rot90(-1, [1, 0])", "torch.rot90(x4, 1, (2, 3))",
    "a.repeat(2, 1)", "v.repeat(2, 2)", "torch.tile(a, (2,))", "i.tile((2, 1, 1))",
    "torch.repeat_interleave(a, 2)", "a.repeat_interleave(2, dim=1)",
    "torch.repeat_interleave(a, torch.tensor([1, 0, 2]), dim=0)", "v.repeat_interleave(torch.tensor(3))",
    "torch.tensor_split(a, 3, 1)", "a.tensor_split([1, 2])", "torch.tensor_split(v, torch.tensor([1, 3]))",
    "torch.hsplit(a, 2)", "torch.hsplit(v, [1])", "torch.vsplit(x4[0], [1])", "torch.dsplit(x4, 3)",
    "torch.atleast_1d(torch.tensor(1.5))", "torch.atleast_2d(v)", "torch.atleast_3d(a)",
    "torch.atleast_3d(v, a)", "torch.atleast_2d([v, a])", "torch.hstack([a, b])", "torch.hstack((v, v))",
    "torch.vstack([a, b])", "torch.vstack([v, v])", "torch.dstack([a, b])", "torch.dstack([v, v])",
    "torch.column_stack([v, v])", "torch.column_stack([a, a[:, :1]])",
    "torch.broadcast_to(v, (3, 4))", "torch.broadcast_tensors(a[:, :1], v)", "torch.broadcast_shapes((3, 1), (4,))",
    "torch.meshgrid(v, a[0, :3], indexing='ij')", "torch.meshgrid(v, a[0, :3], indexing='xy')",
    "torch.meshgrid([v, b[1]], indexing='ij')",
    "torch.cartesian_prod(v[:2], a[0, :3])", "torch.cartesian_prod(v)",
    "torch.take(a, torch.tensor([[0, 5], [-1, 2]]))", "a.take(torch.tensor(3))",
    "torch.take_along_dim(a, torch.tensor([[0], [2], [1]]), dim=1)", "a.take_along_dim(torch.tensor([[0, 1, 2, 0]]), 0)",
    "torch.take_along_dim(a, a.argmax(1, keepdim=True), 1)", "torch.take_along_dim(a, torch.tensor([3, 0]))",
]

REPRS = [
    "torch.tril(a.requires_grad_())", "torch.triu(a.requires_grad_())", "a.requires_grad_().diagonal()",
    "torch.diag(v.requires_grad_())", "torch.diag_embed(v.requires_grad_())", "a.requires_grad_().trace()",
    "a.requires_grad_().flip(0)", "torch.roll(a.requires_grad_(), 1, 0)",
]

ERRORS = [
    "torch.eye(-1)", "torch.linspace(0, 1, -1)", "torch.randint(3, 3, (2,))", "torch.tril(v)",
    "torch.diagonal(a, 0, 1, 1)", "torch.diag(x4)", "torch.trace(v)", "torch.flip(a, [0, 0])",
    "torch.fliplr(v)", "torch.roll(a, (1, 2), 0)", "torch.tril_indices(-1, 2)", "torch.movedim(a, 2, 0)",
    "a.unfold(1, 5, 1)", "torch.rot90(a, 1, [0, 0])", "a.repeat(2)", "torch.repeat_interleave(a, -1, 0)",
    "torch.tensor_split(a, 0)", "torch.hsplit(a, 3)", "torch.vsplit(v, 2)", "torch.broadcast_shapes((3,), (4,))",
    "torch.meshgrid(v, u, indexing='ij')", "torch.take(a, torch.tensor([1], dtype=torch.int32))",
    "torch.take_along_dim(a, torch.tensor([0, 1]), 1)",
]

GRADS = [
    ("torch.tril(a, 1) * 2", ["a"]), ("a.triu(-1)", ["a"]), ("a.diagonal(1)", ["a"]), ("torch.diag(v, -1)", ["v"]),
    ("torch.diag(m)", ["m"]), ("torch.diag_embed(a, 1)", ["a"]), ("a.trace()", ["a"]), ("a.flip(0, 1)", ["a"]),
    ("torch.roll(a, (1, -1), (0, 1))", ["a"]), ("torch.roll(a, 3)", ["a"]), ("torch.fliplr(a)", ["a"]),
    ("a.unfold(1, 2, 1)", ["a"]), ("torch.rot90(a, 1)", ["a"]), ("a.repeat(2, 3)", ["a"]), ("torch.tile(v, (2, 1))", ["v"]),
    ("torch.repeat_interleave(a, torch.tensor([2, 0, 1]), 0)", ["a"]), ("torch.movedim(x4, 1, 3)", ["x4"]),
    ("torch.hstack([a, b])", ["a", "b"]), ("torch.take(a, torch.tensor([[1, 1], [-1, 0]]))", ["a"]),
    ("torch.take_along_dim(a, torch.tensor([[0], [2], [1]]), 1)", ["a"]), ("torch.meshgrid(v, v[:2], indexing='xy')[0]", ["v"]),
]


def main():
    out = {"values": {}, "reprs": {}, "errors": {}, "grads": {}}
    for expr in VALUES:
        out["values"][expr] = encode(eval(expr, env()))
    for expr in REPRS:
        out["reprs"][expr] = repr(eval(expr, env()))
    for expr in ERRORS:
        try:
            eval(expr, env())
        except Exception as e:  # noqa: BLE001
            out["errors"][expr] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
        else:
            raise SystemExit("torch accepts %r" % expr)
    for expr, leaves in GRADS:
        e = env()
        for n in leaves:
            e[n] = e[n].clone().requires_grad_(True)
        y = eval(expr, e)
        g = torch.from_numpy(np.random.RandomState(7).randn(*y.shape).astype(np.float32)) if y.dim() else torch.tensor(1.0)
        (y * g).sum().backward()
        out["grads"][expr] = {"leaves": leaves, "weight": g.numpy().tolist(),
                              "grads": {n: e[n].grad.numpy().tolist() for n in leaves}}
    with open(os.path.join(HERE, "shape_ops_golden.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
