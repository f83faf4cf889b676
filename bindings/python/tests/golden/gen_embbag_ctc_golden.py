"""Golden values of EmbeddingBag, Embedding's scale_grad_by_freq, CTCLoss and AdaptiveLogSoftmaxWithLoss
(issue 21) for test_embbag_ctc.py: forwards, gradients, reprs, state-dict keys. Deterministic inputs
(linspace and cos patterns).

Run: /usr/bin/python3 bindings/python/tests/golden/gen_embbag_ctc_golden.py  (torch 1.13) -> embbag_ctc_golden.json
"""

import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
f64 = torch.float64


def pattern(shape, phase=0.0, scale=1.0):
    n = 1
    for s in shape:
        n *= s
    return (torch.cos(torch.arange(n, dtype=f64) * 1.7 + phase) * scale).reshape(shape)


def flat(t):
    return t.detach().reshape(-1).tolist()


def embedding_bag_cases():
    cases = []
    configs = [
        ("1-D mean", [0, 2, 1, 5, 5, 3, 0], [0, 2, 2, 5], {}),
        ("1-D sum", [0, 2, 1, 5, 5, 3, 0], [0, 2, 2, 5], {"mode": "sum"}),
        ("1-D max", [0, 2, 1, 5, 5, 3, 0], [0, 2, 2, 5], {"mode": "max"}),
        ("2-D sum", [[0, 5, 2], [1, 1, 3]], None, {"mode": "sum"}),
        ("include_last_offset", [0, 2, 1, 5, 5, 3, 0], [0, 3, 3, 7], {"mode": "mean", "include_last_offset": True}),
        ("padding_idx", [2, 2, 1, 4, 2, 0], [0, 2, 4], {"mode": "mean", "padding_idx": 2}),
        ("per_sample_weights", [0, 2, 1, 5, 5, 3, 0], [0, 2, 2, 5], {"mode": "sum", "psw": True}),
        ("scale_grad_by_freq", [1, 1, 3, 1, 0, 3], [0, 1, 4], {"mode": "sum", "scale_grad_by_freq": True}),
        ("max_norm", [0, 2, 1, 3], [0, 2], {"mode": "sum", "max_norm": 1.0}),
    ]
    for name, idx, off, kw in configs:
        w = pattern([6, 4]).requires_grad_()
        inp = torch.tensor(idx)
        offsets = None if off is None else torch.tensor(off)
        psw = pattern(list(inp.shape), 0.3).requires_grad_() if kw.get("psw") else None
        args = {k: v for k, v in kw.items() if k != "psw"}
        wc = w.clone() if "max_norm" in args else w
        y = F.embedding_bag(inp, wc, offsets, per_sample_weights=psw, **args)
        g = pattern(list(y.shape), 1.1)
        (y * g).sum().backward()
        cases.append({"name": name, "input": idx, "offsets": off, "kwargs": args, "psw": kw.get("psw", False),
                      "y_shape": list(y.shape), "y": flat(y), "grad_weight": flat(w.grad),
                      "grad_psw": flat(psw.grad) if psw is not None else None,
                      "weight_after": flat(wc)})
    return cases


def embedding_freq():
    w = pattern([5, 3]).requires_grad_()
    idx = torch.tensor([[1, 1, 3], [1, 0, 3]])
    y = F.embedding(idx, w, scale_grad_by_freq=True)
    (y * pattern(list(y.shape), 0.5)).sum().backward()
    return {"input": idx.tolist(), "y": flat(y), "grad_weight": flat(w.grad),
            "repr": repr(nn.Embedding(5, 3, scale_grad_by_freq=True))}


def ctc_cases():
    cases = []
    lp0 = pattern([7, 3, 5], 0.2, 2.0)
    configs = [
        ("padded mean lists", [[1, 2, 2], [3, 1, 0], [4, 4, 1]], [7, 6, 5], [3, 2, 3], {}),
        ("padded sum tensors", [[1, 2, 2], [3, 1, 0], [4, 4, 1]], [7, 6, 5], [3, 2, 3], {"reduction": "sum"}),
        ("concatenated none", [1, 2, 2, 3, 1, 4, 4, 1], [7, 6, 5], [3, 2, 3], {"reduction": "none"}),
        ("blank 4", [[0, 1, 1], [2, 0, 0], [3, 3, 3]], [7, 7, 6], [3, 1, 2], {"blank": 4, "reduction": "none"}),
        ("zero_infinity", [[1, 1, 1], [2, 0, 0], [3, 3, 3]], [3, 7, 4], [3, 1, 2],
         {"zero_infinity": True, "reduction": "mean"}),
    ]
    for name, tg, il, tl, kw in configs:
        x = lp0.clone().requires_grad_()
        lp = F.log_softmax(x, 2)
        use_tensors = "tensors" in name
        y = F.ctc_loss(lp, torch.tensor(tg), torch.tensor(il) if use_tensors else il,
                       torch.tensor(tl) if use_tensors else tl, **kw)
        (y * pattern(list(y.shape), 0.7)).sum().backward()
        cases.append({"name": name, "targets": tg, "input_lengths": il, "target_lengths": tl, "kwargs": kw,
                      "tensors": use_tensors, "y_shape": list(y.shape), "y": flat(y), "grad": flat(x.grad)})
    return {"x": flat(lp0), "x_shape": list(lp0.shape), "cases": cases}


def asm():
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 12, [4, 8], div_value=2.0, head_bias=True).double()
    sd = {}
    for i, (k, v) in enumerate(m.state_dict().items()):
        sd[k] = pattern(list(v.shape), 0.1 * i, 0.5)
    m.load_state_dict(sd)
    x = pattern([6, 8], 0.9).requires_grad_()
    target = torch.tensor([0, 5, 11, 3, 8, 6])
    out, loss = m(x, target)
    loss.backward()
    xs = pattern([8], 1.3)
    single = m(xs, torch.tensor(9))
    return {"state_dict": {k: {"shape": list(v.shape), "values": flat(v)} for k, v in sd.items()},
            "keys": list(m.state_dict().keys()), "repr": repr(m), "x": flat(x), "x_shape": list(x.shape),
            "target": target.tolist(), "output": flat(out), "loss": loss.item(), "grad_x": flat(x.grad),
            "grads": {k: flat(p.grad) for k, p in m.named_parameters()},
            "log_prob": flat(m.log_prob(x)), "predict": m.predict(x).tolist(),
            "predict_scaled": m.predict(x * 5).tolist(),
            "single_output": single.output.item(), "single_loss": single.loss.item(), "xs": flat(xs)}


def reprs():
    out = {}
    for ctor in ["EmbeddingBag(10, 3)", "EmbeddingBag(10, 3, mode='sum', padding_idx=-2)",
                 "EmbeddingBag(10, 3, max_norm=1.5, norm_type=3.0, scale_grad_by_freq=True, mode='max')",
                 "CTCLoss()", "CTCLoss(blank=2, reduction='sum', zero_infinity=True)"]:
        out[ctor] = repr(eval("nn." + ctor))  # noqa: S307
    return out


def main():
    torch.manual_seed(0)
    data = {"embedding_bag": embedding_bag_cases(), "embedding_freq": embedding_freq(), "ctc": ctc_cases(),
            "asm": asm(), "reprs": reprs()}
    with open(os.path.join(here, "embbag_ctc_golden.json"), "w") as f:
        json.dump(data, f, indent=0)


if __name__ == "__main__":
    main()
