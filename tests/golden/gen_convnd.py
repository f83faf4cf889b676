#!/usr/bin/python3
"""Golden fixtures of the 1-D and 3-D convolutions and of unfold / fold: ops/convnd.json (conv1d,
conv3d, conv_transpose1d, conv_transpose3d, im2col = F.unfold, col2im = F.fold), one case per line; append new cases at the
end (inputs come from golden.py's seeded generator, so inserting shifts every later case). Format: see
golden.py.

    cd tests/golden && /usr/bin/python3 gen_convnd.py
"""

import json
import os

import torch
import torch.nn.functional as F

from golden import OUT, Fixture, T, rnd, smooth

f64, f32, bf16 = "float64", "float32", "bfloat16"
SH, DT, IA = "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE", "GLIA_ERR_INVALID_ARGUMENT"


def _pad(a, n):
    return a.get("padding_mode") or a.get("padding", [0] * n)


def _conv(f, n):
    return lambda xs, a: f(xs[0], xs[1], xs[2], stride=a.get("stride", [1] * n), padding=_pad(a, n),
                           dilation=a.get("dilation", [1] * n), groups=a.get("groups", 1))


def _convt(f, n):
    return lambda xs, a: f(xs[0], xs[1], xs[2], stride=a.get("stride", [1] * n), padding=a.get("padding", [0] * n),
                           output_padding=a.get("output_padding", [0] * n), groups=a.get("groups", 1),
                           dilation=a.get("dilation", [1] * n))


def _fold_args(a):
    return dict(kernel_size=a["kernel_size"], dilation=a.get("dilation", [1, 1]), padding=a.get("padding", [0, 0]),
                stride=a.get("stride", [1, 1]))


OPS = {
    "conv1d": _conv(F.conv1d, 1),
    "conv3d": _conv(F.conv3d, 3),
    "conv_transpose1d": _convt(F.conv_transpose1d, 1),
    "conv_transpose3d": _convt(F.conv_transpose3d, 3),
    "im2col": lambda xs, a: F.unfold(xs[0], **_fold_args(a)),
    "col2im": lambda xs, a: F.fold(xs[0], a["output_size"], **_fold_args(a)),
}


class Fx(Fixture):
    """One case per line."""

    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(OUT, filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n], "errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def convnd():
    fx = Fx(OPS, OPS.keys())
    s = smooth
    c = lambda name, xs, **kw: fx.case("conv1d " + name, "conv1d", xs, **kw)
    c("basic", [s([2, 3, 7]), s([4, 3, 3]), s([4])])
    c("no bias", [s([2, 3, 6]), s([2, 3, 2]), None])
    c("stride 2 padding 1", [s([1, 2, 9]), s([3, 2, 3]), s([3])], stride=[2], padding=[1])
    c("dilation 2 padding 2", [s([1, 2, 8]), s([2, 2, 3]), s([2])], dilation=[2], padding=[2])
    c("groups 2", [s([1, 4, 6]), s([6, 2, 3]), s([6])], groups=2)
    c("depthwise", [s([2, 3, 6]), s([3, 1, 3]), s([3])], groups=3)
    c("same even kernel", [s([1, 2, 6]), s([2, 2, 4]), s([2])], padding_mode="same")
    c("same dilated", [s([1, 2, 7]), s([2, 2, 3]), None], padding_mode="same", dilation=[2])
    c("valid", [s([1, 2, 6]), s([2, 2, 3]), s([2])], padding_mode="valid")
    c("unbatched", [s([3, 6]), s([2, 3, 3]), s([2])], padding=[1])
    c("transposed input", [T(s([2, 3, 5])), s([2, 3, 2]), s([2])])
    c("f32", [rnd([2, 3, 8], f32), rnd([4, 3, 3], f32), rnd([4], f32)], padding=[1], stride=[2])
    c("int64", [rnd([1, 2, 6], "int64"), rnd([3, 2, 3], "int64"), rnd([3], "int64")])
    c("bf16", [rnd([1, 2, 6], bf16), rnd([3, 2, 3], bf16), rnd([3], bf16)], tol=0.05)
    c("zero batch", [s([0, 3, 5]), s([4, 3, 3]), s([4])])

    c3 = lambda name, xs, **kw: fx.case("conv3d " + name, "conv3d", xs, **kw)
    c3("basic", [s([2, 2, 4, 4, 4]), s([3, 2, 2, 2, 2]), s([3])])
    c3("no bias", [s([1, 2, 3, 4, 5]), s([2, 2, 2, 3, 2]), None])
    c3("stride padding dilation", [s([1, 2, 5, 6, 5]), s([2, 2, 2, 3, 2]), s([2])], stride=[2, 1, 2],
       padding=[1, 2, 0], dilation=[1, 2, 2])
    c3("groups 2", [s([1, 4, 3, 4, 4]), s([6, 2, 2, 2, 2]), s([6])], groups=2, padding=[1, 0, 1])
    c3("same even kernel", [s([1, 2, 3, 4, 5]), s([2, 2, 2, 3, 4]), s([2])], padding_mode="same")
    c3("valid", [s([1, 2, 3, 4, 4]), s([2, 2, 2, 2, 2]), None], padding_mode="valid")
    c3("unbatched", [s([2, 3, 4, 4]), s([2, 2, 2, 2, 2]), s([2])], padding=[1, 1, 1])
    c3("transposed input", [T(s([2, 3, 3, 3, 3])), s([2, 3, 2, 2, 2]), None])
    c3("f32", [rnd([2, 3, 4, 5, 5], f32), rnd([4, 3, 3, 3, 3], f32), rnd([4], f32)], padding=[1, 1, 1],
       stride=[1, 2, 2])
    c3("int64", [rnd([1, 2, 3, 4, 4], "int64"), rnd([3, 2, 2, 2, 2], "int64"), rnd([3], "int64")])
    c3("zero batch", [s([0, 2, 3, 3, 3]), s([2, 2, 2, 2, 2]), s([2])])

    t = lambda name, xs, **kw: fx.case("conv_transpose1d " + name, "conv_transpose1d", xs, **kw)
    t("basic", [s([2, 4, 5]), s([4, 3, 3]), s([3])])
    t("no bias", [s([1, 2, 4]), s([2, 3, 2]), None])
    t("stride 2 padding 1 output_padding 1", [s([1, 2, 4]), s([2, 3, 3]), s([3])], stride=[2], padding=[1],
      output_padding=[1])
    t("groups 2 dilation 2", [s([1, 4, 4]), s([4, 2, 3]), s([4])], groups=2, dilation=[2])
    t("unbatched", [s([2, 4]), s([2, 3, 3]), s([3])])
    t("f32", [rnd([2, 3, 5], f32), rnd([3, 2, 3], f32), rnd([2], f32)], stride=[3])
    t("zero batch", [s([0, 2, 3]), s([2, 3, 3]), s([3])])

    t3 = lambda name, xs, **kw: fx.case("conv_transpose3d " + name, "conv_transpose3d", xs, **kw)
    t3("basic", [s([2, 3, 3, 3, 3]), s([3, 2, 2, 2, 2]), s([2])])
    t3("no bias", [s([1, 2, 2, 3, 2]), s([2, 2, 2, 2, 3]), None])
    t3("stride padding output_padding", [s([1, 2, 3, 3, 2]), s([2, 2, 3, 3, 3]), s([2])], stride=[2, 2, 1],
       padding=[1, 0, 1], output_padding=[1, 0, 0])
    t3("groups 2 dilation", [s([1, 4, 2, 3, 3]), s([4, 1, 2, 2, 2]), s([2])], groups=2, dilation=[1, 2, 2])
    t3("unbatched", [s([2, 2, 3, 3]), s([2, 2, 2, 2, 2]), s([2])])
    t3("f32", [rnd([2, 3, 3, 3, 3], f32), rnd([3, 2, 2, 3, 3], f32), rnd([2], f32)], stride=[2, 1, 2])
    t3("zero batch", [s([0, 2, 2, 2, 2]), s([2, 3, 2, 2, 2]), s([3])])

    u = lambda name, xs, **kw: fx.case("im2col " + name, "im2col", xs, **kw)
    u("basic", [s([2, 3, 4, 5])], kernel_size=[2, 3])
    u("stride padding dilation", [s([1, 2, 6, 7])], kernel_size=[3, 2], stride=[2, 3], padding=[1, 2],
      dilation=[2, 1])
    u("unbatched", [s([2, 4, 4])], kernel_size=[2, 2], stride=[2, 2])
    u("transposed input", [T(s([4, 2, 3, 3]))], kernel_size=[2, 2], padding=[1, 1])
    u("f32", [rnd([2, 3, 5, 5], f32)], kernel_size=[3, 3], padding=[1, 1])
    u("bf16", [rnd([1, 2, 4, 4], bf16)], kernel_size=[2, 2])
    u("zero batch", [s([0, 2, 4, 4])], kernel_size=[2, 2])
    u("kernel larger than padded input step", [s([1, 1, 3, 3])], kernel_size=[3, 3], stride=[2, 2], padding=[2, 2])

    fo = lambda name, xs, **kw: fx.case("col2im " + name, "col2im", xs, **kw)
    fo("basic", [s([2, 12, 12])], output_size=[4, 5], kernel_size=[2, 2])
    fo("stride padding dilation", [s([1, 12, 8])], output_size=[6, 7], kernel_size=[3, 2], stride=[2, 3],
       padding=[1, 2], dilation=[2, 1])
    fo("overlapping", [s([1, 18, 9])], output_size=[5, 5], kernel_size=[3, 3], stride=[2, 2], padding=[1, 1])
    fo("unbatched", [s([8, 4])], output_size=[4, 4], kernel_size=[2, 2], stride=[2, 2])
    fo("transposed input", [T(s([2, 8, 9]))], output_size=[4, 4], kernel_size=[2, 2])
    fo("f32", [rnd([2, 27, 25], f32)], output_size=[5, 5], kernel_size=[3, 3], padding=[1, 1])
    fo("zero batch", [s([0, 8, 9])], output_size=[4, 4], kernel_size=[2, 2])

    e = lambda name, op, xs, code, **kw: fx.error(op + " " + name, op, xs, code, **kw)
    e("4-D input", "conv1d", [rnd([1, 3, 4, 5], f32), rnd([2, 3, 1], f32), None], SH)
    e("4-D weight", "conv1d", [rnd([1, 3, 5], f32), rnd([2, 3, 1, 1], f32), None], SH)
    e("channels", "conv1d", [rnd([2, 3, 5], f32), rnd([2, 4, 1], f32), None], SH)
    e("kernel larger than input", "conv1d", [rnd([2, 3, 5], f32), rnd([2, 3, 7], f32), None], SH)
    e("bias size", "conv1d", [rnd([2, 3, 5], f32), rnd([3, 3, 1], f32), rnd([2], f32)], SH)
    e("groups divide", "conv1d", [rnd([1, 4, 5], f32), rnd([5, 2, 3], f32), None], SH, groups=2)
    e("stride 0", "conv1d", [rnd([2, 3, 5], f32), rnd([3, 3, 1], f32), None], IA, stride=[0])
    e("negative padding", "conv1d", [rnd([2, 3, 5], f32), rnd([3, 3, 1], f32), None], IA, padding=[-1])
    e("same strided", "conv1d", [rnd([2, 3, 5], f32), rnd([3, 3, 1], f32), None], IA, stride=[2],
      padding_mode="same")
    e("dtype", "conv1d", [rnd([2, 3, 5], f32), rnd([3, 3, 1], f64), None], DT)
    e("3-D input", "conv3d", [rnd([2, 3, 5], f32), rnd([3, 3, 1, 1, 1], f32), None], SH)
    e("channels", "conv3d", [rnd([2, 3, 5, 5, 5], f32), rnd([3, 2, 1, 1, 1], f32), None], SH)
    e("kernel larger than input", "conv3d", [rnd([2, 3, 5, 5, 5], f32), rnd([3, 3, 7, 1, 1], f32), None], SH)
    e("bias size", "conv3d", [rnd([2, 3, 3, 3, 3], f32), rnd([3, 3, 1, 1, 1], f32), rnd([2], f32)], SH)
    e("dtype", "conv3d", [rnd([2, 3, 3, 3, 3], f64), rnd([3, 3, 1, 1, 1], f32), None], DT)
    e("same strided", "conv3d", [rnd([2, 3, 3, 3, 3], f32), rnd([3, 3, 1, 1, 1], f32), None], IA,
      stride=[1, 2, 1], padding_mode="same")
    e("channels", "conv_transpose1d", [rnd([2, 2, 5], f32), rnd([3, 3, 1], f32), None], SH)
    e("output_padding", "conv_transpose1d", [rnd([2, 3, 5], f32), rnd([3, 3, 1], f32), None], IA,
      output_padding=[1])
    e("output too small", "conv_transpose1d", [rnd([2, 3, 1], f32), rnd([3, 3, 1], f32), None], SH, padding=[1])
    e("3-D input", "conv_transpose1d", [rnd([2, 3, 5, 5], f32), rnd([3, 3, 1], f32), None], SH)
    e("channels", "conv_transpose3d", [rnd([2, 2, 1, 1, 1], f32), rnd([3, 3, 1, 1, 1], f32), None], SH)
    e("output_padding", "conv_transpose3d", [rnd([2, 3, 2, 2, 2], f32), rnd([3, 3, 1, 1, 1], f32), None], IA,
      output_padding=[1, 1, 1])
    e("output too small", "conv_transpose3d", [rnd([2, 3, 1, 1, 1], f32), rnd([3, 3, 1, 1, 1], f32), None], SH,
      padding=[1, 1, 1])
    e("dtype", "conv_transpose3d", [rnd([2, 3, 2, 2, 2], f64), rnd([3, 3, 1, 1, 1], f32), None], DT)
    e("bias size", "conv_transpose3d", [rnd([2, 3, 2, 2, 2], f32), rnd([3, 2, 1, 1, 1], f32), rnd([3], f32)], SH)
    e("kernel 0", "im2col", [rnd([2, 3, 5, 5], f32)], IA, kernel_size=[0, 2])
    e("stride 0", "im2col", [rnd([2, 3, 5, 5], f32)], IA, kernel_size=[2, 2], stride=[0, 1])
    e("negative padding", "im2col", [rnd([2, 3, 5, 5], f32)], IA, kernel_size=[2, 2], padding=[-1, 0])
    e("dilation 0", "im2col", [rnd([2, 3, 5, 5], f32)], IA, kernel_size=[2, 2], dilation=[1, 0])
    e("kernel larger than input", "im2col", [rnd([2, 3, 5, 6], f32)], SH, kernel_size=[7, 2])
    e("zero channels", "im2col", [rnd([2, 0, 5, 5], f32)], SH, kernel_size=[2, 2])
    e("5-D input", "im2col", [rnd([1, 2, 3, 5, 5], f32)], SH, kernel_size=[2, 2])
    e("int64", "im2col", [rnd([2, 3, 5, 5], "int64")], DT, kernel_size=[2, 2])
    e("kernel 0", "col2im", [rnd([2, 12, 16], f32)], IA, output_size=[5, 5], kernel_size=[0, 2])
    e("stride 0", "col2im", [rnd([2, 12, 16], f32)], IA, output_size=[5, 5], kernel_size=[2, 2], stride=[1, 0])
    e("not divisible", "col2im", [rnd([2, 13, 16], f32)], SH, output_size=[5, 5], kernel_size=[2, 2])
    e("blocks", "col2im", [rnd([2, 12, 15], f32)], SH, output_size=[5, 5], kernel_size=[2, 2])
    e("output size 0", "col2im", [rnd([2, 12, 16], f32)], SH, output_size=[0, 5], kernel_size=[2, 2])
    e("4-D input", "col2im", [rnd([2, 12, 16, 1], f32)], SH, output_size=[5, 5], kernel_size=[2, 2])
    e("int64", "col2im", [rnd([2, 12, 16], "int64")], DT, output_size=[5, 5], kernel_size=[2, 2])
    # (appended: every case above keeps its inputs)
    c3("int32", [rnd([1, 2, 3, 3, 4], "int32"), rnd([2, 2, 2, 2, 2], "int32"), None], stride=[1, 1, 2])
    c3("bf16", [rnd([1, 2, 3, 4, 4], bf16), rnd([2, 2, 2, 2, 2], bf16), rnd([2], bf16)], tol=0.05)
    t3("int64", [rnd([1, 2, 2, 2, 3], "int64"), rnd([2, 2, 2, 2, 2], "int64"), rnd([2], "int64")], stride=[2, 1, 1])
    e("dilation 0", "conv1d", [rnd([2, 3, 5], f32), rnd([3, 3, 1], f32), None], IA, dilation=[0])
    e("dilation 0", "conv3d", [rnd([1, 2, 3, 3, 3], f32), rnd([2, 2, 2, 2, 2], f32), None], IA, dilation=[1, 0, 1])
    e("dilation 0", "conv_transpose1d", [rnd([1, 2, 3], f32), rnd([2, 2, 2], f32), None], IA, dilation=[0])
    e("dilation 0", "conv_transpose3d", [rnd([1, 2, 3, 3, 3], f32), rnd([2, 2, 2, 2, 2], f32), None], IA,
      dilation=[0, 1, 2])
    e("float16", "conv3d", [rnd([1, 2, 3, 3, 3], "float16"), rnd([2, 2, 2, 2, 2], "float16"), None], DT)
    e("int32", "conv_transpose3d", [rnd([1, 2, 3, 3, 3], "int32"), rnd([2, 2, 2, 2, 2], "int32"), None], DT)
    e("float16", "conv1d", [rnd([1, 2, 3], "float16"), rnd([2, 2, 2], "float16"), None], DT)
    return fx


if __name__ == "__main__":
    convnd().write("convnd.json")
