"""glia.nn's recurrent modules against torch 1.13 through the binding: the golden cases of
tests/golden/modules/rnn.json (tests/golden/gen_rnn.py) called with torch's signatures (hx as a tensor
or an (h, c) pair, outputs as torch's tuples), torch's constructor errors, a torch checkpoint, and an
LSTM language model that learns."""

import json
import math
import os

import numpy as np
import pytest

import glia
from glia import nn

from _repo import ROOT

with open(os.path.join(ROOT, "tests", "golden", "modules", "rnn.json")) as _f:
    FIX = json.load(_f)

_NP = {"float32": np.float32, "float64": np.float64}
_DT = {"float32": glia.float32, "float64": glia.float64}


def T(enc):
    v = np.array([float(x) for x in enc["values"]], dtype=np.float64).astype(_NP[enc["dtype"]])
    return glia.from_numpy(v.reshape(enc["shape"]).copy())


def build(c):
    return getattr(nn, c["module"])(**c["args"], dtype=_DT[c["dtype"]])


def call(m, module, xs):
    """torch's call for the flattened inputs [input, h?, c?]; the outputs flattened back."""
    if module in ("LSTMCell", "LSTM"):
        hx = (xs[1], xs[2]) if len(xs) > 1 and xs[1] is not None else None
    else:
        hx = xs[1] if len(xs) > 1 else None
    out = m(xs[0]) if hx is None else m(xs[0], hx)
    if module in ("RNNCell", "GRUCell"):
        assert isinstance(out, glia.Tensor)
        return [out]
    assert isinstance(out, tuple) and len(out) == 2
    if module == "LSTMCell":
        return list(out)
    if module == "LSTM":
        assert isinstance(out[1], tuple) and len(out[1]) == 2
        return [out[0], out[1][0], out[1][1]]
    return list(out)


def close(t, enc, tol, where):
    assert list(t.shape) == enc["shape"], where
    want = np.array([float(x) for x in enc["values"]]).reshape(enc["shape"])
    got = t.detach().numpy().astype(np.float64)
    assert np.all(np.abs(got - want) <= tol * (1 + np.abs(want))), where


@pytest.mark.parametrize("c", FIX["cases"], ids=[c["name"] for c in FIX["cases"]])
def test_golden(c):
    m = build(c)
    assert repr(m) == c["repr"]
    assert [[k, list(v.shape)] for k, v in m.state_dict().items()] == c["keys"]
    m.load_state_dict({p["name"]: T(p["value"]) for p in c["params"]})
    m.train(c["train"])
    xs = [None if x is None else T(x).requires_grad_() for x in c["inputs"]]
    outs = call(m, c["module"], xs)
    tol = c["tol"]
    for k, (o, want) in enumerate(zip(outs, c["outs"])):
        close(o, want, tol, "out%d" % k)
    loss = None
    for o, w in zip(outs, c["w"]):
        term = (o * T(w)).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    for i, x in enumerate(xs):
        if x is not None:
            close(x.grad, c["grads"]["input%d" % i], tol, "grad input%d" % i)
    for name, p in m.named_parameters():
        close(p.grad, c["grads"][name], tol, "grad " + name)


@pytest.mark.parametrize("e", FIX["errors"], ids=[e["name"] for e in FIX["errors"]])
def test_constructor_errors(e):
    # torch's types: RuntimeError from torch.empty and from RNNCell's nonlinearity (which torch checks at
    # the first call, glia at construction), ValueError from RNNBase's checks.
    runtime = "negative dimension" in e["message"] or e["module"] == "RNNCell"
    with pytest.raises(RuntimeError if runtime else ValueError) as info:
        getattr(nn, e["module"])(**e["args"])
    assert e["message"] in str(info.value)


@pytest.mark.parametrize("e", FIX["forward_errors"], ids=[e["name"] for e in FIX["forward_errors"]])
def test_forward_errors(e):
    m = getattr(nn, e["module"])(**e["args"])
    xs = [None if x is None else T(x) for x in e["inputs"]]
    exc = AssertionError if "Expected input to be 1-D or 2-D" in e["message"] else RuntimeError
    with pytest.raises(exc) as info:
        call(m, e["module"], xs)
    assert e["message"] in str(info.value)


def test_proj_size_keyword_refused_for_rnn_and_gru():
    for cls in (nn.RNN, nn.GRU):
        with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
            cls(3, 4, proj_size=0)


def test_torch_checkpoint_loads():
    ck = FIX["checkpoint"]
    m = nn.LSTM(**ck["args"])
    m.load_state_dict(glia.load(os.path.join(ROOT, "tests", "golden", "modules", ck["file"])))
    out, (h, c) = m(T(ck["input"]))
    for t, want, name in zip((out, h, c), ck["outs"], ("output", "h_n", "c_n")):
        close(t, want, 1e-6, name)


def test_attributes_and_all_weights():
    m = nn.LSTM(3, 5, 2, bidirectional=True, proj_size=2, batch_first=True)
    assert (m.input_size, m.hidden_size, m.num_layers, m.proj_size) == (3, 5, 2, 2)
    assert m.batch_first and m.bidirectional and m.bias and m.dropout == 0.0
    assert [list(w.shape) for w in m.all_weights[3]] == [[20, 4], [20, 2], [20], [20], [2, 5]]
    assert m.all_weights[0][0] is m.weight_ih_l0
    c = nn.GRUCell(3, 4, bias=False)
    assert c.bias_ih is None and c.bias_hh is None and list(c.weight_ih.shape) == [12, 3]


def test_init_bound():
    glia.manual_seed(0)
    m = nn.GRU(8, 25, num_layers=2)
    for p in m.parameters():
        v = p.detach().numpy()
        assert np.all(np.abs(v) <= 0.2) and np.abs(v).max() > 0.15


def test_char_lstm_language_model_learns():
    """A character-level LSTM language model in torch's idiom: Embedding -> LSTM -> Linear, Adam."""
    glia.manual_seed(1)
    text = "hello world, hello glia. " * 4
    chars = sorted(set(text))
    idx = np.array([chars.index(ch) for ch in text], dtype=np.int64)

    class CharLM(nn.Module):
        def __init__(self, vocab, hidden):
            super().__init__()
            self.emb = nn.Embedding(vocab, 8)
            self.lstm = nn.LSTM(8, hidden, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, x, state=None):
            out, state = self.lstm(self.emb(x), state)
            return self.head(out), state

    model = CharLM(len(chars), 32)
    opt = glia.optim.Adam(model.parameters(), lr=0.02)
    x = glia.from_numpy(idx[:-4].reshape(4, -1).copy())
    y = glia.from_numpy(idx[1:-3].reshape(4, -1).copy())
    losses = []
    for _ in range(60):
        opt.zero_grad()
        logits, _ = model(x)
        loss = nn.functional.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[0] > math.log(len(chars)) * 0.8
    assert losses[-1] < 0.3 * losses[0], losses


# ---- torch.nn.utils.rnn ----------------------------------------------------------------------------------
from glia.nn.utils import rnn as rnn_utils  # noqa: E402


def _maybe(enc):
    return None if enc is None else T(enc) if enc["dtype"] in _NP else glia.from_numpy(
        np.array(enc["values"], dtype=np.int64).reshape(enc["shape"]))


def same_ints(t, enc, where):
    if enc is None:
        assert t is None, where
    else:
        assert t.tolist() == np.array(enc["values"]).reshape(enc["shape"]).tolist(), where


@pytest.mark.parametrize("c", FIX["packed"], ids=[c["name"] for c in FIX["packed"]])
def test_packed_golden(c):
    m = build(c)
    m.load_state_dict({p["name"]: T(p["value"]) for p in c["params"]})
    m.train(c["train"])
    xs = [T(x).requires_grad_() for x in c["inputs"]]
    bf = c["args"].get("batch_first", False)
    packed = rnn_utils.pack_padded_sequence(xs[0], glia.from_numpy(np.array(c["lengths"], dtype=np.int64)),
                                            batch_first=bf, enforce_sorted=c["enforce_sorted"])
    assert isinstance(packed, rnn_utils.PackedSequence)
    close(packed.data, c["packed"][0], c["tol"], "packed data")
    for t, enc, name in zip(packed[1:], c["packed"][1:], ("batch_sizes", "sorted", "unsorted")):
        same_ints(t, enc, name)
    if len(xs) == 1:
        out, hidden = m(packed)
    else:
        out, hidden = m(packed, (xs[1], xs[2]) if c["module"] == "LSTM" else xs[1])
    assert isinstance(out, rnn_utils.PackedSequence)
    close(out.data, c["out_data"], c["tol"], "output data")
    padded, lengths = rnn_utils.pad_packed_sequence(out, batch_first=bf)
    same_ints(lengths, c["out_lengths"], "lengths")
    outs = [padded] + (list(hidden) if c["module"] == "LSTM" else [hidden])
    loss = None
    for k, (o, want, w) in enumerate(zip(outs, c["outs"], c["w"])):
        close(o, want, c["tol"], "out%d" % k)
        term = (o * T(w)).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    for i, x in enumerate(xs):
        close(x.grad, c["grads"]["input%d" % i], c["tol"], "grad input%d" % i)
    for name, p in m.named_parameters():
        close(p.grad, c["grads"][name], c["tol"], "grad " + name)


@pytest.mark.parametrize("u", FIX["utils"], ids=[u["name"] for u in FIX["utils"]])
def test_pad_utilities(u):
    seqs = [T(q) for q in u["sequences"]]
    if u["fn"] == "pad_sequence":
        out = rnn_utils.pad_sequence(seqs, batch_first=u["batch_first"], padding_value=u["padding_value"])
        close(out, u["out"], 0, "pad_sequence")
        assert [t.tolist() for t in rnn_utils.unpad_sequence(out, [len(q) for q in seqs], u["batch_first"])] == \
            [q.tolist() for q in seqs]
        return
    packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    out, lengths = rnn_utils.pad_packed_sequence(packed, batch_first=u["batch_first"],
                                                 padding_value=u["padding_value"], total_length=u["total_length"])
    close(out, u["out"], 0, "pad_packed_sequence")
    same_ints(lengths, u["lengths"], "lengths")
    assert [t.tolist() for t in rnn_utils.unpack_sequence(packed)] == [q.tolist() for q in seqs]


@pytest.mark.parametrize("e", FIX["utils_errors"], ids=[e["name"] for e in FIX["utils_errors"]])
def test_pad_utility_errors(e):
    if e["fn"] == "pack_padded_sequence":
        exc, call = RuntimeError, lambda: rnn_utils.pack_padded_sequence(T(e["input"]), e["lengths"],
                                                                         enforce_sorted=e["enforce_sorted"])
    elif e["fn"] == "pad_sequence":
        exc, call = RuntimeError, lambda: rnn_utils.pad_sequence([])
    else:
        packed = rnn_utils.pack_sequence([T(q) for q in e["sequences"]], enforce_sorted=False)
        exc, call = ValueError, lambda: rnn_utils.pad_packed_sequence(packed, total_length=e["total_length"])
    with pytest.raises(exc) as info:
        call()
    assert e["message"] in str(info.value)
