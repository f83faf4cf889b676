#!/usr/bin/python3
"""Golden fixtures of the linear-algebra and convolution/pooling operators:
ops/linalg.json (matmul, mm, bmm, addmm, linear), ops/conv.json (conv2d,
conv_transpose2d) and ops/pool.json (max_pool2d, avg_pool2d,
adaptive_avg_pool2d). Format: see golden.py.

    cd tests/golden && /usr/bin/python3 gen_linalg.py
"""

import torch
import torch.nn.functional as F

from golden import Fixture, T, rnd, smooth

f64, f32, bf16 = "float64", "float32", "bfloat16"
# bfloat16 products: glia accumulates in float32 and rounds once (the correctly rounded result
# for these small exact inputs); torch 1.13's CPU kernel accumulates in bfloat16 and lands a few
# bfloat16 ulps away, so these cases compare with a looser tolerance.
BF = 0.05

LINALG = {
    "matmul": lambda xs, a: torch.matmul(xs[0], xs[1]),
    "mm": lambda xs, a: torch.mm(xs[0], xs[1]),
    "bmm": lambda xs, a: torch.bmm(xs[0], xs[1]),
    "addmm": lambda xs, a: torch.addmm(xs[0], xs[1], xs[2], beta=a.get("beta", 1.0), alpha=a.get("alpha", 1.0)),
    "linear": lambda xs, a: F.linear(xs[0], xs[1], xs[2]),
}


def linalg():
    fx = Fixture(LINALG, LINALG.keys())
    s = smooth
    # matmul: every rank combination of torch's rules.
    mm_shapes = [
        ("1Dx1D", [4], [4]), ("2Dx1D", [3, 4], [4]), ("1Dx2D", [4], [4, 5]), ("2Dx2D", [3, 4], [4, 5]),
        ("3Dx1D", [2, 3, 4], [4]), ("3Dx2D", [2, 3, 4], [4, 5]), ("4Dx2D", [2, 2, 3, 4], [4, 2]),
        ("1Dx3D", [4], [2, 4, 5]), ("2Dx3D", [3, 4], [2, 4, 5]), ("3Dx3D", [2, 3, 4], [2, 4, 5]),
        ("broadcast batch [2,1]x[3]", [2, 1, 3, 4], [3, 4, 2]), ("broadcast batch 1 vs 2", [1, 3, 4], [2, 4, 5]),
        ("4Dx1D", [2, 2, 3, 4], [4]), ("1Dx4D", [4], [2, 1, 4, 3]),
    ]
    for name, sa, sb in mm_shapes:
        fx.case("matmul " + name, "matmul", [s(sa), s(sb)])
    fx.case("matmul f32 2Dx2D", "matmul", [rnd([3, 4], f32), rnd([4, 5], f32)])
    fx.case("matmul f32 batched broadcast", "matmul", [rnd([2, 1, 3, 4], f32), rnd([3, 4, 2], f32)])
    fx.case("matmul bf16", "matmul", [rnd([3, 4], bf16), rnd([4, 5], bf16)], tol=BF)
    fx.case("matmul bf16 batched", "matmul", [rnd([2, 3, 4], bf16), rnd([2, 4, 5], bf16)], tol=BF)
    fx.case("matmul bf16 1Dx1D", "matmul", [rnd([6], bf16), rnd([6], bf16)], tol=BF)
    fx.case("matmul int64", "matmul", [rnd([3, 4], "int64"), rnd([4, 2], "int64")])
    fx.case("matmul int64 1Dx1D", "matmul", [rnd([5], "int64"), rnd([5], "int64")])
    fx.case("matmul int32 batched", "matmul", [rnd([2, 3, 4], "int32"), rnd([4, 2], "int32")])
    fx.case("matmul uint8 wraps", "matmul", [rnd([3, 4], "uint8", 0, 200), rnd([4, 2], "uint8", 0, 200)])
    fx.case("matmul transposed a", "matmul", [T(s([3, 4])), s([4, 5])])
    fx.case("matmul transposed both", "matmul", [T(s([3, 4])), T(s([4, 5]))])
    fx.case("matmul transposed 3D", "matmul", [T(s([3, 2, 4])), s([4, 5])])
    fx.case("matmul zero-size rows", "matmul", [s([0, 4]), s([4, 5])])
    fx.case("matmul zero-size k", "matmul", [s([3, 0]), s([0, 5])])
    fx.case("matmul zero batch", "matmul", [s([0, 3, 4]), s([0, 4, 5])])
    fx.case("matmul 1Dx1D empty", "matmul", [s([0]), s([0])])
    # Above the parallel GEMM threshold (and the bigger one for several threads).
    fx.case("matmul large f32 transposed", "matmul", [T(rnd([64, 64], f32, -2, 2)), rnd([64, 64], f32, -2, 2)])
    fx.case("matmul large batched f32", "matmul", [rnd([2, 64, 32], f32, -2, 2), rnd([2, 32, 64], f32, -2, 2)])

    fx.case("mm f64", "mm", [s([3, 4]), s([4, 5])])
    fx.case("mm f64 transposed", "mm", [s([3, 4]), T(s([4, 5]))])
    fx.case("mm f32", "mm", [rnd([3, 4], f32), rnd([4, 2], f32)])
    fx.case("mm bf16", "mm", [rnd([3, 4], bf16), rnd([4, 2], bf16)], tol=BF)
    fx.case("mm int64", "mm", [rnd([3, 4], "int64"), rnd([4, 2], "int64")])
    fx.case("mm zero", "mm", [s([0, 4]), s([4, 0])])
    fx.case("mm 1x1", "mm", [s([1, 1]), s([1, 1])])
    fx.case("mm row times column", "mm", [s([1, 5]), s([5, 1])])
    fx.case("bmm f64", "bmm", [s([2, 3, 4]), s([2, 4, 5])])
    fx.case("bmm f32", "bmm", [rnd([3, 2, 4], f32), rnd([3, 4, 2], f32)])
    fx.case("bmm transposed", "bmm", [T(s([2, 3, 4])), s([2, 4, 5])])
    fx.case("bmm bf16", "bmm", [rnd([2, 2, 4], bf16), rnd([2, 4, 3], bf16)], tol=BF)
    fx.case("bmm int64", "bmm", [rnd([2, 2, 4], "int64"), rnd([2, 4, 3], "int64")])
    fx.case("bmm zero batch", "bmm", [s([0, 2, 4]), s([0, 4, 3])])
    fx.case("addmm f64", "addmm", [s([3, 5]), s([3, 4]), s([4, 5])])
    fx.case("addmm bias broadcast row", "addmm", [s([5]), s([3, 4]), s([4, 5])])
    fx.case("addmm bias broadcast column", "addmm", [s([3, 1]), s([3, 4]), s([4, 5])])
    fx.case("addmm bias 0-dim", "addmm", [s([]), s([3, 4]), s([4, 5])])
    fx.case("addmm beta alpha", "addmm", [s([5]), s([3, 4]), s([4, 5])], beta=0.5, alpha=-2.0)
    fx.case("addmm beta 0 ignores nan", "addmm", [torch.full([5], float("nan"), dtype=torch.float64), s([3, 4]),
                                                   s([4, 5])], beta=0.0, grads=False)
    fx.case("addmm transposed", "addmm", [s([3, 5]), T(s([3, 4])), T(s([4, 5]))])
    fx.case("addmm f32", "addmm", [rnd([5], f32), rnd([3, 4], f32), rnd([4, 5], f32)], beta=2.0, alpha=0.5)
    fx.case("addmm bf16", "addmm", [rnd([5], bf16), rnd([3, 4], bf16), rnd([4, 5], bf16)], tol=BF)
    fx.case("addmm int64", "addmm", [rnd([5], "int64"), rnd([3, 4], "int64"), rnd([4, 5], "int64")],
            beta=2, alpha=3)
    fx.case("addmm zero k", "addmm", [s([5]), s([3, 0]), s([0, 5])])
    fx.case("linear 2D bias", "linear", [s([3, 4]), s([5, 4]), s([5])])
    fx.case("linear 2D no bias", "linear", [s([3, 4]), s([5, 4]), None])
    fx.case("linear 3D bias", "linear", [s([2, 3, 4]), s([5, 4]), s([5])])
    fx.case("linear 3D no bias", "linear", [s([2, 3, 4]), s([5, 4]), None])
    fx.case("linear 1D", "linear", [s([4]), s([5, 4]), s([5])])
    fx.case("linear transposed x", "linear", [T(s([3, 4])), s([5, 4]), s([5])])
    fx.case("linear f32", "linear", [rnd([8, 30], f32), rnd([20, 30], f32), rnd([20], f32)])
    fx.case("linear bf16", "linear", [rnd([3, 4], bf16), rnd([5, 4], bf16), rnd([5], bf16)], tol=BF)
    fx.case("linear zero batch", "linear", [s([0, 4]), s([5, 4]), s([5])])

    SH, DT = "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE"
    fx.error("mm shapes", "mm", [rnd([2, 3], f32), rnd([4, 5], f32)], SH)
    fx.error("mm 3D", "mm", [rnd([2, 3, 3], f32), rnd([3, 5], f32)], SH)
    fx.error("mm mat2 1D", "mm", [rnd([2, 3], f32), rnd([3], f32)], SH)
    fx.error("mm dtype", "mm", [rnd([2, 3], f32), rnd([3, 5], f64)], DT)
    fx.error("mm float16", "mm", [rnd([2, 3], "float16"), rnd([3, 5], "float16")], DT)
    fx.error("mm bool", "mm", [rnd([2, 3], "bool"), rnd([3, 5], "bool")], DT)
    fx.error("bmm 2D", "bmm", [rnd([2, 3], f32), rnd([2, 3, 5], f32)], SH)
    fx.error("bmm batch", "bmm", [rnd([2, 2, 3], f32), rnd([3, 3, 5], f32)], SH)
    fx.error("bmm inner", "bmm", [rnd([2, 2, 3], f32), rnd([2, 4, 5], f32)], SH)
    fx.error("bmm dtype", "bmm", [rnd([2, 2, 3], f32), rnd([2, 3, 5], f64)], DT)
    fx.error("bmm float16", "bmm", [rnd([2, 2, 3], "float16"), rnd([2, 3, 5], "float16")], DT)
    fx.error("matmul 0D", "matmul", [rnd([], f32), rnd([3, 5], f32)], SH)
    fx.error("matmul 0D right", "matmul", [rnd([3], f32), rnd([], f32)], SH)
    fx.error("matmul 1Dx1D sizes", "matmul", [rnd([3], f32), rnd([4], f32)], SH)
    fx.error("matmul 2Dx1D sizes", "matmul", [rnd([2, 3], f32), rnd([4], f32)], SH)
    fx.error("matmul 1Dx2D sizes", "matmul", [rnd([3], f32), rnd([4, 5], f32)], SH)
    fx.error("matmul batch broadcast", "matmul", [rnd([2, 2, 3], f32), rnd([3, 3, 5], f32)], SH)
    fx.error("matmul folded sizes", "matmul", [rnd([2, 2, 3], f32), rnd([4, 5], f32)], SH)
    fx.error("matmul dtype", "matmul", [rnd([2, 3], f32), rnd([3, 5], f64)], DT)
    fx.error("matmul dtype 1D", "matmul", [rnd([3], f32), rnd([3], f64)], DT)
    fx.error("matmul dtype mv", "matmul", [rnd([2, 3], f32), rnd([3], f64)], DT)
    fx.error("matmul dtype batched", "matmul", [rnd([2, 2, 3], f32), rnd([2, 3, 5], f64)], DT)
    fx.error("matmul float16", "matmul", [rnd([2, 3], "float16"), rnd([3, 5], "float16")], DT)
    fx.error("matmul float16 dot", "matmul", [rnd([3], "float16"), rnd([3], "float16")], DT)
    fx.error("matmul float16 mv", "matmul", [rnd([2, 3], "float16"), rnd([3], "float16")], DT)
    fx.error("addmm bias shape", "addmm", [rnd([3], f32), rnd([2, 3], f32), rnd([3, 5], f32)], SH)
    fx.error("addmm shapes", "addmm", [rnd([5], f32), rnd([2, 3], f32), rnd([4, 5], f32)], SH)
    fx.error("addmm dtype", "addmm", [rnd([5], f32), rnd([2, 3], f32), rnd([3, 5], f64)], DT)
    fx.error("addmm bias dtype", "addmm", [rnd([5], f64), rnd([2, 3], f32), rnd([3, 5], f32)], DT)
    fx.error("linear shapes", "linear", [rnd([2, 3], f32), rnd([4, 5], f32), None], SH)
    fx.error("linear 3D shapes", "linear", [rnd([2, 3, 3], f32), rnd([4, 5], f32), None], SH)
    fx.error("linear bias shape", "linear", [rnd([2, 3], f32), rnd([4, 3], f32), rnd([5], f32)], SH)
    fx.error("linear dtype", "linear", [rnd([2, 3], f32), rnd([4, 3], f64), None], DT)
    fx.error("linear bias dtype", "linear", [rnd([2, 3], f32), rnd([4, 3], f32), rnd([4], f64)], DT)
    return fx


if __name__ == "__main__":
    linalg().write("linalg.json")
