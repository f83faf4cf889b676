#!/usr/bin/python3
"""Golden fixtures of the torch functions of issue 20 missing from OpInfo / coverage (torch 1.13):
ops/torchmisc.json

  gcd, lcm, gcd_, lcm_, bincount, vander, as_strided, as_strided_scatter, gradient, segment_reduce,
  native_batch_norm, native_layer_norm, histogram, histogramdd

Format: golden.py. Inputs of the ops with several tensors (coordinates of gradient, edges of
histogramdd) are the inputs after the first; list results (gradient's, histogramdd's edges) are the
outputs in order. One case per line; append new cases at the end.

    cd tests/golden && /usr/bin/python3 gen_torchmisc.py
"""

import json
import os

import torch

from golden import Fixture, T, rnd, smooth

HERE = os.path.dirname(os.path.abspath(__file__))
f64, f32 = "float64", "float32"
IA, SH, DT = "GLIA_ERR_INVALID_ARGUMENT", "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE"


def _inplace(method):
    def f(xs, a):
        t = xs[0].clone()
        getattr(t, method)(xs[1])
        return t
    return f


def _gradient(xs, a):
    kw = {"edge_order": a.get("edge_order", 1)}
    if "dims" in a:
        kw["dim"] = a["dims"]
    if len(xs) > 1:
        kw["spacing"] = list(xs[1:])
    elif "spacing" in a:
        sp = a["spacing"]
        kw["spacing"] = sp[0] if len(sp) == 1 else sp
    return tuple(torch.gradient(xs[0], **kw))


def _segment(xs, a):
    kw = {"axis": a.get("axis", 0), "unsafe": a.get("unsafe", False)}
    kw["offsets" if a.get("offsets") else "lengths"] = xs[1]
    if "initial" in a:
        kw["initial"] = a["initial"]
    return torch.segment_reduce(xs[0], a["reduce"], **kw)


def _native_bn(xs, a):
    x, w, b = xs
    rm = torch.tensor(a["running_mean"], dtype=x.dtype) if "running_mean" in a else None
    rv = torch.tensor(a["running_var"], dtype=x.dtype) if "running_var" in a else None
    return torch.native_batch_norm(x, w, b, rm, rv, a.get("training", True), a.get("momentum", 0.1),
                                   a.get("eps", 1e-5))


def _histogram(xs, a):
    kw = {"density": a.get("density", False)}
    if "range" in a:
        kw["range"] = tuple(a["range"])
    if len(xs) > 1 and xs[1] is not None:
        kw["weight"] = xs[1]
    bins = xs[2] if len(xs) > 2 else a.get("bins", 100)
    r = torch.histogram(xs[0], bins, **kw)
    return r.hist, r.bin_edges


def _histogramdd(xs, a):
    kw = {"density": a.get("density", False)}
    if "range" in a:
        kw["range"] = a["range"]
    if xs[1] is not None:
        kw["weight"] = xs[1]
    bins = list(xs[2:]) if len(xs) > 2 else a["bins"]
    r = torch.histogramdd(xs[0], bins, **kw)
    return (r.hist,) + tuple(r.bin_edges)


OPS = {
    "gcd": lambda xs, a: torch.gcd(xs[0], xs[1]),
    "lcm": lambda xs, a: torch.lcm(xs[0], xs[1]),
    "gcd_": _inplace("gcd_"),
    "lcm_": _inplace("lcm_"),
    "bincount": lambda xs, a: torch.bincount(xs[0], xs[1], a.get("minlength", 0)),
    "vander": lambda xs, a: torch.vander(xs[0], a.get("n"), a.get("increasing", False)),
    "as_strided": lambda xs, a: torch.as_strided(xs[0], a["size"], a["stride"], a.get("storage_offset")),
    "as_strided_scatter": lambda xs, a: torch.as_strided_scatter(xs[0], xs[1], a["size"], a["stride"],
                                                                 a.get("storage_offset")),
    "gradient": _gradient,
    "segment_reduce": _segment,
    "native_batch_norm": _native_bn,
    "native_layer_norm": lambda xs, a: torch.native_layer_norm(xs[0], a["normalized_shape"], xs[1], xs[2],
                                                               a.get("eps", 1e-5)),
    "histogram": _histogram,
    "histogramdd": _histogramdd,
}
DIFF = ["as_strided", "as_strided_scatter", "gradient", "segment_reduce", "native_batch_norm",
        "native_layer_norm"]


class Fx(Fixture):
    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(HERE, "ops", filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n], "errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def t(v, dtype=torch.float64):
    return torch.tensor(v, dtype=dtype)


def i64(v):
    return torch.tensor(v, dtype=torch.int64)


def main():
    fx = Fx(OPS, DIFF)
    c, e, s = fx.case, fx.error, smooth

    # gcd, lcm and in place
    a, b = i64([[12, -18, 0, 7], [0, 35, -4, 1]]), i64([8, 24, 0, -21])
    for op in ("gcd", "lcm"):
        c(op + " broadcast", op, [a, b])
        c(op + " int32 and int64", op, [a.to(torch.int32), i64([[6], [10]])])
        u8 = torch.uint8
        c(op + " uint8", op, [torch.tensor([12, 200, 0], dtype=u8), torch.tensor([18, 150, 5], dtype=u8)])
        c(op + " int16 transposed", op, [T(a.to(torch.int16).t().contiguous()), i64([3, 5])])
        c(op + " empty", op, [torch.zeros(0, 2, dtype=torch.int64), i64([1, 2])])
        c(op + " 0-dim", op, [i64(84), i64(-36)])
        e(op + " float", op, [t([4.0]), i64([6])], DT)
        e(op + " bool", op, [torch.tensor([True]), torch.tensor([True])], DT)
        c(op + "_ broadcast", op + "_", [a, b])
        c(op + "_ int32 self", op + "_", [a.to(torch.int32), b])
        e(op + "_ shapes", op + "_", [i64([4, 6, 8]), i64([[2, 3, 4], [1, 1, 1]])], SH, message=False)
        e(op + "_ float", op + "_", [t([4.0]), i64([6])], DT)

    # bincount
    x = i64([0, 2, 2, 5, 1, 2])
    c("bincount", "bincount", [x, None])
    c("bincount minlength", "bincount", [x, None], minlength=9)
    c("bincount weights f64", "bincount", [x, t([0.5, 1.0, 1.5, 2.0, -1.0, 4.0])])
    c("bincount weights f32", "bincount", [x, t([0.5, 1.0, 1.5, 2.0, -1.0, 4.0], torch.float32)])
    c("bincount weights int", "bincount", [x, i64([1, 2, 3, 4, 5, 6])])
    c("bincount uint8", "bincount", [x.to(torch.uint8), None])
    c("bincount empty", "bincount", [i64([]), None], minlength=3)
    c("bincount empty no minlength", "bincount", [i64([]), None])
    e("bincount negative", "bincount", [i64([0, -1]), None], IA)
    e("bincount 2-D", "bincount", [i64([[0, 1]]), None], IA)
    e("bincount float", "bincount", [t([0.0, 1.0]), None], DT)
    e("bincount weights length", "bincount", [i64([0, 1]), t([1.0, 2.0, 3.0])], IA)
    e("bincount minlength", "bincount", [i64([0, 1]), None], IA, minlength=-1)

    # vander
    c("vander", "vander", [s([4])])
    c("vander n increasing", "vander", [s([3])], n=5, increasing=True)
    c("vander n 1", "vander", [s([3])], n=1)
    c("vander n 0", "vander", [s([3])], n=0)
    c("vander int32", "vander", [torch.tensor([1, 2, -3], dtype=torch.int32)])
    c("vander bool", "vander", [torch.tensor([True, False])])
    c("vander f32", "vander", [rnd([3], f32)], n=4)
    c("vander empty", "vander", [s([0])], n=2)
    e("vander 2-D", "vander", [s([2, 2])], SH)
    e("vander negative n", "vander", [s([3])], IA, n=-1)

    # as_strided
    c("as_strided offset", "as_strided", [s([3, 4])], size=[2, 2], stride=[1, 2], storage_offset=1)
    c("as_strided overlapping", "as_strided", [s([6])], size=[3, 3], stride=[1, 1])
    c("as_strided broadcast stride 0", "as_strided", [s([4])], size=[3, 2], stride=[0, 2], storage_offset=0)
    c("as_strided default offset", "as_strided", [s([2, 3])], size=[3, 2], stride=[1, 3])
    c("as_strided transposed input", "as_strided", [T(s([3, 4]))], size=[2, 3], stride=[3, 1], storage_offset=2)
    c("as_strided 0-dim", "as_strided", [s([5])], size=[], stride=[], storage_offset=4)
    c("as_strided f32", "as_strided", [rnd([8], f32)], size=[2, 2], stride=[4, 1], storage_offset=2)
    c("as_strided int", "as_strided", [rnd([6], "int64")], size=[2, 3], stride=[3, 1])
    c("as_strided empty", "as_strided", [s([4])], size=[0, 3], stride=[3, 1])
    e("as_strided out of bounds", "as_strided", [rnd([4], f32)], SH, message=False, size=[2, 2], stride=[2, 1],
      storage_offset=2)
    e("as_strided negative offset", "as_strided", [rnd([4], f32)], IA, size=[2], stride=[1], storage_offset=-1)

    # as_strided_scatter
    # torch 1.13's gradient of as_strided_scatter w.r.t. input is wrong (it zeroes the wrong elements), so
    # the cases hold values only; tests/ops/torchmisc_test.cpp checks glia's gradient by finite differences.
    c("as_strided_scatter", "as_strided_scatter", [s([3, 4]), s([2, 2])], grads=False, size=[2, 2], stride=[1, 2],
      storage_offset=1)
    c("as_strided_scatter default offset", "as_strided_scatter", [s([6]), s([2, 3])], grads=False, size=[2, 3],
      stride=[3, 1])
    c("as_strided_scatter overlapping src", "as_strided_scatter", [s([4, 3]), s([3])], grads=False, size=[3],
      stride=[4], storage_offset=1)
    c("as_strided_scatter f32", "as_strided_scatter", [rnd([2, 4], f32), rnd([2], f32)], size=[2], stride=[3])
    e("as_strided_scatter src shape", "as_strided_scatter", [rnd([6], f32), rnd([3], f32)], SH, message=False,
      size=[2], stride=[1])

    # gradient
    g2 = s([4, 5])
    c("gradient", "gradient", [g2])
    c("gradient spacing scalar", "gradient", [g2], spacing=[2.0])
    c("gradient spacing list", "gradient", [g2], spacing=[0.5, 3.0])
    c("gradient dim 1", "gradient", [g2], dims=[1])
    c("gradient dims -1 0 edge 2", "gradient", [g2], dims=[-1, 0], edge_order=2)
    c("gradient edge order 2 spacing", "gradient", [s([3, 6])], spacing=[1.5, 0.25], edge_order=2)
    c("gradient coordinates", "gradient", [g2, t([0.0, 1.0, 1.5, 3.5]), t([-1.0, 0.0, 0.25, 2.0, 2.5])])
    c("gradient coordinates edge 2", "gradient", [g2, t([0.0, 0.5, 1.5, 3.5]), t([-1.0, 0.0, 0.25, 2.0, 2.5])],
      edge_order=2)
    c("gradient coordinates dim", "gradient", [g2, t([-1.0, 0.0, 0.25, 2.0, 2.5])], dims=[1])
    c("gradient 1-D", "gradient", [s([6])], spacing=[0.1])
    c("gradient int", "gradient", [rnd([5], "int64")])
    c("gradient f32 transposed", "gradient", [T(rnd([3, 4], f32))])
    e("gradient too short", "gradient", [rnd([1, 3], f32)], IA)
    e("gradient edge order 3", "gradient", [rnd([4], f32)], IA, edge_order=3)
    e("gradient too short for edge 2", "gradient", [rnd([2], f32)], IA, edge_order=2)
    e("gradient uint8", "gradient", [rnd([4], "uint8")], DT)
    e("gradient spacing length", "gradient", [rnd([3, 3], f32)], IA, spacing=[1.0, 2.0, 3.0])
    e("gradient spacing and dims", "gradient", [rnd([3, 3], f32)], IA, spacing=[1.0, 2.0], dims=[0])

    # segment_reduce
    d = torch.tensor([1.5, -0.5, 2.25, 0.75, -1.25, 3.0], dtype=torch.float64)
    lens = i64([2, 0, 3, 1])
    for red in ("sum", "mean", "max", "min", "prod"):
        # no finite differences where an empty segment gives NaN (mean without initial) or at max/min's kinks
        c("segment_reduce " + red, "segment_reduce", [d, lens], reduce=red, gradcheck=red not in ("max", "min", "mean"))
        c("segment_reduce " + red + " initial", "segment_reduce", [d, lens], reduce=red, initial=0.5,
          gradcheck=red not in ("max", "min"))
        c("segment_reduce " + red + " offsets", "segment_reduce", [d, i64([0, 2, 2, 5, 6])], reduce=red,
          offsets=True, gradcheck=red not in ("max", "min", "mean"))
    c("segment_reduce 2-D axis 0", "segment_reduce", [s([6, 3]), i64([1, 3, 2])], reduce="sum")
    c("segment_reduce axis 1", "segment_reduce", [s([2, 5]), i64([[2, 3], [4, 1]])], reduce="mean", axis=1)
    c("segment_reduce max 2-D", "segment_reduce", [s([5, 2]), i64([2, 3])], reduce="max")
    c("segment_reduce f32", "segment_reduce", [rnd([6], f32), lens], reduce="sum")
    c("segment_reduce int32 lengths", "segment_reduce", [s([6]), lens.to(torch.int32)], reduce="sum")
    c("segment_reduce unsafe", "segment_reduce", [s([6]), lens], reduce="sum", unsafe=True)
    e("segment_reduce bad sum", "segment_reduce", [rnd([6], f32), i64([2, 2])], IA, reduce="sum")
    e("segment_reduce negative", "segment_reduce", [rnd([6], f32), i64([2, -1, 5])], IA, reduce="sum")
    e("segment_reduce reduce", "segment_reduce", [rnd([6], f32), lens], IA, reduce="foo")
    e("segment_reduce float lengths", "segment_reduce", [rnd([6], f32), t([2.0, 0.0, 3.0, 1.0], torch.float32)],
      DT, reduce="sum")

    # native_batch_norm, native_layer_norm
    stats = {"running_mean": [0.5, -0.5, 0.0], "running_var": [1.0, 2.0, 0.5]}
    c("native_batch_norm training", "native_batch_norm", [s([4, 3, 2]), s([3]), s([3])], training=True)
    c("native_batch_norm training running", "native_batch_norm", [s([4, 3]), s([3]), s([3])], training=True,
      momentum=0.2, **stats)
    c("native_batch_norm eval", "native_batch_norm", [s([2, 3, 2]), s([3]), None], training=False, **stats)
    c("native_batch_norm f32", "native_batch_norm", [rnd([5, 2, 3], f32), None, None], training=True)
    c("native_layer_norm", "native_layer_norm", [s([3, 4]), s([4]), s([4])], normalized_shape=[4])
    c("native_layer_norm 2 dims", "native_layer_norm", [s([2, 3, 4]), s([3, 4]), None], normalized_shape=[3, 4],
      eps=1e-3)
    c("native_layer_norm no affine", "native_layer_norm", [s([4, 2]), None, None], normalized_shape=[2])
    c("native_layer_norm f32", "native_layer_norm", [rnd([3, 5], f32), rnd([5], f32), rnd([5], f32)],
      normalized_shape=[5])
    e("native_layer_norm shape", "native_layer_norm", [rnd([3, 5], f32), None, None], SH, message=False,
      normalized_shape=[4])

    # histogram, histogramdd
    hx = t([0.5, 1.0, 2.75, -1.0, 3.0, 2.0, 1.0, 7.0])
    c("histogram bins", "histogram", [hx], bins=4)
    c("histogram range weight", "histogram", [hx, t([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 1.0, 2.0])], bins=3,
      range=[0.0, 3.0])
    c("histogram density", "histogram", [hx], bins=5, range=[-1.0, 4.0], density=True)
    c("histogram edges", "histogram", [hx, None, t([-1.0, 0.0, 1.0, 2.5, 3.0])])
    c("histogram edges weight density", "histogram",
      [hx, t([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 1.0, 2.0]), t([0.0, 1.0, 3.0])], density=True)
    c("histogram f32 2-D", "histogram", [rnd([3, 4], f32)], bins=6)
    c("histogram all equal", "histogram", [t([2.0, 2.0, 2.0])], bins=2)
    c("histogram empty", "histogram", [t([])], bins=3)
    e("histogram int", "histogram", [i64([1, 2])], DT, bins=2)
    e("histogram bins 0", "histogram", [t([1.0, 2.0])], IA, bins=0)
    e("histogram edges dtype", "histogram", [t([1.0, 2.0]), None, t([0.0, 1.0, 2.0], torch.float32)], DT)
    e("histogram weight shape", "histogram", [t([1.0, 2.0]), t([1.0])], SH, bins=2)
    pts = t([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]])
    c("histogramdd", "histogramdd", [pts, None], bins=[3, 2])
    c("histogramdd range weight density", "histogramdd", [pts, t([1.0, 2.0, 4.0, 8.0, 0.5])], bins=[2, 2],
      range=[0.0, 2.0, 0.0, 2.0], density=True)
    c("histogramdd edges", "histogramdd", [pts, None, t([0.0, 1.0, 2.0]), t([0.0, 0.5, 1.0, 2.0])])
    c("histogramdd 3-D f32", "histogramdd", [rnd([2, 3, 3], f32), None], bins=[2, 3, 2])
    e("histogramdd bins length", "histogramdd", [pts, None], IA, bins=[3])
    e("histogramdd 1-D", "histogramdd", [t([1.0, 2.0]), None], SH, message=False, bins=[2])
    fx.write("torchmisc.json")


if __name__ == "__main__":
    main()
