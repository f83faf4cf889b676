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


def _pad(a):
    return a.get("padding_mode") or a.get("padding", [0, 0])


CONV = {
    "conv2d": lambda xs, a: F.conv2d(xs[0], xs[1], xs[2], stride=a.get("stride", [1, 1]), padding=_pad(a),
                                     dilation=a.get("dilation", [1, 1]), groups=a.get("groups", 1)),
    "conv_transpose2d": lambda xs, a: F.conv_transpose2d(
        xs[0], xs[1], xs[2], stride=a.get("stride", [1, 1]), padding=a.get("padding", [0, 0]),
        output_padding=a.get("output_padding", [0, 0]), groups=a.get("groups", 1),
        dilation=a.get("dilation", [1, 1])),
}


def conv():
    fx = Fixture(CONV, CONV.keys())
    s = smooth
    c = lambda name, xs, **kw: fx.case("conv2d " + name, "conv2d", xs, **kw)
    c("basic", [s([2, 3, 4, 4]), s([4, 3, 3, 3]), s([4])])
    c("no bias", [s([2, 3, 5, 5]), s([4, 3, 3, 3]), None])
    c("stride 2 padding 1", [s([1, 2, 6, 6]), s([3, 2, 3, 3]), s([3])], stride=[2, 2], padding=[1, 1])
    c("dilation 2 padding 2", [s([1, 2, 7, 7]), s([2, 2, 3, 3]), s([2])], dilation=[2, 2], padding=[2, 2])
    c("groups 2", [s([1, 4, 5, 5]), s([6, 2, 3, 3]), s([6])], groups=2)
    c("depthwise", [s([1, 3, 5, 5]), s([3, 1, 3, 3]), s([3])], groups=3)
    c("depthwise multiplier 2", [s([1, 2, 4, 4]), s([4, 1, 3, 3]), None], groups=2, padding=[1, 1])
    c("pointwise 1x1", [s([2, 3, 4, 4]), s([5, 3, 1, 1]), s([5])])
    c("1x1 stride 2", [s([1, 3, 5, 5]), s([2, 3, 1, 1]), None], stride=[2, 2])
    c("rectangular", [s([1, 3, 5, 6]), s([2, 3, 2, 3]), s([2])], stride=[1, 2], padding=[1, 0])
    c("stride 3 dilation 2", [s([1, 2, 9, 8]), s([2, 2, 2, 2]), s([2])], stride=[3, 2], dilation=[2, 3])
    c("same odd kernel", [s([1, 2, 5, 5]), s([3, 2, 3, 3]), s([3])], padding_mode="same")
    c("same even kernel (asymmetric)", [s([1, 2, 5, 6]), s([2, 2, 2, 4]), s([2])], padding_mode="same")
    c("same dilated", [s([1, 2, 6, 6]), s([2, 2, 3, 2]), None], padding_mode="same", dilation=[2, 3])
    c("valid", [s([1, 2, 5, 5]), s([2, 2, 3, 3]), s([2])], padding_mode="valid")
    c("unbatched", [s([3, 5, 5]), s([2, 3, 3, 3]), s([2])], padding=[1, 1])
    c("transposed input", [T(s([2, 3, 3, 4])), s([2, 3, 2, 2]), s([2])])
    c("padding larger than kernel", [s([1, 1, 3, 3]), s([1, 1, 2, 2]), None], padding=[3, 2])
    c("kernel equals input", [s([2, 2, 3, 3]), s([3, 2, 3, 3]), s([3])])
    # im2col + GEMM with strides, dilation and asymmetric padding (depthwise cases take the direct path).
    c("gemm path stride dilation padding", [s([1, 4, 7, 7]), s([2, 4, 3, 3]), s([2])], stride=[2, 1],
      dilation=[1, 2], padding=[1, 2])
    c("gemm path groups 2", [s([2, 8, 5, 5]), s([4, 4, 3, 3]), s([4])], groups=2, padding=[1, 1])
    c("gemm path same even kernel", [s([1, 4, 5, 6]), s([2, 4, 2, 4]), None], padding_mode="same")
    c("f32", [rnd([2, 3, 6, 6], f32), rnd([4, 3, 3, 3], f32), rnd([4], f32)], padding=[1, 1])
    c("f32 groups", [rnd([2, 4, 6, 6], f32), rnd([4, 2, 3, 3], f32), rnd([4], f32)], groups=2, stride=[2, 2])
    c("bf16", [rnd([1, 2, 5, 5], bf16), rnd([3, 2, 3, 3], bf16), rnd([3], bf16)], tol=BF)
    c("int64", [rnd([1, 2, 5, 5], "int64"), rnd([3, 2, 3, 3], "int64"), rnd([3], "int64")])
    c("zero batch", [s([0, 3, 5, 5]), s([4, 3, 3, 3]), s([4])])
    c("f32 one large image", [rnd([1, 16, 16, 16], f32, -2, 2), rnd([8, 16, 3, 3], f32, -2, 2), None],
      padding=[1, 1])
    t = lambda name, xs, **kw: fx.case("conv_transpose2d " + name, "conv_transpose2d", xs, **kw)
    t("basic", [s([2, 4, 4, 4]), s([4, 3, 3, 3]), s([3])])
    t("no bias", [s([1, 2, 3, 3]), s([2, 3, 2, 2]), None])
    t("stride 2 padding 1 output_padding 1", [s([1, 2, 3, 3]), s([2, 3, 3, 3]), s([3])], stride=[2, 2],
      padding=[1, 1], output_padding=[1, 1])
    t("groups 2", [s([1, 4, 3, 3]), s([4, 2, 3, 3]), s([4])], groups=2)
    t("dilation 2", [s([1, 2, 3, 3]), s([2, 2, 2, 2]), s([2])], dilation=[2, 2], output_padding=[1, 0],
      stride=[2, 1])
    t("rectangular", [s([1, 2, 3, 4]), s([2, 2, 3, 2]), s([2])], stride=[1, 2], padding=[1, 0])
    t("unbatched", [s([2, 3, 3]), s([2, 3, 3, 3]), s([3])])
    t("f32", [rnd([2, 3, 4, 4], f32), rnd([3, 2, 3, 3], f32), rnd([2], f32)], stride=[2, 2])
    # No bfloat16 case: torch 1.13's CPU conv_transpose2d returns a wrong shape for bfloat16 ([1, 2, 1, 1]
    # for a [1, 2, 3, 3] input and a 3x3 kernel); glia computes it in float32 like conv2d.
    t("zero batch", [s([0, 2, 3, 3]), s([2, 3, 3, 3]), s([3])])

    SH, DT, IA = "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE", "GLIA_ERR_INVALID_ARGUMENT"
    e = lambda name, xs, code, **kw: fx.error("conv2d " + name, "conv2d", xs, code, **kw)
    e("channels", [rnd([1, 4, 5, 5], f32), rnd([8, 3, 3, 3], f32), None], SH)
    e("kernel larger than input", [rnd([1, 3, 2, 2], f32), rnd([8, 3, 3, 3], f32), None], SH)
    e("bias size", [rnd([1, 3, 5, 5], f32), rnd([8, 3, 3, 3], f32), rnd([7], f32)], SH)
    e("groups divide", [rnd([1, 4, 5, 5], f32), rnd([8, 2, 3, 3], f32), None], SH, groups=3)
    e("stride 0", [rnd([1, 4, 5, 5], f32), rnd([8, 2, 3, 3], f32), None], IA, groups=2, stride=[0, 0])
    e("negative padding", [rnd([1, 4, 5, 5], f32), rnd([8, 2, 3, 3], f32), None], IA, groups=2, padding=[-1, -1])
    e("dilation 0", [rnd([1, 4, 5, 5], f32), rnd([8, 2, 3, 3], f32), None], IA, groups=2, dilation=[0, 0])
    e("groups 0", [rnd([1, 4, 5, 5], f32), rnd([8, 2, 3, 3], f32), None], IA, groups=0)
    e("same strided", [rnd([1, 4, 5, 5], f32), rnd([8, 2, 3, 3], f32), None], IA, groups=2, padding_mode="same",
      stride=[2, 2])
    e("dtype", [rnd([1, 4, 5, 5], f32), rnd([8, 2, 3, 3], f64), None], DT, groups=2)
    e("float16", [rnd([1, 4, 5, 5], "float16"), rnd([8, 2, 3, 3], "float16"), None], DT, groups=2)
    e("2-D input", [rnd([4, 5], f32), rnd([8, 2, 3, 3], f32), None], SH, groups=2)
    # torch reports a 3-D weight through its stride-list check; glia names the weight (message differs).
    e("3-D weight", [rnd([1, 3, 5, 5], f32), rnd([8, 3, 3], f32), None], SH, message=False)
    et = lambda name, xs, code, **kw: fx.error("conv_transpose2d " + name, "conv_transpose2d", xs, code, **kw)
    et("channels", [rnd([1, 4, 5, 5], f32), rnd([3, 2, 3, 3], f32), None], SH)
    et("output_padding", [rnd([1, 4, 5, 5], f32), rnd([4, 2, 3, 3], f32), None], IA, output_padding=[1, 1])
    et("output_padding stride 2", [rnd([1, 4, 5, 5], f32), rnd([4, 2, 3, 3], f32), None], IA,
       output_padding=[2, 2], stride=[2, 2])
    et("dtype", [rnd([1, 4, 5, 5], f32), rnd([4, 2, 3, 3], f64), None], DT)
    return fx


def _maxpool(xs, a):
    k = a["kernel_size"]
    return F.max_pool2d(xs[0], k, a.get("stride") or k, a.get("padding", 0), a.get("dilation", 1),
                        a.get("ceil_mode", False), a.get("return_indices", False))


def _avgpool(xs, a):
    k = a["kernel_size"]
    return F.avg_pool2d(xs[0], k, a.get("stride") or k, a.get("padding", 0), a.get("ceil_mode", False),
                        a.get("count_include_pad", True), a.get("divisor_override"))


POOL = {
    "max_pool2d": _maxpool,
    "avg_pool2d": _avgpool,
    "adaptive_avg_pool2d": lambda xs, a: F.adaptive_avg_pool2d(xs[0], a["output_size"]),
}


def pool():
    fx = Fixture(POOL, POOL.keys())
    s = smooth
    m = lambda name, xs, **kw: fx.case("max_pool2d " + name, "max_pool2d", xs, **kw)
    m("k2", [s([2, 3, 6, 6])], kernel_size=[2, 2])
    m("k3 s2 p1", [s([1, 2, 7, 7])], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1])
    m("ceil_mode", [s([1, 2, 7, 7])], kernel_size=[2, 2], stride=[2, 2], ceil_mode=True)
    m("ceil_mode last window in padding", [s([1, 1, 5, 5])], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1],
      ceil_mode=True)
    m("ceil_mode window dropped", [s([1, 1, 6, 6])], kernel_size=[2, 2], stride=[3, 3], padding=[1, 1],
      ceil_mode=True)
    m("dilation 2", [s([1, 2, 7, 8])], kernel_size=[2, 3], stride=[1, 2], dilation=[2, 2], padding=[1, 1])
    m("rectangular", [s([2, 1, 5, 6])], kernel_size=[2, 3], stride=[1, 2])
    m("unbatched", [s([3, 5, 5])], kernel_size=[2, 2])
    m("return_indices", [s([1, 2, 5, 5])], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], return_indices=True)
    m("return_indices unbatched", [s([2, 4, 4])], kernel_size=[2, 2], return_indices=True)
    m("transposed input", [T(s([2, 3, 4, 4]))], kernel_size=[2, 2])
    m("f32", [rnd([2, 3, 6, 6], f32)], kernel_size=[2, 2], return_indices=True)
    m("bf16", [rnd([1, 2, 6, 6], bf16)], kernel_size=[3, 3], stride=[1, 1])
    m("nan wins", [torch.tensor([[[[1.0, float("nan"), 2.0], [3.0, 4.0, 5.0], [0.0, 1.0, 9.0]]]])],
      kernel_size=[2, 2], stride=[1, 1], return_indices=True)
    two_nans = torch.tensor([[[[float("nan"), 1.0, 2.0, 0.5], [3.0, float("nan"), 5.0, 5.0],
                               [0.0, 1.0, 9.0, 9.0], [7.0, 7.0, 9.0, 9.0]]]])
    m("two nans in a window, ties", [two_nans], kernel_size=[2, 2], return_indices=True)
    m("two nans, ties, padded path", [two_nans], kernel_size=[2, 2], padding=[1, 1], stride=[1, 1],
      return_indices=True)
    m("stride 1 overlapping f32", [rnd([2, 2, 6, 7], f32, -2, 2)], kernel_size=[3, 2], stride=[1, 1],
      return_indices=True)
    m("zero batch", [s([0, 2, 4, 4])], kernel_size=[2, 2])
    a = lambda name, xs, **kw: fx.case("avg_pool2d " + name, "avg_pool2d", xs, **kw)
    a("k2", [s([2, 3, 6, 6])], kernel_size=[2, 2])
    a("k3 s2 p1", [s([1, 2, 7, 7])], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1])
    a("k3 s2 p1 exclude pad", [s([1, 2, 7, 7])], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1],
      count_include_pad=False)
    a("ceil_mode", [s([1, 2, 7, 7])], kernel_size=[2, 2], stride=[2, 2], ceil_mode=True)
    a("ceil_mode padding", [s([1, 1, 5, 5])], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], ceil_mode=True)
    a("ceil_mode padding exclude", [s([1, 1, 6, 6])], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1],
      ceil_mode=True, count_include_pad=False)
    a("divisor_override", [s([1, 2, 5, 5])], kernel_size=[2, 2], stride=[1, 1], divisor_override=3)
    a("rectangular", [s([1, 2, 5, 7])], kernel_size=[2, 3], stride=[1, 2], padding=[1, 1])
    a("unbatched", [s([3, 5, 5])], kernel_size=[2, 2])
    a("transposed input", [T(s([2, 3, 4, 4]))], kernel_size=[2, 2])
    a("f32", [rnd([2, 3, 6, 6], f32)], kernel_size=[2, 2])
    a("bf16", [rnd([1, 2, 6, 6], bf16)], kernel_size=[2, 2], tol=BF)
    a("int64", [rnd([1, 2, 6, 6], "int64", 0, 50)], kernel_size=[2, 2])
    a("zero batch", [s([0, 2, 4, 4])], kernel_size=[2, 2])
    d = lambda name, xs, **kw: fx.case("adaptive_avg_pool2d " + name, "adaptive_avg_pool2d", xs, **kw)
    d("7x9 to 3x4", [s([2, 3, 7, 9])], output_size=[3, 4])
    d("to 1x1", [s([2, 3, 5, 5])], output_size=[1, 1])
    d("upsampling 5 to 7", [s([1, 2, 5, 5])], output_size=[7, 6])
    d("identity", [s([1, 2, 4, 4])], output_size=[4, 4])
    d("unbatched", [s([3, 5, 6])], output_size=[2, 3])
    d("transposed input", [T(s([2, 3, 4, 4]))], output_size=[3, 2])
    d("f32", [rnd([2, 3, 6, 6], f32)], output_size=[4, 4])
    d("bf16", [rnd([1, 2, 6, 6], bf16)], output_size=[3, 3], tol=BF)
    d("zero batch", [s([0, 2, 4, 4])], output_size=[2, 2])

    SH, DT, IA = "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE", "GLIA_ERR_INVALID_ARGUMENT"
    for op, f in (("max_pool2d", _maxpool), ("avg_pool2d", _avgpool)):
        fx.error(op + " pad too large", op, [rnd([1, 4, 5, 5], f32)], IA, kernel_size=[3, 3], padding=[2, 2])
        fx.error(op + " output too small", op, [rnd([1, 4, 2, 2], f32)], SH, kernel_size=[3, 3])
        fx.error(op + " float16", op, [rnd([1, 4, 5, 5], "float16")], DT, kernel_size=[2, 2])
    fx.error("max_pool2d 2-D input", "max_pool2d", [rnd([4, 5], f32)], SH, kernel_size=[3, 3])
    fx.error("max_pool2d zero channels", "max_pool2d", [rnd([1, 0, 5, 5], f32)], SH, kernel_size=[2, 2])
    fx.error("max_pool2d dilation 0", "max_pool2d", [rnd([1, 4, 5, 5], f32)], IA, kernel_size=[2, 2],
             dilation=[0, 0])
    fx.error("max_pool2d int64", "max_pool2d", [rnd([1, 4, 5, 5], "int64")], DT, kernel_size=[2, 2])
    # (divisor_override 0 means "none" in glia's options struct, so torch's "divisor must be not zero" has no
    # counterpart.) The parallel paths (large batches) are checked in conv_test.cpp against one thread.
    fx.error("adaptive_avg_pool2d empty dim", "adaptive_avg_pool2d", [rnd([1, 4, 0, 5], f32)], SH,
             output_size=[2, 2])
    fx.error("adaptive_avg_pool2d 2-D", "adaptive_avg_pool2d", [rnd([5, 5], f32)], SH, output_size=[2, 2])
    fx.error("adaptive_avg_pool2d int64", "adaptive_avg_pool2d", [rnd([1, 4, 5, 5], "int64")], DT,
             output_size=[2, 2])
    fx.error("adaptive_avg_pool2d float16", "adaptive_avg_pool2d", [rnd([1, 4, 5, 5], "float16")], DT,
             output_size=[2, 2])
    return fx


if __name__ == "__main__":
    linalg().write("linalg.json")
    conv().write("conv.json")
    pool().write("pool.json")
