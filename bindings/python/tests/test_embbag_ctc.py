"""EmbeddingBag, Embedding's scale_grad_by_freq, CTCLoss and AdaptiveLogSoftmaxWithLoss (issue 21) against
torch 1.13's values (golden/gen_embbag_ctc_golden.py): forwards, gradients, reprs, state-dict keys, torch's
exception types and messages."""

import json
import os

import numpy as np
import pytest

import glia
from glia import nn
import glia.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden", "embbag_ctc_golden.json")) as f:
    G = json.load(f)


def pattern(shape, phase=0.0, scale=1.0):
    n = int(np.prod(shape))
    return (np.cos(np.arange(n) * 1.7 + phase) * scale).reshape(shape)


def close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got.detach().numpy()).ravel(), np.asarray(want, dtype=float), rtol=rtol,
                               atol=atol)


def test_embedding_bag_functional_matches_torch():
    for c in G["embedding_bag"]:
        w = glia.tensor(pattern([6, 4]), requires_grad=True)
        inp = glia.tensor(np.array(c["input"]))
        off = None if c["offsets"] is None else glia.tensor(np.array(c["offsets"]))
        psw = glia.tensor(pattern(list(np.shape(c["input"])), 0.3), requires_grad=True) if c["psw"] else None
        kw = dict(c["kwargs"])
        wc = w.clone() if "max_norm" in kw else w
        y = F.embedding_bag(inp, wc, off, per_sample_weights=psw, **kw)
        assert list(y.shape) == c["y_shape"], c["name"]
        close(y, c["y"])
        (y * glia.tensor(pattern(c["y_shape"], 1.1))).sum().backward()
        close(w.grad, c["grad_weight"])
        if c["psw"]:
            close(psw.grad, c["grad_psw"])
        close(wc, c["weight_after"])
        assert y.grad_fn.name() == "EmbeddingBagBackward0"


def test_embedding_bag_module_from_pretrained_and_repr():
    c = G["embedding_bag"][0]
    m = nn.EmbeddingBag.from_pretrained(glia.tensor(pattern([6, 4])))
    assert not m.weight.requires_grad
    close(m(glia.tensor(np.array(c["input"])), glia.tensor(np.array(c["offsets"]))), c["y"])
    m2 = nn.EmbeddingBag.from_pretrained(glia.tensor(pattern([6, 4])), freeze=False, mode="sum")
    assert m2.weight.requires_grad
    for ctor, text in G["reprs"].items():
        assert repr(eval("nn." + ctor)) == text, ctor  # noqa: S307 - the generator's constructor calls
    m3 = nn.EmbeddingBag(10, 3, padding_idx=2)
    assert list(m3.state_dict()) == ["weight"]
    assert np.all(m3.weight.detach().numpy()[2] == 0)
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        nn.EmbeddingBag(10, 3, padding_idx=10)


def test_embedding_bag_python_errors():
    w = glia.tensor(pattern([5, 3]))
    i = glia.tensor(np.array([0, 2, 1, 4]))
    o = glia.tensor(np.array([0, 2]))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(i, w, o, mode="min")
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(i, w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(i.reshape(2, 2), w, o)
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient by the frequency"):
        F.embedding_bag(i, w, o, mode="max", scale_grad_by_freq=True)
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(i, w, o, per_sample_weights=glia.ones(4, dtype=glia.float64))
    with pytest.raises(RuntimeError, match=r"offsets\[0\] has to be 0"):
        F.embedding_bag(i, w, glia.tensor(np.array([1, 2])))
    # A failed call leaves weight unchanged, max_norm or not.
    before = w.numpy().copy()
    with pytest.raises(RuntimeError, match="found idx to be 9"):
        F.embedding_bag(glia.tensor(np.array([0, 9])), w, glia.tensor(np.array([0])), max_norm=0.1)
    np.testing.assert_array_equal(w.numpy(), before)


def test_embedding_scale_grad_by_freq():
    e = G["embedding_freq"]
    w = glia.tensor(pattern([5, 3]), requires_grad=True)
    y = F.embedding(glia.tensor(np.array(e["input"])), w, scale_grad_by_freq=True)
    close(y, e["y"])
    (y * glia.tensor(pattern(list(y.shape), 0.5))).sum().backward()
    close(w.grad, e["grad_weight"])
    m = nn.Embedding(5, 3, scale_grad_by_freq=True, dtype=glia.float64)
    assert repr(m) == e["repr"]
    m.load_state_dict({"weight": glia.tensor(pattern([5, 3]))})
    y = m(glia.tensor(np.array(e["input"])))
    (y * glia.tensor(pattern(list(y.shape), 0.5))).sum().backward()
    close(m.weight.grad, e["grad_weight"])
    fp = nn.Embedding.from_pretrained(glia.tensor(pattern([5, 3])))
    assert not fp.weight.requires_grad
    close(fp.weight, pattern([5, 3]).ravel())


def test_ctc_loss_matches_torch():
    d = G["ctc"]
    for c in d["cases"]:
        for module in (False, True):
            x = glia.tensor(np.array(d["x"]).reshape(d["x_shape"]), requires_grad=True)
            lp = F.log_softmax(x, 2)
            tg = glia.tensor(np.array(c["targets"]))
            il, tl = c["input_lengths"], c["target_lengths"]
            if c["tensors"]:
                il, tl = glia.tensor(np.array(il)), glia.tensor(np.array(tl))
            if module:
                y = nn.CTCLoss(**c["kwargs"])(lp, tg, il, tl)
            else:
                y = F.ctc_loss(lp, tg, il, tl, **c["kwargs"])
            assert list(y.shape) == c["y_shape"], c["name"]
            close(y, c["y"], rtol=1e-9)
            (y * glia.tensor(pattern(c["y_shape"], 0.7))).sum().backward()
            close(x.grad, c["grad"], rtol=1e-8, atol=1e-10)


def test_ctc_loss_errors_and_node():
    lp = F.log_softmax(glia.tensor(pattern([6, 2, 4])), 2).requires_grad_()
    tg = glia.tensor(np.array([[1, 2, 2], [3, 1, 0]]))
    y = F.ctc_loss(lp, tg, [6, 5], [3, 2], reduction="none")
    assert y.grad_fn.name() == "CtcLossBackward0"
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp, tg, [6, 5], [3, 2], blank=4)
    with pytest.raises(RuntimeError, match="input_lengths must be integral"):
        F.ctc_loss(lp, tg, glia.tensor(np.array([6.0, 5.0])), glia.tensor(np.array([3, 2])))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.ctc_loss(lp, tg, [6, 5], [3, 2], reduction="foo")
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 6, but got value 7"):
        F.ctc_loss(lp, tg, [7, 5], [3, 2])


def _asm():
    a = G["asm"]
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 12, [4, 8], div_value=2.0, head_bias=True, dtype=glia.float64)
    m.load_state_dict({k: glia.tensor(np.array(v["values"]).reshape(v["shape"])) for k, v in a["state_dict"].items()})
    return a, m


def test_adaptive_log_softmax_matches_torch():
    a, m = _asm()
    assert list(m.state_dict()) == a["keys"]
    assert repr(m) == a["repr"]
    x = glia.tensor(np.array(a["x"]).reshape(a["x_shape"]), requires_grad=True)
    r = m(x, glia.tensor(np.array(a["target"])))
    assert type(r).__name__ == "_ASMoutput" and r._fields == ("output", "loss")
    close(r.output, a["output"])
    assert float(r.loss) == pytest.approx(a["loss"], rel=1e-12)
    r.loss.backward()
    close(x.grad, a["grad_x"])
    for k, p in m.named_parameters():
        close(p.grad, a["grads"][k])
    xd = x.detach()
    close(m.log_prob(xd), a["log_prob"])
    assert m.predict(xd).tolist() == a["predict"]
    assert m.predict(xd * 5).tolist() == a["predict_scaled"]
    single = m(glia.tensor(np.array(a["xs"])), glia.tensor(np.array(9)))
    assert float(single.output) == pytest.approx(a["single_output"], rel=1e-12)
    assert float(single.loss) == pytest.approx(a["single_loss"], rel=1e-12)


def test_adaptive_log_softmax_errors():
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 12, [8, 4])
    a, m = _asm()
    x = glia.tensor(np.array(a["x"]).reshape(a["x_shape"]))
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 11\]"):
        m(x, glia.tensor(np.array([0, 5, 12, 3, 8, 6])))
    with pytest.raises(RuntimeError, match="Input and target should have the same size in the batch dimension."):
        m(x, glia.tensor(np.array([0, 5])))
