#!/usr/bin/python3
"""Golden fixtures of EmbeddingBag, Embedding's scale_grad_by_freq and the CTC loss (issue 21, torch 1.13):

  ops/embbag_ctc.json  embedding_bag, embedding_ex (embedding with scale_grad_by_freq), ctc_loss
                       (format: golden.py)

Inputs and arguments:
  embedding_bag: [weight, input, offsets or null, per_sample_weights or null]; args mode, max_norm,
        norm_type, scale_grad_by_freq, include_last_offset, padding_idx. With max_norm the second
        output is weight after its in-place renormalisation.
  embedding_ex: [weight, indices]; args padding_idx, max_norm, norm_type, scale_grad_by_freq.
  ctc_loss: [log_probs, targets]; args input_lengths, target_lengths (lists), blank, reduction,
        zero_infinity, log_softmax (true: the op runs on log_softmax(log_probs, -1), so that the
        finite-difference check applies: torch's ctc gradient assumes a log_softmax input).

One case per line; append new cases at the end (inputs come from one seeded generator).

    cd tests/golden && /usr/bin/python3 gen_embbag_ctc.py
"""

import json
import os
import warnings

import torch
import torch.nn.functional as F

from golden import Fixture, T

HERE = os.path.dirname(os.path.abspath(__file__))
f64, f32 = torch.float64, torch.float32
IA, SH, DT, UN = "GLIA_ERR_INVALID_ARGUMENT", "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE", "GLIA_ERR_UNSUPPORTED"

warnings.simplefilter("ignore")
g = torch.Generator().manual_seed(2113)


def sm(shape, dtype=f64, lo=-2.0, hi=2.0):
    return (torch.rand(list(shape), generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def ints(vals):
    return torch.tensor(vals, dtype=torch.int64)


def _embedding_bag(xs, a):
    w, inp, off, psw = (xs + [None, None])[:4]
    renorm = a.get("max_norm") is not None
    if renorm:
        w = w.clone()  # renormalised in place: keep the fixture's input intact
    y = F.embedding_bag(inp, w, off, max_norm=a.get("max_norm"), norm_type=float(a.get("norm_type", 2.0)),
                        scale_grad_by_freq=a.get("scale_grad_by_freq", False), mode=a.get("mode", "mean"),
                        per_sample_weights=psw, include_last_offset=a.get("include_last_offset", False),
                        padding_idx=a.get("padding_idx"))
    return (y, w.detach().clone()) if renorm else y


def _embedding_ex(xs, a):
    w, idx = xs
    renorm = a.get("max_norm") is not None
    if renorm:
        w = w.clone()
    y = F.embedding(idx, w, padding_idx=a.get("padding_idx"), max_norm=a.get("max_norm"),
                    norm_type=float(a.get("norm_type", 2.0)), scale_grad_by_freq=a.get("scale_grad_by_freq", False))
    return (y, w.detach().clone()) if renorm else y


def _ctc_loss(xs, a):
    lp, tg = xs
    if a.get("log_softmax"):
        lp = F.log_softmax(lp, -1)
    return F.ctc_loss(lp, tg, a["input_lengths"], a["target_lengths"], blank=a.get("blank", 0),
                      reduction=a.get("reduction", "mean"), zero_infinity=a.get("zero_infinity", False))


OPS = {"embedding_bag": _embedding_bag, "embedding_ex": _embedding_ex, "ctc_loss": _ctc_loss}


class Fx(Fixture):
    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(HERE, "ops", filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n], "errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def main():
    fx = Fx(OPS, OPS.keys())
    c, e = fx.case, fx.error
    eb = "embedding_bag"

    # ---- embedding_bag
    idx = ints([0, 2, 1, 4, 4, 3, 0])
    off = ints([0, 2, 2, 5])  # bags of 2, 0 (empty), 3, 2
    for mode in ("sum", "mean", "max"):
        # max: the gradient goes to the argmax (a kink where rows tie; the smooth draws do not tie).
        c("embedding_bag 1-D offsets %s" % mode, eb, [sm([5, 3]), idx, off], mode=mode)
        c("embedding_bag 2-D %s" % mode, eb, [sm([6, 4]), ints([[0, 5, 2], [1, 1, 3]])], mode=mode)
        c("embedding_bag include_last_offset %s" % mode, eb, [sm([5, 3]), idx, ints([0, 3, 3, 7])],
          mode=mode, include_last_offset=True)
        # The padding row's gradient is zero by definition, not the derivative: no finite differences.
        c("embedding_bag padding_idx %s" % mode, eb, [sm([5, 3]), ints([2, 2, 1, 4, 2, 0]), ints([0, 2, 4])],
          gradcheck=False, mode=mode, padding_idx=2)
        c("embedding_bag f32 %s" % mode, eb, [sm([7, 5], f32), ints([6, 0, 3, 3, 1, 2]), ints([0, 1, 4])],
          mode=mode)
    c("embedding_bag default mode", eb, [sm([5, 3]), idx, off])
    c("embedding_bag per_sample_weights", eb, [sm([5, 3]), idx, off, sm([7])], mode="sum")
    c("embedding_bag per_sample_weights 2-D", eb, [sm([4, 2]), ints([[0, 3], [2, 2], [1, 0]]), None, sm([3, 2])],
      mode="sum")
    c("embedding_bag per_sample_weights padding_idx", eb, [sm([5, 3]), ints([0, 1, 1, 4]), ints([0, 3]), sm([4])],
      gradcheck=False, mode="sum", padding_idx=1)
    c("embedding_bag per_sample_weights f32", eb, [sm([6, 3], f32), ints([5, 0, 2]), ints([0, 1]), sm([3], f32)],
      mode="sum")
    c("embedding_bag negative padding_idx", eb, [sm([5, 3]), ints([4, 0, 4, 1]), ints([0, 2])], gradcheck=False,
      mode="sum", padding_idx=-1)
    # scale_grad_by_freq scales the gradient: not the derivative, no finite differences.
    c("embedding_bag scale_grad_by_freq sum", eb, [sm([5, 3]), ints([1, 1, 3, 1, 0, 3]), ints([0, 4])],
      gradcheck=False, mode="sum", scale_grad_by_freq=True)
    c("embedding_bag scale_grad_by_freq mean", eb, [sm([5, 3]), ints([1, 1, 3, 1, 0, 3]), ints([0, 1, 4])],
      gradcheck=False, mode="mean", scale_grad_by_freq=True)
    c("embedding_bag int32 indices", eb, [sm([5, 3]), idx.int(), off.int()], mode="sum")
    c("embedding_bag int32 input int64 offsets", eb, [sm([5, 3]), idx.int(), off], mode="mean")
    c("embedding_bag transposed weight", eb, [T(sm([6, 3])), ints([0, 5, 2, 2]), ints([0, 1])], mode="mean")
    c("embedding_bag empty input", eb, [sm([4, 3]), ints([]), ints([0, 0])], mode="mean")
    c("embedding_bag empty input max", eb, [sm([4, 3]), ints([]), ints([0])], mode="max")
    c("embedding_bag float16", eb, [sm([5, 4], torch.float16), idx, off], mode="sum")
    w = torch.tensor([[3.0, 4.0], [1.0, 0.0], [6.0, 8.0], [0.3, 0.4]], dtype=f64)
    # Renormalising changes weight in place: the finite-difference check would see it move.
    c("embedding_bag max_norm", eb, [w, ints([0, 2, 1, 3]), ints([0, 2])], gradcheck=False, mode="sum",
      max_norm=2.0)
    c("embedding_bag max_norm norm_type 1 max", eb, [w, ints([0, 2, 1, 2]), ints([0, 3])], gradcheck=False,
      mode="max", max_norm=3.0, norm_type=1.0)
    c("embedding_bag ties max", eb, [torch.tensor([[1.0, 2.0], [1.0, 0.5], [0.0, 2.0]], dtype=f64),
                                     ints([0, 1, 2]), ints([0])], gradcheck=False, mode="max")
    v = sm([5, 3], f32)
    # float64: float32's fast path words these errors differently (a caffe2 enforce).
    e("embedding_bag index too large", eb, [sm([5, 3]), ints([0, 7]), ints([0])], IA)
    e("embedding_bag negative index", eb, [sm([5, 3]), ints([0, -1]), ints([0])], IA)
    e("embedding_bag index too large max", eb, [v, ints([0, 7]), ints([0])], IA, mode="max")
    e("embedding_bag float input", eb, [v, torch.tensor([0.0, 1.0]), ints([0])], DT)
    e("embedding_bag float offsets", eb, [v, ints([0, 1]), torch.tensor([0.0])], DT)
    e("embedding_bag offsets[0] not 0", eb, [v, ints([0, 2, 1, 4]), ints([1, 2])], IA)
    e("embedding_bag last offset too large", eb, [v, ints([0, 2, 1, 4]), ints([0, 5])], IA)
    e("embedding_bag last offset too large include_last", eb, [v, ints([0, 2, 1, 4]), ints([0, 2, 5])], IA,
      include_last_offset=True)
    e("embedding_bag per_sample_weights mean", eb, [v, ints([0, 2]), ints([0]), sm([2], f32)], UN)
    e("embedding_bag per_sample_weights max", eb, [v, ints([0, 2]), ints([0]), sm([2], f32)], UN, mode="max")
    e("embedding_bag per_sample_weights shape", eb, [v, ints([0, 2]), ints([0]), sm([3], f32)], IA, mode="sum")
    e("embedding_bag per_sample_weights dtype", eb, [v, ints([0, 2]), ints([0]), sm([2])], DT, mode="sum")
    e("embedding_bag int weight", eb, [torch.ones(5, 3, dtype=torch.int64), ints([0, 2]), ints([0])], DT)
    e("embedding_bag bfloat16 weight", eb, [v.bfloat16(), ints([0, 2]), ints([0])], DT)
    e("embedding_bag 3-D input", eb, [v, ints([[[0, 1]]])], IA)
    e("embedding_bag 2-D input with offsets", eb, [v, ints([[0, 1]]), ints([0])], IA)
    e("embedding_bag 1-D input without offsets", eb, [v, ints([0, 1])], IA)
    e("embedding_bag 2-D offsets", eb, [v, ints([0, 1]), ints([[0]])], IA)
    e("embedding_bag bad mode", eb, [v, ints([0, 1]), ints([0])], IA, mode="min")
    e("embedding_bag max scale_grad_by_freq", eb, [v, ints([0, 1]), ints([0])], IA, mode="max",
      scale_grad_by_freq=True)
    e("embedding_bag padding_idx too large", eb, [v, ints([0, 1]), ints([0])], IA, padding_idx=5)
    e("embedding_bag padding_idx too small", eb, [v, ints([0, 1]), ints([0])], IA, padding_idx=-6)
    e("embedding_bag zero-width 2-D input", eb, [v, torch.zeros(3, 0, dtype=torch.int64)], IA)

    # ---- embedding_ex (F.embedding's scale_grad_by_freq)
    ex = "embedding_ex"
    c("embedding_ex scale_grad_by_freq", ex, [sm([5, 3]), ints([1, 1, 3, 1, 0, 3])], gradcheck=False,
      scale_grad_by_freq=True)
    c("embedding_ex scale_grad_by_freq 2-D", ex, [sm([6, 2]), ints([[0, 5, 5], [5, 2, 0]])], gradcheck=False,
      scale_grad_by_freq=True)
    c("embedding_ex scale_grad_by_freq padding_idx", ex, [sm([5, 3]), ints([2, 2, 4, 1, 2])], gradcheck=False,
      scale_grad_by_freq=True, padding_idx=2)
    c("embedding_ex scale_grad_by_freq f32", ex, [sm([5, 4], f32), ints([4, 4, 0])], gradcheck=False,
      scale_grad_by_freq=True)
    c("embedding_ex without scale", ex, [sm([5, 3]), ints([1, 1, 3])])
    c("embedding_ex scale_grad_by_freq max_norm", ex, [w, ints([0, 2, 0, 3])], gradcheck=False, max_norm=2.0,
      scale_grad_by_freq=True)
    e("embedding_ex index too large", ex, [sm([3, 2]), ints([0, 3])], IA, scale_grad_by_freq=True)

    # ---- ctc_loss
    ctc = "ctc_loss"
    tg2 = ints([[1, 2, 2], [3, 1, 0]])
    tg1 = ints([1, 2, 2, 3, 1])
    L = {"input_lengths": [6, 5], "target_lengths": [3, 2]}
    for red in ("none", "mean", "sum"):
        c("ctc_loss padded targets %s" % red, ctc, [sm([6, 2, 4]), tg2], log_softmax=True, reduction=red, **L)
        c("ctc_loss concatenated targets %s" % red, ctc, [sm([6, 2, 4]), tg1], log_softmax=True, reduction=red, **L)
    # torch's gradient on log_probs themselves (not the derivative of this function alone).
    c("ctc_loss raw log_probs", ctc, [F.log_softmax(sm([6, 2, 4]), -1), tg2], gradcheck=False, reduction="sum", **L)
    c("ctc_loss raw log_probs none", ctc, [F.log_softmax(sm([5, 3, 5]), -1), ints([[1, 4], [2, 2], [3, 0]])],
      gradcheck=False, reduction="none", input_lengths=[5, 4, 3], target_lengths=[2, 2, 0])
    c("ctc_loss blank 3", ctc, [sm([7, 2, 4]), ints([[0, 1, 1], [2, 0, 0]])], log_softmax=True, blank=3,
      reduction="mean", input_lengths=[7, 6], target_lengths=[3, 1])
    c("ctc_loss repeated labels", ctc, [sm([8, 1, 3]), ints([[1, 1, 2, 2]])], log_softmax=True, reduction="none",
      input_lengths=[8], target_lengths=[4])
    c("ctc_loss empty target", ctc, [sm([4, 2, 3]), ints([[1, 2], [0, 0]])], log_softmax=True, reduction="none",
      input_lengths=[4, 3], target_lengths=[2, 0])
    c("ctc_loss input length 1", ctc, [sm([4, 2, 3]), ints([[1, 2], [1, 0]])], log_softmax=True,
      reduction="none", zero_infinity=True, input_lengths=[4, 1], target_lengths=[2, 1])
    c("ctc_loss impossible", ctc, [sm([3, 2, 3]), ints([[1, 1, 2], [1, 2, 0]])], log_softmax=True, gradcheck=False,
      reduction="none", input_lengths=[3, 3], target_lengths=[3, 2])
    c("ctc_loss impossible zero_infinity", ctc, [sm([3, 2, 3]), ints([[1, 1, 2], [1, 2, 0]])], log_softmax=True,
      reduction="mean", zero_infinity=True, input_lengths=[3, 3], target_lengths=[3, 2])
    c("ctc_loss unbatched", ctc, [sm([6, 4]), ints([1, 3, 3])], log_softmax=True, reduction="none",
      input_lengths=[6], target_lengths=[3])
    c("ctc_loss unbatched mean", ctc, [sm([6, 4]), ints([1, 3])], log_softmax=True, reduction="mean",
      input_lengths=[5], target_lengths=[2])
    c("ctc_loss int32 targets", ctc, [sm([6, 2, 4]), tg2.int()], log_softmax=True, reduction="sum", **L)
    c("ctc_loss transposed log_probs", ctc, [T(sm([6, 2, 4])), tg2], log_softmax=True, reduction="mean", **L)
    c("ctc_loss f32", ctc, [sm([6, 2, 4], f32), tg2], log_softmax=True, reduction="mean", **L)
    c("ctc_loss f32 raw none", ctc, [F.log_softmax(sm([6, 2, 4]), -1).float(), tg1], reduction="none", **L)
    c("ctc_loss long", ctc, [sm([30, 2, 6]), ints([[1, 2, 3, 4, 5, 1, 2, 3], [5, 4, 3, 2, 1, 0, 0, 0]])],
      log_softmax=True, reduction="mean", input_lengths=[30, 25], target_lengths=[8, 5])
    lp = F.log_softmax(sm([6, 2, 4], f32), -1)
    e("ctc_loss blank too large", ctc, [lp, tg2], IA, blank=4, **L)
    e("ctc_loss negative blank", ctc, [lp, tg2], IA, blank=-1, **L)
    e("ctc_loss input_lengths size", ctc, [lp, tg2], IA, input_lengths=[6], target_lengths=[3, 2])
    e("ctc_loss target_lengths size", ctc, [lp, tg2], IA, input_lengths=[6, 5], target_lengths=[3])
    e("ctc_loss input length too large", ctc, [lp, tg2], IA, input_lengths=[7, 5], target_lengths=[3, 2])
    e("ctc_loss padded targets too short", ctc, [lp, tg2], SH, input_lengths=[6, 5], target_lengths=[4, 2])
    e("ctc_loss padded targets rows", ctc, [lp, tg2[:1]], SH, **L)
    e("ctc_loss concatenated targets size", ctc, [lp, ints([1, 2, 2, 3])], SH, **L)
    e("ctc_loss 4-D log_probs", ctc, [lp.unsqueeze(0), tg2], SH, **L)
    e("ctc_loss 3-D targets", ctc, [lp, tg2.view(2, 3, 1)], SH, **L)
    e("ctc_loss int log_probs", ctc, [lp.long(), tg2], DT, **L)
    e("ctc_loss float16 log_probs", ctc, [lp.half(), tg2], DT, **L)
    fx.write("embbag_ctc.json")


if __name__ == "__main__":
    main()
