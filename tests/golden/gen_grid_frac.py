#!/usr/bin/python3
"""Writes tests/golden/ops/grid.json against torch 1.13: torch.nn.functional's grid_sample, affine_grid and
fractional_max_pool2d / 3d (golden.py's format; tests/ops/grid_test.cpp).

Run from tests/golden with a Python that has torch:
    /usr/bin/python3 gen_grid_frac.py
The output is committed; CI has no torch. New cases go at the end (the inputs come from golden.py's one
generator, so earlier cases keep their values).

grid_sample's args are F.grid_sample's keywords (mode, padding_mode, align_corners). The grids are smooth
random points in [-1.3, 1.3] (beyond the border too), away from the pixel boundaries where the gradient has
kinks (a point within 1e-4 of one is never drawn with these seeds: checked below).

fractional_max_pool2d / 3d: inputs [x, _random_samples]; args kernel_size, output_size or output_ratio,
return_indices. The samples are an input so that the outputs are torch's; they carry no gradient (torch's
derivative formula marks them non-differentiable), so their grads entry is null.
"""

import math

import torch
import torch.nn.functional as F

import golden
from golden import Fixture, T, rnd, smooth

assert torch.__version__.startswith("1.13"), torch.__version__

MODES = ("bilinear", "nearest", "bicubic")
PADS = ("zeros", "border", "reflection")


def grid_sample(xs, a):
    return F.grid_sample(xs[0], xs[1], mode=a.get("mode", "bilinear"), padding_mode=a.get("padding_mode", "zeros"),
                         align_corners=a.get("align_corners", False))


def affine_grid(xs, a):
    return F.affine_grid(xs[0], a["size"], align_corners=a.get("align_corners", False))


def frac(k):
    fn = F.fractional_max_pool2d if k == 2 else F.fractional_max_pool3d

    def run(xs, a):
        samples = None if xs[1] is None else xs[1].detach()
        return fn(xs[0], a["kernel_size"], output_size=a.get("output_size"), output_ratio=a.get("output_ratio"),
                  return_indices=a.get("return_indices", False), _random_samples=samples)
    return run


OPS = {"grid_sample": grid_sample, "affine_grid": affine_grid, "fractional_max_pool2d": frac(2),
       "fractional_max_pool3d": frac(3),
       "conv_tbc": lambda xs, a: torch.conv_tbc(xs[0], xs[1], xs[2], a.get("pad", 0))}


def far_from_kinks(x, grid, a):
    """True when no sampling coordinate is within 1e-4 of a point where the gradient jumps (pixel boundaries,
    rounding midpoints, the border and the reflection points)."""
    align = a.get("align_corners", False)
    sizes = list(x.shape[2:])[::-1]  # W, H(, D) match the grid's x, y(, z)
    for j, size in enumerate(sizes):
        if align and size == 1:
            continue  # p is 0 for every point: the coordinate carries no gradient
        c = grid[..., j].reshape(-1).tolist()
        for v in c:
            p = (v + 1) / 2 * (size - 1) if align else ((v + 1) * size - 1) / 2
            # floor boundaries, rounding midpoints, the border and the reflection points are all integers or
            # half-integers (reflection keeps p's distance to them).
            for q in (p, p + 0.5):
                if abs(q - round(q)) < 1e-4:
                    return False
    return True


def gs_case(fx, name, x, grid, **a):
    a.setdefault("align_corners", False)
    base = x.value() if isinstance(x, golden.Operand) else x
    assert far_from_kinks(base, grid, a), name
    return fx.case(name, "grid_sample", [x, grid], **a)


def frac_case(fx, name, op, x, samples, tol=None, **a):
    c = fx.case(name, op, [x, samples], tol=tol, **a)
    if "grads" in c:
        c["grads"][1] = None
    return c


def main():
    fx = Fixture(OPS, differentiable=OPS.keys())
    E = fx.error
    # ---- grid_sample, 4-D: every mode, padding and align_corners
    for mode in MODES:
        for pad in PADS:
            for ac in (False, True):
                x = smooth([2, 3, 4, 5])
                g = smooth([2, 3, 4, 2], lo=-1.3, hi=1.3)
                gs_case(fx, "2d %s %s%s" % (mode, pad, " align" if ac else ""), x, g, mode=mode, padding_mode=pad,
                        align_corners=ac)
    # ---- 5-D: bilinear (trilinear) and nearest
    for mode in MODES[:2]:
        for pad in PADS:
            for ac in (False, True):
                x = smooth([2, 2, 3, 4, 3])
                g = smooth([2, 2, 3, 2, 3], lo=-1.3, hi=1.3)
                gs_case(fx, "3d %s %s%s" % (mode, pad, " align" if ac else ""), x, g, mode=mode, padding_mode=pad,
                        align_corners=ac)
    gs_case(fx, "2d transposed input", T(smooth([1, 3, 4, 4])), smooth([1, 2, 3, 2], lo=-1.1, hi=1.1))
    gs_case(fx, "2d one pixel", smooth([1, 2, 1, 1]), smooth([1, 2, 2, 2], lo=-1.2, hi=1.2), padding_mode="border")
    gs_case(fx, "2d one row reflection align", smooth([1, 1, 1, 4]), smooth([1, 2, 3, 2], lo=-2.5, hi=2.5),
            padding_mode="reflection", align_corners=True)
    gs_case(fx, "2d far reflection", smooth([1, 2, 3, 4]), smooth([1, 3, 3, 2], lo=-4.0, hi=4.0),
            padding_mode="reflection")
    for mode in MODES:
        fx.case("2d %s f32" % mode, "grid_sample", [smooth([2, 3, 5, 4], "float32"),
                                                     smooth([2, 4, 3, 2], "float32", lo=-1.2, hi=1.2)],
                mode=mode, padding_mode="reflection", align_corners=False)
    fx.case("3d bilinear f32", "grid_sample", [smooth([1, 2, 3, 4, 5], "float32"),
                                              smooth([1, 3, 2, 2, 3], "float32", lo=-1.2, hi=1.2)],
            mode="bilinear", padding_mode="border", align_corners=True)
    fx.case("2d zero batch", "grid_sample", [smooth([0, 2, 3, 4]), smooth([0, 2, 2, 2])], align_corners=False)
    fx.case("2d zero channels", "grid_sample", [smooth([1, 0, 3, 4]), smooth([1, 2, 2, 2])], align_corners=False)
    fx.case("2d empty grid", "grid_sample", [smooth([1, 2, 3, 4]), smooth([1, 0, 2, 2])], align_corners=False)
    x4, g4 = smooth([1, 2, 3, 4]), smooth([1, 2, 2, 2])
    x5, g5 = smooth([1, 2, 3, 4, 2]), smooth([1, 2, 2, 2, 3])
    E("grid_sample batch", "grid_sample", [x4, smooth([2, 2, 2, 2])], "GLIA_ERR_SHAPE")
    E("grid_sample last dim", "grid_sample", [x4, smooth([1, 2, 2, 3])], "GLIA_ERR_SHAPE")
    E("grid_sample 5-D grid last dim", "grid_sample", [x4, g5], "GLIA_ERR_SHAPE")
    E("grid_sample 4-D input 5-D grid", "grid_sample", [x4, smooth([1, 2, 2, 2, 2])], "GLIA_ERR_SHAPE")
    E("grid_sample 3-D input", "grid_sample", [smooth([1, 2, 3]), smooth([1, 2, 1])], "GLIA_ERR_SHAPE")
    E("grid_sample 2-D input", "grid_sample", [smooth([2, 3]), smooth([2, 2])], "GLIA_ERR_SHAPE")
    E("grid_sample empty spatial", "grid_sample", [smooth([1, 2, 0, 4]), g4], "GLIA_ERR_SHAPE")
    E("grid_sample bicubic 5-D", "grid_sample", [x5, g5], "GLIA_ERR_SHAPE", mode="bicubic")
    E("grid_sample int64", "grid_sample", [rnd([1, 2, 3, 4], "int64"), rnd([1, 2, 2, 2], "int64")],
      "GLIA_ERR_DTYPE")
    E("grid_sample 3d int64", "grid_sample", [rnd([1, 2, 3, 4, 2], "int64"), rnd([1, 2, 2, 2, 3], "int64")],
      "GLIA_ERR_DTYPE")
    E("grid_sample dtypes", "grid_sample", [x4, smooth([1, 2, 2, 2], "float32")], "GLIA_ERR_DTYPE")
    E("grid_sample f32 input f64 grid", "grid_sample", [smooth([1, 2, 3, 4], "float32"), g4], "GLIA_ERR_DTYPE")
    # ---- affine_grid
    for ac in (False, True):
        t = " align" if ac else ""
        fx.case("affine 2d" + t, "affine_grid", [smooth([2, 2, 3])], size=[2, 3, 4, 5], align_corners=ac)
        fx.case("affine 3d" + t, "affine_grid", [smooth([2, 3, 4])], size=[2, 1, 2, 3, 4], align_corners=ac)
        fx.case("affine 2d one column" + t, "affine_grid", [smooth([1, 2, 3])], size=[1, 1, 3, 1], align_corners=ac)
    fx.case("affine 2d f32", "affine_grid", [smooth([2, 2, 3], "float32")], size=[2, 1, 3, 3])
    fx.case("affine 3d f32 align", "affine_grid", [smooth([1, 3, 4], "float32")], size=[1, 2, 3, 2, 2],
            align_corners=True)
    fx.case("affine transposed theta", "affine_grid", [T(smooth([1, 2, 3]))], size=[1, 1, 2, 3])
    E("affine int theta", "affine_grid", [rnd([1, 2, 3], "int64")], "GLIA_ERR_INVALID_ARGUMENT", size=[1, 1, 2, 2])
    E("affine 2d theta shape", "affine_grid", [smooth([1, 3, 3])], "GLIA_ERR_INVALID_ARGUMENT", size=[1, 1, 2, 2])
    E("affine 3d theta shape", "affine_grid", [smooth([1, 2, 3])], "GLIA_ERR_INVALID_ARGUMENT",
      size=[1, 1, 2, 2, 2])
    E("affine size 3", "affine_grid", [smooth([1, 2, 3])], "GLIA_ERR_UNSUPPORTED", size=[1, 1, 2])
    E("affine zero size", "affine_grid", [smooth([1, 2, 3])], "GLIA_ERR_INVALID_ARGUMENT", size=[1, 1, 0, 2])
    E("affine batch", "affine_grid", [smooth([2, 2, 3])], "GLIA_ERR_SHAPE", size=[1, 1, 2, 3])
    # ---- fractional max pooling (inputs [x, samples])
    f2, f3 = "fractional_max_pool2d", "fractional_max_pool3d"
    frac_case(fx, "frac2d", f2, smooth([2, 3, 7, 8]), smooth([2, 3, 2], lo=0, hi=1), kernel_size=2,
              output_size=[4, 4])
    frac_case(fx, "frac2d indices", f2, smooth([2, 2, 9, 7]), smooth([2, 2, 2], lo=0, hi=1), kernel_size=[3, 2],
              output_size=[5, 4], return_indices=True)
    frac_case(fx, "frac2d ratio", f2, smooth([1, 3, 10, 9]), smooth([1, 3, 2], lo=0, hi=1), kernel_size=2,
              output_ratio=[0.5, 0.7], return_indices=True)
    frac_case(fx, "frac2d unbatched", f2, smooth([3, 6, 6]), smooth([1, 3, 2], lo=0, hi=1), kernel_size=3,
              output_size=3, return_indices=True)
    frac_case(fx, "frac2d output one", f2, smooth([1, 2, 5, 6]), smooth([1, 2, 2], lo=0, hi=1), kernel_size=2,
              output_size=[1, 5])
    frac_case(fx, "frac2d kernel one", f2, smooth([1, 2, 5, 6]), smooth([1, 2, 2], lo=0, hi=1), kernel_size=1,
              output_size=[3, 4])
    frac_case(fx, "frac2d f32", f2, smooth([2, 3, 9, 8], "float32"), smooth([2, 3, 2], "float32", lo=0, hi=1),
              kernel_size=2, output_size=[5, 3], return_indices=True)
    frac_case(fx, "frac2d zero batch", f2, smooth([0, 2, 5, 5]), smooth([0, 2, 2], lo=0, hi=1), kernel_size=2,
              output_size=[3, 3])
    frac_case(fx, "frac3d", f3, smooth([2, 2, 5, 6, 7]), smooth([2, 2, 3], lo=0, hi=1), kernel_size=2,
              output_size=[3, 3, 4], return_indices=True)
    frac_case(fx, "frac3d kernel tuple", f3, smooth([1, 2, 6, 5, 7]), smooth([1, 2, 3], lo=0, hi=1),
              kernel_size=[3, 2, 2], output_size=[2, 3, 4])
    frac_case(fx, "frac3d ratio unbatched", f3, smooth([2, 6, 8, 7]), smooth([1, 2, 3], lo=0, hi=1), kernel_size=2,
              output_ratio=0.5, return_indices=True)
    frac_case(fx, "frac3d f32", f3, smooth([1, 2, 5, 5, 6], "float32"), smooth([1, 2, 3], "float32", lo=0, hi=1),
              kernel_size=2, output_size=[3, 2, 4])
    x2, s2 = smooth([2, 3, 7, 8]), smooth([2, 3, 2], lo=0, hi=1)
    x3, s3 = smooth([2, 3, 5, 6, 7]), smooth([2, 3, 3], lo=0, hi=1)
    E("frac2d kernel list", f2, [x2, s2], "GLIA_ERR_INVALID_ARGUMENT", kernel_size=[2, 2, 2], output_size=[4, 4])
    E("frac2d output list", f2, [x2, s2], "GLIA_ERR_INVALID_ARGUMENT", kernel_size=2, output_size=[4, 4, 4])
    E("frac2d no output", f2, [x2, s2], "GLIA_ERR_INVALID_ARGUMENT", kernel_size=2)
    E("frac2d pool height", f2, [x2, s2], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[7, 4])
    E("frac2d pool width", f2, [x2, s2], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[4, 8])
    E("frac2d 2-D input", f2, [smooth([7, 8]), s2], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[4, 4])
    E("frac2d empty dim", f2, [smooth([2, 3, 0, 8]), s2], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[4, 4])
    E("frac2d int64", f2, [rnd([2, 3, 7, 8], "int64"), rnd([2, 3, 2], "int64")], "GLIA_ERR_DTYPE", kernel_size=2,
      output_size=[4, 4])
    E("frac2d sample dtype", f2, [x2, smooth([2, 3, 2], "float32", lo=0, hi=1)], "GLIA_ERR_DTYPE", kernel_size=2,
      output_size=[4, 4])
    E("frac3d kernel list", f3, [x3, s3], "GLIA_ERR_INVALID_ARGUMENT", kernel_size=[2, 2], output_size=[3, 3, 3])
    E("frac3d output list", f3, [x3, s3], "GLIA_ERR_INVALID_ARGUMENT", kernel_size=2, output_size=[3, 3])
    E("frac3d no output", f3, [x3, s3], "GLIA_ERR_INVALID_ARGUMENT", kernel_size=2)
    E("frac3d pool time", f3, [x3, s3], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[5, 3, 3])
    E("frac3d pool height", f3, [x3, s3], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[3, 6, 3])
    E("frac3d pool width", f3, [x3, s3], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[3, 3, 7])
    E("frac3d 3-D input", f3, [smooth([5, 6, 7]), s3], "GLIA_ERR_SHAPE", kernel_size=2, output_size=[3, 3, 3])
    E("frac3d empty dim", f3, [smooth([2, 0, 5, 6, 7]), s3], "GLIA_ERR_SHAPE", kernel_size=2,
      output_size=[3, 3, 3])
    E("frac3d int64", f3, [rnd([2, 3, 5, 6, 7], "int64"), rnd([2, 3, 3], "int64")], "GLIA_ERR_DTYPE",
      kernel_size=2, output_size=[3, 3, 3])
    # ---- conv_tbc: input [T, B, Cin], weight [K, Cin, Cout], bias [Cout]
    ct = "conv_tbc"
    fx.case("conv_tbc", ct, [smooth([5, 2, 3]), smooth([3, 3, 4]), smooth([4])])
    fx.case("conv_tbc pad 1", ct, [smooth([6, 3, 2]), smooth([3, 2, 5]), smooth([5])], pad=1)
    fx.case("conv_tbc pad beyond kernel", ct, [smooth([4, 2, 2]), smooth([2, 2, 3]), smooth([3])], pad=3)
    fx.case("conv_tbc negative pad", ct, [smooth([7, 2, 3]), smooth([3, 3, 2]), smooth([2])], pad=-1)
    fx.case("conv_tbc kernel 1", ct, [smooth([4, 3, 2]), smooth([1, 2, 3]), smooth([3])])
    # (no non-contiguous input: torch 1.13's conv_tbc fails on one, "view size is not compatible ...")
    fx.case("conv_tbc f32", ct, [smooth([6, 2, 3], "float32"), smooth([3, 3, 4], "float32"),
                                  smooth([4], "float32")], pad=1)
    fx.case("conv_tbc empty output", ct, [smooth([2, 2, 3]), smooth([3, 3, 4]), smooth([4])])
    xi, w, b = smooth([5, 2, 3]), smooth([3, 3, 4]), smooth([4])
    E("conv_tbc 2-D input", ct, [smooth([2, 3]), w, b], "GLIA_ERR_SHAPE")
    E("conv_tbc 2-D weight", ct, [xi, smooth([3, 4]), b], "GLIA_ERR_SHAPE")
    E("conv_tbc 2-D bias", ct, [xi, w, smooth([2, 2])], "GLIA_ERR_SHAPE")
    E("conv_tbc channels", ct, [xi, smooth([3, 2, 4]), b], "GLIA_ERR_SHAPE")
    E("conv_tbc bias size", ct, [xi, w, smooth([2])], "GLIA_ERR_SHAPE")
    E("conv_tbc negative length", ct, [xi, w, b], "GLIA_ERR_SHAPE", pad=-3)
    fx.write("grid.json")


if __name__ == "__main__":
    main()
