#!/usr/bin/python3
"""Golden fixtures of the norms, dropouts and distances of issue 21 (torch 1.13):

  ops/nnmisc.json      instance_norm, local_response_norm, cosine_similarity, pairwise_distance, pdist,
                       bilinear, softsign, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout
                       (format: golden.py; the dropouts' deterministic cases: eval, p = 0, p = 1)
  modules/nnmisc.json  BatchNorm3d, InstanceNorm1d/2d/3d, LocalResponseNorm, CosineSimilarity,
                       PairwiseDistance, Softsign, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout
                       (format: gen_layers.py's, plus "buffers": the module's buffers after the forward)

One case per line; append new cases at the end.

    cd tests/golden && /usr/bin/python3 gen_nnmisc.py
"""

import json
import os
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden import DTYPES, NAMES, Fixture, T, encode, rnd, smooth

HERE = os.path.dirname(os.path.abspath(__file__))
f64, f32 = "float64", "float32"
IA, SH, DT = "GLIA_ERR_INVALID_ARGUMENT", "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE"

warnings.simplefilter("ignore")  # dropout2d/3d's rank warnings


def _stat(a, key, dtype):
    if key not in a:
        return None
    return torch.tensor(a[key], dtype=torch.float64).to(dtype)


def _instance_norm(xs, a):
    x, w, b = xs
    rm, rv = _stat(a, "running_mean", x.dtype), _stat(a, "running_var", x.dtype)
    y = F.instance_norm(x, rm, rv, w, b, use_input_stats=a.get("use_input_stats", True),
                        momentum=a.get("momentum", 0.1), eps=a.get("eps", 1e-5))
    return tuple([y] + [t for t in (rm, rv) if t is not None])


def _drop(fn):
    return lambda xs, a: fn(xs[0], a.get("p", 0.5), training=a.get("training", True))


OPS = {
    "instance_norm": _instance_norm,
    "local_response_norm": lambda xs, a: F.local_response_norm(xs[0], a["size"], alpha=a.get("alpha", 1e-4),
                                                               beta=a.get("beta", 0.75), k=a.get("k", 1.0)),
    "cosine_similarity": lambda xs, a: F.cosine_similarity(xs[0], xs[1], dim=a.get("dim", 1), eps=a.get("eps", 1e-8)),
    "pairwise_distance": lambda xs, a: F.pairwise_distance(xs[0], xs[1], p=float(a.get("p", 2.0)),
                                                           eps=a.get("eps", 1e-6), keepdim=a.get("keepdim", False)),
    "pdist": lambda xs, a: F.pdist(xs[0], p=float(a.get("p", 2.0))),
    "bilinear": lambda xs, a: F.bilinear(xs[0], xs[1], xs[2], xs[3]),
    "softsign": lambda xs, a: F.softsign(xs[0]),
    "dropout1d": _drop(F.dropout1d),
    "dropout2d": _drop(F.dropout2d),
    "dropout3d": _drop(F.dropout3d),
    "alpha_dropout": _drop(F.alpha_dropout),
    "feature_alpha_dropout": _drop(F.feature_alpha_dropout),
}


class Fx(Fixture):
    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(HERE, "ops", filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n], "errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def ops():
    fx = Fx(OPS, OPS.keys())
    s, c, e = smooth, fx.case, fx.error

    # instance_norm
    c("instance_norm 3D", "instance_norm", [s([2, 3, 5]), None, None])
    c("instance_norm affine 4D", "instance_norm", [s([2, 3, 2, 3]), s([3]), s([3])])
    c("instance_norm 5D eps", "instance_norm", [s([1, 2, 2, 2, 2]), s([2]), None], eps=0.1)
    c("instance_norm running stats", "instance_norm", [s([2, 3, 4]), s([3]), s([3])],
      running_mean=[0.5, -0.25, 1.0], running_var=[1.5, 0.75, 2.0], momentum=0.2)
    c("instance_norm running stats eval", "instance_norm", [s([2, 3, 4]), s([3]), s([3])],
      running_mean=[0.5, -0.25, 1.0], running_var=[1.5, 0.75, 2.0], use_input_stats=False)
    c("instance_norm transposed", "instance_norm", [T(s([3, 2, 4])), None, None])
    c("instance_norm f32", "instance_norm", [rnd([2, 3, 6], f32), rnd([3], f32), rnd([3], f32)],
      running_mean=[0.0, 0.0, 0.0], running_var=[1.0, 1.0, 1.0])
    e("instance_norm one spatial element", "instance_norm", [rnd([2, 3, 1], f32), None, None], IA)
    e("instance_norm 2D", "instance_norm", [rnd([2, 3], f32), None, None], IA)
    e("instance_norm eval without stats", "instance_norm", [rnd([2, 3, 4], f32), None, None], IA,
      use_input_stats=False)

    # local_response_norm
    c("local_response_norm 3D", "local_response_norm", [s([2, 5, 3])], size=2)
    c("local_response_norm 4D args", "local_response_norm", [s([2, 4, 2, 3])], size=3, alpha=0.5, beta=0.6, k=2.0)
    c("local_response_norm 5D size > C", "local_response_norm", [s([1, 3, 2, 2, 2])], size=5, alpha=0.3)
    c("local_response_norm transposed", "local_response_norm", [T(s([4, 2, 3]))], size=2, alpha=0.2)
    c("local_response_norm f32", "local_response_norm", [rnd([2, 6, 4], f32)], size=3, alpha=0.01)
    c("local_response_norm empty", "local_response_norm", [s([0, 3, 2])], size=2)
    e("local_response_norm 2D", "local_response_norm", [rnd([2, 3], f32)], IA, size=2)
    e("local_response_norm size 0", "local_response_norm", [rnd([2, 3, 4], f32)], IA, size=0)
    e("local_response_norm size 0 4D", "local_response_norm", [rnd([2, 3, 4, 1], f32)], IA, size=0)

    # cosine_similarity
    c("cosine_similarity 2D", "cosine_similarity", [s([4, 5]), s([4, 5])])
    c("cosine_similarity dim 0 broadcast", "cosine_similarity", [s([3, 4]), s([3, 1])], dim=0)
    c("cosine_similarity dim -1 3D", "cosine_similarity", [s([2, 3, 4]), s([4])], dim=-1)
    c("cosine_similarity zero vector", "cosine_similarity",
      [torch.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, -1.0]], dtype=torch.float64), s([2, 3])], gradcheck=False)
    c("cosine_similarity below eps", "cosine_similarity",
      [torch.tensor([[1e-9, 2e-9, 0.0], [1.0, 2.0, 3.0]], dtype=torch.float64), s([2, 3])], gradcheck=False)
    c("cosine_similarity eps", "cosine_similarity", [s([3, 4], lo=-0.1, hi=0.1), s([3, 4])], eps=0.3, gradcheck=False)
    c("cosine_similarity transposed", "cosine_similarity", [T(s([3, 4])), s([3, 4])])
    c("cosine_similarity f32", "cosine_similarity", [rnd([3, 6], f32), rnd([3, 6], f32)])
    c("cosine_similarity int and float", "cosine_similarity", [rnd([2, 4], "int64"), rnd([2, 4], f32)])
    c("cosine_similarity 1D dim 0", "cosine_similarity", [s([5]), s([5])], dim=0)
    c("cosine_similarity empty", "cosine_similarity", [s([0, 3]), s([0, 3])])
    e("cosine_similarity int", "cosine_similarity", [rnd([2, 3], "int64"), rnd([2, 3], "int64")], DT)
    e("cosine_similarity shapes", "cosine_similarity", [rnd([3, 2], f32), rnd([4, 2], f32)], SH)

    # pairwise_distance
    c("pairwise_distance 2D", "pairwise_distance", [s([4, 5]), s([4, 5])])
    c("pairwise_distance p 1 keepdim", "pairwise_distance", [s([3, 4]), s([3, 4])], p=1.0, keepdim=True)
    c("pairwise_distance p 3", "pairwise_distance", [s([3, 4]), s([3, 4])], p=3.0)
    c("pairwise_distance p inf", "pairwise_distance", [s([3, 4]), s([3, 4])], p="inf")
    c("pairwise_distance broadcast 1D", "pairwise_distance", [s([4]), s([2, 4])])
    c("pairwise_distance 1D", "pairwise_distance", [s([4]), s([4])], eps=0.5)
    c("pairwise_distance same rows", "pairwise_distance",
      [torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64),
       torch.tensor([[1.0, 2.0], [0.0, 4.0]], dtype=torch.float64)], eps=0.0, gradcheck=False)
    c("pairwise_distance transposed", "pairwise_distance", [T(s([3, 4])), s([3, 4])])
    c("pairwise_distance f32", "pairwise_distance", [rnd([3, 6], f32), rnd([3, 6], f32)])
    c("pairwise_distance int eps 0", "pairwise_distance", [rnd([2, 3], "int64"), rnd([2, 3], "int64")], eps=0.0)
    c("pairwise_distance empty", "pairwise_distance", [s([0, 3]), s([0, 3])])
    e("pairwise_distance shapes", "pairwise_distance", [rnd([3], f32), rnd([2, 4], f32)], SH)

    # pdist
    c("pdist", "pdist", [s([4, 3])])
    c("pdist p 1", "pdist", [s([4, 3])], p=1.0)
    c("pdist p 3", "pdist", [s([3, 5])], p=3.0)
    c("pdist p 0.5", "pdist", [s([3, 2])], p=0.5)
    c("pdist p inf", "pdist", [s([4, 2])], p="inf")
    c("pdist p 0", "pdist", [rnd([4, 3])], p=0.0, gradcheck=False)
    c("pdist equal rows", "pdist", [torch.tensor([[1.0, 2.0], [1.0, 2.0], [3.0, 5.0]], dtype=torch.float64)],
      gradcheck=False)
    c("pdist transposed", "pdist", [T(s([3, 4]))])
    c("pdist f32", "pdist", [rnd([5, 4], f32)])
    c("pdist one row", "pdist", [s([1, 4])])
    c("pdist no columns", "pdist", [s([3, 0])])
    e("pdist 1D", "pdist", [rnd([3], f32)], SH)
    e("pdist negative p", "pdist", [rnd([3, 3], f32)], IA, p=-1.0)
    e("pdist int", "pdist", [rnd([3, 3], "int64")], DT)

    # bilinear
    c("bilinear", "bilinear", [s([4, 3]), s([4, 2]), s([5, 3, 2]), s([5])])
    c("bilinear no bias", "bilinear", [s([2, 3, 3]), s([2, 3, 2]), s([4, 3, 2]), None])
    c("bilinear 1D", "bilinear", [s([3]), s([4]), s([2, 3, 4]), s([2])])
    c("bilinear f32", "bilinear", [rnd([3, 2], f32), rnd([3, 4], f32), rnd([2, 2, 4], f32), rnd([2], f32)])
    e("bilinear sizes", "bilinear", [rnd([4, 3], f32), rnd([4, 2], f32), rnd([5, 2, 2], f32), None], SH,
      message=False)

    # softsign
    c("softsign", "softsign", [s([3, 4], lo=-4, hi=4)])
    c("softsign transposed", "softsign", [T(s([3, 4]))])
    c("softsign 0-dim", "softsign", [s([])])
    c("softsign f32 specials", "softsign",
      [torch.tensor([0.0, -0.0, 1.5, -2.5, float("nan"), float("inf"), -float("inf"), 1e-3])])
    c("softsign empty", "softsign", [s([0, 2])])
    c("softsign int", "softsign", [rnd([5], "int64")])

    # the dropouts: eval is the identity, p = 0 the identity, p = 1 zeros (x * 0)
    for op, shape in [("dropout1d", [2, 3, 4]), ("dropout2d", [2, 3, 2, 2]), ("dropout3d", [2, 2, 1, 2, 2]),
                      ("alpha_dropout", [3, 4]), ("feature_alpha_dropout", [2, 3, 2])]:
        c(op + " eval", op, [s(shape)], p=0.5, training=False)
        c(op + " p 0", op, [s(shape)], p=0.0, training=True)
        c(op + " p 1", op, [s(shape)], p=1.0, training=True)
        c(op + " p 1 f32 nan", op, [torch.full(shape, float("nan"))], p=1.0, training=True)
        c(op + " empty", op, [s([0] + shape[1:])], p=0.5, training=True)
        e(op + " p 1.5", op, [rnd(shape, f32)], IA, p=1.5, training=True)
        e(op + " p -0.1", op, [rnd(shape, f32)], IA, p=-0.1, training=False)
    c("dropout1d unbatched eval", "dropout1d", [s([3, 4])], p=0.5, training=False)
    c("dropout3d unbatched p 1", "dropout3d", [s([2, 2, 2, 2])], p=1.0, training=True)
    e("dropout1d 4D", "dropout1d", [rnd([2, 3, 4, 5], f32)], IA, p=0.5, training=True)
    e("dropout2d 1D", "dropout2d", [rnd([3], f32)], IA, p=0.5, training=True)
    e("feature_alpha_dropout 1D", "feature_alpha_dropout", [rnd([3], f32)], IA, p=0.5, training=True)
    e("alpha_dropout int", "alpha_dropout", [rnd([3], "int64")], DT, p=0.5, training=True)
    return fx


# ---- modules (gen_layers.py's format plus "buffers")

mgen = torch.Generator().manual_seed(2221)


def randn(*shape, dtype=torch.float64):
    return torch.randn(*shape, generator=mgen, dtype=torch.float64).to(dtype)


def enc(t):
    t = t.detach()
    name = str(t.dtype).replace("torch.", "")
    return {"dtype": name, "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


mcases = []
merrors = []
mforward_errors = []


def mcase(name, module, args, make, inputs, dtype=torch.float64, train=False, calls=1):
    m = make().to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(randn(*p.shape, dtype=dtype) * 0.5)
    m.train(train)
    xs = [x.to(dtype).clone().requires_grad_(True) for x in inputs]
    params0 = [{"name": n, "value": enc(p)} for n, p in m.named_parameters()]
    for _ in range(calls):
        out = m(*xs)
    w = randn(*out.shape, dtype=dtype)
    gs = torch.autograd.grad((out * w).sum(), xs + list(m.parameters()), allow_unused=True)
    grads = {f"input{i}": enc(torch.zeros_like(x) if g is None else g) for i, (x, g) in enumerate(zip(xs, gs))}
    for (n, _), g in zip(m.named_parameters(), gs[len(xs):]):
        grads[n] = enc(g)
    mcases.append({
        "name": name + ("" if dtype == torch.float64 else "_f32"), "module": module, "args": args,
        "dtype": str(dtype).replace("torch.", ""), "train": train, "calls": calls, "params": params0,
        "inputs": [enc(x) for x in xs], "out": enc(out), "w": enc(w), "grads": grads, "repr": repr(m),
        "keys": list(m.state_dict().keys()),
        "buffers": [{"name": n, "value": enc(b)} for n, b in m.named_buffers()],
        "tol": 1e-10 if dtype == torch.float64 else 2e-5,
    })


def both(name, module, args, make, inputs, **kw):
    mcase(name, module, args, make, inputs, torch.float64, **kw)
    mcase(name, module, args, make, inputs, torch.float32, **kw)


def merror(name, module, args, make):
    try:
        make()
    except (RuntimeError, ValueError) as e:
        merrors.append({"name": name, "module": module, "args": args, "message": str(e)})
    else:
        raise AssertionError(name + " did not fail in torch")


def mforward_error(name, module, args, make, x):
    try:
        make()(x)
    except (RuntimeError, ValueError) as e:
        mforward_errors.append({"name": name, "module": module, "args": args, "inputs": [enc(x)], "message": str(e)})
    else:
        raise AssertionError(name + " did not fail in torch")


def modules():
    both("batch_norm3d", "BatchNorm3d", {"num_features": 3}, lambda: nn.BatchNorm3d(3), [randn(2, 3, 2, 2, 3)],
         train=True, calls=2)
    mcase("batch_norm3d_eval", "BatchNorm3d", {"num_features": 2}, lambda: nn.BatchNorm3d(2),
          [randn(2, 2, 1, 2, 2)])
    mcase("batch_norm3d_no_affine_momentum_none", "BatchNorm3d",
          {"num_features": 2, "affine": False, "momentum": None},
          lambda: nn.BatchNorm3d(2, affine=False, momentum=None), [randn(3, 2, 2, 1, 2)], train=True, calls=2)
    both("instance_norm1d", "InstanceNorm1d", {"num_features": 3}, lambda: nn.InstanceNorm1d(3), [randn(2, 3, 5)])
    both("instance_norm1d_affine_tracked", "InstanceNorm1d",
         {"num_features": 3, "affine": True, "track_running_stats": True, "momentum": 0.3},
         lambda: nn.InstanceNorm1d(3, momentum=0.3, affine=True, track_running_stats=True), [randn(2, 3, 5)],
         train=True, calls=2)
    mcase("instance_norm1d_tracked_eval", "InstanceNorm1d", {"num_features": 3, "track_running_stats": True},
          lambda: nn.InstanceNorm1d(3, track_running_stats=True), [randn(2, 3, 4)])
    mcase("instance_norm1d_unbatched", "InstanceNorm1d", {"num_features": 3, "affine": True},
          lambda: nn.InstanceNorm1d(3, affine=True), [randn(3, 4)])
    both("instance_norm2d", "InstanceNorm2d", {"num_features": 2, "affine": True, "eps": 0.01},
         lambda: nn.InstanceNorm2d(2, eps=0.01, affine=True), [randn(2, 2, 3, 3)])
    mcase("instance_norm2d_unbatched_tracked", "InstanceNorm2d", {"num_features": 2, "track_running_stats": True},
          lambda: nn.InstanceNorm2d(2, track_running_stats=True), [randn(2, 3, 3)], train=True)
    both("instance_norm3d", "InstanceNorm3d", {"num_features": 2, "affine": True, "track_running_stats": True},
         lambda: nn.InstanceNorm3d(2, affine=True, track_running_stats=True), [randn(2, 2, 2, 2, 2)], train=True)
    both("local_response_norm", "LocalResponseNorm", {"size": 2}, lambda: nn.LocalResponseNorm(2),
         [randn(2, 4, 3) * 3])
    mcase("local_response_norm_args", "LocalResponseNorm", {"size": 3, "alpha": 0.1, "beta": 0.5, "k": 2.0},
          lambda: nn.LocalResponseNorm(3, 0.1, 0.5, 2.0), [randn(2, 4, 2, 2)])
    both("cosine_similarity", "CosineSimilarity", {}, nn.CosineSimilarity, [randn(3, 4), randn(3, 4)])
    mcase("cosine_similarity_args", "CosineSimilarity", {"dim": 0, "eps": 0.5},
          lambda: nn.CosineSimilarity(0, 0.5), [randn(3, 4), randn(3, 4) * 0.1])
    both("pairwise_distance", "PairwiseDistance", {}, nn.PairwiseDistance, [randn(3, 4), randn(3, 4)])
    mcase("pairwise_distance_args", "PairwiseDistance", {"p": 1.0, "eps": 0.01, "keepdim": True},
          lambda: nn.PairwiseDistance(1.0, 0.01, True), [randn(3, 4), randn(3, 4)])
    both("softsign", "Softsign", {}, nn.Softsign, [randn(3, 4) * 3])
    for module, cls, shape in [("Dropout1d", nn.Dropout1d, (2, 3, 4)), ("Dropout2d", nn.Dropout2d, (2, 3, 2, 2)),
                               ("Dropout3d", nn.Dropout3d, (2, 2, 2, 1, 2)), ("AlphaDropout", nn.AlphaDropout, (3, 4)),
                               ("FeatureAlphaDropout", nn.FeatureAlphaDropout, (2, 3, 2))]:
        mcase(module.lower() + "_eval", module, {}, cls, [randn(*shape)])
        mcase(module.lower() + "_p0_train", module, {"p": 0.0}, lambda cls=cls: cls(0.0), [randn(*shape)],
              train=True)
        mcase(module.lower() + "_inplace_eval", module, {"p": 0.25, "inplace": True},
              lambda cls=cls: cls(0.25, inplace=True), [randn(*shape)])
        merror(module.lower() + "_p_high", module, {"p": 1.5}, lambda cls=cls: cls(1.5))
        merror(module.lower() + "_p_negative", module, {"p": -0.1}, lambda cls=cls: cls(-0.1))
    mforward_error("batch_norm3d_4d", "BatchNorm3d", {"num_features": 2}, lambda: nn.BatchNorm3d(2),
                   randn(2, 2, 2, 2))
    mforward_error("instance_norm1d_4d", "InstanceNorm1d", {"num_features": 2}, lambda: nn.InstanceNorm1d(2),
                   randn(2, 2, 2, 2))
    mforward_error("instance_norm2d_2d", "InstanceNorm2d", {"num_features": 2}, lambda: nn.InstanceNorm2d(2),
                   randn(2, 2))
    mforward_error("instance_norm3d_6d", "InstanceNorm3d", {"num_features": 2}, lambda: nn.InstanceNorm3d(2),
                   randn(1, 2, 1, 1, 1, 2))
    mforward_error("instance_norm1d_one_element", "InstanceNorm1d", {"num_features": 2},
                   lambda: nn.InstanceNorm1d(2), randn(3, 2, 1))
    mforward_error("local_response_norm_2d", "LocalResponseNorm", {"size": 2}, lambda: nn.LocalResponseNorm(2),
                   randn(2, 3))
    mforward_error("dropout1d_4d", "Dropout1d", {}, lambda: nn.Dropout1d().train(), randn(1, 2, 3, 4))


def write_modules():
    with open(os.path.join(HERE, "modules", "nnmisc.json"), "w") as f:
        f.write('{"cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in mcases))
        f.write('\n], "errors": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in merrors))
        f.write('\n], "forward_errors": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in mforward_errors))
        f.write("\n]}\n")


if __name__ == "__main__":
    ops().write("nnmisc.json")
    modules()
    write_modules()
