#!/usr/bin/python3
"""Writes the fixtures of the padding, upsampling and rearrangement modules
against torch 1.13:

  modules/resample.json: torch.nn's ConstantPad1d/2d/3d, ZeroPad2d,
      ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, Upsample, UpsamplingNearest2d,
      UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle (tests/nn/resample_module_test.cpp).
  ops/resample.json: F.interpolate, pixel_shuffle, pixel_unshuffle, channel_shuffle (golden.py's
      format; tests/ops/resample_test.cpp).

Run from tests/golden with a Python that has torch:
    /usr/bin/python3 gen_resample.py
The output is committed; CI has no torch. One case per line; new cases go at
the end of their list so that existing cases keep their values (each list has
its own generator).

modules/resample.json is {"cases": [...], "forward_errors": [...]}:
  a case is {name, module, args, dtype, inputs, out, w, grads, repr, keys, tol}
  as in gen_layers.py (no parameters): args are torch's keyword arguments
  (padding an int or a list); grads {"input0"} is the gradient of sum(out * w).
  A forward error is {name, module, args, inputs, code, message}: the module
  builds, forward fails with glia's code and a message containing torch's.
"""

import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

import golden
from golden import Fixture, T, encode

HERE = os.path.dirname(os.path.abspath(__file__))
assert torch.__version__.startswith("1.13"), torch.__version__


def enc(t):
    t = t.detach()
    name = str(t.dtype).replace("torch.", "")
    return {"dtype": name, "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


def write_lines(path, lists):
    """{"key": [...], ...} with one entry per line."""
    with open(path, "w") as f:
        f.write("{\n")
        for i, (key, items) in enumerate(lists):
            f.write(json.dumps(key) + ": [\n")
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in items))
            f.write("\n]" + ("," if i + 1 < len(lists) else "") + "\n")
        f.write("}\n")


# ---- modules ---------------------------------------------------------------------------------------------------

mgen = torch.Generator().manual_seed(2113)


def mrandn(*shape, dtype=torch.float64):
    return torch.randn(*shape, generator=mgen, dtype=torch.float64).to(dtype)


MODULES = {
    "ConstantPad1d": lambda a: nn.ConstantPad1d(a["padding"], a["value"]),
    "ConstantPad2d": lambda a: nn.ConstantPad2d(a["padding"], a["value"]),
    "ConstantPad3d": lambda a: nn.ConstantPad3d(a["padding"], a["value"]),
    "ZeroPad2d": lambda a: nn.ZeroPad2d(a["padding"]),
    "ReflectionPad1d": lambda a: nn.ReflectionPad1d(a["padding"]),
    "ReflectionPad2d": lambda a: nn.ReflectionPad2d(a["padding"]),
    "ReflectionPad3d": lambda a: nn.ReflectionPad3d(a["padding"]),
    "ReplicationPad1d": lambda a: nn.ReplicationPad1d(a["padding"]),
    "ReplicationPad2d": lambda a: nn.ReplicationPad2d(a["padding"]),
    "ReplicationPad3d": lambda a: nn.ReplicationPad3d(a["padding"]),
    "Upsample": lambda a: nn.Upsample(a.get("size"), a.get("scale_factor"), a.get("mode", "nearest"),
                                      a.get("align_corners"), a.get("recompute_scale_factor")),
    "UpsamplingNearest2d": lambda a: nn.UpsamplingNearest2d(a.get("size"), a.get("scale_factor")),
    "UpsamplingBilinear2d": lambda a: nn.UpsamplingBilinear2d(a.get("size"), a.get("scale_factor")),
    "PixelShuffle": lambda a: nn.PixelShuffle(a["upscale_factor"]),
    "PixelUnshuffle": lambda a: nn.PixelUnshuffle(a["downscale_factor"]),
    "ChannelShuffle": lambda a: nn.ChannelShuffle(a["groups"]),
}

mcases = []
merrors = []


def tup(a):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in a.items()}


def mcase(name, module, args, shape, dtype=torch.float64):
    m = MODULES[module](tup(args))
    x = mrandn(*shape, dtype=dtype).requires_grad_(True)
    out = m(x)
    w = mrandn(*out.shape, dtype=dtype)
    (g,) = torch.autograd.grad((out * w).sum(), [x])
    mcases.append({
        "name": name + ("" if dtype == torch.float64 else "_f32"), "module": module, "args": args,
        "dtype": str(dtype).replace("torch.", ""), "inputs": [enc(x)], "out": enc(out), "w": enc(w),
        "grads": {"input0": enc(g)}, "repr": repr(m), "keys": list(m.state_dict().keys()),
        "tol": 1e-12 if dtype == torch.float64 else 1e-6,
        "node": out.grad_fn.name(),
    })


def mboth(name, module, args, shape):
    mcase(name, module, args, shape, torch.float64)
    mcase(name, module, args, shape, torch.float32)


def merror(name, module, args, shape, code, lists=False):
    """lists: the module gets lists as given (torch prints them in its message; glia, which cannot tell a
    list from a tuple, prints lists)."""
    m = MODULES[module](args if lists else tup(args))
    try:
        m(mrandn(*shape))
    except (RuntimeError, ValueError, IndexError) as e:
        msg = str(e).split("\n")[0]
    else:
        raise AssertionError(name + " did not fail in torch")
    merrors.append({"name": name, "module": module, "args": args, "inputs": [enc(mrandn(*shape))], "code": code,
                    "message": msg})


def modules():
    mboth("constant_pad1d", "ConstantPad1d", {"padding": 2, "value": 1.5}, [2, 3, 4])
    mcase("constant_pad1d_tuple", "ConstantPad1d", {"padding": [1, 3], "value": -0.5}, [3, 4])
    mcase("constant_pad1d_crop", "ConstantPad1d", {"padding": [-1, 2], "value": 0.0}, [2, 2, 5])
    mboth("constant_pad2d", "ConstantPad2d", {"padding": [1, 0, 2, 1], "value": 3.5}, [2, 2, 3, 3])
    mcase("constant_pad2d_int_3d", "ConstantPad2d", {"padding": 1, "value": 0.25}, [2, 3, 2])
    mboth("constant_pad3d", "ConstantPad3d", {"padding": [1, 2, 0, 1, 1, 0], "value": -1.0}, [1, 2, 2, 2, 3])
    mcase("constant_pad3d_int", "ConstantPad3d", {"padding": 1, "value": 0.0}, [2, 2, 2, 2])
    mboth("zero_pad2d", "ZeroPad2d", {"padding": 2}, [1, 2, 3, 3])
    mcase("zero_pad2d_tuple", "ZeroPad2d", {"padding": [1, 1, 2, 0]}, [2, 3, 3])
    mboth("reflection_pad1d", "ReflectionPad1d", {"padding": 2}, [2, 3, 4])
    mcase("reflection_pad1d_tuple_2d", "ReflectionPad1d", {"padding": [3, 1]}, [3, 5])
    mboth("reflection_pad2d", "ReflectionPad2d", {"padding": [1, 0, 2, 1]}, [2, 2, 3, 4])
    mcase("reflection_pad2d_int_3d", "ReflectionPad2d", {"padding": 1}, [2, 3, 3])
    mboth("reflection_pad3d", "ReflectionPad3d", {"padding": 1}, [1, 2, 2, 3, 3])
    mcase("reflection_pad3d_tuple_4d", "ReflectionPad3d", {"padding": [2, 1, 0, 1, 1, 1]}, [2, 3, 2, 4])
    mboth("replication_pad1d", "ReplicationPad1d", {"padding": [3, 1]}, [2, 2, 3])
    mcase("replication_pad1d_int_2d", "ReplicationPad1d", {"padding": 4}, [2, 3])
    mboth("replication_pad2d", "ReplicationPad2d", {"padding": 2}, [1, 2, 3, 2])
    mcase("replication_pad2d_tuple_3d", "ReplicationPad2d", {"padding": [0, 3, 1, 2]}, [2, 2, 3])
    mboth("replication_pad3d", "ReplicationPad3d", {"padding": [1, 2, 0, 1, 2, 0]}, [1, 2, 2, 2, 3])
    mcase("replication_pad3d_negative", "ReplicationPad3d", {"padding": [-1, 1, 1, -1, 0, 1]}, [2, 2, 3, 3])
    merror("reflection_pad1d_too_large", "ReflectionPad1d", {"padding": 3}, [1, 2, 3], "GLIA_ERR_INVALID_ARGUMENT")
    merror("reflection_pad2d_too_large", "ReflectionPad2d", {"padding": [1, 1, 2, 1]}, [1, 2, 4],
           "GLIA_ERR_INVALID_ARGUMENT")
    merror("reflection_pad3d_too_large", "ReflectionPad3d", {"padding": [1, 1, 1, 1, 2, 2]}, [1, 2, 3, 3],
           "GLIA_ERR_INVALID_ARGUMENT")
    merror("reflection_pad1d_1d_input", "ReflectionPad1d", {"padding": 1}, [4], "GLIA_ERR_UNSUPPORTED")
    merror("replication_pad2d_2d_input", "ReplicationPad2d", {"padding": 1}, [3, 4], "GLIA_ERR_UNSUPPORTED")
    merror("replication_pad1d_too_small", "ReplicationPad1d", {"padding": [-2, -1]}, [1, 2, 3], "GLIA_ERR_SHAPE")
    merror("constant_pad2d_odd_tuple", "ConstantPad2d", {"padding": [1, 2, 3], "value": 0.0}, [1, 2, 3],
           "GLIA_ERR_INVALID_ARGUMENT")
    mboth("upsample_nearest_scale", "Upsample", {"scale_factor": 2.0}, [1, 2, 3, 3])
    mcase("upsample_nearest_size_1d", "Upsample", {"size": 7}, [2, 2, 3])
    mboth("upsample_bilinear_align", "Upsample", {"size": [5, 4], "mode": "bilinear", "align_corners": True},
          [1, 2, 3, 3])
    mcase("upsample_bicubic_scales", "Upsample", {"scale_factor": [1.5, 2.0], "mode": "bicubic"}, [1, 1, 4, 3])
    mcase("upsample_trilinear_recompute", "Upsample", {"scale_factor": 1.7, "mode": "trilinear",
                                                      "recompute_scale_factor": True}, [1, 1, 2, 3, 2])
    mcase("upsample_linear", "Upsample", {"scale_factor": 2.5, "mode": "linear"}, [2, 3, 4])
    mcase("upsample_nearest_exact", "Upsample", {"size": [4, 2, 5], "mode": "nearest-exact"}, [1, 2, 2, 3, 3])
    mboth("upsampling_nearest2d", "UpsamplingNearest2d", {"scale_factor": 3.0}, [1, 2, 2, 3])
    mcase("upsampling_nearest2d_size", "UpsamplingNearest2d", {"size": [3, 5]}, [2, 1, 2, 2])
    mboth("upsampling_bilinear2d", "UpsamplingBilinear2d", {"size": [4, 6]}, [1, 2, 3, 3])
    mcase("upsampling_bilinear2d_scale", "UpsamplingBilinear2d", {"scale_factor": 1.5}, [1, 1, 4, 4])
    merror("upsample_bilinear_3d_input", "Upsample", {"size": 4, "mode": "bilinear"}, [1, 2, 3],
           "GLIA_ERR_UNSUPPORTED")
    merror("upsample_size_mismatch", "Upsample", {"size": [4, 4, 4]}, [1, 2, 3, 3], "GLIA_ERR_INVALID_ARGUMENT",
           lists=True)
    merror("upsample_align_nearest", "Upsample", {"size": 4, "align_corners": True}, [1, 2, 3],
           "GLIA_ERR_INVALID_ARGUMENT")
    merror("upsampling_nearest2d_zero", "UpsamplingNearest2d", {"scale_factor": 0.1}, [1, 1, 3, 3],
           "GLIA_ERR_SHAPE")
    mboth("pixel_shuffle", "PixelShuffle", {"upscale_factor": 2}, [1, 8, 2, 3])
    mboth("pixel_unshuffle", "PixelUnshuffle", {"downscale_factor": 3}, [2, 1, 3, 6])
    merror("pixel_shuffle_channels", "PixelShuffle", {"upscale_factor": 2}, [1, 6, 2, 2], "GLIA_ERR_SHAPE")
    write_lines(os.path.join(HERE, "modules", "resample.json"), [("cases", mcases), ("forward_errors", merrors)])


# ---- ops --------------------------------------------------------------------------------------------------------


def interpolate(xs, a):
    return F.interpolate(xs[0], size=a.get("size"), scale_factor=a.get("scale_factor"), mode=a.get("mode", "nearest"),
                         align_corners=a.get("align_corners"), recompute_scale_factor=a.get("recompute_scale_factor"))


OPS = {
    "interpolate": interpolate,
    "pixel_shuffle": lambda xs, a: F.pixel_shuffle(xs[0], a["upscale_factor"]),
    "pixel_unshuffle": lambda xs, a: F.pixel_unshuffle(xs[0], a["downscale_factor"]),
    "channel_shuffle": lambda xs, a: F.channel_shuffle(xs[0], a["groups"]),
}


class LineFixture(Fixture):
    def write(self, filename):
        write_lines(os.path.join(golden.OUT, filename), [("cases", self.cases), ("errors", self.errors)])


def ops():
    golden.gen.manual_seed(2114)  # this file's own sequence
    smooth, rnd = golden.smooth, golden.rnd
    fx = LineFixture(OPS, differentiable=["interpolate", "pixel_shuffle", "pixel_unshuffle"])
    f32 = "float32"
    # nearest: torch's forward index floor(i * 1/scale) (in float); its backward keeps the old shortcuts
    # (output == input: copy, output == 2 * input: i >> 1), which differ from the forward for some scales:
    # those cases record torch's gradient without a finite-difference check.
    fx.case("nearest 1d size", "interpolate", [smooth([2, 3, 4])], size=7)
    fx.case("nearest 1d scale 2", "interpolate", [smooth([1, 2, 5])], scale_factor=2.0)
    fx.case("nearest 1d scale 1.7", "interpolate", [smooth([2, 2, 5])], scale_factor=1.7)
    fx.case("nearest 1d downsample", "interpolate", [smooth([1, 2, 9])], scale_factor=0.45)
    fx.case("nearest 1d scale 2.1 backward shortcut", "interpolate", [smooth([1, 2, 5])], scale_factor=2.1,
            gradcheck=False)
    fx.case("nearest 1d same size scale 1.2", "interpolate", [smooth([1, 2, 3])], scale_factor=1.2, gradcheck=False)
    fx.case("nearest 1d recompute", "interpolate", [smooth([1, 2, 5])], scale_factor=2.1,
            recompute_scale_factor=True)
    fx.case("nearest 2d size list", "interpolate", [smooth([2, 2, 3, 4])], size=[5, 3])
    fx.case("nearest 2d scale list", "interpolate", [smooth([1, 3, 3, 4])], scale_factor=[1.5, 0.75])
    fx.case("nearest 2d transposed", "interpolate", [T(smooth([3, 2, 3, 3]))], scale_factor=2.0)
    fx.case("nearest 3d", "interpolate", [smooth([1, 2, 2, 3, 4])], size=[3, 5, 2])
    fx.case("nearest 3d scale", "interpolate", [smooth([1, 1, 3, 2, 3])], scale_factor=1.5)
    fx.case("nearest 2d f32", "interpolate", [smooth([2, 2, 3, 4], f32)], size=[7, 5])
    fx.case("nearest 2d zero batch", "interpolate", [smooth([0, 2, 3, 4])], size=[5, 5])
    fx.case("nearest-exact 1d", "interpolate", [smooth([2, 3, 5])], size=8, mode="nearest-exact")
    fx.case("nearest-exact 1d scale 1.19", "interpolate", [smooth([1, 2, 5])], scale_factor=1.19,
            mode="nearest-exact")
    fx.case("nearest-exact 2d downsample", "interpolate", [smooth([1, 2, 7, 6])], scale_factor=0.5,
            mode="nearest-exact")
    fx.case("nearest-exact 3d", "interpolate", [smooth([1, 2, 2, 3, 3])], size=[4, 2, 5], mode="nearest-exact")
    fx.case("nearest-exact 2d f32", "interpolate", [smooth([1, 2, 3, 4], f32)], scale_factor=2.5,
            mode="nearest-exact")
    # linear family: the source index scale * (i + 0.5) - 0.5 (clamped at 0) with 1/scale_factor when given,
    # in / out otherwise; align_corners: (in - 1) / (out - 1) * i; output == input copies.
    for ac in (False, True):
        t = " align" if ac else ""
        fx.case("linear size" + t, "interpolate", [smooth([2, 3, 4])], size=9, mode="linear", align_corners=ac)
        fx.case("linear scale 1.7" + t, "interpolate", [smooth([1, 2, 5])], scale_factor=1.7, mode="linear",
                align_corners=ac)
        fx.case("linear downsample" + t, "interpolate", [smooth([1, 2, 9])], size=4, mode="linear", align_corners=ac)
        fx.case("linear to one" + t, "interpolate", [smooth([1, 2, 5])], size=1, mode="linear", align_corners=ac)
        fx.case("bilinear size" + t, "interpolate", [smooth([2, 2, 3, 4])], size=[5, 7], mode="bilinear",
                align_corners=ac)
        fx.case("bilinear scale list" + t, "interpolate", [smooth([1, 2, 4, 4])], scale_factor=[1.5, 0.6],
                mode="bilinear", align_corners=ac)
        fx.case("trilinear" + t, "interpolate", [smooth([1, 2, 2, 3, 3])], size=[3, 4, 5], mode="trilinear",
                align_corners=ac)
        fx.case("bicubic size" + t, "interpolate", [smooth([2, 2, 4, 3])], size=[7, 5], mode="bicubic",
                align_corners=ac)
        fx.case("bicubic downsample" + t, "interpolate", [smooth([1, 2, 6, 7])], scale_factor=0.5, mode="bicubic",
                align_corners=ac)
    fx.case("linear same size scale 1.2", "interpolate", [smooth([1, 2, 3])], scale_factor=1.2, mode="linear")
    fx.case("linear recompute", "interpolate", [smooth([1, 2, 5])], scale_factor=1.7, mode="linear",
            recompute_scale_factor=True)
    fx.case("bilinear transposed", "interpolate", [T(smooth([3, 2, 3, 4]))], scale_factor=2.0, mode="bilinear")
    fx.case("bilinear same width", "interpolate", [smooth([1, 1, 3, 4])], size=[5, 4], mode="bilinear")
    fx.case("bilinear f32", "interpolate", [smooth([2, 3, 5, 4], f32)], size=[8, 9], mode="bilinear")
    fx.case("trilinear scale", "interpolate", [smooth([1, 1, 2, 3, 4])], scale_factor=[2.0, 1.5, 0.75],
            mode="trilinear")
    fx.case("trilinear f32", "interpolate", [smooth([1, 2, 3, 2, 4], f32)], size=[4, 4, 4], mode="trilinear",
            align_corners=True)
    # bicubic: clamped taps, A = -0.75; its forward has no shortcut but its backward copies when both sizes
    # are the input's.
    fx.case("bicubic same size scale 1.2", "interpolate", [smooth([1, 2, 3, 3])], scale_factor=1.2,
            mode="bicubic", gradcheck=False)
    fx.case("bicubic scale", "interpolate", [smooth([1, 1, 4, 5])], scale_factor=[1.6, 2.3], mode="bicubic")
    fx.case("bicubic f32", "interpolate", [smooth([2, 2, 4, 5], f32)], size=[9, 6], mode="bicubic")
    fx.case("bicubic f32 align", "interpolate", [smooth([1, 2, 4, 5], f32)], size=[3, 8], mode="bicubic",
            align_corners=True)
    # area is adaptive_avg_pool2d (first derivatives only; its own fixture checks them by finite differences).
    fx.case("area 2d", "interpolate", [smooth([1, 2, 5, 7])], size=[3, 4], mode="area", gradcheck=False)
    fx.case("area 2d scale", "interpolate", [smooth([1, 2, 6, 4])], scale_factor=0.5, mode="area", gradcheck=False)
    fx.case("linear zero batch", "interpolate", [smooth([0, 2, 4])], size=6, mode="linear")
    E = fx.error
    x3, x4, x5 = rnd([1, 2, 4]), rnd([1, 2, 3, 4]), rnd([1, 1, 2, 3, 4])
    E("size and scale", "interpolate", [x4], "GLIA_ERR_INVALID_ARGUMENT", size=4, scale_factor=2.0)
    E("neither size nor scale", "interpolate", [x4], "GLIA_ERR_INVALID_ARGUMENT")
    E("align_corners with nearest", "interpolate", [x4], "GLIA_ERR_INVALID_ARGUMENT", size=4, align_corners=False)
    E("align_corners with nearest-exact", "interpolate", [x4], "GLIA_ERR_INVALID_ARGUMENT", size=4,
      mode="nearest-exact", align_corners=True)
    E("size length", "interpolate", [x4], "GLIA_ERR_INVALID_ARGUMENT", size=[4, 4, 4])
    E("scale length", "interpolate", [x3], "GLIA_ERR_INVALID_ARGUMENT", scale_factor=[2.0, 2.0])
    E("recompute with size", "interpolate", [x3], "GLIA_ERR_INVALID_ARGUMENT", size=5,
      recompute_scale_factor=True)
    E("bilinear on 3-D", "interpolate", [x3], "GLIA_ERR_UNSUPPORTED", size=5, mode="bilinear")
    E("trilinear on 3-D", "interpolate", [x3], "GLIA_ERR_UNSUPPORTED", size=5, mode="trilinear")
    E("linear on 4-D", "interpolate", [x4], "GLIA_ERR_UNSUPPORTED", size=5, mode="linear")
    E("trilinear on 4-D", "interpolate", [x4], "GLIA_ERR_UNSUPPORTED", size=5, mode="trilinear")
    E("linear on 5-D", "interpolate", [x5], "GLIA_ERR_UNSUPPORTED", size=5, mode="linear")
    E("bilinear on 5-D", "interpolate", [x5], "GLIA_ERR_UNSUPPORTED", size=5, mode="bilinear")
    E("bicubic on 5-D", "interpolate", [x5], "GLIA_ERR_UNSUPPORTED", size=5, mode="bicubic")
    E("nearest on 2-D", "interpolate", [rnd([2, 4])], "GLIA_ERR_UNSUPPORTED", size=2)
    E("nearest on 6-D", "interpolate", [rnd([1, 1, 1, 1, 2, 2])], "GLIA_ERR_UNSUPPORTED", size=[2, 2, 2, 2])
    E("nearest zero size", "interpolate", [x3], "GLIA_ERR_SHAPE", size=0)
    E("nearest 2d small scale", "interpolate", [x4], "GLIA_ERR_SHAPE", scale_factor=0.2)
    E("linear zero size", "interpolate", [x3], "GLIA_ERR_SHAPE", size=0, mode="linear")
    E("trilinear zero size", "interpolate", [x5], "GLIA_ERR_SHAPE", size=[1, 0, 2], mode="trilinear")
    E("bicubic negative scale", "interpolate", [x4], "GLIA_ERR_SHAPE", scale_factor=-1.0,
      mode="bicubic")
    E("nearest empty channels", "interpolate", [rnd([1, 0, 4])], "GLIA_ERR_SHAPE", size=5)
    E("bilinear empty width", "interpolate", [rnd([1, 2, 3, 0])], "GLIA_ERR_SHAPE", size=[2, 2],
      mode="bilinear")
    E("linear int64", "interpolate", [rnd([1, 2, 4], "int64")], "GLIA_ERR_DTYPE", size=5, mode="linear")
    E("bicubic int32", "interpolate", [rnd([1, 2, 4, 4], "int32")], "GLIA_ERR_DTYPE", size=5, mode="bicubic")
    E("nearest int64", "interpolate", [rnd([1, 2, 4], "int64")], "GLIA_ERR_DTYPE", size=5)
    # rearrangement
    fx.case("pixel_shuffle 4-D", "pixel_shuffle", [smooth([2, 8, 2, 3])], upscale_factor=2)
    fx.case("pixel_shuffle 3-D", "pixel_shuffle", [smooth([9, 2, 2])], upscale_factor=3)
    fx.case("pixel_shuffle 5-D", "pixel_shuffle", [smooth([2, 1, 4, 1, 2])], upscale_factor=2)
    fx.case("pixel_shuffle factor 1", "pixel_shuffle", [smooth([1, 3, 2, 2])], upscale_factor=1)
    fx.case("pixel_shuffle transposed", "pixel_shuffle", [T(smooth([2, 4, 2, 3]))], upscale_factor=2)
    fx.case("pixel_shuffle int64", "pixel_shuffle", [rnd([1, 4, 2, 2], "int64")], upscale_factor=2)
    fx.case("pixel_shuffle f32", "pixel_shuffle", [smooth([1, 4, 3, 2], f32)], upscale_factor=2)
    fx.case("pixel_shuffle zero batch", "pixel_shuffle", [smooth([0, 4, 2, 2])], grads=False, upscale_factor=2)
    fx.case("pixel_unshuffle 4-D", "pixel_unshuffle", [smooth([2, 2, 4, 6])], downscale_factor=2)
    fx.case("pixel_unshuffle 3-D", "pixel_unshuffle", [smooth([1, 6, 3])], downscale_factor=3)
    fx.case("pixel_unshuffle transposed", "pixel_unshuffle", [T(smooth([2, 3, 4, 2]))], downscale_factor=2)
    fx.case("pixel_unshuffle bool", "pixel_unshuffle", [rnd([1, 1, 2, 2], "bool")], downscale_factor=2)
    fx.case("channel_shuffle", "channel_shuffle", [smooth([2, 6, 2])], groups=3)
    fx.case("channel_shuffle 4-D", "channel_shuffle", [smooth([1, 8, 2, 2])], groups=2)
    fx.case("channel_shuffle groups 1", "channel_shuffle", [smooth([1, 4, 3])], groups=1)
    fx.case("channel_shuffle int32", "channel_shuffle", [rnd([2, 4, 3], "int32")], groups=4)
    E("pixel_shuffle 2-D", "pixel_shuffle", [rnd([2, 3])], "GLIA_ERR_SHAPE", upscale_factor=2)
    E("pixel_shuffle channels", "pixel_shuffle", [rnd([1, 3, 2, 2])], "GLIA_ERR_SHAPE", upscale_factor=2)
    E("pixel_shuffle zero factor", "pixel_shuffle", [rnd([1, 4, 2, 2])], "GLIA_ERR_INVALID_ARGUMENT",
      upscale_factor=0)
    E("pixel_unshuffle height", "pixel_unshuffle", [rnd([1, 4, 3, 2])], "GLIA_ERR_SHAPE", downscale_factor=2)
    E("pixel_unshuffle width", "pixel_unshuffle", [rnd([1, 4, 4, 3])], "GLIA_ERR_SHAPE", downscale_factor=2)
    E("pixel_unshuffle 2-D", "pixel_unshuffle", [rnd([4, 4])], "GLIA_ERR_SHAPE", downscale_factor=2)
    E("pixel_unshuffle negative factor", "pixel_unshuffle", [rnd([1, 1, 4, 4])], "GLIA_ERR_INVALID_ARGUMENT",
      downscale_factor=-1)
    E("channel_shuffle 2-D", "channel_shuffle", [rnd([2, 4])], "GLIA_ERR_SHAPE", groups=2)
    E("channel_shuffle not divisible", "channel_shuffle", [rnd([1, 4, 2])], "GLIA_ERR_SHAPE", groups=3)
    E("channel_shuffle zero groups", "channel_shuffle", [rnd([1, 4, 2])], "GLIA_ERR_INVALID_ARGUMENT", groups=0)
    # area on 3-D and 5-D inputs is adaptive_avg_pool1d / 3d (appended last: earlier cases keep their draws).
    fx.case("area 1d", "interpolate", [smooth([2, 3, 7])], size=3, mode="area", gradcheck=False)
    fx.case("area 3d scale", "interpolate", [smooth([1, 2, 4, 6, 5])], scale_factor=0.5, mode="area",
            gradcheck=False)
    fx.write("resample.json")


if __name__ == "__main__":
    modules()
    ops()
