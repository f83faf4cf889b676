#!/usr/bin/python3
"""Golden fixtures of the normalisation functions and friends: ops/norm.json
(batch_norm, layer_norm, group_norm), ops/embedding.json, ops/dropout.json and
ops/normalize.json. Format: see golden.py.

    cd tests/golden && /usr/bin/python3 gen_nn.py

Conventions the adapters of tests/ops/norm_test.cpp and nn_test.cpp follow:
- batch_norm: inputs [x, weight, bias] (weight/bias may be null); running
  statistics come as args running_mean / running_var (lists, dtype stats_dtype,
  default x's) because they are not differentiable and are updated in place;
  the outputs are y and then the running statistics after the call (those given).
- embedding: inputs [weight, indices]; with max_norm the second output is weight
  after the in-place renormalisation.
- normalize: torchvision's Normalize, replicated here with torch ops (torchvision
  is not installed): args mean, std (lists).
"""

import json
import os

import torch
import torch.nn.functional as F

from golden import DTYPES, NAMES, OUT, Fixture, T, flat, rnd, smooth


def _stat(a, key, dtype):
    if key not in a:
        return None
    return torch.tensor(a[key], dtype=torch.float64).to(DTYPES[a.get("stats_dtype", NAMES[dtype])])


def _batch_norm(xs, a):
    x, w, b = xs
    rm, rv = _stat(a, "running_mean", x.dtype), _stat(a, "running_var", x.dtype)
    y = F.batch_norm(x, rm, rv, w, b, training=a["training"], momentum=a.get("momentum", 0.1),
                     eps=a.get("eps", 1e-5))
    return tuple([y] + [t for t in (rm, rv) if t is not None])


def _layer_norm(xs, a):
    return F.layer_norm(xs[0], a["normalized_shape"], xs[1], xs[2], eps=a.get("eps", 1e-5))


def _group_norm(xs, a):
    return F.group_norm(xs[0], a["num_groups"], xs[1], xs[2], eps=a.get("eps", 1e-5))


def _embedding(xs, a):
    w, idx = xs
    if a.get("max_norm") is None:
        return F.embedding(idx, w, padding_idx=a.get("padding_idx"), norm_type=float(a.get("norm_type", 2.0)))
    w = w.clone()  # renormalised in place: keep the fixture's input intact
    y = F.embedding(idx, w, padding_idx=a.get("padding_idx"), max_norm=a["max_norm"],
                    norm_type=float(a.get("norm_type", 2.0)))
    return y, w.detach().clone()


def _dropout(xs, a):
    return F.dropout(xs[0], a["p"], training=a["training"])


def _normalize(xs, a):
    # torchvision 0.14 transforms.functional.normalize (tensor path), not in place.
    x = xs[0]
    if x.ndim < 2:
        raise TypeError("Tensor is not a torch image.")
    if not x.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {x.dtype}.")
    if x.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                         f"tensor.size() = {x.size()}")
    t = x.clone()
    mean = torch.as_tensor(a["mean"], dtype=x.dtype)
    std = torch.as_tensor(a["std"], dtype=x.dtype)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {x.dtype}, leading to division by zero.")
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    return t.sub_(mean).div_(std)


OPS = {"batch_norm": _batch_norm, "layer_norm": _layer_norm, "group_norm": _group_norm,
       "embedding": _embedding, "dropout": _dropout, "normalize": _normalize}
DIFFERENTIABLE = tuple(OPS)
f64, f32, bf16 = "float64", "float32", "bfloat16"


def stats(c, lo=-1.0, hi=1.0, positive=False):
    v = smooth([c], f64, 0.5 if positive else lo, 2.0 if positive else hi)
    return v.tolist()


def norm():
    fx = Fixture(OPS, DIFFERENTIABLE)
    # ---- batch_norm
    for tr in (True, False):
        mode = "train" if tr else "eval"
        for shape in ([4, 3], [2, 3, 5], [2, 3, 2, 3], [2, 2, 2, 2, 3]):
            c = shape[1]
            fx.case("batch_norm %s %s f64 affine+stats" % (mode, shape), "batch_norm",
                    [smooth(shape), smooth([c], lo=0.5), smooth([c])], training=tr, momentum=0.1, eps=1e-5,
                    running_mean=stats(c), running_var=stats(c, positive=True))
        c = 3
        fx.case("batch_norm %s f64 no affine" % mode, "batch_norm", [smooth([4, c, 2]), None, None], training=tr,
                running_mean=stats(c), running_var=stats(c, positive=True))
        fx.case("batch_norm %s f64 weight only" % mode, "batch_norm", [smooth([4, c, 2]), smooth([c]), None],
                training=tr, running_mean=stats(c), running_var=stats(c, positive=True))
        fx.case("batch_norm %s f64 bias only" % mode, "batch_norm", [smooth([4, c, 2]), None, smooth([c])],
                training=tr, running_mean=stats(c), running_var=stats(c, positive=True))
        fx.case("batch_norm %s f64 transposed x" % mode, "batch_norm", [T(smooth([3, 4, 2])), smooth([4]),
                                                                         smooth([4])],
                training=tr, running_mean=stats(4), running_var=stats(4, positive=True))
        fx.case("batch_norm %s f32" % mode, "batch_norm", [smooth([4, 3, 5], f32), smooth([3], f32),
                                                           smooth([3], f32)],
                training=tr, running_mean=stats(3), running_var=stats(3, positive=True))
        fx.case("batch_norm %s bf16" % mode, "batch_norm", [smooth([4, 3, 5], bf16), smooth([3], bf16),
                                                            smooth([3], bf16)],
                training=tr, running_mean=stats(3), running_var=stats(3, positive=True))
        fx.case("batch_norm %s bf16 with float32 params" % mode, "batch_norm",
                [smooth([4, 3, 5], bf16), smooth([3], f32), smooth([3], f32)], training=tr, stats_dtype=f32,
                running_mean=stats(3), running_var=stats(3, positive=True))
        fx.case("batch_norm %s momentum 0.3 eps 1e-3" % mode, "batch_norm",
                [smooth([3, 2, 4]), smooth([2]), smooth([2])], training=tr, momentum=0.3, eps=1e-3,
                running_mean=stats(2), running_var=stats(2, positive=True))
        fx.case("batch_norm %s zero channels" % mode, "batch_norm", [smooth([3, 0, 2]), None, None], training=tr,
                running_mean=[], running_var=[])
    for tr in (True, False):
        fx.case("batch_norm %s [5, 70] (column blocks)" % ("train" if tr else "eval"), "batch_norm",
                [smooth([5, 70]), smooth([70]), smooth([70])], training=tr, running_mean=stats(70),
                running_var=stats(70, positive=True))
    fx.case("batch_norm train no running stats", "batch_norm", [smooth([4, 3]), smooth([3]), smooth([3])],
            training=True)
    fx.case("batch_norm train running_mean only", "batch_norm", [smooth([4, 3]), None, None], training=True,
            running_mean=stats(3))
    fx.case("batch_norm train momentum 1/3 (cumulative step)", "batch_norm", [smooth([2, 3, 4]), None, None],
            training=True, momentum=1 / 3, running_mean=stats(3), running_var=stats(3, positive=True))
    fx.case("batch_norm train N=1 spatial", "batch_norm", [smooth([1, 3, 4]), smooth([3]), smooth([3])],
            training=True, running_mean=stats(3), running_var=stats(3, positive=True))
    fx.case("batch_norm train empty batch", "batch_norm", [smooth([0, 3]), None, None], training=True,
            running_mean=stats(3), running_var=stats(3, positive=True))
    fx.case("batch_norm eval constant channel", "batch_norm", [torch.ones(3, 2, dtype=torch.float64), None, None],
            training=False, running_mean=stats(2), running_var=stats(2, positive=True))

    fx.error("batch_norm one value per channel", "batch_norm", [smooth([1, 3]), None, None], "GLIA_ERR_INVALID_ARGUMENT",
             message=False, training=True)  # torch's Python check prints torch.Size([1, 3]); glia prints [1, 3]
    fx.error("batch_norm running_mean size", "batch_norm", [smooth([2, 3]), None, None], "GLIA_ERR_SHAPE", training=True,
             running_mean=stats(4), running_var=stats(4, positive=True))
    fx.error("batch_norm running_var size", "batch_norm", [smooth([2, 3]), None, None], "GLIA_ERR_SHAPE", training=True,
             running_mean=stats(3), running_var=stats(2, positive=True))
    fx.error("batch_norm weight size", "batch_norm", [smooth([2, 3]), smooth([4]), None], "GLIA_ERR_SHAPE", training=True)
    fx.error("batch_norm bias size", "batch_norm", [smooth([2, 3]), None, smooth([2])], "GLIA_ERR_SHAPE", training=False,
             running_mean=stats(3), running_var=stats(3, positive=True))
    fx.error("batch_norm eval without running stats", "batch_norm", [smooth([2, 3]), None, None],
             "GLIA_ERR_INVALID_ARGUMENT", training=False)
    fx.error("batch_norm int input", "batch_norm", [rnd([2, 3], "int32"), None, None], "GLIA_ERR_DTYPE", training=True)
    fx.error("batch_norm float64 stats for float32 x", "batch_norm", [smooth([2, 3], f32), None, None], "GLIA_ERR_DTYPE",
             training=True, stats_dtype=f64, running_mean=stats(3), running_var=stats(3, positive=True))
    # torch reports "running_mean should contain 0 elements not 1" (it reads a size 0 for dim 1).
    fx.error("batch_norm 1-D input", "batch_norm", [smooth([3]), None, None], "GLIA_ERR_INVALID_ARGUMENT", message=False,
             training=False,
             running_mean=stats(1), running_var=stats(1, positive=True))

    # ---- layer_norm
    fx.case("layer_norm [2,3,4] over [4]", "layer_norm", [smooth([2, 3, 4]), smooth([4]), smooth([4])],
            normalized_shape=[4])
    fx.case("layer_norm [2,3,4] over [3,4]", "layer_norm", [smooth([2, 3, 4]), smooth([3, 4]), smooth([3, 4])],
            normalized_shape=[3, 4])
    fx.case("layer_norm over everything", "layer_norm", [smooth([2, 3]), smooth([2, 3]), smooth([2, 3])],
            normalized_shape=[2, 3])
    fx.case("layer_norm no affine", "layer_norm", [smooth([3, 5]), None, None], normalized_shape=[5])
    fx.case("layer_norm weight only", "layer_norm", [smooth([3, 5]), smooth([5]), None], normalized_shape=[5])
    fx.case("layer_norm bias only", "layer_norm", [smooth([3, 5]), None, smooth([5])], normalized_shape=[5])
    fx.case("layer_norm eps 0.1", "layer_norm", [smooth([3, 5]), smooth([5]), smooth([5])], normalized_shape=[5],
            eps=0.1)
    fx.case("layer_norm transposed", "layer_norm", [T(smooth([3, 4])), smooth([4]), smooth([4])],
            normalized_shape=[4])
    fx.case("layer_norm 1-D", "layer_norm", [smooth([6]), smooth([6]), smooth([6])], normalized_shape=[6])
    fx.case("layer_norm single element rows", "layer_norm", [smooth([3, 1]), smooth([1]), smooth([1])],
            normalized_shape=[1])
    fx.case("layer_norm zero rows", "layer_norm", [smooth([0, 4]), smooth([4]), smooth([4])],
            normalized_shape=[4])
    fx.case("layer_norm long rows", "layer_norm", [smooth([3, 67]), smooth([67]), smooth([67])],
            normalized_shape=[67])
    fx.case("layer_norm f32", "layer_norm", [smooth([3, 16], f32), smooth([16], f32), smooth([16], f32)],
            normalized_shape=[16])
    fx.case("layer_norm bf16", "layer_norm", [smooth([3, 16], bf16), smooth([16], bf16), smooth([16], bf16)],
            normalized_shape=[16])
    fx.error("layer_norm input shape", "layer_norm", [smooth([2, 3]), None, None], "GLIA_ERR_SHAPE", normalized_shape=[4])
    fx.error("layer_norm input too small", "layer_norm", [smooth([3]), None, None], "GLIA_ERR_SHAPE",
             normalized_shape=[2, 3])
    fx.error("layer_norm weight shape", "layer_norm", [smooth([2, 3]), smooth([4]), None], "GLIA_ERR_SHAPE",
             normalized_shape=[3])
    fx.error("layer_norm bias shape", "layer_norm", [smooth([2, 3]), smooth([3]), smooth([2])], "GLIA_ERR_SHAPE",
             normalized_shape=[3])
    fx.error("layer_norm empty normalized_shape", "layer_norm", [smooth([2, 3]), None, None], "GLIA_ERR_INVALID_ARGUMENT",
             normalized_shape=[])
    fx.error("layer_norm weight dtype", "layer_norm", [smooth([2, 3], bf16), smooth([3], f32), None], "GLIA_ERR_DTYPE",
             normalized_shape=[3])

    # ---- group_norm
    fx.case("group_norm [2,6,4] 3 groups", "group_norm", [smooth([2, 6, 4]), smooth([6]), smooth([6])],
            num_groups=3)
    fx.case("group_norm [2,6,2,3] 2 groups", "group_norm", [smooth([2, 6, 2, 3]), smooth([6]), smooth([6])],
            num_groups=2)
    fx.case("group_norm one group", "group_norm", [smooth([2, 4, 3]), smooth([4]), smooth([4])], num_groups=1)
    fx.case("group_norm instance-like", "group_norm", [smooth([2, 4, 3]), smooth([4]), smooth([4])],
            num_groups=4)
    fx.case("group_norm [N, C] only", "group_norm", [smooth([3, 4]), smooth([4]), smooth([4])], num_groups=2)
    fx.case("group_norm no affine", "group_norm", [smooth([2, 4, 3]), None, None], num_groups=2)
    fx.case("group_norm weight only", "group_norm", [smooth([2, 4, 3]), smooth([4]), None], num_groups=2)
    # torch 1.13's backward fails here ("tensor does not have a device"): no torch gradients to compare.
    fx.case("group_norm bias only", "group_norm", [smooth([2, 4, 3]), None, smooth([4])], grads=False,
            num_groups=2)
    fx.case("group_norm eps 0.01", "group_norm", [smooth([2, 4, 3]), smooth([4]), smooth([4])], num_groups=2,
            eps=0.01)
    fx.case("group_norm transposed", "group_norm", [T(smooth([2, 4, 3])), smooth([4]), smooth([4])],
            num_groups=2)
    fx.case("group_norm empty batch", "group_norm", [smooth([0, 4, 3]), smooth([4]), smooth([4])], num_groups=2)
    fx.case("group_norm f32", "group_norm", [smooth([2, 8, 5], f32), smooth([8], f32), smooth([8], f32)],
            num_groups=4)
    # torch 1.13 rounds group norm's intermediates to bfloat16 (a few ulps off float32 compute, which glia does).
    fx.case("group_norm bf16", "group_norm", [smooth([2, 8, 5], bf16), smooth([8], bf16), smooth([8], bf16)],
            tol=0.04, num_groups=4)
    fx.error("group_norm channels not divisible", "group_norm", [smooth([2, 6, 4]), None, None], "GLIA_ERR_SHAPE",
             num_groups=4)
    fx.error("group_norm weight size", "group_norm", [smooth([2, 6, 4]), smooth([5]), None], "GLIA_ERR_SHAPE",
             num_groups=3)
    # torch 1.13 names the weight's shape in the bias message; glia names the bias's.
    fx.error("group_norm bias size", "group_norm", [smooth([2, 6, 4]), smooth([6]), smooth([5])], "GLIA_ERR_SHAPE",
             message=False, num_groups=3)
    # torch fails in Python with "integer division or modulo by zero".
    fx.error("group_norm zero groups", "group_norm", [smooth([2, 6, 4]), None, None], "GLIA_ERR_INVALID_ARGUMENT",
             message=False, num_groups=0)
    fx.error("group_norm 1-D input", "group_norm", [smooth([6]), None, None], "GLIA_ERR_INVALID_ARGUMENT", num_groups=3)
    fx.error("group_norm int input", "group_norm", [rnd([2, 6, 4], "int64"), None, None], "GLIA_ERR_DTYPE",
             message=False, num_groups=3)  # torch fails in mean() with another wording
    fx.write("norm.json")
    cumulative()


def cumulative():
    """nn.BatchNorm2d(momentum=None) over 3 training steps, then eval: glia's momentum = 1/k must reproduce it."""
    torch.manual_seed(7)
    bn = torch.nn.BatchNorm2d(3, momentum=None).double()
    xs = [smooth([2, 3, 2, 2]) for _ in range(3)]
    steps = []
    for x in xs:
        y = bn(x)
        steps.append({"x": flat(x), "y": flat(y), "running_mean": flat(bn.running_mean),
                      "running_var": flat(bn.running_var)})
    bn.eval()
    xe = smooth([2, 3, 2, 2])
    ye = bn(xe)
    path = os.path.join(OUT, "norm.json")
    with open(path) as f:
        data = json.load(f)
    data["cumulative"] = {"shape": [2, 3, 2, 2], "steps": steps, "eval_x": flat(xe), "eval_y": flat(ye)}
    with open(path, "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"))
        f.write("\n")


def embedding():
    fx = Fixture(OPS, DIFFERENTIABLE)
    i64 = "int64"
    fx.case("embedding 1-D indices", "embedding", [smooth([5, 3]), torch.tensor([0, 4, 2, 2])])
    fx.case("embedding 2-D indices", "embedding", [smooth([6, 2]), rnd([2, 3], i64, 0, 6)])
    fx.case("embedding 0-dim index", "embedding", [smooth([4, 3]), torch.tensor(2)])
    fx.case("embedding int32 indices", "embedding", [smooth([5, 3]), rnd([4], "int32", 0, 5)])
    fx.case("embedding repeated indices (grad sums)", "embedding", [smooth([3, 2]), torch.tensor([1, 1, 1, 0])])
    # The padding row's gradient is zero by definition, not the derivative: no finite-difference check.
    fx.case("embedding padding_idx", "embedding", [smooth([5, 3]), torch.tensor([0, 2, 4, 2])], gradcheck=False,
            padding_idx=2)
    fx.case("embedding negative padding_idx", "embedding", [smooth([5, 3]), torch.tensor([0, 4, 4, 1])],
            gradcheck=False, padding_idx=-1)
    fx.case("embedding transposed weight", "embedding", [T(smooth([5, 3])), torch.tensor([[0, 4], [1, 1]])])
    fx.case("embedding empty indices", "embedding", [smooth([4, 3]), torch.zeros(0, dtype=torch.int64)])
    fx.case("embedding zero-width weight", "embedding", [smooth([4, 0]), torch.tensor([1, 3])])
    fx.case("embedding f32", "embedding", [smooth([5, 4], f32), rnd([3], i64, 0, 5)])
    fx.case("embedding bf16", "embedding", [smooth([5, 4], bf16), rnd([3], i64, 0, 5)])
    fx.case("embedding float16", "embedding", [smooth([5, 4], "float16"), rnd([3], i64, 0, 5)])
    fx.case("embedding int32 weight", "embedding", [rnd([5, 4], "int32"), rnd([3], i64, 0, 5)])
    w = torch.tensor([[3.0, 4.0], [1.0, 0.0], [6.0, 8.0], [0.3, 0.4]], dtype=torch.float64)
    # Renormalising changes weight in place: the finite-difference check would see it move.
    fx.case("embedding max_norm 2", "embedding", [w, torch.tensor([0, 2, 0, 3])], gradcheck=False, max_norm=2.0)
    fx.case("embedding max_norm norm_type 1", "embedding", [w, torch.tensor([2, 1])], gradcheck=False,
            max_norm=2.0, norm_type=1.0)
    fx.case("embedding max_norm norm_type 3", "embedding", [w, torch.tensor([2, 1, 0])], gradcheck=False,
            max_norm=1.5, norm_type=3.0)
    fx.case("embedding max_norm norm_type inf", "embedding", [w, torch.tensor([2, 0])], gradcheck=False,
            max_norm=5.0, norm_type="inf")
    fx.case("embedding max_norm f32", "embedding", [smooth([4, 3], f32, -3, 3), torch.tensor([[0, 1], [3, 3]])],
            max_norm=1.0)
    fx.case("embedding max_norm with padding_idx", "embedding", [w, torch.tensor([0, 1, 2])], gradcheck=False,
            max_norm=2.0, padding_idx=0)
    fx.error("embedding index too large", "embedding", [smooth([3, 2]), torch.tensor([0, 3])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("embedding negative index", "embedding", [smooth([3, 2]), torch.tensor([0, -1])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("embedding float indices", "embedding", [smooth([3, 2]), torch.tensor([0.0, 1.0])], "GLIA_ERR_DTYPE")
    fx.error("embedding 1-D weight", "embedding", [smooth([3]), torch.tensor([0, 1])], "GLIA_ERR_SHAPE")
    fx.write("embedding.json")


def dropout():
    fx = Fixture(OPS, DIFFERENTIABLE, signed_zeros=True)
    fx.case("dropout eval", "dropout", [smooth([3, 4])], p=0.5, training=False)
    fx.case("dropout p=0", "dropout", [smooth([3, 4])], p=0.0, training=True)
    fx.case("dropout p=1", "dropout", [smooth([3, 4])], p=1.0, training=True)
    fx.case("dropout p=1 transposed", "dropout", [T(smooth([3, 4]))], p=1.0, training=True)
    fx.case("dropout p=1 nan inf", "dropout", [torch.tensor([float("nan"), float("inf"), -2.0, 0.0])],
            grads=False, p=1.0, training=True)
    fx.case("dropout p=1 f32", "dropout", [smooth([5], f32)], p=1.0, training=True)
    fx.case("dropout p=1 bf16", "dropout", [smooth([5], bf16)], p=1.0, training=True)
    fx.case("dropout eval bf16", "dropout", [smooth([5], bf16)], p=0.3, training=False)
    fx.case("dropout empty", "dropout", [smooth([0, 3])], p=0.5, training=True)
    fx.case("dropout 0-dim eval", "dropout", [smooth([])], p=0.5, training=False)
    fx.case("dropout int64 eval", "dropout", [rnd([4], "int64")], p=0.5, training=False)
    fx.case("dropout int64 p=1", "dropout", [rnd([4], "int64")], p=1.0, training=True)
    fx.error("dropout p 1.5", "dropout", [smooth([3])], "GLIA_ERR_INVALID_ARGUMENT", p=1.5, training=True)
    fx.error("dropout p -0.1", "dropout", [smooth([3])], "GLIA_ERR_INVALID_ARGUMENT", p=-0.1, training=False)
    fx.error("dropout int64 training", "dropout", [rnd([4], "int64")], "GLIA_ERR_DTYPE", p=0.5, training=True)
    fx.write("dropout.json")


def normalize():
    fx = Fixture(OPS, DIFFERENTIABLE)
    fx.case("normalize [3,4,5]", "normalize", [smooth([3, 4, 5])], mean=[0.485, 0.456, 0.406],
            std=[0.229, 0.224, 0.225])
    fx.case("normalize batched [2,3,2,3]", "normalize", [smooth([2, 3, 2, 3])], mean=[0.1, -0.2, 0.3],
            std=[0.5, 2.0, 1.5])
    fx.case("normalize scalar mean/std", "normalize", [smooth([3, 2, 2])], mean=[0.5], std=[0.25])
    fx.case("normalize transposed", "normalize", [T(smooth([2, 3, 4]))], mean=[0.1, 0.2], std=[0.3, 0.4])
    fx.case("normalize one channel", "normalize", [smooth([1, 3, 3])], mean=[0.5], std=[2.0])
    fx.case("normalize empty", "normalize", [smooth([0, 3, 2, 2])], mean=[0.1, 0.2, 0.3], std=[1.0, 2.0, 3.0])
    fx.case("normalize f32", "normalize", [smooth([3, 4, 4], f32)], mean=[0.485, 0.456, 0.406],
            std=[0.229, 0.224, 0.225])
    fx.case("normalize bf16", "normalize", [smooth([3, 4, 4], bf16)], mean=[0.485, 0.456, 0.406],
            std=[0.229, 0.224, 0.225])
    fx.error("normalize int input", "normalize", [rnd([3, 2, 2], "int64")], "GLIA_ERR_DTYPE", mean=[0.0], std=[1.0])
    fx.error("normalize 2-D input", "normalize", [smooth([2, 3])], "GLIA_ERR_INVALID_ARGUMENT", mean=[0.0], std=[1.0])
    fx.error("normalize 1-D input", "normalize", [smooth([3])], "GLIA_ERR_INVALID_ARGUMENT", mean=[0.0], std=[1.0])
    fx.error("normalize zero std", "normalize", [smooth([3, 2, 2])], "GLIA_ERR_INVALID_ARGUMENT", mean=[0.0, 0.0, 0.0],
             std=[1.0, 0.0, 1.0])
    fx.error("normalize std underflows in float32", "normalize", [smooth([3, 2, 2], f32)], "GLIA_ERR_INVALID_ARGUMENT",
             mean=[0.0], std=[1e-50])
    fx.error("normalize mean count", "normalize", [smooth([3, 2, 2])], "GLIA_ERR_SHAPE", mean=[0.0, 0.0], std=[1.0])
    fx.error("normalize std count batched", "normalize", [smooth([2, 3, 2, 2])], "GLIA_ERR_SHAPE", mean=[0.0],
             std=[1.0, 2.0])
    fx.write("normalize.json")


if __name__ == "__main__":
    norm()
    embedding()
    dropout()
    normalize()
