"""Golden fixtures of torch 1.13's other losses (kl_div ... triplet_margin_with_distance_loss):
ops/loss_extra.json (the functionals; format: see golden.py) and modules/loss_extra.json (the
modules: repr, state-dict keys, buffers, the loss and the first input's gradient of
sum(loss * w), as gen_norm_loss.py's loss cases). Run from tests/golden with /usr/bin/python3.

Inputs torch does not differentiate (soft_margin_loss's target, multi_margin_loss's weight,
and the +1/-1 labels of hinge_embedding_loss and cosine_embedding_loss, which only enter
comparisons) are detached here and their gradient entries are null, so the harness neither
asks for their gradient nor finite-differences them.
"""

import json
import os
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden import NAMES, Fixture, encode, smooth, gen

warnings.filterwarnings("ignore")  # kl_div's reduction='mean' warning


def _r(a):
    return a.get("reduction", "mean")


def _opt(xs, k):
    return xs[k] if len(xs) > k else None


def _det(t):
    return None if t is None else t.detach()


OPS = {
    "kl_div": lambda xs, a: F.kl_div(xs[0], xs[1], reduction=_r(a), log_target=a.get("log_target", False)),
    "poisson_nll_loss": lambda xs, a: F.poisson_nll_loss(xs[0], xs[1], log_input=a.get("log_input", True),
                                                         full=a.get("full", False), eps=a.get("eps", 1e-8),
                                                         reduction=_r(a)),
    "gaussian_nll_loss": lambda xs, a: F.gaussian_nll_loss(xs[0], xs[1], xs[2], full=a.get("full", False),
                                                           eps=a.get("eps", 1e-6), reduction=_r(a)),
    "margin_ranking_loss": lambda xs, a: F.margin_ranking_loss(xs[0], xs[1], xs[2], margin=a.get("margin", 0.0),
                                                               reduction=_r(a)),
    "hinge_embedding_loss": lambda xs, a: F.hinge_embedding_loss(xs[0], _det(xs[1]), margin=a.get("margin", 1.0),
                                                                 reduction=_r(a)),
    "soft_margin_loss": lambda xs, a: F.soft_margin_loss(xs[0], _det(xs[1]), reduction=_r(a)),
    "multilabel_soft_margin_loss": lambda xs, a: F.multilabel_soft_margin_loss(xs[0], xs[1], weight=_opt(xs, 2),
                                                                               reduction=_r(a)),
    "cosine_embedding_loss": lambda xs, a: F.cosine_embedding_loss(xs[0], xs[1], _det(xs[2]),
                                                                   margin=a.get("margin", 0.0), reduction=_r(a)),
    "multi_margin_loss": lambda xs, a: F.multi_margin_loss(xs[0], xs[1], p=a.get("p", 1), margin=a.get("margin", 1.0),
                                                           weight=_det(_opt(xs, 2)), reduction=_r(a)),
    "multilabel_margin_loss": lambda xs, a: F.multilabel_margin_loss(xs[0], xs[1], reduction=_r(a)),
    "triplet_margin_loss": lambda xs, a: F.triplet_margin_loss(xs[0], xs[1], xs[2], margin=a.get("margin", 1.0),
                                                               p=a.get("p", 2.0), eps=a.get("eps", 1e-6),
                                                               swap=a.get("swap", False), reduction=_r(a)),
    "triplet_margin_with_distance_loss": lambda xs, a: F.triplet_margin_with_distance_loss(
        xs[0], xs[1], xs[2], margin=a.get("margin", 1.0), swap=a.get("swap", False), reduction=_r(a)),
}

NOGRAD = {"hinge_embedding_loss": (1,), "soft_margin_loss": (1,), "cosine_embedding_loss": (2,),
          "multi_margin_loss": (2,)}
REDUCTIONS = ("none", "mean", "sum")


def signs(shape):
    return torch.where(smooth(shape) > 0, 1.0, -1.0).to(torch.float64)


def idx(values):
    return torch.tensor(values, dtype=torch.int64)


def main():
    fx = Fixture(OPS, differentiable=OPS.keys())

    def case(name, op, xs, **kw):
        c = fx.case(name, op, xs, **kw)
        if "grads" in c:
            for k in NOGRAD.get(op, ()):
                if k < len(c["grads"]):
                    c["grads"][k] = None
        return c

    def f32(xs):
        return [x.float() if x is not None and x.is_floating_point() else x for x in xs]

    # kl_div
    logp = torch.log_softmax(smooth([3, 4]), 1)
    q = torch.softmax(smooth([3, 4]), 1)
    for r in REDUCTIONS + ("batchmean",):
        case("kl_div %s" % r, "kl_div", [logp, q], reduction=r)
    case("kl_div log_target", "kl_div", [logp, torch.log(q)], log_target=True, reduction="sum")
    case("kl_div log_target batchmean", "kl_div", [logp, torch.log(q)], log_target=True, reduction="batchmean")
    case("kl_div broadcast target", "kl_div", [logp, q[0]], reduction="none")
    case("kl_div 0-dim batchmean", "kl_div", [logp[0, 0], q[0, 0]], reduction="batchmean")
    case("kl_div float32 zero and negative target", "kl_div",
         f32([logp[0], torch.tensor([0.5, 0.0, -0.25, 0.75], dtype=torch.float64)]), reduction="none")
    case("kl_div float32", "kl_div", f32([logp, q]), reduction="mean")

    # poisson_nll_loss
    counts = smooth([3, 4], lo=0.0, hi=4.0)
    for r in REDUCTIONS:
        case("poisson_nll_loss %s" % r, "poisson_nll_loss", [smooth([3, 4]), counts], reduction=r)
    case("poisson_nll_loss full", "poisson_nll_loss", [smooth([3, 4]), counts + 0.1], full=True, reduction="none")
    case("poisson_nll_loss rate", "poisson_nll_loss", [smooth([3, 4], lo=0.1, hi=3.0), counts], log_input=False,
         eps=1e-4, reduction="sum")
    case("poisson_nll_loss rate full", "poisson_nll_loss", [smooth([3, 4], lo=0.1, hi=3.0), counts + 0.1],
         log_input=False, full=True)
    case("poisson_nll_loss float32", "poisson_nll_loss", f32([smooth([3, 4]), counts]), full=True)

    # gaussian_nll_loss
    mu, y = smooth([3, 4]), smooth([3, 4])
    for r in REDUCTIONS:
        case("gaussian_nll_loss %s" % r, "gaussian_nll_loss", [mu, y, smooth([3, 4], lo=0.2, hi=2.0)], reduction=r)
    case("gaussian_nll_loss full", "gaussian_nll_loss", [mu, y, smooth([3, 4], lo=0.2, hi=2.0)], full=True)
    case("gaussian_nll_loss var without last dim", "gaussian_nll_loss", [mu, y, smooth([3], lo=0.2, hi=2.0)],
         reduction="none")
    case("gaussian_nll_loss var last dim 1", "gaussian_nll_loss", [mu, y, smooth([3, 1], lo=0.2, hi=2.0)],
         reduction="sum")
    case("gaussian_nll_loss broadcast target", "gaussian_nll_loss", [mu, y[0], smooth([3, 4], lo=0.2, hi=2.0)],
         reduction="none")
    case("gaussian_nll_loss var clamped", "gaussian_nll_loss",
         [mu[0], y[0], torch.tensor([0.0, 1e-3, 0.5, 2.0], dtype=torch.float64)], eps=1e-2, reduction="none",
         gradcheck=False)
    case("gaussian_nll_loss float32", "gaussian_nll_loss", f32([mu, y, smooth([3, 4], lo=0.2, hi=2.0)]))
    fx.error("gaussian_nll_loss var size", "gaussian_nll_loss", [mu, y, smooth([3, 2])], "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("gaussian_nll_loss negative var", "gaussian_nll_loss", [mu, y, -torch.ones(3, 4, dtype=torch.float64)],
             "GLIA_ERR_INVALID_ARGUMENT")

    # margin_ranking_loss
    a1, a2, lab = smooth([6]), smooth([6]), signs([6])
    for r in REDUCTIONS:
        case("margin_ranking_loss %s" % r, "margin_ranking_loss", [a1, a2, lab], margin=0.3, reduction=r)
    case("margin_ranking_loss broadcast", "margin_ranking_loss", [smooth([3, 4]), smooth([1, 4]), signs([3, 1])],
         reduction="none")
    case("margin_ranking_loss float32", "margin_ranking_loss", f32([a1, a2, lab]), margin=-0.2)
    fx.error("margin_ranking_loss dims", "margin_ranking_loss", [a1, a2.reshape(6, 1), lab], "GLIA_ERR_SHAPE")
    fx.errors[-1]["message"] = fx.errors[-1]["message"].split(" input1:")[0]  # torch prints torch.Size(...)

    # hinge_embedding_loss
    hx, hy = smooth([3, 4]), signs([3, 4])
    for r in REDUCTIONS:
        case("hinge_embedding_loss %s" % r, "hinge_embedding_loss", [hx, hy], reduction=r)
    case("hinge_embedding_loss margin", "hinge_embedding_loss", [hx, hy], margin=0.5, reduction="sum")
    case("hinge_embedding_loss broadcast", "hinge_embedding_loss", [hx, hy[0]], margin=1.5, reduction="none")
    case("hinge_embedding_loss other labels", "hinge_embedding_loss",
         [hx[0], torch.tensor([1.0, -1.0, 0.0, 2.0], dtype=torch.float64)], reduction="none")
    case("hinge_embedding_loss float32", "hinge_embedding_loss", f32([hx, hy]))

    # soft_margin_loss
    for r in REDUCTIONS:
        case("soft_margin_loss %s" % r, "soft_margin_loss", [hx, hy], reduction=r)
    case("soft_margin_loss broadcast target", "soft_margin_loss", [hx, hy[0]], reduction="none")
    case("soft_margin_loss float32", "soft_margin_loss", f32([hx, hy]))
    fx.error("soft_margin_loss broadcast input", "soft_margin_loss", [hx[0], hy], "GLIA_ERR_SHAPE")

    # multilabel_soft_margin_loss
    ml = (smooth([3, 4]) > 0).to(torch.float64)
    for r in REDUCTIONS:
        case("multilabel_soft_margin_loss %s" % r, "multilabel_soft_margin_loss", [hx, ml], reduction=r)
    case("multilabel_soft_margin_loss weight", "multilabel_soft_margin_loss",
         [hx, smooth([3, 4], lo=0.0, hi=1.0), smooth([4], lo=0.5, hi=1.5)], reduction="none")
    case("multilabel_soft_margin_loss 1-d", "multilabel_soft_margin_loss", [hx[0], ml[0]], reduction="sum")
    case("multilabel_soft_margin_loss large logits", "multilabel_soft_margin_loss",
         [torch.tensor([[-30.0, -8.0, 8.0, 30.0]], dtype=torch.float64), ml[:1]], reduction="none")
    case("multilabel_soft_margin_loss float32", "multilabel_soft_margin_loss", f32([hx, ml]))

    # cosine_embedding_loss
    c1, c2, cl = smooth([4, 5]), smooth([4, 5]), signs([4])
    for r in REDUCTIONS:
        case("cosine_embedding_loss %s" % r, "cosine_embedding_loss", [c1, c2, cl], margin=0.2, reduction=r)
    case("cosine_embedding_loss 1-d", "cosine_embedding_loss", [c1[0], c2[0], cl[0]], reduction="none")
    case("cosine_embedding_loss 1-d negative", "cosine_embedding_loss", [c1[0], c2[0], -torch.ones(())
                                                                         .to(torch.float64)], margin=-0.5)
    case("cosine_embedding_loss float32", "cosine_embedding_loss", f32([c1, c2, cl]))
    fx.error("cosine_embedding_loss target 2-d", "cosine_embedding_loss", [c1, c2, cl.reshape(4, 1)],
             "GLIA_ERR_SHAPE")
    fx.error("cosine_embedding_loss target 0-d", "cosine_embedding_loss", [c1, c2, cl[0]], "GLIA_ERR_SHAPE")
    fx.error("cosine_embedding_loss input 3-d", "cosine_embedding_loss", [c1.reshape(4, 5, 1), c2.reshape(4, 5, 1),
                                                                          cl], "GLIA_ERR_SHAPE")

    # multi_margin_loss
    mx, mt = smooth([4, 5]), idx([0, 3, 4, 1])
    mw = smooth([5], lo=0.5, hi=1.5)
    for r in REDUCTIONS:
        case("multi_margin_loss %s" % r, "multi_margin_loss", [mx, mt], reduction=r)
    case("multi_margin_loss p2 margin", "multi_margin_loss", [mx, mt], p=2, margin=0.7, reduction="none")
    case("multi_margin_loss weight", "multi_margin_loss", [mx, mt, mw], reduction="sum")
    case("multi_margin_loss p2 weight", "multi_margin_loss", [mx, mt, mw], p=2)
    case("multi_margin_loss 1-d", "multi_margin_loss", [mx[0], idx([2])], reduction="none")
    case("multi_margin_loss 1-d 0-dim target", "multi_margin_loss", [mx[0], idx(2)], reduction="none")
    case("multi_margin_loss float32", "multi_margin_loss", f32([mx, mt, mw]), p=2)
    fx.error("multi_margin_loss p", "multi_margin_loss", [mx, mt], "GLIA_ERR_INVALID_ARGUMENT", p=3)
    fx.error("multi_margin_loss weight 2-d", "multi_margin_loss", [mx, mt, mw.reshape(5, 1)],
             "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("multi_margin_loss target size", "multi_margin_loss", [mx, mt[:2]], "GLIA_ERR_SHAPE")
    fx.error("multi_margin_loss target range", "multi_margin_loss", [mx, idx([0, 5, 1, 1])],
             "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("multi_margin_loss negative target", "multi_margin_loss", [mx, idx([0, -1, 1, 1])],
             "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("multi_margin_loss float target", "multi_margin_loss", [mx, mt.to(torch.float64)], "GLIA_ERR_DTYPE")
    fx.error("multi_margin_loss 3-d", "multi_margin_loss", [mx.reshape(2, 2, 5), mt[:2]], "GLIA_ERR_SHAPE")

    # multilabel_margin_loss
    lx = smooth([3, 5])
    lt = idx([[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [0, 1, 2, 3, 4]])
    for r in REDUCTIONS:
        case("multilabel_margin_loss %s" % r, "multilabel_margin_loss", [lx, lt], reduction=r)
    case("multilabel_margin_loss no target", "multilabel_margin_loss", [lx[:1], idx([[-1, 2, 3, 0, 0]])],
         reduction="none")
    case("multilabel_margin_loss repeated target", "multilabel_margin_loss", [lx[:1], idx([[2, 2, 4, -1, 0]])],
         reduction="none")
    case("multilabel_margin_loss 1-d", "multilabel_margin_loss", [lx[0], idx([4, 1, -1, 0, 0])], reduction="none")
    case("multilabel_margin_loss float32", "multilabel_margin_loss", f32([lx, lt]))
    fx.error("multilabel_margin_loss target size", "multilabel_margin_loss", [lx, lt[:, :4]], "GLIA_ERR_SHAPE")
    fx.error("multilabel_margin_loss target range", "multilabel_margin_loss", [lx, lt + 1],
             "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("multilabel_margin_loss target below -1", "multilabel_margin_loss", [lx, lt - 1],
             "GLIA_ERR_INVALID_ARGUMENT")
    fx.error("multilabel_margin_loss float target", "multilabel_margin_loss", [lx, lt.to(torch.float64)],
             "GLIA_ERR_DTYPE")
    fx.error("multilabel_margin_loss 3-d", "multilabel_margin_loss", [lx.reshape(3, 5, 1), lt.reshape(3, 5, 1)],
             "GLIA_ERR_SHAPE")

    # triplet_margin_loss and triplet_margin_with_distance_loss (the default distance; the host
    # callback is tested in tests/ops/loss_extra_test.cpp)
    ta, tp, tn = smooth([4, 6]), smooth([4, 6]), smooth([4, 6])
    for r in REDUCTIONS:
        case("triplet_margin_loss %s" % r, "triplet_margin_loss", [ta, tp, tn], reduction=r)
        case("triplet_margin_with_distance_loss %s" % r, "triplet_margin_with_distance_loss", [ta, tp, tn],
             reduction=r)
    case("triplet_margin_loss p1 swap", "triplet_margin_loss", [ta, tp, tn], p=1.0, swap=True, margin=2.0,
         reduction="none")
    case("triplet_margin_loss p3 eps", "triplet_margin_loss", [ta, tp, tn], p=3.0, eps=1e-3, margin=0.5)
    case("triplet_margin_loss 1-d", "triplet_margin_loss", [ta[0], tp[0], tn[0]], margin=3.0, reduction="none")
    case("triplet_margin_loss float32", "triplet_margin_loss", f32([ta, tp, tn]), swap=True)
    case("triplet_margin_with_distance_loss swap", "triplet_margin_with_distance_loss", [ta, tp, tn], swap=True,
         margin=2.0, reduction="none")
    case("triplet_margin_with_distance_loss float32", "triplet_margin_with_distance_loss", f32([ta, tp, tn]),
         margin=0.5)
    fx.error("triplet_margin_loss dims", "triplet_margin_loss", [ta, tp, tn[0]], "GLIA_ERR_SHAPE")

    assert gen is not None
    fx.write("loss_extra.json")


def enc(t):
    t = t.detach()
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


def modules():
    """One line per case: (module name, constructor args, torch module, inputs)."""
    x, y, z = smooth([3, 4]), smooth([3, 4]), smooth([3, 4])
    pos = smooth([3, 4], lo=0.2, hi=2.0)
    lab = signs([3])
    w4 = smooth([4], lo=0.5, hi=1.5)
    cls = idx([0, 3, 1])
    mlt = idx([[2, 0, -1, 1], [1, -1, 0, 0], [3, 2, 1, -1]])
    logp, q = torch.log_softmax(x, 1), torch.softmax(y, 1)
    specs = [
        ("kl_div_loss", {"reduction": "batchmean", "log_target": False}, nn.KLDivLoss(reduction="batchmean"),
         [logp, q]),
        ("kl_div_loss", {"reduction": "sum", "log_target": True}, nn.KLDivLoss(reduction="sum", log_target=True),
         [logp, torch.log(q)]),
        ("poisson_nll_loss", {"log_input": True, "full": False, "eps": 1e-8, "reduction": "mean"}, nn.PoissonNLLLoss(),
         [x, pos]),
        ("poisson_nll_loss", {"log_input": False, "full": True, "eps": 1e-3, "reduction": "none"},
         nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-3, reduction="none"), [pos, pos * 2]),
        ("gaussian_nll_loss", {"full": True, "eps": 1e-6, "reduction": "mean"}, nn.GaussianNLLLoss(full=True),
         [x, y, pos]),
        ("gaussian_nll_loss", {"full": False, "eps": 0.5, "reduction": "none"},
         nn.GaussianNLLLoss(eps=0.5, reduction="none"), [x, y, pos[:, 0]]),
        ("margin_ranking_loss", {"margin": 0.25, "reduction": "mean"}, nn.MarginRankingLoss(margin=0.25),
         [x[:, 0], y[:, 0], lab]),
        ("hinge_embedding_loss", {"margin": 1.0, "reduction": "sum"}, nn.HingeEmbeddingLoss(reduction="sum"),
         [x, signs([3, 4])]),
        ("soft_margin_loss", {"reduction": "mean"}, nn.SoftMarginLoss(), [x, signs([3, 4])]),
        ("multilabel_soft_margin_loss", {"reduction": "none", "weight": True},
         nn.MultiLabelSoftMarginLoss(weight=w4, reduction="none"), [x, (y > 0).to(torch.float64)]),
        ("multilabel_soft_margin_loss", {"reduction": "mean"}, nn.MultiLabelSoftMarginLoss(),
         [x, (y > 0).to(torch.float64)]),
        ("cosine_embedding_loss", {"margin": 0.1, "reduction": "sum"},
         nn.CosineEmbeddingLoss(margin=0.1, reduction="sum"), [x, y, lab]),
        ("multi_margin_loss", {"p": 2, "margin": 0.5, "reduction": "mean", "weight": True},
         nn.MultiMarginLoss(p=2, margin=0.5, weight=w4), [x, cls]),
        ("multi_margin_loss", {"p": 1, "margin": 1.0, "reduction": "none"}, nn.MultiMarginLoss(reduction="none"),
         [x, cls]),
        ("multilabel_margin_loss", {"reduction": "mean"}, nn.MultiLabelMarginLoss(), [x, mlt]),
        ("triplet_margin_loss", {"margin": 0.5, "p": 1.0, "eps": 1e-6, "swap": True, "reduction": "none"},
         nn.TripletMarginLoss(margin=0.5, p=1, swap=True, reduction="none"), [x, y, z]),
        ("triplet_margin_with_distance_loss", {"margin": 2.0, "swap": False, "reduction": "sum"},
         nn.TripletMarginWithDistanceLoss(margin=2.0, reduction="sum"), [x, y, z]),
    ]
    out = []
    for name, args, m, xs in specs:
        for dname, dtype in (("float64", torch.float64), ("float32", torch.float32)):
            m = m.to(dtype)
            ins = [t.to(dtype) if t.is_floating_point() else t for t in xs]
            ins[0] = ins[0].clone().requires_grad_()
            y = m(*ins)
            w = smooth(list(y.shape)).to(dtype)
            (y * w).sum().backward()
            out.append({"name": "%s_%s_%d" % (name, dname, len(out)), "module": name, "args": args, "dtype": dname,
                        "repr": repr(m), "keys": list(m.state_dict().keys()),
                        "buffers": {k: enc(v) for k, v in m.named_buffers()},
                        "inputs": [enc(t) for t in ins], "w": enc(w), "out": enc(y), "grad_input": enc(ins[0].grad)})
    return out


if __name__ == "__main__":
    main()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "modules", "loss_extra.json"), "w") as f:
        json.dump({"losses": modules()}, f, separators=(",", ":"))
        f.write("\n")
