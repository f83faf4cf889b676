#!/usr/bin/python3
"""Golden fixtures of the 1-D and 3-D pools: ops/pool_extra.json (max_pool1d, avg_pool1d, max_pool3d,
avg_pool3d, adaptive_avg_pool1d, adaptive_avg_pool3d, adaptive_max_pool1d/2d/3d, max_unpool1d/2d/3d, lp_pool1d/2d). One case per line; inputs are smooth random
float64 (distinct values: the maxima are unique, so the finite-difference checks hold) or the
generator's few-bit values for float32; see golden.py for the format.

    cd tests/golden && /usr/bin/python3 gen_pool_extra.py
"""

import torch
import torch.nn.functional as F

from golden import Fixture, T, rnd, smooth

f64, f32 = "float64", "float32"
SH, DT, IA = "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE", "GLIA_ERR_INVALID_ARGUMENT"
NAN = float("nan")


def _max1d(xs, a):
    k = a["kernel_size"]
    return F.max_pool1d(xs[0], k, a.get("stride") or k, a.get("padding", 0), a.get("dilation", 1),
                        a.get("ceil_mode", False), a.get("return_indices", False))


def _avg1d(xs, a):
    k = a["kernel_size"]
    return F.avg_pool1d(xs[0], k, a.get("stride") or k, a.get("padding", 0), a.get("ceil_mode", False),
                        a.get("count_include_pad", True))


def _max3d(xs, a):
    k = a["kernel_size"]
    return F.max_pool3d(xs[0], k, a.get("stride") or k, a.get("padding", 0), a.get("dilation", 1),
                        a.get("ceil_mode", False), a.get("return_indices", False))


def _avg3d(xs, a):
    k = a["kernel_size"]
    return F.avg_pool3d(xs[0], k, a.get("stride") or k, a.get("padding", 0), a.get("ceil_mode", False),
                        a.get("count_include_pad", True), a.get("divisor_override"))


OPS = {
    "max_pool1d": _max1d,
    "avg_pool1d": _avg1d,
    "max_pool3d": _max3d,
    "avg_pool3d": _avg3d,
    "adaptive_avg_pool1d": lambda xs, a: F.adaptive_avg_pool1d(xs[0], a["output_size"]),
    # torch's C++ op (what glia_adaptive_avg_pool3d mirrors), without the Python wrapper's rank check.
    "adaptive_avg_pool3d": lambda xs, a: torch._C._nn.adaptive_avg_pool3d(xs[0], a["output_size"]),
    "adaptive_max_pool1d": lambda xs, a: F.adaptive_max_pool1d(xs[0], a["output_size"], a.get("return_indices", False)),
    "adaptive_max_pool2d": lambda xs, a: torch._C._nn.adaptive_max_pool2d(xs[0], a["output_size"])
    if a.get("return_indices") else torch._C._nn.adaptive_max_pool2d(xs[0], a["output_size"])[0],
    "adaptive_max_pool3d": lambda xs, a: torch._C._nn.adaptive_max_pool3d(xs[0], a["output_size"])
    if a.get("return_indices") else torch._C._nn.adaptive_max_pool3d(xs[0], a["output_size"])[0],
    "max_unpool1d": lambda xs, a: F.max_unpool1d(xs[0], xs[1], a["kernel_size"], a.get("stride"), a.get("padding", 0),
                                                 a.get("output_size")),
    "max_unpool2d": lambda xs, a: F.max_unpool2d(xs[0], xs[1], a["kernel_size"], a.get("stride"), a.get("padding", 0),
                                                 a.get("output_size")),
    "max_unpool3d": lambda xs, a: F.max_unpool3d(xs[0], xs[1], a["kernel_size"], a.get("stride"), a.get("padding", 0),
                                                 a.get("output_size")),
    "lp_pool1d": lambda xs, a: F.lp_pool1d(xs[0], a["norm_type"], a["kernel_size"], a.get("stride"),
                                           a.get("ceil_mode", False)),
    "lp_pool2d": lambda xs, a: F.lp_pool2d(xs[0], a["norm_type"], a["kernel_size"], a.get("stride"),
                                           a.get("ceil_mode", False)),
}


def _pooled(fn, x, k, **kw):
    """(values, indices) of a max pool of x: the inputs of a max_unpool case."""
    y, i = fn(x, k, return_indices=True, **kw)
    return [y, i]


def fixture():
    fx = Fixture(OPS, OPS.keys())
    s = smooth
    c = fx.case
    # max_pool1d
    c("max_pool1d k2", "max_pool1d", [s([2, 3, 8])], kernel_size=2)
    c("max_pool1d k3 s2 p1", "max_pool1d", [s([2, 2, 9])], kernel_size=3, stride=2, padding=1)
    c("max_pool1d dilation 2 p1", "max_pool1d", [s([1, 2, 10])], kernel_size=3, stride=1, padding=1, dilation=2)
    c("max_pool1d ceil_mode", "max_pool1d", [s([1, 2, 7])], kernel_size=2, stride=2, ceil_mode=True)
    c("max_pool1d ceil_mode last window in padding", "max_pool1d", [s([1, 1, 5])], kernel_size=3, stride=2,
      padding=1, ceil_mode=True)
    c("max_pool1d ceil_mode window dropped", "max_pool1d", [s([1, 1, 6])], kernel_size=2, stride=3, padding=1,
      ceil_mode=True)
    c("max_pool1d unbatched", "max_pool1d", [s([3, 7])], kernel_size=3, stride=2)
    c("max_pool1d return_indices", "max_pool1d", [s([2, 3, 9])], kernel_size=3, stride=2, padding=1,
      return_indices=True)
    c("max_pool1d return_indices unbatched", "max_pool1d", [s([2, 8])], kernel_size=2, return_indices=True)
    c("max_pool1d transposed input", "max_pool1d", [T(s([3, 2, 8]))], kernel_size=2)
    c("max_pool1d f32", "max_pool1d", [rnd([2, 3, 10], f32)], kernel_size=3, stride=1, return_indices=True)
    c("max_pool1d nan wins", "max_pool1d", [torch.tensor([[[1.0, NAN, 2.0, 5.0, NAN, NAN, 0.0]]])], kernel_size=3,
      stride=2, return_indices=True)
    c("max_pool1d zero batch", "max_pool1d", [s([0, 2, 6])], kernel_size=2)
    c("max_pool1d empty output", "max_pool1d", [s([3, 2], f32)], kernel_size=3)
    # avg_pool1d
    c("avg_pool1d k2", "avg_pool1d", [s([2, 3, 8])], kernel_size=2)
    c("avg_pool1d k3 s2 p1", "avg_pool1d", [s([2, 2, 9])], kernel_size=3, stride=2, padding=1)
    c("avg_pool1d k3 s2 p1 exclude pad", "avg_pool1d", [s([2, 2, 9])], kernel_size=3, stride=2, padding=1,
      count_include_pad=False)
    c("avg_pool1d ceil_mode padding", "avg_pool1d", [s([1, 2, 6])], kernel_size=3, stride=2, padding=1,
      ceil_mode=True)
    c("avg_pool1d ceil_mode padding exclude", "avg_pool1d", [s([1, 2, 6])], kernel_size=3, stride=2, padding=1,
      ceil_mode=True, count_include_pad=False)
    c("avg_pool1d unbatched", "avg_pool1d", [s([3, 7])], kernel_size=2, stride=1)
    c("avg_pool1d transposed input", "avg_pool1d", [T(s([3, 2, 8]))], kernel_size=2)
    c("avg_pool1d f32", "avg_pool1d", [rnd([2, 3, 10], f32)], kernel_size=4, stride=3, padding=2)
    c("avg_pool1d zero batch", "avg_pool1d", [s([0, 2, 6])], kernel_size=2)
    # max_pool3d
    c("max_pool3d k2", "max_pool3d", [s([2, 2, 4, 4, 6])], kernel_size=[2, 2, 2])
    c("max_pool3d k3 s2 p1", "max_pool3d", [s([1, 2, 5, 6, 7])], kernel_size=[3, 3, 3], stride=[2, 2, 2],
      padding=[1, 1, 1], return_indices=True)
    c("max_pool3d anisotropic", "max_pool3d", [s([1, 2, 4, 6, 7])], kernel_size=[1, 2, 3], stride=[1, 2, 1])
    c("max_pool3d inside windows stride 1", "max_pool3d", [s([1, 2, 4, 5, 6])], kernel_size=[2, 3, 2],
      stride=[1, 1, 1], return_indices=True)
    c("max_pool3d dilation", "max_pool3d", [s([1, 1, 5, 6, 7])], kernel_size=[2, 2, 3], stride=[1, 2, 1],
      padding=[1, 1, 1], dilation=[2, 2, 2], return_indices=True)
    c("max_pool3d ceil_mode", "max_pool3d", [s([1, 2, 5, 5, 5])], kernel_size=[2, 2, 2], stride=[2, 2, 2],
      ceil_mode=True, return_indices=True)
    c("max_pool3d ceil_mode padding", "max_pool3d", [s([1, 1, 5, 6, 5])], kernel_size=[3, 3, 3],
      stride=[2, 2, 2], padding=[1, 1, 1], ceil_mode=True)
    c("max_pool3d ceil_mode window dropped", "max_pool3d", [s([1, 1, 6, 6, 6])], kernel_size=[2, 2, 2],
      stride=[3, 3, 3], padding=[1, 1, 1], ceil_mode=True)
    c("max_pool3d unbatched", "max_pool3d", [s([2, 4, 4, 4])], kernel_size=[2, 2, 2], return_indices=True)
    c("max_pool3d transposed input", "max_pool3d", [T(s([2, 3, 4, 4, 4]))], kernel_size=[2, 2, 2])
    c("max_pool3d f32", "max_pool3d", [rnd([2, 3, 4, 6, 6], f32)], kernel_size=[2, 3, 3], stride=[1, 1, 2],
      return_indices=True)
    c("max_pool3d f32 padded", "max_pool3d", [rnd([1, 2, 5, 5, 5], f32)], kernel_size=[3, 3, 3], stride=[2, 2, 2],
      padding=[1, 1, 1], return_indices=True)
    nan3 = torch.tensor([[[[[1.0, NAN], [2.0, 3.0]], [[9.0, NAN], [4.0, 9.0]]]]])
    c("max_pool3d nan wins", "max_pool3d", [nan3], kernel_size=[2, 2, 2], return_indices=True)
    c("max_pool3d nan wins padded", "max_pool3d", [nan3], kernel_size=[2, 2, 2], stride=[1, 1, 1],
      padding=[1, 1, 1], return_indices=True)
    c("max_pool3d zero batch", "max_pool3d", [s([0, 2, 4, 4, 4])], kernel_size=[2, 2, 2])
    # avg_pool3d
    c("avg_pool3d k2", "avg_pool3d", [s([2, 2, 4, 4, 6])], kernel_size=[2, 2, 2])
    c("avg_pool3d k3 s2 p1", "avg_pool3d", [s([1, 2, 5, 6, 7])], kernel_size=[3, 3, 3], stride=[2, 2, 2],
      padding=[1, 1, 1])
    c("avg_pool3d k3 s2 p1 exclude pad", "avg_pool3d", [s([1, 2, 5, 6, 7])], kernel_size=[3, 3, 3],
      stride=[2, 2, 2], padding=[1, 1, 1], count_include_pad=False)
    c("avg_pool3d anisotropic", "avg_pool3d", [s([1, 2, 4, 6, 7])], kernel_size=[1, 2, 3], stride=[1, 2, 1],
      padding=[0, 1, 1])
    c("avg_pool3d ceil_mode", "avg_pool3d", [s([1, 2, 5, 5, 5])], kernel_size=[2, 2, 2], stride=[2, 2, 2],
      ceil_mode=True)
    c("avg_pool3d ceil_mode padding", "avg_pool3d", [s([1, 1, 5, 6, 5])], kernel_size=[3, 3, 3],
      stride=[2, 2, 2], padding=[1, 1, 1], ceil_mode=True)
    c("avg_pool3d ceil_mode padding exclude", "avg_pool3d", [s([1, 1, 6, 6, 6])], kernel_size=[3, 3, 3],
      stride=[2, 2, 2], padding=[1, 1, 1], ceil_mode=True, count_include_pad=False)
    c("avg_pool3d divisor_override", "avg_pool3d", [s([1, 2, 4, 5, 5])], kernel_size=[2, 2, 2],
      stride=[1, 1, 1], padding=[1, 1, 0], divisor_override=3)
    c("avg_pool3d unbatched", "avg_pool3d", [s([2, 4, 4, 4])], kernel_size=[2, 2, 2])
    c("avg_pool3d transposed input", "avg_pool3d", [T(s([2, 3, 4, 4, 4]))], kernel_size=[2, 2, 2])
    c("avg_pool3d f32", "avg_pool3d", [rnd([2, 3, 4, 6, 6], f32)], kernel_size=[2, 3, 3], stride=[1, 1, 2])
    c("avg_pool3d int64", "avg_pool3d", [rnd([1, 2, 4, 4, 4], "int64", 0, 50)], kernel_size=[2, 2, 2])
    c("avg_pool3d zero batch", "avg_pool3d", [s([0, 2, 4, 4, 4])], kernel_size=[2, 2, 2])
    # adaptive_avg_pool1d / 3d
    c("adaptive_avg_pool1d 9 to 4", "adaptive_avg_pool1d", [s([2, 3, 9])], output_size=4)
    c("adaptive_avg_pool1d to 1", "adaptive_avg_pool1d", [s([2, 3, 5])], output_size=1)
    c("adaptive_avg_pool1d upsampling 5 to 7", "adaptive_avg_pool1d", [s([1, 2, 5])], output_size=7)
    c("adaptive_avg_pool1d unbatched", "adaptive_avg_pool1d", [s([3, 8])], output_size=3)
    c("adaptive_avg_pool1d transposed input", "adaptive_avg_pool1d", [T(s([3, 2, 8]))], output_size=3)
    c("adaptive_avg_pool1d f32", "adaptive_avg_pool1d", [rnd([2, 3, 10], f32)], output_size=4)
    c("adaptive_avg_pool1d zero batch", "adaptive_avg_pool1d", [s([0, 2, 6])], output_size=3)
    c("adaptive_avg_pool3d 5x7x9 to 2x3x4", "adaptive_avg_pool3d", [s([2, 2, 5, 7, 9])], output_size=[2, 3, 4])
    c("adaptive_avg_pool3d to 1", "adaptive_avg_pool3d", [s([2, 3, 3, 4, 5])], output_size=[1, 1, 1])
    c("adaptive_avg_pool3d upsampling", "adaptive_avg_pool3d", [s([1, 2, 3, 4, 2])], output_size=[4, 5, 3])
    c("adaptive_avg_pool3d unbatched", "adaptive_avg_pool3d", [s([2, 4, 5, 6])], output_size=[3, 2, 4])
    c("adaptive_avg_pool3d transposed input", "adaptive_avg_pool3d", [T(s([3, 2, 4, 4, 4]))], output_size=[2, 3, 2])
    c("adaptive_avg_pool3d to 1x1x1 unbatched", "adaptive_avg_pool3d", [s([2, 3, 4, 5])], output_size=[1, 1, 1])
    c("adaptive_avg_pool3d f32", "adaptive_avg_pool3d", [rnd([2, 3, 4, 6, 6], f32)], output_size=[3, 4, 4])
    c("adaptive_avg_pool3d zero batch", "adaptive_avg_pool3d", [s([0, 2, 4, 4, 4])], output_size=[2, 2, 2])
    # adaptive_max_pool1d / 2d / 3d (torch's C++ ops for 2d / 3d: the Python wrappers add no checks)
    c("adaptive_max_pool1d 9 to 4", "adaptive_max_pool1d", [s([2, 3, 9])], output_size=4, return_indices=True)
    c("adaptive_max_pool1d upsampling 5 to 7", "adaptive_max_pool1d", [s([1, 2, 5])], output_size=7)
    c("adaptive_max_pool1d unbatched", "adaptive_max_pool1d", [s([3, 8])], output_size=3, return_indices=True)
    c("adaptive_max_pool1d f32", "adaptive_max_pool1d", [rnd([2, 3, 10], f32)], output_size=4, return_indices=True)
    c("adaptive_max_pool2d 7x9 to 3x4", "adaptive_max_pool2d", [s([2, 3, 7, 9])], output_size=[3, 4],
      return_indices=True)
    c("adaptive_max_pool2d upsampling", "adaptive_max_pool2d", [s([1, 2, 3, 4])], output_size=[5, 6])
    c("adaptive_max_pool2d unbatched", "adaptive_max_pool2d", [s([3, 5, 6])], output_size=[2, 3], return_indices=True)
    c("adaptive_max_pool2d transposed input", "adaptive_max_pool2d", [T(s([3, 2, 4, 4]))], output_size=[3, 2])
    c("adaptive_max_pool2d f32", "adaptive_max_pool2d", [rnd([2, 3, 6, 6], f32)], output_size=[4, 4],
      return_indices=True)
    c("adaptive_max_pool2d bf16", "adaptive_max_pool2d", [rnd([1, 2, 6, 6], "bfloat16")], output_size=[3, 3],
      return_indices=True)
    nan2 = torch.tensor([[[[1.0, NAN, 2.0], [3.0, 4.0, NAN], [9.0, 9.0, 0.0]]]])
    c("adaptive_max_pool2d nan wins", "adaptive_max_pool2d", [nan2], output_size=[2, 2], return_indices=True)
    c("adaptive_max_pool2d zero batch", "adaptive_max_pool2d", [s([0, 2, 4, 4])], output_size=[2, 2])
    c("adaptive_max_pool2d zero output", "adaptive_max_pool2d", [s([2, 3, 5])], output_size=[0, 2], grads=False)
    c("adaptive_max_pool3d 5x7x9 to 2x3x4", "adaptive_max_pool3d", [s([2, 2, 5, 7, 9])], output_size=[2, 3, 4],
      return_indices=True)
    c("adaptive_max_pool3d upsampling", "adaptive_max_pool3d", [s([1, 2, 3, 4, 2])], output_size=[4, 5, 3])
    c("adaptive_max_pool3d unbatched", "adaptive_max_pool3d", [s([2, 4, 5, 6])], output_size=[3, 2, 4],
      return_indices=True)
    c("adaptive_max_pool3d f32", "adaptive_max_pool3d", [rnd([2, 3, 4, 6, 6], f32)], output_size=[3, 4, 4],
      return_indices=True)
    c("adaptive_max_pool3d zero batch", "adaptive_max_pool3d", [s([0, 2, 4, 4, 4])], output_size=[2, 2, 2])
    # max_unpool1d / 2d / 3d of max pools' results. Overlapping windows (k3 s2) can pick one element twice:
    # the unpool then writes it once (the last value wins), so those cases skip the finite-difference
    # check (torch's gradient, a gather, is still compared).
    P1, P2, P3 = F.max_pool1d, F.max_pool2d, F.max_pool3d
    c("max_unpool1d k2", "max_unpool1d", _pooled(P1, s([2, 3, 8]), 2), kernel_size=2)
    c("max_unpool1d k3 s2 p1", "max_unpool1d", _pooled(P1, s([2, 2, 9]), 3, stride=2, padding=1), kernel_size=3,
      stride=2, padding=1, gradcheck=False)
    c("max_unpool1d output_size", "max_unpool1d", _pooled(P1, s([1, 2, 9]), 2), kernel_size=2, output_size=[9])
    c("max_unpool1d unbatched", "max_unpool1d", _pooled(P1, s([3, 8]), 2), kernel_size=2)
    c("max_unpool2d k2", "max_unpool2d", _pooled(P2, s([2, 3, 6, 6]), 2), kernel_size=[2, 2])
    c("max_unpool2d k3 s2 p1", "max_unpool2d", _pooled(P2, s([1, 2, 7, 7]), 3, stride=2, padding=1),
      kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], gradcheck=False)
    c("max_unpool2d output_size", "max_unpool2d", _pooled(P2, s([1, 2, 5, 7]), 2), kernel_size=[2, 2],
      output_size=[5, 7])
    c("max_unpool2d output_size with N, C", "max_unpool2d", _pooled(P2, s([1, 2, 5, 7]), 2), kernel_size=[2, 2],
      output_size=[1, 2, 5, 7])
    c("max_unpool2d unbatched", "max_unpool2d", _pooled(P2, s([3, 4, 4]), 2), kernel_size=[2, 2])
    c("max_unpool2d f32", "max_unpool2d", _pooled(P2, rnd([2, 3, 6, 6], f32), 2), kernel_size=[2, 2])
    c("max_unpool2d repeated index", "max_unpool2d",
      [torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]), torch.tensor([[[[5, 5], [0, 15]]]])], kernel_size=[2, 2],
      grads=False)
    c("max_unpool3d k2", "max_unpool3d", _pooled(P3, s([2, 2, 4, 4, 6]), 2), kernel_size=[2, 2, 2])
    c("max_unpool3d k3 s2 p1", "max_unpool3d", _pooled(P3, s([1, 2, 5, 6, 7]), 3, stride=2, padding=1),
      kernel_size=[3, 3, 3], stride=[2, 2, 2], padding=[1, 1, 1], output_size=[5, 6, 7], gradcheck=False)
    c("max_unpool3d output_size", "max_unpool3d", _pooled(P3, s([1, 1, 5, 5, 5]), 2), kernel_size=[2, 2, 2],
      output_size=[5, 5, 5])
    c("max_unpool3d unbatched", "max_unpool3d", _pooled(P3, s([2, 4, 4, 4]), 2), kernel_size=[2, 2, 2])
    c("max_unpool3d f32", "max_unpool3d", _pooled(P3, rnd([1, 2, 4, 4, 4], f32), 2), kernel_size=[2, 2, 2])
    # lp_pool1d / 2d: norm 2 on signed inputs, fractional and odd norms on positive ones
    pos = lambda shape, dt=f64: s(shape, dt, 0.25, 2.0)
    c("lp_pool1d p2 k3", "lp_pool1d", [s([2, 3, 9])], norm_type=2.0, kernel_size=3)
    c("lp_pool1d p3 k2 s1", "lp_pool1d", [pos([2, 2, 7])], norm_type=3.0, kernel_size=2, stride=1)
    c("lp_pool1d p1.5 ceil_mode", "lp_pool1d", [pos([1, 2, 8])], norm_type=1.5, kernel_size=3, stride=2,
      ceil_mode=True)
    c("lp_pool1d unbatched f32", "lp_pool1d", [pos([3, 8], f32)], norm_type=2.0, kernel_size=2)
    c("lp_pool2d p2 k2", "lp_pool2d", [s([2, 3, 6, 6])], norm_type=2.0, kernel_size=[2, 2])
    c("lp_pool2d p3 k3 s2", "lp_pool2d", [pos([1, 2, 7, 7])], norm_type=3.0, kernel_size=[3, 2], stride=[2, 1])
    c("lp_pool2d p1.5 ceil_mode", "lp_pool2d", [pos([1, 2, 7, 6])], norm_type=1.5, kernel_size=[2, 2],
      stride=[2, 2], ceil_mode=True)
    c("lp_pool2d unbatched f32", "lp_pool2d", [pos([3, 4, 4], f32)], norm_type=2.0, kernel_size=[2, 2])

    e = fx.error
    e("max_pool1d 4-D input", "max_pool1d", [rnd([2, 3, 3, 3], f32)], SH, kernel_size=2)
    e("max_pool1d 1-D input", "max_pool1d", [rnd([5], f32)], SH, kernel_size=2)
    e("max_pool1d zero channels", "max_pool1d", [rnd([1, 0, 4], f32)], SH, kernel_size=2)
    e("max_pool1d pad too large", "max_pool1d", [rnd([3, 4], f32)], IA, kernel_size=2, padding=2)
    e("max_pool1d dilation 0", "max_pool1d", [rnd([3, 4], f32)], IA, kernel_size=2, dilation=0)
    e("max_pool1d kernel 0", "max_pool1d", [rnd([3, 4], f32)], IA, kernel_size=0, stride=1)
    e("max_pool1d return_indices pad too large", "max_pool1d", [rnd([3, 4], f32)], IA, kernel_size=2, padding=2,
      return_indices=True)
    e("max_pool1d return_indices output too small", "max_pool1d", [rnd([3, 2], f32)], SH, kernel_size=3,
      return_indices=True)
    e("max_pool1d int64", "max_pool1d", [rnd([1, 3, 4], "int64")], DT, kernel_size=2)
    e("max_pool1d return_indices int64", "max_pool1d", [rnd([1, 3, 4], "int64")], DT, kernel_size=2,
      return_indices=True)
    e("avg_pool1d 1-D input", "avg_pool1d", [rnd([5], f32)], SH, kernel_size=2)
    e("avg_pool1d 4-D input", "avg_pool1d", [rnd([2, 3, 4, 5], f32)], SH, kernel_size=2)
    e("avg_pool1d pad too large", "avg_pool1d", [rnd([3, 4], f32)], IA, kernel_size=3, stride=1, padding=2)
    e("avg_pool1d output too small", "avg_pool1d", [rnd([3, 2], f32)], SH, kernel_size=3)
    e("avg_pool1d float16", "avg_pool1d", [rnd([1, 3, 4], "float16")], DT, kernel_size=2)
    e("max_pool3d 2-D input", "max_pool3d", [rnd([3, 4], f32)], SH, kernel_size=[2, 2, 2])
    e("max_pool3d pad too large", "max_pool3d", [rnd([1, 3, 4, 4, 4], f32)], IA, kernel_size=[3, 3, 3],
      padding=[0, 2, 0])
    e("max_pool3d output too small", "max_pool3d", [rnd([1, 3, 1, 4, 4], f32)], SH, kernel_size=[2, 2, 2])
    e("max_pool3d zero channels", "max_pool3d", [rnd([1, 0, 4, 4, 4], f32)], SH, kernel_size=[2, 2, 2])
    e("max_pool3d dilation 0", "max_pool3d", [rnd([1, 3, 4, 4, 4], f32)], IA, kernel_size=[2, 2, 2],
      dilation=[0, 0, 0])
    e("max_pool3d kernel 0", "max_pool3d", [rnd([1, 3, 4, 4, 4], f32)], IA, kernel_size=[2, 0, 2], stride=[1, 1, 1])
    e("max_pool3d int64", "max_pool3d", [rnd([1, 3, 4, 4, 4], "int64")], DT, kernel_size=[2, 2, 2])
    e("max_pool3d bfloat16", "max_pool3d", [rnd([1, 3, 4, 4, 4], "bfloat16")], DT, kernel_size=[2, 2, 2])
    e("avg_pool3d 2-D input", "avg_pool3d", [rnd([3, 4], f32)], SH, kernel_size=[2, 2, 2])
    e("avg_pool3d pad too large", "avg_pool3d", [rnd([1, 3, 4, 4, 4], f32)], IA, kernel_size=[3, 3, 3],
      padding=[0, 2, 0])
    e("avg_pool3d input smaller than kernel", "avg_pool3d", [rnd([1, 3, 1, 4, 4], f32)], SH, kernel_size=[2, 2, 2])
    e("avg_pool3d padded input smaller than kernel", "avg_pool3d", [rnd([1, 3, 2, 2, 2], f32)], SH,
      kernel_size=[3, 3, 3], padding=[1, 1, 1])
    e("avg_pool3d zero channels", "avg_pool3d", [rnd([1, 0, 4, 4, 4], f32)], SH, kernel_size=[2, 2, 2])
    e("avg_pool3d float16", "avg_pool3d", [rnd([1, 3, 4, 4, 4], "float16")], DT, kernel_size=[2, 2, 2])
    e("adaptive_avg_pool1d 1-D input", "adaptive_avg_pool1d", [rnd([5], f32)], SH, output_size=2)
    e("adaptive_avg_pool1d empty length", "adaptive_avg_pool1d", [rnd([2, 3, 0], f32)], SH, output_size=2)
    e("adaptive_avg_pool1d negative size", "adaptive_avg_pool1d", [rnd([2, 3, 5], f32)], IA, output_size=-1)
    e("adaptive_avg_pool1d int64", "adaptive_avg_pool1d", [rnd([2, 3, 5], "int64")], DT, output_size=2)
    e("adaptive_avg_pool3d 3-D input", "adaptive_avg_pool3d", [rnd([2, 3, 5], f32)], SH, output_size=[2, 2, 2])
    e("adaptive_avg_pool3d 6-D input", "adaptive_avg_pool3d", [rnd([1, 2, 3, 4, 5, 6], f32)], SH,
      output_size=[2, 2, 2])
    e("adaptive_avg_pool3d empty dim", "adaptive_avg_pool3d", [rnd([3, 4, 0, 6], f32)], SH, output_size=[2, 2, 2])
    e("adaptive_avg_pool3d negative size", "adaptive_avg_pool3d", [rnd([2, 3, 4, 5, 6], f32)], IA,
      output_size=[2, 2, -1])
    e("adaptive_avg_pool3d int64", "adaptive_avg_pool3d", [rnd([2, 3, 4, 5, 6], "int64")], DT,
      output_size=[2, 2, 2])
    e("adaptive_max_pool1d 1-D input", "adaptive_max_pool1d", [rnd([5], f32)], SH, output_size=2)
    e("adaptive_max_pool1d zero channels", "adaptive_max_pool1d", [rnd([2, 0, 5], f32)], SH, output_size=2)
    e("adaptive_max_pool1d negative size", "adaptive_max_pool1d", [rnd([2, 3, 5], f32)], SH, output_size=-1)
    e("adaptive_max_pool1d int64", "adaptive_max_pool1d", [rnd([2, 3, 5], "int64")], DT, output_size=2)
    e("adaptive_max_pool2d 2-D input", "adaptive_max_pool2d", [rnd([3, 5], f32)], SH, output_size=[2, 2])
    e("adaptive_max_pool2d 5-D input", "adaptive_max_pool2d", [rnd([2, 3, 4, 5, 6], f32)], SH, output_size=[2, 2])
    e("adaptive_max_pool2d zero channels", "adaptive_max_pool2d", [rnd([2, 0, 4, 5], f32)], SH, output_size=[2, 2])
    e("adaptive_max_pool2d negative size", "adaptive_max_pool2d", [rnd([2, 2, 4, 5], f32)], SH, output_size=[2, -1])
    e("adaptive_max_pool2d float16", "adaptive_max_pool2d", [rnd([1, 2, 5, 5], "float16")], DT, output_size=[2, 2])
    e("adaptive_max_pool3d 2-D input", "adaptive_max_pool3d", [rnd([3, 5], f32)], SH, output_size=[2, 2, 2])
    e("adaptive_max_pool3d zero channels", "adaptive_max_pool3d", [rnd([2, 0, 4, 5, 3], f32)], SH,
      output_size=[2, 2, 2])
    e("adaptive_max_pool3d negative size", "adaptive_max_pool3d", [rnd([2, 2, 4, 5, 3], f32)], SH,
      output_size=[2, -1, 2])
    e("adaptive_max_pool3d bfloat16", "adaptive_max_pool3d", [rnd([1, 2, 5, 5, 5], "bfloat16")], DT,
      output_size=[2, 2, 2])
    ok = torch.tensor([[[[0, 1], [4, 5]]]])
    e("max_unpool2d invalid index", "max_unpool2d", [rnd([1, 1, 2, 2], f32), torch.tensor([[[[0, 1], [4, 99]]]])],
      IA, kernel_size=[2, 2])
    e("max_unpool2d negative index", "max_unpool2d", [rnd([1, 1, 2, 2], f32), torch.tensor([[[[0, -3], [4, 5]]]])],
      IA, kernel_size=[2, 2])
    e("max_unpool2d int32 indices", "max_unpool2d", [rnd([1, 1, 2, 2], f32), ok.int()], DT, kernel_size=[2, 2])
    e("max_unpool2d index shape", "max_unpool2d", [rnd([1, 1, 2, 2], f32), ok[..., :1]], SH, kernel_size=[2, 2])
    e("max_unpool2d 2-D input", "max_unpool2d", [rnd([2, 2], f32), ok[0, 0]], SH, kernel_size=[2, 2])
    e("max_unpool2d zero channels", "max_unpool2d", [rnd([1, 0, 2, 2], f32), ok[:, :0]], SH, kernel_size=[2, 2])
    e("max_unpool2d output_size out of range", "max_unpool2d", [rnd([1, 1, 2, 2], f32), ok], IA, kernel_size=[2, 2],
      output_size=[6, 4])
    e("max_unpool2d int64", "max_unpool2d", [rnd([1, 1, 2, 2], "int64"), ok], DT, kernel_size=[2, 2])
    e("max_unpool1d invalid index", "max_unpool1d", [rnd([1, 1, 2], f32), torch.tensor([[[1, 7]]])], IA,
      kernel_size=2)
    e("max_unpool1d output_size out of range", "max_unpool1d", [rnd([1, 1, 4], f32), torch.tensor([[[1, 2, 5, 6]]])],
      IA, kernel_size=2, output_size=[20])
    ok3 = torch.tensor([[[[[0, 1], [4, 5]], [[16, 17], [20, 21]]]]])
    e("max_unpool3d invalid index", "max_unpool3d", [rnd([1, 1, 2, 2, 2], f32), ok3 * 10], IA, kernel_size=[2, 2, 2])
    e("max_unpool3d 3-D input", "max_unpool3d", [rnd([2, 2, 2], f32), ok3[0, 0]], SH, kernel_size=[2, 2, 2])
    e("max_unpool3d int32 indices", "max_unpool3d", [rnd([1, 1, 2, 2, 2], f32), ok3.int()], DT,
      kernel_size=[2, 2, 2])
    e("lp_pool1d 4-D input", "lp_pool1d", [rnd([1, 2, 3, 4], f32)], SH, norm_type=2.0, kernel_size=2)
    e("lp_pool2d output too small", "lp_pool2d", [rnd([1, 2, 2, 2], f32)], SH, norm_type=2.0, kernel_size=[3, 3])
    return fx


if __name__ == "__main__":
    fixture().write("pool_extra.json")
